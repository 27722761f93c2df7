"""The loom's records: a turn as the loom reads it, a sealed box, and what a decider answers.

>>> box_id_for("chat:s1", 0)
'chat:s1#b0'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Decision", "LoomTurn", "SealedBox", "box_id_for"]


class Decision(enum.Enum):
    """What a topic decider says about an incoming turn (Membox: Yes / Partially Shifted / No)."""

    CONTINUE = "continue"
    PARTIAL = "partial"
    BREAK = "break"


@dataclass(frozen=True)
class LoomTurn:
    """One utterance as the loom sees it: text (with any photo caption) and its normalized embedding.

    The embedding is stored as a read-only float32 array and is left out of equality and hashing.

    >>> turn = LoomTurn("D1:3", "Caroline", "I went to the support group.", [0.6, 0.8], "s1")
    >>> turn.embedding.dtype, turn == LoomTurn("D1:3", "Caroline", "I went to the support group.", [1, 0], "s1")
    (dtype('float32'), True)
    """

    id: str
    speaker: str
    text: str
    embedding: np.ndarray = field(compare=False, repr=False)
    session_id: str

    def __post_init__(self) -> None:
        vector = np.asarray(self.embedding, dtype=np.float32).reshape(-1)
        vector.setflags(write=False)
        object.__setattr__(self, "embedding", vector)


@dataclass(frozen=True)
class SealedBox:
    """A sealed Membox: consecutive turns of one session on one local topic, with what was extracted.

    >>> box = SealedBox("s1#b0", "s1", ("D1:1", "D1:2"), "support group", ("went to a support group",),
    ...                 ("support", "group", "lgbtq"))
    >>> box.turn_ids
    ('D1:1', 'D1:2')
    """

    box_id: str
    session_id: str
    turn_ids: tuple[str, ...]
    topic: str
    events: tuple[str, ...]
    keywords: tuple[str, ...]


def box_id_for(session_id: str, index: int) -> str:
    """The deterministic id of the ``index``-th box (0-based) of a session.

    >>> box_id_for("conv-26:session_1", 2)
    'conv-26:session_1#b2'
    """
    return f"{session_id}#b{index}"
