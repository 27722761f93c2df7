"""What can go wrong with the managed Neo4j server; every failure is a ``Neo4jServerError``::

    Neo4jServerError            a bad setting, no Java, a failed neo4j-admin run
    ├── Neo4jInstallError       Maven could not provide the jars
    ├── PortInUseError          a port is held by a process that is not our server
    ├── Neo4jStartError         the JVM exited, or Bolt/HTTP did not answer in time
    └── Neo4jAuthError          the server runs but refuses the configured password
"""

from __future__ import annotations

__all__ = ["Neo4jAuthError", "Neo4jInstallError", "Neo4jServerError", "Neo4jStartError", "PortInUseError"]


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
