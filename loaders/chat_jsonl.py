"""Plain chat logs as JSON Lines: one utterance per line.

Each line is ``{"session_id", "timestamp" (ISO 8601), "speaker", "text", "id"?, "image_caption"?}``. Lines are grouped into
sessions by ``session_id`` in the order the sessions first appear; a turn without ``id`` gets
``f"{session_id}:{n}"`` (``n`` counts from 0 within the session). A session starts at its earliest
timestamp. Naive timestamps are read as UTC.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.loaders.dialogue import Conversation, SessionRecord, check_session, in_time_order
from graphmem.records import Turn

logger = logging.getLogger(__name__)

@dataclass(frozen=True)
class _Line:
    number: int
    session_id: str
    timestamp: datetime
    speaker: str
    text: str
    explicit_id: str | None
    image_caption: str | None


def _parse_timestamp(value: Any, where: str) -> datetime:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(where, "timestamp", f"must be an ISO 8601 text, got {value!r}")
    text = value.strip()
    try:
        # Python 3.11 reads "Z" and most ISO 8601 forms itself.
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidRecordError(where, "timestamp", f"is not ISO 8601: {value!r}") from exc
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _read_line(raw: str, number: int, where: str) -> _Line:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(where, "json", f"is not valid JSON ({exc.msg})") from exc
    if not isinstance(record, dict):
        raise InvalidRecordError(where, "line", f"must be a JSON object, got {type(record).__name__}")
    for key in ("session_id", "speaker", "text"):
        value = record.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InvalidRecordError(where, key, f"must be non-empty text, got {value!r}")
    explicit_id = record.get("id")
    if explicit_id is not None and (not isinstance(explicit_id, str) or not explicit_id.strip()):
        raise InvalidRecordError(where, "id", f"must be non-empty text when given, got {explicit_id!r}")
    caption = record.get("image_caption")
    if caption is not None and not isinstance(caption, str):
        raise InvalidRecordError(where, "image_caption", f"must be text when given, got {caption!r}")
    return _Line(
        number=number,
        session_id=record["session_id"].strip(),
        timestamp=_parse_timestamp(record.get("timestamp"), where),
        speaker=record["speaker"].strip(),
        text=record["text"],
        explicit_id=explicit_id,
        image_caption=caption or None,
    )


def load_chat_jsonl(path: str | Path) -> list[Conversation]:
    """Read a JSONL chat log into one conversation (id = file stem, no questions).

    >>> from importlib.resources import files
    >>> [conv] = load_chat_jsonl(files("graphmem") / "data" / "demo_dialogue.jsonl")
    >>> conv.sessions[0].turns[0].id, conv.sessions[0].started_at.isoformat()
    ('s1:1', '2024-03-02T18:10:00+00:00')
    """
    path = Path(path)
    try:
        # Split on "\n" only: str.splitlines() would also break inside texts holding U+2028 and the like.
        lines = [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")]
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidRecordError(str(path), "file", f"cannot be read: {exc}") from exc

    by_session: dict[str, list[tuple[_Line, str]]] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        line = _read_line(raw, number, f"{path}, line {number}")
        group = by_session.setdefault(line.session_id, [])
        group.append((line, line.explicit_id or f"{line.session_id}:{len(group)}"))
    if not by_session:
        raise InvalidRecordError(str(path), "lines", "the file holds no chat lines")

    sessions: list[SessionRecord] = []
    speakers: list[str] = []
    seen_ids: set[str] = set()
    line_of: dict[str, int] = {}
    for session_id, group in by_session.items():
        turns = []
        for line, turn_id in group:
            if turn_id in line_of:
                raise InvalidRecordError(
                    f"{path}, line {line.number}", "id", f"{turn_id!r} was already used on line {line_of[turn_id]}"
                )
            line_of[turn_id] = line.number
            turns.append(Turn(turn_id, line.speaker, line.text, line.image_caption))
            if line.speaker not in speakers:
                speakers.append(line.speaker)
        started_at = min(line.timestamp for line, _ in group)
        here = f"{path}, session {session_id!r}"
        sessions.append(SessionRecord(session_id, started_at, check_session(session_id, turns, here, seen_ids)))
    sessions, problems = in_time_order(sessions)
    for problem in problems:
        logger.info("%s: %s", path, problem)
    return [Conversation(path.stem, tuple(speakers), tuple(sessions), (), tuple(problems))]


def dump_chat_jsonl(sessions: Iterable[SessionRecord], path: str | Path) -> None:
    """Write sessions as a JSONL chat log that :func:`load_chat_jsonl` reads back unchanged.

    Every turn is written with its session's start time (the records keep no per-turn time).

    >>> import tempfile
    >>> from importlib.resources import files
    >>> [conv] = load_chat_jsonl(files("graphmem") / "data" / "demo_dialogue.jsonl")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     dump_chat_jsonl(conv.sessions, Path(folder) / "chat.jsonl")
    ...     [again] = load_chat_jsonl(Path(folder) / "chat.jsonl")
    >>> [len(s.turns) for s in again.sessions] == [len(s.turns) for s in conv.sessions]
    True
    """
    path = Path(path)
    with path.open("w", encoding="utf-8") as handle:
        for session in sessions:
            for turn in session.turns:
                line = {
                    "session_id": session.session_id,
                    "timestamp": session.started_at.isoformat(),
                    "speaker": turn.speaker,
                    "text": turn.text,
                    "id": turn.id,
                }
                if turn.image_caption is not None:
                    line["image_caption"] = turn.image_caption
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
