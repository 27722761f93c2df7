"""The published JSON Schema of trajectory queries is the one the code validates with."""

from __future__ import annotations

import json
from pathlib import Path

from graphmem.query.serialize import query_schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "trajectory-query.schema.json"


def test_published_schema_is_the_codes() -> None:
    assert json.loads(SCHEMA_FILE.read_text()) == query_schema(), (
        "docs/trajectory-query.schema.json is stale: regenerate it from graphmem.query.serialize.query_schema()"
    )
