"""The embedded backend's indexes answer like a brute-force pass over the whole graph, at a few thousand units.

``EmbeddedStore`` keeps sorted lists, counters and array-backed postings beside the graph so that lookups
cost what Neo4j's index seeks cost; these tests check behaviour, not time: each lookup against a
straightforward reference computed from the graph itself, across several namespaces, rewrites and a delete.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import EdgeRow, NodeRow, WriteBatch, node_key
from graphmem.store.text_index import K1, B, analyze, query_terms

DAY = 86400.0
WORDS = ["collect", "wood", "stone", "drink", "water", "lake", "place", "table", "make", "pickaxe", "hiking", "pepper", "marathon", "knee", "bakery"]


def unit(rng: np.random.Generator) -> list[float]:
    v = rng.normal(size=384)
    return [float(x) for x in v / np.linalg.norm(v)]


def trajectory(ns: str, ep: str, n: int, seed: int) -> WriteBatch:
    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    nodes = [NodeRow("Episode", ns, ep, {"kind": "trajectory", "seq": 0, "last_t": n - 1})]
    edges = []
    ordinals: Counter[tuple[str, str]] = Counter()
    for t in range(n):
        uid = f"{ep}:{t}"
        key = node_key("Step", uid)
        text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 9))) + f" step {t}"
        nodes.append(NodeRow("Step", ns, uid, {"episode": ep, "t": t, "text": text, "embedding": unit(rng)}))
        edges.append(EdgeRow("IN_EPISODE", ns, key, node_key("Episode", ep)))
        if t:
            edges.append(EdgeRow("NEXT", ns, node_key("Step", f"{ep}:{t - 1}"), key))
        for i in range(rnd.choice([0, 1, 1, 2])):
            pair = rnd.choice([("collect", "wood"), ("drink", "water"), ("place", "table")])
            ordinals[pair] += 1
            ev = f"{uid}#{i}"
            nodes.append(NodeRow("Event", ns, ev, {"episode": ep, "unit": key, "kind": pair[0], "obj": pair[1],
                                                    "count": 1, "ordinal": ordinals[pair], "t": t}))
            edges.append(EdgeRow("HAS_EVENT", ns, key, node_key("Event", ev)))
    return WriteBatch(tuple(nodes), tuple(edges))


def dialogue(ns: str, sessions: int, seed: int) -> WriteBatch:
    rnd, rng = random.Random(seed), np.random.default_rng(seed)
    nodes = [NodeRow("Episode", ns, "dialogue", {"kind": "dialogue", "seq": 1})]
    edges = []
    for s in range(sessions):
        sid = f"s{s}"
        nodes.append(NodeRow("Session", ns, sid, {"episode": "dialogue", "seq": s, "start": s * 3 * DAY, "end": s * 3 * DAY}))
        if s:
            # As the dialogue writer does: a session lasts until the next starts (a rewrite of the last one).
            nodes.append(NodeRow("Session", ns, f"s{s - 1}", {"end": s * 3 * DAY}))
            edges.append(EdgeRow("NEXT", ns, node_key("Session", f"s{s - 1}"), node_key("Session", sid)))
        for i in range(10):
            tid = f"D{s}:{i}"
            props: dict[str, Any] = {"episode": "dialogue", "session": sid, "seq": s * 10 + i,
                                     "text": " ".join(rnd.choice(WORDS) for _ in range(6)), "embedding": unit(rng)}
            if rnd.random() < 0.1:
                at = rnd.uniform(0, sessions * 3 * DAY)
                props |= {"event_start": at, "event_end": at + rnd.choice([0.0, DAY, 7 * DAY])}
            nodes.append(NodeRow("Turn", ns, tid, props))
            edges.append(EdgeRow("IN_SESSION", ns, node_key("Turn", tid), node_key("Session", sid)))
        box = f"{sid}#b0"
        nodes.append(NodeRow("Box", ns, box, {"session": sid, "seq": s, "text": rnd.choice(WORDS), "embedding": unit(rng)}))
        edges += [EdgeRow("CONTAINS", ns, node_key("Box", box), node_key("Turn", f"D{s}:{i}")) for i in range(10)]
        ev = f"{box}#e0"
        nodes.append(NodeRow("Event", ns, ev, {"kind": "topic", "obj": rnd.choice(WORDS), "embedding": unit(rng)}))
        edges.append(EdgeRow("HAS_EVENT", ns, node_key("Box", box), node_key("Event", ev)))
        trace = f"trace:{s % 7}"
        nodes.append(NodeRow("Trace", ns, trace, {}))
        edges.append(EdgeRow("IN_TRACE", ns, node_key("Event", ev), node_key("Trace", trace)))
    return WriteBatch(tuple(nodes), tuple(edges))


@pytest.fixture(scope="module")
def big() -> EmbeddedStore:
    store = EmbeddedStore()
    # Written in several batches, as ingestion does, into three namespaces: nodes first, then edges.
    full = trajectory("a", "run", 3000, seed=1)
    for start in range(0, len(full.nodes), 1000):
        store.write(WriteBatch(full.nodes[start : start + 1000]))
    for start in range(0, len(full.edges), 1000):
        store.write(WriteBatch((), full.edges[start : start + 1000]))
    store.write(dialogue("a", 150, seed=2))
    store.write(trajectory("b", "run", 1500, seed=3))
    store.write(dialogue("b", 60, seed=4))
    store.write(trajectory("c", "run", 200, seed=5))
    store.delete_namespace("c")
    return store


def _nodes(store: EmbeddedStore, ns: str, label: str) -> list[dict[str, Any]]:
    return [a for (n, _), a in store.graph.nodes(data=True) if n == ns and a["label"] == label]


def test_counts_match_a_full_walk(big: EmbeddedStore) -> None:
    for ns in ("a", "b", "c"):
        want: Counter[str] = Counter(a["label"] for (n, _), a in big.graph.nodes(data=True) if n == ns)
        want.update(t for s, _, t in big.graph.edges(keys=True) if s[0] == ns)
        assert big.counts(ns) == dict(sorted(want.items()))
    assert big.counts("a")["Step"] == 3000 and big.counts("a")["Turn"] == 1500 and big.counts("c") == {}


def test_units_in_window_matches_a_scan(big: EmbeddedStore) -> None:
    rnd = random.Random(9)
    for ns, sessions in (("a", 150), ("b", 60)):
        for _ in range(40):
            start = rnd.uniform(-5 * DAY, sessions * 3 * DAY + 5 * DAY)
            end = start + rnd.choice([0.0, 0.5 * DAY, 2 * DAY, 20 * DAY])
            valid = {s["key"] for s in _nodes(big, ns, "Session") if s["start"] <= end and s["end"] >= start}
            sessions_start = {s["uid"]: s["start"] for s in _nodes(big, ns, "Session")}
            turns = _nodes(big, ns, "Turn")
            in_sessions = sorted((sessions_start[t["session"]], t["seq"], t["key"]) for t in turns
                                 if node_key("Session", t["session"]) in valid)
            with_events = sorted((t["event_start"], t["seq"], t["key"]) for t in turns
                                 if t.get("event_start") is not None and t["event_start"] <= end and t["event_end"] >= start)
            longest_session = max(s["end"] - s["start"] for s in _nodes(big, ns, "Session"))
            longest_event = max(t["event_end"] - t["event_start"] for t in turns if t.get("event_start") is not None)
            for limit in (5, 10_000):
                want = list(dict.fromkeys([k for _, _, k in in_sessions[:limit]] + [k for _, _, k in with_events[:limit]]))[:limit]
                assert list(big.units_in_window(ns, start, end, limit)) == want
                assert list(big.units_in_window(ns, start, end, limit, longest_session, longest_event)) == want
            assert big.sessions_in_window(ns, start, end) == sorted(valid)
            assert big.sessions_in_window(ns, start, end, longest_session) == sorted(valid)


def test_window_follows_rewritten_event_times() -> None:
    store = EmbeddedStore()
    store.write(dialogue("x", 3, seed=1))
    store.write(WriteBatch((NodeRow("Turn", "x", "D0:0", {"event_start": 40 * DAY, "event_end": 41 * DAY}),)))
    assert "turn:D0:0" in store.units_in_window("x", 40.5 * DAY, 40.6 * DAY, 100)
    store.write(WriteBatch((NodeRow("Turn", "x", "D0:0", {"event_start": None, "event_end": None}),)))
    assert "turn:D0:0" not in store.units_in_window("x", 40.5 * DAY, 40.6 * DAY, 100)


def test_latest_event_until_matches_a_scan(big: EmbeddedStore) -> None:
    for ns in ("a", "b"):
        events = [e for e in _nodes(big, ns, "Event") if e.get("ordinal") is not None]
        for kind, obj in (("collect", "wood"), ("drink", "water"), ("place", "table"), ("eat", "cow")):
            mine = [e for e in events if (e["kind"], e["obj"]) == (kind, obj)]
            for t in (-1, 0, 1, 7, 500, 1499, 2999, 10_000):
                best = max(((e["t"], e["ordinal"]) for e in mine if e["t"] <= t), default=None)
                got = big.latest_event_until(ns, "run", kind, obj, t)
                assert (None if got is None else (got.t, got.ordinal)) == best
            assert big.event_total(ns, "run", kind, obj) == len(mine)


def _bm25_reference(store: EmbeddedStore, ns: str, question: str, k: int) -> list[tuple[str, float]]:
    """BM25 from scratch over every live unit text of every namespace (collection-wide statistics)."""
    docs = {(n, a["key"]): analyze(str(a["text"])) for (n, _), a in store.graph.nodes(data=True)
            if a["label"] in ("Step", "Turn") and "text" in a}
    avgdl = sum(map(len, docs.values())) / len(docs)
    scores: dict[str, float] = {}
    for term in query_terms(question):
        df = sum(1 for toks in docs.values() if term in toks)
        if not df:
            continue
        idf = math.log(1.0 + (len(docs) - df + 0.5) / (df + 0.5))
        for (n, key), toks in docs.items():
            tf = toks.count(term)
            if n == ns and tf:
                scores[key] = scores.get(key, 0.0) + idf * tf / (tf + K1 * (1.0 - B + B * len(toks) / avgdl))
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def test_fulltext_matches_reference_bm25(big: EmbeddedStore) -> None:
    for ns, question in (("a", "collect wood at the lake"), ("b", "hiking with pepper"), ("a", "step 42"), ("b", "zzz")):
        got = [(h.key, h.score) for h in big.fulltext(ns, question, 25)]
        want = _bm25_reference(big, ns, question, 25)
        assert [k for k, _ in got] == [k for k, _ in want]
        assert all(abs(g - w) < 1e-9 for (_, g), (_, w) in zip(got, want))


def test_vector_matches_exact_cosine(big: EmbeddedStore) -> None:
    query = unit(np.random.default_rng(99))
    written = {"a": trajectory("a", "run", 3000, seed=1) + dialogue("a", 150, seed=2),
               "b": trajectory("b", "run", 1500, seed=3) + dialogue("b", 60, seed=4)}
    for ns in ("a", "b"):
        # The vectors as written (the store keeps them only in its index).
        units = {r.key: r.props["embedding"] for r in written[ns].nodes if r.label in ("Step", "Turn")}
        sims = sorted(((1 + float(np.dot(vec, query))) / 2, key) for key, vec in units.items())
        want = [key for _, key in sorted(sims, key=lambda s: (-s[0], s[1]))[:10]]
        assert [h.key for h in big.vector(ns, query, 10)] == want
    assert big.vector("c", query, 10) == [] and big.fulltext("c", "wood", 10) == []


def test_trace_events_and_delete(big: EmbeddedStore) -> None:
    events = big.trace_events("a")
    assert len(events) == 150 and [e.key for e in events] == sorted(e.key for e in events)
    assert {e.trace for e in events} == {f"trace:{i}" for i in range(7)}
    store = EmbeddedStore()
    store.write(trajectory("x", "run", 500, seed=7))
    store.write(dialogue("x", 20, seed=8))
    store.write(trajectory("y", "run", 300, seed=9))
    store.delete_namespace("x")
    assert store.counts("x") == {} and store.units_in_window("x", 0, 1e12, 100) == {}
    assert store.latest_event_until("x", "run", "collect", "wood", 10**6) is None
    assert store.counts("y")["Step"] == 300 and len(store.fulltext("y", "wood step", 400)) > 0
    # Rewriting after a delete starts from a clean slate.
    store.write(trajectory("x", "run", 50, seed=7))
    assert store.counts("x")["Step"] == 50
