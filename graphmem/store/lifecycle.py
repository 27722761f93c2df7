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

>>> from graphmem.store.protocol import EpisodeRow, SessionRow
>>> s1, s2 = SessionRow("s1", "dialogue", 0, 10.0, 20.0, "", ""), SessionRow("s2", "dialogue", 1, 20.0, 20.0, "", "")
>>> parts = SessionParts(
...     "user-1", s2,
...     EpisodeRow("episode:dialogue", "dialogue", "dialogue", session_count=2, turn_count=2, box_count=0, last_session="s2"),
...     [s1, s2], [TurnPlace("a", 0, "s1", "Maya"), TurnPlace("b", 1, "s2", "Sam")], [], [], ["participant:Sam"])
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

from graphmem.store.protocol import EdgeRow, EpisodeRow, NodeRow, SessionRow, WriteBatch, node_key

#: The relationships from a unit to the nodes several units share (a participant, an entity, a place).
SHARED_LINKS = ("AT", "INVOLVES", "MENTIONS", "SPOKEN_BY")


@dataclass(frozen=True)
class TurnPlace:
    """A turn as deleting a session sees it: its place in the dialogue, its session and its speaker."""

    uid: str
    seq: int
    session: str | None
    speaker: str


@dataclass(frozen=True)
class BoxPlace:
    """A topic box as deleting a session sees it: its place, its session and its first turn's ``seq``."""

    uid: str
    seq: int
    session: str | None
    first_turn_seq: int | None


def turn_place(props: Mapping[str, Any]) -> TurnPlace:
    """A turn's properties (all of them, or those ``TurnPlace`` names) as its place."""
    session = props.get("session")
    return TurnPlace(str(props["uid"]), int(props["seq"]), None if session is None else str(session), str(props["speaker"]))


def box_place(props: Mapping[str, Any]) -> BoxPlace:
    """A box's properties (all of them, or those ``BoxPlace`` names) as its place."""
    session, first = props.get("session"), props.get("first_turn_seq")
    return BoxPlace(str(props["uid"]), int(props["seq"]), None if session is None else str(session),
                    None if first is None else int(first))


@dataclass(frozen=True)
class SessionParts:
    """What deleting one session reads: its row, its episode's row, and the episode's sessions, turns and
    boxes, the keys of the session's box events, and the keys of the shared nodes and traces its turns
    and box events link to."""

    namespace: str
    session: SessionRow
    episode: EpisodeRow
    sessions: Sequence[SessionRow]
    turns: Sequence[TurnPlace]
    boxes: Sequence[BoxPlace]
    box_events: Sequence[str]
    shared: Sequence[str]


@dataclass(frozen=True)
class Removal:
    """Delete ``doomed`` (with their relationships), then ``shared`` where nothing links them any more,
    then merge ``then``: one transaction."""

    doomed: tuple[str, ...]
    shared: tuple[str, ...]
    then: WriteBatch


def session_removal(parts: SessionParts) -> Removal:
    """The nodes that go and the rows that change when ``parts.session`` is deleted (see the module doc)."""
    ns = parts.namespace
    sid = parts.session.uid
    episode_id = parts.episode.uid
    sessions = sorted(parts.sessions, key=lambda r: (r.seq, r.uid))
    turns = sorted(parts.turns, key=lambda r: (r.seq, r.uid))
    boxes = sorted(parts.boxes, key=lambda r: (r.seq, r.uid))
    at = next(i for i, s in enumerate(sessions) if s.uid == sid)
    previous = sessions[at - 1] if at > 0 else None
    following = sessions[at + 1] if at + 1 < len(sessions) else None
    gone_turns = [t for t in turns if t.session == sid]
    kept_turns = [t for t in turns if t.session != sid]
    gone_boxes = [b for b in boxes if b.session == sid]
    kept_boxes = [b for b in boxes if b.session != sid]

    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []

    # Later sessions, turns and boxes move up, so seq stays dense.
    for rank, s in enumerate(s for s in sessions if s.uid != sid):
        if s.seq != rank:
            nodes.append(NodeRow("Session", ns, s.uid, {"seq": rank}))
    new_turn_seq = {t.uid: rank for rank, t in enumerate(kept_turns)}
    for t in kept_turns:
        if t.seq != new_turn_seq[t.uid]:
            nodes.append(NodeRow("Turn", ns, t.uid, {"seq": new_turn_seq[t.uid]}))
    old_to_new = {t.seq: new_turn_seq[t.uid] for t in kept_turns}
    for rank, b in enumerate(kept_boxes):
        props: dict[str, Any] = {}
        if b.seq != rank:
            props["seq"] = rank
        first = b.first_turn_seq
        if first is not None and old_to_new.get(first, first) != first:
            props["first_turn_seq"] = old_to_new[first]
        if props:
            nodes.append(NodeRow("Box", ns, b.uid, props))

    # The chains close over the gap.
    def bridge(kept: Sequence[SessionRow | TurnPlace | BoxPlace], gone: Sequence[SessionRow | TurnPlace | BoxPlace],
               label: str) -> None:
        if not gone:
            return
        first, last = gone[0].seq, gone[-1].seq
        before = [r for r in kept if r.seq < first]
        after = [r for r in kept if r.seq > last]
        if before and after:
            edges.append(EdgeRow("NEXT", ns, node_key(label, before[-1].uid), node_key(label, after[0].uid)))

    bridge([s for s in sessions if s.uid != sid], [parts.session], "Session")
    bridge(kept_turns, gone_turns, "Turn")
    bridge(kept_boxes, gone_boxes, "Box")

    # A session that lasted until this one started now lasts until the next one (or ends where it starts).
    longest = parts.episode.longest_session
    previous_end = previous.end if previous is not None else None
    if previous is not None and previous.end == parts.session.start:
        previous_end = following.start if following is not None else previous.start
        nodes.append(NodeRow("Session", ns, previous.uid, {"end": previous_end}))
        if longest is not None:
            longest = max(longest, previous_end - previous.start)

    kept_sessions = [s for s in sessions if s.uid != sid]
    last = kept_sessions[-1]
    episode = {
        "session_count": len(kept_sessions),
        "turn_count": len(kept_turns),
        "box_count": len(kept_boxes),
        "last_session": last.uid,
        "last_session_start": last.start,
        "first_session_start": kept_sessions[0].start,
        "last_turn": kept_turns[-1].uid if kept_turns else None,
        "last_box": kept_boxes[-1].uid if kept_boxes else None,
        "speakers": json.dumps(sorted({t.speaker for t in kept_turns})),
        "longest_session": longest,
    }
    if following is None:
        # The last session goes: the one before becomes the last, with its own end.
        episode["last_session_end"] = previous_end if previous_end is not None else last.end
        episode["last_session_explicit_end"] = previous_end != last.start if previous is not None else False
    nodes.insert(0, NodeRow("Episode", ns, episode_id, episode))

    doomed = [node_key("Session", sid)]
    doomed += [node_key("Turn", t.uid) for t in gone_turns]
    doomed += [node_key("Box", b.uid) for b in gone_boxes]
    doomed += list(parts.box_events)
    return Removal(tuple(doomed), tuple(sorted(set(parts.shared))), WriteBatch(tuple(nodes), tuple(edges)))


def episode_renumbering(namespace: str, episodes: Sequence[EpisodeRow], removed: str) -> WriteBatch:
    """Episode rows giving the namespace's other episodes the places 0, 1, ... in their order.

    >>> episodes = [EpisodeRow(f"episode:{uid}", uid, "trajectory", seq=seq) for seq, uid in enumerate("abc")]
    >>> [(r.uid, r.props["seq"]) for r in episode_renumbering("ns", episodes, "a").nodes]
    [('b', 0), ('c', 1)]
    """
    kept = [e for e in sorted(episodes, key=lambda e: (e.seq or 0, e.uid)) if e.uid != removed]
    return WriteBatch(tuple(NodeRow("Episode", namespace, e.uid, {"seq": rank})
                            for rank, e in enumerate(kept) if (e.seq or 0) != rank))
