"""Domain records: what callers and loaders hand to graphmem.

Records are frozen dataclasses. They are validated once, here, at the boundary (``validate_*``);
the rest of the code trusts them. Mappings given by callers (inventory, state) are normalized to
sorted tuples of pairs so that records stay hashable and compare by value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Union

from graphmem.errors import InvalidRecordError

Scalar = Union[int, float, str, bool]

#: Suggested event kinds. ``Event.kind`` is any short phrase (see :func:`normalize_kind`); loaders use
#: these where they fit so that memories of different environments share words, and invent their own
#: ("respawn", "run test", "call tool") where they do not. Questions match whatever kinds a memory holds.
EVENT_KINDS: frozenset[str] = frozenset(
    {
        "collect",  # took an item from the world (wood, stone, sapling, a key from a table)
        "make",  # crafted/cooked/built an item in the inventory (wood pickaxe)
        "place",  # put something into the world (table, furnace, plant, stone)
        "eat",
        "drink",
        "defeat",  # killed/defeated a creature
        "gain",  # inventory count went up (any cause)
        "lose",  # inventory count went down (dropped, given away)
        "consume",  # inventory spent as a cost of making/placing
        "use",  # used an item on something (open door with key)
        "visit",  # entered a place/room/region
        "achievement",  # an environment achievement unlocked
        "damage",  # health went down
        "die",
        "sleep",
        "wake",
        "open",
        "close",
        "move",  # moved an object (put X in Y)
        "observe",  # noticed/looked at something decisive (science experiments)
        "plan",  # dialogue: a stated plan
        "appointment",  # dialogue: an appointment
    }
)


#: Longest event kind: a short verb phrase, not a sentence.
MAX_KIND_CHARS = 64
_KIND_CHARS = re.compile(r"^[^\W_](?:[\w' -]*[^\W_])?$")


def normalize_kind(kind: str) -> str:
    """An event kind as stored: lower case, single spaces, underscores as spaces.

    >>> normalize_kind("  Run_Test "), normalize_kind("Enter  Room")
    ('run test', 'enter room')
    """
    return " ".join(kind.replace("_", " ").lower().split())


@dataclass(frozen=True)
class Event:
    """A typed occurrence inside one step: ``Event("collect", "wood", 1)``.

    ``kind`` is any short phrase (letters, digits, spaces, hyphens, apostrophes; at most 64 characters),
    stored normalized (``"Run_Test"`` is ``"run test"``); :data:`EVENT_KINDS` lists suggested ones.
    """

    kind: str
    obj: str = ""
    count: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.kind, str):
            object.__setattr__(self, "kind", normalize_kind(self.kind))


@dataclass(frozen=True)
class Relation:
    """A relation the agent observed or acted on: ``Relation("agent", "facing", "tree")``."""

    subject: str
    predicate: str
    obj: str


@dataclass(frozen=True)
class Location:
    """Where the agent was after a step: grid position, region/room, and what is underfoot."""

    position: tuple[int, int] | None = None
    region: str = ""
    underfoot: str = ""

    def describe(self) -> str:
        parts = []
        if self.region:
            parts.append(self.region)
        if self.position is not None:
            parts.append(f"({self.position[0]},{self.position[1]})")
        if self.underfoot and self.underfoot != self.region:
            parts.append(f"on {self.underfoot}")
        return " ".join(parts)


def _pairs(value: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))


@dataclass(frozen=True)
class Step:
    """One agent step (S3Mem's structured unit).

    ``inventory`` and ``state`` hold the values *after* the step; pass a dict, it is stored as sorted
    pairs. ``source_id`` of a step is ``f"{episode_id}:{t}"``.

    >>> step = Step(0, "collect wood", events=(Event("collect", "wood"),), inventory={"wood": 1, "sapling": 2})
    >>> step.inventory, step.inventory_dict["wood"]
    ((('sapling', 2), ('wood', 1)), 1)
    """

    t: int
    action: str
    summary: str = ""
    objects: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()
    relations: tuple[Relation, ...] = ()
    inventory: tuple[tuple[str, int], ...] = ()
    state: tuple[tuple[str, Scalar], ...] = ()
    location: Location = field(default_factory=Location)
    observation: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "inventory", _pairs(self.inventory))  # type: ignore[arg-type]
        object.__setattr__(self, "state", _pairs(self.state))  # type: ignore[arg-type]
        object.__setattr__(self, "objects", tuple(self.objects))
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "relations", tuple(self.relations))

    @property
    def inventory_dict(self) -> dict[str, int]:
        return dict(self.inventory)

    @property
    def state_dict(self) -> dict[str, Scalar]:
        return dict(self.state)


@dataclass(frozen=True)
class Turn:
    """One dialogue utterance. ``id`` is the caller's own id and comes back as ``source_id``.

    >>> Turn("D1:3", "Caroline", "I went to the support group yesterday.")
    Turn(id='D1:3', speaker='Caroline', text='I went to the support group yesterday.', image_caption=None)
    """

    id: str
    speaker: str
    text: str
    image_caption: str | None = None


# --------------------------------------------------------------------------------------------------
# Validation at the boundary. Each function raises InvalidRecordError naming the record and field.
# --------------------------------------------------------------------------------------------------


def validate_id(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(where, name, f"must be a non-empty string, got {value!r}")
    if len(value) > 512:
        raise InvalidRecordError(where, name, "is longer than 512 characters")
    return value


def validate_datetime(value: Any, where: str, name: str) -> datetime:
    """Accept an aware or naive datetime (naive means UTC); return it aware in UTC."""
    if not isinstance(value, datetime):
        raise InvalidRecordError(where, name, f"must be a datetime, got {type(value).__name__}")
    if not 1 < value.year < 9999:
        # Recall computes with days around every time (session intervals, a week either side).
        raise InvalidRecordError(where, name, f"must be within the years 2 to 9998, got {value.isoformat()}")
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def validate_turns(turns: Sequence[Turn], where: str) -> tuple[Turn, ...]:
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise InvalidRecordError(where, "turns", "must be a list of Turn")
    if not turns:
        raise InvalidRecordError(where, "turns", "a session needs at least one turn")
    seen: set[str] = set()
    for i, turn in enumerate(turns):
        here = f"{where}, turn #{i}"
        if not isinstance(turn, Turn):
            raise InvalidRecordError(here, "turn", f"must be a Turn, got {type(turn).__name__}")
        validate_id(turn.id, here, "id")
        here = f"{where}, turn {turn.id!r}"
        if turn.id in seen:
            raise InvalidRecordError(here, "id", "appears twice in the session")
        seen.add(turn.id)
        validate_id(turn.speaker, here, "speaker")
        if not isinstance(turn.text, str) or not turn.text.strip():
            raise InvalidRecordError(here, "text", "must be non-empty text")
        if turn.image_caption is not None and not isinstance(turn.image_caption, str):
            raise InvalidRecordError(here, "image_caption", "must be a string or None")
    return tuple(turns)


#: Largest step index: Neo4j integers are 64-bit, and queries bound windows at t +- 1.
MAX_STEP_INDEX = 2**62
#: Integers both backends store alike (Neo4j's 64-bit range).
MIN_INT, MAX_INT = -(2**63), 2**63 - 1


def _in_range(value: int, lo: int = MIN_INT, hi: int = MAX_INT) -> bool:
    return lo <= value <= hi


def _check_scalar(value: Any, here: str, name: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not _in_range(value):
        raise InvalidRecordError(here, name, f"is outside the 64-bit integer range, got {value}")
    if isinstance(value, bool) or isinstance(value, (int, str)):
        return
    if isinstance(value, float) and math.isfinite(value):
        return
    raise InvalidRecordError(here, name, f"must be a finite number, text or bool, got {value!r}")


def validate_step(step: Any, where: str) -> Step:
    if not isinstance(step, Step):
        raise InvalidRecordError(where, "step", f"must be a Step, got {type(step).__name__}")
    if isinstance(step.t, bool) or not isinstance(step.t, int) or step.t < 0:
        raise InvalidRecordError(where, "t", f"must be a non-negative int, got {step.t!r}")
    if step.t > MAX_STEP_INDEX:
        raise InvalidRecordError(where, "t", f"must be at most 2**62 ({MAX_STEP_INDEX}), got {step.t}")
    here = f"{where} (t={step.t})"
    if not isinstance(step.action, str) or not step.action.strip():
        raise InvalidRecordError(here, "action", "must be non-empty text")
    if not isinstance(step.summary, str):
        raise InvalidRecordError(here, "summary", "must be text")
    for obj in step.objects:
        if not isinstance(obj, str) or not obj:
            raise InvalidRecordError(here, "objects", f"holds a non-text or empty object {obj!r}")
    for ev in step.events:
        if not isinstance(ev, Event):
            raise InvalidRecordError(here, "events", f"holds a non-Event {ev!r}")
        if not isinstance(ev.kind, str) or not ev.kind:
            raise InvalidRecordError(here, "events", f"event kind must be non-empty text, got {ev.kind!r}")
        if len(ev.kind) > MAX_KIND_CHARS or not _KIND_CHARS.match(ev.kind):
            raise InvalidRecordError(
                here, "events", f"event kind {ev.kind[:80]!r} must be a short phrase of letters, digits, spaces, "
                f"hyphens or apostrophes, at most {MAX_KIND_CHARS} characters (e.g. 'collect', 'run test')"
            )
        if not isinstance(ev.obj, str):
            raise InvalidRecordError(here, "events", f"event object must be text, got {ev.obj!r}")
        if isinstance(ev.count, bool) or not isinstance(ev.count, int) or not _in_range(ev.count, 0):
            raise InvalidRecordError(here, "events", f"event count must be a non-negative 64-bit int, got {ev.count!r}")
    for rel in step.relations:
        if not isinstance(rel, Relation) or not all(isinstance(x, str) and x for x in (rel.subject, rel.predicate, rel.obj)):
            raise InvalidRecordError(here, "relations", f"holds an invalid relation {rel!r}")
    for name, count in step.inventory:
        if not name or isinstance(count, bool) or not isinstance(count, int) or not _in_range(count, 0):
            raise InvalidRecordError(here, "inventory", f"{name!r} must map to a non-negative int, got {count!r}")
    for name, value in step.state:
        _check_scalar(value, here, f"state.{name}")
    if not isinstance(step.location, Location):
        raise InvalidRecordError(here, "location", "must be a Location")
    pos = step.location.position
    if pos is not None and (len(pos) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and _in_range(v) for v in pos)):
        raise InvalidRecordError(here, "location.position", f"must be a pair of ints, got {pos!r}")
    return step


def validate_steps(steps: Sequence[Step], where: str) -> tuple[Step, ...]:
    """Validate a batch: each step well-formed, indices strictly increasing and unique."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise InvalidRecordError(where, "steps", "must be a list of Step")
    if not steps:
        raise InvalidRecordError(where, "steps", "needs at least one step")
    previous: int | None = None
    for i, step in enumerate(steps):
        validate_step(step, f"{where}, step #{i}")
        if previous is not None and step.t <= previous:
            problem = "duplicate step index" if step.t == previous else f"out of order (after t={previous})"
            raise InvalidRecordError(f"{where}, step #{i} (t={step.t})", "t", problem)
        previous = step.t
    return tuple(steps)
