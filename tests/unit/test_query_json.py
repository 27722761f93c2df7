"""Queries survive JSON (``to_json`` -> text -> ``from_json``), every document ``to_json`` writes satisfies the
published schema (``query_schema``), and on malformed documents the schema and ``from_json`` agree: what
one rejects, the other rejects (``from_json`` with a ``QueryError``, never another exception)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.query.algebra import (
    COMPARISONS,
    MAX_STEP,
    READ_SLOTS,
    SOURCES,
    Condition,
    Count,
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
    WhichFirst,
    Window,
)
from graphmem.query.serialize import from_json, query_schema, to_json

VALIDATOR = jsonschema.Draft202012Validator(query_schema())
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------------------------- strategies

#: Names: any text with a non-space character, short mostly, up to the 512-character limit.
names = st.one_of(
    st.text(min_size=1, max_size=12),
    st.text(alphabet="ab ", min_size=500, max_size=512),
).filter(lambda s: bool(s.strip()))
objects = st.one_of(st.none(), st.just(""), names)
numbers = st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False))
ordinals = st.one_of(st.integers(-5, 5), st.integers(-MAX_STEP, MAX_STEP)).filter(lambda n: n != 0)
offsets = st.one_of(st.integers(-5, 5), st.integers(-MAX_STEP, MAX_STEP))


@st.composite
def patterns(draw: st.DrawFn) -> EventPattern:
    kind = draw(st.one_of(st.none(), names))
    obj = draw(objects) if kind is not None else draw(names)
    return EventPattern(kind, obj)


@st.composite
def conditions(draw: st.DrawFn) -> Condition:
    cmp: Any = draw(st.sampled_from(COMPARISONS))
    value = draw(st.one_of(numbers, st.text(max_size=8), st.booleans()) if cmp in ("==", "!=") else numbers)
    return Condition(draw(st.sampled_from(SOURCES)), draw(names), cmp, value)


def windows(anchors: st.SearchStrategy[Any]) -> st.SearchStrategy[Window]:
    return st.builds(Window, st.none() | anchors, st.none() | anchors, st.booleans(), st.booleans())


step_ats = st.builds(StepAt, st.one_of(st.integers(0, 1000), st.integers(0, MAX_STEP)))
anchors = st.recursive(
    st.one_of(step_ats, st.builds(Occurrence, patterns(), ordinals), st.builds(Reached, conditions(), ordinals)),
    lambda children: st.one_of(
        st.builds(Shifted, children, offsets),
        st.builds(Occurrence, patterns(), ordinals, st.none() | windows(children)),
        st.builds(Reached, conditions(), ordinals, st.none() | windows(children)),
    ),
    max_leaves=6,
)
optional_windows = st.none() | windows(anchors)


@st.composite
def reads(draw: st.DrawFn) -> Read:
    slot = draw(st.sampled_from(READ_SLOTS))
    return Read(draw(anchors), slot, draw(names) if slot in ("item", "state") else None)  # type: ignore[arg-type]


queries: st.SearchStrategy[Query] = st.one_of(
    reads(),
    st.builds(Count, patterns(), optional_windows),
    st.builds(ListEvents, patterns(), optional_windows),
    st.builds(Exists, st.one_of(patterns(), conditions()), optional_windows),
    st.builds(WhichFirst, anchors, anchors),
    st.builds(Precedes, anchors, anchors),
    st.builds(Distance, anchors, anchors),
)


# ---------------------------------------------------------------------------------------------- round trip


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(query_schema())


@SETTINGS
@given(queries)
def test_json_round_trip_and_schema(query: Query):
    doc = to_json(query)
    text = json.dumps(doc, allow_nan=False)  # plain JSON: no NaN, no Infinity
    assert from_json(json.loads(text)) == query
    assert from_json(text) == query  # a JSON string is parsed too
    errors = list(VALIDATOR.iter_errors(json.loads(text)))
    assert not errors, [e.message for e in errors]


def test_round_trip_examples():
    wood = EventPattern("collect", "wood")
    query = Read(Shifted(Occurrence(wood, 3, Window(StepAt(10), Reached(Condition("state", "health", "<", 3)), False)), 2), "action")
    doc = to_json(query)
    assert doc == {
        "op": "read",
        "anchor": {
            "op": "shifted",
            "steps": 2,
            "anchor": {
                "op": "occurrence",
                "pattern": {"kind": "collect", "obj": "wood"},
                "ordinal": 3,
                "window": {
                    "start": {"op": "step_at", "t": 10},
                    "end": {"op": "reached", "condition": {"source": "state", "name": "health", "cmp": "<", "value": 3},
                            "ordinal": 1},
                    "include_start": False,
                },
            },
        },
        "slot": "action",
    }
    assert from_json(doc) == query
    # Defaults may be left out: ordinal 1, open windows, inclusive ends.
    assert from_json({"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "collect"}}, "slot": "step"}) == Read(
        Occurrence(EventPattern("collect")), "step"
    )
    assert from_json({"op": "count", "pattern": {"obj": "wood"}, "window": {}}) == Count(EventPattern(None, "wood"), Window())


# ---------------------------------------------------------------------------------------------- malformed documents


def _objects(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every JSON object in the document, with its path."""
    if isinstance(doc, dict):
        yield path, doc
        for key, value in doc.items():
            yield from _objects(value, (*path, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from _objects(value, (*path, i))


#: A value of each JSON type; floats with a fraction (an integral float is an integer to JSON Schema).
OTHER_TYPES: list[Any] = [None, True, 7, -2, 2.5, "", "text", [], [1], {}, {"op": "step_at", "t": 1}]
#: Values out of range or empty for the fields that have limits.
BAD_VALUES: list[Any] = [0, -1, MAX_STEP + 1, -MAX_STEP - 1, "", "   ", "x" * 513, "sideways"]
OPS = ["read", "count", "list", "exists", "which_first", "precedes", "distance", "step_at", "occurrence", "reached", "shifted",
       "Read", "", "unknown"]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A valid document with one random change at one random object in it: its kind, and the document."""
    doc = copy.deepcopy(to_json(draw(queries)))
    _, target = draw(st.sampled_from(list(_objects(doc))))
    keys = sorted(target)
    kind = draw(st.sampled_from(["op", "missing", "extra", "type", "value"] if keys else ["extra"]))
    if kind == "op":
        target["op"] = draw(st.sampled_from(OPS + [7, None, ["read"], {"op": "read"}]))
    elif kind == "missing":
        del target[draw(st.sampled_from(keys))]
    elif kind == "extra":
        target[draw(st.sampled_from(["extra", "t", "slot", "anchor", "kind", "value", "window", "name", "OP"]))] = draw(
            st.sampled_from(OTHER_TYPES)
        )
    elif kind == "type":
        target[draw(st.sampled_from(keys))] = draw(st.sampled_from(OTHER_TYPES))
    else:
        target[draw(st.sampled_from(keys))] = draw(st.sampled_from(BAD_VALUES))
    return kind, doc


def _parses(doc: Any) -> bool:
    try:
        from_json(doc)
    except QueryError:
        return False
    return True  # any other exception fails the test


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_schema_and_from_json_agree_on_mutated_documents(case: tuple[str, dict[str, Any]]):
    kind, doc = case
    doc = json.loads(json.dumps(doc))
    valid = VALIDATOR.is_valid(doc)
    assert _parses(doc) == valid, (kind, doc, [e.message for e in VALIDATOR.iter_errors(doc)])


MALFORMED: list[Any] = [
    {"op": "read", "anchor": {"op": "step_at", "t": 3}},  # slot missing
    {"op": "read", "anchor": {"op": "step_at", "t": 3}, "slot": "health"},  # unknown slot
    {"op": "read", "anchor": {"op": "step_at", "t": 3}, "slot": "item"},  # an item read names the item
    {"op": "read", "anchor": {"op": "step_at", "t": 3}, "slot": "state", "name": " "},
    {"op": "read", "anchor": {"op": "step_at", "t": 3}, "slot": "action", "name": "wood"},  # action takes no name
    {"op": "read", "anchor": {"op": "step_at", "t": -1}, "slot": "action"},
    {"op": "read", "anchor": {"op": "step_at", "t": True}, "slot": "action"},
    {"op": "read", "anchor": {"op": "step_at", "t": "3"}, "slot": "action"},
    {"op": "read", "anchor": {"op": "count", "pattern": {"kind": "x"}}, "slot": "step"},  # a question is no anchor
    {"op": "step_at", "t": 3},  # an anchor is no question
    {"op": "count"},
    {"op": "count", "pattern": {}},
    {"op": "count", "pattern": {"obj": ""}},  # "" alone matches nothing nameable
    {"op": "count", "pattern": {"kind": "  "}},
    {"op": "count", "pattern": {"kind": "collect"}, "limit": 3},
    {"op": "count", "pattern": {"kind": "collect"}, "window": None},
    {"op": "count", "pattern": {"kind": "collect"}, "window": {"start": None}},
    {"op": "count", "pattern": {"kind": "collect"}, "window": {"include_end": "no"}},
    {"op": "list", "pattern": {"kind": "collect", "obj": None}},
    {"op": "exists"},
    {"op": "exists", "pattern": {"kind": "x"}, "condition": {"source": "state", "name": "hp", "cmp": "<", "value": 1}},
    {"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": "<", "value": "low"}},  # text takes == / !=
    {"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": ">", "value": False}},
    {"op": "exists", "condition": {"source": "mind", "name": "hp", "cmp": "<", "value": 1}},
    {"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": "=<", "value": 1}},
    {"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": "<"}},
    {"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": "==", "value": None}},
    {"op": "which_first", "a": {"op": "step_at", "t": 1}},
    {"op": "distance", "a": {"op": "occurrence", "pattern": {"kind": "x"}, "ordinal": 0}, "b": {"op": "step_at", "t": 1}},
    {"op": "distance", "a": {"op": "shifted", "anchor": {"op": "step_at", "t": 1}}, "b": {"op": "step_at", "t": 1}},
    {"op": "distance", "a": {"op": "shifted", "anchor": {"op": "step_at", "t": 1}, "steps": 1.5}, "b": {"op": "step_at", "t": 1}},
    {"op": ["read"], "anchor": {"op": "step_at", "t": 1}, "slot": "step"},
    {"op": "read", "anchor": {"op": {"x": 1}, "t": 1}, "slot": "step"},
    {"op": 3},
    {},
    [],
    "read",
    None,
]


@pytest.mark.parametrize("doc", MALFORMED, ids=[json.dumps(d)[:70] for d in MALFORMED])
def test_malformed_documents_fail_both(doc: Any):
    assert not VALIDATOR.is_valid(doc)
    with pytest.raises(QueryError) as raised:
        from_json(doc)
    assert str(raised.value).startswith(("query", "anchor"))  # the message names where


def test_error_messages_name_the_path():
    with pytest.raises(QueryError, match=r"query\.a: missing field 'steps'"):
        from_json({"op": "distance", "a": {"op": "shifted", "anchor": {"op": "step_at", "t": 1}}, "b": {"op": "step_at", "t": 1}})
    with pytest.raises(QueryError, match=r"query\.anchor\.window\.start"):
        from_json({"op": "read", "slot": "step", "anchor": {"op": "occurrence", "pattern": {"kind": "x"},
                                                            "window": {"start": {"op": "step_at", "t": -4}}}})
    with pytest.raises(QueryError, match=r"query\.condition: Condition: cmp"):
        from_json({"op": "exists", "condition": {"source": "state", "name": "hp", "cmp": "~", "value": 1}})
    with pytest.raises(QueryError, match="not valid JSON"):
        from_json("{op: read")
