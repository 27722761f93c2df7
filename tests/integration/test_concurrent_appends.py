"""Writers racing to append to one episode and one dialogue: exactly one of each race commits.

Several processes, each with its own ``Memory`` on the real Neo4j server, append to ONE trajectory episode
(``add_steps``) and ONE dialogue (``add_session``) round after round; a barrier releases every writer's
append at the same moment, and a writer whose append meets ``ConflictError`` re-reads the episode and
tries again. Afterwards the graph must be what a one-at-a-time history of the acknowledged writes makes:
one linear NEXT chain (no step or turn with two successors or two predecessors), dense event ordinals per
(kind, obj), dense ``Session.seq``, and every acknowledged step and turn stored exactly as written, nothing
else. Then every writer creates the same new episode (and the same new dialogue) at once: exactly one
writer's first steps are stored. Under read-committed isolation, a guard read before the episode's write
lock is held let two writers build on the same ``last_t`` (or both create the episode) and both commit;
the same races run on the embedded store (threads sharing one store).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

import pytest

from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.memory import Memory
from graphmem.records import Event, Step, Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.protocol import GraphStore, node_key
from graphmem.write.context import TurnContext
from graphmem.write.steps import step_digest
from hash_embed import HashEmbedder

WRITERS = 4
ROUNDS = 12
STEPS_PER_APPEND = 3
TURNS_PER_SESSION = 2
#: Races to create a new episode and a new dialogue (one attempt each).
NEW_EPISODES = 6
EPISODE = "run"
DIALOGUE = "chat"
#: How long a writer waits at the barrier (or for the others to finish) before the test fails.
WAIT_SECONDS = 60.0


class SpeakerContexts:
    """Each turn's context is its speaker alone: the race is about ordering, not context extraction
    (and no spaCy pipeline has to load in every writer process)."""

    def extract(self, turns: Sequence[Turn], session_start: datetime, speakers: Sequence[str]) -> list[TurnContext]:
        return [TurnContext((t.speaker,), (), (), (), None, None, ()) for t in turns]


def _steps_after(last_t: int | None, writer: int, round_: int, attempt: int) -> list[Step]:
    """The steps one append adds after ``last_t``: each names its writer, round and attempt, so a stored
    step tells which append wrote it."""
    first = 0 if last_t is None else last_t + 1
    return [
        Step(
            first + i,
            f"w{writer} r{round_} a{attempt} step {i}",
            events=(Event("collect", "wood"), Event("place", f"table-{writer % 2}")),
        )
        for i in range(STEPS_PER_APPEND)
    ]


def _append_steps(mem: Memory, namespace: str, writer: int, round_: int) -> tuple[list[tuple[int, str]], int]:
    """Append one batch of steps, re-reading the episode after each conflict; returns the acknowledged
    steps as (t, digest) and how many conflicts it met."""
    conflicts = 0
    for attempt in range(10 * WRITERS):
        episode = mem.store.get_nodes(namespace, [node_key("Episode", EPISODE)]).get(node_key("Episode", EPISODE))
        steps = _steps_after(None if episode is None else int(episode["last_t"]), writer, round_, attempt)
        try:
            report = mem.add_steps(namespace, EPISODE, steps)
        except ConflictError:
            conflicts += 1
            continue
        assert report.written == len(steps), report
        return [(s.t, step_digest(s)) for s in steps], conflicts
    raise AssertionError(f"writer {writer} round {round_}: no append of steps committed")


def _add_session(mem: Memory, namespace: str, writer: int, round_: int) -> tuple[tuple[str, list[tuple[str, str]]], int]:
    """Add one session, re-reading the dialogue after each conflict; returns the acknowledged session as
    (session id, [(turn id, utterance)]) and how many conflicts it met."""
    conflicts = 0
    for attempt in range(10 * WRITERS):
        episode = mem.store.get_nodes(namespace, [node_key("Episode", DIALOGUE)]).get(node_key("Episode", DIALOGUE))
        last_start = float(episode["last_session_start"]) if episode is not None else 0.0
        # Sessions go in time order: this one starts after the last stored one (and at least now).
        start = datetime.fromtimestamp(max(time.time(), last_start + 1.0), tz=UTC)
        session_id = f"w{writer}-r{round_}-a{attempt}"
        turns = [Turn(f"{session_id}:{j}", f"speaker-{writer}", f"{session_id} says thing {j}") for j in range(TURNS_PER_SESSION)]
        try:
            report = mem.add_session(namespace, session_id, turns, started_at=start, episode_id=DIALOGUE)
        except ConflictError:
            conflicts += 1
            continue
        except InvalidRecordError as exc:
            # Another writer's later session landed between the re-read and this add: re-read, retry.
            if exc.field != "started_at":
                raise
            conflicts += 1
            continue
        assert report.written == len(turns), report
        return (session_id, [(t.id, t.text) for t in turns]), conflicts
    raise AssertionError(f"writer {writer} round {round_}: no session committed")


def _race(mem: Memory, namespace: str, writer: int, wait: Callable[[], Any]) -> dict[str, Any]:
    acked_steps: list[tuple[int, str]] = []
    acked_sessions: list[tuple[str, list[tuple[str, str]]]] = []
    conflicts = 0
    for round_ in range(ROUNDS):
        wait()  # every writer appends at the same moment
        steps, n = _append_steps(mem, namespace, writer, round_)
        acked_steps += steps
        conflicts += n
        wait()
        session, n = _add_session(mem, namespace, writer, round_)
        acked_sessions.append(session)
        conflicts += n
    # Every writer creates the same new episode and the same new dialogue at once: the episode's first
    # steps are one writer's (the others' differ, so a conflict however late they read), and the new
    # dialogue holds the sessions acknowledged to the writers, in one order.
    created_steps: list[tuple[str, list[tuple[int, str]]]] = []
    created_sessions: list[tuple[str, str]] = []
    start = datetime(2024, 1, 1, tzinfo=UTC)
    for round_ in range(NEW_EPISODES):
        wait()
        first_steps = _steps_after(None, writer, round_, 0)
        try:
            mem.add_steps(namespace, f"new-{round_}", first_steps)
            created_steps.append((f"new-{round_}", [(s.t, step_digest(s)) for s in first_steps]))
        except ConflictError:
            conflicts += 1
        wait()
        session_id = f"new-{round_}-w{writer}"
        try:
            mem.add_session(namespace, session_id, [Turn(f"{session_id}:0", "A", session_id)], started_at=start,
                            episode_id=f"new-chat-{round_}")
            created_sessions.append((f"new-chat-{round_}", session_id))
        except ConflictError:
            conflicts += 1
    return {"writer": writer, "steps": acked_steps, "sessions": acked_sessions, "conflicts": conflicts,
            "created_steps": created_steps, "created_sessions": created_sessions}


def _neo4j_writer(uri: str, auth: tuple[str, str], namespace: str, writer: int, barrier: Any, results: Any) -> None:
    """One writer process: its own driver and ``Memory``; puts what it was acknowledged on ``results``."""
    from graphmem.store.neo4j import Neo4jStore

    try:
        with Memory(store=Neo4jStore(uri, auth=auth), embedder=HashEmbedder(), boxes=False, contexts=SpeakerContexts()) as mem:
            results.put(_race(mem, namespace, writer, lambda: barrier.wait(WAIT_SECONDS)))
    except Exception as exc:  # noqa: BLE001 - the parent reports it; a silent child would only time out
        barrier.abort()
        results.put({"writer": writer, "error": repr(exc)})


def _check_history(store: GraphStore, namespace: str, outcomes: Sequence[dict[str, Any]]) -> None:
    """The stored episode and dialogue are exactly the acknowledged appends, in one linear order."""
    errors = [o["error"] for o in outcomes if "error" in o]
    assert not errors, errors
    assert sum(o["conflicts"] for o in outcomes) > 0, "the writers never raced: the test exercised nothing"

    # Steps: 0..n-1, each as its acknowledged writer wrote it, nothing unacknowledged.
    acked = dict(pair for o in outcomes for pair in o["steps"])
    assert len(acked) == sum(len(o["steps"]) for o in outcomes), "two acknowledged appends wrote the same step index"
    n = WRITERS * ROUNDS * STEPS_PER_APPEND
    assert sorted(acked) == list(range(n))
    assert store.counts(namespace)["Step"] == n + NEW_EPISODES * STEPS_PER_APPEND
    stored = store.steps_at(namespace, EPISODE, list(range(n)))
    assert {t: row.digest for t, row in stored.items()} == acked
    episode = store.get_nodes(namespace, [node_key("Episode", EPISODE)])[node_key("Episode", EPISODE)]
    assert episode["last_t"] == n - 1
    for kind, obj in [("collect", "wood"), ("place", "table-0"), ("place", "table-1")]:
        ordinals = []
        for t in range(n):
            for event in store.events_of(namespace, [node_key("Step", f"{EPISODE}:{t}")]):
                if (event.kind, event.obj) == (kind, obj):
                    ordinals.append(event.ordinal)
        assert ordinals == list(range(1, len(ordinals) + 1)), f"ordinals of ({kind}, {obj}) are not dense in time order"
        assert store.event_total(namespace, EPISODE, kind, obj) == len(ordinals)

    # Sessions: seq 0..m-1, each with its acknowledged turns, nothing unacknowledged.
    acked_sessions = {sid: turns for o in outcomes for sid, turns in o["sessions"]}
    m = WRITERS * ROUNDS
    assert len(acked_sessions) == m
    sessions = store.sessions(namespace, DIALOGUE)
    assert sorted(s.uid for s in sessions) == sorted(acked_sessions)
    assert [s.seq for s in sessions] == list(range(m)), "Session.seq is not dense"
    assert [s.start for s in sessions] == sorted(s.start for s in sessions)
    turn_order = [turn_id for s in sessions for turn_id, _ in acked_sessions[s.uid]]
    turns = store.get_nodes(namespace, [node_key("Turn", t) for t in turn_order])
    assert {turns[node_key("Turn", t)]["utterance"] for t in turn_order} == {text for ts in acked_sessions.values() for _, text in ts}
    assert [turns[node_key("Turn", t)]["seq"] for t in turn_order] == list(range(len(turn_order))), "Turn.seq is not dense"
    new_turns = sum(len(o["created_sessions"]) for o in outcomes)
    assert store.counts(namespace)["Turn"] == len(turn_order) + new_turns
    dialogue = store.get_nodes(namespace, [node_key("Episode", DIALOGUE)])[node_key("Episode", DIALOGUE)]
    assert (dialogue["session_count"], dialogue["turn_count"]) == (m, len(turn_order))

    # One linear NEXT chain each through the steps, the sessions and the turns, in their stored order: every
    # node's successor is the next one, and the namespace holds no other NEXT edge, so no node has a second
    # successor or predecessor (a fork) and none is left out.
    step_chain = [node_key("Step", f"{EPISODE}:{t}") for t in range(n)]
    session_chain = [node_key("Session", s.uid) for s in sessions]
    turn_chain = [node_key("Turn", t) for t in turn_order]
    for chain in (step_chain, session_chain, turn_chain):
        assert _links(store, namespace, chain) == list(pairwise(chain)), "the NEXT chain forks or breaks"
    new_next = 0
    # New episodes: one creator's steps each; new dialogues: the acknowledged sessions, seq 0, 1, ...
    for round_ in range(NEW_EPISODES):
        new_episode = f"new-{round_}"
        [winner] = [steps for o in outcomes for ep, steps in o["created_steps"] if ep == new_episode]
        stored_new = store.steps_at(namespace, new_episode, list(range(STEPS_PER_APPEND + 1)))
        assert {t: row.digest for t, row in stored_new.items()} == dict(winner)
        new_next += len(winner) - 1
        dialogue_id = f"new-chat-{round_}"
        added = {sid for o in outcomes for ep, sid in o["created_sessions"] if ep == dialogue_id}
        stored_sessions = store.sessions(namespace, dialogue_id)
        assert added and {s.uid for s in stored_sessions} == added
        assert [s.seq for s in stored_sessions] == list(range(len(added))), "Session.seq of a new dialogue is not dense"
        new_next += 2 * (len(added) - 1)  # the sessions' chain and their (one-turn) turns' chain
    assert store.counts(namespace)["NEXT"] == len(step_chain) + len(session_chain) + len(turn_chain) - 3 + new_next


def _links(store: GraphStore, namespace: str, chain: Sequence[str]) -> list[tuple[str, str]]:
    """(node, its successor along NEXT) for the chain's nodes that have one, as the store walks them."""
    chains = store.neighbours(namespace, list(chain), before=0, after=1).chains
    return [(key, chains[key][1]) for key in chain if len(chains.get(key, [])) > 1]


@pytest.mark.neo4j
def test_racing_appenders_on_neo4j_commit_one_at_a_time(neo4j_server, neo4j_store):
    uri, auth = neo4j_server
    namespace = f"race-{uuid.uuid4().hex[:10]}"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WRITERS)
    results = context.Queue()
    processes = [
        context.Process(target=_neo4j_writer, args=(uri, auth, namespace, w, barrier, results), daemon=True)
        for w in range(WRITERS)
    ]
    try:
        for p in processes:
            p.start()
        outcomes = [results.get(timeout=WAIT_SECONDS * 2) for _ in processes]
        for p in processes:
            p.join(timeout=WAIT_SECONDS)
        _check_history(neo4j_store, namespace, outcomes)
    finally:
        for p in processes:
            if p.is_alive():
                p.terminate()
        neo4j_store.delete_namespace(namespace)


def test_racing_appenders_on_the_embedded_store_commit_one_at_a_time():
    store = EmbeddedStore()
    namespace = "race"
    barrier = threading.Barrier(WRITERS)
    outcomes: list[dict[str, Any]] = []

    def run(writer: int) -> None:
        mem = Memory(store=store, embedder=HashEmbedder(), boxes=False, contexts=SpeakerContexts())
        try:
            outcomes.append(_race(mem, namespace, writer, lambda: barrier.wait(WAIT_SECONDS)))
        except Exception as exc:  # noqa: BLE001 - reported by the test, as a writer's outcome
            barrier.abort()
            outcomes.append({"writer": writer, "error": repr(exc)})

    threads = [threading.Thread(target=run, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_SECONDS * 2)
    assert Counter(o["writer"] for o in outcomes) == Counter(range(WRITERS))
    _check_history(store, namespace, outcomes)
