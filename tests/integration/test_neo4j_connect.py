"""Connection errors say what is actually wrong: a malformed or HTTP URI, a wrong password, a missing
database, a memory used after it was closed (``graphmem.store.neo4j_connect``)."""

from __future__ import annotations

import pytest

from graphmem.errors import InvalidArgumentError, StoreError
from graphmem.memory import Memory
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.neo4j_connect import checked_uri
from graphmem.store.open import open_store
from hash_embed import HashEmbedder


@pytest.mark.parametrize(
    "uri, says",
    [
        ("http://127.0.0.1:7474", "use bolt://127.0.0.1:7687 or neo4j://127.0.0.1:7687"),
        ("https://db.example.com", "use bolt://db.example.com:7687"),
        ("bolt://", "names no host"),
        ("bolt:/127.0.0.1:7687", "names no host"),
        ("127.0.0.1:7687", "must start with bolt:// or neo4j://"),
        ("bolt://127.0.0.1:port", "port that is not a number"),
        ("bolt://127.0.0.1:7687/graph", "has a path"),
        ("bolt://neo4j:secret@127.0.0.1:7687", "holds credentials"),
        ("bolt://127.0.0.1:7687?policy=eu", "only neo4j:// URIs take a routing context"),
        ("bolt://bad host:7687", "white space"),
        ("bolt://h\ud800st:7687", "not valid Unicode"),
        ("", "must be a Neo4j URI"),
        (7687, "must be a Neo4j URI"),
    ],
)
def test_a_malformed_uri_is_refused_before_connecting(uri: object, says: str) -> None:
    with pytest.raises(InvalidArgumentError, match="uri") as err:
        checked_uri(uri)
    assert says in str(err.value)
    with pytest.raises(InvalidArgumentError, match="uri"):
        Neo4jStore(uri, auth=("neo4j", "x"))  # type: ignore[arg-type]


def test_good_uris_pass() -> None:
    for uri in ("bolt://localhost", "neo4j+s://db.example.com:7687", "neo4j://10.0.0.1:7687?region=eu", "bolt://[::1]:7687/"):
        assert checked_uri(uri) == uri


def test_bad_auth_and_database_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="auth must be a .user, password. pair"):
        Neo4jStore("bolt://localhost:7687", auth="neo4j:secret")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="database must be"):
        Neo4jStore("bolt://localhost:7687", auth=("neo4j", "x"), database=" ")
    with pytest.raises(InvalidArgumentError, match="path must be"):
        open_store(path=5)  # type: ignore[arg-type]


@pytest.mark.neo4j
def test_a_wrong_password_says_authentication_failed(neo4j_server: tuple[str, tuple[str, str]]) -> None:
    uri, (user, _) = neo4j_server
    # One attempt only: the server locks a user out for a few seconds after several failures.
    with pytest.raises(StoreError, match=f"authentication failed for user '{user}' at {uri}") as err:
        Neo4jStore(uri, auth=(user, "not-the-password"))
    assert "cannot reach" not in str(err.value)


@pytest.mark.neo4j
def test_a_missing_database_is_named(neo4j_server: tuple[str, tuple[str, str]]) -> None:
    uri, auth = neo4j_server
    with pytest.raises(StoreError, match=r"has no database 'nosuchdb' \(databases: .*neo4j"):
        Neo4jStore(uri, auth=auth, database="nosuchdb")
    store = Neo4jStore(uri, auth=auth, database="NEO4J")  # database names are case-insensitive
    store.close()


@pytest.mark.neo4j
def test_a_memory_used_after_close_says_so(neo4j_server: tuple[str, tuple[str, str]]) -> None:
    uri, auth = neo4j_server
    mem = Memory(store=Neo4jStore(uri, auth=auth), embedder=HashEmbedder())
    mem.close()
    for call in (lambda: mem.recall("agent-1", "what did I do?"), lambda: mem.stats("agent-1"),
                 lambda: mem.store.ensure_schema(), lambda: mem.namespaces()):
        with pytest.raises(StoreError, match="was closed"):
            call()
