"""The store-level operators of trajectory queries answer alike on both backends, and as the steps say.

``find_event``, ``count_events``, ``find_change``, ``count_steps``, ``count_held`` and ``steps_between`` are checked on trajectories written
through ``Memory`` (so through ``build_step_batch``: event positions, Change nodes, the Episode's last
inventory and state), first on hand-made cases, then against a brute-force reading of random trajectories
(hypothesis) that knows nothing of Change nodes: it walks the Step records themselves.
"""

from __future__ import annotations

import itertools
import json
import operator
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.memory import Memory
from graphmem.records import Event, Location, Scalar, Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import (
    COMPARISONS,
    ChangeRow,
    EventRow,
    GraphStore,
    StepCount,
    meets,
)
from graphmem.store.rows import read_episode
from graphmem.write.steps import build_step_batch, episode_so_far, step_search_text
from hash_embed import HashEmbedder

# ---------------------------------------------------------------------------------------------- reference


def write(store: GraphStore, namespace: str, episode: str, batches: Sequence[Sequence[Step]]) -> list[Step]:
    """Append each batch with its own ``add_steps`` call; the steps written, in order."""
    mem = Memory(store=store, embedder=HashEmbedder())
    for batch in batches:
        mem.add_steps(namespace, episode, list(batch))
    return [step for batch in batches for step in batch]


def ref_events(steps: Sequence[Step], episode: str, kind: str | None, obj: str | None,
               lo: int | None, hi: int | None) -> list[EventRow]:
    """Every matching event in (t, position) order, ordinals counted over the whole episode; for an object
    of any kind, only each step's first such event (a step counts once)."""
    seen: dict[tuple[str, str], int] = {}
    found = []
    for step in steps:
        for i, event in enumerate(step.events):
            seen[(event.kind, event.obj)] = seen.get((event.kind, event.obj), 0) + 1
            if kind is not None and event.kind != kind or obj is not None and event.obj != obj:
                continue
            if lo is not None and step.t < lo or hi is not None and step.t > hi:
                continue
            if kind is None and obj is not None and found and found[-1].t == step.t:
                continue
            found.append(EventRow(f"event:{episode}:{step.t}#{i}", f"step:{episode}:{step.t}", episode, event.kind,
                                  event.obj, event.count, seen[(event.kind, event.obj)], step.t))
    return found


def in_window(t: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or t >= lo) and (hi is None or t <= hi)


def ref_tally(ts: Sequence[int], shown: int) -> StepCount:
    """The StepCount of matching steps: how many, the first ``shown`` and the last."""
    return StepCount(len(ts), tuple(dict.fromkeys([*ts[:shown], ts[-1]]))) if ts else StepCount(0)


def pick(rows: Sequence[Any], ordinal: int) -> Any:
    """The ordinal-th of rows (1-based, negative from the end), None beyond them."""
    if ordinal > 0:
        return rows[ordinal - 1] if ordinal <= len(rows) else None
    return rows[ordinal] if -ordinal <= len(rows) else None


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, (int, float)) else "text"


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def ref_meets(value: Any, cmp: str, target: Any) -> bool:
    """The documented condition, written independently of graphmem.store.protocol.meets."""
    kind = _kind(value)
    if kind == "none" or kind != _kind(target):
        return False
    if kind == "number":
        return _OPS[cmp](value, target)
    return cmp in ("==", "!=") and _OPS[cmp](value, target)


def value_after(step: Step, source: str, name: str) -> Scalar | None:
    return step.inventory_dict.get(name, 0) if source == "inventory" else step.state_dict.get(name)


def ref_changes(steps: Sequence[Step], episode: str, source: str, name: str, cmp: str, value: Scalar,
                lo: int | None, hi: int | None) -> list[ChangeRow]:
    """The steps at which the value comes to meet the condition, from the Step records alone: before the
    first step an inventory holds 0 of everything and a state holds nothing."""
    previous: Scalar | None = 0 if source == "inventory" else None
    found = []
    for step in steps:
        now = value_after(step, source, name)
        in_window = (lo is None or step.t >= lo) and (hi is None or step.t <= hi)
        if in_window and ref_meets(now, cmp, value) and not ref_meets(previous, cmp, value):
            found.append(ChangeRow(f"change:{episode}:{step.t}~{source}:{name}", f"step:{episode}:{step.t}", episode,
                                   source, name, previous, now, step.t))
        previous = now
    return found


def ref_change_count(steps: Sequence[Step]) -> int:
    """How many Change nodes the steps make: one per step and item / state name whose value differs (in
    kind or value) from the previous step's."""
    inventory: dict[str, int] = {}
    state: dict[str, Scalar] = {}
    total = 0
    for step in steps:
        now = step.inventory_dict
        total += sum(1 for n in inventory.keys() | now.keys() if inventory.get(n, 0) != now.get(n, 0))
        now_state = step.state_dict
        for n in state.keys() | now_state.keys():
            a, b = state.get(n), now_state.get(n)
            total += int(_kind(a) != _kind(b) or a != b)
        inventory, state = now, now_state
    return total


def typed(row: ChangeRow | None) -> Any:
    """A change with its values' types: ``1 == True == 1.0`` in Python, so equality alone would not notice
    a store that turned one into another."""
    return None if row is None else (row, type(row.before).__name__, type(row.after).__name__)


# ---------------------------------------------------------------------------------------------- a trajectory

#: 0..9 with gaps; several events per step, an empty object, items that vanish, state that comes and goes.
STEPS = [
    Step(0, "start", events=(Event("collect", "wood"), Event("gain", "wood")), inventory={"wood": 1},
         state={"hp": 9, "mode": "day"}),
    Step(1, "chop", events=(Event("collect", "wood", 2), Event("gain", "wood"), Event("sleep", "")),
         inventory={"wood": 3}, state={"hp": 9, "mode": "day"}),
    Step(3, "mine", events=(Event("collect", "stone"),), inventory={"wood": 3, "stone": 1},
         state={"hp": 8, "mode": "night", "thirst": 2}),
    Step(4, "build", events=(Event("place", "table"), Event("consume", "wood"), Event("consume", "stone")),
         inventory={"wood": 1}, state={"hp": 8, "mode": "night", "thirst": 2}),
    Step(6, "nap", events=(Event("sleep", ""),), inventory={"wood": 1, "sapling": 0}, state={"hp": 8.0, "mode": True}),
    Step(7, "chop", events=(Event("collect", "wood"),), inventory={"wood": 2}, state={"hp": 7.5, "mode": 1}),
    Step(9, "rest", events=(), inventory={}, state={"hp": "dead"}),
]
EP = "run-1"


@pytest.fixture
def trajectory(store: GraphStore, namespace: str) -> list[Step]:
    # Three appends: ordinals, positions and changes must continue over the batch boundaries.
    return write(store, namespace, EP, [STEPS[:2], STEPS[2:5], STEPS[5:]])


def test_find_event_by_kind_object_both_and_neither(store, namespace, trajectory):
    collect_wood = store.find_event(namespace, EP, "collect", "wood", 2)
    assert collect_wood == EventRow(f"event:{EP}:1#0", f"step:{EP}:1", EP, "collect", "wood", 2, 2, 1)
    # A kind alone, an object alone (both across batches), and any event: by (t, position in the step).
    assert store.find_event(namespace, EP, "collect", None, 3).key == f"event:{EP}:3#0"
    # An object of any kind counts steps: step 0's two wood events are one, its first.
    assert store.find_event(namespace, EP, None, "wood", 1).key == f"event:{EP}:0#0"
    assert store.find_event(namespace, EP, None, "wood", 2).key == f"event:{EP}:1#0"
    assert store.find_event(namespace, EP, None, "wood", 3).key == f"event:{EP}:4#1"
    assert store.count_events(namespace, EP, None, "wood") == 4
    assert store.find_event(namespace, EP, None, None, 6).key == f"event:{EP}:3#0"
    # "" is the empty object only; None is any object.
    assert [store.find_event(namespace, EP, None, "", n).t for n in (1, 2)] == [1, 6]
    assert store.find_event(namespace, EP, "sleep", "", 2).t == 6
    assert store.count_events(namespace, EP, None, "") == 2
    for kind, obj in [("collect", "wood"), ("collect", None), (None, "wood"), (None, None), ("sleep", ""), ("eat", None)]:
        rows = ref_events(trajectory, EP, kind, obj, None, None)
        assert store.count_events(namespace, EP, kind, obj) == len(rows)
        assert [store.find_event(namespace, EP, kind, obj, n) for n in range(1, len(rows) + 2)] == rows + [None]
        assert [store.find_event(namespace, EP, kind, obj, -n) for n in range(1, len(rows) + 2)] == rows[::-1] + [None]


def test_find_event_windows_and_negative_ordinals(store, namespace, trajectory):
    assert store.find_event(namespace, EP, "collect", None, -1).t == 7
    assert store.find_event(namespace, EP, "collect", None, -2).t == 3
    assert store.find_event(namespace, EP, "collect", None, -1, hi=6).t == 3
    assert store.find_event(namespace, EP, "collect", None, 1, lo=2).t == 3
    # The last event of step 1 (its third) comes before the first of step 3, from either end.
    assert store.find_event(namespace, EP, None, None, -1, lo=0, hi=2).key == f"event:{EP}:1#2"
    assert store.find_event(namespace, EP, None, None, 1, lo=2, hi=4).key == f"event:{EP}:3#0"
    assert store.find_event(namespace, EP, None, None, -3, lo=2, hi=4).key == f"event:{EP}:4#0"
    assert store.find_event(namespace, EP, None, None, 1, lo=8, hi=9) is None  # step 9 has no event
    assert store.find_event(namespace, EP, "collect", None, 1, lo=5, hi=2) is None
    assert store.count_events(namespace, EP, "collect", "wood", 1, 7) == 2
    assert store.count_events(namespace, EP, None, None, hi=1) == 5
    assert store.count_events(namespace, EP, None, None, lo=100) == 0
    assert store.count_events(namespace, "no-such-episode", None, None) == 0
    for lo, hi in [(None, 3), (1, None), (3, 4), (2, 2), (4, 3)]:
        rows = ref_events(trajectory, EP, None, None, lo, hi)
        assert store.count_events(namespace, EP, None, None, lo, hi) == len(rows)
        assert [store.find_event(namespace, EP, None, None, n, lo, hi) for n in (1, 2, -1, -2, 40, -40)] == [
            pick(rows, n) for n in (1, 2, -1, -2, 40, -40)
        ]


def test_inventory_changes(store, namespace, trajectory):
    def first(cmp: str, value: Scalar, ordinal: int = 1, **window: int) -> int | None:
        row = store.find_change(namespace, EP, "inventory", "wood", cmp, value, ordinal, **window)
        return None if row is None else row.t

    assert store.find_change(namespace, EP, "inventory", "wood", ">=", 3, 1) == ChangeRow(
        f"change:{EP}:1~inventory:wood", f"step:{EP}:1", EP, "inventory", "wood", 1, 3, 1)
    # The first step comes to meet "wood >= 1" from the empty inventory (0 before it).
    assert first(">=", 1) == 0
    # Wood goes 1, 3, 3, 1, 1, 2, then vanishes at 9: it comes to meet "< 2" at 4 and "== 0" only there.
    assert [first("<", 2, n) for n in (1, 2, 3)] == [4, 9, None]
    assert first("==", 0) == 9 and first("==", 0, -1) == 9
    vanished = store.find_change(namespace, EP, "inventory", "wood", "==", 0, 1)
    assert (vanished.before, vanished.after) == (2, 0)
    assert [first(">", 1, n) for n in (1, 2, 3)] == [1, 7, None]
    assert first(">", 1, -1) == 7 and first(">", 1, -2) == 1
    assert first(">", 1, 1, lo=2) == 7 and first(">", 1, 1, hi=6) == 1 and first(">", 1, 1, lo=2, hi=6) is None
    # 0 != 3 before the first step: "!= 3" is met until wood reaches 3, and comes to meet again at 4.
    assert first("!=", 3) == 4 and first("!=", 3, 2) is None and first("==", 3) == 1 and first("<=", 1) == 4
    # An item the agent never held meets "== 0" from the start: no step comes to meet it.
    assert store.find_change(namespace, EP, "inventory", "gold", "==", 0, 1) is None
    assert store.find_change(namespace, EP, "inventory", "gold", ">", 0, 1) is None
    # A count of 0 in the inventory is the same as no entry (sapling at 6): no change there.
    assert store.find_change(namespace, EP, "inventory", "sapling", "==", 0, 1) is None
    stone = [store.find_change(namespace, EP, "inventory", "stone", "==", 0, n) for n in (1, 2)]
    assert [(r.t, r.before, r.after) for r in stone if r] == [(4, 1, 0)] and stone[1] is None
    # Numbers compare with numbers only.
    assert first("==", "3") is None and first(">=", True) is None and first("==", 2.0) == 7


def test_state_changes_with_mixed_types(store, namespace, trajectory):
    def rows(name: str, cmp: str, value: Scalar) -> list[Any]:
        return [typed(store.find_change(namespace, EP, "state", name, cmp, value, n)) for n in (1, 2, 3)]

    # mode: "day", "day", "night", "night", True, 1, absent.
    night = store.find_change(namespace, EP, "state", "mode", "==", "night", 1)
    assert (night.t, night.before, night.after) == (3, "day", "night")
    assert rows("mode", "==", True)[0] == typed(ChangeRow(f"change:{EP}:6~state:mode", f"step:{EP}:6", EP, "state",
                                                            "mode", "night", True, 6))
    assert rows("mode", "==", True)[1:] == [None, None]
    # 1 after True is a change of kind: a number now, so it comes to meet "== 1" (True never does).
    one = store.find_change(namespace, EP, "state", "mode", "==", 1, 1)
    assert typed(one) == typed(ChangeRow(f"change:{EP}:7~state:mode", f"step:{EP}:7", EP, "state", "mode", True, 1, 7))
    # != meets only values of the same kind: "day" != "night" at 3, True != False at 6, 1 != 0 at 7.
    assert [r[0].t if r else None for r in rows("mode", "!=", "day")] == [3, None, None]
    assert [r[0].t if r else None for r in rows("mode", "!=", False)] == [6, None, None]
    assert [r[0].t if r else None for r in rows("mode", "!=", 0)] == [7, None, None]
    # Text and bools have no order.
    assert rows("mode", "<", "zzz") == [None, None, None] and rows("mode", ">=", False) == [None, None, None]
    # hp: 9, 9, 8, 8, 8.0, 7.5, "dead". 8 -> 8.0 is no change; 7.5 comes to meet "< 8"; "dead" is text.
    assert [r[0].t if r else None for r in rows("hp", "<", 8)] == [7, None, None]
    assert [r[0].t if r else None for r in rows("hp", "<=", 8)] == [3, None, None]
    assert [r[0].t if r else None for r in rows("hp", "==", 9)] == [0, None, None]
    assert [r[0].t if r else None for r in rows("hp", ">", 7.9)] == [0, None, None]
    assert typed(store.find_change(namespace, EP, "state", "hp", "==", "dead", 1)) == typed(
        ChangeRow(f"change:{EP}:9~state:hp", f"step:{EP}:9", EP, "state", "hp", 7.5, "dead", 9))
    # A state name that appears at a later step changes from None there; it meets "!=" only by its kind.
    thirst = store.find_change(namespace, EP, "state", "thirst", "!=", 5, 1)
    assert (thirst.t, thirst.before, thirst.after) == (3, None, 2)
    assert store.find_change(namespace, EP, "state", "thirst", "!=", "x", 1) is None
    # The first step comes to meet a state condition from None.
    assert store.find_change(namespace, EP, "state", "mode", "==", "day", 1).t == 0


@pytest.mark.parametrize("cmp", COMPARISONS)
@pytest.mark.parametrize("value", [0, 1, 2.5, 3])
def test_every_comparison_matches_the_steps(store, namespace, trajectory, cmp, value):
    for source, name in [("inventory", "wood"), ("inventory", "stone"), ("state", "hp"), ("state", "mode")]:
        for lo, hi in [(None, None), (2, 7)]:
            expected = ref_changes(trajectory, EP, source, name, cmp, value, lo, hi)
            got = [store.find_change(namespace, EP, source, name, cmp, value, n, lo, hi) for n in range(1, len(expected) + 2)]
            assert [typed(r) for r in got] == [typed(r) for r in expected] + [None]
            back = [store.find_change(namespace, EP, source, name, cmp, value, -n, lo, hi) for n in range(1, len(expected) + 2)]
            assert [typed(r) for r in back] == [typed(r) for r in expected[::-1]] + [None]


def test_steps_between(store, namespace, trajectory):
    assert list(store.steps_between(namespace, EP, 2, 7, 10)) == [3, 4, 6, 7]
    assert list(store.steps_between(namespace, EP, 0, 100, 3)) == [0, 1, 3]
    assert store.steps_between(namespace, EP, 5, 5, 10) == {} and store.steps_between(namespace, EP, 0, 9, 0) == {}
    assert store.steps_between(namespace, EP, 3, 4, 5) == store.steps_at(namespace, EP, [3, 4])


def test_bad_arguments(store, namespace, trajectory):
    with pytest.raises(ValueError, match="ordinal"):
        store.find_event(namespace, EP, "collect", None, 0)
    with pytest.raises(ValueError, match="ordinal"):
        store.find_change(namespace, EP, "inventory", "wood", "==", 1, 0)
    with pytest.raises(ValueError, match="cmp"):
        store.find_change(namespace, EP, "inventory", "wood", "=", 1, 1)
    with pytest.raises(ValueError, match="source"):
        store.find_change(namespace, EP, "inventroy", "wood", "==", 1, 1)


def test_change_nodes_and_episode_state(store, namespace, trajectory):
    counts = store.counts(namespace)
    assert counts["Change"] == counts["CHANGES"] == ref_change_count(trajectory)
    # The Episode carries the last step's inventory and state, types kept, for the next append.
    so_far = episode_so_far(read_episode(store, namespace, EP))
    assert so_far.last_inventory == {} and so_far.last_state == {"hp": "dead"}
    step = store.get_nodes(namespace, [f"change:{EP}:7~state:mode"])[f"change:{EP}:7~state:mode"]
    assert type(step["before"]) is bool and type(step["after"]) is int and step["unit"] == f"step:{EP}:7"
    # A state value that vanishes: its change has no `after` at all (None is a missing property).
    gone = store.get_nodes(namespace, [f"change:{EP}:9~state:mode"])[f"change:{EP}:9~state:mode"]
    assert "after" not in gone and gone["before"] == 1


def test_types_survive_an_append(store, namespace):
    # True, then 1, across the boundary of two appends: a change only if the Episode kept True a bool.
    write(store, namespace, EP, [[Step(0, "a", state={"lit": True, "x": 1.0}, inventory={"wood": 2})],
                                 [Step(1, "b", state={"lit": 1, "x": 1}, inventory={"wood": 2})]])
    lit = store.find_change(namespace, EP, "state", "lit", "==", 1, 1)
    assert typed(lit) == typed(ChangeRow(f"change:{EP}:1~state:lit", f"step:{EP}:1", EP, "state", "lit", True, 1, 1))
    # 1.0 then 1 and wood 2 then 2: no change at the boundary.
    assert store.counts(namespace)["Change"] == 4  # lit, x and wood at 0; lit at 1


def test_rewriting_a_batch_changes_nothing(store, namespace):
    steps = STEPS[:4]
    so_far = episode_so_far(None)
    batch = build_step_batch(namespace, EP, steps, HashEmbedder().embed([step_search_text(s) for s in steps]), so_far)
    store.write(batch)
    first = store.counts(namespace)
    store.write(batch)
    assert store.counts(namespace) == first
    assert store.find_change(namespace, EP, "inventory", "stone", "==", 0, 1).t == 4
    assert store.count_events(namespace, EP, None, None) == sum(len(s.events) for s in steps)


def test_events_keep_their_position(store, namespace, trajectory):
    event = store.get_nodes(namespace, [f"event:{EP}:4#2"])[f"event:{EP}:4#2"]
    assert event["i"] == 2 and event["t"] == 4


# ---------------------------------------------------------------------------------------------- random

KINDS = ["collect", "place", "eat"]
OBJECTS = ["", "wood", "stone"]
ITEMS = ["wood", "stone"]
STATE_VALUES = st.one_of(
    st.integers(-1, 2), st.sampled_from([1.0, 2.5, -0.5]), st.sampled_from(["day", "night"]), st.booleans()
)
VALUES = st.one_of(st.integers(-1, 3), st.sampled_from([1.0, 2.5]), st.sampled_from(["day", "night", ""]), st.booleans())
T = st.one_of(st.none(), st.integers(0, 16))


@st.composite
def trajectories(draw: st.DrawFn) -> list[list[Step]]:
    """1-10 steps with gaps, 0-3 events each, two items (absent, 0..3) and two state names of any kind
    (sometimes absent), cut into 1-3 appends."""
    t = draw(st.integers(0, 2))
    steps = []
    for n in range(draw(st.integers(1, 10))):
        events = tuple(Event(draw(st.sampled_from(KINDS)), draw(st.sampled_from(OBJECTS)), draw(st.integers(0, 2)))
                       for _ in range(draw(st.integers(0, 3))))
        inventory = {item: c for item in ITEMS if (c := draw(st.one_of(st.none(), st.integers(0, 3)))) is not None}
        state = {name: v for name in ("hp", "mode") if (v := draw(st.one_of(st.none(), STATE_VALUES))) is not None}
        region = draw(st.sampled_from(["forest", "cave", ""]))
        steps.append(Step(t, f"act {draw(st.integers(0, 2))}", events=events, inventory=inventory, state=state,
                          location=Location(region=region)))
        t += draw(st.integers(1, 3))
    cuts = sorted(draw(st.sets(st.integers(1, max(len(steps) - 1, 1)), max_size=2)))
    bounds = [0, *[c for c in cuts if c < len(steps)], len(steps)]
    return [steps[a:b] for a, b in itertools.pairwise(bounds) if a < b]


QUERIES = st.lists(
    st.one_of(
        st.tuples(st.just("find_event"), st.sampled_from([None, *KINDS]), st.sampled_from([None, *OBJECTS]),
                  st.sampled_from([1, 2, 3, 5, -1, -2, -4]), T, T),
        st.tuples(st.just("count_events"), st.sampled_from([None, *KINDS]), st.sampled_from([None, *OBJECTS]), T, T),
        st.tuples(st.just("find_change"), st.sampled_from([("inventory", "wood"), ("inventory", "stone"), ("state", "hp"),
                                                           ("state", "mode"), ("state", "gone")]),
                  st.sampled_from(COMPARISONS), VALUES, st.sampled_from([1, 2, 3, -1, -2]), T, T),
        st.tuples(st.just("steps_between"), st.integers(0, 16), st.integers(0, 16), st.integers(0, 5)),
        st.tuples(st.just("count_steps"), st.sampled_from(["action", "region"]),
                  st.sampled_from(["act 0", "act 1", "act 2", "forest", "cave", ""]), T, T, st.integers(0, 3)),
        st.tuples(st.just("count_held"), st.sampled_from([("inventory", "wood"), ("inventory", "stone"), ("state", "hp"),
                                                          ("state", "mode"), ("state", "gone")]),
                  st.sampled_from(COMPARISONS), VALUES, T, T, st.integers(0, 3)),
    ),
    min_size=1,
    max_size=12,
)


def test_operators_match_the_steps(store, namespace):
    examples = 80 if isinstance(store, EmbeddedStore) else 15
    seen = 0

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(batches=trajectories(), queries=QUERIES)
    def check(batches: list[list[Step]], queries: list[tuple[Any, ...]]) -> None:
        nonlocal seen
        seen += 1
        ns = f"{namespace}-{uuid.uuid4().hex[:6]}"
        try:
            steps = write(store, ns, EP, batches)
            assert store.counts(ns).get("Change", 0) == ref_change_count(steps)
            for query in queries:
                op, *args = query
                if op == "find_event":
                    kind, obj, ordinal, lo, hi = args
                    want = pick(ref_events(steps, EP, kind, obj, lo, hi), ordinal)
                    assert store.find_event(ns, EP, kind, obj, ordinal, lo, hi) == want, query
                elif op == "count_events":
                    kind, obj, lo, hi = args
                    assert store.count_events(ns, EP, kind, obj, lo, hi) == len(ref_events(steps, EP, kind, obj, lo, hi)), query
                elif op == "find_change":
                    (source, name), cmp, value, ordinal, lo, hi = args
                    want = pick(ref_changes(steps, EP, source, name, cmp, value, lo, hi), ordinal)
                    got = store.find_change(ns, EP, source, name, cmp, value, ordinal, lo, hi)
                    assert typed(got) == typed(want), (query, json.dumps([[s.t, s.inventory, s.state] for s in steps]))
                elif op == "count_steps":
                    field, value, lo, hi, shown = args
                    ts = [s.t for s in steps if in_window(s.t, lo, hi)
                          and (s.action if field == "action" else s.location.region) == value]
                    assert store.count_steps(ns, EP, field, value, lo, hi, shown) == ref_tally(ts, shown), query
                elif op == "count_held":
                    (source, name), cmp, value, lo, hi, shown = args
                    ts = [s.t for s in steps if in_window(s.t, lo, hi) and meets(value_after(s, source, name), cmp, value)]
                    assert store.count_held(ns, EP, source, name, cmp, value, lo, hi, shown) == ref_tally(ts, shown), query
                else:
                    lo, hi, limit = args
                    want_ts = [s.t for s in steps if lo <= s.t <= hi][:limit]
                    assert list(store.steps_between(ns, EP, lo, hi, limit)) == want_ts, query
        finally:
            store.delete_namespace(ns)

    check()
    assert seen >= examples
