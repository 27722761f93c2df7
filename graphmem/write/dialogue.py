"""Writing a dialogue session: context extraction, topic boxes, trace weaving, then one transaction.

The heavy parts (spaCy, the embedding model) are loaded once per writer. Everything is computed before
anything is written, so a failure leaves the store as it was.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from graphmem.embed import Embedder
from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.records import Turn
from graphmem.store.protocol import GraphStore, node_key
from graphmem.write.context import ContextExtractor
from graphmem.write.loom import BoxExtractor, LocalDecider, TopicLoom, make_loom_turns, turn_text
from graphmem.write.turns import BoxWrite, build_session_batch, dialogue_so_far, session_digest
from graphmem.write.weaver import TraceEvent, TraceWeaver

log = logging.getLogger(__name__)


class DialogueWriter:
    def __init__(self, store: GraphStore, embedder: Embedder, boxes: bool = True) -> None:
        self.store = store
        self.embedder = embedder
        self.boxes = boxes
        self.contexts = ContextExtractor()
        self._loom: TopicLoom | None = None
        self._weaver: TraceWeaver | None = None

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    @property
    def loom(self) -> TopicLoom:
        if self._loom is None:
            self._loom = TopicLoom(LocalDecider(), BoxExtractor())
        return self._loom

    @property
    def weaver(self) -> TraceWeaver:
        if self._weaver is None:
            self._weaver = TraceWeaver(self._embed)
        return self._weaver

    def add_session(
        self,
        namespace: str,
        episode_id: str,
        session_id: str,
        turns: Sequence[Turn],
        started_at: datetime,
        ended_at: datetime | None,
    ) -> bool:
        """Write the session; False when the identical session was already stored."""
        where = f"session {session_id!r}"
        digest = session_digest(session_id, started_at, ended_at, turns)
        skey = node_key("Session", session_id)
        ekey = node_key("Episode", episode_id)
        existing = self.store.get_nodes(namespace, [skey, ekey, *(node_key("Turn", t.id) for t in turns)])
        if skey in existing:
            if existing[skey].get("digest") == digest:
                return False
            raise ConflictError(f"{where} in namespace {namespace!r} is already stored with other content")
        clashes = [t.id for t in turns if node_key("Turn", t.id) in existing]
        if clashes:
            raise ConflictError(f"{where}: turn id {clashes[0]!r} already belongs to another session of {namespace!r}")
        episode = existing.get(ekey)
        if episode is not None and episode.get("kind") != "dialogue":
            raise ConflictError(f"episode {episode_id!r} in namespace {namespace!r} is a {episode.get('kind')}, not a dialogue")
        so_far = dialogue_so_far(episode, len(self.store.episode_nodes(namespace)))
        if so_far.last_session_start is not None and started_at.timestamp() < so_far.last_session_start:
            raise InvalidRecordError(
                where, "started_at", f"{started_at.isoformat()} is before the previous session's start: add sessions in time order"
            )

        # Speakers of earlier sessions help recognise names mentioned in this one.
        known = set(json.loads(episode.get("speakers", "[]"))) if episode else set()
        speakers = sorted({t.speaker for t in turns} | known)
        contexts = self.contexts.extract(turns, started_at, speakers)
        loom_turns = make_loom_turns(session_id, turns, self._embed)
        embeddings = np.stack([lt.embedding for lt in loom_turns])
        boxes: list[BoxWrite] = []
        if self.boxes:
            boxes = self._boxes(namespace, session_id, turns, loom_turns)
        batch = build_session_batch(
            namespace, episode_id, session_id, turns, started_at, ended_at, contexts, embeddings, boxes, so_far, digest, speakers
        )
        self.store.write(batch)
        return True

    def _boxes(self, namespace: str, session_id: str, turns: Sequence[Turn], loom_turns) -> list[BoxWrite]:  # type: ignore[no-untyped-def]
        sealed = self.loom.segment(session_id, loom_turns)
        by_id = {lt.id: lt for lt in loom_turns}
        existing = [
            (row["trace"], TraceEvent(row["key"], row["box"], row["text"], np.asarray(row["embedding"], dtype=np.float32)))
            for row in self.store.trace_events(namespace)
            if row.get("embedding") is not None
        ]
        extractor = self.loom.extractor
        result: list[BoxWrite] = []
        for box in sealed:
            members = [by_id[t] for t in box.turn_ids]
            box_text = f"{box.topic}. " + "; ".join(box.events) + ". " + " ".join(turn_text(t) for t in turns if t.id in box.turn_ids)
            box_vec = self._embed([box_text])[0]
            event_texts = list(box.events) or [box.topic]
            event_vecs = self._embed(event_texts)
            events = [
                TraceEvent(f"{box.box_id}#e{i}", node_key("Box", box.box_id), text, vec)
                for i, (text, vec) in enumerate(zip(event_texts, event_vecs))
            ]
            entities = set(extractor.entities(members)) | set(box.keywords)
            assignments = self.weaver.weave(existing, box, events, entities)
            # Later boxes of the same session can join traces this box starts.
            trace_of = {a.event_id: a.trace_id for a in assignments}
            existing += [(trace_of[e.event_id], e) for e in events if e.event_id in trace_of]
            result.append(
                BoxWrite(box, box_vec, tuple((e.event_id, e.text, e.embedding) for e in events), tuple(assignments))
            )
        return result
