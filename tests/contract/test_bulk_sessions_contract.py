"""``BulkWriter.add_session`` writes exactly what ``Memory.add_session`` writes, on both backends, several
sessions per transaction, and refuses what the one-by-one path refuses: a turn id of another session, a
state another writer has moved on, a failed group (nothing of it written); and it writes two lanes (an
episode's steps, the dialogue sessions) at once, each lane in order."""

from __future__ import annotations

import time
from datetime import timedelta
from importlib import resources
from itertools import pairwise
from typing import Any

import pytest

import graphmem.write.bulk as bulk_module
from graphmem.errors import ConflictError, GraphmemError, InvalidRecordError
from graphmem.loaders.dialogue import SessionRecord as Session
from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.records import Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import GraphStore, node_key
from hash_embed import HashEmbedder
from locomo_dev import conversation

EPISODE = "dialogue"


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return list(conversation("conv-26").sessions[:7])


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Groups of three sessions, so that seven sessions make three transactions."""
    monkeypatch.setattr(bulk_module, "BATCHES_PER_WRITE", 3)


def _strip(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in ("namespace",)}


def _graph(store: GraphStore, namespace: str, sessions: list[Session]) -> dict[str, Any]:
    """Everything the two paths must agree on: counts of every label and edge type, every session, turn,
    box and trace event with its properties, the episode's state and the turns' chains."""
    turn_keys = [node_key("Turn", t.id) for s in sessions for t in s.turns]
    turns = store.get_nodes(namespace, turn_keys)
    box_keys = sorted({p["box"] for p in turns.values() if p.get("box")})
    episode = store.get_nodes(namespace, [node_key("Episode", EPISODE)])[node_key("Episode", EPISODE)]
    chains = store.neighbours(namespace, turn_keys, 1, 1).chains
    return {
        "counts": store.counts(namespace),
        "episode": _strip(episode),
        "sessions": store.sessions(namespace),
        "session_nodes": {k: _strip(v) for k, v in store.get_nodes(namespace, [node_key("Session", s.session_id) for s in sessions]).items()},
        "turns": {k: _strip(v) for k, v in turns.items()},
        "boxes": {k: _strip(v) for k, v in store.get_nodes(namespace, box_keys).items()},
        "trace_events": sorted((e.trace, e.key, e.box, e.text) for e in store.trace_events(namespace)),
        "chains": {k: list(v) for k, v in sorted(chains.items())},
    }


def test_bulk_sessions_write_what_add_session_writes(store, namespace, other_namespace, sessions, small_groups):
    memory = Memory(store=store, embedder=HashEmbedder())
    for s in sessions:
        memory.add_session(namespace, s.session_id, s.turns, s.started_at)
    bulk_memory = Memory(store=store, embedder=HashEmbedder())
    writes: list[int] = []
    inner = store.write
    with bulk_memory.bulk() as bulk:
        store.write = lambda batch: (writes.append(len(batch.nodes)), inner(batch))[1]  # type: ignore[method-assign]
        try:
            for s in sessions:
                assert bulk.add_session(other_namespace, s.session_id, s.turns, s.started_at).written == len(s.turns)
            bulk.flush()
            # Stored sessions come back unchanged: skipped, as add_session skips them.
            assert bulk.add_session(other_namespace, sessions[2].session_id, sessions[2].turns, sessions[2].started_at).unchanged
        finally:
            del store.write
    # Seven sessions in groups of three: three transactions.
    assert len(writes) == 3
    assert _graph(store, other_namespace, sessions) == _graph(store, namespace, sessions)


def test_bulk_refuses_a_turn_id_of_another_session(store, namespace, sessions, small_groups):
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    first, second, third = sessions[:3]
    bulk = memory.bulk()
    bulk.add_session(namespace, first.session_id, first.turns, first.started_at)
    bulk.add_session(namespace, second.session_id, second.turns, second.started_at)
    # A turn id of the open group: refused at once, the group is still written.
    clash = [Turn(second.turns[0].id, "Caroline", "hello again")]
    with pytest.raises(ConflictError, match="already belongs to another session"):
        bulk.add_session(namespace, "again", clash, third.started_at)
    bulk.flush()
    stored = store.counts(namespace)
    assert stored["Session"] == 2
    # A turn id of a session written earlier: the store's check in the write's transaction refuses the
    # whole group, nothing of it is written, and the writer refuses to go on.
    bulk.add_session(namespace, third.session_id, third.turns, third.started_at)
    bulk.add_session(namespace, "again", [Turn(first.turns[0].id, "Caroline", "hello again")], third.started_at + timedelta(days=1))
    with pytest.raises(ConflictError, match="already exists"):
        bulk.flush()
    assert store.counts(namespace) == stored
    with pytest.raises(GraphmemError, match="earlier bulk write failed"):
        bulk.add_session(namespace, third.session_id, third.turns, third.started_at)
    bulk.close()
    # A fresh writer goes on from what is stored.
    with memory.bulk() as again:
        assert again.add_session(namespace, third.session_id, third.turns, third.started_at).written == len(third.turns)
    assert store.counts(namespace)["Session"] == 3


def test_bulk_refuses_a_state_another_writer_moved_on(store, namespace, sessions):
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    other = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    bulk = memory.bulk()
    bulk.add_session(namespace, sessions[0].session_id, sessions[0].turns, sessions[0].started_at)
    bulk.flush()
    other.add_session(namespace, sessions[1].session_id, sessions[1].turns, sessions[1].started_at)
    before = store.counts(namespace)
    bulk.add_session(namespace, sessions[2].session_id, sessions[2].turns, sessions[2].started_at)  # built on session 0
    with pytest.raises(ConflictError, match="another writer"):
        bulk.flush()
    assert store.counts(namespace) == before
    bulk.close()
    episode = store.get_nodes(namespace, [node_key("Episode", EPISODE)])[node_key("Episode", EPISODE)]
    assert episode["session_count"] == 2 and episode["last_session"] == sessions[1].session_id


def test_bulk_reads_the_store_for_a_session_out_of_order(store, namespace, sessions):
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    with memory.bulk() as bulk:
        for s in sessions[:3]:
            bulk.add_session(namespace, s.session_id, s.turns, s.started_at)
        # An earlier session again: stored (once the group is written), so unchanged.
        assert bulk.add_session(namespace, sessions[0].session_id, sessions[0].turns, sessions[0].started_at).unchanged
        # A new session that starts before the last one: the same error as add_session's.
        with pytest.raises(InvalidRecordError, match="time order"):
            bulk.add_session(namespace, "late", [Turn("late:1", "Caroline", "hi")], sessions[0].started_at)
    assert store.counts(namespace)["Session"] == 3


class _SlowStore:
    """An embedded store whose writes take a while and are recorded (start, end, episodes written)."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.spans: list[tuple[float, float, frozenset[str]]] = []

    def write(self, batch: Any) -> None:
        start = time.perf_counter()
        time.sleep(0.05)
        self.inner.write(batch)
        episodes = frozenset(row.uid for row in batch.nodes if row.label == "Episode")
        self.spans.append((start, time.perf_counter(), episodes))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_bulk_writes_two_lanes_at_once_and_each_episode_in_order(sessions, small_groups, monkeypatch):
    monkeypatch.setattr(bulk_module, "SMALL_STEPS_ROWS", 0)  # every batch of steps on its own lane
    namespace = "lanes"
    with resources.as_file(resources.files("graphmem").joinpath("data", "demo_crafter.jsonl")) as path:
        steps = read_steps_jsonl(path)[:240]
    store = _SlowStore(EmbeddedStore())
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)  # type: ignore[arg-type]
    with memory.bulk() as bulk:
        bulk.add_steps(namespace, "run", steps[:40])
        bulk.add_session(namespace, sessions[0].session_id, sessions[0].turns, sessions[0].started_at)
        for i in range(1, 6):
            bulk.add_steps(namespace, "run", steps[40 * i : 40 * (i + 1)])
            bulk.add_session(namespace, sessions[i].session_id, sessions[i].turns, sessions[i].started_at)
    by_lane: dict[str, list[tuple[float, float]]] = {"run": [], EPISODE: []}
    for start, end, episodes in store.spans:
        assert len(episodes) == 1
        by_lane[next(iter(episodes))].append((start, end))
    # Each lane's writes never overlap one another (an episode's batches land in order) ...
    for spans in by_lane.values():
        assert spans and all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(spans))
    # ... while a steps batch and a group of sessions were written at the same time.
    assert any(s_start < d_end and d_start < s_end for s_start, s_end in by_lane["run"] for d_start, d_end in by_lane[EPISODE])
    assert store.counts(namespace)["Step"] == 240 and store.counts(namespace)["Session"] == 6
