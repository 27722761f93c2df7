"""Validity-aware recall over a dialogue history: the stages, in order (see ``graphmem.recall.dialogue``).

>>> from graphmem.recall.dialogue.config import DialogueRecallConfig
>>> offer_limit(300), offer_limit(1200), offer_limit(4000), offer_limit(300, DialogueRecallConfig(pack_candidates=10))
(60, 150, 500, 37)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graphmem.embed import Embedder
from graphmem.recall.dialogue.candidates import Expansion, content_scores, flow
from graphmem.recall.dialogue.config import (
    DEFAULT_DIALOGUE_CONFIG,
    DialogueRecallConfig,
)
from graphmem.recall.dialogue.lines import day, session_header, turn_line, turn_opening
from graphmem.recall.dialogue.question import (
    QueryTerms,
    analyze_question,
    list_question,
    name_parts,
)
from graphmem.recall.expansion import unknown_terms
from graphmem.recall.frames import RecallFrame, induce_frame
from graphmem.recall.packer import Evidence, Packer, PackItem, pack
from graphmem.recall.parallel import together
from graphmem.store.protocol import BoxRow, EpisodeRow, GraphStore, SessionRow, StoredRow, TurnRow, node_key
from graphmem.store.rows import read_rows

__all__ = ["DialogueRecall", "ValidWindow", "offer_limit", "recall_dialogue", "recall_turns"]

#: The dialogue evidence styles: ``"compact"`` (the default) and ``"full"`` (see ``recall_dialogue``).
CONTEXTS = ("compact", "full")


@dataclass(frozen=True)
class DialogueRecall:
    evidence: Evidence
    frame: RecallFrame | None
    ranking: tuple[str, ...]
    #: The caller's turn id of each ranked key, in ranking order.
    uids: tuple[str, ...] = ()


def history_range(episodes: Sequence[EpisodeRow]) -> tuple[datetime, datetime] | None:
    """The dialogue history's first session start and last session end, as the writer keeps them on each
    dialogue ``Episode``."""
    starts = [e.first_session_start for e in episodes if e.kind == "dialogue" and e.first_session_start is not None]
    ends = [e.last_session_end for e in episodes if e.kind == "dialogue" and e.last_session_end is not None]
    if not starts or not ends:
        return None
    return datetime.fromtimestamp(min(starts), tz=UTC), datetime.fromtimestamp(max(ends), tz=UTC)


def longest(values: Sequence[float | None]) -> float | None:
    """The longest session (the dialogue episodes' ``longest_session``) or event time (``longest_event``):
    bounds the window reads (``GraphStore.units_in_window``); None when there is none.

    >>> longest([3.0, 5.0]), longest([])
    (5.0, None)
    """
    return max((v for v in values if v is not None), default=None)


@dataclass(frozen=True)
class ValidWindow:
    """The recall frame's time window as validity sees it: its bounds (epoch seconds) and the keys of the
    sessions whose interval overlaps it (``GraphStore.sessions_in_window``)."""

    start: float
    end: float
    sessions: frozenset[str]

    def holds(self, turn: TurnRow) -> bool:
        """A turn is valid when its session overlaps the window or its event time falls in it."""
        if turn.session is not None and node_key("Session", turn.session) in self.sessions:
            return True
        ev_start, ev_end = turn.event_start, turn.event_end
        return ev_start is not None and ev_end is not None and ev_start <= self.end and ev_end >= self.start


def offer_limit(budget: int, config: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG) -> int:
    """How many ranked turns the packer is offered for a budget: ``config.pack_candidates``, or one per
    ``config.pack_tokens_per_turn`` tokens when the budget could hold more lines than that."""
    return max(config.pack_candidates, budget // config.pack_tokens_per_turn)


def recall_dialogue(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str,
    budget: int,
    use_frames: bool = True,
    use_boxes: bool = True,
    use_traces: bool = True,
    use_expansion: bool = True,
    episodes: Sequence[EpisodeRow] | None = None,
    context: str = "compact",
    config: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG,
) -> DialogueRecall:
    """Evidence for a question about a dialogue history; ``episodes`` saves a read when the caller has them.

    ``use_frames``, ``use_boxes``, ``use_traces`` and ``use_expansion`` switch the recall frame, the topic
    boxes, trace expansion and rare-word expansion off (the ablations of
    ``graphmem.recall.config.RecallConfig``); ``config`` is the tuning. ``context="compact"`` (the default)
    writes each session's date once and each turn's speaker and event time; ``context="full"`` also writes
    each session's interval (start to end) and each turn's id, mentioned people and topic, at a cost in
    tokens (fewer turns fit a budget). Either way ``evidence.lines`` pairs each packed line with its turn id.

    >>> from graphmem.embed import default_embedder
    >>> from graphmem.store.embedded import EmbeddedStore
    >>> recall_dialogue(EmbeddedStore(), default_embedder(), "nobody", "What happened?", 100).evidence.tokens
    0
    """
    if context not in CONTEXTS:
        raise ValueError(f"context must be 'compact' or 'full', got {context!r}")
    if episodes is None:
        episodes = store.episode_nodes(namespace, kind="dialogue")
    history = history_range(episodes)
    if history is None:
        return DialogueRecall(pack([], budget), None, ())
    hist_start, hist_end = history
    if use_boxes and all(ep.box_count == 0 for ep in episodes):
        # Written without topic boxes (``Memory(boxes=False)``): no box search to wait for.
        use_boxes = False
    speakers: set[str] = set()
    for ep in episodes:
        speakers.update(json.loads(ep.speakers or "[]"))
    known = sorted(speakers)
    frame = induce_frame(question, hist_start, hist_end, known) if use_frames else None
    need = frame.need if frame is not None and frame.need.strip() else question
    if frame is not None and frame.reference:
        # "after the roadtrip": the frame takes the relation out of the need, but the event it points at
        # is what the answer's neighbourhood talks about.
        need = f"{need} {frame.reference}"
    people = set(frame.people) if frame is not None else set(induce_frame(question, hist_start, hist_end, known).people)

    query = analyze_question(need, tuple(known), config.expandable_pos)
    # list_question reads the parse of the need that analyze_question cached.
    w_lexical = config.list_w_lexical if list_question(need) else config.w_lexical
    # Expandable question words the expansion vocabulary lacks are embedded with the question, in one
    # model call, in case the full-text hits show them rare (``candidates.expansion_hits``).
    unknown = unknown_terms(query.expandable, embedder) if use_expansion else []
    vectors = embedder.embed([query.dense, *unknown])
    vector = vectors[0]
    expansion = Expansion(embedder, dict(zip(unknown, vectors[1:], strict=False))) if use_expansion else None
    offered_at_most = offer_limit(budget, config)

    def scores() -> tuple[dict[str, float], dict[str, TurnRow]]:
        return content_scores(
            store, namespace, query, vector,
            use_boxes=use_boxes, use_traces=use_traces, w_lexical=w_lexical, expansion=expansion, config=config,
        )

    window: ValidWindow | None = None
    filler: dict[str, TurnRow] = {}
    if frame is not None and frame.confident and frame.start is not None and frame.end is not None:
        start, end = frame.start.timestamp(), frame.end.timestamp()
        dialogues = [ep for ep in episodes if ep.kind == "dialogue"]
        longest_session = longest([ep.longest_session for ep in dialogues])
        longest_event = longest([ep.longest_event for ep in dialogues])
        (content, nodes), filler, sessions = together(
            scores,
            lambda: store.units_in_window(namespace, start, end, offered_at_most, longest_session, longest_event),
            lambda: store.sessions_in_window(namespace, start, end, longest_session),
        )
        window = ValidWindow(start, end, frozenset(sessions))
    else:
        content, nodes = scores()

    # Content flows along the dialogue first; the speaker bonus is the receiving turn's own (a reaction
    # of the other speaker to a named person's turn does not inherit that person's bonus).
    scored = flow(store, namespace, {k: v for k, v in content.items() if k in nodes}, nodes, config)
    if people:
        for key in scored:
            turn = nodes.get(key)
            if turn is not None and turn.speaker in people:
                scored[key] += config.speaker_bonus
    ranking = rank(scored, nodes, window, filler, offered_at_most)
    evidence = pack_turns(store, namespace, ranking[:offered_at_most], nodes, query, name_parts(known), budget, context, config)
    return DialogueRecall(evidence, frame, tuple(ranking), tuple(nodes[k].uid for k in ranking))


def rank(
    scored: dict[str, float],
    nodes: dict[str, TurnRow],
    window: ValidWindow | None,
    filler: dict[str, TurnRow],
    offered_at_most: int,
) -> list[str]:
    """Validity before relevance: the turns valid in the ``window`` (if any) first, each tier by score.

    Valid turns that no content search reached (``filler``, the window's turns) still compete, at the
    bottom of the valid tier (as many as the packer could take); they join ``scored`` and ``nodes``.
    """
    valid: set[str] = set()
    if window is not None:
        valid = {k for k in scored if k in nodes and window.holds(nodes[k])}
        floor = min(scored.values(), default=0.0) - 1.0
        extra = [k for k in filler if k not in scored][: max(0, offered_at_most - len(valid))]
        for key in extra:
            nodes.setdefault(key, filler[key])
            scored[key] = floor
            valid.add(key)

    def rank_key(key: str) -> tuple[int, float, str]:
        tier = 0 if (window is None or key in valid) else 1
        return tier, -scored[key], key

    return [k for k in sorted(scored, key=rank_key) if k in nodes and nodes[k].uid]


def pack_turns(
    store: GraphStore,
    namespace: str,
    offered: Sequence[str],
    nodes: dict[str, TurnRow],
    query: QueryTerms,
    names: frozenset[str],
    budget: int,
    context: str,
    config: DialogueRecallConfig,
) -> Evidence:
    """The offered turns' lines packed greedily under the budget, under their sessions' headers.

    Lines are written as the packer takes them: a turn whose opening alone no longer fits is skipped
    without trimming its text (most offered turns, once the budget is nearly full).
    """
    context_rows: dict[str, StoredRow] = {}
    if context == "full":
        # The sessions' intervals and the boxes' topics of the offered turns, in one read.
        wanted = {node_key("Session", session_id) for k in offered if (session_id := nodes[k].session)}
        wanted |= {box_key for k in offered if (box_key := nodes[k].box)}
        context_rows = read_rows(store, namespace, sorted(wanted))
    packer = Packer(budget)
    for key in offered:
        turn = nodes[key]
        start = turn.session_start
        header = session_header(start) if start is not None else ""
        topic = None
        if context == "full":
            session = context_rows.get(node_key("Session", str(turn.session)))
            if start is not None and isinstance(session, SessionRow) and day(session.end) != day(start):
                header = f"{day(start)} to {day(session.end)}:"
            box = context_rows.get(turn.box or "")
            topic = box.topic if isinstance(box, BoxRow) else ""
        opening = turn_opening(turn, topic)
        if not packer.may_fit(opening):
            continue
        line = turn_line(turn, query.lexical, names, topic, opening, config)
        packer.offer(PackItem(turn.uid, line, order=float(turn.seq), header=header))
    return packer.evidence()


def recall_turns(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str,
    budget: int,
    use_frames: bool = True,
    use_boxes: bool = True,
    use_traces: bool = True,
    use_expansion: bool = True,
    episodes: Sequence[EpisodeRow] | None = None,
    context: str = "compact",
    config: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG,
) -> Evidence:
    """The evidence of ``recall_dialogue`` (same arguments), without its frame and ranking."""
    return recall_dialogue(
        store, embedder, namespace, question, budget, use_frames=use_frames, use_boxes=use_boxes, use_traces=use_traces,
        use_expansion=use_expansion, episodes=episodes, context=context, config=config,
    ).evidence
