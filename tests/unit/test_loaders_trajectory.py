"""Trajectory loaders: real rollouts (Crafter, TextWorld, ScienceWorld, Jericho) and logs (ALFWorld,
JSONL) become valid Steps whose events agree with the ground truth they were derived from.

Every environment used here runs offline on this machine; none of these tests is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from graphmem.errors import InvalidRecordError
from graphmem.loaders.alfworld import read_alfworld_jsonl, steps_from_alfworld_log
from graphmem.loaders.crafter import run_crafter
from graphmem.loaders.environments import LOADERS, load_trajectory
from graphmem.loaders.jericho import steps_from_jericho, steps_from_jericho_env
from graphmem.loaders.jsonl_steps import read_steps_jsonl, step_to_dict, write_steps_jsonl
from graphmem.loaders.scienceworld import parse_inventory, parse_look, run_scienceworld
from graphmem.loaders.textworld import make_game, run_textworld
from graphmem.records import EVENT_KINDS, Event, Location, Relation, Step, validate_steps

DATA = Path(__file__).resolve().parents[1] / "data"
CRAFTER_STEPS = 300


# --------------------------------------------------------------------------------------------------
# Shared checks
# --------------------------------------------------------------------------------------------------


def _deltas(step: Step) -> Counter[str]:
    delta: Counter[str] = Counter()
    for event in step.events:
        if event.kind == "gain":
            delta[event.obj] += event.count
        elif event.kind == "lose":
            delta[event.obj] -= event.count
    return delta


def assert_inventory_follows_gain_lose(steps: list[Step], starts_empty: bool = True) -> None:
    """inventory after a step == inventory before + gains - losses, for every step.

    Text games hand the player items before step 0: then the start inventory is what step 0
    holds minus its own gains plus its losses, and it must be a real inventory (counts >= 0).
    """
    before: Counter[str] = Counter()
    if not starts_empty:
        start = Counter(steps[0].inventory_dict)
        start.subtract(_deltas(steps[0]))
        assert all(v >= 0 for v in start.values()), start
        before = Counter({k: v for k, v in start.items() if v})
    for step in steps:
        expected = Counter(before)
        for event in step.events:
            if event.kind == "gain":
                expected[event.obj] += event.count
            elif event.kind == "lose":
                expected[event.obj] -= event.count
        expected = Counter({k: v for k, v in expected.items() if v})
        assert Counter(step.inventory_dict) == expected, f"t={step.t} {step.action!r}: {step.events}"
        before = Counter(step.inventory_dict)


def assert_canonical_names(steps: list[Step]) -> None:
    for step in steps:
        names = [*step.objects, *step.inventory_dict, *(e.obj for e in step.events)]
        names += [x for r in step.relations for x in (r.subject, r.obj)]
        for name in names:
            assert "_" not in name and name == name.lower(), f"t={step.t}: {name!r} is not a canonical name"
        assert step.summary.strip(), f"t={step.t} has no summary"
        assert all(e.kind in EVENT_KINDS for e in step.events)


def digest(steps: list[Step]) -> str:
    text = "\n".join(json.dumps(step_to_dict(s), sort_keys=True) for s in steps)
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------------------------------
# Crafter
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def crafter_steps() -> list[Step]:
    return run_crafter(seed=0, steps=CRAFTER_STEPS)


def test_crafter_episode_is_valid_and_full_length(crafter_steps):
    assert len(crafter_steps) == CRAFTER_STEPS  # the scripted agent survives; no early "die"
    validate_steps(crafter_steps, "crafter seed 0")
    assert [s.t for s in crafter_steps] == list(range(CRAFTER_STEPS))
    assert not any(e.kind == "die" for s in crafter_steps for e in s.events)
    assert_canonical_names(crafter_steps)
    for step in crafter_steps:
        assert step.location.position is not None and step.location.region and step.location.underfoot
        assert {"health", "food", "drink", "energy"} <= set(step.state_dict)
        assert not step.action.startswith(("move_", "make_", "place_"))


def test_crafter_events_come_from_ground_truth(crafter_steps):
    pairs = Counter((e.kind, e.obj) for s in crafter_steps for e in s.events)
    assert pairs[("collect", "wood")] >= 3
    assert pairs[("place", "table")] >= 1 and pairs[("make", "wood pickaxe")] == 1
    assert pairs[("achievement", "collect wood")] == 1  # unlocked once, however often it happens
    assert pairs[("visit", crafter_steps[0].location.region)] >= 1  # step 0 visits the start region
    for step in crafter_steps:
        kinds = {e.kind for e in step.events}
        inv_before = {} if step.t == 0 else crafter_steps[step.t - 1].inventory_dict
        if ("collect", "wood") in {(e.kind, e.obj) for e in step.events}:
            assert step.action == "do (collect wood from tree)"
            assert step.inventory_dict.get("wood", 0) >= min(inv_before.get("wood", 0) + 1, 9)
        if "make" in kinds or "place" in kinds:
            # what was made/placed was paid for: consume events equal the inventory losses
            consumed = {e.obj: e.count for e in step.events if e.kind == "consume"}
            lost = {e.obj: e.count for e in step.events if e.kind == "lose"}
            assert consumed == lost and consumed
        if "sleep" in kinds:
            assert step.state_dict["sleeping"] is True
        if "visit" in kinds:
            assert [e.obj for e in step.events if e.kind == "visit"] == [step.location.region]


def test_crafter_inventory_follows_gain_and_lose(crafter_steps):
    assert_inventory_follows_gain_lose(crafter_steps)


def test_crafter_is_deterministic_within_and_across_processes(crafter_steps):
    again = run_crafter(seed=0, steps=CRAFTER_STEPS)
    assert again == crafter_steps
    # Crafter alone diverges across processes (it draws from a set of objects); our env does not.
    code = (
        "import hashlib, json, sys\n"
        "from graphmem.loaders.crafter import run_crafter\n"
        "from graphmem.loaders.jsonl_steps import step_to_dict\n"
        f"steps = run_crafter(seed=0, steps={CRAFTER_STEPS})\n"
        "text = '\\n'.join(json.dumps(step_to_dict(s), sort_keys=True) for s in steps)\n"
        "print(hashlib.sha256(text.encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == digest(crafter_steps)


def test_crafter_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unknown crafter policy"):
        run_crafter(seed=0, steps=10, policy="greedy")
    with pytest.raises(ValueError, match="positive"):
        run_crafter(seed=0, steps=0)


# --------------------------------------------------------------------------------------------------
# TextWorld (and Jericho on the same compiled game)
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tw_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("textworld")


@pytest.fixture(scope="module")
def tw_steps(tw_dir) -> list[Step]:
    return run_textworld(seed=1, steps=60, workdir=tw_dir)


def test_textworld_steps_have_rooms_inventory_and_events(tw_steps, tw_dir):
    validate_steps(tw_steps, "textworld")
    assert_canonical_names(tw_steps)
    assert_inventory_follows_gain_lose(tw_steps, starts_empty=False)
    assert all(s.location.region for s in tw_steps)
    kinds = Counter(e.kind for s in tw_steps for e in s.events)
    assert kinds["visit"] >= 2 and kinds["collect"] >= 1 and kinds["lose"] >= 1
    assert tw_steps[0].events[0] == Event("visit", tw_steps[0].location.region)
    # The walkthrough is kept for the end, so the quest is completed on the last step.
    assert Event("achievement", "quest completed") in tw_steps[-1].events
    assert tw_steps[-1].state_dict["won"] is True
    for step in tw_steps:
        rel = set(step.relations)
        assert Relation("agent", "in", step.location.region) in rel
        assert {Relation("agent", "carrying", x) for x in step.inventory_dict} <= rel
        if any(e.kind == "visit" for e in step.events):
            assert [e.obj for e in step.events if e.kind == "visit"] == [step.location.region]


def test_textworld_is_deterministic(tw_steps, tw_dir):
    assert run_textworld(seed=1, steps=60, workdir=tw_dir) == tw_steps


def test_jericho_plays_a_z_machine_file(tw_steps, tw_dir):
    game = make_game(1, tw_dir)  # already compiled by the textworld fixture
    actions = [s.action for s in tw_steps[:15]]
    steps = steps_from_jericho(game, actions)
    validate_steps(steps, "jericho")
    # Jericho does not know the player object of a TextWorld game: rooms come from the text.
    assert [s.location.region for s in steps] == [s.location.region for s in tw_steps[:15]]
    assert all(s.state_dict["inventory_tracked"] is False and not s.inventory for s in steps)


class FakeZObject:
    def __init__(self, num: int, name: str) -> None:
        self.num, self.name = num, name


class FakeFrotz:
    """Jericho's FrotzEnv API on a three-room toy world (for what needs a supported game file)."""

    def __init__(self) -> None:
        self.room, self.carried, self.score = FakeZObject(1, "West of House"), [], 0

    def reset(self):
        return "West of House\nYou are standing in an open field.", {"moves": 0, "score": 0}

    def step(self, action):
        if action == "north":
            self.room = FakeZObject(2, "North of House")
        elif action == "take lamp":
            self.carried.append(FakeZObject(9, "brass lantern"))
            self.score += 5
        elif action == "drop lamp":
            self.carried.clear()
        return "Done.", 0, action == "jump off cliff", {"moves": 1, "score": self.score}

    def get_player_location(self):
        return self.room

    def get_inventory(self):
        return list(self.carried)

    def get_world_state_hash(self):
        return f"{self.room.num}-{len(self.carried)}"

    def victory(self):
        return False


def test_jericho_api_mapping_on_a_supported_game():
    steps = steps_from_jericho_env(FakeFrotz(), ["north", "take lamp", "drop lamp", "jump off cliff"])
    assert [s.location.region for s in steps] == ["north of house"] * 4
    assert [(e.kind, e.obj, e.count) for e in steps[0].events] == [("visit", "north of house", 1)]
    assert ("collect", "brass lantern", 1) in [(e.kind, e.obj, e.count) for e in steps[1].events]
    assert ("achievement", "points", 5) in [(e.kind, e.obj, e.count) for e in steps[1].events]
    assert steps[1].inventory_dict == {"brass lantern": 1} and steps[2].inventory == ()
    assert Event("die", "") in steps[3].events
    assert steps[1].state_dict["world_state_hash"] == "2-1"
    assert_inventory_follows_gain_lose(steps)


def test_jericho_missing_package_or_game_file_is_explained(monkeypatch, tmp_path):
    with pytest.raises(FileNotFoundError, match="ships no games"):
        steps_from_jericho(tmp_path / "zork1.z5", ["north"])
    monkeypatch.setitem(sys.modules, "jericho", None)  # as if it were not installed
    with pytest.raises(ImportError, match="pip install jericho"):
        steps_from_jericho(tmp_path / "zork1.z5", ["north"])


# --------------------------------------------------------------------------------------------------
# ScienceWorld
# --------------------------------------------------------------------------------------------------


def test_scienceworld_boil_gold_path_and_exploration():
    steps = run_scienceworld("boil", variation=0, steps=45, seed=0)
    validate_steps(steps, "scienceworld")
    assert len(steps) == 45
    assert_canonical_names(steps)
    assert_inventory_follows_gain_lose(steps, starts_empty=False)  # the agent starts with an orange
    assert all(s.location.region for s in steps)
    assert steps[0].location.region == "hallway" and steps[1].location.region == "kitchen"
    pairs = {(e.kind, e.obj) for s in steps for e in s.events}
    assert {("visit", "kitchen"), ("open", "door to kitchen"), ("collect", "thermometer")} <= pairs
    assert {("collect", "metal pot"), ("move", "metal pot"), ("use", "sink"), ("use", "stove")} <= pairs
    assert ("achievement", "task completed") in pairs
    assert ("water", "in", "metal pot") in {(r.subject, r.predicate, r.obj) for s in steps for r in s.relations}
    assert "boil" in steps[0].state_dict["task"].lower()


def test_scienceworld_text_parsers():
    look = parse_look(
        "This room is called the kitchen. In it, you see: \n\tthe agent\n\ta substance called air\n"
        "\ta counter. On the counter is: a bowl (containing a red apple, a banana), a drawer.\n"
        "\ta stove, which is turned off. On the stove is: nothing.\nYou also see:\n"
        "\tA door to the hallway (that is open)\n"
    )
    assert look.room == "kitchen" and look.objects == ["air", "counter", "stove", "door to hallway"]
    rel = {(r.subject, r.predicate, r.obj) for r in look.relations}
    assert {("red apple", "in", "bowl"), ("bowl", "on", "counter"), ("stove", "is", "off")} <= rel
    assert ("door to hallway", "is", "open") in rel
    items, relations = parse_inventory(
        "In your inventory, you see:\n\ta metal pot (containing a substance called water)\n\tan orange\n\tan orange\n"
    )
    assert items == {"metal pot": 1, "orange": 2} and relations == [Relation("water", "in", "metal pot")]
    with pytest.raises(ValueError, match="unknown ScienceWorld task"):
        run_scienceworld("bake a cake", steps=1)


# --------------------------------------------------------------------------------------------------
# ALFWorld logs
# --------------------------------------------------------------------------------------------------


def test_alfworld_sample_tracks_location_inventory_and_relations():
    steps = read_alfworld_jsonl(DATA / "alfworld_sample.jsonl")
    assert len(steps) == 20
    assert_canonical_names(steps)
    assert_inventory_follows_gain_lose(steps)
    by_action = {s.action: s for s in steps}
    assert [s.location.region for s in steps[:3]] == ["countertop 1", "cabinet 1", "cabinet 1"]
    take = by_action["take apple 1 from countertop 2"]
    assert take.inventory_dict == {"apple 1": 1} and Event("collect", "apple 1") in take.events
    failed = by_action["take knife 1 from countertop 2"]
    assert failed.events == () and failed.summary == "nothing happened"
    assert failed.inventory_dict == {"apple 1": 1}
    heat = by_action["heat apple 1 with microwave 1"]
    assert Event("use", "microwave 1") in heat.events and Relation("apple 1", "is", "hot") in heat.relations
    sink = by_action["go to sinkbasin 1"]
    assert Relation("dishsponge 1", "on", "sinkbasin 1") in sink.relations  # "On the sinkbasin 1, ..."
    put = by_action["put apple 1 in/on fridge 1"]
    assert put.inventory == () and Event("move", "apple 1") in put.events
    assert Relation("apple 1", "in", "fridge 1") in put.relations
    assert Relation("egg 1", "in", "fridge 1") in put.relations
    assert Event("close", "fridge 1") in steps[-1].events and Relation("fridge 1", "is", "closed") in steps[-1].relations
    assert all(s.state_dict["task"] == "put a hot apple in fridge" for s in steps)


def test_alfworld_bad_records_are_named():
    with pytest.raises(InvalidRecordError) as err:
        steps_from_alfworld_log([{"action": "go to desk 1"}])
    assert err.value.where == "alfworld log record 1" and err.value.field == "observation"
    with pytest.raises(InvalidRecordError, match="only the first record"):
        steps_from_alfworld_log([{"action": "look", "observation": "x"}, {"action": None, "observation": "y"}])


# --------------------------------------------------------------------------------------------------
# JSONL steps
# --------------------------------------------------------------------------------------------------


def test_jsonl_round_trip(tmp_path, crafter_steps):
    alf = read_alfworld_jsonl(DATA / "alfworld_sample.jsonl")
    for steps in (crafter_steps, alf):
        path = tmp_path / "steps.jsonl"
        write_steps_jsonl(steps, path)
        assert read_steps_jsonl(path) == steps
    assert load_trajectory("jsonl", path=path) == alf


def test_jsonl_minimal_lines_and_blank_lines(tmp_path):
    path = tmp_path / "steps.jsonl"
    path.write_text('{"t": 0, "action": "look"}\n\n{"t": 5, "action": "go north", "location": {"region": "hall"}}\n')
    steps = read_steps_jsonl(path)
    assert steps == [Step(0, "look"), Step(5, "go north", location=Location(region="hall"))]


def _lines(n: int) -> list[str]:
    return [json.dumps(step_to_dict(Step(t, f"action {t}", events=(Event("collect", "wood"),)))) for t in range(n)]


@pytest.mark.parametrize(
    "bad_line, field, needle",
    [
        ('{"t": 3, "action": "do", "events": [{"kind": "collect", "obj": "wo', "json", "truncated"),
        ("not json at all", "json", "invalid JSON"),
        ('{"t": "3", "action": "do"}', "t", "integer"),
        ('{"t": 3}', "action", "missing"),
        ('{"t": 3, "action": ""}', "action", "non-empty"),
        ('{"t": 3, "action": "do", "events": [{"kind": "tele;port", "obj": "x"}]}', "events", "must be a short phrase"),
        ('{"t": 3, "action": "do", "events": [{"kind": "collect", "count": -1}]}', "events", "non-negative"),
        ('{"t": 3, "action": "do", "relations": [["agent", "near"]]}', "relations[0]", "subject, predicate, object"),
        ('{"t": 3, "action": "do", "inventory": {"wood": 1.5}}', "inventory.wood", "integer"),
        ('{"t": 3, "action": "do", "state": {"health": [1]}}', "state.health", "finite number"),
        ('{"t": 3, "action": "do", "location": {"position": [1, 2, 3]}}', "location.position", "[x, y]"),
        ('{"t": 3, "action": "do", "evnets": []}', "evnets", "unknown key"),
        ('[3, "do"]', "step", "JSON object"),
        ('{"t": 1, "action": "again"}', "t", "duplicate step index t=1"),
        ('{"t": 0, "action": "back"}', "t", "out of order"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, bad_line, field, needle):
    path = tmp_path / "steps.jsonl"
    lines = _lines(2) + [bad_line] + _lines(5)[3:]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidRecordError) as err:
        read_steps_jsonl(path)
    assert err.value.where.startswith("steps.jsonl line 3"), err.value.where
    assert err.value.field == field
    assert needle in str(err.value)


def test_jsonl_empty_file_and_bad_writes(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    with pytest.raises(InvalidRecordError, match="no step"):
        read_steps_jsonl(path)
    target = tmp_path / "out.jsonl"
    target.write_text("old content\n")
    with pytest.raises(InvalidRecordError):
        write_steps_jsonl([Step(1, "a"), Step(0, "b")], target)
    assert target.read_text() == "old content\n"  # nothing partial: the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.jsonl", "out.jsonl"]  # no temp file left


# --------------------------------------------------------------------------------------------------
# Dispatcher
# --------------------------------------------------------------------------------------------------


def test_load_trajectory_dispatch():
    assert set(LOADERS) >= {"crafter", "textworld", "scienceworld", "alfworld", "jsonl"}
    steps = load_trajectory("alfworld", path=DATA / "alfworld_sample.jsonl")
    assert len(steps) == 20
    with pytest.raises(TypeError, match="exactly one of path"):
        load_trajectory("alfworld")


def test_load_trajectory_crafter_is_run_crafter(crafter_steps):
    # The policy does not look at the episode length: a shorter run is a prefix of a longer one.
    assert load_trajectory("crafter", seed=0, steps=20) == crafter_steps[:20]


def test_load_trajectory_unknown_names():
    with pytest.raises(InvalidRecordError) as err:
        load_trajectory("minecraft", seed=0)
    assert isinstance(err.value, ValueError)
    assert "crafter" in str(err.value) and "scienceworld" in str(err.value)
