"""Export a namespace as the records it was written from, and import such an export.

An export (its format: ``graphmem.formats``) holds what callers gave graphmem, not its graph: the steps
of each trajectory and the sessions of each dialogue, with their times. Importing it writes them again
through ``Memory.add_steps`` and ``Memory.add_session``, so the graph is rebuilt by the same code that
built it, and exporting the imported namespace gives the same records.

>>> import io
>>> from graphmem import Memory, Step
>>> with Memory(path=":memory:") as mem:
...     _ = mem.add_steps("agent-1", "run-1", [Step(0, "noop"), Step(1, "collect wood")])
...     lines = list(export_lines(mem.store, "agent-1"))
...     report = import_export(mem, read_export(io.StringIO("\\n".join(lines)), "memory.jsonl"), "agent-2")
...     again = list(export_lines(mem.store, "agent-2"))
>>> lines[0]
'{"format": "graphmem-export", "version": 1, "namespace": "agent-1"}'
>>> report.steps, again[1:] == lines[1:]
(2, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

from graphmem.errors import InvalidRecordError
from graphmem.formats import EXPORT_FORMAT, EXPORT_VERSION
from graphmem.manage import episodes_of
from graphmem.records import Step, Turn, validate_id, validate_turns
from graphmem.store.protocol import GraphStore

if TYPE_CHECKING:
    from graphmem.memory import Memory

#: Steps read from the store, and written by import, per call.
CHUNK = 512
#: The keys of a chat line in an export.
CHAT_KEYS = frozenset({"session_id", "timestamp", "speaker", "text", "id", "image_caption", "ended_at"})


@dataclass(frozen=True)
class SessionRecord:
    """One dialogue session as the caller gave it."""

    session_id: str
    started_at: datetime
    ended_at: datetime | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class EpisodeRecord:
    """One episode of an export: a trajectory's steps or a dialogue's sessions."""

    episode: str
    kind: str
    steps: tuple[Step, ...] = ()
    sessions: tuple[SessionRecord, ...] = ()


@dataclass(frozen=True)
class MemoryExport:
    """A read and validated export: the namespace it came from and its episodes in order."""

    namespace: str
    episodes: tuple[EpisodeRecord, ...]


@dataclass(frozen=True)
class ImportReport:
    episodes: int
    steps: int
    turns: int
    unchanged: int


# ---------------------------------------------------------------------------------------- export


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=False)


def export_lines(store: GraphStore, namespace: str) -> Iterator[str]:
    """The export of ``namespace``, line by line (no newlines); ``NotFoundError`` when it holds nothing."""
    from graphmem.loaders.jsonl_steps import step_to_dict
    from graphmem.write.steps import step_from_json

    episodes = episodes_of(store, namespace)
    yield _line({"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "namespace": namespace})
    for episode in episodes:
        uid, kind = episode.uid, episode.kind
        yield _line({"episode": uid, "kind": kind})
        if kind == "trajectory":
            lo = 0
            while True:
                steps = store.steps_between(namespace, uid, lo, 2**63 - 1, CHUNK)
                for row in steps.values():
                    yield _line(step_to_dict(step_from_json(row.payload)))
                if len(steps) < CHUNK:
                    break
                lo = max(steps) + 1
        else:
            for session in session_records(store, namespace, uid):
                for turn in session.turns:
                    yield _line(_chat_line(session, turn))


def _chat_line(session: SessionRecord, turn: Turn) -> dict[str, Any]:
    line: dict[str, Any] = {
        "session_id": session.session_id,
        "timestamp": session.started_at.isoformat(),
        "speaker": turn.speaker,
        "text": turn.text,
        "id": turn.id,
    }
    if turn.image_caption is not None:
        line["image_caption"] = turn.image_caption
    if session.ended_at is not None:
        line["ended_at"] = session.ended_at.isoformat()
    return line


def session_records(store: GraphStore, namespace: str, episode: str) -> list[SessionRecord]:
    """The sessions of a dialogue episode as they were given, in order."""
    from graphmem.write.turns import session_digest

    rows = store.sessions(namespace, episode)
    records = []
    for i, row in enumerate(rows):
        started = datetime.fromisoformat(row.started_at)
        turns = tuple(Turn(t.uid, t.speaker, t.utterance, t.image_caption) for t in store.session_turns(namespace, row.uid))
        # Whether the caller gave an end: the session's digest covers it. A session without one ends
        # where the next starts (or, the last, where it starts itself).
        ended: datetime | None = datetime.fromtimestamp(row.end, UTC)
        digest = row.digest
        if digest == session_digest(row.uid, started, None, turns):
            ended = None
        elif digest != session_digest(row.uid, started, ended, turns):
            following = rows[i + 1].start if i + 1 < len(rows) else row.start
            ended = None if row.end in (following, row.start) else ended
        records.append(SessionRecord(row.uid, started, ended, turns))
    return records


# ---------------------------------------------------------------------------------------- import


def _timestamp(value: Any, where: str, name: str) -> datetime:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRecordError(where, name, f"must be an ISO 8601 text, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise InvalidRecordError(where, name, f"is not ISO 8601: {value!r}") from exc
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


class _Dialogue:
    """The sessions of one dialogue episode while its chat lines are read."""

    def __init__(self) -> None:
        self.sessions: dict[str, tuple[datetime, datetime | None, list[Turn]]] = {}

    def add(self, record: dict[str, Any], where: str) -> None:
        unknown = sorted(set(record) - CHAT_KEYS)
        if unknown:
            raise InvalidRecordError(where, unknown[0], f"unknown key(s) {unknown}; a chat line has {sorted(CHAT_KEYS)}")
        for key in ("session_id", "speaker", "text", "id"):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise InvalidRecordError(where, key, f"must be non-empty text, got {record.get(key)!r}")
        caption = record.get("image_caption")
        if caption is not None and not isinstance(caption, str):
            raise InvalidRecordError(where, "image_caption", f"must be text when given, got {caption!r}")
        started = _timestamp(record.get("timestamp"), where, "timestamp")
        ended = _timestamp(record["ended_at"], where, "ended_at") if record.get("ended_at") is not None else None
        sid = record["session_id"]
        if sid not in self.sessions:
            self.sessions[sid] = (started, ended, [])
        elif self.sessions[sid][:2] != (started, ended):
            raise InvalidRecordError(where, "timestamp", f"session {sid!r} has another start or end on an earlier line")
        self.sessions[sid][2].append(Turn(record["id"], record["speaker"], record["text"], caption))

    def records(self, where: str) -> tuple[SessionRecord, ...]:
        out = []
        for sid, (started, ended, turns) in self.sessions.items():
            validate_turns(turns, f"{where}, session {sid!r}")
            if ended is not None and ended < started:
                raise InvalidRecordError(f"{where}, session {sid!r}", "ended_at", "is before its timestamp")
            out.append(SessionRecord(sid, started, ended, tuple(turns)))
        return tuple(out)


def read_export(handle: IO[str] | Sequence[str], name: str) -> MemoryExport:
    """Read and validate a whole export (``name`` for messages); ``InvalidRecordError`` names the line."""
    from graphmem.loaders.jsonl_steps import step_from_dict

    namespace: str | None = None
    episodes: list[EpisodeRecord] = []
    current: tuple[str, str, int] | None = None  # episode, kind, line of its header
    steps: list[Step] = []
    dialogue = _Dialogue()

    def close() -> None:
        if current is None:
            return
        episode, kind, line = current
        where = f"{name} line {line}"
        if kind == "trajectory":
            if not steps:
                raise InvalidRecordError(where, "episode", f"trajectory {episode!r} has no steps")
            episodes.append(EpisodeRecord(episode, kind, steps=tuple(steps)))
        else:
            if not dialogue.sessions:
                raise InvalidRecordError(where, "episode", f"dialogue {episode!r} has no chat lines")
            episodes.append(EpisodeRecord(episode, kind, sessions=dialogue.records(f"{name}, episode {episode!r}")))

    for number, raw in enumerate(handle, start=1):
        if not raw.strip():
            continue
        where = f"{name} line {number}"
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidRecordError(where, "json", f"is not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(record, dict):
            raise InvalidRecordError(where, "line", f"must be a JSON object, got {type(record).__name__}")
        if namespace is None:
            if record.get("format") != EXPORT_FORMAT:
                raise InvalidRecordError(where, "format", f'the first line must be the header {{"format": "{EXPORT_FORMAT}", ...}}')
            version = record.get("version")
            if not isinstance(version, int) or version > EXPORT_VERSION or version < 1:
                raise InvalidRecordError(where, "version", f"is {version!r}; this graphmem reads version {EXPORT_VERSION}")
            namespace = validate_id(record.get("namespace"), where, "namespace")
        elif "episode" in record:
            close()
            if record.get("kind") not in ("trajectory", "dialogue") or set(record) != {"episode", "kind"}:
                raise InvalidRecordError(where, "kind", 'an episode line is {"episode": ID, "kind": "trajectory" or "dialogue"}')
            current = (validate_id(record["episode"], where, "episode"), record["kind"], number)
            if any(e.episode == current[0] for e in episodes):
                raise InvalidRecordError(where, "episode", f"{current[0]!r} appears twice")
            steps, dialogue = [], _Dialogue()
        elif current is None:
            raise InvalidRecordError(where, "line", "a record before any episode line")
        elif current[1] == "trajectory":
            step = step_from_dict(record, where)
            if steps and step.t <= steps[-1].t:
                raise InvalidRecordError(where, "t", f"out of order: t={step.t} after t={steps[-1].t}")
            steps.append(step)
        else:
            dialogue.add(record, where)
    if namespace is None:
        raise InvalidRecordError(name, "lines", "the file is empty")
    close()
    return MemoryExport(namespace, tuple(episodes))


def import_export(memory: Memory, export: MemoryExport, namespace: str | None = None) -> ImportReport:
    """Write an export's records into ``namespace`` (default: the one it was exported from) through
    ``Memory.add_steps`` and ``Memory.add_session``; what is stored already unchanged is skipped."""
    target = namespace or export.namespace
    steps = turns = unchanged = 0
    for episode in export.episodes:
        for start in range(0, len(episode.steps), CHUNK):
            report = memory.add_steps(target, episode.episode, episode.steps[start : start + CHUNK])
            steps, unchanged = steps + report.written, unchanged + report.unchanged
        for session in episode.sessions:
            report = memory.add_session(target, session.session_id, session.turns, session.started_at, session.ended_at,
                                        episode_id=episode.episode)
            turns, unchanged = turns + report.written, unchanged + report.unchanged
    return ImportReport(len(export.episodes), steps, turns, unchanged)
