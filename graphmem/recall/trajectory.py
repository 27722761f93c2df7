"""Anchor-aware recall over agent trajectories (S3Mem).

1. Parse the question's anchors against the memory's own vocabulary (``anchors.parse_anchors``).
2. Realize them with index lookups: the n-th/last occurrence of an event, the step at an offset, the
   latest event before a bound.
3. Gather candidates and rerank them by anchor fit, chain support and text similarity. When the anchor
   resolved to a step, the candidates are the decisive steps and the trajectory around them (one index
   seek on the step index): nothing a text search could add ranks above them. Otherwise full-text and
   vector matches, searched side by side, are the candidates.
4. Pack greedily under the budget, one short line per step with only the fields the question needs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.embed import Embedder
from graphmem.recall.anchors import Anchors, Vocabulary, parse_anchors
from graphmem.recall.executor import EvidenceBundle, EvidenceStep
from graphmem.recall.fusion import rrf
from graphmem.recall.packer import Evidence, PackItem, pack
from graphmem.recall.parallel import together
from graphmem.records import Step
from graphmem.store.protocol import GraphStore, node_key
from graphmem.store.text_index import content_terms
from graphmem.write.steps import step_from_json, step_uid

log = logging.getLogger(__name__)

# Rerank weights (S3Mem's s_anchor + s_chain + s_text). Anchor fit dominates because removing anchor
# retrieval costs S3Mem the most accuracy; chain support comes next because offset and transition
# questions fail without the steps around the anchor; text similarity only orders the remainder.
W_ANCHOR = 1.0
W_CHAIN = 0.5
W_TEXT = 0.25
#: Offsets up to this many steps pull in every step between anchor and target (the chain); longer
#: offsets take only the two ends, since the steps between rarely decide anything.
CHAIN_SPAN = 3
#: Content candidates fetched from each of full-text and vector search.
CANDIDATES = 30
#: Around a resolved anchor, the steps this far before the anchor and after the target are candidates.
NEIGHBOURHOOD = 8

NO_ANCHORS = Anchors(
    target_step=None, occurrence=None, offset=0, slot="unknown", slot_arg=None, count_until=None, count_pair=None
)


@dataclass(frozen=True)
class StepRecall:
    evidence: Evidence
    bundle: EvidenceBundle
    anchors: Anchors
    episode: str | None


def vocabulary_of(episode: dict[str, Any] | None) -> Vocabulary:
    """The anchor parser's vocabulary, from the episode node's write-time summary."""
    data = json.loads(episode.get("vocab", "{}")) if episode else {}
    return Vocabulary(
        event_pairs=frozenset((k, o) for k, o in data.get("event_pairs", [])),
        objects=frozenset(data.get("objects", [])),
        regions=frozenset(data.get("regions", [])),
        inventory_items=frozenset(data.get("inventory_items", [])),
        state_names=frozenset(data.get("state_names", [])),
    )


def _pick_episode(episodes: Sequence[dict[str, Any]], episode: str | None) -> dict[str, Any] | None:
    trajectories = [e for e in episodes if e.get("kind") == "trajectory"]
    if episode is not None:
        return next((e for e in trajectories if e["uid"] == episode), None)
    # A namespace is one agent's memory; without an explicit episode, questions are about its latest one.
    return trajectories[-1] if trajectories else None


def _resolve_anchor(store: GraphStore, ns: str, ep: str, anchors: Anchors) -> tuple[int | None, dict[tuple[str, str], int], tuple[str, str] | None]:
    """The anchor step index, the event totals the evidence must state, and the anchor (kind, obj)."""
    totals: dict[tuple[str, str], int] = {}
    if anchors.count_pair is not None and anchors.count_until is not None:
        kind, obj = anchors.count_pair
        row = store.latest_event_until(ns, ep, kind, obj, anchors.count_until)
        return (row.t if row else None), totals, anchors.count_pair
    if anchors.occurrence is not None:
        occ = anchors.occurrence
        ordinal = occ.ordinal
        if ordinal < 0:
            total = store.event_total(ns, ep, occ.kind, occ.obj)
            totals[(occ.kind, occ.obj)] = total
            ordinal = total + 1 + ordinal
        row = store.occurrence(ns, ep, occ.kind, occ.obj, ordinal) if ordinal >= 1 else None
        return (row.t if row else None), totals, (occ.kind, occ.obj)
    if anchors.target_step is not None:
        return anchors.target_step, totals, None
    return None, totals, None


def _line(step: Step, ordinals: dict[tuple[str, str], int], anchors: Anchors, pair: tuple[str, str] | None) -> str:
    """One short line: the step index first, then only the fields the question needs."""
    parts = [f"[{step.t}] {step.action}"]
    shown = [e for e in step.events if e.kind not in ("gain", "lose", "consume") or (e.kind, e.obj) == pair]
    if shown:
        evs = []
        for e in shown:
            text = f"{e.kind} {e.obj}".strip()
            if (e.kind, e.obj) in ordinals:
                text += f" #{ordinals[(e.kind, e.obj)]}"
            evs.append(text)
        parts.append(", ".join(evs))
    elif step.summary and anchors.slot in ("unknown", "events", "action"):
        parts.append(step.summary)
    slot, arg = anchors.slot, anchors.slot_arg
    if slot == "inventory" and arg:
        parts.append(f"{arg}={step.inventory_dict.get(arg, 0)}")
    elif slot == "state" and arg:
        parts.append(f"{arg}={step.state_dict.get(arg, '?')}")
    elif slot in ("location", "position", "unknown"):
        where = step.location.describe()
        if where:
            parts.append(f"at {where}")
    elif slot == "facing":
        facing = [r.obj for r in step.relations if r.predicate == "facing"]
        if facing:
            parts.append(f"facing {facing[0]}")
    return " | ".join(parts)


def _parse(nodes: dict[int, dict[str, Any]]) -> dict[int, Step]:
    """Step records from step nodes (their JSON payload), by step index."""
    return {t: step_from_json(props["payload"]) for t, props in nodes.items()}


def _rerank(step: Step, t: int, anchor_t: int | None, pair: tuple[str, str] | None, s_text: float, use_chain: bool) -> float:
    """S3Mem's rerank score: W_ANCHOR * s_anchor + W_CHAIN * s_chain + W_TEXT * s_text."""
    s_anchor = 0.0
    if pair is not None:
        if any((e.kind, e.obj) == pair for e in step.events):
            s_anchor = 1.0
        elif pair[1] and (pair[1] in step.objects or any(e.obj == pair[1] for e in step.events)):
            s_anchor = 0.5
    s_chain = 1.0 / (1.0 + abs(t - anchor_t)) if (use_chain and anchor_t is not None) else 0.0
    return W_ANCHOR * s_anchor + W_CHAIN * s_chain + W_TEXT * s_text


def recall_steps(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str,
    budget: int,
    episode: str | None = None,
    use_anchors: bool = True,
    use_chain: bool = True,
    episodes: Sequence[dict[str, Any]] | None = None,
) -> StepRecall:
    """Evidence for a question about an agent's trajectory. See the module docstring for the stages.

    ``episodes`` (the namespace's episode nodes) saves a read when the caller already has them.
    """
    ep_node = _pick_episode(store.episode_nodes(namespace, kind="trajectory") if episodes is None else episodes, episode)
    if ep_node is None:
        return StepRecall(pack([], budget), EvidenceBundle((), ()), NO_ANCHORS, None)
    ep = str(ep_node["uid"])
    anchors = parse_anchors(question, vocabulary_of(ep_node)) if use_anchors else NO_ANCHORS
    anchor_t, totals, pair = _resolve_anchor(store, namespace, ep, anchors)
    last_t = int(ep_node.get("last_t", 0))

    decisive: list[int] = []
    if anchor_t is not None:
        target_t = anchor_t + anchors.offset
        decisive = [anchor_t] if target_t == anchor_t else [anchor_t, target_t]
        if use_chain and 0 < abs(anchors.offset) <= CHAIN_SPAN:
            lo, hi = sorted((anchor_t, target_t))
            decisive += [t for t in range(lo + 1, hi)]
    decisive = [t for t in dict.fromkeys(decisive) if 0 <= t <= last_t]

    if anchor_t is not None:
        # The anchor is an index hit: rank its neighbourhood by anchor fit and chain support.
        lo, hi = sorted((anchor_t, anchor_t + anchors.offset))
        window = [t for t in range(lo - NEIGHBOURHOOD, hi + NEIGHBOURHOOD + 1) if 0 <= t <= last_t]
        parsed = _parse(store.steps_at(namespace, ep, list(dict.fromkeys(decisive + window))))
        scored: list[tuple[float, int]] = [(_rerank(parsed[t], t, anchor_t, pair, 0.0, use_chain), t) for t in window if t in parsed]
    else:
        # No step to start from: full-text and vector matches (searched side by side) are the candidates.
        fulltext, vector = together(
            lambda: store.fulltext(namespace, " ".join(content_terms(question)), CANDIDATES, with_props=True),
            lambda: store.vector(namespace, embedder.embed([question])[0], CANDIDATES, label="Step", with_props=True),
        )
        fused = rrf([[h.key for h in fulltext], [h.key for h in vector]])
        top_text = fused[0][1] if fused else 1.0
        candidate_nodes = {h.key: dict(h.props) for h in (*fulltext, *vector) if h.props is not None}
        parsed = {}
        scored = []
        for key, text_score in fused:
            props = candidate_nodes.get(key)
            if not props or props.get("episode") != ep or "t" not in props:
                continue
            t = int(props["t"])
            parsed[t] = step_from_json(props["payload"])
            scored.append((_rerank(parsed[t], t, None, pair, text_score / top_text, use_chain), t))
    ranked_ts = [t for _, t in sorted(scored, key=lambda x: (-x[0], x[1]))]
    order = list(dict.fromkeys(decisive + ranked_ts))
    missing = [t for t in order if t not in parsed]
    if missing:
        parsed.update(_parse(store.steps_at(namespace, ep, missing)))
    ordinal_of: dict[int, dict[tuple[str, str], int]] = {}
    if pair is not None:
        events = store.events_of(namespace, [node_key("Step", step_uid(ep, t)) for t in order if t in parsed])
        for row in events:
            if (row.kind, row.obj) == pair:
                ordinal_of.setdefault(row.t, {})[(row.kind, row.obj)] = row.ordinal
    items: list[PackItem] = []
    header = ""
    if totals:
        header = "; ".join(f"{k} {o}: {n} {'time' if n == 1 else 'times'} in all" for (k, o), n in sorted(totals.items()))
        items.append(PackItem("", header, order=-1.0))
    steps: dict[str, EvidenceStep] = {}
    for t in order:
        if t not in parsed:
            continue
        step = parsed[t]
        ords = ordinal_of.get(t, {})
        uid = step_uid(ep, t)
        items.append(PackItem(uid, _line(step, ords, anchors, pair), order=float(t)))
        steps[uid] = EvidenceStep(uid, ep, t, step, tuple((k, o, n) for (k, o), n in sorted(ords.items())))
    evidence = pack(items, budget)
    packed = tuple(steps[s] for s in evidence.source_ids if s in steps)
    if totals and header not in evidence.text:
        totals = {}
    bundle = EvidenceBundle(packed, tuple((k, o, n) for (k, o), n in sorted(totals.items())))
    return StepRecall(evidence, bundle, anchors, ep)

