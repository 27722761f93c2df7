"""Queries as JSON: ``to_json``, ``from_json`` and the published JSON Schema (``query_schema``).

Every node is an object whose ``"op"`` names its type; patterns and conditions are plain objects. An LLM
agent can send a query by function calling with :func:`query_schema` as the tool's parameters, and
``from_json`` validates it (a ``QueryError`` names what is wrong).

>>> from graphmem.query.algebra import EventPattern, Occurrence, Read
>>> doc = to_json(Read(Occurrence(EventPattern("collect", "wood"), -1), "step"))
>>> doc
{'op': 'read', 'anchor': {'op': 'occurrence', 'pattern': {'kind': 'collect', 'obj': 'wood'}, 'ordinal': -1}, 'slot': 'step'}
>>> from_json(doc) == Read(Occurrence(EventPattern("collect", "wood"), -1), "step")
True
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.query.algebra import (
    COMPARISONS,
    MAX_STEP,
    READ_SLOTS,
    SOURCES,
    Anchor,
    Condition,
    Count,
    CountSteps,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Precedes,
    Query,
    QueryError,
    Reached,
    Read,
    Shifted,
    StepAt,
    StepIs,
    WhichFirst,
    Window,
)


def _pattern(p: EventPattern) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.kind is not None:
        out["kind"] = p.kind
    if p.obj is not None:
        out["obj"] = p.obj
    return out


def _condition(c: Condition) -> dict[str, Any]:
    return {"source": c.source, "name": c.name, "cmp": c.cmp, "value": c.value}


def _window(w: Window | None) -> dict[str, Any] | None:
    if w is None:
        return None
    out: dict[str, Any] = {}
    if w.start is not None:
        out["start"] = anchor_to_json(w.start)
    if w.end is not None:
        out["end"] = anchor_to_json(w.end)
    if not w.include_start:
        out["include_start"] = False
    if not w.include_end:
        out["include_end"] = False
    return out


def _with_window(out: dict[str, Any], w: Window | None) -> dict[str, Any]:
    doc = _window(w)
    if doc is not None:
        out["window"] = doc
    return out


def anchor_to_json(a: Anchor) -> dict[str, Any]:
    if isinstance(a, StepAt):
        return {"op": "step_at", "t": a.t}
    if isinstance(a, Occurrence):
        return _with_window({"op": "occurrence", "pattern": _pattern(a.pattern), "ordinal": a.ordinal}, a.window)
    if isinstance(a, Reached):
        out = _with_window({"op": "reached", "condition": _condition(a.condition), "ordinal": a.ordinal}, a.window)
        if a.at != "start":
            out["at"] = a.at
        return out
    return {"op": "shifted", "anchor": anchor_to_json(a.anchor), "steps": a.steps}


def to_json(q: Query) -> dict[str, Any]:
    """The query as a JSON-ready dict (``json.dumps`` it as is)."""
    if isinstance(q, Read):
        out: dict[str, Any] = {"op": "read", "anchor": anchor_to_json(q.anchor), "slot": q.slot}
        if q.name is not None:
            out["name"] = q.name
        return out
    if isinstance(q, Count):
        return _with_window({"op": "count", "pattern": _pattern(q.pattern)}, q.window)
    if isinstance(q, ListEvents):
        return _with_window({"op": "list", "pattern": _pattern(q.pattern)}, q.window)
    if isinstance(q, CountSteps):
        tested: dict[str, Any] = {q.what.field: q.what.value} if isinstance(q.what, StepIs) else {"condition": _condition(q.what)}
        return _with_window({"op": "count_steps", **tested}, q.window)
    if isinstance(q, Exists):
        what = {"pattern": _pattern(q.what)} if isinstance(q.what, EventPattern) else {"condition": _condition(q.what)}
        return _with_window({"op": "exists", **what}, q.window)
    op = "which_first" if isinstance(q, WhichFirst) else "precedes" if isinstance(q, Precedes) else "distance"
    return {"op": op, "a": anchor_to_json(q.a), "b": anchor_to_json(q.b)}


# --------------------------------------------------------------------------------------------------
# Parsing (every error a QueryError naming the path)
# --------------------------------------------------------------------------------------------------


def _obj(doc: Any, path: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise QueryError(f"{path}: must be a JSON object, got {type(doc).__name__}")
    extra = set(doc) - allowed
    if extra:
        raise QueryError(f"{path}: unknown field(s) {sorted(extra)}; allowed: {sorted(allowed)}")
    nulls = sorted(k for k, v in doc.items() if v is None)
    if nulls:
        # The schema has no nulls: an optional field is left out, so null is not read as "absent" either.
        raise QueryError(f"{path}: field(s) {nulls} must not be null (leave an optional field out)")
    return doc


def _need(doc: dict[str, Any], key: str, path: str) -> Any:
    if key not in doc:
        raise QueryError(f"{path}: missing field {key!r}")
    return doc[key]


def _parse_pattern(doc: Any, path: str) -> EventPattern:
    d = _obj(doc, path, {"kind", "obj"})
    try:
        return EventPattern(d.get("kind"), d.get("obj"))
    except QueryError as exc:
        raise QueryError(f"{path}: {exc}") from None


def _parse_condition(doc: Any, path: str) -> Condition:
    d = _obj(doc, path, {"source", "name", "cmp", "value"})
    try:
        return Condition(_need(d, "source", path), _need(d, "name", path), _need(d, "cmp", path), _need(d, "value", path))
    except QueryError as exc:
        raise QueryError(f"{path}: {exc}") from None


def _parse_window(doc: Any, path: str) -> Window | None:
    if doc is None:
        return None
    d = _obj(doc, path, {"start", "end", "include_start", "include_end"})
    start = anchor_from_json(d["start"], f"{path}.start") if d.get("start") is not None else None
    end = anchor_from_json(d["end"], f"{path}.end") if d.get("end") is not None else None
    try:
        return Window(start, end, d.get("include_start", True), d.get("include_end", True))
    except QueryError as exc:
        raise QueryError(f"{path}: {exc}") from None


def anchor_from_json(doc: Any, path: str = "anchor") -> Anchor:
    d = _obj(doc, path, {"op", "t", "pattern", "ordinal", "window", "condition", "anchor", "steps", "at"})
    op = _need(d, "op", path)
    fields = {
        "step_at": {"op", "t"},
        "occurrence": {"op", "pattern", "ordinal", "window"},
        "reached": {"op", "condition", "ordinal", "window", "at"},
        "shifted": {"op", "anchor", "steps"},
    }
    if not isinstance(op, str) or op not in fields:  # a list or object "op" is no key to look up
        raise QueryError(f"{path}: op must be one of {sorted(fields)}, got {op!r}")
    _obj(d, path, fields[op])
    try:
        if op == "step_at":
            return StepAt(_need(d, "t", path))
        if op == "occurrence":
            return Occurrence(_parse_pattern(_need(d, "pattern", path), f"{path}.pattern"), d.get("ordinal", 1),
                              _parse_window(d.get("window"), f"{path}.window"))
        if op == "reached":
            return Reached(_parse_condition(_need(d, "condition", path), f"{path}.condition"), d.get("ordinal", 1),
                           _parse_window(d.get("window"), f"{path}.window"), d.get("at", "start"))
        return Shifted(anchor_from_json(_need(d, "anchor", path), f"{path}.anchor"), _need(d, "steps", path))
    except QueryError as exc:
        message = str(exc)
        raise QueryError(message if message.startswith(path) else f"{path}: {message}") from None


def from_json(doc: Any) -> Query:
    """A query from its JSON form (a dict, or a JSON string); ``QueryError`` when it is not one."""
    if isinstance(doc, (str, bytes)):
        try:
            doc = json.loads(doc)
        except ValueError as exc:
            raise QueryError(f"query: not valid JSON ({exc})") from None
    path = "query"
    d = _obj(doc, path, {"op", "anchor", "slot", "name", "pattern", "window", "condition", "a", "b", "action", "region"})
    op = _need(d, "op", path)
    fields = {
        "read": {"op", "anchor", "slot", "name"},
        "count": {"op", "pattern", "window"},
        "count_steps": {"op", "action", "region", "condition", "window"},
        "list": {"op", "pattern", "window"},
        "exists": {"op", "pattern", "condition", "window"},
        "which_first": {"op", "a", "b"},
        "precedes": {"op", "a", "b"},
        "distance": {"op", "a", "b"},
    }
    if not isinstance(op, str) or op not in fields:  # a list or object "op" is no key to look up
        raise QueryError(f"{path}: op must be one of {sorted(fields)}, got {op!r}")
    _obj(d, path, fields[op])
    try:
        if op == "read":
            return Read(anchor_from_json(_need(d, "anchor", path), "query.anchor"), _need(d, "slot", path), d.get("name"))
        if op in ("count", "list"):
            pattern = _parse_pattern(_need(d, "pattern", path), "query.pattern")
            window = _parse_window(d.get("window"), "query.window")
            return Count(pattern, window) if op == "count" else ListEvents(pattern, window)
        if op == "count_steps":
            given = [k for k in ("action", "region", "condition") if k in d]
            if len(given) != 1:
                raise QueryError("query: count_steps takes exactly one of 'action', 'region' and 'condition'")
            tested: StepIs | Condition = (
                _parse_condition(d["condition"], "query.condition") if given[0] == "condition"
                else StepIs("action", d["action"]) if given[0] == "action" else StepIs("region", d["region"])
            )
            return CountSteps(tested, _parse_window(d.get("window"), "query.window"))
        if op == "exists":
            if ("pattern" in d) == ("condition" in d):
                raise QueryError("query: exists takes exactly one of 'pattern' and 'condition'")
            what: EventPattern | Condition = (
                _parse_pattern(d["pattern"], "query.pattern") if "pattern" in d else _parse_condition(d["condition"], "query.condition")
            )
            return Exists(what, _parse_window(d.get("window"), "query.window"))
        a = anchor_from_json(_need(d, "a", path), "query.a")
        b = anchor_from_json(_need(d, "b", path), "query.b")
        return WhichFirst(a, b) if op == "which_first" else Precedes(a, b) if op == "precedes" else Distance(a, b)
    except QueryError as exc:
        message = str(exc)
        raise QueryError(message if message.startswith("query") else f"query: {message}") from None


# --------------------------------------------------------------------------------------------------
# JSON Schema (draft 2020-12)
# --------------------------------------------------------------------------------------------------

_TEXT = {"type": "string", "minLength": 1, "maxLength": 512, "pattern": r"\S"}  # not only spaces
#: Read slots that take a ``name`` (and the only ones that do).
NAMED_SLOTS = ("item", "state")
_ORDINAL = {"type": "integer", "minimum": -MAX_STEP, "maximum": MAX_STEP, "not": {"const": 0},
            "description": "1-based; -1 is the last, -2 the second to last"}


def query_schema() -> dict[str, Any]:
    """The JSON Schema every ``to_json`` document satisfies (and ``from_json`` accepts)."""
    anchor_ref = {"$ref": "#/$defs/anchor"}
    window_ref = {"$ref": "#/$defs/window"}
    pattern_ref = {"$ref": "#/$defs/pattern"}
    condition_ref = {"$ref": "#/$defs/condition"}

    def op(name: str, props: dict[str, Any], required: list[str], description: str) -> dict[str, Any]:
        return {
            "type": "object",
            "description": description,
            "properties": {"op": {"const": name}, **props},
            "required": ["op", *required],
            "additionalProperties": False,
        }

    defs: dict[str, Any] = {
        "pattern": {
            "type": "object",
            "description": "Events of a kind and/or an object (omit a field to match any).",
            "properties": {"kind": _TEXT, "obj": {"type": "string", "maxLength": 512}},
            # A kind, or a non-empty object: "" (an event without object) narrows a kind, names nothing alone.
            "anyOf": [{"required": ["kind"]}, {"required": ["obj"], "properties": {"obj": {"minLength": 1}}}],
            "additionalProperties": False,
        },
        "condition": {
            "type": "object",
            "description": "A test on an inventory item or a state value after a step.",
            "properties": {
                "source": {"enum": list(SOURCES)},
                "name": _TEXT,
                "cmp": {"enum": list(COMPARISONS)},
                "value": {"type": ["number", "string", "boolean"]},
            },
            "required": ["source", "name", "cmp", "value"],
            # Text and booleans take only == and !=.
            "anyOf": [{"properties": {"value": {"type": "number"}}}, {"properties": {"cmp": {"enum": ["==", "!="]}}}],
            "additionalProperties": False,
        },
        "window": {
            "type": "object",
            "description": "The steps between two anchors; a missing end is open; ends inclusive by default.",
            "properties": {"start": anchor_ref, "end": anchor_ref, "include_start": {"type": "boolean"},
                           "include_end": {"type": "boolean"}},
            "additionalProperties": False,
        },
        "anchor": {
            "oneOf": [
                op("step_at", {"t": {"type": "integer", "minimum": 0, "maximum": MAX_STEP}}, ["t"], "The step with this index."),
                op("occurrence", {"pattern": pattern_ref, "ordinal": _ORDINAL, "window": window_ref}, ["pattern"],
                   "The n-th event matching the pattern, within the window."),
                op("reached", {"condition": condition_ref, "ordinal": _ORDINAL, "window": window_ref,
                               "at": {"enum": ["start", "end"], "description": "the run's first step (default) or its last"}},
                   ["condition"],
                   "The n-th step at which the condition comes to hold."),
                op("shifted", {"anchor": anchor_ref, "steps": {"type": "integer", "minimum": -MAX_STEP, "maximum": MAX_STEP}},
                   ["anchor", "steps"], "Another anchor moved by a number of steps (negative: earlier)."),
            ]
        },
    }
    questions = [
        op("read", {"anchor": anchor_ref, "slot": {"enum": [s for s in READ_SLOTS if s not in NAMED_SLOTS]}},
           ["anchor", "slot"], "A field of the anchor's step."),
        op("read", {"anchor": anchor_ref, "slot": {"enum": list(NAMED_SLOTS)}, "name": _TEXT}, ["anchor", "slot", "name"],
           "An item's count (slot item) or a state value (slot state) after the anchor's step; name says which."),
        op("count", {"pattern": pattern_ref, "window": window_ref}, ["pattern"], "How many matching events."),
        op("list", {"pattern": pattern_ref, "window": window_ref}, ["pattern"], "The distinct objects of matching events."),
        {
            **op("count_steps", {"action": _TEXT, "region": _TEXT, "condition": condition_ref, "window": window_ref}, [],
                 "How many steps in the window had this action, were in this region, or ended with the condition holding."),
            "oneOf": [{"required": ["action"]}, {"required": ["region"]}, {"required": ["condition"]}],
        },
        {
            **op("exists", {"pattern": pattern_ref, "condition": condition_ref, "window": window_ref}, [],
                 "Whether a matching event, or a step where the condition comes to hold, is in the window."),
            "oneOf": [{"required": ["pattern"]}, {"required": ["condition"]}],
        },
        op("which_first", {"a": anchor_ref, "b": anchor_ref}, ["a", "b"], "Which anchor comes first."),
        op("precedes", {"a": anchor_ref, "b": anchor_ref}, ["a", "b"], "Whether anchor a comes before anchor b (yes/no)."),
        op("distance", {"a": anchor_ref, "b": anchor_ref}, ["a", "b"], "Steps from one anchor to the other."),
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://graphmem.dev/schemas/trajectory-query.json",
        "title": "graphmem trajectory query",
        "type": "object",
        "oneOf": questions,
        "$defs": defs,
    }
