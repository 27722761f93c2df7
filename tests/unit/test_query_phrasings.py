"""Natural phrasings the grammar must read, each against a memory's own lexicon.

Every case is a question a user wrote in their own words and the query it means. The lexicon is a small
memory of an agent that gathers, builds, eats, sleeps and moves between zones; the cases that need
similarity (a synonym, a paraphrased verb) use the real MiniLM model through the ``embed`` fixture.
"""

from __future__ import annotations

import pytest

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
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon

PAIRS = frozenset({
    ("collect", "wood"), ("collect", "stone"), ("collect", "sapling"), ("place", "table"), ("place", "stone"),
    ("make", "wood pickaxe"), ("make", "stone pickaxe"), ("sleep", ""), ("wake", ""), ("eat", "cow"),
    ("drink", "water"), ("defeat", "zombie"), ("visit", "E5"), ("visit", "F6"), ("die", ""),
    ("achievement", "collect wood"), ("open", "door to the bedroom"), ("open", "door to the outside"),
    ("turn on", "lamp"), ("run test", ""), ("call tool", "search"),
})
LAST_T = 500

wood, table = EventPattern("collect", "wood"), EventPattern("place", "table")


@pytest.fixture(scope="module")
def lexicon(embed) -> Lexicon:
    return Lexicon(PAIRS, frozenset({"wood", "stone", "sapling", "wood pickaxe"}),
                   frozenset({"health", "food", "energy", "lamp", "stage"}), frozenset({"E5", "F6"}), embed=embed)


CASES = [
    ("What did I do two steps after the third time I collected wood?", Read(Shifted(Occurrence(wood, 3), 2), "action")),
    ("At what step did the agent pick up wood for the 3rd time?", Read(Occurrence(wood, 3), "step")),
    ("When did we gather wood again?", Read(Occurrence(wood, 2), "step")),
    ("When was the second-to-last time I drank water?", Read(Occurrence(EventPattern("drink", "water"), -2), "step")),
    ("When did I die for the twenty-third time?", Read(Occurrence(EventPattern("die"), 23), "step")),
    ("After I slept, what did I do?", Read(Shifted(Occurrence(EventPattern("sleep")), 1), "action")),
    ("On step 465, where was Ada?", Read(StepAt(465), "location")),
    ("What did I do during step 12?", Read(StepAt(12), "action")),
    ("What was my final health?", Read(StepAt(LAST_T), "state", "health")),
    ("How much wood did I have when I placed the table?", Read(Occurrence(table), "item", "wood")),
    ("What was in my bag right after I placed the table?", Read(Shifted(Occurrence(table), 1), "inventory")),
    ("Where was I the last time I placed a table?", Read(Occurrence(table, -1), "location")),
    ("When did I run out of wood?", Read(Reached(Condition("inventory", "wood", "==", 0)), "step")),
    ("When did my stone count first reach 4?", Read(Reached(Condition("inventory", "stone", ">=", 4)), "step")),
    ("When did my health reach 0?", Read(Reached(Condition("state", "health", "==", 0)), "step")),
    ("Which step was the first time my food fell to 4 or lower?", Read(Reached(Condition("state", "food", "<=", 4)), "step")),
    ("What was the last step at which my energy was above 8?",
     Read(Reached(Condition("state", "energy", ">", 8), -1, at="end"), "step")),
    ("When did I first have 2 wood pickaxes?", Read(Reached(Condition("inventory", "wood pickaxe", ">=", 2)), "step")),
    ("When did the lamp turn on?", Read(Reached(Condition("state", "lamp", "==", True)), "step")),
    ("Was the lamp on at step 104 (true or false)?", Read(StepAt(104), "state", "lamp")),
    ("When did I collect wood after I placed the table?",
     Read(Occurrence(wood, 1, Window(start=Occurrence(table), include_start=False)), "step")),
    ("When did I drink for the 2nd time between steps 245 and 421?",
     Read(Occurrence(EventPattern("drink"), 2, Window(StepAt(245), StepAt(421))), "step")),
    ("How many times did we collect wood before step 100?", Count(wood, Window(end=StepAt(100), include_end=False))),
    ("By step 100, how many times had I collected wood?", Count(wood, Window(end=StepAt(100)))),
    ("How many tests did I run in the first 100 steps?", Count(EventPattern("run test"), Window(end=StepAt(99)))),
    ("Did I ever eat a diamond?", Exists(EventPattern("eat", "diamond"))),
    ("Have we defeated a zombie after step 400?", Exists(EventPattern("defeat", "zombie"), Window(start=StepAt(400), include_start=False))),
    ("Is there any step earlier than step 250 where I ate?", Exists(EventPattern("eat"), Window(end=StepAt(250), include_end=False))),
    ("Which came first: placing the table or making the wood pickaxe?",
     WhichFirst(Occurrence(table), Occurrence(EventPattern("make", "wood pickaxe")))),
    ("Did I make the stone pickaxe or place the table first?",
     WhichFirst(Occurrence(EventPattern("make", "stone pickaxe")), Occurrence(table))),
    ("Of the 2nd time I placed stone and the final time I drank water, which occurred first?",
     WhichFirst(Occurrence(EventPattern("place", "stone"), 2), Occurrence(EventPattern("drink", "water"), -1))),
    ("How many steps passed between my first sleep and my first wake?",
     Distance(Occurrence(EventPattern("sleep")), Occurrence(EventPattern("wake")))),
    ("How far apart, in steps, were the first time I slept and the final time I drank water?",
     Distance(Occurrence(EventPattern("sleep")), Occurrence(EventPattern("drink", "water"), -1))),
    ("List everything I collected between step 10 and step 50.", ListEvents(EventPattern("collect"), Window(StepAt(10), StepAt(50)))),
    ("When did I open the bedroom door?", Read(Occurrence(EventPattern("open", "door to the bedroom")), "step")),
    ("When did I first enter a zone?", Read(Occurrence(EventPattern("visit")), "step")),
    ("When did I first make a tool?", Read(Occurrence(EventPattern("make")), "step")),
    ("When did I gather timber for the first time?", Read(Occurrence(wood), "step")),
    ("When was the last time I called the search tool?", Read(Occurrence(EventPattern("call tool", "search"), -1), "step")),
]


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[q for q, _ in CASES])
def test_phrasing(question: str, expected: object, lexicon: Lexicon) -> None:
    assert compile_question(question, lexicon, LAST_T) == expected


def test_a_question_about_nothing_in_memory_compiles_to_nothing(lexicon: Lexicon) -> None:
    assert compile_question("What is the capital of France?", lexicon, LAST_T) is None
