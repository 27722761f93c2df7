"""Bulk, resumable ingestion of JSONL files: agent step logs and chat logs.

One steps file is one episode (its id is the file stem unless given); each line is one step in the
format of ``graphmem.loaders.jsonl_steps``
(``{"t": 0, "action": "collect wood", "events": [{"kind": "collect", "obj": "wood"}], ...}``). A chat file
holds one utterance per line (``{"session_id", "timestamp", "speaker", "text", ...}``, see
``graphmem.loaders.chat_jsonl``). The format is read from the first line: a ``"t"`` key means steps, a
``"speaker"`` key means chat.

Steps are validated in a first streaming pass (a bad line stops the file before anything of it is
written), then embedded and written ``batch_size`` at a time, one transaction per batch. Chat files are
written several sessions to a transaction (``Memory.bulk``; one session per transaction with
``pipeline=False``). An interrupted run resumes where it stopped: the store is asked
where each episode ends (the Episode node's ``last_t``) and which sessions exist, and those are skipped
without re-embedding, so re-running the same command produces exactly the graph a clean run produces.

    >>> from importlib import resources
    >>> from graphmem import Memory
    >>> data = resources.files("graphmem") / "data"   # the demo's step log (300 steps) and chat log (17 turns)
    >>> files = [data / "demo_crafter.jsonl", data / "demo_dialogue.jsonl"]
    >>> with Memory() as mem:   # Memory("bolt://127.0.0.1:7687", auth=("neo4j", "...")) for Neo4j
    ...     report = ingest_files(mem, files, "agent-1", batch_size=256, progress=False)
    ...     again = ingest_files(mem, files, "agent-1", batch_size=256, progress=False)  # nothing left to write
    >>> [(f.kind, f.episode, f.written) for f in report.files]
    [('steps', 'demo_crafter', 300), ('chat', 'dialogue', 17)]
    >>> again.written, again.skipped
    (0, 317)
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from graphmem.errors import ConflictError, InvalidRecordError
from graphmem.records import Step, validate_id
from graphmem.store.protocol import SessionRow, node_key
from graphmem.store.rows import read_episode, read_sessions
from graphmem.write.bulk import BulkWriter

if TYPE_CHECKING:
    from rich.progress import Progress

    from graphmem.embed import Embedder
    from graphmem.memory import Memory

log = logging.getLogger(__name__)

#: Steps per embedding call and write transaction. Writing plateaus from ~256 steps a batch (on 2 cores,
#: random vectors, best of two: 64 -> 335, 256 -> 490, 512 -> 483, 1024 -> 486, 2048 -> 485 steps/s);
#: 512 keeps round trips and index commits rare while an interruption loses at most one batch.
DEFAULT_BATCH_SIZE = 512
#: Session keys asked about in one existence lookup when resuming a chat file.
SESSION_LOOKUP_CHUNK = 1000

Format = Literal["steps", "chat"]


@dataclass(frozen=True)
class FileReport:
    """What ingesting one file did: units (steps or turns) written and skipped as already stored."""

    path: str
    kind: Format
    episode: str
    written: int
    skipped: int


@dataclass(frozen=True)
class IngestReport:
    files: tuple[FileReport, ...]
    seconds: float

    @property
    def written(self) -> int:
        return sum(f.written for f in self.files)

    @property
    def skipped(self) -> int:
        return sum(f.skipped for f in self.files)


# ---------------------------------------------------------------------------------------- reading


def detect_format(path: str | Path) -> Format:
    """``"steps"`` or ``"chat"``, from the first non-empty line of a JSONL file."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except json.JSONDecodeError as exc:
                    raise InvalidRecordError(f"{path}, line {number}", "json", f"is not valid JSON ({exc.msg})") from exc
                if isinstance(record, dict) and "t" in record:
                    return "steps"
                if isinstance(record, dict) and "speaker" in record:
                    return "chat"
                raise InvalidRecordError(
                    f"{path}, line {number}", "line", 'is neither a step (has "t") nor a chat line (has "speaker")'
                )
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRecordError(str(path), "file", f"cannot be read: {exc}") from exc
    raise InvalidRecordError(str(path), "lines", "the file is empty")


def iter_steps_jsonl(path: str | Path) -> Iterator[Step]:
    """Validated steps of a JSONL step log (``graphmem.loaders.jsonl_steps``' format), streamed line by
    line so a file of millions of steps is never held in memory; indices must strictly increase.

    >>> from importlib import resources
    >>> [s.t for s in iter_steps_jsonl(resources.files("graphmem") / "data" / "demo_crafter.jsonl")][:3]
    [0, 1, 2]
    """
    from graphmem.loaders.jsonl_steps import step_from_dict

    path = Path(path)
    previous: tuple[int, int] | None = None  # (t, line) of the last step
    try:
        with path.open(encoding="utf-8") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                where = f"{path.name} line {number}"
                try:
                    record = json.loads(raw)
                except json.JSONDecodeError as exc:
                    raise InvalidRecordError(where, "json", f"is not valid JSON ({exc.msg})") from exc
                step = step_from_dict(record, where)
                if previous is not None and step.t <= previous[0]:
                    problem = "duplicate step index" if step.t == previous[0] else f"out of order (after t={previous[0]})"
                    raise InvalidRecordError(where, "t", f"{problem} (line {previous[1]} has t={previous[0]})")
                previous = (step.t, number)
                yield step
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(str(path), "file", f"is not UTF-8: {exc}") from exc
    except OSError as exc:
        raise InvalidRecordError(str(path), "file", f"cannot be read: {exc}") from exc


# ---------------------------------------------------------------------------------------- writing


def _progress(enabled: bool) -> Any:
    if not enabled:
        return nullcontext(None)
    # Progress bars go to stderr, so stdout stays clean for whatever the caller prints.
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )


class _Prefetcher:
    """Embeds the next batch on a worker thread while the current batch is being written.

    Ingestion then costs about max(embedding, writing) per batch instead of their sum. One worker embeds
    the queued batches in order; ``embed`` returns the prefetched vectors when asked for exactly the
    prefetched texts, and embeds directly otherwise.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.dimensions = inner.dimensions
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-embed")
        self._pending: dict[tuple[str, ...], Future[np.ndarray]] = {}

    def prefetch(self, texts: Sequence[str]) -> None:
        self._pending[tuple(texts)] = self._pool.submit(self.inner.embed, list(texts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        future = self._pending.pop(tuple(texts), None)
        return future.result() if future is not None else self.inner.embed(texts)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _batches(path: Path, last_t: int | None, batch_size: int, skipped: Callable[[Step], None]) -> Iterator[list[Step]]:
    """The file's steps after ``last_t`` in batches; steps up to ``last_t`` go to ``skipped``."""
    batch: list[Step] = []
    for step in iter_steps_jsonl(path):
        if last_t is not None and step.t <= last_t:
            skipped(step)
            continue
        batch.append(step)
        if len(batch) >= batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


#: Stored steps compared with the file per read when a run resumes.
CHECK_CHUNK = 1024


def _check_stored_steps(memory: Memory, path: Path, namespace: str, episode_id: str, last_t: int) -> None:
    """Every step of the file that the episode already stores must be stored with the same content
    (compared by digest), or the file is not the stored episode: ``ConflictError`` before anything of
    the file is written."""
    from graphmem.write.steps import step_digest

    def compare(chunk: list[Step]) -> None:
        stored = memory.store.steps_at(namespace, episode_id, [s.t for s in chunk])
        for step in chunk:
            row = stored.get(step.t)
            if row is None or row.digest != step_digest(step):
                problem = "is not stored" if row is None else "differs from what is stored"
                raise ConflictError(
                    f"{path}: step t={step.t} {problem} in episode {episode_id!r} of {namespace!r} (it ends at "
                    f"t={last_t}); nothing of the file was written: use a new episode id (--episode) for a new run"
                )

    chunk: list[Step] = []
    for step in iter_steps_jsonl(path):
        if step.t > last_t:
            break
        chunk.append(step)
        if len(chunk) >= CHECK_CHUNK:
            compare(chunk)
            chunk = []
    if chunk:
        compare(chunk)


def _ingest_steps(
    memory: Memory, path: Path, namespace: str, episode_id: str, batch_size: int, bar: Progress | None, pipeline: bool
) -> FileReport:
    from graphmem.write.steps import step_search_text

    validate_id(episode_id, str(path), "episode_id")
    # Pass 1 validates the whole file before anything of it is written; it only parses, which costs
    # far less than embedding.
    total = 0
    for _ in iter_steps_jsonl(path):
        total += 1
    if total == 0:
        raise InvalidRecordError(str(path), "lines", "the file holds no steps")

    episode = read_episode(memory.store, namespace, episode_id)
    if episode is not None and episode.kind != "trajectory":
        raise ConflictError(f"episode {episode_id!r} in namespace {namespace!r} is a {episode.kind}, not a trajectory")
    last_t = episode.last_t if episode is not None else None
    if last_t is not None:
        _check_stored_steps(memory, path, namespace, episode_id, last_t)

    task = bar.add_task(f"{path.name} → {episode_id}", total=total, rate="") if bar is not None else None
    written = skipped = 0
    started = time.monotonic()

    def skip(step: Step) -> None:
        # Already stored by an earlier (possibly interrupted) run, and checked equal to what is stored
        # (``_check_stored_steps``): skipped without re-embedding.
        nonlocal skipped
        skipped += 1
        if bar is not None and task is not None:
            bar.update(task, advance=1)

    prefetcher = _Prefetcher(memory.embedder) if pipeline else None
    # Pipelined, each batch is written while the next is built (``BulkWriter``); otherwise one at a time.
    writer: Memory | BulkWriter = memory.bulk() if pipeline else memory
    embedder = memory.embedder
    try:
        if prefetcher is not None:
            memory.embedder = prefetcher  # only add_steps below embeds through it
        batches = _batches(path, last_t, batch_size, skip)
        current = next(batches, None)
        if prefetcher is not None and current is not None:
            prefetcher.prefetch([step_search_text(s) for s in current])
        while current is not None:
            following = next(batches, None)
            if prefetcher is not None and following is not None:
                # Queued behind the current batch: the worker embeds it while add_steps writes the current one.
                prefetcher.prefetch([step_search_text(s) for s in following])
            report_batch = writer.add_steps(namespace, episode_id, current)  # waits for its own vectors
            written += report_batch.written
            if bar is not None and task is not None:
                rate = written / max(time.monotonic() - started, 1e-9)
                bar.update(task, advance=len(current), rate=f"{rate:,.0f} steps/s")
            current = following
        if isinstance(writer, BulkWriter):
            writer.flush()  # the last batch is committed before the file counts as done
    finally:
        if isinstance(writer, BulkWriter):
            writer.close()
        memory.embedder = embedder
        if prefetcher is not None:
            prefetcher.close()
    log.info("%s: %d steps written, %d already stored", path, written, skipped)
    return FileReport(str(path), "steps", episode_id, written, skipped)


def _ingest_chat(memory: Memory, path: Path, namespace: str, episode_id: str, bar: Progress | None, pipeline: bool) -> FileReport:
    from graphmem.loaders.chat_jsonl import load_chat_jsonl

    conversations = load_chat_jsonl(path)  # validates every line before anything is written
    sessions = [s for c in conversations for s in c.sessions]
    total = sum(len(s.turns) for s in sessions)
    task = bar.add_task(f"{path.name} → {episode_id}", total=total, rate="") if bar is not None else None

    # Which sessions are stored already, asked in chunks of keys (index seeks, no embedding).
    stored: dict[str, SessionRow] = {}
    for start in range(0, len(sessions), SESSION_LOOKUP_CHUNK):
        keys = [node_key("Session", s.session_id) for s in sessions[start : start + SESSION_LOOKUP_CHUNK]]
        stored.update(read_sessions(memory.store, namespace, keys))

    written = skipped = 0
    started = time.monotonic()
    writer: Memory | BulkWriter = memory.bulk() if pipeline else memory
    try:
        for session in sessions:
            w, s = _ingest_session(writer, path, namespace, episode_id, session, stored)
            written, skipped = written + w, skipped + s
            if bar is not None and task is not None:
                rate = written / max(time.monotonic() - started, 1e-9)
                bar.update(task, advance=len(session.turns), rate=f"{rate:,.1f} turns/s")
    finally:
        if isinstance(writer, BulkWriter):
            writer.close()  # writes the last sessions; raises a failed write's error
    log.info("%s: %d turns written, %d already stored", path, written, skipped)
    return FileReport(str(path), "chat", episode_id, written, skipped)


def _ingest_session(writer: Memory | BulkWriter, path: Path, namespace: str, episode_id: str, session: Any,
                    stored: dict[str, SessionRow]) -> tuple[int, int]:
    """Add one session of a chat log unless it is stored already: turns written, turns skipped."""
    from graphmem.write.turns import session_digest

    existing = stored.get(node_key("Session", session.session_id))
    if existing is not None:
        # Memory.add_session's rule, checked here without embedding: same content is a no-op.
        if existing.digest != session_digest(session.session_id, session.started_at, None, session.turns):
            raise ConflictError(
                f"{path}: session {session.session_id!r} in namespace {namespace!r} is already stored with other content"
            )
        return 0, len(session.turns)
    report = writer.add_session(namespace, session.session_id, session.turns, session.started_at, episode_id=episode_id)
    return report.written, report.unchanged


def ingest_files(
    memory: Memory,
    paths: Sequence[str | Path],
    namespace: str,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    episode_id: str | None = None,
    pipeline: bool = True,
) -> IngestReport:
    """Ingest JSONL step logs and chat logs into ``namespace``; re-running resumes and skips what is stored.

    ``episode_id`` names the episode of a single steps file (default: the file stem) or the dialogue
    episode of chat files (default: ``Memory``'s dialogue episode). Raises ``InvalidRecordError`` for a
    bad line (nothing of that file is written) and ``ConflictError`` when the store holds other content
    under the same ids. ``pipeline`` embeds the next batch of steps and builds it while the current one is
    written, and writes chat sessions several to a transaction (``Memory.bulk``).

    >>> from importlib import resources
    >>> from graphmem import Memory
    >>> path = resources.files("graphmem") / "data" / "demo_crafter.jsonl"
    >>> with Memory() as mem:
    ...     report = ingest_files(mem, [path], "agent-1", batch_size=256, progress=False)
    >>> report.written, report.files[0].episode
    (300, 'demo_crafter')
    """
    from graphmem.write.planning import DEFAULT_DIALOGUE_EPISODE

    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    validate_id(namespace, "ingest", "namespace")
    files = [Path(p) for p in paths]
    formats = [detect_format(p) for p in files]  # fail on a bad file before writing any
    if episode_id is not None and formats.count("steps") > 1:
        raise ValueError("episode_id names the episode of one steps file; several steps files each take their file stem")
    started = time.monotonic()
    reports: list[FileReport] = []
    with _progress(progress) as bar:
        for path, kind in zip(files, formats):
            if kind == "steps":
                reports.append(_ingest_steps(memory, path, namespace, episode_id or path.stem, batch_size, bar, pipeline))
            else:
                reports.append(_ingest_chat(memory, path, namespace, episode_id or DEFAULT_DIALOGUE_EPISODE, bar, pipeline))
    return IngestReport(tuple(reports), time.monotonic() - started)


# ---------------------------------------------------------------------------------------- command line


def add_ingest_subparser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register ``graphmem ingest FILE... --namespace NS [--batch-size N] [--uri URI]``; ``func`` runs it."""
    parser = subparsers.add_parser(
        "ingest",
        help="bulk-ingest JSONL step logs / chat logs (resumes after an interruption)",
        description="Ingest JSONL step logs (one file = one episode) and chat logs into a namespace. "
        "Re-running the same command after an interruption skips what is already stored.",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSONL step logs or chat logs")
    parser.add_argument("--namespace", "-n", required=True, help="the memory namespace (one agent or user)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help=f"steps per write (default {DEFAULT_BATCH_SIZE})")
    parser.add_argument("--episode", default=None, help="episode id of a single steps file (default: the file stem)")
    parser.add_argument("--uri", default=None, help="Neo4j URI (default $GRAPHMEM_NEO4J_URI)")
    parser.add_argument("--database", default=None, help="Neo4j database (default $GRAPHMEM_NEO4J_DATABASE or the server default)")
    parser.add_argument("--no-boxes", action="store_true", help="skip topic boxes and traces for chat logs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_ingest)
    return parser


def run_ingest(args: argparse.Namespace) -> int:
    """The ``graphmem ingest`` command: ingest, then print a one-line summary."""
    from rich.console import Console

    from graphmem.commands.options import neo4j_auth
    from graphmem.memory import Memory
    from graphmem.settings import Settings

    settings = Settings.from_environment()
    uri = args.uri or settings.neo4j_uri
    auth = neo4j_auth(settings=settings) if uri else None
    with Memory(uri, auth=auth, database=args.database, boxes=not args.no_boxes) as mem:
        # Load the embedding model first, then move everything alive (torch, the model) out of the garbage
        # collector's reach: otherwise every full collection during the ingest walks the model's objects
        # again (in the scale benchmark's process that was a quarter of the write time).
        mem.embedder.embed(["warm-up"])
        gc.collect()
        gc.freeze()
        try:
            report = ingest_files(
                mem, args.files, args.namespace, batch_size=args.batch_size, progress=not args.no_progress, episode_id=args.episode
            )
        finally:
            # Frozen objects are not collected even at exit: the cycles holding triton's nanobind objects (torch
            # imports triton) would outlive the interpreter, and nanobind prints ~30 lines of "leaked" warnings.
            gc.unfreeze()
    Console().print(
        f"ingested {len(report.files)} file(s) into {args.namespace!r}: {report.written} units written, "
        f"{report.skipped} already stored, {report.seconds:.1f}s"
    )
    return 0
