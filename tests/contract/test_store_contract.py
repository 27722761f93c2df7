"""One contract, two backends: every GraphStore behaviour must answer identically on both.

The ``store`` fixture (tests/conftest.py) yields an ``EmbeddedStore`` and a ``Neo4jStore`` on a real
server; each test writes into its own fresh namespace.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import ConflictError, StoreError
from graphmem.store.protocol import EDGE_TYPES, EdgeRow, Expect, NodeRow, StepRow, WriteBatch, node_key
from graphmem.store.rows import read_rows, read_turns, step_row


def vec(seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=384)
    return [float(x) for x in v / np.linalg.norm(v)]


def step_rows(ns: str, ep: str, n: int) -> WriteBatch:
    nodes = [NodeRow("Episode", ns, ep, {"kind": "trajectory", "seq": 0, "last_t": n - 1})]
    edges = []
    texts = ["collect wood from a tree", "drink water at the lake", "place table on grass", "make wood pickaxe"]
    ordinals: dict[str, int] = {}
    for t in range(n):
        uid = f"{ep}:{t}"
        text = texts[t % len(texts)] + f" step {t}"
        nodes.append(NodeRow("Step", ns, uid, {"episode": ep, "t": t, "text": text, "payload": "{}", "embedding": vec(t)}))
        edges.append(EdgeRow("IN_EPISODE", ns, node_key("Step", uid), node_key("Episode", ep)))
        if t:
            edges.append(EdgeRow("NEXT", ns, node_key("Step", f"{ep}:{t-1}"), node_key("Step", uid)))
        kind, obj = [("collect", "wood"), ("drink", "water"), ("place", "table"), ("make", "wood pickaxe")][t % 4]
        ordinals[kind] = ordinals.get(kind, 0) + 1
        ev = f"{uid}#0"
        nodes.append(NodeRow("Event", ns, ev, {"episode": ep, "unit": node_key("Step", uid), "kind": kind, "obj": obj,
                                                "count": 1, "ordinal": ordinals[kind], "t": t}))
        edges.append(EdgeRow("HAS_EVENT", ns, node_key("Step", uid), node_key("Event", ev)))
    return WriteBatch(tuple(nodes), tuple(edges))


def test_write_is_idempotent(store, namespace):
    batch = step_rows(namespace, "run", 12)
    store.write(batch)
    first = store.counts(namespace)
    store.write(batch)
    assert store.counts(namespace) == first
    assert first["Step"] == 12 and first["Event"] == 12 and first["NEXT"] == 11 and first["HAS_EVENT"] == 12


@pytest.mark.parametrize("steps", [3, 2600])  # 2600: more rows than Neo4jStore sends in one statement
def test_bad_batch_writes_nothing(store, namespace, steps):
    good = step_rows(namespace, "run", steps)
    bad_edge = EdgeRow("NEXT", namespace, node_key("Step", f"run:{steps - 1}"), node_key("Step", "missing"))
    with pytest.raises(StoreError):
        store.write(WriteBatch(good.nodes, good.edges + (bad_edge,)))
    assert store.counts(namespace) == {}


def test_edges_between_stored_nodes_and_with_properties(store, namespace):
    store.write(step_rows(namespace, "run", 4))
    counts = store.counts(namespace)
    # Both ends stored before (none in the batch), one edge with properties, one repeated: merged once.
    enables = EdgeRow("ENABLES", namespace, node_key("Step", "run:0"), node_key("Step", "run:3"), {"items": ["wood"]})
    step = NodeRow("Step", namespace, "run:4", {"episode": "run", "t": 4})
    store.write(WriteBatch((step,), (enables, EdgeRow("NEXT", namespace, node_key("Step", "run:3"), node_key("Step", "run:4")), enables)))
    store.write(WriteBatch((), (enables,)))
    after = store.counts(namespace)
    assert after["ENABLES"] == counts.get("ENABLES", 0) + 1 and after["NEXT"] == counts["NEXT"] + 1
    assert after["Step"] == counts["Step"] + 1


def test_every_relationship_type_with_and_without_properties(store, namespace):
    # Neo4j merges each relationship type in its own block of write/merge_batch: every type must land.
    nodes = tuple(NodeRow("Entity", namespace, f"e{i}", {"name": f"e{i}"}) for i in range(3))
    a, b, c = (node_key("Entity", f"e{i}") for i in range(3))
    edges = []
    for etype in sorted(EDGE_TYPES):
        edges += [EdgeRow(etype, namespace, a, b), EdgeRow(etype, namespace, b, c, {"weight": 2, "via": etype})]
    store.write(WriteBatch(nodes, tuple(edges)))
    store.write(WriteBatch(nodes, tuple(edges)))
    counts = store.counts(namespace)
    assert {etype: counts.get(etype) for etype in EDGE_TYPES} == {etype: 2 for etype in EDGE_TYPES}


def test_batch_larger_than_one_statement(store, namespace):
    # More node and edge rows than Neo4jStore sends in one statement: written in chunks, one transaction.
    store.write(step_rows(namespace, "run", 2600))
    counts = store.counts(namespace)
    assert counts["Step"] == 2600 and counts["Event"] == 2600 and counts["NEXT"] == 2599 and counts["HAS_EVENT"] == 2600
    assert counts["IN_EPISODE"] == 2600


def test_expectations_guard_the_whole_batch(store, namespace):
    episode = node_key("Episode", "run")
    first = step_rows(namespace, "run", 3)
    # Built for a new episode: the Episode node must not exist yet (or lack last_t).
    store.write(WriteBatch(first.nodes, first.edges, (Expect(namespace, episode, "last_t", None),)))
    counts = store.counts(namespace)
    more = WriteBatch((NodeRow("Episode", namespace, "run", {"last_t": 3}), NodeRow("Step", namespace, "run:3", {"episode": "run", "t": 3})),
                      (EdgeRow("NEXT", namespace, node_key("Step", "run:2"), node_key("Step", "run:3")),))
    # Built on a stale state (another writer moved the episode on): refused, nothing written.
    for stale in (None, 1, 2.5):
        with pytest.raises(ConflictError, match="last_t=2"):
            store.write(WriteBatch(more.nodes, more.edges, (Expect(namespace, episode, "last_t", stale),)))
        assert store.counts(namespace) == counts and store.get_nodes(namespace, [episode])[episode]["last_t"] == 2
    # A missing node holds nothing: expecting a value of it fails too.
    with pytest.raises(ConflictError):
        store.write(WriteBatch(more.nodes, more.edges, (Expect(namespace, node_key("Episode", "other"), "last_t", 2),)))
    store.write(WriteBatch(more.nodes, more.edges, (Expect(namespace, episode, "last_t", 2),)))
    assert store.counts(namespace)["Step"] == 4 and store.get_nodes(namespace, [episode])[episode]["last_t"] == 3


def test_get_nodes_and_steps_at(store, namespace):
    store.write(step_rows(namespace, "run", 8))
    nodes = store.get_nodes(namespace, [node_key("Step", "run:3"), "step:nope"])
    assert list(nodes) == ["step:run:3"]
    # Every written property comes back, with the caller's uid, key and namespace; the embedding does not.
    assert nodes["step:run:3"] == {"episode": "run", "t": 3, "text": "make wood pickaxe step 3", "payload": "{}",
                                   "uid": "run:3", "key": "step:run:3", "namespace": namespace}
    at = store.steps_at(namespace, "run", [0, 7, 99])
    assert sorted(at) == [0, 7]
    assert at[7] == step_row(store.get_nodes(namespace, ["step:run:7"])["step:run:7"])
    assert (at[7].key, at[7].uid, at[7].episode, at[7].t, at[7].text) == ("step:run:7", "run:7", "run", 7, "make wood pickaxe step 7")


def test_occurrence_total_and_latest(store, namespace):
    store.write(step_rows(namespace, "run", 20))
    third = store.occurrence(namespace, "run", "collect", "wood", 3)
    assert third is not None and third.t == 8 and third.unit_key == "step:run:8"
    assert store.occurrence(namespace, "run", "collect", "wood", 99) is None
    assert store.event_total(namespace, "run", "drink", "water") == 5
    assert store.event_total(namespace, "run", "eat", "cow") == 0
    latest = store.latest_event_until(namespace, "run", "collect", "wood", 10)
    assert latest is not None and latest.t == 8 and latest.ordinal == 3
    events = store.events_of(namespace, ["step:run:4", "step:run:5"])
    assert [(e.kind, e.ordinal) for e in events] == [("collect", 2), ("drink", 2)]


def test_neighbours_follow_next(store, namespace):
    store.write(step_rows(namespace, "run", 10))
    result = store.neighbours(namespace, ["step:run:0", "step:run:5"], 2, 3)
    assert result.chains["step:run:0"] == ["step:run:0", "step:run:1", "step:run:2", "step:run:3"]
    assert result.chains["step:run:5"] == [f"step:run:{t}" for t in range(3, 9)]
    assert result.nodes == {}
    # With props: the rows of the other units on the chains, as get_nodes reads them (the given units are the caller's).
    read = store.neighbours(namespace, ["step:run:0", "step:run:5"], 2, 3, with_props=True)
    assert read.chains == result.chains
    others = ["step:run:1", "step:run:2", "step:run:3", "step:run:4", "step:run:6", "step:run:7", "step:run:8"]
    assert sorted(read.nodes) == others
    assert dict(read.nodes) == read_rows(store, namespace, others)
    assert isinstance(read.nodes["step:run:1"], StepRow)
    assert store.neighbours(namespace, ["step:run:99"], 1, 1, with_props=True).chains == {}


def test_one_step_neighbours(store, namespace):
    # One step each way is its own query on Neo4j (recall/adjacent): the same answers as any distance.
    store.write(step_rows(namespace, "run", 10))
    keys = ["step:run:0", "step:run:5", "step:run:9"]
    both = store.neighbours(namespace, keys, 1, 1, with_props=True)
    assert both.chains == {"step:run:0": ["step:run:0", "step:run:1"], "step:run:5": ["step:run:4", "step:run:5", "step:run:6"],
                           "step:run:9": ["step:run:8", "step:run:9"]}
    assert sorted(both.nodes) == ["step:run:1", "step:run:4", "step:run:6", "step:run:8"]
    assert dict(both.nodes) == read_rows(store, namespace, sorted(both.nodes))
    assert store.neighbours(namespace, keys, 0, 1).chains == {
        "step:run:0": ["step:run:0", "step:run:1"], "step:run:5": ["step:run:5", "step:run:6"], "step:run:9": ["step:run:9"]}
    assert store.neighbours(namespace, keys, 1, 0).chains == {
        "step:run:0": ["step:run:0"], "step:run:5": ["step:run:4", "step:run:5"], "step:run:9": ["step:run:8", "step:run:9"]}
    assert store.neighbours(namespace, keys, 0, 0, with_props=True).nodes == {}


def test_fulltext_same_ranking(store, namespace, other_namespace):
    store.write(step_rows(namespace, "run", 16))
    store.write(step_rows(other_namespace, "run", 16))
    hits = store.fulltext(namespace, "drink water lake", 5)
    # Four equally long matches score the same; ties break by key on both backends.
    assert [h.uid for h in hits] == ["run:1", "run:13", "run:5", "run:9"]
    assert all(h.key.startswith("step:") for h in hits)
    # Only this namespace's units come back, even though the other holds the same texts.
    assert len(hits) == 4
    assert store.fulltext(namespace, "", 5) == []
    assert store.fulltext(namespace, 'AND OR "( ) : ^ ~ *', 5) == []


def test_search_hits_carry_their_nodes_when_asked(store, namespace, other_namespace, monkeypatch):
    import graphmem.store.neo4j_vector as neo4j_store

    store.write(step_rows(namespace, "run", 16))
    store.write(step_rows(other_namespace, "run", 16))
    searches = [
        lambda props: store.fulltext(namespace, "drink water lake", 5, with_props=props),
        lambda props: store.vector(namespace, vec(3), 4, with_props=props),
    ]
    for search in searches:
        plain, rich = search(False), search(True)
        assert rich == plain and all(h.node is None for h in plain)
        assert {h.key: h.node for h in rich} == read_rows(store, namespace, [h.key for h in rich])
    # The shared-index path (not the exact one of a small namespace) brings them too.
    monkeypatch.setattr(neo4j_store, "EXACT_CAP", 0)
    rich = store.vector(namespace, vec(3), 4, with_props=True)
    assert rich[0].uid == "run:3" and {h.key: h.node for h in rich} == read_rows(store, namespace, [h.key for h in rich])


def test_vector_search_exact_and_namespaced(store, namespace, other_namespace):
    store.write(step_rows(namespace, "run", 16))
    store.write(step_rows(other_namespace, "run", 16))
    hits = store.vector(namespace, vec(6), 3)
    assert hits[0].uid == "run:6"
    assert abs(hits[0].score - 1.0) < 1e-3  # float32 storage on Neo4j
    assert len(hits) == 3 and all(h.key.startswith("step:") for h in hits)


@pytest.mark.parametrize("exact_cap", [None, 0], ids=["exact", "shared-index"])
def test_vector_search_keeps_to_one_kind_of_unit(store, namespace, other_namespace, monkeypatch, exact_cap):
    # A namespace with steps and turns (an agent that acts and chats): dialogue recall asks for turns,
    # trajectory recall for steps, and the other kind takes none of the k places, exactly or through the
    # shared index. Turns sit right next to the steps, so an unfiltered search mixes them.
    import graphmem.store.neo4j_vector as neo4j_store

    if exact_cap is not None:
        monkeypatch.setattr(neo4j_store, "EXACT_CAP", exact_cap)
    store.write(step_rows(namespace, "run", 16))
    turns = [NodeRow("Turn", namespace, f"D1:{i}", {"speaker": "Maya", "text": f"turn {i}", "embedding": near(6, i)}) for i in range(8)]
    store.write(WriteBatch(tuple(turns), ()))
    store.write(step_rows(other_namespace, "run", 16))
    mixed = store.vector(namespace, vec(6), 4)
    assert {h.key.split(":")[0] for h in mixed} == {"step", "turn"}
    only_turns = store.vector(namespace, vec(6), 4, label="Turn")
    assert len(only_turns) == 4 and all(h.key.startswith("turn:") for h in only_turns)
    everything = store.vector(namespace, vec(6), 24)  # all 16 steps and 8 turns, ranked
    assert [h.key for h in only_turns] == [h.key for h in everything if h.key.startswith("turn:")][:4]
    only_steps = store.vector(namespace, vec(6), 3, label="Step", with_props=True)
    assert only_steps[0].uid == "run:6" and all(h.key.startswith("step:") for h in only_steps)
    assert {h.key: h.node for h in only_steps} == read_rows(store, namespace, [h.key for h in only_steps])
    assert store.vector(other_namespace, vec(6), 3, label="Turn") == []
    with pytest.raises(ValueError, match="label"):
        store.vector(namespace, vec(6), 3, label="Session")


def near(seed: int, i: int, noise: float = 0.02) -> list[float]:
    """A unit vector close to ``vec(seed)``."""
    v = np.asarray(vec(seed)) + noise * np.random.default_rng(10_000 + i).normal(size=384)
    return [float(x) for x in v / np.linalg.norm(v)]


def test_vector_search_finds_a_namespace_crowded_out_of_the_shared_index(store, namespace, other_namespace, monkeypatch):
    # The other namespace's 300 vectors are all closer to the query than anything of ours: the shared
    # vector index's first few hundred answers hold none of our units. The search must still return our
    # exact top k, again when it remembers that our namespace is small, and after it has outgrown that.
    import graphmem.store.neo4j_vector as neo4j_store

    crowd = [NodeRow("Step", other_namespace, f"c:{i}", {"episode": "c", "t": i, "text": "crowd", "embedding": near(6, i)})
             for i in range(300)]
    store.write(WriteBatch(tuple(crowd), ()))
    store.write(step_rows(namespace, "run", 16))
    expected = ["run:6", "run:2", "run:10"]
    ranked = [h.uid for h in store.vector(namespace, vec(6), 3)]
    assert ranked[0] == "run:6" and len(ranked) == 3
    assert [h.uid for h in store.vector(namespace, vec(6), 3)] == ranked  # the remembered small namespace
    monkeypatch.setattr(neo4j_store, "EXACT_CAP", 20)  # now "small" means at most 20 units
    grown = [NodeRow("Step", namespace, f"more:{i}", {"episode": "more", "t": i, "text": "more", "embedding": vec(1000 + i)})
             for i in range(10)]
    store.write(WriteBatch(tuple(grown), ()))
    assert [h.uid for h in store.vector(namespace, vec(6), 3)] == ranked
    assert set(ranked) <= {f"run:{t}" for t in range(16)} and expected[0] == ranked[0]


@pytest.mark.parametrize("spread", ["random", "clustered"])
def test_exact_vector_search_ranks_and_scores_like_comparing_every_vector(store, namespace, spread):
    # Neo4j ranks a small namespace by int8 codes and scores only the best k + a margin with the float
    # vectors; the result must be the float ranking all the same. Random unit vectors (cosines all near
    # 0) and a tight cluster (cosines all near 1) are where int8 rounding could reorder them most.
    n = 400
    vectors = [vec(5000 + i) if spread == "random" else near(6, i, noise=0.01) for i in range(n)]
    rows = [NodeRow("Step", namespace, f"run:{i}", {"episode": "run", "t": i, "text": f"step {i}", "embedding": vectors[i]})
            for i in range(n)]
    store.write(WriteBatch(tuple(rows), ()))
    matrix = np.asarray(vectors, dtype=np.float32)
    for query_seed in range(5):
        query = np.asarray(vec(90_000 + query_seed) if spread == "random" else near(6, 10_000 + query_seed, noise=0.01))
        cosines = matrix @ query.astype(np.float32) / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
        for k in (1, 10, 50):
            hits = store.vector(namespace, [float(x) for x in query], k)
            expected = sorted(range(n), key=lambda i: -cosines[i])[:k]
            found = [int(h.uid.split(":")[1]) for h in hits]
            assert len(found) == k
            # Each hit carries its own exact score, (1 + cos) / 2 ...
            assert all(abs(h.score - (1 + cosines[i]) / 2) < 1e-5 for h, i in zip(hits, found))
            # ... and place by place the hits are the k best (equal up to float32 ties).
            assert all(abs(cosines[a] - cosines[b]) < 1e-6 for a, b in zip(found, expected))


def dialogue_rows(ns: str) -> WriteBatch:
    day = 86400.0
    nodes = [NodeRow("Episode", ns, "dialogue", {"kind": "dialogue", "seq": 0})]
    edges = []
    for s in range(3):
        sid = f"s{s}"
        nodes.append(NodeRow("Session", ns, sid, {"episode": "dialogue", "seq": s, "start": s * 10 * day, "end": (s + 1) * 10 * day}))
        for i in range(2):
            tid = f"D{s}:{i}"
            props = {"episode": "dialogue", "session": sid, "seq": s * 2 + i, "text": f"turn {s} {i}", "embedding": vec(100 + s * 2 + i)}
            if s == 0 and i == 1:
                props |= {"event_start": 25 * day, "event_end": 26 * day}
            nodes.append(NodeRow("Turn", ns, tid, props))
            edges.append(EdgeRow("IN_SESSION", ns, node_key("Turn", tid), node_key("Session", sid)))
        box = f"{sid}#b0"
        nodes.append(NodeRow("Box", ns, box, {"session": sid, "seq": s, "text": f"box {s} hiking" if s != 1 else "box cooking", "embedding": vec(200 + s)}))
        for i in range(2):
            edges.append(EdgeRow("CONTAINS", ns, node_key("Box", box), node_key("Turn", f"D{s}:{i}")))
        ev = f"{box}#e0"
        nodes.append(NodeRow("Event", ns, ev, {"kind": "topic", "obj": "went hiking" if s != 1 else "cooked", "embedding": vec(300 + s)}))
        edges.append(EdgeRow("HAS_EVENT", ns, node_key("Box", box), node_key("Event", ev)))
        trace = "trace:hiking" if s != 1 else "trace:cooking"
        nodes.append(NodeRow("Trace", ns, trace, {}))
        edges.append(EdgeRow("IN_TRACE", ns, node_key("Event", ev), node_key("Trace", trace)))
    return WriteBatch(tuple(nodes), tuple(edges))


def test_sessions_and_window(store, namespace):
    store.write(dialogue_rows(namespace))
    sessions = store.sessions(namespace)
    assert [s.uid for s in sessions] == ["s0", "s1", "s2"]
    day = 86400.0
    # A window inside session 2's interval, which also holds the event time of D0:1.
    # Session 2's turns first (in turn order), then D0:1 by its event time.
    window = store.units_in_window(namespace, 24.5 * day, 25.5 * day, 10)
    assert list(window) == ["turn:D2:0", "turn:D2:1", "turn:D0:1"]
    # Each turn comes with its row, as get_nodes reads it.
    assert window == read_turns(store, namespace, list(window))
    assert store.sessions_in_window(namespace, 24.5 * day, 25.5 * day) == ["session:s2"]
    # At most `limit` of each kind: the earliest session turn, then the event-time turn.
    assert list(store.units_in_window(namespace, 24.5 * day, 25.5 * day, 1)) == ["turn:D2:0"]
    # Sessions 0 and 1 both touch day 10: session 0's turns first (earlier start); D0:1 comes once.
    assert list(store.units_in_window(namespace, 5 * day, 10 * day, 10)) == ["turn:D0:0", "turn:D0:1", "turn:D1:0", "turn:D1:1"]
    assert store.sessions_in_window(namespace, 5 * day, 10 * day) == ["session:s0", "session:s1"]
    # A window that touches no session and no event time.
    assert store.units_in_window(namespace, 40 * day, 41 * day, 10) == {}
    assert store.sessions_in_window(namespace, 40 * day, 41 * day) == []


def test_window_reads_bounded_by_the_longest_intervals(store, namespace):
    # Sessions last 10 days and the one event time 1 day: with those bounds the reads seek only starts in
    # [start - longest, end] and find exactly what the unbounded reads find.
    store.write(dialogue_rows(namespace))
    day = 86400.0
    for a, b in [(24.5, 25.5), (5, 10), (0, 30), (19.9, 20.1), (25.9, 26), (40, 41), (-5, -1)]:
        start, end = a * day, b * day
        unbounded = store.units_in_window(namespace, start, end, 10)
        assert store.units_in_window(namespace, start, end, 10, 10 * day, 1 * day) == unbounded
        assert store.sessions_in_window(namespace, start, end, 10 * day) == store.sessions_in_window(namespace, start, end)
    # The bounds are what the reads trust: too short a bound misses what starts earlier (so callers pass
    # true upper bounds, kept by the dialogue writer on the Episode).
    assert store.sessions_in_window(namespace, 25.5 * day, 26 * day, 1 * day) == []
    assert list(store.units_in_window(namespace, 25.5 * day, 26 * day, 10, 0.0, 0.0)) == []
    assert list(store.units_in_window(namespace, 25.5 * day, 26 * day, 10, 0.0, 1 * day)) == ["turn:D0:1"]


def test_episode_nodes_by_kind(store, namespace):
    store.write(step_rows(namespace, "run", 3))
    store.write(dialogue_rows(namespace))
    store.write(WriteBatch((NodeRow("Episode", namespace, "run2", {"kind": "trajectory", "seq": 2}),)))
    every = store.episode_nodes(namespace)
    assert [e.uid for e in every] == ["dialogue", "run", "run2"]  # by seq, then uid (both seq 0)
    assert [e.uid for e in store.episode_nodes(namespace, kind="trajectory")] == ["run", "run2"]
    dialogues = store.episode_nodes(namespace, kind="dialogue")
    assert [e.uid for e in dialogues] == ["dialogue"] and dialogues[0] == every[0]
    assert (every[2].kind, every[2].seq, every[2].last_t) == ("trajectory", 2, None)
    assert store.episode_nodes(namespace, kind="other") == []


def test_boxes_and_traces(store, namespace):
    store.write(dialogue_rows(namespace))
    assert store.box_members(namespace, ["box:s2#b0"]) == {"box:s2#b0": ["turn:D2:0", "turn:D2:1"]}
    assert store.boxes_of(namespace, ["turn:D1:1"]) == {"turn:D1:1": "box:s1#b0"}
    assert store.trace_boxes(namespace, ["box:s0#b0", "box:s1#b0"]) == {"box:s0#b0": ["box:s2#b0"], "box:s1#b0": []}
    events = store.trace_events(namespace)
    assert [(e.box, e.trace) for e in events] == [
        ("box:s0#b0", "trace:hiking"), ("box:s1#b0", "trace:cooking"), ("box:s2#b0", "trace:hiking")]
    assert events[0].embedding is not None and len(events[0].embedding) == 384
    hits = store.fulltext(namespace, "hiking", 5, label="Box")
    assert sorted(h.uid for h in hits) == ["s0#b0", "s2#b0"]
    assert store.vector(namespace, vec(201), 1, label="Box")[0].uid == "s1#b0"


def test_delete_namespace(store, namespace, other_namespace):
    store.write(step_rows(namespace, "run", 4))
    store.write(step_rows(other_namespace, "run", 4))
    store.delete_namespace(namespace)
    assert store.counts(namespace) == {}
    assert store.counts(other_namespace)["Step"] == 4
    assert store.fulltext(namespace, "wood", 5) == []
