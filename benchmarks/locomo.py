"""LoCoMo benchmark: gold-evidence recall of graphmem vs BM25 / dense / RRF at fixed token budgets.

    python benchmarks/locomo.py --data ../shared/data/locomo-dev --budgets 150 300 600 1200

For every question it packs evidence with each system at each budget (cl100k_base) and measures the
share of gold ``dia_id``s inside the evidence, per category (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop; 5 adversarial reported apart), plus Recall@5/10/20 of ``Memory.search`` and of the
baselines' rankings, ablations (no frames, no boxes, no traces), ingest time and query latency.

Baselines pack the same line format as graphmem (session date header + "[id] speaker: text"), so a
difference comes from which turns are chosen, not from how they are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import timezone
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from graphmem.embed import default_embedder
from graphmem.loaders.dialogue import Conversation
from graphmem.loaders.locomo import load_locomo
from graphmem.memory import Memory
from graphmem.recall.dialogue import recall_dialogue
from graphmem.recall.packer import PackItem, pack
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.text_index import analyze

GRAPHMEM_SYSTEMS = {
    "graphmem": {},
    "no_frames": {"use_frames": False},
    "no_boxes": {"use_boxes": False, "use_traces": False},
    "no_traces": {"use_traces": False},
}
BASELINES = ("bm25", "dense", "rrf")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def default_data_dir() -> Path:
    env = os.environ.get("GRAPHMEM_LOCOMO_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    return here.parent / "shared" / "data" / "locomo-dev"


class TurnBaselines:
    def __init__(self, conv: Conversation) -> None:
        self.items: list[PackItem] = []
        texts = []
        seq = 0
        for s_index, session in enumerate(conv.sessions):
            day = session.started_at.astimezone(timezone.utc).strftime("%-d %b %Y")
            header = f"Session {s_index + 1} ({day}):"
            for turn in session.turns:
                line = f"[{turn.id}] {turn.speaker}: {turn.text}"
                if turn.image_caption:
                    line += f" [photo: {turn.image_caption}]"
                self.items.append(PackItem(turn.id, line, order=float(seq), header=header))
                texts.append(f"{turn.speaker}: {turn.text} {turn.image_caption or ''}")
                seq += 1
        self.bm25 = BM25Okapi([analyze(t) or ["_"] for t in texts])
        self.vectors = default_embedder().embed(texts)

    def ranking(self, question: str, mode: str) -> list[int]:
        lexical = [int(i) for i in np.argsort(-self.bm25.get_scores(analyze(question)), kind="stable")]
        dense = [int(i) for i in np.argsort(-(self.vectors @ default_embedder().embed([question])[0]), kind="stable")]
        if mode == "bm25":
            return lexical
        if mode == "dense":
            return dense
        scores: dict[int, float] = defaultdict(float)
        for ranking in (lexical, dense):
            for rank, i in enumerate(ranking):
                scores[i] += 1.0 / (60 + rank + 1)
        return sorted(scores, key=lambda i: (-scores[i], i))


def recall_at(ranked_ids: Sequence[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked_ids[:k])) / len(gold) if gold else 1.0


def run_conversation(conv: Conversation, budgets: Sequence[int], systems: Sequence[str]) -> tuple[list[dict], dict]:
    mem = Memory(store=EmbeddedStore())
    t0 = time.perf_counter()
    for session in conv.sessions:
        mem.add_session(conv.conversation_id, session.session_id, session.turns, started_at=session.started_at)
    ingest_s = time.perf_counter() - t0
    baselines = TurnBaselines(conv)
    rows = []
    for qa in conv.qa:
        gold = set(qa.evidence)
        if not gold:
            continue
        row = {"conversation": conv.conversation_id, "category": int(qa.category), "question": qa.question, "gold": sorted(gold)}
        t1 = time.perf_counter()
        hits = mem.search(conv.conversation_id, qa.question, k=20)
        row["search_ms"] = (time.perf_counter() - t1) * 1000
        for k in (5, 10, 20):
            row[f"graphmem_R@{k}"] = recall_at([h.source_id for h in hits], gold, k)
        for mode in BASELINES:
            ranked = [baselines.items[i].source_id for i in baselines.ranking(qa.question, mode)]
            for k in (5, 10, 20):
                row[f"{mode}_R@{k}"] = recall_at(ranked, gold, k)
            for budget in budgets:
                ev = pack([baselines.items[i] for i in baselines.ranking(qa.question, mode)[:200]], budget)
                row[f"{mode}@{budget}"] = recall_at(list(ev.source_ids), gold, len(ev.source_ids))
        for system in systems:
            for budget in budgets:
                t2 = time.perf_counter()
                result = recall_dialogue(mem.store, mem.embedder, conv.conversation_id, qa.question, budget, **GRAPHMEM_SYSTEMS[system])
                row[f"{system}@{budget}_ms"] = (time.perf_counter() - t2) * 1000
                row[f"{system}@{budget}"] = recall_at(list(result.evidence.source_ids), gold, len(result.evidence.source_ids))
                row[f"{system}@{budget}_tokens"] = result.evidence.tokens
        rows.append(row)
    stats = {"conversation": conv.conversation_id, "turns": sum(len(s.turns) for s in conv.sessions),
             "sessions": len(conv.sessions), "ingest_s": ingest_s, "graph": mem.stats(conv.conversation_id)}
    mem.close()
    return rows, stats


def summarize(rows: list[dict], budgets: Sequence[int], systems: Sequence[str]) -> dict:
    out: dict[str, dict] = {}
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[CATEGORIES[r["category"]]].append(r)
        if r["category"] != 5:
            groups["cat1-4"].append(r)
    for name, rs in groups.items():
        metrics = {"n": len(rs)}
        for system in (*systems, *BASELINES):
            for budget in budgets:
                metrics[f"{system}@{budget}"] = statistics.mean(r[f"{system}@{budget}"] for r in rs)
        for system in ("graphmem", *BASELINES):
            for k in (5, 10, 20):
                metrics[f"{system}_R@{k}"] = statistics.mean(r[f"{system}_R@{k}"] for r in rs)
        lat = [r[f"graphmem@{budgets[-1]}_ms"] for r in rs]
        metrics["recall_ms_p50"] = statistics.median(lat)
        metrics["recall_ms_p95"] = float(np.percentile(lat, 95))
        out[name] = metrics
    return out


def print_table(summary: dict, budgets: Sequence[int], systems: Sequence[str]) -> None:
    names = ["cat1-4", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial"]
    cols = [*systems, *BASELINES]
    print(f"gold-evidence recall inside the packed evidence (cl100k_base budget)")
    print(f"{'category':<12} {'n':>4} {'budget':>6} " + " ".join(f"{c:>10}" for c in cols))
    for name in names:
        if name not in summary:
            continue
        m = summary[name]
        for budget in budgets:
            print(f"{name:<12} {m['n']:>4} {budget:>6} " + " ".join(f"{m[f'{c}@{budget}']:>10.3f}" for c in cols))
    print()
    print(f"{'category':<12} " + " ".join(f"{s + '_R@' + str(k):>16}" for s in ("graphmem", *BASELINES) for k in (5, 10, 20)))
    for name in names:
        if name in summary:
            m = summary[name]
            print(f"{name:<12} " + " ".join(f"{m[f'{s}_R@{k}']:>16.3f}" for s in ("graphmem", *BASELINES) for k in (5, 10, 20)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--budgets", nargs="+", type=int, default=[150, 300, 600, 1200])
    parser.add_argument("--systems", nargs="+", default=list(GRAPHMEM_SYSTEMS))
    parser.add_argument("--limit", type=int, default=0, help="questions per conversation (0 = all)")
    parser.add_argument("--out", default="benchmarks/results/locomo.json")
    args = parser.parse_args(argv)

    files = sorted(args.data.glob("*.json")) if args.data.is_dir() else [args.data]
    rows, stats = [], []
    for path in files:
        for conv in load_locomo(path):
            if args.limit:
                conv = Conversation(conv.conversation_id, conv.speakers, conv.sessions, conv.qa[: args.limit], conv.problems)
            r, s = run_conversation(conv, args.budgets, args.systems)
            print(f"{conv.conversation_id}: {s['turns']} turns, {s['sessions']} sessions, ingest {s['ingest_s']:.1f}s, "
                  f"{len(r)} questions", file=sys.stderr)
            rows += r
            stats.append(s)
    summary = summarize(rows, args.budgets, args.systems)
    print_table(summary, args.budgets, args.systems)
    print(f"\ningest: " + ", ".join(f"{s['conversation']} {s['turns']} turns in {s['ingest_s']:.1f}s" for s in stats))
    m = summary["cat1-4"]
    print(f"recall latency (graphmem, {args.budgets[-1]} tokens, embedded): p50 {m['recall_ms_p50']:.0f} ms, p95 {m['recall_ms_p95']:.0f} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "summary": summary, "ingest": stats, "rows": rows}, indent=1))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
