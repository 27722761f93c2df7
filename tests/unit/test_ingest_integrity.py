"""``graphmem ingest`` writes a file all or nothing, and a resumed run proves the stored steps are the file's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.ingest import ingest_files
from graphmem.memory import Memory
from graphmem.store.embedded import EmbeddedStore
from hash_embed import HashEmbedder


def _lines(n: int, start: int = 0) -> list[str]:
    return [json.dumps({"t": t, "action": "collect wood" if t % 5 == 0 else "noop",
                        "events": [{"kind": "collect", "obj": "wood"}] if t % 5 == 0 else []})
            for t in range(start, start + n)]


@pytest.fixture
def memory() -> Memory:
    return Memory(store=EmbeddedStore(), embedder=HashEmbedder())


def test_a_bad_line_late_in_the_file_writes_nothing_of_it(tmp_path: Path, memory: Memory) -> None:
    path = tmp_path / "run-1.jsonl"
    lines = _lines(1000) + [json.dumps({"t": 9223372036854775808, "action": "noop"})]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidRecordError, match="line 1001.*'t'"):
        ingest_files(memory, [path], "agent-1", batch_size=256, progress=False)
    assert memory.stats("agent-1").get("Step", 0) == 0
    path.write_text("\n".join(lines[:-1]) + "\n")  # the line mended: the file goes in whole
    assert ingest_files(memory, [path], "agent-1", batch_size=256, progress=False).written == 1000


def test_a_resumed_run_refuses_a_file_whose_stored_steps_changed(tmp_path: Path, memory: Memory) -> None:
    path = tmp_path / "run-1.jsonl"
    lines = _lines(300)
    path.write_text("\n".join(lines) + "\n")
    ingest_files(memory, [path], "agent-1", batch_size=128, progress=False)
    before = memory.stats("agent-1")
    changed = list(lines)
    changed[100] = json.dumps({"t": 100, "action": "something else"})
    path.write_text("\n".join(changed + _lines(10, start=300)) + "\n")
    with pytest.raises(ConflictError, match="t=100 differs"):
        ingest_files(memory, [path], "agent-1", batch_size=128, progress=False)
    assert memory.stats("agent-1") == before  # none of the ten new steps either
    path.write_text("\n".join(lines + _lines(10, start=300)) + "\n")  # the same file, appended to: resumes
    report = ingest_files(memory, [path], "agent-1", batch_size=128, progress=False)
    assert (report.written, report.skipped) == (10, 300)
