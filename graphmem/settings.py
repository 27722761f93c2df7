"""graphmem's environment variables, read in one place into one frozen record.

Every ``GRAPHMEM_*`` variable graphmem reads is a field of ``Settings``; ``Settings.from_environment()``
reads them when it is called (never at import time, so a test or a process that sets a variable later is
seen), and the rest of graphmem asks it rather than ``os.environ``. An argument always beats the
environment: the callers apply a setting only where no argument was given. An empty variable counts as
unset, except where an empty value means something of its own (``GRAPHMEM_NEO4J_USER`` and
``GRAPHMEM_NEO4J_PASSWORD`` are then empty, ``GRAPHMEM_NEO4J_DATABASE`` names the default database and
``GRAPHMEM_LLM_API_KEY`` is sent empty). A value that cannot be read (a port that is not a number) is a
``SettingError`` naming the variable.

>>> settings = Settings.from_environment({"GRAPHMEM_PATH": "/tmp/agent.db", "GRAPHMEM_NEO4J_BOLT_PORT": "7688"})
>>> settings.path, settings.neo4j_uri, settings.neo4j_user, settings.neo4j_bolt_port, settings.torch_threads
('/tmp/agent.db', None, 'neo4j', 7688, 1)
>>> Settings.from_environment({"GRAPHMEM_NEO4J_HTTP_PORT": "web"})
Traceback (most recent call last):
graphmem.settings.SettingError: GRAPHMEM_NEO4J_HTTP_PORT='web' is not a port number
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import GraphmemError

__all__ = ["VARIABLES", "SettingError", "Settings"]

#: Each setting's environment variable, by field name.
VARIABLES = {
    "path": "GRAPHMEM_PATH",
    "neo4j_uri": "GRAPHMEM_NEO4J_URI",
    "neo4j_user": "GRAPHMEM_NEO4J_USER",
    "neo4j_password": "GRAPHMEM_NEO4J_PASSWORD",
    "neo4j_database": "GRAPHMEM_NEO4J_DATABASE",
    "llm_base_url": "GRAPHMEM_LLM_BASE_URL",
    "llm_model": "GRAPHMEM_LLM_MODEL",
    "llm_api_key": "GRAPHMEM_LLM_API_KEY",
    "home": "GRAPHMEM_HOME",
    "torch_threads": "GRAPHMEM_TORCH_THREADS",
    "neo4j_home": "GRAPHMEM_NEO4J_HOME",
    "neo4j_lib_dir": "GRAPHMEM_NEO4J_LIB_DIR",
    "neo4j_bolt_port": "GRAPHMEM_NEO4J_BOLT_PORT",
    "neo4j_http_port": "GRAPHMEM_NEO4J_HTTP_PORT",
    "neo4j_pagecache": "GRAPHMEM_NEO4J_PAGECACHE",
}


class SettingError(GraphmemError, ValueError):
    """An environment variable holds a value graphmem cannot read; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    """What the environment says; None where it says nothing (the caller's default applies)."""

    #: The memory file (``":memory:"``: in the process only); None: ``graphmem.store.open.default_path()``.
    path: str | None = None
    #: A Neo4j server to use instead of the memory file.
    neo4j_uri: str | None = None
    #: The Neo4j user.
    neo4j_user: str = "neo4j"
    #: The Neo4j password; None: each caller's fallback (the project server's password, or empty).
    neo4j_password: str | None = None
    #: The Neo4j database; None: the server's default.
    neo4j_database: str | None = None
    #: An OpenAI-compatible endpoint that compiles trajectory questions and answers (``graphmem.answer``).
    llm_base_url: str | None = None
    #: The endpoint's model.
    llm_model: str | None = None
    #: The endpoint's key; None: no Authorization header.
    llm_api_key: str | None = None
    #: graphmem's cache folder (the tokenizer's table, the Neo4j server); None: in the user's cache folder.
    home: Path | None = None
    #: Intra-op threads of the embedding model: one, unless the machine is the model's alone.
    torch_threads: int = 1
    #: The project Neo4j server's home; None: under ``home`` (or the user's cache folder).
    neo4j_home: Path | None = None
    #: A folder of Neo4j jars several server homes share; None: the home's own ``lib``.
    neo4j_lib_dir: Path | None = None
    #: The project server's Bolt port; None: 7687.
    neo4j_bolt_port: int | None = None
    #: The project server's HTTP port; None: 7474.
    neo4j_http_port: int | None = None
    #: The project server's page cache (e.g. "8g"); None: ``graphmem.neo4j_server.DEFAULT_PAGECACHE``.
    neo4j_pagecache: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings ``environ`` (default: this process's environment, as it is now) holds."""
        env = os.environ if environ is None else environ

        def text(field: str) -> str | None:
            return env.get(VARIABLES[field]) or None

        def path(field: str) -> Path | None:
            value = text(field)
            return Path(value) if value is not None else None

        return cls(
            path=text("path"),
            neo4j_uri=text("neo4j_uri"),
            neo4j_user=env.get(VARIABLES["neo4j_user"], "neo4j"),
            neo4j_password=env.get(VARIABLES["neo4j_password"]),
            neo4j_database=env.get(VARIABLES["neo4j_database"]),
            llm_base_url=text("llm_base_url"),
            llm_model=text("llm_model"),
            llm_api_key=env.get(VARIABLES["llm_api_key"]),
            home=path("home"),
            torch_threads=_threads(env.get(VARIABLES["torch_threads"], "1")),
            neo4j_home=path("neo4j_home"),
            neo4j_lib_dir=path("neo4j_lib_dir"),
            neo4j_bolt_port=_port("neo4j_bolt_port", text("neo4j_bolt_port")),
            neo4j_http_port=_port("neo4j_http_port", text("neo4j_http_port")),
            neo4j_pagecache=text("neo4j_pagecache"),
        )

    @property
    def llm_configured(self) -> bool:
        """Whether an LLM endpoint is named: both its URL and its model."""
        return self.llm_base_url is not None and self.llm_model is not None


def _threads(raw: str) -> int:
    try:
        return max(1, int(raw))
    except ValueError:
        raise SettingError(f"{VARIABLES['torch_threads']}={raw!r} is not a whole number of threads") from None


def _port(field: str, raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise SettingError(f"{VARIABLES[field]}={raw!r} is not a port number") from None
