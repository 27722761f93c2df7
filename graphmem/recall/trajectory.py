"""Query-aware recall over agent trajectories (S3Mem).

1. Compile the question into the trajectory query algebra against the memory's own vocabulary
   (:func:`graphmem.query.grammar.compile_question`), or take a structured query as given.
2. Resolve it in the store: every anchor with one index read, every count, list or existence as a fact
   (:func:`graphmem.query.resolve.resolve`).
3. Rank candidates by anchor fit, chain support and text similarity: the decisive steps first, then the
   trajectory around them (one range read on the step index). Without a resolved anchor, full-text and
   vector matches, searched side by side, are the candidates.
4. Pack greedily under the budget: the facts, then one short line per step with only the fields the
   question needs and the note of the anchor it resolved.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graphmem.embed import Embedder
from graphmem.query.algebra import Condition, EventPattern, Query, Read
from graphmem.query.answers import (
    PackedStep,
    QueryEvidence,
    facing_of,
    format_inventory,
    format_scalar,
)
from graphmem.query.lexicon import Lexicon
from graphmem.query.llm import LlmCompiler, compile_with_fallback
from graphmem.query.resolve import Resolution, readings, resolve
from graphmem.query.serialize import to_json
from graphmem.recall.fusion import rrf
from graphmem.recall.packer import Evidence, PackItem, pack
from graphmem.recall.parallel import together
from graphmem.records import Step
from graphmem.store.protocol import EpisodeRow, GraphStore, StepRow
from graphmem.store.text_index import content_terms
from graphmem.write.steps import step_from_json, step_uid

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrajectoryRecallConfig:
    """Tuning of trajectory recall."""

    #: Around a resolved anchor, this many steps before and after are candidates: offset and transition
    #: questions need the steps around the anchor, and more than a few rarely fit 150 tokens anyway.
    neighbourhood: int = 4
    #: Content candidates fetched from each of full-text and vector search when no anchor resolved.
    candidates: int = 30
    #: Rerank weights (S3Mem's s_anchor + s_chain + s_text): anchor fit dominates because removing anchor
    #: retrieval costs S3Mem the most accuracy; chain support next, since offset questions fail without
    #: the steps around the anchor; text similarity only orders the remainder.
    w_anchor: float = 1.0
    w_chain: float = 0.5
    w_text: float = 0.25
    #: At most this many events are written on one step's line (those the query names first).
    events_per_line: int = 4


DEFAULT_CONFIG = TrajectoryRecallConfig()


@dataclass(frozen=True)
class StepRecall:
    evidence: Evidence
    bundle: QueryEvidence
    query: Query | None
    episode: str | None


def lexicon_of(episode: EpisodeRow | None, embedder: Embedder | None = None) -> Lexicon:
    """The question compiler's lexicon, from the episode node's write-time summary."""
    data = json.loads(episode.vocab or "{}") if episode else {}
    return Lexicon(
        pairs=frozenset((str(k), str(o)) for k, o in data.get("event_pairs", [])),
        items=frozenset(data.get("inventory_items", [])),
        states=frozenset(data.get("state_names", [])),
        regions=frozenset(data.get("regions", [])),
        actions=frozenset(data.get("actions", [])),
        state_values=frozenset((str(n), str(v)) for n, v in data.get("state_values", [])),
        flags=frozenset(data.get("flags", [])),
        kind_actions=frozenset((str(k), str(a), int(n)) for k, a, n in data.get("kind_actions", [])),
        pair_effects=frozenset((str(k), str(o), int(g), int(lo)) for k, o, g, lo in data.get("pair_effects", [])),
        state_effects=frozenset((str(k), str(n), int(r), int(f)) for k, n, r, f in data.get("state_effects", [])),
        aliases=dict(data.get("aliases", {})),
        embed=embedder.embed if embedder is not None else None,
    )


def pick_episode(episodes: Sequence[EpisodeRow], episode: str | None) -> EpisodeRow | None:
    trajectories = [e for e in episodes if e.kind == "trajectory"]
    if episode is not None:
        return next((e for e in trajectories if e.uid == episode), None)
    # A namespace is one agent's memory; without an explicit episode, questions are about its latest one.
    return trajectories[-1] if trajectories else None


def _parse(rows: Mapping[int, StepRow]) -> dict[int, Step]:
    return {t: step_from_json(row.payload) for t, row in rows.items()}


def _line(step: Step, query: Query | None, notes: Sequence[str], resolution: Resolution | None, config: TrajectoryRecallConfig) -> str:
    """One short line: the step index first, then only the fields the question needs."""
    parts = [f"[{step.t}] {step.action}"]
    patterns: tuple[EventPattern, ...] = resolution.patterns if resolution else ()
    named = [e for e in step.events if any(p.matches(e.kind, e.obj) for p in patterns)]
    others = [e for e in step.events if e not in named]
    shown = (named + others)[: config.events_per_line]
    if shown:
        parts.append(", ".join(f"{e.kind} {e.obj}".strip() for e in shown))
    elif step.summary and (query is None or isinstance(query, Read) and query.slot in ("action", "events")):
        parts.append(step.summary)
    conditions: tuple[Condition, ...] = resolution.conditions if resolution else ()
    for c in conditions:
        value = (step.inventory_dict.get(c.name, 0) if c.source == "inventory" else step.state_dict.get(c.name))
        parts.append(f"{c.name}={format_scalar(value) if value is not None else '?'}")
    if isinstance(query, Read):
        slot, name = query.slot, query.name
        if slot == "item" and name:
            parts.append(f"{name}={step.inventory_dict.get(name, 0)}")
        elif slot == "state" and name:
            value = step.state_dict.get(name)
            parts.append(f"{name}={format_scalar(value) if value is not None else '?'}")
        elif slot == "inventory":
            parts.append(f"inv: {format_inventory(step)}")
        elif slot in ("location", "position"):
            where = step.location.describe()
            if where:
                parts.append(f"at {where}")
        elif slot in ("facing", "object"):
            facing = facing_of(step)
            if facing:
                parts.append(f"facing {facing}")
        elif slot == "observation" and step.observation:
            parts.append(f"saw: {step.observation}")
        elif slot == "events" and len(step.events) > len(shown):
            parts[1] = "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events)
    elif query is None:
        where = step.location.describe()
        if where:
            parts.append(f"at {where}")
    if notes:
        parts.append("<- " + "; ".join(n for n in notes if n) if any(notes) else "")
    return " | ".join(p for p in parts if p)


def _rerank(step: Step, t: int, marks: Sequence[int], patterns: Sequence[EventPattern], s_text: float, use_chain: bool,
            config: TrajectoryRecallConfig) -> float:
    """S3Mem's rerank score: anchor fit + chain support + text similarity."""
    s_anchor = 1.0 if any(p.matches(e.kind, e.obj) for p in patterns for e in step.events) else 0.0
    s_chain = max((1.0 / (1.0 + abs(t - m)) for m in marks), default=0.0) if use_chain else 0.0
    return config.w_anchor * s_anchor + config.w_chain * s_chain + config.w_text * s_text


def recall_steps(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str | Query,
    budget: int,
    episode: str | None = None,
    use_anchors: bool = True,
    use_chain: bool = True,
    episodes: Sequence[EpisodeRow] | None = None,
    config: TrajectoryRecallConfig = DEFAULT_CONFIG,
    query_compiler: LlmCompiler | None = None,
) -> StepRecall:
    """Evidence for a question (text, or a compiled :mod:`graphmem.query` query) about a trajectory.

    ``episodes`` (the namespace's episode nodes) saves a read when the caller already has them;
    ``use_anchors=False`` and ``use_chain=False`` are the ablations of anchor resolution and chain support;
    ``query_compiler`` (an OpenAI-compatible endpoint) compiles text questions first, the grammar being
    the fallback on any failure.
    """
    ep_node = pick_episode(store.episode_nodes(namespace, kind="trajectory") if episodes is None else episodes, episode)
    if ep_node is None:
        return StepRecall(pack([], budget), QueryEvidence(), None, None)
    ep = ep_node.uid
    last_t = ep_node.last_t if ep_node.last_t is not None else 0
    lexicon: Lexicon | None = None
    if isinstance(question, str):
        lexicon = lexicon_of(ep_node, embedder)
        query = compile_with_fallback(question, lexicon, last_t, query_compiler) if use_anchors else None
        text = question
    else:
        query = question if use_anchors else None
        text = _query_text(question)
    resolution = resolve(store, namespace, ep, last_t, query) if query is not None else None
    if resolution is not None and query is not None and not resolution.complete and lexicon is not None:
        # The words were read one way; the memory may hold the step another reading of them names.
        for reading in readings(query, lexicon.pairs):
            tried = resolve(store, namespace, ep, last_t, reading)
            if tried.complete:
                query, resolution = reading, tried
                break
    decisive = list(resolution.decisive) if resolution else []
    notes: dict[int, list[str]] = {}
    roles: dict[int, list[str]] = {}
    for mark in resolution.marks if resolution else ():
        notes.setdefault(mark.t, []).append(mark.note)
        roles.setdefault(mark.t, []).append(mark.role)
    patterns = resolution.patterns if resolution else ()
    # the neighbourhood of the anchors; of the counted or listed steps when a window question has none
    mark_ts = ([m.t for m in resolution.marks] or list(resolution.support)) if resolution else []

    if mark_ts:
        lo, hi = max(min(mark_ts) - config.neighbourhood, 0), min(max(mark_ts) + config.neighbourhood, last_t)
        near = sorted({t for m in mark_ts for t in range(max(m - config.neighbourhood, 0), min(m + config.neighbourhood, last_t) + 1)})
        parsed = _parse(store.steps_at(namespace, ep, list(dict.fromkeys(decisive + near))))
        scored = [(_rerank(parsed[t], t, mark_ts, patterns, 0.0, use_chain, config), t) for t in near if t in parsed and lo <= t <= hi]
    else:
        fulltext, vector = together(
            lambda: store.fulltext(namespace, " ".join(content_terms(text)), config.candidates, with_props=True),
            lambda: store.vector(namespace, embedder.embed([text])[0], config.candidates, label="Step", with_props=True),
        )
        fused = rrf([[h.key for h in fulltext], [h.key for h in vector]])
        top_text = fused[0][1] if fused else 1.0
        # Full-text search reads turns too (a namespace may hold a dialogue): only this episode's steps count.
        candidates = {h.key: h.node for h in (*fulltext, *vector) if isinstance(h.node, StepRow)}
        parsed = {}
        scored = []
        for key, text_score in fused:
            row = candidates.get(key)
            if row is None or row.episode != ep:
                continue
            t = row.t
            parsed[t] = step_from_json(row.payload)
            scored.append((_rerank(parsed[t], t, [], patterns, text_score / top_text, use_chain, config), t))
    ranked = [t for _, t in sorted(scored, key=lambda x: (-x[0], x[1]))]
    order = list(dict.fromkeys(decisive + ranked))
    missing = [t for t in order if t not in parsed]
    if missing:
        parsed.update(_parse(store.steps_at(namespace, ep, missing)))

    items: list[PackItem] = [PackItem("", fact.line, order=-1.0) for fact in (resolution.facts if resolution else ())]
    packed_steps: dict[str, PackedStep] = {}
    for t in order:
        if t not in parsed:
            continue
        uid = step_uid(ep, t)
        items.append(PackItem(uid, _line(parsed[t], query, notes.get(t, []), resolution, config), order=float(t)))
        packed_steps[uid] = PackedStep(uid, t, parsed[t], tuple(roles.get(t, [])))
    evidence = pack(items, budget)
    if query is not None:
        evidence = dataclasses.replace(evidence, query=to_json(query))
    taken_lines = {line for _, line in evidence.lines}
    facts = tuple(f for f in (resolution.facts if resolution else ()) if f.line in taken_lines)
    bundle = QueryEvidence(tuple(packed_steps[s] for s in evidence.source_ids if s in packed_steps), facts)
    return StepRecall(evidence, bundle, query, ep)


def _query_text(query: Query) -> str:
    """Words for content search when a structured query's anchors name nothing."""
    return json.dumps(to_json(query))
