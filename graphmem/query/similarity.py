"""Embedding similarity of a question's phrase with the names a memory holds, and the thresholds at
which a phrase names one of them (MiniLM, the model graphmem ships)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphmem.nlp import lemma_text

#: ``texts -> unit vectors`` (an ``Embedder.embed``).
Embed = Callable[[Sequence[str]], Any]

#: Below this cosine a phrase names nothing in the memory (MiniLM: unrelated short phrases sit near
#: 0.1-0.3, paraphrases of one action above 0.5) ...
MIN_SIMILARITY = 0.42
#: ... unless it is well ahead of every other candidate: "put something down" is 0.39 to "place" and at
#: most 0.26 to any other kind.
MIN_LEAD_SIMILARITY = 0.3
MIN_LEAD = 0.08


def clear_winner(scores: Sequence[float]) -> bool:
    ranked = sorted(scores, reverse=True)
    if not ranked:
        return False
    if ranked[0] >= MIN_SIMILARITY:
        return True
    return ranked[0] >= MIN_LEAD_SIMILARITY and (len(ranked) == 1 or ranked[0] - ranked[1] >= MIN_LEAD)


_CACHE_LOCK = threading.Lock()
_VECTORS: dict[tuple[int, str], np.ndarray] = {}


def _owner(embed: Embed) -> int:
    """The identity of an embedder: a bound method is a new object on every access, its owner is not."""
    return id(getattr(embed, "__self__", embed))


def _vectors(embed: Embed, texts: Sequence[str]) -> list[np.ndarray]:
    """Unit vectors of the texts, cached per embedder and text (names recur in every question)."""
    owner = _owner(embed)
    with _CACHE_LOCK:
        found = {t: _VECTORS.get((owner, t)) for t in texts}
    missing = list(dict.fromkeys(t for t, v in found.items() if v is None))
    if missing:
        fresh = np.asarray(embed(missing), dtype=np.float32)
        with _CACHE_LOCK:
            if len(_VECTORS) > 50_000:
                _VECTORS.clear()
            for t, v in zip(missing, fresh):
                _VECTORS[(owner, t)] = v
                found[t] = v
    return [found[t] for t in texts]  # type: ignore[misc]


def similarities(embed: Embed, text: str, pool: Sequence[str]) -> list[float]:
    """Cosine of ``text`` with each of ``pool``: the better of the text as written and of its lemmas
    (MiniLM reads "take damage" close to "get hurt", "took damage" much less so)."""
    if not pool:
        return []
    lemmas = lemma_text(text)
    q, *rest = _vectors(embed, [text, *pool])
    scores = [float(q @ v) for v in rest]
    if lemmas != text:
        (lq,) = _vectors(embed, [lemmas])
        scores = [max(s, float(lq @ v)) for s, v in zip(scores, rest)]
    return scores
