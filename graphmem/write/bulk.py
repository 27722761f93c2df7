"""Bulk appends: write one batch on a background thread while the next is validated, embedded and built.

``Memory.add_steps`` reads an episode's writing state, builds the batch and waits for its write: the
client and the server take turns. For long runs (a bulk ingest, a benchmark) ``BulkWriter`` overlaps
them. After its first batch of an episode it keeps the episode's writing state itself, from the Episode
row of the batch it just built (the same properties the store would return), so the next batch needs no
read. Each batch still carries the condition it was built on (the episode ends at ``last_t``), checked
in the write's own transaction: a concurrent writer makes the write fail with ``ConflictError`` and
nothing of that batch is written.

Dialogue sessions go through ``Memory.add_session``: a session's boxes and traces are built against
what the store holds, so there is nothing to overlap. At most one batch is in flight. A failed write
raises from the next call (or from ``flush``/``close``), and the writer then refuses further appends:
what was written before is committed, batch by batch, so re-running the same appends (``graphmem
ingest`` resumes this way) completes the episode.

    >>> with mem.bulk() as bulk:
    ...     for steps in batches:
    ...         bulk.add_steps("agent-1", "run-1", steps)
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from graphmem.errors import GraphmemError
from graphmem.records import Step, validate_steps
from graphmem.store.protocol import WriteBatch
from graphmem.write.steps import EpisodeSoFar, episode_so_far

if TYPE_CHECKING:
    from graphmem.memory import Memory, WriteReport


class BulkWriter:
    """Pipelined appends to a ``Memory``; use as a context manager (``Memory.bulk()``)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-bulk")
        self._pending: Future[None] | None = None
        self._failed: BaseException | None = None
        #: (namespace, episode) -> the episode's writing state after the last batch handed to the pool.
        self._episodes: dict[tuple[str, str], EpisodeSoFar] = {}

    def __enter__(self) -> BulkWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_steps(self, namespace: str, episode_id: str, steps: Sequence[Step]) -> WriteReport:
        """Append steps as ``Memory.add_steps`` does; the batch is written while the caller goes on."""
        from graphmem.memory import WriteReport

        self._check_usable()
        known = self._episodes.get((namespace, episode_id))
        if known is not None and known.last_t is not None:
            steps = validate_steps(steps, f"episode {episode_id!r}")  # the ids were checked by the first batch
        if known is None or known.last_t is None or (steps and steps[0].t <= known.last_t):
            # First batch of the episode here, or steps that may already be stored: ask the store, after
            # the write in flight has landed.
            self.flush()
            known, new, old = self.memory.plan_steps(namespace, episode_id, steps)
        else:
            new, old = list(steps), []
        if not new:
            return WriteReport(0, len(old))
        batch = self.memory.step_batch(namespace, episode_id, new, known)
        self._submit(batch)
        episode = next(row for row in batch.nodes if row.label == "Episode")
        self._episodes[(namespace, episode_id)] = episode_so_far(dict(episode.props))
        return WriteReport(len(new), len(old))

    def flush(self) -> None:
        """Wait for the write in flight; raise its error, if any."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        try:
            pending.result()
        except BaseException as exc:
            self._failed = exc
            self._episodes.clear()
            raise

    def close(self) -> None:
        """Flush, then stop the background thread."""
        try:
            self.flush()
        finally:
            self._pool.shutdown(wait=True)

    def _submit(self, batch: WriteBatch) -> None:
        self.flush()
        self._pending = self._pool.submit(self.memory.store.write, batch)

    def _check_usable(self) -> None:
        if self._failed is not None:
            raise GraphmemError(f"an earlier bulk write failed ({self._failed}); start a new BulkWriter to go on")
