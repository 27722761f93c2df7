"""The Neo4j Browser examples (``cypher/browser/``) on a real server, over a memory written through ``Memory``.

Each example returns one row: a small subgraph the Browser draws at once. Every node it draws has a
readable caption (``graphmem.write.captions``: a step's index and action, an event's kind, object and
ordinal, a turn's speaker and words, a session's id and date), participants, entities and places their
name; and the times held in epoch seconds are also Neo4j ``DATETIME`` values there, which no read
returns.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j.graph import Node, Path, Relationship
from neo4j.time import DateTime

from graphmem.cypher_files import cypher
from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.neo4j_properties import BROWSER_PROPERTIES
from graphmem.store.protocol import node_key

pytestmark = pytest.mark.neo4j

EPISODE = "run-1"
START = datetime(2024, 3, 2, 18, 0, tzinfo=UTC)
#: Three sessions about a half marathon and a dog, so that topic traces link boxes across sessions.
SESSIONS = [
    [("Maya", "I signed up for the city half marathon in June."), ("Leo", "Great! How will you train for the half marathon?"),
     ("Maya", "Three runs a week and a long run on Sunday."), ("Leo", "My dog Pepper loves the beach by the lake."),
     ("Maya", "Pepper swims in the lake every morning.")],
    [("Maya", "The half marathon training is going well, I ran twelve kilometres."),
     ("Leo", "Twelve kilometres of marathon training, wow!"), ("Leo", "Pepper the dog swam across the lake today."),
     ("Maya", "Pepper is a brave dog at the lake.")],
    [("Maya", "I finished the half marathon in two hours!"), ("Leo", "Congratulations on the half marathon!")],
]
#: At most this many rows and nodes: what the Browser draws at once (the first steps are 30 of them).
MAX_ROWS = 1
MAX_NODES = 80


def _steps() -> list[Step]:
    steps = []
    for t in range(60):
        if t % 3 == 0:
            action, events = "collect wood", (Event("collect", "wood"), Event("gain", "wood"))
        elif t % 7 == 0:
            action, events = "place table", (Event("place", "wood"),)
        else:
            action, events = "move left", ()
        steps.append(Step(t, action, events=events, objects=("tree",), inventory={"wood": t // 3},
                          location=Location((t, 0), "forest", "grass")))
    return steps


@pytest.fixture(scope="module")
def written(neo4j_store: Neo4jStore) -> Iterator[tuple[str, str]]:
    """A trajectory and a three-session dialogue (the real embedder: traces need its similarities)."""
    agent, user = f"browser-{uuid.uuid4().hex[:10]}", f"browser-d-{uuid.uuid4().hex[:10]}"
    mem = Memory(store=neo4j_store)
    mem.add_steps(agent, EPISODE, _steps())
    for i, turns in enumerate(SESSIONS):
        sid = f"s{i + 1}"
        mem.add_session(user, sid, [Turn(f"{sid}:{j}", speaker, text) for j, (speaker, text) in enumerate(turns)],
                        started_at=START + timedelta(days=7 * i))
    yield agent, user
    mem.forget(agent)
    mem.forget(user)


def _run(store: Neo4jStore, name: str, **params: Any) -> list[Any]:
    with store.driver.session(database=store.database) as session:
        return list(session.run(cypher(f"browser/{name}"), params))


def _drawn(records: list[Any]) -> tuple[dict[str, Node], list[Relationship]]:
    """The nodes and relationships the Browser draws of these records (it walks paths and lists)."""
    nodes: dict[str, Node] = {}
    relationships: list[Relationship] = []

    def walk(value: Any) -> None:
        if isinstance(value, Node):
            nodes[value.element_id] = value
        elif isinstance(value, Relationship):
            relationships.append(value)
            walk(value.start_node)
            walk(value.end_node)
        elif isinstance(value, Path):
            for node in value.nodes:
                walk(node)
            relationships.extend(value.relationships)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for record in records:
        for value in record.values():
            walk(value)
    return nodes, relationships


def _label(node: Node) -> str:
    [label] = node.labels - {"Memory", "Unit"}
    return label


def _captions(nodes: dict[str, Node]) -> dict[str, list[str]]:
    """Each label's captions: ``caption``, or ``name`` for participants, entities and places; each one
    readable (a short line of text)."""
    by_label: dict[str, list[str]] = {}
    for node in nodes.values():
        label = _label(node)
        text = node.get("name") if label in ("Participant", "Entity", "Location") else node.get("caption")
        assert isinstance(text, str) and text.strip() and "\n" not in text and len(text) <= 80, (label, dict(node))
        by_label.setdefault(label, []).append(text)
    return by_label


def _small(records: list[Any]) -> tuple[dict[str, Node], list[Relationship]]:
    assert len(records) == MAX_ROWS
    nodes, relationships = _drawn(records)
    assert 0 < len(nodes) <= MAX_NODES
    return nodes, relationships


def test_a_trajectorys_first_steps(neo4j_store: Neo4jStore, written: tuple[str, str]) -> None:
    agent, _ = written
    records = _run(neo4j_store, "trajectory_steps", namespace=agent, episode=EPISODE, steps=30)
    nodes, relationships = _small(records)
    path = records[0]["path"]
    assert [node["t"] for node in path.nodes] == list(range(30))
    assert {r.type for r in relationships} == {"NEXT", "HAS_EVENT"}
    captions = _captions(nodes)
    assert sorted(captions["Step"], key=lambda c: int(c.split(" · ")[0]))[:4] == [
        "0 · collect wood", "1 · move left", "2 · move left", "3 · collect wood"]
    assert "collect wood #1" in captions["Event"] and "gain wood #10" in captions["Event"]
    # An episode shorter than asked for: all its steps.
    assert len(_run(neo4j_store, "trajectory_steps", namespace=agent, episode=EPISODE, steps=100)[0]["path"].nodes) == 60


def test_one_occurrence_with_its_neighbours(neo4j_store: Neo4jStore, written: tuple[str, str]) -> None:
    agent, _ = written
    records = _run(neo4j_store, "occurrence", namespace=agent, episode=EPISODE, kind="collect", obj="wood", ordinal=3)
    nodes, relationships = _small(records)
    assert records[0]["event"]["caption"] == "collect wood #3"
    captions = _captions(nodes)
    assert sorted(captions["Step"]) == ["5 · move left", "6 · collect wood", "7 · place table"]
    assert captions["Location"] == ["forest"]
    assert {r.type for r in relationships} == {"HAS_EVENT", "NEXT", "AT", "ENABLES"}
    assert _run(neo4j_store, "occurrence", namespace=agent, episode=EPISODE, kind="collect", obj="wood", ordinal=99) == []


def test_a_dialogue_session_with_its_boxes_and_traces(neo4j_store: Neo4jStore, written: tuple[str, str]) -> None:
    _, user = written
    records = _run(neo4j_store, "dialogue_session", namespace=user, session="s2")
    nodes, relationships = _small(records)
    captions = _captions(nodes)
    assert captions["Session"] == ["s2 · 9 Mar 2024"]
    turns = captions["Turn"]
    assert len(turns) == len(SESSIONS[1]) and all(c.startswith(("Maya: ", "Leo: ")) for c in turns)
    assert "Leo: Pepper the dog swam across the lake…" in turns  # the start of what was said
    assert sorted(captions["Participant"]) == ["Leo", "Maya"]
    assert captions["Box"] and captions["Trace"] and all(c.startswith("topic: ") for c in captions["Event"])
    assert {r.type for r in relationships} == {"SPOKEN_BY", "IN_SESSION", "NEXT", "CONTAINS", "HAS_EVENT", "IN_TRACE"}


def test_a_topic_trace_across_sessions(neo4j_store: Neo4jStore, written: tuple[str, str]) -> None:
    _, user = written
    for topic in ("", "MARATHON"):
        records = _run(neo4j_store, "topic_trace", namespace=user, topic=topic)
        nodes, _ = _small(records)
        captions = _captions(nodes)
        assert len(captions["Session"]) >= 2, captions  # the trace links boxes of several sessions
        assert len(captions["Trace"]) == 1 and len(captions["Box"]) >= 2
    assert "marathon" in records[0]["trace"]["caption"]
    assert _run(neo4j_store, "topic_trace", namespace=user, topic="zeppelin") == []


def test_times_are_datetimes_in_neo4j_and_never_read_back(neo4j_store: Neo4jStore, written: tuple[str, str]) -> None:
    _, user = written
    key = node_key("Session", "s1")
    with neo4j_store.driver.session(database=neo4j_store.database) as session:
        stored = session.run("MATCH (n:Memory {namespace: $namespace, key: $key}) RETURN n", namespace=user, key=key).single()
    assert stored is not None
    session_node = stored["n"]
    assert isinstance(session_node["start_time"], DateTime) and session_node["start_time"].to_native() == START
    assert session_node["end_time"].to_native() == START + timedelta(days=7)  # the next session's start
    read = neo4j_store.get_nodes(user, [key])[key]
    assert read["start"] == START.timestamp() and not set(BROWSER_PROPERTIES) & set(read)
    episode = neo4j_store.get_nodes(user, [node_key("Episode", "dialogue")])[node_key("Episode", "dialogue")]
    assert episode["caption"] == "dialogue · dialogue" and not set(BROWSER_PROPERTIES) & set(episode)
