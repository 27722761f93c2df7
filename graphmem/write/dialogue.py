"""Writing a dialogue session: context extraction, topic boxes, trace weaving, then one transaction.

The heavy parts (spaCy, the embedding model) are loaded once per writer and run in batches: every text
of a session is parsed once (context extraction, the loom's decider, box extraction and the weaver share
the parses) and embedded in two model calls per session (the turns, then all the boxes' events).
Everything is computed before anything is written, so a failure leaves the store as it was.
"""

from __future__ import annotations

import functools
import json
import logging
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from graphmem.embed import Embedder, checked_embeddings
from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.nlp import load_nlp
from graphmem.records import Turn
from graphmem.store.protocol import EpisodeRow, Expect, GraphStore, WriteBatch, dimensions_of, episodes_with, node_key
from graphmem.store.rows import episode_row, episode_row_of, session_row
from graphmem.write.context import ContextExtractor, TurnContext
from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.decide import LocalDecider
from graphmem.write.loom.extract import BoxExtractor
from graphmem.write.loom.prepare import make_loom_turns, split_photo
from graphmem.write.loom.records import LoomTurn, SealedBox
from graphmem.write.loom.terms import normalize_for_parse
from graphmem.write.loom.topic_loom import TopicLoom
from graphmem.write.turns import (
    BoxWrite,
    DialogueSoFar,
    build_session_batch,
    dialogue_so_far,
    session_digest,
    usable_contexts,
)
from graphmem.write.weaver import TraceEvent, TraceWeaver

log = logging.getLogger(__name__)

#: Parses kept by the shared spaCy cache: a few sessions' worth of turns, captions and event phrases, so
#: memory stays bounded (a parse of a chat turn is tens of kilobytes) while every stage of one session
#: finds the others' parses.
PARSE_CACHE_SIZE = 2048
#: Weight of the box's events against its turns in the box embedding (see ``box_embedding``).
BOX_EVENT_WEIGHT = 0.5


class SharedParses:
    """A spaCy pipeline whose parses are cached by text and shared by every stage of the writer.

    Context extraction, the loom's decider, box extraction and the weaver each parse the same turns; with
    this wrapper a text is parsed once (in a batch) and every stage reads the same ``Doc``. Always runs the
    full pipeline: a stage that asks for ``disable=["parser"]`` gets a parse with more annotations, and the
    tagger, lemmatizer and NER give the same answers with or without the parser.
    """

    def __init__(self, nlp: Any, size: int = PARSE_CACHE_SIZE) -> None:
        self.nlp = nlp
        self.size = size
        self._docs: OrderedDict[str, Any] = OrderedDict()

    def prefetch(self, texts: Iterable[str]) -> None:
        """Parse, in one batch, the texts not yet cached."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._docs))
        if missing:
            for text, doc in zip(missing, self.nlp.pipe(missing)):
                self._docs[text] = doc
            while len(self._docs) > self.size:
                self._docs.popitem(last=False)

    def _doc(self, text: str) -> Any:
        doc = self._docs.get(text)
        if doc is None:
            self.prefetch([text])
            doc = self._docs[text]
        else:
            self._docs.move_to_end(text)
        return doc

    def __call__(self, text: str, disable: Sequence[str] = (), **_: Any) -> Any:
        return self._doc(text)

    def pipe(self, texts: Iterable[str], **_: Any) -> Iterator[Any]:
        texts = list(texts)
        self.prefetch(texts)
        return iter([self._doc(t) for t in texts])


def box_embedding(turn_vectors: np.ndarray, event_vectors: np.ndarray) -> np.ndarray:
    """The box's vector: the normalized mean of its turns' vectors, with its events at ``BOX_EVENT_WEIGHT``.

    The turns are already embedded (the loom needs them), so a box costs no model call; the mean of
    unit-length sentence vectors is the usual centroid of a topic, and the events pull it towards what
    happened in the box rather than its small talk.
    """
    vector: np.ndarray = turn_vectors.mean(axis=0)
    if len(event_vectors):
        vector = vector + BOX_EVENT_WEIGHT * event_vectors.mean(axis=0)
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)


def _box_marker(episodes: Sequence[EpisodeRow]) -> tuple[tuple[str, int], ...]:
    """Each dialogue episode's box count: which trace events the store holds."""
    return tuple(sorted((e.uid, e.box_count or 0) for e in episodes if e.kind == "dialogue"))


def _with_box_count(marker: tuple[tuple[str, int], ...], episode_id: str, box_count: int) -> tuple[tuple[str, int], ...]:
    counts = dict(marker)
    counts[episode_id] = box_count
    return tuple(sorted(counts.items()))


class ContextSource(Protocol):
    """What fills each turn's episodic context (``ContextExtractor`` by default)."""

    def extract(self, turns: Sequence[Turn], session_start: datetime, speakers: Sequence[str]) -> list[TurnContext]: ...


@dataclass(frozen=True)
class NewSession:
    """A session to add to a dialogue episode, checked at the boundary (``Memory.validated_session``)."""

    namespace: str
    episode_id: str
    session_id: str
    turns: tuple[Turn, ...]
    started_at: datetime
    ended_at: datetime | None

    @property
    def where(self) -> str:
        return f"session {self.session_id!r}"

    @functools.cached_property
    def digest(self) -> str:
        """What re-adding the same session is recognised by (read_state compares it, the Session keeps it)."""
        return session_digest(self.session_id, self.started_at, self.ended_at, self.turns)


@dataclass(frozen=True)
class DialogueState:
    """What adding the next session to a dialogue episode builds on: the episode's writing state, the
    speakers of its earlier sessions, and each dialogue episode's box count in the namespace (the trace
    events the weaver compares with). Read from the store by ``DialogueWriter.read_state``; a bulk writer
    keeps it from the sessions it built (``SessionWrite.after``)."""

    so_far: DialogueSoFar
    speakers: frozenset[str]
    marker: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SessionWrite:
    """A session's rows, guarded by the state they were built on, and the state after them."""

    batch: WriteBatch
    after: DialogueState


class DialogueWriter:
    """Writes dialogue sessions; ``loom_config`` tunes the topic loom that cuts them into boxes."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        boxes: bool = True,
        contexts: ContextSource | None = None,
        loom_config: LoomConfig = DEFAULT_LOOM_CONFIG,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.boxes = boxes
        self.loom_config = loom_config
        self._parses: SharedParses | None = None
        self._contexts: ContextSource | None = contexts
        self._loom: TopicLoom | None = None
        self._weaver: TraceWeaver | None = None
        # Trace events of each namespace this writer has read or built, with the marker of what they
        # cover (each dialogue episode's box count). Weaving a session compares its events with every
        # trace event; reading them all from the store for every session would make a long dialogue's
        # ingest quadratic. Another writer's boxes change the marker and force a fresh read; a failed
        # write drops the namespace's cache (``forget_traces``).
        self._traces: dict[str, tuple[tuple[tuple[str, int], ...], list[tuple[str, TraceEvent]]]] = {}

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Every text the writer embeds (turns, box events through the loom and the weaver), checked:
        one finite, non-zero vector of the store's dimension per text, else ``EmbedderError`` before
        anything of the session is written."""
        return checked_embeddings(self.embedder, texts, dimensions_of(self.store))

    @property
    def parses(self) -> SharedParses:
        if self._parses is None:
            self._parses = SharedParses(load_nlp())
        return self._parses

    @property
    def contexts(self) -> ContextSource:
        if self._contexts is None:
            self._contexts = ContextExtractor(self.parses)
        return self._contexts

    @property
    def loom(self) -> TopicLoom:
        if self._loom is None:
            config = self.loom_config
            self._loom = TopicLoom(LocalDecider(self.parses, config), BoxExtractor(self.parses, config), config)
        return self._loom

    @property
    def weaver(self) -> TraceWeaver:
        if self._weaver is None:
            self._weaver = TraceWeaver(self._embed, nlp=self.parses)
        return self._weaver

    def add_session(self, session: NewSession) -> bool:
        """Write the session; False when the identical session was already stored."""
        state = self.read_state(session)
        if state is None:
            return False
        prepared = self.prepare(session, state)
        try:
            self.store.write(prepared.batch)
        except BaseException:
            self.forget_traces(session.namespace)
            raise
        return True

    def read_state(self, session: NewSession, unlanded_episodes: Sequence[EpisodeRow] = ()) -> DialogueState | None:
        """What the store holds that the session builds on; None when the identical session is stored.
        ``unlanded_episodes`` are Episode rows of the namespace's writes still in flight (a bulk writer's).

        Raises ``ConflictError`` when the session is stored with other content or in another episode
        (session ids, like turn ids, are namespace-wide), a turn id belongs to another session, or the
        episode is not a dialogue.
        """
        namespace, episode_id, where = session.namespace, session.episode_id, session.where
        skey = node_key("Session", session.session_id)
        ekey = node_key("Episode", episode_id)
        # The session, the episode and the turns in one read (a mix of labels: each read as its own row).
        existing = self.store.get_nodes(namespace, [skey, ekey, *(node_key("Turn", t.id) for t in session.turns)])
        if skey in existing:
            stored = session_row(existing[skey])
            if stored.episode != episode_id:
                raise ConflictError(
                    f"{where} is already stored in episode {stored.episode!r} of namespace {namespace!r}, not in {episode_id!r}: "
                    "session ids are namespace-wide; give this session another id"
                )
            if stored.digest == session.digest:
                return None
            raise ConflictError(f"{where} in namespace {namespace!r} is already stored with other content")
        clashes = [t.id for t in session.turns if node_key("Turn", t.id) in existing]
        if clashes:
            raise ConflictError(f"{where}: turn id {clashes[0]!r} already belongs to another session of {namespace!r}")
        episode = episode_row(existing[ekey]) if ekey in existing else None
        if episode is not None and episode.kind != "dialogue":
            raise ConflictError(f"episode {episode_id!r} in namespace {namespace!r} is a {episode.kind}, not a dialogue")
        episodes = episodes_with(self.store.episode_nodes(namespace), unlanded_episodes)
        # Speakers of earlier sessions help recognise names mentioned in this one.
        speakers = frozenset(json.loads(episode.speakers or "[]")) if episode else frozenset()
        return DialogueState(dialogue_so_far(episode, len(episodes)), speakers, _box_marker(episodes))

    def new_episode_state(self, namespace: str, seq: int) -> DialogueState:
        """The state a namespace's first dialogue episode starts from, without reading the store (a bulk
        writer that read the namespace's episodes knows it holds no dialogue, hence no trace events); the
        episode takes place ``seq`` among the namespace's episodes."""
        if self.boxes:
            self._traces[namespace] = ((), [])
        return DialogueState(dialogue_so_far(None, seq), frozenset(), ())

    def prepare(self, session: NewSession, state: DialogueState, *, guard_new: bool = False) -> SessionWrite:
        """Extract the session's context, boxes and traces and build its rows on ``state``.

        The batch carries the condition that the episode still has ``state``'s session count when it is
        written (another writer's session in between fails the write, nothing written); ``guard_new`` adds
        that the session and its turns do not exist yet, for a caller that did not read them
        (``BulkWriter.add_session``). Trace events of the built boxes join this writer's cache at once,
        so that the next session weaves against them before this one is written.
        """
        namespace, episode_id, session_id, turns = session.namespace, session.episode_id, session.session_id, session.turns
        started_at, ended_at = session.started_at, session.ended_at
        so_far = state.so_far
        if so_far.last_session_start is not None and started_at.timestamp() < so_far.last_session_start:
            raise InvalidRecordError(
                session.where, "started_at",
                f"{started_at.isoformat()} is before the previous session's start: add sessions in time order",
            )
        speakers = sorted({t.speaker for t in turns} | state.speakers)
        loom_turns = make_loom_turns(session_id, turns, self._embed)
        if self.boxes or isinstance(self.contexts, ContextExtractor):
            # Every text any stage will parse, in one spaCy batch: the turns and captions (context), the
            # loom's text of each turn (decider, entities) and its utterance without the photo (box extraction).
            self.parses.prefetch(
                [t.text for t in turns]
                + [t.image_caption for t in turns if t.image_caption]
                + [normalize_for_parse(lt.text) for lt in loom_turns]
                + [normalize_for_parse(split_photo(lt.text)[0]) for lt in loom_turns]
            )
        contexts = usable_contexts(self.contexts.extract(turns, started_at, speakers), turns)
        embeddings = np.stack([lt.embedding for lt in loom_turns])
        boxes: list[BoxWrite] = []
        if self.boxes:
            boxes = self._boxes(namespace, session_id, loom_turns, state.marker)
        batch = build_session_batch(
            namespace, episode_id, session_id, turns, started_at, ended_at, contexts, embeddings, boxes, so_far, session.digest,
            speakers,
        )
        ekey = node_key("Episode", episode_id)
        guards = [Expect(namespace, ekey, "session_count", so_far.session_count if so_far.exists else None)]
        if guard_new:
            guards.append(Expect(namespace, node_key("Session", session_id), "uid", None))
            guards += [Expect(namespace, node_key("Turn", t.id), "uid", None) for t in turns]
        episode_node = next(row for row in batch.nodes if row.key == ekey)
        marker = _with_box_count(state.marker, episode_id, so_far.box_count + len(boxes))
        if self.boxes:
            self._remember_traces(namespace, state.marker, marker, boxes)
        after = DialogueState(dialogue_so_far(episode_row_of(episode_node), so_far.seq), frozenset(speakers), marker)
        return SessionWrite(WriteBatch(batch.nodes, batch.edges, tuple(guards)), after)

    def traces_cover(self, namespace: str, marker: tuple[tuple[str, int], ...]) -> bool:
        """Whether the cached trace events of ``namespace`` are those ``marker`` describes (no store read)."""
        cached = self._traces.get(namespace)
        return cached is not None and cached[0] == marker

    def forget_traces(self, namespace: str) -> None:
        """Drop the cached trace events of ``namespace`` (after a failed write: they may not be stored)."""
        self._traces.pop(namespace, None)

    def _remember_traces(self, namespace: str, before: tuple[tuple[str, int], ...], after: tuple[tuple[str, int], ...],
                         boxes: Sequence[BoxWrite]) -> None:
        """Add the built boxes' trace events to the cache that ``before`` described; mark it ``after``."""
        cached = self._traces.get(namespace)
        if cached is None or cached[0] != before:
            return
        known = cached[1]
        for bw in boxes:
            trace_of = {a.event_id: a.trace_id for a in bw.assignments}
            box_key = node_key("Box", bw.box.box_id)
            for event_uid, text, vector in bw.events:
                if event_uid in trace_of:
                    known.append((trace_of[event_uid], TraceEvent(node_key("Event", event_uid), box_key, text, vector)))
        known.sort(key=lambda pair: pair[1].event_id)  # the store's order
        self._traces[namespace] = (after, known)

    def _trace_events(self, namespace: str, marker: tuple[tuple[str, int], ...]) -> list[tuple[str, TraceEvent]]:
        cached = self._traces.get(namespace)
        if cached is None or cached[0] != marker:
            events = [
                (row.trace, TraceEvent(row.key, row.box, row.text, np.asarray(row.embedding, dtype=np.float32)))
                for row in self.store.trace_events(namespace)
                if row.embedding is not None
            ]
            cached = (marker, events)
            self._traces[namespace] = cached
        return list(cached[1])

    def _boxes(self, namespace: str, session_id: str, loom_turns: Sequence[LoomTurn], marker: tuple[tuple[str, int], ...]) -> list[BoxWrite]:
        sealed: list[SealedBox] = self.loom.segment(session_id, loom_turns)
        by_id = {lt.id: lt for lt in loom_turns}
        existing = self._trace_events(namespace, marker)
        # All the session's events in one model call (a box without events is represented by its topic).
        event_texts = [list(box.events) or [box.topic] for box in sealed]
        flat = [text for texts in event_texts for text in texts]
        flat_vecs = self._embed(flat)
        self.parses.prefetch(flat + [box.topic for box in sealed])
        extractor = self.loom.extractor
        result: list[BoxWrite] = []
        offset = 0
        for box, texts in zip(sealed, event_texts):
            members = [by_id[t] for t in box.turn_ids]
            event_vecs = flat_vecs[offset: offset + len(texts)]
            offset += len(texts)
            events = [
                TraceEvent(f"{box.box_id}#e{i}", node_key("Box", box.box_id), text, vec)
                for i, (text, vec) in enumerate(zip(texts, event_vecs))
            ]
            box_vec = box_embedding(np.stack([m.embedding for m in members]), event_vecs if box.events else event_vecs[:0])
            entities = set(extractor.entities(members)) | set(box.keywords)
            assignments = self.weaver.weave(existing, box, events, entities)
            # Later boxes of the same session can join traces this box starts.
            trace_of = {a.event_id: a.trace_id for a in assignments}
            existing += [(trace_of[e.event_id], e) for e in events if e.event_id in trace_of]
            result.append(
                BoxWrite(box, box_vec, tuple((e.event_id, e.text, e.embedding) for e in events), tuple(assignments))
            )
        return result
