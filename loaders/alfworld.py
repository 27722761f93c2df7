"""ALFWorld text logs as graphmem ``Step`` records.

ALFWorld's game files cannot be downloaded here, so this loader reads *logs*: a sequence of
``{"action": ..., "observation": ...}`` records in ALFWorld's own text conventions, e.g.::

    go to countertop 1            You arrive at loc 5. On the countertop 1, you see a apple 1, and a knife 1.
    take apple 1 from countertop 1  You pick up the apple 1 from the countertop 1.
    open fridge 1                 You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.
    put apple 1 in/on fridge 1    You put the apple 1 in/on the fridge 1.
    heat apple 1 with microwave 1 You heat the apple 1 using the microwave 1.
    use desklamp 1                You turn on the desklamp 1.

A first record whose action is empty/``None`` is the initial observation (room listing and
"Your task is to: ..."); it sets the task and is not a step. Events come from what the
environment *confirmed* in its feedback ("You pick up ...", "Nothing happens." gives no event),
and the tracker keeps the agent's receptacle (``Location.region``), the held object (inventory)
and what is in/on what.

Vocabulary: names are ALFWorld's own, lower-case with their instance number ("apple 1",
"countertop 1", "fridge 1"). Events: visit (receptacle), collect + gain (take), move + lose (put),
open, close, use (heat/cool/clean/slice with a receptacle or tool, turn on a lamp), observe
(examine). Relations: (x, "in"|"on", receptacle), ("agent", "at", receptacle), ("agent",
"holding", x), (x, "is", "hot"|"cool"|"clean"|"sliced"), (receptacle, "is", "open"|"closed"),
(lamp, "is", "on").
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.records import Event, Location, Relation, Step, validate_steps

logger = logging.getLogger(__name__)

#: Receptacle kinds whose contents are "in" them (the rest are surfaces: "on").
CONTAINERS: frozenset[str] = frozenset(
    {"fridge", "cabinet", "drawer", "microwave", "safe", "box", "garbagecan", "laundryhamper", "sinkbasin",
     "bathtubbasin", "cart", "dresser"}
)
#: State words an ALFWorld transformation leaves on the object.
TRANSFORMS: dict[str, str] = {"heat": "hot", "cool": "cool", "clean": "clean", "slice": "sliced"}
_PAST: dict[str, str] = {"heat": "heated", "cool": "cooled", "clean": "cleaned", "slice": "sliced"}

_NAME = r"[a-z][a-z ]*?\s\d+"  # "apple 1", "butter knife 2": words then an instance number
_ARRIVE = re.compile(rf"^you arrive at (?:loc \d+|(?P<recep>{_NAME}))\.", re.IGNORECASE)
_SEE = re.compile(rf"(?:on|in) the (?P<recep>{_NAME}), you see (?P<items>[^.]*)\.", re.IGNORECASE)
_IN_IT = re.compile(rf"the (?P<recep>{_NAME}) is open\. in it, you see (?P<items>[^.]*)\.", re.IGNORECASE)
_CLOSED = re.compile(rf"the (?P<recep>{_NAME}) is closed\.", re.IGNORECASE)
_PICK = re.compile(rf"^you pick up the (?P<obj>{_NAME}) from the (?P<recep>{_NAME})\.", re.IGNORECASE)
_PUT = re.compile(rf"^you (?:put|move) the (?P<obj>{_NAME}) (?:in/on|in|on|to) the (?P<recep>{_NAME})\.", re.IGNORECASE)
_OPEN = re.compile(rf"^you open the (?P<recep>{_NAME})\.", re.IGNORECASE)
_CLOSE = re.compile(rf"^you close the (?P<recep>{_NAME})\.", re.IGNORECASE)
_TRANSFORM = re.compile(rf"^you (?P<verb>heat|cool|clean|slice) the (?P<obj>{_NAME}) using the (?P<tool>{_NAME})\.", re.IGNORECASE)
_TURN_ON = re.compile(rf"^you turn (?P<onoff>on|off) the (?P<obj>{_NAME})\.", re.IGNORECASE)
_CARRYING = re.compile(r"^you are carrying: (?P<items>[^.]*)\.", re.IGNORECASE)
_NOT_CARRYING = re.compile(r"^you are not carrying anything\.", re.IGNORECASE)
_TASK = re.compile(r"your task is to: (?P<task>[^\n]*)", re.IGNORECASE)


def _items(text: str) -> list[str]:
    """``"a apple 1, a knife 1, and a mug 2"`` -> ``["apple 1", "knife 1", "mug 2"]``."""
    if text.strip().lower() == "nothing":
        return []
    names = []
    for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", text.strip()):
        part = re.sub(r"^(?:a|an|the)\s+", "", part.strip(), flags=re.IGNORECASE).strip().lower()
        if part:
            names.append(part)
    return names


def _kind(name: str) -> str:
    return re.sub(r"\s*\d+$", "", name)


@dataclass
class _World:
    """What the agent knows after each step (ALFWorld gives no state, only text)."""

    at: str = "room"
    holding: str = ""
    task: str = ""
    where: dict[str, tuple[str, str]] = field(default_factory=dict)  # object -> (predicate, receptacle)
    states: dict[str, str] = field(default_factory=dict)  # object/receptacle -> state word
    seen_as: dict[str, str] = field(default_factory=dict)  # receptacle -> "in"/"on" as the text said

    def predicate(self, recep: str) -> str:
        """ "in" or "on": as the game last described the receptacle, else by its kind."""
        return self.seen_as.get(recep) or ("in" if _kind(recep) in CONTAINERS else "on")

    def see(self, recep: str, items: list[str], predicate: str) -> None:
        # The listing is complete: anything we thought was there but is not listed has left.
        for obj, (_, place) in list(self.where.items()):
            if place == recep and obj not in items:
                del self.where[obj]
        for obj in items:
            self.where[obj] = (predicate, recep)


def _parse_initial(observation: str, world: _World) -> None:
    match = _TASK.search(observation)
    if match:
        world.task = match.group("task").strip().rstrip(".")


def _step(t: int, action: str, observation: str, world: _World) -> Step:
    """Update ``world`` from one (action, observation) pair and describe the step."""
    obs = " ".join(observation.split())
    low_action = " ".join(action.lower().split())
    events: list[Event] = []
    phrases: list[str] = []
    touched: list[str] = []
    before_holding = world.holding

    if ((m := _ARRIVE.match(obs)) or low_action.startswith("go to ")) and (
        m or not obs.lower().startswith("nothing happens")
    ):
        recep = (m.group("recep") if m and m.group("recep") else low_action[len("go to "):]).lower()
        if recep != world.at:
            events.append(Event("visit", recep))
        world.at = recep
        phrases.append(f"went to {recep}")
        touched.append(recep)
    if m := _PICK.match(obs):
        obj, recep = m.group("obj").lower(), m.group("recep").lower()
        world.holding = obj
        world.where.pop(obj, None)
        events.append(Event("collect", obj))
        phrases.append(f"picked up {obj} from {recep}")
        touched += [obj, recep]
    if m := _PUT.match(obs):
        obj, recep = m.group("obj").lower(), m.group("recep").lower()
        predicate = world.predicate(recep)
        world.where[obj] = (predicate, recep)
        if world.holding == obj:
            world.holding = ""
        events.append(Event("move", obj))
        phrases.append(f"put {obj} {predicate} {recep}")
        touched += [obj, recep]
    if m := _OPEN.match(obs):
        recep = m.group("recep").lower()
        world.states[recep] = "open"
        world.seen_as[recep] = "in"
        events.append(Event("open", recep))
        phrases.append(f"opened {recep}")
        touched.append(recep)
    if m := _CLOSE.match(obs):
        recep = m.group("recep").lower()
        world.states[recep] = "closed"
        events.append(Event("close", recep))
        phrases.append(f"closed {recep}")
        touched.append(recep)
    if m := _TRANSFORM.match(obs):
        verb, obj, tool = m.group("verb").lower(), m.group("obj").lower(), m.group("tool").lower()
        world.states[obj] = TRANSFORMS[verb]
        events.append(Event("use", tool))
        phrases.append(f"{_PAST[verb]} {obj} with {tool}")
        touched += [obj, tool]
    if m := _TURN_ON.match(obs):
        obj = m.group("obj").lower()
        world.states[obj] = m.group("onoff").lower()
        events.append(Event("use", obj))
        phrases.append(f"turned {m.group('onoff').lower()} {obj}")
        touched.append(obj)
    if m := _CARRYING.match(obs):
        items = _items(m.group("items"))
        world.holding = items[0] if items else ""
        phrases.append(f"checked the inventory: holding {', '.join(items)}")
    elif _NOT_CARRYING.match(obs):
        world.holding = ""
        phrases.append("checked the inventory: holding nothing")
    if low_action.startswith("examine ") and not obs.lower().startswith("nothing happens"):
        target = low_action[len("examine "):]
        events.append(Event("observe", target))
        phrases.append(f"examined {target}")
        touched.append(target)

    # What the observation lists: contents of receptacles, closed receptacles.
    for m in _IN_IT.finditer(obs):
        recep = m.group("recep").lower()
        world.see(recep, _items(m.group("items")), "in")
        world.seen_as[recep] = "in"
        world.states[recep] = "open"
    for m in _SEE.finditer(obs):
        recep = m.group("recep").lower()
        predicate = m.group(0).split()[0].lower()  # "On the countertop 1, ..." / "In the garbagecan 1, ..."
        world.seen_as[recep] = predicate
        world.see(recep, _items(m.group("items")), predicate)
    for m in _CLOSED.finditer(obs):
        world.states[m.group("recep").lower()] = "closed"

    if world.holding != before_holding:
        if before_holding:
            events.append(Event("lose", before_holding))
        if world.holding:
            events.append(Event("gain", world.holding))
    if not phrases:
        phrases.append("nothing happened" if obs.lower().startswith("nothing happens") else obs[:120])

    # Relations: what is where around the agent now, plus the agent's own situation.
    relations = [Relation("agent", "at", world.at)]
    if world.holding:
        relations.append(Relation("agent", "holding", world.holding))
    local = [obj for obj, (_, recep) in world.where.items() if recep == world.at]
    for obj in sorted(set(local) | {o for o in touched if o in world.where}):
        predicate, recep = world.where[obj]
        relations.append(Relation(obj, predicate, recep))
    for name in sorted({world.at, world.holding, *touched} - {""}):
        if name in world.states:
            relations.append(Relation(name, "is", world.states[name]))

    objects = [o for o in dict.fromkeys([*touched, *sorted(local), world.holding]) if o and o != "room"]
    state: dict[str, Any] = {"holding": world.holding}
    if world.task:
        state["task"] = world.task
    return Step(
        t=t,
        action=" ".join(action.split()),
        summary="; ".join(phrases),
        objects=tuple(objects),
        events=tuple(events),
        relations=tuple(dict.fromkeys(relations)),
        inventory={world.holding: 1} if world.holding else {},
        state=state,
        location=Location(region=world.at),
        observation=observation.strip(),
    )


def steps_from_alfworld_log(records: Iterable[Mapping[str, Any] | tuple[str | None, str]], where: str = "alfworld log") -> list[Step]:
    """Parse an ALFWorld trajectory (records of action + observation) into Steps.

    Each record is ``{"action": str | None, "observation": str}`` (or a 2-tuple); a leading record
    without an action is the initial observation. Raises InvalidRecordError naming the record for a
    malformed record.

    >>> steps = steps_from_alfworld_log([
    ...     {"action": None, "observation": "You are in the middle of a room. ... Your task is to: put a apple in fridge."},
    ...     {"action": "go to countertop 1", "observation": "You arrive at loc 5. On the countertop 1, you see a apple 1."},
    ...     {"action": "take apple 1 from countertop 1", "observation": "You pick up the apple 1 from the countertop 1."},
    ... ])
    >>> steps[-1].inventory_dict, steps[-1].location.region
    ({'apple 1': 1}, 'countertop 1')
    """
    world = _World()
    steps: list[Step] = []
    for i, record in enumerate(records):
        here = f"{where} record {i + 1}"
        if isinstance(record, Mapping):
            unknown = sorted(set(record) - {"action", "observation", "t"})
            if unknown:
                raise InvalidRecordError(here, unknown[0], "unknown key; a record has action, observation (and t)")
            action, observation = record.get("action"), record.get("observation")
        elif isinstance(record, (tuple, list)) and len(record) == 2:
            action, observation = record
        else:
            raise InvalidRecordError(here, "record", f"must be an object with action and observation, got {record!r}")
        if not isinstance(observation, str):
            raise InvalidRecordError(here, "observation", f"must be a string, got {observation!r}")
        if action is None or (isinstance(action, str) and not action.strip()):
            if steps:
                raise InvalidRecordError(here, "action", "only the first record may lack an action")
            _parse_initial(observation, world)
            continue
        if not isinstance(action, str):
            raise InvalidRecordError(here, "action", f"must be a string, got {action!r}")
        steps.append(_step(len(steps), action, observation, world))
    validate_steps(steps, where)
    return steps


def read_alfworld_jsonl(path: str | os.PathLike[str]) -> list[Step]:
    """Read an ALFWorld log stored as JSONL (one ``{"action", "observation"}`` object a line).

    >>> steps = read_alfworld_jsonl("tests/data/alfworld_sample.jsonl")  # doctest: +SKIP
    """
    path = Path(path)
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidRecordError(f"{path.name} line {number}", "json", f"invalid JSON: {exc.msg}") from None
    return steps_from_alfworld_log(records, where=path.name)
