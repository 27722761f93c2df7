"""Bad call arguments to Memory's readers are a ValueError naming the argument, on every backend."""

from __future__ import annotations

from datetime import datetime

import pytest

from graphmem.errors import InvalidArgumentError, InvalidRecordError
from graphmem.memory import Memory
from graphmem.query.algebra import Condition, Reached, Read
from graphmem.recall.config import RecallConfig
from graphmem.recall.dialogue.config import DialogueRecallConfig
from graphmem.recall.trajectory import TrajectoryRecallConfig
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


@pytest.mark.parametrize(
    "arguments, argument",
    [({"config": {}}, "config"), ({"config": TrajectoryRecallConfig()}, "config"), ({"episode": 5}, "episode"),
     ({"episode": "r\ud800"}, "episode")],
    ids=repr,
)
def test_bad_recall_arguments_are_named(memory: Memory, namespace: str, arguments: dict[str, object], argument: str) -> None:
    for call in (lambda: memory.recall(namespace, "wood", **arguments), lambda: memory.answer(namespace, "wood", **arguments)):
        with pytest.raises(ValueError, match=argument):
            call()


@pytest.mark.parametrize(
    "fields, field",
    [({"use_chain": "yes"}, "use_chain"), ({"use_expansion": None}, "use_expansion"), ({"context": "short"}, "context"),
     ({"trajectory": {}}, "trajectory"), ({"dialogue": TrajectoryRecallConfig()}, "dialogue")],
    ids=repr,
)
def test_bad_recall_config_fields_are_named(fields: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgumentError, match=f"^{field} must"):
        RecallConfig(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields, field",
    [({"turn_depth": 0}, "turn_depth"), ({"flow_sources": -1}, "flow_sources"), ({"dense_depth": 2.5}, "dense_depth"),
     ({"box_depth": True}, "box_depth"), ({"w_box": float("nan")}, "w_box"), ({"answer_share": "0.8"}, "answer_share"),
     ({"expandable_pos": ["NOUN"]}, "expandable_pos")],
    ids=repr,
)
def test_bad_dialogue_tuning_is_named(fields: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgumentError, match=f"^{field} must"):
        DialogueRecallConfig(**fields)  # type: ignore[arg-type]


def test_a_memory_refuses_a_recall_config_that_is_not_one() -> None:
    with pytest.raises(InvalidArgumentError, match="recall_config must be a RecallConfig"):
        Memory(path=":memory:", embedder=HashEmbedder(), recall_config={"use_chain": False})  # type: ignore[arg-type]


def test_stage_switches_are_no_recall_keywords(memory: Memory, namespace: str) -> None:
    # Stage switches are RecallConfig fields, not keywords of recall.
    with pytest.raises(TypeError, match="use_chain"):
        memory.recall(namespace, "wood", use_chain=False)  # type: ignore[call-arg]


def test_bad_answerers_stats_and_forget_arguments_are_named(memory: Memory, namespace: str) -> None:
    with pytest.raises(InvalidArgumentError, match="answerer must be a callable"):
        memory.answer(namespace, "wood", answerer="gpt")
    with pytest.raises(InvalidRecordError, match="namespace"):
        memory.stats(None)  # type: ignore[arg-type]
    for episode, session in ((5, None), (None, ""), ("r\udc80", None)):
        with pytest.raises(InvalidRecordError, match="episode" if episode is not None else "session"):
            memory.forget(namespace, episode=episode, session=session)  # type: ignore[arg-type]
    assert memory.stats(namespace)["Step"] == 2


def test_queries_the_stores_cannot_compare_with_are_refused(memory: Memory, namespace: str) -> None:
    with pytest.raises(InvalidArgumentError, match="question holds the integer .* outside the 64-bit range"):
        memory.answer(namespace, Read(Reached(Condition("inventory", "wood", ">=", 2**70)), "step"))
    with pytest.raises(InvalidArgumentError, match="not valid Unicode"):
        memory.recall(namespace, {"op": "count", "pattern": {"kind": "collect", "obj": "w\ud800"}})
    memory.add_session(namespace + "-chat", "s1", [Turn("t1", "Ann", "hello")], started_at=datetime(2024, 1, 1))
    with pytest.raises(InvalidArgumentError, match="holds no trajectory"):
        memory.recall(namespace + "-chat", {"op": "count", "pattern": {"kind": "collect"}})
    memory.forget(namespace + "-chat")


def test_an_embedder_or_context_source_without_its_method_is_named() -> None:
    with pytest.raises(InvalidArgumentError, match="embedder must have an embed"):
        Memory(path=":memory:", embedder=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="contexts must have an extract"):
        Memory(path=":memory:", embedder=HashEmbedder(), contexts="spacy")  # type: ignore[arg-type]
