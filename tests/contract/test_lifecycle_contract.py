"""Forgetting one episode or one session, on every backend (embedded, memory file, Neo4j).

After a deletion the counts, recall, search and export no longer show what was deleted, what other
episodes share stays, and appending afterwards works: a session's episode continues exactly as a memory
that never held the session.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.errors import NotFoundError
from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.file import FileStore
from graphmem.store.protocol import node_key
from graphmem.transfer import export_lines
from hash_embed import HashEmbedder

START = datetime(2024, 3, 1, tzinfo=UTC)
SESSIONS = {
    "s1": [("Maya", "I adopted a dog named Pepper."), ("Sam", "Pepper is a lovely name for a dog.")],
    "s2": [("Maya", "We flew over the valley in a zeppelin."), ("Sam", "A zeppelin ride sounds amazing.")],
    "s3": [("Maya", "Pepper learned to fetch the ball."), ("Lee", "Fetching is a good trick.")],
    "s4": [("Maya", "Pepper swam in the lake today."), ("Sam", "Dogs love the lake.")],
}
#: The Episode properties that say where the next session continues.
WRITING_STATE = ("session_count", "turn_count", "box_count", "last_session", "last_session_start", "last_session_end",
                 "last_session_explicit_end", "last_turn", "first_session_start", "speakers", "seq")


def _turns(sid: str) -> list[Turn]:
    return [Turn(f"{sid}:{i}", speaker, text) for i, (speaker, text) in enumerate(SESSIONS[sid])]


def _add(mem: Memory, namespace: str, sid: str) -> None:
    mem.add_session(namespace, sid, _turns(sid), started_at=START + timedelta(days=10 * int(sid[1:])))


def _steps(entity: str, n: int = 6) -> list[Step]:
    return [
        Step(t, f"collect {entity}" if t % 2 == 0 else "move left", events=(Event("collect", entity),) if t % 2 == 0 else (),
             objects=("tree", entity), inventory={entity: t // 2 + 1}, location=Location((t, 0), "forest"))
        for t in range(n)
    ]


def _ids(hits: list) -> set[str]:
    return {h.source_id for h in hits}


def test_forget_episode(store, namespace):
    mem = Memory(store=store, embedder=HashEmbedder())
    mem.add_steps(namespace, "run-1", _steps("stone"))
    mem.add_steps(namespace, "run-2", _steps("wood"))
    before = store.counts(namespace)
    mem.forget(namespace, episode="run-1")

    counts = store.counts(namespace)
    assert counts["Episode"] == 1 and counts["Step"] == before["Step"] // 2 and counts["Event"] == before["Event"] // 2
    assert counts["Change"] == before["Change"] // 2
    shared = store.get_nodes(namespace, [node_key("Entity", "stone"), node_key("Entity", "tree"), node_key("Location", "forest")])
    assert set(shared) == {node_key("Entity", "tree"), node_key("Location", "forest")}  # "stone" only run-1 used
    assert [(e.uid, e.seq) for e in store.episode_nodes(namespace)] == [("run-2", 0)]
    assert not any(s.startswith("run-1:") for s in _ids(mem.search(namespace, "collect stone", k=20)))
    assert mem.recall(namespace, "collect stone", budget=300, episode="run-1").source_ids == ()
    assert all(s.startswith("run-2:") for s in mem.recall(namespace, "when did I first collect wood?").source_ids)
    assert [json.loads(line).get("episode") for line in export_lines(store, namespace)][1] == "run-2"
    assert all("stone" not in line for line in export_lines(store, namespace))

    # Appending works afterwards: to the kept episode, and to a new episode of the deleted one's id.
    assert mem.add_steps(namespace, "run-2", [Step(6, "collect wood", events=(Event("collect", "wood"),))]).written == 1
    assert mem.add_steps(namespace, "run-1", [Step(0, "collect sand", events=(Event("collect", "sand"),))]).written == 1
    assert [(e.uid, e.seq) for e in store.episode_nodes(namespace)] == [("run-2", 0), ("run-1", 1)]
    assert mem.answer(namespace, "when did I first collect sand?").text == "0"
    with pytest.raises(NotFoundError, match="no episode 'run-9'"):
        mem.forget(namespace, episode="run-9")


def _dialogue_state(store, namespace: str) -> tuple[dict, list, dict]:
    """The episode's writing state, its sessions and its turns' order, as comparable values."""
    [episode] = store.episode_nodes(namespace, kind="dialogue")
    sessions = [(s.uid, s.seq, s.start, s.end) for s in store.sessions(namespace)]
    turns = {t.uid: (t.seq, t.session) for s in store.sessions(namespace) for t in store.session_turns(namespace, s.uid)}
    return {k: getattr(episode, k) for k in WRITING_STATE}, sessions, turns


def test_forget_session_continues_as_if_never_added(store, namespace, other_namespace):
    mem = Memory(store=store, embedder=HashEmbedder())
    for sid in ("s1", "s2", "s3"):
        _add(mem, namespace, sid)
    mem.forget(namespace, session="s2")

    assert store.counts(namespace)["Session"] == 2 and store.counts(namespace)["Turn"] == 4
    assert not any(s.startswith("s2:") for s in _ids(mem.search(namespace, "zeppelin ride over the valley", k=20)))
    evidence = mem.recall(namespace, "What did Maya fly over the valley in?", budget=400)
    assert evidence.source_ids and not any(s.startswith("s2:") for s in evidence.source_ids)
    assert "zeppelin" not in evidence.text
    assert not any("zeppelin" in line for line in export_lines(store, namespace))
    assert store.neighbours(namespace, [node_key("Session", "s1")], 0, 1).chains[node_key("Session", "s1")][-1] == node_key("Session", "s3")
    assert store.neighbours(namespace, [node_key("Turn", "s1:1")], 0, 1).chains[node_key("Turn", "s1:1")][-1] == node_key("Turn", "s3:0")
    # No box or trace of the deleted session is left; the kept sessions' boxes are.
    boxes = store.boxes_of(namespace, [f"turn:{sid}:{i}" for sid in ("s1", "s3") for i in range(2)])
    assert len(boxes) == 4 and store.counts(namespace).get("Box", 0) == len(set(boxes.values()))

    # The same memory written without s2 holds the same episode, sessions and turn order ...
    fresh = Memory(store=store, embedder=HashEmbedder())
    for sid in ("s1", "s3"):
        _add(fresh, other_namespace, sid)
    assert _dialogue_state(store, namespace) == _dialogue_state(store, other_namespace)
    # ... and both continue alike.
    _add(mem, namespace, "s4")
    _add(fresh, other_namespace, "s4")
    assert _dialogue_state(store, namespace) == _dialogue_state(store, other_namespace)
    assert "s4:0" in mem.recall(namespace, "Where did Pepper swim today?", budget=300).source_ids

    if isinstance(store, FileStore):  # another process reading the file sees the same memory
        reopened = FileStore(store.path)
        assert reopened.counts(namespace) == store.counts(namespace)
        assert _dialogue_state(reopened, namespace) == _dialogue_state(store, namespace)
        reopened.close()


def test_forget_last_and_only_session(store, namespace):
    mem = Memory(store=store, embedder=HashEmbedder())
    for sid in ("s1", "s2"):
        _add(mem, namespace, sid)
    mem.forget(namespace, session="s2")
    [s1] = store.sessions(namespace)
    assert (s1.uid, s1.end) == ("s1", s1.start)  # the last session again: it ends where it starts
    [episode] = store.episode_nodes(namespace)
    assert episode.last_session == "s1" and episode.last_turn == "s1:1" and episode.session_count == 1
    _add(mem, namespace, "s3")
    first, second = store.sessions(namespace)
    assert first.end == second.start

    with pytest.raises(NotFoundError, match="no session 's2'"):
        mem.forget(namespace, session="s2")
    mem.forget(namespace, session="s3")
    mem.forget(namespace, session="s1")  # the episode's only session: the episode goes with it
    assert store.counts(namespace) == {} and namespace not in store.namespaces()


def test_namespaces_and_session_turns(store, namespace, other_namespace):
    mem = Memory(store=store, embedder=HashEmbedder())
    mem.add_steps(namespace, "run-1", _steps("wood", 2))
    _add(mem, other_namespace, "s1")
    assert {namespace, other_namespace} <= set(store.namespaces())
    assert [t.uid for t in store.session_turns(other_namespace, "s1")] == ["s1:0", "s1:1"]
    assert store.session_turns(other_namespace, "nope") == []
    mem.forget(namespace)
    assert namespace not in store.namespaces()


def test_embedded_indexes_forget_deleted_units():
    """Every index beside the embedded graph drops a deleted unit (vector rows move, BM25 postings go)."""
    store = EmbeddedStore()
    mem = Memory(store=store, embedder=HashEmbedder())
    mem.add_steps("ns", "run-1", _steps("stone"))
    mem.add_steps("ns", "run-2", _steps("wood"))
    mem.forget("ns", episode="run-1")
    assert store.find_event("ns", "run-1", "collect", "stone", 1) is None
    assert store.steps_between("ns", "run-1", 0, 10, 10) == {}
    vector = HashEmbedder().embed(["anything"])[0]
    assert {h.uid.split(":")[0] for h in store.vector("ns", vector, 50)} == {"run-2"}
    assert store.fulltext("ns", "stone", 10) == []
    assert store.find_event("ns", "run-2", "collect", "wood", -1).t == 4
