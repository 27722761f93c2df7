"""The README's first command, ``graphmem demo``: the bundled trajectory and dialogue on the embedded
backend, every question answered from its packed evidence."""

from __future__ import annotations

import re

from graphmem.cli import DIALOGUE_QUESTIONS, TRAJECTORY_QUESTIONS, main


def test_demo_runs_on_the_embedded_backend(monkeypatch, capsys):
    monkeypatch.delenv("GRAPHMEM_NEO4J_URI", raising=False)
    assert main(["demo", "--budget", "150"]) == 0
    out = capsys.readouterr().out
    assert "FileStore backend" in out  # the embedded default, kept in the test's memory file (GRAPHMEM_PATH)
    assert "trajectory: 300 Crafter steps" in out
    for question in (*TRAJECTORY_QUESTIONS, *DIALOGUE_QUESTIONS):
        assert question[:40] in out.replace("\n", " ") or question[:25] in out
    tokens = [int(t) for t in re.findall(r"(\d+) tokens ·", out)]
    assert len(tokens) == len(TRAJECTORY_QUESTIONS) + len(DIALOGUE_QUESTIONS)
    assert all(0 < t <= 150 for t in tokens)
