"""What the memory commands share: which store they open, how they print, and how bad input fails.

Bad input (a missing file, a bad JSONL line, a budget below 1, an unknown namespace) is a
``UsageError`` or a graphmem input error: the command prints a one-line message to stderr and exits with
code 2, before any embedding model is loaded (commands open the store first and build the ``Memory``,
which loads the model, only once the input has been checked).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from graphmem.errors import GraphmemError
from graphmem.settings import Settings

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.recall.packer import Evidence
    from graphmem.store.protocol import GraphStore

#: Exit codes: done, failed (store, conflict, server), bad input.
OK, FAILED, BAD_INPUT = 0, 1, 2

ENVIRONMENT = """environment:
  GRAPHMEM_PATH             the memory file (default $XDG_DATA_HOME/graphmem/memory.db, i.e.
                            ~/.local/share/graphmem/memory.db); ":memory:" keeps it in the process only
  GRAPHMEM_NEO4J_URI        a Neo4j server to use instead of the file (e.g. bolt://127.0.0.1:7687)
  GRAPHMEM_NEO4J_USER       its user (default neo4j)
  GRAPHMEM_NEO4J_PASSWORD   its password (default: the one of `graphmem neo4j start`'s server)
  GRAPHMEM_NEO4J_DATABASE   its database (default: the server's default)
  GRAPHMEM_LLM_BASE_URL     an OpenAI-compatible endpoint for `answer` (e.g. http://localhost:8000/v1)
  GRAPHMEM_LLM_MODEL        its model; GRAPHMEM_LLM_API_KEY its key (optional)
Options beat the environment. Exit codes: 0 done, 1 failed, 2 bad input."""


class UsageError(GraphmemError):
    """The command line asks for something impossible (the message says what); exit code 2."""


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (budgets, k)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--path`` (the memory file) or ``--uri`` with ``--user``, ``--password``, ``--database`` (Neo4j)."""
    group = parser.add_argument_group("memory store (default: the memory file)")
    group.add_argument("--path", default=None, help="the memory file (default $GRAPHMEM_PATH or ~/.local/share/graphmem/memory.db)")
    group.add_argument("--uri", default=None, help="a Neo4j URI (default $GRAPHMEM_NEO4J_URI)")
    group.add_argument("--user", default=None, help="Neo4j user (default $GRAPHMEM_NEO4J_USER or neo4j)")
    group.add_argument("--password", default=None, help="Neo4j password (default $GRAPHMEM_NEO4J_PASSWORD)")
    group.add_argument("--database", default=None, help="Neo4j database (default $GRAPHMEM_NEO4J_DATABASE)")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout (for scripts)")


def neo4j_auth(user: str | None = None, password: str | None = None, settings: Settings | None = None) -> tuple[str, str]:
    """The (user, password) every command connects to Neo4j with: the option, else GRAPHMEM_NEO4J_USER /
    GRAPHMEM_NEO4J_PASSWORD, else user neo4j with the password of graphmem's own server, so that
    `graphmem neo4j start` and then any command just works.

    >>> neo4j_auth(settings=Settings.from_environment({}))
    ('neo4j', 'graphmem-password')
    >>> neo4j_auth(password="another-password", settings=Settings.from_environment({"GRAPHMEM_NEO4J_USER": "maya"}))
    ('maya', 'another-password')
    """
    from graphmem.neo4j_server import DEFAULT_PASSWORD

    settings = settings or Settings.from_environment()
    return (user or settings.neo4j_user, password or settings.neo4j_password or DEFAULT_PASSWORD)


def open_store_from(args: argparse.Namespace) -> GraphStore:
    """The store the options (else the environment) name; no embedding model is loaded."""
    from graphmem.store.open import open_store

    if args.uri and args.path:
        raise UsageError("give --uri (Neo4j) or --path (a memory file), not both")
    settings = Settings.from_environment()
    uri = args.uri or (None if args.path else settings.neo4j_uri)
    auth = neo4j_auth(args.user, args.password, settings) if uri else None
    return open_store(uri, auth=auth, database=args.database, path=args.path)


def open_memory(store: GraphStore) -> Memory:
    """A ``Memory`` over an open store: this loads the embedding model (a few seconds)."""
    from graphmem.memory import Memory

    try:
        return Memory(store=store)
    except BaseException:
        store.close()
        raise


def print_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def evidence_json(evidence: Evidence) -> dict[str, Any]:
    """Evidence as JSON: its text, tokens, budget and source ids, and the query it was read as (if any)."""
    document: dict[str, Any] = {
        "text": evidence.text,
        "tokens": evidence.tokens,
        "budget": evidence.budget,
        "source_ids": list(evidence.source_ids),
    }
    if evidence.query is not None:
        document["query"] = evidence.query
    return document


def answerer_from_env() -> Any:
    """The chat answerer GRAPHMEM_LLM_BASE_URL and GRAPHMEM_LLM_MODEL name, or None (the executor answers)."""
    if not Settings.from_environment().llm_configured:
        return None
    from graphmem.answer import ChatAnswerer

    return ChatAnswerer.from_env()


def version() -> str:
    """graphmem's version, as installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("graphmem")
    except PackageNotFoundError:
        return "unknown"
