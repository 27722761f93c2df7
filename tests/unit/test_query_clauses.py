"""Clause shapes of trajectory questions: where an anchor sits in the sentence and what refers back to it.

An occurrence may come as an appositive after its bound ("after I slept, the next time I ate"), inside a
frame ("Considering the last time before step 380 that I looked at the map: where was I?"), with its
window between "time" and "that", or as "doing it again" after another anchor. Quoted names are the
memory's names; a kind's word inside an object's name ("pork chop") does not name the kind; a name that
starts with "last" is not an ordinal; a value read "right after step N" is the one step N recorded. The
lexicons carry no embedder, so every result comes from the grammar and the memory's names alone.
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
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LEX = Lexicon(
    frozenset({("open", "door"), ("enter", "kitchen"), ("enter", "hallway"), ("take", "key"), ("drop", "key"),
               ("chop", "pork chop"), ("take", "pork chop"), ("examine", "pork chop"), ("examine", "map"),
               ("unlock achievement", "collect stone"), ("collect", "stone"), ("measure temperature", "water"),
               ("examine", "water"), ("sleep", "")}),
    frozenset({"key", "pork chop", "stone", "stone pickaxe"}),
    frozenset({"health", "points", "last reading", "task done"}),
    frozenset({"kitchen", "hallway"}),
    flags=frozenset({"task done"}),
)
SUBJECTS = ["I", "we", "the agent", "the assistant", "the adventurer"]
AFTER = Occurrence(EventPattern("enter", "hallway"), 1)


def _subject(s: str) -> str:
    return s[0].upper() + s[1:]


@SETTINGS
@given(st.sampled_from(SUBJECTS), st.sampled_from(["What happened", "Which events were recorded"]))
def test_an_appositive_occurrence_is_bounded_by_the_clause_before_it(subject: str, head: str):
    q = compile_question(f"{head} after {subject} first entered the hallway, the next time {subject} opened the door?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("open", "door"), 1, Window(start=AFTER, include_start=False)), "events")
    q = compile_question(f"After {subject} first entered the hallway, the next time {subject} opened the door: {head.lower()}?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("open", "door"), 1, Window(start=AFTER, include_start=False)), "events")


@SETTINGS
@given(st.integers(20, 800), st.sampled_from(["most recent", "last", "latest"]))
def test_before_step_then_the_most_recent_time_is_the_last_one_before_it(t: int, last: str):
    q = compile_question(f"Where were you before step {t}, the {last} time you took the key?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("take", "key"), -1, Window(end=StepAt(t), include_end=False)), "location")


@SETTINGS
@given(st.integers(10, 400), st.integers(401, 800), st.sampled_from(["Considering", "Regarding", "Thinking of"]))
def test_a_frame_names_the_occurrence_and_its_window(a: int, b: int, frame: str):
    q = compile_question(f"{frame} the first time between step {a} and step {b} that the assistant examined the map: what did it carry?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), 1, Window(StepAt(a), StepAt(b))), "inventory")
    q = compile_question(f"{frame} the last time before step {b} that I examined the map: where was I?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), -1, Window(end=StepAt(b), include_end=False)), "location")


@SETTINGS
@given(st.sampled_from(SUBJECTS), st.sampled_from(["doing it again", "did it again", "doing that again"]))
def test_doing_it_again_is_the_same_event_once_more(subject: str, again: str):
    q = compile_question(f"How long, in steps, was it from {subject} first taking the key to {subject} {again}?", LEX, 900)
    key = EventPattern("take", "key")
    assert q == Distance(Occurrence(key, 1), Occurrence(key, 2))
    q = compile_question(f"How many steps passed between the first time {subject} took the key and when it did it for the last time?", LEX, 900)
    assert q == Distance(Occurrence(key, 1), Occurrence(key, -1))


def test_the_next_time_in_a_distance_follows_the_first_anchor():
    q = compile_question("How many steps passed between the second time I took the key and the next time I entered the kitchen?", LEX, 900)
    first = Occurrence(EventPattern("take", "key"), 2)
    assert q == Distance(first, Occurrence(EventPattern("enter", "kitchen"), 1, Window(start=first, include_start=False)))


@SETTINGS
@given(st.sampled_from(["Of", "Between"]), st.sampled_from(["which one happened first", "which came first", "which did we do first"]))
def test_of_a_and_b_which_first(lead: str, ask: str):
    q = compile_question(f"{lead} taking the key and entering the kitchen, {ask}?", LEX, 900)
    assert q == WhichFirst(Occurrence(EventPattern("take", "key"), 1), Occurrence(EventPattern("enter", "kitchen"), 1))


@SETTINGS
@given(st.sampled_from(["grabbed", "took", "picked up"]))
def test_a_kind_word_inside_an_object_name_does_not_name_the_kind(verb: str):
    assert compile_question(f"Did the adventurer ever {verb} the pork chop?", LEX, 900) == Exists(EventPattern("take", "pork chop"))
    assert compile_question("When did I chop the pork chop?", LEX, 900) == Read(Occurrence(EventPattern("chop", "pork chop"), 1), "step")


@SETTINGS
@given(st.sampled_from(["got", "earned", "unlocked"]), st.sampled_from(["'", '"']))
def test_a_quoted_name_is_the_memorys_name(verb: str, quote: str):
    q = compile_question(f"When did we first {verb} the {quote}collect stone{quote} achievement?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("unlock achievement", "collect stone"), 1), "step")
    assert compile_question("When did we first collect stone?", LEX, 900) == Read(Occurrence(EventPattern("collect", "stone"), 1), "step")


def test_a_possessive_object_chooses_the_kind_that_names_what_it_has():
    q = compile_question("When did I take the water's temperature?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("measure temperature", "water"), 1), "step")


@SETTINGS
@given(st.sampled_from(["last", "latest", "most recent"]), st.integers(5, 300), st.sampled_from([("or higher", ">="), ("or lower", "<=")]))
def test_a_name_starting_with_last_is_not_an_ordinal(last: str, value: int, bound: tuple[str, str]):
    q = compile_question(f"What happened at the first step the {last} thermometer reading was {value} degrees {bound[0]}?", LEX, 900)
    assert q == Read(Reached(Condition("state", "last reading", bound[1], value), 1), "events")  # type: ignore[arg-type]


@SETTINGS
@given(st.integers(1, 99), st.sampled_from(["our score reached {v} points or more", "the points hit {v} or more"]))
def test_a_unit_between_the_value_and_or_more(v: int, clause: str):
    q = compile_question(f"What happened at the first step {clause.format(v=v)}?", LEX, 900)
    assert q == Read(Reached(Condition("state", "points", ">=", v), 1), "events")


@SETTINGS
@given(st.integers(1, 9), st.sampled_from(["was last at {v} or less", "was at {v} or lower for the last time"]))
def test_at_a_value_is_a_value_not_a_step(v: int, clause: str):
    q = compile_question(f"When was the last time my hit points {clause.format(v=v)}?", LEX, 900)
    assert isinstance(q, Read) and isinstance(q.anchor, Reached)
    assert q.anchor.condition == Condition("state", "health", "<=", v) and q.anchor.ordinal == -1


@SETTINGS
@given(st.sampled_from(["true", "false"]), st.sampled_from(["task-done flag", "task done flag"]))
def test_a_flag_was_true_is_a_condition(value: str, flag: str):
    q = compile_question(f"What was my health at the first step at which the {flag} was {value}?", LEX, 900)
    assert q == Read(Reached(Condition("state", "task done", "==", value == "true"), 1), "state", "health")


def test_the_last_step_while_a_value_held():
    lex = Lexicon(frozenset({("begin task", "boil")}), states=frozenset({"current task"}),
                  state_values=frozenset({("current task", "boil water")}))
    q = compile_question("Which events were recorded at the last step while the current task was boil water?", lex, 900)
    assert q == Read(Reached(Condition("state", "current task", "==", "boil water"), -1, None, "end"), "events")


@SETTINGS
@given(st.integers(0, 800), st.sampled_from(["Right after step {t}'s action, what did the points read?",
                                              "What did the points read once step {t} was done?",
                                              "What did the points read after step {t}'s move?"]))
def test_what_a_steps_action_left_is_recorded_at_that_step(t: int, template: str):
    assert compile_question(template.format(t=t), LEX, 900) == Read(StepAt(t), "state", "points")


@SETTINGS
@given(st.integers(0, 800), st.sampled_from(["What did I do right after step {t}?", "Right after step {t}, what did the points read?"]))
def test_right_after_a_step_is_the_next_step(t: int, template: str):
    q = compile_question(template.format(t=t), LEX, 900)
    assert isinstance(q, Read) and q.anchor == Shifted(StepAt(t), 1)


def test_an_item_never_held_is_counted_by_its_name():
    q = compile_question("How many iron pickaxes did the player have at step 40?", LEX, 900)
    assert q == Read(StepAt(40), "item", "iron pickaxe")


def test_a_record_of_is_existence():
    q = compile_question("Is there a record of the adventurer taking the key before step 214?", LEX, 900)
    assert q == Exists(EventPattern("take", "key"), Window(end=StepAt(214), include_end=False))


@SETTINGS
@given(st.sampled_from(["an event involving the pork chop", "the time we did something with the pork chop",
                        "the time I dealt with the pork chop", "the time the agent did anything with the pork chop"]),
       st.sampled_from(["second", "2nd"]))
def test_an_event_involving_an_object_is_any_kind_of_it(said: str, ordinal: str):
    said = said.replace("an event", f"the {ordinal} event").replace("the time", f"the {ordinal} time")
    q = compile_question(f"Where was I at {said}?", LEX, 900)
    assert q == Read(Occurrence(EventPattern(None, "pork chop"), 2), "location")


def test_a_kind_named_as_an_event_keeps_its_object_or_none():
    q = compile_question("At the fifth 'examine' event, what did I hold?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine"), 5), "inventory")
    q = compile_question("At the 1st 'examine' event with object 'map', where was I?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), 1), "location")


@SETTINGS
@given(st.sampled_from(SUBJECTS))
def test_following_x_next_y_and_leading_up_to_x_most_recently_y(subject: str):
    key = Occurrence(EventPattern("take", "key"), 1)
    q = compile_question(f"Following the first time {subject} took the key, {subject} next entered the kitchen. Where was {subject} then?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("enter", "kitchen"), 1, Window(start=key, include_start=False)), "location")
    q = compile_question(f"Leading up to the first time {subject} took the key, {subject} most recently examined the map. Where was {subject} then?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), -1, Window(end=key, include_end=False)), "location")


@SETTINGS
@given(st.sampled_from(["Look only", "Counting only", "Only consider steps"]))
def test_a_scope_sentence_bounds_the_occurrence_said_there(scope: str):
    q = compile_question(f"{scope} after I entered the hallway. At the last time I examined the map there, what did I hold?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), -1, Window(start=AFTER, include_start=False)), "inventory")


def test_the_most_recent_time_before_x_that_y_is_the_last_y_before_x():
    key = Occurrence(EventPattern("take", "key"), 2)
    q = compile_question("Where was I at the most recent time before the second time I took the key that I examined the map?", LEX, 900)
    assert q == Read(Occurrence(EventPattern("examine", "map"), -1, Window(end=key, include_end=False)), "location")
