"""A project-managed Neo4j 5.26 LTS Community server, assembled from Maven jars.

Why this exists: graphmem needs a real Neo4j (vector + fulltext indexes, Bolt,
Browser UI) on machines without Docker.  Neo4j Community is published on Maven
Central as ordinary jars, so instead of downloading a tarball we let Maven
resolve ``org.neo4j:neo4j`` plus ``org.neo4j.client:neo4j-browser`` into a flat
``lib/`` directory -- the same layout the official distribution uses -- and
launch the server with a plain ``java -cp 'lib/*'``.

One module per step:

* ``config``: ``Neo4jServerConfig`` (home, ports, memory, timeouts) and the environment it reads;
* ``maven``: ``install()``, the jars from Maven Central;
* ``neo4j_conf``: ``conf/neo4j.conf`` and the JVM flags;
* ``process``: java command lines, launching, pid checks, stopping;
* ``state``: the pid/ports file of the server we started;
* ``status``: ``status()`` and the Bolt/HTTP probes;
* ``lifecycle``: ``start()`` and ``stop()``;
* ``command``: ``graphmem neo4j install|start|stop|status``.

Layout of the home directory (default ``~/.cache/graphmem/neo4j-5.26``)::

    pom.xml                 generated; only used by ``mvn dependency:copy-dependencies``
    lib/                    all runtime jars (+ marker file once complete)
    conf/neo4j.conf         generated on every start from the config
    data/ logs/ run/ import/ plugins/
    logs/console.log        stdout/stderr of the JVM
    run/graphmem-neo4j.json pid + ports of the server we started

Environment variables (all optional):

* ``GRAPHMEM_NEO4J_HOME``      exact cache/home directory
* ``GRAPHMEM_HOME``            parent directory; the home becomes ``$GRAPHMEM_HOME/neo4j-5.26``
* ``GRAPHMEM_NEO4J_LIB_DIR``   reuse an existing, complete ``lib/`` directory
* ``GRAPHMEM_NEO4J_BOLT_PORT`` (default 7687), ``GRAPHMEM_NEO4J_HTTP_PORT`` (default 7474)
* ``GRAPHMEM_NEO4J_PASSWORD``  initial password of user ``neo4j`` (default ``graphmem-password``)
* ``GRAPHMEM_NEO4J_PAGECACHE`` page cache size (default ``4g``)
* ``JAVA_HOME``                which JVM to use (else ``java`` on ``PATH``); Java 17 or 21

CLI: ``graphmem neo4j install|start|stop|status`` (or ``python -m graphmem.neo4j_server ...``).

>>> from graphmem import neo4j_server
>>> neo4j_server.NEO4J_VERSION
'5.26.30'
"""

from graphmem.neo4j_server.command import add_subparser, main
from graphmem.neo4j_server.config import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    ENV_BOLT_PORT,
    ENV_HOME,
    ENV_HTTP_PORT,
    ENV_LIB_DIR,
    ENV_PAGECACHE,
    ENV_PASSWORD,
    Neo4jServerConfig,
    ServerTimeouts,
    default_home,
)
from graphmem.neo4j_server.errors import (
    Neo4jAuthError,
    Neo4jInstallError,
    Neo4jServerError,
    Neo4jStartError,
    PortInUseError,
)
from graphmem.neo4j_server.lifecycle import password, start, stop
from graphmem.neo4j_server.maven import (
    BROWSER_VERSION,
    NEO4J_VERSION,
    install,
    is_installed,
)
from graphmem.neo4j_server.status import Neo4jServerStatus, status

__all__ = [
    "BROWSER_VERSION",
    "DEFAULT_PASSWORD",
    "DEFAULT_USER",
    "ENV_BOLT_PORT",
    "ENV_HOME",
    "ENV_HTTP_PORT",
    "ENV_LIB_DIR",
    "ENV_PAGECACHE",
    "ENV_PASSWORD",
    "NEO4J_VERSION",
    "Neo4jAuthError",
    "Neo4jInstallError",
    "Neo4jServerConfig",
    "Neo4jServerError",
    "Neo4jServerStatus",
    "Neo4jStartError",
    "PortInUseError",
    "ServerTimeouts",
    "add_subparser",
    "default_home",
    "install",
    "is_installed",
    "main",
    "password",
    "start",
    "status",
    "stop",
]
