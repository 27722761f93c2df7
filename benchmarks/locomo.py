"""LoCoMo benchmark: gold-evidence recall of graphmem vs BM25 / dense / RRF at fixed token budgets.

    python benchmarks/locomo.py --data ../shared/data/locomo-dev --budgets 150 300 600 1200
    python benchmarks/locomo.py --uri bolt://127.0.0.1:7687 --out benchmarks/results/locomo_neo4j.json

For every question it packs evidence with each system at each budget (cl100k_base) and measures the
share of gold ``dia_id``s inside the evidence, per category (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop; 5 adversarial reported apart), plus Recall@5/10/20 of ``Memory.search``, of graphmem's
recall ranking and of the baselines' rankings, ablations (no frames, no boxes, no traces, no rare-word expansion), ingest time
(wall clock and process CPU: other jobs on a shared machine inflate the wall clock) and query latency.

Baselines pack the same line format as graphmem (the session date once per session group, then
"speaker: text [photo: caption]"), so a difference comes from which turns are chosen, not from how
they are printed. ``rrf_trim`` is RRF's ranking with graphmem's query-aware trimming of long turns: it
shows how much of graphmem's lead comes from its ranking and how much from fitting more turns.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from graphmem.embed import default_embedder
from graphmem.loaders.dialogue import Conversation
from graphmem.loaders.locomo import load_locomo
from graphmem.memory import Memory
from graphmem.neo4j_server import DEFAULT_PASSWORD
from graphmem.recall.dialogue.lines import session_header, turn_line
from graphmem.recall.dialogue.question import analyze_question
from graphmem.recall.dialogue.recall import recall_dialogue
from graphmem.recall.packer import PackItem, pack
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.neo4j import Neo4jStore
from graphmem.store.protocol import GraphStore, TurnRow, node_key
from graphmem.store.text_index import analyze

GRAPHMEM_SYSTEMS = {
    "graphmem": {},
    "no_frames": {"use_frames": False},
    "no_boxes": {"use_boxes": False, "use_traces": False},
    "no_traces": {"use_traces": False},
    "no_expansion": {"use_expansion": False},
}
BASELINES = ("bm25", "dense", "rrf", "rrf_trim")
#: Rankings whose Recall@k is reported: Memory.search ("graphmem"), recall_dialogue's ranking ("recall").
RANKINGS = ("graphmem", "recall", *BASELINES)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def default_data_dir() -> Path:
    env = os.environ.get("GRAPHMEM_LOCOMO_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    shared = here.parent / "shared" / "data" / "locomo-dev"
    return shared if shared.exists() else here / "tests" / "data" / "locomo-dev"


class TurnBaselines:
    def __init__(self, conv: Conversation) -> None:
        self.items: list[PackItem] = []
        #: Each turn as recall reads it, with its session header.
        self.turns: list[tuple[TurnRow, str]] = []
        self.speakers = tuple(conv.speakers)
        texts = []
        seq = 0
        for session in conv.sessions:
            header = session_header(session.started_at.astimezone(UTC).timestamp())
            for turn in session.turns:
                row = TurnRow(node_key("Turn", turn.id), turn.id, turn.speaker, turn.text, seq=seq, image_caption=turn.image_caption)
                self.turns.append((row, header))
                self.items.append(PackItem(turn.id, turn_line(row), order=float(seq), header=header))
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

    def pack_items(self, question: str, mode: str, depth: int = 200) -> list[PackItem]:
        """The baseline's ranking as pack items; ``rrf_trim`` lines are trimmed to the question like graphmem's."""
        ranked = self.ranking(question, "rrf" if mode == "rrf_trim" else mode)[:depth]
        if mode != "rrf_trim":
            return [self.items[i] for i in ranked]
        terms = analyze_question(question, self.speakers).lexical
        names = frozenset(p.lower() for s in self.speakers for p in s.split())
        return [
            PackItem(row.uid, turn_line(row, terms, names), order=float(row.seq), header=header)
            for row, header in (self.turns[i] for i in ranked)
        ]


def recall_at(ranked_ids: Sequence[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked_ids[:k])) / len(gold) if gold else 1.0


def run_conversation(
    conv: Conversation, budgets: Sequence[int], systems: Sequence[str], store: GraphStore | None = None
) -> tuple[list[dict], dict]:
    """Ingest one conversation and measure every system on its questions; ``store`` (a Neo4j one) is
    used instead of a fresh embedded store, the conversation's namespace cleared first."""
    if store is not None:
        store.delete_namespace(conv.conversation_id)
    mem = Memory(store=store if store is not None else EmbeddedStore())
    mem.embedder.embed(["warm up"])  # model loading is not ingest
    t0, c0 = time.perf_counter(), time.process_time()
    for session in conv.sessions:
        mem.add_session(conv.conversation_id, session.session_id, session.turns, started_at=session.started_at)
    ingest_s, ingest_cpu_s = time.perf_counter() - t0, time.process_time() - c0
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
            items = baselines.pack_items(qa.question, mode)
            for k in (5, 10, 20):
                row[f"{mode}_R@{k}"] = recall_at([item.source_id for item in items], gold, k)
            for budget in budgets:
                ev = pack(items, budget)
                row[f"{mode}@{budget}"] = recall_at(list(ev.source_ids), gold, len(ev.source_ids))
        for system in systems:
            for budget in budgets:
                t2 = time.perf_counter()
                result = recall_dialogue(mem.store, mem.embedder, conv.conversation_id, qa.question, budget, **GRAPHMEM_SYSTEMS[system])
                row[f"{system}@{budget}_ms"] = (time.perf_counter() - t2) * 1000
                row[f"{system}@{budget}"] = recall_at(list(result.evidence.source_ids), gold, len(result.evidence.source_ids))
                row[f"{system}@{budget}_tokens"] = result.evidence.tokens
                row[f"{system}@{budget}_ids"] = len(result.evidence.source_ids)
                if system == "graphmem" and budget == budgets[0]:
                    ranked = [key.split(":", 1)[1] for key in result.ranking]
                    for k in (5, 10, 20):
                        row[f"recall_R@{k}"] = recall_at(ranked, gold, k)
        rows.append(row)
    stats = {"conversation": conv.conversation_id, "turns": sum(len(s.turns) for s in conv.sessions),
             "sessions": len(conv.sessions), "ingest_s": ingest_s, "ingest_cpu_s": ingest_cpu_s,
             "graph": mem.stats(conv.conversation_id)}
    if store is None:
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
        for system in RANKINGS:
            for k in (5, 10, 20):
                metrics[f"{system}_R@{k}"] = statistics.mean(r.get(f"{system}_R@{k}", float("nan")) for r in rs)
        for system in systems:
            for budget in budgets:
                metrics[f"{system}@{budget}_ids"] = statistics.mean(r[f"{system}@{budget}_ids"] for r in rs)
        lat = [r[f"{systems[0]}@{budgets[-1]}_ms"] for r in rs]
        metrics["recall_ms_p50"] = statistics.median(lat)
        metrics["recall_ms_p95"] = float(np.percentile(lat, 95))
        out[name] = metrics
    return out


def print_table(summary: dict, budgets: Sequence[int], systems: Sequence[str]) -> None:
    names = ["cat1-4", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial"]
    cols = [*systems, *BASELINES]
    print("gold-evidence recall inside the packed evidence (cl100k_base budget)")
    print(f"{'category':<12} {'n':>4} {'budget':>6} " + " ".join(f"{c:>10}" for c in cols))
    for name in names:
        if name not in summary:
            continue
        m = summary[name]
        for budget in budgets:
            print(f"{name:<12} {m['n']:>4} {budget:>6} " + " ".join(f"{m[f'{c}@{budget}']:>10.3f}" for c in cols))
    print()
    print("Recall@k of the rankings (graphmem = Memory.search, recall = recall_dialogue's ranking)")
    print(f"{'category':<12} " + " ".join(f"{s + '_R@' + str(k):>14}" for s in RANKINGS for k in (5, 10, 20)))
    for name in names:
        if name in summary:
            m = summary[name]
            print(f"{name:<12} " + " ".join(f"{m[f'{s}_R@{k}']:>14.3f}" for s in RANKINGS for k in (5, 10, 20)))
    m = summary["cat1-4"]
    print("\nturns packed (cat1-4): " + ", ".join(f"{s}@{b} {m[f'{s}@{b}_ids']:.1f}" for s in systems for b in budgets))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--budgets", nargs="+", type=int, default=[150, 300, 600, 1200])
    parser.add_argument("--systems", nargs="+", default=list(GRAPHMEM_SYSTEMS))
    parser.add_argument("--limit", type=int, default=0, help="questions per conversation (0 = all)")
    parser.add_argument("--out", default="benchmarks/results/locomo.json")
    parser.add_argument("--uri", default=None, help="run on this Neo4j server (bolt://...) instead of the embedded store")
    parser.add_argument("--password", default=DEFAULT_PASSWORD, help="the Neo4j user's password (user neo4j)")
    args = parser.parse_args(argv)
    # Unknown-label/property notifications of a fresh database are the driver's warnings, not ours.
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    store = Neo4jStore(args.uri, auth=("neo4j", args.password)) if args.uri else None
    backend = "neo4j" if store is not None else "embedded"

    files = sorted(args.data.glob("*.json")) if args.data.is_dir() else [args.data]
    rows, stats = [], []
    for path in files:
        for conv in load_locomo(path):
            if args.limit:
                conv = Conversation(conv.conversation_id, conv.speakers, conv.sessions, conv.qa[: args.limit], conv.problems)
            r, s = run_conversation(conv, args.budgets, args.systems, store)
            print(f"{conv.conversation_id}: {s['turns']} turns, {s['sessions']} sessions, ingest {s['ingest_s']:.1f}s "
                  f"({s['ingest_cpu_s']:.1f}s CPU), "
                  f"{len(r)} questions", file=sys.stderr)
            rows += r
            stats.append(s)
    summary = summarize(rows, args.budgets, args.systems)
    print_table(summary, args.budgets, args.systems)
    print("\ningest: " + ", ".join(f"{s['conversation']} {s['turns']} turns in {s['ingest_s']:.1f}s "
                                     f"({s['ingest_cpu_s']:.1f}s CPU)" for s in stats))
    m = summary["cat1-4"]
    if store is not None:
        store.close()
    print(f"recall latency ({args.systems[0]}, {args.budgets[-1]} tokens, {backend}): p50 {m['recall_ms_p50']:.0f} ms, p95 {m['recall_ms_p95']:.0f} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "summary": summary, "ingest": stats, "rows": rows}, indent=1))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
