"""Content search: full-text (BM25) and vector hits over units, fused by reciprocal rank."""

from __future__ import annotations

from graphmem.embed import Embedder
from graphmem.recall.fusion import rrf
from graphmem.recall.parallel import together
from graphmem.store.protocol import GraphStore, Hit
from graphmem.store.text_index import content_terms

#: Each list is fetched k deep (times this). Fusion by RRF gives a unit both lists hold the sum of its two
#: reciprocal ranks, so with lists much deeper than k a unit mediocre in both (rank 40 and 40: 2/101)
#: outranks one that a list puts first (1/61). Measured on LoCoMo dev turns (categories 1-4, fusing
#: graphmem's own full-text and vector hits): Recall@20 with both lists 20 / 30 / 40 / 60 deep 0.660 /
#: 0.643 / 0.588 / 0.558; Recall@10 with 10 / 15 / 20 / 30: 0.577 / 0.585 / 0.555 / 0.485; Recall@5 with
#: 5 / 10 / 15 / 30: 0.488 / 0.471 / 0.415 / 0.376. The earlier rule (3k, at least 30) is the last of each.
DEPTH = 1


def search_units(store: GraphStore, embedder: Embedder, namespace: str, question: str, k: int = 20) -> list[Hit]:
    """The top ``k`` units for a question; ``score`` is the fused RRF score.

    >>> from graphmem import Memory, Step
    >>> steps = [Step(0, "drink water"), Step(1, "collect wood"), Step(2, "place table")]
    >>> with Memory() as mem:
    ...     _ = mem.add_steps("agent-1", "run-1", steps)
    ...     hits = search_units(mem.store, mem.embedder, "agent-1", "collect wood", k=2)
    >>> len(hits), hits[0].source_id, round(hits[0].score, 4)  # first in both lists: 1/61 + 1/61
    (2, 'run-1:1', 0.0328)
    """
    if k <= 0:
        return []
    depth = k * DEPTH
    lexical, dense = together(
        lambda: store.fulltext(namespace, " ".join(content_terms(question)), depth),
        lambda: store.vector(namespace, embedder.embed([question])[0], depth),
    )
    uids = {h.key: h.uid for h in [*lexical, *dense]}
    fused = rrf([[h.key for h in lexical], [h.key for h in dense]])
    return [Hit(key, uids[key], score) for key, score in fused[:k]]
