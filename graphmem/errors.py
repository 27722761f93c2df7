"""graphmem's exceptions: a short hierarchy whose messages say what to do next."""

from __future__ import annotations


class GraphmemError(Exception):
    """Base class of every error graphmem raises on purpose."""


class InvalidRecordError(GraphmemError, ValueError):
    """A record failed validation at the boundary; nothing of its batch was written.

    ``where`` names the record (file, session, turn, step) and ``field`` the offending field.
    """

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        self.problem = problem
        super().__init__(f"{where}: field '{field}': {problem}")


class ConflictError(GraphmemError):
    """The data contradicts what the memory already holds (e.g. an episode id reused with other content)."""


class StoreError(GraphmemError):
    """The graph store failed (connection, schema, query); the message says which and why."""


class SchemaError(StoreError):
    """The database holds an index or constraint that does not fit graphmem's schema."""
