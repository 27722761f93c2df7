"""A namespace that holds a trajectory and a dialogue answers each question from the memory it is about."""

from __future__ import annotations

from importlib import resources

import pytest

from graphmem.loaders.chat_jsonl import load_chat_jsonl
from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.recall.packer import Evidence
from graphmem.recall.route import _together, grounded
from graphmem.store.embedded import EmbeddedStore
from graphmem.tokens import count_tokens

#: Dialogue questions with the turn that answers them (the demo dialogue).
DIALOGUE = [
    ("What did the physiotherapist tell Maya to do?", "s2:4"),
    ("What happened with Pepper in June 2024?", "s3:4"),
    ("What breed is Leo's dog?", "s1:6"),
]
#: Trajectory questions with the step that answers them (the demo trajectory).
TRAJECTORY = [
    ("Where was I the last time I drank water?", "demo_crafter:123"),
    ("At which step did I collect wood for the third time?", None),
    ("What did I do at step 120?", "demo_crafter:120"),
]


@pytest.fixture(scope="module")
def mixed():
    data = resources.files("graphmem").joinpath("data")
    with resources.as_file(data.joinpath("demo_crafter.jsonl")) as path:
        steps = read_steps_jsonl(path)
    with resources.as_file(data.joinpath("demo_dialogue.jsonl")) as path:
        [conversation] = load_chat_jsonl(path)
    mem = Memory(store=EmbeddedStore())
    mem.add_steps("agent", "demo_crafter", steps)
    for session in conversation.sessions:
        mem.add_session("agent", session.session_id, session.turns, started_at=session.started_at)
    yield mem
    mem.close()


@pytest.mark.parametrize("question, turn", DIALOGUE)
def test_dialogue_questions_get_turns(mixed, question, turn):
    evidence = mixed.recall("agent", question, budget=200)
    assert turn in evidence.source_ids
    assert not any(s.startswith("demo_crafter:") for s in evidence.source_ids)
    answered = mixed.answer("agent", question, budget=200)  # no answerer: the executor reads trajectories only
    assert answered.text is None and turn in answered.evidence.source_ids


@pytest.mark.parametrize("question, step", TRAJECTORY)
def test_trajectory_questions_get_steps(mixed, question, step):
    evidence = mixed.recall("agent", question, budget=150)
    assert evidence.source_ids and all(s.startswith("demo_crafter:") for s in evidence.source_ids)
    assert evidence.query is not None
    if step is not None:
        assert step in evidence.source_ids
    assert mixed.answer("agent", question).text is not None


def test_structured_query_and_episode_option(mixed):
    count = mixed.answer("agent", {"op": "count", "pattern": {"kind": "collect", "obj": "wood"}})
    assert count.text is not None and all(s.startswith("demo_crafter:") for s in count.evidence.source_ids)
    # Naming the dialogue episode reads the dialogue, whatever the question looks like.
    evidence = mixed.recall("agent", "what did I do at step 3?", budget=100, episode="dialogue")
    assert evidence.source_ids and all(not s.startswith("demo_crafter:") for s in evidence.source_ids)


def test_grounded_needs_a_word_of_the_question():
    from graphmem.query.serialize import from_json

    drink = from_json({"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "drink", "obj": "water"}, "ordinal": -1},
                       "slot": "location"})
    assert grounded("Where was I the last time I drank water?", drink)
    assert not grounded("Where does Pepper like to swim?", drink)
    assert grounded("what happened at step 4?", from_json({"op": "read", "anchor": {"op": "step_at", "t": 4}, "slot": "action"}))


def test_both_kinds_packed_within_the_budget():
    lines = [f"[{t}] move left | at forest ({t},0)" for t in range(5)]
    first = Evidence(tuple(f"run:{t}" for t in range(5)), "\n".join(lines), count_tokens("\n".join(lines)), 40,
                     tuple((f"run:{t}", line) for t, line in enumerate(lines)))

    def second(within: int) -> Evidence:
        text = "Maya: " + "Pepper swam in the lake " * max(within // 6, 1)
        return Evidence(("c1",), text.strip(), count_tokens(text.strip()), within, (("c1", text.strip()),))

    both = _together(first, second, 80)
    assert both.tokens == count_tokens(both.text) <= 80
    assert both.source_ids == (*first.source_ids, "c1") and both.text.startswith(first.text)
