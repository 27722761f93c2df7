"""Domain records: what callers and loaders hand to graphmem.

Records are frozen dataclasses. They are validated once, here, at the boundary (``validate_*``);
the rest of the code trusts them. Mappings given by callers (inventory, state) are normalized to
sorted tuples of pairs so that records stay hashable and compare by value. A constructor given a
container of the wrong shape (``objects="wood"``, ``events=Event(...)``, ``None`` for a tuple, a
non-text inventory name) raises ``InvalidRecordError`` naming the record and the field; every value is
checked when the record is written: its type and range, valid Unicode (a lone surrogate is refused, not
replaced) and the size limits below.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphmem.errors import InvalidRecordError

Scalar = int | float | str | bool

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


#: Size limits, in characters, that both backends honour alike (README, "Limits"). Ids and names become
#: node keys and range-index entries, which Neo4j caps at about 8 KB a key: at these lengths even text of
#: 4-byte characters fits. Texts are stored and full-text indexed whole.
#: Ids: namespaces, episode, session and turn ids, speakers.
MAX_ID_CHARS = 512
#: Names: objects, event objects, relation parts, inventory and state names, regions, what is underfoot.
MAX_NAME_CHARS = 256
#: Longest event kind: a short verb phrase, not a sentence.
MAX_KIND_CHARS = 64
#: Texts: a step's action, summary and observation, a text state value, a turn's text and image caption.
MAX_TEXT_CHARS = 100_000
_KIND_CHARS = re.compile(r"^[^\W_](?:[\w' -]*[^\W_])?$")
#: A lone surrogate: the one thing a Python string can hold that is not Unicode text (UTF-8 cannot encode it).
_SURROGATE = re.compile("[\ud800-\udfff]")


def short(value: Any, limit: int = 60) -> str:
    """A value as an error message shows it: its repr, cut to ``limit`` characters.

    >>> short("x" * 100, 12)
    "'xxxxxxxx..."
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 96:
        return f"an integer of {value.bit_length():,} bits"
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print, inside a container
        text = f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unicode_problem(text: str) -> str | None:
    r"""Why ``text`` is not valid Unicode (a lone surrogate, which neither backend can store), or None.

    >>> unicode_problem("wood"), unicode_problem("wo\ud800od")
    (None, 'is not valid Unicode: a lone surrogate (U+D800) at index 2')
    """
    bad = _SURROGATE.search(text)
    if bad is None:
        return None
    return f"is not valid Unicode: a lone surrogate (U+{ord(bad.group()):04X}) at index {bad.start()}"


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

    def __post_init__(self) -> None:
        if isinstance(self.position, list):
            object.__setattr__(self, "position", tuple(self.position))

    def describe(self) -> str:
        parts = []
        if self.region:
            parts.append(self.region)
        if self.position is not None:
            parts.append(f"({self.position[0]},{self.position[1]})")
        if self.underfoot and self.underfoot != self.region:
            parts.append(f"on {self.underfoot}")
        return " ".join(parts)


def _record(name: str, t: Any) -> str:
    return f"{name}(t={short(t, 30)})"


def _items(value: Any, where: str, field_name: str, kind: type) -> tuple[Any, ...]:
    """A tuple field given as any list or tuple (or another iterable) as a tuple; a bare string, a mapping,
    a single record or None is an ``InvalidRecordError``, not a tuple of its characters or a TypeError."""
    if isinstance(value, tuple):
        return value
    if value is None or isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        hint = f"; for one, give ({short(value)},)" if isinstance(value, kind) else ""
        raise InvalidRecordError(
            where, field_name, f"must be a tuple or list of {kind.__name__}, got {type(value).__name__} {short(value)}{hint}"
        )
    return tuple(value)


def _pairs(value: Any, where: str, field_name: str) -> tuple[tuple[str, Any], ...]:
    """A mapping (or pairs, or None: empty) as sorted ``(name, value)`` pairs; names must be text, once each."""
    if value is None:
        return ()
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidRecordError(where, field_name, f"must be a dict of names to values, got {type(value).__name__} {short(value)}")
    else:
        items = []
        for item in value:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise InvalidRecordError(where, field_name, f"must be a dict or (name, value) pairs, got the item {short(item)}")
            items.append((item[0], item[1]))
    seen: set[str] = set()
    for name, _ in items:
        if not isinstance(name, str):
            raise InvalidRecordError(where, field_name, f"names must be text, got {type(name).__name__} {short(name)}")
        if name in seen:
            raise InvalidRecordError(where, field_name, f"holds the name {short(name)} twice")
        seen.add(name)
    return tuple(sorted(items, key=lambda pair: pair[0]))


@dataclass(frozen=True)
class Step:
    """One agent step (S3Mem's structured unit).

    ``inventory`` and ``state`` hold the values *after* the step; pass a dict (or name/value pairs, each
    name once), it is stored as sorted pairs. ``objects``, ``events`` and ``relations`` are tuples (or
    lists). ``source_id`` of a step is ``f"{episode_id}:{t}"``.

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
        # Only the shape of the containers is checked here (InvalidRecordError naming the field); every
        # value is checked by ``validate_step`` when the step is written.
        where = _record("Step", self.t)
        object.__setattr__(self, "inventory", _pairs(self.inventory, where, "inventory"))
        object.__setattr__(self, "state", _pairs(self.state, where, "state"))
        object.__setattr__(self, "objects", _items(self.objects, where, "objects", str))
        object.__setattr__(self, "events", _items(self.events, where, "events", Event))
        object.__setattr__(self, "relations", _items(self.relations, where, "relations", Relation))

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
    """An id or speaker: non-blank text of at most ``MAX_ID_CHARS`` characters, valid Unicode."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(where, name, f"must be a non-empty string, got {short(value)}")
    if len(value) > MAX_ID_CHARS:
        raise InvalidRecordError(where, name, f"is {len(value):,} characters long; ids take at most {MAX_ID_CHARS}")
    problem = unicode_problem(value)
    if problem is not None:
        raise InvalidRecordError(where, name, problem)
    return value


def validate_name(value: Any, where: str, name: str, optional: bool = False) -> str:
    """A name (an object, a region, an inventory item): non-blank text of at most ``MAX_NAME_CHARS``
    characters, valid Unicode; ``optional``: ``""`` (none) too."""
    if not isinstance(value, str):
        raise InvalidRecordError(where, name, f"must be text, got {type(value).__name__} {short(value)}")
    if optional and value == "":
        return value
    if not value.strip():
        raise InvalidRecordError(where, name, f"must be a non-blank name, got {short(value)}")
    if len(value) > MAX_NAME_CHARS:
        raise InvalidRecordError(where, name, f"{short(value, 30)} is {len(value):,} characters long; names take at most {MAX_NAME_CHARS}")
    problem = unicode_problem(value)
    if problem is not None:
        raise InvalidRecordError(where, name, f"{short(value, 30)} {problem}")
    return value


def validate_text(value: Any, where: str, name: str, required: bool = False) -> str:
    """A text (an action, a turn's text): at most ``MAX_TEXT_CHARS`` characters of valid Unicode;
    ``required``: with a non-space character."""
    if not isinstance(value, str):
        raise InvalidRecordError(where, name, f"must be text, got {type(value).__name__} {short(value)}")
    if required and not value.strip():
        raise InvalidRecordError(where, name, "must be non-empty text")
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidRecordError(where, name, f"is {len(value):,} characters long; texts take at most {MAX_TEXT_CHARS:,}")
    problem = unicode_problem(value)
    if problem is not None:
        raise InvalidRecordError(where, name, problem)
    return value


def validate_datetime(value: Any, where: str, name: str) -> datetime:
    """Accept an aware or naive datetime (naive means UTC); return it aware in UTC."""
    if not isinstance(value, datetime):
        raise InvalidRecordError(where, name, f"must be a datetime, got {type(value).__name__}")
    if not 1 < value.year < 9999:
        # Recall computes with days around every time (session intervals, a week either side).
        raise InvalidRecordError(where, name, f"must be within the years 2 to 9998, got {value.isoformat()}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def validate_turns(turns: Sequence[Turn], where: str) -> tuple[Turn, ...]:
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence):
        raise InvalidRecordError(where, "turns", f"must be a list of Turn, got {type(turns).__name__} {short(turns)}")
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
        validate_text(turn.text, here, "text", required=True)
        if turn.image_caption is not None:
            validate_text(turn.image_caption, here, "image_caption")
    return tuple(turns)


#: Largest step index: Neo4j integers are 64-bit, and queries bound windows at t +- 1.
MAX_STEP_INDEX = 2**62
#: Integers both backends store alike (Neo4j's 64-bit range).
MIN_INT, MAX_INT = -(2**63), 2**63 - 1


def _in_range(value: int, lo: int = MIN_INT, hi: int = MAX_INT) -> bool:
    return lo <= value <= hi


def _check_scalar(value: Any, here: str, name: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not _in_range(value):
        raise InvalidRecordError(here, name, f"is outside the 64-bit integer range, got {short(value)}")
    if isinstance(value, str):
        validate_text(value, here, name)
        return
    if isinstance(value, (bool, int)):
        return
    if isinstance(value, float) and math.isfinite(value):
        return
    raise InvalidRecordError(here, name, f"must be a finite number, text or bool, got {type(value).__name__} {short(value)}")


def validate_step(step: Any, where: str) -> Step:
    if not isinstance(step, Step):
        raise InvalidRecordError(where, "step", f"must be a Step, got {type(step).__name__}")
    if isinstance(step.t, bool) or not isinstance(step.t, int) or step.t < 0:
        raise InvalidRecordError(where, "t", f"must be a non-negative int, got {short(step.t)}")
    if step.t > MAX_STEP_INDEX:
        raise InvalidRecordError(where, "t", f"must be at most 2**62 ({MAX_STEP_INDEX}), got {short(step.t)}")
    here = f"{where} (t={step.t})"
    validate_text(step.action, here, "action", required=True)
    validate_text(step.summary, here, "summary")
    validate_text(step.observation, here, "observation")
    for obj in step.objects:
        validate_name(obj, here, "objects")
    for ev in step.events:
        if not isinstance(ev, Event):
            raise InvalidRecordError(here, "events", f"holds a {type(ev).__name__} {short(ev)}, not an Event")
        if not isinstance(ev.kind, str) or not ev.kind:
            raise InvalidRecordError(here, "events", f"event kind must be non-empty text, got {short(ev.kind)}")
        if len(ev.kind) > MAX_KIND_CHARS or not _KIND_CHARS.match(ev.kind):
            raise InvalidRecordError(
                here, "events", f"event kind {short(ev.kind)} must be a short phrase of letters, digits, spaces, "
                f"hyphens or apostrophes, at most {MAX_KIND_CHARS} characters (e.g. 'collect', 'run test')"
            )
        validate_name(ev.obj, here, "events", optional=True)
        if isinstance(ev.count, bool) or not isinstance(ev.count, int) or not _in_range(ev.count, 0):
            raise InvalidRecordError(here, "events", f"event count must be a non-negative 64-bit int, got {short(ev.count)}")
    for rel in step.relations:
        if not isinstance(rel, Relation):
            raise InvalidRecordError(here, "relations", f"holds a {type(rel).__name__} {short(rel)}, not a Relation")
        for part in (rel.subject, rel.predicate, rel.obj):
            validate_name(part, here, "relations")
    for name, count in step.inventory:
        validate_name(name, here, "inventory")
        if isinstance(count, bool) or not isinstance(count, int) or not _in_range(count, 0):
            raise InvalidRecordError(here, "inventory", f"{short(name)} must map to a non-negative 64-bit int, got {short(count)}")
    for name, value in step.state:
        validate_name(name, here, "state")
        _check_scalar(value, here, f"state.{name}")
    if not isinstance(step.location, Location):
        raise InvalidRecordError(here, "location", f"must be a Location, got {type(step.location).__name__} {short(step.location)}")
    pos = step.location.position
    if pos is not None and (
        not isinstance(pos, tuple) or len(pos) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and _in_range(v) for v in pos)
    ):
        raise InvalidRecordError(here, "location.position", f"must be a pair of 64-bit ints or None, got {short(pos)}")
    validate_name(step.location.region, here, "location.region", optional=True)
    validate_name(step.location.underfoot, here, "location.underfoot", optional=True)
    return step


def validate_steps(steps: Sequence[Step], where: str) -> tuple[Step, ...]:
    """Validate a batch: each step well-formed, indices strictly increasing and unique."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise InvalidRecordError(where, "steps", f"must be a list of Step, got {type(steps).__name__} {short(steps)}")
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
