"""Rare-word expansion in dialogue recall, on both backends: a question's word that no turn uses ("art")
finds the turn that says it in other words ("painting") through its expanded full-text search, first in
the ranking on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cluster_embed import CLUSTERS, ClusterEmbedder
from graphmem.memory import Memory
from graphmem.recall import expansion
from graphmem.recall.config import RecallConfig
from graphmem.records import Turn

START = datetime(2024, 3, 1, 10, tzinfo=UTC)
# Small talk that shares no word with the question, spoken by both people.
CHATTER = [
    "We had lunch at the new noodle bar downtown.",
    "My brother called about the weekend plans.",
    "The weather turned cold again this morning.",
    "I am reading a long novel about sailors.",
    "Our neighbours adopted a puppy last month.",
    "The train was late twice this week.",
    "I started jogging before breakfast.",
    "We watched a documentary about volcanoes.",
    "The garden needs water after this heat.",
    "My phone battery keeps dying.",
]
QUESTION = "What kind of art does Caroline make?"
TARGET = "s3:2"


@pytest.fixture(autouse=True)
def small_vocabulary(monkeypatch):
    """Every 10th vocabulary word and the cluster words: the embedder is new per test, so is its table."""
    words = tuple(sorted(set(expansion.vocabulary_words()[::10]) | set(CLUSTERS) - {"destress"}))
    monkeypatch.setattr(expansion, "vocabulary_words", lambda: words)


def _write(memory: Memory, namespace: str) -> None:
    for s in range(4):
        turns = []
        for i in range(5):
            speaker = "Caroline" if i % 2 == 0 else "Melanie"
            text = CHATTER[(s * 5 + i) % len(CHATTER)]
            if (s, i) == (3, 2):
                text = "I finished a painting of the lake at dawn."
            turns.append(Turn(f"s{s}:{i}", speaker, text))
        memory.add_session(namespace, f"session-{s}", turns, started_at=START + timedelta(days=7 * s))


def test_a_rare_word_meets_its_neighbours_on_both_backends(store, namespace):
    memory = Memory(store=store, embedder=ClusterEmbedder())
    _write(memory, namespace)
    found = memory.recall(namespace, QUESTION, budget=60)
    assert TARGET in found.source_ids
    assert [h.source_id for h in memory.search(namespace, QUESTION, k=1)] == [TARGET]

    # Without expansion nothing lexical leads to it: the question's words "art", "make" and "kind" are in
    # no turn, and the embedder relates no sentences.
    plain = memory.recall(namespace, QUESTION, budget=60, config=RecallConfig(use_expansion=False))
    assert TARGET not in plain.source_ids
