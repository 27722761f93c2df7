"""Bulk appends: write one batch on a background thread while the next is validated, embedded and built.

``Memory.add_steps`` reads an episode's writing state, builds the batch and waits for its write: the
client and the server take turns. For long runs (a bulk ingest, a benchmark) ``BulkWriter`` overlaps
them. After its first batch of an episode it keeps the episode's writing state itself, from the Episode
row of the batch it just built (the same properties the store would return), so the next batch needs no
read. Each batch still carries the condition it was built on (the episode ends at ``last_t``), checked
in the write's own transaction: a concurrent writer makes the write fail with ``ConflictError`` and
nothing of that batch is written.

Dialogue sessions (``add_session``) are built the same way on a kept state (the episode's writing state,
its speakers, the namespace's trace events including those of sessions not yet written). Only the first
session of an episode here (or one that may be stored already: an id seen before, a start before the
last one) reads the store, and re-adding a stored session is a no-op as with ``Memory.add_session``. The
others carry, checked in the write's transaction, that their session and turns do not exist yet and that
the episode still has the session count they were built on; a session whose turn id repeats one of the
open group is refused at once.

Small batches are written in groups: sessions, and batches of steps of at most ``SMALL_STEPS_ROWS`` rows,
``BATCHES_PER_WRITE`` to a transaction (a session of chat is a few dozen rows, and a transaction each
paid its commit and round trips for each). A group of several namespaces is merged by one statement.

At most ``WRITE_LANES`` writes are in flight, each on its own lane (one episode's larger batches of
steps, or one of the two ``GROUP_LANES``), and a write waits for those in flight to the same episodes,
sessions and turns, so an episode's batches land in the order they were added.

Many small namespaces (many users' chats and runs, a few records each): before a namespace's first
batch the writer reads the namespace's episodes once (``GraphStore.episode_kinds``; ``prefetch`` reads
those of many namespaces in one query). A new episode of a known namespace then needs no other read: it
takes the next place in its namespace, and its batch carries the condition that it is still new. A read
of the store waits only for the writes in flight that write what it reads (an episode, a session, its
turns); the Episode rows of the others count as they are. A failed write raises from the next call (or
from ``flush``/``close``), and the writer then refuses further appends: what was written before is
committed, batch by batch (group by group), so re-running the same appends (``graphmem ingest`` resumes
this way) completes the episode.

    >>> from datetime import datetime, timedelta, timezone
    >>> from graphmem import Memory
    >>> batches = [[Step(t, "move left") for t in range(i, i + 2)] for i in (0, 2, 4)]
    >>> day = datetime(2024, 3, 2, tzinfo=timezone.utc)
    >>> sessions = [("s1", [Turn("D1:1", "Maya", "I signed up for a half marathon.")], day),
    ...             ("s2", [Turn("D2:1", "Maya", "Ran ten miles today!")], day + timedelta(days=7))]
    >>> with Memory() as mem:
    ...     with mem.bulk() as bulk:
    ...         for steps in batches:
    ...             _ = bulk.add_steps("agent-1", "run-1", steps)
    ...         for session_id, turns, started_at in sessions:
    ...             _ = bulk.add_session("user-1", session_id, turns, started_at)
    ...     agent, user = mem.stats("agent-1"), mem.stats("user-1")
    >>> agent["Step"], agent["NEXT"], user["Session"], user["Turn"]  # the three batches form one chain
    (6, 5, 2, 2)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Self

from graphmem.errors import ConflictError, GraphmemError, InvalidRecordError
from graphmem.records import Step, Turn, short, validate_id, validate_steps
from graphmem.store.protocol import EpisodeRow, WriteBatch, node_key
from graphmem.store.rows import episode_row_of
from graphmem.write.dialogue import DialogueState
from graphmem.write.planning import DEFAULT_DIALOGUE_EPISODE, WritePlanner, WriteReport
from graphmem.write.steps import EpisodeSoFar, episode_so_far

#: Writes in flight at once, on different lanes (one episode's steps, the dialogue sessions): Neo4j runs
#: a transaction on one core, so two writes keep a 2-core server busy while the client builds the next
#: batches. Measured replaying 6,000 steps and 6,000 turns (no vectors): one at a time 0.50-0.61 of the
#: raw rate for the same rows, two at once 0.70. Concurrent writes that merge the same shared node (a
#: location, an entity) wait for each other's locks; a deadlock between them is retried by the driver.
WRITE_LANES = 2
#: Batches written together in one transaction, as a group: dialogue sessions, and small batches of steps
#: (at most SMALL_STEPS_ROWS rows). Measured replaying benchmarks/scale.py's synthetic 20-turn sessions
#: (no vectors): one session per transaction wrote at 0.39 of Neo4j's raw rate for the same rows, 5 per
#: transaction 0.40-0.46, 20 per transaction 0.46-0.52. 1,000 namespaces given 5 steps and 5 turns each
#: (scale.py's many layout at 10k units): groups of 16 batches 0.49-0.51, of 64 0.64. A group is also what
#: a failed write loses (it is re-written on resume); ROWS_PER_WRITE keeps it small.
BATCHES_PER_WRITE = 64
#: ... and at most this many node and edge rows (sessions with many boxes and events are bigger), which
#: keeps a group inside one write statement (``graphmem.store.neo4j.CHUNK``).
ROWS_PER_WRITE = 4000
#: A batch of steps this small (a short episode, or the first steps of one: about 10 rows a step) joins
#: the group instead of taking a transaction of its own. 1,000 namespaces given 5 steps and 5 turns each:
#: a transaction per batch of steps wrote at 0.41 of the raw rate, grouped 0.49-0.64 (see above); given
#: 50 of each (~500 rows of steps): 0.52 on their own, 0.61-0.65 grouped.
SMALL_STEPS_ROWS = 1000
#: The two lanes of the group's writes: a group waits only for the writes in flight to its episodes,
#: sessions and turns, so the groups of a load of many namespaces are written two at a time (1,000
#: namespaces given 5 and 50 steps and turns each: one lane 0.43 and 0.49 of the raw rate, two 0.64, 0.61).
GROUP_LANES = (("group", "0"), ("group", "1"))
#: Namespaces whose episodes (id and kind) a bulk writer keeps, most recently used first: a new episode of
#: a known namespace needs no read of the store (a bulk load of many users' short histories).
KNOWN_NAMESPACES = 10_000


def _episode_rows(batch: WriteBatch) -> Iterator[tuple[str, EpisodeRow]]:
    """The batch's Episode rows as (namespace, the episode as the store will hold it)."""
    for row in batch.nodes:
        if row.label == "Episode":
            yield row.namespace, episode_row_of(row)


@dataclass(frozen=True)
class _InFlight:
    """A write in flight, indexed once when it is handed to the pool: the (namespace, key) of every node
    it writes, and its Episode rows by namespace."""

    keys: frozenset[tuple[str, str]]
    episodes: dict[str, list[EpisodeRow]]

    @classmethod
    def of(cls, batch: WriteBatch) -> _InFlight:
        episodes: dict[str, list[EpisodeRow]] = {}
        for namespace, episode in _episode_rows(batch):
            episodes.setdefault(namespace, []).append(episode)
        return cls(frozenset((row.namespace, row.key) for row in batch.nodes), episodes)


def _episode_guard(batch: WriteBatch, namespace: str, episode_id: str) -> WriteBatch:
    """The batch without its condition on the episode (its session count, or where its steps end): a later
    batch of the episode in a group builds on the earlier one, not on what the store holds."""
    ekey = node_key("Episode", episode_id)
    expect = tuple(e for e in batch.expect if not (e.namespace == namespace and e.key == ekey))
    return WriteBatch(batch.nodes, batch.edges, expect)


class BulkWriter:
    """Pipelined appends to a ``Memory`` (any ``WritePlanner``); use as a context manager (``Memory.bulk()``)."""

    def __init__(self, memory: WritePlanner) -> None:
        self.memory = memory
        self._pool = ThreadPoolExecutor(max_workers=WRITE_LANES, thread_name_prefix="graphmem-bulk")
        #: The write in flight on each lane (an episode's larger batches of steps, or a group), oldest
        #: first, and what it writes (``_InFlight``: its node keys and Episode rows).
        self._pending: dict[tuple[str, ...], Future[None]] = {}
        self._in_flight: dict[tuple[str, ...], _InFlight] = {}
        self._failed: BaseException | None = None
        #: (namespace, episode) -> the episode's writing state after the last batch handed to the pool.
        self._episodes: dict[tuple[str, str], EpisodeSoFar] = {}
        #: (namespace, dialogue episode) -> its state after the last session built, and the session ids built.
        self._dialogues: dict[tuple[str, str], DialogueState] = {}
        self._session_ids: dict[tuple[str, str], set[str]] = {}
        #: The open group (sessions and small batches of steps built and not yet handed to the pool): its
        #: batches, their episodes and turn keys.
        self._group: list[WriteBatch] = []
        self._group_episodes: set[tuple[str, str]] = set()
        self._group_turns: set[tuple[str, str]] = set()
        self._group_rows = 0
        #: namespace -> {episode id: kind} as read from the store once, plus the episodes of the batches
        #: handed to the pool since (the most recently used KNOWN_NAMESPACES namespaces).
        self._known: OrderedDict[str, dict[str, str]] = OrderedDict()
        self._group_lane = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_steps(self, namespace: str, episode_id: str, steps: Sequence[Step]) -> WriteReport:
        """Append steps as ``Memory.add_steps`` does; the batch is written while the caller goes on."""
        self._check_usable()
        validate_id(namespace, f"episode {short(episode_id)}", "namespace")
        validate_id(episode_id, f"episode {short(episode_id)}", "episode_id")
        known = self._episodes.get((namespace, episode_id))
        if known is not None and known.last_t is not None:
            steps = validate_steps(steps, f"episode {episode_id!r}")  # the ids were checked by the first batch
        if known is None and episode_id not in self._episode_kinds(namespace):
            # A new episode (the namespace's episodes were read once): nothing of it can be stored, and
            # the batch's condition (the episode has no last step yet) is checked when it is written.
            known, new, old = self.memory.new_episode(namespace, episode_id, steps, len(self._episode_kinds(namespace)))
        elif known is None or known.last_t is None or (steps and steps[0].t <= known.last_t):
            # First batch of the episode here, or steps that may already be stored: ask the store, after
            # the writes in flight to the episode have landed.
            unlanded = self._settle(namespace, {node_key("Episode", episode_id)})
            known, new, old = self.memory.plan_steps(namespace, episode_id, steps, unlanded)
        else:
            new, old = list(steps), []
        if not new:
            return WriteReport(0, len(old))
        batch = self.memory.step_batch(namespace, episode_id, new, known)
        ekey = node_key("Episode", episode_id)
        if len(batch.nodes) + len(batch.edges) <= SMALL_STEPS_ROWS:
            # A few steps (the start of a short episode): written with the group, after the episode's
            # batch in flight on its own lane, if any (the group's own lane keeps its batches in order).
            self._wait_for_keys(namespace, {ekey}, groups=False)
            self._join_group(batch if (namespace, episode_id) not in self._group_episodes else _episode_guard(batch, namespace, episode_id),
                             (namespace, episode_id), ())
        else:
            self._settle(namespace, {ekey})  # the episode's batches in the group land first
            self._submit(batch, ("steps", namespace, episode_id))
        self._remember_episodes(batch)
        episode = next(row for row in batch.nodes if row.label == "Episode")
        self._episodes[(namespace, episode_id)] = episode_so_far(episode_row_of(episode))
        return WriteReport(len(new), len(old))

    def add_session(
        self,
        namespace: str,
        session_id: str,
        turns: Sequence[Turn],
        started_at: datetime,
        ended_at: datetime | None = None,
        *,
        episode_id: str = DEFAULT_DIALOGUE_EPISODE,
    ) -> WriteReport:
        """Add a dialogue session as ``Memory.add_session`` does; it is written with the next sessions."""
        self._check_usable()
        session = self.memory.validated_session(namespace, session_id, turns, started_at, ended_at, episode_id)
        writer = self.memory.dialogue_writer
        key = (namespace, episode_id)
        state = self._dialogues.get(key)
        seen = self._session_ids.setdefault(key, set())
        last_start = state.so_far.last_session_start if state is not None else None
        kinds = self._episode_kinds(namespace) if state is None else {}
        if state is None and "dialogue" not in kinds.values() and episode_id not in kinds:
            # The namespace's first dialogue (its episodes were read once): no session or turn of it can
            # be stored; the batch carries that condition (guard_new), checked when it is written.
            state = writer.new_episode_state(namespace, len(kinds))
            guard_new = True
        elif (
            state is None
            or session_id in seen
            or (last_start is not None and session.started_at.timestamp() < last_start)
            or (writer.boxes and not writer.traces_cover(namespace, state.marker))
        ):
            # First session of the episode here, or one that may be stored already: ask the store, once
            # the writes in flight to the episode, the session and its turns have landed.
            reads = {node_key("Episode", episode_id), node_key("Session", session_id), *(node_key("Turn", t.id) for t in session.turns)}
            unlanded = self._settle(namespace, reads)
            state = writer.read_state(session, unlanded)
            if state is None:
                return WriteReport(0, len(session.turns))
            guard_new = False
        else:
            guard_new = True
        if guard_new:
            repeated = [t.id for t in session.turns if (namespace, t.id) in self._group_turns]
            if repeated:
                raise ConflictError(
                    f"session {session_id!r}: turn id {repeated[0]!r} already belongs to another session of {namespace!r}"
                )
        prepared = writer.prepare(session, state, guard_new=guard_new)
        batch = prepared.batch if key not in self._group_episodes else _episode_guard(prepared.batch, namespace, episode_id)
        self._dialogues[key] = prepared.after
        seen.add(session_id)
        self._join_group(batch, key, [(namespace, t.id) for t in session.turns])
        self._remember_episodes(batch)
        return WriteReport(len(session.turns), 0)

    def _join_group(self, batch: WriteBatch, episode: tuple[str, str], turns: Sequence[tuple[str, str]]) -> None:
        """Add a batch to the group written in one transaction; hand the group to the pool when full."""
        self._group.append(batch)
        self._group_episodes.add(episode)
        self._group_turns.update(turns)
        self._group_rows += len(batch.nodes) + len(batch.edges)
        if len(self._group) >= BATCHES_PER_WRITE or self._group_rows >= ROWS_PER_WRITE:
            self._submit_group()

    def flush(self) -> None:
        """Write the sessions built so far and wait for every write in flight; raise the first error, if any."""
        self._submit_group()
        self._wait()

    def prefetch(self, namespaces: Sequence[str]) -> None:
        """Read the episodes of these namespaces in one query, ahead of their first batches: a load of many
        small namespaces (many users' chats or runs, a few records each) then reads the store once per
        group of namespaces instead of once per namespace. Optional; namespaces already known are skipped.
        """
        self._check_usable()
        if isinstance(namespaces, (str, bytes)) or not isinstance(namespaces, Sequence):
            raise InvalidRecordError("prefetch", "namespaces", f"must be a list of namespaces, got {type(namespaces).__name__}")
        for namespace in namespaces:
            validate_id(namespace, "prefetch", "namespaces")
        self._load_kinds([ns for ns in dict.fromkeys(namespaces) if ns not in self._known])

    def _episode_kinds(self, namespace: str) -> dict[str, str]:
        """The namespace's episodes (id -> kind): stored, or in a batch handed to the pool. Read from the
        store on the namespace's first use here (or by ``prefetch``), then kept up to date by
        ``_remember_episodes``."""
        if namespace not in self._known:
            self._load_kinds([namespace])
        self._known.move_to_end(namespace)
        return self._known[namespace]

    def _load_kinds(self, namespaces: Sequence[str]) -> None:
        """Read the episodes of ``namespaces`` (the writes in flight need not land: the Episode rows they
        carry count as they are, whether they land before the read or after)."""
        if not namespaces:
            return
        stored = self.memory.store.episode_kinds(namespaces)
        unlanded: dict[str, dict[str, str]] = {}
        in_flight = [(ns, e) for flight in self._in_flight.values() for ns, rows in flight.episodes.items() for e in rows]
        for namespace, episode in [*in_flight, *(row for batch in self._group for row in _episode_rows(batch))]:
            unlanded.setdefault(namespace, {})[episode.uid] = episode.kind
        for namespace in namespaces:
            self._known[namespace] = {**stored.get(namespace, {}), **unlanded.get(namespace, {})}
        while len(self._known) > KNOWN_NAMESPACES:
            self._known.popitem(last=False)

    def _remember_episodes(self, batch: WriteBatch) -> None:
        for namespace, episode in _episode_rows(batch):
            if namespace in self._known:
                self._known[namespace][episode.uid] = episode.kind

    def _settle(self, namespace: str, keys: set[str]) -> list[EpisodeRow]:
        """Before reading ``keys`` of ``namespace`` from the store: write the group built so far if it
        holds the namespace's batches, and wait for the writes in flight that write one of those keys.
        Other writes go on (a read of other nodes cannot see them); the Episode rows they carry for the
        namespace are returned, so a new episode still counts the episodes they add (``episodes_with``)."""
        if any(ns == namespace for ns, _ in self._group_episodes):
            self._submit_group()
        return self._wait_for_keys(namespace, keys)

    def _wait_for_keys(self, namespace: str, keys: set[str], groups: bool = True) -> list[EpisodeRow]:
        """Wait for the writes in flight (not the groups' unless ``groups``: the next group waits for
        them itself) that write one of ``keys`` of ``namespace``; the Episode rows of the namespace in the
        others."""
        unlanded: list[EpisodeRow] = []
        for lane, flight in list(self._in_flight.items()):
            if (groups or lane not in GROUP_LANES) and any((namespace, key) in flight.keys for key in keys):
                self._wait(lane)
            else:
                unlanded += flight.episodes.get(namespace, [])
        return unlanded

    def _wait(self, lane: tuple[str, ...] | None = None) -> None:
        """Wait for the write in flight on ``lane`` (None: on every lane)."""
        lanes = list(self._pending) if lane is None else [lane] if lane in self._pending else []
        failure: BaseException | None = None
        for name in lanes:
            try:
                self._in_flight.pop(name, None)
                self._pending.pop(name).result()
            except BaseException as exc:  # noqa: BLE001 - kept, and raised once every lane has landed
                failure = failure or exc
        if failure is None:
            return
        # Let the other lanes land too (each write is whole or nothing), then refuse to go on.
        for name in list(self._pending):
            self._in_flight.pop(name, None)
            try:
                self._pending.pop(name).result()
            except BaseException:  # noqa: BLE001, S110 - the first failure is the one reported
                pass
        self._failed = failure
        self._known.clear()
        self._episodes.clear()
        for namespace, _ in self._dialogues:
            self.memory.dialogue_writer.forget_traces(namespace)
        self._dialogues.clear()
        self._session_ids.clear()
        raise failure

    def close(self) -> None:
        """Flush, then stop the background thread."""
        try:
            self.flush()
        finally:
            self._pool.shutdown(wait=True)

    def _submit(self, batch: WriteBatch, lane: tuple[str, ...]) -> None:
        """Hand a batch to the pool once the lane's previous write has landed (an episode's batches land in
        order), with at most ``WRITE_LANES`` writes in flight."""
        self._wait(lane)
        while len(self._pending) >= WRITE_LANES:
            self._wait(next(iter(self._pending)))
        self._pending[lane] = self._pool.submit(self.memory.store.write, batch)
        self._in_flight[lane] = _InFlight.of(batch)

    def _submit_group(self) -> None:
        if not self._group:
            return
        group = self._group
        self._group, self._group_rows = [], 0
        self._group_episodes.clear()
        self._group_turns.clear()
        batch = WriteBatch.join(group)
        # Its batches were built on the writes in flight to the same episodes, sessions and turns (the
        # conditions it carries name them): those land first.
        named = {(e.namespace, e.key) for e in batch.expect} | {(r.namespace, r.key) for r in batch.nodes if r.label == "Episode"}
        for lane, flight in list(self._in_flight.items()):
            if not named.isdisjoint(flight.keys):
                self._wait(lane)
        self._group_lane = (self._group_lane + 1) % len(GROUP_LANES)
        self._submit(batch, GROUP_LANES[self._group_lane])

    def _check_usable(self) -> None:
        for lane, future in list(self._pending.items()):
            if future.done() and future.exception() is not None:
                self._wait(lane)  # raises it
        if self._failed is not None:
            raise GraphmemError(f"an earlier bulk write failed ({self._failed}); start a new BulkWriter to go on")
