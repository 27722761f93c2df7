"""The memory commands of ``graphmem``: recall, search, answer, stats, namespaces, forget, export, import.

Run in-process on the test's memory file (GRAPHMEM_PATH, see conftest) and once on the Neo4j server
(``--uri``). Bad input exits with code 2 and a message, before any embedding model is loaded.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

import graphmem.memory
from graphmem.cli import main
from graphmem.formats import EXPORT_FORMAT

STEPS = [
    {"t": 0, "action": "move left", "location": {"position": [1, 0], "region": "forest"}},
    {"t": 1, "action": "collect wood", "events": [{"kind": "collect", "obj": "wood"}], "inventory": {"wood": 1}},
    {"t": 2, "action": "collect wood", "events": [{"kind": "collect", "obj": "wood"}], "inventory": {"wood": 2}},
    {"t": 3, "action": "place table", "events": [{"kind": "place", "obj": "table"}], "inventory": {}},
]
CHAT = [
    {"session_id": "s1", "timestamp": "2024-03-02T18:10:00+00:00", "speaker": "Maya", "text": "I adopted a dog named Pepper.", "id": "s1:0"},
    {"session_id": "s1", "timestamp": "2024-03-02T18:10:00+00:00", "speaker": "Sam", "text": "Pepper is a sweet name.", "id": "s1:1"},
    {"session_id": "s2", "timestamp": "2024-04-14T09:00:00+00:00", "speaker": "Maya", "text": "Pepper learned to swim in the lake.", "id": "s2:0"},
]


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("graphmem ")
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert all(name in text for name in ("GRAPHMEM_PATH", "GRAPHMEM_NEO4J_URI", "GRAPHMEM_NEO4J_PASSWORD", "recall", "mcp"))
    for command in ("import", "ingest"):  # the JSONL formats, described once (graphmem.formats)
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert EXPORT_FORMAT in text and '"session_id"' in text and '"action"' in text


@pytest.fixture
def no_model(monkeypatch):
    """Fail the test if anything builds the default embedder (the model)."""
    def refuse():
        raise AssertionError("the embedding model was loaded")

    monkeypatch.setattr(graphmem.memory, "default_embedder", refuse)


def test_bad_input_exits_2_before_the_model_loads(capsys, tmp_path, no_model):
    cases = [
        (["recall", "nobody", "where was I?"], "holds no memory"),
        (["answer", "nobody", "where was I?"], "holds no memory"),
        (["search", "nobody", "where was I?"], "holds no memory"),
        (["stats", "nobody"], "holds no memory"),
        (["forget", "nobody"], "holds no memory"),
        (["export", "nobody"], "holds no memory"),
        (["import", str(tmp_path / "missing.jsonl")], "cannot be read"),
        (["recall", "nobody", "{not json", "--query"], "not JSON"),
        (["recall", "nobody", '{"op": "count"}', "--query"], "pattern"),
    ]
    bad = _jsonl(tmp_path / "bad.jsonl", [{"format": EXPORT_FORMAT, "version": 1, "namespace": "a"},
                                          {"episode": "run-1", "kind": "trajectory"}, {"t": 0, "acton": "noop"}])
    cases.append((["import", str(bad)], "bad.jsonl line 3"))
    newer = _jsonl(tmp_path / "newer.jsonl", [{"format": EXPORT_FORMAT, "version": 99, "namespace": "a"}])
    cases.append((["import", str(newer)], "version"))
    for argv, message in cases:
        code, out, err = _run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert message in err, (argv, err)
    for argv in (["recall", "ns", "q", "--budget", "0"], ["search", "ns", "q", "-k", "-1"], ["forget", "ns", "--episode", "a", "--session", "b"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "error" in capsys.readouterr().err


def test_commands_on_the_memory_file(capsys, tmp_path):
    steps, chat = _jsonl(tmp_path / "run-1.jsonl", STEPS), _jsonl(tmp_path / "chat.jsonl", CHAT)
    assert _run(capsys, "ingest", str(steps), str(chat), "-n", "agent-1", "--no-progress")[0] == 0

    recalled = _json(capsys, "recall", "agent-1", "when did I first collect wood?", "--budget", "60")
    evidence = recalled["evidence"]
    assert evidence["source_ids"][0] == "run-1:1" and evidence["tokens"] <= 60 and evidence["query"]["op"] == "read"
    chat_evidence = _json(capsys, "recall", "agent-1", "Where did Pepper learn to swim?")["evidence"]
    assert chat_evidence["source_ids"][0] == "s2:0" and "query" not in chat_evidence
    answered = _json(capsys, "answer", "agent-1", "What did I do at step 3?", "--executor")
    assert answered["answer"] == "place table" and "run-1:3" in answered["evidence"]["source_ids"]
    counted = _json(capsys, "answer", "agent-1", '{"op": "count", "pattern": {"kind": "collect", "obj": "wood"}}', "--query")
    assert counted["answer"] == "2"
    hits = _json(capsys, "search", "agent-1", "Pepper swim lake", "-k", "2")["hits"]
    assert hits[0]["source_id"] == "s2:0" and hits[0]["text"] == "Maya: Pepper learned to swim in the lake."
    code, out, _ = _run(capsys, "recall", "agent-1", "when did I first collect wood?")
    assert code == 0 and "[1] collect wood" in out and "sources: run-1:1" in out

    stats = _json(capsys, "stats", "agent-1")
    assert stats["counts"]["Step"] == 4 and [e["episode"] for e in stats["episodes"]] == ["run-1", "dialogue"]
    assert _json(capsys, "namespaces")["namespaces"] == ["agent-1"]

    # export -> import into a new namespace -> export again: the same records.
    first, again = tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    assert _run(capsys, "export", "agent-1", "-o", str(first))[0] == 0
    report = _json(capsys, "import", str(first), "-n", "agent-2")
    assert (report["steps"], report["turns"], report["episodes"]) == (4, 3, 2)
    code, out, _ = _run(capsys, "export", "agent-2")
    assert code == 0
    again.write_text(out, encoding="utf-8")
    lines, again_lines = first.read_text().splitlines(), again.read_text().splitlines()
    assert json.loads(lines[0])["namespace"] == "agent-1" and json.loads(again_lines[0])["namespace"] == "agent-2"
    assert lines[1:] == again_lines[1:] and len(lines) == 1 + 2 + len(STEPS) + len(CHAT)
    assert _json(capsys, "import", str(first), "-n", "agent-2")["unchanged"] == 7  # importing again changes nothing

    forgotten = _json(capsys, "forget", "agent-2", "--session", "s2")
    assert forgotten["forgotten"] == "session 's2' of namespace 'agent-2'"
    assert _json(capsys, "stats", "agent-2")["counts"]["Turn"] == 2
    assert "s2:0" not in _json(capsys, "recall", "agent-2", "Where did Pepper learn to swim?")["evidence"]["source_ids"]
    _json(capsys, "forget", "agent-2", "--episode", "run-1")
    assert [e["episode"] for e in _json(capsys, "stats", "agent-2")["episodes"]] == ["dialogue"]
    code, _, err = _run(capsys, "forget", "agent-2", "--episode", "run-1")
    assert code == 2 and "no episode 'run-1'" in err
    _json(capsys, "forget", "agent-2")
    assert _json(capsys, "namespaces")["namespaces"] == ["agent-1"]


@pytest.mark.neo4j
def test_commands_on_neo4j(capsys, tmp_path, neo4j_server):
    uri, (user, password) = neo4j_server
    server = ["--uri", uri, "--user", user, "--password", password]
    namespace = f"cli-{uuid.uuid4().hex[:10]}"
    export = _jsonl(tmp_path / "export.jsonl", [{"format": EXPORT_FORMAT, "version": 1, "namespace": namespace},
                                                {"episode": "run-1", "kind": "trajectory"}, *STEPS])
    try:
        assert _json(capsys, "import", str(export), *server)["steps"] == 4
        assert namespace in _json(capsys, "namespaces", *server)["namespaces"]
        evidence = _json(capsys, "recall", namespace, "when did I first collect wood?", "--budget", "60", *server)["evidence"]
        assert evidence["source_ids"][0] == "run-1:1"
        code, out, _ = _run(capsys, "export", namespace, *server)
        assert code == 0 and [json.loads(line) for line in out.splitlines()[2:]] == _canonical(STEPS)
        _json(capsys, "forget", namespace, "--episode", "run-1", *server)
        assert namespace not in _json(capsys, "namespaces", *server)["namespaces"]
    finally:
        main(["forget", namespace, *server])
        capsys.readouterr()


def _canonical(steps: list[dict]) -> list[dict]:
    """Steps as an export writes them: every key, defaults filled in."""
    from graphmem.loaders.jsonl_steps import step_from_dict, step_to_dict

    return [step_to_dict(step_from_dict(s, "test")) for s in steps]
