"""Questions said in two parts ("The last time I ate -- where was that?", "Step 64. Coordinates?", "I
wonder whether I slept. Did that happen?") compile to the query of the one clause they mean; frames
that bound when ("looking back from step 90, ...", "after step 68 -- ...") bound it; and a verb or
compound the memory never holds with that object names nothing rather than the object's other events.
The lexicons carry no embedder: every result comes from the grammar and the memory's own names.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.query.algebra import Count, EventPattern, Exists, Occurrence, Read, Shifted, StepAt, Window
from graphmem.query.discourse import one_question
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LEX = Lexicon(
    pairs=frozenset({("collect", "wood"), ("collect", "stone"), ("make", "wood pickaxe"), ("place", "table"),
                     ("turn on", "stove"), ("pick up", "lighter"), ("defeat", "zombie"), ("unlock", "defeat zombie"),
                     ("sleep", ""), ("visit", "kitchen")}),
    items=frozenset({"wood", "stone", "lighter"}),
    states=frozenset({"health"}),
    regions=frozenset({"kitchen", "garden"}),
)
ORDINALS = {1: "first", 2: "second", 3: "third", -1: "last"}
WOOD = EventPattern("collect", "wood")


@SETTINGS
@given(n=st.sampled_from(sorted(ORDINALS)), sep=st.sampled_from([" -- ", ". ", "; ", ": "]))
def test_a_scene_then_a_question_pointing_back_is_one_question(n: int, sep: str) -> None:
    scene = f"The {ORDINALS[n]} time I collected wood"
    assert compile_question(f"{scene}{sep}which region was that in?", LEX, 500) == Read(Occurrence(WOOD, n), "location")
    assert compile_question(f"Think back to {scene.lower()}{sep}Which step number was that?", LEX, 500) == Read(Occurrence(WOOD, n), "step")


@SETTINGS
@given(t=st.integers(min_value=5, max_value=400), k=st.integers(min_value=1, max_value=4))
def test_a_step_said_first_is_the_step_the_question_reads(t: int, k: int) -> None:
    assert compile_question(f"Step {t}. Coordinates?", LEX, 500) == Read(StepAt(t), "position")
    assert compile_question(f"Think back to {k} steps after step {t}. Which action was taken then?", LEX, 500) == Read(Shifted(StepAt(t), k), "action")
    assert compile_question(f"Go {k} steps back from step {t}: what was the command there?", LEX, 500) == Read(Shifted(StepAt(t), -k), "action")


@SETTINGS
@given(lo=st.integers(min_value=0, max_value=200), span=st.integers(min_value=5, max_value=200))
def test_a_confirmation_asks_whether_the_statement_is_true(lo: int, span: int) -> None:
    hi = lo + span
    said = f"I'm trying to remember whether I collected wood between step {lo} and step {hi}. Did that happen?"
    assert compile_question(said, LEX, 500) == Exists(WOOD, Window(StepAt(lo), StepAt(hi)))
    scene = f"Somewhere between step {lo} and step {hi}, I collected wood; at which step did that happen first?"
    assert compile_question(scene, LEX, 500) == Read(Occurrence(WOOD, 1, Window(StepAt(lo), StepAt(hi))), "step")


def test_frames_bound_when() -> None:
    before_90 = Window(end=StepAt(90), include_end=False)
    assert compile_question("Looking back from step 90, where was I the previous time I collected wood?", LEX, 500) == Read(
        Occurrence(WOOD, -1, before_90), "location")
    assert compile_question("After step 68 -- is there any record that I collected wood?", LEX, 500) == Exists(
        WOOD, Window(start=StepAt(68), include_start=False))
    assert compile_question("Looking only in the first 50 steps: when was the last time I collected wood?", LEX, 500) == Read(
        Occurrence(WOOD, -1, Window(end=StepAt(49))), "step")
    such = "After step 30, I collected wood at some point; give the x,y spot of the first such occasion."
    assert compile_question(such, LEX, 500) == Read(Occurrence(WOOD, 1, Window(start=StepAt(30), include_start=False)), "position")


def test_an_ordinal_said_last_and_a_count_asked_last() -> None:
    assert compile_question("When did I collect wood the third time?", LEX, 500) == Read(Occurrence(WOOD, 3), "step")
    assert compile_question("In the first 100 steps, I collected wood how many times?", LEX, 500) == Count(WOOD, Window(end=StepAt(99)))


def test_what_the_memory_never_holds_names_nothing_else() -> None:
    # the stored kind said as written with a held object it never took: that event, which never happened
    assert compile_question("How many times did I turn on the lighter?", LEX, 500) == Count(EventPattern("turn on", "lighter"))
    # a compound of held words the memory never holds: no stone pickaxe was made
    assert compile_question("Did I ever make a stone pickaxe?", LEX, 500) == Exists(EventPattern("make", "stone pickaxe"))
    # a verb and its object, not the achievement named with the same words
    assert compile_question("How many times did I defeat a zombie?", LEX, 500) == Count(EventPattern("defeat", "zombie"))
    assert compile_question("When did I unlock the defeat zombie achievement?", LEX, 500) == Read(
        Occurrence(EventPattern("unlock", "defeat zombie"), 1), "step")


@SETTINGS
@given(text=st.text(max_size=200))
def test_any_text_is_one_string(text: str) -> None:
    assert isinstance(one_question(text), str)
    compile_question(text, LEX, 500)  # never raises


def test_an_idiom_reads_as_its_verb_unless_the_memory_says_it_its_own_way() -> None:
    respawning = Lexicon(pairs=frozenset({("respawn", ""), ("collect", "wood")}), items=frozenset(), states=frozenset())
    new_lives = Lexicon(pairs=frozenset({("start new life", ""), ("collect", "wood")}), items=frozenset(), states=frozenset())
    assert compile_question("When did I first start a new life?", respawning, 500) == Read(Occurrence(EventPattern("respawn"), 1), "step")
    assert compile_question("When did I first begin a fresh life?", new_lives, 500) == Read(
        Occurrence(EventPattern("start new life"), 1), "step")


@SETTINGS
@given(t=st.integers(min_value=20, max_value=400), n=st.sampled_from(sorted(ORDINALS)))
def test_a_window_said_before_the_frame_that_names_the_step_bounds_it(t: int, n: int) -> None:
    scene = f"the {ORDINALS[n]} time I collected wood"
    before = Window(end=StepAt(t), include_end=False)
    assert compile_question(f"Prior to step {t}, consider {scene}. Where was I at that moment?", LEX, 500) == Read(Occurrence(WOOD, n, before), "location")
    after_table = Window(start=Occurrence(EventPattern("place", "table"), -1), include_start=False)
    said = f"Once the most recent time I placed the table had passed, consider {scene}. Which step was that?"
    assert compile_question(said, LEX, 500) == Read(Occurrence(WOOD, n, after_table), "step")
