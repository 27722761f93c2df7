"""Trajectory questions, as text and as the same queries in JSON, recall and answer alike on every backend.

A small hand-made trajectory is written through ``Memory`` into each backend (``store``: embedded, the
memory file, a real Neo4j server) and into a reference embedded store. For every question, asked as text
and as its query's JSON document, ``Memory.answer`` gives the expected answer, the same text and the
same evidence (text, source ids) on the backend as on the reference; the evidence stays within budget,
every returned source id's ``[t]`` is written in it, and ``evidence.query`` is the compiled query's JSON.
The expected answers are read off the steps below by hand, not by the library.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.memory import Answer, Memory
from graphmem.query.grammar import compile_question
from graphmem.query.serialize import from_json, to_json
from graphmem.recall.trajectory import lexicon_of
from graphmem.records import Event, Location, Relation, Step
from graphmem.store.embedded import EmbeddedStore
from hash_embed import HashEmbedder

EPISODE = "run-1"
BUDGET = 150

WOOD_AT = (2, 5, 9, 14, 22)
SAPLING_AT = (7, 18)


def region(t: int) -> str:
    return "forest" if t < 12 else "grassland" if t < 28 else "cave"


def health(t: int) -> int:
    """9, then 8, 7, 6 after the zombie's hits at 15-17, 2 after the fall at 30, 5 after eating at 33."""
    if t < 15:
        return 9
    if t < 18:
        return 8 - (t - 15)
    if t < 30:
        return 6
    return 2 if t < 33 else 5


def trajectory() -> list[Step]:
    steps = []
    wood = sapling = 0
    for t in range(40):
        events: list[Event] = []
        relations: list[Relation] = []
        action = "move left" if t % 2 else "move right"
        observation = ""
        if t in WOOD_AT:
            action, wood = "collect wood", wood + 1
            events = [Event("collect", "wood"), Event("gain", "wood")]
            relations = [Relation("agent", "facing", "tree")]
        elif t in SAPLING_AT:
            action, sapling = "collect sapling", sapling + 1
            events = [Event("collect", "sapling")]
            relations = [Relation("agent", "facing", "grass")]
        elif t == 11:
            action, wood = "place table", wood - 1
            events = [Event("place", "table")]
            relations = [Relation("agent", "facing", "table")]
            observation = "You build a table."
        elif t == 20:
            action, sapling = "place sapling", sapling - 1
            events = [Event("place", "sapling")]
        elif t in (15, 16, 17):
            action = "noop"
            events = [Event("damage", "zombie")]
        elif t == 25:
            action = "do"
            events = [Event("eat", "cow")]
            relations = [Relation("agent", "facing", "cow")]
        elif t == 30:
            events = [Event("damage", "fall")]
        elif t in (35, 36):
            action = "sleep"
            events = [Event("sleep")]
        elif t == 37:
            action = "noop"
            events = [Event("wake up")]
        steps.append(
            Step(
                t,
                action,
                events=tuple(events),
                relations=tuple(relations),
                inventory=(("wood", wood), ("sapling", sapling)),
                state=(("health", health(t)), ("sleeping", t in (35, 36))),
                location=Location((t, 3), region(t)),
                observation=observation,
            )
        )
    return steps


STEPS = trajectory()
BY_T = {s.t: s for s in STEPS}

# (question, its query as JSON, the expected answer)
CASES: list[tuple[str, dict[str, Any], str]] = [
    ("What did I do at step 12?",
     {"op": "read", "anchor": {"op": "step_at", "t": 12}, "slot": "action"}, BY_T[12].action),
    ("When did I collect wood for the third time?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "collect", "obj": "wood"}, "ordinal": 3},
      "slot": "step"}, str(WOOD_AT[2])),
    ("When did I collect wood for the last time?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "collect", "obj": "wood"}, "ordinal": -1},
      "slot": "step"}, str(WOOD_AT[-1])),
    ("What did I do two steps after I placed the table?",
     {"op": "read", "anchor": {"op": "shifted", "steps": 2, "anchor": {
         "op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1}}, "slot": "action"},
     BY_T[13].action),
    ("Where was I when I ate the cow?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "eat", "obj": "cow"}, "ordinal": 1},
      "slot": "location"}, "grassland"),
    ("How many saplings did I have right after I collected sapling for the second time?",
     {"op": "read", "anchor": {"op": "shifted", "steps": 1, "anchor": {
         "op": "occurrence", "pattern": {"kind": "collect", "obj": "sapling"}, "ordinal": 2}}, "slot": "item",
      "name": "sapling"}, "2"),
    ("What was I facing when I placed the table?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1},
      "slot": "facing"}, "table"),
    ("When did my health drop below 5?",
     {"op": "read", "anchor": {"op": "reached", "condition": {"source": "state", "name": "health", "cmp": "<", "value": 5},
                               "ordinal": 1}, "slot": "step"}, "30"),
    ("What was my health when I placed the table?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1},
      "slot": "state", "name": "health"}, "9"),
    ("How many times did I collect wood before step 15?",
     {"op": "count", "pattern": {"kind": "collect", "obj": "wood"},
      "window": {"end": {"op": "step_at", "t": 15}, "include_end": False}}, "4"),
    ("How many times did I sleep?",
     {"op": "count", "pattern": {"kind": "sleep"}}, "2"),
    ("Did I ever eat the cow?",
     {"op": "exists", "pattern": {"kind": "eat", "obj": "cow"}}, "yes"),
    ("Did I ever sleep before step 30?",
     {"op": "exists", "pattern": {"kind": "sleep"}, "window": {"end": {"op": "step_at", "t": 30}, "include_end": False}},
     "no"),
    ("Which came first, placing the table or eating the cow?",
     {"op": "which_first", "a": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1},
      "b": {"op": "occurrence", "pattern": {"kind": "eat", "obj": "cow"}, "ordinal": 1}}, "place table"),
    ("Was the first time I placed the table earlier than the first time I ate the cow?",
     {"op": "precedes", "a": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1},
      "b": {"op": "occurrence", "pattern": {"kind": "eat", "obj": "cow"}, "ordinal": 1}}, "yes"),
    ("Did the first time I ate the cow come before the first time I placed the table?",
     {"op": "precedes", "a": {"op": "occurrence", "pattern": {"kind": "eat", "obj": "cow"}, "ordinal": 1},
      "b": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1}}, "no"),
    ("How many steps between the first time I collected wood and the first time I placed the table?",
     {"op": "distance", "a": {"op": "occurrence", "pattern": {"kind": "collect", "obj": "wood"}, "ordinal": 1},
      "b": {"op": "occurrence", "pattern": {"kind": "place", "obj": "table"}, "ordinal": 1}}, "9"),
    ("What did I collect between step 0 and step 10?",
     {"op": "list", "pattern": {"kind": "collect"},
      "window": {"start": {"op": "step_at", "t": 0}, "end": {"op": "step_at", "t": 10}}}, "wood, sapling"),
    ("When did I wake up?",
     {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "wake up"}, "ordinal": 1}, "slot": "step"}, "37"),
]


def test_the_expected_answers_are_what_the_steps_say():
    """The hand-read answers above, checked against the steps themselves (no library code)."""
    assert [s.t for s in STEPS if any(e.kind == "collect" and e.obj == "wood" for e in s.events)] == list(WOOD_AT)
    assert BY_T[19].inventory_dict["sapling"] == 2 and BY_T[11].relations[0].obj == "table"
    assert min(s.t for s in STEPS if s.state_dict["health"] < 5) == 30 and BY_T[11].state_dict["health"] == 9
    assert BY_T[25].location.region == "grassland" and BY_T[11].t - WOOD_AT[0] == 9


def write(store: Any, namespace: str) -> Memory:
    mem = Memory(store=store, embedder=HashEmbedder())
    mem.add_steps(namespace, EPISODE, STEPS)
    return mem


@pytest.fixture(scope="module")
def reference() -> dict[str, Answer]:
    """Every case's answer (text and JSON form) from an embedded store written the same way."""
    mem = write(EmbeddedStore(), "reference")
    return {key: mem.answer("reference", question, budget=BUDGET)
            for text, doc, _ in CASES for key, question in ((text, text), (repr(doc), doc))}


def check(answer: Answer, expected: str, doc: dict[str, Any], where: str) -> None:
    evidence = answer.evidence
    assert answer.text == expected, (where, evidence.query, evidence.text)
    assert answer.answerer == "executor"
    assert evidence.tokens <= BUDGET and evidence.budget == BUDGET, where
    for source_id in evidence.source_ids:
        episode, t = source_id.rsplit(":", 1)
        assert episode == EPISODE and f"[{t}]" in evidence.text, (where, source_id, evidence.text)
    assert evidence.query == doc, where


def test_questions_as_text_and_json_answer_alike_on_every_backend(store, namespace, reference):
    mem = write(store, namespace)
    [episode] = store.episode_nodes(namespace, kind="trajectory")
    lexicon = lexicon_of(episode, mem.embedder)
    for text, doc, expected in CASES:
        compiled = compile_question(text, lexicon, STEPS[-1].t)
        assert compiled is not None and to_json(compiled) == doc, (text, compiled)
        assert from_json(doc) == compiled
        for key, question in ((text, text), (repr(doc), doc)):
            got, ref = mem.answer(namespace, question, budget=BUDGET), reference[key]
            check(got, expected, doc, key)
            check(ref, expected, doc, f"reference: {key}")
            assert got.text == ref.text, key
            assert got.evidence.text == ref.evidence.text, (key, got.evidence.text, ref.evidence.text)
            assert got.evidence.source_ids == ref.evidence.source_ids, key
        # A query and its JSON document are one question: the same evidence either way.
        by_query = mem.recall(namespace, compiled, budget=BUDGET)
        by_doc = mem.recall(namespace, doc, budget=BUDGET)
        assert (by_query.text, by_query.source_ids, by_query.query) == (by_doc.text, by_doc.source_ids, doc), text


def test_a_malformed_json_query_is_refused(store, namespace):
    from graphmem.query.algebra import QueryError

    mem = write(store, namespace)
    with pytest.raises(QueryError, match="query.anchor: StepAt: t"):
        mem.answer(namespace, {"op": "read", "anchor": {"op": "step_at", "t": -1}, "slot": "action"})
    with pytest.raises(QueryError, match="unknown field"):
        mem.recall(namespace, {"op": "count", "pattern": {"kind": "collect"}, "limit": 3})


def test_a_paraphrase_compiles_by_similarity_with_the_real_model(store, namespace, embed):
    """Where no word of the question is a form of a stored kind ("went to bed" for sleep), the grammar
    asks the memory's own embedder; both backends then answer alike."""

    class MiniLM:
        dimensions = 384

        def embed(self, texts: list[str]) -> Any:
            return embed(texts)

    answers = []
    for target, ns in ((store, namespace), (EmbeddedStore(), "reference")):
        mem = Memory(store=target, embedder=MiniLM())
        mem.add_steps(ns, EPISODE, STEPS)
        answers.append(mem.answer(ns, "When did I go to bed for the first time?", budget=BUDGET))
    got, ref = answers
    assert got.text == ref.text == "35", got.evidence.query
    assert got.evidence.query == {"op": "read", "anchor": {"op": "occurrence", "pattern": {"kind": "sleep"}, "ordinal": 1},
                                  "slot": "step"}
    assert (got.evidence.text, got.evidence.source_ids) == (ref.evidence.text, ref.evidence.source_ids)
