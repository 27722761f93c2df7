"""The int8 codes Neo4jStore keeps beside each float vector for its exact namespace search."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.store.neo4j import DIMENSIONS, int8_code

unit_vectors = st.integers(min_value=0, max_value=2**32 - 1).map(
    lambda seed: np.random.default_rng(seed).normal(size=DIMENSIONS) * np.random.default_rng(seed + 1).uniform(0.01, 100))


@settings(max_examples=200, deadline=None)
@given(unit_vectors, unit_vectors)
def test_code_keeps_the_cosine(a: np.ndarray, b: np.ndarray) -> None:
    result = int8_code([float(x) for x in a])
    assert result is not None
    code, square = result
    assert len(code) == DIMENSIONS
    q = np.frombuffer(code, dtype=np.int8).astype(np.float64)
    assert np.abs(q).max() == 127  # the whole int8 range is used, whatever the vector's scale
    assert square == q @ q  # the squared length the exact search needs
    exact = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    rough = q @ b / np.linalg.norm(q) / np.linalg.norm(b)
    assert abs(exact - rough) < 0.01


def test_zero_vector_has_no_code() -> None:
    assert int8_code([0.0] * DIMENSIONS) is None


def test_code_of_a_one_hot_vector() -> None:
    v = [0.0] * DIMENSIONS
    v[3] = -0.5
    code, square = int8_code(v)
    assert np.frombuffer(code, dtype=np.int8)[3] == -127 and square == 127 * 127
