"""Validity-aware recall over dialogue (RaMem) with topic boxes and traces (Membox).

1. Induce the recall frame: the information need, and a time window / people when the question names
   them and grounding against the history's own dates is confident.
2. Content candidates: full-text and vector hits on turns, plus the turns of the best topic boxes
   (optionally expanded along their traces), fused by reciprocal rank.
3. Validity before relevance: candidates whose session interval or event time fits the window (and
   whose participants fit) come first; the other content matches follow as fallback.
4. Pack greedily under the budget; each turn goes out with its context (session interval, event time,
   speaker) so an answering model can check validity.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from graphmem.embed import Embedder
from graphmem.recall.frames import RecallFrame, induce_frame
from graphmem.recall.fusion import rrf
from graphmem.recall.packer import Evidence, PackItem, pack
from graphmem.store.protocol import GraphStore

log = logging.getLogger(__name__)

#: Turn candidates from each of full-text and vector search.
TURN_DEPTH = 60
#: Boxes retrieved; Membox reports most of the gain within the first 3 boxes, so we look a little further.
BOX_DEPTH = 8
#: Boxes whose traces are expanded (Membox expands from the top retrieved boxes only).
TRACE_SEEDS = 2
#: Fusion weights: box membership is a strong topical signal but coarse, so it counts a little less
#: than a direct lexical or dense match of the turn itself.
W_LEXICAL = 1.0
W_DENSE = 1.0
W_BOX = 0.8
W_TRACE = 0.3
#: Bonus (in RRF units, about two rank places at the head) for a turn by or about a person the question names.
PERSON_BONUS = 0.002


@dataclass(frozen=True)
class DialogueRecall:
    evidence: Evidence
    frame: RecallFrame | None
    ranking: tuple[str, ...]


def _day(ts: float | None) -> str:
    if ts is None:
        return "?"
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%-d %b %Y")


def _history(store: GraphStore, namespace: str) -> tuple[datetime, datetime, dict[str, Any]] | None:
    sessions = store.sessions(namespace)
    if not sessions:
        return None
    start = datetime.fromtimestamp(min(s.start for s in sessions), tz=timezone.utc)
    end = datetime.fromtimestamp(max(s.end for s in sessions), tz=timezone.utc)
    return start, end, {s.uid: s for s in sessions}


def _box_ranking(store: GraphStore, namespace: str, question: str, vector: Any, use_traces: bool) -> tuple[list[str], list[str]]:
    """Turn keys from the best boxes (in box order), and turn keys reached by trace expansion."""
    lexical = store.fulltext(namespace, question, BOX_DEPTH, label="Box")
    dense = store.vector(namespace, vector, BOX_DEPTH, label="Box")
    boxes = [k for k, _ in rrf([[h.key for h in lexical], [h.key for h in dense]])][:BOX_DEPTH]
    members = store.box_members(namespace, boxes)
    from_boxes = [t for b in boxes for t in members.get(b, [])]
    from_traces: list[str] = []
    if use_traces and boxes:
        related = store.trace_boxes(namespace, boxes[:TRACE_SEEDS])
        extra = [b for seed in boxes[:TRACE_SEEDS] for b in related.get(seed, []) if b not in boxes]
        extra_members = store.box_members(namespace, list(dict.fromkeys(extra)))
        from_traces = [t for b in dict.fromkeys(extra) for t in extra_members.get(b, [])]
    return from_boxes, from_traces


def recall_dialogue(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str,
    budget: int,
    use_frames: bool = True,
    use_boxes: bool = True,
    use_traces: bool = True,
    episode: str | None = None,
) -> DialogueRecall:
    history = _history(store, namespace)
    if history is None:
        return DialogueRecall(pack([], budget), None, ())
    hist_start, hist_end, sessions = history
    speakers: set[str] = set()
    for ep in store.episode_nodes(namespace):
        speakers.update(json.loads(ep.get("speakers", "[]")))
    frame = induce_frame(question, hist_start, hist_end, sorted(speakers)) if use_frames else None
    need = frame.need if frame is not None and frame.need.strip() else question

    vector = embedder.embed([question])[0]
    lexical = [h.key for h in store.fulltext(namespace, need, TURN_DEPTH)]
    dense = [h.key for h in store.vector(namespace, vector, TURN_DEPTH)]
    lists, weights = [lexical, dense], [W_LEXICAL, W_DENSE]
    if use_boxes:
        from_boxes, from_traces = _box_ranking(store, namespace, need, vector, use_traces)
        lists += [from_boxes, from_traces]
        weights += [W_BOX, W_TRACE]
    fused = dict(rrf(lists, weights=weights))

    window: set[str] = set()
    if frame is not None and frame.confident and frame.start is not None and frame.end is not None:
        window = set(store.units_in_window(namespace, frame.start.timestamp(), frame.end.timestamp()))
        # Valid turns that no content search reached still compete, at the bottom of the valid tier.
        for key in window:
            fused.setdefault(key, 0.0)

    nodes = store.get_nodes(namespace, list(fused))
    people = set(frame.people) if frame is not None else set()

    def score(key: str) -> tuple[int, float, str]:
        props = nodes.get(key, {})
        bonus = 0.0
        if people:
            participants = set(json.loads(props.get("payload", "{}")).get("participants", [])) | {props.get("speaker")}
            if people & participants:
                bonus = PERSON_BONUS
        valid = 0 if (not window or key in window) else 1
        return valid, -(fused[key] + bonus), key

    ranking = [k for k in sorted(fused, key=score) if k in nodes and (fused[k] > 0 or k in window)]
    items: list[PackItem] = []
    for key in ranking:
        props = nodes[key]
        session = sessions.get(props.get("session", ""))
        header = ""
        if session is not None:
            header = f"Session {session.seq + 1} ({_day(session.start)} to {_day(session.end)}):"
        line = f"[{props['uid']}] {props.get('speaker', '?')}: {props.get('utterance', '')}"
        if props.get("image_caption"):
            line += f" [photo: {props['image_caption']}]"
        if props.get("event_start") is not None:
            line += f" (event: {_day(props['event_start'])}"
            if props.get("event_end") is not None and _day(props["event_end"]) != _day(props["event_start"]):
                line += f" to {_day(props['event_end'])}"
            line += ")"
        items.append(PackItem(props["uid"], line, order=float(props.get("seq", 0)), header=header))
    return DialogueRecall(pack(items, budget), frame, tuple(ranking))


def recall_turns(store: GraphStore, embedder: Embedder, namespace: str, question: str, budget: int, **options: Any) -> Evidence:
    """Evidence for a question about a dialogue history (see ``recall_dialogue`` for the stages)."""
    return recall_dialogue(store, embedder, namespace, question, budget, **options).evidence
