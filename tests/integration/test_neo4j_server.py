"""Integration tests of the project-managed Neo4j server (graphmem.neo4j_server).

Real JVM, real Maven jars, no mocks.  The jars are installed (once, ~10 s) into
the default cache dir and shared; the server itself runs from a temporary home
on free non-default ports so it never clashes with a developer's server on
7687/7474.  Each test expects the server state left by the previous one, so the
file runs top to bottom: start, use, restart-is-harmless, stop.
"""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest
from neo4j.exceptions import AuthError

from graphmem import neo4j_server as ns

pytestmark = pytest.mark.neo4j

PASSWORD = "integration-pass-1"
REPO_ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _distinct_free_ports(count: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(_free_port())
    return sorted(ports)


@pytest.fixture(scope="module")
def server_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ns.Neo4jServerConfig]:
    lib = ns.install()  # default cache dir; a no-op when already complete
    bolt, http = _distinct_free_ports(2)
    config = ns.Neo4jServerConfig(
        home=tmp_path_factory.mktemp("neo4j-home"),
        lib_dir=lib,
        bolt_port=bolt,
        http_port=http,
        password=PASSWORD,
        # Small but sufficient: keeps the test light on a 2-core CI machine.
        heap_initial="512m",
        heap_max="1g",
        pagecache="256m",
    )
    yield config
    ns.stop(config)  # safety net if a test failed before test_stop


@pytest.fixture(scope="module")
def started(server_config: ns.Neo4jServerConfig) -> ns.Neo4jServerStatus:
    t0 = time.monotonic()
    status = ns.start(server_config, timeout=180)
    print(f"neo4j started in {time.monotonic() - t0:.1f}s")
    return status


@pytest.fixture
def driver(started: ns.Neo4jServerStatus) -> Iterator[neo4j.Driver]:
    with neo4j.GraphDatabase.driver(started.bolt_uri, auth=("neo4j", PASSWORD)) as drv:
        yield drv


def test_start_reports_running_server(server_config: ns.Neo4jServerConfig, started: ns.Neo4jServerStatus) -> None:
    assert started.running
    assert started.pid is not None
    assert started.bolt_uri == f"bolt://127.0.0.1:{server_config.bolt_port}"
    assert started.http_url == f"http://127.0.0.1:{server_config.http_port}"
    assert started.version == ns.NEO4J_VERSION
    assert ns.status(server_config) == started
    conf = server_config.conf_file.read_text()
    assert "dbms.security.auth_enabled=true" in conf
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in conf
    # Vector segments merge at 10, not Neo4j's 50, and a populated vector index buffers 128 MB per
    # segment, not 1; the server validates its settings strictly, so it would not have started with a
    # misspelled one.
    assert f"internal.dbms.index.vector.standard_merge_factor={server_config.vector_merge_factor}" in conf
    assert f"internal.dbms.index.vector.population_ram_buffer_size={server_config.vector_population_ram_mb}" in conf


def test_a_recall_on_a_fresh_database_logs_no_driver_warning(started: ns.Neo4jServerStatus,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    # This file's server is new: its database holds none of graphmem's labels and properties yet, and the
    # server warns about each one a statement names unless the driver asks it not to.
    from graphmem.memory import Memory

    with caplog.at_level(logging.WARNING, logger="neo4j"), Memory(started.bolt_uri, auth=("neo4j", PASSWORD)) as mem:
        steps = mem.recall("agent-1", "where was I the last time I drank water?", budget=100)
        turns = mem.recall("user-1", "What did Maya say about the marathon?", budget=100)
    assert not steps.source_ids and not turns.source_ids
    assert [r.getMessage() for r in caplog.records if r.name.startswith("neo4j")] == []


def test_bolt_answers_with_auth(driver: neo4j.Driver) -> None:
    driver.verify_connectivity()
    records, _, _ = driver.execute_query("RETURN 1 AS one")
    assert records[0]["one"] == 1
    records, _, _ = driver.execute_query("CALL dbms.components() YIELD versions, edition RETURN versions, edition")
    assert records[0]["versions"] == [ns.NEO4J_VERSION]
    assert records[0]["edition"] == "community"


def test_wrong_password_is_refused(started: ns.Neo4jServerStatus) -> None:
    with neo4j.GraphDatabase.driver(started.bolt_uri, auth=("neo4j", "not-the-password")) as drv, pytest.raises(AuthError):
        drv.verify_connectivity()


def test_browser_is_served(started: ns.Neo4jServerStatus) -> None:
    with urllib.request.urlopen(started.http_url + "/browser/", timeout=10) as response:
        assert response.status == 200
        assert "Neo4j Browser" in response.read().decode("utf-8", errors="replace")
    # The discovery document must advertise our (non-default) Bolt port, or the UI cannot connect.
    with urllib.request.urlopen(started.http_url + "/", timeout=10) as response:
        discovery = json.loads(response.read())
    assert discovery["bolt_direct"] == started.bolt_uri
    assert discovery["neo4j_edition"] == "community"


def test_vector_and_fulltext_indexes(driver: neo4j.Driver) -> None:
    driver.execute_query(
        "CREATE VECTOR INDEX itest_vec IF NOT EXISTS FOR (c:ITestChunk) ON c.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
    )
    driver.execute_query("CREATE FULLTEXT INDEX itest_ft IF NOT EXISTS FOR (c:ITestChunk) ON EACH [c.text]")
    rng = random.Random(7)
    rows = [
        {"id": i, "text": f"note {i} about {'graphs' if i % 2 else 'memories'}",
         "embedding": [rng.uniform(-1, 1) for _ in range(384)]}
        for i in range(30)
    ]
    driver.execute_query(
        "UNWIND $rows AS r CREATE (c:ITestChunk {id: r.id, text: r.text, embedding: r.embedding})", rows=rows
    )
    driver.execute_query("CALL db.awaitIndexes(120)")
    states, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name, state WHERE name IN ['itest_vec', 'itest_ft'] RETURN name, state"
    )
    assert {r["name"]: r["state"] for r in states} == {"itest_vec": "ONLINE", "itest_ft": "ONLINE"}

    hits, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('itest_vec', 3, $q) YIELD node, score RETURN node.id AS id, score",
        q=rows[5]["embedding"],
    )
    assert hits[0]["id"] == 5
    assert hits[0]["score"] == pytest.approx(1.0, abs=1e-3)  # float32 storage

    hits, _, _ = driver.execute_query(
        "CALL db.index.fulltext.queryNodes('itest_ft', 'graphs') YIELD node RETURN node.id AS id"
    )
    assert hits and all(r["id"] % 2 == 1 for r in hits)


def test_second_start_is_harmless(server_config: ns.Neo4jServerConfig, started: ns.Neo4jServerStatus) -> None:
    again = ns.start(server_config, timeout=30)
    assert again.running and again.pid == started.pid
    # Also through the CLI, i.e. from another process that only sees the pid file.
    proc = subprocess.run(
        [sys.executable, "-m", "graphmem.neo4j_server", "start", "--home", str(server_config.home),
         "--lib-dir", str(server_config.libs),
         "--bolt-port", str(server_config.bolt_port), "--http-port", str(server_config.http_port)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, ns.ENV_PASSWORD: PASSWORD},
    )
    assert proc.returncode == 0, proc.stderr
    assert f"pid {started.pid}" in proc.stdout
    assert ns.status(server_config).pid == started.pid


def test_busy_port_gives_clear_error(tmp_path: Path, server_config: ns.Neo4jServerConfig,
                                     started: ns.Neo4jServerStatus) -> None:
    # A foreign listener on the Bolt port of a second home.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        busy = squatter.getsockname()[1]
        other = ns.Neo4jServerConfig(
            home=tmp_path / "other", lib_dir=server_config.libs,
            bolt_port=busy, http_port=_free_port(), password=PASSWORD,
        )
        with pytest.raises(ns.PortInUseError, match=rf"\b{busy}\b") as info:
            ns.start(other, timeout=30)
        assert info.value.port == busy
        assert not ns.status(other).running
    # Our running server's HTTP port, seen from another home, is "something else" too.
    other_http = ns.Neo4jServerConfig(
        home=tmp_path / "other2", lib_dir=server_config.libs,
        bolt_port=_free_port(), http_port=server_config.http_port, password=PASSWORD,
    )
    with pytest.raises(ns.PortInUseError, match=rf"HTTP port {server_config.http_port}\b"):
        ns.start(other_http, timeout=30)


def test_stop_stops_it(server_config: ns.Neo4jServerConfig, started: ns.Neo4jServerStatus) -> None:
    t0 = time.monotonic()
    assert ns.stop(server_config) is True
    print(f"neo4j stopped in {time.monotonic() - t0:.1f}s")
    st = ns.status(server_config)
    assert not st.running and st.pid is None
    assert not server_config.state_file.exists()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        assert sock.connect_ex(("127.0.0.1", server_config.bolt_port)) != 0
    assert ns.stop(server_config) is False
