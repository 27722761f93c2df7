"""``graphmem mcp`` end to end: the server in a subprocess, driven by the MCP SDK's own client.

Over stdio on a memory file: list the tools, remember steps and a session, recall, answer, a trajectory
query, read back (stats, namespaces), forget, graphmem's errors as tool errors, and the memory still
there for the next server process. Over streamable HTTP: the same tools listed and called.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from graphmem.query.serialize import query_schema

TOOLS = {"remember_steps", "remember_session", "recall", "search", "answer", "trajectory_query", "list_namespaces",
         "stats", "forget"}
STEPS = [
    {"t": 0, "action": "move left", "location": {"position": [1, 0], "region": "forest"}},
    {"t": 1, "action": "collect wood", "events": [{"kind": "collect", "obj": "wood"}], "inventory": {"wood": 1}},
    {"t": 2, "action": "collect wood", "events": [{"kind": "collect", "obj": "wood"}], "inventory": {"wood": 2}},
    {"t": 3, "action": "place table", "events": [{"kind": "place", "obj": "table"}], "inventory": {}},
]
TURNS = [
    {"id": "c1", "speaker": "Maya", "text": "My dog Pepper loves swimming in the lake."},
    {"id": "c2", "speaker": "Sam", "text": "Lucky Pepper! Our cat hates water."},
]


def _server_env(path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_PATH"] = str(path)
    return env


def _stdio(path: Path, work: Callable[[ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "graphmem", "mcp"], env=_server_env(path))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await work(session)

    anyio.run(main)


async def _call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


async def _error(client: ClientSession, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_stdio_server_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"

    async def work(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        # The query parameter's schema is graphmem.query's, its definitions beside the input's own.
        schema = tools["trajectory_query"].input_schema
        expected = query_schema()
        assert schema["properties"]["query"]["oneOf"] == expected["oneOf"]
        assert {k: schema["$defs"][k] for k in expected["$defs"]} == expected["$defs"]
        assert tools["remember_steps"].input_schema["required"] == ["namespace", "episode_id", "steps"]

        written = await _call(session, "remember_steps", namespace="agent-1", episode_id="run-1", steps=STEPS)
        assert written == {"written": 4, "unchanged": 0}
        written = await _call(session, "remember_session", namespace="agent-1", session_id="chat-1", turns=TURNS,
                              started_at="2024-03-02T18:10:00+00:00")
        assert written == {"written": 2, "unchanged": 0}

        evidence = await _call(session, "recall", namespace="agent-1", question="when did I first collect wood?", budget=80)
        assert evidence["source_ids"][0] == "run-1:1" and evidence["tokens"] <= 80 and "collect wood" in evidence["text"]
        assert evidence["query"] is not None  # how the question was read
        chat = await _call(session, "recall", namespace="agent-1", question="Where does Pepper like to swim?", budget=80)
        assert chat["source_ids"][0] == "c1"  # a dialogue question gets turns, not steps
        answered = await _call(session, "answer", namespace="agent-1", question="What did I do at step 3?")
        assert answered["answer"] == "place table" and "run-1:3" in answered["evidence"]["source_ids"]
        counted = await _call(session, "trajectory_query", namespace="agent-1",
                              query={"op": "count", "pattern": {"kind": "collect", "obj": "wood"}}, budget=100)
        assert counted["answer"] == "2" and counted["evidence"]["query"]["op"] == "count"
        hits = await _call(session, "search", namespace="agent-1", question="Pepper swimming lake", k=3)
        assert hits["hits"][0]["source_id"] == "c1" and hits["hits"][0]["text"].startswith("Maya:")

        stats = await _call(session, "stats", namespace="agent-1")
        assert stats["counts"]["Step"] == 4 and stats["counts"]["Turn"] == 2
        assert (await _call(session, "list_namespaces"))["namespaces"] == ["agent-1"]

        # graphmem's errors are tool errors carrying its message.
        assert "holds no memory" in await _error(session, "recall", namespace="nobody", question="anything?")
        assert "out of order" in await _error(session, "remember_steps", namespace="agent-1", episode_id="run-1",
                                              steps=[{"t": 2, "action": "noop"}, {"t": 1, "action": "noop"}])
        assert "no session 'chat-9'" in await _error(session, "forget", namespace="agent-1", session="chat-9")
        assert "query" in await _error(session, "trajectory_query", namespace="agent-1", query={"op": "count"})

        forgotten = await _call(session, "forget", namespace="agent-1", session="chat-1")
        assert forgotten["forgotten"] == "session 'chat-1' of namespace 'agent-1'"
        assert "Turn" not in (await _call(session, "stats", namespace="agent-1"))["counts"]
        chat = await _call(session, "recall", namespace="agent-1", question="Where does Pepper like to swim?", budget=80)
        assert "c1" not in chat["source_ids"]

    _stdio(path, work)

    async def reopened(session: ClientSession) -> None:  # the next server process reads the same file
        assert (await _call(session, "list_namespaces"))["namespaces"] == ["agent-1"]
        await _call(session, "forget", namespace="agent-1", episode="run-1")
        assert (await _call(session, "list_namespaces"))["namespaces"] == []

    _stdio(path, reopened)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_streamable_http_server(tmp_path: Path) -> None:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "graphmem", "mcp", "--http", str(port)], env=_server_env(tmp_path / "m.db"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else "server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)

        async def main() -> None:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert {t.name for t in (await session.list_tools()).tools} == TOOLS
                assert (await _call(session, "list_namespaces"))["namespaces"] == []
                assert "holds no memory" in await _error(session, "stats", namespace="nobody")

        anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=30)
