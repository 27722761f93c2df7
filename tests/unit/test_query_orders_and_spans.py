"""Orders asked as yes/no questions, spans named by a counter's value, counts of what is carried, and the
other English readings of the ninth held-out round's study: "did A happen before B, or the other way
round" is which-first; "in house 3" is the steps at which the ``house`` counter was 3; "my pack held four
or more things" is the state that counts what the agent carries; "the overall score" is ``total_score``;
"without killing it" is no part of the event; "when step 305 finished" is step 305; offered options
answer a which-first. The lexicons carry no embedder: every result comes from the grammar and the
memory's own names.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.memory import Memory
from graphmem.query.algebra import (
    Condition,
    Count,
    Distance,
    EventPattern,
    ListEvents,
    Occurrence,
    Precedes,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.answers import _offered, answers_match, normalize_answer, offered_options
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.records import Event, Relation, Step
from graphmem.store.embedded import EmbeddedStore

MEALS = Lexicon(frozenset({("eat", "apple"), ("drink", "water"), ("grab", "key"), ("grab", "lamp")}), frozenset({"key", "lamp"}),
                frozenset({"house", "score", "total_score", "pack_size"}))
EAT = Occurrence(EventPattern("eat", "apple"), 1)
DRINK = Occurrence(EventPattern("drink", "water"), 1)


def test_before_or_after_is_which_first() -> None:
    assert compile_question("Did I eat the apple before or after I drank water?", MEALS, 500) == WhichFirst(EAT, DRINK)
    assert compile_question("Did I first eat the apple before I first drank water, or the other way round?", MEALS, 500) == WhichFirst(EAT, DRINK)
    assert compile_question("Did my first apple meal come after I first drank water, or before?", MEALS, 500) == WhichFirst(EAT, DRINK)


def test_a_plain_before_question_stays_yes_no() -> None:
    assert not isinstance(compile_question("Did I eat the apple before I drank water?", MEALS, 500), WhichFirst)


ORDINALS = {1: "first", 2: "second", -1: "last"}


@given(st.sampled_from(sorted(ORDINALS)), st.sampled_from(sorted(ORDINALS)),
       st.sampled_from(["Was", "Is it true that", "Did"]), st.sampled_from(["earlier than", "before", "prior to", "after", "later than"]))
def test_the_order_of_two_occasions_said_as_noun_phrases_is_yes_no(n: int, k: int, lead: str, rel: str) -> None:
    eat = Occurrence(EventPattern("eat", "apple"), n)
    drink = Occurrence(EventPattern("drink", "water"), k)
    verb = " come" if lead == "Did" else ""
    q = compile_question(f"{lead} the {ORDINALS[n]} time I ate the apple{verb} {rel} the {ORDINALS[k]} time I drank water?", MEALS, 500)
    assert q == (Precedes(drink, eat) if rel in ("after", "later than") else Precedes(eat, drink))
    if lead == "Is it true that":
        said = f"Is it true that the {ORDINALS[n]} time I ate the apple preceded the {ORDINALS[k]} time I drank water?"
        assert compile_question(said, MEALS, 500) == Precedes(eat, drink)


@given(st.integers(min_value=1, max_value=40), st.sampled_from(["in", "during", "over"]))
def test_a_counter_value_names_a_span(house: int, prep: str) -> None:
    held = Condition("state", "house", "==", house)
    span = Window(Reached(held, 1, None, "start"), Reached(held, -1, None, "end"), True, True)
    q = compile_question(f"How many times did I grab the key {prep} house {house}?", MEALS, 500)
    assert q == Count(EventPattern("grab", "key"), span)
    assert compile_question(f"Which things did I grab {prep} house {house}?", MEALS, 500) == ListEvents(EventPattern("grab", None), span)


def test_a_count_of_things_carried_is_the_state_that_keeps_it() -> None:
    q = compile_question("The first time my pack held four or more things, which room was I in?", MEALS, 500)
    assert q == Read(Reached(Condition("state", "pack_size", ">=", 4), 1), "location")


def test_the_overall_score_is_the_total() -> None:
    q = compile_question("As soon as the overall score got to 7, what did I hold?", MEALS, 500)
    assert q == Read(Reached(Condition("state", "total_score", ">=", 7), 1), "inventory")
    q = compile_question("As soon as the score got to 7, what did I hold?", MEALS, 500)
    assert q == Read(Reached(Condition("state", "score", ">=", 7), 1), "inventory")


def test_what_was_not_done_is_no_part_of_the_event() -> None:
    lex = Lexicon(frozenset({("strike", "cow"), ("slay", "cow")}))
    q = compile_question("When did I first hit a cow without killing it?", lex, 500)
    assert q == Read(Occurrence(EventPattern("strike", "cow"), 1), "step")


def test_a_finished_step_is_that_step() -> None:
    assert compile_question("Which room was I in when step 305 finished?", MEALS, 500) == Read(StepAt(305), "location")


def test_the_first_and_the_last_as_a_distance() -> None:
    q = compile_question("How far apart were the first and the last time I grabbed the key?", MEALS, 500)
    assert q == Distance(Occurrence(EventPattern("grab", "key"), 1), Occurrence(EventPattern("grab", "key"), -1))


def test_a_verb_stored_as_a_refused_command_still_names_its_kind() -> None:
    lex = Lexicon(frozenset({("inspect", "box"), ("get refused", "examine")}))
    q = compile_question("When did I next examine something after step 5?", lex, 500)
    assert q == Read(Occurrence(EventPattern("inspect", None), 1, Window(StepAt(5), None, False, True)), "step")


def test_offered_options_name_the_earlier_anchor() -> None:
    assert offered_options("Which came first? Answer 'slay' or 'quarry stone'.") == ("slay", "quarry stone")
    assert offered_options("Which came first, the apple or the water?") is None
    # by the words each option shares with an anchor's label, else in the order asked
    assert _offered("quarry stone", "slay zombie", ("slay", "quarry stone"), first_earlier=True) == "quarry stone"
    assert _offered("kills >= 1", "respawn", ("condition", "respawn"), first_earlier=False) == "respawn"
    assert _offered("a", "b", ("x", "y"), first_earlier=True) == "x"
    # "was A before or after B? Answer 'before' or 'after'": where A stands
    assert _offered("a", "b", ("before", "after"), first_earlier=False) == "after"
    assert _offered("a", "b", ("after", "before"), first_earlier=True) == "before"


def test_the_executor_answers_the_object_the_order_and_an_empty_pack() -> None:
    steps = [Step(0, "look", relations=(Relation("Fern", "handles", "room"),)),
             Step(1, "take axe", events=(Event("pick up", "axe"),), inventory={"axe": 1}, relations=(Relation("Fern", "handles", "axe"),)),
             Step(2, "open door", events=(Event("open", "door to hall"),), inventory={"axe": 1}),
             Step(3, "drop axe", events=(Event("drop", "axe"),)),
             Step(4, "take jar", events=(Event("pick up", "jar"),), inventory={"jar": 1})]
    memory = Memory(store=EmbeddedStore(), embedder=None)
    memory.add_steps("ns", "run", steps)
    assert memory.answer("ns", "What did I pick up first?").text == "axe"
    assert memory.answer("ns", "What did I pick up next after step 2?").text == "jar"
    # what the earlier anchor's step did, as recorded
    assert memory.answer("ns", "Which came first: opening anything, or picking up the jar?").text == "open door to hall"
    # a change in what was carried is named by the event about that item at its step
    assert memory.answer("ns", "Did I stop carrying the axe before or after I picked up the jar?").text == "drop axe"
    assert answers_match(memory.answer("ns", "What was I carrying at step 3?").text, "empty")


def test_empty_answers_in_any_words_agree() -> None:
    assert normalize_answer("Empty") == normalize_answer("none") == normalize_answer("nothing")


def test_a_quoted_event_label_is_that_kind_with_that_object() -> None:
    lex = Lexicon(frozenset({("chop", "wood"), ("switch target", "wood"), ("enter", "west yard")}), frozenset({"wood"}))
    q = compile_question("After the 1st time I had a 'switch target wood' event, when did I next enter the west yard?", lex, 500)
    assert q == Read(Occurrence(EventPattern("enter", "west yard"), 1, Window(Occurrence(EventPattern("switch target", "wood"), 1), None, False, True)), "step")


def test_a_perfect_tense_count_counts_events_and_an_unheld_event_happened_no_times() -> None:
    lex = Lexicon(frozenset({("sip", "water"), ("chop", "wood")}), frozenset({"wood"}))
    assert compile_question("Up to step 300, how many sips of water had the agent taken?", lex, 500) == \
        Count(EventPattern("sip", "water"), Window(None, StepAt(300), True, True))
    q = compile_question("How many times did I paint a fence before step 300?", lex, 500)
    assert isinstance(q, Count) and not any(q.pattern.matches(k, o) for k, o in lex.pairs)


def test_a_value_said_before_its_state_name_is_that_value() -> None:
    lex = Lexicon(frozenset({("grab", "key")}), states=frozenset({"mode", "house"}), state_values=frozenset({("mode", "questing"), ("mode", "roaming")}))
    q = compile_question("Where was the agent the first time it went into questing mode?", lex, 500)
    assert q == Read(Reached(Condition("state", "mode", "==", "questing"), 1), "location")


def _house(n: int) -> Window:
    held = Condition("state", "house", "==", n)
    return Window(Reached(held, 1, None, "start"), Reached(held, -1, None, "end"), True, True)


def test_a_counter_span_inside_one_of_two_anchors_bounds_that_anchor_only() -> None:
    q = compile_question("How many steps passed between the first time I ate the apple and the first time I grabbed the key in house 9?", MEALS, 500)
    assert q == Distance(EAT, Occurrence(EventPattern("grab", "key"), 1, _house(9)))
    q = compile_question("Which came first: the second time I grabbed the lamp in house 3, or the first time I drank water during house 5? "
                         "Answer 'lamp' or 'water'.", MEALS, 500)
    assert q == WhichFirst(Occurrence(EventPattern("grab", "lamp"), 2, _house(3)), Occurrence(EventPattern("drink", "water"), 1, _house(5)))


def test_a_span_said_first_or_pointed_back_at_bounds_both_anchors() -> None:
    both = WhichFirst(Occurrence(EventPattern("eat", "apple"), 1, _house(4)), Occurrence(EventPattern("drink", "water"), 1, _house(4)))
    assert compile_question("House 4: which came first, my first apple of that house or my first drink of water?", MEALS, 500) == both
    q = compile_question("In house 2, did I grab the key before or after I ate the apple in that house?", MEALS, 500)
    assert q == WhichFirst(Occurrence(EventPattern("grab", "key"), 1, _house(2)), Occurrence(EventPattern("eat", "apple"), 1, _house(2)))


def test_a_spans_ends_are_packed_after_the_anchors_it_bounds() -> None:
    steps = [Step(t, "act", events=events, state={"house": 1 + t // 4})
             for t, events in enumerate([(), (Event("eat", "apple"),), (), (), (), (), (Event("drink", "water"),), ()])]
    memory = Memory(store=EmbeddedStore(), embedder=None)
    memory.add_steps("ns", "run", steps)
    result = memory.answer("ns", "Which came first: my first drink of water in house 2, or my first apple during house 1?")
    assert result.text == "eat apple"
    ids = [source.rsplit(":", 1)[1] for source in result.evidence.source_ids]
    assert ids[:2] == ["6", "1"]  # the anchors; the houses' first and last steps come after them


def test_a_text_state_value_names_a_span() -> None:
    lex = Lexicon(frozenset({("look around", ""), ("walk into", "kitchen")}), states=frozenset({"task", "tasks_done"}),
                  state_values=frozenset({("task", "find-plant"), ("task", "melt")}))
    held = Condition("state", "task", "==", "find-plant")
    span = Window(Reached(held, 1, None, "start"), Reached(held, -1, None, "end"), True, True)
    assert compile_question("How many times did I look around during the find-plant task?", lex, 500) == Count(EventPattern("look around", None), span)
    assert compile_question("Which rooms did I walk into while working on find-plant?", lex, 500) == ListEvents(EventPattern("walk into", None), span)
    # a number is compared with the numeric state, not the text one
    assert compile_question("When did the number of finished tasks first become 2?", lex, 500) == \
        Read(Reached(Condition("state", "tasks_done", "==", 2), 1), "step")


def test_a_step_record_frame_a_quicker_to_question_and_two_things_said_in_a_scene() -> None:
    assert compile_question("Looking at the record of step 936, what was I holding?", MEALS, 999) == Read(StepAt(936), "inventory")
    assert compile_question("Was I quicker to eat the apple or to drink water?", MEALS, 500) == WhichFirst(EAT, DRINK)
    assert compile_question("I first ate the apple, and I also drank water. Which of the two happened sooner?", MEALS, 500) == WhichFirst(EAT, DRINK)
    assert compile_question("From step 15 onward, how many steps were there at which I grabbed the key?", MEALS, 500) == \
        Count(EventPattern("grab", "key"), Window(StepAt(15), None, True, True))


def test_skipping_rewinding_and_the_nearest_earlier_step() -> None:
    assert compile_question("Skip ahead 3 steps from step 434: which events does that step hold?", MEALS, 999) == \
        Read(Shifted(StepAt(434), 3), "events")
    assert compile_question("Going backwards from step 211, which is the nearest earlier step where I ate the apple?", MEALS, 999) == \
        Read(Occurrence(EventPattern("eat", "apple"), -1, Window(None, StepAt(211), True, False)), "step")
    assert compile_question("What did I grab 3 steps before step 231?", MEALS, 999) == Read(Shifted(StepAt(231), -3), "object")
