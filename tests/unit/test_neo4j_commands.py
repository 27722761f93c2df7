"""The commands around graphmem's own Neo4j server, without a server: each ``graphmem neo4j`` action has
its own help; every command that connects uses the same credentials; connections ask the server to leave
out the "does not exist" warnings of an empty database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import neo4j
import pytest

import graphmem.memory
import graphmem.store.open
from graphmem.cli import main
from graphmem.neo4j_server import DEFAULT_PASSWORD
from graphmem.store import neo4j_connect

ACTIONS = ("install", "start", "stop", "status")


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # one line: descriptions wrap


def test_each_neo4j_action_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    texts = {action: _help(capsys, "neo4j", action) for action in ACTIONS}
    assert len(set(texts.values())) == len(ACTIONS)
    for action, text in texts.items():
        assert text.startswith(f"usage: graphmem neo4j {action}")
        assert "--home" in text
    assert "Maven" in texts["install"] and "--force" in texts["install"]
    assert "--bolt-port" in texts["start"] and "--timeout" in texts["start"] and "--force" not in texts["start"]
    assert "SIGTERM" in texts["stop"] and "--bolt-port" not in texts["stop"]
    assert "Exit code 0 when it runs, 3" in texts["status"] and "--timeout" not in texts["status"]
    overview = _help(capsys, "neo4j")
    assert all(action in overview for action in ACTIONS)


def test_an_option_of_another_action_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["neo4j", "status", "--force"])
    assert exit_.value.code == 2
    assert "--force" in capsys.readouterr().err


class _Connected(Exception):
    """Raised by the fakes below once a command has said how it connects."""


def _credentials_of(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[str | None, Any]:
    """The (uri, auth) a command opens its memory or store with (nothing is opened)."""
    seen: dict[str, Any] = {}

    def memory(uri: str | None = None, *, auth: Any = None, **_: Any) -> None:
        seen.update(uri=uri, auth=auth)
        raise _Connected

    def open_store(uri: str | None = None, *, auth: Any = None, **_: Any) -> None:
        seen.update(uri=uri, auth=auth)
        raise _Connected

    monkeypatch.setattr(graphmem.memory, "Memory", memory)
    monkeypatch.setattr(graphmem.store.open, "open_store", open_store)
    with pytest.raises(_Connected):
        main(argv)
    return seen["uri"], seen["auth"]


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, ("neo4j", DEFAULT_PASSWORD)),
        ({"GRAPHMEM_NEO4J_PASSWORD": "another-password"}, ("neo4j", "another-password")),
        ({"GRAPHMEM_NEO4J_USER": "maya", "GRAPHMEM_NEO4J_PASSWORD": "mayas-password"}, ("maya", "mayas-password")),
    ],
)
def test_demo_ingest_and_recall_connect_alike(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              environment: dict[str, str], expected: tuple[str, str]) -> None:
    uri = "bolt://localhost:7699"
    for name in ("GRAPHMEM_NEO4J_USER", "GRAPHMEM_NEO4J_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", uri)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    steps = tmp_path / "run-1.jsonl"
    steps.write_text('{"t": 0, "action": "move left"}\n', encoding="utf-8")

    demo = _credentials_of(monkeypatch, ["demo"])
    ingest = _credentials_of(monkeypatch, ["ingest", str(steps), "-n", "agent-1", "--no-progress"])
    recall = _credentials_of(monkeypatch, ["recall", "agent-1", "where am I?"])
    assert demo == ingest == recall == (uri, expected)


def test_connections_leave_out_unrecognized_name_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty database answers every label and property graphmem's statements name with a warning."""
    seen: dict[str, Any] = {}

    def driver(uri: str, **config: Any) -> None:
        seen.update(config)
        raise neo4j.exceptions.DriverError("stop here")

    monkeypatch.setattr(neo4j_connect.GraphDatabase, "driver", driver)
    with pytest.raises(Exception, match="stop here"):
        neo4j_connect.connect("bolt://localhost:7699", ("neo4j", DEFAULT_PASSWORD), None)
    assert seen["notifications_disabled_classifications"] == [neo4j.NotificationDisabledClassification.UNRECOGNIZED]
