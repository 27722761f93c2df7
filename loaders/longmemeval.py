"""Load LongMemEval (Wu et al., ICLR 2025) items into :class:`~graphmem.loaders.dialogue.Conversation`.

The published files (``longmemeval_s.json``, ``_m``, ``_oracle``) are a JSON list of items::

    {question_id, question_type, question, answer, question_date,
     haystack_session_ids, haystack_dates, haystack_sessions: [[{role, content, has_answer?}]],
     answer_session_ids}

Each item carries its own haystack, so each item becomes one conversation with one question.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.loaders.dialogue import (
    Conversation,
    QAItem,
    SessionRecord,
    answer_text,
    check_session,
    in_time_order,
    read_json,
)
from graphmem.records import Turn

logger = logging.getLogger(__name__)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# "2023/05/20 (Sat) 02:21": LongMemEval's only layout; parsed strictly, like LoCoMo's.
_DATE_RE = re.compile(
    r"^\s*(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})\s*(?:\((?P<weekday>[A-Za-z]{3})\)\s*)?"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*$"
)
_SPEAKERS = ("user", "assistant")


def parse_longmemeval_datetime(text: str) -> tuple[datetime, str | None]:
    """Parse ``"2023/05/20 (Sat) 02:21"``; return the UTC time and a note if the weekday disagrees.

    >>> parse_longmemeval_datetime("2023/05/20 (Sat) 02:21")
    (datetime.datetime(2023, 5, 20, 2, 21, tzinfo=datetime.timezone.utc), None)
    """
    match = _DATE_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"unknown date format {text!r}; expected like '2023/05/20 (Sat) 02:21'")
    try:
        value = datetime(
            int(match["year"]), int(match["month"]), int(match["day"]), int(match["hour"]), int(match["minute"]),
            tzinfo=UTC,
        )
    except ValueError as exc:
        raise ValueError(f"impossible date in {text!r}: {exc}") from exc
    weekday = match["weekday"]
    if weekday is not None and weekday.capitalize() != _WEEKDAYS[value.weekday()]:
        return value, f"date {text!r} says {weekday} but the day is a {_WEEKDAYS[value.weekday()]}; the date was kept"
    return value, None


def load_longmemeval(path: str | Path) -> list[Conversation]:
    """Read a LongMemEval JSON file; each item becomes one conversation holding its one question.

    Turn ids are ``f"{session_id}:{i}"`` (``i`` counts from 0 within the session). Evidence is the turns
    marked ``has_answer``; an item without such marks falls back to every turn of its answer sessions.

    >>> conv = load_longmemeval("tests/data/longmemeval_sample.json")[0]
    >>> conv.qa[0].evidence
    ('answer_4be1b6b4_1:0', 'answer_4be1b6b4_2:0')
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise InvalidRecordError(str(path), "json", f"must hold a list of items, got {type(data).__name__}")
    if not data:
        raise InvalidRecordError(str(path), "items", "the list of items is empty")
    conversations = []
    seen: set[str] = set()
    for index, item in enumerate(data):
        conv = _load_item(item, f"{path}, item #{index}")
        if conv.conversation_id in seen:
            raise InvalidRecordError(f"{path}, item #{index}", "question_id", f"{conv.conversation_id!r} appears twice")
        seen.add(conv.conversation_id)
        conversations.append(conv)
    return conversations


def _text_field(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(where, key, f"must be non-empty text, got {value!r}")
    return value


def _list_field(item: dict[str, Any], key: str, where: str) -> list[Any]:
    value = item.get(key)
    if not isinstance(value, list):
        raise InvalidRecordError(where, key, f"must be a list, got {type(value).__name__}")
    return value


def _load_item(item: Any, where: str) -> Conversation:
    if not isinstance(item, dict):
        raise InvalidRecordError(where, "item", f"must be an object, got {type(item).__name__}")
    question_id = _text_field(item, "question_id", where)
    where = f"{where} ({question_id})"
    question = _text_field(item, "question", where)
    question_type = _text_field(item, "question_type", where)
    if "answer" not in item:
        raise InvalidRecordError(where, "answer", "is missing")
    problems: list[str] = []
    try:
        question_date, note = parse_longmemeval_datetime(item.get("question_date"))  # type: ignore[arg-type]
    except ValueError as exc:
        raise InvalidRecordError(where, "question_date", str(exc)) from exc
    if note:
        problems.append(f"question_date: {note}")

    session_ids = _list_field(item, "haystack_session_ids", where)
    dates = _list_field(item, "haystack_dates", where)
    raw_sessions = _list_field(item, "haystack_sessions", where)
    if not raw_sessions:
        raise InvalidRecordError(where, "haystack_sessions", "has no sessions")
    if not len(session_ids) == len(dates) == len(raw_sessions):
        raise InvalidRecordError(
            where,
            "haystack_sessions",
            f"holds {len(raw_sessions)} sessions but {len(session_ids)} ids and {len(dates)} dates",
        )

    sessions: list[SessionRecord] = []
    marked: list[str] = []  # turns with has_answer: true, in file order
    seen_turn_ids: set[str] = set()
    for index, (session_id, raw_date, raw_turns) in enumerate(zip(session_ids, dates, raw_sessions)):
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidRecordError(
                f"{where}, session #{index}", "haystack_session_ids", f"must be non-empty text, got {session_id!r}"
            )
        here = f"{where}, session {session_id!r}"
        try:
            started_at, note = parse_longmemeval_datetime(raw_date)
        except ValueError as exc:
            raise InvalidRecordError(here, "haystack_dates", str(exc)) from exc
        if note:
            problems.append(f"session {session_id!r}: {note}")
        if not isinstance(raw_turns, list) or not raw_turns:
            raise InvalidRecordError(here, "haystack_sessions", "must be a non-empty list of turns")
        turns = []
        for position, raw in enumerate(raw_turns):
            turn_where = f"{here}, turn #{position}"
            if not isinstance(raw, dict):
                raise InvalidRecordError(turn_where, "turn", f"must be an object, got {type(raw).__name__}")
            role = raw.get("role")
            if role not in _SPEAKERS:
                raise InvalidRecordError(turn_where, "role", f"must be 'user' or 'assistant', got {role!r}")
            content = raw.get("content")
            if not isinstance(content, str) or not content.strip():
                raise InvalidRecordError(turn_where, "content", f"must be non-empty text, got {content!r}")
            turn = Turn(f"{session_id}:{position}", role, content)
            if raw.get("has_answer") is True:
                marked.append(turn.id)
            turns.append(turn)
        sessions.append(SessionRecord(session_id, started_at, check_session(session_id, turns, here, seen_turn_ids)))

    evidence = _evidence(item, where, sessions, marked, problems)
    sessions, order_problems = in_time_order(sessions)
    problems.extend(order_problems)
    qa = QAItem(
        question=question.strip(),
        answer=answer_text(item["answer"]),
        evidence=tuple(evidence),
        category=question_type,
        question_date=question_date,
    )
    for problem in problems:
        logger.info("%s: %s", where, problem)
    return Conversation(question_id, _SPEAKERS, tuple(sessions), (qa,), tuple(problems))


def _evidence(
    item: dict[str, Any], where: str, sessions: list[SessionRecord], marked: list[str], problems: list[str]
) -> list[str]:
    answer_ids = _list_field(item, "answer_session_ids", where)
    odd = [sid for sid in answer_ids if not isinstance(sid, str)]
    if odd:
        problems.append(f"answer_session_ids {odd} are not session ids; ignored")
        answer_ids = [sid for sid in answer_ids if isinstance(sid, str)]
    by_id = {session.session_id: session for session in sessions}
    missing = [sid for sid in answer_ids if sid not in by_id]
    if missing:
        problems.append(f"answer_session_ids {missing} are not in the haystack")
    if marked:
        return marked
    # Abstention items and older releases carry no has_answer marks: the answer sessions are the evidence.
    evidence = [turn.id for sid in answer_ids if sid in by_id for turn in by_id[sid].turns]
    if answer_ids and evidence:
        problems.append("no turn is marked has_answer; every turn of the answer sessions is the evidence")
    return evidence
