"""What we launched, on disk: ``run/graphmem-neo4j.json`` (pid and ports) and the official ``run/neo4j.pid``.

Another process (a second ``graphmem neo4j status``) learns from these files whether our server for a home
runs, and where; a pid that is no longer our server's is cleaned up here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import time
from dataclasses import dataclass

from graphmem.neo4j_server.config import Neo4jServerConfig
from graphmem.neo4j_server.process import pid_is_our_server, reap

__all__ = ["ServerState", "forget", "record", "running_state"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerState:
    """Contents of ``run/graphmem-neo4j.json``: what we actually launched."""

    pid: int
    bolt_port: int
    http_port: int
    host: str
    home: str
    started_at: float


def record(config: Neo4jServerConfig, pid: int) -> ServerState:
    """Write the state of the server just launched as ``pid`` for ``config``."""
    state = ServerState(
        pid=pid, bolt_port=config.bolt_port, http_port=config.http_port,
        host=config.host, home=str(config.home), started_at=time.time(),
    )
    config.state_file.write_text(json.dumps(dataclasses.asdict(state)), encoding="utf-8")
    # Same place and format as the official launcher, for people used to it.
    config.pid_file.write_text(f"{pid}\n", encoding="utf-8")
    return state


def _read_state(config: Neo4jServerConfig) -> ServerState | None:
    try:
        raw = json.loads(config.state_file.read_text(encoding="utf-8"))
        return ServerState(**raw)
    except (OSError, ValueError, TypeError):
        return None


def running_state(config: Neo4jServerConfig) -> ServerState | None:
    """State of our live server for ``config.home``, cleaning up a stale pid file."""
    state = _read_state(config)
    if state is None:
        return None
    if pid_is_our_server(state.pid, config.home):
        return state
    logger.info("removing stale Neo4j state file for pid %d", state.pid)
    with contextlib.suppress(OSError):
        config.state_file.unlink()
    with contextlib.suppress(OSError):
        config.pid_file.unlink()
    return None


def forget(config: Neo4jServerConfig, pid: int) -> None:
    """The server ``pid`` is gone: reap it and remove its state files."""
    reap(pid)
    for path in (config.state_file, config.pid_file):
        with contextlib.suppress(OSError):
            path.unlink()
