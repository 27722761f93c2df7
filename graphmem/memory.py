"""``Memory``: graphmem's one entry point.

>>> from datetime import datetime, timezone
>>> from graphmem import Memory, Step, Turn
>>> with Memory() as mem:                     # embedded; Memory("neo4j://...", auth=...) for Neo4j
...     report = mem.add_steps("agent-1", "run-1", [Step(0, "noop"), Step(1, "collect wood")])
...     evidence = mem.recall("agent-1", "when did I first collect wood?", budget=150)
...     answer = mem.answer("agent-1", "What did I do at step 1?")
...     chat = mem.add_session("user-1", "s1", [Turn("D1:1", "Maya", "I adopted a dog named Pepper.")],
...                            started_at=datetime(2024, 3, 2, tzinfo=timezone.utc))
>>> report, answer.text
(WriteReport(written=2, unchanged=0), 'collect wood')
>>> print(evidence.text)
[0] noop
[1] collect wood
>>> evidence.source_ids[0], evidence.tokens <= 150, chat.written
('run-1:1', True, 1)
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self

from graphmem.arguments import (
    answerer_of,
    budget_of,
    count_of,
    episode_of,
    question_of,
    question_text,
    recall_config_of,
)
from graphmem.embed import Embedder, checked_embeddings, default_embedder
from graphmem.errors import ConflictError, EmbedderError, InvalidArgumentError, InvalidRecordError
from graphmem.query.llm import LlmCompiler
from graphmem.recall.config import DEFAULT_RECALL_CONFIG, RecallConfig
from graphmem.recall.packer import Evidence
from graphmem.records import Step, Turn, short, validate_datetime, validate_id, validate_steps, validate_turns
from graphmem.store.open import open_store
from graphmem.store.protocol import (
    EpisodeRow,
    Expect,
    GraphStore,
    Hit,
    WriteBatch,
    dimensions_of,
    episodes_with,
    node_key,
)
from graphmem.store.rows import read_episode
from graphmem.write.planning import DEFAULT_DIALOGUE_EPISODE, WriteReport
from graphmem.write.steps import EpisodeSoFar

if TYPE_CHECKING:
    from graphmem.query.algebra import Query
    from graphmem.recall.route import Routed
    from graphmem.write.bulk import BulkWriter
    from graphmem.write.dialogue import ContextSource, DialogueWriter, NewSession

log = logging.getLogger(__name__)

#: What ``Memory`` embeds once when it is built, to check the embedder against the store.
PROBE_TEXT = "collect wood near the river"


@dataclass(frozen=True)
class Answer:
    text: str | None
    evidence: Evidence
    answerer: str


def _store_from_environment(
    uri: str | None, auth: tuple[str, str] | None, database: str | None, path: str | os.PathLike[str] | None = None
) -> GraphStore:
    return open_store(uri, auth=auth, database=database, path=path)


class Memory:
    """An episodic memory graph: trajectories (``add_steps``) and dialogues (``add_session``).

    With no URI (and no ``GRAPHMEM_NEO4J_URI``) it runs in-process on the embedded backend, kept in a file
    that later processes reopen: ``path``, else ``GRAPHMEM_PATH``, else ``~/.local/share/graphmem/memory.db``
    (``path=":memory:"``: in this process only; see ``graphmem.store.open``).
    ``boxes=False`` skips Membox topic boxes and traces when writing dialogue; ``contexts`` replaces what
    fills each turn's episodic context (default: ``graphmem.write.context.ContextExtractor``, spaCy and
    dateparser); ``recall_config`` is how this memory recalls unless a call says otherwise
    (``graphmem.recall.config.RecallConfig``: stage switches, dialogue evidence style, tuning). The
    embedder is checked when the memory is built (one probe text must come back as one finite, non-zero
    vector of the store's dimension, else ``EmbedderError``), and so is every batch it embeds.
    """

    def __init__(
        self,
        uri: str | None = None,
        *,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        path: str | os.PathLike[str] | None = None,
        embedder: Embedder | None = None,
        store: GraphStore | None = None,
        boxes: bool = True,
        contexts: ContextSource | None = None,
        query_compiler: LlmCompiler | None = None,
        recall_config: RecallConfig = DEFAULT_RECALL_CONFIG,
    ) -> None:
        if embedder is not None and not callable(getattr(embedder, "embed", None)):
            raise InvalidArgumentError("embedder", f"must have an embed(texts) method, got {type(embedder).__name__}")
        if contexts is not None and not callable(getattr(contexts, "extract", None)):
            raise InvalidArgumentError("contexts", f"must have an extract(turns, session_start, speakers) method, got {type(contexts).__name__}")
        #: How this memory recalls unless a call gives its own ``config``.
        self.recall_config = recall_config_of(recall_config, "recall_config")
        self.store: GraphStore = store if store is not None else _store_from_environment(uri, auth, database, path)
        self.embedder: Embedder = embedder if embedder is not None else default_embedder()
        self.boxes = boxes
        self.contexts = contexts
        #: The length of every vector this memory writes: the store's.
        self.dimensions = dimensions_of(self.store)
        try:
            # A wrong embedder (other dimensions, rows missing, NaN) fails here, not at its first write.
            checked_embeddings(self.embedder, [PROBE_TEXT], self.dimensions)
        except EmbedderError:
            if store is None:
                self.store.close()  # opened here, so closed here
            raise
        self.store.ensure_schema()
        self._dialogue: DialogueWriter | None = None
        #: Compiles trajectory questions with an LLM first (GRAPHMEM_LLM_* set); the grammar otherwise.
        self.query_compiler = query_compiler if query_compiler is not None else LlmCompiler.from_env()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def add_steps(self, namespace: str, episode_id: str, steps: Sequence[Step]) -> WriteReport:
        """Append agent steps to an episode. Re-adding stored steps unchanged is a no-op.

        Raises ``InvalidRecordError`` for bad records and ``ConflictError`` when a stored step index
        comes back with other content, or when another writer appended to the episode meanwhile; in
        every case nothing of the batch is written.
        """
        so_far, new, old = self.plan_steps(namespace, episode_id, steps)
        if new:
            self.store.write(self.step_batch(namespace, episode_id, new, so_far))
        return WriteReport(len(new), len(old))

    def plan_steps(
        self, namespace: str, episode_id: str, steps: Sequence[Step], unlanded_episodes: Sequence[EpisodeRow] = ()
    ) -> tuple[EpisodeSoFar, list[Step], list[Step]]:
        """Validate steps against what the store holds of the episode: its writing state, the steps to
        write and the steps already stored unchanged (a stored index with other content raises).

        ``unlanded_episodes``: Episode rows of the namespace's writes still in flight (a bulk writer's),
        counted with the stored ones when a new episode takes its place in the namespace."""
        from graphmem.write.steps import episode_so_far, step_digest

        where = f"episode {short(episode_id)}"
        validate_id(namespace, where, "namespace")
        validate_id(episode_id, where, "episode_id")
        steps = validate_steps(steps, where)
        episode = read_episode(self.store, namespace, episode_id)
        if episode is not None and episode.kind != "trajectory":
            raise ConflictError(f"{where} in namespace {namespace!r} is a {episode.kind}, not a trajectory")
        if episode is None:
            so_far = episode_so_far(None, len(episodes_with(self.store.episode_nodes(namespace), unlanded_episodes)))
        else:
            so_far = episode_so_far(episode)
        last_t = so_far.last_t
        old = [s for s in steps if last_t is not None and s.t <= last_t]
        new = [s for s in steps if last_t is None or s.t > last_t]
        if old:
            stored = self.store.steps_at(namespace, episode_id, [s.t for s in old])
            for step in old:
                if step.t not in stored:
                    raise InvalidRecordError(
                        f"{where} (t={step.t})", "t", f"out of order: the episode already ends at t={last_t}"
                    )
                if stored[step.t].digest != step_digest(step):
                    raise ConflictError(
                        f"{where} step t={step.t} in namespace {namespace!r} is already stored with other content; "
                        "use a new episode id for a new run"
                    )
        return so_far, new, old

    def new_episode(self, namespace: str, episode_id: str, steps: Sequence[Step], seq: int) -> tuple[EpisodeSoFar, list[Step], list[Step]]:
        """``plan_steps`` for an episode known not to be stored (a bulk writer read the namespace's
        episodes), without reading the store: it takes place ``seq`` among the namespace's episodes."""
        from graphmem.write.steps import episode_so_far

        where = f"episode {short(episode_id)}"
        validate_id(namespace, where, "namespace")
        validate_id(episode_id, where, "episode_id")
        return episode_so_far(None, seq), list(validate_steps(steps, where)), []

    def step_batch(self, namespace: str, episode_id: str, steps: Sequence[Step], so_far: EpisodeSoFar) -> WriteBatch:
        """The rows of validated steps that follow ``so_far``, embedded, with the condition that the
        episode still ends where ``so_far`` says when the batch is written. ``EmbedderError`` when the
        embedder does not return one good vector per step (``checked_embeddings``)."""
        from graphmem.write.steps import build_step_batch, step_search_text

        embeddings = checked_embeddings(self.embedder, [step_search_text(s) for s in steps], self.dimensions)
        batch = build_step_batch(namespace, episode_id, steps, embeddings, so_far)
        guard = Expect(namespace, node_key("Episode", episode_id), "last_t", so_far.last_t)
        return WriteBatch(batch.nodes, batch.edges, (guard,))

    def bulk(self) -> BulkWriter:
        """A writer for long runs of appends: each batch is written on a background thread while the next
        is validated, embedded and built (see ``graphmem.write.bulk``). Use it as a context manager."""
        from graphmem.write.bulk import BulkWriter

        return BulkWriter(self)

    def add_session(
        self,
        namespace: str,
        session_id: str,
        turns: Sequence[Turn],
        started_at: datetime,
        ended_at: datetime | None = None,
        *,
        episode_id: str = DEFAULT_DIALOGUE_EPISODE,
    ) -> WriteReport:
        """Add one dialogue session (sessions in time order). Re-adding the same session is a no-op.

        The session lasts until the next session starts unless ``ended_at`` is given. Session ids, like
        turn ids, are namespace-wide. Raises ``InvalidRecordError`` for bad records and ``ConflictError``
        when the session is stored with other content or in another episode, a turn id belongs to another
        session, or another writer added a session to the episode meanwhile; in every case nothing of the
        session is written.
        """
        session = self.validated_session(namespace, session_id, turns, started_at, ended_at, episode_id)
        written = self.dialogue_writer.add_session(session)
        return WriteReport(len(session.turns), 0) if written else WriteReport(0, len(session.turns))

    @property
    def dialogue_writer(self) -> DialogueWriter:
        """The writer of dialogue sessions (spaCy and the topic loom load on its first session)."""
        from graphmem.write.dialogue import DialogueWriter

        if self._dialogue is None:
            self._dialogue = DialogueWriter(self.store, self.embedder, boxes=self.boxes, contexts=self.contexts)
        return self._dialogue

    def validated_session(
        self, namespace: str, session_id: str, turns: Sequence[Turn], started_at: datetime, ended_at: datetime | None,
        episode_id: str,
    ) -> NewSession:
        """A session checked at the boundary (``InvalidRecordError`` names what is wrong)."""
        from graphmem.write.dialogue import NewSession

        where = f"session {short(session_id)}"
        validate_id(namespace, where, "namespace")
        validate_id(session_id, where, "session_id")
        validate_id(episode_id, where, "episode_id")
        start = validate_datetime(started_at, where, "started_at")
        end = validate_datetime(ended_at, where, "ended_at") if ended_at is not None else None
        if end is not None and end < start:
            raise InvalidRecordError(where, "ended_at", "is before started_at")
        return NewSession(namespace, episode_id, session_id, tuple(validate_turns(turns, where)), start, end)

    # ------------------------------------------------------------------ reading
    def search(self, namespace: str, question: str, k: int = 20) -> list[Hit]:
        """Ranked units for a question (full-text and vector search fused by RRF); ``.source_id`` is the caller's id."""
        from graphmem.recall.search import search_units

        validate_id(namespace, "search", "namespace")
        question = question_text(question)
        k = count_of(k)

        dialogues = self.store.episode_nodes(namespace, kind="dialogue") if k > 0 else []
        if dialogues and not self.store.episode_nodes(namespace, kind="trajectory"):
            # Dialogue memories rank by validity-aware recall (frames, people, boxes, Q/A adjacency):
            # on LoCoMo dev its Recall@10 is 0.84 against 0.54 for plain full-text + vector fusion.
            from graphmem.recall.dialogue.recall import recall_dialogue

            config = self.recall_config
            result = recall_dialogue(
                self.store, self.embedder, namespace, question, budget=1, use_frames=config.use_frames,
                use_boxes=config.use_boxes, use_traces=config.use_traces, use_expansion=config.use_expansion,
                episodes=dialogues, config=config.dialogue,
            )
            return [Hit(key, uid, 1.0 / (rank + 1)) for rank, (key, uid) in enumerate(zip(result.ranking[:k], result.uids))]
        return search_units(self.store, self.embedder, namespace, question, k)

    def recall(
        self,
        namespace: str,
        question: str | Query | Mapping[str, Any],
        budget: int = 300,
        *,
        episode: str | None = None,
        config: RecallConfig | None = None,
    ) -> Evidence:
        """Evidence for a question within ``budget`` cl100k_base tokens.

        Trajectory namespaces use query-aware recall: the question (text, or a :mod:`graphmem.query` query
        or its JSON form) is resolved in the store and ``evidence.query`` says how it was read; dialogue
        namespaces use validity-aware recall with topic boxes. A namespace holding both answers each
        question from the kind of memory it is about (``graphmem.recall.route``), or from ``episode``'s.
        ``config`` (default: the memory's ``recall_config``) switches stages off for ablations, picks the
        dialogue evidence style and holds the tuning; a bad argument or question is an
        ``InvalidArgumentError`` (``graphmem.arguments``).

        >>> from graphmem.recall.config import RecallConfig
        >>> with Memory(path=":memory:") as mem:
        ...     mem.recall("nobody", "what did I do?", config=RecallConfig(use_chain=False)).tokens
        0
        """
        validate_id(namespace, "recall", "namespace")
        return self._routed(namespace, question_of(question), budget, episode, config).evidence

    def _routed(
        self, namespace: str, question: str | Query, budget: int, episode: str | None, config: RecallConfig | None
    ) -> Routed:
        from graphmem.recall.route import route_recall

        budget = budget_of(budget)
        episode = episode_of(episode)
        config = self.recall_config if config is None else recall_config_of(config)
        # One read of the namespace's episodes; each recall reads only its own kind (a trajectory episode
        # carries its vocabulary).
        episodes = self.store.episode_nodes(namespace)
        if not isinstance(question, str) and not any(e.kind == "trajectory" for e in episodes):
            raise InvalidArgumentError("question", f"is a trajectory query, but namespace {namespace!r} holds no trajectory")
        return route_recall(self.store, self.embedder, namespace, question, budget, episodes, config, episode, self.query_compiler)

    def answer(
        self,
        namespace: str,
        question: str | Query | Mapping[str, Any],
        budget: int = 150,
        answerer: Any = None,
        *,
        episode: str | None = None,
        config: RecallConfig | None = None,
    ) -> Answer:
        """Answer from the packed evidence alone: the deterministic executor for trajectories, or ``answerer``.

        ``answerer`` is any callable ``(question, evidence_text) -> str``, e.g. ``graphmem.answer.ChatAnswerer.from_env()``
        (an OpenAI-compatible chat endpoint named by GRAPHMEM_LLM_BASE_URL and GRAPHMEM_LLM_MODEL). Without
        one, evidence from dialogue has no answer (``text`` None): the executor reads trajectory queries only.
        ``episode`` and ``config`` are ``recall``'s.
        """
        validate_id(namespace, "answer", "namespace")
        question = question_of(question)
        answerer = answerer_of(answerer)
        if answerer is not None:
            evidence = self.recall(namespace, question, budget, episode=episode, config=config)
            text = question if isinstance(question, str) else json.dumps(evidence.query)
            return Answer(answerer(text, evidence.text), evidence, type(answerer).__name__)
        from graphmem.query.answers import answer, offered_options

        routed = self._routed(namespace, question, budget, episode, config)
        steps = routed.steps
        options = offered_options(question) if isinstance(question, str) else None
        found = answer(steps.query, steps.bundle, options) if steps is not None and steps.query is not None else None
        return Answer(found, routed.evidence, "executor")

    def stats(self, namespace: str) -> dict[str, int]:
        """Nodes per label and relationships per type in the namespace."""
        return self.store.counts(validate_id(namespace, "stats", "namespace"))

    def namespaces(self) -> list[str]:
        """Every namespace that holds a memory, sorted."""
        return self.store.namespaces()

    def forget(self, namespace: str, episode: str | None = None, session: str | None = None) -> None:
        """Delete a whole namespace; with ``episode``, one episode (its steps, events, changes, or its
        sessions, and the entities and places only it used); with ``session``, one dialogue session (its
        turns and topic boxes; the episode continues as if it had never been added, see
        ``graphmem.store.lifecycle``). Recall never returns what was deleted. ``NotFoundError`` when the
        episode or session is not stored.

        >>> from graphmem import Step
        >>> with Memory(path=":memory:") as mem:
        ...     _ = mem.add_steps("agent-1", "run-1", [Step(0, "collect wood")])
        ...     mem.forget("agent-1", episode="run-1")
        ...     mem.stats("agent-1"), mem.namespaces()
        ({}, [])
        """
        from graphmem.manage import forget

        forget(self.store, namespace, episode=episode, session=session)  # which checks the ids
        if self._dialogue is not None:
            # The writer's trace events of the namespace may name deleted boxes: read them afresh.
            self._dialogue.forget_traces(namespace)
