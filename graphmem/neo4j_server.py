"""A project-managed Neo4j 5.26 LTS Community server, assembled from Maven jars.

Why this exists: graphmem needs a real Neo4j (vector + fulltext indexes, Bolt,
Browser UI) on machines without Docker.  Neo4j Community is published on Maven
Central as ordinary jars, so instead of downloading a tarball we let Maven
resolve ``org.neo4j:neo4j`` (which contains ``org.neo4j.server.CommunityEntryPoint``)
plus ``org.neo4j.client:neo4j-browser`` into a flat ``lib/`` directory -- the
same layout the official distribution uses -- and launch the server with a
plain ``java -cp 'lib/*'``.

Layout of the cache directory (default ``~/.cache/graphmem/neo4j-5.26``)::

    pom.xml                 generated; only used by ``mvn dependency:copy-dependencies``
    lib/                    all runtime jars (+ marker file once complete)
    conf/neo4j.conf         generated on every start from the config below
    data/ logs/ run/ import/ plugins/
    logs/console.log        stdout/stderr of the JVM
    run/graphmem-neo4j.json pid + ports of the server we started

Environment variables (all optional):

* ``GRAPHMEM_NEO4J_HOME``      exact cache/home directory
* ``GRAPHMEM_HOME``            parent directory; the home becomes ``$GRAPHMEM_HOME/neo4j-5.26``
* ``GRAPHMEM_NEO4J_LIB_DIR``   reuse an existing, complete ``lib/`` directory
* ``GRAPHMEM_NEO4J_BOLT_PORT`` (default 7687), ``GRAPHMEM_NEO4J_HTTP_PORT`` (default 7474)
* ``GRAPHMEM_NEO4J_PASSWORD``  initial password of user ``neo4j`` (default ``graphmem-password``)
* ``JAVA_HOME``                which JVM to use (else ``java`` on ``PATH``); Java 17 or 21

CLI: ``python -m graphmem.neo4j_server install|start|stop|status``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import fcntl
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

# --------------------------------------------------------------------------- constants

NEO4J_GROUP_ID = "org.neo4j"
NEO4J_ARTIFACT_ID = "neo4j"
#: Latest 5.26 LTS patch on Maven Central when this was written (5.26.27 was never published).
NEO4J_VERSION = "5.26.30"
BROWSER_GROUP_ID = "org.neo4j.client"
BROWSER_ARTIFACT_ID = "neo4j-browser"
#: Newest Browser published to Maven Central; it speaks Bolt 5 and works with 5.26.
BROWSER_VERSION = "5.24.0"
#: Pinned so installs do not depend on whatever default plugin version Maven ships.
DEPENDENCY_PLUGIN_VERSION = "3.8.1"

SERVER_MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
#: The ``neo4j-admin`` launcher; it forks ``org.neo4j.cli.AdminTool`` with the same classpath.
ADMIN_MAIN_CLASS = "org.neo4j.server.startup.Neo4jAdminCommand"

DEFAULT_BOLT_PORT = 7687
DEFAULT_HTTP_PORT = 7474
DEFAULT_PASSWORD = "graphmem-password"
DEFAULT_USER = "neo4j"
#: Neo4j's ``dbms.security.auth_minimum_password_length`` default.
MIN_PASSWORD_LENGTH = 8

ENV_HOME = "GRAPHMEM_NEO4J_HOME"
ENV_GRAPHMEM_HOME = "GRAPHMEM_HOME"
ENV_LIB_DIR = "GRAPHMEM_NEO4J_LIB_DIR"
ENV_BOLT_PORT = "GRAPHMEM_NEO4J_BOLT_PORT"
ENV_HTTP_PORT = "GRAPHMEM_NEO4J_HTTP_PORT"
ENV_PASSWORD = "GRAPHMEM_NEO4J_PASSWORD"
ENV_PAGECACHE = "GRAPHMEM_NEO4J_PAGECACHE"
DEFAULT_PAGECACHE = "4g"
_MEMORY_SIZE = re.compile(r"[1-9][0-9]*[kmgKMG]?")

_HOME_DIR_NAME = "neo4j-5.26"
_MARKER_NAME = ".graphmem-neo4j-installed.json"
_STATE_NAME = "graphmem-neo4j.json"
_CONSOLE_LOG_NAME = "console.log"
#: Jars whose presence we double-check besides the marker (cheap sanity check).
_KEY_JARS = (
    f"{NEO4J_ARTIFACT_ID}-{NEO4J_VERSION}.jar",
    f"neo4j-server-{NEO4J_VERSION}.jar",
    f"{BROWSER_ARTIFACT_ID}-{BROWSER_VERSION}.jar",
)

#: JVM flags the official launcher takes from ``server.jvm.additional`` in the shipped
#: 5.x ``neo4j.conf``.  A plain ``java -cp`` launch bypasses that launcher, so we must
#: pass them ourselves.  The ``--add-opens`` lines matter: without
#: ``java.base/java.nio`` open, Lucene's HNSW merge cannot reach DirectByteBuffer and
#: vector index population can stall; Netty needs the other two for direct buffers.
JVM_ADDITIONAL: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
    # The bootloader always adds this; without it non-ASCII text depends on the locale.
    "-Dfile.encoding=UTF-8",
)


# --------------------------------------------------------------------------- errors


class Neo4jServerError(RuntimeError):
    """Base class for every failure of the managed Neo4j server."""


class Neo4jInstallError(Neo4jServerError):
    """Maven could not provide the jars (no ``mvn``, no network, bad coordinates)."""


class PortInUseError(Neo4jServerError):
    """A port we need is held by a process that is not our server."""

    def __init__(self, port: int, what: str, env_var: str) -> None:
        super().__init__(
            f"{what} port {port} on 127.0.0.1 is already in use by another process "
            f"(not the graphmem-managed Neo4j). Stop that process or choose another port "
            f"(e.g. {env_var}=<port> or --{what.lower()}-port)."
        )
        self.port = port
        self.what = what


class Neo4jStartError(Neo4jServerError):
    """The JVM exited or Bolt did not answer in time; the message carries the log tail."""


class Neo4jAuthError(Neo4jServerError):
    """The server runs but refuses the configured password."""


# --------------------------------------------------------------------------- config


def default_home() -> Path:
    """Return the cache/home directory chosen by the environment.

    ``$GRAPHMEM_NEO4J_HOME`` wins, then ``$GRAPHMEM_HOME/neo4j-5.26``, then
    ``$XDG_CACHE_HOME/graphmem/neo4j-5.26`` (``~/.cache`` when unset).
    """
    explicit = os.environ.get(ENV_HOME)
    if explicit:
        return Path(explicit).expanduser().resolve()
    graphmem_home = os.environ.get(ENV_GRAPHMEM_HOME)
    if graphmem_home:
        return (Path(graphmem_home).expanduser() / _HOME_DIR_NAME).resolve()
    cache_root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (cache_root.expanduser() / "graphmem" / _HOME_DIR_NAME).resolve()


def _env_port(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        port = int(raw)
    except ValueError as exc:
        raise Neo4jServerError(f"{name}={raw!r} is not a port number") from exc
    return port


@dataclass(frozen=True)
class Neo4jServerConfig:
    """Everything needed to install, configure, start and reach one server.

    ``lib_dir`` defaults to ``home/lib``; pointing it at another complete lib
    directory lets several homes (e.g. tests) share one download.
    """

    home: Path
    lib_dir: Path | None = None
    bolt_port: int = DEFAULT_BOLT_PORT
    http_port: int = DEFAULT_HTTP_PORT
    password: str = DEFAULT_PASSWORD
    host: str = "127.0.0.1"
    # 1g/2g heap + 4g page cache leaves plenty of a 2-core / 24 GB machine for the embedding model and
    # the application itself. The page cache holds the store files (not the Lucene indexes): a memory of
    # 1M units with vectors keeps ~3 GB of them, and a small namespace's exact vector search reads all of
    # its vectors (1,000 namespaces of 1k units at 1M: dialogue recall p95 91-117 ms with 1g, 37-45 ms
    # with 4g; README, Scale). Neo4j takes page cache memory as pages are used, so a small memory costs
    # little. ``from_env`` reads GRAPHMEM_NEO4J_PAGECACHE (e.g. "8g") to change it.
    heap_initial: str = "1g"
    heap_max: str = "2g"
    pagecache: str = DEFAULT_PAGECACHE
    java: str | None = None
    mvn: str = "mvn"

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
        **kwargs: object,
    ) -> Neo4jServerConfig:
        """Build a config from explicit arguments, falling back to the environment."""
        env_lib = os.environ.get(ENV_LIB_DIR)
        return cls(
            home=Path(home) if home is not None else default_home(),
            lib_dir=Path(lib_dir) if lib_dir is not None else (Path(env_lib) if env_lib else None),
            bolt_port=bolt_port if bolt_port is not None else _env_port(ENV_BOLT_PORT, DEFAULT_BOLT_PORT),
            http_port=http_port if http_port is not None else _env_port(ENV_HTTP_PORT, DEFAULT_HTTP_PORT),
            password=password if password is not None else os.environ.get(ENV_PASSWORD, DEFAULT_PASSWORD),
            pagecache=pagecache if pagecache is not None else (os.environ.get(ENV_PAGECACHE) or DEFAULT_PAGECACHE),
            **kwargs,  # type: ignore[arg-type]
        )

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
    def bolt_uri(self) -> str:
        return f"bolt://{self.host}:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"


@dataclass(frozen=True)
class Neo4jServerStatus:
    """What ``status()``/``start()`` report about the managed server."""

    running: bool
    pid: int | None
    bolt_uri: str
    http_url: str
    version: str | None
    home: Path


@dataclass(frozen=True)
class _ServerState:
    """Contents of ``run/graphmem-neo4j.json``: what we actually launched."""

    pid: int
    bolt_port: int
    http_port: int
    host: str
    home: str
    started_at: float


# --------------------------------------------------------------------------- install


def _pom_xml() -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by graphmem.neo4j_server; only used to fetch the Neo4j server jars. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>graphmem.local</groupId>
  <artifactId>neo4j-server-runtime</artifactId>
  <version>{NEO4J_VERSION}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>{NEO4J_GROUP_ID}</groupId>
      <artifactId>{NEO4J_ARTIFACT_ID}</artifactId>
      <version>{NEO4J_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>{BROWSER_GROUP_ID}</groupId>
      <artifactId>{BROWSER_ARTIFACT_ID}</artifactId>
      <version>{BROWSER_VERSION}</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>{DEPENDENCY_PLUGIN_VERSION}</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
"""


def _expected_marker() -> dict[str, str]:
    return {
        "neo4j": f"{NEO4J_GROUP_ID}:{NEO4J_ARTIFACT_ID}:{NEO4J_VERSION}",
        "browser": f"{BROWSER_GROUP_ID}:{BROWSER_ARTIFACT_ID}:{BROWSER_VERSION}",
    }


def is_installed(lib_dir: str | os.PathLike[str]) -> bool:
    """True when ``lib_dir`` holds a complete install of the pinned versions."""
    lib = Path(lib_dir)
    marker = lib / _MARKER_NAME
    try:
        recorded = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict) or recorded.get("artifacts") != _expected_marker():
        return False
    return all((lib / jar).is_file() for jar in _KEY_JARS)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Exclusive advisory lock so concurrent graphmem processes do not race."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install(
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    mvn: str = "mvn",
    force: bool = False,
    timeout: float = 1800.0,
) -> Path:
    """Download the Neo4j server + Browser jars into ``<cache_dir>/lib`` with Maven.

    Idempotent: returns immediately when the marker file says the lib dir is
    complete.  Jars are copied into a scratch directory first and renamed into
    place, so an interrupted install never looks complete.  Returns the lib dir.
    """
    home = Path(cache_dir).expanduser().resolve() if cache_dir is not None else default_home()
    lib = home / "lib"
    if not force and is_installed(lib):
        logger.debug("Neo4j jars already installed in %s", lib)
        return lib
    mvn_path = shutil.which(mvn)
    if mvn_path is None:
        raise Neo4jInstallError(f"Maven executable {mvn!r} not found on PATH; install Maven 3.8+")
    home.mkdir(parents=True, exist_ok=True)
    with _file_lock(home / ".install.lock"):
        # Another process may have finished the install while we waited for the lock.
        if not force and is_installed(lib):
            return lib
        pom = home / "pom.xml"
        pom.write_text(_pom_xml(), encoding="utf-8")
        scratch = home / f"lib.partial-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        cmd = [
            mvn_path, "-q", "-B", "-Dstyle.color=never",
            "-f", str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={scratch}",
            "-DincludeScope=runtime",
        ]
        logger.info("Downloading Neo4j %s + Browser %s with Maven into %s", NEO4J_VERSION, BROWSER_VERSION, lib)
        started = time.monotonic()
        try:
            proc = subprocess.run(
                cmd, cwd=home, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as exc:
            shutil.rmtree(scratch, ignore_errors=True)
            raise Neo4jInstallError(f"Maven did not finish within {timeout:.0f}s: {' '.join(cmd)}") from exc
        if proc.returncode != 0:
            shutil.rmtree(scratch, ignore_errors=True)
            output = (proc.stdout + proc.stderr).strip().splitlines()
            raise Neo4jInstallError(
                f"Maven failed (exit {proc.returncode}) running {' '.join(cmd)}:\n" + "\n".join(output[-40:])
            )
        missing = [jar for jar in _KEY_JARS if not (scratch / jar).is_file()]
        if missing:
            shutil.rmtree(scratch, ignore_errors=True)
            raise Neo4jInstallError(f"Maven finished but these jars are missing: {missing}")
        (scratch / _MARKER_NAME).write_text(
            json.dumps({"artifacts": _expected_marker(), "installed_at": time.time()}, indent=2),
            encoding="utf-8",
        )
        # Replace an incomplete/outdated lib dir (or a stale symlink) atomically enough.
        if lib.is_symlink() or lib.is_file():
            lib.unlink()
        elif lib.exists():
            shutil.rmtree(lib)
        os.replace(scratch, lib)
        logger.info("Installed %d jars in %.1fs", len(list(lib.glob("*.jar"))), time.monotonic() - started)
    return lib


# --------------------------------------------------------------------------- config file


#: Lucene merge factor of vector index segments (Neo4j's default: 50). Fewer segments make every vector
#: query faster at the cost of more merging while vectors are written.
VECTOR_MERGE_FACTOR = 10
#: RAM buffer, in MB, of a vector index being populated (an index created over nodes that already have
#: vectors, as when an older database is upgraded; Neo4j's default: 1). Population does not merge, so each
#: buffer becomes a Lucene segment that every vector query then searches. At 1M units: one index
#: populated with Neo4j's default was left with 200 segments (turn query 69-74 ms p50, commit af7d078); the two
#: per-kind indexes populated with 128 MB buffers, 9 each (17-23 ms), in 20 minutes instead of 11.
VECTOR_POPULATION_RAM_MB = 128


def render_config(config: Neo4jServerConfig) -> str:
    """Return the text of ``neo4j.conf`` for ``config`` (pure; for tests and docs)."""
    host = config.host
    lines = [
        "# Generated by graphmem.neo4j_server -- rewritten on every start; edit the Python config instead.",
        f"server.directories.data={config.data_dir}",
        f"server.directories.logs={config.logs_dir}",
        f"server.directories.run={config.run_dir}",
        f"server.directories.import={config.home / 'import'}",
        f"server.directories.plugins={config.home / 'plugins'}",
        f"server.directories.lib={config.libs}",
        f"server.default_listen_address={host}",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={host}:{config.bolt_port}",
        # The advertised port does not follow the listen port; the Browser reads it
        # from the HTTP discovery document, so it must match or the UI cannot connect.
        f"server.bolt.advertised_address={host}:{config.bolt_port}",
        "server.http.enabled=true",
        f"server.http.listen_address={host}:{config.http_port}",
        f"server.http.advertised_address={host}:{config.http_port}",
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        "dbms.usage_report.enabled=false",
        f"server.memory.heap.initial_size={config.heap_initial}",
        f"server.memory.heap.max_size={config.heap_max}",
        f"server.memory.pagecache.size={config.pagecache}",
        "db.tx_log.rotation.retention_policy=2 days 2G",
        # A vector index query searches every Lucene segment of the index one after the other; Neo4j 5.26
        # merges vector segments only once 50 of one size have piled up (it spares writes the cost of
        # merging HNSW graphs), so a bulk-written index answers from dozens of segments. Merging at 10
        # keeps them few (see VECTOR_MERGE_FACTOR).
        f"internal.dbms.index.vector.standard_merge_factor={VECTOR_MERGE_FACTOR}",
        # An index populated over existing vectors gets one segment per buffer (see VECTOR_POPULATION_RAM_MB).
        f"internal.dbms.index.vector.population_ram_buffer_size={VECTOR_POPULATION_RAM_MB}",
    ]
    # Recorded for humans and for the official launcher; our own launch passes the
    # same list on the java command line (see _server_command).
    lines += [f"server.jvm.additional={flag}" for flag in JVM_ADDITIONAL]
    return "\n".join(lines) + "\n"


def write_config(config: Neo4jServerConfig) -> Path:
    """Create the home directories and write ``conf/neo4j.conf``; return its path."""
    for directory in (config.conf_dir, config.data_dir, config.logs_dir, config.run_dir,
                      config.home / "import", config.home / "plugins"):
        directory.mkdir(parents=True, exist_ok=True)
    config.conf_file.write_text(render_config(config), encoding="utf-8")
    return config.conf_file


# --------------------------------------------------------------------------- java / processes


def _java_executable(config: Neo4jServerConfig) -> str:
    if config.java:
        return config.java
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise Neo4jServerError("no Java found (set JAVA_HOME or put java 17/21 on PATH)")
    return found


def _classpath(config: Neo4jServerConfig) -> str:
    # Java expands "dir/*" itself; the browser jar must be on it because Neo4j
    # serves /browser/ from the "browser/" resources on the classpath.
    return str(config.libs / "*")


def _server_command(config: Neo4jServerConfig) -> list[str]:
    # Heap flags come from the bootloader in the official launcher; we add them here.
    return [
        _java_executable(config),
        f"-Xms{config.heap_initial}",
        f"-Xmx{config.heap_max}",
        *JVM_ADDITIONAL,
        "-cp", _classpath(config),
        SERVER_MAIN_CLASS,
        # --home-dir is mandatory for CommunityEntryPoint; --config-dir points at conf/.
        f"--home-dir={config.home}",
        f"--config-dir={config.conf_dir}",
    ]


def _neo4j_env(config: Neo4jServerConfig) -> dict[str, str]:
    env = dict(os.environ)
    # The admin bootloader locates home/conf through these (the server uses the args).
    env["NEO4J_HOME"] = str(config.home)
    env["NEO4J_CONF"] = str(config.conf_dir)
    # A stray JAVA_OPTS/HEAP_SIZE would silently override the admin tool's JVM flags.
    env.pop("JAVA_OPTS", None)
    env.pop("HEAP_SIZE", None)
    return env


def _system_db_exists(config: Neo4jServerConfig) -> bool:
    return (config.data_dir / "databases" / "system").exists()


def set_initial_password(config: Neo4jServerConfig, *, timeout: float = 120.0) -> None:
    """Run ``neo4j-admin dbms set-initial-password`` with our classpath.

    Only meaningful before the first start: it writes ``data/dbms/auth.ini``,
    which the server imports when it creates the system database.
    """
    write_config(config)
    cmd = [
        _java_executable(config),
        "-cp", _classpath(config),
        ADMIN_MAIN_CLASS,
        "dbms", "set-initial-password", config.password,
    ]
    try:
        proc = subprocess.run(
            cmd, env=_neo4j_env(config), capture_output=True, text=True,
            timeout=timeout, check=False, cwd=config.home,
        )
    except subprocess.TimeoutExpired as exc:
        raise Neo4jServerError(f"set-initial-password did not finish within {timeout:.0f}s") from exc
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).replace(config.password, "***").strip()
        raise Neo4jServerError(f"neo4j-admin dbms set-initial-password failed (exit {proc.returncode}):\n{output}")
    logger.debug("initial password set for user %r", DEFAULT_USER)


#: Popen objects of servers this interpreter started.  We keep them so we can reap
#: the child: an unreaped, exited child is a zombie that still "exists" for kill(0).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def _pid_alive(pid: int) -> bool:
    child = _CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            _CHILDREN.pop(pid, None)
            return False
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        # Field 3 of /proc/<pid>/stat is the state; "Z" means exited but unreaped.
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _pid_is_our_server(pid: int, home: Path) -> bool:
    """Guard against pid reuse: the process must be CommunityEntryPoint for ``home``."""
    if not _pid_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        # No /proc (macOS): trust the pid file.
        return True
    args = [a.decode(errors="replace") for a in argv]
    return SERVER_MAIN_CLASS in args and f"--home-dir={home}" in args


def _read_state(config: Neo4jServerConfig) -> _ServerState | None:
    try:
        raw = json.loads(config.state_file.read_text(encoding="utf-8"))
        return _ServerState(**raw)
    except (OSError, ValueError, TypeError):
        return None


def _running_state(config: Neo4jServerConfig) -> _ServerState | None:
    """State of our live server for ``config.home``, cleaning up a stale pid file."""
    state = _read_state(config)
    if state is None:
        return None
    if _pid_is_our_server(state.pid, config.home):
        return state
    logger.info("removing stale Neo4j state file for pid %d", state.pid)
    with contextlib.suppress(OSError):
        config.state_file.unlink()
    with contextlib.suppress(OSError):
        (config.run_dir / "neo4j.pid").unlink()
    return None


def _port_is_free(host: str, port: int) -> bool:
    """Can a server bind ``host:port``?  SO_REUSEADDR ignores harmless TIME_WAIT leftovers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"(no {path.name})"
    return "\n".join(text.splitlines()[-lines:]) or f"({path.name} is empty)"


def _log_tails(config: Neo4jServerConfig) -> str:
    return (
        f"--- {config.console_log} ---\n{_tail(config.console_log)}\n"
        f"--- {config.logs_dir / 'neo4j.log'} ---\n{_tail(config.logs_dir / 'neo4j.log')}"
    )


def _http_version(http_url: str, timeout: float = 2.0) -> str | None:
    """Read ``neo4j_version`` from the unauthenticated HTTP discovery document."""
    try:
        with urllib.request.urlopen(http_url + "/", timeout=timeout) as response:  # noqa: S310 - local URL
            document = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    version = document.get("neo4j_version") if isinstance(document, dict) else None
    return str(version) if version else None


def _check_bolt(uri: str, password: str) -> str | None:
    """Try one authenticated Bolt round trip.

    Returns None on success, an error description when the server is not ready
    yet, and raises :class:`Neo4jAuthError` when it answered but refused us.
    """
    import neo4j  # local import: only start()/status need the driver
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    try:
        with neo4j.GraphDatabase.driver(
            uri, auth=(DEFAULT_USER, password), connection_timeout=5.0,
            max_connection_lifetime=30, connection_acquisition_timeout=10.0,
        ) as driver:
            driver.verify_connectivity()
    except AuthError as exc:
        raise Neo4jAuthError(
            f"Neo4j at {uri} refused the configured password for user {DEFAULT_USER!r}. "
            f"The store was initialised with another password: set {ENV_PASSWORD} to that one, "
            f"or stop the server and delete the data directory to start fresh. ({exc})"
        ) from exc
    except (ServiceUnavailable, Neo4jError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _status_from_state(config: Neo4jServerConfig, state: _ServerState | None) -> Neo4jServerStatus:
    if state is None:
        return Neo4jServerStatus(False, None, config.bolt_uri, config.http_url, None, config.home)
    http_url = f"http://{state.host}:{state.http_port}"
    return Neo4jServerStatus(
        running=True,
        pid=state.pid,
        bolt_uri=f"bolt://{state.host}:{state.bolt_port}",
        http_url=http_url,
        version=_http_version(http_url),
        home=config.home,
    )


# --------------------------------------------------------------------------- public API


def password(config: Neo4jServerConfig | None = None) -> str:
    """The password of user ``neo4j`` that start() sets/expects (env or default)."""
    return (config or Neo4jServerConfig.from_env()).password


def status(config: Neo4jServerConfig | None = None) -> Neo4jServerStatus:
    """Report whether our server for ``config.home`` runs, and where.

    When running, the URIs are those of the running process (which may differ
    from ``config`` if it was started with other ports).
    """
    config = config or Neo4jServerConfig.from_env()
    return _status_from_state(config, _running_state(config))


def start(
    config: Neo4jServerConfig | None = None,
    *,
    timeout: float = 120.0,
    install_if_missing: bool = True,
) -> Neo4jServerStatus:
    """Start the server in the background and wait until Bolt accepts our password.

    Harmless when our server for ``config.home`` already runs: it is checked and
    returned.  Raises :class:`PortInUseError` when a port belongs to something
    else, :class:`Neo4jStartError` (with the log tail) when the JVM dies or Bolt
    stays silent for ``timeout`` seconds.
    """
    config = config or Neo4jServerConfig.from_env()
    config.home.mkdir(parents=True, exist_ok=True)
    with _file_lock(config.home / ".start.lock"):
        state = _running_state(config)
        if state is not None:
            if (state.bolt_port, state.http_port) != (config.bolt_port, config.http_port):
                logger.warning(
                    "Neo4j for %s already runs on bolt %d / http %d; ignoring requested ports %d / %d",
                    config.home, state.bolt_port, state.http_port, config.bolt_port, config.http_port,
                )
            running = _status_from_state(config, state)
            error = _check_bolt(running.bolt_uri, config.password)
            if error is not None:
                # Probably still starting up in another process; wait for it like a fresh start.
                _wait_for_bolt(config, running.bolt_uri, state.pid, timeout, started=time.monotonic())
            logger.info("Neo4j already running (pid %d) at %s", state.pid, running.bolt_uri)
            return running

        for port, what, env_var in ((config.bolt_port, "Bolt", ENV_BOLT_PORT),
                                    (config.http_port, "HTTP", ENV_HTTP_PORT)):
            if not _port_is_free(config.host, port):
                raise PortInUseError(port, what, env_var)

        if not is_installed(config.libs):
            if install_if_missing and config.lib_dir is None:
                install(config.home, mvn=config.mvn)
            else:
                raise Neo4jServerError(
                    f"{config.libs} is not a complete Neo4j {NEO4J_VERSION} lib directory; "
                    f"run install() / `python -m graphmem.neo4j_server install` first"
                )

        write_config(config)
        if not _system_db_exists(config):
            # First start of this store: the password only takes effect now.
            set_initial_password(config)

        cmd = _server_command(config)
        logger.info("Starting Neo4j %s: bolt %s, http %s", NEO4J_VERSION, config.bolt_uri, config.http_url)
        logger.debug("command: %s", cmd)
        started = time.monotonic()
        with open(config.console_log, "ab") as console:
            console.write(f"\n=== graphmem start {time.strftime('%Y-%m-%d %H:%M:%S')} ===\n".encode())
            console.flush()
            # New session: the server survives the CLI that started it and does
            # not get the terminal's Ctrl-C.
            proc = subprocess.Popen(
                cmd, cwd=config.home, env=_neo4j_env(config),
                stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT,
                start_new_session=True, close_fds=True,
            )
        _CHILDREN[proc.pid] = proc
        state = _ServerState(
            pid=proc.pid, bolt_port=config.bolt_port, http_port=config.http_port,
            host=config.host, home=str(config.home), started_at=time.time(),
        )
        config.state_file.write_text(json.dumps(dataclasses.asdict(state)), encoding="utf-8")
        # Same place and format as the official launcher, for people used to it.
        (config.run_dir / "neo4j.pid").write_text(f"{proc.pid}\n", encoding="utf-8")

        try:
            _wait_for_bolt(config, config.bolt_uri, proc.pid, timeout, started=started)
            # Bolt comes up a moment before Jetty; wait for HTTP too so the Browser
            # (and the version in the returned status) is ready when we return.
            _wait_for_http(config, config.http_url, proc.pid, timeout, started=started)
        except Neo4jServerError:
            # Do not leave a half-started JVM holding the ports.
            _terminate(proc.pid, timeout=30.0)
            _forget(config, proc.pid)
            raise
        logger.info("Neo4j up after %.1fs (pid %d)", time.monotonic() - started, proc.pid)
        return _status_from_state(config, state)


def _wait_for_bolt(config: Neo4jServerConfig, uri: str, pid: int, timeout: float, *, started: float) -> None:
    last_error = "no attempt yet"
    while True:
        if not _pid_alive(pid):
            raise Neo4jStartError(f"Neo4j (pid {pid}) exited during startup.\n{_log_tails(config)}")
        error = _check_bolt(uri, config.password)
        if error is None:
            return
        last_error = error
        if time.monotonic() - started > timeout:
            raise Neo4jStartError(
                f"Neo4j (pid {pid}) did not answer on {uri} within {timeout:.0f}s "
                f"(last error: {last_error}).\n{_log_tails(config)}"
            )
        time.sleep(0.5)


def _wait_for_http(config: Neo4jServerConfig, http_url: str, pid: int, timeout: float, *, started: float) -> None:
    while _http_version(http_url) is None:
        if not _pid_alive(pid):
            raise Neo4jStartError(f"Neo4j (pid {pid}) exited during startup.\n{_log_tails(config)}")
        if time.monotonic() - started > timeout:
            raise Neo4jStartError(
                f"Neo4j (pid {pid}) answers Bolt but not HTTP on {http_url} within {timeout:.0f}s.\n"
                f"{_log_tails(config)}"
            )
        time.sleep(0.25)


def _terminate(pid: int, *, timeout: float) -> None:
    """SIGTERM (Neo4j shuts down cleanly and checkpoints), SIGKILL if it hangs."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return
        time.sleep(0.2)
    logger.warning("Neo4j (pid %d) ignored SIGTERM for %.0fs; sending SIGKILL", pid, timeout)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.1)


def _forget(config: Neo4jServerConfig, pid: int) -> None:
    child = _CHILDREN.pop(pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=1.0)
    for path in (config.state_file, config.run_dir / "neo4j.pid"):
        with contextlib.suppress(OSError):
            path.unlink()


def stop(config: Neo4jServerConfig | None = None, *, timeout: float = 60.0) -> bool:
    """Stop our server for ``config.home``; return False if it was not running.

    A clean shutdown of a small store takes ~10-15 s (checkpoint + connector
    drain), hence the generous SIGTERM grace period before SIGKILL.
    """
    config = config or Neo4jServerConfig.from_env()
    state = _running_state(config)
    if state is None:
        return False
    logger.info("Stopping Neo4j (pid %d)", state.pid)
    _terminate(state.pid, timeout=timeout)
    _forget(config, state.pid)
    return True


# --------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``install|start|stop|status`` sub-commands and options to ``parser``."""
    parser.add_argument("action", choices=("install", "start", "stop", "status"))
    parser.add_argument("--home", type=Path, default=None,
                        help=f"cache/home dir (default ${ENV_HOME}, $GRAPHMEM_HOME/{_HOME_DIR_NAME} "
                             f"or ~/.cache/graphmem/{_HOME_DIR_NAME})")
    parser.add_argument("--lib-dir", type=Path, default=None, help="reuse an installed lib dir")
    parser.add_argument("--bolt-port", type=int, default=None, help=f"default ${ENV_BOLT_PORT} or 7687")
    parser.add_argument("--http-port", type=int, default=None, help=f"default ${ENV_HTTP_PORT} or 7474")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for Bolt on start")
    parser.add_argument("--force", action="store_true", help="install: download again")


def add_subparser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``neo4j`` on an existing CLI: ``graphmem neo4j start`` etc.

    The sub-parser's ``func`` default is :func:`run_command`, so a CLI that does
    ``args.func(args)`` needs nothing else.
    """
    parser = subparsers.add_parser("neo4j", help="manage the local Neo4j 5.26 server")
    add_arguments(parser)
    parser.set_defaults(func=run_command)
    return parser


def _print_status(st: Neo4jServerStatus) -> None:
    if st.running:
        print(f"Neo4j {st.version or '?'} running (pid {st.pid})")
        print(f"  bolt:    {st.bolt_uri}")
        print(f"  browser: {st.http_url}/browser/")
    else:
        print(f"Neo4j not running (home {st.home})")


def run_command(args: argparse.Namespace) -> int:
    """Execute a parsed ``install|start|stop|status`` command; return an exit code."""
    try:
        config = Neo4jServerConfig.from_env(
            args.home, lib_dir=args.lib_dir, bolt_port=args.bolt_port, http_port=args.http_port
        )
        if args.action == "install":
            started = time.monotonic()
            lib = install(config.home, force=args.force, mvn=config.mvn)
            print(f"Neo4j {NEO4J_VERSION} + Browser {BROWSER_VERSION} installed in {lib} "
                  f"({time.monotonic() - started:.1f}s)")
            return 0
        if args.action == "start":
            st = start(config, timeout=args.timeout)
            _print_status(st)
            print(f"  user:    {DEFAULT_USER} (password from ${ENV_PASSWORD} or the default)")
            return 0
        if args.action == "stop":
            print("Neo4j stopped" if stop(config) else "Neo4j was not running")
            return 0
        st = status(config)
        _print_status(st)
        return 0 if st.running else 3  # 3 = "not running", as in LSB init scripts
    except Neo4jServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m graphmem.neo4j_server``."""
    parser = argparse.ArgumentParser(
        prog="python -m graphmem.neo4j_server", description=(__doc__ or "").split("\n", 1)[0]
    )
    add_arguments(parser)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format="%(message)s")
    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
