"""The LoCoMo development conversations the tests read.

They ship with the tests in ``tests/data/locomo-dev`` (CC BY-NC 4.0, see its README), so the suite runs
on a fresh clone with nothing beside it; ``GRAPHMEM_LOCOMO_DIR`` names another folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from graphmem.loaders.dialogue import Conversation
from graphmem.loaders.locomo import load_locomo
from graphmem.records import Turn

LOCOMO_DIR = Path(os.environ.get("GRAPHMEM_LOCOMO_DIR", Path(__file__).resolve().parent / "data" / "locomo-dev"))


def conversation(name: str) -> Conversation:
    """One development conversation ("conv-26" or "conv-30"), through graphmem's own LoCoMo loader."""
    assert LOCOMO_DIR.exists(), f"LoCoMo dev data not found at {LOCOMO_DIR}; set GRAPHMEM_LOCOMO_DIR"
    [conv] = load_locomo(LOCOMO_DIR / f"{name}.json")
    return conv


def sessions(name: str) -> list[tuple[str, list[Turn]]]:
    """(``"{name}:{session_id}"``, turns) for every session of a conversation, in session order."""
    return [(f"{name}:{s.session_id}", list(s.turns)) for s in conversation(name).sessions]
