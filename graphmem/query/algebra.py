"""The trajectory query algebra: typed, composable questions about an agent's episode.

A question has two parts: *anchors*, expressions that each name one step of the episode, and a *question
node* that says what to answer about them. Anchors compose: an occurrence may be restricted to a window
whose ends are other anchors, and any anchor may be shifted by a number of steps.

Anchors (each resolves to one step index ``t``, or to nothing):

==================== ===============================================================================
``StepAt(t)``        the step with index ``t``
``Occurrence``       the n-th (1-based; -1 last, -2 second to last) event matching a pattern, within an
                     optional window
``Reached``          the n-th step at which an inventory or state value *comes to meet* a condition
                     (it did not after the previous step), within an optional window
``Shifted``          another anchor moved by ``steps`` (negative: earlier)
==================== ===============================================================================

A ``Window`` is bounded by two optional anchors, each end inclusive or not: "after I entered A3" is
``Window(start=<visit A3>, include_start=False)``, "in the first 50 steps" is
``Window(end=StepAt(49))``.

Questions (and the answer each gives, as :mod:`graphmem.query.answers` formats it):

================ ======================================== =========================================
``Read``         a field of the anchor's step              action, step, location, position, item,
                                                           inventory, state, facing, observation, events
``Count``        matching events in a window               ``"5"``
``CountSteps``   steps in a window with an action, a       ``"54"``
                 region, or a condition holding after them
``Exists``       whether an event or a condition occurs    ``"yes"`` / ``"no"``
``WhichFirst``   which of two anchors comes first          the earlier one's label (``"place table"``)
``Precedes``     whether one anchor comes before another   ``"yes"`` / ``"no"``
``Distance``     steps from one anchor to the other        ``"37"`` (always >= 0)
``ListEvents``   the distinct objects of matching events   ``"wood, sapling"`` in order of first event
================ ======================================== =========================================

>>> wood = EventPattern("collect", "wood")
>>> q = Read(Shifted(Occurrence(wood, 3), 2), "action")   # two steps after the third wood collected
>>> q.anchors()
(Shifted(anchor=Occurrence(pattern=EventPattern(kind='collect', obj='wood'), ordinal=3, window=None), steps=2),)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

Scalar = int | float | str | bool

#: ``object``: what the anchor's event was done to ("what did I pick up first": the object of that pick-up),
#: else what the step acted on (``facing``).
ReadSlot = Literal["action", "step", "location", "position", "item", "inventory", "state", "facing", "object", "observation", "events"]
READ_SLOTS: tuple[str, ...] = get_args(ReadSlot)
Comparison = Literal["==", "!=", "<", "<=", ">", ">="]
COMPARISONS: tuple[str, ...] = get_args(Comparison)
Source = Literal["inventory", "state"]
SOURCES: tuple[str, ...] = get_args(Source)
#: The fields of a step a ``StepIs`` tests: what the agent did, where it was.
StepField = Literal["action", "region"]
STEP_FIELDS: tuple[str, ...] = get_args(StepField)

#: Largest step index or offset a query may name: Neo4j integers are 64-bit, and bounds get +-1.
MAX_STEP = 2**62


class QueryError(ValueError):
    """A query is malformed: the message names the node and the field."""


def _check_int(value: object, where: str, name: str, lo: int = -MAX_STEP, hi: int = MAX_STEP) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"{where}: {name} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise QueryError(f"{where}: {name} must be within [{lo}, {hi}], got {value}")
    return value


def _check_name(value: object, where: str, name: str, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value.strip() or len(value) > 512:
        raise QueryError(f"{where}: {name} must be non-empty text of at most 512 characters, got {value!r}")


@dataclass(frozen=True)
class EventPattern:
    """Events of a kind and/or an object; ``None`` matches any, ``""`` (obj) only an event without one.

    >>> EventPattern("place").label(), EventPattern("collect", "wood").label()
    ('place', 'collect wood')
    """

    kind: str | None = None
    obj: str | None = None

    def __post_init__(self) -> None:
        _check_name(self.kind, "EventPattern", "kind", optional=True)
        if self.obj is not None and (not isinstance(self.obj, str) or len(self.obj) > 512):
            raise QueryError(f"EventPattern: obj must be text of at most 512 characters or None, got {self.obj!r}")
        if self.kind is None and not self.obj:
            raise QueryError("EventPattern: give a kind, an object or both")

    def label(self) -> str:
        return " ".join(part for part in (self.kind, self.obj) if part)

    def matches(self, kind: str, obj: str) -> bool:
        return (self.kind is None or self.kind == kind) and (self.obj is None or self.obj == obj)


@dataclass(frozen=True)
class Condition:
    """A test on one inventory item or state value after a step: ``Condition("inventory", "wood", "==", 0)``.

    Numbers compare with numbers (never booleans); text and booleans support only ``==`` and ``!=`` with
    values of their own type; any other pairing, or an absent state value, does not meet the condition.
    An absent inventory item counts 0.

    >>> Condition("inventory", "stone", ">=", 4).holds(5), Condition("state", "stage", "==", "boil").holds(3)
    (True, False)
    """

    source: Source
    name: str
    cmp: Comparison
    value: Scalar

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise QueryError(f"Condition: source must be one of {SOURCES}, got {self.source!r}")
        _check_name(self.name, "Condition", "name")
        if self.cmp not in COMPARISONS:
            raise QueryError(f"Condition: cmp must be one of {COMPARISONS}, got {self.cmp!r}")
        if not isinstance(self.value, (int, float, str, bool)):
            raise QueryError(f"Condition: value must be a number, text or bool, got {self.value!r}")
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise QueryError(f"Condition: value must be finite, got {self.value!r}")
        if isinstance(self.value, (str, bool)) and self.cmp not in ("==", "!="):
            raise QueryError(f"Condition: {type(self.value).__name__} values take only == and !=, got {self.cmp!r}")

    def holds(self, actual: Scalar | None) -> bool:
        """Whether a value meets the condition (``None``: the value is absent)."""
        if actual is None and self.source == "inventory":
            actual = 0
        return compare(actual, self.cmp, self.value)

    def label(self) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"{self.name} {self.cmp} {value}"

    def negated(self) -> Condition:
        """The condition that holds exactly when this one does not (for values of a comparable type)."""
        flip = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
        return Condition(self.source, self.name, flip[self.cmp], self.value)  # type: ignore[arg-type]


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def compare(actual: Scalar | None, cmp: str, value: Scalar) -> bool:
    """The comparison both stores implement (see :class:`Condition`).

    >>> compare(3, ">=", 3), compare("3", "==", 3), compare(True, "==", 1), compare(None, "!=", 1)
    (True, False, False, False)
    """
    if actual is None:
        return False
    if _number(actual) and _number(value):
        a, b = float(actual), float(value)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[cmp]
    if type(actual) is type(value) and isinstance(actual, (str, bool)) and cmp in ("==", "!="):
        return (actual == value) == (cmp == "==")
    return False


@dataclass(frozen=True)
class StepAt:
    """The step with index ``t``."""

    t: int

    def __post_init__(self) -> None:
        _check_int(self.t, "StepAt", "t", lo=0)


@dataclass(frozen=True)
class Window:
    """Steps between two anchors (either may be open); each end inclusive unless said otherwise."""

    start: Anchor | None = None
    end: Anchor | None = None
    include_start: bool = True
    include_end: bool = True

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, ANCHOR_TYPES):
                raise QueryError(f"Window: {name} must be an anchor or None, got {type(value).__name__}")
        for name in ("include_start", "include_end"):
            if not isinstance(getattr(self, name), bool):
                raise QueryError(f"Window: {name} must be a bool")

    def held(self) -> Condition | None:
        """The condition whose steps this window spans (a ``held_span``: "in game 3"), else None."""
        start = self.start
        if isinstance(start, Reached) and start.at == "start" and self == held_span(start.condition):
            return start.condition
        return None


def held_span(held: Condition) -> Window:
    """The steps from the first at which ``held`` holds to the last ("in game 3": game == 3)."""
    return Window(Reached(held, 1, None, "start"), Reached(held, -1, None, "end"), True, True)


def _check_window(window: object, where: str) -> None:
    if window is not None and not isinstance(window, Window):
        raise QueryError(f"{where}: window must be a Window or None, got {type(window).__name__}")


@dataclass(frozen=True)
class Occurrence:
    """The ``ordinal``-th event matching ``pattern`` (1-based; -1 the last) within ``window``."""

    pattern: EventPattern
    ordinal: int = 1
    window: Window | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, EventPattern):
            raise QueryError(f"Occurrence: pattern must be an EventPattern, got {type(self.pattern).__name__}")
        if _check_int(self.ordinal, "Occurrence", "ordinal") == 0:
            raise QueryError("Occurrence: ordinal is 1-based (1 first, -1 last); 0 names nothing")
        _check_window(self.window, "Occurrence")


@dataclass(frozen=True)
class Reached:
    """A step of the ``ordinal``-th run of steps during which ``condition`` holds, within ``window``:
    its first step (``at="start"``: the step the condition comes to hold, "when did my health drop
    below 3") or its last (``at="end"``: "the last step at which my health was above 8" is the end of
    the last run).

    >>> Reached(Condition("state", "health", ">", 8), -1, at="end").at
    'end'
    """

    condition: Condition
    ordinal: int = 1
    window: Window | None = None
    at: Literal["start", "end"] = "start"

    def __post_init__(self) -> None:
        if not isinstance(self.condition, Condition):
            raise QueryError(f"Reached: condition must be a Condition, got {type(self.condition).__name__}")
        if _check_int(self.ordinal, "Reached", "ordinal") == 0:
            raise QueryError("Reached: ordinal is 1-based (1 first, -1 last); 0 names nothing")
        _check_window(self.window, "Reached")
        if self.at not in ("start", "end"):
            raise QueryError(f"Reached: at must be 'start' or 'end', got {self.at!r}")


@dataclass(frozen=True)
class Shifted:
    """``anchor`` moved by ``steps`` step indices (2: two steps after; -1: the step before)."""

    anchor: Anchor
    steps: int

    def __post_init__(self) -> None:
        if not isinstance(self.anchor, ANCHOR_TYPES):
            raise QueryError(f"Shifted: anchor must be an anchor, got {type(self.anchor).__name__}")
        _check_int(self.steps, "Shifted", "steps")


Anchor = StepAt | Occurrence | Reached | Shifted
ANCHOR_TYPES = (StepAt, Occurrence, Reached, Shifted)


def _check_anchor(value: object, where: str, name: str) -> None:
    if not isinstance(value, ANCHOR_TYPES):
        raise QueryError(f"{where}: {name} must be an anchor (StepAt, Occurrence, Reached, Shifted), got {type(value).__name__}")


@dataclass(frozen=True)
class Read:
    """A field of the anchor's step; ``name`` is the item (slot ``item``) or state name (slot ``state``)."""

    anchor: Anchor
    slot: ReadSlot
    name: str | None = None

    def __post_init__(self) -> None:
        _check_anchor(self.anchor, "Read", "anchor")
        if self.slot not in READ_SLOTS:
            raise QueryError(f"Read: slot must be one of {READ_SLOTS}, got {self.slot!r}")
        if self.slot in ("item", "state"):
            _check_name(self.name, "Read", "name")
        elif self.name is not None:
            raise QueryError(f"Read: slot {self.slot!r} takes no name")

    def anchors(self) -> tuple[Anchor, ...]:
        return (self.anchor,)


@dataclass(frozen=True)
class Count:
    """How many events match ``pattern`` within ``window`` (events, not their ``count`` field)."""

    pattern: EventPattern
    window: Window | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, EventPattern):
            raise QueryError("Count: pattern must be an EventPattern")
        _check_window(self.window, "Count")

    def anchors(self) -> tuple[Anchor, ...]:
        return ()


@dataclass(frozen=True)
class StepIs:
    """Steps whose ``action`` or ``region`` is ``value`` exactly: ``StepIs("action", "noop")``."""

    field: StepField
    value: str

    def __post_init__(self) -> None:
        if self.field not in STEP_FIELDS:
            raise QueryError(f"StepIs: field must be one of {STEP_FIELDS}, got {self.field!r}")
        _check_name(self.value, "StepIs", "value")

    def label(self) -> str:
        return f"{self.field} {self.value}"


@dataclass(frozen=True)
class CountSteps:
    """How many steps within ``window`` match: whose action or region is a value (``StepIs``), or after
    which a condition holds ("on how many steps was my health at or below 3"). Steps, not events: a step
    with two matching events counts once, and a condition counts every step it holds on, not the times
    it came to hold.

    >>> CountSteps(StepIs("region", "pond"), Window(start=StepAt(500), include_start=False)).what.label()
    'region pond'
    """

    what: StepIs | Condition
    window: Window | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.what, (StepIs, Condition)):
            raise QueryError("CountSteps: what must be a StepIs or a Condition")
        _check_window(self.window, "CountSteps")

    def anchors(self) -> tuple[Anchor, ...]:
        return ()


@dataclass(frozen=True)
class Exists:
    """Whether an event matching the pattern, or a step where the condition comes to hold, is in the window."""

    what: EventPattern | Condition
    window: Window | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.what, (EventPattern, Condition)):
            raise QueryError("Exists: what must be an EventPattern or a Condition")
        _check_window(self.window, "Exists")

    def anchors(self) -> tuple[Anchor, ...]:
        return ()


@dataclass(frozen=True)
class WhichFirst:
    """Which of two anchors comes first; the answer is its label (an occurrence's ``kind obj``)."""

    a: Anchor
    b: Anchor

    def __post_init__(self) -> None:
        _check_anchor(self.a, "WhichFirst", "a")
        _check_anchor(self.b, "WhichFirst", "b")

    def anchors(self) -> tuple[Anchor, ...]:
        return (self.a, self.b)


@dataclass(frozen=True)
class Distance:
    """How many steps lie from one anchor to the other (the absolute difference of their indices)."""

    a: Anchor
    b: Anchor

    def __post_init__(self) -> None:
        _check_anchor(self.a, "Distance", "a")
        _check_anchor(self.b, "Distance", "b")

    def anchors(self) -> tuple[Anchor, ...]:
        return (self.a, self.b)


@dataclass(frozen=True)
class Precedes:
    """Whether anchor ``a`` comes before anchor ``b`` ("was my first drink earlier than my last sleep?"):
    ``"yes"`` / ``"no"``, no answer when both are the same step."""

    a: Anchor
    b: Anchor

    def __post_init__(self) -> None:
        _check_anchor(self.a, "Precedes", "a")
        _check_anchor(self.b, "Precedes", "b")

    def anchors(self) -> tuple[Anchor, ...]:
        return (self.a, self.b)


@dataclass(frozen=True)
class ListEvents:
    """The distinct objects of the events matching ``pattern`` within ``window``, in order of first event."""

    pattern: EventPattern
    window: Window | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, EventPattern):
            raise QueryError("ListEvents: pattern must be an EventPattern")
        _check_window(self.window, "ListEvents")

    def anchors(self) -> tuple[Anchor, ...]:
        return ()


Query = Read | Count | CountSteps | Exists | WhichFirst | Precedes | Distance | ListEvents
QUERY_TYPES = (Read, Count, CountSteps, Exists, WhichFirst, Precedes, Distance, ListEvents)


def anchor_label(anchor: Anchor) -> str:
    """A short label of what an anchor names, as a which-first answer gives it.

    >>> anchor_label(Occurrence(EventPattern("place", "table"), 2)), anchor_label(StepAt(40))
    ('place table', 'step 40')
    """
    if isinstance(anchor, Occurrence):
        return anchor.pattern.label()
    if isinstance(anchor, Reached):
        return anchor.condition.label()
    if isinstance(anchor, StepAt):
        return f"step {anchor.t}"
    return anchor_label(anchor.anchor)


def window_of(query: Query) -> Window | None:
    """The window a query ranges over (``None`` for anchor questions and whole-episode ones)."""
    return query.window if isinstance(query, (Count, CountSteps, Exists, ListEvents)) else None
