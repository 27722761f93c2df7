"""The check ``ensure_schema`` makes of the vector indexes it finds: wrong dimensions or quantization is
refused with the index named, never dropped silently; other indexes are not graphmem's business."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.errors import SchemaError
from graphmem.store.neo4j_schema import VECTOR_INDEXES, check_vector_indexes
from graphmem.store.protocol import DIMENSIONS


def row(name: str, dims: int = DIMENSIONS, quantized: bool = False) -> dict[str, Any]:
    return {"name": name, "state": "ONLINE",
            "options": {"indexConfig": {"vector.dimensions": dims, "vector.quantization.enabled": quantized}}}


def test_graphmems_own_indexes_as_created_pass() -> None:
    check_vector_indexes([row(name) for name in VECTOR_INDEXES.values()])


def test_an_index_of_other_dimensions_is_refused_by_name() -> None:
    with pytest.raises(SchemaError, match=r"turn_embedding has 768 dimensions.*DROP INDEX turn_embedding"):
        check_vector_indexes([row("step_embedding"), row("turn_embedding", dims=768)])


def test_a_quantized_index_is_refused_by_name() -> None:
    with pytest.raises(SchemaError, match=r"step_embedding is quantized.*DROP INDEX step_embedding"):
        check_vector_indexes([row("step_embedding", quantized=True)])


def test_someone_elses_vector_index_is_left_alone() -> None:
    check_vector_indexes([row("their_index", dims=1536, quantized=True)])
