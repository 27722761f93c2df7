"""The executor answers from the evidence it is given alone, in one canonical format per answer type, and
``None`` whenever the decisive step or fact is not in it; ``answers_match`` compares answers."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.query.algebra import (
    Condition,
    Count,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Precedes,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.answers import (
    PackedStep,
    QueryEvidence,
    answer,
    answers_match,
    format_scalar,
    normalize_answer,
    read_slot,
)
from graphmem.query.resolve import Fact
from graphmem.records import Event, Location, Relation, Step

WOOD = EventPattern("collect", "wood")
TABLE = EventPattern("place", "table")

RICH = Step(
    12,
    "place table",
    events=(Event("place", "table"), Event("lose", "wood", 1)),
    relations=(Relation("table", "near", "tree"), Relation("agent", "facing", "table")),
    inventory=(("wood", 3), ("sapling", 1), ("stone", 0)),
    state=(("health", 7), ("daylight", 0.25), ("sleeping", False), ("stage", "day"), ("food", 6.0)),
    location=Location((32, 17), "forest"),
    observation="You see a table.",
)
BARE = Step(13, "noop")
NAMED_AGENT = Step(15, "move up", relations=(Relation("Tern", "standing on", "sand"), Relation("Tern", "facing", "stone")))
ACTED_ON = Step(16, "examine pine desk", relations=(Relation("Mote", "acts on", "pine desk"), Relation("pine desk", "in", "study")))
AT_POSITION = Step(14, "move left", location=Location((31, 17)))


def packed(step: Step, *roles: str) -> PackedStep:
    return PackedStep(f"ep:{step.t}", step.t, step, roles)


def marked(step: Step, role: str = "anchor") -> QueryEvidence:
    return QueryEvidence((packed(step, role),))


# ---------------------------------------------------------------------------------------------- reads

READS: list[tuple[Step, str, str | None, str | None]] = [
    (RICH, "action", None, "place table"),
    (RICH, "step", None, "12"),
    (RICH, "location", None, "forest"),
    (AT_POSITION, "location", None, "31,17"),  # no region: the position
    (BARE, "location", None, None),
    (RICH, "position", None, "32,17"),
    (BARE, "position", None, None),
    (RICH, "item", "wood", "3"),
    (RICH, "item", "stone", "0"),
    (RICH, "item", "diamond", "0"),  # an absent item counts 0
    (RICH, "inventory", None, "sapling 1, wood 3"),  # by name, counts > 0 only
    (BARE, "inventory", None, "none"),
    (RICH, "state", "health", "7"),
    (RICH, "state", "food", "6"),  # 6.0 -> "6"
    (RICH, "state", "daylight", "0.25"),
    (RICH, "state", "sleeping", "false"),
    (RICH, "state", "stage", "day"),
    (RICH, "state", "mana", None),  # an absent state value is not in the step
    (RICH, "facing", None, "table"),  # (agent, facing, X) only, not (table, near, tree)
    (BARE, "facing", None, None),
    (NAMED_AGENT, "facing", None, "stone"),  # an agent recorded by name: its facing relation, not relations[0]
    (ACTED_ON, "facing", None, "pine desk"),  # no facing relation: the first one, what the command acted on
    (RICH, "observation", None, "You see a table."),
    (BARE, "observation", None, None),
    (RICH, "events", None, "place table; lose wood"),
    (BARE, "events", None, "none"),
]


@pytest.mark.parametrize("step,slot,name,expected", READS, ids=[f"{slot}:{name}@{s.t}" for s, slot, name, _ in READS])
def test_read_every_slot(step: Step, slot: str, name: str | None, expected: str | None):
    query = Read(Occurrence(TABLE), slot, name)  # type: ignore[arg-type]
    assert answer(query, marked(step)) == expected
    assert read_slot(step, slot, name) == expected


def test_read_needs_the_anchor_step_in_the_evidence():
    query = Read(Shifted(Occurrence(TABLE), 1), "action")
    # The base of the shift is packed, the target is not: the executor does not guess.
    assert answer(query, QueryEvidence((packed(RICH, "anchor.base"),))) is None
    assert answer(query, QueryEvidence()) is None
    # Steps in the evidence without the role say nothing either, whatever they hold.
    assert answer(query, QueryEvidence((packed(BARE), packed(RICH, "a")))) is None
    assert answer(query, QueryEvidence((packed(RICH, "anchor.base"), packed(BARE, "anchor")))) == "noop"


def test_read_uses_the_first_step_with_the_role():
    evidence = QueryEvidence((packed(BARE), packed(RICH, "anchor.base", "anchor"), packed(AT_POSITION, "anchor")))
    assert answer(Read(StepAt(12), "step"), evidence) == "12"


# ---------------------------------------------------------------------------------------------- two anchors


def two(a: Step, b: Step) -> QueryEvidence:
    return QueryEvidence((packed(a, "a"), packed(b, "b")))


def test_which_first_gives_the_earlier_anchors_label():
    query = WhichFirst(Occurrence(WOOD, 3), Occurrence(TABLE))
    assert answer(query, two(BARE, RICH)) == "place table"  # b at 12 before a at 13
    assert answer(query, two(RICH, BARE)) == "collect wood"
    assert answer(WhichFirst(StepAt(12), Reached(Condition("state", "health", "<", 3))), two(RICH, BARE)) == "step 12"
    assert answer(WhichFirst(StepAt(12), Reached(Condition("state", "health", "<", 3))), two(BARE, RICH)) == "health < 3"
    assert answer(WhichFirst(Shifted(Occurrence(WOOD), 2), StepAt(99)), two(RICH, BARE)) == "collect wood"
    assert answer(query, QueryEvidence((packed(RICH, "a", "b"),))) == "same step"


def test_precedes_says_whether_a_comes_before_b():
    query = Precedes(Occurrence(WOOD, 3), Occurrence(TABLE))
    assert answer(query, two(BARE, RICH)) == "no"  # b at 12 before a at 13
    assert answer(query, two(RICH, BARE)) == "yes"
    assert answer(query, QueryEvidence((packed(RICH, "a", "b"),))) is None  # one step: neither is first
    assert answer(query, QueryEvidence((packed(RICH, "a"),))) is None  # b not in the evidence


def test_distance_is_absolute():
    query = Distance(Occurrence(WOOD), Occurrence(TABLE))
    assert answer(query, two(RICH, AT_POSITION)) == "2"
    assert answer(query, two(AT_POSITION, RICH)) == "2"
    assert answer(query, QueryEvidence((packed(RICH, "a", "b"),))) == "0"


@pytest.mark.parametrize("query", [WhichFirst(Occurrence(WOOD), Occurrence(TABLE)), Distance(Occurrence(WOOD), StepAt(3))])
def test_two_anchor_questions_need_both_steps(query: Any):
    assert answer(query, QueryEvidence((packed(RICH, "a"),))) is None
    assert answer(query, QueryEvidence((packed(RICH, "b"), packed(BARE)))) is None
    assert answer(query, QueryEvidence((packed(RICH, "a.base"), packed(BARE, "b")))) is None
    assert answer(query, QueryEvidence()) is None


# ---------------------------------------------------------------------------------------------- facts

FACTS: list[tuple[Any, Fact, str]] = [
    (Count(WOOD), Fact("count", "5", "collect wood in all: 5 times"), "5"),
    (Count(WOOD, Window(end=StepAt(10))), Fact("count", "0", "collect wood to [10]: 0 times"), "0"),
    (Exists(TABLE), Fact("exists", "yes", "place table in all: yes, 1st at [12]"), "yes"),
    (Exists(Condition("state", "health", "<", 2)), Fact("exists", "no", "health < 2 in all: never"), "no"),
    (ListEvents(EventPattern("collect")), Fact("list", "wood, sapling", "collect in all: wood, sapling"), "wood, sapling"),
    (ListEvents(EventPattern("collect")), Fact("list", "none", "collect in all: none"), "none"),
]


@pytest.mark.parametrize("query,fact,expected", FACTS, ids=[f.line for _, f, _ in FACTS])
def test_window_questions_read_their_fact(query: Any, fact: Fact, expected: str):
    assert answer(query, QueryEvidence((packed(RICH, "found"),), (fact,))) == expected
    assert answer(query, QueryEvidence(facts=(fact,))) == expected  # the fact alone proves it


@pytest.mark.parametrize("query", [Count(WOOD), Exists(TABLE), ListEvents(EventPattern("collect"))])
def test_window_questions_without_their_fact_are_unanswered(query: Any):
    # The step that holds the event is packed, but the count/existence/list line is not.
    assert answer(query, QueryEvidence((packed(RICH, "found"),))) is None
    assert answer(query, QueryEvidence()) is None


# ---------------------------------------------------------------------------------------------- formats


@pytest.mark.parametrize("value,text", [(7, "7"), (7.0, "7"), (-2.0, "-2"), (0.25, "0.25"), (1e-07, "1e-07"),
                                        (True, "true"), (False, "false"), ("day", "day"), (0, "0")])
def test_format_scalar(value: Any, text: str):
    assert format_scalar(value) == text


@pytest.mark.parametrize(
    "raw,normal",
    [
        (" Step 412. ", "412"), ("t=412", "412"), ("timestep #412", "412"), ("at step 3", "3"),
        ("(3, 4)", "3,4"), ("3 , 4", "3,4"), ("7.0", "7"), ("-2.00", "-2"), ("Wood_Pickaxe", "wood pickaxe"),
        ("The forest", "forest"), ("a  table!", "table"), ('"yes"', "yes"), (None, ""),
    ],
)
def test_normalize_answer(raw: str | None, normal: str):
    assert normalize_answer(raw) == normal


def test_answers_match():
    assert answers_match("412", "Step 412")
    assert answers_match("wood pickaxe", "wood_pickaxe")
    assert answers_match("(3,4)", "3, 4")
    assert not answers_match("41", "412")
    assert not answers_match(None, "412")
    assert not answers_match(None, "")  # no answer matches nothing, not even an empty gold
    assert not answers_match("wood, sapling", "sapling, wood")  # order matters unless as_set
    assert answers_match("Wood, sapling", "sapling, wood", as_set=True)
    assert answers_match("the wood,sapling", "sapling , wood", as_set=True)
    assert not answers_match("wood", "sapling, wood", as_set=True)
    assert not answers_match("wood, sapling, stone", "sapling, wood", as_set=True)
