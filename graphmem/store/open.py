"""Which graph store a ``Memory`` opens: the one place that picks a backend.

* a Neo4j URI (the ``uri`` argument, else ``GRAPHMEM_NEO4J_URI`` when no ``path`` is given): ``Neo4jStore``;
* otherwise a memory file (``FileStore``): ``path``, else ``GRAPHMEM_PATH``, else the user's data folder
  (``$XDG_DATA_HOME/graphmem/memory.db``, by default ``~/.local/share/graphmem/memory.db``);
* the path ``":memory:"``: an ``EmbeddedStore`` that lives as long as the process.

An argument beats the environment, as for the URI.

>>> type(open_store(path=":memory:")).__name__
'EmbeddedStore'
>>> default_path({"XDG_DATA_HOME": "/data"}).as_posix()
'/data/graphmem/memory.db'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from graphmem.errors import InvalidArgumentError
from graphmem.settings import Settings
from graphmem.store.protocol import GraphStore

#: The path that keeps the memory in the process only.
IN_MEMORY = ":memory:"


def default_path(environ: Mapping[str, str] = os.environ) -> Path:
    """The memory file used when neither a path nor ``GRAPHMEM_PATH`` is given (XDG base directories:
    a relative ``XDG_DATA_HOME`` is ignored).

    >>> default_path({"HOME": "/home/maya"}).as_posix()
    '/home/maya/.local/share/graphmem/memory.db'
    """
    data_home = environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data_home):
        home = environ.get("HOME")
        data_home = os.path.join(home if home else str(Path.home()), ".local", "share")
    return Path(data_home) / "graphmem" / "memory.db"


def open_store(
    uri: str | None = None,
    *,
    auth: tuple[str, str] | None = None,
    database: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> GraphStore:
    """The store for a URI or a memory file path, from the arguments and the environment (see above).

    >>> store = open_store(path=":memory:")
    >>> store.counts("agent-1")
    {}
    """
    if uri and path is not None:
        raise InvalidArgumentError("uri", "and a memory file path were both given: give a Neo4j URI or a path, not both")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError("path", f"must be a file path or ':memory:', got {type(path).__name__}")
    settings = Settings.from_environment()
    if path is None:
        uri = uri or settings.neo4j_uri
    if uri:
        # Imported here: the embedded stores need no driver.
        from graphmem.store.neo4j import Neo4jStore

        if auth is None:
            auth = (settings.neo4j_user, settings.neo4j_password or "")
        return Neo4jStore(uri, auth=auth, database=database or settings.neo4j_database)
    where = path if path is not None else (settings.path or default_path())
    if os.fspath(where) == IN_MEMORY:
        from graphmem.store.embedded import EmbeddedStore

        return EmbeddedStore()
    from graphmem.store.file import FileStore

    return FileStore(where)
