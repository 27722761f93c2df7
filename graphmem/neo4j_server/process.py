"""The server's processes: the java command lines (server and ``neo4j-admin``), launching, pid checks,
stopping, and whether a port is free.

A plain ``java -cp 'lib/*'`` launch, without the official bootloader: the heap and the JVM flags the
bootloader would add are put on the command line here.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from graphmem.neo4j_server.config import DEFAULT_USER, Neo4jServerConfig
from graphmem.neo4j_server.errors import Neo4jServerError
from graphmem.neo4j_server.neo4j_conf import JVM_ADDITIONAL, write_config

__all__ = [
    "ADMIN_MAIN_CLASS",
    "SERVER_MAIN_CLASS",
    "launch",
    "pid_alive",
    "pid_is_our_server",
    "port_is_free",
    "reap",
    "server_command",
    "set_initial_password",
    "system_db_exists",
    "terminate",
]

logger = logging.getLogger(__name__)

SERVER_MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
#: The ``neo4j-admin`` launcher; it forks ``org.neo4j.cli.AdminTool`` with the same classpath.
ADMIN_MAIN_CLASS = "org.neo4j.server.startup.Neo4jAdminCommand"

#: Popen objects of servers this interpreter started.  We keep them so we can reap
#: the child: an unreaped, exited child is a zombie that still "exists" for kill(0).
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


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


def server_command(config: Neo4jServerConfig) -> list[str]:
    """The java command line of the server for ``config``."""
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


def system_db_exists(config: Neo4jServerConfig) -> bool:
    """Has this home's store been created (by a first start)?"""
    return (config.data_dir / "databases" / "system").exists()


def set_initial_password(config: Neo4jServerConfig, *, timeout: float | None = None) -> None:
    """Run ``neo4j-admin dbms set-initial-password`` with our classpath.

    Only meaningful before the first start: it writes ``data/dbms/auth.ini``,
    which the server imports when it creates the system database.
    """
    timeout = config.timeouts.admin if timeout is None else timeout
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


def launch(config: Neo4jServerConfig) -> int:
    """Start the server's JVM in the background, its output appended to ``logs/console.log``; its pid."""
    cmd = server_command(config)
    logger.debug("command: %s", cmd)
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
    return proc.pid


def reap(pid: int) -> None:
    """Collect the exit status of a server this interpreter started (so it leaves no zombie)."""
    child = _CHILDREN.pop(pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=1.0)


def pid_alive(pid: int) -> bool:
    """Is process ``pid`` running (an exited, unreaped child is not)?"""
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


def pid_is_our_server(pid: int, home: Path) -> bool:
    """Guard against pid reuse: the process must be CommunityEntryPoint for ``home``."""
    if not pid_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        # No /proc (macOS): trust the pid file.
        return True
    args = [a.decode(errors="replace") for a in argv]
    return SERVER_MAIN_CLASS in args and f"--home-dir={home}" in args


def terminate(pid: int, *, timeout: float, kill_timeout: float) -> None:
    """SIGTERM (Neo4j shuts down cleanly and checkpoints), SIGKILL if it hangs for ``timeout`` seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return
        time.sleep(0.2)
    logger.warning("Neo4j (pid %d) ignored SIGTERM for %.0fs; sending SIGKILL", pid, timeout)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + kill_timeout
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.1)


def port_is_free(host: str, port: int) -> bool:
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
