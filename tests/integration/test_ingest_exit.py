"""``graphmem ingest`` ends quietly: its stderr holds no "nanobind: leaked ..." report.

The ingest freezes the garbage collector while it writes (so full collections skip the model's objects);
objects still frozen at exit are never collected, and the native extensions torch imports (triton's
nanobind bindings) then report their objects as leaked, some 30 lines. A real subprocess, the real model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_an_ingest_leaves_no_leak_report_on_stderr(tmp_path: Path) -> None:
    steps = tmp_path / "run-1.jsonl"
    steps.write_text("".join(json.dumps({"t": t, "action": f"move {'left' if t % 2 else 'up'}"}) + "\n" for t in range(5)),
                     encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if not name.startswith("GRAPHMEM_NEO4J_")}
    env["GRAPHMEM_PATH"] = str(tmp_path / "memory.db")
    proc = subprocess.run(
        [sys.executable, "-m", "graphmem", "ingest", str(steps), "-n", "agent-1", "--no-progress"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "5 units written" in proc.stdout
    assert "nanobind" not in proc.stderr, proc.stderr
