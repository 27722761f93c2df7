"""The Neo4j backend's vector search: a namespace's k nearest units or boxes.

A small namespace is searched exactly (``EXACT_CAP``), a large one through its label's shared vector
index, asked for enough neighbours that k of them are the namespace's (the 5.26 vector index cannot
filter by namespace). ``VectorSearch`` remembers per namespace which way worked and its share of the
index's neighbours, so later searches ask the right depth at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

import neo4j
import numpy as np

from graphmem.store.neo4j_properties import hit, int8_scaled
from graphmem.store.neo4j_schema import VECTOR_INDEXES
from graphmem.store.protocol import UNIT_LABELS, Hit, unit_filter

__all__ = [
    "EXACT_CAP", "EXACT_SHORTLIST_MARGIN", "VECTOR_FETCH_CAP", "VECTOR_MARGIN", "VECTOR_MIN_FETCH", "VECTOR_OVERFETCH",
    "Read", "VectorSearch",
]

#: Threads for the per-label vector queries of one search (steps and turns side by side). Its own pool,
#: not recall's: a search already running on recall's pool must not wait for a thread of that pool.
_VECTOR_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-vector")

#: Vector search over-fetch: the 5.26 vector index cannot pre-filter by namespace, so it is asked for more
#: neighbours than k and the namespace's are kept. The first search of a namespace fetches
#: VECTOR_OVERFETCH * k; later ones fetch k / share * VECTOR_MARGIN, where share is the namespace's
#: observed share of the neighbours (a running mean): a namespace that dominates the index no longer pays
#: for a 4x deeper HNSW search (at 1M units, fetch 400 vs 130 costs 58 vs 36 ms). Too few hits still
#: trigger a deeper search (up to VECTOR_FETCH_CAP).
VECTOR_OVERFETCH = 4
VECTOR_MARGIN = 1.25
VECTOR_MIN_FETCH = 64
VECTOR_FETCH_CAP = 4096
#: A namespace with fewer units (or boxes) than this is searched exactly when the shared index cannot
#: fill k from it (bounded by this many vector comparisons; 0 disables it).
EXACT_CAP = 5000
#: The exact search ranks a namespace by each vector's int8 code (``embedding_int8``, see ``int8_code``)
#: and scores its best k + EXACT_SHORTLIST_MARGIN with the float vectors, which orders and scores them
#: exactly as comparing every float vector would unless a true top-k vector falls more than this many
#: places down the int8 ranking: never in 10,000 top-50 memberships on random unit vectors (the hardest
#: case: all cosines within about +-0.15), nor in 7,500 on LoCoMo turns with all-MiniLM-L6-v2 (0.6% and
#: 0.3% of them fall just outside the int8 top 50 itself). Near-duplicates (cosines within ~0.01 of each
#: other) need the margin most; the contract test checks a tight cluster.
EXACT_SHORTLIST_MARGIN = 20


class Read(Protocol):
    """A store's read: the records of the named query (``Neo4jStore._read``)."""

    def __call__(self, name: str, /, **params: Any) -> list[neo4j.Record]: ...


class VectorSearch:
    """The vector search of one store, with what it has learnt about each (namespace, label): whether it
    held at most EXACT_CAP vectors when last searched, and its share of its label index's neighbours."""

    def __init__(self) -> None:
        #: Whether a (namespace, label) held at most EXACT_CAP vectors when last searched (see ``search``).
        self._is_small: dict[tuple[str, str], bool] = {}
        #: The share of a (namespace, label) among its label index's nearest neighbours, as last observed.
        self._share: dict[tuple[str, str], float] = {}

    def search(self, read: Read, namespace: str, embedding: Sequence[float], k: int, label: str = "unit",
               with_props: bool = False) -> list[Hit]:
        """``GraphStore.vector``, each query run by ``read``."""
        if k <= 0:
            return []
        only = unit_filter(label)
        exact_query = "recall/vector_boxes_exact" if label == "Box" else "recall/vector_units_exact"
        vec = [float(x) for x in embedding]
        size_key = (namespace, label)
        tried_exact = False
        if EXACT_CAP > 0 and self._is_small.get(size_key, True):
            # A namespace not known to be large is first searched exactly: complete, bounded by EXACT_CAP
            # comparisons, and one query instead of a shared-index query that other namespaces crowd.
            # Most namespaces of a many-tenant database are small; a large one is remembered as such.
            hits = self._exact(read, exact_query, namespace, only, vec, k, with_props)
            self._is_small[size_key] = hits is not None
            if hits is not None:
                return hits
            tried_exact = True
        labels = ("Box",) if label == "Box" else (only,) if only else UNIT_LABELS
        fetches = {kind: self._first_fetch((namespace, kind), k, len(labels) > 1) for kind in labels}
        hits = self._nearest(read, namespace, fetches, vec, k, with_props)
        if len(hits) >= k:
            return hits
        if EXACT_CAP > 0 and not tried_exact:
            # Known large, yet the shared index cannot fill k: it may have shrunk since.
            exact = self._exact(read, exact_query, namespace, only, vec, k, with_props)
            if exact is not None:
                self._is_small[size_key] = True
                return exact
        # A large but rare namespace: look deeper into the shared index(es).
        while len(hits) < k and min(fetches.values()) < VECTOR_FETCH_CAP:
            fetches = {kind: min(fetch * 4, VECTOR_FETCH_CAP) for kind, fetch in fetches.items()}
            hits = self._nearest(read, namespace, fetches, vec, k, with_props)
        return hits

    def _first_fetch(self, key: tuple[str, str], k: int, one_of_several: bool) -> int:
        """How many neighbours to ask a label's index for, to find k of the namespace's: k over the
        namespace's observed share of the index's neighbours (with a margin).

        In a search over several indexes (steps and turns) the other index may fill k alone, so a kind that
        is rare among its index's neighbours (or absent from them) is asked at most as deep as a namespace's
        first search, k * VECTOR_OVERFETCH (at least VECTOR_MIN_FETCH): an agent's namespace of steps,
        searched over steps and turns, must not send the turn index 4,096-deep queries every time. The
        search still goes deeper when the indexes together come up short of k."""
        share = self._share.get(key, 1.0 / VECTOR_OVERFETCH)
        fetch = max(math.ceil(k * VECTOR_MARGIN / share), k, VECTOR_MIN_FETCH)
        if one_of_several:
            fetch = min(fetch, max(k * VECTOR_OVERFETCH, VECTOR_MIN_FETCH))
        return min(fetch, VECTOR_FETCH_CAP)

    def _nearest(self, read: Read, namespace: str, fetches: dict[str, int], vec: list[float], k: int,
                 with_props: bool) -> list[Hit]:
        """The namespace's top k among each label index's ``fetches[label]`` nearest, the indexes queried
        side by side (each its own read); ties broken by key, as every search does."""
        calls = [partial(self._approximate, read, kind, namespace, vec, fetch, k, with_props) for kind, fetch in fetches.items()]
        if len(calls) == 1:
            return calls[0]()
        found = [found_hit for hits in _VECTOR_POOL.map(lambda call: call(), calls) for found_hit in hits]
        return sorted(found, key=lambda h: (-h.score, h.key))[:k]

    def _approximate(self, read: Read, kind: str, namespace: str, vec: list[float], fetch: int, k: int,
                     with_props: bool) -> list[Hit]:
        """The namespace's top k among the ``fetch`` nearest of ``kind``'s vector index; updates the
        namespace's observed share of that index."""
        row = read("recall/vector_nearest", index=VECTOR_INDEXES[kind], namespace=namespace, embedding=vec,
                   fetch=fetch, k=k, props=with_props)[0]
        key = (namespace, kind)
        observed = max(int(row["seen"]), 1) / fetch
        previous = self._share.get(key)
        self._share[key] = observed if previous is None else (previous + observed) / 2
        return [hit(found) for found in row["hits"]]

    @staticmethod
    def _exact(read: Read, query: str, namespace: str, only: str | None, vec: list[float], k: int,
               with_props: bool) -> list[Hit] | None:
        """The exact top k of a namespace with at most EXACT_CAP vectors; None when it holds more."""
        # $only is a parameter of the unit queries; the box queries do not name it (Neo4j ignores it).
        # The question scaled as a code is (unrounded), for the codes' cosines (see vector_units_exact); a
        # zero question matches nothing either way.
        scaled = int8_scaled(vec)
        if scaled is None:
            scaled = np.zeros(len(vec))
        exact = read(query, namespace=namespace, only=only, embedding=vec, cap=EXACT_CAP + 1, k=k,
                     shortlist=k + EXACT_SHORTLIST_MARGIN, scaled=scaled.tolist(), square=float(scaled @ scaled),
                     props=with_props)
        if exact and int(exact[0]["seen"]) <= EXACT_CAP:
            return [hit(found) for found in exact[0]["hits"]]
        return None
