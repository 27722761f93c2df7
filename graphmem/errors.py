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


class InvalidArgumentError(GraphmemError, ValueError):
    """A call argument is malformed (a question, ``k``, a budget, a recall config field, a Neo4j URI); the message
    names the argument, the bad value in short and what is allowed. Nothing was read or written."""

    def __init__(self, argument: str, problem: str) -> None:
        self.argument = argument
        self.problem = problem
        super().__init__(f"{argument} {problem}")


class ConflictError(GraphmemError):
    """The data contradicts what the memory already holds (e.g. an episode id reused with other content)."""


class EmbedderError(GraphmemError):
    """The embedder's answer does not fit the store: not exactly one finite, non-zero vector of the store's
    dimension per text (``graphmem.embed.checked_embeddings``). Nothing of the batch was written; when
    ``Memory`` is built, its probe text gets the same check."""


class StoreError(GraphmemError):
    """The graph store failed (connection, schema, query); the message says which and why."""


class SchemaError(StoreError):
    """The database holds an index or constraint that does not fit graphmem's schema."""


class NotFoundError(GraphmemError, LookupError):
    """The namespace, episode or session named is not in the memory; the message says which ones are."""
