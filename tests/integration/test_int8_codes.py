"""Neo4j keeps each unit's int8 code (``embedding_int8``) in step with its float vector, out of sight."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import numpy as np
import pytest

from graphmem.store.neo4j import DIMENSIONS, Neo4jStore, int8_code
from graphmem.store.protocol import NodeRow, WriteBatch, node_key
from graphmem.store.rows import read_turns


@pytest.fixture
def ns(neo4j_store: Neo4jStore) -> Iterator[str]:
    name = f"int8-{uuid.uuid4().hex[:8]}"
    yield name
    neo4j_store.delete_namespace(name)


def unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=DIMENSIONS)
    return [float(x) for x in v / np.linalg.norm(v)]


def stored_code(store: Neo4jStore, namespace: str, uid: str) -> tuple[bytes, float] | None:
    rows, _, _ = store.driver.execute_query(
        "MATCH (n:Memory {namespace: $ns, key: $key}) RETURN n.embedding_int8 AS code, n.embedding_int8_sq AS square",
        ns=namespace, key=node_key("Turn", uid), database_=store.database)
    code, square = rows[0]["code"], rows[0]["square"]
    assert (code is None) == (square is None)
    return None if code is None else (bytes(code), square)


def turn(namespace: str, embedding: list[float] | None, text: str = "hello") -> WriteBatch:
    props = {"speaker": "Maya", "text": text} | ({"embedding": embedding} if embedding is not None else {})
    return WriteBatch((NodeRow("Turn", namespace, "D1:1", props),), ())


def test_code_follows_the_vector(neo4j_store: Neo4jStore, ns: str) -> None:
    neo4j_store.write(turn(ns, unit(1)))
    assert stored_code(neo4j_store, ns, "D1:1") == int8_code(unit(1))
    neo4j_store.write(turn(ns, unit(2)))  # a new vector: a new code
    assert stored_code(neo4j_store, ns, "D1:1") == int8_code(unit(2))
    neo4j_store.write(turn(ns, None, text="edited"))  # no vector given: both kept
    assert stored_code(neo4j_store, ns, "D1:1") == int8_code(unit(2))
    assert neo4j_store.vector(ns, unit(2), 1)[0].uid == "D1:1"
    neo4j_store.write(turn(ns, [0.0] * DIMENSIONS))  # a zero vector has no code: the old one goes
    assert stored_code(neo4j_store, ns, "D1:1") is None


def test_code_never_reaches_the_memory_logic(neo4j_store: Neo4jStore, ns: str) -> None:
    neo4j_store.write(turn(ns, unit(1)))
    key = node_key("Turn", "D1:1")
    assert set(neo4j_store.get_nodes(ns, [key])[key]) == {"namespace", "speaker", "text", "key", "uid"}
    hit = neo4j_store.vector(ns, unit(1), 1, with_props=True)[0]
    assert hit.node == read_turns(neo4j_store, ns, [key])[key]  # the row of those properties
