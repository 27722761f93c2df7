"""The chat answerer speaks the OpenAI chat-completions protocol (tested against a loopback server)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from graphmem.answer import AnswererError, ChatAnswerer
from graphmem.memory import Memory
from graphmem.records import Event, Step
from graphmem.store.embedded import EmbeddedStore


class _Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict]] = []

    def do_POST(self):  # http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        question = body["messages"][-1]["content"]
        answer = "table" if "[1] place table" in question else "unknown"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": f" {answer} "}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_chat_answerer_reads_evidence_through_the_endpoint(endpoint, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", endpoint + "/")
    monkeypatch.setenv("GRAPHMEM_LLM_MODEL", "tiny")
    monkeypatch.setenv("GRAPHMEM_LLM_API_KEY", "k")
    answerer = ChatAnswerer.from_env()
    with Memory(store=EmbeddedStore()) as mem:
        mem.add_steps("a", "run", [Step(0, "collect wood", events=(Event("collect", "wood"),)),
                                   Step(1, "place table", events=(Event("place", "table"),))])
        result = mem.answer("a", "What did I place right after I first collected wood?", answerer=answerer)
    assert result.text == "table" and result.answerer == "ChatAnswerer"
    request = _Handler.seen[-1]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    assert request["body"]["model"] == "tiny" and request["body"]["temperature"] == 0


def test_chat_answerer_errors_are_clear(monkeypatch):
    monkeypatch.delenv("GRAPHMEM_LLM_BASE_URL", raising=False)
    with pytest.raises(AnswererError, match="GRAPHMEM_LLM_BASE_URL"):
        ChatAnswerer.from_env()
    with pytest.raises(AnswererError, match="failed"):
        ChatAnswerer("http://127.0.0.1:9/v1", "m", timeout=2)("q", "e")
