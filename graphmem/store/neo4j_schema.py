"""The Neo4j backend's schema: the constraints and indexes of ``cypher/schema/``, created and awaited.

``ensure_schema`` runs every schema statement (each ``IF NOT EXISTS``), waits for the indexes to come
online and checks that graphmem's vector indexes are built for ``DIMENSIONS`` unquantized vectors.
"""

from __future__ import annotations

import logging

import neo4j
from neo4j.exceptions import ClientError

from graphmem.cypher_files import cypher, schema_statements
from graphmem.errors import SchemaError
from graphmem.store.protocol import DIMENSIONS

__all__ = ["INDEX_WAIT_SECONDS", "VECTOR_INDEXES", "ensure_schema", "recreate_vector_index"]

log = logging.getLogger(__name__)

#: The vector index of each searchable label (see 03_search_indexes.cypher). Steps and turns have one
#: each because a 5.26 vector query cannot filter by label: through one index over all units, the
#: turn-only search of a namespace half made of steps fetched ~125 neighbours for its 50 turns, and at 1M
#: units in 56 Lucene segments that one query cost 39-45 ms (commit af7d078).
VECTOR_INDEXES = {"Step": "step_embedding", "Turn": "turn_embedding", "Box": "box_embedding"}
#: How long ``ensure_schema`` waits for indexes to come online, in seconds: populating the two per-kind
#: vector indexes of a million-unit database took 20 minutes here (commit d8de6f2).
INDEX_WAIT_SECONDS = 3600


def ensure_schema(driver: neo4j.Driver, database: str | None) -> None:
    """Create graphmem's constraints and indexes where missing, wait for them to come online, and check
    its vector indexes (``SchemaError`` for one of other dimensions; a quantized one is recreated)."""
    with driver.session(database=database) as session:
        for statement in schema_statements():
            try:
                session.run(statement).consume()
            except ClientError as exc:
                raise SchemaError(f"could not create schema with `{statement.splitlines()[0]}`: {exc}") from exc
        records = session.run(cypher("admin/vector_indexes")).data()
        populating = [row["name"] for row in records if row["state"] == "POPULATING"]
        if populating:
            # A database written by an older graphmem (one vector index over all units) populates the
            # per-label indexes once; at a million units that takes minutes.
            log.warning("waiting for vector indexes %s to populate (once per database)", ", ".join(populating))
        session.run(cypher("admin/await_indexes"), seconds=INDEX_WAIT_SECONDS).consume()
    for row in records:
        if row["name"] in VECTOR_INDEXES.values():
            dims = row["options"]["indexConfig"].get("vector.dimensions")
            if dims != DIMENSIONS:
                raise SchemaError(
                    f"vector index {row['name']} has {dims} dimensions, graphmem needs {DIMENSIONS}: "
                    f"drop it (DROP INDEX {row['name']}) or use another database"
                )
            if row["options"]["indexConfig"].get("vector.quantization.enabled", False):
                # An index created by an older graphmem: quantized scores rank differently from the
                # embedded backend. Recreating it is cheap next to silently different results.
                log.warning("vector index %s is quantized; recreating it unquantized", row["name"])
                recreate_vector_index(driver, database, row["name"])


def recreate_vector_index(driver: neo4j.Driver, database: str | None, name: str) -> None:
    """Drop the vector index ``name`` (one of ``VECTOR_INDEXES``) and create it again as
    03_search_indexes.cypher defines it; ``SchemaError`` for any other name."""
    if name not in VECTOR_INDEXES.values():
        raise SchemaError(f"{name!r} is not one of graphmem's vector indexes ({', '.join(VECTOR_INDEXES.values())})")
    statement = next(s for s in schema_statements() if f"VECTOR INDEX {name} " in s)
    with driver.session(database=database) as session:
        session.run(cypher("admin/drop_vector_index"), index=name).consume()
        session.run(statement).consume()
        session.run(cypher("admin/await_indexes"), seconds=INDEX_WAIT_SECONDS).consume()
