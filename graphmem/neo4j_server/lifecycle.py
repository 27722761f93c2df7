"""Starting and stopping our server for a home: ``start()`` installs what is missing, writes the config,
sets the first password, launches the JVM and waits until Bolt accepts the password; ``stop()`` shuts it
down cleanly.

    status = start()            # harmless when it already runs
    print(status.bolt_uri)      # bolt://127.0.0.1:7687, user neo4j, password()
    stop()
"""

from __future__ import annotations

import logging
import time

from graphmem.neo4j_server.config import ENV_BOLT_PORT, ENV_HTTP_PORT, Neo4jServerConfig
from graphmem.neo4j_server.errors import (
    Neo4jServerError,
    Neo4jStartError,
    PortInUseError,
)
from graphmem.neo4j_server.maven import NEO4J_VERSION, file_lock, install, is_installed
from graphmem.neo4j_server.neo4j_conf import write_config
from graphmem.neo4j_server.process import (
    launch,
    pid_alive,
    port_is_free,
    set_initial_password,
    system_db_exists,
    terminate,
)
from graphmem.neo4j_server.state import ServerState, forget, record, running_state
from graphmem.neo4j_server.status import (
    Neo4jServerStatus,
    check_bolt,
    http_version,
    log_tails,
    status_from_state,
)

__all__ = ["password", "start", "stop"]

logger = logging.getLogger(__name__)


def password(config: Neo4jServerConfig | None = None) -> str:
    """The password of user ``neo4j`` that start() sets/expects (env or default)."""
    return (config or Neo4jServerConfig.from_env()).password


def start(
    config: Neo4jServerConfig | None = None,
    *,
    timeout: float | None = None,
    install_if_missing: bool = True,
) -> Neo4jServerStatus:
    """Start the server in the background and wait until Bolt accepts our password.

    Harmless when our server for ``config.home`` already runs: it is checked and
    returned.  Raises :class:`PortInUseError` when a port belongs to something
    else, :class:`Neo4jStartError` (with the log tail) when the JVM dies or Bolt
    stays silent for ``timeout`` seconds (default ``config.timeouts.start``).
    """
    config = config or Neo4jServerConfig.from_env()
    timeout = config.timeouts.start if timeout is None else timeout
    config.home.mkdir(parents=True, exist_ok=True)
    with file_lock(config.home / ".start.lock"):
        state = running_state(config)
        if state is not None:
            return _already_running(config, state, timeout)

        for port, what, env_var in ((config.bolt_port, "Bolt", ENV_BOLT_PORT),
                                    (config.http_port, "HTTP", ENV_HTTP_PORT)):
            if not port_is_free(config.host, port):
                raise PortInUseError(port, what, env_var)

        if not is_installed(config.libs):
            if install_if_missing and config.lib_dir is None:
                install(config.home, mvn=config.mvn, timeout=config.timeouts.install)
            else:
                raise Neo4jServerError(
                    f"{config.libs} is not a complete Neo4j {NEO4J_VERSION} lib directory; "
                    f"run install() / `graphmem neo4j install` first"
                )

        write_config(config)
        if not system_db_exists(config):
            # First start of this store: the password only takes effect now.
            set_initial_password(config)

        logger.info("Starting Neo4j %s: bolt %s, http %s", NEO4J_VERSION, config.bolt_uri, config.http_url)
        started = time.monotonic()
        pid = launch(config)
        state = record(config, pid)
        try:
            _wait_for_bolt(config, config.bolt_uri, pid, timeout, started=started)
            # Bolt comes up a moment before Jetty; wait for HTTP too so the Browser
            # (and the version in the returned status) is ready when we return.
            _wait_for_http(config, config.http_url, pid, timeout, started=started)
        except Neo4jServerError:
            # Do not leave a half-started JVM holding the ports.
            terminate(pid, timeout=30.0, kill_timeout=config.timeouts.kill)
            forget(config, pid)
            raise
        logger.info("Neo4j up after %.1fs (pid %d)", time.monotonic() - started, pid)
        return status_from_state(config, state)


def _already_running(config: Neo4jServerConfig, state: ServerState, timeout: float) -> Neo4jServerStatus:
    """The status of our server that already runs, once it accepts our password."""
    if (state.bolt_port, state.http_port) != (config.bolt_port, config.http_port):
        logger.warning(
            "Neo4j for %s already runs on bolt %d / http %d; ignoring requested ports %d / %d",
            config.home, state.bolt_port, state.http_port, config.bolt_port, config.http_port,
        )
    running = status_from_state(config, state)
    if check_bolt(config, running.bolt_uri) is not None:
        # Probably still starting up in another process; wait for it like a fresh start.
        _wait_for_bolt(config, running.bolt_uri, state.pid, timeout, started=time.monotonic())
    logger.info("Neo4j already running (pid %d) at %s", state.pid, running.bolt_uri)
    return running


def _wait_for_bolt(config: Neo4jServerConfig, uri: str, pid: int, timeout: float, *, started: float) -> None:
    last_error = "no attempt yet"
    while True:
        if not pid_alive(pid):
            raise Neo4jStartError(f"Neo4j (pid {pid}) exited during startup.\n{log_tails(config)}")
        error = check_bolt(config, uri)
        if error is None:
            return
        last_error = error
        if time.monotonic() - started > timeout:
            raise Neo4jStartError(
                f"Neo4j (pid {pid}) did not answer on {uri} within {timeout:.0f}s "
                f"(last error: {last_error}).\n{log_tails(config)}"
            )
        time.sleep(0.5)


def _wait_for_http(config: Neo4jServerConfig, http_url: str, pid: int, timeout: float, *, started: float) -> None:
    while http_version(http_url, config.timeouts.http_probe) is None:
        if not pid_alive(pid):
            raise Neo4jStartError(f"Neo4j (pid {pid}) exited during startup.\n{log_tails(config)}")
        if time.monotonic() - started > timeout:
            raise Neo4jStartError(
                f"Neo4j (pid {pid}) answers Bolt but not HTTP on {http_url} within {timeout:.0f}s.\n"
                f"{log_tails(config)}"
            )
        time.sleep(0.25)


def stop(config: Neo4jServerConfig | None = None, *, timeout: float | None = None) -> bool:
    """Stop our server for ``config.home``; return False if it was not running.

    SIGTERM first, SIGKILL after ``timeout`` seconds (default ``config.timeouts.stop``).
    """
    config = config or Neo4jServerConfig.from_env()
    state = running_state(config)
    if state is None:
        return False
    logger.info("Stopping Neo4j (pid %d)", state.pid)
    terminate(state.pid, timeout=config.timeouts.stop if timeout is None else timeout, kill_timeout=config.timeouts.kill)
    forget(config, state.pid)
    return True
