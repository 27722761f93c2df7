"""The Neo4j backend: every statement comes from ``cypher/``, with parameters only.

Writes run in one managed write transaction per batch (the driver retries transient errors), with one
``UNWIND`` statement for a batch that fits in a chunk. Reads are auto-commit queries in READ sessions, so
a ``neo4j://`` URI spreads them over a cluster's readers, and each costs one round trip. One driver per
store (a pool of ``max_connection_pool_size`` connections); sessions per operation, sharing one bookmark
manager so reads see earlier writes.

The store's parts each have a module: ``neo4j_schema`` (constraints and indexes), ``neo4j_write`` (the
write path), ``neo4j_vector`` (vector search), ``neo4j_properties`` (what a node holds beside a record's
own properties) and ``neo4j_connect`` (the driver); this module holds the store and its reads.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired, TransientError

from graphmem.cypher_files import cypher
from graphmem.errors import StoreError
from graphmem.records import Scalar
from graphmem.store.lifecycle import SessionParts, box_place, episode_renumbering, session_removal, turn_place
from graphmem.store.neo4j_connect import connect
from graphmem.store.neo4j_properties import HIDDEN_PROPERTIES, int8_code, ns_key
from graphmem.store.neo4j_properties import hit as _hit
from graphmem.store.neo4j_properties import node_props as _node_props
from graphmem.store.neo4j_schema import ensure_schema
from graphmem.store.neo4j_vector import VectorSearch
from graphmem.store.neo4j_write import CHUNK, batch_work, merge_rows
from graphmem.store.protocol import (
    DIMENSIONS,
    ChangeRow,
    EpisodeRow,
    EventRow,
    Hit,
    Neighbourhood,
    SessionRow,
    StepCount,
    StepRow,
    StoredRow,
    TraceEventRow,
    TurnRow,
    WriteBatch,
    check_change_query,
    check_ordinal,
    check_step_field,
    earliest_start,
    node_key,
    t_window,
)
from graphmem.store.rows import episode_row, session_row, step_row, stored_row, turn_row
from graphmem.store.text_index import lucene_query, query_terms

# CHUNK, DIMENSIONS, HIDDEN_PROPERTIES, int8_code and ns_key are imported from here by benchmarks and tests.
__all__ = ["CHUNK", "DIMENSIONS", "HIDDEN_PROPERTIES", "READ_ATTEMPTS", "WRITE_RETRY_SECONDS", "Neo4jStore", "int8_code", "ns_key"]

log = logging.getLogger(__name__)

_Result = TypeVar("_Result")

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


def _step_count(row: Any) -> StepCount:
    """A count_steps / count_held record as a ``StepCount`` (the last step given once)."""
    if row is None or not row["total"]:
        return StepCount(0)
    return StepCount(int(row["total"]), tuple(dict.fromkeys(int(t) for t in row["shown"])))


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
        #: What the vector search has learnt about each namespace (see graphmem.store.neo4j_vector).
        self._vectors = VectorSearch()
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

    # ------------------------------------------------------------------ schema and writes
    def ensure_schema(self) -> None:
        ensure_schema(self._open(), self.database)

    def write(self, batch: WriteBatch) -> None:
        work = batch_work(batch)  # builds and checks the rows before a session opens
        try:
            with self._session() as session:
                session.execute_write(work)
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"write failed, nothing was written: {exc}") from exc

    # ------------------------------------------------------------------ lookups
    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not keys:
            return {}
        rows = self._rows("recall/get_nodes", namespace=namespace, keys=list(keys))
        return {key: _node_props(props) for key, props in rows}

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[EpisodeRow]:
        return [episode_row(_node_props(props)) for props in self._rows("recall/episodes", namespace=namespace, kind=kind)]

    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]:
        kinds: dict[str, dict[str, str]] = {namespace: {} for namespace in namespaces}
        for row in self._read("recall/episode_kinds", namespaces=list(kinds)):
            kinds[row["namespace"]] = {str(uid): str(kind) for uid, kind in row["episodes"]}
        return kinds

    def sessions(self, namespace: str, episode: str | None = None) -> list[SessionRow]:
        rows = self._read("recall/sessions", namespace=namespace, episode=episode)
        return [session_row(r.data()) for r in rows]

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

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, StepRow]:
        if not ts:
            return {}
        rows = self._rows("recall/steps_at", namespace=namespace, episode=episode, ts=list(ts))
        return {int(t): step_row(_node_props(props)) for t, props in rows}

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

    def count_steps(self, namespace: str, episode: str, field: str, value: str,
                    lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        check_step_field(field)
        low, high = t_window(lo, hi)
        rows = self._read("recall/count_steps", namespace=namespace, episode=episode, field=field, value=value,
                          lo=low, hi=high, shown=max(shown, 0))
        return _step_count(rows[0] if rows else None)

    def count_held(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                   lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        check_change_query(source, cmp)
        low, high = t_window(lo, hi)
        rows = self._read("recall/count_held", namespace=namespace, episode=episode, source=source, name=name, cmp=cmp,
                          value=value, lo=low, hi=high, shown=max(shown, 0))
        return _step_count(rows[0] if rows else None)

    def steps_between(self, namespace: str, episode: str, lo: int, hi: int, limit: int) -> dict[int, StepRow]:
        if limit <= 0:
            return {}
        low, high = t_window(lo, hi)
        rows = self._rows("recall/steps_between", namespace=namespace, episode=episode, lo=low, hi=high, limit=limit)
        return {int(t): step_row(_node_props(props)) for t, props in rows}

    def units_in_window(
        self, namespace: str, start: float, end: float, limit: int,
        longest_session: float | None = None, longest_event: float | None = None,
    ) -> dict[str, TurnRow]:
        rows = self._rows(
            "recall/units_in_window", namespace=namespace, start=start, end=end, limit=limit,
            session_from=earliest_start(start, longest_session), event_from=earliest_start(start, longest_event),
        )
        found: dict[str, TurnRow] = {}
        for key, props in rows:
            if key not in found and len(found) < limit:
                found[key] = turn_row(_node_props(props))
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
        nodes: dict[str, StoredRow] = {}
        for key, back, ahead in rows:
            back, ahead = sorted(back, key=lambda r: (-r[0], r[1])), sorted(ahead, key=lambda r: (r[0], r[1]))
            chains[key] = [k for _, k, _ in back] + [key] + [k for _, k, _ in ahead]
            if with_props:
                nodes.update((k, stored_row(_node_props(props))) for _, k, props in (*back, *ahead))
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
        return self._vectors.search(self._read, namespace, embedding, k, label, with_props)

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

    def trace_events(self, namespace: str) -> list[TraceEventRow]:
        rows = self._read("recall/trace_events", namespace=namespace)
        return [TraceEventRow(r["key"], r["box"], r["trace"], r["text"], r["embedding"]) for r in rows]

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

    def session_turns(self, namespace: str, session: str) -> list[TurnRow]:
        rows = self._rows("admin/session_turns", namespace=namespace, key=node_key("Session", session))
        return [turn_row(_node_props(props)) for props in rows]

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
            merge_rows(tx, renumber)

        self._execute_write(work, f"deleting episode {episode!r} of {namespace!r}")

    def delete_session(self, namespace: str, session: str) -> None:
        key = node_key("Session", session)

        def work(tx: neo4j.ManagedTransaction) -> str | None:
            """Delete the session; the episode's id instead when it is the episode's only session."""
            record = tx.run(cypher("admin/session_parts"), namespace=namespace, key=key, hidden=list(HIDDEN_PROPERTIES)).single()
            if record is None:
                return None
            parts = SessionParts(
                namespace, session_row(_node_props(record["session"])), episode_row(_node_props(record["episode"])),
                [session_row(row) for row in record["sessions"]], [turn_place(row) for row in record["turns"]],
                [box_place(row) for row in record["boxes"]], list(record["box_events"]), list(record["shared"]),
            )
            if len(parts.sessions) == 1:
                return parts.episode.uid
            removal = session_removal(parts)
            tx.run(cypher("admin/delete_nodes"), namespace=namespace, keys=list(removal.doomed)).consume()
            tx.run(cypher("admin/delete_orphans"), namespace=namespace, keys=list(removal.shared)).consume()
            merge_rows(tx, removal.then)
            return None

        only = self._execute_write(work, f"deleting session {session!r} of {namespace!r}")
        if only is not None:
            self.delete_episode(namespace, only)

    def _execute_write(self, work: Callable[[neo4j.ManagedTransaction], _Result], what: str) -> _Result:
        """``work`` in one managed write transaction (retried on transient errors), its result returned."""
        try:
            with self._session() as session:
                return session.execute_write(work)
        except (Neo4jError, DriverError) as exc:
            raise StoreError(f"{what} failed, nothing of it was kept: {exc}") from exc
