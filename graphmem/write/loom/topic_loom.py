"""The Topic Loom itself: online segmentation of one session into sealed boxes, asking a decider about
each turn and an extractor at each seal.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.decide import TopicDecider
from graphmem.write.loom.extract import BoxExtractor
from graphmem.write.loom.records import Decision, LoomTurn, SealedBox, box_id_for

__all__ = ["TopicLoom"]

logger = logging.getLogger(__name__)


class TopicLoom:
    """Online segmentation of one session into sealed boxes (Membox's Topic Loom).

    Turn by turn: the first turn opens a box; the box's second turn is added without asking (a new box
    takes at least one adjacent reply, so no box is a lone utterance unless the session ends); every
    later turn goes to the decider. ``CONTINUE`` appends; ``BREAK`` seals and opens a new box with the
    turn. ``PARTIAL`` seals too by default, as Membox's released code does (it seals on anything but
    "yes"): a partially shifted turn usually opens the next subject, and smaller boxes keep retrieval
    focused. ``LoomConfig(seal_on_partial=False)`` keeps partial shifts in the open box instead. The session
    end seals the last box; boxes never span sessions because ``segment`` sees one session at a time.

    >>> from graphmem.write.loom.decide import LocalDecider
    >>> texts = ["I took a pottery class.", "Pottery is so calming!", "I made a pottery bowl.",
    ...          "My brother bought a motorcycle.", "A motorcycle? Which one?", "A red Ducati motorcycle."]
    >>> turns = [LoomTurn(f"D1:{i}", "AB"[i % 2], t, [1.0, 0.0] if i < 3 else [0.0, 1.0], "s1")
    ...          for i, t in enumerate(texts)]
    >>> [b.turn_ids for b in TopicLoom(LocalDecider(), BoxExtractor()).segment("s1", turns)]
    [('D1:0', 'D1:1', 'D1:2'), ('D1:3', 'D1:4', 'D1:5')]
    """

    def __init__(
        self, decider: TopicDecider, extractor: BoxExtractor, config: LoomConfig = DEFAULT_LOOM_CONFIG
    ) -> None:
        self.decider = decider
        self.extractor = extractor
        self.config = config

    def segment(self, session_id: str, turns: Sequence[LoomTurn]) -> list[SealedBox]:
        """Split a session's turns (in order) into sealed boxes; every turn lands in exactly one box.

        Raises ``ValueError`` if a turn belongs to another session or a turn id repeats.

        >>> from graphmem.write.loom.decide import LocalDecider
        >>> turns = [LoomTurn(f"D1:{i}", "AB"[i % 2], "Hello there!", [1, 0], "s1") for i in range(5)]
        >>> boxes = TopicLoom(LocalDecider(), BoxExtractor()).segment("s1", turns)
        >>> [t for b in boxes for t in b.turn_ids] == [t.id for t in turns]
        True
        """
        seen: set[str] = set()
        for turn in turns:
            if turn.session_id != session_id:
                raise ValueError(f"turn {turn.id!r} belongs to session {turn.session_id!r}, not {session_id!r}")
            if turn.id in seen:
                raise ValueError(f"turn id {turn.id!r} appears twice in session {session_id!r}")
            seen.add(turn.id)

        boxes: list[SealedBox] = []
        open_box: list[LoomTurn] = []
        for turn in turns:
            if len(open_box) < 2:
                open_box.append(turn)
                continue
            decision = self.decider.decide(tuple(open_box), turn)
            logger.debug("loom %s: turn %s -> %s", session_id, turn.id, decision.value)
            if decision is Decision.CONTINUE or (decision is Decision.PARTIAL and not self.config.seal_on_partial):
                open_box.append(turn)
                continue
            boxes.append(self._seal(session_id, len(boxes), open_box))
            open_box = [turn]
        if open_box:
            boxes.append(self._seal(session_id, len(boxes), open_box))
        logger.debug("loom %s: %d turns -> %d boxes", session_id, len(turns), len(boxes))
        return boxes

    def _seal(self, session_id: str, index: int, turns: Sequence[LoomTurn]) -> SealedBox:
        box_id = box_id_for(session_id, index)
        box = self.extractor.extract(box_id, session_id, tuple(turns))
        expected = tuple(t.id for t in turns)
        if box.box_id != box_id or box.turn_ids != expected or box.session_id != session_id:
            # A custom extractor must not move turns between boxes: coverage is the loom's guarantee.
            raise ValueError(f"extractor returned box {box.box_id!r} with other turns than {box_id!r}")
        return box
