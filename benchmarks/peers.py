"""Dialogue recall side by side: graphmem against what a Neo4j user would build with neo4j-graphrag or langchain-neo4j.

    python benchmarks/peers.py --uri bolt://127.0.0.1:7688
    python benchmarks/peers.py --uri bolt://127.0.0.1:7688 --conversations 1 --limit 20   # a smoke run
    python benchmarks/peers.py --budgets 150 300 600 1200 --top-k 100 --server-pid 12345

Start a server of your own for it (the default URI is the project server on 7687, which others may use):

    python -m graphmem neo4j start --home /tmp/peers-neo4j --bolt-port 7688 --http-port 7475

Three systems on ONE Neo4j 5.26 server, with the same MiniLM vectors (``graphmem.embed.default_embedder``,
wrapped in each library's embedder interface):

* ``graphmem``: ``graphmem.Memory`` on Neo4j, each session through ``Memory.add_session``, each question
  through ``Memory.recall`` at every budget (recall packs its own evidence).
* ``graphrag_hybrid``: neo4j-graphrag's ``HybridRetriever`` over one node per turn (its text and its
  embedding), a vector index and a full-text index made with ``neo4j_graphrag.indexes``; nodes written with
  the driver and the vectors with ``upsert_vectors``. The question goes to Lucene as it is, as the library's
  examples pass it; a question Lucene cannot parse (a "/" or a quote left open: the library raises) is
  sent again with its special characters escaped (counted as ``lucene_retries``, both calls timed).
* ``langchain_hybrid``: langchain-neo4j's ``Neo4jVector`` in hybrid search mode, loaded with ``from_texts``
  (one node per turn), asked with ``similarity_search_by_vector(vector, k, query=question)`` (the library
  strips Lucene's special characters itself).

Data: the LoCoMo development conversations (``--data``, default ``../shared/data/locomo-dev``, else the test
copy in ``tests/data/locomo-dev``), the LongMemEval sample in ``tests/data`` (reported apart: a few turns per
item), and graphmem's bundled demo dialogue, which every system ingests first as a warm-up (models and
connections load there; it has no questions). Each conversation is loaded into every system afresh (each
system's earlier nodes and indexes removed first: the peers under their own labels and index names,
graphmem's under namespaces ``peers-<conversation>``), ingest timed per system (wall clock and process CPU;
the server's CPU too with ``--server-pid``).

Ingest includes embedding the turns (the same model, batched, for all three) and, for a peer, creating its
two indexes and waiting until they are online; graphmem's schema is made once, when ``Memory`` opens.

Queries: every question of a conversation is asked of every system in rotating order (the system that goes
first changes with each question, so all see the same machine load), after a few warm-up questions that are
not in the data. A peer retrieves ``--top-k`` turns once and packs them, in its ranking order, into every
budget with ``graphmem.recall.packer.pack`` in graphmem's compact line format (the session's date once per
session group, then ``speaker: text [photo: caption]``, the format ``benchmarks/locomo.py`` gives its
baselines), so differences come from which turns are chosen. Recall is the share of a question's gold
``dia_id``s inside the packed evidence (cl100k_base budgets), per budget and per category. Latency is the
retrieve call alone, p50 / p95: a peer's search call; graphmem's recall at the largest budget (its packing
included), the first of its calls for a question, so nothing it keeps per question text helps it. The
question's embedding is excluded for every system: all questions are embedded before the timed loop and
the vectors handed in; graphmem embeds its own reading of the question (without the names, with its
out-of-vocabulary words), which its embedder looks up in that cache, and a text the cache lacks is embedded
once, its model time subtracted from that call's latency.

Output: a table (recall at each budget, p50 / p95 ms, ingest s per conversation, with ratios to the fastest
peer), the machine's load (``os.getloadavg`` before and after, CPU count), and JSON under
``benchmarks/results/peers_<commit>.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any, Protocol, cast

import neo4j
import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_neo4j import Neo4jVector
from neo4j_graphrag.embeddings.base import Embedder as GraphragEmbedderBase
from neo4j_graphrag.exceptions import SearchQueryParseError
from neo4j_graphrag.indexes import create_fulltext_index, create_vector_index, drop_index_if_exists, upsert_vectors
from neo4j_graphrag.retrievers import HybridRetriever
from neo4j_graphrag.types import RetrieverResultItem, SearchType

from graphmem import Memory
from graphmem.embed import default_embedder
from graphmem.loaders.chat_jsonl import load_chat_jsonl
from graphmem.loaders.dialogue import Conversation
from graphmem.loaders.locomo import load_locomo
from graphmem.loaders.longmemeval import load_longmemeval
from graphmem.neo4j_server import DEFAULT_PASSWORD
from graphmem.recall.packer import Evidence, PackItem, pack

REPO = Path(__file__).resolve().parent.parent
DIMENSIONS = 384
SYSTEMS = ("graphmem", "graphrag_hybrid", "langchain_hybrid")
PEERS = SYSTEMS[1:]
NAMESPACE_PREFIX = "peers-"
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: Properties each peer keeps on a turn node beside its text and embedding: what its evidence line is made of.
TURN_PROPERTIES = ["uid", "speaker", "utterance", "image_caption", "session_start", "seq"]
#: Asked of every system before the timed questions (query plans, connection pools, graphmem's vocabulary).
WARM_UP_QUESTIONS = ("What did {a} talk about?", "When did {b} last mention a trip?", "What does {a} like to do?")
_CAPTION_PREFIX = re.compile(r"^(?:a\s+)?(?:photo|photograph|photography|picture|image)\s+of\s+", re.IGNORECASE)
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def default_data_dir() -> Path:
    shared = REPO.parent / "shared" / "data" / "locomo-dev"
    return shared if shared.exists() else REPO / "tests" / "data" / "locomo-dev"


# ------------------------------------------------------------------------------------- evidence lines


def session_header(start: datetime) -> str:
    """A session group's header as graphmem writes it ("8 May 2023:")."""
    return f"{start.astimezone(UTC):%-d %b %Y}:"


def turn_line(speaker: str, utterance: str, caption: str | None) -> str:
    """A turn's compact line as graphmem writes one it has no event time for: ``speaker: text [photo: caption]``
    (the caption without its "a photo of" opening)."""
    line = f"{speaker}: {utterance.strip()}"
    if caption:
        line += f" [photo: {_CAPTION_PREFIX.sub('', caption.strip()) or caption.strip()}]"
    return line


@dataclass(frozen=True)
class TurnDoc:
    """One turn as a peer stores it: the indexed text (embedded and full-text searched) and its properties."""

    uid: str
    speaker: str
    utterance: str
    image_caption: str | None
    session_start: float
    seq: int

    @property
    def text(self) -> str:
        return f"{self.speaker}: {self.utterance} {self.image_caption or ''}".strip()

    def properties(self) -> dict[str, Any]:
        props = {name: getattr(self, name) for name in TURN_PROPERTIES}
        return {k: v for k, v in props.items() if v is not None}


def turn_docs(conv: Conversation) -> list[TurnDoc]:
    docs: list[TurnDoc] = []
    for session in conv.sessions:
        start = session.started_at.astimezone(UTC).timestamp()
        for turn in session.turns:
            docs.append(TurnDoc(turn.id, turn.speaker, turn.text, turn.image_caption, start, len(docs)))
    return docs


def pack_item(props: dict[str, Any]) -> PackItem:
    """A retrieved turn node's properties as a line under its session's date."""
    header = session_header(datetime.fromtimestamp(float(props["session_start"]), tz=UTC))
    line = turn_line(str(props["speaker"]), str(props["utterance"]), props.get("image_caption"))
    return PackItem(str(props["uid"]), line, order=float(props["seq"]), header=header)


# ------------------------------------------------------------------------------------------ embedders


class QuestionVectors:
    """graphmem's embedder for every system. While ``cached`` is off (ingest) it passes texts straight to the
    model; while on (questions) it answers from ``cache``, embeds a missing text once and adds the model's
    seconds to ``spent``, which the timed calls subtract."""

    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self.model = default_embedder()
        #: The model's name: graphmem's query expansion then reads that model's vocabulary table.
        self.name = self.model.name
        self.cache: dict[str, np.ndarray] = {}
        self.cached = False
        self.spent = 0.0
        self.misses = 0

    def precompute(self, texts: Sequence[str]) -> dict[str, list[float]]:
        """Embed the questions up front (untimed); their vectors as the lists the peers take."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for text, vector in zip(missing, self.model.embed(missing), strict=True):
            self.cache[text] = vector
        return {t: [float(x) for x in self.cache[t]] for t in texts}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not self.cached:
            return self.model.embed(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            started = time.perf_counter()
            for text, vector in zip(missing, self.model.embed(missing), strict=True):
                self.cache[text] = vector
            self.spent += time.perf_counter() - started
            self.misses += len(missing)
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, DIMENSIONS), dtype=np.float32)


class GraphragEmbedder(GraphragEmbedderBase):
    """neo4j-graphrag's embedder interface over the shared vectors. Its interface embeds one query at a
    time; ``embed_documents`` batches a load's turns as graphmem's writer and langchain do."""

    def __init__(self, vectors: QuestionVectors) -> None:
        super().__init__()
        self.vectors = vectors

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.vectors.embed([text])[0]]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return cast(list[list[float]], self.vectors.embed(texts).tolist())


class LangchainEmbeddings(Embeddings):
    """langchain's embeddings interface over the shared vectors."""

    def __init__(self, vectors: QuestionVectors) -> None:
        self.vectors = vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return cast(list[list[float]], self.vectors.embed(texts).tolist())

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.vectors.embed([text])[0]]


# -------------------------------------------------------------------------------------------- systems


@dataclass
class Asked:
    """One system's answer to one question: the evidence per budget and the timed call(s) in ms."""

    evidence: dict[int, Evidence]
    ms: float
    ms_by_budget: dict[int, float] = field(default_factory=dict)
    #: Texts the embedder lacked during the timed calls, and the model's ms for them (subtracted from ``ms``).
    embedded: int = 0
    embed_ms: float = 0.0


class System(Protocol):
    name: str

    def clear(self) -> None: ...

    def ingest(self, conv: Conversation, docs: list[TurnDoc]) -> None: ...

    def prepare(self) -> None: ...

    def ask(self, question: str, vector: list[float], budgets: Sequence[int]) -> Asked: ...

    def close(self, keep: bool = False) -> None: ...


class GraphmemSystem:
    name = "graphmem"

    def __init__(self, uri: str, auth: tuple[str, str], vectors: QuestionVectors) -> None:
        self.vectors = vectors
        self.mem = Memory(uri, auth=auth, embedder=vectors)
        self.namespace = ""

    def clear(self) -> None:
        for namespace in self.mem.namespaces():
            if namespace.startswith(NAMESPACE_PREFIX):
                self.mem.forget(namespace)

    def ingest(self, conv: Conversation, docs: list[TurnDoc]) -> None:
        self.namespace = NAMESPACE_PREFIX + conv.conversation_id
        for session in conv.sessions:
            self.mem.add_session(self.namespace, session.session_id, session.turns, started_at=session.started_at)

    def prepare(self) -> None:
        pass

    def ask(self, question: str, vector: list[float], budgets: Sequence[int]) -> Asked:
        evidence, ms = {}, {}
        spent0, misses0 = self.vectors.spent, self.vectors.misses
        # The largest budget first: its call is the one reported, and the first recall of a question pays
        # for what graphmem keeps per question text (its parse), which the later budgets' calls reuse.
        for budget in sorted(budgets, reverse=True):
            spent = self.vectors.spent
            started = time.perf_counter()
            evidence[budget] = self.mem.recall(self.namespace, question, budget=budget)
            ms[budget] = (time.perf_counter() - started - (self.vectors.spent - spent)) * 1000
        embedded, embed_ms = self.vectors.misses - misses0, (self.vectors.spent - spent0) * 1000
        return Asked(evidence, ms[max(budgets)], ms, embedded, embed_ms)

    def close(self, keep: bool = False) -> None:
        if not keep:
            self.clear()
        self.mem.close()


class PeerSystem:
    """What a peer shares: its own label and indexes, cleared with the driver; packing of its ranking."""

    name = ""
    label = ""
    vector_index = ""
    fulltext_index = ""

    def __init__(self, uri: str, auth: tuple[str, str], vectors: QuestionVectors, top_k: int) -> None:
        self.uri, self.auth, self.vectors, self.top_k = uri, auth, vectors, top_k
        self.driver = neo4j.GraphDatabase.driver(uri, auth=auth)

    def clear(self) -> None:
        drop_index_if_exists(self.driver, self.vector_index)
        drop_index_if_exists(self.driver, self.fulltext_index)
        self.driver.execute_query(f"MATCH (n:`{self.label}`) DETACH DELETE n")
        constraints, _, _ = self.driver.execute_query(
            "SHOW CONSTRAINTS YIELD name, labelsOrTypes WHERE $label IN labelsOrTypes RETURN name", label=self.label
        )
        for record in constraints:
            self.driver.execute_query(f"DROP CONSTRAINT `{record['name']}` IF EXISTS")

    def create_indexes(self) -> None:
        create_vector_index(self.driver, self.vector_index, self.label, "embedding", DIMENSIONS, "cosine")
        create_fulltext_index(self.driver, self.fulltext_index, self.label, ["text"])

    def await_indexes(self) -> None:
        self.driver.execute_query("CALL db.awaitIndexes(300)")

    def packed(self, ranked: list[dict[str, Any]], budgets: Sequence[int]) -> dict[int, Evidence]:
        items = [pack_item(props) for props in ranked]
        return {budget: pack(items, budget) for budget in budgets}

    def close(self, keep: bool = False) -> None:
        if not keep:
            self.clear()
        self.driver.close()


class GraphragSystem(PeerSystem):
    name = "graphrag_hybrid"
    label = "PeersGraphragTurn"
    vector_index = "peers_graphrag_vector"
    fulltext_index = "peers_graphrag_fulltext"

    def __init__(self, uri: str, auth: tuple[str, str], vectors: QuestionVectors, top_k: int) -> None:
        super().__init__(uri, auth, vectors, top_k)
        self.embedder = GraphragEmbedder(vectors)
        self.retriever: HybridRetriever | None = None
        self.lucene_retries = 0

    def ingest(self, conv: Conversation, docs: list[TurnDoc]) -> None:
        self.create_indexes()
        embeddings = self.embedder.embed_documents([d.text for d in docs])
        records, _, _ = self.driver.execute_query(
            f"UNWIND $rows AS row CREATE (n:`{self.label}`) SET n = row RETURN elementId(n) AS id",
            rows=[{**d.properties(), "text": d.text} for d in docs],
        )
        upsert_vectors(self.driver, [r["id"] for r in records], "embedding", embeddings)
        self.await_indexes()

    def prepare(self) -> None:
        self.retriever = HybridRetriever(
            self.driver, self.vector_index, self.fulltext_index, embedder=self.embedder,
            return_properties=TURN_PROPERTIES, result_formatter=_graphrag_item,
        )

    def ask(self, question: str, vector: list[float], budgets: Sequence[int]) -> Asked:
        assert self.retriever is not None, "prepare() first"
        started = time.perf_counter()
        try:
            result = self.retriever.search(query_text=question, query_vector=vector, top_k=self.top_k)
        except (SearchQueryParseError, neo4j.exceptions.ClientError) as exc:
            # The library names Lucene's ParseException; its TokenMgrError (an unclosed "/" or quote) comes
            # through as the driver's error.
            if not isinstance(exc, SearchQueryParseError) and "org.apache.lucene" not in str(exc):
                raise
            self.lucene_retries += 1
            result = self.retriever.search(query_text=_LUCENE_SPECIAL.sub(r"\\\1", question), query_vector=vector, top_k=self.top_k)
        ms = (time.perf_counter() - started) * 1000
        return Asked(self.packed([item.metadata or {} for item in result.items], budgets), ms)


def _graphrag_item(record: neo4j.Record) -> RetrieverResultItem:
    node = record.get("node") or {}
    return RetrieverResultItem(content=node.get("utterance"), metadata={**node, "score": record.get("score")})


class LangchainSystem(PeerSystem):
    name = "langchain_hybrid"
    label = "PeersLangchainTurn"
    vector_index = "peers_langchain_vector"
    fulltext_index = "peers_langchain_keyword"

    def __init__(self, uri: str, auth: tuple[str, str], vectors: QuestionVectors, top_k: int) -> None:
        super().__init__(uri, auth, vectors, top_k)
        self.embeddings = LangchainEmbeddings(vectors)
        self.store: Neo4jVector | None = None

    def ingest(self, conv: Conversation, docs: list[TurnDoc]) -> None:
        self.close_store()
        self.store = Neo4jVector.from_texts(
            [d.text for d in docs], self.embeddings, metadatas=[d.properties() for d in docs], ids=[d.uid for d in docs],
            url=self.uri, username=self.auth[0], password=self.auth[1], search_type=SearchType.HYBRID,
            index_name=self.vector_index, keyword_index_name=self.fulltext_index, node_label=self.label,
            embedding_dimension=DIMENSIONS,
        )
        self.await_indexes()

    def prepare(self) -> None:
        pass

    def ask(self, question: str, vector: list[float], budgets: Sequence[int]) -> Asked:
        assert self.store is not None, "ingest() first"
        started = time.perf_counter()
        found = self.store.similarity_search_by_vector(vector, k=self.top_k, query=question)
        ms = (time.perf_counter() - started) * 1000
        return Asked(self.packed([doc.metadata for doc in found], budgets), ms)

    def close_store(self) -> None:
        """Close the driver ``from_texts`` opened for its store (``Neo4jVector`` has no close of its own)."""
        if self.store is not None:
            self.store._driver.close()
            self.store = None

    def close(self, keep: bool = False) -> None:
        self.close_store()
        super().close(keep)


# ------------------------------------------------------------------------------------------ measuring


def server_cpu_s(pid: int | None) -> float | None:
    """The server process's user + system CPU seconds (from /proc), or None without a pid."""
    if pid is None:
        return None
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_sample(when: str) -> dict[str, Any]:
    return {"when": when, "at": time.strftime("%H:%M:%S"), "loadavg": [round(x, 2) for x in os.getloadavg()]}


def rotated(systems: Sequence[System], i: int) -> list[System]:
    k = i % len(systems)
    return [*systems[k:], *systems[:k]]


def ingest_all(systems: Sequence[System], conv: Conversation, dataset: str, index: int, server_pid: int | None) -> list[dict[str, Any]]:
    docs = turn_docs(conv)
    out = []
    for system in rotated(systems, index):
        system.clear()
        cpu0, server0 = time.process_time(), server_cpu_s(server_pid)
        started = time.perf_counter()
        system.ingest(conv, docs)
        wall = time.perf_counter() - started
        server1 = server_cpu_s(server_pid)
        system.prepare()
        out.append({
            "dataset": dataset, "conversation": conv.conversation_id, "system": system.name, "turns": len(docs),
            "sessions": len(conv.sessions), "ingest_s": wall, "ingest_cpu_s": time.process_time() - cpu0,
            "server_cpu_s": None if server0 is None or server1 is None else server1 - server0,
        })
    return out


def recall_share(evidence: Evidence, gold: set[str]) -> float:
    return len(gold & set(evidence.source_ids)) / len(gold)


def ask_all(
    systems: Sequence[System], vectors: QuestionVectors, conv: Conversation, dataset: str, budgets: Sequence[int],
    limit: int, start: int,
) -> list[dict[str, Any]]:
    """Every question with gold evidence, asked of every system in rotating order (``start`` + question
    number picks who goes first)."""
    questions = [qa for qa in conv.qa if qa.evidence][: limit or None]
    speakers = [*conv.speakers, *conv.speakers][:2] if conv.speakers else ["someone", "someone"]
    warm_up = [q.format(a=speakers[0], b=speakers[1]) for q in WARM_UP_QUESTIONS]
    as_lists = vectors.precompute([*warm_up, *(qa.question for qa in questions)])
    vectors.cached = True
    for system in systems:
        for text in warm_up:
            system.ask(text, as_lists[text], budgets)
    rows = []
    for i, qa in enumerate(questions):
        gold = set(qa.evidence)
        row: dict[str, Any] = {"dataset": dataset, "conversation": conv.conversation_id, "category": qa.category,
                               "question": qa.question, "gold": sorted(gold), "first": "",
                               "load_1min": os.getloadavg()[0]}
        for n, system in enumerate(rotated(systems, start + i)):
            misses = vectors.misses
            asked = system.ask(qa.question, as_lists[qa.question], budgets)
            if system.name != "graphmem" and vectors.misses != misses:
                raise RuntimeError(f"{system.name} embedded a text during its timed call")
            if n == 0:
                row["first"] = system.name
            row[f"{system.name}_ms"] = asked.ms
            if system.name == "graphmem":
                row["graphmem_embedded"], row["graphmem_embed_ms"] = asked.embedded, asked.embed_ms
            for budget, ms in asked.ms_by_budget.items():
                row[f"{system.name}@{budget}_ms"] = ms
            for budget in budgets:
                ev = asked.evidence[budget]
                row[f"{system.name}@{budget}"] = recall_share(ev, gold)
                row[f"{system.name}@{budget}_tokens"] = ev.tokens
                row[f"{system.name}@{budget}_turns"] = len(ev.source_ids)
        rows.append(row)
    vectors.cached = False
    return rows


# ------------------------------------------------------------------------------------------ reporting


def category_name(dataset: str, category: int | str) -> str:
    return LOCOMO_CATEGORIES.get(category, str(category)) if dataset == "locomo" and isinstance(category, int) else str(category)


def summarize(rows: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, dict[str, Any]]:
    """Mean recall per system and budget, per dataset and category (``locomo/cat1-4``: LoCoMo without
    adversarial, the figure ``benchmarks/locomo.py`` reports), with latency percentiles per group."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[f"{r['dataset']}/all"].append(r)
        groups[f"{r['dataset']}/{category_name(r['dataset'], r['category'])}"].append(r)
        if r["dataset"] == "locomo" and r["category"] != 5:
            groups["locomo/cat1-4"].append(r)
    out: dict[str, dict[str, Any]] = {}
    for name, rs in sorted(groups.items()):
        metrics: dict[str, Any] = {"n": len(rs)}
        for system in SYSTEMS:
            for budget in budgets:
                for suffix in ("", "_tokens", "_turns"):
                    metrics[f"{system}@{budget}{suffix}"] = statistics.fmean(r[f"{system}@{budget}{suffix}"] for r in rs)
            latencies = [r[f"{system}_ms"] for r in rs]
            metrics[f"{system}_ms_p50"] = float(np.percentile(latencies, 50))
            metrics[f"{system}_ms_p95"] = float(np.percentile(latencies, 95))
        out[name] = metrics
    return out


def fastest_peer(summary: dict[str, Any], group: str) -> str:
    return min(PEERS, key=lambda s: summary[group][f"{s}_ms_p50"])


def _recall_cells(metrics: dict[str, Any], budgets: Sequence[int]) -> str:
    cells = ["/".join(f"{metrics[f'{s}@{b}']:.2f}" for b in budgets) for s in SYSTEMS]
    return "".join(f"{cell:>26}" for cell in cells)


def print_report(
    summary: dict[str, Any], ingest: list[dict[str, Any]], budgets: Sequence[int], loads: list[dict[str, Any]],
    rows: list[dict[str, Any]],
) -> None:
    """The tables: recall by budget and category, latency, ingest, the machine's load; every ratio is to the
    peer with the lowest p50 latency."""
    group = "locomo/cat1-4" if "locomo/cat1-4" in summary else next(iter(summary))
    fast = fastest_peer(summary, group)
    m = summary[group]
    print(f"gold-evidence recall inside the packed evidence, {group} (n={m['n']}), cl100k_base budgets")
    print(f"{'budget':>8}" + "".join(f"{s:>18}" for s in SYSTEMS) + f"   graphmem / {fast}")
    for budget in budgets:
        values = [m[f"{s}@{budget}"] for s in SYSTEMS]
        ratio = values[0] / m[f"{fast}@{budget}"] if m[f"{fast}@{budget}"] else float("nan")
        print(f"{budget:>8}" + "".join(f"{v:>18.3f}" for v in values) + f"   {ratio:.2f}")
    print(f"\nrecall at {' / '.join(map(str, budgets))} tokens by category")
    print(f"{'':<31}" + "".join(f"{s:>26}" for s in SYSTEMS))
    names = [f"locomo/{c}" for c in LOCOMO_CATEGORIES.values()] + [n for n in summary if not n.startswith("locomo/") and n.endswith("/all")]
    for name in names:
        if name in summary:
            print(f"{name:<25} {summary[name]['n']:>5}" + _recall_cells(summary[name], budgets))
    print(f"turns packed at {budgets[-1]} tokens ({group}): " + ", ".join(
        f"{s} {m[f'{s}@{budgets[-1]}_turns']:.1f} ({m[f'{s}@{budgets[-1]}_tokens']:.0f} tokens)" for s in SYSTEMS))

    print(f"\nlatency of the retrieve call, question embedding excluded ({group}; graphmem: its recall at {budgets[-1]} tokens)")
    print(f"{'system':<18}{'p50 ms':>9}{'p95 ms':>9}{'p50 ratio':>11}{'p95 ratio':>11}")
    for s in SYSTEMS:
        p50, p95 = m[f"{s}_ms_p50"], m[f"{s}_ms_p95"]
        print(f"{s:<18}{p50:>9.1f}{p95:>9.1f}{p50 / m[f'{fast}_ms_p50']:>11.2f}{p95 / m[f'{fast}_ms_p95']:>11.2f}")

    server = ingest[0]["server_cpu_s"] is not None
    print(f"\ningest per conversation: wall s (process CPU s{' / server CPU s' if server else ''}) and wall ratio to {fast}")
    print(f"{'conversation':<31}{'turns':>6}" + "".join(f"{s:>30}" for s in SYSTEMS))
    by_conv: dict[tuple[str, int], dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in ingest:
        by_conv[(f"{r['dataset']}/{r['conversation']}", r["turns"])][r["system"]] = r
    for (conv, turns), per in by_conv.items():
        cells = []
        for s in SYSTEMS:
            r = per[s]
            cpu = f"{r['ingest_cpu_s']:.1f}" + (f" / {r['server_cpu_s']:.1f}" if server else "")
            cells.append(f"{r['ingest_s']:.2f} s ({cpu}) x{r['ingest_s'] / per[fast]['ingest_s']:.2f}")
        print(f"{conv[:31]:<31}{turns:>6}" + "".join(f"{c:>30}" for c in cells))

    during = [r["load_1min"] for r in rows]
    print(f"\nmachine: {os.cpu_count()} CPUs; load average 1/5/15 min " +
          "; ".join(f"{x['when']} ({x['at']}) {'/'.join(str(v) for v in x['loadavg'])}" for x in loads) +
          (f"; 1-min load while asking: mean {statistics.fmean(during):.2f}, max {max(during):.2f}" if during else ""))


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def datasets(args: argparse.Namespace) -> list[tuple[str, Conversation]]:
    """(dataset, conversation) in run order: the LoCoMo conversations, then the other dialogue data."""
    paths = sorted(args.data.glob("*.json")) if args.data.is_dir() else [args.data]
    locomo = [conv for path in paths for conv in load_locomo(path)][: args.conversations or None]
    out = [("locomo", conv) for conv in locomo]
    if not args.locomo_only:
        out += [("longmemeval-sample", conv) for conv in load_longmemeval(REPO / "tests" / "data" / "longmemeval_sample.json")]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default="bolt://127.0.0.1:7687", help="the Neo4j 5.26 server all systems use (default: the project server's; start one of your own, see above)")
    parser.add_argument("--password", default=DEFAULT_PASSWORD, help="the password of user neo4j")
    parser.add_argument("--data", type=Path, default=default_data_dir(), help="LoCoMo file or folder of files")
    parser.add_argument("--conversations", type=int, default=0, help="LoCoMo conversations to run (0 = all)")
    parser.add_argument("--limit", type=int, default=0, help="questions per conversation (0 = all)")
    parser.add_argument("--budgets", nargs="+", type=int, default=[150, 300, 600, 1200], help="cl100k_base token budgets")
    parser.add_argument("--top-k", type=int, default=100, help="turns a peer retrieves per question (enough for the largest budget)")
    parser.add_argument("--locomo-only", action="store_true", help="leave out the LongMemEval sample")
    parser.add_argument("--server-pid", type=int, default=None, help="the server's pid, to report its CPU during ingest")
    parser.add_argument("--keep", action="store_true", help="leave the last conversation's nodes and indexes in the server")
    parser.add_argument("--out", default=None, help="default benchmarks/results/peers_<commit>.json")
    args = parser.parse_args(argv)
    budgets = sorted(set(args.budgets))
    # Notifications about labels a fresh database lacks, and neo4j-graphrag's notice that its result field
    # "id" is deprecated: the libraries' messages, not findings.
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    loads = [load_sample("start")]
    auth = ("neo4j", args.password)
    vectors = QuestionVectors()
    systems: list[System] = [
        GraphmemSystem(args.uri, auth, vectors),
        GraphragSystem(args.uri, auth, vectors, args.top_k),
        LangchainSystem(args.uri, auth, vectors, args.top_k),
    ]
    [demo] = load_chat_jsonl(files("graphmem") / "data" / "demo_dialogue.jsonl")
    warm_up = ingest_all(systems, demo, "demo-warm-up", 0, args.server_pid)
    ingest: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for index, (dataset, conv) in enumerate(datasets(args)):
        ingest += ingest_all(systems, conv, dataset, index, args.server_pid)
        rows += ask_all(systems, vectors, conv, dataset, budgets, args.limit, start=len(rows))
        print(f"{dataset}/{conv.conversation_id}: {sum(len(s.turns) for s in conv.sessions)} turns, "
              f"{len([r for r in rows if r['conversation'] == conv.conversation_id])} questions", file=sys.stderr)
        loads.append(load_sample(f"after {conv.conversation_id}"))
    for system in systems:
        system.close(keep=args.keep)
    loads.append(load_sample("end"))

    summary = summarize(rows, budgets)
    print_report(summary, ingest, budgets, [loads[0], loads[-1]], rows)
    graphrag = next(s for s in systems if isinstance(s, GraphragSystem))
    embedded = sum(r["graphmem_embedded"] for r in rows)
    embed_ms = statistics.fmean(r["graphmem_embed_ms"] for r in rows) if rows else 0.0
    print(f"graphmem embedded {embedded} texts of its own reading of the questions during timed recalls "
          f"(mean {embed_ms:.1f} ms per question, subtracted); graphrag_hybrid resent "
          f"{graphrag.lucene_retries} questions with Lucene characters escaped")
    sha = commit()
    out = Path(args.out or REPO / "benchmarks" / "results" / f"peers_{sha}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "commit": sha, "args": {k: str(v) for k, v in vars(args).items()},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "load": loads, "versions": _versions(), "summary": summary, "ingest": ingest, "warm_up_ingest": warm_up,
        "graphrag_lucene_retries": graphrag.lucene_retries,
        "rows": rows,
    }, indent=1, default=str))
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name) for name in ("graphmem", "neo4j-graphrag", "langchain-neo4j", "neo4j")}


if __name__ == "__main__":
    sys.exit(main())
