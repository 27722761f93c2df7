"""Validation at the boundary names the record and field; nothing of a bad batch is written."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.records import Event, Location, Relation, Step, Turn, validate_step, validate_steps, validate_turns


def test_steps_must_increase():
    with pytest.raises(InvalidRecordError) as err:
        validate_steps([Step(0, "a"), Step(0, "b")], "episode 'e'")
    assert err.value.field == "t" and "duplicate" in str(err.value)
    with pytest.raises(InvalidRecordError, match="out of order"):
        validate_steps([Step(3, "a"), Step(1, "b")], "episode 'e'")


@pytest.mark.parametrize(
    "step, field",
    [
        (Step(-1, "a"), "t"),
        (Step(0, ""), "action"),
        (Step(0, "a", events=(Event("tele;port", "x"),)), "events"),
        (Step(0, "a", events=(Event("x" * 65, "x"),)), "events"),
        (Step(0, "a", events=(Event("   ", "x"),)), "events"),
        (Step(0, "a", events=(Event("collect", "wood", -2),)), "events"),
        (Step(0, "a", inventory={"wood": -1}), "inventory"),
        (Step(0, "a", state={"health": float("nan")}), "state.health"),
        (Step(0, "a", location=Location(position=(1, "2"))), "location.position"),  # type: ignore[arg-type]
    ],
)
def test_bad_step_fields_are_named(step, field):
    with pytest.raises(InvalidRecordError) as err:
        validate_steps([step], "episode 'e'")
    assert err.value.field == field


@pytest.mark.parametrize(
    "step, field",
    [
        (Step(0, "a", objects=("x" * 257,)), "objects"),
        (Step(0, "a", objects=(" ",)), "objects"),
        (Step(0, "a", events=(Event("collect", "x" * 257),)), "events"),
        (Step(0, "a", relations=(Relation("agent", " ", "tree"),)), "relations"),
        (Step(0, "a", inventory={"x" * 257: 1}), "inventory"),
        (Step(0, "a", inventory={"": 1}), "inventory"),
        (Step(0, "a", state={"": 1}), "state"),
        (Step(0, "a", state={"goal": "x" * 100_001}), "state.goal"),
        (Step(0, "a", location=Location(None, "x" * 257)), "location.region"),
        (Step(0, "a", location=Location(None, "", 5)), "location.underfoot"),  # type: ignore[arg-type]
        (Step(0, "a", location=Location(5)), "location.position"),  # type: ignore[arg-type]
        (Step(0, "a" * 100_001), "action"),
        (Step(0, "a", summary=None), "summary"),  # type: ignore[arg-type]
        (Step(0, "a", observation=123), "observation"),  # type: ignore[arg-type]
        (Step(0, "a\ud800"), "action"),
        (Step(0, "a", objects=("w\udfffood",)), "objects"),
        (Step(0, "a", events=(Event("collect", "w\ud800"),)), "events"),
        (Step(0, "a", state={"mode": "\udc80"}), "state.mode"),
        (Step(0, "a", location=Location(None, "r\ud800")), "location.region"),
    ],
)
def test_limits_and_unicode_are_checked_field_by_field(step, field):
    with pytest.raises(InvalidRecordError) as err:
        validate_steps([step], "episode 'e'")
    assert err.value.field == field


@pytest.mark.parametrize(
    "turn, field",
    [
        (Turn("x" * 513, "Ann", "hi"), "id"),
        (Turn("t\ud800", "Ann", "hi"), "id"),
        (Turn("t1", "A\udc00nn", "hi"), "speaker"),
        (Turn("t1", "Ann", "hi \ud800"), "text"),
        (Turn("t1", "Ann", "x" * 100_001), "text"),
        (Turn("t1", "Ann", "hi", "\udfff"), "image_caption"),
        (Turn("t1", "Ann", "hi", 5), "image_caption"),  # type: ignore[arg-type]
    ],
)
def test_turn_limits_and_unicode_are_checked(turn, field):
    with pytest.raises(InvalidRecordError) as err:
        validate_turns([turn], "session 's1'")
    assert err.value.field == field


@pytest.mark.parametrize(
    "kwargs, field",
    [({"objects": "wood"}, "objects"), ({"objects": None}, "objects"), ({"events": Event("collect", "wood")}, "events"),
     ({"relations": Relation("a", "on", "b")}, "relations"), ({"inventory": {None: 1}}, "inventory"), ({"inventory": {1: 2}}, "inventory"),
     ({"inventory": [("wood", 1), ("wood", 2)]}, "inventory"), ({"state": 5}, "state"), ({"state": [("hp",)]}, "state")],
    ids=repr,
)
def test_constructors_refuse_containers_of_the_wrong_shape(kwargs, field):
    with pytest.raises(InvalidRecordError) as err:
        Step(0, "a", **kwargs)
    assert err.value.field == field and err.value.where == "Step(t=0)"


def test_names_and_texts_at_the_limits_are_taken():
    step = Step(2**62, "a" * 100_000, objects=("\U00020000" * 256,), events=(Event("collect", "x" * 256, 2**63 - 1),),
                inventory={"x" * 256: 2**63 - 1}, location=Location((2**63 - 1, -(2**63)), "r" * 256))
    assert validate_steps([step], "episode 'e'") == (step,)
    assert validate_turns([Turn("t" * 512, "s" * 512, "x" * 100_000, "")], "session 's1'")


def test_turn_errors_name_session_and_turn():
    with pytest.raises(InvalidRecordError) as err:
        validate_turns([Turn("D1:1", "Ann", "hi"), Turn("D1:2", "Bob", "  ")], "session 's1'")
    assert "session 's1'" in str(err.value) and "D1:2" in str(err.value) and err.value.field == "text"
    with pytest.raises(InvalidRecordError, match="at least one turn"):
        validate_turns([], "session 's1'")
    with pytest.raises(InvalidRecordError, match="twice"):
        validate_turns([Turn("x", "A", "a"), Turn("x", "B", "b")], "session 's1'")


def test_memory_rejects_bad_batches_and_conflicts(memory):
    ns = "records-test"
    good = [Step(t, "move left", location=Location((t, 0), "grass")) for t in range(5)]
    with pytest.raises(InvalidRecordError):
        memory.add_steps(ns, "run", [*good, Step(5, "")])
    assert memory.stats(ns) == {}
    assert memory.add_steps(ns, "run", good).written == 5
    assert memory.add_steps(ns, "run", good).unchanged == 5  # idempotent
    before = memory.stats(ns)
    with pytest.raises(ConflictError):
        memory.add_steps(ns, "run", [Step(2, "move right")])
    assert memory.stats(ns) == before
    assert memory.add_steps(ns, "run", [Step(5, "noop")]).written == 1
    assert memory.stats(ns)["NEXT"] == 5
    assert memory.add_steps(ns, "gappy", [Step(0, "a"), Step(2, "b"), Step(4, "c")]).written == 3
    with pytest.raises(InvalidRecordError, match="out of order"):
        memory.add_steps(ns, "gappy", [Step(3, "d")])


def test_session_times_must_be_monotonic(memory):
    ns = "records-sessions"
    t1 = datetime(2023, 5, 8, tzinfo=UTC)
    t0 = datetime(2023, 5, 1, tzinfo=UTC)
    memory.add_session(ns, "s1", [Turn("a", "Ann", "I adopted a dog.")], started_at=t1)
    with pytest.raises(InvalidRecordError, match="time order"):
        memory.add_session(ns, "s0", [Turn("b", "Bob", "Nice!")], started_at=t0)
    with pytest.raises(InvalidRecordError) as err:
        memory.add_session(ns, "s2", [Turn("c", "Bob", "x")], started_at="2023-05-09")  # type: ignore[arg-type]
    assert err.value.field == "started_at"


# --------------------------------------------------------------------------------------------------
# The step payload: hand-built canonical JSON, identical to dataclasses.asdict's document
# --------------------------------------------------------------------------------------------------

import json as _json
from dataclasses import asdict as _asdict

from hypothesis import given as _given
from hypothesis import settings as _settings
from hypothesis import strategies as _st

from graphmem.records import Event as _Event
from graphmem.records import Location as _Location
from graphmem.records import Relation as _Relation
from graphmem.records import Step as _Step
from graphmem.write.steps import step_from_json, step_to_json

_text = _st.text(min_size=0, max_size=8)
_steps = _st.builds(
    _Step,
    t=_st.integers(0, 10_000),
    action=_text,
    summary=_text,
    objects=_st.lists(_text, max_size=3).map(tuple),
    events=_st.lists(_st.builds(_Event, _text, _text, _st.integers(1, 5)), max_size=3).map(tuple),
    relations=_st.lists(_st.builds(_Relation, _text, _text, _text), max_size=2).map(tuple),
    inventory=_st.dictionaries(_text, _st.integers(0, 9), max_size=3),
    state=_st.dictionaries(_text, _st.one_of(_st.integers(0, 9), _st.booleans(), _text), max_size=3),
    location=_st.builds(_Location, _st.one_of(_st.none(), _st.tuples(_st.integers(-50, 50), _st.integers(-50, 50))), _text, _text),
    observation=_text,
)


@_settings(max_examples=200, deadline=None)
@_given(_steps)
def test_step_json_is_asdicts_document_and_round_trips(step):
    # Stored digests were computed from asdict's JSON: the hand-built document must stay identical.
    assert step_to_json(step) == _json.dumps(_asdict(step), sort_keys=True, separators=(",", ":"))
    assert step_from_json(step_to_json(step)) == step


def test_step_json_of_the_bundled_crafter_trajectory():
    from importlib import resources

    from graphmem.loaders.jsonl_steps import read_steps_jsonl

    with resources.as_file(resources.files("graphmem.data").joinpath("demo_crafter.jsonl")) as path:
        steps = list(read_steps_jsonl(path))
    assert len(steps) > 100
    for step in steps:
        assert step_to_json(step) == _json.dumps(_asdict(step), sort_keys=True, separators=(",", ":"))


def test_event_kinds_are_open_phrases_stored_normalized() -> None:
    step = validate_step(Step(0, "a", events=(Event("Run_Test"), Event("call  tool", "search"), Event("respawn"))), "ep")
    assert [e.kind for e in step.events] == ["run test", "call tool", "respawn"]
    assert Event("Run Test") == Event("run test")
