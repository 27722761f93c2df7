"""Bad call arguments to Memory's readers are a ValueError naming the argument, on every backend."""

from __future__ import annotations

from datetime import datetime

import pytest

from graphmem.errors import InvalidRecordError
from graphmem.memory import Memory
from graphmem.records import Step, Turn
from hash_embed import HashEmbedder


@pytest.fixture
def memory(store, namespace) -> Memory:
    mem = Memory(store=store, embedder=HashEmbedder())
    mem.add_steps(namespace, "run", [Step(0, "collect wood"), Step(1, "noop")])
    return mem


BAD_QUESTIONS = [None, 123, b"q", "", "   ", "bad \ud800 text", "x" * 20_001]


@pytest.mark.parametrize("question", BAD_QUESTIONS, ids=repr)
def test_bad_questions_are_value_errors(memory: Memory, namespace: str, question: object) -> None:
    for call in (lambda: memory.search(namespace, question),  # type: ignore[arg-type]
                 lambda: memory.recall(namespace, question),  # type: ignore[arg-type]
                 lambda: memory.answer(namespace, question)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="question"):
            call()


@pytest.mark.parametrize("k", ["5", None, 1.5, -1, True, 10_001], ids=repr)
def test_bad_k_is_a_value_error(memory: Memory, namespace: str, k: object) -> None:
    with pytest.raises(ValueError, match="k must"):
        memory.search(namespace, "wood", k=k)  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", ["100", None, 0, -5, float("nan"), 1.5, True], ids=repr)
def test_bad_budgets_are_value_errors(memory: Memory, namespace: str, budget: object) -> None:
    for call in (lambda: memory.recall(namespace, "wood", budget=budget),  # type: ignore[arg-type]
                 lambda: memory.answer(namespace, "wood", budget=budget)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="budget"):
            call()


@pytest.mark.parametrize("ns", [None, "", "  ", 5], ids=repr)
def test_bad_namespaces_are_invalid(memory: Memory, ns: object) -> None:
    with pytest.raises(InvalidRecordError, match="namespace"):
        memory.search(ns, "wood")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="namespace"):
        memory.recall(ns, "wood")  # type: ignore[arg-type]


def test_a_session_at_the_end_of_time_is_refused_and_recall_still_works(memory: Memory, namespace: str) -> None:
    with pytest.raises(InvalidRecordError, match="started_at"):
        memory.add_session(namespace, "s1", [Turn("t1", "Ann", "hello")], started_at=datetime.max)
    assert memory.recall(namespace, "wood", budget=50).tokens <= 50
