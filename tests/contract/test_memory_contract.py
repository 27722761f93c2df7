"""The same memory, written through ``Memory`` into both backends, answers the same.

Ingests the bundled demo trajectory and dialogue into an embedded and a Neo4j-backed ``Memory`` and
checks that the graphs, vector search, anchored recall and the executor give identical results.

Full-text scores use collection-wide statistics on both backends (Lucene's BM25 semantics): a Neo4j
server that also holds other namespaces (or not yet merged deletions) scores words slightly differently,
so the lexical fill-in after the decisive evidence may differ; the store contract suite checks full-text
ranking on a controlled collection, and here the decisive evidence and answers must be identical.
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
]
# Each question with the turn that answers it: both backends must put it into the evidence.
DIALOGUE_QUESTIONS = [
    ("What did the physiotherapist tell Maya to do?", "s2:4"),
    ("What happened with Pepper in June 2024?", "s3:4"),
    ("When did Maya finish the half marathon?", "s3:1"),
    ("What breed is Leo's dog?", "s1:6"),
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
    assert a.text is not None and a.text == b.text
    # The decisive steps (anchor, then target) lead the pack order on both backends.
    assert a.evidence.source_ids[:2] == b.evidence.source_ids[:2]
    assert a.evidence.tokens <= 150 and b.evidence.tokens <= 150


@pytest.mark.parametrize("question", [*TRAJECTORY_QUESTIONS, "tell me about the cows"])
def test_same_vector_search(memories, question):
    embedded, neo, agent, _ = memories
    vector = embedded.embedder.embed([question])[0]
    a, b = embedded.store.vector(agent, vector, 10), neo.store.vector(agent, vector, 10)
    assert [h.uid for h in a] == [h.uid for h in b]
    assert all(abs(x.score - y.score) < 1e-5 for x, y in zip(a, b))


@pytest.mark.parametrize("question, answer_turn", DIALOGUE_QUESTIONS)
def test_dialogue_recall_finds_the_answer_on_both(memories, question, answer_turn):
    embedded, neo, _, user = memories
    lines = []
    for mem in (embedded, neo):
        evidence = mem.recall(user, question, budget=200)
        assert answer_turn in evidence.source_ids, (type(mem.store).__name__, evidence.text)
        assert evidence.tokens <= 200
        [line] = evidence.lines_of(answer_turn)
        assert line in evidence.text.splitlines()
        lines.append(line)
    # The answer's line is written alike from either backend's properties (speaker, text, event time).
    assert lines[0] == lines[1]


def test_reingest_changes_nothing(memories):
    _embedded, neo, agent, user = memories
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
