"""Plain JSONL of steps: the format any agent framework can log so that graphmem can read it.

One JSON object per line, one line per step::

    {"t": 0, "action": "go to countertop 1", "summary": "arrived at countertop 1",
     "objects": ["countertop 1", "apple 1"],
     "events": [{"kind": "visit", "obj": "countertop 1", "count": 1}],
     "relations": [["apple 1", "on", "countertop 1"]],
     "inventory": {"apple": 1}, "state": {"health": 9},
     "location": {"position": [3, 4], "region": "kitchen", "underfoot": ""},
     "observation": "On the countertop 1, you see a apple 1."}

``t`` and ``action`` are required; every other key is optional (empty by default). Unknown keys
are rejected so that a typo ("evnts") does not silently drop data. Blank lines are skipped.

Reading is all-or-nothing: the first bad line raises :class:`~graphmem.errors.InvalidRecordError`
naming the file and line (``where="steps.jsonl line 17"``) and no step is returned. Writing
validates every step first and replaces the file atomically.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.records import Event, Location, Relation, Step, validate_step, validate_steps

logger = logging.getLogger(__name__)

#: Keys of a step line, in the order they are written.
STEP_KEYS: tuple[str, ...] = (
    "t",
    "action",
    "summary",
    "objects",
    "events",
    "relations",
    "inventory",
    "state",
    "location",
    "observation",
)
EVENT_KEYS: frozenset[str] = frozenset({"kind", "obj", "count"})
LOCATION_KEYS: frozenset[str] = frozenset({"position", "region", "underfoot"})


def step_to_dict(step: Step) -> dict[str, Any]:
    """The JSON-ready dict of a step (the inverse of :func:`step_from_dict`).

    >>> step_to_dict(Step(0, "noop"))["action"]
    'noop'
    """
    loc = step.location
    return {
        "t": step.t,
        "action": step.action,
        "summary": step.summary,
        "objects": list(step.objects),
        "events": [{"kind": e.kind, "obj": e.obj, "count": e.count} for e in step.events],
        "relations": [[r.subject, r.predicate, r.obj] for r in step.relations],
        "inventory": dict(step.inventory),
        "state": dict(step.state),
        "location": {
            "position": list(loc.position) if loc.position is not None else None,
            "region": loc.region,
            "underfoot": loc.underfoot,
        },
        "observation": step.observation,
    }


def _text(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidRecordError(where, name, f"must be a string, got {type(value).__name__} {value!r}")
    return value


def _int(value: Any, where: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRecordError(where, name, f"must be an integer, got {type(value).__name__} {value!r}")
    return value


def _list(value: Any, where: str, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidRecordError(where, name, f"must be a JSON array, got {type(value).__name__}")
    return value


def _object(value: Any, where: str, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRecordError(where, name, f"must be a JSON object, got {type(value).__name__}")
    return value


def _event(value: Any, where: str, name: str) -> Event:
    obj = _object(value, where, name)
    unknown = sorted(set(obj) - EVENT_KEYS)
    if unknown:
        raise InvalidRecordError(where, name, f"unknown key(s) {unknown}; an event has {sorted(EVENT_KEYS)}")
    if "kind" not in obj:
        raise InvalidRecordError(where, name, "an event needs a 'kind'")
    kind = _text(obj["kind"], where, f"{name}.kind")
    target = _text(obj.get("obj", ""), where, f"{name}.obj")
    count = _int(obj.get("count", 1), where, f"{name}.count")
    return Event(kind, target, count)


def _relation(value: Any, where: str, name: str) -> Relation:
    triple = _list(value, where, name)
    if len(triple) != 3:
        raise InvalidRecordError(where, name, f"must be [subject, predicate, object], got {len(triple)} item(s)")
    subject, predicate, obj = (_text(v, where, name) for v in triple)
    return Relation(subject, predicate, obj)


def _location(value: Any, where: str) -> Location:
    obj = _object(value, where, "location")
    unknown = sorted(set(obj) - LOCATION_KEYS)
    if unknown:
        raise InvalidRecordError(where, "location", f"unknown key(s) {unknown}; a location has {sorted(LOCATION_KEYS)}")
    position = obj.get("position")
    if position is not None:
        pair = _list(position, where, "location.position")
        if len(pair) != 2:
            raise InvalidRecordError(where, "location.position", f"must be [x, y], got {pair!r}")
        position = (_int(pair[0], where, "location.position"), _int(pair[1], where, "location.position"))
    return Location(
        position=position,
        region=_text(obj.get("region", ""), where, "location.region"),
        underfoot=_text(obj.get("underfoot", ""), where, "location.underfoot"),
    )


def step_from_dict(obj: Any, where: str) -> Step:
    """Build and validate a Step from one decoded JSON line; errors name ``where`` and the field.

    >>> step_from_dict({"t": 0, "action": "look"}, "steps.jsonl line 1").action
    'look'
    """
    data = _object(obj, where, "step")
    unknown = sorted(set(data) - set(STEP_KEYS))
    if unknown:
        raise InvalidRecordError(where, unknown[0], f"unknown key(s) {unknown}; a step has {list(STEP_KEYS)}")
    for required in ("t", "action"):
        if required not in data:
            raise InvalidRecordError(where, required, "is missing")
    t = _int(data["t"], where, "t")
    action = _text(data["action"], where, "action")
    inventory = _object(data.get("inventory", {}), where, "inventory")
    for key, count in inventory.items():
        _int(count, where, f"inventory.{key}")
    state = _object(data.get("state", {}), where, "state")
    step = Step(
        t=t,
        action=action,
        summary=_text(data.get("summary", ""), where, "summary"),
        objects=tuple(_text(o, where, "objects") for o in _list(data.get("objects", []), where, "objects")),
        events=tuple(
            _event(e, where, f"events[{i}]") for i, e in enumerate(_list(data.get("events", []), where, "events"))
        ),
        relations=tuple(
            _relation(r, where, f"relations[{i}]")
            for i, r in enumerate(_list(data.get("relations", []), where, "relations"))
        ),
        inventory=dict(inventory),
        state=dict(state),
        location=_location(data.get("location", {}), where),
        observation=_text(data.get("observation", ""), where, "observation"),
    )
    # validate_step checks the rest (event kinds, non-empty names, counts >= 0, finite state values).
    validate_step(step, where)
    return step


def read_steps_jsonl(path: str | os.PathLike[str]) -> list[Step]:
    """Read a JSONL file of steps; all or nothing.

    Raises InvalidRecordError naming the line (``"steps.jsonl line 17"``) for invalid JSON (e.g. a
    truncated last line), a missing or ill-typed field, an unknown event kind, or a step index
    that is duplicated or not increasing. An empty file is an error too.

    >>> steps = read_steps_jsonl("tests/data/steps.jsonl")  # doctest: +SKIP
    """
    path = Path(path)
    name = path.name
    steps: list[Step] = []
    previous: tuple[int, int] | None = None  # (t, line) of the last step
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{name} line {number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidRecordError(where, "encoding", f"is not UTF-8 ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                # A writer killed mid-line leaves a line that does not close its object.
                hint = " (truncated line?)" if not line.rstrip().endswith("}") else ""
                raise InvalidRecordError(where, "json", f"invalid JSON: {exc.msg} at column {exc.colno}{hint}") from None
            step = step_from_dict(obj, where)
            if previous is not None and step.t <= previous[0]:
                problem = (
                    f"duplicate step index t={step.t} (also on line {previous[1]})"
                    if step.t == previous[0]
                    else f"out of order: t={step.t} comes after t={previous[0]} (line {previous[1]})"
                )
                raise InvalidRecordError(where, "t", problem)
            previous = (step.t, number)
            steps.append(step)
    if not steps:
        raise InvalidRecordError(name, "steps", "the file holds no step")
    logger.debug("read %d steps from %s", len(steps), path)
    return steps


def write_steps_jsonl(steps: Sequence[Step], path: str | os.PathLike[str]) -> None:
    """Validate ``steps`` and write them as JSONL (one step a line), replacing ``path`` atomically.

    >>> write_steps_jsonl([Step(0, "noop")], "/tmp/steps.jsonl")
    """
    path = Path(path)
    validate_steps(steps, path.name)
    lines = [json.dumps(step_to_dict(step), ensure_ascii=False, allow_nan=False) for step in steps]
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write next to the target and rename: a crash leaves the old file, never half a new one.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    logger.debug("wrote %d steps to %s", len(steps), path)
