"""One managed server's settings: where it lives, how it is reached, how big it is, how long to wait.

>>> config = Neo4jServerConfig(home="/tmp/neo4j-home", bolt_port=7688, http_port=7475)
>>> config.bolt_uri, config.conf_file.as_posix()
('bolt://127.0.0.1:7688', '/tmp/neo4j-home/conf/neo4j.conf')
>>> config.timeouts.start
120.0

The numbers behind the defaults (page cache, vector segments) are told in ``docs/neo4j-server.md``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.neo4j_server.errors import Neo4jServerError
from graphmem.settings import VARIABLES, Settings

__all__ = [
    "DEFAULT_PASSWORD",
    "DEFAULT_USER",
    "ENV_BOLT_PORT",
    "ENV_GRAPHMEM_HOME",
    "ENV_HOME",
    "ENV_HTTP_PORT",
    "ENV_LIB_DIR",
    "ENV_PAGECACHE",
    "ENV_PASSWORD",
    "HOME_DIR_NAME",
    "MIN_PASSWORD_LENGTH",
    "Neo4jServerConfig",
    "ServerTimeouts",
    "default_home",
]

#: The user graphmem's server is reached as (the only one Neo4j Community creates).
DEFAULT_USER = "neo4j"
#: The initial password ``start()`` gives user ``neo4j`` unless ``GRAPHMEM_NEO4J_PASSWORD`` names another.
DEFAULT_PASSWORD = "graphmem-password"
#: Neo4j's ``dbms.security.auth_minimum_password_length`` default.
MIN_PASSWORD_LENGTH = 8

# The variables the server's settings come from (read by ``graphmem.settings``).
ENV_HOME = VARIABLES["neo4j_home"]
ENV_GRAPHMEM_HOME = VARIABLES["home"]
ENV_LIB_DIR = VARIABLES["neo4j_lib_dir"]
ENV_BOLT_PORT = VARIABLES["neo4j_bolt_port"]
ENV_HTTP_PORT = VARIABLES["neo4j_http_port"]
ENV_PASSWORD = VARIABLES["neo4j_password"]
ENV_PAGECACHE = VARIABLES["neo4j_pagecache"]

#: The home's folder name under ``$GRAPHMEM_HOME`` or ``~/.cache/graphmem``.
HOME_DIR_NAME = "neo4j-5.26"
_STATE_NAME = "graphmem-neo4j.json"
_CONSOLE_LOG_NAME = "console.log"
_MEMORY_SIZE = re.compile(r"[1-9][0-9]*[kmgKMG]?")


def default_home(settings: Settings | None = None) -> Path:
    """Return the cache/home directory chosen by the environment.

    ``$GRAPHMEM_NEO4J_HOME`` wins, then ``$GRAPHMEM_HOME/neo4j-5.26``, then
    ``$XDG_CACHE_HOME/graphmem/neo4j-5.26`` (``~/.cache`` when unset).
    """
    settings = settings or Settings.from_environment()
    if settings.neo4j_home is not None:
        return settings.neo4j_home.expanduser().resolve()
    if settings.home is not None:
        return (settings.home.expanduser() / HOME_DIR_NAME).resolve()
    cache_root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (cache_root.expanduser() / "graphmem" / HOME_DIR_NAME).resolve()


@dataclass(frozen=True)
class ServerTimeouts:
    """How long each step of running the server may take, in seconds."""

    #: start() waits this long for Bolt, then HTTP: a first start creates the system database.
    start: float = 120.0
    #: SIGTERM grace before SIGKILL: a clean shutdown of a small store (checkpoint, connector drain) takes 10-15 s.
    stop: float = 60.0
    #: Maven's download of the ~200 jars on a slow link.
    install: float = 1800.0
    #: One ``neo4j-admin`` run (a JVM start): ``dbms set-initial-password``.
    admin: float = 120.0
    #: After SIGKILL, how long to wait for the process to be gone.
    kill: float = 10.0
    #: One Bolt connection attempt while waiting for the server.
    bolt_connect: float = 5.0
    #: One read of the HTTP discovery document (the server's version).
    http_probe: float = 2.0


@dataclass(frozen=True)
class Neo4jServerConfig:
    """Everything needed to install, configure, start and reach one server.

    ``lib_dir`` defaults to ``home/lib``; pointing it at another complete lib
    directory lets several homes (e.g. tests) share one download.
    """

    #: The server's own folder: conf/, data/, logs/, run/ (and lib/ unless ``lib_dir`` is given).
    home: Path
    #: A complete lib directory to reuse instead of ``home/lib`` (one download for many homes).
    lib_dir: Path | None = None
    #: Neo4j's own default Bolt port, so drivers and tools find the server without being told.
    bolt_port: int = 7687
    #: Neo4j's own default HTTP port (the Browser at /browser/).
    http_port: int = 7474
    #: The password of user ``neo4j``; it takes effect when the store is created.
    password: str = DEFAULT_PASSWORD
    #: Listen on loopback only: the server is the local user's, with a well-known default password.
    host: str = "127.0.0.1"
    #: Heap at start: enough for the queries' working memory without a resize in the first minutes.
    heap_initial: str = "1g"
    #: Heap ceiling: with the page cache, leaves most of a 2-core / 24 GB machine to the embedding model.
    heap_max: str = "2g"
    #: Holds a 1M-unit memory's store files (~3 GB), which a small namespace's exact vector search reads whole.
    pagecache: str = "4g"
    #: Lucene merge factor of vector segments (Neo4j's: 50): fewer segments, faster vector queries, more merging.
    vector_merge_factor: int = 10
    #: RAM buffer (MB) of a vector index being populated (Neo4j's: 1): each buffer becomes a segment queries search.
    vector_population_ram_mb: int = 128
    #: Transaction logs kept for recovery; bounded so a bulk ingest does not fill the disk.
    tx_log_retention: str = "2 days 2G"
    #: The java executable; None: ``$JAVA_HOME/bin/java``, else ``java`` on PATH (Java 17 or 21).
    java: str | None = None
    #: The Maven executable that downloads the jars.
    mvn: str = "mvn"
    #: How long install, start, stop and the probes may take.
    timeouts: ServerTimeouts = field(default_factory=ServerTimeouts)

    def __post_init__(self) -> None:
        # Normalise paths once so pid/cmdline comparisons are reliable.
        object.__setattr__(self, "home", Path(self.home).expanduser().resolve())
        if self.lib_dir is not None:
            object.__setattr__(self, "lib_dir", Path(self.lib_dir).expanduser().resolve())
        for what, port in (("bolt", self.bolt_port), ("http", self.http_port)):
            if not 1 <= int(port) <= 65535:
                raise Neo4jServerError(f"invalid {what} port {port}")
        if self.bolt_port == self.http_port:
            raise Neo4jServerError(f"bolt and http port must differ (both {self.bolt_port})")
        for what, size in (("heap_initial", self.heap_initial), ("heap_max", self.heap_max), ("pagecache", self.pagecache)):
            if not _MEMORY_SIZE.fullmatch(str(size)):
                raise Neo4jServerError(f"invalid {what} {size!r}: give a size such as '512m' or '4g'")
        if len(self.password) < MIN_PASSWORD_LENGTH:
            raise Neo4jServerError(
                f"Neo4j requires passwords of at least {MIN_PASSWORD_LENGTH} characters"
            )

    @classmethod
    def from_env(
        cls,
        home: str | os.PathLike[str] | None = None,
        *,
        lib_dir: str | os.PathLike[str] | None = None,
        bolt_port: int | None = None,
        http_port: int | None = None,
        password: str | None = None,
        pagecache: str | None = None,
        **kwargs: Any,
    ) -> Neo4jServerConfig:
        """Build a config from explicit arguments, falling back to the environment, then the defaults.

        >>> Neo4jServerConfig.from_env("/tmp/neo4j-home", bolt_port=7688, http_port=7475).bolt_port
        7688
        """
        settings = Settings.from_environment()
        chosen: dict[str, Any] = {
            "lib_dir": lib_dir if lib_dir is not None else settings.neo4j_lib_dir,
            "bolt_port": bolt_port if bolt_port is not None else settings.neo4j_bolt_port,
            "http_port": http_port if http_port is not None else settings.neo4j_http_port,
            "password": password if password is not None else settings.neo4j_password,
            "pagecache": pagecache if pagecache is not None else settings.neo4j_pagecache,
        }
        given = {name: value for name, value in chosen.items() if value is not None}
        return cls(home=Path(home) if home is not None else default_home(settings), **given, **kwargs)

    # Derived paths -------------------------------------------------------------
    @property
    def libs(self) -> Path:
        """Directory holding the runtime jars."""
        return self.lib_dir if self.lib_dir is not None else self.home / "lib"

    @property
    def conf_dir(self) -> Path:
        return self.home / "conf"

    @property
    def conf_file(self) -> Path:
        return self.conf_dir / "neo4j.conf"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def console_log(self) -> Path:
        return self.logs_dir / _CONSOLE_LOG_NAME

    @property
    def state_file(self) -> Path:
        return self.run_dir / _STATE_NAME

    @property
    def pid_file(self) -> Path:
        """The official launcher's pid file, written too for people used to it."""
        return self.run_dir / "neo4j.pid"

    @property
    def bolt_uri(self) -> str:
        return f"bolt://{self.host}:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"
