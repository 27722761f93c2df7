"""Turn validated dialogue sessions into memory-graph rows (RaMem's episodic context + Membox's boxes).

Each turn keeps its episode: the session interval ``[start, end]`` (end = the next session's start, or
the session's own start until one arrives), speaker, mentioned participants, locations, entities,
mentioned times and, where the text says when something happened, a grounded event time, kept apart
from the session time. Sessions and turns are chained by ``NEXT``; boxes ``CONTAINS`` their turns and
their events join topic ``Trace`` nodes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.errors import GraphmemError
from graphmem.records import MAX_NAME_CHARS, Turn, unicode_problem
from graphmem.store.protocol import EdgeRow, EpisodeRow, NodeRow, WriteBatch, node_key
from graphmem.write.captions import (
    box_caption,
    episode_caption,
    session_caption,
    topic_caption,
    trace_caption,
    turn_caption,
)
from graphmem.write.context import TurnContext
from graphmem.write.loom.records import SealedBox
from graphmem.write.weaver import TraceAssignment


def epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def session_digest(session_id: str, started_at: datetime, ended_at: datetime | None, turns: Sequence[Turn]) -> str:
    """A fingerprint of what the caller gave for a session; re-adding the same session is a no-op."""
    data: list[str | None | list[str | None]] = [
        session_id, started_at.isoformat(), ended_at.isoformat() if ended_at else None
    ]
    data += [[t.id, t.speaker, t.text, t.image_caption] for t in turns]
    return hashlib.sha256(json.dumps(data).encode("utf-8")).hexdigest()[:32]


def turn_search_text(turn: Turn, context: TurnContext) -> str:
    """What full-text search sees for a turn: speaker, text, photo caption, then the turn's content lemmas.

    The lemmas ("paint" for "painted", "kid" for "kids") let a question's word meet the turn's inflected
    form: both backends' analyzers only lower-case, they do not stem. Recall adds the lemmas of the
    question's words too (``graphmem.recall.dialogue.question.analyze_question``).

    >>> from datetime import timezone
    >>> from graphmem.write.context import ContextExtractor
    >>> turn = Turn("D1:3", "Caroline", "My kids painted lakes.")
    >>> [context] = ContextExtractor().extract([turn], datetime(2023, 5, 8, tzinfo=timezone.utc), ["Caroline"])
    >>> turn_search_text(turn, context)
    'Caroline: My kids painted lakes. kid paint lake'
    """
    text = f"{turn.speaker}: {turn.text}"
    if turn.image_caption:
        text += f" [photo: {turn.image_caption}]"
    # All content lemmas, also those equal to their surface form: repeating a content word once more
    # weights it over the turn's small talk (measured slightly better than adding only the new forms).
    if context.keywords:
        text += " " + " ".join(context.keywords)
    return text


def _is_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_NAME_CHARS and unicode_problem(value) is None


def _in_range(value: object) -> bool:
    """Whether an event time is one recall computes with (a week either side stays within the years 1-9999)."""
    return isinstance(value, datetime) and 1 < value.year < 9999


def usable_contexts(contexts: Sequence[TurnContext], turns: Sequence[Turn]) -> list[TurnContext]:
    """The contexts a context source found for ``turns``, as both stores keep them alike: a person,
    entity or place that is no name (longer than ``MAX_NAME_CHARS``, say a 9,000-letter word) is not
    linked, and an event time recall cannot compute with (outside the years 2-9998) is dropped. One
    context per turn, else ``GraphmemError`` (nothing is written)."""
    if len(contexts) != len(turns):
        raise GraphmemError(f"the context source gave {len(contexts)} contexts for {len(turns)} turns; nothing was written")
    usable = []
    for ctx in contexts:
        timed = all(when is None or _in_range(when) for when in (ctx.event_start, ctx.event_end))
        usable.append(dataclasses.replace(
            ctx,
            participants=tuple(p for p in ctx.participants if _is_name(p)),
            entities=tuple(e for e in ctx.entities if _is_name(e)),
            locations=tuple(p for p in ctx.locations if _is_name(p)),
            event_start=ctx.event_start if timed else None,
            event_end=ctx.event_end if timed else None,
        ))
    return usable


@dataclass(frozen=True)
class DialogueSoFar:
    """What the store holds of a dialogue episode, as far as adding a session needs."""

    exists: bool
    seq: int
    turn_count: int
    session_count: int
    last_session: str | None
    last_session_start: float | None
    last_session_explicit_end: bool
    last_turn: str | None
    box_count: int
    last_box: str | None
    first_session_start: float | None = None
    #: The longest session interval and turn event-time interval of the episode, in seconds. Recall bounds
    #: its window reads with them (``units_in_window``).
    longest_session: float = 0.0
    longest_event: float = 0.0


def dialogue_so_far(episode: EpisodeRow | None, seq: int) -> DialogueSoFar:
    """The writing state of a dialogue episode from its stored ``Episode`` node (None: a new episode, which
    takes place ``seq`` among its namespace's episodes)."""
    if episode is None:
        return DialogueSoFar(False, seq, 0, 0, None, None, False, None, 0, None, None, 0.0, 0.0)
    return DialogueSoFar(
        True,
        episode.seq if episode.seq is not None else seq,
        episode.turn_count or 0,
        episode.session_count or 0,
        episode.last_session,
        episode.last_session_start,
        bool(episode.last_session_explicit_end),
        episode.last_turn,
        episode.box_count or 0,
        episode.last_box,
        episode.first_session_start,
        episode.longest_session or 0.0,
        episode.longest_event or 0.0,
    )


@dataclass(frozen=True)
class BoxWrite:
    """A sealed box with its embedding and its events (uid, text, embedding) and their trace ids."""

    box: SealedBox
    embedding: np.ndarray
    events: tuple[tuple[str, str, np.ndarray], ...]
    assignments: tuple[TraceAssignment, ...]


def box_search_text(box: SealedBox, turn_texts: Sequence[str]) -> str:
    head = f"{box.topic}. " + "; ".join(box.events) + ". " + ", ".join(box.keywords)
    return head + "\n" + "\n".join(turn_texts)


def build_session_batch(
    namespace: str,
    episode_id: str,
    session_id: str,
    turns: Sequence[Turn],
    started_at: datetime,
    ended_at: datetime | None,
    contexts: Sequence[TurnContext],
    embeddings: np.ndarray,
    boxes: Sequence[BoxWrite],
    so_far: DialogueSoFar,
    digest: str,
    speakers: Sequence[str],
) -> WriteBatch:
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    episode_key = node_key("Episode", episode_id)
    session_key = node_key("Session", session_id)
    start = started_at.timestamp()
    end = ended_at.timestamp() if ended_at is not None else start
    session_seq = so_far.session_count

    nodes.append(
        NodeRow(
            "Session",
            namespace,
            session_id,
            {"episode": episode_id, "seq": session_seq, "start": start, "end": end, "digest": digest,
             "started_at": started_at.isoformat(), "caption": session_caption(session_id, start)},
        )
    )
    edges.append(EdgeRow("IN_EPISODE", namespace, session_key, episode_key))
    if so_far.last_session is not None:
        prev_key = node_key("Session", so_far.last_session)
        edges.append(EdgeRow("NEXT", namespace, prev_key, session_key))
        if not so_far.last_session_explicit_end:
            # RaMem: a session lasts until the next one starts.
            nodes.append(NodeRow("Session", namespace, so_far.last_session, {"end": start}))

    box_of_turn = {turn_id: node_key("Box", bw.box.box_id) for bw in boxes for turn_id in bw.box.turn_ids}
    previous_turn = so_far.last_turn
    for i, (turn, ctx, vector) in enumerate(zip(turns, contexts, embeddings)):
        key = node_key("Turn", turn.id)
        payload = {
            "participants": list(ctx.participants),
            "entities": list(ctx.entities),
            "locations": list(ctx.locations),
            "mentioned_times": list(ctx.mentioned_times),
            "keywords": list(ctx.keywords),
        }
        nodes.append(
            NodeRow(
                "Turn",
                namespace,
                turn.id,
                {
                    "episode": episode_id,
                    "session": session_id,
                    "seq": so_far.turn_count + i,
                    "speaker": turn.speaker,
                    "utterance": turn.text,
                    "image_caption": turn.image_caption,
                    "text": turn_search_text(turn, ctx),
                    "session_start": start,
                    "box": box_of_turn.get(turn.id, ""),  # "" = in no box (boxes off)
                    "event_start": epoch(ctx.event_start),
                    "event_end": epoch(ctx.event_end),
                    "payload": json.dumps(payload, sort_keys=True),
                    "caption": turn_caption(turn.speaker, turn.text),
                    "embedding": np.asarray(vector, dtype=np.float32).tolist(),
                },
            )
        )
        edges.append(EdgeRow("IN_SESSION", namespace, key, session_key))
        edges.append(EdgeRow("IN_EPISODE", namespace, key, episode_key))
        if previous_turn is not None:
            edges.append(EdgeRow("NEXT", namespace, node_key("Turn", previous_turn), key))
        previous_turn = turn.id
        nodes.append(NodeRow("Participant", namespace, turn.speaker, {"name": turn.speaker}))
        edges.append(EdgeRow("SPOKEN_BY", namespace, key, node_key("Participant", turn.speaker)))
        for person in ctx.participants:
            if person != turn.speaker:
                nodes.append(NodeRow("Participant", namespace, person, {"name": person}))
                edges.append(EdgeRow("MENTIONS", namespace, key, node_key("Participant", person)))
        for entity in ctx.entities:
            nodes.append(NodeRow("Entity", namespace, entity, {"name": entity}))
            edges.append(EdgeRow("MENTIONS", namespace, key, node_key("Entity", entity)))
        for place in ctx.locations:
            nodes.append(NodeRow("Location", namespace, place, {"name": place}))
            edges.append(EdgeRow("AT", namespace, key, node_key("Location", place)))

    turn_seq = {t.id: so_far.turn_count + i for i, t in enumerate(turns)}
    previous_box = so_far.last_box
    for j, bw in enumerate(boxes):
        box = bw.box
        bkey = node_key("Box", box.box_id)
        texts = [turn_search_text(t, c) for t, c in zip(turns, contexts) if t.id in set(box.turn_ids)]
        nodes.append(
            NodeRow(
                "Box",
                namespace,
                box.box_id,
                {
                    "episode": episode_id,
                    "session": session_id,
                    "seq": so_far.box_count + j,
                    "first_turn_seq": min(turn_seq[t] for t in box.turn_ids),
                    "topic": box.topic,
                    "events": list(box.events),
                    "keywords": list(box.keywords),
                    "text": box_search_text(box, texts),
                    "caption": box_caption(box.topic, box.box_id),
                    "embedding": np.asarray(bw.embedding, dtype=np.float32).tolist(),
                },
            )
        )
        for turn_id in box.turn_ids:
            edges.append(EdgeRow("CONTAINS", namespace, bkey, node_key("Turn", turn_id)))
        if previous_box is not None:
            edges.append(EdgeRow("NEXT", namespace, node_key("Box", previous_box), bkey))
        previous_box = box.box_id
        trace_of = {a.event_id: a for a in bw.assignments}
        for event_uid, text, vector in bw.events:
            ekey = node_key("Event", event_uid)
            nodes.append(
                NodeRow("Event", namespace, event_uid, {"episode": episode_id, "kind": "topic", "obj": text, "box": bkey,
                                                        "caption": topic_caption(text),
                                                        "embedding": np.asarray(vector, dtype=np.float32).tolist()})
            )
            edges.append(EdgeRow("HAS_EVENT", namespace, bkey, ekey))
            assignment = trace_of.get(event_uid)
            if assignment is not None:
                # The box that starts a trace names it; boxes joining it later leave its caption as it is.
                trace_props = {"episode": episode_id}
                if assignment.new_trace:
                    trace_props["caption"] = trace_caption(box.topic, assignment.trace_id)
                nodes.append(NodeRow("Trace", namespace, assignment.trace_id, trace_props))
                edges.append(EdgeRow("IN_TRACE", namespace, ekey, node_key("Trace", assignment.trace_id), {"score": assignment.score}))

    last_turn = turns[-1].id
    spans = [end - start]
    if so_far.last_session_start is not None and not so_far.last_session_explicit_end:
        spans.append(start - so_far.last_session_start)  # the previous session now ends here
    longest_session = max([so_far.longest_session, *spans])
    event_spans = [c.event_end.timestamp() - c.event_start.timestamp() for c in contexts
                   if c.event_start is not None and c.event_end is not None]
    longest_event = max([so_far.longest_event, *event_spans])
    episode_props = {
        "kind": "dialogue",
        "caption": episode_caption(episode_id, "dialogue"),
        "seq": so_far.seq,
        "turn_count": so_far.turn_count + len(turns),
        "session_count": so_far.session_count + 1,
        "last_session": session_id,
        "last_session_start": start,
        # The history's date range, kept here so that recall grounds frames without reading every session.
        "first_session_start": so_far.first_session_start if so_far.exists else start,
        "last_session_end": end,
        "last_session_explicit_end": ended_at is not None,
        "last_turn": last_turn,
        "box_count": so_far.box_count + len(boxes),
        "last_box": previous_box,
        "speakers": json.dumps(sorted(speakers)),
        # Upper bounds for interval reads: a session or event overlapping [a, b] starts in [a - longest, b].
        "longest_session": longest_session,
        "longest_event": longest_event,
    }
    return WriteBatch((NodeRow("Episode", namespace, episode_id, episode_props), *nodes), tuple(edges))
