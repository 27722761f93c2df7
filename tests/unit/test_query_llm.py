"""LLM parsing of trajectory questions: function calling against a loopback chat-completions server,
and the grammar's query whenever the endpoint or its reply fails."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from graphmem.query.algebra import Count, EventPattern, Occurrence, Read, Shifted
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.query.llm import TOOL_NAME, LlmCompiler, compile_with_fallback
from graphmem.query.serialize import query_schema, to_json

LEX = Lexicon(frozenset({("open", "door"), ("send", "report")}), frozenset({"coin"}), frozenset({"battery"}), frozenset({"lobby"}))
QUESTION = "how many times did I open the door?"
GRAMMAR_QUERY = Count(EventPattern("open", "door"))
LLM_QUERY = Read(Shifted(Occurrence(EventPattern("send", "report"), 2), -1), "location")


def _tool_call(arguments: Any) -> dict[str, Any]:
    call = {"id": "call-1", "type": "function", "function": {"name": TOOL_NAME, "arguments": arguments}}
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls"}]}


class _Server:
    """What the next request gets back: a status, a body and a delay before it."""

    def __init__(self) -> None:
        self.status = 200
        self.reply: Any = _tool_call(json.dumps(to_json(LLM_QUERY)))
        self.delay = 0.0
        self.seen: list[dict[str, Any]] = []


class _Handler(BaseHTTPRequestHandler):
    state: _Server

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.state.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        time.sleep(self.state.delay)
        reply = self.state.reply
        data = reply.encode() if isinstance(reply, str) else json.dumps(reply).encode()
        try:
            self.send_response(self.state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout case)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, _Server]]:
    state = _Server()
    handler = type("Handler", (_Handler,), {"state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/v1", state
    httpd.shutdown()
    httpd.server_close()


def test_grammar_reads_the_question_used_for_fallback() -> None:
    assert compile_question(QUESTION, LEX, 100) == GRAMMAR_QUERY


def test_valid_tool_call_is_the_query(server: tuple[str, _Server]) -> None:
    url, state = server
    llm = LlmCompiler(url, "tiny", api_key="k", timeout=5)
    assert llm.compile(QUESTION, LEX, 100) == LLM_QUERY
    assert compile_with_fallback(QUESTION, LEX, 100, llm) == LLM_QUERY
    request = state.seen[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k"
    body = request["body"]
    assert body["model"] == "tiny" and body["temperature"] == 0
    assert body["tools"] == [
        {"type": "function", "function": {"name": TOOL_NAME, "description": body["tools"][0]["function"]["description"],
                                          "parameters": query_schema()}}
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": TOOL_NAME}}
    system, user = body["messages"]
    assert system["role"] == "system" and user == {"role": "user", "content": QUESTION}
    for name in ("open: door", "send: report", "coin", "battery", "lobby", "0 to 100", "1-based"):
        assert name in system["content"]


def test_arguments_sent_as_an_object_are_read_too(server: tuple[str, _Server]) -> None:
    url, state = server
    state.reply = _tool_call(to_json(LLM_QUERY))
    assert LlmCompiler(url, "tiny", timeout=5).compile(QUESTION, LEX, 100) == LLM_QUERY


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(_tool_call('{"op": "count", "pattern": '), id="invalid-json-arguments"),
        pytest.param(_tool_call(json.dumps({"op": "read", "anchor": {"op": "step_at", "t": -3}, "slot": "action"})), id="schema-violation"),
        pytest.param(_tool_call(json.dumps({"op": "count", "pattern": {"kind": "open"}, "colour": "red"})), id="unknown-field"),
        pytest.param(_tool_call(json.dumps({"op": ["count"]})), id="unhashable-op"),
        pytest.param({"choices": [{"message": {"role": "assistant", "content": "3 times"}}]}, id="no-tool-call"),
        pytest.param({"choices": [{"message": {"role": "assistant", "tool_calls": [
            {"type": "function", "function": {"name": "other", "arguments": json.dumps(to_json(LLM_QUERY))}}]}}]}, id="other-function"),
        pytest.param({"choices": []}, id="no-choices"),
        pytest.param("not json at all", id="invalid-json-body"),
    ],
)
def test_unusable_reply_falls_back_to_the_grammar(server: tuple[str, _Server], reply: Any) -> None:
    url, state = server
    state.reply = reply
    llm = LlmCompiler(url, "tiny", timeout=5)
    assert llm.compile(QUESTION, LEX, 100) is None
    assert compile_with_fallback(QUESTION, LEX, 100, llm) == GRAMMAR_QUERY
    assert len(state.seen) == 2


def test_http_error_falls_back_to_the_grammar(server: tuple[str, _Server], caplog: pytest.LogCaptureFixture) -> None:
    url, state = server
    state.status, state.reply = 500, {"error": {"message": "boom"}}
    with caplog.at_level("WARNING", logger="graphmem.query.llm"):
        assert compile_with_fallback(QUESTION, LEX, 100, LlmCompiler(url, "tiny", timeout=5)) == GRAMMAR_QUERY
    assert "500" in caplog.text


def test_slow_reply_beyond_the_timeout_falls_back_to_the_grammar(server: tuple[str, _Server]) -> None:
    url, state = server
    state.delay = 1.5
    started = time.monotonic()
    assert compile_with_fallback(QUESTION, LEX, 100, LlmCompiler(url, "tiny", timeout=0.3)) == GRAMMAR_QUERY
    assert time.monotonic() - started < 1.4


def test_unreachable_endpoint_falls_back_to_the_grammar() -> None:
    # Port 9 (discard) on loopback: nothing listens, so the connection is refused at once.
    assert compile_with_fallback(QUESTION, LEX, 100, LlmCompiler("http://127.0.0.1:9/v1", "tiny", timeout=2)) == GRAMMAR_QUERY


def test_no_llm_is_the_grammar() -> None:
    assert compile_with_fallback(QUESTION, LEX, 100, None) == GRAMMAR_QUERY


def test_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GRAPHMEM_LLM_BASE_URL", "GRAPHMEM_LLM_MODEL", "GRAPHMEM_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert LlmCompiler.from_env() is None
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", "http://127.0.0.1:8000/v1/")
    assert LlmCompiler.from_env() is None  # the model is required too
    monkeypatch.setenv("GRAPHMEM_LLM_MODEL", "tiny")
    monkeypatch.setenv("GRAPHMEM_LLM_API_KEY", "k")
    assert LlmCompiler.from_env() == LlmCompiler("http://127.0.0.1:8000/v1", "tiny", "k")


def test_large_lexicon_is_cut_in_the_prompt() -> None:
    big = Lexicon(frozenset((f"kind{k}", f"object{o}") for k in range(200) for o in range(50)))
    body = LlmCompiler("http://127.0.0.1:9/v1", "tiny").request_body(QUESTION, big, 100)
    assert len(body["messages"][0]["content"]) < 8000


def test_a_memory_with_a_compiler_recalls_by_the_llms_query(server: tuple[str, _Server]) -> None:
    """The compiler a ``Memory`` is given reads its trajectory questions (and the grammar the rest)."""
    from graphmem import Memory
    from graphmem.records import Event, Location, Step

    url, state = server
    steps = [Step(t, "noop", location=Location(region="hall")) for t in range(12)]
    steps[3] = Step(3, "send report", events=(Event("send", "report"),), location=Location(region="office"))
    steps[7] = Step(7, "send report", events=(Event("send", "report"),), location=Location(region="lab"))
    with Memory(query_compiler=LlmCompiler(url, "tiny", timeout=5)) as memory:
        memory.add_steps("run", "ep", steps)
        answer = memory.answer("run", "where was I just before my second report went out?", budget=150)
        assert state.seen, "the question went to the endpoint"
        assert answer.evidence.query == to_json(Read(Shifted(Occurrence(EventPattern("send", "report"), 2), -1), "location"))
        assert answer.text == "hall" and "ep:6" in answer.evidence.source_ids
    with Memory() as memory:  # no compiler: the grammar alone, and nothing is sent
        memory.add_steps("run", "ep", steps)
        before = len(state.seen)
        memory.answer("run", "where was I just before my second report went out?", budget=150)
        assert len(state.seen) == before
