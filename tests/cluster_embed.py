"""An embedder for tests of query expansion: a few word clusters, every other text unrelated."""

from __future__ import annotations

import hashlib

import numpy as np

# Words of one cluster share a direction (cosine ~0.9 with each other); every other text gets a vector
# seeded by its hash (cosine ~0 with anything else).
CLUSTERS = {
    "art": 0,
    "painting": 0,
    "paintings": 0,
    "artwork": 0,
    "destress": 1,
    "relaxation": 1,
    "relaxing": 1,
}


class ClusterEmbedder:
    """A deterministic embedder whose only similar texts are the words of ``CLUSTERS``."""

    dimensions = 384

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name
        self.calls: list[int] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)
            noise = np.random.default_rng(seed).normal(size=self.dimensions)
            noise /= np.linalg.norm(noise)
            cluster = CLUSTERS.get(text.lower())
            if cluster is None:
                v = noise
            else:
                base = np.zeros(self.dimensions)
                base[cluster] = 1.0
                v = base + 0.3 * noise
            out[i] = v / np.linalg.norm(v)
        return out
