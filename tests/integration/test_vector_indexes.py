"""Neo4j's per-label vector indexes: steps and turns are searched through an index each.

A 5.26 vector query cannot filter by label, so a turn-only search through one index over all units had to
fetch twice the neighbours in a namespace half made of steps. These tests check which index each search
asks and how deep.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import graphmem.store.neo4j_vector as neo4j_module
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.protocol import NodeRow, WriteBatch

BASE = np.random.default_rng(424_242).normal(size=384)
BASE /= np.linalg.norm(BASE)


def unit_vector(seed: int) -> list[float]:
    """A unit vector near BASE (cosine ~0.8 to each other): the test's units are nearer to one another
    than to anything else the shared test database holds, so its searches do not depend on the rest."""
    noise = np.random.default_rng(seed).normal(size=384)
    v = BASE + 0.5 * noise / np.linalg.norm(noise)
    return [float(x) for x in v / np.linalg.norm(v)]


@pytest.fixture
def ns(neo4j_store: Neo4jStore) -> Iterator[str]:
    name = f"vix-{uuid.uuid4().hex[:12]}"
    yield name
    neo4j_store.delete_namespace(name)


def steps(ns: str, n: int) -> WriteBatch:
    return WriteBatch(tuple(NodeRow("Step", ns, f"run:{t}", {"episode": "run", "t": t, "text": f"step {t}",
                                                             "embedding": unit_vector(t)}) for t in range(n)), ())


def turns(ns: str, n: int) -> WriteBatch:
    return WriteBatch(tuple(NodeRow("Turn", ns, f"D1:{i}", {"speaker": "Maya", "text": f"turn {i}",
                                                            "embedding": unit_vector(500 + i)}) for i in range(n)), ())


def vector_reads(store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record the parameters of every shared-index vector query the store runs."""
    reads: list[dict[str, Any]] = []
    real = store._read

    def spy(name: str, **params: Any) -> Any:
        if name == "recall/vector_nearest":
            reads.append(params)
        return real(name, **params)

    monkeypatch.setattr(store, "_read", spy)
    return reads


def index_names(store: Neo4jStore) -> dict[str, str]:
    with store.driver.session(database=store.database) as session:
        rows = session.run("SHOW INDEXES YIELD name, type, state, labelsOrTypes WHERE type = 'VECTOR' "
                           "RETURN name, state, labelsOrTypes").data()
    return {row["name"]: f"{row['labelsOrTypes'][0]}:{row['state']}" for row in rows}


def test_steps_turns_and_boxes_have_a_vector_index_each(neo4j_store: Neo4jStore) -> None:
    names = index_names(neo4j_store)
    assert names["step_embedding"] == "Step:ONLINE"
    assert names["turn_embedding"] == "Turn:ONLINE"
    assert names["box_embedding"] == "Box:ONLINE"


def test_each_kind_is_searched_in_its_own_index(neo4j_store: Neo4jStore, ns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_module, "EXACT_CAP", 0)  # through the shared indexes, not the exact search
    neo4j_store.write(steps(ns, 12))
    neo4j_store.write(turns(ns, 8))
    reads = vector_reads(neo4j_store, monkeypatch)

    only_turns = neo4j_store.vector(ns, unit_vector(503), 3, label="Turn")
    assert only_turns[0].uid == "D1:3" and all(h.key.startswith("turn:") for h in only_turns)
    # (The shared test database holds other tests' units too, so a search may look deeper: same index.)
    assert {r["index"] for r in reads} == {"turn_embedding"}

    reads.clear()
    only_steps = neo4j_store.vector(ns, unit_vector(5), 3, label="Step")
    assert only_steps[0].uid == "run:5" and all(h.key.startswith("step:") for h in only_steps)
    assert {r["index"] for r in reads} == {"step_embedding"}

    # Over both kinds: both indexes, merged by score; the same top k as one ranking of all 20 units.
    reads.clear()
    both = neo4j_store.vector(ns, unit_vector(503), 20)
    assert {r["index"] for r in reads} == {"step_embedding", "turn_embedding"}
    assert both[0].uid == "D1:3" and len(both) == 20
    assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)
    assert {h.key for h in both} == {f"step:run:{t}" for t in range(12)} | {f"turn:D1:{i}" for i in range(8)}


def test_a_kind_the_namespace_lacks_is_asked_shallowly(neo4j_store: Neo4jStore, ns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # An agent's namespace of steps only, searched over all units: its turn index holds none of the
    # namespace, and must not be searched deeper and deeper for it on every search (k = 5: at most
    # k * VECTOR_OVERFETCH deep, which is below the minimum fetch).
    monkeypatch.setattr(neo4j_module, "EXACT_CAP", 0)
    other = f"vix-other-{uuid.uuid4().hex[:8]}"
    try:
        neo4j_store.write(steps(ns, 30))
        neo4j_store.write(turns(other, 30))  # the turn index is not empty, just none of ns's
        reads = vector_reads(neo4j_store, monkeypatch)
        first = neo4j_store.vector(ns, unit_vector(7), 5)
        assert first[0].uid == "run:7" and all(h.key.startswith("step:") for h in first)
        reads.clear()
        for seed in range(3):
            again = neo4j_store.vector(ns, unit_vector(seed), 5)
            assert again[0].uid == f"run:{seed}" and len(again) == 5
        turn_fetches = [r["fetch"] for r in reads if r["index"] == "turn_embedding"]
        assert turn_fetches == [neo4j_module.VECTOR_MIN_FETCH] * 3
        assert [h.key for h in neo4j_store.vector(ns, unit_vector(7), 5)] == \
               [h.key for h in neo4j_store.vector(ns, unit_vector(7), 5, label="Step")]
    finally:
        neo4j_store.delete_namespace(other)


def test_a_rare_kind_is_asked_no_deeper_than_a_first_search(neo4j_store: Neo4jStore, ns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Many steps and a single turn, among many other namespaces' turns: the namespace's share of the turn
    # index's neighbours is tiny, which alone would send a turn-only search thousands deep. Searched over
    # both kinds, the turn index is asked at most k * VECTOR_OVERFETCH deep, and the one turn still
    # ranks where its score puts it.
    monkeypatch.setattr(neo4j_module, "EXACT_CAP", 0)
    other = f"vix-other-{uuid.uuid4().hex[:8]}"
    try:
        neo4j_store.write(steps(ns, 30))
        neo4j_store.write(turns(other, 300))
        neo4j_store.write(WriteBatch((NodeRow("Turn", ns, "D9:1", {"speaker": "Maya", "text": "the one turn",
                                                                  "embedding": unit_vector(999)}),), ()))
        reads = vector_reads(neo4j_store, monkeypatch)
        k = 5
        for _ in range(3):
            hits = neo4j_store.vector(ns, unit_vector(999), k)
            assert hits[0].uid == "D9:1" and len(hits) == k
        turn_fetches = [r["fetch"] for r in reads if r["index"] == "turn_embedding"]
        assert turn_fetches and max(turn_fetches) <= max(k * neo4j_module.VECTOR_OVERFETCH, neo4j_module.VECTOR_MIN_FETCH)
    finally:
        neo4j_store.delete_namespace(other)
