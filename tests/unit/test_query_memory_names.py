"""The grammar reads the names a memory holds as the memory spells them.

Numbered objects ("cabinet 4", "fix/bug-276") are only ever the one the question numbers; a leading step
frame ("Step 190:", "Back at step 59,") anchors the question at that step; a state's text values ("when
my goal was 'find water'") and true/false states ("when I was first logged in") are conditions; one-word
synonyms name kinds and states ("energy" for a stored "stamina") but a name said as written wins; two
anchors joined by "to" or "and" split where both sides read. The lexicons carry no embedder, so every
result comes from the grammar and the memory's names alone.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.query.algebra import (
    Condition,
    Distance,
    EventPattern,
    Exists,
    Occurrence,
    Reached,
    Read,
    StepAt,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ORDINALS = [(1, "for the first time"), (2, "for the second time"), (3, "for the 3rd time"), (-1, "for the last time")]


@SETTINGS
@given(st.sampled_from(["cabinet", "drawer", "shelf"]), st.integers(1, 12), st.integers(1, 12), st.sampled_from(ORDINALS))
def test_a_numbered_object_is_the_one_the_question_numbers(noun: str, n: int, other: int, ordinal: tuple[int, str]):
    pairs = frozenset({("open", f"{noun} {n}"), ("open", f"{noun} {other}"), ("close", f"{noun} {n}")})
    lex = Lexicon(pairs)
    q = compile_question(f"At which step did I open {noun} {n} {ordinal[1]}?", lex, 900)
    assert q == Read(Occurrence(EventPattern("open", f"{noun} {n}"), ordinal[0]), "step")


@SETTINGS
@given(st.sampled_from(["BUG-{}", "fix/bug-{}", "ticket #{}x"]), st.integers(100, 999), st.integers(100, 999))
def test_identifiers_with_digits_match_exactly(template: str, n: int, other: int):
    name, decoy = template.format(n), template.format(other)
    lex = Lexicon(frozenset({("push", name), ("push", decoy)}))
    q = compile_question(f"When did we push {name} for the final time?", lex, 900)
    assert q == Read(Occurrence(EventPattern("push", name), -1), "step")


FRAMES = ["Step {t}: {q}", "Step #{t} \u2014 {q}", "Back at step {t}, {q}", "For step {t}, {q}", "Looking at step {t}: {q}",
          "During step {t}, {q}", "Right at step {t}: {q}", "{q} as of step {t}"]
SLOT_PHRASES = [("what was my action", "action", None), ("where were we", "location", None),
                ("what was directly ahead of it", "facing", None), ("which events were logged", "events", None),
                ("what was the agent carrying", "inventory", None), ("what was my health", "state", "health"),
                ("how many coins did I have", "item", "coin")]


@SETTINGS
@given(st.sampled_from(FRAMES), st.sampled_from(SLOT_PHRASES), st.integers(0, 2000))
def test_a_leading_step_frame_anchors_the_question(frame: str, phrase: tuple[str, str, str | None], t: int):
    lex = Lexicon(frozenset({("collect", "coin"), ("open", "door")}), frozenset({"coin"}), frozenset({"health"}))
    text, slot, name = phrase
    q = compile_question(frame.format(t=t, q=text) + "?", lex, 5000)
    assert q == Read(StepAt(t), slot, name)  # type: ignore[arg-type]


VALUES = ["find water", "put a cool potato in garbagecan 1", "preparing", "hide in a burrow to heal", "build a furnace"]


@SETTINGS
@given(st.sampled_from(VALUES), st.sampled_from([("first", 1, "start"), ("last", -1, "end")]),
       st.sampled_from(["When was my goal {o} \"{v}\"?", "What step was it when our goal was {o} '{v}'?",
                        "When did the agent's goal {o} read \"{v}\"?"]))
def test_a_text_value_of_a_state_is_a_condition(value: str, order: tuple[str, int, str], template: str):
    word, ordinal, at = order
    lex = Lexicon(frozenset({("collect", "wood"), ("build", "furnace")}), frozenset({"wood"}), frozenset({"goal", "health"}),
                  state_values=frozenset({("goal", v) for v in VALUES}))
    q = compile_question(template.format(o=word, v=value), lex, 900)
    assert q == Read(Reached(Condition("state", "goal", "==", value), ordinal, None, at), "step")  # type: ignore[arg-type]


def test_a_value_that_is_an_event_object_stays_an_event():
    lex = Lexicon(frozenset({("make", "tin"), ("take", "jar")}), state_values=frozenset({("focus", "tin")}))
    q = compile_question("When did I first turn something into tin?", lex, 900)
    assert q == Read(Occurrence(EventPattern("make", "tin"), 1), "step")


@SETTINGS
@given(st.integers(0, 900), st.sampled_from(["was I logged in", "were we logged in", "was the agent still logged in"]))
def test_true_false_states_are_read_and_reached(t: int, phrase: str):
    lex = Lexicon(frozenset({("press", "log in"), ("open", "inbox")}), states=frozenset({"logged in", "balance"}),
                  flags=frozenset({"logged in"}))
    assert compile_question(f"At step {t}, {phrase}?", lex, 900) == Read(StepAt(t), "state", "logged in")
    q = compile_question("When we were first logged in, what was our action?", lex, 900)
    assert q == Read(Reached(Condition("state", "logged in", "==", True), 1), "action")


@SETTINGS
@given(st.sampled_from([("energy", "stamina"), ("hp", "health"), ("thirst", "hydration"), ("objective", "goal")]),
       st.integers(0, 900))
def test_a_synonym_names_a_state_and_the_written_name_wins(pair: tuple[str, str], t: int):
    said, stored = pair
    lex = Lexicon(frozenset({("eat", "cow")}), states=frozenset({stored, "daylight"}))
    assert compile_question(f"What was my {said} at step {t}?", lex, 900) == Read(StepAt(t), "state", stored)
    both = Lexicon(frozenset({("eat", "cow")}), states=frozenset({stored, said}))
    assert compile_question(f"What was my {stored} at step {t}?", both, 900) == Read(StepAt(t), "state", stored)
    assert compile_question(f"What was my {said} at step {t}?", both, 900) == Read(StepAt(t), "state", said)


@SETTINGS
@given(st.sampled_from(ORDINALS), st.sampled_from(ORDINALS))
def test_two_anchors_split_where_both_read(first: tuple[int, str], second: tuple[int, str]):
    lex = Lexicon(frozenset({("fall asleep", ""), ("die", ""), ("go to", "lake")}))
    q = compile_question(f"How many steps did it take to go from falling asleep {first[1]} to dying {second[1]}?", lex, 900)
    assert q == Distance(Occurrence(EventPattern("fall asleep", None), first[0]), Occurrence(EventPattern("die", None), second[0]))


def test_the_place_an_event_happened_is_not_its_object():
    lex = Lexicon(frozenset({("drop", "scarf"), ("drop", "key"), ("put", "floor"), ("open", "door to kitchen"), ("open", "door")}))
    assert compile_question("Did I drop an item on the floor before step 50?", lex, 900) == Exists(
        EventPattern("drop", None), Window(end=StepAt(50), include_end=False))
    assert compile_question("When did I open the door leading to the kitchen for the 2nd time?", lex, 900) == Read(
        Occurrence(EventPattern("open", "door to kitchen"), 2), "step")


def test_the_agent_as_patient():
    lex = Lexicon(frozenset({("strike", "zombie"), ("get hurt", "zombie"), ("die", "")}))
    assert compile_question("When did I get hit by a zombie for the third time?", lex, 900) == Read(
        Occurrence(EventPattern("get hurt", "zombie"), 3), "step")
    assert compile_question("When did I strike a zombie for the third time?", lex, 900) == Read(
        Occurrence(EventPattern("strike", "zombie"), 3), "step")


@SETTINGS
@given(st.sampled_from(ORDINALS[:3]), st.sampled_from(ORDINALS))
def test_an_elliptical_second_anchor_repeats_the_first(first: tuple[int, str], second: tuple[int, str]):
    lex = Lexicon(frozenset({("focus on", "seed"), ("wait", "")}))
    words_first = first[1].removeprefix("for ")
    q = compile_question(f"How many steps passed from {words_first} I focused on the seed to {second[1].removeprefix('for ')}?", lex, 900)
    assert q == Distance(Occurrence(EventPattern("focus on", "seed"), first[0]), Occurrence(EventPattern("focus on", "seed"), second[0]))


def test_nouns_of_events_name_their_kind():
    lex = Lexicon(frozenset({("die", ""), ("build", "table"), ("enter", "sector A1"), ("enter", "sector B2")}))
    assert compile_question("At which step was my first death?", lex, 900) == Read(Occurrence(EventPattern("die", None), 1), "step")
    assert compile_question("When was my 4th sector change?", lex, 900) == Read(Occurrence(EventPattern("enter", None), 4), "step")
