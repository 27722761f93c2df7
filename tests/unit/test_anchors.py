"""Anchor parsing: many phrasings, vocabulary resolution, and "never raises" properties.

These phrasings are the parser's own tests. The question generator's held-out templates
(``graphmem.recall.questions.TEMPLATES[...]["heldout"]``) must not appear here: test_questions checks it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.recall.anchors import SLOTS, Anchors, Occurrence, Vocabulary, parse_anchors, vocabulary_from_steps
from graphmem.records import Event, Location, Relation, Step

# A Crafter-like vocabulary (the names run_crafter produces).
# fmt: off
VOCAB = Vocabulary(
    event_pairs=frozenset(
        {
            ("collect", "wood"), ("collect", "sapling"), ("collect", "stone"), ("collect", "coal"),
            ("gain", "wood"), ("gain", "stone"), ("gain", "wood pickaxe"), ("gain", "stone pickaxe"),
            ("make", "wood pickaxe"), ("make", "stone pickaxe"), ("make", "wood sword"),
            ("place", "table"), ("place", "stone"), ("place", "plant"), ("place", "furnace"),
            ("drink", "water"), ("eat", "cow"), ("defeat", "cow"), ("defeat", "zombie"),
            ("visit", "forest"), ("visit", "cave"), ("visit", "lake"), ("sleep", ""), ("wake", ""),
            ("damage", "zombie"), ("damage", "hunger"), ("die", "hunger"),
            ("achievement", "collect wood"), ("achievement", "place table"),
            ("consume", "wood"), ("lose", "wood"),
        }
    ),
    objects=frozenset({"wood", "tree", "table", "water", "cow", "zombie", "sapling", "stone", "plant", "grass", "furnace"}),
    regions=frozenset({"forest", "grassland", "beach", "cave", "lake", "mountain"}),
    inventory_items=frozenset({"wood", "sapling", "stone", "coal", "wood pickaxe", "stone pickaxe", "wood sword"}),
    state_names=frozenset({"health", "food", "drink", "energy", "sleeping", "daylight"}),
)
# fmt: on


def occ(kind: str, obj: str, ordinal: int) -> Occurrence:
    return Occurrence(kind, obj, ordinal)


# (question, expected fields). Only the fields named are checked.
CASES: list[tuple[str, dict[str, object]]] = [
    # --- the eight families, in the generator's base wording -------------------------------------
    ("What did I do at step 412?", dict(target_step=412, occurrence=None, offset=0, slot="action")),
    ("Which action did I take at step 7?", dict(target_step=7, slot="action")),
    ("What was my action at step 0?", dict(target_step=0, slot="action")),
    ("At which step did I collect wood for the third time?", dict(occurrence=occ("collect", "wood", 3), slot="step")),
    ("When did I gather wood for the 5th time?", dict(occurrence=occ("collect", "wood", 5), slot="step")),
    (
        "What step was it when I killed a zombie for the second time?",
        dict(occurrence=occ("defeat", "zombie", 2), slot="step"),
    ),
    (
        "What did I do two steps after I first placed a table?",
        dict(occurrence=occ("place", "table", 1), offset=2, slot="action"),
    ),
    (
        "Which action did I take 3 steps before the second time I collected stone?",
        dict(occurrence=occ("collect", "stone", 2), offset=-3),
    ),
    (
        "What was my action right after the last time I drank water?",
        dict(occurrence=occ("drink", "water", -1), offset=1),
    ),
    ("Where was I the last time I drank water?", dict(occurrence=occ("drink", "water", -1), offset=0, slot="location")),
    (
        "In which region was I when I ate a cow for the 2nd time?",
        dict(occurrence=occ("eat", "cow", 2), slot="location"),
    ),
    ("What area was I in when I first entered the cave?", dict(occurrence=occ("visit", "cave", 1), slot="location")),
    (
        "How many saplings did I have right after I first collected stone?",
        dict(occurrence=occ("collect", "stone", 1), offset=1, slot="inventory", slot_arg="sapling"),
    ),
    (
        "How many pieces of wood were in my inventory just before the 4th time I put down stone?",
        dict(occurrence=occ("place", "stone", 4), offset=-1, slot="inventory", slot_arg="wood"),
    ),
    (
        "How many wood pickaxes did I own when I crafted a stone pickaxe for the first time?",
        dict(occurrence=occ("make", "stone pickaxe", 1), offset=0, slot="inventory", slot_arg="wood pickaxe"),
    ),
    ("When did I first get a wood pickaxe?", dict(occurrence=occ("make", "wood pickaxe", 1), slot="step")),
    (
        "When did I obtain a stone pickaxe for the first time?",
        dict(occurrence=occ("make", "stone pickaxe", 1), slot="step"),
    ),
    (
        "How many times had I collected wood by step 800?",
        dict(slot="count", count_pair=("collect", "wood"), count_until=800, slot_arg="collect wood", occurrence=None),
    ),
    ("How often had I visited the lake by step 90?", dict(slot="count", count_pair=("visit", "lake"), count_until=90)),
    (
        "How many times did I fall asleep up to step 1500?",
        dict(slot="count", count_pair=("sleep", ""), count_until=1500),
    ),
    (
        "What was my health when I defeated a zombie for the second time?",
        dict(occurrence=occ("defeat", "zombie", 2), slot="state", slot_arg="health"),
    ),
    (
        "How much energy did I have when I woke up for the third time?",
        dict(occurrence=occ("wake", "", 3), slot="state", slot_arg="energy"),
    ),
    # --- ordinals in words and digits ---------------------------------------------------------------
    ("When did I collect wood for the 1st time?", dict(occurrence=occ("collect", "wood", 1))),
    ("When did I collect wood for the twentieth time?", dict(occurrence=occ("collect", "wood", 20))),
    ("When did I collect wood for the twenty-first time?", dict(occurrence=occ("collect", "wood", 21))),
    ("When did I collect wood for the 103rd time?", dict(occurrence=occ("collect", "wood", 103))),
    ("When did I drink water for the final time?", dict(occurrence=occ("drink", "water", -1))),
    ("At which step did I most recently drink water?", dict(occurrence=occ("drink", "water", -1), slot="step")),
    ("When was the most recent time I drank water?", dict(occurrence=occ("drink", "water", -1), slot="step")),
    ("When did I drink water for the second to last time?", dict(occurrence=occ("drink", "water", -2))),
    ("When did I drink water for the second-to-last time?", dict(occurrence=occ("drink", "water", -2))),
    ("When did I drink water for the third from last time?", dict(occurrence=occ("drink", "water", -3))),
    ("Where was I when I placed a table?", dict(occurrence=occ("place", "table", 1))),  # no ordinal = first
    # --- offsets in words and digits ----------------------------------------------------------------
    ("What did I do 3 steps before I first placed a table?", dict(offset=-3)),
    ("What did I do the step right after I first placed a table?", dict(offset=1)),
    ("What did I do immediately before I first placed a table?", dict(offset=-1)),
    ("What did I do one step later than the first time I placed a table?", dict(offset=1)),
    ("What did I do two steps later than the first time I placed a table?", dict(offset=2)),
    ("What did I do a step before I placed a table for the first time?", dict(offset=-1)),
    ("What did I do the next step after I placed a table?", dict(offset=1)),
    ("What did I do just after I placed a table?", dict(offset=1)),
    ("What did I do after I placed a table?", dict(offset=1)),  # a bare "after" is the next step
    ("What did I do before I placed a table?", dict(offset=-1)),
    ("What did I do the step after step 40?", dict(target_step=40, offset=1, occurrence=None)),
    ("What did I do 5 steps before step 100?", dict(target_step=100, offset=-5)),
    ("What did I do ten steps after step 100?", dict(target_step=100, offset=10)),
    (
        "Which action followed my third drink of water?",
        dict(occurrence=occ("drink", "water", 3), offset=1, slot="action"),
    ),
    # --- verb synonyms ------------------------------------------------------------------------------
    ("When did I chop wood for the 4th time?", dict(occurrence=occ("collect", "wood", 4))),
    ("When did I pick up a sapling for the first time?", dict(occurrence=occ("collect", "sapling", 1))),
    ("When did I mine stone for the first time?", dict(occurrence=occ("collect", "stone", 1))),
    ("When did I first harvest a sapling?", dict(occurrence=occ("collect", "sapling", 1))),
    ("How many trees did I chop by step 300?", dict(slot="count", count_pair=("collect", "wood"), count_until=300)),
    ("When did I first make a wood sword?", dict(occurrence=occ("make", "wood sword", 1))),
    ("When did I first build a table?", dict(occurrence=occ("place", "table", 1))),
    ("When did I first put down the table?", dict(occurrence=occ("place", "table", 1))),
    ("When did I set up the furnace?", dict(occurrence=occ("place", "furnace", 1))),
    ("When did I first plant a sapling?", dict(occurrence=occ("place", "plant", 1))),
    ("When did I sip water for the 2nd time?", dict(occurrence=occ("drink", "water", 2))),
    ("When did I have a drink of water for the 2nd time?", dict(occurrence=occ("drink", "water", 2))),
    (
        "What was my food the time I drank for the 2nd time?",
        dict(occurrence=occ("drink", "water", 2), slot="state", slot_arg="food"),
    ),
    ("When did I ate a cow for the third time?", dict(occurrence=occ("eat", "cow", 3))),
    ("When did I slay a zombie for the first time?", dict(occurrence=occ("defeat", "zombie", 1))),
    (
        "the second time I slayed a zombie, in which region was I?",
        dict(occurrence=occ("defeat", "zombie", 2), slot="location"),
    ),
    ("When did I beat a zombie for the second time?", dict(occurrence=occ("defeat", "zombie", 2))),
    ("When did I first go into the cave?", dict(occurrence=occ("visit", "cave", 1))),
    (
        "What step was I at when I got to the cave for the first time?",
        dict(occurrence=occ("visit", "cave", 1), slot="step"),
    ),
    ("Where was I on my second visit to the cave?", dict(occurrence=occ("visit", "cave", 2), slot="location")),
    ("What did I do the step after my 2nd visit to the forest?", dict(occurrence=occ("visit", "forest", 2), offset=1)),
    ("When did I first nap?", dict(occurrence=occ("sleep", "", 1))),
    (
        "What was my energy level immediately before I fell asleep for the second time?",
        dict(occurrence=occ("sleep", "", 2), offset=-1, slot="state", slot_arg="energy"),
    ),
    ("When did I take damage from a zombie for the 1st time?", dict(occurrence=occ("damage", "zombie", 1))),
    (
        "what was my hp when i got attacked by a zombie for the first time",
        dict(occurrence=occ("damage", "zombie", 1), slot="state", slot_arg="health"),
    ),
    (
        "What was my health the third time I was hurt by a zombie?",
        dict(occurrence=occ("damage", "zombie", 3), slot="state"),
    ),
    ("What did I do just before I died?", dict(occurrence=occ("die", "hunger", 1), offset=-1, slot="action")),
    ("What did I do the step before my first death?", dict(occurrence=occ("die", "hunger", 1), offset=-1)),
    # --- object matching ----------------------------------------------------------------------------
    ("When did I first collect saplings?", dict(occurrence=occ("collect", "sapling", 1))),
    # a bare head noun resolves to the earliest in the tech-tree order (wood before stone)
    ("At what step did I first craft a pickaxe?", dict(occurrence=occ("make", "wood pickaxe", 1))),
    ("When did I make my first wooden pickaxe?", dict(occurrence=occ("make", "wood pickaxe", 1))),
    ("What did I do a step before the first zombie I killed?", dict(occurrence=occ("defeat", "zombie", 1), offset=-1)),
    ("When did I first collect wood?", dict(occurrence=occ("collect", "wood", 1))),  # not the achievement name
    # --- slots --------------------------------------------------------------------------------------
    ("Where was I standing the first time I ate a cow?", dict(slot="location")),
    ("What were my coordinates when I first placed a table?", dict(slot="position")),
    ("Where exactly was I at step 5?", dict(slot="position", target_step=5)),
    (
        "What was I facing when I drank water for the 2nd time?",
        dict(slot="facing", occurrence=occ("drink", "water", 2)),
    ),
    (
        "What was in front of me the second-to-last time I killed a zombie?",
        dict(slot="facing", occurrence=occ("defeat", "zombie", -2)),
    ),
    ("What was I looking at at step 9?", dict(slot="facing", target_step=9)),
    ("What happened at step 12?", dict(slot="events", target_step=12)),
    ("What was my drink level at step 300?", dict(slot="state", slot_arg="drink", occurrence=None, target_step=300)),
    ("How thirsty was I at step 200?", dict(slot="state", slot_arg="drink")),
    ("How much food did I have when I ate a cow?", dict(slot="state", slot_arg="food")),  # a state wins over an item
    ("Was I sleeping at step 40?", dict(slot="state", slot_arg="sleeping", occurrence=None)),
    ("At step 55, how many saplings did I have?", dict(slot="inventory", slot_arg="sapling", target_step=55)),
    ("How many wood pickaxes did I have at step 100?", dict(slot="inventory", slot_arg="wood pickaxe")),
    (
        "How much wood was in my inventory after I made a wood pickaxe?",
        dict(slot="inventory", slot_arg="wood", offset=1),
    ),
    ("What was the index of the step where I first crafted a wood pickaxe?", dict(slot="step")),
    ("When I first placed a table, what area was I in?", dict(slot="location", occurrence=occ("place", "table", 1))),
    # --- slot nouns without a wh-cue -----------------------------------------------------------------
    ("What did I end up doing in step 812?", dict(slot="action", target_step=812)),
    ("What was it that I did on step 90?", dict(slot="action", target_step=90)),
    ("What was the action I took just after the first time I placed a table?", dict(slot="action", offset=1)),
    ("What was the timestep of the first time I picked coal?", dict(slot="step", occurrence=occ("collect", "coal", 1))),
    ("The first time I walked into the lake - when was that?", dict(slot="step", occurrence=occ("visit", "lake", 1))),
    ("Tell me the area I was in during the third time I woke.", dict(slot="location", occurrence=occ("wake", "", 3))),
    # --- counts -------------------------------------------------------------------------------------
    (
        "How many zombies had I killed by step 1000?",
        dict(slot="count", count_pair=("defeat", "zombie"), count_until=1000),
    ),
    ("How many cows had I eaten by step 1500?", dict(slot="count", count_pair=("eat", "cow"), count_until=1500)),
    ("How many times had I drunk water before step 500?", dict(slot="count", count_until=499)),
    ("How often did I sleep?", dict(slot="count", count_pair=("sleep", ""), count_until=None)),
    (
        "How many times had I collected wood before I first placed a table?",
        dict(
            slot="count",
            count_pair=("collect", "wood"),
            occurrence=occ("place", "table", 1),
            offset=-1,
            count_until=None,
        ),
    ),
    (
        "Before I first placed a table, how many times had I collected wood?",
        dict(slot="count", count_pair=("collect", "wood"), occurrence=occ("place", "table", 1), offset=-1),
    ),
    (
        "how many times had i collected wood by the time i first placed a table",
        dict(slot="count", count_pair=("collect", "wood"), occurrence=occ("place", "table", 1), offset=0),
    ),
    # --- casing, punctuation, spacing ---------------------------------------------------------------
    ("WHAT DID I DO AT STEP 412", dict(target_step=412, slot="action")),
    ("what did i do   two   steps after i first placed a table", dict(offset=2, occurrence=occ("place", "table", 1))),
    ("What did I do at t=33?", dict(target_step=33, slot="action")),
    ("What did I do at step #33?", dict(target_step=33, slot="action")),
]


@pytest.mark.parametrize("question,expected", CASES, ids=[c[0][:60] for c in CASES])
def test_phrasings(question: str, expected: dict[str, object]) -> None:
    got = parse_anchors(question, VOCAB)
    for name, value in expected.items():
        assert getattr(got, name) == value, f"{name}: {getattr(got, name)!r} != {value!r} in {got}"


@pytest.mark.parametrize(
    "question", ["", "   ", "hello", "asdf qwerty 123 step", "?", "Tell me a story about dragons."]
)
def test_no_anchor_gives_empty_anchors(question: str) -> None:
    got = parse_anchors(question, VOCAB)
    assert got.target_step is None and got.occurrence is None and got.offset == 0
    assert got.count_until is None and got.count_pair is None
    assert got.slot in SLOTS


def test_slot_without_anchor_is_still_detected() -> None:
    got = parse_anchors("Where was I?", VOCAB)
    assert got == Anchors(slot="location")


def test_pair_preference_follows_the_vocabulary() -> None:
    # "got" reads collect, then make, then gain: whichever pair the memory holds.
    only_gain = Vocabulary(
        event_pairs=frozenset({("gain", "wood pickaxe")}), inventory_items=frozenset({"wood pickaxe"})
    )
    assert parse_anchors("When did I first get a wood pickaxe?", only_gain).occurrence == occ("gain", "wood pickaxe", 1)
    assert parse_anchors("When did I first get wood?", VOCAB).occurrence == occ("collect", "wood", 1)
    # "build" prefers place, "craft" prefers make, when both pairs occur
    both = Vocabulary(event_pairs=frozenset({("make", "table"), ("place", "table")}))
    assert parse_anchors("When did I build a table?", both).occurrence == occ("place", "table", 1)
    assert parse_anchors("When did I craft a table?", both).occurrence == occ("make", "table", 1)


def test_unknown_object_keeps_the_first_reading() -> None:
    got = parse_anchors("When did I first collect a diamond?", VOCAB)
    assert got.slot == "step"
    assert got.occurrence is None or got.occurrence.kind == "collect"


def test_ambiguous_intransitive_leaves_object_empty() -> None:
    # damage occurs with two sources: "took damage" alone cannot pick one.
    got = parse_anchors("When did I take damage for the first time?", VOCAB)
    assert got.occurrence == occ("damage", "", 1)


def test_vocabulary_from_steps() -> None:
    steps = [
        Step(
            0,
            "do",
            events=(Event("collect", "wood"),),
            inventory={"wood": 1},
            state={"health": 9},
            location=Location((1, 2), "forest", "grass"),
            relations=(Relation("agent", "facing", "tree"),),
        ),
        Step(1, "sleep", events=(Event("sleep", ""),), state={"health": 9}, location=Location((1, 2), "grassland")),
    ]
    vocab = vocabulary_from_steps(steps)
    assert vocab.event_pairs == frozenset({("collect", "wood"), ("sleep", "")})
    assert vocab.regions == frozenset({"forest", "grassland"})
    assert vocab.inventory_items == frozenset({"wood"})
    assert vocab.state_names == frozenset({"health"})
    assert {"wood", "tree"} <= vocab.objects


def test_parser_without_vocabulary_still_reads_steps_and_slots() -> None:
    got = parse_anchors("What did I do two steps after step 10?", Vocabulary())
    assert (got.target_step, got.offset, got.slot) == (10, 2, "action")


# --------------------------------------------------------------------------------------------------
# Properties: never raises, always a valid result
# --------------------------------------------------------------------------------------------------

_WORDS = [
    "what",
    "did",
    "I",
    "do",
    "at",
    "step",
    "when",
    "where",
    "was",
    "how",
    "many",
    "times",
    "had",
    "by",
    "before",
    "after",
    "right",
    "just",
    "the",
    "first",
    "second",
    "last",
    "to",
    "third",
    "time",
    "steps",
    "two",
    "3",
    "5th",
    "collected",
    "wood",
    "placed",
    "table",
    "drank",
    "water",
    "killed",
    "zombie",
    "saplings",
    "have",
    "my",
    "health",
    "facing",
    "inventory",
    "t=4",
    "12",
    "-",
    ",",
    "?",
    "pickaxe",
    "got",
    "a",
    "for",
    "immediately",
    "penultimate",
    "took",
    "damage",
    "from",
    "hunger",
    "fell",
    "asleep",
    "visit",
    "cave",
    "count",
    "level",
    "drink",
    "food",
]


def _check(got: Anchors) -> None:
    assert isinstance(got, Anchors)
    assert got.slot in SLOTS
    assert isinstance(got.offset, int)
    if got.occurrence is not None:
        assert got.occurrence.ordinal != 0
        assert isinstance(got.occurrence.kind, str) and isinstance(got.occurrence.obj, str)
    if got.target_step is not None:
        assert isinstance(got.target_step, int) and got.target_step >= 0
    if got.count_pair is not None:
        assert got.slot == "count"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    _check(parse_anchors(text, VOCAB))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_WORDS), max_size=25))
def test_never_raises_on_word_salad(words: list[str]) -> None:
    _check(parse_anchors(" ".join(words), VOCAB))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.frozensets(
        st.tuples(st.sampled_from(["collect", "make", "place", "sleep", "visit"]), st.text(max_size=12)), max_size=6
    ),
    st.frozensets(st.text(max_size=12), max_size=5),
    st.lists(st.sampled_from(_WORDS), max_size=20),
)
def test_never_raises_on_odd_vocabularies(
    pairs: frozenset[tuple[str, str]], names: frozenset[str], words: list[str]
) -> None:
    vocab = Vocabulary(event_pairs=pairs, objects=names, regions=names, inventory_items=names, state_names=names)
    _check(parse_anchors(" ".join(words), vocab))
