"""Whether our server runs, and what it answers: the status report, the Bolt and HTTP probes, the log tails
an error message carries.

>>> from graphmem.neo4j_server.config import Neo4jServerConfig
>>> status(Neo4jServerConfig(home="/tmp/no-such-neo4j-home")).running
False
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from graphmem.neo4j_server.config import DEFAULT_USER, ENV_PASSWORD, Neo4jServerConfig
from graphmem.neo4j_server.errors import Neo4jAuthError
from graphmem.neo4j_server.state import ServerState, running_state

__all__ = ["Neo4jServerStatus", "check_bolt", "http_version", "log_tails", "status", "status_from_state"]


@dataclass(frozen=True)
class Neo4jServerStatus:
    """What ``status()``/``start()`` report about the managed server."""

    running: bool
    pid: int | None
    bolt_uri: str
    http_url: str
    version: str | None
    home: Path


def status(config: Neo4jServerConfig | None = None) -> Neo4jServerStatus:
    """Report whether our server for ``config.home`` runs, and where.

    When running, the URIs are those of the running process (which may differ
    from ``config`` if it was started with other ports).
    """
    config = config or Neo4jServerConfig.from_env()
    return status_from_state(config, running_state(config))


def status_from_state(config: Neo4jServerConfig, state: ServerState | None) -> Neo4jServerStatus:
    """The status of the server ``state`` describes (None: not running)."""
    if state is None:
        return Neo4jServerStatus(False, None, config.bolt_uri, config.http_url, None, config.home)
    http_url = f"http://{state.host}:{state.http_port}"
    return Neo4jServerStatus(
        running=True,
        pid=state.pid,
        bolt_uri=f"bolt://{state.host}:{state.bolt_port}",
        http_url=http_url,
        version=http_version(http_url, config.timeouts.http_probe),
        home=config.home,
    )


def http_version(http_url: str, timeout: float) -> str | None:
    """Read ``neo4j_version`` from the unauthenticated HTTP discovery document."""
    try:
        with urllib.request.urlopen(http_url + "/", timeout=timeout) as response:
            document = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError, urllib.error.URLError):
        return None
    version = document.get("neo4j_version") if isinstance(document, dict) else None
    return str(version) if version else None


def check_bolt(config: Neo4jServerConfig, uri: str) -> str | None:
    """Try one authenticated Bolt round trip with ``config``'s password.

    Returns None on success, an error description when the server is not ready
    yet, and raises :class:`Neo4jAuthError` when it answered but refused us.
    """
    import neo4j  # local import: only start()/status need the driver
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    try:
        with neo4j.GraphDatabase.driver(
            uri, auth=(DEFAULT_USER, config.password), connection_timeout=config.timeouts.bolt_connect,
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


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"(no {path.name})"
    return "\n".join(text.splitlines()[-lines:]) or f"({path.name} is empty)"


def log_tails(config: Neo4jServerConfig) -> str:
    """The last lines of the console log and of ``neo4j.log``, for an error message."""
    return (
        f"--- {config.console_log} ---\n{_tail(config.console_log)}\n"
        f"--- {config.logs_dir / 'neo4j.log'} ---\n{_tail(config.logs_dir / 'neo4j.log')}"
    )
