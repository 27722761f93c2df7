"""The memory file (``FileStore``): what one process writes, the next reads, with every result the same.

Beside the contract suite (the ``store`` fixture's "file" backend answers every GraphStore read as the
embedded store does), these tests close and reopen files, share one file between stores and processes,
race two processes on one episode, kill a writer with SIGKILL mid-write, and feed it damaged files.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import multiprocessing
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.errors import ConflictError, StoreError
from graphmem.loaders.chat_jsonl import load_chat_jsonl
from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.recall.config import RecallConfig
from graphmem.records import Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.file import OWN_METHODS, FileStore, _catching_up, is_change
from graphmem.store.open import default_path, open_store
from graphmem.store.protocol import GraphStore, NodeRow, WriteBatch, node_key
from hash_embed import HashEmbedder

DATA = resources.files("graphmem") / "data"
SPAWN = multiprocessing.get_context("spawn")
#: Recall without rare-word expansion, as the comparison of the stores reads dialogue.
NO_EXPANSION = RecallConfig(use_expansion=False)
#: Seconds a test waits for a child process's message before failing (children import numpy and graphmem).
PATIENCE = 120.0


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture(scope="module")
def conversation():
    with resources.as_file(DATA / "demo_dialogue.jsonl") as chat:
        [conversation] = load_chat_jsonl(chat)
    return conversation


@pytest.fixture(scope="module")
def crafter_steps() -> list[Step]:
    with resources.as_file(DATA / "demo_crafter.jsonl") as steps:
        return read_steps_jsonl(steps)


def fill(store: GraphStore, steps: list[Step], conversation: Any) -> None:
    """A trajectory and a dialogue (with topic boxes and traces), as ``Memory`` writes them."""
    memory = Memory(store=store, embedder=HashEmbedder())
    memory.add_steps("agent", "crafter", steps[:150])
    memory.add_steps("agent", "crafter", steps[150:])
    for session in conversation.sessions:
        memory.add_session("user", session.session_id, session.turns, started_at=session.started_at)


def reads(store: GraphStore, steps: list[Step], conversation: Any) -> dict[str, Any]:
    """What recall can read of ``fill``'s graph, read by every kind of lookup."""
    query = [float(x) for x in HashEmbedder().embed(["collect wood"])[0]]
    step_keys = [node_key("Step", f"crafter:{s.t}") for s in steps]
    turn_keys = [node_key("Turn", t.id) for s in conversation.sessions for t in s.turns]
    boxes = store.boxes_of("user", turn_keys)
    box_keys = sorted(set(boxes.values()))
    memory = Memory(store=store, embedder=HashEmbedder())
    return {
        "counts": (store.counts("agent"), store.counts("user")),
        "episodes": (store.episode_nodes("agent"), store.episode_nodes("user", kind="dialogue")),
        "steps": store.steps_at("agent", "crafter", [s.t for s in steps]),
        "nodes": store.get_nodes("user", turn_keys + box_keys),
        "events": store.events_of("agent", step_keys),
        "occurrence": (store.occurrence("agent", "crafter", "collect", "wood", 2), store.event_total("agent", "crafter", "collect", "wood"),
                       store.latest_event_until("agent", "crafter", "collect", "wood", 200)),
        "neighbours": store.neighbours("agent", step_keys[100:110], 2, 3, with_props=True),
        "fulltext": [(h, h.node) for h in store.fulltext("agent", "collect wood tree", 10, with_props=True)]
        + [(h, h.node) for h in store.fulltext("user", "half marathon", 10)] + store.fulltext("user", "marathon", 5, label="Box"),
        "vector": [(h, h.node) for h in store.vector("agent", query, 10, with_props=True)]
        + store.vector("user", query, 10, label="Turn") + store.vector("user", query, 3, label="Box"),
        "sessions": store.sessions("user"),
        "window": (store.units_in_window("user", 0.0, 4e9, 100), store.sessions_in_window("user", 0.0, 4e9)),
        "boxes": (boxes, store.box_members("user", box_keys), store.trace_boxes("user", box_keys), store.trace_events("user")),
        "recall": (memory.recall("agent", "At which step did I collect wood for the third time?", budget=150).text,
                   memory.recall("user", "How did Maya's half marathon plan develop?", budget=150, config=NO_EXPANSION).text),
    }


def test_reopened_file_reads_exactly_what_was_written(path, crafter_steps, conversation):
    embedded = EmbeddedStore()
    fill(embedded, crafter_steps, conversation)
    expected = reads(embedded, crafter_steps, conversation)
    store = FileStore(path)
    fill(store, crafter_steps, conversation)
    assert reads(store, crafter_steps, conversation) == expected
    store.close()
    reopened = FileStore(path)
    assert reads(reopened, crafter_steps, conversation) == expected
    assert expected["counts"][0]["Step"] == 300 and expected["counts"][1]["Box"] > 0 and expected["boxes"][3]
    # The reopened memory goes on where the first left off: stored steps and sessions are no-ops.
    memory = Memory(store=reopened, embedder=HashEmbedder())
    assert memory.add_steps("agent", "crafter", crafter_steps[:10]).unchanged == 10
    first = conversation.sessions[0]
    assert memory.add_session("user", first.session_id, first.turns, started_at=first.started_at).written == 0
    reopened.close()


def test_every_protocol_method_goes_through_the_file(path):
    """Each GraphStore method is one of FileStore's own, a change logged to the file, or the embedded
    store's read behind a catch-up: calling any read applies what another store wrote to the file first."""
    members = [name for name, value in vars(GraphStore).items() if callable(value) and not name.startswith("_")]
    assert {"write", "get_nodes", "vector", "delete_namespace"} <= set(members)
    reader, writer = FileStore(path), FileStore(path)
    for i, name in enumerate(members):
        if name in OWN_METHODS:
            assert name in vars(FileStore), name
            continue
        assert getattr(FileStore, name).__wrapped__ is getattr(EmbeddedStore, name), f"{name} is the embedded store's own"
        if is_change(name):
            continue  # logged: test_every_change_is_replayed_after_reopening
        key = node_key("Entity", f"e{i}")
        writer.write(WriteBatch((NodeRow("Entity", "ns", f"e{i}", {"name": name}),)))
        assert EmbeddedStore.get_nodes(reader, "ns", [key]) == {}  # the reader's graph, not caught up
        # Placeholder arguments: what matters is that the call caught up before it read anything.
        arguments = [_placeholder(p) for p in inspect.signature(getattr(EmbeddedStore, name)).parameters.values()
                     if p.name != "self" and p.default is inspect.Parameter.empty]
        with contextlib.suppress(ValueError, TypeError, KeyError):
            getattr(reader, name)(*arguments)
        assert key in EmbeddedStore.get_nodes(reader, "ns", [key]), f"{name} read without catching up"
    reader.close()
    writer.close()
    # And beyond the protocol: no public method of the embedded store reaches FileStore unwrapped.
    public = [name for name, _ in inspect.getmembers(EmbeddedStore, inspect.isfunction) if not name.startswith("_")]
    assert [n for n in public if n not in OWN_METHODS and getattr(FileStore, n) is getattr(EmbeddedStore, n)] == []


CHANGES = sorted(name for name, _ in inspect.getmembers(EmbeddedStore, inspect.isfunction) if is_change(name) and name != "write")


@pytest.mark.parametrize("method", CHANGES)
def test_every_change_is_replayed_after_reopening(path, crafter_steps, conversation, method):
    """Every change method besides ``write`` (each ``delete_*``), called on the file store, leaves the
    graph the embedded store leaves, in this process, in another store on the file and after reopening."""
    assert "delete_namespace" in CHANGES
    parameters = [p.name for p in inspect.signature(getattr(EmbeddedStore, method)).parameters.values()][1:]
    namespace = "user" if "session" in parameters else "agent"
    known = {"namespace": namespace, "episode": "crafter", "session": conversation.sessions[1].session_id}
    assert set(parameters) <= set(known), f"give {method}'s parameters {parameters} a value here"
    arguments = [known[p] for p in parameters]
    embedded, store, other = EmbeddedStore(), FileStore(path), FileStore(path)
    for target in (embedded, store):
        fill(target, crafter_steps, conversation)
        getattr(target, method)(*arguments)
    expected = reads(embedded, crafter_steps, conversation)
    assert expected != reads(EmbeddedStore(), crafter_steps, conversation)  # something is left to compare
    assert reads(store, crafter_steps, conversation) == expected
    assert reads(other, crafter_steps, conversation) == expected
    store.close()
    other.close()
    assert reads(FileStore(path), crafter_steps, conversation) == expected


def test_a_read_that_changes_the_graph_is_refused(path, monkeypatch):
    """A method the file store takes for a read (not named as a change) but that changes the graph would
    change this process's memory only: it fails, and the graph is the file's again."""

    def tidy(self: EmbeddedStore, namespace: str) -> None:
        EmbeddedStore.delete_namespace(self, namespace)

    monkeypatch.setattr(FileStore, "tidy", _catching_up(tidy), raising=False)
    store = FileStore(path)
    store.write(WriteBatch((NodeRow("Entity", "ns", "e", {}),)))
    with pytest.raises(StoreError, match="EmbeddedStore.tidy changed the graph"):
        store.tidy("ns")  # type: ignore[attr-defined]
    assert store.counts("ns") == {"Entity": 1}
    store.close()


def _placeholder(parameter: inspect.Parameter) -> Any:
    named = {"namespace": "ns", "label": "unit", "cmp": "==", "source": "inventory"}
    if parameter.name in named:
        return named[parameter.name]
    kind = str(parameter.annotation)
    if "Sequence[float]" in kind:
        return [1.0] + [0.0] * 383
    if kind.startswith("Sequence"):
        return []
    return {"str": "x", "int": 1, "float": 0.0, "bool": False}.get(kind.split(" ")[0])


def test_two_stores_on_one_file_see_each_others_writes(path):
    a, b = FileStore(path), FileStore(path)
    first, second = Memory(store=a, embedder=HashEmbedder()), Memory(store=b, embedder=HashEmbedder())
    first.add_steps("agent", "run", [Step(0, "collect wood"), Step(1, "place table")])
    assert b.counts("agent")["Step"] == 2
    # The second store appends after what the first wrote (it reads last_t from the file) ...
    assert second.add_steps("agent", "run", [Step(2, "make wood pickaxe")]).written == 1
    assert a.steps_at("agent", "run", [2])[2].text == "step 2: make wood pickaxe"
    # ... and a batch built on the state before the other's write is refused, writing nothing.
    so_far, new, _ = first.plan_steps("agent", "run", [Step(3, "collect stone")])
    second.add_steps("agent", "run", [Step(3, "drink water")])
    with pytest.raises(ConflictError, match="last_t=3"):
        a.write(first.step_batch("agent", "run", new, so_far))
    assert a.counts("agent") == b.counts("agent") and a.counts("agent")["Step"] == 4
    b.delete_namespace("agent")
    assert a.counts("agent") == {}
    a.close()
    b.close()
    with pytest.raises(StoreError, match="closed"):
        a.counts("agent")
    assert FileStore(path).counts("agent") == {}


def test_delete_namespace_survives_reopening(path):
    store = FileStore(path)
    memory = Memory(store=store, embedder=HashEmbedder())
    memory.add_steps("gone", "run", [Step(0, "collect wood")])
    memory.add_steps("kept", "run", [Step(0, "collect wood")])
    memory.forget("gone")
    memory.add_steps("gone", "run", [Step(0, "drink water"), Step(1, "sleep")])  # a new memory under the old name
    store.close()
    reopened = FileStore(path)
    assert reopened.counts("gone")["Step"] == 2 and reopened.counts("kept")["Step"] == 1
    assert reopened.steps_at("gone", "run", [0])[0].text == "step 0: drink water"
    reopened.close()


def test_values_come_back_as_the_file_gives_them(path):
    store = FileStore(path)
    vector = [float(x) for x in np.linspace(-1, 1, 384)]  # not float32 values: kept as float64
    row = NodeRow("Entity", "ns", "e", {"names": ("a", "b"), "n": np.int64(3), "ratio": 0.1, "flag": True, "vec": vector,
                                       "short": [0.5, 0.25]})
    store.write(WriteBatch((row,)))
    live = store.get_nodes("ns", ["entity:e"])
    assert live["entity:e"]["names"] == ["a", "b"] and type(live["entity:e"]["n"]) is int and live["entity:e"]["vec"] == vector
    with pytest.raises(StoreError, match="property value"):
        store.write(WriteBatch((NodeRow("Entity", "ns", "bad", {"map": {"a": 1}}),)))
    store.close()
    reopened = FileStore(path)
    assert reopened.get_nodes("ns", ["entity:e", "entity:bad"]) == live
    reopened.close()


def test_a_batch_that_fails_part_way_leaves_nothing_in_memory_or_file(path):
    store = FileStore(path)
    store.write(WriteBatch((NodeRow("Entity", "ns", "before", {}),)))
    # A Step without its episode stops the embedded store's apply after the node went in.
    broken = WriteBatch((NodeRow("Entity", "ns", "new", {}), NodeRow("Step", "ns", "run:0", {"text": "no episode"})))
    with pytest.raises((KeyError, StoreError)):
        store.write(broken)
    assert store.counts("ns") == {"Entity": 1}
    store.close()
    assert FileStore(path).counts("ns") == {"Entity": 1}


def test_readers_go_on_while_another_process_holds_the_write_lock(path):
    store = FileStore(path, timeout=0.2)
    store.write(WriteBatch((NodeRow("Entity", "ns", "e", {}),)))
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        assert FileStore(path).counts("ns") == {"Entity": 1}  # opening and reading need no lock
        started = time.monotonic()
        with pytest.raises(StoreError, match="another process holds the write lock"):
            store.write(WriteBatch((NodeRow("Entity", "ns", "f", {}),)))
        assert time.monotonic() - started >= 0.2
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.write(WriteBatch((NodeRow("Entity", "ns", "f", {}),)))
    assert store.counts("ns") == {"Entity": 2}
    store.close()


def test_damaged_or_foreign_files_are_refused_clearly(tmp_path):
    noise = tmp_path / "noise.db"
    noise.write_bytes(b"not a database, just some bytes" * 100)
    with pytest.raises(StoreError, match="is not a graphmem memory file"):
        FileStore(noise)
    foreign = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as db, db:
        db.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(StoreError, match="another application"):
        FileStore(foreign)
    newer = tmp_path / "newer.db"
    FileStore(newer).close()
    with contextlib.closing(sqlite3.connect(newer)) as db, db:
        db.execute("UPDATE graphmem_meta SET value = '99' WHERE key = 'version'")
    with pytest.raises(StoreError, match="newer graphmem"):
        FileStore(newer)
    FileStore(tmp_path / "narrow.db").close()
    with pytest.raises(StoreError, match="384-dimensional"):
        FileStore(tmp_path / "narrow.db", dimensions=768)
    damaged = tmp_path / "damaged.db"
    store = FileStore(damaged)
    store.write(WriteBatch((NodeRow("Entity", "ns", "e", {}),)))
    store.close()
    with contextlib.closing(sqlite3.connect(damaged)) as db, db:
        db.execute("UPDATE graphmem_log SET body = '{\"v\": 1, \"op\": \"write\", \"nodes\": [[' WHERE seq = 1")
    with pytest.raises(StoreError, match="log row 1 cannot be read"):
        FileStore(damaged)


def test_open_store_picks_the_backend(tmp_path, monkeypatch, memory_file):
    assert type(open_store(path=":memory:")).__name__ == "EmbeddedStore"
    assert not memory_file.exists()
    with Memory(embedder=HashEmbedder()) as memory:  # GRAPHMEM_PATH (the test's own file, see conftest)
        memory.add_steps("agent", "run", [Step(0, "noop")])
    assert memory_file.exists()
    with Memory(path=memory_file, embedder=HashEmbedder()) as memory:
        assert memory.stats("agent")["Step"] == 1
    with Memory(path=":memory:", embedder=HashEmbedder()) as memory:
        assert memory.stats("agent") == {}
    monkeypatch.delenv("GRAPHMEM_PATH")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = open_store()
    assert isinstance(store, FileStore) and store.path == tmp_path / "data" / "graphmem" / "memory.db" == default_path()
    store.close()
    with pytest.raises(ValueError, match="not both"):
        open_store("bolt://localhost:7687", path=memory_file)


# ---------------------------------------------------------------------------------------- processes


def _visible_child(path: str, conn: Any) -> None:
    store = FileStore(path)
    store.write(WriteBatch((NodeRow("Entity", "child", "e", {"by": "child"}),)))
    conn.send("written")
    assert conn.recv() == "yours?"
    conn.send(store.get_nodes("parent", ["entity:e"]))
    store.close()


def _recv(conn: Any) -> Any:
    assert conn.poll(PATIENCE), "the child process sent nothing"
    return conn.recv()


def test_two_processes_see_each_others_writes(path):
    store = FileStore(path)  # opened before the child writes
    parent_end, child_end = SPAWN.Pipe()
    child = SPAWN.Process(target=_visible_child, args=(str(path), child_end))
    child.start()
    try:
        assert _recv(parent_end) == "written"
        assert store.get_nodes("child", ["entity:e"])["entity:e"]["by"] == "child"
        store.write(WriteBatch((NodeRow("Entity", "parent", "e", {"by": "parent"}),)))
        parent_end.send("yours?")
        assert _recv(parent_end)["entity:e"]["by"] == "parent"
    finally:
        child.join(PATIENCE)
    assert child.exitcode == 0
    store.close()


ROUNDS, PER_ROUND = 6, 5


def _racer(path: str, me: str, barrier: Any, conn: Any) -> None:
    memory = Memory(store=FileStore(path), embedder=HashEmbedder())
    for r in range(ROUNDS):
        episode = memory.store.get_nodes("agent", ["episode:run"]).get("episode:run")
        start = 0 if episode is None else episode["last_t"] + 1
        steps = [Step(start + i, f"{me} round {r} step {i}") for i in range(PER_ROUND)]
        so_far, new, _ = memory.plan_steps("agent", "run", steps)
        barrier.wait(PATIENCE)  # both built on the same state
        try:
            memory.store.write(memory.step_batch("agent", "run", new, so_far))
            conn.send((r, me, "committed"))
        except ConflictError:
            conn.send((r, me, "conflict"))
        barrier.wait(PATIENCE)  # the next round starts from what this one left
    memory.close()


def test_two_processes_racing_on_one_episode_commit_one_batch_a_round(path):
    FileStore(path).close()
    barrier = SPAWN.Barrier(2)
    ends = [SPAWN.Pipe() for _ in range(2)]
    racers = [SPAWN.Process(target=_racer, args=(str(path), f"p{i}", barrier, ends[i][1])) for i in range(2)]
    for racer in racers:
        racer.start()
    try:
        results = [[_recv(ends[i][0]) for _ in range(ROUNDS)] for i in range(2)]
    finally:
        for racer in racers:
            racer.join(PATIENCE)
    assert [racer.exitcode for racer in racers] == [0, 0]
    winners = []
    for r in range(ROUNDS):
        outcomes = [results[i][r] for i in range(2)]
        assert sorted(o[2] for o in outcomes) == ["committed", "conflict"], outcomes
        winners.append(next(o[1] for o in outcomes if o[2] == "committed"))
    store = FileStore(path)
    assert store.counts("agent")["Step"] == ROUNDS * PER_ROUND
    stored = store.steps_at("agent", "run", range(ROUNDS * PER_ROUND))
    assert [stored[r * PER_ROUND].text.split(": ")[1].split(" round ")[0] for r in range(ROUNDS)] == winners
    assert store.get_nodes("agent", ["episode:run"])["episode:run"]["last_t"] == ROUNDS * PER_ROUND - 1
    store.close()


BATCH = 40


def _batch_steps(i: int) -> list[Step]:
    return [Step(t, f"move {['left', 'right', 'up', 'down'][t % 4]} then collect wood {t}") for t in range(i * BATCH, (i + 1) * BATCH)]


def _long_writer(path: str, conn: Any) -> None:
    memory = Memory(store=FileStore(path), embedder=HashEmbedder())
    conn.send("ready")
    for i in range(100_000):
        memory.add_steps("agent", "run", _batch_steps(i))
        conn.send(i)  # acknowledged: add_steps returned


def _graph(store: GraphStore, batches: int) -> dict[str, Any]:
    query = [float(x) for x in HashEmbedder().embed(["collect wood 7"])[0]]
    return {
        "counts": store.counts("agent"),
        "episode": store.episode_nodes("agent"),
        "steps": store.steps_at("agent", "run", range(batches * BATCH + BATCH)),
        "fulltext": store.fulltext("agent", "collect wood 7", 5),
        "vector": store.vector("agent", query, 5),
    }


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_writer_killed_mid_write_leaves_exactly_its_acknowledged_batches(path, seed):
    rng = random.Random(seed)
    parent_end, child_end = SPAWN.Pipe()
    writer = SPAWN.Process(target=_long_writer, args=(str(path), child_end))
    writer.start()
    assert _recv(parent_end) == "ready"
    assert isinstance(_recv(parent_end), int)  # writing has begun
    time.sleep(rng.uniform(0.1, 0.8))
    writer.kill()  # SIGKILL: no cleanup, no checkpoint, perhaps in the middle of a commit
    writer.join(PATIENCE)
    acknowledged = 0
    with contextlib.suppress(EOFError):
        while parent_end.poll(0.5):
            acknowledged = parent_end.recv() + 1
    assert writer.exitcode == -9 and acknowledged > 0
    reopened = FileStore(path)
    found = _graph(reopened, acknowledged)
    clean = Memory(store=EmbeddedStore(), embedder=HashEmbedder())
    for i in range(acknowledged):
        clean.add_steps("agent", "run", _batch_steps(i))
    if found != _graph(clean.store, acknowledged):
        # The batch in flight may have committed before its acknowledgement was sent: whole, then.
        clean.add_steps("agent", "run", _batch_steps(acknowledged))
        assert found == _graph(clean.store, acknowledged), f"{acknowledged} acknowledged batches (seed {seed})"
    # The file goes on: the next batch appends after the last one that landed.
    steps = reopened.counts("agent")["Step"]
    Memory(store=reopened, embedder=HashEmbedder()).add_steps("agent", "run", _batch_steps(steps // BATCH))
    assert reopened.counts("agent")["Step"] == steps + BATCH
    reopened.close()


@pytest.mark.slow
def test_one_ingest_command_is_read_by_the_next_process(tmp_path, path, monkeypatch):
    """README: ``graphmem ingest FILE -n NS`` keeps what it wrote for the next command and the next program."""
    steps_file = tmp_path / "run-1.jsonl"
    with resources.as_file(DATA / "demo_crafter.jsonl") as demo:
        steps_file.write_text("".join(demo.read_text().splitlines(keepends=True)[:30]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_NEO4J")} | {"GRAPHMEM_PATH": str(path)}

    def ingest() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "graphmem", "ingest", str(steps_file), str(DATA / "demo_dialogue.jsonl"), "-n", "agent-1", "--no-progress"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        return done

    first = ingest()
    assert "47 units written, 0 already stored" in first.stdout and "in-process" not in first.stderr
    assert "0 units written, 47 already stored" in ingest().stdout  # the second command finds them stored
    monkeypatch.setenv("GRAPHMEM_PATH", str(path))
    with Memory(embedder=HashEmbedder()) as memory:
        stats = memory.stats("agent-1")
        assert stats["Step"] == 30 and stats["Turn"] == 17 and stats["Session"] >= 2
        assert sorted(memory.store.steps_at("agent-1", "run-1", range(40))) == list(range(30))
        assert memory.store.fulltext("agent-1", "half marathon", 3)


def _logged_operations(path: Path) -> Iterator[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        for (body,) in db.execute("SELECT body FROM graphmem_log ORDER BY seq"):
            yield json.loads(body)["op"]


def test_the_log_is_json_rows_in_commit_order(path):
    store = FileStore(path)
    Memory(store=store, embedder=HashEmbedder()).add_steps("agent", "run", [Step(0, "noop")])
    store.delete_namespace("agent")
    store.close()
    assert list(_logged_operations(path)) == ["write", "delete_namespace"]
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert json.loads(db.execute("SELECT body FROM graphmem_log WHERE seq = 2").fetchone()[0]) == {
            "v": 1, "op": "delete_namespace", "args": ["agent"]}


def _write_steps_jsonl(path: Path, n: int) -> None:
    """``n`` steps of a small agent in the JSONL format ``graphmem ingest`` reads."""
    rows = []
    for t in range(n):
        events = [{"kind": "collect", "obj": "wood"}] if t % 7 == 0 else []
        rows.append(json.dumps({"t": t, "action": "collect wood" if events else "noop", "events": events,
                                "inventory": {"wood": t // 7 + 1}, "location": {"region": f"area {t // 50}"}}))
    path.write_text("\n".join(rows) + "\n")


def _file_graph(path: Path, namespace: str) -> tuple[dict[str, int], list[tuple[int, str]]]:
    store = FileStore(path)
    try:
        steps = store.steps_at(namespace, "run-1", range(5000))
        return store.counts(namespace), sorted((t, row.digest) for t, row in steps.items())
    finally:
        store.close()


@pytest.mark.slow
def test_ingest_killed_mid_run_then_run_again_equals_a_clean_run(tmp_path):
    """kill -9 during ``graphmem ingest`` on the memory file, then the same command again: the graph is
    the one a clean run writes."""
    steps_file = tmp_path / "run-1.jsonl"
    _write_steps_jsonl(steps_file, 2500)
    killed, clean = tmp_path / "killed.db", tmp_path / "clean.db"
    base = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_NEO4J")}
    command = [sys.executable, "-m", "graphmem", "ingest", str(steps_file), "-n", "agent-1", "--no-progress"]

    writer = subprocess.Popen(command, env=base | {"GRAPHMEM_PATH": str(killed)}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    landed = 0
    while time.monotonic() < deadline and writer.poll() is None and landed < 2:
        time.sleep(0.2)
        if killed.exists():
            with contextlib.closing(sqlite3.connect(killed, timeout=5)) as db, contextlib.suppress(sqlite3.Error):
                landed = db.execute("SELECT count(*) FROM graphmem_log").fetchone()[0]
    assert writer.poll() is None, "the ingest finished before it could be killed: give it more steps"
    writer.kill()
    writer.wait(60)
    partial, _ = _file_graph(killed, "agent-1")
    assert 0 < partial.get("Step", 0) < 2500  # killed in the middle, with something written

    for target in (killed, clean):
        done = subprocess.run(command, env=base | {"GRAPHMEM_PATH": str(target)}, capture_output=True, text=True,
                              timeout=900, check=False)
        assert done.returncode == 0, done.stderr
    assert _file_graph(killed, "agent-1") == _file_graph(clean, "agent-1")
