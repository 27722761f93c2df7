"""Interactive-QA benchmark (S3Mem): graphmem vs vanilla RAG vs recent steps, at fixed token budgets.

    python benchmarks/interactive_qa.py --seeds 0 1 2 --steps 1500 --budgets 150 300 600

For each environment rollout it generates questions per family with gold answers and gold step ids
from the ground-truth records, then packs evidence with every system at each budget and reports, per
family: gold-step recall, all-gold rate, executor exact match (the deterministic executor reading only
the packed evidence), and mean tokens. Prints a table and writes JSON.

Baselines, given every advantage a flat log can have: each step is one text line that carries its
action, events with their ordinals, inventory and place; BM25 / dense (all-MiniLM-L6-v2) / RRF pick the
top lines that fit; "recent" takes the last steps that fit. The executor reads baseline evidence with the
same rules and is given the event totals, so differences come from what the evidence contains.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from graphmem.embed import default_embedder
from graphmem.memory import Memory
from graphmem.recall.executor import EvidenceBundle, EvidenceStep, event_ordinals, execute, normalize_answer
from graphmem.recall.packer import PackItem, pack
from graphmem.recall.questions import GeneratedQuestion, generate_questions
from graphmem.recall.trajectory import recall_steps
from graphmem.records import Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.text_index import analyze
from graphmem.write.steps import step_uid

SYSTEMS = ("graphmem", "no_anchors", "no_chain", "flat_text", "rag_bm25", "rag_dense", "rag_rrf", "recent")


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


class FlatRag:
    """Vanilla RAG over one flat line per step."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        ords, totals = event_ordinals(self.steps)
        self.ordinals = [{(k, o): n for k, o, n in row} for row in ords]
        self.totals = totals
        self.lines = [flat_line(s, o) for s, o in zip(self.steps, self.ordinals)]
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

    def evidence(self, question: str, mode: str, budget: int):  # type: ignore[no-untyped-def]
        order = self.ranking(question, mode)[:400]
        items = [PackItem(step_uid(self.episode, self.steps[i].t), self.lines[i], order=float(self.steps[i].t)) for i in order]
        ev = pack(items, budget)
        index = {step_uid(self.episode, s.t): i for i, s in enumerate(self.steps)}
        steps = tuple(
            EvidenceStep(sid, self.episode, self.steps[index[sid]].t, self.steps[index[sid]],
                         tuple((k, o, n) for (k, o), n in sorted(self.ordinals[index[sid]].items())))
            for sid in ev.source_ids
        )
        totals = tuple((k, o, n) for (k, o), n in sorted(self.totals.items()))
        return ev, EvidenceBundle(steps, totals)


def run_episode(env: str, seed: int, steps: Sequence[Step], questions: Sequence[GeneratedQuestion], budgets: Sequence[int]) -> list[dict]:
    episode = f"{env}-{seed}"
    mem = Memory(store=EmbeddedStore())
    t0 = time.perf_counter()
    mem.add_steps("full", episode, steps)
    ingest_s = time.perf_counter() - t0
    mem.add_steps("flat", episode, [strip_structure(s) for s in steps])
    rag = FlatRag(episode, steps)
    rows = []
    for q in questions:
        for budget in budgets:
            for system in SYSTEMS:
                t1 = time.perf_counter()
                if system in ("graphmem", "no_anchors", "no_chain", "flat_text"):
                    ns = "flat" if system == "flat_text" else "full"
                    result = recall_steps(
                        mem.store, mem.embedder, ns, q.question, budget,
                        use_anchors=system != "no_anchors", use_chain=system != "no_chain",
                    )
                    ev, answer = result.evidence, execute(result.anchors, result.bundle)
                else:
                    from graphmem.recall.anchors import parse_anchors
                    from graphmem.recall.trajectory import vocabulary_of

                    mode = system.removeprefix("rag_")
                    ev, bundle = rag.evidence(q.question, mode, budget)
                    anchors = parse_anchors(q.question, vocabulary_of(mem.store.episode_nodes("full")[0]))
                    answer = execute(anchors, bundle)
                latency = time.perf_counter() - t1
                gold = set(q.gold_source_ids)
                found = gold & set(ev.source_ids)
                rows.append({
                    "env": env, "seed": seed, "family": q.family, "budget": budget, "system": system,
                    "question": q.question, "gold_answer": q.answer, "answer": answer,
                    "exact": normalize_answer(answer) == normalize_answer(q.answer),
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
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
