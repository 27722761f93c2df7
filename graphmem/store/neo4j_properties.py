"""The properties the Neo4j backend keeps on a node beside a record's own, and how reads return a node.

A unit or box also holds ``ns_key`` (its namespace as one Lucene token, for the full-text indexes) and
the int8 code of its embedding (for the exact search of a small namespace); no read returns those, nor
the embedding itself (``HIDDEN_PROPERTIES``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.store.protocol import Hit

__all__ = ["HIDDEN_PROPERTIES", "hit", "int8_code", "int8_scaled", "node_props", "ns_key"]

#: Stored properties no read ever returns (every recall query's ``$hidden``): the float vector, its int8
#: code and the code's squared length (search internals, large), and the namespace's full-text key.
HIDDEN_PROPERTIES = ("embedding", "embedding_int8", "embedding_int8_sq", "ns_key")


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
    """A search row ``[key, uid, score, props or null]`` as a ``Hit``."""
    key, uid, score, props = row
    return Hit(key, uid, float(score), node_props(props) if props is not None else None)
