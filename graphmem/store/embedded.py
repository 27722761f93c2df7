"""The embedded backend: the same memory graph in-process, on networkx, numpy and BM25.

It is graphmem's default when no Neo4j is configured. It realizes every ``GraphStore`` lookup with the
same rules as the Cypher statements in ``cypher/`` (the contract suite checks that both answer alike),
keeping small dictionaries beside the graph where Neo4j would use an index.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx
import numpy as np

from graphmem.errors import ConflictError, StoreError
from graphmem.records import Scalar
from graphmem.store.protocol import (
    DIMENSIONS,
    EDGE_TYPES,
    NODE_LABELS,
    UNIT_LABELS,
    ChangeRow,
    EventRow,
    Hit,
    Neighbourhood,
    SessionRow,
    WriteBatch,
    check_change_query,
    check_ordinal,
    comes_to_meet,
    earliest_start,
    node_key,
    t_window,
    unmet,
    unit_filter,
)
from graphmem.store.lifecycle import SHARED_LINKS, SessionParts, episode_renumbering, session_removal
from graphmem.store.text_index import BM25Index, query_terms

_SEARCH_GROUPS = {"unit": UNIT_LABELS, "Box": ("Box",)}

#: An event's place in (t, i, key) order, and a change's in (t, key) order.
_EventEntry = tuple[int, float, str]
_ChangeEntry = tuple[int, str]


def _event_groups(namespace: str, attrs: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """The find_event / count_events groups an Event node belongs to: one per shape of question ("pair",
    "kind", "obj", "any"), each only if the node has every property of that shape's Neo4j index
    (event_step, event_kind_time, event_obj_time, event_time), as a composite index holds only such nodes."""
    episode, kind, obj = attrs.get("episode"), attrs.get("kind"), attrs.get("obj")
    if episode is None or attrs.get("t") is None:
        return ()
    groups: list[tuple[str, ...]] = [("any", namespace, episode)]
    if kind is not None:
        groups.append(("kind", namespace, episode, kind))
    if obj is not None:
        groups.append(("obj", namespace, episode, obj))
    if kind is not None and obj is not None:
        groups.append(("pair", namespace, episode, kind, obj))
    return tuple(groups)


def _query_group(namespace: str, episode: str, kind: str | None, obj: str | None) -> tuple[str, ...]:
    """The group of ``_event_groups`` a find_event / count_events question reads."""
    if kind is not None and obj is not None:
        return ("pair", namespace, episode, kind, obj)
    if kind is not None:
        return ("kind", namespace, episode, kind)
    if obj is not None:
        return ("obj", namespace, episode, obj)
    return ("any", namespace, episode)


def _span(entries: Sequence[tuple[Any, ...]], lo: int, hi: int) -> tuple[int, int]:
    """The slice ``[start, end)`` of a list sorted by t (its first field) with ``lo <= t <= hi``."""
    return bisect.bisect_left(entries, lo, key=lambda e: e[0]), bisect.bisect_right(entries, hi, key=lambda e: e[0])


def _sortable(value: Any) -> float:
    """A property as a sort key, missing last (Cypher's ORDER BY puts null after every number)."""
    return float("inf") if value is None else float(value)


def _remove(entries: list[Any], entry: Any) -> None:
    """Take ``entry`` out of a sorted list (if it is there)."""
    i = bisect.bisect_left(entries, entry)
    if i < len(entries) and entries[i] == entry:
        del entries[i]


class _VectorIndex:
    """Exact cosine search over one namespace's vectors, in a growing numpy matrix; each row remembers its
    node's label, so a search can keep to one label (the turns of a namespace that holds steps too)."""

    def __init__(self, dimensions: int) -> None:
        self.keys: list[str] = []
        self.slot: dict[str, int] = {}
        self.matrix = np.zeros((64, dimensions), dtype=np.float32)
        self._codes: dict[str, int] = {}
        self.label_codes = np.zeros(64, dtype=np.int16)

    def upsert(self, key: str, vector: Sequence[float], label: str = "") -> None:
        row = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(row))
        if norm > 0:
            row = row / norm
        if key in self.slot:
            self.matrix[self.slot[key]] = row
            return
        if len(self.keys) == self.matrix.shape[0]:
            grown = np.zeros((self.matrix.shape[0] * 2, self.matrix.shape[1]), dtype=np.float32)
            grown[: len(self.keys)] = self.matrix[: len(self.keys)]
            self.matrix = grown
            self.label_codes = np.concatenate([self.label_codes, np.zeros_like(self.label_codes)])
        self.slot[key] = len(self.keys)
        self.matrix[len(self.keys)] = row
        self.label_codes[len(self.keys)] = self._codes.setdefault(label, len(self._codes))
        self.keys.append(key)

    def search(self, vector: Sequence[float], k: int, only: str | None = None) -> list[tuple[str, float]]:
        """The k nearest (of label ``only`` when given), best first, ties by key."""
        n = len(self.keys)
        if n == 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm > 0:
            query = query / norm
        sims = self.matrix[:n] @ query
        if only is None:
            rows = np.arange(n)
        elif only in self._codes:
            rows = np.flatnonzero(self.label_codes[:n] == self._codes[only])
        else:
            return []
        if rows.size == 0:
            return []
        k = min(k, rows.size)
        top = rows[np.argpartition(-sims[rows], k - 1)[:k]]
        ranked = sorted(((self.keys[i], (1.0 + float(sims[i])) / 2.0) for i in top), key=lambda kv: (-kv[1], kv[0]))
        return ranked

    def remove(self, key: str) -> None:
        """Drop ``key``'s vector (if any): the last row takes its slot (searches break ties by key, so
        the rows' order does not matter)."""
        slot = self.slot.pop(key, None)
        if slot is None:
            return
        last = len(self.keys) - 1
        if slot != last:
            moved = self.keys[last]
            self.matrix[slot] = self.matrix[last]
            self.label_codes[slot] = self.label_codes[last]
            self.keys[slot] = moved
            self.slot[moved] = slot
        self.keys.pop()


class EmbeddedStore:
    """In-process ``GraphStore``. Thread-safe; not persistent (a process holds its memory)."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions
        self.graph = nx.MultiDiGraph()
        self._lock = threading.RLock()
        self._bm25 = {group: BM25Index() for group in _SEARCH_GROUPS}
        self._vectors: dict[tuple[str, str], _VectorIndex] = {}
        # (namespace, episode, kind, obj) -> {ordinal: event node key}; ordinals are dense from 1.
        self._events: dict[tuple[str, str, str, str], dict[int, str]] = defaultdict(dict)
        # The same events sorted by (t, ordinal), the event_step index behind latest_event_until; and
        # where each event key sits in it, so a rewritten event moves instead of appearing twice.
        self._event_times: dict[tuple[str, str, str, str], list[tuple[int, int, str]]] = defaultdict(list)
        self._event_at: dict[tuple[str, str], tuple[tuple[str, str, str, str], tuple[int, int, str]]] = {}
        # (namespace, episode) -> {t: step key}, and the same step indices sorted (step_time, for
        # steps_between).
        self._steps: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
        self._step_times: dict[tuple[str, str], list[int]] = defaultdict(list)
        # The trajectory query operators' indexes: events by each shape of question (see _event_groups),
        # sorted by (t, i, key), i infinite for an event without one (Cypher orders null after numbers);
        # Change nodes by (namespace, episode, source, name), sorted by (t, key). And where each node sits,
        # so a rewritten node moves instead of appearing twice.
        self._event_order: dict[tuple[str, ...], list[_EventEntry]] = defaultdict(list)
        self._event_order_at: dict[tuple[str, str], tuple[tuple[tuple[str, ...], ...], _EventEntry]] = {}
        self._changes: dict[tuple[str, str, str, str], list[_ChangeEntry]] = defaultdict(list)
        self._change_at: dict[tuple[str, str], tuple[tuple[str, str, str, str], _ChangeEntry]] = {}
        # (namespace, label) -> node keys, as Neo4j's label + namespace indexes would find them.
        self._by_label: dict[tuple[str, str], set[str]] = defaultdict(set)
        # (namespace, type) -> relationships, so counts() need not walk the whole graph.
        self._edge_counts: dict[tuple[str, str], int] = defaultdict(int)
        # namespace -> sorted [(start, key)] of sessions and [(event_start, key)] of turns with an event
        # time: the session_start and turn_event_start range indexes, for units_in_window.
        self._session_starts: dict[str, list[tuple[float, str]]] = defaultdict(list)
        self._turn_events: dict[str, list[tuple[float, str]]] = defaultdict(list)

    # ------------------------------------------------------------------ schema and writes
    def ensure_schema(self) -> None:
        """Nothing to create: the dictionaries beside the graph are the indexes."""

    def write(self, batch: WriteBatch) -> None:
        with self._lock:
            self._check(batch)
            for expect in batch.expect:
                node = self.graph.nodes.get((expect.namespace, expect.key))
                actual = None if node is None else node.get(expect.prop)
                if actual != expect.value:
                    raise ConflictError(unmet(expect, actual))
            for row in batch.nodes:
                self._merge_node(row.namespace, row.key, row.label, row.uid, dict(row.props))
            for edge in batch.edges:
                node_a, node_b = (edge.namespace, edge.source), (edge.namespace, edge.target)
                if self.graph.has_edge(node_a, node_b, key=edge.type):
                    self.graph.edges[node_a, node_b, edge.type].update(edge.props)
                else:
                    self.graph.add_edge(node_a, node_b, key=edge.type, **dict(edge.props))
                    self._edge_counts[(edge.namespace, edge.type)] += 1

    def _check(self, batch: WriteBatch) -> None:
        """Refuse the whole batch before touching the graph, so a bad row writes nothing."""
        new_nodes = {(r.namespace, r.key) for r in batch.nodes}
        for row in batch.nodes:
            if row.label not in NODE_LABELS:
                raise StoreError(f"unknown node label {row.label!r}")
            vector = row.props.get("embedding")
            if vector is not None and len(vector) != self.dimensions:
                raise StoreError(f"{row.key}: embedding has {len(vector)} dimensions, the store expects {self.dimensions}")
        for edge in batch.edges:
            if edge.type not in EDGE_TYPES:
                raise StoreError(f"unknown relationship type {edge.type!r}")
            for end in (edge.source, edge.target):
                if (edge.namespace, end) not in new_nodes and (edge.namespace, end) not in self.graph:
                    raise StoreError(f"relationship {edge.type} refers to missing node {end!r} in {edge.namespace!r}")

    def _merge_node(self, namespace: str, key: str, label: str, uid: str, props: dict[str, Any]) -> None:
        node = (namespace, key)
        if node not in self.graph:
            self.graph.add_node(node, label=label, namespace=namespace, key=key, uid=uid)
            self._by_label[(namespace, label)].add(key)
        attrs = self.graph.nodes[node]
        if label == "Session" and "start" in props:
            self._reindex(self._session_starts[namespace], key, attrs.get("start"), props["start"])
        if label == "Turn" and "event_start" in props:
            self._reindex(self._turn_events[namespace], key, attrs.get("event_start"), props["event_start"])
        attrs.update(props)
        for group, labels in _SEARCH_GROUPS.items():
            if label in labels and "text" in props:
                self._bm25[group].upsert(node, str(props["text"]))
            if label in labels and props.get("embedding") is not None:
                index = self._vectors.get((namespace, group))
                if index is None:
                    index = self._vectors[(namespace, group)] = _VectorIndex(self.dimensions)
                index.upsert(key, props["embedding"], label)
                # The vector lives in the index's float32 matrix; a second copy as a list of Python floats
                # in the node's attributes would cost ~12 KB a unit and nothing reads it there.
                attrs.pop("embedding", None)
        if label == "Event" and attrs.get("ordinal") is not None:
            group = (namespace, attrs["episode"], attrs["kind"], attrs["obj"])
            self._events[group][int(attrs["ordinal"])] = key
            entry = (int(attrs.get("t", -1)), int(attrs["ordinal"]), key)
            previous = self._event_at.get(node)
            if previous != (group, entry):
                if previous is not None:
                    old_list = self._event_times[previous[0]]
                    i = bisect.bisect_left(old_list, previous[1])
                    if i < len(old_list) and old_list[i] == previous[1]:
                        del old_list[i]
                bisect.insort(self._event_times[group], entry)
                self._event_at[node] = (group, entry)
        if label == "Event":
            self._index_event(node, attrs)
        if label == "Change":
            self._index_change(node, attrs)
        if label == "Step":
            steps = self._steps[(namespace, attrs["episode"])]
            if int(attrs["t"]) not in steps:
                bisect.insort(self._step_times[(namespace, attrs["episode"])], int(attrs["t"]))
            steps[int(attrs["t"])] = key

    def _index_event(self, node: tuple[str, str], attrs: dict[str, Any]) -> None:
        groups = _event_groups(node[0], attrs)
        i = attrs.get("i")
        placed = (groups, (int(attrs["t"]), math.inf if i is None else int(i), node[1])) if groups else None
        previous = self._event_order_at.get(node)
        if previous == placed:
            return
        if previous is not None:
            for group in previous[0]:
                _remove(self._event_order[group], previous[1])
            del self._event_order_at[node]
        if placed is not None:
            for group in placed[0]:
                bisect.insort(self._event_order[group], placed[1])
            self._event_order_at[node] = placed

    def _index_change(self, node: tuple[str, str], attrs: dict[str, Any]) -> None:
        episode, source, name, t = (attrs.get(p) for p in ("episode", "source", "name", "t"))
        placed = None
        if episode is not None and source is not None and name is not None and t is not None:
            placed = ((node[0], str(episode), str(source), str(name)), (int(t), node[1]))
        previous = self._change_at.get(node)
        if previous == placed:
            return
        if previous is not None:
            _remove(self._changes[previous[0]], previous[1])
            del self._change_at[node]
        if placed is not None:
            bisect.insort(self._changes[placed[0]], placed[1])
            self._change_at[node] = placed

    @staticmethod
    def _reindex(entries: list[tuple[float, str]], key: str, old: Any, new: Any) -> None:
        """Move ``key`` from ``old`` to ``new`` in a sorted [(value, key)] list (None: not in it)."""
        if old == new and old is not None:
            return
        if old is not None:
            i = bisect.bisect_left(entries, (float(old), key))
            if i < len(entries) and entries[i] == (float(old), key):
                del entries[i]
        if new is not None:
            bisect.insort(entries, (float(new), key))

    # ------------------------------------------------------------------ lookups
    def _props(self, namespace: str, key: str) -> dict[str, Any]:
        """A node's properties as Neo4j returns them: no label, no embedding."""
        return {k: v for k, v in self.graph.nodes[(namespace, key)].items() if k not in ("label", "embedding") and v is not None}

    def _nodes_with(self, namespace: str, label: str) -> list[dict[str, Any]]:
        """Attributes of the namespace's nodes with that label, in no particular order (callers sort)."""
        return [self.graph.nodes[(namespace, key)] for key in self._by_label.get((namespace, label), ())]

    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: self._props(namespace, k) for k in keys if (namespace, k) in self.graph}

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            found = (dict(a) for a in self._nodes_with(namespace, "Episode") if kind is None or a.get("kind") == kind)
            return sorted(found, key=lambda a: (a.get("seq", 0), a["uid"]))

    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]:
        with self._lock:
            return {ns: {str(a["uid"]): str(a.get("kind")) for a in self._nodes_with(ns, "Episode")} for ns in dict.fromkeys(namespaces)}

    def sessions(self, namespace: str, episode: str | None = None) -> list[SessionRow]:
        with self._lock:
            rows = [
                SessionRow(a["uid"], a["episode"], int(a["seq"]), float(a["start"]), float(a["end"]))
                for a in self._nodes_with(namespace, "Session")
                if episode is None or a["episode"] == episode
            ]
        return sorted(rows, key=lambda r: (r.seq, r.uid))

    def _event_row(self, namespace: str, key: str) -> EventRow:
        a = self.graph.nodes[(namespace, key)]
        return EventRow(key, a["unit"], a["episode"], a["kind"], a["obj"], int(a["count"]), int(a["ordinal"]), int(a.get("t", -1)))

    def occurrence(self, namespace: str, episode: str, kind: str, obj: str, ordinal: int) -> EventRow | None:
        with self._lock:
            key = self._events.get((namespace, episode, kind, obj), {}).get(ordinal)
            return self._event_row(namespace, key) if key else None

    def event_total(self, namespace: str, episode: str, kind: str, obj: str) -> int:
        with self._lock:
            return max(self._events.get((namespace, episode, kind, obj), {}) or [0])

    def latest_event_until(self, namespace: str, episode: str, kind: str, obj: str, t: int) -> EventRow | None:
        with self._lock:
            # The greatest (t, ordinal) with t <= $t, as ORDER BY e.t DESC, e.ordinal DESC LIMIT 1.
            entries = self._event_times.get((namespace, episode, kind, obj), [])
            i = bisect.bisect_right(entries, t, key=lambda e: e[0])
            return self._event_row(namespace, entries[i - 1][2]) if i else None

    def events_of(self, namespace: str, unit_keys: Sequence[str]) -> list[EventRow]:
        with self._lock:
            rows = []
            for unit in unit_keys:
                node = (namespace, unit)
                if node not in self.graph:
                    continue
                for _, target, etype in self.graph.out_edges(node, keys=True):
                    if etype == "HAS_EVENT" and self.graph.nodes[target].get("ordinal") is not None:
                        rows.append(self._event_row(namespace, target[1]))
        return sorted(rows, key=lambda r: (r.unit_key, r.key))

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, dict[str, Any]]:
        with self._lock:
            index = self._steps.get((namespace, episode), {})
            return {t: self._props(namespace, index[t]) for t in ts if t in index}

    def find_event(self, namespace: str, episode: str, kind: str | None, obj: str | None, ordinal: int,
                   lo: int | None = None, hi: int | None = None) -> EventRow | None:
        ordinal = check_ordinal(ordinal)
        low, high = t_window(lo, hi)
        with self._lock:
            entries = self._event_order.get(_query_group(namespace, episode, kind, obj), [])
            start, end = _span(entries, low, high)
            at = start + ordinal - 1 if ordinal > 0 else end + ordinal
            return self._event_row(namespace, entries[at][2]) if start <= at < end else None

    def count_events(self, namespace: str, episode: str, kind: str | None, obj: str | None,
                     lo: int | None = None, hi: int | None = None) -> int:
        low, high = t_window(lo, hi)
        with self._lock:
            start, end = _span(self._event_order.get(_query_group(namespace, episode, kind, obj), []), low, high)
            return max(end - start, 0)

    def find_change(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                    ordinal: int, lo: int | None = None, hi: int | None = None) -> ChangeRow | None:
        check_change_query(source, cmp)
        ordinal = check_ordinal(ordinal)
        low, high = t_window(lo, hi)
        with self._lock:
            entries = self._changes.get((namespace, episode, source, name), [])
            start, end = _span(entries, low, high)
            # As recall/find_change(_from_end): the window's changes in t order (backwards for a negative
            # ordinal), keeping those whose value comes to meet the condition, up to the |ordinal|-th.
            order = range(start, end) if ordinal > 0 else range(end - 1, start - 1, -1)
            wanted = abs(ordinal)
            for at in order:
                a = self.graph.nodes[(namespace, entries[at][1])]
                if comes_to_meet(a.get("before"), a.get("after"), cmp, value):
                    wanted -= 1
                    if wanted == 0:
                        return ChangeRow(a["key"], a["unit"], a["episode"], a["source"], a["name"], a.get("before"),
                                         a.get("after"), int(a["t"]))
            return None

    def steps_between(self, namespace: str, episode: str, lo: int, hi: int, limit: int) -> dict[int, dict[str, Any]]:
        if limit <= 0:
            return {}
        low, high = t_window(lo, hi)
        with self._lock:
            times = self._step_times.get((namespace, episode), [])
            start, end = bisect.bisect_left(times, low), bisect.bisect_right(times, high)
            index = self._steps.get((namespace, episode), {})
            return {t: self._props(namespace, index[t]) for t in times[start : min(end, start + limit)]}

    @staticmethod
    def _between(index: list[tuple[float, str]], low: float, high: float) -> list[tuple[float, str]]:
        """The entries of a sorted (start, key) index with ``low <= start <= high``."""
        return index[bisect.bisect_left(index, low, key=lambda e: e[0]): bisect.bisect_right(index, high, key=lambda e: e[0])]

    def _overlapping_sessions(self, namespace: str, start: float, end: float, longest: float | None) -> list[tuple[str, str]]:
        # As the range seek in recall/sessions_in_window.cypher: start in [earliest start, end] from the
        # sorted index, then the end >= $start filter.
        low = earliest_start(start, longest)
        found = [(namespace, key) for _, key in self._between(self._session_starts.get(namespace, []), low, end)]
        return [session for session in found if self.graph.nodes[session]["end"] >= start]

    def units_in_window(
        self, namespace: str, start: float, end: float, limit: int,
        longest_session: float | None = None, longest_event: float | None = None,
    ) -> dict[str, dict[str, Any]]:
        with self._lock:
            in_sessions: list[tuple[float, float, str]] = []
            for session in self._overlapping_sessions(namespace, start, end, longest_session):
                at = self.graph.nodes[session]["start"]
                for source, _, etype in self.graph.in_edges(session, keys=True):
                    if etype == "IN_SESSION":
                        in_sessions.append((at, _sortable(self.graph.nodes[source].get("seq")), source[1]))
            with_events: list[tuple[float, float, str]] = []
            for at, turn_key in self._between(self._turn_events.get(namespace, []), earliest_start(start, longest_event), end):
                attrs = self.graph.nodes[(namespace, turn_key)]
                ev_end = attrs.get("event_end")
                if ev_end is not None and ev_end >= start:
                    with_events.append((at, _sortable(attrs.get("seq")), turn_key))
            keys = [key for _, _, key in sorted(in_sessions)[:limit]] + [key for _, _, key in sorted(with_events)[:limit]]
            return {key: self._props(namespace, key) for key in list(dict.fromkeys(keys))[:limit]}

    def sessions_in_window(self, namespace: str, start: float, end: float, longest_session: float | None = None) -> list[str]:
        with self._lock:
            return sorted(key for _, key in self._overlapping_sessions(namespace, start, end, longest_session))

    def _next(self, node: tuple[str, str], forward: bool) -> tuple[str, str] | None:
        edges = self.graph.out_edges(node, keys=True) if forward else self.graph.in_edges(node, keys=True)
        for a, b, etype in edges:
            if etype == "NEXT":
                return b if forward else a
        return None

    def neighbours(self, namespace: str, keys: Sequence[str], before: int, after: int, with_props: bool = False) -> Neighbourhood:
        with self._lock:
            chains: dict[str, list[str]] = {}
            for key in keys:
                node = (namespace, key)
                if node not in self.graph:
                    continue
                back: list[str] = []
                cur: tuple[str, str] | None = node
                for _ in range(before):
                    cur = self._next(cur, forward=False) if cur else None
                    if cur is None:
                        break
                    back.append(cur[1])
                fwd: list[str] = []
                cur = node
                for _ in range(after):
                    cur = self._next(cur, forward=True) if cur else None
                    if cur is None:
                        break
                    fwd.append(cur[1])
                chains[key] = list(reversed(back)) + [key] + fwd
            nodes: dict[str, dict[str, Any]] = {}
            if with_props:
                nodes = {k: self._props(namespace, k) for chain in chains.values() for k in chain if k not in chains}
            return Neighbourhood(chains, nodes)

    def fulltext(self, namespace: str, query: str, k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        with self._lock:
            return [self._hit(namespace, key, score, with_props) for key, score in self._bm25[label].search(namespace, terms, k)]

    def vector(self, namespace: str, embedding: Sequence[float], k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        if k <= 0:
            return []
        only = unit_filter(label)
        group = "unit" if only is not None else label
        with self._lock:
            index = self._vectors.get((namespace, group))
            if index is None:
                return []
            return [self._hit(namespace, key, score, with_props) for key, score in index.search(embedding, k, only)]

    def _hit(self, namespace: str, key: str, score: float, with_props: bool) -> Hit:
        props = self._props(namespace, key) if with_props else None
        return Hit(key, self.graph.nodes[(namespace, key)]["uid"], score, props)

    def _out(self, namespace: str, key: str, etype: str) -> list[str]:
        node = (namespace, key)
        if node not in self.graph:
            return []
        return [b[1] for _, b, t in self.graph.out_edges(node, keys=True) if t == etype]

    def _in(self, namespace: str, key: str, etype: str) -> list[str]:
        node = (namespace, key)
        if node not in self.graph:
            return []
        return [a[1] for a, _, t in self.graph.in_edges(node, keys=True) if t == etype]

    def box_members(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        with self._lock:
            result = {}
            for box in box_keys:
                members = self._out(namespace, box, "CONTAINS")
                result[box] = sorted(members, key=lambda k: self.graph.nodes[(namespace, k)].get("seq", 0))
            return result

    def boxes_of(self, namespace: str, unit_keys: Sequence[str]) -> dict[str, str]:
        with self._lock:
            result = {}
            for unit in unit_keys:
                boxes = self._in(namespace, unit, "CONTAINS")
                if boxes:
                    result[unit] = min(boxes)
            return result

    def trace_boxes(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        with self._lock:
            result = {}
            for box in box_keys:
                related: set[str] = set()
                for event in self._out(namespace, box, "HAS_EVENT"):
                    for trace in self._out(namespace, event, "IN_TRACE"):
                        for other_event in self._in(namespace, trace, "IN_TRACE"):
                            related.update(self._in(namespace, other_event, "HAS_EVENT"))
                related.discard(box)
                result[box] = sorted(related, key=lambda k: (self.graph.nodes[(namespace, k)].get("seq", 0), k))
            return result

    def trace_events(self, namespace: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = []
            # Start from the traces, as recall/trace_events.cypher does: only box events join a trace,
            # so the namespace's step events (usually most of its events) are never looked at.
            event_keys = {e for trace in self._by_label.get((namespace, "Trace"), ()) for e in self._in(namespace, trace, "IN_TRACE")}
            for a in (self.graph.nodes[(namespace, e)] for e in event_keys):
                traces = self._out(namespace, a["key"], "IN_TRACE")
                boxes = self._in(namespace, a["key"], "HAS_EVENT")
                if traces and boxes:
                    trace_uid = self.graph.nodes[(namespace, traces[0])]["uid"]
                    rows.append({"key": a["key"], "box": boxes[0], "trace": trace_uid, "text": a.get("obj", ""), "embedding": a.get("embedding")})
        return sorted(rows, key=lambda r: r["key"])

    def counts(self, namespace: str) -> dict[str, int]:
        with self._lock:
            counts = {label: len(keys) for (ns, label), keys in self._by_label.items() if ns == namespace and keys}
            counts.update({etype: n for (ns, etype), n in self._edge_counts.items() if ns == namespace and n})
            return dict(sorted(counts.items()))

    def delete_namespace(self, namespace: str) -> None:
        with self._lock:
            doomed = [(namespace, key) for (ns, _), keys in self._by_label.items() if ns == namespace for key in keys]
            self.graph.remove_nodes_from(doomed)
            for index in self._bm25.values():
                for node in doomed:
                    index.remove(node)
            for key in [k for k in self._vectors if k[0] == namespace]:
                del self._vectors[key]
            for key in [k for k in self._events if k[0] == namespace]:
                del self._events[key]
            for key in [k for k in self._event_times if k[0] == namespace]:
                del self._event_times[key]
            for key in [k for k in self._event_at if k[0] == namespace]:
                del self._event_at[key]
            for key in [k for k in self._steps if k[0] == namespace]:
                del self._steps[key]
            for key in [k for k in self._step_times if k[0] == namespace]:
                del self._step_times[key]
            for group in [g for g in self._event_order if g[1] == namespace]:
                del self._event_order[group]
            for node in [n for n in self._event_order_at if n[0] == namespace]:
                del self._event_order_at[node]
            for change_group in [g for g in self._changes if g[0] == namespace]:
                del self._changes[change_group]
            for node in [n for n in self._change_at if n[0] == namespace]:
                del self._change_at[node]
            for key in [k for k in self._by_label if k[0] == namespace]:
                del self._by_label[key]
            for key in [k for k in self._edge_counts if k[0] == namespace]:
                del self._edge_counts[key]
            self._session_starts.pop(namespace, None)
            self._turn_events.pop(namespace, None)

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ lifecycle: namespaces, one episode, one session
    def namespaces(self) -> list[str]:
        with self._lock:
            return sorted({ns for (ns, label), keys in self._by_label.items() if label == "Episode" and keys})

    def session_turns(self, namespace: str, session: str) -> list[dict[str, Any]]:
        with self._lock:
            skey = node_key("Session", session)
            turns = [self._props(namespace, key) for key in self._in(namespace, skey, "IN_SESSION")]
        return sorted(turns, key=lambda p: (p.get("seq", 0), p["key"]))

    def delete_episode(self, namespace: str, episode: str) -> None:
        with self._lock:
            ekey = node_key("Episode", episode)
            if (namespace, ekey) not in self.graph:
                return
            doomed: list[str] = []
            shared: set[str] = set()
            for unit in self._in(namespace, ekey, "IN_EPISODE"):  # steps, sessions, turns
                doomed += [unit, *self._out(namespace, unit, "HAS_EVENT"), *self._out(namespace, unit, "CHANGES")]
                for link in SHARED_LINKS:
                    shared.update(self._out(namespace, unit, link))
                for box in self._in(namespace, unit, "CONTAINS"):
                    events = self._out(namespace, box, "HAS_EVENT")
                    doomed += [box, *events]
                    shared.update(trace for event in events for trace in self._out(namespace, event, "IN_TRACE"))
            renumber = episode_renumbering(namespace, self._nodes_with(namespace, "Episode"), episode)
            self._remove_nodes(namespace, [*dict.fromkeys(doomed), ekey])
            self._remove_orphans(namespace, shared)
            # EmbeddedStore.write, not self.write: a store that logs its writes (FileStore) logs the whole
            # deletion as one entry, and replaying it runs this again.
            EmbeddedStore.write(self, renumber)

    def delete_session(self, namespace: str, session: str) -> None:
        with self._lock:
            parts = self._session_parts(namespace, session)
            if parts is None:
                return
            if len(parts.sessions) == 1:
                EmbeddedStore.delete_episode(self, namespace, str(parts.episode["uid"]))
                return
            removal = session_removal(parts)
            self._remove_nodes(namespace, removal.doomed)
            self._remove_orphans(namespace, removal.shared)
            EmbeddedStore.write(self, removal.then)  # not self.write: see delete_episode

    def _session_parts(self, namespace: str, session: str) -> SessionParts | None:
        """What ``session_removal`` needs to delete a session (None when it is not stored)."""
        skey = node_key("Session", session)
        if (namespace, skey) not in self.graph:
            return None
        ekey = node_key("Episode", str(self.graph.nodes[(namespace, skey)]["episode"]))
        members = [self.graph.nodes[(namespace, key)] for key in self._in(namespace, ekey, "IN_EPISODE")]
        turns = [m for m in members if m["label"] == "Turn"]
        boxes = [self.graph.nodes[(namespace, b)] for b in sorted({b for t in turns for b in self._in(namespace, t["key"], "CONTAINS")})]
        own_turns = [t["key"] for t in turns if t.get("session") == session]
        box_events = [e for b in boxes if b.get("session") == session for e in self._out(namespace, b["key"], "HAS_EVENT")]
        shared = {x for t in own_turns for link in SHARED_LINKS for x in self._out(namespace, t, link)}
        shared.update(trace for e in box_events for trace in self._out(namespace, e, "IN_TRACE"))
        return SessionParts(
            namespace, self._props(namespace, skey), self._props(namespace, ekey),
            [m for m in members if m["label"] == "Session"], turns, boxes, box_events, sorted(shared),
        )

    def _remove_orphans(self, namespace: str, keys: Iterable[str]) -> None:
        """Remove the nodes among ``keys`` that no relationship links any more."""
        self._remove_nodes(namespace, [k for k in keys if (namespace, k) in self.graph and self.graph.degree((namespace, k)) == 0])

    def _remove_nodes(self, namespace: str, keys: Sequence[str]) -> None:
        """Remove nodes with their relationships, and take them out of every index beside the graph."""
        for key in keys:
            node = (namespace, key)
            if node not in self.graph:
                continue
            attrs = self.graph.nodes[node]
            label = attrs["label"]
            for _, _, etype in [*self.graph.out_edges(node, keys=True), *self.graph.in_edges(node, keys=True)]:
                self._edge_counts[(namespace, etype)] -= 1
            self._by_label[(namespace, label)].discard(key)
            for group, labels in _SEARCH_GROUPS.items():
                if label in labels:
                    self._bm25[group].remove(node)
                    index = self._vectors.get((namespace, group))
                    if index is not None:
                        index.remove(key)
            if label == "Event":
                if attrs.get("ordinal") is not None:
                    ordinals = self._events.get((namespace, attrs["episode"], attrs["kind"], attrs["obj"]), {})
                    if ordinals.get(int(attrs["ordinal"])) == key:
                        del ordinals[int(attrs["ordinal"])]
                timed = self._event_at.pop(node, None)
                if timed is not None:
                    _remove(self._event_times[timed[0]], timed[1])
                ordered = self._event_order_at.pop(node, None)
                if ordered is not None:
                    for group_key in ordered[0]:
                        _remove(self._event_order[group_key], ordered[1])
            if label == "Change":
                change = self._change_at.pop(node, None)
                if change is not None:
                    _remove(self._changes[change[0]], change[1])
            if label == "Step":
                steps = self._steps.get((namespace, attrs["episode"]), {})
                if steps.get(int(attrs["t"])) == key:
                    del steps[int(attrs["t"])]
                    _remove(self._step_times[(namespace, attrs["episode"])], int(attrs["t"]))
            if label == "Session":
                self._reindex(self._session_starts[namespace], key, attrs.get("start"), None)
            if label == "Turn":
                self._reindex(self._turn_events[namespace], key, attrs.get("event_start"), None)
            self.graph.remove_node(node)
