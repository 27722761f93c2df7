"""A memory as a whole: its namespaces, what each holds, and forgetting one episode or one session.

These need a store only (no embedding model), so the command line answers them without loading one.

>>> from graphmem import Memory, Step
>>> with Memory(path=":memory:") as mem:
...     _ = mem.add_steps("agent-1", "run-1", [Step(0, "noop")])
...     _ = mem.add_steps("agent-1", "run-2", [Step(0, "collect wood")])
...     forgotten = forget(mem.store, "agent-1", episode="run-1")
...     left = [e.uid for e in episodes_of(mem.store, "agent-1")]
>>> forgotten, left
("episode 'run-1' of namespace 'agent-1'", ['run-2'])
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import NotFoundError
from graphmem.records import validate_id
from graphmem.store.protocol import BoxRow, EpisodeRow, GraphStore, StepRow, StoredRow, TurnRow, node_key
from graphmem.store.rows import read_episode, read_sessions

#: How many names an error message lists before it says "and N more".
LISTED = 10


def _listing(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "") if names else "none"


def episodes_of(store: GraphStore, namespace: str) -> list[EpisodeRow]:
    """The namespace's Episode nodes, in order; ``NotFoundError`` (naming the namespaces there are) when
    it holds none, ``InvalidRecordError`` when ``namespace`` is no id."""
    episodes = store.episode_nodes(validate_id(namespace, "memory", "namespace"))
    if not episodes:
        raise NotFoundError(f"namespace {namespace!r} holds no memory (namespaces: {_listing(store.namespaces())})")
    return episodes


def summary(store: GraphStore, namespace: str) -> dict[str, Any]:
    """What a namespace holds: nodes per label and relationships per type, and each episode with its
    kind and size (steps and last step index of a trajectory; sessions and turns of a dialogue)."""
    episodes = []
    for e in episodes_of(store, namespace):
        row: dict[str, Any] = {"episode": e.uid, "kind": e.kind}
        if e.kind == "trajectory":
            row["last_t"] = e.last_t
        else:
            row.update(sessions=e.session_count or 0, turns=e.turn_count or 0, boxes=e.box_count or 0)
        episodes.append(row)
    return {"namespace": namespace, "counts": store.counts(namespace), "episodes": episodes}


def forget(store: GraphStore, namespace: str, episode: str | None = None, session: str | None = None) -> str:
    """Delete one episode, one session (of ``episode`` when given as well), or with neither the whole
    namespace; returns what was deleted, in words. ``NotFoundError`` when the episode or session is not
    stored (nothing is deleted), ``InvalidRecordError`` when one of them is no id."""
    validate_id(namespace, "forget", "namespace")
    for name, value in (("episode", episode), ("session", session)):
        if value is not None:
            validate_id(value, "forget", name)
    if episode is None and session is None:
        store.delete_namespace(namespace)
        return f"namespace {namespace!r}"
    if session is not None:
        stored = read_sessions(store, namespace, [node_key("Session", session)]).get(node_key("Session", session))
        if stored is None or (episode is not None and stored.episode != episode):
            known = [s.uid for s in store.sessions(namespace, episode)]
            where = f"episode {episode!r} of namespace {namespace!r}" if episode is not None else f"namespace {namespace!r}"
            raise NotFoundError(f"{where} has no session {session!r} (sessions: {_listing(known)})")
        store.delete_session(namespace, session)
        return f"session {session!r} of namespace {namespace!r}"
    assert episode is not None
    if read_episode(store, namespace, episode) is None:
        known = [e.uid for e in store.episode_nodes(namespace)]
        raise NotFoundError(f"namespace {namespace!r} has no episode {episode!r} (episodes: {_listing(known)})")
    store.delete_episode(namespace, episode)
    return f"episode {episode!r} of namespace {namespace!r}"


def unit_text(row: StoredRow | None) -> str:
    """What a unit says, for a search hit: a turn's speaker and utterance, a step's action, events and
    place ("" for no row).

    >>> unit_text(TurnRow("turn:c1", "c1", "Maya", "Hi!")), unit_text(StepRow("step:run:3", "run:3", "run", 3, "collect wood", text="step 3: collect wood"))
    ('Maya: Hi!', 'step 3: collect wood')
    """
    if isinstance(row, TurnRow):
        return f"{row.speaker}: {row.utterance}"
    if isinstance(row, (StepRow, BoxRow)):
        return row.text
    return ""
