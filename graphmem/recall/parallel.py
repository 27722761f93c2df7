"""Run independent recall reads side by side.

A recall issues a few independent reads (full-text search, vector search, the question's embedding).
Each waits mostly on the server or on the model, both of which release the GIL, so running them on a
small shared pool cuts a recall's latency to its slowest read instead of their sum. The Neo4j driver is
thread-safe and opens one session per read; the embedded store serializes on its own lock.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-recall")


def together(*calls: Callable[[], Any]) -> list[Any]:
    """The results of ``calls``, run concurrently; the first exception raised is re-raised."""
    if len(calls) <= 1:
        return [call() for call in calls]
    futures = [_POOL.submit(call) for call in calls[1:]]
    first = calls[0]()  # the caller's thread does one share of the work
    return [first, *(f.result() for f in futures)]
