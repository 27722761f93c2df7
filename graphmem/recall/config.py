"""How recall runs, as one frozen record: which stages run, how dialogue evidence is written, and the
tuning of each kind of recall.

Give it to a memory as its default (``Memory(recall_config=...)``) or to one call
(``mem.recall(..., config=...)``, ``mem.answer(..., config=...)``). The stage switches are there for
ablations: each is on by default, and turning one off shows what that stage is worth. A bad value is an
``InvalidArgumentError`` naming the field, raised when the config is built.

>>> RecallConfig(use_expansion=False).use_expansion, RecallConfig().context
(False, 'compact')
>>> RecallConfig(context="verbose")
Traceback (most recent call last):
graphmem.errors.InvalidArgumentError: context must be 'compact' or 'full', got 'verbose'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from graphmem.errors import InvalidArgumentError
from graphmem.recall.dialogue.config import (
    DEFAULT_DIALOGUE_CONFIG,
    DialogueRecallConfig,
)
from graphmem.recall.trajectory import DEFAULT_CONFIG as DEFAULT_TRAJECTORY_CONFIG
from graphmem.recall.trajectory import TrajectoryRecallConfig
from graphmem.records import short

__all__ = ["DEFAULT_RECALL_CONFIG", "RecallConfig"]

#: The stage switches, in the order the fields are declared.
SWITCHES = ("use_anchors", "use_chain", "use_frames", "use_boxes", "use_traces", "use_expansion")


@dataclass(frozen=True)
class RecallConfig:
    """Stage switches, the dialogue evidence style and the tuning of trajectory and dialogue recall."""

    #: Trajectory: resolve the question's anchors in the store (off: content search only, no executor answer).
    use_anchors: bool = True
    #: Trajectory: rank steps near a resolved anchor higher (offset questions need the steps around it).
    use_chain: bool = True
    #: Dialogue: read a time window and people from the question (RaMem's recall frame), valid turns first.
    use_frames: bool = True
    #: Dialogue: score each turn by its topic box too and bring in the best boxes' turns (Membox).
    use_boxes: bool = True
    #: Dialogue: bring in the boxes on the same trace as the best boxes (the same topic in other sessions).
    use_traces: bool = True
    #: Dialogue: search the neighbours of the question's rare words too ("art" meets "painting").
    use_expansion: bool = True
    #: Dialogue evidence: "compact" (dates once, speaker and text) or "full" (also ids, intervals, topics).
    context: Literal["compact", "full"] = "compact"
    #: The tuning of dialogue recall (``graphmem.recall.dialogue.config.DialogueRecallConfig``).
    dialogue: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG
    #: The tuning of trajectory recall (``graphmem.recall.trajectory.TrajectoryRecallConfig``).
    trajectory: TrajectoryRecallConfig = DEFAULT_TRAJECTORY_CONFIG

    def __post_init__(self) -> None:
        for name in SWITCHES:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidArgumentError(name, f"must be True or False, got {short(value)}")
        if self.context not in ("compact", "full"):
            raise InvalidArgumentError("context", f"must be 'compact' or 'full', got {short(self.context)}")
        if not isinstance(self.dialogue, DialogueRecallConfig):
            raise InvalidArgumentError("dialogue", f"must be a DialogueRecallConfig, got {type(self.dialogue).__name__}")
        if not isinstance(self.trajectory, TrajectoryRecallConfig):
            raise InvalidArgumentError("trajectory", f"must be a TrajectoryRecallConfig, got {type(self.trajectory).__name__}")


#: Every stage on, the default tuning.
DEFAULT_RECALL_CONFIG = RecallConfig()
