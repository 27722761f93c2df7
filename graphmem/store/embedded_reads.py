"""The embedded backend's reads: every ``GraphStore`` lookup, answered from the indexes beside the graph.

Each realizes the rules of its Cypher statement in ``cypher/recall/`` (the contract suite checks that
both backends answer alike), under the store's lock.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from graphmem.records import Scalar
from graphmem.store.embedded_graph import EmbeddedGraph
from graphmem.store.protocol import (
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
    check_change_query,
    check_ordinal,
    check_step_field,
    comes_to_meet,
    earliest_start,
    meets,
    t_window,
    unit_filter,
)
from graphmem.store.rows import episode_row, session_row, step_row, stored_row, turn_row
from graphmem.store.text_index import query_terms

__all__ = ["EmbeddedReads"]


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



def _first_per_step(entries: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Of entries sorted by (t, ...), the first at each step."""
    firsts: list[tuple[Any, ...]] = []
    for entry in entries:
        if not firsts or firsts[-1][0] != entry[0]:
            firsts.append(entry)
    return firsts


def _tally(matching: Sequence[int], shown: int) -> StepCount:
    """The ``StepCount`` of matching steps in t order: the first ``shown``, then the last."""
    if not matching:
        return StepCount(0)
    return StepCount(len(matching), tuple(dict.fromkeys([*matching[: max(shown, 0)], matching[-1]])))


def _sortable(value: Any) -> float:
    """A property as a sort key, missing last (Cypher's ORDER BY puts null after every number)."""
    return float("inf") if value is None else float(value)



class EmbeddedReads(EmbeddedGraph):
    """The lookups of ``GraphStore`` on an embedded graph."""

    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: self._props(namespace, k) for k in keys if (namespace, k) in self.graph}

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[EpisodeRow]:
        with self._lock:
            found = [a for a in self._nodes_with(namespace, "Episode") if kind is None or a.get("kind") == kind]
            return [episode_row(a) for a in sorted(found, key=lambda a: (a.get("seq", 0), a["uid"]))]

    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]:
        with self._lock:
            return {ns: {str(a["uid"]): str(a.get("kind")) for a in self._nodes_with(ns, "Episode")} for ns in dict.fromkeys(namespaces)}

    def sessions(self, namespace: str, episode: str | None = None) -> list[SessionRow]:
        with self._lock:
            rows = [
                session_row(a) for a in self._nodes_with(namespace, "Session") if episode is None or a["episode"] == episode
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

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, StepRow]:
        with self._lock:
            index = self._steps.get((namespace, episode), {})
            return {t: step_row(self._props(namespace, index[t])) for t in ts if t in index}

    def find_event(self, namespace: str, episode: str, kind: str | None, obj: str | None, ordinal: int,
                   lo: int | None = None, hi: int | None = None) -> EventRow | None:
        ordinal = check_ordinal(ordinal)
        low, high = t_window(lo, hi)
        with self._lock:
            entries = self._event_order.get(_query_group(namespace, episode, kind, obj), [])
            start, end = _span(entries, low, high)
            if kind is None and obj is not None:
                # As recall/find_event_by_obj: a step counts once, by its first event of the object.
                firsts = _first_per_step(entries[start:end])
                at = ordinal - 1 if ordinal > 0 else len(firsts) + ordinal
                return self._event_row(namespace, firsts[at][2]) if 0 <= at < len(firsts) else None
            at = start + ordinal - 1 if ordinal > 0 else end + ordinal
            return self._event_row(namespace, entries[at][2]) if start <= at < end else None

    def count_events(self, namespace: str, episode: str, kind: str | None, obj: str | None,
                     lo: int | None = None, hi: int | None = None) -> int:
        low, high = t_window(lo, hi)
        with self._lock:
            entries = self._event_order.get(_query_group(namespace, episode, kind, obj), [])
            start, end = _span(entries, low, high)
            if kind is None and obj is not None:
                return len(_first_per_step(entries[start:end]))  # as recall/count_events_by_obj: steps
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

    def count_steps(self, namespace: str, episode: str, field: str, value: str,
                    lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        check_step_field(field)
        low, high = t_window(lo, hi)
        with self._lock:
            times = self._step_times.get((namespace, episode), [])
            index = self._steps.get((namespace, episode), {})
            window = times[bisect.bisect_left(times, low): bisect.bisect_right(times, high)]
            return _tally([t for t in window if self.graph.nodes[(namespace, index[t])].get(field) == value], shown)

    def count_held(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                   lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        check_change_query(source, cmp)
        low, high = t_window(lo, hi)
        with self._lock:
            times = self._step_times.get((namespace, episode), [])
            window = times[bisect.bisect_left(times, low): bisect.bisect_right(times, high)]
            changes = self._changes.get((namespace, episode, source, name), [])
            # As recall/count_held.cypher: each step takes the value its latest change at or before it left.
            at = bisect.bisect_right(changes, window[0], key=lambda e: e[0]) if window else 0
            current: Scalar | None = 0 if source == "inventory" else None
            if at:
                current = self.graph.nodes[(namespace, changes[at - 1][1])].get("after")
            matching = []
            for t in window:
                while at < len(changes) and changes[at][0] <= t:
                    current = self.graph.nodes[(namespace, changes[at][1])].get("after")
                    at += 1
                if meets(current, cmp, value):
                    matching.append(t)
            return _tally(matching, shown)

    def steps_between(self, namespace: str, episode: str, lo: int, hi: int, limit: int) -> dict[int, StepRow]:
        if limit <= 0:
            return {}
        low, high = t_window(lo, hi)
        with self._lock:
            times = self._step_times.get((namespace, episode), [])
            start, end = bisect.bisect_left(times, low), bisect.bisect_right(times, high)
            index = self._steps.get((namespace, episode), {})
            return {t: step_row(self._props(namespace, index[t])) for t in times[start : min(end, start + limit)]}

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
    ) -> dict[str, TurnRow]:
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
            return {key: turn_row(self._props(namespace, key)) for key in list(dict.fromkeys(keys))[:limit]}

    def sessions_in_window(self, namespace: str, start: float, end: float, longest_session: float | None = None) -> list[str]:
        with self._lock:
            return sorted(key for _, key in self._overlapping_sessions(namespace, start, end, longest_session))

    def _next(self, node: tuple[str, str], forward: bool) -> tuple[str, str] | None:
        edges = self.graph.out_edges(node, keys=True) if forward else self.graph.in_edges(node, keys=True)
        for a, b, etype in edges:
            if etype == "NEXT":
                found: tuple[str, str] = b if forward else a
                return found
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
            nodes: dict[str, StoredRow] = {}
            if with_props:
                nodes = {k: stored_row(self._props(namespace, k)) for chain in chains.values() for k in chain if k not in chains}
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
        row = stored_row(self._props(namespace, key)) if with_props else None
        return Hit(key, self.graph.nodes[(namespace, key)]["uid"], score, row)

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

    def trace_events(self, namespace: str) -> list[TraceEventRow]:
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
                    rows.append(TraceEventRow(a["key"], boxes[0], trace_uid, a.get("obj", ""), a.get("embedding")))
        return sorted(rows, key=lambda r: r.key)

    def counts(self, namespace: str) -> dict[str, int]:
        with self._lock:
            counts = {label: len(keys) for (ns, label), keys in self._by_label.items() if ns == namespace and keys}
            counts.update({etype: n for (ns, etype), n in self._edge_counts.items() if ns == namespace and n})
            return dict(sorted(counts.items()))
