"""The Neo4j backend: every statement comes from ``cypher/``, with parameters only.

Writes run in one managed write transaction per batch (the driver retries transient errors), with one
``UNWIND`` per chunk of rows. Reads go through ``execute_query(routing_=READ)``, so a ``neo4j://`` URI
spreads them over a cluster's readers. One driver per store; sessions per operation.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

import neo4j
from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import ClientError, Neo4jError, ServiceUnavailable

from graphmem.cypher_files import cypher, schema_statements
from graphmem.errors import SchemaError, StoreError
from graphmem.store.protocol import (
    EDGE_TYPES,
    NODE_LABELS,
    UNIT_LABELS,
    EventRow,
    Hit,
    SessionRow,
    WriteBatch,
)
from graphmem.store.text_index import lucene_query, query_terms

log = logging.getLogger(__name__)

#: Rows per UNWIND statement: large enough to amortize round trips, small enough to keep
#: transaction state modest on a 2 GB heap (measured in benchmarks/scale.py).
CHUNK = 2000
#: Vector search over-fetch: the 5.26 vector index cannot pre-filter by namespace.
VECTOR_OVERFETCH = 4
VECTOR_FETCH_CAP = 4096
DIMENSIONS = 384


def ns_key(namespace: str) -> str:
    """A single Lucene token that stands for the namespace inside full-text indexes."""
    return "ns" + hashlib.sha1(namespace.encode("utf-8")).hexdigest()


def _plain(props: dict[str, Any]) -> dict[str, Any]:
    """Node properties as the memory logic sees them: no internal search key, no nulls."""
    return {k: v for k, v in props.items() if v is not None and k != "ns_key"}


class Neo4jStore:
    """``GraphStore`` on a Neo4j 5.26 server.

    >>> store = Neo4jStore("bolt://localhost:7687", auth=("neo4j", "graphmem-password"))
    """

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        max_connection_pool_size: int = 16,
    ) -> None:
        self.database = database
        try:
            self.driver = GraphDatabase.driver(uri, auth=auth, max_connection_pool_size=max_connection_pool_size)
            self.driver.verify_connectivity()
        except (ServiceUnavailable, ValueError, Neo4jError, OSError) as exc:
            raise StoreError(
                f"cannot reach Neo4j at {uri}: {exc}. Start one with `graphmem neo4j start`, "
                "or unset GRAPHMEM_NEO4J_URI to use the embedded backend."
            ) from exc

    # ------------------------------------------------------------------ helpers
    def _read(self, name: str, **params: Any) -> list[neo4j.Record]:
        try:
            records, _, _ = self.driver.execute_query(
                cypher(name), params, routing_=RoutingControl.READ, database_=self.database
            )
        except Neo4jError as exc:
            raise StoreError(f"query {name} failed: {exc}") from exc
        return records

    # ------------------------------------------------------------------ schema
    def ensure_schema(self) -> None:
        with self.driver.session(database=self.database) as session:
            for statement in schema_statements():
                try:
                    session.run(statement).consume()
                except ClientError as exc:
                    raise SchemaError(f"could not create schema with `{statement.splitlines()[0]}`: {exc}") from exc
            records = session.run(
                "SHOW INDEXES YIELD name, type, state, options WHERE type = 'VECTOR' RETURN name, state, options"
            ).data()
            session.run("CALL db.awaitIndexes(300)").consume()
        for row in records:
            if row["name"] in ("unit_embedding", "box_embedding"):
                dims = row["options"]["indexConfig"].get("vector.dimensions")
                if dims != DIMENSIONS:
                    raise SchemaError(
                        f"vector index {row['name']} has {dims} dimensions, graphmem needs {DIMENSIONS}: "
                        f"drop it (DROP INDEX {row['name']}) or use another database"
                    )

    # ------------------------------------------------------------------ writes
    def write(self, batch: WriteBatch) -> None:
        node_rows = []
        for row in batch.nodes:
            if row.label not in NODE_LABELS:
                raise StoreError(f"unknown node label {row.label!r}")
            props = {k: v for k, v in row.props.items() if k != "embedding"}
            props["key"] = row.key
            embedding = row.props.get("embedding")
            if embedding is not None and len(embedding) != DIMENSIONS:
                raise StoreError(f"{row.key}: embedding has {len(embedding)} dimensions, the store expects {DIMENSIONS}")
            labels = [row.label, "Unit"] if row.label in UNIT_LABELS else [row.label]
            if row.label in (*UNIT_LABELS, "Box"):
                props["ns_key"] = ns_key(row.namespace)
            node_rows.append(
                {"namespace": row.namespace, "key": row.key, "uid": row.uid, "labels": labels, "props": props, "embedding": embedding}
            )
        edge_rows = []
        for edge in batch.edges:
            if edge.type not in EDGE_TYPES:
                raise StoreError(f"unknown relationship type {edge.type!r}")
            edge_rows.append(
                {"namespace": edge.namespace, "source": edge.source, "target": edge.target, "type": edge.type, "props": dict(edge.props)}
            )

        def work(tx: neo4j.ManagedTransaction) -> None:
            for start in range(0, len(node_rows), CHUNK):
                tx.run(cypher("write/merge_nodes"), rows=node_rows[start : start + CHUNK]).consume()
            for start in range(0, len(edge_rows), CHUNK):
                summary = tx.run(cypher("write/merge_edges"), rows=edge_rows[start : start + CHUNK]).consume()
                del summary
            self._check_edges(tx, edge_rows)

        try:
            with self.driver.session(database=self.database) as session:
                session.execute_write(work)
        except Neo4jError as exc:
            raise StoreError(f"write failed, nothing was written: {exc}") from exc

    @staticmethod
    def _check_edges(tx: neo4j.ManagedTransaction, edge_rows: list[dict[str, Any]]) -> None:
        """Refuse the transaction if an edge named a node that exists neither in the batch nor the store."""
        if not edge_rows:
            return
        ends = sorted({(r["namespace"], r["source"]) for r in edge_rows} | {(r["namespace"], r["target"]) for r in edge_rows})
        found = tx.run(
            "UNWIND $ends AS e MATCH (n:Memory {namespace: e[0], key: e[1]}) RETURN count(n) AS n",
            ends=[list(e) for e in ends],
        ).single()
        if found is None or found["n"] != len(ends):
            raise StoreError("a relationship refers to a node that does not exist; the batch was rolled back")

    # ------------------------------------------------------------------ lookups
    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not keys:
            return {}
        rows = self._read("recall/get_nodes", namespace=namespace, keys=list(keys))
        return {r["key"]: _plain(r["props"]) for r in rows}

    def episode_nodes(self, namespace: str) -> list[dict[str, Any]]:
        return [_plain(r["props"]) for r in self._read("recall/episodes", namespace=namespace)]

    def sessions(self, namespace: str, episode: str | None = None) -> list[SessionRow]:
        rows = self._read("recall/sessions", namespace=namespace, episode=episode)
        return [SessionRow(r["uid"], r["episode"], int(r["seq"]), float(r["start"]), float(r["end"])) for r in rows]

    @staticmethod
    def _event(r: neo4j.Record) -> EventRow:
        return EventRow(r["key"], r["unit"], r["episode"], r["kind"], r["obj"], int(r["count"]), int(r["ordinal"]), int(r["t"]))

    def occurrence(self, namespace: str, episode: str, kind: str, obj: str, ordinal: int) -> EventRow | None:
        rows = self._read("recall/nth_occurrence", namespace=namespace, episode=episode, kind=kind, obj=obj, ordinal=ordinal)
        return self._event(rows[0]) if rows else None

    def event_total(self, namespace: str, episode: str, kind: str, obj: str) -> int:
        rows = self._read("recall/event_total", namespace=namespace, episode=episode, kind=kind, obj=obj)
        return int(rows[0]["total"]) if rows else 0

    def latest_event_until(self, namespace: str, episode: str, kind: str, obj: str, t: int) -> EventRow | None:
        rows = self._read("recall/latest_event_until", namespace=namespace, episode=episode, kind=kind, obj=obj, t=t)
        return self._event(rows[0]) if rows else None

    def events_of(self, namespace: str, unit_keys: Sequence[str]) -> list[EventRow]:
        if not unit_keys:
            return []
        return [self._event(r) for r in self._read("recall/events_of_units", namespace=namespace, keys=list(unit_keys))]

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, dict[str, Any]]:
        if not ts:
            return {}
        rows = self._read("recall/steps_at", namespace=namespace, episode=episode, ts=list(ts))
        return {int(r["t"]): _plain(r["props"]) for r in rows}

    def units_in_window(self, namespace: str, start: float, end: float) -> list[str]:
        return [r["key"] for r in self._read("recall/units_in_window", namespace=namespace, start=start, end=end)]

    def neighbours(self, namespace: str, keys: Sequence[str], before: int, after: int) -> dict[str, list[str]]:
        if not keys:
            return {}
        rows = self._read("recall/neighbours", namespace=namespace, keys=list(keys), before=before, after=after)
        result = {}
        for r in rows:
            back = [k for _, k in sorted(r["back"], reverse=True)]
            ahead = [k for _, k in sorted(r["ahead"])]
            result[r["key"]] = back + [r["key"]] + ahead
        return result

    def fulltext(self, namespace: str, query: str, k: int, label: str = "unit") -> list[Hit]:
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        lucene = f"+ns_key:{ns_key(namespace)}^0 +" + lucene_query(terms)
        name = "recall/fulltext_units" if label == "unit" else "recall/fulltext_boxes"
        rows = self._read(name, query=lucene, k=k)
        hits = [Hit(r["key"], r["uid"], float(r["score"])) for r in rows]
        return sorted(hits, key=lambda h: (-h.score, h.key))

    def vector(self, namespace: str, embedding: Sequence[float], k: int, label: str = "unit") -> list[Hit]:
        if k <= 0:
            return []
        name = "recall/vector_units" if label == "unit" else "recall/vector_boxes"
        vec = [float(x) for x in embedding]
        fetch = max(k * VECTOR_OVERFETCH, 64)
        while True:
            rows = self._read(name, namespace=namespace, embedding=vec, fetch=fetch, k=k)
            # Fewer than k hits after filtering: other namespaces crowded ours out; look deeper.
            if len(rows) >= k or fetch >= VECTOR_FETCH_CAP:
                break
            fetch *= 4
        return [Hit(r["key"], r["uid"], float(r["score"])) for r in rows]

    def box_members(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        if not box_keys:
            return {}
        rows = self._read("recall/box_members", namespace=namespace, keys=list(box_keys))
        found = {r["box"]: list(r["members"]) for r in rows}
        return {k: found.get(k, []) for k in box_keys if k in found}

    def boxes_of(self, namespace: str, unit_keys: Sequence[str]) -> dict[str, str]:
        if not unit_keys:
            return {}
        return {r["unit"]: r["box"] for r in self._read("recall/boxes_of", namespace=namespace, keys=list(unit_keys))}

    def trace_boxes(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        if not box_keys:
            return {}
        rows = self._read("recall/trace_boxes", namespace=namespace, keys=list(box_keys))
        return {r["box"]: [k for _, k in sorted((s or 0, k) for s, k in r["related"])] for r in rows}

    def trace_events(self, namespace: str) -> list[dict[str, Any]]:
        rows = self._read("recall/trace_events", namespace=namespace)
        return [
            {"key": r["key"], "box": r["box"], "trace": r["trace"], "text": r["text"], "embedding": r["embedding"]}
            for r in rows
        ]

    def counts(self, namespace: str) -> dict[str, int]:
        rows = self._read("admin/counts", namespace=namespace)
        return dict(sorted((r["name"], int(r["count"])) for r in rows))

    def delete_namespace(self, namespace: str) -> None:
        try:
            with self.driver.session(database=self.database) as session:
                session.run(cypher("admin/delete_namespace"), namespace=namespace).consume()
        except Neo4jError as exc:
            raise StoreError(f"deleting namespace {namespace!r} failed: {exc}") from exc

    def close(self) -> None:
        self.driver.close()
