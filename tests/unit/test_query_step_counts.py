"""Questions that count steps (``CountSteps``): read from English, to and from JSON, answered from a store."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.memory import Memory
from graphmem.query import CountSteps, StepAt, StepIs, Window, compile_question, from_json, query_schema, to_json
from graphmem.query.algebra import Condition, QueryError
from graphmem.query.lexicon import Lexicon
from graphmem.query.resolve import resolve
from graphmem.records import Location, Step
from graphmem.store.embedded import EmbeddedStore
from hash_embed import HashEmbedder

LEX = Lexicon(
    frozenset({("collect", "wood"), ("arrive", "pond")}),
    items=frozenset({"wood"}),
    states=frozenset({"health", "game"}),
    regions=frozenset({"home meadow", "pond"}),
    actions=frozenset({"noop", "move_left", "take key"}),
)


@pytest.mark.parametrize(
    "question, what",
    [
        ('On how many steps did we choose "move_left"?', StepIs("action", "move_left")),
        ("how many steps did I move left", StepIs("action", "move_left")),
        ('How many times was the action "noop" taken?', StepIs("action", "noop")),
        ("On how many steps did the agent take the key?", StepIs("action", "take key")),
        ("How many steps did you spend in the home meadow?", StepIs("region", "home meadow")),
        ("For how many steps were you located in the pond area?", StepIs("region", "pond")),
        ("How long did I spend in the pond?", StepIs("region", "pond")),
        ("How many steps had my health at or above 9?", Condition("state", "health", ">=", 9)),
        ("On how many steps was the agent's health at or below 5?", Condition("state", "health", "<=", 5)),
        ("For how many steps was my health below 3?", Condition("state", "health", "<", 3)),
        ("How many steps did game 4 take?", Condition("state", "game", "==", 4)),
    ],
)
def test_step_counts_read_from_english(question: str, what: object) -> None:
    q = compile_question(question, LEX, 1000)
    assert isinstance(q, CountSteps) and q.what == what and q.window is None, q


def test_a_window_bounds_the_count() -> None:
    q = compile_question('On how many steps did we choose "move_left" from step 221 to step 537?', LEX, 1000)
    assert q == CountSteps(StepIs("action", "move_left"), Window(StepAt(221), StepAt(537)))
    q = compile_question("How many steps did you spend in the pond following step 566?", LEX, 1000)
    assert q == CountSteps(StepIs("region", "pond"), Window(StepAt(566), include_start=False))


@pytest.mark.parametrize(
    "question",
    ["How many steps did it take to collect wood?", "how many steps passed between my first wood and the pond",
     "How many steps into the run did I reach the pond?", "How many steps did I spend dreaming of castles?"],
)
def test_other_questions_are_no_step_counts(question: str) -> None:
    assert not isinstance(compile_question(question, LEX, 1000), CountSteps)


WHATS = st.one_of(
    st.builds(StepIs, st.sampled_from(["action", "region"]), st.text(min_size=1, max_size=20).filter(str.strip)),
    st.builds(Condition, st.sampled_from(["inventory", "state"]), st.sampled_from(["wood", "hp"]),
              st.sampled_from(["<", "<=", ">=", ">"]), st.integers(-5, 5)),
)


@given(WHATS, st.one_of(st.none(), st.builds(Window, st.builds(StepAt, st.integers(0, 99)))))
def test_json_round_trip_and_schema(what: StepIs | Condition, window: Window | None) -> None:
    q = CountSteps(what, window)
    doc = to_json(q)
    jsonschema.validate(doc, query_schema())
    assert from_json(doc) == q


@pytest.mark.parametrize(
    "doc",
    [{"op": "count_steps"}, {"op": "count_steps", "action": "a", "region": "b"}, {"op": "count_steps", "action": ""},
     {"op": "count_steps", "field": "action"}, {"op": "count_steps", "region": 3}],
)
def test_bad_json_is_a_clear_error(doc: dict[str, object]) -> None:
    with pytest.raises(QueryError, match="count_steps|query"):
        from_json(doc)


def test_bad_records_are_query_errors() -> None:
    with pytest.raises(QueryError):
        StepIs("place", "pond")  # type: ignore[arg-type]
    with pytest.raises(QueryError):
        CountSteps("noop")  # type: ignore[arg-type]


def test_resolution_counts_steps_and_shows_the_last() -> None:
    store = EmbeddedStore()
    steps = [Step(t, "noop" if t % 2 else "move_left", state={"health": 9 - t % 10},
                  location=Location(region="pond" if t < 30 else "home meadow")) for t in range(60)]
    Memory(store=store, embedder=HashEmbedder()).add_steps("ns", "ep", steps)
    r = resolve(store, "ns", "ep", 59, CountSteps(StepIs("action", "noop"), Window(StepAt(10), StepAt(19))))
    assert r.facts[0].value == "5" and {11, 13, 15, 17, 19} <= set(r.support)  # each counted step (and the bounds)
    r = resolve(store, "ns", "ep", 59, CountSteps(StepIs("region", "home meadow")))
    assert r.facts[0].value == "30" and r.support == (59,)
    r = resolve(store, "ns", "ep", 59, CountSteps(Condition("state", "health", "<=", 1), Window(end=StepAt(40))))
    assert r.facts[0].value == "8" and 39 in r.support  # health 9 - t % 10 <= 1 at t % 10 in (8, 9): the last is 39
