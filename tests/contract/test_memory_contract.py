"""The same memory, written through ``Memory`` into both backends, answers the same.

Ingests the bundled demo trajectory and dialogue into an embedded and a Neo4j-backed ``Memory`` and
checks that search, recall and the executor give identical results.
"""

from __future__ import annotations

import uuid
from importlib import resources

import pytest

from graphmem.loaders.chat_jsonl import load_chat_jsonl
from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.store.embedded import EmbeddedStore

TRAJECTORY_QUESTIONS = [
    "What did I do two steps after I first placed a table?",
    "Where was I the last time I drank water?",
    "How many saplings did I have right after I first collected stone?",
    "At which step did I collect wood for the third time?",
    "what happened at step 120?",
    "tell me about the cows",  # no anchor: text + vector fallback
]
DIALOGUE_QUESTIONS = [
    "What did the physiotherapist tell Maya to do?",
    "What happened with Pepper in June 2024?",
    "How did Maya's half marathon plan develop?",
    "When did Leo adopt Pepper?",
]


@pytest.fixture(scope="module")
def memories(neo4j_store):
    data = resources.files("graphmem").joinpath("data")
    with resources.as_file(data.joinpath("demo_crafter.jsonl")) as path:
        steps = read_steps_jsonl(path)[:200]
    with resources.as_file(data.joinpath("demo_dialogue.jsonl")) as path:
        [conversation] = load_chat_jsonl(path)
    agent, user = f"agent-{uuid.uuid4().hex[:8]}", f"user-{uuid.uuid4().hex[:8]}"
    embedded = Memory(store=EmbeddedStore())
    neo = Memory(store=neo4j_store)
    for mem in (embedded, neo):
        mem.add_steps(agent, "run", steps)
        for session in conversation.sessions:
            mem.add_session(user, session.session_id, session.turns, started_at=session.started_at)
    yield embedded, neo, agent, user
    neo4j_store.delete_namespace(agent)
    neo4j_store.delete_namespace(user)


def test_same_graph(memories):
    embedded, neo, agent, user = memories
    assert embedded.stats(agent) == neo.stats(agent)
    assert embedded.stats(user) == neo.stats(user)


@pytest.mark.parametrize("question", TRAJECTORY_QUESTIONS)
def test_same_trajectory_recall_and_answer(memories, question):
    embedded, neo, agent, _ = memories
    a, b = embedded.answer(agent, question, budget=150), neo.answer(agent, question, budget=150)
    assert a.evidence.source_ids == b.evidence.source_ids
    assert a.evidence.text == b.evidence.text
    assert a.text == b.text
    assert [h.source_id for h in embedded.search(agent, question, k=10)] == [h.source_id for h in neo.search(agent, question, k=10)]


@pytest.mark.parametrize("question", DIALOGUE_QUESTIONS)
def test_same_dialogue_recall(memories, question):
    embedded, neo, _, user = memories
    a, b = embedded.recall(user, question, budget=200), neo.recall(user, question, budget=200)
    assert a.source_ids == b.source_ids
    assert a.text == b.text and a.tokens == b.tokens <= 200


def test_reingest_changes_nothing(memories):
    embedded, neo, agent, user = memories
    before = neo.stats(agent), neo.stats(user)
    data = resources.files("graphmem").joinpath("data")
    with resources.as_file(data.joinpath("demo_crafter.jsonl")) as path:
        steps = read_steps_jsonl(path)[:200]
    assert neo.add_steps(agent, "run", steps).written == 0
    with resources.as_file(data.joinpath("demo_dialogue.jsonl")) as path:
        [conversation] = load_chat_jsonl(path)
    for session in conversation.sessions:
        assert neo.add_session(user, session.session_id, session.turns, started_at=session.started_at).written == 0
    assert (neo.stats(agent), neo.stats(user)) == before
