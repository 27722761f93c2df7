"""``recall.parallel.together``: results in call order, concurrency, and errors surface to the caller."""

from __future__ import annotations

import threading
import time

import pytest

from graphmem.recall.parallel import together


def test_results_come_back_in_call_order():
    assert together(lambda: 1, lambda: "two", lambda: [3]) == [1, "two", [3]]
    assert together(lambda: 5) == [5]
    assert together() == []


def test_calls_run_side_by_side():
    # Each call waits until all three have started: run one after another, they would time out.
    barrier = threading.Barrier(3, timeout=5)
    assert together(*(lambda i=i: (barrier.wait(), i)[1] for i in range(3))) == [0, 1, 2]


def test_an_exception_reaches_the_caller_after_the_other_calls_finish():
    finished = []

    def slow() -> str:
        time.sleep(0.05)
        finished.append("slow")
        return "slow"

    def broken() -> None:
        raise ValueError("search failed")

    with pytest.raises(ValueError, match="search failed"):
        together(slow, broken)
    with pytest.raises(ValueError, match="search failed"):
        together(broken, slow)
    assert finished == ["slow", "slow"]
