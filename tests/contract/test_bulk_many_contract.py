"""A bulk load of many small namespaces (a few steps and a short chat each) writes exactly what
``Memory.add_steps`` / ``Memory.add_session`` write, on both backends, while it groups the small batches
of many namespaces into few transactions, reads each namespace's episodes once (or once for many, with
``BulkWriter.prefetch``) and still skips what is already stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import graphmem.write.bulk as bulk_module
from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.protocol import GraphStore, node_key
from hash_embed import HashEmbedder

START = datetime(2024, 5, 1, tzinfo=UTC)


def _steps(i: int, first: int, n: int) -> list[Step]:
    return [
        Step(t, "collect wood" if (t + i) % 2 else "move left", events=(Event("collect", "wood"),) if (t + i) % 2 else (),
             objects=("tree",), location=Location((t, i), "forest", "grass"))
        for t in range(first, first + n)
    ]


def _turns(i: int, session: int) -> list[Turn]:
    return [Turn(f"u{i}s{session}:{j}", "Maya" if j % 2 == 0 else "Sam", f"Session {session}: I walked my dog {j} times.")
            for j in range(3)]


def _write_plain(memory: Memory, namespace: str, i: int) -> None:
    memory.add_steps(namespace, "run", _steps(i, 0, 3))
    memory.add_session(namespace, f"s{i}-0", _turns(i, 0), START + timedelta(days=i))
    memory.add_steps(namespace, "run", _steps(i, 3, 2))
    memory.add_session(namespace, f"s{i}-1", _turns(i, 1), START + timedelta(days=i, hours=5))


def _dump(store: GraphStore, namespace: str, i: int) -> dict[str, Any]:
    """What the two paths must agree on: counts, the episodes (with their place in the namespace), the
    sessions, every step and turn with its properties."""
    strip = ("namespace", "key")
    turn_keys = [node_key("Turn", t.id) for s in (0, 1) for t in _turns(i, s)]
    return {
        "counts": store.counts(namespace),
        "episodes": store.episode_nodes(namespace),  # rows: no namespace; keys name the episode within it
        "sessions": [(s.uid, s.episode, s.seq, s.start, s.end) for s in store.sessions(namespace)],
        "steps": store.steps_at(namespace, "run", range(5)),
        "turns": {k: {k2: v for k2, v in p.items() if k2 not in strip} for k, p in store.get_nodes(namespace, turn_keys).items()},
    }


class _CountingStore:
    """A store that counts its write transactions."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.writes = 0

    def write(self, batch: Any) -> None:
        self.writes += 1
        self.inner.write(batch)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize("prefetch", [False, True], ids=["read-each", "prefetch"])
def test_bulk_load_of_many_small_namespaces_writes_what_plain_writes_write(store, namespace, other_namespace, prefetch):
    n = 12
    plain = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    for i in range(n):
        _write_plain(plain, f"{namespace}-{i}", i)
    counting = _CountingStore(store)
    memory = Memory(store=counting, embedder=HashEmbedder(), boxes=False)  # type: ignore[arg-type]
    try:
        with memory.bulk() as bulk:
            if prefetch:
                bulk.prefetch([f"{other_namespace}-{i}" for i in range(n)])
            for i in range(n):
                ns = f"{other_namespace}-{i}"
                assert bulk.add_steps(ns, "run", _steps(i, 0, 3)).written == 3
                assert bulk.add_session(ns, f"s{i}-0", _turns(i, 0), START + timedelta(days=i)).written == 3
                assert bulk.add_steps(ns, "run", _steps(i, 3, 2)).written == 2
                assert bulk.add_session(ns, f"s{i}-1", _turns(i, 1), START + timedelta(days=i, hours=5)).written == 3
        for i in range(n):
            assert _dump(store, f"{other_namespace}-{i}", i) == _dump(store, f"{namespace}-{i}", i)
        # 48 small batches in groups of at most BATCHES_PER_WRITE: a few transactions, not 48.
        assert counting.writes <= -(-4 * n // bulk_module.BATCHES_PER_WRITE) + 1
    finally:
        for i in range(n):
            store.delete_namespace(f"{namespace}-{i}")
            store.delete_namespace(f"{other_namespace}-{i}")


@pytest.mark.parametrize("prefetch", [False, True], ids=["read-each", "prefetch"])
def test_bulk_load_skips_what_is_stored_and_goes_on(store, namespace, prefetch):
    """An interrupted load run again (``graphmem ingest`` resumes this way): the namespace's stored
    episodes send its batches through the store's checks, so nothing is written twice."""
    plain = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    plain.add_steps(namespace, "run", _steps(0, 0, 3))
    plain.add_session(namespace, "s0-0", _turns(0, 0), START)
    before = store.counts(namespace)
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    with memory.bulk() as bulk:
        if prefetch:
            bulk.prefetch([namespace])
        assert bulk.add_steps(namespace, "run", _steps(0, 0, 3)).unchanged == 3
        assert bulk.add_session(namespace, "s0-0", _turns(0, 0), START).unchanged == 3
        bulk.flush()
        assert store.counts(namespace) == before
        assert bulk.add_steps(namespace, "run", _steps(0, 3, 2)).written == 2
        assert bulk.add_session(namespace, "s0-1", _turns(0, 1), START + timedelta(hours=5)).written == 3
    other = f"{namespace}-plain"
    try:
        _write_plain(plain, other, 0)
        assert _dump(store, namespace, 0) == _dump(store, other, 0)
    finally:
        store.delete_namespace(other)


def test_episode_kinds_reads_many_namespaces_at_once(store, namespace, other_namespace):
    memory = Memory(store=store, embedder=HashEmbedder(), boxes=False)
    memory.add_steps(namespace, "run", _steps(0, 0, 2))
    memory.add_session(namespace, "s0-0", _turns(0, 0), START)
    assert store.episode_kinds([namespace, other_namespace]) == {
        namespace: {"run": "trajectory", "dialogue": "dialogue"},
        other_namespace: {},
    }
    assert store.episode_kinds([]) == {}
