"""The Neo4j backend's schema: the constraints and indexes of ``cypher/schema/``, created and awaited.

``ensure_schema`` runs every schema statement (each ``IF NOT EXISTS``), waits for the indexes to come
online and checks that graphmem's vector indexes are built for ``DIMENSIONS`` unquantized vectors
(``SchemaError`` naming the index otherwise: graphmem never drops an index it finds).
"""

from __future__ import annotations

import logging
from typing import Any

import neo4j
from neo4j.exceptions import ClientError

from graphmem.cypher_files import cypher, schema_statements
from graphmem.errors import SchemaError
from graphmem.store.protocol import DIMENSIONS

__all__ = ["INDEX_WAIT_SECONDS", "VECTOR_INDEXES", "check_vector_indexes", "ensure_schema"]

log = logging.getLogger(__name__)

#: The vector index of each searchable label (see 03_search_indexes.cypher). Steps and turns have one
#: each because a 5.26 vector query cannot filter by label: through one index over all units, the
#: turn-only search of a namespace half made of steps fetched ~125 neighbours for its 50 turns, and at 1M
#: units in 56 Lucene segments that one query cost 39-45 ms (commit af7d078).
VECTOR_INDEXES = {"Step": "step_embedding", "Turn": "turn_embedding", "Box": "box_embedding"}
#: How long ``ensure_schema`` waits for indexes to come online, in seconds: populating the two per-kind
#: vector indexes over a million existing units took 20 minutes here (commit d8de6f2).
INDEX_WAIT_SECONDS = 3600


def ensure_schema(driver: neo4j.Driver, database: str | None) -> None:
    """Create graphmem's constraints and indexes where missing, wait for them to come online, and check
    its vector indexes: ``SchemaError`` for one of other dimensions or a quantized one."""
    with driver.session(database=database) as session:
        for statement in schema_statements():
            try:
                session.run(statement).consume()
            except ClientError as exc:
                raise SchemaError(f"could not create schema with `{statement.splitlines()[0]}`: {exc}") from exc
        records = session.run(cypher("admin/vector_indexes")).data()
        populating = [row["name"] for row in records if row["state"] == "POPULATING"]
        if populating:
            # Indexes created over units already in the database populate once; at a million units
            # that takes minutes.
            log.warning("waiting for vector indexes %s to populate (once per database)", ", ".join(populating))
        session.run(cypher("admin/await_indexes"), seconds=INDEX_WAIT_SECONDS).consume()
    check_vector_indexes(records)


def check_vector_indexes(rows: list[dict[str, Any]]) -> None:
    """``SchemaError`` when one of graphmem's vector indexes among ``rows`` (``admin/vector_indexes``) has
    other dimensions than ``DIMENSIONS`` or is quantized; graphmem never drops an index it finds."""
    for row in rows:
        if row["name"] not in VECTOR_INDEXES.values():
            continue
        config = row["options"]["indexConfig"]
        dims = config.get("vector.dimensions")
        if dims != DIMENSIONS:
            raise SchemaError(
                f"vector index {row['name']} has {dims} dimensions, graphmem needs {DIMENSIONS}: "
                f"drop it (DROP INDEX {row['name']}) or use another database"
            )
        if config.get("vector.quantization.enabled", False):
            # Quantized scores rank near ties differently from the embedded backend.
            raise SchemaError(
                f"vector index {row['name']} is quantized, graphmem needs exact vectors: "
                f"drop it (DROP INDEX {row['name']}) and graphmem creates it again unquantized"
            )
