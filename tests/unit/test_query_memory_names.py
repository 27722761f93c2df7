"""Questions read through what the memory holds: names made of question words, pronouns, category
nouns, which way an event moved a count, and the everyday idioms and clause shapes of English.

"level 5" is an event object although "level" is a word questions use of themselves; "beating it" is
the first anchor's object beaten; "a new room" is any room and "a door or container" anything opened;
"got wood" is the kind whose steps brought wood, not the one that used it up; "the number of steps
between", "how many steps apart were", "the final step with the key in my inventory", "when did I last
have 9 health" and "list the items I crafted" are the algebra's distance, condition and list. The
lexicons carry no embedder: every result comes from the grammar and the memory's own names.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.memory import Memory
from graphmem.query.algebra import (
    Condition,
    Count,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Reached,
    Read,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.recall.trajectory import lexicon_of
from graphmem.records import Event, Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.write.steps import count_pair_effect

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LEVELS = frozenset({*(("begin", f"level {n}") for n in range(1, 9)), *(("clear", f"level {n}") for n in range(1, 9))})
ROOMS = ("kitchen", "pantry", "spare room", "steam room")
HOUSE = Lexicon(
    LEVELS | {("grab", "carrot"), ("eat", "carrot"), ("set down", "carrot"), ("open", "door"), ("open", "locker"),
              ("unlock", "locker"), ("lock", "formless locker"), ("check pockets", "")}
    | {(k, r) for k in ("head into", "chart", "survey") for r in ROOMS},
    items=frozenset({"carrot", "key"}), states=frozenset({"score", "level", "moves"}), regions=frozenset(ROOMS),
)
WOODS = Lexicon(
    frozenset({("hew", "wood"), ("use up", "wood"), ("craft", "wood sword"), ("hurt", "zombie"), ("attack", "zombie"), ("sow", "sapling")}),
    items=frozenset({"wood", "wood sword", "sapling"}), states=frozenset({"health", "food", "tasks completed", "task"}),
    pair_effects=frozenset({("hew", "wood", 11, 0), ("use up", "wood", 0, 6)}),
    state_values=frozenset({("task", "boil water")}),
)


def read(question: str, lex: Lexicon = HOUSE) -> object:
    return compile_question(question, lex, 500)


def occ(kind: str, obj: str | None = None, n: int = 1) -> Occurrence:
    return Occurrence(EventPattern(kind, obj), n)


@SETTINGS
@given(n=st.integers(1, 8), verb=st.sampled_from(["began", "started", "begun"]), subject=st.sampled_from(["I", "we", "the agent"]))
def test_a_name_made_of_a_question_word_and_a_number_is_the_stored_object(n, verb, subject):
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight"][n - 1]
    for said in (str(n), words):
        q = read(f"When {subject} {verb} level {said}, what was in {subject.split()[-1]} inventory?".replace("I inventory", "my inventory"))
        assert q == Read(occ("begin", f"level {n}"), "inventory"), (said, q)


def test_an_object_pronoun_in_the_second_anchor_is_the_first_anchors_object():
    assert read("From beginning level five to finishing it, how many steps went by?") == Distance(occ("begin", "level 5"), occ("clear", "level 5"))
    assert read("How many steps passed between starting level 4 and clearing it?") == Distance(occ("begin", "level 4"), occ("clear", "level 4"))
    after = Window(start=occ("grab", "carrot"), include_start=False)
    assert read("After you first grabbed the carrot, how many steps went by before you next ate it?") == \
        Distance(occ("grab", "carrot"), Occurrence(EventPattern("eat", "carrot"), 1, after))
    # a subject "it" is no object: "until it cleared level 2"
    assert read("How many steps passed between starting level 2 and the time it cleared level 2?") == \
        Distance(occ("begin", "level 2"), occ("clear", "level 2"))


def test_distances_said_as_a_number_of_steps_or_steps_apart():
    want = Distance(occ("set down", "carrot"), occ("begin", "level 3"))
    assert read("Tell me the number of steps between setting the carrot down on the floor and starting level three.") == want
    assert read("How many steps apart were setting the carrot down and starting level 3?") == want


def test_a_category_noun_after_an_indefinite_article_or_an_or_is_any_object_of_the_kind():
    assert read("How many times did the agent chart a new room?") == Count(EventPattern("chart", None))
    assert read("When did we first open a door or container?") == Read(occ("open"), "step")
    assert read("Count the times we went into a room.") == Count(EventPattern("head into", None))
    # a room the memory names is that room
    assert read("How many times did I chart the pantry?") == Count(EventPattern("chart", "pantry"))


def test_the_longest_object_said_is_the_one_meant_even_when_that_event_never_happened():
    assert read("Did I ever undo the lock on the formless locker?") == Exists(EventPattern("unlock", "formless locker"))
    assert read("Did I ever undo the lock on the locker?") == Exists(EventPattern("unlock", "locker"))


def test_a_verb_of_getting_or_losing_picks_the_kind_that_moved_the_count_that_way():
    assert read("When did I first get wood?", WOODS) == Read(occ("hew", "wood"), "step")
    assert read("When did I first lose wood?", WOODS) == Read(occ("use up", "wood"), "step")
    effects: dict[tuple[str, str], list[int]] = {}
    count_pair_effect(effects, ("hew", "wood"), 2)
    count_pair_effect(effects, ("hew", "wood"), 0)  # the step left the count as it was: neither
    count_pair_effect(effects, ("look", ""), 1)  # no object: neither
    assert effects == {("hew", "wood"): [1, 0]}


def test_the_write_path_keeps_which_way_each_event_moved_its_object():
    steps = [Step(0, "chop", events=(Event("hew", "wood"),), inventory={"wood": 1}),
             Step(1, "chop", events=(Event("hew", "wood"),), inventory={"wood": 2}),
             Step(2, "craft", events=(Event("use up", "wood"), Event("craft", "wood sword")), inventory={"wood": 1, "wood sword": 1})]
    memory = Memory(store=EmbeddedStore(), embedder=None)
    memory.add_steps("ns", "run", steps)
    (episode,) = memory.store.episode_nodes("ns", kind="trajectory")
    lex = lexicon_of(episode)
    assert {("hew", "wood", 2, 0), ("use up", "wood", 0, 1), ("craft", "wood sword", 1, 0)} <= lex.pair_effects
    assert compile_question("When did we first get wood?", lex, 2) == Read(occ("hew", "wood"), "step")


def test_idioms_of_english_are_read_as_the_verbs_they_mean():
    assert read("When did I next take damage from a zombie after step 30?", WOODS) == \
        Read(Occurrence(EventPattern("hurt", "zombie"), 1, Window(start=StepAt(30), include_start=False)), "step")
    assert read("When did I first put a sapling in the ground?", WOODS) == Read(occ("sow", "sapling"), "step")
    assert read("Which came earlier, undoing the lock on the locker or opening the locker?") == \
        read("Which came first, unlocking the locker or opening the locker?")


def test_conditions_on_holding_and_on_a_level_the_agent_had():
    assert read("Tell me your position the final step with the key in your inventory.") == \
        Read(Reached(Condition("inventory", "key", ">=", 1), -1, None, "end"), "position")
    assert read("When did you last have 9 health? Give the step.", WOODS) == \
        Read(Reached(Condition("state", "health", "==", 9), -1, None, "end"), "step")
    assert read("When did the number of completed tasks first reach 5?", WOODS) == \
        Read(Reached(Condition("state", "tasks completed", ">=", 5), 1), "step")


def test_lists_without_a_window_when_the_question_asks_for_several():
    assert read("List the items I crafted.", WOODS) == ListEvents(EventPattern("craft", None))
    assert read("Which swords did we craft?", WOODS) == ListEvents(EventPattern("craft", None))
    assert read("What did I craft?", WOODS) == Read(occ("craft"), "object")  # the thing crafted


def test_slots_said_as_what_was_faced_recorded_or_told():
    assert read("Which thing did we face at step 81?") == Read(StepAt(81), "facing")
    assert read("Tell me where I was on step 14.") == Read(StepAt(14), "location")
    assert read("What was recorded as happening at step 9?") == Read(StepAt(9), "events")
    assert read("What was my score at step 239 of the run?") == Read(StepAt(239), "state", "score")
    # what a command acted on is the facing slot too: the step's first relation when nothing is faced
    assert read("What was I acting on at step 279?") == Read(StepAt(279), "facing")
    assert read("As of step 274, what was the target of our command?") == Read(StepAt(274), "facing")
    assert read("Looking at step 335: what object did the agent act on or look at?") == Read(StepAt(335), "facing")
    assert read("What object was the student busy with when step 555 happened?") == Read(StepAt(555), "facing")


def test_raising_or_losing_a_state_is_the_kind_whose_steps_moved_it_that_way():
    steps = [Step(0, "look", state={"score": 0, "health": 9}),
             Step(1, "work", events=(Event("make headway"),), state={"score": 2, "health": 9}),
             Step(2, "wander", events=(Event("wander"),), state={"score": 2, "health": 9}),
             Step(3, "work", events=(Event("make headway"),), state={"score": 5, "health": 9}),
             Step(4, "ouch", events=(Event("hurt", "zombie"),), state={"score": 5, "health": 7}),
             Step(5, "work", events=(Event("make headway"),), state={"score": 6, "health": 7})]
    memory = Memory(store=EmbeddedStore(), embedder=None)
    memory.add_steps("ns", "run", steps)
    (episode,) = memory.store.episode_nodes("ns", kind="trajectory")
    lex = lexicon_of(episode)
    assert ("make headway", "score", 3, 0) in lex.state_effects and ("hurt", "health", 0, 1) in lex.state_effects
    assert compile_question("How many times did I raise my score?", lex, 5) == Count(EventPattern("make headway", None))
    assert compile_question("When did we first lose health?", lex, 5) == Read(occ("hurt"), "step")
    # a stated number is a condition, not a kind: "when did my score rise to 5"
    assert compile_question("When did my score first rise to 5?", lex, 5) == Read(Reached(Condition("state", "score", ">=", 5), 1), "step")


MINER = Lexicon(
    frozenset({("mine", "coal"), ("mine", "iron"), ("mine", "stone"), ("spot", "skeleton"), ("spot", "zombie"), ("take damage", "zombie"),
               ("flee", "zombie"), ("perish", ""), ("respawn", ""), ("unlock", "make wood pickaxe"), ("craft", "wood pickaxe")}),
    items=frozenset({"coal", "iron", "stone", "wood pickaxe"}), states=frozenset({"mode", "health"}),
    state_values=frozenset({("mode", "fighting"), ("mode", "mining")}),
)


def test_an_idiom_stays_as_said_where_the_memory_holds_its_words_as_a_kind():
    assert read("When did I first take damage from a zombie?", MINER) == Read(occ("take damage", "zombie"), "step")
    assert read("When did I first take damage from a zombie?", WOODS) == Read(occ("hurt", "zombie"), "step")
    assert read("When did I first run away from a zombie?", MINER) == Read(occ("flee", "zombie"), "step")
    assert read("Before step 65, how many times did it come back after dying?", MINER) == \
        Count(EventPattern("respawn", None), Window(end=StepAt(65), include_end=False))


def test_one_verb_said_once_for_both_sides_of_a_which_first():
    assert read("Which did I mine first, coal or iron? Answer with the event.", MINER) == WhichFirst(occ("mine", "coal"), occ("mine", "iron"))
    assert read("Which did we spot first, a skeleton or a zombie?", MINER) == WhichFirst(occ("spot", "skeleton"), occ("spot", "zombie"))


def test_a_condition_inside_a_window_bounds_the_event_it_follows():
    fighting = Reached(Condition("state", "mode", "==", "fighting"), -1)
    assert read("Where was I when I next mined stone after the moment my mode switched to 'fighting' for the last time?", MINER) == \
        Read(Occurrence(EventPattern("mine", "stone"), 1, Window(start=fighting, include_start=False)), "location")


def test_frames_and_instructions_around_the_question_say_nothing_about_what_it_asks():
    assert read("How many steps into the run did I die for the first time?", MINER) == Read(occ("perish"), "step")
    assert read("Which step number marks when I first mined coal after step 30?", MINER) == \
        Read(Occurrence(EventPattern("mine", "coal"), 1, Window(start=StepAt(30), include_start=False)), "step")
    assert read("Looking back at step 288, could you list everything I was carrying, item by item?", MINER) == Read(StepAt(288), "inventory")
    assert read("If you check step 930, how much stone was in my pack?", MINER) == Read(StepAt(930), "item", "stone")
    assert read("Which events were logged for step 106?", MINER) == Read(StepAt(106), "events")


def test_a_stored_name_said_whole_after_an_article_is_that_name():
    assert read("Did I earn the make wood pickaxe achievement before step 50?", MINER) == \
        Exists(EventPattern("unlock", "make wood pickaxe"), Window(end=StepAt(50), include_end=False))
    assert read("Did I make a wood pickaxe before step 50?", MINER) == \
        Exists(EventPattern("craft", "wood pickaxe"), Window(end=StepAt(50), include_end=False))
