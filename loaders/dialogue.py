"""Records shared by the dialogue loaders (LoCoMo, LongMemEval, plain chat logs).

A loader reads one file into a list of :class:`Conversation`. Everything is validated before anything is
returned: a fatal problem raises :class:`~graphmem.errors.InvalidRecordError` naming file, session and
turn; things a loader could repair or safely ignore are listed in ``Conversation.problems`` instead.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.records import Turn, validate_turns

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionRecord:
    """One session of a conversation; ``started_at`` is aware and in UTC.

    >>> from datetime import timezone
    >>> session = SessionRecord("session_1", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc), (Turn("D1:1", "Caroline", "Hi!"),))
    >>> session.started_at.isoformat(), [turn.id for turn in session.turns]
    ('2023-05-08T13:56:00+00:00', ['D1:1'])
    """

    session_id: str
    started_at: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class QAItem:
    """A benchmark question with its gold answer and the ids of the turns that hold the evidence.

    ``category`` is LoCoMo's number (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)
    or LongMemEval's ``question_type`` text.

    >>> item = QAItem("When did Caroline go to the support group?", "7 May 2023", ("D1:3",), 2)
    >>> item.evidence, item.category
    (('D1:3',), 2)
    """

    question: str
    answer: str | None
    evidence: tuple[str, ...]
    category: int | str
    adversarial_answer: str | None = None
    question_date: datetime | None = None


@dataclass(frozen=True)
class Conversation:
    """A whole dialogue history with its questions; ``problems`` lists what the loader repaired or dropped.

    >>> from importlib.resources import files
    >>> from graphmem.loaders.chat_jsonl import load_chat_jsonl
    >>> [conv] = load_chat_jsonl(files("graphmem") / "data" / "demo_dialogue.jsonl")
    >>> conv.conversation_id, conv.speakers, len(conv.sessions), conv.qa
    ('demo_dialogue', ('Maya', 'Leo'), 3, ())
    """

    conversation_id: str
    speakers: tuple[str, ...]
    sessions: tuple[SessionRecord, ...]
    qa: tuple[QAItem, ...]
    problems: tuple[str, ...]

    @property
    def turn_ids(self) -> frozenset[str]:
        return frozenset(turn.id for session in self.sessions for turn in session.turns)


# --------------------------------------------------------------------------------------------------
# Helpers the loaders share.
# --------------------------------------------------------------------------------------------------


def read_json(path: Path) -> Any:
    """Parse a JSON file; unreadable or malformed files raise InvalidRecordError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRecordError(str(path), "file", f"cannot be read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(str(path), "json", f"is not valid JSON ({exc.msg} at line {exc.lineno})") from exc


def answer_text(value: Any) -> str | None:
    """Benchmarks store some answers as numbers (LoCoMo: ``2022``); callers always get text or None."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def check_session(session_id: str, turns: list[Turn], where: str, seen_ids: set[str]) -> tuple[Turn, ...]:
    """Validate one session's turns and keep turn ids unique across the whole conversation.

    Evidence refers to turns by id alone, so an id used in two sessions would make evidence ambiguous.
    """
    checked = validate_turns(turns, where)
    for turn in checked:
        if turn.id in seen_ids:
            raise InvalidRecordError(f"{where}, turn {turn.id!r}", "id", "is used by an earlier session too")
        seen_ids.add(turn.id)
    return checked


def in_time_order(sessions: list[SessionRecord]) -> tuple[list[SessionRecord], list[str]]:
    """Sessions sorted by start time (stable), plus a problem line when the file had them out of order.

    The writer and the recall frames read session times as a timeline; LongMemEval's oracle file, for
    one, lists its sessions unsorted.
    """
    ordered = sorted(sessions, key=lambda session: session.started_at)
    if ordered == sessions:
        return sessions, []
    moved = [s.session_id for s, o in zip(sessions, ordered) if s.session_id != o.session_id]
    return ordered, [f"sessions were not in time order and were sorted by start time (moved: {', '.join(moved)})"]
