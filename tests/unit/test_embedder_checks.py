"""An embedder whose answer does not fit (a row short or extra, other dimensions, NaN, a zero vector, not
numbers) is refused with ``EmbedderError`` before anything is written, on every write path that embeds;
the episode stays appendable. ``Memory`` checks its embedder once when it is built.

Vectors are paired with units by position: before the check, a vector short made ``add_steps`` report
five steps written, store four, and leave ``Episode.last_t`` naming the missing one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from graphmem.embed import checked_embeddings
from graphmem.errors import EmbedderError, GraphmemError
from graphmem.memory import Memory
from graphmem.records import Event, Step, Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import DIMENSIONS, node_key
from graphmem.write.context import TurnContext
from hash_embed import HashEmbedder


def _misbehave(vectors: np.ndarray, mode: str) -> Any:
    """What a faulty embedder returns instead of ``vectors`` (one good row per text)."""
    if mode == "short":
        return vectors[:-1]
    if mode == "extra":
        return np.vstack([vectors, vectors[:1]])
    if mode == "dimension":
        return vectors[:, :-1]
    if mode == "nan":
        bad = vectors.copy()
        bad[-1, 3] = np.nan
        return bad
    if mode == "inf":
        bad = vectors.astype(np.float64)
        bad[-1, 0] = 1e300  # beyond float32
        return bad
    if mode == "zero":
        bad = vectors.copy()
        bad[-1] = 0.0
        return bad
    if mode == "text":
        return [["0.1"] * vectors.shape[1] for _ in range(len(vectors))]
    if mode == "ragged":
        return [list(v) for v in vectors[:-1]] + [list(vectors[-1][:-2])]
    if mode == "flat":
        return vectors.reshape(-1)
    raise AssertionError(mode)


MODES = ["short", "extra", "dimension", "nan", "inf", "zero", "text", "ragged", "flat"]


class FaultyEmbedder:
    """``HashEmbedder`` that misbehaves (``mode``) on every call from the ``after``-th one on (0-based)."""

    dimensions = DIMENSIONS

    def __init__(self, mode: str | None = None, after: int = 0) -> None:
        self.inner = HashEmbedder()
        self.mode = mode
        self.after = after
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        vectors = self.inner.embed(list(texts))
        self.calls += 1
        if self.mode is None or self.calls <= self.after:
            return vectors
        return _misbehave(vectors, self.mode)


class SpeakerContexts:
    """Each turn's context is its speaker alone (no spaCy pipeline to load)."""

    def extract(self, turns: Sequence[Turn], session_start: datetime, speakers: Sequence[str]) -> list[TurnContext]:
        return [TurnContext((t.speaker,), (), (), (), None, None, ()) for t in turns]


DAY = datetime(2024, 3, 2, tzinfo=UTC)


def _steps(first: int, n: int) -> list[Step]:
    return [Step(t, f"collect wood {t}", events=(Event("collect", "wood"),)) for t in range(first, first + n)]


def _session(i: int) -> tuple[str, list[Turn], datetime]:
    turns = [Turn(f"D{i}:{j}", "Maya" if j % 2 else "Sam", f"Session {i}, line {j}: we went hiking.") for j in range(3)]
    return f"s{i}", turns, DAY + timedelta(days=7 * i)


@pytest.mark.parametrize("mode", MODES)
def test_checked_embeddings_refuses_an_answer_that_does_not_fit(mode):
    texts = ["collect wood", "place table", "drink water"]
    with pytest.raises(EmbedderError, match="nothing was written"):
        checked_embeddings(FaultyEmbedder(mode), texts, DIMENSIONS)
    good = checked_embeddings(FaultyEmbedder(), texts, DIMENSIONS)
    assert good.shape == (3, DIMENSIONS) and good.dtype == np.float32
    assert checked_embeddings(FaultyEmbedder(mode), [], DIMENSIONS).shape == (0, DIMENSIONS)  # nothing asked


def test_embedder_error_is_a_graphmem_error():
    assert issubclass(EmbedderError, GraphmemError)


@pytest.mark.parametrize("mode", MODES)
def test_memory_checks_its_embedder_when_built(mode):
    store = EmbeddedStore()
    with pytest.raises(EmbedderError):
        Memory(store=store, embedder=FaultyEmbedder(mode))
    assert store.counts("anything") == {}


def test_memory_checks_the_embedder_against_the_store_dimensions():
    with pytest.raises(EmbedderError, match="the store holds 128"):
        Memory(store=EmbeddedStore(dimensions=128), embedder=HashEmbedder())


@pytest.mark.parametrize("mode", MODES)
def test_a_faulty_embedder_writes_no_steps_and_the_episode_stays_appendable(store, namespace, mode):
    embedder = FaultyEmbedder()
    mem = Memory(store=store, embedder=embedder, boxes=False)
    mem.add_steps(namespace, "run", _steps(0, 3))
    before = mem.stats(namespace)
    embedder.mode = mode
    with pytest.raises(EmbedderError):
        mem.add_steps(namespace, "run", _steps(3, 5))
    assert mem.stats(namespace) == before
    episode = store.get_nodes(namespace, [node_key("Episode", "run")])[node_key("Episode", "run")]
    assert episode["last_t"] == 2

    embedder.mode = None
    assert mem.add_steps(namespace, "run", _steps(3, 5)).written == 5
    counts = mem.stats(namespace)
    assert (counts["Step"], counts["NEXT"], counts["Event"]) == (8, 7, 8)
    assert sorted(store.steps_at(namespace, "run", list(range(8)))) == list(range(8))
    assert store.event_total(namespace, "run", "collect", "wood") == 8


@pytest.mark.parametrize("mode", ["short", "dimension", "nan", "zero", "text"])
def test_a_faulty_embedder_writes_no_steps_through_the_bulk_writer(store, namespace, mode):
    embedder = FaultyEmbedder()
    mem = Memory(store=store, embedder=embedder, boxes=False)
    with mem.bulk() as bulk:
        bulk.add_steps(namespace, "run", _steps(0, 3))
        bulk.flush()
        before = mem.stats(namespace)
        embedder.mode = mode
        with pytest.raises(EmbedderError):
            bulk.add_steps(namespace, "run", _steps(3, 4))
        embedder.mode = None
        bulk.add_steps(namespace, "run", _steps(3, 4))
    assert before["Step"] == 3
    assert mem.stats(namespace)["Step"] == 7


@pytest.mark.parametrize("mode", MODES)
def test_a_faulty_embedder_writes_no_session_and_the_dialogue_stays_appendable(store, namespace, mode):
    embedder = FaultyEmbedder()
    mem = Memory(store=store, embedder=embedder, boxes=False, contexts=SpeakerContexts())
    mem.add_session(namespace, *_session(0)[:2], started_at=_session(0)[2])
    before = mem.stats(namespace)
    embedder.mode = mode
    session_id, turns, start = _session(1)
    with pytest.raises(EmbedderError):
        mem.add_session(namespace, session_id, turns, started_at=start)
    assert mem.stats(namespace) == before

    embedder.mode = None
    assert mem.add_session(namespace, session_id, turns, started_at=start).written == 3
    assert [s.seq for s in store.sessions(namespace)] == [0, 1]
    assert mem.stats(namespace)["Turn"] == 6


@pytest.mark.parametrize("mode", ["short", "nan", "zero"])
def test_a_faulty_embedding_of_box_events_writes_nothing(mode):
    """With topic boxes, a session embeds its turns, then its boxes' events: the second call is checked too."""
    store = EmbeddedStore()
    embedder = FaultyEmbedder()
    mem = Memory(store=store, embedder=embedder)
    mem.add_session("user", *_session(0)[:2], started_at=_session(0)[2])
    before = mem.stats("user")
    assert before["Box"] >= 1
    embedder.mode, embedder.after = mode, embedder.calls + 1  # the turns embed well, the events do not
    session_id, turns, start = _session(1)
    with pytest.raises(EmbedderError):
        mem.add_session("user", session_id, turns, started_at=start)
    assert embedder.calls == embedder.after + 1
    assert mem.stats("user") == before

    embedder.mode = None
    mem.add_session("user", session_id, turns, started_at=start)
    assert mem.stats("user")["Session"] == 2
