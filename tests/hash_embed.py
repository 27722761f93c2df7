"""A deterministic stand-in for the embedding model in tests that do not judge ranking quality."""

from __future__ import annotations

import hashlib

import numpy as np


class HashEmbedder:
    """Unit vectors seeded by a text's hash: the same text always gets the same vector, no model load."""

    dimensions = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=self.dimensions)
            out[i] = v / np.linalg.norm(v)
        return out
