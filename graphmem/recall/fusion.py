"""Reciprocal rank fusion of ranked lists (RaMem and our baselines fuse BM25 and dense this way).

>>> rrf([["a", "b"], ["b", "c"]])
[('b', 0.0325...), ('a', 0.0163...), ('c', 0.0161...)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

#: The constant of Cormack et al. (2009), also RaMem's: damps the head so that agreement between
#: lists outweighs a single first place.
RRF_K = 60


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K, weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Fuse ranked id lists; ties broken by id so the result is deterministic."""
    scores: dict[str, float] = defaultdict(float)
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for rank, ident in enumerate(ranking):
            scores[ident] += w / (k + rank + 1)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
