"""Every recall query stays index-backed: EXPLAIN each Cypher file on a real Neo4j and walk its plan.

A plan fails when any operator scans (``NodeByLabelScan``, ``AllNodesScan``, ``NodeIndexScan``, relationship
scans: anything whose name ends in ``Scan``), or when it computes vector similarity in Cypher (a brute-force
vector loop) instead of asking the vector index. Files are discovered from ``cypher/recall/`` and
``cypher/browser/`` (the Neo4j Browser examples), so a new query is checked as soon as it exists; give its
parameters a realistic value in the ``planned`` fixture.

The data is written through ``Memory`` (a trajectory and a dialogue, plus a second namespace) so the
planner sees the labels, relationship types and property keys a real memory holds.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import pytest

from graphmem.cypher_files import cypher
from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.neo4j import HIDDEN_PROPERTIES, Neo4jStore, ns_key
from graphmem.store.neo4j_properties import BROWSER_PROPERTIES
from graphmem.store.protocol import EDGE_TYPES
from graphmem.store.text_index import lucene_query
from hash_embed import HashEmbedder

pytestmark = pytest.mark.neo4j


def _files(kind: str) -> list[str]:
    folder = resources.files("graphmem.cypher").joinpath(kind)
    return sorted(f"{kind}/{p.name[: -len('.cypher')]}" for p in folder.iterdir() if p.name.endswith(".cypher"))


def _recall_files() -> list[str]:
    return _files("recall")


def _browser_files() -> list[str]:
    return _files("browser")


#: Besides every recall query: the admin queries and the write statements run on every ingest.
OTHER_FILES = ["admin/counts", "admin/delete_namespace", "write/merge_nodes", "write/merge_batch", "write/check_expected",
               "admin/namespaces", "admin/session_turns", "admin/episode_shared", "admin/delete_episode_units",
               "admin/delete_nodes", "admin/delete_orphans", "admin/session_parts", "admin/databases",
               # ensure_schema's: Neo4j plans these too (an EXPLAIN does not wait).
               "admin/vector_indexes", "admin/await_indexes"]

#: Operators that read more than the namespace asks for.
def _is_scan(operator: str) -> bool:
    return operator.split("@")[0].endswith("Scan")


@pytest.fixture(scope="module")
def planned(neo4j_store: Neo4jStore) -> Iterator[dict[str, Any]]:
    """Write a small trajectory and dialogue into fresh namespaces; yield realistic parameters."""
    trajectory_ns = f"plans-{uuid.uuid4().hex[:10]}"
    dialogue_ns = f"plans-d-{uuid.uuid4().hex[:10]}"
    mem = Memory(store=neo4j_store, embedder=HashEmbedder())
    steps = [
        Step(
            t,
            "collect wood" if t % 3 == 0 else "move left",
            events=(Event("collect", "wood"),) if t % 3 == 0 else (Event("gain", "sapling"),) if t % 5 == 0 else (),
            objects=("tree",),
            location=Location((t, 0), "forest", "grass"),
        )
        for t in range(60)
    ]
    mem.add_steps(trajectory_ns, "run-1", steps)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for s in range(3):
        turns = [
            Turn(f"S{s}:{i}", "Maya" if i % 2 == 0 else "Sam", f"I went hiking with Pepper last week, part {i}")
            for i in range(6)
        ]
        mem.add_session(dialogue_ns, f"s{s}", turns, started_at=start + timedelta(days=10 * s))
    vector = [float(x) for x in HashEmbedder().embed(["where did I collect wood"])[0]]
    params = {
        "namespace": trajectory_ns,
        "episode": "run-1",
        "keys": ["step:run-1:3", "step:run-1:9", "turn:S0:1", "box:s0#b0", "event:run-1:3#0"],
        "kind": "collect",
        "obj": "wood",
        "ordinal": 2,
        "t": 30,
        # A node key (admin/: the episode or session a deletion starts from).
        "key": "episode:run-1",
        # The trajectory query operators: a step window (always bounded), |ordinal| - 1, a condition.
        "lo": 10,
        "hi": 40,
        "skip": 1,
        "field": "action",
        "shown": 5,
        "source": "inventory",
        "name": "wood",
        "cmp": ">=",
        "value": 3,
        "ts": [1, 2, 3, 30],
        "start": start.timestamp(),
        "end": (start + timedelta(days=15)).timestamp(),
        "from": (start - timedelta(days=3)).timestamp(),
        "session_from": (start - timedelta(days=3)).timestamp(),
        "event_from": (start - timedelta(days=400)).timestamp(),
        "query": f"+ns_key:{ns_key(trajectory_ns)}^0 +" + lucene_query(["collect", "wood"]),
        "k": 30,
        "fetch": 120,
        "cap": 5001,
        "shortlist": 50,
        "scaled": [0.1] * 384,
        "square": 3.84,
        "limit": 150,
        "embedding": vector,
        "before": 2,
        "after": 3,
        "batch": {"namespaces": [trajectory_ns], "nodes": [], "edges": {}, "external": []},
        "namespaces": [trajectory_ns, dialogue_ns],
        "only": "Turn",
        "index": "turn_embedding",
        "seconds": 1,
        "expect": [],
        "props": True,
        "hidden": list(HIDDEN_PROPERTIES),
        # The Neo4j Browser examples (browser/): a session id, a topic word, how many steps to draw.
        "session": "s1",
        "topic": "hiking",
        "steps": 30,
    }
    yield params
    mem.forget(trajectory_ns)
    mem.forget(dialogue_ns)


def _operators(plan: Any) -> list[tuple[str, str]]:
    """(operator type, details) of every operator of a plan tree, depth first."""
    args = plan.get("args") or plan.get("arguments") or {}
    found = [(str(plan["operatorType"]), str(args.get("Details", "")))]
    for child in plan.get("children", []):
        found += _operators(child)
    return found


def _explain(store: Neo4jStore, statement: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    with store.driver.session(database=store.database) as session:
        plan = session.run("EXPLAIN " + statement, params).consume().plan
    assert plan is not None, "EXPLAIN returned no plan"
    return _operators(plan)


def _params_for(name: str, statement: str, planned: dict[str, Any]) -> dict[str, Any]:
    names = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", statement))
    missing = sorted(names - set(planned))
    assert not missing, f"{name}: give ${', $'.join(missing)} a realistic value in the `planned` fixture"
    return {k: planned[k] for k in names}


@pytest.mark.parametrize("name", _recall_files() + _browser_files() + OTHER_FILES)
def test_plan_is_index_backed(neo4j_store: Neo4jStore, planned: dict[str, Any], name: str) -> None:
    statement = cypher(name)
    operators = _explain(neo4j_store, statement, _params_for(name, statement, planned))
    scans = [f"{op} ({details})" for op, details in operators if _is_scan(op)]
    assert not scans, f"{name} scans instead of seeking an index: {scans}"
    loops = [op for op, details in operators if "vector.similarity" in details]
    if loops:
        # Vector similarity in Cypher is allowed only as the bounded exact search of a small namespace:
        # the rows compared must come from a namespace index seek cut off by LIMIT $cap.
        bounded = any(op.startswith("Limit") and "$cap" in details for op, details in operators)
        assert bounded, f"{name} computes vector similarity in Cypher over unbounded rows (a brute-force loop): {loops}"
    leaf_ops = {op.split("@")[0] for op, _ in operators}
    if name.startswith(("recall/", "browser/")) and "CALL db.index" not in statement:
        # Every recall (and Browser) query starts from an index seek on the namespace (or a key inside it).
        assert leaf_ops & {"NodeIndexSeek", "NodeUniqueIndexSeek", "NodeIndexSeekByRange", "MultiNodeIndexSeek"}, (
            f"{name} does not seek an index: {sorted(leaf_ops)}"
        )


@pytest.mark.parametrize("name", [n for n in _recall_files() if ("/vector_" in n or "/fulltext_" in n) and not n.endswith("_exact")])
def test_search_uses_search_indexes(neo4j_store: Neo4jStore, planned: dict[str, Any], name: str) -> None:
    statement = cypher(name)
    operators = _explain(neo4j_store, statement, _params_for(name, statement, planned))
    procedure = "db.index.vector.queryNodes" if "/vector_" in name else "db.index.fulltext.queryNodes"
    calls = [details for op, details in operators if op.startswith("ProcedureCall")]
    assert any(procedure in details for details in calls), f"{name} does not call {procedure}: {calls}"


@pytest.mark.parametrize(
    "name, bounds",
    [("recall/sessions_in_window", ["start >= $from AND start <= $end"]),
     ("recall/units_in_window", ["start >= $session_from AND start <= $end", "event_start >= $event_from AND event_start <= $end"])],
)
def test_window_reads_seek_a_bounded_range(neo4j_store: Neo4jStore, planned: dict[str, Any], name: str, bounds: list[str]) -> None:
    # A window read seeks only the starts that can overlap the window, not every start before its end
    # (which grows with the history: a year-old namespace would read all its sessions for "last week").
    statement = cypher(name)
    seeks = [details for op, details in _explain(neo4j_store, statement, _params_for(name, statement, planned)) if "IndexSeek" in op]
    for bound in bounds:
        assert any(bound in details for details in seeks), f"{name}: no index seek on {bound!r} in {seeks}"


def test_recall_files_discovered() -> None:
    # Guards the folder walk itself: an empty list would make the parametrized test vacuous.
    files = _recall_files()
    assert "recall/steps_at" in files and "recall/sessions" in files and len(files) >= 15
    assert {"browser/trajectory_steps", "browser/occurrence", "browser/dialogue_session", "browser/topic_trace"} <= set(_browser_files())


@pytest.mark.parametrize("name", _recall_files())
def test_recall_reads_no_embedding_it_drops(name: str) -> None:
    # `n {.*, embedding: null}` reads every property value, the 384-float embedding too, before dropping
    # it (a third of the server's time for a 150-turn read at 1M units); recall lists `keys(n)` instead.
    statement = cypher(name)
    projections = re.findall(r"\b(\w+) \{\.\*", statement)
    assert not projections, f"{name} projects {projections} whole"
    # Each property read is the one pairs form neo4j_properties.node_props expects: the embedding, its int8
    # code, the internal search key and the Browser-only times left out here ($hidden), since the client no
    # longer filters them.
    assert set(HIDDEN_PROPERTIES) == {"embedding", "embedding_int8", "embedding_int8_sq", "ns_key", *BROWSER_PROPERTIES}
    listed = re.findall(r"keys\((\w+)\)", statement)
    pairs = re.findall(r"\[name IN keys\((\w+)\) WHERE NOT name IN \$hidden \| \[name, (\w+)\[name\]\]\]", statement)
    assert len(pairs) == len(listed) and all(a == b for a, b in pairs), f"{name} reads properties in another form: {listed}"


def test_relationship_writes_use_static_types() -> None:
    # A relationship MERGE with a dynamic type (`[:$(r.type)]`) planned while the database is nearly empty
    # scans every relationship for each row, and Neo4j kept that plan until its statistics moved on
    # (a fresh database wrote at a third of its speed). write/merge_batch therefore has one block per
    # relationship type, with the type written out; this keeps the blocks equal to the types graphmem writes.
    statement = cypher("write/merge_batch")
    assert not re.search(r"\[\w*:\$\(", statement), "a relationship type is dynamic in write/merge_batch"
    merged = re.findall(r"MERGE \(a\)-\[e:(\w+)\]->\(b\)", statement)
    assert sorted(merged) == sorted(EDGE_TYPES)
    blocks = re.findall(r"\$batch\.edges\.(\w+)", statement)
    assert sorted(blocks) == sorted(EDGE_TYPES)
    total = statement.splitlines()[-1]  # RETURN at + causes + ... AS merged
    assert sorted(re.findall(r"(\w+) [+A]", total)) == sorted(etype.lower() for etype in EDGE_TYPES), total


@pytest.mark.parametrize("name", ["write/merge_batch", "write/merge_nodes"])
def test_write_statements_take_one_map_parameter(name: str) -> None:
    # Neo4j keys its plan cache on each list parameter's size bucket (0, 1, up to 10, up to 100, ...), so a
    # write statement fed lists is planned again (~0.45 s for merge_batch) for every new combination of
    # buckets a batch brings; a map parameter is typed MAP whatever it holds. Only $batch (and the namespace
    # of write/merge_nodes, a string: merge_batch takes several namespaces inside $batch).
    statement = cypher(name)
    expected = {"batch"} if name == "write/merge_batch" else {"namespace", "batch"}
    assert set(re.findall(r"\$([A-Za-z_]\w*)", statement)) == expected


def test_relationship_merges_expand_between_bound_nodes(neo4j_store: Neo4jStore, planned: dict[str, Any]) -> None:
    # Every relationship MERGE of write/merge_batch expands between its two bound ends.
    statement = cypher("write/merge_batch")
    operators = _explain(neo4j_store, statement, _params_for("write/merge_batch", statement, planned))
    expands = [details for op, details in operators if op.startswith("Expand(Into)")]
    assert len(expands) == len(EDGE_TYPES), expands
