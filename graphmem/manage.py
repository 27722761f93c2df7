"""A memory as a whole: its namespaces, what each holds, and forgetting one episode or one session.

These need a store only (no embedding model), so the command line answers them without loading one.

>>> from graphmem import Memory, Step
>>> with Memory(path=":memory:") as mem:
...     _ = mem.add_steps("agent-1", "run-1", [Step(0, "noop")])
...     _ = mem.add_steps("agent-1", "run-2", [Step(0, "collect wood")])
...     forgotten = forget(mem.store, "agent-1", episode="run-1")
...     left = [e["uid"] for e in episodes_of(mem.store, "agent-1")]
>>> forgotten, left
("episode 'run-1' of namespace 'agent-1'", ['run-2'])
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import NotFoundError
from graphmem.records import validate_id
from graphmem.store.protocol import GraphStore, node_key

#: How many names an error message lists before it says "and N more".
LISTED = 10


def _listing(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "") if names else "none"


def episodes_of(store: GraphStore, namespace: str) -> list[dict[str, Any]]:
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
        row: dict[str, Any] = {"episode": e["uid"], "kind": e.get("kind")}
        if e.get("kind") == "trajectory":
            row["last_t"] = e.get("last_t")
        else:
            row.update(sessions=e.get("session_count", 0), turns=e.get("turn_count", 0), boxes=e.get("box_count", 0))
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
        node = store.get_nodes(namespace, [node_key("Session", session)]).get(node_key("Session", session))
        if node is None or (episode is not None and node.get("episode") != episode):
            known = [s.uid for s in store.sessions(namespace, episode)]
            where = f"episode {episode!r} of namespace {namespace!r}" if episode is not None else f"namespace {namespace!r}"
            raise NotFoundError(f"{where} has no session {session!r} (sessions: {_listing(known)})")
        store.delete_session(namespace, session)
        return f"session {session!r} of namespace {namespace!r}"
    assert episode is not None
    if not store.get_nodes(namespace, [node_key("Episode", episode)]):
        known = [str(e["uid"]) for e in store.episode_nodes(namespace)]
        raise NotFoundError(f"namespace {namespace!r} has no episode {episode!r} (episodes: {_listing(known)})")
    store.delete_episode(namespace, episode)
    return f"episode {episode!r} of namespace {namespace!r}"


def unit_text(props: dict[str, Any]) -> str:
    """What a unit says, for a search hit: a turn's speaker and utterance, a step's action, events and place.

    >>> unit_text({"speaker": "Maya", "utterance": "Hi!"}), unit_text({"text": "step 3: collect wood"})
    ('Maya: Hi!', 'step 3: collect wood')
    """
    if "utterance" in props:
        return f"{props.get('speaker', '')}: {props['utterance']}"
    return str(props.get("text", ""))
