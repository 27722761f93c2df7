"""Load Cypher statements by name from the ``cypher/`` folder shipped inside the wheel.

Each file holds one statement, named for its purpose (``recall/nth_occurrence``), with a header comment
listing its parameters and the columns it returns.

>>> "MATCH" in cypher("recall/nth_occurrence")
True
"""

from __future__ import annotations

import functools
from importlib import resources

from graphmem.errors import StoreError


@functools.cache
def cypher(name: str) -> str:
    """The statement in ``cypher/<name>.cypher``, with its ``//`` header comments removed."""
    try:
        text = resources.files("graphmem.cypher").joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise StoreError(f"no Cypher file named {name!r} in graphmem/cypher") from exc
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    statement = "\n".join(lines).strip()
    if not statement:
        raise StoreError(f"Cypher file {name!r} is empty")
    return statement


def schema_statements() -> list[str]:
    """Every schema statement (constraints, indexes) in ``cypher/schema/``, in file-name order."""
    folder = resources.files("graphmem.cypher").joinpath("schema")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".cypher"))
    statements: list[str] = []
    for name in names:
        text = cypher(f"schema/{name[: -len('.cypher')]}")
        # Schema files may hold several DDL statements separated by ';' (each runs on its own).
        statements.extend(s.strip() for s in text.split(";") if s.strip())
    return statements
