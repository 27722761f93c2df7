"""Deleting one episode or one dialogue session: what goes, and what the rest of the graph becomes.

Both stores delete the same way because they share this plan. A store reads a ``SessionParts`` (the
session, its episode and the episode's sessions, turns and boxes, by their order numbers), and
``session_removal`` says which nodes go and which rows to merge afterwards, in the same transaction:

* the session, its turns, its topic boxes (a box never spans two sessions) and the boxes' events go;
* the participants, entities, locations and traces they linked to go once nothing else links them;
* the ``NEXT`` chains of sessions, turns and boxes close over the gap;
* the later sessions, turns and boxes of the episode move up (``seq`` stays dense, so the next session
  takes the numbers the writer expects);
* a session before it that lasted until it started (RaMem's rule: a session without an explicit end
  lasts until the next one starts) now lasts until the session after it, or, when there is none, ends
  where it starts, as a fresh last session does;
* the Episode's writing state (``session_count``, ``turn_count``, ``box_count``, ``last_session``,
  ``last_turn``, ``last_box``, the first and last session's times, the speakers) is what it would be
  had the session never been added, so later appends continue from it. ``longest_session`` and
  ``longest_event`` stay upper bounds of the intervals (a bound may only grow, never shrink below one).

``episode_renumbering`` gives the Episode rows that keep the namespace's episode ``seq`` dense after an
episode is deleted (a new episode takes the next number, the count of episodes).

>>> parts = SessionParts(
...     "user-1",
...     {"uid": "s2", "episode": "dialogue", "seq": 1, "start": 20.0, "end": 20.0},
...     {"uid": "dialogue", "session_count": 2, "turn_count": 2, "box_count": 0, "last_session": "s2"},
...     [{"uid": "s1", "seq": 0, "start": 10.0, "end": 20.0}, {"uid": "s2", "seq": 1, "start": 20.0, "end": 20.0}],
...     [{"uid": "a", "seq": 0, "session": "s1", "speaker": "Maya"}, {"uid": "b", "seq": 1, "session": "s2", "speaker": "Sam"}],
...     [], [], ["participant:Sam"])
>>> removal = session_removal(parts)
>>> removal.doomed, removal.shared
(('session:s2', 'turn:b'), ('participant:Sam',))
>>> episode = removal.then.nodes[0].props
>>> episode["session_count"], episode["last_session"], episode["last_turn"], episode["last_session_end"], episode["speakers"]
(1, 's1', 'a', 10.0, '["Maya"]')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.store.protocol import EdgeRow, NodeRow, WriteBatch, node_key

#: The relationships from a unit to the nodes several units share (a participant, an entity, a place).
SHARED_LINKS = ("AT", "INVOLVES", "MENTIONS", "SPOKEN_BY")


@dataclass(frozen=True)
class SessionParts:
    """What deleting one session reads: its node, its episode's node, and the episode's sessions, turns
    and boxes (each a mapping with at least ``uid`` and ``seq``; sessions with ``start`` and ``end``, turns
    with ``session`` and ``speaker``, boxes with ``session`` and ``first_turn_seq``), the keys of the
    session's box events, and the keys of the shared nodes and traces its turns and box events link to."""

    namespace: str
    session: Mapping[str, Any]
    episode: Mapping[str, Any]
    sessions: Sequence[Mapping[str, Any]]
    turns: Sequence[Mapping[str, Any]]
    boxes: Sequence[Mapping[str, Any]]
    box_events: Sequence[str]
    shared: Sequence[str]


@dataclass(frozen=True)
class Removal:
    """Delete ``doomed`` (with their relationships), then ``shared`` where nothing links them any more,
    then merge ``then``: one transaction."""

    doomed: tuple[str, ...]
    shared: tuple[str, ...]
    then: WriteBatch


def _by_seq(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(rows, key=lambda r: (int(r.get("seq", 0)), str(r["uid"])))


def session_removal(parts: SessionParts) -> Removal:
    """The nodes that go and the rows that change when ``parts.session`` is deleted (see the module doc)."""
    ns = parts.namespace
    sid = str(parts.session["uid"])
    episode_id = str(parts.episode["uid"])
    sessions = _by_seq(parts.sessions)
    turns = _by_seq(parts.turns)
    boxes = _by_seq(parts.boxes)
    at = next(i for i, s in enumerate(sessions) if s["uid"] == sid)
    previous = sessions[at - 1] if at > 0 else None
    following = sessions[at + 1] if at + 1 < len(sessions) else None
    gone_turns = [t for t in turns if t.get("session") == sid]
    kept_turns = [t for t in turns if t.get("session") != sid]
    gone_boxes = [b for b in boxes if b.get("session") == sid]
    kept_boxes = [b for b in boxes if b.get("session") != sid]

    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []

    # Later sessions, turns and boxes move up, so seq stays dense.
    for rank, s in enumerate(s for s in sessions if s["uid"] != sid):
        if int(s["seq"]) != rank:
            nodes.append(NodeRow("Session", ns, str(s["uid"]), {"seq": rank}))
    new_turn_seq = {str(t["uid"]): rank for rank, t in enumerate(kept_turns)}
    for t in kept_turns:
        if int(t["seq"]) != new_turn_seq[str(t["uid"])]:
            nodes.append(NodeRow("Turn", ns, str(t["uid"]), {"seq": new_turn_seq[str(t["uid"])]}))
    old_to_new = {int(t["seq"]): new_turn_seq[str(t["uid"])] for t in kept_turns}
    for rank, b in enumerate(kept_boxes):
        props: dict[str, Any] = {}
        if int(b["seq"]) != rank:
            props["seq"] = rank
        first = b.get("first_turn_seq")
        if first is not None and old_to_new.get(int(first), int(first)) != int(first):
            props["first_turn_seq"] = old_to_new[int(first)]
        if props:
            nodes.append(NodeRow("Box", ns, str(b["uid"]), props))

    # The chains close over the gap.
    def bridge(kept: Sequence[Mapping[str, Any]], gone: Sequence[Mapping[str, Any]], label: str) -> None:
        if not gone:
            return
        first, last = int(gone[0]["seq"]), int(gone[-1]["seq"])
        before = [r for r in kept if int(r["seq"]) < first]
        after = [r for r in kept if int(r["seq"]) > last]
        if before and after:
            edges.append(EdgeRow("NEXT", ns, node_key(label, str(before[-1]["uid"])), node_key(label, str(after[0]["uid"]))))

    bridge([s for s in sessions if s["uid"] != sid], [parts.session], "Session")
    bridge(kept_turns, gone_turns, "Turn")
    bridge(kept_boxes, gone_boxes, "Box")

    # A session that lasted until this one started now lasts until the next one (or ends where it starts).
    longest = parts.episode.get("longest_session")
    previous_end = float(previous["end"]) if previous is not None else None
    if previous is not None and float(previous["end"]) == float(parts.session["start"]):
        previous_end = float(following["start"]) if following is not None else float(previous["start"])
        nodes.append(NodeRow("Session", ns, str(previous["uid"]), {"end": previous_end}))
        if longest is not None:
            longest = max(float(longest), previous_end - float(previous["start"]))

    kept_sessions = [s for s in sessions if s["uid"] != sid]
    last = kept_sessions[-1]
    episode = {
        "session_count": len(kept_sessions),
        "turn_count": len(kept_turns),
        "box_count": len(kept_boxes),
        "last_session": str(last["uid"]),
        "last_session_start": float(last["start"]),
        "first_session_start": float(kept_sessions[0]["start"]),
        "last_turn": str(kept_turns[-1]["uid"]) if kept_turns else None,
        "last_box": str(kept_boxes[-1]["uid"]) if kept_boxes else None,
        "speakers": json.dumps(sorted({str(t["speaker"]) for t in kept_turns})),
        "longest_session": longest,
    }
    if following is None:
        # The last session goes: the one before becomes the last, with its own end.
        episode["last_session_end"] = previous_end if previous_end is not None else float(last["end"])
        episode["last_session_explicit_end"] = previous_end != float(last["start"]) if previous is not None else False
    nodes.insert(0, NodeRow("Episode", ns, episode_id, episode))

    doomed = [node_key("Session", sid)]
    doomed += [node_key("Turn", str(t["uid"])) for t in gone_turns]
    doomed += [node_key("Box", str(b["uid"])) for b in gone_boxes]
    doomed += list(parts.box_events)
    return Removal(tuple(doomed), tuple(sorted(set(parts.shared))), WriteBatch(tuple(nodes), tuple(edges)))


def episode_renumbering(namespace: str, episodes: Sequence[Mapping[str, Any]], removed: str) -> WriteBatch:
    """Episode rows giving the namespace's other episodes the places 0, 1, ... in their order.

    >>> rows = episode_renumbering("ns", [{"uid": "a", "seq": 0}, {"uid": "b", "seq": 1}, {"uid": "c", "seq": 2}], "a")
    >>> [(r.uid, r.props["seq"]) for r in rows.nodes]
    [('b', 0), ('c', 1)]
    """
    kept = [e for e in _by_seq(episodes) if e["uid"] != removed]
    return WriteBatch(tuple(NodeRow("Episode", namespace, str(e["uid"]), {"seq": rank})
                            for rank, e in enumerate(kept) if int(e.get("seq", 0)) != rank))
