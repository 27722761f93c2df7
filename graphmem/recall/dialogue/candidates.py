"""Candidate turns for a dialogue question and their scores, before validity and packing.

Full-text and vector hits on turns, the turns of the best topic boxes and, when asked, of the boxes that
share a trace with them; and full-text hits for the neighbours of the question's rare words, those
(almost) none of its own full-text hits contain ("art" against a history that says "painting";
``graphmem.recall.expansion``). Each candidate is scored by a weighted sum of its lexical score (BM25
over the best hit, plus a share of the expansion's), its cosine and its box's cosine
(``content_scores``). Scores then flow along the dialogue: a reply inherits most of the score of the
question it answers, and a turn some of its neighbours' (``flow``). The weights and depths are a
``DialogueRecallConfig``.

>>> cosine(0.75)
0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.embed import Embedder
from graphmem.recall.dialogue.config import DialogueRecallConfig
from graphmem.recall.dialogue.question import QueryTerms
from graphmem.recall.expansion import expand, rare_terms
from graphmem.recall.parallel import together
from graphmem.store.protocol import GraphStore, Hit, TurnRow, node_key
from graphmem.store.rows import read_turns

__all__ = ["Expansion", "content_scores", "cosine", "flow", "turns_only"]

_TURN_PREFIX = node_key("Turn", "")


def cosine(hit_score: float) -> float:
    """The store's vector score is ``(1 + cos) / 2``; back to the cosine."""
    return 2.0 * hit_score - 1.0


@dataclass(frozen=True)
class Expansion:
    """What rare-word expansion needs: the embedder, and the vectors of the question's words that the
    expansion vocabulary lacks (embedded with the question)."""

    embedder: Embedder
    vectors: dict[str, Any]


def content_scores(
    store: GraphStore,
    namespace: str,
    query: QueryTerms,
    vector: Any,
    *,
    use_boxes: bool,
    use_traces: bool,
    w_lexical: float,
    expansion: Expansion | None,
    config: DialogueRecallConfig,
) -> tuple[dict[str, float], dict[str, TurnRow]]:
    """Content score of each candidate turn, before people and the dialogue flow; and the turns' rows.
    ``w_lexical`` is the lexical weight (``config.w_lexical``, or ``config.list_w_lexical`` for a list
    question); with an ``expansion``, the question's rare words are expanded (``expansion_hits``)."""
    lexical, dense, box_hits = together(
        lambda: store.fulltext(namespace, " ".join(query.lexical + query.gerunds), config.turn_depth, with_props=True) if query.lexical else [],
        lambda: store.vector(namespace, vector, config.dense_depth, label="Turn", with_props=True),
        lambda: store.vector(namespace, vector, config.box_depth, label="Box") if use_boxes else [],
    )
    lexical = turns_only(lexical)
    best_bm25 = max((h.score for h in lexical), default=0.0)
    bm25 = {h.key: h.score / best_bm25 for h in lexical} if best_bm25 > 0 else {}
    expanded = expansion_hits(store, namespace, query, lexical, expansion, config) if expansion is not None else []
    best_expanded = max((h.score for h in expanded), default=0.0)
    if best_expanded > 0:
        for h in expanded:
            bm25[h.key] = bm25.get(h.key, 0.0) + config.w_expansion * h.score / best_expanded
    cos = {h.key: cosine(h.score) for h in dense}
    # A turn outside the dense list is at most as close as the last one in it.
    cos_floor = min(cos.values(), default=0.0)
    candidates: dict[str, None] = dict.fromkeys([*bm25, *cos])

    box_cos: dict[str, float] = {}
    box_floor = 0.0
    if use_boxes:
        box_cos = {h.key: cosine(h.score) for h in box_hits}
        box_floor = min(box_cos.values(), default=0.0)
        top_boxes = [h.key for h in box_hits[: config.box_members]]
        expand = list(top_boxes)
        if use_traces and top_boxes:
            # A box on the same trace as a top box (the same activity in another session) inherits a
            # share of the seed's cosine, and its turns join the candidates.
            seeds = top_boxes[: config.trace_seeds]
            related = store.trace_boxes(namespace, seeds)
            for seed in seeds:
                for other in related.get(seed, []):
                    box_cos[other] = max(box_cos.get(other, box_floor), config.w_trace * box_cos[seed])
                    expand.append(other)
        for turns in store.box_members(namespace, list(dict.fromkeys(expand))).values():
            for turn in turns:
                candidates.setdefault(turn, None)

    # The searches brought their hits' rows; only the boxes' other turns are read here.
    nodes = {h.key: h.node for h in (*lexical, *expanded, *dense) if isinstance(h.node, TurnRow)}
    unread = [key for key in candidates if key not in nodes]
    if unread:
        nodes.update(read_turns(store, namespace, unread))
    box_of = {key: turn.box for key, turn in nodes.items() if turn.box}

    scores: dict[str, float] = {}
    for key in candidates:
        score = w_lexical * bm25.get(key, 0.0) + config.w_dense * cos.get(key, cos_floor)
        if use_boxes:
            score += config.w_box * box_cos.get(box_of.get(key, ""), box_floor)
        scores[key] = score
    return scores, nodes


def expansion_hits(
    store: GraphStore, namespace: str, query: QueryTerms, lexical: Sequence[Hit], expansion: Expansion, config: DialogueRecallConfig
) -> list[Hit]:
    """Full-text hits for the neighbours of the question's rare words (``graphmem.recall.expansion``):
    words that at most ``expansion.MAX_HITS`` of the question's own full-text hits contain."""
    texts = [f"{h.node.utterance} {h.node.image_caption or ''}" for h in lexical if isinstance(h.node, TurnRow)]
    rare = rare_terms(query.expandable, texts)
    words = expand(rare, query.lexical + query.gerunds, expansion.embedder, vectors=expansion.vectors)
    if not words:
        return []
    return turns_only(store.fulltext(namespace, " ".join(words), config.turn_depth, with_props=True))


def turns_only(hits: Sequence[Hit]) -> list[Hit]:
    """The turns among full-text hits: a namespace that holds an agent's steps too searches them in the
    same index, and a step is no dialogue evidence."""
    return [h for h in hits if h.key.startswith(_TURN_PREFIX)]


def flow(
    store: GraphStore, namespace: str, scores: dict[str, float], nodes: dict[str, TurnRow], config: DialogueRecallConfig
) -> dict[str, float]:
    """Let scores flow to adjacent turns of the same session (``config.answer_share`` from a question
    to its reply, ``config.neighbour_share`` otherwise); the neighbours' nodes join ``nodes``.

    Only the best ``config.flow_sources`` turns pass score on: a share of a lower score never reaches the
    ranks the packer takes.
    """
    sources = sorted(scores, key=lambda k: (-scores[k], k))[: config.flow_sources]
    neighbourhood = store.neighbours(namespace, sources, 1, 1, with_props=True)
    around = neighbourhood.chains
    for key, row in neighbourhood.nodes.items():
        if isinstance(row, TurnRow):  # a turn's neighbours along NEXT are turns
            nodes.setdefault(key, row)
    flowed = dict(scores)
    for key in sources:
        score = scores[key]
        chain = around.get(key, [key])
        position = chain.index(key) if key in chain else 0
        turn = nodes[key]  # every source is a scored turn, whose row recall holds
        is_question = "?" in turn.utterance
        for offset, other in enumerate(chain):
            neighbour = nodes.get(other)
            if other == key or neighbour is None or neighbour.session != turn.session:
                continue
            share = config.neighbour_share
            if offset > position and is_question and neighbour.speaker != turn.speaker:
                share = config.answer_share  # the reply to a question
            flowed[other] = max(flowed.get(other, float("-inf")), share * score)
    return flowed
