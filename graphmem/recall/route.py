"""Which memory a question is about, when a namespace holds both trajectories and dialogue.

An agent may log its steps and its chats into one namespace. A question is then read both ways:

1. a structured query (:mod:`graphmem.query`), or a namespace of one kind only: that kind's recall;
2. an ``episode`` named: the recall of that episode's kind;
3. otherwise the question is compiled against the trajectory's vocabulary
   (:func:`graphmem.recall.trajectory.recall_steps`). When it compiles into a trajectory query whose
   anchors resolve (a step was marked as an anchor, or a count, list or existence became a fact) and the
   query is grounded in the question (one of its event kinds, objects or item names is a word of the
   question, or it names a step by number), it is about the trajectory: trajectory evidence. The
   compiler matches words loosely ("like to" can read as the event "place"), hence the grounding;
4. otherwise the question goes where its nearest unit is: the best vector match among the steps and
   the best among the turns; a clearly nearer turn means dialogue evidence, a clearly nearer step
   trajectory evidence. When neither is clearly nearer (within ``NEAR_MARGIN``), both are packed
   together: the trajectory's evidence in half the budget, then the dialogue's in what is left, one
   text within the budget.

>>> from datetime import datetime, timezone
>>> from graphmem import Event, Memory, Step, Turn
>>> with Memory(path=":memory:") as mem:
...     _ = mem.add_steps("agent-1", "run-1", [Step(0, "collect wood", events=(Event("collect", "wood"),)), Step(1, "noop")])
...     _ = mem.add_session("agent-1", "chat-1", [Turn("c1", "Maya", "My dog Pepper loves the beach.")],
...                         started_at=datetime(2024, 3, 2, tzinfo=timezone.utc))
...     steps = mem.recall("agent-1", "when did I first collect wood?", budget=100)
...     turns = mem.recall("agent-1", "Where does Pepper like to go?", budget=100)
>>> steps.source_ids[0], turns.source_ids
('run-1:0', ('c1',))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from graphmem.recall.config import DEFAULT_RECALL_CONFIG, RecallConfig
from graphmem.recall.packer import Evidence
from graphmem.tokens import count_tokens

if TYPE_CHECKING:
    from graphmem.embed import Embedder
    from graphmem.query.algebra import Query
    from graphmem.query.llm import LlmCompiler
    from graphmem.recall.trajectory import StepRecall
    from graphmem.store.protocol import EpisodeRow, GraphStore

Kind = Literal["trajectory", "dialogue", "both"]
#: How much nearer (on the stores' vector score, (1 + cosine) / 2) one kind's best unit must be than the
#: other's for the question to count as about that kind alone.
NEAR_MARGIN = 0.02


@dataclass(frozen=True)
class Routed:
    """Evidence for a question, the kind of memory it came from, and the trajectory recall behind it
    (None for dialogue evidence): the executor answers from its query and bundle."""

    evidence: Evidence
    kind: Kind
    steps: StepRecall | None = None


def resolved(result: StepRecall) -> bool:
    """Whether a trajectory recall read its question as a query whose anchors resolved in the store."""
    if result.query is None:
        return False
    return bool(result.bundle.facts) or any(step.roles for step in result.bundle.steps)


def route_recall(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str | Query,
    budget: int,
    episodes: Sequence[EpisodeRow],
    config: RecallConfig = DEFAULT_RECALL_CONFIG,
    episode: str | None = None,
    query_compiler: LlmCompiler | None = None,
) -> Routed:
    """Evidence for ``question`` from the kind of memory it is about (see the module doc); ``episodes``
    are the namespace's Episode nodes, ``config`` says which stages run and how, ``episode`` names the
    trajectory or dialogue episode to read (None: the module doc's choice), ``query_compiler`` an LLM that
    compiles trajectory questions before the grammar (None: the grammar alone). A structured query in a
    namespace without a trajectory is a ``ValueError``."""
    from graphmem.recall.dialogue.recall import recall_turns
    from graphmem.recall.trajectory import recall_steps

    trajectories = [e for e in episodes if e.kind == "trajectory"]
    dialogues = [e for e in episodes if e.kind == "dialogue"]
    named = next((e for e in episodes if episode is not None and e.uid == episode), None)

    def steps(within: int) -> StepRecall:
        return recall_steps(
            store, embedder, namespace, question, within, episode=episode, use_anchors=config.use_anchors,
            use_chain=config.use_chain, episodes=trajectories, config=config.trajectory, query_compiler=query_compiler,
        )

    def turns(within: int) -> Evidence:
        assert isinstance(question, str)
        return recall_turns(
            store, embedder, namespace, question, within, use_frames=config.use_frames, use_boxes=config.use_boxes,
            use_traces=config.use_traces, use_expansion=config.use_expansion, episodes=dialogues,
            context=config.context, config=config.dialogue,
        )

    if not isinstance(question, str):
        if not trajectories:
            raise ValueError(f"namespace {namespace!r} holds no trajectory: a structured query needs one")
        result = steps(budget)
        return Routed(result.evidence, "trajectory", result)
    if named is not None and named.kind == "dialogue" or (dialogues and not trajectories):
        return Routed(turns(budget), "dialogue")
    result = steps(budget)
    if named is not None or not dialogues or (resolved(result) and grounded(question, result.query)):
        return Routed(result.evidence, "trajectory", result)
    nearer = nearest_kind(store, embedder, namespace, question)
    if nearer == "dialogue":
        return Routed(turns(budget), "dialogue")
    if nearer == "trajectory" or budget < 2:
        return Routed(result.evidence, "trajectory", result)
    # Unsure: pack the nearest of both.
    half = steps(budget // 2)
    return Routed(_together(half.evidence, turns, budget), "both", half)


def grounded(question: str, query: Query | None) -> bool:
    """Whether a compiled query rests on the question's own words: one of its event kinds, objects and
    item or state names shares a word with the question (or it names none, as a step number does).

    >>> from graphmem.query.algebra import Count, EventPattern
    >>> grounded("how many trees did I chop?", Count(EventPattern("chop", "tree"))), grounded("who came?", Count(EventPattern("place")))
    (True, False)
    """
    from graphmem.query.serialize import to_json
    from graphmem.store.text_index import analyze, stem_match

    if query is None:
        return False
    names: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("kind", "obj", "name", "action", "region") and isinstance(value, str):
                    names.extend(analyze(value))
                else:
                    collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(to_json(query))
    words = analyze(question)
    return not names or any(stem_match(name, word) for name in names for word in words)


def nearest_kind(store: GraphStore, embedder: Embedder, namespace: str, question: str) -> Kind:
    """"trajectory" or "dialogue" when the best vector match among that kind's units is nearer to the
    question than the other kind's by more than ``NEAR_MARGIN``; "both" otherwise."""
    vector = embedder.embed([question])[0]
    step_hits = store.vector(namespace, vector, 1, label="Step")
    turn_hits = store.vector(namespace, vector, 1, label="Turn")
    step = step_hits[0].score if step_hits else 0.0
    turn = turn_hits[0].score if turn_hits else 0.0
    if turn > step + NEAR_MARGIN:
        return "dialogue"
    if step > turn + NEAR_MARGIN:
        return "trajectory"
    return "both"


def _together(first: Evidence, second_within: Callable[[int], Evidence], budget: int) -> Evidence:
    """``first`` and then the evidence ``second_within(tokens)`` packs in what is left, as one text
    within ``budget`` (the joining newline can merge tokens, so the text is counted as a whole)."""
    room = budget - first.tokens - 1
    while True:
        second: Evidence = second_within(room) if room >= 1 else Evidence((), "", 0, 0)
        text = "\n".join(t for t in (first.text, second.text) if t)
        tokens = count_tokens(text)
        if tokens <= budget or room < 1:
            break
        room -= tokens - budget
    return dataclasses.replace(
        first,
        source_ids=first.source_ids + second.source_ids,
        text=text,
        tokens=tokens,
        budget=budget,
        lines=first.lines + second.lines,
    )
