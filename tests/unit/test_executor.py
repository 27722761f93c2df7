"""The deterministic executor answers from the evidence bundle alone and returns None, never a guess,
when the decisive step is missing."""

from __future__ import annotations

import pytest

from graphmem.recall.anchors import Anchors, Occurrence
from graphmem.recall.executor import (
    EvidenceBundle,
    EvidenceStep,
    bundle_from_steps,
    event_ordinals,
    execute,
    format_scalar,
    normalize_answer,
    read_slot,
)
from graphmem.records import Event, Location, Relation, Step

EP = "ep1"


def _step(
    t: int,
    action: str,
    events: tuple[Event, ...] = (),
    wood: int = 0,
    sapling: int = 0,
    health: int = 9,
    region: str = "grassland",
    facing: str = "grass",
) -> Step:
    inventory = {k: v for k, v in (("wood", wood), ("sapling", sapling)) if v}
    return Step(
        t,
        action,
        events=events,
        inventory=inventory,
        state={"health": health, "food": 9, "sleeping": False, "daylight": 0.5},
        location=Location((t, 2 * t), region, "grass"),
        relations=(Relation("agent", "facing", facing),),
    )


# A small hand-built episode: wood collected at t=1, 3, 6; a table placed at 4; water drunk at 2 and 8.
STEPS = [
    _step(0, "move left"),
    _step(
        1,
        "do (collect wood)",
        (Event("collect", "wood"), Event("gain", "wood")),
        wood=1,
        region="forest",
        facing="tree",
    ),
    _step(2, "do (drink water)", (Event("drink", "water"),), wood=1, region="lake", facing="water"),
    _step(
        3,
        "do (collect wood)",
        (Event("collect", "wood"), Event("gain", "wood")),
        wood=2,
        region="forest",
        facing="tree",
    ),
    _step(
        4,
        "place table",
        (Event("place", "table"), Event("consume", "wood"), Event("lose", "wood")),
        wood=1,
        facing="table",
    ),
    _step(5, "move up", (), wood=1, health=7),
    _step(
        6,
        "do (collect wood)",
        (Event("collect", "wood"), Event("gain", "wood")),
        wood=2,
        region="forest",
        facing="tree",
    ),
    _step(7, "do (collect sapling)", (Event("collect", "sapling"),), wood=2, sapling=1),
    _step(8, "do (drink water)", (Event("drink", "water"),), wood=2, sapling=1, region="lake", facing="water"),
    _step(9, "noop", (), wood=2, sapling=1),
]
FULL = bundle_from_steps(EP, STEPS)


def _without(*ts: int) -> EvidenceBundle:
    return bundle_from_steps(EP, STEPS, keep={s.t for s in STEPS} - set(ts))


def test_event_ordinals_count_events_per_pair() -> None:
    per_step, totals = event_ordinals(STEPS)
    assert per_step[6] == (("collect", "wood", 3), ("gain", "wood", 3))
    assert totals[("collect", "wood")] == 3 and totals[("drink", "water")] == 2
    assert FULL.steps[6].source_id == "ep1:6" and FULL.steps[6].episode_id == EP


@pytest.mark.parametrize(
    "anchors,answer",
    [
        (Anchors(target_step=4, slot="action"), "place table"),
        (Anchors(target_step=4, offset=-1, slot="action"), "do (collect wood)"),
        (Anchors(occurrence=Occurrence("collect", "wood", 2), slot="step"), "3"),
        (Anchors(occurrence=Occurrence("collect", "wood", -1), slot="step"), "6"),
        (Anchors(occurrence=Occurrence("collect", "wood", -2), slot="step"), "3"),
        (Anchors(occurrence=Occurrence("place", "table", 1), offset=2, slot="action"), "do (collect wood)"),
        (Anchors(occurrence=Occurrence("place", "table", 1), offset=-3, slot="action"), "do (collect wood)"),
        (Anchors(occurrence=Occurrence("drink", "water", -1), slot="location"), "lake"),
        (Anchors(occurrence=Occurrence("drink", "water", 1), slot="position"), "2,4"),
        (Anchors(occurrence=Occurrence("collect", "wood", 1), offset=1, slot="inventory", slot_arg="wood"), "1"),
        (Anchors(occurrence=Occurrence("collect", "wood", 1), slot="inventory", slot_arg="sapling"), "0"),
        (Anchors(occurrence=Occurrence("place", "table", 1), offset=1, slot="state", slot_arg="health"), "7"),
        (Anchors(target_step=5, slot="state", slot_arg="sleeping"), "false"),
        (Anchors(target_step=5, slot="state", slot_arg="daylight"), "0.5"),
        (Anchors(occurrence=Occurrence("collect", "wood", 3), slot="facing"), "tree"),
        (Anchors(target_step=4, slot="events"), "place table; consume wood; lose wood"),
        (Anchors(target_step=0, slot="events"), "none"),
        (Anchors(slot="count", count_pair=("collect", "wood"), count_until=5), "2"),
        (Anchors(slot="count", count_pair=("collect", "wood"), count_until=6), "3"),
        (Anchors(slot="count", count_pair=("collect", "wood"), count_until=0), "0"),
        (Anchors(slot="count", count_pair=("collect", "wood")), "3"),
        # count bounded by an occurrence: wood collected before the first table (anchor t=4, offset -1)
        (
            Anchors(
                slot="count", count_pair=("collect", "wood"), occurrence=Occurrence("place", "table", 1), offset=-1
            ),
            "2",
        ),
    ],
)
def test_answers_from_full_evidence(anchors: Anchors, answer: str) -> None:
    assert execute(anchors, FULL) == answer


@pytest.mark.parametrize(
    "anchors,missing",
    [
        (Anchors(target_step=4, slot="action"), (4,)),
        # the target of an offset must be in the evidence, even if its neighbours are
        (Anchors(occurrence=Occurrence("place", "table", 1), offset=2, slot="action"), (6,)),
        # the anchor itself must be in the evidence
        (Anchors(occurrence=Occurrence("place", "table", 1), offset=2, slot="action"), (4,)),
        (Anchors(occurrence=Occurrence("collect", "wood", 2), slot="step"), (3,)),
        (Anchors(occurrence=Occurrence("collect", "wood", -1), slot="location"), (6,)),
        (Anchors(occurrence=Occurrence("collect", "wood", 1), offset=1, slot="inventory", slot_arg="wood"), (2,)),
        (Anchors(slot="count", count_pair=("collect", "wood"), count_until=5), (1, 3)),
        (
            Anchors(
                slot="count", count_pair=("collect", "wood"), occurrence=Occurrence("place", "table", 1), offset=-1
            ),
            (4,),
        ),
    ],
)
def test_missing_decisive_step_gives_none(anchors: Anchors, missing: tuple[int, ...]) -> None:
    assert execute(anchors, FULL) is not None
    assert execute(anchors, _without(*missing)) is None


def test_minimal_evidence_is_enough() -> None:
    keep = bundle_from_steps(EP, STEPS, keep={4, 6})
    assert (
        execute(Anchors(occurrence=Occurrence("place", "table", 1), offset=2, slot="action"), keep)
        == "do (collect wood)"
    )
    assert (
        execute(
            Anchors(slot="count", count_pair=("collect", "wood"), count_until=8), bundle_from_steps(EP, STEPS, keep={6})
        )
        == "3"
    )


def test_count_reports_what_the_evidence_proves() -> None:
    # The latest event at or before the bound answers; with t=6 missing the evidence only proves 2.
    assert execute(Anchors(slot="count", count_pair=("collect", "wood"), count_until=8), _without(6)) == "2"


def test_last_needs_the_episode_total() -> None:
    no_totals = EvidenceBundle(FULL.steps, ())
    assert execute(Anchors(occurrence=Occurrence("collect", "wood", -1), slot="step"), no_totals) is None
    assert execute(Anchors(occurrence=Occurrence("collect", "wood", 3), slot="step"), no_totals) == "6"


@pytest.mark.parametrize(
    "anchors",
    [
        Anchors(),
        Anchors(slot="action"),  # no anchor
        Anchors(target_step=99, slot="action"),  # outside the episode
        Anchors(target_step=9, offset=1, slot="action"),
        Anchors(occurrence=Occurrence("collect", "wood", 4), slot="step"),  # no fourth
        Anchors(occurrence=Occurrence("collect", "wood", -4), slot="step"),
        Anchors(occurrence=Occurrence("collect", "wood", 0), slot="step"),
        Anchors(occurrence=Occurrence("collect", "diamond", 1), slot="step"),
        Anchors(target_step=3, slot="inventory"),  # no item named
        Anchors(target_step=3, slot="state", slot_arg="mana"),
        Anchors(target_step=3, slot="unknown"),
        Anchors(slot="count"),
        Anchors(slot="count", count_pair=("collect", "diamond")),
    ],
)
def test_incomplete_or_unanswerable_gives_none(anchors: Anchors) -> None:
    assert execute(anchors, FULL) is None


def test_empty_evidence() -> None:
    assert execute(Anchors(target_step=1, slot="action"), EvidenceBundle((), ())) is None


def test_steps_of_two_episodes_are_not_mixed() -> None:
    other = bundle_from_steps("ep2", STEPS)
    both = EvidenceBundle(FULL.steps + other.steps, FULL.event_totals)
    # a bare step index is ambiguous across episodes
    assert execute(Anchors(target_step=4, slot="action"), both) is None
    # the target of an offset is looked up in the anchor's own episode
    only_ep2_anchor = EvidenceBundle(
        tuple(s for s in FULL.steps if s.t != 4) + tuple(s for s in other.steps if s.t == 4), FULL.event_totals
    )
    assert (
        execute(Anchors(occurrence=Occurrence("place", "table", 1), offset=2, slot="action"), only_ep2_anchor) is None
    )


def test_location_falls_back_to_position_without_region() -> None:
    step = Step(0, "noop", location=Location((3, 4)))
    assert read_slot(step, "location") == "3,4"
    assert read_slot(Step(0, "noop"), "location") is None
    assert read_slot(Step(0, "noop"), "facing") is None


def test_evidence_step_ordinals_are_trusted_as_given() -> None:
    # The executor does not recount: a packer that states ordinals is believed.
    step = STEPS[5]
    bundle = EvidenceBundle((EvidenceStep("ep1:5", EP, 5, step, (("collect", "wood", 7),)),), (("collect", "wood", 7),))
    assert execute(Anchors(occurrence=Occurrence("collect", "wood", -1), slot="action"), bundle) == "move up"


@pytest.mark.parametrize(
    "a,b",
    [
        ("Step 412.", "412"),
        ("t=412", "412"),
        ("  The   Forest ", "forest"),
        ("(3, 4)", "3,4"),
        ("7.0", "7"),
        ("wood_pickaxe", "wood pickaxe"),
        ("'lake'", "lake"),
    ],
)
def test_normalize_answer(a: str, b: str) -> None:
    assert normalize_answer(a) == normalize_answer(b)


def test_normalize_answer_keeps_distinct_answers_distinct() -> None:
    assert normalize_answer("12") != normalize_answer("1,2")
    assert normalize_answer("stone pickaxe") != normalize_answer("wood pickaxe")
    assert normalize_answer(None) == ""


def test_format_scalar() -> None:
    assert [format_scalar(v) for v in (7, 7.0, 0.25, True, False, "day")] == ["7", "7", "0.25", "true", "false", "day"]
