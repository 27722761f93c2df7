"""Load LoCoMo conversations (Maharana et al., 2024) into :class:`~graphmem.loaders.dialogue.Conversation`.

Two layouts are read: a single conversation object (the dev files: ``speaker_a``, ``session_N``,
``session_N_date_time`` and ``qa`` at the top level) and the published ``locomo10.json`` (a list of samples,
each with ``sample_id``, a ``conversation`` object and ``qa``).
"""

from __future__ import annotations

import calendar
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

_MONTHS: dict[str, int] = {}
for _number in range(1, 13):
    _MONTHS[calendar.month_name[_number].lower()] = _number
    _MONTHS[calendar.month_abbr[_number].lower()] = _number
_MONTHS["sept"] = 9

# "1:56 pm on 8 May, 2023": the only layout LoCoMo uses. Anything else is an error rather than a guess,
# because a wrong session date silently corrupts every temporal answer grounded on it.
_DATE_RE = re.compile(
    r"^\s*(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap])\.?m\.?\s+on\s+"
    r"(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})\s*$",
    re.IGNORECASE,
)
_SESSION_KEY_RE = re.compile(r"^session_(\d+)$")
_DATE_KEY_RE = re.compile(r"^session_(\d+)_date_time$")
# An evidence id as LoCoMo means it: D<session>:<turn>. The optional colon after "D" and leading zeros are
# the known typos ("D:11:26", "D30:05"); both repair to exactly one id.
_EVIDENCE_RE = re.compile(r"^D:?0*(\d+):0*(\d+)$", re.IGNORECASE)
_EVIDENCE_SPLIT_RE = re.compile(r"[;,\s]+")


def parse_locomo_datetime(text: str) -> datetime:
    """Parse LoCoMo's session time strictly; raise ValueError on any other layout.

    >>> parse_locomo_datetime("1:56 pm on 8 May, 2023")
    datetime.datetime(2023, 5, 8, 13, 56, tzinfo=datetime.timezone.utc)
    """
    match = _DATE_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"unknown date format {text!r}; expected like '1:56 pm on 8 May, 2023'")
    month = _MONTHS.get(match["month"].lower())
    if month is None:
        raise ValueError(f"unknown month {match['month']!r} in {text!r}")
    hour, minute = int(match["hour"]), int(match["minute"])
    if not 1 <= hour <= 12 or minute > 59:
        raise ValueError(f"impossible time of day in {text!r}")
    hour = hour % 12 + (12 if match["ampm"].lower() == "p" else 0)
    try:
        return datetime(int(match["year"]), month, int(match["day"]), hour, minute, tzinfo=UTC)
    except ValueError as exc:  # 31 June and the like
        raise ValueError(f"impossible date in {text!r}: {exc}") from exc


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo JSON file (one conversation, or a list of samples) and validate all of it.

    >>> [conv] = load_locomo("/work/shared/data/locomo-dev/conv-26.json")
    >>> conv.sessions[0].started_at.isoformat(), conv.sessions[0].turns[2].id
    ('2023-05-08T13:56:00+00:00', 'D1:3')
    """
    path = Path(path)
    data = read_json(path)
    if isinstance(data, dict):
        samples = [(data, path.stem, str(path))]
    elif isinstance(data, list):
        if not data:
            raise InvalidRecordError(str(path), "samples", "the list of samples is empty")
        samples = []
        for index, sample in enumerate(data):
            where = f"{path}, sample #{index}"
            if not isinstance(sample, dict):
                raise InvalidRecordError(where, "sample", f"must be an object, got {type(sample).__name__}")
            sample_id = sample.get("sample_id", f"{path.stem}#{index}")
            if not isinstance(sample_id, str) or not sample_id.strip():
                raise InvalidRecordError(where, "sample_id", f"must be non-empty text, got {sample_id!r}")
            samples.append((sample, sample_id, f"{path}, sample {sample_id!r}"))
    else:
        raise InvalidRecordError(str(path), "json", f"must hold an object or a list of samples, got {type(data).__name__}")
    conversations = [_load_sample(sample, sample_id, where) for sample, sample_id, where in samples]
    ids = [conv.conversation_id for conv in conversations]
    if len(set(ids)) != len(ids):
        raise InvalidRecordError(str(path), "sample_id", "two samples share an id")
    return conversations


def _load_sample(sample: dict[str, Any], conversation_id: str, where: str) -> Conversation:
    # locomo10.json nests the dialogue under "conversation"; the dev files keep it at the top level.
    body = sample.get("conversation", sample)
    if not isinstance(body, dict):
        raise InvalidRecordError(where, "conversation", f"must be an object, got {type(body).__name__}")
    speakers = []
    for key in ("speaker_a", "speaker_b"):
        name = body.get(key)
        if not isinstance(name, str) or not name.strip():
            raise InvalidRecordError(where, key, f"must name a speaker, got {name!r}")
        speakers.append(name.strip())

    problems: list[str] = []
    sessions = _load_sessions(body, where, tuple(speakers), problems)
    known_ids = {turn.id for session in sessions for turn in session.turns}
    qa = _load_qa(sample.get("qa"), where, known_ids, problems)
    for problem in problems:
        logger.info("%s: %s", where, problem)
    return Conversation(conversation_id, tuple(speakers), tuple(sessions), tuple(qa), tuple(problems))


def _load_sessions(
    body: dict[str, Any], where: str, speakers: tuple[str, ...], problems: list[str]
) -> list[SessionRecord]:
    numbers = sorted(int(m.group(1)) for key in body if (m := _SESSION_KEY_RE.match(key)))
    if not numbers:
        raise InvalidRecordError(where, "session_1", "the conversation has no sessions")
    dated_only = sorted(
        int(m.group(1)) for key in body if (m := _DATE_KEY_RE.match(key)) and int(m.group(1)) not in numbers
    )
    if dated_only:
        # LoCoMo lists dates for sessions it never released (conv-26 dates sessions 20-35); harmless.
        problems.append(f"sessions with a date but no turns were skipped: {', '.join(f'session_{n}' for n in dated_only)}")

    sessions: list[SessionRecord] = []
    seen_ids: set[str] = set()
    for number in numbers:
        session_id = f"session_{number}"
        here = f"{where}, {session_id}"
        raw_date = body.get(f"{session_id}_date_time")
        if raw_date is None:
            raise InvalidRecordError(here, f"{session_id}_date_time", "is missing")
        try:
            started_at = parse_locomo_datetime(raw_date)
        except ValueError as exc:
            raise InvalidRecordError(here, f"{session_id}_date_time", str(exc)) from exc
        raw_turns = body[session_id]
        if not isinstance(raw_turns, list):
            raise InvalidRecordError(here, session_id, f"must be a list of turns, got {type(raw_turns).__name__}")
        if not raw_turns:
            raise InvalidRecordError(here, session_id, "is empty; a session needs at least one turn")
        turns = [_load_turn(raw, f"{here}, turn #{index}", speakers, problems) for index, raw in enumerate(raw_turns)]
        sessions.append(SessionRecord(session_id, started_at, check_session(session_id, turns, here, seen_ids)))
    sessions, order_problems = in_time_order(sessions)
    problems.extend(order_problems)
    return sessions


def _load_turn(raw: Any, where: str, speakers: tuple[str, ...], problems: list[str]) -> Turn:
    if not isinstance(raw, dict):
        raise InvalidRecordError(where, "turn", f"must be an object, got {type(raw).__name__}")
    dia_id = raw.get("dia_id")
    if not isinstance(dia_id, str) or not dia_id.strip():
        raise InvalidRecordError(where, "dia_id", f"must be a non-empty id like 'D1:3', got {dia_id!r}")
    where = f"{where} ({dia_id})"
    speaker = raw.get("speaker")
    if not isinstance(speaker, str) or not speaker.strip():
        raise InvalidRecordError(where, "speaker", f"must name the speaker, got {speaker!r}")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidRecordError(where, "text", f"must be non-empty text, got {text!r}")
    if speaker.strip() not in speakers:
        problems.append(f"turn {dia_id} is spoken by {speaker!r}, who is neither speaker_a nor speaker_b")
    caption = raw.get("blip_caption")
    if caption is not None and (not isinstance(caption, str) or not caption.strip()):
        problems.append(f"turn {dia_id} has an unusable blip_caption {caption!r}; ignored")
        caption = None
    return Turn(dia_id, speaker.strip(), text, caption.strip() if caption else None)


def repair_evidence(raw: Any) -> tuple[list[str], list[str]]:
    """Split and normalize LoCoMo evidence ids; return (ids, notes on what was changed or dropped).

    Only unambiguous repairs are made: several ids in one string, a stray colon, leading zeros.

    >>> repair_evidence(["D8:6; D9:17", "D:11:26", "D30:05"])
    (['D8:6', 'D9:17', 'D11:26', 'D30:5'], [...])
    """
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return [], [f"evidence {raw!r} is not a list of ids; dropped"]
    ids: list[str] = []
    notes: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            notes.append(f"evidence {item!r} is not text; dropped")
            continue
        parts = [part for part in _EVIDENCE_SPLIT_RE.split(item.strip()) if part]
        if len(parts) > 1:
            notes.append(f"evidence {item!r} split into {', '.join(parts)}")
        if not parts:
            notes.append(f"evidence {item!r} is empty; dropped")
        for part in parts:
            match = _EVIDENCE_RE.match(part)
            if match is None:
                notes.append(f"evidence {part!r} is not an id like 'D1:3'; dropped")
                continue
            fixed = f"D{int(match.group(1))}:{int(match.group(2))}"
            if fixed != part:
                notes.append(f"evidence {part!r} repaired to {fixed!r}")
            if fixed not in ids:
                ids.append(fixed)
    return ids, notes


def _load_qa(raw_qa: Any, where: str, known_ids: set[str], problems: list[str]) -> list[QAItem]:
    if raw_qa is None:
        problems.append("the file has no 'qa' list")
        return []
    if not isinstance(raw_qa, list):
        raise InvalidRecordError(where, "qa", f"must be a list of questions, got {type(raw_qa).__name__}")
    items = []
    for index, raw in enumerate(raw_qa):
        here = f"{where}, qa #{index}"
        if not isinstance(raw, dict):
            raise InvalidRecordError(here, "qa", f"must be an object, got {type(raw).__name__}")
        question = raw.get("question")
        if not isinstance(question, str) or not question.strip():
            raise InvalidRecordError(here, "question", f"must be non-empty text, got {question!r}")
        category = raw.get("category")
        if isinstance(category, bool) or not isinstance(category, (int, str)):
            raise InvalidRecordError(here, "category", f"must be a number or text, got {category!r}")
        evidence, notes = repair_evidence(raw.get("evidence", []))
        problems.extend(f"qa #{index}: {note}" for note in notes)
        missing = [turn_id for turn_id in evidence if turn_id not in known_ids]
        if missing:
            # Kept out of the gold list: no retriever can return a turn that does not exist.
            problems.append(f"qa #{index}: evidence {', '.join(missing)} names turns that do not exist; dropped")
            evidence = [turn_id for turn_id in evidence if turn_id in known_ids]
        items.append(
            QAItem(
                question=question.strip(),
                answer=answer_text(raw.get("answer")),
                evidence=tuple(evidence),
                category=category,
                adversarial_answer=answer_text(raw.get("adversarial_answer")),
            )
        )
    return items
