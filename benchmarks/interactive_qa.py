"""Interactive-QA benchmark (S3Mem): graphmem vs vanilla RAG vs recent steps, at fixed token budgets.

    python benchmarks/interactive_qa.py --seeds 0 1 2 --steps 1500 --budgets 150 300 600

For each environment rollout it generates questions per family with gold answers and gold step ids
from the ground-truth records (``benchmarks/generated_questions.py``), then packs evidence with every
system at each budget and reports, per family: gold-step recall, all-gold rate, executor exact match
(the deterministic executor of :mod:`graphmem.query.answers` reading only the packed evidence), and mean
tokens. Prints a table and writes JSON.

graphmem systems answer through their own pipeline: ``recall_steps`` compiles the question against the
memory and resolves it, and ``graphmem.query.answers.answer(result.query, result.bundle)`` reads the
packed bundle. The ablations are ``use_anchors=False`` (no query: content search only, so no executor
answer), ``use_chain=False``, and flat-text writing (each step stored as its action and summary only).

Baselines, given every advantage a flat log can have: each step is one text line that carries its
action, events with their ordinals, inventory and place; BM25 / dense (all-MiniLM-L6-v2) / RRF pick the
top lines that fit; "recent" takes the last steps that fit. Their exact match reads *what the packed
steps support*, with the same semantics as graphmem's: the question is compiled with
``graphmem.query.grammar.compile_question`` against a ``Lexicon`` of the ground-truth steps (so every
baseline is read the same way, whatever it packed), then answered from a fresh ``EmbeddedStore`` that
holds only the baseline's packed steps (their full records, state included), written through
``Memory(store=...)`` and recalled with ``recall_steps`` at a budget large enough to pack all of them.
Ordinals and value changes then count only the packed steps: "the third time I collected wood" is the
third one the evidence shows, which is what a reader of that evidence could say. The packed-step store
embeds with a hash of the text (``HashEmbedder`` below): the executor reads only resolved anchors and
facts, so the vectors never decide an answer. Latency counts retrieval (and, for graphmem, its executor),
never this evaluation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generated_questions import GeneratedQuestion, generate_questions
from graphmem.embed import default_embedder
from graphmem.memory import Memory
from graphmem.query.algebra import Query
from graphmem.query.answers import answer, answers_match
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.recall.packer import Evidence, PackItem, pack
from graphmem.recall.trajectory import recall_steps
from graphmem.records import Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.text_index import analyze
from graphmem.write.steps import step_uid

SYSTEMS = ("graphmem", "no_anchors", "no_chain", "flat_text", "rag_bm25", "rag_dense", "rag_rrf", "recent")
#: The packed-step evaluator recalls at this budget: far above what any baseline packs, so every packed
#: step the query resolves is read.
EVALUATION_BUDGET = 1_000_000


def event_ordinals(steps: Sequence[Step]) -> list[dict[tuple[str, str], int]]:
    """Per step, the running ordinal of each of its (kind, obj) events over the episode."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for step in steps:
        row = {}
        for e in step.events:
            seen[(e.kind, e.obj)] = seen.get((e.kind, e.obj), 0) + 1
            row[(e.kind, e.obj)] = seen[(e.kind, e.obj)]
        out.append(row)
    return out


def flat_line(step: Step, ordinals: dict[tuple[str, str], int]) -> str:
    """A vanilla-RAG log line: everything a flat step log would say, ordinals included."""
    events = ", ".join(
        f"{e.kind} {e.obj}".strip() + (f" #{ordinals[(e.kind, e.obj)]}" if (e.kind, e.obj) in ordinals else "")
        for e in step.events
    )
    inv = ", ".join(f"{k}={v}" for k, v in step.inventory)
    return f"[{step.t}] {step.action} | {events} | inv: {inv} | at {step.location.describe()}"


def strip_structure(step: Step) -> Step:
    """The flat-text writing ablation: a step as its action and summary only."""
    return Step(step.t, step.action, summary=step.summary)


def lexicon_from_steps(steps: Sequence[Step], embed: Callable[[Sequence[str]], Any]) -> Lexicon:
    """The names of the ground-truth steps, as ``graphmem.recall.trajectory.lexicon_of`` reads them from an
    episode's write-time summary."""
    return Lexicon(
        pairs=frozenset((e.kind, e.obj) for s in steps for e in s.events),
        items=frozenset(name for s in steps for name, _ in s.inventory),
        states=frozenset(name for s in steps for name, _ in s.state),
        regions=frozenset(s.location.region for s in steps if s.location.region),
        embed=embed,
    )


class HashEmbedder:
    """Unit vectors seeded by a text's hash (no model): for the packed-step evaluator's stores only."""

    dimensions = 384

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=self.dimensions)
            out[i] = v / np.linalg.norm(v)
        return out


class PackedStepReader:
    """What a set of packed steps supports: the question, compiled against the ground truth's lexicon,
    answered by graphmem's resolution and executor over a store that holds only those steps."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.last_t = max(s.t for s in steps)
        self.lexicon = lexicon_from_steps(steps, default_embedder().embed)
        self.embedder = HashEmbedder()
        self.queries: dict[str, Query | None] = {}

    def query(self, question: str) -> Query | None:
        if question not in self.queries:
            self.queries[question] = compile_question(question, self.lexicon, self.last_t)
        return self.queries[question]

    def answer(self, question: str, packed: Sequence[Step]) -> str | None:
        query = self.query(question)
        if query is None or not packed:
            return None
        with Memory(store=EmbeddedStore(), embedder=self.embedder) as mem:
            mem.add_steps("packed", self.episode, sorted(packed, key=lambda s: s.t))
            result = recall_steps(mem.store, mem.embedder, "packed", query, EVALUATION_BUDGET)
        return answer(query, result.bundle) if result.query is not None else None


class FlatRag:
    """Vanilla RAG over one flat line per step."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.lines = [flat_line(s, o) for s, o in zip(self.steps, event_ordinals(self.steps))]
        self.bm25 = BM25Okapi([analyze(line) or ["_"] for line in self.lines])
        self.vectors = default_embedder().embed(self.lines)

    def ranking(self, question: str, mode: str) -> list[int]:
        if mode == "recent":
            return list(range(len(self.steps) - 1, -1, -1))
        lexical = list(np.argsort(-self.bm25.get_scores(analyze(question)), kind="stable"))
        dense = list(np.argsort(-(self.vectors @ default_embedder().embed([question])[0]), kind="stable"))
        if mode == "bm25":
            return [int(i) for i in lexical]
        if mode == "dense":
            return [int(i) for i in dense]
        scores: dict[int, float] = defaultdict(float)
        for ranking in (lexical[:200], dense[:200]):
            for rank, i in enumerate(ranking):
                scores[int(i)] += 1.0 / (60 + rank + 1)
        return sorted(scores, key=lambda i: (-scores[i], i))

    def evidence(self, question: str, mode: str, budget: int) -> tuple[Evidence, list[Step]]:
        """The packed lines and the steps they are of."""
        order = self.ranking(question, mode)[:400]
        items = [PackItem(step_uid(self.episode, self.steps[i].t), self.lines[i], order=float(self.steps[i].t)) for i in order]
        ev = pack(items, budget)
        by_uid = {step_uid(self.episode, s.t): s for s in self.steps}
        return ev, [by_uid[sid] for sid in ev.source_ids]


def run_episode(env: str, seed: int, steps: Sequence[Step], questions: Sequence[GeneratedQuestion], budgets: Sequence[int]) -> list[dict]:
    episode = f"{env}-{seed}"
    mem = Memory(store=EmbeddedStore())
    t0 = time.perf_counter()
    mem.add_steps("full", episode, steps)
    ingest_s = time.perf_counter() - t0
    mem.add_steps("flat", episode, [strip_structure(s) for s in steps])
    rag = FlatRag(episode, steps)
    reader = PackedStepReader(episode, steps)
    rows = []
    for q in questions:
        for budget in budgets:
            for system in SYSTEMS:
                t1 = time.perf_counter()
                predicted: str | None
                if system in ("graphmem", "no_anchors", "no_chain", "flat_text"):
                    ns = "flat" if system == "flat_text" else "full"
                    result = recall_steps(
                        mem.store, mem.embedder, ns, q.question, budget,
                        use_anchors=system != "no_anchors", use_chain=system != "no_chain",
                    )
                    ev = result.evidence
                    predicted = answer(result.query, result.bundle) if result.query is not None else None
                    latency = time.perf_counter() - t1
                else:
                    ev, packed = rag.evidence(q.question, system.removeprefix("rag_"), budget)
                    latency = time.perf_counter() - t1
                    predicted = reader.answer(q.question, packed)
                gold = set(q.gold_source_ids)
                found = gold & set(ev.source_ids)
                rows.append({
                    "env": env, "seed": seed, "family": q.family, "budget": budget, "system": system,
                    "question": q.question, "gold_answer": q.answer, "answer": predicted,
                    "exact": answers_match(predicted, q.answer),
                    "gold_recall": len(found) / len(gold) if gold else 1.0, "all_gold": found == gold,
                    "tokens": ev.tokens, "latency_ms": latency * 1000, "ingest_s": ingest_s,
                })
    mem.close()
    return rows


def summarize(rows: list[dict]) -> dict:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["env"], r["budget"], r["system"], r["family"])].append(r)
        groups[(r["env"], r["budget"], r["system"], "ALL")].append(r)
    summary = {}
    for key, rs in sorted(groups.items()):
        summary["|".join(map(str, key))] = {
            "n": len(rs),
            "gold_recall": statistics.mean(r["gold_recall"] for r in rs),
            "all_gold": statistics.mean(r["all_gold"] for r in rs),
            "exact_match": statistics.mean(r["exact"] for r in rs),
            "mean_tokens": statistics.mean(r["tokens"] for r in rs),
            "p50_latency_ms": statistics.median(r["latency_ms"] for r in rs),
        }
    return summary


def print_table(summary: dict, budgets: Sequence[int]) -> None:
    print(f"{'env':<10} {'budget':>6} {'system':<11} {'family':<22} {'n':>4} {'recall':>7} {'allgold':>7} {'EM':>6} {'tokens':>7}")
    for key, m in summary.items():
        env, budget, system, family = key.split("|")
        print(f"{env:<10} {budget:>6} {system:<11} {family:<22} {m['n']:>4} {m['gold_recall']:>7.3f} {m['all_gold']:>7.3f} "
              f"{m['exact_match']:>6.3f} {m['mean_tokens']:>7.1f}")


def load_rollout(env: str, seed: int, steps: int) -> list[Step]:
    if env == "crafter":
        from graphmem.loaders.crafter import run_crafter

        return run_crafter(seed=seed, steps=steps)
    from graphmem.loaders.environments import load_trajectory

    return load_trajectory(env, seed=seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--envs", nargs="+", default=["crafter"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--budgets", nargs="+", type=int, default=[150, 300, 600])
    parser.add_argument("--per-family", type=int, default=15)
    parser.add_argument("--out", default="benchmarks/results/interactive_qa.json")
    args = parser.parse_args(argv)

    rows: list[dict] = []
    for env in args.envs:
        for seed in args.seeds:
            t0 = time.perf_counter()
            steps = load_rollout(env, seed, args.steps)
            questions = generate_questions(f"{env}-{seed}", steps, per_family=args.per_family, seed=seed)
            print(f"{env} seed {seed}: {len(steps)} steps, {len(questions)} questions "
                  f"(rollout {time.perf_counter() - t0:.1f}s)", file=sys.stderr)
            rows += run_episode(env, seed, steps, questions, args.budgets)
    summary = summarize(rows)
    print_table({k: v for k, v in summary.items() if k.endswith("|ALL")}, args.budgets)
    print()
    print_table({k: v for k, v in summary.items() if "|graphmem|" in k}, args.budgets)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": vars(args), "summary": summary, "rows": rows}, indent=1))
    print(f"\nwrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
