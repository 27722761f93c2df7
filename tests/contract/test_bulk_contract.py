"""``Memory.bulk()`` writes exactly what ``Memory.add_steps`` writes, on both backends, and refuses to build
on a state another writer has moved on (``Expect`` in the write's transaction)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from graphmem.errors import ConflictError, GraphmemError
from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.records import Step
from graphmem.store.protocol import GraphStore, node_key
from hash_embed import HashEmbedder


@pytest.fixture(scope="module")
def steps() -> list[Step]:
    with resources.as_file(resources.files("graphmem").joinpath("data", "demo_crafter.jsonl")) as path:
        return read_steps_jsonl(path)[:300]


def _graph(store: GraphStore, namespace: str, steps: list[Step]) -> dict[str, Any]:
    """Everything the two paths must agree on: counts, the episode's state, every step and its events."""
    episode = store.get_nodes(namespace, [node_key("Episode", "run")])[node_key("Episode", "run")]
    stored = store.steps_at(namespace, "run", [s.t for s in steps])
    events = store.events_of(namespace, [node_key("Step", f"run:{s.t}") for s in steps])
    return {
        "counts": store.counts(namespace),
        "episode": {k: v for k, v in episode.items() if k not in ("namespace", "key")},
        "steps": stored,  # rows: no namespace, and keys that name the step within its namespace
        "events": sorted((e.unit_key, e.kind, e.obj, e.count, e.ordinal, e.t) for e in events),
    }


def test_bulk_writes_what_add_steps_writes(store, namespace, other_namespace, steps):
    memory = Memory(store=store, embedder=HashEmbedder())
    batches = [steps[i : i + 64] for i in range(0, len(steps), 64)]
    for batch in batches:
        memory.add_steps(namespace, "run", batch)
    with memory.bulk() as bulk:
        for batch in batches:
            assert bulk.add_steps(other_namespace, "run", batch).written == len(batch)
        # Steps already stored come back unchanged: skipped, as add_steps skips them.
        assert bulk.add_steps(other_namespace, "run", batches[-1]).unchanged == len(batches[-1])
    assert _graph(store, other_namespace, steps) == _graph(store, namespace, steps)


def test_bulk_refuses_a_state_another_writer_moved_on(store, namespace, steps):
    memory = Memory(store=store, embedder=HashEmbedder())
    other = Memory(store=store, embedder=HashEmbedder())
    bulk = memory.bulk()
    bulk.add_steps(namespace, "run", steps[:50])
    bulk.flush()
    other.add_steps(namespace, "run", steps[50:60])  # the episode now ends at steps[59]
    before = store.counts(namespace)
    bulk.add_steps(namespace, "run", steps[60:70])  # built on the state after steps[49]
    with pytest.raises(ConflictError, match="another writer"):
        bulk.flush()
    assert store.counts(namespace) == before
    with pytest.raises(GraphmemError, match="earlier bulk write failed"):
        bulk.add_steps(namespace, "run", steps[60:70])
    bulk.close()
    # A fresh writer reads the store and goes on from where the episode really ends.
    with memory.bulk() as again:
        assert again.add_steps(namespace, "run", steps[60:70]).written == 10
    assert store.get_nodes(namespace, [node_key("Episode", "run")])[node_key("Episode", "run")]["last_t"] == steps[69].t
