"""The narrow interface between graphmem's memory logic and its two backends.

The memory graph is a property graph. Every graphmem node carries the shared label ``Memory`` plus its
own label (``Step``, ``Turn``, ``Event``, ``Session``, ...), a ``namespace`` and a ``key`` unique within
the namespace (``"step:run-1:12"``, ``"turn:D1:3"``); ``uid`` is the caller's own id. Writes arrive as a
``WriteBatch`` of node and edge rows and are applied in one transaction with MERGE semantics, so writing
the same batch twice changes nothing. Reads are the handful of lookups recall needs; each is index-backed
on Neo4j and realized by the same rules on the embedded backend, so both answer identically. A read
whose nodes have one shape returns typed rows (``StepRow``, ``TurnRow``, ``BoxRow``, ``SessionRow``,
``EpisodeRow``, ``TraceEventRow``, ``EventRow``, ``ChangeRow``), built from the stored properties by
``graphmem.store.rows``; ``get_nodes`` alone returns properties, of any label.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from graphmem.records import Scalar

#: Node labels graphmem writes (besides the shared label ``Memory``).
NODE_LABELS: frozenset[str] = frozenset(
    {"Episode", "Session", "Step", "Turn", "Event", "Change", "Participant", "Entity", "Location", "Box", "Trace"}
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
        "CONTAINS",  # box -> turn
        "IN_TRACE",  # event -> trace
        "CHANGES",  # step -> change: an inventory item or state value the step changed
    }
)
#: Labels whose ``text`` is searchable (full-text index) and whose ``embedding`` is in a vector index.
UNIT_LABELS: tuple[str, ...] = ("Step", "Turn")
#: The length of every embedding a store holds: Neo4j's vector indexes are built for it and the embedded
#: store takes it by default. An embedder must return vectors of this length (``graphmem.embed.checked_embeddings``).
DIMENSIONS = 384


def dimensions_of(store: object) -> int:
    """The length of the embeddings ``store`` holds: its ``dimensions``, else ``DIMENSIONS``.

    >>> class Plain: ...
    >>> dimensions_of(Plain())
    384
    """
    return int(getattr(store, "dimensions", DIMENSIONS))


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


def episodes_with(stored: Sequence[EpisodeRow], unlanded: Sequence[EpisodeRow]) -> list[EpisodeRow]:
    """A namespace's Episode nodes as they will be once the writes in flight land: the stored ones (from
    ``GraphStore.episode_nodes``) and the Episode rows of those writes, one per ``uid``, the row in flight
    winning. A write may land before or after the store was read; either way each episode counts once.

    >>> stored = [EpisodeRow("episode:run-1", "run-1", "trajectory", seq=0)]
    >>> flying = [EpisodeRow("episode:run-1", "run-1", "trajectory", seq=0, last_t=9), EpisodeRow("episode:chat", "chat", "dialogue", seq=1)]
    >>> [(e.uid, e.last_t) for e in episodes_with(stored, flying)]
    [('run-1', 9), ('chat', None)]
    """
    merged = {e.uid: e for e in stored}
    merged.update((e.uid, e) for e in unlanded)
    return list(merged.values())


def earliest_start(start: float, longest: float | None) -> float:
    """The earliest start an interval can have and still overlap a window opening at ``start``, when no
    interval lasts longer than ``longest`` seconds (-inf when that is unknown). Both backends' window
    reads seek interval starts in [earliest_start(start, longest), end]."""
    return start - longest if longest is not None else -math.inf


#: Where a ``Change`` comes from: an inventory item's count or a state value.
CHANGE_SOURCES: tuple[str, ...] = ("inventory", "state")
#: The comparisons ``find_change`` takes.
COMPARISONS: tuple[str, ...] = ("==", "!=", "<", "<=", ">", ">=")
#: Step indices are 64-bit integers in Neo4j: an unbounded side of a window is this far.
T_MIN, T_MAX = -(2**63), 2**63 - 1


def t_window(lo: int | None, hi: int | None) -> tuple[int, int]:
    """A step window ``lo <= t <= hi`` with both sides bounded (None: unbounded), clamped to 64 bits. The
    Cypher statements always get both bounds: a ``$lo IS NULL OR ...`` predicate would keep the planner
    from seeking the index by the range.

    >>> t_window(None, 40), t_window(5, None)[0]
    ((-9223372036854775808, 40), 5)
    """
    return (T_MIN if lo is None else max(lo, T_MIN), T_MAX if hi is None else min(hi, T_MAX))


def check_ordinal(ordinal: int) -> int:
    """``ordinal`` if it names an occurrence (1, 2, ... from the start; -1, -2, ... from the end); 0 or a
    non-integer is a ``ValueError``."""
    if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal == 0:
        raise ValueError(f"ordinal must be a non-zero int (1 = first, -1 = last), got {ordinal!r}")
    return ordinal


def check_change_query(source: str, cmp: str) -> None:
    """A ``find_change`` source outside ``CHANGE_SOURCES`` or a comparison outside ``COMPARISONS`` is a
    ``ValueError``."""
    if source not in CHANGE_SOURCES:
        raise ValueError(f"source must be one of {CHANGE_SOURCES}, got {source!r}")
    if cmp not in COMPARISONS:
        raise ValueError(f"cmp must be one of {COMPARISONS}, got {cmp!r}")


_ORDERINGS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def meets(value: Scalar | None, cmp: str, target: Scalar | None) -> bool:
    """Whether ``value <cmp> target`` holds, by the rules both stores apply in ``find_change``: numbers
    (int or float, never bool) compare numerically with numbers under every comparison; text with text
    and bool with bool only under "==" and "!="; any other pairing (text and number, bool and number,
    None on either side, text under "<") does not meet the condition. ``cmp`` must be one of
    ``COMPARISONS``.

    >>> meets(3, ">=", 2.5), meets("lit", "==", "lit"), meets("b", ">", "a"), meets(True, "==", 1), meets(None, "!=", 1)
    (True, True, False, False, False)
    """
    if _is_number(value) and _is_number(target):
        return bool(_ORDERINGS[cmp](value, target))
    same_kind = (isinstance(value, str) and isinstance(target, str)) or (isinstance(value, bool) and isinstance(target, bool))
    if same_kind and cmp in ("==", "!="):
        return (value == target) == (cmp == "==")
    return False


def comes_to_meet(before: Scalar | None, after: Scalar | None, cmp: str, target: Scalar | None) -> bool:
    """Whether a change from ``before`` to ``after`` makes the value meet ``<cmp> target`` (see ``meets``)
    when it did not before: the steps ``find_change`` counts."""
    return meets(after, cmp, target) and not meets(before, cmp, target)


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
        scope = " (session and turn ids are namespace-wide)" if expect.key.startswith(("session:", "turn:")) else ""
        return f"{expect.key} already exists in namespace {expect.namespace!r}{scope}: nothing of this batch was written"
    return (
        f"{expect.key} in namespace {expect.namespace!r} has {expect.prop}={actual!r}, but this batch was built "
        f"for {expect.prop}={expect.value!r}: another writer changed it; nothing was written, re-read and retry"
    )


@dataclass(frozen=True)
class WriteBatch:
    nodes: tuple[NodeRow, ...] = ()
    edges: tuple[EdgeRow, ...] = ()
    expect: tuple[Expect, ...] = ()

    def __add__(self, other: WriteBatch) -> WriteBatch:
        return WriteBatch.join([self, other])

    @staticmethod
    def join(batches: Sequence[WriteBatch]) -> WriteBatch:
        """The batches as one, in order (one concatenation, however many there are)."""
        return WriteBatch(
            tuple(row for b in batches for row in b.nodes),
            tuple(edge for b in batches for edge in b.edges),
            tuple(e for b in batches for e in b.expect),
        )


@dataclass(frozen=True)
class Hit:
    """A search hit: a node key, the caller's uid, and a score (higher is better); with ``node``, the
    node's row (a ``StepRow`` or ``TurnRow``; a ``BoxRow`` for a box search) when the search was asked
    for it."""

    key: str
    uid: str
    score: float
    node: StoredRow | None = field(default=None, compare=False, repr=False)

    @property
    def source_id(self) -> str:
        """The caller's own id of the unit (a Turn's id, or ``f"{episode_id}:{t}"`` for a Step)."""
        return self.uid


@dataclass(frozen=True)
class Neighbourhood:
    """Chains of units around given units along NEXT; with ``nodes``, the rows of the units on the
    chains other than the given ones, when the read was asked for them."""

    chains: Mapping[str, list[str]]
    nodes: Mapping[str, StoredRow] = field(default_factory=dict)


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
class ChangeRow:
    """A step at which one inventory item or state value changed (values after the step)."""

    key: str  # node key of the Change node
    unit_key: str  # node key of its Step
    episode: str
    source: str  # "inventory" or "state"
    name: str  # item or state name
    before: Scalar | None  # value after the previous step (inventory: 0 when absent; state: None when absent)
    after: Scalar | None  # value after this step (inventory: 0 when absent; state: None when absent)
    t: int


@dataclass(frozen=True)
class StepCount:
    """How many steps of a window match (``count_steps``, ``count_held``), and which: the first
    ``shown`` of them in t order, then the last (``shown`` is empty when none match)."""

    total: int
    shown: tuple[int, ...] = ()


#: The Step properties ``count_steps`` tests.
STEP_FIELDS: tuple[str, ...] = ("action", "region")


def check_step_field(field: str) -> None:
    """A ``count_steps`` field outside ``STEP_FIELDS`` is a ``ValueError``."""
    if field not in STEP_FIELDS:
        raise ValueError(f"field must be one of {STEP_FIELDS}, got {field!r}")


@dataclass(frozen=True)
class SessionRow:
    """A stored dialogue Session: its interval ``[start, end]`` in epoch seconds (UTC; end = the next
    session's start unless the caller gave one), its place in the episode, the start as the caller gave
    it (``started_at``, ISO 8601) and the digest a re-added session is compared by."""

    uid: str
    episode: str
    seq: int
    start: float  # epoch seconds (UTC)
    end: float
    started_at: str
    digest: str


@dataclass(frozen=True)
class StepRow:
    """A stored Step node. ``payload`` is the whole record as canonical JSON: its inventory, state,
    location, events, relations and observation (``graphmem.write.steps.step_from_json`` reads it back);
    ``text`` is what search sees, ``digest`` what a re-added step is compared by."""

    key: str
    uid: str  # f"{episode}:{t}"
    episode: str
    t: int
    action: str
    summary: str = ""
    region: str = ""
    text: str = ""
    payload: str = ""
    digest: str = ""


@dataclass(frozen=True)
class TurnRow:
    """A stored dialogue Turn node: who said what, in which session (and where in the dialogue: ``seq``),
    when that session started and, when the text dates what it tells, the grounded event time (epoch
    seconds). ``payload`` is its context as JSON (participants, entities, locations, mentioned times,
    keywords); ``box`` its topic box's key ("" when in no box)."""

    key: str
    uid: str
    speaker: str
    utterance: str
    episode: str = ""
    session: str | None = None
    seq: int = 0
    image_caption: str | None = None
    text: str = ""
    session_start: float | None = None
    event_start: float | None = None
    event_end: float | None = None
    box: str | None = None
    payload: str = ""


@dataclass(frozen=True)
class BoxRow:
    """A stored topic Box: a topic-continuous run of turns of one session (``first_turn_seq`` is its
    first turn's ``seq``), its topic, events and keywords, and what search sees."""

    key: str
    uid: str
    episode: str
    session: str
    seq: int
    first_turn_seq: int | None
    topic: str
    events: tuple[str, ...]
    keywords: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class EpisodeRow:
    """A stored Episode node: a trajectory's or a dialogue's place in its namespace (``seq``) and writing
    state. A property the episode does not hold (the other kind's) is None; the JSON texts are as the writers keep them (``graphmem.write.steps``, ``.turns``)."""

    key: str
    uid: str
    kind: str  # "trajectory" or "dialogue"
    seq: int | None = None
    # A trajectory's: its last step index, and as JSON its vocabulary, event totals, latest gains and
    # the inventory and state after its last step.
    last_t: int | None = None
    vocab: str | None = None
    totals: str | None = None
    last_gain: str | None = None
    last_inventory: str | None = None
    last_state: str | None = None
    # A dialogue's: counts, the last session, turn and box, the history's range (epoch seconds), the
    # speakers (JSON), and the longest session and event-time intervals (seconds).
    turn_count: int | None = None
    session_count: int | None = None
    box_count: int | None = None
    last_session: str | None = None
    last_session_start: float | None = None
    last_session_end: float | None = None
    last_session_explicit_end: bool | None = None
    first_session_start: float | None = None
    last_turn: str | None = None
    last_box: str | None = None
    speakers: str | None = None
    longest_session: float | None = None
    longest_event: float | None = None


@dataclass(frozen=True)
class TraceEventRow:
    """A box's topic event on a trace (the Trace Weaver's input): its key, its box's key, its trace's id,
    its text and its embedding."""

    key: str
    box: str
    trace: str
    text: str
    embedding: Sequence[float] | None = field(compare=False, repr=False)


#: The rows a search hit or a chain along NEXT carries: units (steps, turns), boxes and sessions.
StoredRow = StepRow | TurnRow | BoxRow | SessionRow


@runtime_checkable
class GraphStore(Protocol):
    """What the memory logic needs from a graph backend. ``Neo4jStore`` and ``EmbeddedStore`` implement it."""

    def ensure_schema(self) -> None:
        """Create constraints and indexes if missing; fail clearly if existing ones do not fit."""

    def write(self, batch: WriteBatch) -> None:
        """Merge every node and edge of ``batch`` in one transaction (all or nothing, idempotent)."""

    def get_nodes(self, namespace: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Properties of the nodes that exist among ``keys``, by key: any label (``graphmem.store.rows``
        reads them as typed rows)."""

    def episode_nodes(self, namespace: str, kind: str | None = None) -> list[EpisodeRow]:
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

    def steps_at(self, namespace: str, episode: str, ts: Sequence[int]) -> dict[int, StepRow]:
        """Step nodes of the episode at these indices, by index."""

    # The store-level operators of trajectory queries. Events are ordered by (t, i): the step, then the
    # event's position among its step's events. Every window is lo <= t <= hi, a None
    # side unbounded. An ordinal counts 1, 2, ... from the start and -1, -2, ... from the end of what
    # matches; 0 is a ValueError, and an ordinal beyond what matches finds None.

    def find_event(self, namespace: str, episode: str, kind: str | None, obj: str | None, ordinal: int,
                   lo: int | None = None, hi: int | None = None) -> EventRow | None:
        """The ordinal-th event (1-based; -1 = the last, -2 = second to last) among the episode's events
        that match ``kind`` and ``obj`` (None matches any; "" matches only an empty obj) with
        lo <= t <= hi (None: unbounded), in (t, position within the step) order. With ``kind`` None and
        ``obj`` given, a step counts once however many of its events name the object (its first such
        event stands for it): "the second time I did something with the kitchen" is the second step.

        ``store.find_event(ns, "run-1", "collect", None, -1, hi=40)``: the last collect of anything at or
        before step 40."""

    def count_events(self, namespace: str, episode: str, kind: str | None, obj: str | None,
                     lo: int | None = None, hi: int | None = None) -> int:
        """How many events ``find_event`` chooses among (events, not the sum of their ``count`` field).

        ``store.count_events(ns, "run-1", None, "wood", 10, 20)``: steps with an event about wood in 10..20."""

    def find_change(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                    ordinal: int, lo: int | None = None, hi: int | None = None) -> ChangeRow | None:
        """The ordinal-th (1-based; negative from the end) step at which the value *comes to meet* the
        condition ``value_after <cmp> value`` having not met it after the previous step, within
        lo <= t <= hi (only the step's own t is windowed; the value it is compared with is the one after
        the previous step, wherever that is).

        ``source`` is "inventory" (``name`` an item, its count the value) or "state" (``name`` a state
        value); ``cmp`` one of "==", "!=", "<", "<=", ">", ">=". Anything else is a ValueError.

        The condition (``meets``): numbers (int or float, never bool) compare numerically with numbers;
        text and bools support only "==" and "!=", against values of their own type; any other pairing
        (text and number, bool and number, None, text under "<") does not meet it.

        What comes before the first step: an inventory lacks every item (count 0), a state has no
        values (None). So the first step comes to meet the condition when its value meets it and that
        prior value does not. An inventory item the agent never had meets "wood == 0" from the start, so
        no step comes to meet it until the count has left 0 and come back; an item that vanishes from the
        inventory changes to 0 (and comes to meet "wood == 0" there). A state value that appears only at
        a later step changes from None there, and one that disappears changes to None (which meets
        nothing).

        ``store.find_change(ns, "run-1", "inventory", "wood", ">=", 3, 1)``: the first step after which
        the agent held 3 wood or more, having held fewer."""

    def count_steps(self, namespace: str, episode: str, field: str, value: str,
                    lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        """How many of the episode's steps with lo <= t <= hi have ``field`` ("action" or "region";
        anything else is a ValueError) equal to ``value``, and which (``StepCount``: the first ``shown``
        matching steps, then the last).

        ``store.count_steps(ns, "run-1", "action", "noop", 100, 200)``: the steps in 100..200 that did nothing."""

    def count_held(self, namespace: str, episode: str, source: str, name: str, cmp: str, value: Scalar,
                   lo: int | None = None, hi: int | None = None, shown: int = 5) -> StepCount:
        """How many of the episode's steps with lo <= t <= hi end with the value meeting the condition
        ``value_after <cmp> value`` (``meets``, as in ``find_change``), and which. A step's value is the
        one its latest change at or before it left (before any change: inventory 0, state None), so
        steps count whether or not they changed it.

        ``store.count_held(ns, "run-1", "state", "health", "<=", 3)``: the steps ending at health 3 or less."""

    def steps_between(self, namespace: str, episode: str, lo: int, hi: int, limit: int) -> dict[int, StepRow]:
        """Step nodes with lo <= t <= hi (as ``steps_at`` returns them), the first ``limit`` by t, in t
        order (the dict's order)."""

    def units_in_window(
        self, namespace: str, start: float, end: float, limit: int,
        longest_session: float | None = None, longest_event: float | None = None,
    ) -> dict[str, TurnRow]:
        """Up to ``limit`` turns whose session interval overlaps [start, end] or whose event time falls in it,
        each with its row.

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
        ``with_props`` also reads the rows of the other units on those chains (saves recall a round trip)."""

    def fulltext(self, namespace: str, query: str, k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        """BM25 search over unit text (``label="unit"``) or box text (``label="Box"``); ``with_props``
        fills each hit's ``node`` (saves recall a round trip)."""

    def vector(self, namespace: str, embedding: Sequence[float], k: int, label: str = "unit", with_props: bool = False) -> list[Hit]:
        """Nearest units by cosine (``label`` "unit"; "Step" or "Turn" for one kind, "Box" for boxes);
        score is Neo4j's ``(1 + cos) / 2``; ``with_props`` as for ``fulltext``."""

    def box_members(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        """Turn keys contained in each box, in time order."""

    def boxes_of(self, namespace: str, unit_keys: Sequence[str]) -> dict[str, str]:
        """The box that contains each turn."""

    def trace_boxes(self, namespace: str, box_keys: Sequence[str]) -> dict[str, list[str]]:
        """For each box, the other boxes that share a trace with it (ordered by time)."""

    def trace_events(self, namespace: str) -> list[TraceEventRow]:
        """Every box event with its trace id and embedding (the Trace Weaver's input)."""

    def counts(self, namespace: str) -> dict[str, int]:
        """Number of nodes per label and edges per type in the namespace."""

    def delete_namespace(self, namespace: str) -> None:
        """Remove every node and edge of the namespace."""

    def close(self) -> None: ...

    # Lifecycle of one memory item (graphmem.store.lifecycle says what a deletion leaves behind).

    def namespaces(self) -> list[str]:
        """Every namespace that holds an episode, sorted."""

    def session_turns(self, namespace: str, session: str) -> list[TurnRow]:
        """The turns of one session in order."""

    def delete_episode(self, namespace: str, episode: str) -> None:
        """Remove one episode: its units (steps, sessions, turns) with their events, changes and topic
        boxes, the participants, entities, locations and traces nothing else uses, and the Episode; the
        namespace's other episodes keep their order with ``seq`` renumbered 0, 1, ... Nothing happens when
        the episode is not stored."""

    def delete_session(self, namespace: str, session: str) -> None:
        """Remove one dialogue session, its turns and topic boxes, closing the chains over it and leaving
        the episode as if the session had never been added (``graphmem.store.lifecycle.session_removal``);
        an episode's only session takes the episode with it. Nothing happens when it is not stored."""
