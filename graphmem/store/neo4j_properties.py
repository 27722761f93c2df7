"""The properties the Neo4j backend keeps on a node beside a record's own, and how reads return a node.

A unit or box also holds ``ns_key`` (its namespace as one Lucene token, for the full-text indexes) and
the int8 code of its embedding (for the exact search of a small namespace). A node that holds times in
epoch seconds also holds them as Neo4j ``DATETIME`` values, for people reading the graph in Neo4j
Browser (``BROWSER_TIMES``: a Session's ``start_time`` and ``end_time``, a Turn's ``session_start_time``,
``event_start_time`` and ``event_end_time``, an Episode's ``first_session_start_time``,
``last_session_start_time`` and ``last_session_end_time``). No read returns any of those, nor the
embedding itself (``HIDDEN_PROPERTIES``), so Neo4j reads return exactly what the embedded store does.

>>> browser_times("Session", {"start": 0.0, "end": None, "seq": 1})
{'start_time': datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc), 'end_time': None}
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from graphmem.store.protocol import Hit
from graphmem.store.rows import stored_row

__all__ = ["BROWSER_PROPERTIES", "BROWSER_TIMES", "HIDDEN_PROPERTIES", "browser_times", "hit", "int8_code", "int8_scaled",
           "node_props", "ns_key"]

#: The properties in epoch seconds of each label that Neo4j also holds as a ``DATETIME`` named
#: ``<property>_time`` (``browser_times``), so that Neo4j Browser shows them as dates.
BROWSER_TIMES: Mapping[str, tuple[str, ...]] = {
    "Session": ("start", "end"),
    "Turn": ("session_start", "event_start", "event_end"),
    "Episode": ("first_session_start", "last_session_start", "last_session_end"),
}
#: The Browser-only properties: written on Neo4j only, never read back.
BROWSER_PROPERTIES: tuple[str, ...] = tuple(f"{name}_time" for names in BROWSER_TIMES.values() for name in names)
#: Stored properties no read ever returns (every recall query's ``$hidden``): the float vector, its int8
#: code and the code's squared length (search internals, large), the namespace's full-text key, and the
#: Browser-only times.
HIDDEN_PROPERTIES = ("embedding", "embedding_int8", "embedding_int8_sq", "ns_key", *BROWSER_PROPERTIES)


def browser_times(label: str, props: Mapping[str, Any]) -> dict[str, datetime | None]:
    """The ``DATETIME`` properties (UTC) of the epoch-second properties among ``props`` of a ``label``
    node (``BROWSER_TIMES``): None where the time is None, so writing it removes the stale one, as the
    epoch property goes. A time outside what a datetime holds has none."""
    times: dict[str, datetime | None] = {}
    for name in BROWSER_TIMES.get(label, ()):
        if name in props:
            times[f"{name}_time"] = _utc(props[name])
    return times


def _utc(seconds: Any) -> datetime | None:
    if seconds is None:
        return None
    try:
        return datetime.fromtimestamp(float(seconds), tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def ns_key(namespace: str) -> str:
    """A single Lucene token that stands for the namespace inside full-text indexes.

    >>> ns_key("user-1")[:2], len(ns_key("user-1"))
    ('ns', 42)
    """
    return "ns" + hashlib.sha1(namespace.encode("utf-8")).hexdigest()


def int8_scaled(vector: Sequence[float]) -> np.ndarray[Any, np.dtype[np.float64]] | None:
    """The vector with its largest magnitude scaled to 127 (an int8 code before rounding); None for a
    zero or non-finite vector."""
    values = np.asarray(vector, dtype=np.float64)
    top = float(np.abs(values).max()) if values.size else 0.0
    if not top or not math.isfinite(top):
        return None
    return values * (127.0 / top)


def int8_code(embedding: Sequence[float]) -> tuple[bytes, float] | None:
    """A vector's int8 code and the code's squared length, stored beside the float vector as
    ``embedding_int8`` (a byte array) and ``embedding_int8_sq``: each component scaled by 127 / the
    largest magnitude and rounded. Neo4j's vector functions read a byte array as a list of signed
    integers, so the exact search ranks a namespace reading 384 bytes per node instead of 1,536 (four
    dynamic array records instead of thirteen), and with the squared length it turns the cheap
    Euclidean distance into the code's cosine (see vector_units_exact.cypher). None for a zero or
    non-finite vector.

    >>> code, square = int8_code([0.5, -1.0, 0.0])
    >>> list(code), square
    ([64, 129, 0], 20225.0)
    """
    scaled = int8_scaled(embedding)
    if scaled is None:
        return None
    code = np.round(scaled)
    return code.astype(np.int8).tobytes(), float(code @ code)


def node_props(pairs: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """A node's properties as the memory logic sees them, read as ``[name, value]`` pairs without the
    ``HIDDEN_PROPERTIES`` (every recall query's ``[name IN keys(n) WHERE NOT name IN $hidden | [name,
    n[name]]]``; ``keys(n)`` lists only the properties a node has, so no value is null).

    Why pairs and not ``n {.*, embedding: null}``: the map projection reads every property's value, the
    384-float embedding too (a dozen dynamic array records per node), before dropping it. Listing the
    keys reads no value. On the 1M-unit benchmark database, reading 150 turns by key: 24 ms and ~42 ms of
    server CPU with the projection, 14 ms and ~25 ms with pairs (8 ms for the keys alone).
    """
    return {name: value for name, value in pairs}


def hit(row: Sequence[Any]) -> Hit:
    """A search row ``[key, uid, score, props or null]`` as a ``Hit`` (with the node's row when it has props)."""
    key, uid, score, props = row
    return Hit(key, uid, float(score), stored_row(node_props(props)) if props is not None else None)
