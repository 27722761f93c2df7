"""The embedded backend's vector index: exact cosine search over one namespace's vectors.

Every vector is compared (the embedded store holds one process's memory, so a matrix product is fast
enough), and scores are ``(1 + cosine) / 2`` as Neo4j's cosine vector indexes give them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["VectorIndex"]


class VectorIndex:
    """Exact cosine search over one namespace's vectors, in a growing numpy matrix; each row remembers its
    node's label, so a search can keep to one label (the turns of a namespace that holds steps too)."""

    def __init__(self, dimensions: int) -> None:
        self.keys: list[str] = []
        self.slot: dict[str, int] = {}
        self.matrix = np.zeros((64, dimensions), dtype=np.float32)
        self._codes: dict[str, int] = {}
        self.label_codes = np.zeros(64, dtype=np.int16)

    def upsert(self, key: str, vector: Sequence[float], label: str = "") -> None:
        row = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(row))
        if norm > 0:
            row = row / norm
        if key in self.slot:
            self.matrix[self.slot[key]] = row
            return
        if len(self.keys) == self.matrix.shape[0]:
            grown = np.zeros((self.matrix.shape[0] * 2, self.matrix.shape[1]), dtype=np.float32)
            grown[: len(self.keys)] = self.matrix[: len(self.keys)]
            self.matrix = grown
            self.label_codes = np.concatenate([self.label_codes, np.zeros_like(self.label_codes)])
        self.slot[key] = len(self.keys)
        self.matrix[len(self.keys)] = row
        self.label_codes[len(self.keys)] = self._codes.setdefault(label, len(self._codes))
        self.keys.append(key)

    def search(self, vector: Sequence[float], k: int, only: str | None = None) -> list[tuple[str, float]]:
        """The k nearest (of label ``only`` when given), best first, ties by key."""
        n = len(self.keys)
        if n == 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm > 0:
            query = query / norm
        sims = self.matrix[:n] @ query
        if only is None:
            rows = np.arange(n)
        elif only in self._codes:
            rows = np.flatnonzero(self.label_codes[:n] == self._codes[only])
        else:
            return []
        if rows.size == 0:
            return []
        k = min(k, rows.size)
        top = rows[np.argpartition(-sims[rows], k - 1)[:k]]
        ranked = sorted(((self.keys[i], (1.0 + float(sims[i])) / 2.0) for i in top), key=lambda kv: (-kv[1], kv[0]))
        return ranked

    def remove(self, key: str) -> None:
        """Drop ``key``'s vector (if any): the last row takes its slot (searches break ties by key, so
        the rows' order does not matter)."""
        slot = self.slot.pop(key, None)
        if slot is None:
            return
        last = len(self.keys) - 1
        if slot != last:
            moved = self.keys[last]
            self.matrix[slot] = self.matrix[last]
            self.label_codes[slot] = self.label_codes[last]
            self.keys[slot] = moved
            self.slot[moved] = slot
        self.keys.pop()

