"""An interrupted bulk ingest resumes to exactly the graph a clean run produces.

A subprocess ingests a generated step log (3,000 steps, small batches) and a chat log into a real Neo4j;
it is SIGKILLed once some step batches are committed, re-run and SIGKILLed again once some sessions are
committed, then re-run to completion. The namespace must then hold exactly what a clean ingest of the
same files into another namespace holds: the same node and edge counts, and the same content (every
node's key, labels and properties, every edge's ends, type and properties), with no duplicates.
A Neo4j restart mid-run is not part of this test: it would need a private server (~40 s to start and
stop) to avoid disturbing the shared one; a killed client exercises the same rollback of the open
transaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j.time import DateTime

from graphmem.store.neo4j import Neo4jStore
from graphmem.store.protocol import node_key

pytestmark = pytest.mark.neo4j

STEPS = 3000
BATCH = 50
#: Sessions per group written in one transaction (the driver sets ``BATCHES_PER_WRITE``), and enough
#: sessions that the kill lands between two groups.
GROUP = 8
SESSIONS = 40

#: The ingesting process: a deterministic hash embedder that takes a little time per call, like a model.
DRIVER = r'''
import hashlib, sys, time
import numpy as np
import graphmem.write.bulk as bulk
from graphmem.ingest import ingest_files
from graphmem.memory import Memory
from graphmem.store.neo4j import Neo4jStore

class SlowHashEmbedder:
    dimensions = 384
    def embed(self, texts):
        time.sleep(0.03)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            v = np.random.default_rng(int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)).normal(size=384)
            out[i] = v / np.linalg.norm(v)
        return out

uri, user, password, namespace, batch, group = sys.argv[1:7]
bulk.BATCHES_PER_WRITE = int(group)
store = Neo4jStore(uri, auth=(user, password))
with Memory(store=store, embedder=SlowHashEmbedder()) as mem:
    report = ingest_files(mem, sys.argv[7:], namespace, batch_size=int(batch), progress=False)
print(report.written, report.skipped)
'''


def _write_steps(path: Path) -> None:
    rng = random.Random(7)
    inventory: dict[str, int] = {}
    with path.open("w", encoding="utf-8") as handle:
        for t in range(STEPS):
            roll = rng.random()
            if roll < 0.3:
                obj = rng.choice(["wood", "stone", "sapling"])
                inventory[obj] = inventory.get(obj, 0) + 1
                record: dict[str, Any] = {"t": t, "action": f"collect {obj}",
                                          "events": [{"kind": "collect", "obj": obj}, {"kind": "gain", "obj": obj}]}
            elif roll < 0.4 and inventory.get("wood", 0) > 0:
                inventory["wood"] -= 1
                record = {"t": t, "action": "place table",
                          "events": [{"kind": "place", "obj": "table"}, {"kind": "consume", "obj": "wood"}]}
            else:
                record = {"t": t, "action": rng.choice(["move left", "move right", "noop"])}
            record["inventory"] = dict(inventory)
            record["objects"] = rng.sample(["tree", "water", "grass", "cow"], 2)
            record["location"] = {"position": [t % 64, t // 64], "region": rng.choice(["forest", "lake"]), "underfoot": "grass"}
            handle.write(json.dumps(record) + "\n")


def _write_chat(path: Path) -> None:
    rng = random.Random(8)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    topics = ["hiking with Pepper", "the half marathon", "my knee physio", "the bakery job", "a trip to Lisbon"]
    with path.open("w", encoding="utf-8") as handle:
        for s in range(SESSIONS):
            when = (start + timedelta(days=4 * s)).isoformat()
            for i in range(4):
                line = {"session_id": f"s{s}", "timestamp": when, "speaker": "Maya" if i % 2 == 0 else "Sam",
                        "text": f"Yesterday I told you about {rng.choice(topics)}, and today {rng.choice(topics)}.", "id": f"s{s}:{i}"}
                handle.write(json.dumps(line) + "\n")


def _start(tmp: Path, server: tuple[str, tuple[str, str]], namespace: str, files: list[Path]) -> subprocess.Popen[bytes]:
    uri, (user, password) = server
    script = tmp / "ingest_driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, str(script), uri, user, password, namespace, str(BATCH), str(GROUP), *map(str, files)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool], timeout: float = 120.0) -> None:
    """SIGKILL the process as soon as ``ready()`` holds; fail if it finished or stalled first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"ingest finished (exit {proc.returncode}) before it could be interrupted: {err.decode()[-2000:]}")
        if ready():
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            return
        time.sleep(0.05)
    proc.kill()
    pytest.fail("ingest did not reach the interruption point in time")


def _finish(proc: subprocess.Popen[bytes], timeout: float = 300.0) -> tuple[int, int]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err.decode()[-3000:]
    written, skipped = out.decode().split()[-2:]
    return int(written), int(skipped)


def _last_t(store: Neo4jStore, namespace: str, episode: str) -> int:
    node = store.get_nodes(namespace, [node_key("Episode", episode)]).get(node_key("Episode", episode))
    return -1 if node is None else int(node.get("last_t", -1))


def _fingerprint(store: Neo4jStore, namespace: str) -> tuple[dict[str, int], str, int, int]:
    """Counts, a digest of every node and edge (namespace-specific values left out), and the row counts."""
    with store.driver.session(database=store.database) as session:
        nodes = session.run(
            "MATCH (n:Memory {namespace: $ns}) WHERE n.key IS NOT NULL "
            "RETURN n.key AS key, labels(n) AS labels, properties(n) AS props",
            ns=namespace,
        ).data()
        edges = session.run(
            "MATCH (a:Memory {namespace: $ns})-[r]->(b) WHERE a.key IS NOT NULL "
            "RETURN a.key AS a, type(r) AS type, b.key AS b, properties(r) AS props",
            ns=namespace,
        ).data()
    node_lines = []
    for row in nodes:
        props = {k: v for k, v in row["props"].items() if k not in ("namespace", "ns_key")}
        if "embedding" in props:
            props["embedding"] = [round(float(x), 5) for x in props["embedding"]]
        if "embedding_int8" in props:  # the int8 code beside it (a byte array): compared too
            props["embedding_int8"] = bytes(props["embedding_int8"]).hex()
        # The Browser-only DATETIME twins of the epoch-second times: compared too, as text.
        props.update({k: v.iso_format() for k, v in props.items() if isinstance(v, DateTime)})
        node_lines.append(json.dumps([row["key"], sorted(row["labels"]), props], sort_keys=True))
    edge_lines = [json.dumps([r["a"], r["type"], r["b"], r["props"]], sort_keys=True) for r in edges]
    digest = hashlib.sha256("\n".join(sorted(node_lines) + ["--"] + sorted(edge_lines)).encode()).hexdigest()
    return store.counts(namespace), digest, len(node_lines), len(edge_lines)


def test_killed_ingest_resumes_to_the_clean_graph(neo4j_server, neo4j_store: Neo4jStore, tmp_path: Path) -> None:
    steps_file, chat_file = tmp_path / "run-7.jsonl", tmp_path / "chat.jsonl"
    _write_steps(steps_file)
    _write_chat(chat_file)
    files = [steps_file, chat_file]
    resumed, clean = f"resume-{uuid.uuid4().hex[:10]}", f"clean-{uuid.uuid4().hex[:10]}"
    try:
        # Run 1: killed in the middle of the step log, after a few batches were committed.
        proc = _start(tmp_path, neo4j_server, resumed, files)
        _kill_when(proc, lambda: _last_t(neo4j_store, resumed, "run-7") >= 10 * BATCH - 1)
        stopped_at = _last_t(neo4j_store, resumed, "run-7")
        assert 0 < stopped_at < STEPS - 1, "the kill must land inside the step log"
        assert (stopped_at + 1) % BATCH == 0, "only whole batches are committed"

        # Run 2: resumes the steps, then is killed once a few sessions are stored (whole groups of
        # sessions, each written in one transaction).
        proc = _start(tmp_path, neo4j_server, resumed, files)
        _kill_when(proc, lambda: len(neo4j_store.sessions(resumed)) >= 3, timeout=180.0)
        assert _last_t(neo4j_store, resumed, "run-7") == STEPS - 1
        stored = len(neo4j_store.sessions(resumed))
        assert 3 <= stored < SESSIONS
        assert stored % GROUP == 0, "only whole groups of sessions are committed"

        # Run 3: to completion; everything stored before is skipped, not re-written.
        written, skipped = _finish(_start(tmp_path, neo4j_server, resumed, files))
        assert skipped >= STEPS and written < 4 * SESSIONS

        # A clean, uninterrupted ingest of the same files into another namespace.
        written_clean, skipped_clean = _finish(_start(tmp_path, neo4j_server, clean, files))
        assert (written_clean, skipped_clean) == (STEPS + 4 * SESSIONS, 0)

        got, want = _fingerprint(neo4j_store, resumed), _fingerprint(neo4j_store, clean)
        assert got[0] == want[0], "node/edge counts differ"
        assert got[0]["Step"] == STEPS and got[0]["Turn"] == 4 * SESSIONS and got[0]["Session"] == SESSIONS
        assert got[2:] == want[2:], "a different number of node or edge rows (duplicates or missing)"
        assert got[1] == want[1], "same counts but different content"

        # And a fourth run over the complete namespace writes nothing.
        assert _finish(_start(tmp_path, neo4j_server, resumed, files)) == (0, STEPS + 4 * SESSIONS)
    finally:
        neo4j_store.delete_namespace(resumed)
        neo4j_store.delete_namespace(clean)


# ------------------------------------------------------------------------------------------------
# The same rules on the embedded backend, without a subprocess: format detection, validation before
# writing, resuming, and refusing a file that is not the stored episode.
# ------------------------------------------------------------------------------------------------


class _HashEmbedder:
    dimensions = 384

    def __init__(self) -> None:
        self.texts = 0

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        self.texts += len(texts)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, text in enumerate(texts):
            v = np.random.default_rng(int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)).normal(size=384)
            out[i] = v / np.linalg.norm(v)
        return out


def _embedded_memory() -> Any:
    from graphmem.memory import Memory
    from graphmem.store.embedded import EmbeddedStore

    return Memory(store=EmbeddedStore(), embedder=_HashEmbedder())


def test_formats_are_detected_and_bad_lines_write_nothing(tmp_path: Path) -> None:
    from graphmem.errors import InvalidRecordError
    from graphmem.ingest import detect_format, ingest_files

    steps_file, chat_file = tmp_path / "run-7.jsonl", tmp_path / "chat.jsonl"
    _write_steps(steps_file)
    _write_chat(chat_file)
    assert detect_format(steps_file) == "steps" and detect_format(chat_file) == "chat"
    bad = tmp_path / "bad.jsonl"
    lines = steps_file.read_text(encoding="utf-8").splitlines()
    lines[2500] = lines[2500].replace('"t": 2500', '"t": 2499')  # out of order, deep in the file
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    mem = _embedded_memory()
    with pytest.raises(InvalidRecordError, match="line 2501"):
        ingest_files(mem, [bad], "ns", batch_size=100, progress=False)
    assert mem.stats("ns") == {}
    (tmp_path / "other.jsonl").write_text('{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(InvalidRecordError, match="neither a step"):
        ingest_files(mem, [steps_file, tmp_path / "other.jsonl"], "ns", progress=False)
    assert mem.stats("ns") == {}  # a bad second file stops the run before the first is written


def test_resume_skips_without_embedding_and_refuses_another_run(tmp_path: Path) -> None:
    from graphmem.errors import ConflictError
    from graphmem.ingest import ingest_files

    steps_file = tmp_path / "run-7.jsonl"
    _write_steps(steps_file)
    partial = tmp_path / "partial" / "run-7.jsonl"
    partial.parent.mkdir()
    partial.write_text("".join(steps_file.read_text(encoding="utf-8").splitlines(keepends=True)[:1234]), encoding="utf-8")
    mem = _embedded_memory()
    first = ingest_files(mem, [partial], "ns", batch_size=200, progress=False)
    assert (first.written, first.skipped) == (1234, 0)
    embedded_before = mem.embedder.texts
    again = ingest_files(mem, [steps_file], "ns", batch_size=200, progress=False)
    assert (again.written, again.skipped) == (STEPS - 1234, 1234)
    assert mem.embedder.texts - embedded_before == STEPS - 1234  # stored steps were not embedded again
    assert mem.stats("ns")["Step"] == STEPS

    clean = _embedded_memory()
    ingest_files(clean, [steps_file], "ns", batch_size=200, progress=False)
    assert clean.stats("ns") == mem.stats("ns")

    # Another run under the same episode id is refused, not appended.
    other = tmp_path / "other" / "run-7.jsonl"
    other.parent.mkdir()
    lines = steps_file.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    lines[-1] = json.dumps({**last, "action": "sleep", "events": []})  # the step the store ends on
    other.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConflictError, match="differs"):
        ingest_files(mem, [other], "ns", progress=False)


def test_cli_subparser() -> None:
    import argparse

    from graphmem.ingest import DEFAULT_BATCH_SIZE, add_ingest_subparser, run_ingest

    parser = argparse.ArgumentParser(prog="graphmem")
    add_ingest_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["ingest", "a.jsonl", "b.jsonl", "--namespace", "agent-1", "--uri", "bolt://127.0.0.1:7687"])
    assert args.func is run_ingest and args.files == [Path("a.jsonl"), Path("b.jsonl")]
    assert (args.namespace, args.batch_size, args.uri, args.episode) == ("agent-1", DEFAULT_BATCH_SIZE, "bolt://127.0.0.1:7687", None)
    args = parser.parse_args(["ingest", "a.jsonl", "-n", "x", "--batch-size", "64", "--no-progress", "--no-boxes"])
    assert (args.batch_size, args.no_progress, args.no_boxes, args.uri) == (64, True, True, None)
