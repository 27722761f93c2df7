"""The narrow interface between graphmem's memory logic and its two backends.

The memory graph is a property graph. Every graphmem node carries the shared label ``Memory`` plus its
own label (``Step``, ``Turn``, ``Event``, ``Session``, ...), a ``namespace`` and a ``key`` unique within
the namespace (``"step:run-1:12"``, ``"turn:D1:3"``); ``uid`` is the caller's own id. Writes arrive as a
``WriteBatch`` of node and edge rows and are applied in one transaction with MERGE semantics, so writing
the same batch twice changes nothing. Reads are the handful of lookups recall needs; each is index-backed
on Neo4j and realized by the same rules on the embedded backend, so both answer identically.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: Node labels graphmem writes (besides the shared label ``Memory``).
NODE_LABELS: frozenset[str] = frozenset(
    {"Episode", "Session", "Step", "Turn", "Event", "Participant", "Entity", "Location", "Box", "Trace"}
)
#: Relationship types graphmem writes.
EDGE_TYPES: frozenset[str] = frozenset(
    {
        "NEXT",  # time order: step->step, turn->turn, session->session, box->box
        "IN_EPISODE",
        "IN_SESSION",
        "HAS_EVENT",  # step/box -> event
        "AT",  # unit -> location
        "INVOLVES",  # step -> entity (salient object)
        "MENTIONS",  # turn -> entity/participant
        "SPOKEN_BY",  # turn -> participant
        "ENABLES",  # causal: step that gained an item -> later step that spent it
        "CAUSES",  # causal: plan -> outcome
        "CONTAINS",  # box -> turn
        "IN_TRACE",  # event -> trace
    }
)
#: Labels whose ``text`` is searchable (full-text index) and whose ``embedding`` is in a vector index.
UNIT_LABELS: tuple[str, ...] = ("Step", "Turn")


def node_key(label: str, uid: str) -> str:
    """The namespace-unique key of a node: ``node_key("Step", "run:3") == "step:run:3"``."""
    return f"{label.lower()}:{uid}"


def unit_filter(label: str) -> str | None:
    """The unit label a vector search over ``label`` keeps to ("Step" or "Turn"), or None ("unit": every
    unit; "Box": the boxes' own index). Any other label is a ``ValueError``.

    >>> unit_filter("Turn"), unit_filter("unit"), unit_filter("Box")
    ('Turn', None, None)
    """
    if label in UNIT_LABELS:
        return label
    if label in ("unit", "Box"):
        return None
    raise ValueError(f"vector search takes label 'unit', 'Box', 'Step' or 'Turn', not {label!r}")


def episodes_with(stored: Sequence[dict[str, Any]], unlanded: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A namespace's Episode nodes as they will be once the writes in flight land: the stored ones (from
    ``GraphStore.episode_nodes``) and the Episode rows of those writes, one per ``uid``, the row in flight
    winning. A write may land before or after the store was read; either way each episode counts once.

    >>> episodes_with([{"uid": "run-1", "seq": 0}], [{"uid": "run-1", "seq": 0, "last_t": 9}, {"uid": "chat", "seq": 1}])
    [{'uid': 'run-1', 'seq': 0, 'last_t': 9}, {'uid': 'chat', 'seq': 1}]
    """
    merged = {str(e["uid"]): e for e in stored}
    merged.update((str(e["uid"]), e) for e in unlanded)
    return list(merged.values())


def earliest_start(start: float, longest: float | None) -> float:
    """The earliest start an interval can have and still overlap a window opening at ``start``, when no
    interval lasts longer than ``longest`` seconds (-inf when that is unknown). Both backends' window
    reads seek interval starts in [earliest_start(start, longest), end]."""
    return start - longest if longest is not None else -math.inf


@dataclass(frozen=True)
class NodeRow:
    """One node to merge. ``props`` are plain values (str, int, float, bool, lists of them)."""

    label: str
    namespace: str
    uid: str
    props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return node_key(self.label, self.uid)


@dataclass(frozen=True)
class EdgeRow:
    """One relationship to merge between two node keys (at most one edge of a type per pair)."""

    type: str
    namespace: str
    source: str  # node key
    target: str  # node key
    props: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Expect:
    """A condition a batch was built on: node ``key`` holds ``value`` in ``prop`` (None: the node is absent
    or lacks it). The store checks it in the write's own transaction and writes nothing when it fails, so
    two writers appending to one episode cannot both build on the same state."""

    namespace: str
    key: str
    prop: str
    value: Any


def unmet(expect: Expect, actual: Any) -> str:
    """The error message of an unmet ``Expect``."""
    if expect.value is None and expect.prop == "uid":
        return f"{expect.key} already exists in namespace {expect.namespace!r}: nothing of this batch was written"
    return (
        f"{expect.key} in namespace {expect.namespace!r} has {expect.prop}={actual!r}, but this batch was built "
        f"for {expect.prop}={expect.value!r}: another writer changed it; nothing was written, re-read and retry"
    )


@dataclass(frozen=True)
class WriteBatch:
    nodes: tuple[NodeRow, ...] = ()
    edges: tuple[EdgeRow, ...] = ()
    expect: tuple[Expect, ...] = ()

    def __add__(self, other: "WriteBatch") -> "WriteBatch":
        return WriteBatch.join([self, other])

    @staticmethod
    def join(batches: Sequence["WriteBatch"]) -> "WriteBatch":
        """The batches as one, in order (one concatenation, however many there are)."""
        return WriteBatch(
            tuple(row for b in batches for row in b.nodes),
            tuple(edge for b in batches for edge in b.edges),
            tuple(e for b in batches for e in b.expect),
        )


@dataclass(frozen=True)
class Hit:
    """A search hit: a node key, the caller's uid, and a score (higher is better); with ``props``, the
    node's properties (as ``get_nodes`` returns them) when the search was asked for them."""

    key: str
    uid: str
    score: float
    props: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def source_id(self) -> str:
        """The caller's own id of the unit (a Turn's id, or ``f"{episode_id}:{t}"`` for a Step)."""
        return self.uid


@dataclass(frozen=True)
class Neighbourhood:
    """Chains of units around given units along NEXT; with ``nodes``, the properties (as ``get_nodes``
    returns them) of the units on the chains other than the given ones, when the read was asked for them."""

    chains: Mapping[str, list[str]]
    nodes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class EventRow:
    key: str
    unit_key: str
    episode: str
    kind: str
    obj: str
    count: int
    ordinal: int
    t: int


@dataclass(frozen=True)
class SessionRow:
    uid: str
    episode: str
    seq: int
    start: float  # epoch seconds (UTC)
    end: float


@runtime_checkable
class GraphStore(Protocol):
    """What the memory logic needs from a graph backend. ``Neo4jStore`` and ``EmbeddedStore`` implement it."""

    def ensure_schema(self) -> None:
        """Create constraints and indexes if missing; fail clearly if existing ones do not fit."""

    def write(self, batch: WriteBatch) -> None:
        """Merge every node and edge of ``batch`` in one transaction (all or nothing, idempotent)."""

    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Properties of the nodes that exist among ``keys``, by key."""

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[dict[str, Any]]:
        """Every Episode node of the namespace (only those of ``kind``, "trajectory" or "dialogue", when
        given), ordered by ``seq``."""

    def episode_kinds(self, namespaces: Sequence[str]) -> dict[str, dict[str, str]]:
        """For each of the namespaces, its episodes as ``{uid: kind}`` ({} for a namespace without any),
        in one read: what a bulk writer checks before a namespace's first batch."""

    def sessions(self, namespace: str, episode: str | None = None) -> list[SessionRow]:
        """Sessions ordered by ``seq``."""

    def occurrence(self, namespace: str, episode: str, kind: str, obj: str, ordinal: int) -> EventRow | None:
        """The ``ordinal``-th event (1-based) of that kind and object in the episode."""

    def event_total(self, namespace: str, episode: str, kind: str, obj: str) -> int:
        """How many events of that kind and object the episode holds (the highest ordinal)."""

    def latest_event_until(self, namespace: str, episode: str, kind: str, obj: str, t: int) -> EventRow | None:
        """The last event of that kind and object at or before step ``t``."""

    def events_of(self, namespace: str, unit_keys: Sequence[str]) -> list[EventRow]:
        """The events attached to these units."""

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, dict[str, Any]]:
        """Step nodes of the episode at these indices, by index."""

    def units_in_window(
        self, namespace: str, start: float, end: float, limit: int,
        longest_session: float | None = None, longest_event: float | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Up to ``limit`` turns whose session interval overlaps [start, end] or whose event time falls in it,
        each with its properties (as ``get_nodes`` returns them).

        Earliest first (the dict's order): the turns of overlapping sessions by (session start, seq, key),
        then the turns with an event time in the window by (event start, seq, key); at most ``limit`` of
        each kind are read, and a turn that is both comes once, at its first place.

        ``longest_session`` / ``longest_event`` (seconds), when the caller knows upper bounds of every
        session interval / event-time interval of the namespace (dialogue Episodes keep them), bound the
        reads to starts in [start - longest, end]; without them every start up to ``end`` is read.
        """

    def sessions_in_window(self, namespace: str, start: float, end: float, longest_session: float | None = None) -> list[str]:
        """Keys of the sessions whose interval [start, end] overlaps the window, sorted (``longest_session``
        as for ``units_in_window``)."""

    def neighbours(self, namespace: str, keys: Sequence[str], before: int, after: int, with_props: bool = False) -> Neighbourhood:
        """For each key, the unit keys up to ``before`` steps back and ``after`` forward along NEXT, in order;
        ``with_props`` also reads the other units on those chains (saves recall a ``get_nodes`` round trip)."""

    def fulltext(self, namespace: str, query: str, k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        """BM25 search over unit text (``label="unit"``) or box text (``label="Box"``); ``with_props``
        fills each hit's ``props`` (saves recall a ``get_nodes`` round trip)."""

    def vector(self, namespace: str, embedding: Sequence[float], k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        """Nearest units by cosine (``label`` "unit"; "Step" or "Turn" for one kind, "Box" for boxes);
        score is Neo4j's ``(1 + cos) / 2``; ``with_props`` as for ``fulltext``."""

    def box_members(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        """Turn keys contained in each box, in time order."""

    def boxes_of(self, namespace: str, unit_keys: Sequence[str]) -> dict[str, str]:
        """The box that contains each turn."""

    def trace_boxes(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        """For each box, the other boxes that share a trace with it (ordered by time)."""

    def trace_events(self, namespace: str) -> list[dict[str, Any]]:
        """Every box event with its trace id and embedding (the Trace Weaver's input)."""

    def counts(self, namespace: str) -> dict[str, int]:
        """Number of nodes per label and edges per type in the namespace."""

    def delete_namespace(self, namespace: str) -> None:
        """Remove every node and edge of the namespace."""

    def close(self) -> None: ...
