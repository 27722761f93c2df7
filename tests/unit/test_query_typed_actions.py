"""Questions name events by how the agent typed them, by where a thing went, by failure, and by counts
the memory keeps.

An event kind is often the agent's own word ("warp to") while a question says what the environment
typed ("teleported to the kitchen"): the write path keeps each kind's action words (``action_template``)
and the grammar reads them. A place word after the object ("put the cd on a surface", "into a box")
picks the kind typed with that place word. Failure said any way ("tried in vain to", "my second failed
attempt to") is one verb; "how many tasks had I completed" reads a numeric state, not a text one; "the
first step by which I had finished 3 tasks" is a condition on it. The lexicons carry no embedder, so every
result comes from the grammar and the memory's own names.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.embed import default_embedder
from graphmem.memory import Memory
from graphmem.query.algebra import (
    Condition,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Reached,
    Read,
    StepAt,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.recall.trajectory import lexicon_of
from graphmem.records import Event, Location, Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.write.steps import action_template

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ROOMS = ["kitchen", "hallway", "workshop", "greenhouse"]
TYPED = frozenset({("warp to", "teleport to", 9), ("survey room", "look around", 12), ("shelve", "put _ on", 5),
                   ("stow", "insert _ into", 4), ("drop", "drop", 6), ("pick up", "take", 8), ("earn point", "take", 1)})
PAIRS = frozenset({*(("warp to", r) for r in ROOMS), *(("walk to", r) for r in ROOMS), *(("survey room", r) for r in ROOMS),
                   ("shelve", "kettle"), ("stow", "kettle"), ("drop", "kettle"), ("pick up", "kettle"), ("earn point", "")})
LEX = Lexicon(PAIRS, regions=frozenset(ROOMS), kind_actions=TYPED)


def test_action_template_keeps_the_words_of_the_doing_and_marks_where_names_stood():
    assert action_template("put the kettle on the wooden table", ["kettle", "wooden table"]) == "put _ on"
    assert action_template("teleport to kitchen", ["kitchen"]) == "teleport to"
    assert action_template("look around", ["workshop"]) == "look around"
    assert action_template("move_left", []) == "move left"
    assert action_template("kettle", ["kettle"]) == ""


def test_an_action_word_says_a_kind_only_when_that_kind_did_nearly_all_of_it():
    assert LEX.actions_of["warp to"] == ("teleport to",)
    assert "take" in LEX.actions_of["pick up"]  # 8 of 9 "take" actions were pickups
    assert "earn point" not in LEX.actions_of
    assert "drop" not in LEX.actions_of  # the kind's own name says nothing new


@SETTINGS
@given(st.sampled_from(ROOMS), st.sampled_from(["teleported to the {r}", "teleported over to the {r}", "did I teleport to the {r}"]))
def test_the_typed_verb_names_the_agents_kind(room: str, phrase: str):
    q = compile_question(f"When did I first {phrase.format(r=room).replace('did I ', '')}?", LEX, 500)
    assert q == Read(Occurrence(EventPattern("warp to", room), 1), "step")


def test_looked_around_is_the_kind_typed_look_around():
    q = compile_question("How many times did I look around before step 80?", LEX, 500)
    assert q is not None and getattr(q, "pattern", None) == EventPattern("survey room", None)


@SETTINGS
@given(st.sampled_from([("on a supporter", "shelve"), ("on top of something", "shelve"), ("onto a surface", "shelve"),
                        ("into a container", "stow"), ("inside something", "stow"), ("in a box", "stow")]),
       st.sampled_from(["placed", "put", "set"]))
def test_where_the_thing_went_picks_the_kind_typed_with_that_place_word(place: tuple[str, str], verb: str):
    q = compile_question(f"At which step did I first {verb} the kettle {place[0]}?", LEX, 500)
    assert q == Read(Occurrence(EventPattern(place[1], "kettle"), 1), "step")


def test_left_on_the_floor_is_dropped():
    q = compile_question("When did I leave the kettle on the floor for the last time?", LEX, 500)
    assert q == Read(Occurrence(EventPattern("drop", "kettle"), -1), "step")


FAIL_LEX = Lexicon(frozenset({("examine", "stand"), ("fail to examine", "stand"), ("open", "freezer"), ("fail to open", "freezer")}))


@SETTINGS
@given(st.sampled_from([("tried in vain to open the freezer", 1), ("unsuccessfully tried to open the freezer", 1),
                        ("tried to open the freezer in vain", 1)]))
def test_failure_said_any_way_is_the_failure_kind(phrase: tuple[str, int]):
    q = compile_question(f"At which step did I first {phrase[0]}?", FAIL_LEX, 500)
    assert q == Read(Occurrence(EventPattern("fail to open", "freezer"), phrase[1]), "step")


@SETTINGS
@given(st.sampled_from([("second-to-last", -2), ("last", -1), ("third", 3), ("first", 1)]))
def test_a_failed_attempt_with_an_ordinal_is_that_occurrence_of_the_failure(ordinal: tuple[str, int]):
    q = compile_question(f"Where was I at my {ordinal[0]} failed attempt to examine the stand?", FAIL_LEX, 500)
    assert q == Read(Occurrence(EventPattern("fail to examine", "stand"), ordinal[1]), "location")


def test_a_phrasal_kind_said_as_one_noun():
    lex = Lexicon(frozenset({("pick up", "pillow"), ("pick up", "key"), ("drop", "key")}))
    assert compile_question("What command did you issue at your final pickup?", lex, 500) == Read(
        Occurrence(EventPattern("pick up", None), -1), "action")


STATE_LEX = Lexicon(frozenset({("finish task", "boil water"), ("begin task", "boil water")}),
                    states=frozenset({"task", "tasks finished", "score"}), state_values=frozenset({("task", "boil water")}))


def test_how_many_reads_a_numeric_state_not_a_text_one():
    # "tasks" names the text state "task" as written; "how many" asks a number, which MiniLM finds in
    # the numeric "tasks finished"
    lex = replace(STATE_LEX, embed=default_embedder().embed)
    assert compile_question("How many tasks had I completed at the end of step 325?", lex, 500) == Read(StepAt(325), "state", "tasks finished")
    assert compile_question("What was my task at the end of step 325?", lex, 500) == Read(StepAt(325), "state", "task")


@SETTINGS
@given(st.integers(1, 9), st.sampled_from(["What did I do at the first step by which I had finished {n} tasks?",
                                            "At the first step at which we had finished {n} tasks, what did we do?"]))
def test_had_done_n_things_is_a_count_the_memory_keeps(n: int, question: str):
    q = compile_question(question.format(n=n), STATE_LEX, 500)
    assert q == Read(Reached(Condition("state", "tasks finished", ">=", n), 1), "action")


def test_at_the_end_of_step_n_reads_step_n():
    assert compile_question("Where was the agent at the end of step 354?", LEX, 500) == Read(StepAt(354), "location")


def test_plural_nouns_joined_by_or_ask_for_a_list():
    lex = Lexicon(frozenset({("open", "door"), ("open", "safe"), ("examine", "door")}))
    q = compile_question("Which containers or doors did the player open during the first 114 steps?", lex, 500)
    assert q == ListEvents(EventPattern("open", None), Window(end=StepAt(113)))


def test_an_event_the_memory_holds_nothing_like_did_not_happen():
    lex = Lexicon(frozenset({("open", "door"), ("examine", "door")}))
    q = compile_question("Did the agent unlock the portmanteau during the first 243 steps?", lex, 500)
    assert q == Exists(EventPattern("unlock", "portmanteau"), Window(end=StepAt(242)))


def test_the_write_path_counts_how_each_kind_was_typed():
    steps = [Step(t, a, events=(Event(k, o),), objects=("table",), location=Location(region="hall"))
             for t, (a, k, o) in enumerate([("teleport to kitchen", "warp to", "kitchen"), ("teleport to hall", "warp to", "hall"),
                                            ("put cup on table", "shelve", "cup")])]
    mem = Memory(store=EmbeddedStore())
    mem.add_steps("ns", "ep", steps[:2])
    mem.add_steps("ns", "ep", steps[2:])  # appending continues the counts
    lex = lexicon_of(mem.store.episode_nodes("ns")[0])
    assert ("warp to", "teleport to", 2) in lex.kind_actions
    assert lex.actions_of["shelve"] == ("put _ on",)
