"""graphmem: episodic memory for long-horizon LLM agents, in Neo4j or in-process.

>>> from graphmem import Memory, Step
>>> with Memory() as mem:
...     mem.add_steps("agent-1", "run-1", [Step(0, "collect wood")])
WriteReport(written=1, unchanged=0)
"""

from graphmem.errors import (
    ConflictError,
    GraphmemError,
    InvalidArgumentError,
    InvalidRecordError,
    SchemaError,
    StoreError,
)
from graphmem.memory import Answer, Memory
from graphmem.recall.config import RecallConfig
from graphmem.recall.dialogue.config import DialogueRecallConfig
from graphmem.recall.packer import Evidence
from graphmem.recall.trajectory import TrajectoryRecallConfig
from graphmem.records import Event, Location, Relation, Step, Turn
from graphmem.store.protocol import Hit
from graphmem.write.planning import WriteReport

__all__ = [
    "Answer",
    "ConflictError",
    "DialogueRecallConfig",
    "Event",
    "Evidence",
    "GraphmemError",
    "Hit",
    "InvalidArgumentError",
    "InvalidRecordError",
    "Location",
    "Memory",
    "RecallConfig",
    "Relation",
    "SchemaError",
    "Step",
    "StoreError",
    "TrajectoryRecallConfig",
    "Turn",
    "WriteReport",
]
