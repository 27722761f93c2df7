"""The embedded backend's graph and the indexes kept beside it, with their upkeep.

``EmbeddedGraph`` holds the networkx graph and, where Neo4j would use an index, a small dictionary or
sorted list beside it (BM25 and vector indexes, events by ordinal and by time, steps by index, session
and event starts). Every change to the graph goes through ``_merge_node`` and ``_remove_nodes`` (and
``delete_namespace``), which keep those indexes in step; the reads (``graphmem.store.embedded_reads``)
only look them up.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

from graphmem.store.embedded_vectors import VectorIndex
from graphmem.store.protocol import DIMENSIONS, UNIT_LABELS
from graphmem.store.text_index import BM25Index

__all__ = ["EmbeddedGraph"]

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



def _remove(entries: list[Any], entry: Any) -> None:
    """Take ``entry`` out of a sorted list (if it is there)."""
    i = bisect.bisect_left(entries, entry)
    if i < len(entries) and entries[i] == entry:
        del entries[i]



class EmbeddedGraph:
    """The graph of an embedded store and the indexes beside it (see the module's docstring)."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions
        self.graph: nx.MultiDiGraph[tuple[str, str]] = nx.MultiDiGraph()
        self._lock = threading.RLock()
        self._bm25 = {group: BM25Index() for group in _SEARCH_GROUPS}
        self._vectors: dict[tuple[str, str], VectorIndex] = {}
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

    # ------------------------------------------------------------------ adding and changing nodes
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
                    index = self._vectors[(namespace, group)] = VectorIndex(self.dimensions)
                index.upsert(key, props["embedding"], label)
                # The vector lives in the index's float32 matrix; a second copy as a list of Python floats
                # in the node's attributes would cost ~12 KB a unit and nothing reads it there.
                attrs.pop("embedding", None)
        if label == "Event" and attrs.get("ordinal") is not None:
            ordinal_group = (namespace, attrs["episode"], attrs["kind"], attrs["obj"])
            self._events[ordinal_group][int(attrs["ordinal"])] = key
            entry = (int(attrs.get("t", -1)), int(attrs["ordinal"]), key)
            previous = self._event_at.get(node)
            if previous != (ordinal_group, entry):
                if previous is not None:
                    old_list = self._event_times[previous[0]]
                    i = bisect.bisect_left(old_list, previous[1])
                    if i < len(old_list) and old_list[i] == previous[1]:
                        del old_list[i]
                bisect.insort(self._event_times[ordinal_group], entry)
                self._event_at[node] = (ordinal_group, entry)
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

    # ------------------------------------------------------------------ removing nodes
    def delete_namespace(self, namespace: str) -> None:
        with self._lock:
            doomed = [(namespace, key) for (ns, _), keys in self._by_label.items() if ns == namespace for key in keys]
            self.graph.remove_nodes_from(doomed)
            for index in self._bm25.values():
                for node in doomed:
                    index.remove(node)
            for key in [k for k in self._vectors if k[0] == namespace]:
                del self._vectors[key]
            for ordinal_group in [g for g in self._events if g[0] == namespace]:
                del self._events[ordinal_group]
            for ordinal_group in [g for g in self._event_times if g[0] == namespace]:
                del self._event_times[ordinal_group]
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

    # ------------------------------------------------------------------ reading the graph
    def _props(self, namespace: str, key: str) -> dict[str, Any]:
        """A node's properties as Neo4j returns them: no label, no embedding."""
        return {k: v for k, v in self.graph.nodes[(namespace, key)].items() if k not in ("label", "embedding") and v is not None}

    def _nodes_with(self, namespace: str, label: str) -> list[dict[str, Any]]:
        """Attributes of the namespace's nodes with that label, in no particular order (callers sort)."""
        return [self.graph.nodes[(namespace, key)] for key in self._by_label.get((namespace, label), ())]

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
