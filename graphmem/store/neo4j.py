"""The Neo4j backend: every statement comes from ``cypher/``, with parameters only.

Writes run in one managed write transaction per batch (the driver retries transient errors), with one
``UNWIND`` statement for a batch that fits in a chunk. Reads are auto-commit queries in READ sessions, so
a ``neo4j://`` URI spreads them over a cluster's readers, and each costs one round trip. One driver per
store (a pool of ``max_connection_pool_size`` connections); sessions per operation, sharing one bookmark
manager so reads see earlier writes.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import neo4j
import numpy as np
from neo4j.exceptions import ClientError, DriverError, Neo4jError, ServiceUnavailable, SessionExpired, TransientError

from graphmem.cypher_files import cypher, schema_statements
from graphmem.errors import ConflictError, SchemaError, StoreError
from graphmem.records import Scalar
from graphmem.store.protocol import (
    DIMENSIONS,
    EDGE_TYPES,
    NODE_LABELS,
    Neighbourhood,
    UNIT_LABELS,
    ChangeRow,
    EventRow,
    Hit,
    Expect,
    SessionRow,
    WriteBatch,
    check_change_query,
    check_ordinal,
    earliest_start,
    t_window,
    unmet,
    unit_filter,
)
from graphmem.store.lifecycle import SessionParts, episode_renumbering, session_removal
from graphmem.store.neo4j_connect import connect
from graphmem.store.protocol import node_key
from graphmem.store.text_index import lucene_query, query_terms

log = logging.getLogger(__name__)

#: Threads for the per-label vector queries of one search (steps and turns side by side). Its own pool,
#: not recall's: a search already running on recall's pool must not wait for a thread of that pool.
_VECTOR_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-vector")

#: Rows per UNWIND statement. Every chunk of a batch runs in the batch's one transaction, so this bounds
#: a message and the planner's Eager buffer, not the transaction; a batch whose nodes and edges each fit
#: in one chunk is written by one statement (one round trip). 5000 covers a 512-step batch.
CHUNK = 5000
#: Vector search over-fetch: the 5.26 vector index cannot pre-filter by namespace, so it is asked for more
#: neighbours than k and the namespace's are kept. The first search of a namespace fetches
#: VECTOR_OVERFETCH * k; later ones fetch k / share * VECTOR_MARGIN, where share is the namespace's
#: observed share of the neighbours (a running mean): a namespace that dominates the index no longer pays
#: for a 4x deeper HNSW search (at 1M units, fetch 400 vs 130 costs 58 vs 36 ms). Too few hits still
#: trigger a deeper search (up to VECTOR_FETCH_CAP).
VECTOR_OVERFETCH = 4
VECTOR_MARGIN = 1.25
VECTOR_MIN_FETCH = 64
VECTOR_FETCH_CAP = 4096
#: A namespace with fewer units (or boxes) than this is searched exactly when the shared index cannot
#: fill k from it (bounded by this many vector comparisons; 0 disables it).
EXACT_CAP = 5000
#: The vector index of each searchable label (see 03_search_indexes.cypher). Steps and turns have one
#: each because a 5.26 vector query cannot filter by label: through one index over all units, the
#: turn-only search of a namespace half made of steps fetched ~125 neighbours for its 50 turns, and at 1M
#: units in 56 Lucene segments that one query cost 39-45 ms (commit af7d078).
VECTOR_INDEXES = {"Step": "step_embedding", "Turn": "turn_embedding", "Box": "box_embedding"}
#: The exact search ranks a namespace by each vector's int8 code (``embedding_int8``, see ``int8_code``)
#: and scores its best k + EXACT_SHORTLIST_MARGIN with the float vectors, which orders and scores them
#: exactly as comparing every float vector would unless a true top-k vector falls more than this many
#: places down the int8 ranking: never in 10,000 top-50 memberships on random unit vectors (the hardest
#: case: all cosines within about +-0.15), nor in 7,500 on LoCoMo turns with all-MiniLM-L6-v2 (0.6% and
#: 0.3% of them fall just outside the int8 top 50 itself). Near-duplicates (cosines within ~0.01 of each
#: other) need the margin most; the contract test checks a tight cluster.
EXACT_SHORTLIST_MARGIN = 20
#: How long ``ensure_schema`` waits for indexes to come online, in seconds: populating the two per-kind
#: vector indexes of a million-unit database took 20 minutes here (commit d8de6f2).
INDEX_WAIT_SECONDS = 3600
#: How long a write (a managed transaction) is retried on transient errors, in seconds (the driver's
#: default is 30). A busy server can hold a new transaction back that long: in a 1M-unit bulk load
#: (commit 989f55e) the server's last closed transaction lagged a committed one for over a minute, every write
#: that carried the newer bookmark failed with BookmarkTimeout after the driver's 30 s of retries, and the
#: load stopped; the lag had passed when the load was resumed. The run recorded at commit 9e3f3a5 saw the same lag last over
#: 180 s (at ~357k units with vectors across 1,000 namespaces; gone a few minutes later, no thread of
#: the server stuck in a thread dump): a bulk load should wait that out rather than stop.
WRITE_RETRY_SECONDS = 600.0
#: Attempts of a read on a transient failure (server restarting, leader switch), with 0.1 s, 0.2 s, ... waits.
READ_ATTEMPTS = 4


def ns_key(namespace: str) -> str:
    """A single Lucene token that stands for the namespace inside full-text indexes."""
    return "ns" + hashlib.sha1(namespace.encode("utf-8")).hexdigest()


def _int8_scaled(vector: Sequence[float]) -> np.ndarray | None:
    """The vector with its largest magnitude scaled to 127 (an int8 code before rounding); None for a
    zero or non-finite vector."""
    values = np.asarray(vector, dtype=np.float64)
    top = float(np.abs(values).max()) if values.size else 0.0
    if not top or not math.isfinite(top):
        return None
    return values * (127.0 / top)


def int8_code(embedding: Sequence[float]) -> tuple[bytes, float] | None:
    """A vector's int8 code and the code's squared length, stored beside the float vector as
    ``embedding_int8`` (a byte array) and ``embedding_int8_sq``: each component scaled by 127 / the
    largest magnitude and rounded. Neo4j's vector functions read a byte array as a list of signed
    integers, so the exact search ranks a namespace reading 384 bytes per node instead of 1,536 (four
    dynamic array records instead of thirteen), and with the squared length it turns the cheap
    Euclidean distance into the code's cosine (see vector_units_exact.cypher). None for a zero or
    non-finite vector."""
    scaled = _int8_scaled(embedding)
    if scaled is None:
        return None
    code = np.round(scaled)
    return code.astype(np.int8).tobytes(), float(code @ code)


#: Stored properties no read ever returns (every recall query's ``$hidden``): the float vector, its int8
#: code and the code's squared length (search internals, large), and the namespace's full-text key.
HIDDEN_PROPERTIES = ("embedding", "embedding_int8", "embedding_int8_sq", "ns_key")


def _node_props(pairs: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """A node's properties as the memory logic sees them, read as ``[name, value]`` pairs without the
    ``HIDDEN_PROPERTIES`` (every recall query's ``[name IN keys(n) WHERE NOT name IN $hidden | [name,
    n[name]]]``; ``keys(n)`` lists only the properties a node has, so no value is null).

    Why pairs and not ``n {.*, embedding: null}``: the map projection reads every property's value, the
    384-float embedding too (a dozen dynamic array records per node), before dropping it. Listing the
    keys reads no value. On the 1M-unit benchmark database, reading 150 turns by key: 24 ms and ~42 ms of
    server CPU with the projection, 14 ms and ~25 ms with pairs (8 ms for the keys alone).
    """
    return dict(pairs)


def _hit(row: Sequence[Any]) -> Hit:
    """A search row ``[key, uid, score, props or null]`` as a ``Hit``."""
    key, uid, score, props = row
    return Hit(key, uid, float(score), _node_props(props) if props is not None else None)


class Neo4jStore:
    """``GraphStore`` on a Neo4j 5.26 server.

    It connects on construction, so this needs a running server (``graphmem neo4j start`` runs the
    project's own) and is not run as a doctest::

        store = Neo4jStore("bolt://localhost:7687", auth=("neo4j", "graphmem-password"))
    """

    #: The length of the embeddings its vector indexes hold.
    dimensions = DIMENSIONS

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        max_connection_pool_size: int = 16,
    ) -> None:
        self.database = database
        #: Whether a (namespace, label) held at most EXACT_CAP vectors when last searched (see ``vector``).
        self._is_small: dict[tuple[str, str], bool] = {}
        #: The share of a (namespace, label) among its label index's nearest neighbours, as last observed.
        self._share: dict[tuple[str, str], float] = {}
        self._closed = False
        # A malformed URI, a wrong password or a missing database is said as such (graphmem.store.neo4j_connect).
        self.driver = connect(uri, auth, database, max_connection_pool_size=max_connection_pool_size,
                              max_transaction_retry_time=WRITE_RETRY_SECONDS)

    # ------------------------------------------------------------------ helpers
    def _open(self) -> neo4j.Driver:
        """The driver, or ``StoreError`` once the store is closed."""
        if self._closed:
            raise StoreError("this Neo4j store was closed (Memory.close() or the end of its with block); open a new Memory")
        return self.driver

    def _session(self, access_mode: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        """A session for one operation. All share the driver's bookmark manager, so in a cluster a read
        routed to a reader sees the writes this store made before it."""
        return self._open().session(
            database=self.database, default_access_mode=access_mode, bookmark_manager=self.driver.execute_query_bookmark_manager
        )

    def _rows(self, name: str, /, **params: Any) -> list[Any]:
        """The ``rows`` list of a query that returns its result as one record (see get_nodes.cypher)."""
        records = self._read(name, **params)
        return list(records[0]["rows"]) if records else []

    def _read(self, name: str, /, **params: Any) -> list[neo4j.Record]:
        """Run one read query routed to a reader, as an auto-commit transaction: one round trip, where a
        managed transaction (``execute_query``) takes two (RUN, then COMMIT); recall makes ~10 reads.
        Reads are idempotent, so transient failures are retried here, as the driver would."""
        query = cypher(name)
        params = {**params, "hidden": list(HIDDEN_PROPERTIES)}  # the properties a read never returns
        for attempt in range(READ_ATTEMPTS):
            try:
                with self._session(neo4j.READ_ACCESS) as session:
                    return list(session.run(query, params))
            except (ServiceUnavailable, SessionExpired, TransientError) as exc:
                if attempt + 1 == READ_ATTEMPTS:
                    raise StoreError(f"query {name} failed after {READ_ATTEMPTS} attempts: {exc}") from exc
                log.info("query %s: %s; retrying", name, exc)
                time.sleep(0.1 * 2**attempt)
            except (Neo4jError, DriverError) as exc:
                raise StoreError(f"query {name} failed: {exc}") from exc
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ schema
    def ensure_schema(self) -> None:
        with self._open().session(database=self.database) as session:
            for statement in schema_statements():
                try:
                    session.run(statement).consume()
                except ClientError as exc:
                    raise SchemaError(f"could not create schema with `{statement.splitlines()[0]}`: {exc}") from exc
            records = session.run(
                "SHOW INDEXES YIELD name, type, state, options WHERE type = 'VECTOR' RETURN name, state, options"
            ).data()
            populating = [row["name"] for row in records if row["state"] == "POPULATING"]
            if populating:
                # A database written by an older graphmem (one vector index over all units) populates the
                # per-label indexes once; at a million units that takes minutes.
                log.warning("waiting for vector indexes %s to populate (once per database)", ", ".join(populating))
            session.run("CALL db.awaitIndexes($seconds)", seconds=INDEX_WAIT_SECONDS).consume()
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
                    self._recreate_vector_index(row["name"])

    def _recreate_vector_index(self, name: str) -> None:
        statement = next(s for s in schema_statements() if f"VECTOR INDEX {name} " in s)
        with self._open().session(database=self.database) as session:
            # Index names cannot be parameters; ``name`` is one of graphmem's fixed index names.
            session.run(f"DROP INDEX {name} IF EXISTS").consume()
            session.run(statement).consume()
            session.run("CALL db.awaitIndexes($seconds)", seconds=INDEX_WAIT_SECONDS).consume()

    # ------------------------------------------------------------------ writes
    def write(self, batch: WriteBatch) -> None:
        node_rows = self._node_rows(batch)
        edge_rows = self._edge_rows(batch)
        namespaces = list(dict.fromkeys([*node_rows, *edge_rows]))

        # The guards in one lock order (namespace, key); ``create``: the batch writes the guarded node, so
        # write/check_expected may merge it to lock a key that does not exist yet.
        written = {(row.namespace, row.key) for row in batch.nodes}
        expect = [
            {"namespace": e.namespace, "key": e.key, "prop": e.prop, "value": e.value, "create": (e.namespace, e.key) in written}
            for e in sorted(batch.expect, key=lambda e: (e.namespace, e.key))
        ]

        def work(tx: neo4j.ManagedTransaction) -> None:
            if expect:
                # Before anything else: it locks the guarded nodes, and a guard read earlier (or unlocked)
                # would let a racing writer build on the same state and commit too.
                unmet_rows = list(tx.run(cypher("write/check_expected"), expect=expect))
                if unmet_rows:
                    row = unmet_rows[0]
                    raise ConflictError(unmet(Expect(row["namespace"], row["key"], row["prop"], row["value"]), row["actual"]))
            parts = [(namespace, node_rows.get(namespace, []), edge_rows.get(namespace, [])) for namespace in namespaces]
            if sum(len(nodes) for _, nodes, _ in parts) <= CHUNK and sum(len(edges) for _, _, edges in parts) <= CHUNK:
                # The usual case: the whole batch (of one namespace or of several, as a bulk writer's group
                # of small batches) in one statement.
                merged = self._merge_batch(tx, parts)
            else:
                merged = 0
                for namespace, nodes, edges in parts:
                    if len(nodes) <= CHUNK and len(edges) <= CHUNK:
                        merged += self._merge_batch(tx, [(namespace, nodes, edges)])
                        continue
                    for start in range(0, len(nodes), CHUNK):
                        tx.run(cypher("write/merge_nodes"), namespace=namespace, batch={"nodes": nodes[start : start + CHUNK]}).consume()
                    for start in range(0, len(edges), CHUNK):
                        merged += self._merge_batch(tx, [(namespace, [], edges[start : start + CHUNK])])
            # An edge row whose end node exists neither in the batch nor the store matches nothing and
            # merges nothing; rows are distinct, so one missing merge means a missing node. Raising here
            # rolls the whole transaction back.
            if merged != sum(len(edges) for _, _, edges in parts):
                raise StoreError("a relationship refers to a node that does not exist; the batch was rolled back")

        try:
            with self._session() as session:
                session.execute_write(work)
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"write failed, nothing was written: {exc}") from exc

    @staticmethod
    def _node_rows(batch: WriteBatch) -> dict[str, list[dict[str, Any]]]:
        """Per namespace, one row per distinct node: rows for the same key are folded in order (later
        properties win, the last embedding given wins), exactly what merging them one after another would
        leave.

        Folding matters for throughput: a batch of steps names the same Location and Entity nodes over
        and over, and each repeated row would cost the server a MERGE and a SET. The namespace is a
        statement parameter rather than a field of every row (less to send and unpack).
        """
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        namespaces: dict[str, list[dict[str, Any]]] = {}
        for row in batch.nodes:
            if row.label not in NODE_LABELS:
                raise StoreError(f"unknown node label {row.label!r}")
            embedding = row.props.get("embedding")
            if embedding is not None and len(embedding) != DIMENSIONS:
                raise StoreError(f"{row.key}: embedding has {len(embedding)} dimensions, the store expects {DIMENSIONS}")
            entry = rows.get((row.namespace, row.key))
            if entry is None:
                labels = [row.label, "Unit"] if row.label in UNIT_LABELS else [row.label]
                props: dict[str, Any] = {}
                entry = rows[(row.namespace, row.key)] = {"key": row.key, "uid": row.uid, "labels": labels, "props": props, "embedding": None}
                namespaces.setdefault(row.namespace, []).append(entry)
            entry["props"].update((k, v) for k, v in row.props.items() if k != "embedding")
            entry["props"]["key"] = row.key
            if row.label in (*UNIT_LABELS, "Box"):
                entry["props"]["ns_key"] = ns_key(row.namespace)
            entry["uid"] = row.uid
            if embedding is not None:
                entry["embedding"] = embedding
                # A zero vector has no code; null removes a code an earlier vector left.
                code = int8_code(embedding)
                entry["props"]["embedding_int8"], entry["props"]["embedding_int8_sq"] = code if code is not None else (None, None)
        return namespaces

    @staticmethod
    def _merge_batch(tx: neo4j.ManagedTransaction, parts: Sequence[tuple[str, list[dict[str, Any]], list[tuple[str, list[Any]]]]]) -> int:
        """Merge the nodes and edges of one or more namespaces, ``(namespace, nodes, edges)`` each, in one
        statement (write/merge_batch); returns how many edge rows were merged (fewer than given when an end
        node does not exist).

        The statement takes each node's namespace as a position in the batch's namespaces, each edge's
        ends as positions in the batch's nodes followed by the ends outside it ([namespace position, key]),
        and the edges grouped by relationship type. One statement for a group of small batches of many
        namespaces: a statement per namespace paid the statement's fixed cost (a block per relationship type)
        for every few rows."""
        nodes_all: list[dict[str, Any]] = []
        position: dict[tuple[str, str], int] = {}
        for at, (namespace, nodes, _) in enumerate(parts):
            for row in nodes:
                position[(namespace, row["key"])] = len(nodes_all)
                nodes_all.append({**row, "ns": at})
        external: list[list[Any]] = []
        by_type: dict[str, list[list[Any]]] = {}
        for at, (namespace, _, edges) in enumerate(parts):
            for etype, (source, target, props) in edges:
                ends = []
                for key in (source, target):
                    end = position.get((namespace, key))
                    if end is None:
                        end = position[(namespace, key)] = len(position)
                        external.append([at, key])
                    ends.append(end)
                by_type.setdefault(etype, []).append([ends[0], ends[1], props])
        batch = {"namespaces": [namespace for namespace, _, _ in parts], "nodes": nodes_all, "external": external, "edges": by_type}
        record = tx.run(cypher("write/merge_batch"), batch=batch).single()
        return int(record["merged"]) if record is not None else 0

    @staticmethod
    def _edge_rows(batch: WriteBatch) -> dict[str, list[tuple[str, list[Any]]]]:
        """Per namespace, one ``(type, [source, target, props])`` per distinct (type, source, target),
        properties folded in order as for nodes."""
        folded: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        for edge in batch.edges:
            if edge.type not in EDGE_TYPES:
                raise StoreError(f"unknown relationship type {edge.type!r}")
            folded.setdefault((edge.namespace, edge.source, edge.target, edge.type), {}).update(edge.props)
        rows: dict[str, list[tuple[str, list[Any]]]] = {}
        for (namespace, source, target, etype), props in folded.items():
            rows.setdefault(namespace, []).append((etype, [source, target, props]))
        return rows

    # ------------------------------------------------------------------ lookups
    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not keys:
            return {}
        rows = self._rows("recall/get_nodes", namespace=namespace, keys=list(keys))
        return {key: _node_props(props) for key, props in rows}

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[dict[str, Any]]:
        return [_node_props(props) for props in self._rows("recall/episodes", namespace=namespace, kind=kind)]

    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]:
        kinds: dict[str, dict[str, str]] = {namespace: {} for namespace in namespaces}
        for row in self._read("recall/episode_kinds", namespaces=list(kinds)):
            kinds[row["namespace"]] = {str(uid): str(kind) for uid, kind in row["episodes"]}
        return kinds

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
        rows = self._rows("recall/steps_at", namespace=namespace, episode=episode, ts=list(ts))
        return {int(t): _node_props(props) for t, props in rows}

    @staticmethod
    def _event_query(kind: str | None, obj: str | None) -> tuple[str, dict[str, str]]:
        """The shape of a find_event / count_events question (its files' suffix: by_pair, by_kind, by_obj,
        any) and the parameters naming it. A file per shape, not ``$kind IS NULL OR e.kind = $kind``:
        such a predicate cannot be an index seek, so the planner would read every event of the episode."""
        if kind is not None and obj is not None:
            return "by_pair", {"kind": kind, "obj": obj}
        if kind is not None:
            return "by_kind", {"kind": kind}
        if obj is not None:
            return "by_obj", {"obj": obj}
        return "any", {}

    def find_event(self, namespace: str, episode: str, kind: str | None, obj: str | None, ordinal: int,
                   lo: int | None = None, hi: int | None = None) -> EventRow | None:
        ordinal = check_ordinal(ordinal)
        low, high = t_window(lo, hi)
        shape, params = self._event_query(kind, obj)
        name = f"recall/find_event_{shape}" + ("" if ordinal > 0 else "_from_end")
        rows = self._read(name, namespace=namespace, episode=episode, lo=low, hi=high, skip=abs(ordinal) - 1, **params)
        return self._event(rows[0]) if rows else None

    def count_events(self, namespace: str, episode: str, kind: str | None, obj: str | None,
                     lo: int | None = None, hi: int | None = None) -> int:
        low, high = t_window(lo, hi)
        shape, params = self._event_query(kind, obj)
        rows = self._read(f"recall/count_events_{shape}", namespace=namespace, episode=episode, lo=low, hi=high, **params)
        return int(rows[0]["total"]) if rows else 0

    def find_change(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                    ordinal: int, lo: int | None = None, hi: int | None = None) -> ChangeRow | None:
        check_change_query(source, cmp)
        ordinal = check_ordinal(ordinal)
        low, high = t_window(lo, hi)
        query = "recall/find_change" if ordinal > 0 else "recall/find_change_from_end"
        rows = self._read(query, namespace=namespace, episode=episode, source=source, name=name, cmp=cmp, value=value,
                          lo=low, hi=high, skip=abs(ordinal) - 1)
        if not rows:
            return None
        r = rows[0]
        return ChangeRow(r["key"], r["unit"], r["episode"], r["source"], r["name"], r["before"], r["after"], int(r["t"]))

    def steps_between(self, namespace: str, episode: str, lo: int, hi: int, limit: int) -> dict[int, dict[str, Any]]:
        if limit <= 0:
            return {}
        low, high = t_window(lo, hi)
        rows = self._rows("recall/steps_between", namespace=namespace, episode=episode, lo=low, hi=high, limit=limit)
        return {int(t): _node_props(props) for t, props in rows}

    def units_in_window(
        self, namespace: str, start: float, end: float, limit: int,
        longest_session: float | None = None, longest_event: float | None = None,
    ) -> dict[str, dict[str, Any]]:
        rows = self._rows(
            "recall/units_in_window", namespace=namespace, start=start, end=end, limit=limit,
            session_from=earliest_start(start, longest_session), event_from=earliest_start(start, longest_event),
        )
        found: dict[str, dict[str, Any]] = {}
        for key, props in rows:
            if key not in found and len(found) < limit:
                found[key] = _node_props(props)
        return found

    def sessions_in_window(self, namespace: str, start: float, end: float, longest_session: float | None = None) -> list[str]:
        return list(self._rows("recall/sessions_in_window", namespace=namespace, start=start, end=end,
                               **{"from": earliest_start(start, longest_session)}))

    def neighbours(self, namespace: str, keys: Sequence[str], before: int, after: int, with_props: bool = False) -> Neighbourhood:
        if not keys:
            return Neighbourhood({})
        # One step each way (dialogue recall's flow) has its own query: see recall/adjacent.
        name = "recall/adjacent" if before <= 1 and after <= 1 else "recall/neighbours"
        rows = self._rows(name, namespace=namespace, keys=list(keys), before=before, after=after, props=with_props)
        chains: dict[str, list[str]] = {}
        nodes: dict[str, dict[str, Any]] = {}
        for key, back, ahead in rows:
            back, ahead = sorted(back, key=lambda r: (-r[0], r[1])), sorted(ahead, key=lambda r: (r[0], r[1]))
            chains[key] = [k for _, k, _ in back] + [key] + [k for _, k, _ in ahead]
            if with_props:
                nodes.update((k, _node_props(props)) for _, k, props in (*back, *ahead))
        for key in chains:
            nodes.pop(key, None)
        return Neighbourhood(chains, nodes)

    def fulltext(self, namespace: str, query: str, k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        lucene = f"+ns_key:{ns_key(namespace)}^0 +" + lucene_query(terms)
        name = "recall/fulltext_units" if label == "unit" else "recall/fulltext_boxes"
        rows = self._rows(name, query=lucene, k=k, props=with_props)
        hits = [_hit(row) for row in rows]
        return sorted(hits, key=lambda h: (-h.score, h.key))

    def vector(self, namespace: str, embedding: Sequence[float], k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        if k <= 0:
            return []
        only = unit_filter(label)
        exact_query = "recall/vector_boxes_exact" if label == "Box" else "recall/vector_units_exact"
        vec = [float(x) for x in embedding]
        size_key = (namespace, label)
        tried_exact = False
        if EXACT_CAP > 0 and self._is_small.get(size_key, True):
            # A namespace not known to be large is first searched exactly: complete, bounded by EXACT_CAP
            # comparisons, and one query instead of a shared-index query that other namespaces crowd.
            # Most namespaces of a many-tenant database are small; a large one is remembered as such.
            hits = self._exact(exact_query, namespace, only, vec, k, with_props)
            self._is_small[size_key] = hits is not None
            if hits is not None:
                return hits
            tried_exact = True
        labels = ("Box",) if label == "Box" else (only,) if only else UNIT_LABELS
        fetches = {kind: self._first_fetch((namespace, kind), k, len(labels) > 1) for kind in labels}
        hits = self._nearest(namespace, fetches, vec, k, with_props)
        if len(hits) >= k:
            return hits
        if EXACT_CAP > 0 and not tried_exact:
            # Known large, yet the shared index cannot fill k: it may have shrunk since.
            exact = self._exact(exact_query, namespace, only, vec, k, with_props)
            if exact is not None:
                self._is_small[size_key] = True
                return exact
        # A large but rare namespace: look deeper into the shared index(es).
        while len(hits) < k and min(fetches.values()) < VECTOR_FETCH_CAP:
            fetches = {kind: min(fetch * 4, VECTOR_FETCH_CAP) for kind, fetch in fetches.items()}
            hits = self._nearest(namespace, fetches, vec, k, with_props)
        return hits

    def _first_fetch(self, key: tuple[str, str], k: int, one_of_several: bool) -> int:
        """How many neighbours to ask a label's index for, to find k of the namespace's: k over the
        namespace's observed share of the index's neighbours (with a margin).

        In a search over several indexes (steps and turns) the other index may fill k alone, so a kind that
        is rare among its index's neighbours (or absent from them) is asked at most as deep as a namespace's
        first search, k * VECTOR_OVERFETCH (at least VECTOR_MIN_FETCH): an agent's namespace of steps,
        searched over steps and turns, must not send the turn index 4,096-deep queries every time. The
        search still goes deeper when the indexes together come up short of k."""
        share = self._share.get(key, 1.0 / VECTOR_OVERFETCH)
        fetch = max(math.ceil(k * VECTOR_MARGIN / share), k, VECTOR_MIN_FETCH)
        if one_of_several:
            fetch = min(fetch, max(k * VECTOR_OVERFETCH, VECTOR_MIN_FETCH))
        return min(fetch, VECTOR_FETCH_CAP)

    def _nearest(self, namespace: str, fetches: dict[str, int], vec: list[float], k: int, with_props: bool) -> list[Hit]:
        """The namespace's top k among each label index's ``fetches[label]`` nearest, the indexes queried
        side by side (each its own read); ties broken by key, as every search does."""
        calls = [partial(self._approximate, kind, namespace, vec, fetch, k, with_props) for kind, fetch in fetches.items()]
        if len(calls) == 1:
            return calls[0]()
        found = [hit for hits in _VECTOR_POOL.map(lambda call: call(), calls) for hit in hits]
        return sorted(found, key=lambda h: (-h.score, h.key))[:k]

    def _approximate(self, kind: str, namespace: str, vec: list[float], fetch: int, k: int, with_props: bool) -> list[Hit]:
        """The namespace's top k among the ``fetch`` nearest of ``kind``'s vector index; updates the
        namespace's observed share of that index."""
        row = self._read("recall/vector_nearest", index=VECTOR_INDEXES[kind], namespace=namespace, embedding=vec,
                         fetch=fetch, k=k, props=with_props)[0]
        key = (namespace, kind)
        observed = max(int(row["seen"]), 1) / fetch
        previous = self._share.get(key)
        self._share[key] = observed if previous is None else (previous + observed) / 2
        return [_hit(hit) for hit in row["hits"]]

    def _exact(self, query: str, namespace: str, only: str | None, vec: list[float], k: int, with_props: bool) -> list[Hit] | None:
        """The exact top k of a namespace with at most EXACT_CAP vectors; None when it holds more."""
        # $only is a parameter of the unit queries; the box queries do not name it (Neo4j ignores it).
        # The question scaled as a code is (unrounded), for the codes' cosines (see vector_units_exact); a
        # zero question matches nothing either way.
        scaled = _int8_scaled(vec)
        if scaled is None:
            scaled = np.zeros(len(vec))
        exact = self._read(query, namespace=namespace, only=only, embedding=vec, cap=EXACT_CAP + 1, k=k,
                           shortlist=k + EXACT_SHORTLIST_MARGIN, scaled=scaled.tolist(), square=float(scaled @ scaled),
                           props=with_props)
        if exact and int(exact[0]["seen"]) <= EXACT_CAP:
            return [_hit(hit) for hit in exact[0]["hits"]]
        return None

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
            with self._session() as session:
                session.run(cypher("admin/delete_namespace"), namespace=namespace).consume()
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"deleting namespace {namespace!r} failed: {exc}") from exc

    def close(self) -> None:
        """Close the driver; the store's reads and writes raise ``StoreError`` from then on."""
        self._closed = True
        self.driver.close()

    # ------------------------------------------------------------------ lifecycle: namespaces, one episode, one session
    def namespaces(self) -> list[str]:
        return sorted(str(namespace) for namespace in self._rows("admin/namespaces"))

    def session_turns(self, namespace: str, session: str) -> list[dict[str, Any]]:
        rows = self._rows("admin/session_turns", namespace=namespace, key=node_key("Session", session))
        return [_node_props(props) for props in rows]

    def delete_episode(self, namespace: str, episode: str) -> None:
        key = node_key("Episode", episode)
        if not self.get_nodes(namespace, [key]):
            return
        shared = list(self._read("admin/episode_shared", namespace=namespace, key=key)[0]["keys"])
        renumber = episode_renumbering(namespace, self.episode_nodes(namespace), episode)
        try:
            # The units first, in batches of their own (auto-commit); the Episode last, so an interrupted
            # deletion leaves the episode there to be deleted again.
            with self._session() as session:
                session.run(cypher("admin/delete_episode_units"), namespace=namespace, key=key).consume()
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"deleting episode {episode!r} of {namespace!r} failed part way; run it again: {exc}") from exc

        def work(tx: neo4j.ManagedTransaction) -> None:
            tx.run(cypher("admin/delete_nodes"), namespace=namespace, keys=[key]).consume()
            tx.run(cypher("admin/delete_orphans"), namespace=namespace, keys=shared).consume()
            self._merge_rows(tx, renumber)

        self._execute_write(work, f"deleting episode {episode!r} of {namespace!r}")

    def delete_session(self, namespace: str, session: str) -> None:
        key = node_key("Session", session)

        def work(tx: neo4j.ManagedTransaction) -> str | None:
            """Delete the session; the episode's id instead when it is the episode's only session."""
            record = tx.run(cypher("admin/session_parts"), namespace=namespace, key=key, hidden=list(HIDDEN_PROPERTIES)).single()
            if record is None:
                return None
            parts = SessionParts(
                namespace, _node_props(record["session"]), _node_props(record["episode"]),
                [dict(zip(("uid", "seq", "start", "end"), row)) for row in record["sessions"]],
                [dict(zip(("uid", "seq", "session", "speaker"), row)) for row in record["turns"]],
                [dict(zip(("uid", "seq", "session", "first_turn_seq"), row)) for row in record["boxes"]],
                list(record["box_events"]), list(record["shared"]),
            )
            if len(parts.sessions) == 1:
                return str(parts.episode["uid"])
            removal = session_removal(parts)
            tx.run(cypher("admin/delete_nodes"), namespace=namespace, keys=list(removal.doomed)).consume()
            tx.run(cypher("admin/delete_orphans"), namespace=namespace, keys=list(removal.shared)).consume()
            self._merge_rows(tx, removal.then)
            return None

        only = self._execute_write(work, f"deleting session {session!r} of {namespace!r}")
        if only is not None:
            self.delete_episode(namespace, only)

    def _execute_write(self, work: Any, what: str) -> Any:
        """``work`` in one managed write transaction (retried on transient errors), its result returned."""
        try:
            with self._session() as session:
                return session.execute_write(work)
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"{what} failed, nothing of it was kept: {exc}") from exc

    def _merge_rows(self, tx: neo4j.ManagedTransaction, batch: WriteBatch) -> None:
        """Merge a batch of rows between stored nodes inside ``tx`` (a deletion's follow-up)."""
        node_rows, edge_rows = self._node_rows(batch), self._edge_rows(batch)
        for namespace in sorted({*node_rows, *edge_rows}):
            nodes, edges = node_rows.get(namespace, []), edge_rows.get(namespace, [])
            for start in range(0, len(nodes), CHUNK):
                tx.run(cypher("write/merge_nodes"), namespace=namespace, batch={"nodes": nodes[start : start + CHUNK]}).consume()
            merged = sum(self._merge_batch(tx, [(namespace, [], edges[start : start + CHUNK])]) for start in range(0, len(edges), CHUNK))
            if merged != len(edges):
                raise StoreError("a relationship refers to a node that does not exist; the deletion was rolled back")
