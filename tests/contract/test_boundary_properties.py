"""Arbitrary records and call arguments, on every backend at once: each call either is refused with a
graphmem error that names the field or argument (``InvalidRecordError``, ``InvalidArgumentError``; a
``ConflictError``, ``NotFoundError`` or ``QueryError`` for what contradicts the memory or the query
language) and changes no node or relationship, or succeeds, after which recall, search and answer work.
Never another exception type, and the embedded store, the memory file and Neo4j give the same outcome:
the same error and field, or the same report and the same node and relationship counts.

The generated values are mostly valid records with a field or two made bad: wrong types, None, a bare
record where a tuple belongs, huge integers, NaN, lone surrogates, texts at and over the size limits.
Dialogue namespaces are read with ``RecallConfig(use_expansion=False)`` and not searched (``search`` of a dialogue is
its recall with rare-word expansion, whose vocabulary takes 10-30 s to build for a new embedder).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from graphmem.errors import (
    ConflictError,
    GraphmemError,
    InvalidArgumentError,
    InvalidRecordError,
    NotFoundError,
)
from graphmem.memory import Memory
from graphmem.query.algebra import Condition, QueryError, Reached, Read, StepAt
from graphmem.recall.config import RecallConfig
from graphmem.records import (
    MAX_ID_CHARS,
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    Event,
    Location,
    Relation,
    Step,
    Turn,
)
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.file import FileStore
from graphmem.store.neo4j import Neo4jStore
from hash_embed import HashEmbedder

pytestmark = pytest.mark.neo4j

BACKENDS = ("embedded", "file", "neo4j")
DAY = datetime(2024, 3, 2, 10, tzinfo=UTC)
#: Modest example counts: every example runs on the three backends.
PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: The errors a refused call may raise.
REFUSALS = (InvalidRecordError, InvalidArgumentError, ConflictError, NotFoundError, QueryError)
#: Dialogue recall as these tests read it (see the module doc).
NO_EXPANSION = RecallConfig(use_expansion=False)


class Memories:
    """One ``Memory`` per backend, sharing an embedder; remembers the namespaces it used, to delete them."""

    def __init__(self, neo4j_store: Neo4jStore, file_store: FileStore) -> None:
        embedder = HashEmbedder()
        self.by_backend = {
            "embedded": Memory(store=EmbeddedStore(), embedder=embedder),
            "file": Memory(store=file_store, embedder=embedder),
            "neo4j": Memory(store=neo4j_store, embedder=embedder),
        }
        self.namespaces: list[str] = []

    def fresh(self, prefix: str) -> str:
        namespace = f"{prefix}-{uuid.uuid4().hex[:12]}"
        self.namespaces.append(namespace)
        return namespace


@pytest.fixture(scope="module")
def memories(neo4j_store: Neo4jStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memories]:
    file_store = FileStore(tmp_path_factory.mktemp("boundary") / "memory.db")
    found = Memories(neo4j_store, file_store)
    yield found
    for namespace in found.namespaces:
        neo4j_store.delete_namespace(namespace)
    file_store.close()


# ---------------------------------------------------------------------------------------- values

SURROGATES = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2).map(lambda s: f"a{s}b")
ODD_TEXT = st.sampled_from([
    "", " ", "\t\n", "\x00", "a\x00b", "<|endoftext|>", "e\u0301", "\U0001F4A5", "\U00020000" * 3, "a\u200bb",
    "') DETACH DELETE n //", "*:*", "\\", '"', "x" * MAX_NAME_CHARS, "x" * (MAX_NAME_CHARS + 1), "\U00020000" * MAX_NAME_CHARS,
    "x" * (MAX_ID_CHARS + 1), "word " * 20,
])
LONG_TEXT = st.sampled_from(["x" * (MAX_TEXT_CHARS + 1), "y" * 9_000, "long " * 2_000])
HUGE_INTS = st.sampled_from([2**62, 2**62 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 2**200])
#: Anything at all: what a caller may hand over by mistake.
WEIRD = st.one_of(
    st.none(), st.booleans(), HUGE_INTS, st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=3), SURROGATES, ODD_TEXT, st.just([]), st.just({}), st.just(Event("collect", "wood")),
    st.just(("a", "b")), st.just(object()), st.just(date(2024, 1, 1)),
)
NAMES = st.one_of(st.sampled_from(["wood", "stone", "table", "tree", "water", "forest"]), st.text(min_size=1, max_size=8))
TEXTS = st.one_of(st.sampled_from(["collect wood", "place table", "walk to the river", "noop"]), st.text(max_size=30))
VALUES = st.one_of(st.integers(-5, 5), st.floats(-1e6, 1e6, allow_nan=False), st.booleans(), TEXTS)


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` about four times in five, else ``bad`` (``one_of`` picks its branches alike)."""
    return st.integers(0, 4).flatmap(lambda i: bad if i == 4 else good)


def _bad_part(draw: st.DrawFn, parts: tuple[str, ...]) -> str | None:
    """Which one part of a call to make bad: none in about half the calls."""
    return draw(st.sampled_from(parts)) if draw(st.booleans()) else None


def _set(field: str) -> Callable[[dict[str, Any], Any], None]:
    def corrupt(kwargs: dict[str, Any], bad: Any) -> None:
        kwargs[field] = bad

    return corrupt


#: Ways to make one part of a step bad, given a bad value.
STEP_CORRUPTIONS: list[Callable[[dict[str, Any], Any], None]] = [
    *(_set(name) for name in ("t", "action", "summary", "objects", "events", "relations", "inventory", "state", "location", "observation")),
    lambda kw, bad: kw.update(objects=(bad,)),
    lambda kw, bad: kw.update(events=(Event(bad, "wood"),)),
    lambda kw, bad: kw.update(events=(Event("collect", bad),)),
    lambda kw, bad: kw.update(events=(Event("collect", "wood", bad),)),
    lambda kw, bad: kw.update(events=(bad,)),
    lambda kw, bad: kw.update(relations=(Relation(bad, "on", "table"),)),
    lambda kw, bad: kw.update(inventory=[(bad, 1)]),
    lambda kw, bad: kw.update(inventory={"wood": bad}),
    lambda kw, bad: kw.update(state=[(bad, 1)]),
    lambda kw, bad: kw.update(state={"hp": bad}),
    lambda kw, bad: kw.update(location=Location(bad)),
    lambda kw, bad: kw.update(location=Location((1, bad))),
    lambda kw, bad: kw.update(location=Location(None, bad)),
    lambda kw, bad: kw.update(location=Location(None, "forest", bad)),
]


@st.composite
def step_kwargs(draw: st.DrawFn, t: int, bad: bool) -> dict[str, Any]:
    """A step's fields, of any valid kind (random text too: a blank name is refused), one or two of them
    made bad when ``bad``."""
    kwargs: dict[str, Any] = {
        "t": t,
        "action": draw(TEXTS),
        "summary": draw(st.one_of(st.just(""), TEXTS)),
        "objects": tuple(draw(st.lists(NAMES, max_size=2))),
        "events": tuple(draw(st.lists(st.builds(Event, st.sampled_from(["collect", "place", "Run_Test", "gain"]), NAMES,
                                                 st.integers(0, 3)), max_size=2))),
        "relations": tuple(draw(st.lists(st.builds(Relation, NAMES, NAMES, NAMES), max_size=1))),
        "inventory": draw(st.dictionaries(NAMES, st.integers(0, 9), max_size=2)),
        "state": draw(st.dictionaries(NAMES, VALUES, max_size=2)),
        "location": Location(draw(st.one_of(st.none(), st.tuples(st.integers(-9, 9), st.integers(-9, 9)))),
                             draw(st.one_of(st.just(""), NAMES)), draw(st.one_of(st.just(""), NAMES))),
        "observation": draw(st.one_of(st.just(""), TEXTS, LONG_TEXT)),
    }
    for _ in range(draw(st.integers(1, 2)) if bad else 0):
        draw(st.sampled_from(STEP_CORRUPTIONS))(kwargs, draw(st.one_of(WEIRD, LONG_TEXT)))
    return kwargs


@st.composite
def step_calls(draw: st.DrawFn) -> dict[str, Any]:
    """An ``add_steps`` call against a namespace whose episode "run" holds steps 0-2."""
    bad = _bad_part(draw, ("namespace", "episode", "container", "steps"))
    first = draw(st.sampled_from([3, 4, 0, 2]))
    batch = [draw(step_kwargs(first + i, bad == "steps")) for i in range(draw(st.integers(1, 3)))]
    return {
        "namespace": draw(st.sampled_from([None, "", "x" * (MAX_ID_CHARS + 1), "n\ud800", 5])) if bad == "namespace" else "ok",
        "episode": draw(WEIRD) if bad == "episode" else draw(st.sampled_from(["run", "run-2"])),
        "steps": batch,
        "container": draw(st.sampled_from(["bare", "none", "generator", "text"])) if bad == "container" else
        draw(st.sampled_from(["list", "tuple"])),
    }


TURN_TEXTS = st.one_of(st.sampled_from(["I adopted a dog named Pepper.", "We hiked to the lake last Sunday.", "Nice!"]),
                       st.text(min_size=1, max_size=40))
STARTS = st.sampled_from([
    DAY + timedelta(days=1), DAY + timedelta(days=30), DAY - timedelta(days=1), (DAY + timedelta(days=2)).replace(tzinfo=None),
    (DAY + timedelta(days=3)).astimezone(timezone(timedelta(hours=-7))), datetime.max, datetime.min, datetime(1, 1, 2),
    datetime(9998, 12, 1, tzinfo=UTC), "2024-03-05", None, 5, date(2024, 3, 5),
])


@st.composite
def turns(draw: st.DrawFn, bad: bool) -> Any:
    """A session's turns (new ids n0, n1, ...), one of them or the list made bad when ``bad``."""
    made: list[Any] = [
        Turn(f"n{i}", draw(st.sampled_from(["Maya", "Sam"])), draw(TURN_TEXTS), draw(st.one_of(st.none(), TURN_TEXTS)))
        for i in range(draw(st.integers(1, 3)))
    ]
    if not bad:
        return draw(st.sampled_from([made, tuple(made)]))
    how = draw(st.sampled_from(["field", "field", "turn", "list"]))
    if how == "list":
        return draw(st.sampled_from([None, made[0], "turns", []]))
    at = draw(st.integers(0, len(made) - 1))
    if how == "turn":
        made[at] = draw(WEIRD)
    else:
        fields = [made[at].id, made[at].speaker, made[at].text, made[at].image_caption]
        fields[draw(st.integers(0, 3))] = draw(st.one_of(WEIRD, LONG_TEXT, st.sampled_from(["b1", "n0"])))
        made[at] = Turn(*fields)
    return made


@st.composite
def session_calls(draw: st.DrawFn) -> dict[str, Any]:
    """An ``add_session`` call against a namespace whose episode "dialogue" holds session "s0" (turns b1, b2)."""
    bad = _bad_part(draw, ("namespace", "session", "turns", "started_at", "ended_at", "episode"))
    return {
        "namespace": draw(st.sampled_from([None, " ", "n\udfff"])) if bad == "namespace" else "ok",
        "session": draw(st.one_of(WEIRD, st.just("s0"))) if bad == "session" else draw(st.sampled_from(["s1", "s2"])),
        "turns": draw(turns(bad == "turns")),
        "started_at": draw(STARTS) if bad == "started_at" else draw(st.sampled_from([DAY + timedelta(days=1), DAY + timedelta(days=30)])),
        "ended_at": draw(STARTS) if bad == "ended_at" else None,
        "episode": draw(WEIRD) if bad == "episode" else draw(st.sampled_from(["dialogue", "other"])),
    }


# ---------------------------------------------------------------------------------------- outcomes


def _named(exc: BaseException) -> str | None:
    """The field or argument a refusal names (asserting it names one where it must)."""
    assert isinstance(exc, REFUSALS), f"{type(exc).__name__} is no refusal: {exc}"
    if isinstance(exc, InvalidRecordError):
        assert exc.field and f"'{exc.field}'" in str(exc) and exc.where, str(exc)
        return exc.field
    if isinstance(exc, InvalidArgumentError):
        assert exc.argument and str(exc).startswith(exc.argument), str(exc)
        return exc.argument
    assert str(exc), type(exc).__name__
    return None


def outcome(mem: Memory, watched: list[str], call: Callable[[Memory], Any]) -> tuple[Any, ...]:
    """("refused", error, field) or ("done", result summary); a refusal must leave ``watched`` as it was."""
    before = {namespace: mem.store.counts(namespace) for namespace in watched}
    try:
        result = call(mem)
    except (GraphmemError, ValueError) as exc:
        named = _named(exc)
        assert {namespace: mem.store.counts(namespace) for namespace in watched} == before, f"refused with {exc!r}, yet written"
        return ("refused", type(exc).__name__, named)
    return ("done", result)


def same_everywhere(memories: Memories, watched: list[str], call: Callable[[Memory], Any]) -> dict[str, tuple[Any, ...]]:
    """The call's outcome on every backend, asserted equal."""
    found = {backend: outcome(memories.by_backend[backend], watched, call) for backend in BACKENDS}
    assert len(set(map(repr, found.values()))) == 1, found
    first = found[BACKENDS[0]]
    event("done" if first[0] == "done" else f"refused: {first[1]} {first[2]}")  # --hypothesis-show-statistics
    return found


def _steps_of(call: dict[str, Any]) -> Any:
    built = [Step(**kwargs) for kwargs in call["steps"]]
    shape = call["container"]
    if shape == "tuple":
        return tuple(built)
    if shape == "bare":
        return built[0]
    if shape == "none":
        return None
    if shape == "generator":
        return (step for step in built)
    if shape == "text":
        return "steps"
    return built


def _reads_after_steps(mem: Memory, namespace: str) -> tuple[Any, ...]:
    evidence = mem.recall(namespace, "what did I do right after I collected wood?", budget=120)
    assert evidence.tokens <= 120
    hits = mem.search(namespace, "wood table", k=5)
    assert all(isinstance(hit.source_id, str) for hit in hits)
    read = mem.answer(namespace, {"op": "read", "slot": "action", "anchor": {"op": "step_at", "t": 1}})
    mem.answer(namespace, "how many times did I collect wood?")
    return (read.text, mem.stats(namespace))


def _reads_after_sessions(mem: Memory, namespace: str) -> tuple[Any, ...]:
    evidence = mem.recall(namespace, "what did Maya adopt?", budget=100, config=NO_EXPANSION)
    assert evidence.tokens <= 100
    answer = mem.answer(namespace, "when did they hike?", budget=80, config=NO_EXPANSION)
    return (answer.text, mem.stats(namespace))


# ---------------------------------------------------------------------------------------- writes

BASE_STEPS = [Step(0, "collect wood", events=(Event("collect", "wood"), Event("gain", "wood")), inventory=(("wood", 1),)),
              Step(1, "noop", inventory=(("wood", 1),)),
              Step(2, "place table", events=(Event("place", "table"), Event("consume", "wood")), location=Location((1, 2), "forest"))]
BASE_TURNS = [Turn("b1", "Maya", "I adopted a dog named Pepper."), Turn("b2", "Sam", "That is wonderful news!")]


@PROPERTY
@given(call=step_calls())
def test_arbitrary_steps_are_refused_by_field_or_written_alike(memories: Memories, call: dict[str, Any]) -> None:
    namespace = memories.fresh("bound-steps")
    for mem in memories.by_backend.values():
        mem.add_steps(namespace, "run", BASE_STEPS)
    target = namespace if call["namespace"] == "ok" else call["namespace"]

    def add(mem: Memory) -> Any:
        return mem.add_steps(target, call["episode"], _steps_of(call))

    found = same_everywhere(memories, [namespace], add)
    if found["neo4j"][0] == "done":
        reads = {backend: _reads_after_steps(memories.by_backend[backend], namespace) for backend in BACKENDS}
        assert len(set(map(repr, reads.values()))) == 1, reads


@PROPERTY
@given(call=session_calls())
def test_arbitrary_sessions_are_refused_by_field_or_written_alike(memories: Memories, call: dict[str, Any]) -> None:
    namespace = memories.fresh("bound-chat")
    for mem in memories.by_backend.values():
        mem.add_session(namespace, "s0", BASE_TURNS, started_at=DAY)
    target = namespace if call["namespace"] == "ok" else call["namespace"]

    def add(mem: Memory) -> Any:
        return mem.add_session(target, call["session"], call["turns"], call["started_at"], call["ended_at"], episode_id=call["episode"])

    found = same_everywhere(memories, [namespace], add)
    if found["neo4j"][0] == "done":
        counts = {backend: _reads_after_sessions(memories.by_backend[backend], namespace) for backend in BACKENDS}
        assert len(set(map(repr, counts.values()))) == 1, counts


# ---------------------------------------------------------------------------------------- reads


@pytest.fixture(scope="module")
def stored(memories: Memories) -> dict[str, str]:
    """A trajectory and a dialogue namespace, the same on every backend, that the reader tests only read."""
    found = {"steps": memories.fresh("bound-read"), "chat": memories.fresh("bound-read-chat"), "missing": memories.fresh("bound-none")}
    for mem in memories.by_backend.values():
        mem.add_steps(found["steps"], "run", BASE_STEPS)
        mem.add_session(found["chat"], "s0", BASE_TURNS, started_at=DAY)
    return found


def _query(kind: str) -> Any:
    if kind == "big condition":
        return Read(Reached(Condition("inventory", "wood", ">=", 2**70)), "step")
    if kind == "surrogate condition":
        return Read(Reached(Condition("state", "mode", "==", "a\ud800")), "step")
    if kind == "step":
        return Read(StepAt(2), "action")
    if kind == "json":
        return {"op": "count", "pattern": {"kind": "collect", "obj": "wood"}}
    if kind == "bad json":
        return {"op": "count", "pattern": {"kind": 5}}
    return {"op": "read", "slot": "action", "anchor": {"op": "step_at", "t": 2**63}}


QUESTIONS = mostly(
    st.one_of(st.sampled_from(["what did I do after I collected wood?", "what did Maya adopt?", "how many times did I collect wood?"]),
              st.text(min_size=1, max_size=30), st.just("z" * 20_000),
              st.sampled_from(["step", "json", "big condition"]).map(lambda k: ("query", k))),
    st.one_of(ODD_TEXT, SURROGATES, WEIRD, st.just("q" * 20_001),
              st.sampled_from(["surrogate condition", "bad json", "huge json"]).map(lambda k: ("query", k))),
)
OPTION_VALUES = st.one_of(st.booleans(), st.sampled_from(["compact", "full", "run", "s0"]), WEIRD)
#: RecallConfig fields and ``episode``, or ``config`` itself given something that is no RecallConfig.
OPTIONS = st.dictionaries(
    st.sampled_from(["use_anchors", "use_chain", "use_frames", "use_boxes", "use_traces", "episode", "context", "config"]),
    OPTION_VALUES, max_size=2,
)


def recall_arguments(options: dict[str, Any]) -> dict[str, Any]:
    """``recall``'s and ``answer``'s keyword arguments for generated options: the config is built here,
    in the call, so that a bad field is refused like any other bad argument."""
    fields = {k: v for k, v in options.items() if k not in ("episode", "config")}
    # A config that is None is the memory's own, which expands rare words: read without expansion instead.
    config = options.get("config")
    arguments: dict[str, Any] = {"config": RecallConfig(**fields, use_expansion=False) if config is None else config}
    if "episode" in options:
        arguments["episode"] = options["episode"]
    return arguments


@st.composite
def read_calls(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "method": draw(st.sampled_from(["search", "recall", "answer", "stats"])),
        "namespace": draw(mostly(st.sampled_from(["steps", "chat", "missing"]), st.sampled_from([None, "", " ", 7, "n\ud800"]))),
        "question": draw(QUESTIONS),
        "k": draw(mostly(st.integers(0, 12), WEIRD)),
        "budget": draw(mostly(st.integers(1, 300), WEIRD)),
        "options": draw(OPTIONS),
    }


@PROPERTY
@given(call=read_calls())
def test_arbitrary_call_arguments_are_refused_by_name_or_answered_alike(memories: Memories, stored: dict[str, str],
                                                                         call: dict[str, Any]) -> None:
    name = "steps" if call["method"] == "search" and call["namespace"] == "chat" else call["namespace"]  # see the module doc
    namespace = stored.get(name, name) if isinstance(name, str) else name
    question = call["question"]

    def read(mem: Memory) -> Any:
        asked = _query(question[1]) if isinstance(question, tuple) and question[:1] == ("query",) else question
        if call["method"] == "search":
            return len(mem.search(namespace, asked, k=call["k"]))
        if call["method"] == "recall":
            evidence = mem.recall(namespace, asked, budget=call["budget"], **recall_arguments(call["options"]))
            assert evidence.tokens <= call["budget"]
            return None
        if call["method"] == "answer":
            answer = mem.answer(namespace, asked, budget=call["budget"], **recall_arguments(call["options"]))
            # The executor's answer to a structured query comes from the decisive steps: alike everywhere.
            return answer.text if not isinstance(asked, str) else None
        return mem.stats(namespace)

    same_everywhere(memories, [stored["steps"], stored["chat"]], read)


FORGET_IDS = mostly(st.sampled_from([None, None, "run", "dialogue", "s0", "s1", "s9"]), WEIRD)


@settings(PROPERTY, max_examples=15)
@given(namespace=mostly(st.just("ok"), st.sampled_from([None, "", 3, "n\ud800"])), episode=FORGET_IDS, session=FORGET_IDS)
def test_arbitrary_forget_arguments_are_refused_by_name_or_forgotten_alike(memories: Memories, namespace: Any, episode: Any,
                                                                           session: Any) -> None:
    fresh = memories.fresh("bound-forget")
    for mem in memories.by_backend.values():
        mem.add_steps(fresh, "run", BASE_STEPS)
        mem.add_session(fresh, "s0", BASE_TURNS, started_at=DAY)
        mem.add_session(fresh, "s1", [Turn("c1", "Sam", "See you at the lake.")], started_at=DAY + timedelta(days=7))
    target = fresh if namespace == "ok" else namespace
    found = same_everywhere(memories, [fresh], lambda mem: mem.forget(target, episode=episode, session=session))
    if found["neo4j"][0] == "done" and memories.by_backend["neo4j"].stats(fresh):
        counts = {backend: _reads_after_sessions(memories.by_backend[backend], fresh) for backend in BACKENDS}
        assert len(set(map(repr, counts.values()))) == 1, counts


# ---------------------------------------------------------------------------------------- fixed cases


def test_a_session_id_is_namespace_wide(memories: Memories) -> None:
    namespace = memories.fresh("bound-scope")
    for mem in memories.by_backend.values():
        mem.add_session(namespace, "s0", BASE_TURNS, started_at=DAY)
        before = mem.stats(namespace)
        with pytest.raises(ConflictError, match="session ids are namespace-wide"):
            mem.add_session(namespace, "s0", BASE_TURNS, started_at=DAY, episode_id="other")
        assert mem.stats(namespace) == before
        assert mem.add_session(namespace, "s0", BASE_TURNS, started_at=DAY).unchanged == 2  # its own episode: a no-op
        with mem.bulk() as bulk, pytest.raises(ConflictError, match="namespace-wide"):
            bulk.add_session(namespace, "s0", BASE_TURNS, started_at=DAY, episode_id="other")
        assert mem.stats(namespace) == before


def test_a_long_word_in_a_turn_is_kept_alike_and_not_linked_as_a_name(memories: Memories) -> None:
    # A 9,000-letter word became an Entity, whose key Neo4j's range index could not hold.
    namespace = memories.fresh("bound-word")
    text = "I met " + "Z" + "z" * 9_000 + " yesterday in Paris."
    counts = []
    for mem in memories.by_backend.values():
        assert mem.add_session(namespace, "s0", [Turn("t1", "Ann", text)], started_at=DAY).written == 1
        names = [node for node in mem.store.get_nodes(namespace, [f"entity:Z{'z' * 9_000}"])]
        assert names == []
        counts.append(_reads_after_sessions(mem, namespace))
    assert counts[0] == counts[1] == counts[2]


def test_record_constructors_name_the_field() -> None:
    with pytest.raises(InvalidRecordError, match="objects.*'wood'"):
        Step(0, "a", objects="wood")  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="'events'.*for one, give"):
        Step(0, "a", events=Event("collect", "wood"))  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="'relations'"):
        Step(0, "a", relations=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="'inventory': names must be text"):
        Step(0, "a", inventory={None: 1})  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="'state': holds the name 'hp' twice"):
        Step(0, "a", state=[("hp", 1), ("hp", 2)])  # type: ignore[arg-type]
    with pytest.raises(InvalidRecordError, match="'t'.*16,610 bits"):
        Memory(store=EmbeddedStore(), embedder=HashEmbedder()).add_steps("ns", "run", [Step(10**5000, "a")])
