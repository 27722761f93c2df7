"""The memory file's costs: write throughput beside the in-process store, and reopening 20k steps.

    python benchmarks/file_store.py                 # 20k steps (67 Crafter episodes of 300 steps)
    python benchmarks/file_store.py --steps 2000    # a smoke run

The steps are the demo's Crafter trajectory, renumbered into episodes, with random unit vectors in
place of the model's (the model's cost is the same for both stores). The batches are built once (as
``graphmem ingest`` builds them, ``--batch-size`` steps each, with their ``Expect`` guard) and then
written into an ``EmbeddedStore`` and into a ``FileStore``, so the difference is the file alone. The
file is then reopened in a fresh process, which reports the time to open it and its resident memory
(beside the same process's memory after replaying the graph into a plain ``EmbeddedStore``).
Results: a table on stdout and ``benchmarks/results/file_store.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.loaders.jsonl_steps import read_steps_jsonl
from graphmem.memory import Memory
from graphmem.records import Step
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.file import FileStore, decode_entry
from graphmem.store.protocol import WriteBatch

RESULTS = Path(__file__).parent / "results" / "file_store.json"


class RandomEmbedder:
    """Unit vectors seeded by each text's hash (no model)."""

    dimensions = 384

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, text in enumerate(texts):
            v = np.random.default_rng(int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)).normal(size=self.dimensions)
            out[i] = v / np.linalg.norm(v)
        return out


def batches(total: int, batch_size: int) -> list[WriteBatch]:
    """The write batches of ``total`` steps: Crafter episodes of 300 steps, ``batch_size`` steps a batch."""
    with resources.as_file(resources.files("graphmem") / "data" / "demo_crafter.jsonl") as path:
        demo = read_steps_jsonl(path)
    planner = Memory(store=EmbeddedStore(), embedder=RandomEmbedder())
    built: list[WriteBatch] = []
    written = 0
    episode = 0
    while written < total:
        steps: list[Step] = [replace(s, action=f"{s.action} ({episode})") for s in demo[: min(len(demo), total - written)]]
        for i in range(0, len(steps), batch_size):
            so_far, new, _ = planner.plan_steps("agent", f"run-{episode}", steps[i : i + batch_size])
            batch = planner.step_batch("agent", f"run-{episode}", new, so_far)
            planner.store.write(batch)
            built.append(batch)
        written += len(steps)
        episode += 1
    return built


def write_all(store: Any, built: list[WriteBatch]) -> list[float]:
    seconds = []
    for batch in built:
        started = time.perf_counter()
        store.write(batch)
        seconds.append(time.perf_counter() - started)
    return seconds


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_in_this_process(path: str) -> dict[str, float]:
    """Open the file (a fresh process: nothing cached in Python), then replay it into a plain store."""
    baseline = rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    store = FileStore(path)
    opened, opened_cpu = time.perf_counter() - started, time.process_time() - cpu
    file_rss = rss_mb() - baseline
    started = time.perf_counter()
    for _ in range(1000):
        store.counts("agent")
    read_check = (time.perf_counter() - started) / 1000
    plain = EmbeddedStore()
    for _ in range(1000):
        plain.counts("agent")
    started = time.perf_counter()
    for _ in range(1000):
        plain.counts("agent")
    plain_read = (time.perf_counter() - started) / 1000
    return {"open_s": opened, "open_cpu_s": opened_cpu, "rss_mb": file_rss, "read_s": read_check, "plain_read_s": plain_read, "steps": store.counts("agent")["Step"]}


def replay_into_plain_store(path: str) -> dict[str, float]:
    """The same graph in an ``EmbeddedStore`` alone (the log replayed by hand): what the file store adds."""
    baseline = rss_mb()
    store = EmbeddedStore()
    with sqlite3.connect(path) as db:
        for (body,) in db.execute("SELECT body FROM graphmem_log ORDER BY seq"):
            op, arg = decode_entry(body)
            if op == "write":
                store.write(arg)
            else:
                store.delete_namespace(arg)
    return {"rss_mb": rss_mb() - baseline}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--open", metavar="PATH", help=argparse.SUPPRESS)  # the child processes' jobs
    parser.add_argument("--plain", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.open:
        print(json.dumps(open_in_this_process(args.open)))
        return 0
    if args.plain:
        print(json.dumps(replay_into_plain_store(args.plain)))
        return 0

    built = batches(args.steps, args.batch_size)
    embedded = write_all(EmbeddedStore(), built)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "memory.db"
        store = FileStore(path)
        on_file = write_all(store, built)
        store.close()
        size = path.stat().st_size
        child = subprocess.run([sys.executable, __file__, "--open", str(path)], capture_output=True, text=True, check=True)
        reopened = json.loads(child.stdout)
        # The same graph in an EmbeddedStore alone, in a fresh process too: what the file store adds.
        plain = subprocess.run([sys.executable, __file__, "--plain", str(path)], capture_output=True, text=True, check=True)
        plain_rss = json.loads(plain.stdout)["rss_mb"]
    steps = sum(1 for b in built for n in b.nodes if n.label == "Step")
    result = {
        "steps": steps,
        "batches": len(built),
        "batch_size": args.batch_size,
        "write_steps_per_s": {"embedded": steps / sum(embedded), "file": steps / sum(on_file)},
        "write_ms_per_batch_p50": {"embedded": 1000 * statistics.median(embedded), "file": 1000 * statistics.median(on_file)},
        "file_mb": size / 2**20,
        "open_s": reopened["open_s"],
        "open_cpu_s": reopened["open_cpu_s"],  # this process's CPU time: what an idle machine would take
        "rss_mb": {"file_store": reopened["rss_mb"], "embedded_store": plain_rss},
        "read_overhead_us": 1e6 * (reopened["read_s"] - reopened["plain_read_s"]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_1min": os.getloadavg()[0],  # other work on the machine slows every figure alike
    }
    print(f"{steps} steps in {len(built)} batches of {args.batch_size}")
    print(f"write:  embedded {result['write_steps_per_s']['embedded']:8.0f} steps/s   file {result['write_steps_per_s']['file']:8.0f} steps/s")
    print(f"file:   {result['file_mb']:.1f} MB; reopen {result['open_s']:.2f} s ({result['open_cpu_s']:.2f} s of CPU)")
    print(f"memory: file store {result['rss_mb']['file_store']:.0f} MB, embedded store {plain_rss:.0f} MB (resident, after opening)")
    print(f"a read's check of the file: {result['read_overhead_us']:.1f} us")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
