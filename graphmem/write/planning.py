"""What writing plans with, shared by ``Memory`` (each write waits for the store) and ``BulkWriter``
(writes on a background thread while the next batch is built): the default dialogue episode, the report
a write returns, and ``WritePlanner``, the validation and batch building a bulk writer asks the memory for.

Both import this module and ``graphmem.write.bulk`` needs nothing of ``graphmem.memory``, so the two do
not import each other.

>>> WriteReport(written=2, unchanged=0)
WriteReport(written=2, unchanged=0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from graphmem.records import Step, Turn
    from graphmem.store.protocol import EpisodeRow, GraphStore, WriteBatch
    from graphmem.write.dialogue import DialogueWriter, NewSession
    from graphmem.write.steps import EpisodeSoFar

__all__ = ["DEFAULT_DIALOGUE_EPISODE", "WritePlanner", "WriteReport"]

#: The episode a dialogue session joins when the caller names none.
DEFAULT_DIALOGUE_EPISODE = "dialogue"


@dataclass(frozen=True)
class WriteReport:
    """What a write did: units written, units that were already stored unchanged."""

    written: int
    unchanged: int


class WritePlanner(Protocol):
    """What a bulk writer asks of the memory it writes to (``graphmem.memory.Memory`` is one): the store,
    the checks and the batches of ``add_steps`` and ``add_session``, so that both write the same rows."""

    @property
    def store(self) -> GraphStore: ...

    @property
    def dialogue_writer(self) -> DialogueWriter: ...

    def plan_steps(
        self, namespace: str, episode_id: str, steps: Sequence[Step], unlanded_episodes: Sequence[EpisodeRow] = ()
    ) -> tuple[EpisodeSoFar, list[Step], list[Step]]: ...

    def new_episode(
        self, namespace: str, episode_id: str, steps: Sequence[Step], seq: int
    ) -> tuple[EpisodeSoFar, list[Step], list[Step]]: ...

    def step_batch(
        self, namespace: str, episode_id: str, steps: Sequence[Step], so_far: EpisodeSoFar
    ) -> WriteBatch: ...

    def validated_session(
        self, namespace: str, session_id: str, turns: Sequence[Turn], started_at: datetime, ended_at: datetime | None,
        episode_id: str,
    ) -> NewSession: ...
