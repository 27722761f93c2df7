"""The query algebra's nodes validate what they are built from (a QueryError naming the node and the field),
compare values as both stores do, and tell when a condition holds."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest

from graphmem.query.algebra import (
    MAX_STEP,
    Condition,
    Count,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    QueryError,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
    anchor_label,
    compare,
    window_of,
)

WOOD = EventPattern("collect", "wood")
LOW_HEALTH = Condition("state", "health", "<", 3)


# ---------------------------------------------------------------------------------------------- validation

def call(cls: Any, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    """Building ``cls`` from these arguments, later (the arguments are wrong on purpose: untyped)."""
    return lambda: cls(*args, **kwargs)


BAD: list[tuple[str, Callable[[], Any], str]] = [
    # (case, the bad construction, text the message must contain)
    ("step_at negative", call(StepAt, -1), "StepAt: t"),
    ("step_at bool", call(StepAt, True), "StepAt: t must be an integer"),
    ("step_at float", call(StepAt, 3.0), "StepAt: t must be an integer"),
    ("step_at text", call(StepAt, "3"), "StepAt: t must be an integer"),
    ("step_at too large", call(StepAt, MAX_STEP + 1), "StepAt: t must be within"),
    ("pattern empty", call(EventPattern), "EventPattern: give a kind, an object or both"),
    ("pattern only empty obj", call(EventPattern, None, ""), "EventPattern: give a kind"),
    ("pattern blank kind", call(EventPattern, "  ", "wood"), "EventPattern: kind"),
    ("pattern int kind", call(EventPattern, 3, "wood"), "EventPattern: kind"),
    ("pattern long kind", call(EventPattern, "x" * 513), "EventPattern: kind"),
    ("pattern int obj", call(EventPattern, "collect", 5), "EventPattern: obj"),
    ("pattern long obj", call(EventPattern, "collect", "x" * 513), "EventPattern: obj"),
    ("condition source", call(Condition, "memory", "wood", "==", 1), "Condition: source"),
    ("condition blank name", call(Condition, "state", "", "==", 1), "Condition: name"),
    ("condition name not text", call(Condition, "state", 7, "==", 1), "Condition: name"),
    ("condition cmp", call(Condition, "state", "hp", "=", 1), "Condition: cmp"),
    ("condition value list", call(Condition, "state", "hp", "==", [1]), "Condition: value"),
    ("condition value None", call(Condition, "state", "hp", "==", None), "Condition: value"),
    ("condition value NaN", call(Condition, "state", "hp", "<", math.nan), "Condition: value must be finite"),
    ("condition value inf", call(Condition, "inventory", "wood", ">", math.inf), "Condition: value must be finite"),
    ("condition text value with <", call(Condition, "state", "stage", "<", "boil"), "Condition: str values take only == and !="),
    ("condition bool value with >=", call(Condition, "state", "lit", ">=", True), "Condition: bool values take only == and !="),
    ("window start not an anchor", call(Window, start=3), "Window: start must be an anchor"),
    ("window end a pattern", call(Window, end=WOOD), "Window: end must be an anchor"),
    ("window include_start not bool", call(Window, include_start=1), "Window: include_start must be a bool"),
    ("window include_end not bool", call(Window, include_end="no"), "Window: include_end must be a bool"),
    ("occurrence ordinal 0", call(Occurrence, WOOD, 0), "Occurrence: ordinal is 1-based"),
    ("occurrence ordinal bool", call(Occurrence, WOOD, True), "Occurrence: ordinal must be an integer"),
    ("occurrence ordinal float", call(Occurrence, WOOD, 1.0), "Occurrence: ordinal must be an integer"),
    ("occurrence ordinal too small", call(Occurrence, WOOD, -MAX_STEP - 1), "Occurrence: ordinal must be within"),
    ("occurrence pattern text", call(Occurrence, "collect wood"), "Occurrence: pattern must be an EventPattern"),
    ("occurrence window dict", call(Occurrence, WOOD, 1, {"start": None}), "Occurrence: window must be a Window"),
    ("reached ordinal 0", call(Reached, LOW_HEALTH, 0), "Reached: ordinal is 1-based"),
    ("reached condition pattern", call(Reached, WOOD), "Reached: condition must be a Condition"),
    ("reached window anchor", call(Reached, LOW_HEALTH, 1, StepAt(3)), "Reached: window must be a Window"),
    ("shifted anchor pattern", call(Shifted, WOOD, 2), "Shifted: anchor must be an anchor"),
    ("shifted steps bool", call(Shifted, StepAt(3), False), "Shifted: steps must be an integer"),
    ("shifted steps float", call(Shifted, StepAt(3), 1.5), "Shifted: steps must be an integer"),
    ("read anchor pattern", call(Read, WOOD, "step"), "Read: anchor must be an anchor"),
    ("read unknown slot", call(Read, StepAt(3), "health"), "Read: slot must be one of"),
    ("read item without name", call(Read, StepAt(3), "item"), "Read: name"),
    ("read state without name", call(Read, StepAt(3), "state"), "Read: name"),
    ("read state blank name", call(Read, StepAt(3), "state", " "), "Read: name"),
    ("read action with name", call(Read, StepAt(3), "action", "wood"), "Read: slot 'action' takes no name"),
    ("read inventory with name", call(Read, StepAt(3), "inventory", "wood"), "Read: slot 'inventory' takes no name"),
    ("count pattern text", call(Count, "wood"), "Count: pattern must be an EventPattern"),
    ("count window anchor", call(Count, WOOD, StepAt(4)), "Count: window must be a Window"),
    ("list pattern condition", call(ListEvents, LOW_HEALTH), "ListEvents: pattern must be an EventPattern"),
    ("list window text", call(ListEvents, WOOD, "all"), "ListEvents: window must be a Window"),
    ("exists what anchor", call(Exists, StepAt(3)), "Exists: what must be an EventPattern or a Condition"),
    ("exists window anchor", call(Exists, WOOD, StepAt(3)), "Exists: window must be a Window"),
    ("which_first a pattern", call(WhichFirst, WOOD, StepAt(3)), "WhichFirst: a must be an anchor"),
    ("which_first b None", call(WhichFirst, StepAt(3), None), "WhichFirst: b must be an anchor"),
    ("distance a int", call(Distance, 3, StepAt(3)), "Distance: a must be an anchor"),
    ("distance b condition", call(Distance, StepAt(3), LOW_HEALTH), "Distance: b must be an anchor"),
]


@pytest.mark.parametrize("build,message", [(b, m) for _, b, m in BAD], ids=[case for case, _, _ in BAD])
def test_constructors_reject_bad_input_naming_the_field(build: Any, message: str):
    with pytest.raises(QueryError) as raised:
        build()
    assert message in str(raised.value)


def test_query_error_is_a_value_error():
    # Callers that catch ValueError for bad arguments catch malformed queries too.
    with pytest.raises(ValueError):
        StepAt(-3)


GOOD = [
    StepAt(0),
    StepAt(MAX_STEP),
    EventPattern("sleep", ""),
    EventPattern(None, "wood"),
    EventPattern("collect"),
    Condition("inventory", "wood", ">=", 0.5),
    Condition("state", "stage", "!=", "boil"),
    Condition("state", "lit", "==", False),
    Occurrence(WOOD, -MAX_STEP),
    Occurrence(WOOD, 2, Window(StepAt(1), Occurrence(EventPattern("place", "table")), False, False)),
    Reached(LOW_HEALTH, -1, Window(end=StepAt(9))),
    Shifted(Shifted(StepAt(5), -2), 7),
    Read(StepAt(3), "item", "wood"),
    Read(StepAt(3), "state", "health"),
    Count(WOOD, Window()),
    Exists(LOW_HEALTH),
    ListEvents(EventPattern("collect")),
    WhichFirst(StepAt(1), Reached(LOW_HEALTH)),
    Distance(Occurrence(WOOD), Shifted(StepAt(2), 1)),
]


@pytest.mark.parametrize("node", GOOD, ids=[type(n).__name__ for n in GOOD])
def test_valid_nodes_build_and_are_hashable_values(node: Any):
    twin = dataclasses.replace(node)
    assert twin == node and twin is not node and hash(twin) == hash(node)
    with pytest.raises(AttributeError):
        node.__setattr__(next(iter(node.__dataclass_fields__)), None)  # frozen


def test_nodes_compose_and_report_their_anchors():
    a, b = Occurrence(WOOD, 3), Shifted(StepAt(4), 2)
    assert Read(a, "step").anchors() == (a,)
    assert WhichFirst(a, b).anchors() == (a, b)
    assert Distance(b, a).anchors() == (b, a)
    assert Count(WOOD).anchors() == () == Exists(WOOD).anchors() == ListEvents(WOOD).anchors()
    window = Window(start=a)
    assert window_of(Count(WOOD, window)) is window
    assert window_of(ListEvents(WOOD, window)) is window and window_of(Exists(LOW_HEALTH, window)) is window
    assert window_of(Read(a, "step")) is None and window_of(Distance(a, b)) is None


def test_labels():
    assert EventPattern("place").label() == "place"
    assert EventPattern(None, "wood").label() == "wood"
    assert EventPattern("sleep", "").label() == "sleep"
    assert Condition("state", "lit", "==", True).label() == "lit == true"
    assert Condition("inventory", "wood", ">=", 4).label() == "wood >= 4"
    assert anchor_label(Occurrence(WOOD, -1)) == "collect wood"
    assert anchor_label(Reached(LOW_HEALTH)) == "health < 3"
    assert anchor_label(StepAt(40)) == "step 40"
    assert anchor_label(Shifted(Shifted(Occurrence(WOOD), 1), 2)) == "collect wood"


def test_pattern_matching():
    assert WOOD.matches("collect", "wood") and not WOOD.matches("collect", "stone")
    assert EventPattern("collect").matches("collect", "stone") and EventPattern("collect").matches("collect", "")
    assert EventPattern(None, "wood").matches("gain", "wood") and not EventPattern(None, "wood").matches("gain", "")
    # "" as the object matches only events without one
    assert EventPattern("sleep", "").matches("sleep", "") and not EventPattern("sleep", "").matches("sleep", "bed")


# ---------------------------------------------------------------------------------------------- compare

COMPARE = [
    # numbers with numbers, ints and floats alike
    (3, "==", 3, True), (3, "==", 3.0, True), (3.5, ">", 3, True), (2, ">=", 2, True), (2, ">", 2, False),
    (1, "<", 2, True), (2, "<=", 2.0, True), (4, "!=", 4, False), (4, "!=", 5, True), (-1, "<", 0, True),
    # booleans are never numbers
    (True, "==", 1, False), (1, "==", True, False), (False, "!=", 0, False), (True, ">", 0, False),
    # booleans with booleans: == and != only
    (True, "==", True, True), (False, "!=", True, True), (True, "!=", True, False),
    # text with text: == and != only, exact
    ("boil", "==", "boil", True), ("boil", "!=", "melt", True), ("Boil", "==", "boil", False),
    ("b", "<", "c", False), ("c", ">=", "c", False),
    # mixed types never meet
    ("3", "==", 3, False), (3, "!=", "3", False), ("true", "==", True, False),
    # an absent value never meets anything, even !=
    (None, "==", 0, False), (None, "!=", 1, False), (None, "<", 5, False),
]


@pytest.mark.parametrize("actual,cmp,value,expected", COMPARE)
def test_compare(actual: Any, cmp: str, value: Any, expected: bool):
    assert compare(actual, cmp, value) is expected


# ---------------------------------------------------------------------------------------------- Condition.holds

HOLDS = [
    (Condition("inventory", "wood", "==", 0), None, True),  # an absent item counts 0
    (Condition("inventory", "wood", "<", 1), None, True),
    (Condition("inventory", "wood", ">=", 1), None, False),
    (Condition("inventory", "wood", ">=", 4), 4, True),
    (Condition("inventory", "wood", ">", 4), 4, False),
    (Condition("inventory", "wood", "!=", 0), 2, True),
    (Condition("state", "health", "==", 0), None, False),  # an absent state value meets nothing
    (Condition("state", "health", "!=", 0), None, False),
    (Condition("state", "health", "<", 3), 2, True),
    (Condition("state", "health", "<", 3), 2.99, True),
    (Condition("state", "health", "<", 3), 3.0, False),
    (Condition("state", "health", "<=", 2.5), 2, True),
    (Condition("state", "stage", "==", "boil"), "boil", True),
    (Condition("state", "stage", "==", "boil"), 3, False),
    (Condition("state", "stage", "!=", "boil"), "melt", True),
    (Condition("state", "stage", "!=", "boil"), 3, False),  # other types do not meet != either
    (Condition("state", "lit", "==", True), True, True),
    (Condition("state", "lit", "==", True), 1, False),
    (Condition("state", "lit", "!=", True), False, True),
]


@pytest.mark.parametrize("condition,actual,expected", HOLDS, ids=[f"{c.label()}@{a!r}" for c, a, _ in HOLDS])
def test_condition_holds(condition: Condition, actual: Any, expected: bool):
    assert condition.holds(actual) is expected
