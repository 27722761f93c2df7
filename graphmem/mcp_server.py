"""graphmem as a Model Context Protocol server: ``graphmem mcp`` (stdio) or ``graphmem mcp --http PORT``.

Built on the official ``mcp`` SDK (``mcp.server.mcpserver.MCPServer``). Its tools:

* ``remember_steps`` (namespace, episode_id, steps in the step-log format of ``graphmem.formats``) and
  ``remember_session`` (namespace, session_id, turns, started_at, ended_at): write;
* ``recall``, ``answer`` (namespace, question, budget) and ``search`` (namespace, question, k): read;
* ``trajectory_query`` (namespace, query, budget): a structured trajectory query, its parameter's schema
  being ``graphmem.query.serialize.query_schema()``;
* ``list_namespaces``, ``stats`` (namespace), ``forget`` (namespace, episode or session): manage.

Every input has a typed schema and every result a structured form (``EvidenceResult`` and the like):
the evidence text, its token count, the budget and the source ids, the answer where there is one. A
graphmem error (bad records, an unknown namespace, a conflict) comes back as a tool error whose text is
graphmem's message. The store is opened when the server starts; the embedding model loads at the first
tool that needs it (writing, recall, search), not for listing tools, namespaces or stats.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import GraphmemError
from graphmem.store.protocol import GraphStore

T = TypeVar("T")

INSTRUCTIONS = (
    "graphmem is an episodic memory. Write an agent's steps with remember_steps and a conversation's "
    "sessions with remember_session, into a namespace (one agent or user). Ask with recall (evidence within "
    "a token budget), answer (an answer from that evidence) or search (ranked units); trajectory_query takes "
    "a structured query of a trajectory. Evidence lines carry their source ids."
)


# ---------------------------------------------------------------------------------------- inputs


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EventInput(_Strict):
    kind: str = Field(description="a short verb phrase: collect, make, place, eat, visit, run test, ...")
    obj: str = Field("", description="what the event is about (wood, table 1, kitchen)")
    count: int = Field(1, ge=0)


class LocationInput(_Strict):
    position: Annotated[list[int], Field(min_length=2, max_length=2)] | None = Field(None, description="[x, y]")
    region: str = ""
    underfoot: str = ""


class StepInput(_Strict):
    """One step, as a line of a step log (graphmem.formats)."""

    t: int = Field(ge=0, description="the step index, strictly increasing within the episode")
    action: str = Field(min_length=1)
    summary: str = ""
    objects: list[str] = Field(default_factory=list)
    events: list[EventInput] = Field(default_factory=list)
    relations: list[Annotated[list[str], Field(min_length=3, max_length=3)]] = Field(
        default_factory=list, description="[subject, predicate, object] triples")
    inventory: dict[str, int] = Field(default_factory=dict, description="item counts after the step")
    state: dict[str, int | float | str | bool] = Field(default_factory=dict, description="state values after the step")
    location: LocationInput = Field(default_factory=lambda: LocationInput(position=None))
    observation: str = ""


class TurnInput(_Strict):
    id: str = Field(min_length=1, description="the caller's id of the turn; recall returns it as a source id")
    speaker: str = Field(min_length=1)
    text: str = Field(min_length=1)
    image_caption: str | None = None


def with_query_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema with ``query_schema()`` as the schema of its ``query`` parameter: the query
    schema's definitions join the input schema's own ``$defs``, where its ``#/$defs/...`` references
    point once it is part of the input schema."""
    from graphmem.query.serialize import query_schema

    schema = copy.deepcopy(query_schema())
    definitions = schema.pop("$defs", {})
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    patched = copy.deepcopy(parameters)
    patched["properties"]["query"] = {**schema, "title": "query"}
    patched["$defs"] = {**patched.get("$defs", {}), **definitions}
    return patched


# Parameter types (module level: the SDK reads the tools' annotations by name).
Namespace = Annotated[str, Field(min_length=1, max_length=512, description="one agent's or user's memory")]
Budget = Annotated[int, Field(ge=1, description="evidence budget in cl100k_base tokens")]
Count = Annotated[int, Field(ge=1, le=200, description="how many hits")]
#: A trajectory query as JSON; its schema is set by ``with_query_schema`` when the tool is built.
QueryParameter = Annotated[dict[str, Any], Field(description="a trajectory query (graphmem.query)")]


# ---------------------------------------------------------------------------------------- results


class EvidenceResult(BaseModel):
    text: str = Field(description="the packed evidence, one line per unit")
    tokens: int = Field(description="its size in cl100k_base tokens")
    budget: int
    source_ids: list[str] = Field(description="the caller's ids of the units in the evidence, in pack order")
    query: dict[str, Any] | None = Field(None, description="the trajectory query the question was read as, if any")


class AnswerResult(BaseModel):
    answer: str | None = Field(description="the answer, or null when the evidence does not give one")
    answerer: str
    evidence: EvidenceResult


class HitResult(BaseModel):
    source_id: str
    score: float
    kind: str
    text: str


class SearchResult(BaseModel):
    hits: list[HitResult]


class WriteResult(BaseModel):
    written: int = Field(description="units (steps or turns) written")
    unchanged: int = Field(description="units already stored unchanged")


class NamespacesResult(BaseModel):
    namespaces: list[str]


class StatsResult(BaseModel):
    namespace: str
    counts: dict[str, int]
    episodes: list[dict[str, Any]]


class ForgetResult(BaseModel):
    forgotten: str


def _evidence(evidence: Any) -> EvidenceResult:
    from graphmem.commands.options import evidence_json

    return EvidenceResult(**evidence_json(evidence))


# ---------------------------------------------------------------------------------------- the server


class _Memory:
    """The server's memory: the store at once, the ``Memory`` (and its model) at first need; one tool
    call at a time uses it."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.lock = threading.Lock()
        self._memory: Any = None

    def memory(self) -> Any:
        from graphmem.memory import Memory

        if self._memory is None:
            self._memory = Memory(store=self.store)
        return self._memory

    def forget(self, namespace: str, episode: str | None, session: str | None) -> str:
        """Delete what is named (``graphmem.manage.forget``); a loaded writer drops its cached traces."""
        from graphmem.manage import forget

        what = forget(self.store, namespace, episode=episode, session=session)
        if self._memory is not None and self._memory._dialogue is not None:
            self._memory._dialogue.forget_traces(namespace)
        return what

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()
        else:
            self.store.close()


def build_server(store: GraphStore) -> Any:
    """An ``MCPServer`` with graphmem's tools over ``store`` (run it with ``.run("stdio")``)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool

    from graphmem import __name__ as package
    from graphmem.commands.options import answerer_from_env, version
    from graphmem.manage import episodes_of, summary, unit_text
    from graphmem.records import Turn
    from graphmem.store.rows import read_rows

    state = _Memory(store)
    functions: list[tuple[Callable[..., Any], str]] = []

    def tool(description: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        def register(fn: Callable[..., T]) -> Callable[..., T]:
            functions.append((fn, description))
            return fn

        return register

    def guarded(work: Callable[[], T]) -> T:
        """Run one tool's work; graphmem's errors (and bad values) become tool errors with its message."""
        with state.lock:
            try:
                return work()
            except (GraphmemError, ValueError) as exc:
                raise ToolError(str(exc)) from exc

    def asked(namespace: str) -> Any:
        episodes_of(state.store, namespace)  # an unknown namespace says so
        return state.memory()

    @tool("Append agent steps to an episode of a namespace (steps in the step-log format).")
    def remember_steps(namespace: Namespace, episode_id: str, steps: list[StepInput]) -> WriteResult:
        from graphmem.loaders.jsonl_steps import step_from_dict

        def work() -> WriteResult:
            records = [step_from_dict(s.model_dump(), f"steps[{i}]") for i, s in enumerate(steps)]
            report = state.memory().add_steps(namespace, episode_id, records)
            return WriteResult(written=report.written, unchanged=report.unchanged)

        return guarded(work)

    @tool("Add one dialogue session (sessions in time order) to a namespace.")
    def remember_session(namespace: Namespace, session_id: str, turns: list[TurnInput], started_at: datetime,
                         ended_at: datetime | None = None, episode_id: str = "dialogue") -> WriteResult:
        def work() -> WriteResult:
            records = [Turn(t.id, t.speaker, t.text, t.image_caption) for t in turns]
            report = state.memory().add_session(namespace, session_id, records, started_at, ended_at, episode_id=episode_id)
            return WriteResult(written=report.written, unchanged=report.unchanged)

        return guarded(work)

    @tool("Evidence for a question from a namespace's memory, packed within a token budget.")
    def recall(namespace: Namespace, question: str, budget: Budget = 300) -> EvidenceResult:
        return guarded(lambda: _evidence(asked(namespace).recall(namespace, question, budget=budget)))

    @tool("The memory units (steps, turns) that match a question best, ranked.")
    def search(namespace: Namespace, question: str, k: Count = 10) -> SearchResult:
        def work() -> SearchResult:
            mem = asked(namespace)
            hits = mem.search(namespace, question, k=k)
            rows = read_rows(state.store, namespace, [h.key for h in hits])
            return SearchResult(hits=[HitResult(source_id=h.source_id, score=h.score, kind=h.key.split(":", 1)[0],
                                                text=unit_text(rows.get(h.key))) for h in hits])

        return guarded(work)

    def answered(namespace: str, question: Any, budget: int) -> AnswerResult:
        result = asked(namespace).answer(namespace, question, budget=budget, answerer=answerer_from_env())
        return AnswerResult(answer=result.text, answerer=result.answerer, evidence=_evidence(result.evidence))

    @tool("Answer a question from a namespace's memory: the answer and the evidence it rests on.")
    def answer(namespace: Namespace, question: str, budget: Budget = 150) -> AnswerResult:
        return guarded(lambda: answered(namespace, question, budget))

    @tool("Answer a structured query of the namespace's trajectory (the trajectory query algebra).")
    def trajectory_query(
        namespace: Namespace,
        query: QueryParameter,
        budget: Budget = 150,
    ) -> AnswerResult:
        return guarded(lambda: answered(namespace, query, budget))

    @tool("The namespaces the memory holds.")
    def list_namespaces() -> NamespacesResult:
        return guarded(lambda: NamespacesResult(namespaces=state.store.namespaces()))

    @tool("What a namespace holds: its episodes, nodes per label and relationships per type.")
    def stats(namespace: Namespace) -> StatsResult:
        return guarded(lambda: StatsResult(**summary(state.store, namespace)))

    @tool("Delete one episode or one dialogue session of a namespace; with neither, the whole namespace.")
    def forget(namespace: Namespace, episode: str | None = None, session: str | None = None) -> ForgetResult:
        def work() -> ForgetResult:
            if episode is not None and session is not None:
                raise ValueError("give an episode or a session, not both")
            episodes_of(state.store, namespace)  # an unknown namespace says so
            return ForgetResult(forgotten=state.forget(namespace, episode, session))

        return guarded(work)

    tools = [Tool.from_function(fn, description=description) for fn, description in functions]
    tools = [t.model_copy(update={"parameters": with_query_schema(t.parameters)}) if t.name == "trajectory_query" else t
             for t in tools]
    server = MCPServer(package, instructions=INSTRUCTIONS, version=version(), tools=tools)
    server.graphmem_state = state  # type: ignore[attr-defined]  # closed by serve()
    return server


def serve(store: GraphStore, http_port: int | None = None, host: str = "127.0.0.1") -> None:
    """Serve the tools over stdio, or over streamable HTTP at ``http://host:port/mcp``; closes the store."""
    server = build_server(store)
    try:
        if http_port is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=http_port)
    finally:
        server.graphmem_state.close()
