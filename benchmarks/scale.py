"""Speed and scale: write throughput, embedding throughput, recall latency and memory from 10k to 1M units.

    python benchmarks/scale.py                                   # quick: 10k and 100k units
    python benchmarks/scale.py --sizes 10000 100000 1000000      # the full run (hours on 2 cores)
    python benchmarks/scale.py --layouts one --sizes 10000       # a smoke run

It starts its OWN Neo4j server (home /tmp/graphmem-scale/neo4j, bolt 7697, http 7484; the jars of the
default install), so the default server on 7687 is never touched, and stops it at the end (``--keep-server``
leaves it up; ``--uri`` uses a server you run). All traffic goes to 127.0.0.1.

What it measures, in one run:

* **write**: synthetic trajectories (steps with events, objects, places) and dialogues (sessions of turns)
  written through graphmem's bulk path (``Memory.bulk()``: ``add_steps`` and ``add_session``, as
  ``graphmem ingest`` writes). The model is kept out: every unit gets a fresh random unit vector, so the
  vector index is fed as in production (``--no-vectors`` leaves them out). Dialogue NLP (spaCy context,
  topic boxes) is replaced by synthetic contexts: it is the writer's cost, not Neo4j's. Beside it, Neo4j's
  raw rate for the same rows (every node and edge row of a sample of chunks spread over the level, as
  ``UNWIND $rows AS r CREATE (n:Raw) SET n = r``, same transactions) and the ratio. Before each level the
  process freezes its live objects out of the garbage collector's reach (``gc.freeze``; see
  ``write_level``) and reports the collector's time during the level.
* **embedding**: our ingestion path (``graphmem.ingest.ingest_files`` on a JSONL step log, into a store that
  discards writes) beside ``SentenceTransformer.encode`` on the same texts; and the same ingest into Neo4j.
* **latency**: trajectory recall, dialogue recall and search, p50/p95/p99, at each size; the question
  embedding is computed beforehand and reported on its own.
* **memory**: server heap in use (JMX) and store size on disk per unit; the embedded backend's resident
  memory per unit and its recall latency.

Layouts: ``one`` = every unit in one namespace; ``many`` = the same number of units spread over 1,000
namespaces. Both live in the same database (so at size N the database holds 2N units when both run).
Sizes are cumulative: 100k adds 90k units to the 10k already written. Every loop is bounded in count
and in time. Results: a table on stdout, ``benchmarks/results/scale.json`` and
``benchmarks/results/scale_latency.png`` (matplotlib).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import logging
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graphmem import neo4j_server
from graphmem.memory import Memory
from graphmem.records import Event, Location, Step, Turn
from graphmem.store.embedded import EmbeddedStore
from graphmem.store.neo4j import CHUNK, Neo4jStore
from graphmem.store.protocol import EpisodeRow, GraphStore, NodeRow, StepRow, WriteBatch
from graphmem.write.context import TurnContext

log = logging.getLogger("scale")

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
SERVER_HOME = Path("/tmp/graphmem-scale/neo4j")
BOLT_PORT, HTTP_PORT = 7697, 7484

EPISODE_LEN = 5000  # steps per trajectory episode in the one-namespace layout
SESSION_LEN = 20  # turns per dialogue session
MANY = 1000  # namespaces in the many layout
RAW_CHUNK = 2000
#: Client CPU time of the queries timed last (this process: our Python, the driver), beside wall time.
CPU_SAMPLES: list[float] = []  # units written per namespace between two checks of the raw sample and the time budget
DIMS = 384

TRAJECTORY_QUESTIONS = (
    "At which step did I collect wood for the third time?",
    "What did I do two steps after I first placed a table?",
    "Where was I the last time I drank water?",
    "How many times had I collected stone by step 400?",
    "What did I do at step 120?",
    "When did I last eat a cow?",
    "What happened right before I made a wood pickaxe for the first time?",
    "Where did I collect coal?",
)
DIALOGUE_QUESTIONS = (
    "What did Maya say about the half marathon?",
    "What happened with Pepper in June 2024?",
    "When did Sam start the bakery job?",
    "What did Maya tell Sam about her knee last week?",
    "Which trip did Sam plan for the summer?",
    "What novel was Maya reading in March 2024?",
)
SEARCH_QUESTIONS = TRAJECTORY_QUESTIONS[:4] + DIALOGUE_QUESTIONS[:4]

ACTIONS = ("move left", "move right", "move up", "move down", "noop", "do", "sleep")
ITEMS = ("wood", "stone", "sapling", "coal", "iron")
REGIONS = ("forest", "lake", "cave", "grassland", "mountain")
OBJECTS = ("tree", "water", "grass", "stone", "cow", "zombie", "table", "sand")
TOPICS = (
    "the half marathon training plan", "Pepper the dog at the vet", "the new bakery job", "my knee and the physio",
    "a summer trip to Lisbon", "the novel I am reading", "guitar lessons on Tuesdays", "the garden tomatoes",
    "cooking a curry for friends", "moving to a new flat", "my sister's wedding", "the pottery class",
)


# --------------------------------------------------------------------------------------------- data


class RandomEmbedder:
    """Fresh random unit vectors: the vector index is fed as in production, the model costs nothing."""

    dimensions = DIMS

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        v = self.rng.standard_normal((len(texts), DIMS), dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class DiscardedEmbedder:
    """For writes without vectors (``--no-vectors``), whose embeddings are dropped before they are sent:
    the same unit vector for every text, from one block made once. Drawing fresh random vectors only to
    drop them took about a tenth of a chunk's time on the client, which shares the two cores with the
    server, while the raw replay it is compared with pays nothing of the kind."""

    dimensions = DIMS

    def __init__(self) -> None:
        self.block = np.full((1024, DIMS), 1.0 / np.sqrt(DIMS), dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        while len(self.block) < len(texts):
            self.block = np.concatenate([self.block, self.block])
        return self.block[: len(texts)]


class CachedEmbedder:
    """Question vectors computed beforehand (their cost is measured apart). A text not computed beforehand
    (dialogue recall embeds the question without the speakers' names) is embedded by ``inner`` once and
    kept; the seconds that took are added to ``spent``, which the timed queries subtract."""

    dimensions = DIMS

    def __init__(self, inner: Any, cache: dict[str, np.ndarray]) -> None:
        self.inner, self.cache = inner, cache
        self.spent = 0.0
        # The inner model's name: query expansion reads that model's vocabulary table (built or loaded once,
        # before the timed queries' warm-up ends) instead of building one for this wrapper.
        if getattr(inner, "name", None):
            self.name = inner.name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            started = time.perf_counter()
            for text, vector in zip(missing, self.inner.embed(missing)):
                self.cache[text] = np.asarray(vector, dtype=np.float32)
            self.spent += time.perf_counter() - started
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, DIMS), dtype=np.float32)


def make_step(rng: random.Random, t: int, inventory: dict[str, int]) -> Step:
    roll = rng.random()
    events: tuple[Event, ...] = ()
    action = rng.choice(ACTIONS)
    if roll < 0.25:
        item = rng.choice(ITEMS)
        inventory[item] = inventory.get(item, 0) + 1
        action, events = f"collect {item}", (Event("collect", item), Event("gain", item))
    elif roll < 0.30 and inventory.get("wood", 0) > 0:
        inventory["wood"] -= 1
        action, events = "place table", (Event("place", "table"), Event("consume", "wood"))
    elif roll < 0.33 and inventory.get("wood", 0) > 0:
        inventory["wood"] -= 1
        action, events = "make wood pickaxe", (Event("make", "wood pickaxe"), Event("consume", "wood"))
    elif roll < 0.38:
        action, events = "drink water", (Event("drink", "water"),)
    elif roll < 0.40:
        action, events = "eat cow", (Event("eat", "cow"),)
    region = REGIONS[(t // 200) % len(REGIONS)]
    return Step(
        t, action, events=events, objects=tuple(rng.sample(OBJECTS, 2)), inventory=dict(inventory),
        location=Location((t % 64, (t // 64) % 64), region, "grass"),
    )


@dataclass
class NamespacePlan:
    """Where a namespace's synthetic history stands, so a later size level appends to it."""

    name: str
    steps: int = 0
    turns: int = 0
    episodes: int = 0
    sessions: int = 0
    inventory: dict[str, int] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)


def resumed_plan(store: GraphStore, namespace: str, seed: int) -> NamespacePlan:
    """Where a namespace written by an earlier run stands (episodes fill up to EPISODE_LEN steps)."""
    counts = store.counts(namespace)
    turns = counts.get("Turn", 0)
    episodes = counts.get("Episode", 0) - (1 if turns else 0)
    return NamespacePlan(namespace, steps=counts.get("Step", 0), turns=turns, episodes=max(episodes, 0),
                         sessions=counts.get("Session", 0), rng=random.Random(1000 + seed))


#: Fills in the interval bounds (longest session, longest event time) that the dialogue writer keeps on
#: each dialogue Episode, for a namespace written before it did (an earlier run): the same maxima the
#: writer would have kept, so that recall's window reads are measured as a current writer leaves them.
UPGRADE_INTERVAL_BOUNDS = """
MATCH (e:Episode {namespace: $namespace})
WHERE e.kind = 'dialogue' AND (e.longest_session IS NULL OR e.longest_event IS NULL)
CALL (e) { MATCH (s:Session {namespace: $namespace}) WHERE s.episode = e.uid RETURN max(s.end - s.start) AS sessions }
CALL (e) {
  MATCH (t:Turn {namespace: $namespace}) WHERE t.event_start IS NOT NULL AND t.episode = e.uid
  RETURN max(t.event_end - t.event_start) AS events
}
SET e.longest_session = coalesce(sessions, 0.0), e.longest_event = coalesce(events, 0.0)
RETURN count(e) AS upgraded
"""


def upgrade_interval_bounds(store: GraphStore, namespaces: Sequence[str]) -> None:
    if not isinstance(store, Neo4jStore):
        return
    upgraded = 0
    for namespace in namespaces:
        rows, _, _ = store.driver.execute_query(UPGRADE_INTERVAL_BOUNDS, namespace=namespace, database_=store.database)
        upgraded += int(rows[0]["upgraded"]) if rows else 0
    if upgraded:
        log.info("kept the interval bounds of %d dialogue episode(s) written by an earlier run", upgraded)


class Writer:
    """Writes synthetic units through graphmem's write path; can record batches for the raw comparison."""

    def __init__(self, store: GraphStore, batch_size: int, vectors: bool = True) -> None:
        self.store = store
        embedder = RandomEmbedder(1) if vectors else DiscardedEmbedder()
        self.memory = Memory(store=store, embedder=embedder, boxes=False, contexts=SyntheticContexts(2))
        #: Steps and sessions go through graphmem's bulk path (each batch written while the next is built,
        #: several sessions per transaction).
        self.bulk = self.memory.bulk()
        self.batch_size = batch_size
        self.recorded: list[WriteBatch] | None = None
        inner_write = store.write

        def write(batch: WriteBatch) -> None:
            if not vectors:
                # Embeddings omitted: the rows as written, minus their vectors (no vector-index work).
                batch = WriteBatch(
                    tuple(NodeRow(r.label, r.namespace, r.uid, {k: v for k, v in r.props.items() if k != "embedding"}) for r in batch.nodes),
                    batch.edges,
                    batch.expect,
                )
            inner_write(batch)
            if self.recorded is not None:
                self.recorded.append(batch)

        store.write = write  # type: ignore[method-assign]

    def flush(self) -> None:
        """Wait until every step batch handed to the bulk writer is committed."""
        self.bulk.flush()

    def steps_for(self, plan: NamespacePlan, n: int, episode_len: int) -> list[StepCall]:
        """The next ``n`` synthetic steps of the namespace, as the bulk calls that write them (generated,
        not yet written; the plan advances)."""
        calls: list[StepCall] = []
        while n > 0:
            episode = f"run-{plan.episodes - 1}" if plan.episodes and plan.steps % episode_len else None
            if episode is None:
                plan.episodes += 1
                episode = f"run-{plan.episodes - 1}"
            start_t = plan.steps % episode_len
            take = min(n, self.batch_size, episode_len - start_t)
            calls.append(StepCall(plan.name, episode, [make_step(plan.rng, start_t + i, plan.inventory) for i in range(take)]))
            plan.steps += take
            n -= take
        return calls

    def sessions_for(self, plan: NamespacePlan, n: int) -> list[SessionCall]:
        """The next ``n`` synthetic turns of the namespace, in sessions, as the bulk calls that write them."""
        base = datetime(2023, 1, 1, tzinfo=UTC)
        calls: list[SessionCall] = []
        while n > 0:
            take = min(n, SESSION_LEN)
            s = plan.sessions
            sid = f"{plan.name}:s{s}"
            turns = [
                Turn(f"{sid}:{i}", "Maya" if i % 2 == 0 else "Sam", f"I keep thinking about {plan.rng.choice(TOPICS)} and "
                     f"{plan.rng.choice(TOPICS)}.")
                for i in range(take)
            ]
            calls.append(SessionCall(plan.name, sid, turns, base + timedelta(hours=6 * s)))
            plan.sessions += 1
            plan.turns += take
            n -= take
        return calls

    def write(self, calls: Sequence[StepCall | SessionCall]) -> None:
        """Hand the calls to graphmem's bulk path (steps batches and dialogue sessions, in order)."""
        for call in calls:
            if isinstance(call, StepCall):
                self.bulk.add_steps(call.namespace, call.episode, call.steps)
            else:
                self.bulk.add_session(call.namespace, call.session, call.turns, call.started_at)

    def add_steps(self, plan: NamespacePlan, n: int, episode_len: int) -> None:
        self.write(self.steps_for(plan, n, episode_len))

    def add_turns(self, plan: NamespacePlan, n: int) -> None:
        """Dialogue sessions through graphmem's bulk path (several sessions per transaction)."""
        self.write(self.sessions_for(plan, n))


@dataclass(frozen=True)
class StepCall:
    """A batch of synthetic steps for ``BulkWriter.add_steps``."""

    namespace: str
    episode: str
    steps: list[Step]


@dataclass(frozen=True)
class SessionCall:
    """A synthetic dialogue session for ``BulkWriter.add_session``."""

    namespace: str
    session: str
    turns: list[Turn]
    started_at: datetime


class SyntheticContexts:
    """Turn contexts without NLP (spaCy would take hours at a million turns): one turn in ten says when
    something happened, days before its session, so window recall has event times to seek."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def extract(self, turns: Sequence[Turn], session_start: datetime, speakers: Sequence[str]) -> list[TurnContext]:
        contexts = []
        for _ in turns:
            when = session_start - timedelta(days=self.rng.randint(1, 30)) if self.rng.random() < 0.1 else None
            contexts.append(TurnContext((), (), (), (), when, when + timedelta(days=1) if when else None, ()))
        return contexts


# --------------------------------------------------------------------------------------------- raw rate


def _flat(props: dict[str, Any]) -> dict[str, Any]:
    """A property map Neo4j can store as is: nested maps dropped, vectors as float lists."""
    out = {}
    for k, v in props.items():
        if isinstance(v, dict) or v is None:
            continue
        out[k] = [float(x) for x in v] if k == "embedding" else v
    return out


def raw_rows(batch: WriteBatch) -> list[dict[str, Any]]:
    rows = [_flat({**r.props, "namespace": r.namespace, "key": r.key, "uid": r.uid, "label": r.label}) for r in batch.nodes]
    rows += [_flat({**e.props, "namespace": e.namespace, "source": e.source, "target": e.target, "type": e.type}) for e in batch.edges]
    return rows


def raw_rate(store: Neo4jStore, batches: Sequence[WriteBatch]) -> tuple[float, int]:
    """Seconds to CREATE every row of these batches as plain nodes, one transaction per batch; rows created."""
    prepared = [raw_rows(b) for b in batches]
    total = 0
    started = time.perf_counter()
    with store.driver.session(database=store.database) as session:
        for rows in prepared:
            def work(tx: Any, rows: list[dict[str, Any]] = rows) -> None:
                for i in range(0, len(rows), CHUNK):
                    tx.run("UNWIND $rows AS r CREATE (n:Raw) SET n = r", rows=rows[i : i + CHUNK]).consume()
            session.execute_write(work)
            total += len(rows)
    seconds = time.perf_counter() - started
    with store.driver.session(database=store.database) as session:
        session.run("MATCH (n:Raw) CALL (n) { DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
    return seconds, total


# --------------------------------------------------------------------------------------------- measures


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    ms = sorted(s * 1000 for s in samples)
    pick = lambda q: ms[min(len(ms) - 1, round(q * (len(ms) - 1)))]
    return {"n": len(ms), "p50": round(pick(0.50), 2), "p95": round(pick(0.95), 2), "p99": round(pick(0.99), 2),
            "mean": round(statistics.fmean(ms), 2)}


def timed_queries(fn: Callable[[str, str], Any], targets: Sequence[tuple[str, str]], max_queries: int, max_seconds: float,
                  embedder: CachedEmbedder | None = None) -> list[float]:
    """Latencies of ``fn(namespace, question)`` over ``targets`` (cycled), after a short warm-up that asks
    each distinct question once; the model time ``embedder`` spends inside a query is subtracted."""
    warm = list(dict.fromkeys(targets[: min(5, len(targets))] + list({q: (ns, q) for ns, q in targets}.values())))
    for ns, q in warm:
        fn(ns, q)
    samples: list[float] = []
    deadline = time.monotonic() + max_seconds
    i = 0
    while len(samples) < max_queries and time.monotonic() < deadline:
        ns, q = targets[i % len(targets)]
        spent = embedder.spent if embedder is not None else 0.0
        started, cpu = time.perf_counter(), time.process_time()
        fn(ns, q)
        model = (embedder.spent - spent) if embedder is not None else 0.0
        samples.append(time.perf_counter() - started - model)
        CPU_SAMPLES.append(time.process_time() - cpu - model)
        i += 1
    return samples


def heap_used(store: Neo4jStore) -> int | None:
    try:
        rows, _, _ = store.driver.execute_query(
            "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
            "RETURN attributes.HeapMemoryUsage.value.properties.used AS used"
        )
        return int(rows[0]["used"])
    except Exception as exc:  # noqa: BLE001 - the JMX procedure is optional; the benchmark goes on without it
        log.warning("heap not available: %s", exc)
        return None


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@functools.lru_cache(maxsize=1)
def question_model() -> Any:
    """The model that embeds questions (MiniLM), loaded once."""
    from graphmem.embed import default_embedder

    embedder = default_embedder()
    embedder.embed(["warm up"])
    return embedder


def question_vectors(questions: Sequence[str]) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    embedder = question_model()
    cache, samples = {}, []
    for q in dict.fromkeys(questions):
        started = time.perf_counter()
        cache[q] = embedder.embed([q])[0]
        samples.append(time.perf_counter() - started)
    return cache, percentiles(samples)


def latency(store: GraphStore, cache: dict[str, np.ndarray], targets_traj: list[tuple[str, str]],
            targets_dialogue: list[tuple[str, str]], targets_search: list[tuple[str, str]], max_queries: int,
            max_seconds: float, units_of: dict[str, int]) -> dict[str, Any]:
    from graphmem.recall.dialogue.recall import recall_dialogue
    from graphmem.recall.trajectory import recall_steps

    embedder = CachedEmbedder(question_model(), cache)
    mem = Memory(store=store, embedder=embedder)
    out: dict[str, Any] = {}
    for kind, fn, targets_of in (
        ("recall_trajectory", lambda ns, q: recall_steps(store, embedder, ns, q, 300), targets_traj),
        ("recall_dialogue", lambda ns, q: recall_dialogue(store, embedder, ns, q, 300), targets_dialogue),
        ("search", lambda ns, q: mem.search(ns, q, 20), targets_search),
    ):
        CPU_SAMPLES.clear()
        out[kind] = percentiles(timed_queries(fn, targets_of, max_queries, max_seconds, embedder))
        out[kind]["client_cpu_p50"] = percentiles(CPU_SAMPLES).get("p50")
    # Share of the k=60 nearest units (or all of a smaller namespace's) that the namespace-filtered vector
    # search returns: 1.0 = complete.
    filled = [len(store.vector(ns, cache[q], 60)) / max(1, min(60, units_of[ns])) for ns, q in targets_search[:20]]
    out["vector_fill"] = round(statistics.fmean(filled), 3) if filled else None
    return out


def targets(namespaces: Sequence[str], questions: Sequence[str], rng: random.Random, n: int = 64) -> list[tuple[str, str]]:
    return [(rng.choice(list(namespaces)), rng.choice(list(questions))) for _ in range(n)]


# --------------------------------------------------------------------------------------------- phases


def embedding_phase(store: Neo4jStore | None, n_texts: int, batch_size: int, repeats: int = 3) -> dict[str, Any]:
    """Bare SentenceTransformer.encode vs our ingestion path on the same step texts."""
    from graphmem.embed import BATCH_SIZE, MiniLMEmbedder, _load_model
    from graphmem.ingest import ingest_files
    from graphmem.write.steps import step_search_text

    rng = random.Random(11)
    inventory: dict[str, int] = {}
    steps = [make_step(rng, t, inventory) for t in range(n_texts)]
    texts = [step_search_text(s) for s in steps]
    model = _load_model()
    model.encode(texts[:128], batch_size=BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    def bare() -> None:
        model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "embed-bench.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for s in steps:
                handle.write(json.dumps({"t": s.t, "action": s.action, "events": [vars(e) for e in s.events],
                                         "objects": list(s.objects), "inventory": dict(s.inventory),
                                         "location": {"position": list(s.location.position) if s.location.position else None,
                                                      "region": s.location.region, "underfoot": s.location.underfoot}}) + "\n")

        def ours() -> None:
            ingest_files(Memory(store=DiscardStore(), embedder=MiniLMEmbedder()), [path], "embed-bench", batch_size=batch_size,
                         progress=False)

        def ours_neo4j() -> None:
            assert store is not None
            store.delete_namespace("embed-bench")
            ingest_files(Memory(store=store, embedder=MiniLMEmbedder()), [path], "embed-bench", batch_size=batch_size,
                         progress=False)

        # Interleaved and best of `repeats`: on a shared machine the load moves between runs, and the
        # fastest run of each is the one least disturbed.
        runs: dict[str, list[float]] = {"bare": [], "ours": [], "neo4j": []}
        for _ in range(repeats):
            for name, fn in (("bare", bare), ("ours", ours), ("neo4j", ours_neo4j)):
                if name == "neo4j" and store is None:
                    continue
                started = time.perf_counter()
                fn()
                runs[name].append(time.perf_counter() - started)
        if store is not None:
            store.delete_namespace("embed-bench")
    best = {name: min(times) for name, times in runs.items() if times}
    result = {
        "texts": n_texts, "repeats": repeats, "seconds": {k: [round(x, 2) for x in v] for k, v in runs.items()},
        "bare_encode_per_s": round(n_texts / best["bare"], 1), "ingest_path_per_s": round(n_texts / best["ours"], 1),
        "ratio": round(best["bare"] / best["ours"], 3),
    }
    if "neo4j" in best:
        result |= {"ingest_into_neo4j_per_s": round(n_texts / best["neo4j"], 1), "ratio_with_neo4j": round(best["bare"] / best["neo4j"], 3)}
    return result


class DiscardStore:
    """A GraphStore that stores nothing: the ingestion path minus the database."""

    def ensure_schema(self) -> None: ...
    def write(self, batch: WriteBatch) -> None: ...
    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]: return {}
    def episode_nodes(self, namespace: str) -> list[EpisodeRow]: return []
    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]: return {ns: {} for ns in namespaces}
    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, StepRow]: return {}
    def close(self) -> None: ...


class _GcClock:
    """Wall time spent in the garbage collector from creation until ``stop``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started

    def stop(self) -> None:
        gc.callbacks.remove(self._tick)


def write_level(writer: Writer, store: Neo4jStore | None, plans: list[NamespacePlan], units: int, episode_len: int,
                raw_sample: int, budget: float) -> dict[str, Any]:
    """Add ``units`` units (half steps, half turns) spread evenly over ``plans``; time it; raw-compare a sample.

    Units go in chunks of about ``RAW_CHUNK`` units (of one namespace, or of several small ones: a chunk of
    the 10k level of 1,000 namespaces holds 200 namespaces' ten units), each waited for as a whole, as a
    bulk load waits for its writes at the end. About ``raw_sample`` units' worth of chunks,
    spread evenly over the level (every n-th chunk), are replayed as raw rows right after they are
    written, so both see the same load on a shared machine, and the sample sees the whole level.

    A chunk's synthetic steps and turns are generated before its clock starts (until commit af7d078 they were
    generated inside it: ``make_step`` and the turns' texts, a few per cent of a chunk on the client).

    The level's first chunk runs cold (after the latency phase, the write path's code and data are out
    of the server's and the CPU's caches: a raw replay after 11 s idle took 0.63-0.71 s where the next
    took 0.33) while its raw replay, right after it, runs warm. It is replayed too, but reported on its
    own (``first_chunk_ratio``) instead of in the sample; its time counts in ``units_per_s``.
    """
    from rich.progress import Progress

    per_ns = max(1, units // len(plans))
    # The level's pieces, (namespace, steps, turns), each at most RAW_CHUNK units; consecutive pieces make a
    # chunk of about RAW_CHUNK units (one namespace's, or many small namespaces' together, as a bulk load
    # of many users writes them), waited for as a whole.
    pieces: list[tuple[NamespacePlan, int, int]] = []
    for plan in plans:
        steps, turns = per_ns // 2, per_ns - per_ns // 2
        while steps or turns:
            take_steps, take_turns = min(steps, RAW_CHUNK // 2), min(turns, RAW_CHUNK // 2)
            pieces.append((plan, take_steps, take_turns))
            steps, turns = steps - take_steps, turns - take_turns
    chunk_pieces: list[list[tuple[NamespacePlan, int, int]]] = [[]]
    for piece in pieces:
        if sum(s + t for _, s, t in chunk_pieces[-1]) + piece[1] + piece[2] > RAW_CHUNK:
            chunk_pieces.append([])
        chunk_pieces[-1].append(piece)
    chunk_pieces = [c for c in chunk_pieces if c]
    sample_units, sample_rows, sample_seconds, raw_seconds, raw_count, written = 0, 0, 0.0, 0.0, 0, 0
    chunk_ratios: list[float] = []
    chunk_seconds: list[tuple[float, float]] = []  # (ours, raw) per sampled chunk
    # The objects alive before the level (the models and caches of the earlier phases: torch, spaCy,
    # MiniLM) are moved out of the collector's reach. Left in, each full collection walks them all
    # (about 0.3 s each, 19 of them in a 90k-unit level: a quarter of its time, and the chunks that
    # caught one looked twice as slow as their raw replay). A long-lived process that loads models can
    # do the same after loading them; `graphmem ingest` does.
    gc.collect()
    gc.freeze()
    gc_seconds = _GcClock()
    chunk_units = max(1, units // len(chunk_pieces))
    sampled_chunks = -(-raw_sample // chunk_units)
    every = max(1, len(chunk_pieces) // sampled_chunks) if raw_sample else 0
    first_chunk_ratio: float | None = None
    raw_total = 0.0
    started = time.perf_counter()
    deadline = time.monotonic() + budget
    with Progress(transient=True) as bar:  # a level can take minutes
        task = bar.add_task(f"writing {per_ns * len(plans):,} units", total=per_ns * len(plans))
        for chunk, group in enumerate(chunk_pieces):
            if time.monotonic() >= deadline:
                log.warning("write budget of %.0fs spent: this level stops at %d units", budget, written)
                break
            first = chunk == 0
            sampling = store is not None and every > 0 and (first or ((chunk - 1) % every == 0 and sample_units < raw_sample))
            recorded: list[WriteBatch] = []
            writer.recorded = recorded if sampling else None
            # The chunk's records are made before its clock starts: generating synthetic input is the
            # benchmark's work, not graphmem's writing (the raw replay is timed on finished rows too).
            calls = [call for plan, take_steps, take_turns in group
                     for call in (*writer.steps_for(plan, take_steps, episode_len), *writer.sessions_for(plan, take_turns))]
            t0 = time.perf_counter()
            if len(group) > 1:
                # Many small namespaces: their episodes are read in one query (BulkWriter.prefetch).
                writer.bulk.prefetch([plan.name for plan, _, _ in group])
            writer.write(calls)
            writer.flush()
            elapsed = time.perf_counter() - t0
            writer.recorded = None
            group_units = sum(s + t for _, s, t in group)
            if sampling and store is not None and first:
                t1 = time.perf_counter()
                seconds, _ = raw_rate(store, recorded)
                first_chunk_ratio = seconds / elapsed
                raw_total += time.perf_counter() - t1
            elif sampling and store is not None:
                sample_seconds += elapsed
                sample_units += group_units
                sample_rows += sum(len(b.nodes) + len(b.edges) for b in recorded)
                t1 = time.perf_counter()
                seconds, count = raw_rate(store, recorded)
                raw_seconds, raw_count = raw_seconds + seconds, raw_count + count
                chunk_ratios.append(seconds / elapsed)
                chunk_seconds.append((round(elapsed, 3), round(seconds, 3)))
                raw_total += time.perf_counter() - t1  # with the clean-up of the raw nodes
            written += group_units
            bar.update(task, advance=group_units)
    seconds = time.perf_counter() - started - raw_total
    gc_seconds.stop()
    result: dict[str, Any] = {
        "units": written, "seconds": round(seconds, 1), "units_per_s": round(written / seconds, 1),
        # Time this process spent in the garbage collector during the level (raw replays included).
        "client_gc_seconds": round(gc_seconds.seconds, 2),
    }
    if sample_units:
        result |= {
            "sample_units": sample_units, "sample_rows": sample_rows, "ours_rows_per_s": round(sample_rows / sample_seconds, 1),
            "raw_rows_per_s": round(raw_count / raw_seconds, 1), "ratio_to_raw": round(raw_seconds / sample_seconds, 3),
            # Per sampled chunk: the overall ratio above carries a slow chunk (a garbage collection, a
            # replan of the write statements) in full; the median shows the typical chunk.
            "chunk_ratios": [round(r, 3) for r in chunk_ratios],
            "chunk_seconds": chunk_seconds,
            "ratio_to_raw_median_chunk": round(statistics.median(chunk_ratios), 3),
        }
    if first_chunk_ratio is not None:
        result["first_chunk_ratio"] = round(first_chunk_ratio, 3)
    return result


def embedded_phase(sizes: Sequence[int], cache: dict[str, np.ndarray], batch_size: int, max_queries: int,
                   max_seconds: float) -> list[dict[str, Any]]:
    store = EmbeddedStore()
    writer = Writer(store, batch_size)
    plan = NamespacePlan("embedded-one", rng=random.Random(5))
    results = []
    done = 0
    base_rss = rss_bytes()
    for size in sizes:
        started = time.perf_counter()
        level = size - done
        writer.add_steps(plan, level // 2, EPISODE_LEN)
        writer.add_turns(plan, level - level // 2)
        writer.flush()
        done = size
        seconds = time.perf_counter() - started
        rng = random.Random(size)
        lat = latency(store, cache, targets([plan.name], TRAJECTORY_QUESTIONS, rng), targets([plan.name], DIALOGUE_QUESTIONS, rng),
                      targets([plan.name], SEARCH_QUESTIONS, rng), max_queries, max_seconds, {plan.name: plan.steps + plan.turns})
        rss = rss_bytes() - base_rss
        results.append({"size": size, "loadavg": [round(x, 2) for x in os.getloadavg()], "write_units_per_s": round(level / seconds, 1), "rss_bytes": rss,
                        "bytes_per_unit": round(rss / size), **lat})
        log.info("embedded %d: %s", size, results[-1])
    return results


# --------------------------------------------------------------------------------------------- report


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=200)  # the table is wide; a log file has no terminal width
    table = Table(title="graphmem scale (Neo4j)")
    for col in ("layout", "size", "write u/s", "raw ratio", "traj p50/p95/p99 ms", "dialogue p50/p95/p99 ms",
                "search p50/p95/p99 ms", "vec fill", "heap MB", "store B/unit"):
        table.add_column(col, justify="right")
    fmt = lambda p: f"{p.get('p50', '-')}/{p.get('p95', '-')}/{p.get('p99', '-')}" if p else "-"
    for row in report["neo4j"]:
        table.add_row(
            row["layout"], f"{row['size']:,}", f"{row['write']['units_per_s']:,}", str(row["write"].get("ratio_to_raw", "-")),
            fmt(row["latency"]["recall_trajectory"]), fmt(row["latency"]["recall_dialogue"]), fmt(row["latency"]["search"]),
            str(row["latency"].get("vector_fill")), str(round((row.get("heap_used") or 0) / 2**20)),
            str(row.get("store_bytes_per_unit", "-")),
        )
    console.print(table)
    if report.get("embedded"):
        table = Table(title="embedded backend")
        for col in ("size", "write u/s", "traj p50/p95/p99 ms", "dialogue p50/p95/p99 ms", "search p50/p95/p99 ms", "RSS B/unit"):
            table.add_column(col, justify="right")
        for row in report["embedded"]:
            table.add_row(f"{row['size']:,}", f"{row['write_units_per_s']:,}", fmt(row["recall_trajectory"]),
                          fmt(row["recall_dialogue"]), fmt(row["search"]), f"{row['bytes_per_unit']:,}")
        console.print(table)
    if report.get("warm_up"):
        w = report["warm_up"]
        console.print(f"warm-up (throwaway namespace, before the levels): {w['units']:,} units, "
                      f"{w['units_per_s']:,} units/s, raw ratio {w.get('ratio_to_raw', '-')} "
                      f"(median chunk {w.get('ratio_to_raw_median_chunk', '-')})")
    if report.get("embedding"):
        console.print(f"embedding: {report['embedding']}")
    console.print(f"question embedding (MiniLM, one question): {report['question_embedding_ms']} ms")
    if report.get("growth"):
        console.print(f"p95 growth smallest -> largest size: {report['growth']}")


def plot(report: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed (pip install matplotlib): no plot")
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for layout in sorted({r["layout"] for r in report["neo4j"]}):
        rows = sorted((r for r in report["neo4j"] if r["layout"] == layout), key=lambda r: r["size"])
        for kind, style in (("recall_trajectory", "-o"), ("recall_dialogue", "-s"), ("search", "-^")):
            ax.plot([r["size"] for r in rows], [r["latency"][kind].get("p95", float("nan")) for r in rows], style,
                    label=f"neo4j {layout}: {kind} p95")
    if report.get("embedded"):
        rows = report["embedded"]
        ax.plot([r["size"] for r in rows], [r["recall_trajectory"].get("p95", float("nan")) for r in rows], "--o",
                label="embedded: recall_trajectory p95")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("units in the layout")
    ax.set_ylabel("latency p95 (ms, question embedding excluded)")
    ax.axhline(50, color="grey", linestyle=":", linewidth=1)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


WARM_UP_NAMESPACE = "scale-warmup"


def warm_up(store: Neo4jStore, units: int, batch_size: int, vectors: bool, raw_sample: int, budget: float) -> dict[str, Any]:
    """Write ``units`` units into a throwaway namespace, raw-compared like any level, then delete it.

    A freshly started server runs its first few thousand units' writes at a fraction of its later rate
    while the JVM compiles the write path (its JIT threads take one of the two cores; see the README's
    Scale section). The levels after a warm-up measure the server as it runs from then on; the warm-up's
    own row is the cold figure, kept in the report.
    """
    store.delete_namespace(WARM_UP_NAMESPACE)
    plan = NamespacePlan(WARM_UP_NAMESPACE, rng=random.Random(-1))
    result = write_level(Writer(store, batch_size, vectors=vectors), store, [plan], units, EPISODE_LEN, min(raw_sample, units), budget)
    store.delete_namespace(WARM_UP_NAMESPACE)
    return result


# --------------------------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="units per layout (cumulative)")
    parser.add_argument("--layouts", nargs="+", choices=("one", "many"), default=["one", "many"])
    parser.add_argument("--batch-size", type=int, default=512, help="steps per write transaction")
    parser.add_argument("--raw-sample", type=int, default=10_000, help="units per level replayed as raw CREATE rows")
    parser.add_argument("--queries", type=int, default=120, help="queries per latency measure (and at most --query-seconds)")
    parser.add_argument("--query-seconds", type=float, default=60.0)
    parser.add_argument("--warm-up", type=int, default=100_000, metavar="UNITS",
                        help="write this many units into a throwaway namespace first, measured and reported apart "
                             "as 'warm_up' (the cold server's figure), then deleted: a freshly started server spends "
                             "its first minute of writes compiling its write path (0 to skip)")
    parser.add_argument("--write-budget", type=float, default=4 * 3600.0, help="seconds at most per write level")
    parser.add_argument("--embed-texts", type=int, default=1000, help="texts for the embedding-throughput phase (0: skip)")
    parser.add_argument("--embedded-sizes", type=int, nargs="*", default=[10_000, 100_000], help="embedded backend sizes")
    parser.add_argument("--resume", action="store_true", help="append to the layouts a previous run left (no delete)")
    parser.add_argument("--remeasure", action="store_true",
                        help="with --resume: measure latency once at what a layout already holds when a size is skipped")
    parser.add_argument("--home", type=Path, default=SERVER_HOME, help="the benchmark server's home (data, conf, logs)")
    parser.add_argument("--bolt-port", type=int, default=BOLT_PORT)
    parser.add_argument("--http-port", type=int, default=HTTP_PORT)
    parser.add_argument("--no-vectors", action="store_true", help="write without embeddings (no vector-index work)")
    parser.add_argument("--uri", default=None, help="use this server instead of starting one (bolt://127.0.0.1:...)")
    parser.add_argument("--password", default=neo4j_server.DEFAULT_PASSWORD)
    parser.add_argument("--keep-server", action="store_true", help="leave the benchmark's own server running")
    parser.add_argument("--out", type=Path, default=RESULTS / "scale.json")
    parser.add_argument("--png", type=Path, default=RESULTS / "scale_latency.png")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # unknown-property notifications on a fresh database

    config = neo4j_server.Neo4jServerConfig.from_env(
        home=args.home, lib_dir=neo4j_server.default_home() / "lib", bolt_port=args.bolt_port, http_port=args.http_port,
        password=args.password,
    )
    started_server = False
    uri = args.uri
    if uri is None:
        started_server = not neo4j_server.status(config).running
        uri = neo4j_server.start(config).bolt_uri
    assert "127.0.0.1" in uri or "localhost" in uri, "the benchmark only talks to a local server"
    store = Neo4jStore(uri, auth=("neo4j", args.password))
    store.ensure_schema()
    report: dict[str, Any] = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "neo4j": neo4j_server.NEO4J_VERSION, "heap_max": config.heap_max, "pagecache": config.pagecache},
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items() if k != "password"},
        "vectors": ("writes omit embeddings (no vector-index work)" if args.no_vectors else
                    "writes use fresh random unit vectors (384-d) in place of the model") + "; dialogue NLP skipped",
        "neo4j": [],
    }
    try:
        all_questions = TRAJECTORY_QUESTIONS + DIALOGUE_QUESTIONS
        cache, report["question_embedding_ms"] = question_vectors(all_questions)
        if args.embed_texts > 0:
            report["embedding"] = embedding_phase(store, args.embed_texts, args.batch_size)
            log.info("embedding: %s", report["embedding"])

        if args.warm_up > 0:
            report["warm_up"] = warm_up(store, args.warm_up, args.batch_size, not args.no_vectors, args.raw_sample, args.write_budget)
            log.info("warm-up: %s", report["warm_up"])

        db_units: dict[str, int] = {}
        for layout in args.layouts:
            names = ["scale-one"] if layout == "one" else [f"scale-many-{i:04d}" for i in range(MANY)]
            if args.resume:
                # Continue the layout a previous run left in the database: sizes count what is there.
                plans = [resumed_plan(store, ns, i) for i, ns in enumerate(names)]
                upgrade_interval_bounds(store, names)
            else:
                for ns in names:  # a fresh start: sizes are cumulative within this run only
                    store.delete_namespace(ns)
                plans = [NamespacePlan(ns, rng=random.Random(i)) for i, ns in enumerate(names)]
            writer = Writer(store, args.batch_size, vectors=not args.no_vectors)
            done = sum(p.steps + p.turns for p in plans)
            remeasured = False
            for size in sorted(args.sizes):
                if size <= done:
                    log.info("%s: %d units already stored, skipping size %d", layout, done, size)
                    if not (args.resume and args.remeasure) or remeasured:
                        continue
                    # Latency at what the layout holds, with the code as it is now; nothing is written.
                    remeasured = True
                    size, write = done, {"units_per_s": 0, "note": "remeasured: written by an earlier run"}
                else:
                    level = size - done
                    log.info("%s: writing %d units (to %d)", layout, level, size)
                    write = write_level(writer, store, plans, level, EPISODE_LEN, min(args.raw_sample, level), args.write_budget)
                    done = size
                log.info("%s %d write: %s", layout, size, write)
                rng = random.Random(size)
                lat = latency(store, cache, targets(names, TRAJECTORY_QUESTIONS, rng), targets(names, DIALOGUE_QUESTIONS, rng),
                              targets(names, SEARCH_QUESTIONS, rng), args.queries, args.query_seconds,
                              {p.name: p.steps + p.turns for p in plans})
                db_dir = config.data_dir / "databases" / "neo4j"
                total_units = sum(p.steps + p.turns for p in plans)
                row = {"layout": layout, "size": size, "loadavg": [round(x, 2) for x in os.getloadavg()], "units_in_layout": total_units, "write": write, "latency": lat,
                       "heap_used": heap_used(store), "store_bytes": dir_bytes(db_dir),
                       "tx_log_bytes": dir_bytes(config.data_dir / "transactions" / "neo4j")}
                db_units[layout] = total_units
                row["db_units"] = sum(db_units.values())
                row["store_bytes_per_unit"] = round(row["store_bytes"] / max(row["db_units"], 1))
                row["heap_bytes_per_unit"] = round((row["heap_used"] or 0) / max(row["db_units"], 1))
                report["neo4j"].append(row)
                log.info("%s %d latency: %s", layout, size, lat)
                _save(report, args.out)
        growth = {}
        for layout in args.layouts:
            rows = sorted((r for r in report["neo4j"] if r["layout"] == layout), key=lambda r: r["size"])
            if len(rows) >= 2:
                growth[layout] = {
                    kind: round(rows[-1]["latency"][kind]["p95"] / max(rows[0]["latency"][kind]["p95"], 1e-9), 2)
                    for kind in ("recall_trajectory", "recall_dialogue", "search")
                }
        report["growth"] = growth
        if args.embedded_sizes:
            report["embedded"] = embedded_phase(sorted(args.embedded_sizes), cache, args.batch_size, args.queries, args.query_seconds)
        report["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        _save(report, args.out)
        print_table(report)
        plot(report, args.png)
    finally:
        store.close()
        if started_server and not args.keep_server:
            neo4j_server.stop(config)
    return 0


def _save(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
