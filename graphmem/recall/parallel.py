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
    """The results of ``calls``, run concurrently, in call order.

    Every call finishes before this returns or raises (no read outlives its recall); the first
    exception in call order is re-raised.
    """
    if len(calls) <= 1:
        return [call() for call in calls]
    futures = [_POOL.submit(call) for call in calls[1:]]
    outcomes: list[tuple[bool, Any]] = []
    try:
        outcomes.append((True, calls[0]()))  # the caller's thread does one share of the work
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after the other calls finish
        outcomes.append((False, exc))
    for future in futures:
        try:
            outcomes.append((True, future.result()))
        except BaseException as exc:  # noqa: BLE001
            outcomes.append((False, exc))
    for ok, value in outcomes:
        if not ok:
            raise value
    return [value for _, value in outcomes]
