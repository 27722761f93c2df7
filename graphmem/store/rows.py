"""A stored node's properties as its typed row: the one conversion both backends read through.

Each store reads a node as a mapping of its properties (no embedding, no null values) and turns it into
the row of its label here (``StepRow``, ``TurnRow``, ``BoxRow``, ``SessionRow``, ``EpisodeRow``), so
both answer with the same rows. ``GraphStore.get_nodes`` stays generic (its keys may name any label);
``read_episode``, ``read_sessions``, ``read_turns`` and ``read_rows`` are its typed accessors.

>>> turn_row({"key": "turn:D1:3", "uid": "D1:3", "speaker": "Maya", "utterance": "Hi!", "seq": 3, "box": ""})
TurnRow(key='turn:D1:3', uid='D1:3', speaker='Maya', utterance='Hi!', episode='', session=None, seq=3, image_caption=None, text='', session_start=None, event_start=None, event_end=None, box='', payload='')
>>> stored_row({"key": "step:run-1:0", "uid": "run-1:0", "episode": "run-1", "t": 0, "action": "noop"}).t
0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.errors import StoreError
from graphmem.store.protocol import (
    BoxRow,
    EpisodeRow,
    GraphStore,
    NodeRow,
    SessionRow,
    StepRow,
    StoredRow,
    TurnRow,
    node_key,
)

__all__ = [
    "box_row", "episode_row", "episode_row_of", "read_episode", "read_rows", "read_sessions", "read_turns",
    "session_row", "step_row", "stored_row", "turn_row",
]

Props = Mapping[str, Any]


def _str(props: Props, name: str) -> str:
    """A text property, "" when the node lacks it (a map projection reads a missing one as null)."""
    value = props.get(name)
    return "" if value is None else str(value)


def _text(props: Props, name: str) -> str | None:
    value = props.get(name)
    return None if value is None else str(value)


def _int(props: Props, name: str) -> int | None:
    value = props.get(name)
    return None if value is None else int(value)


def _float(props: Props, name: str) -> float | None:
    value = props.get(name)
    return None if value is None else float(value)


def step_row(props: Props) -> StepRow:
    """A Step node's properties as its row."""
    return StepRow(
        str(props["key"]), str(props["uid"]), _str(props, "episode"), int(props["t"]), _str(props, "action"),
        _str(props, "summary"), _str(props, "region"), _str(props, "text"),
        _str(props, "payload"), _str(props, "digest"),
    )


def turn_row(props: Props) -> TurnRow:
    """A Turn node's properties as its row."""
    return TurnRow(
        str(props["key"]), str(props["uid"]), _str(props, "speaker"), _str(props, "utterance"),
        episode=_str(props, "episode"), session=_text(props, "session"), seq=int(props.get("seq", 0)),
        image_caption=_text(props, "image_caption"), text=_str(props, "text"),
        session_start=_float(props, "session_start"), event_start=_float(props, "event_start"),
        event_end=_float(props, "event_end"), box=_text(props, "box"), payload=_str(props, "payload"),
    )


def box_row(props: Props) -> BoxRow:
    """A Box node's properties as its row."""
    return BoxRow(
        str(props["key"]), str(props["uid"]), _str(props, "episode"), _str(props, "session"),
        int(props.get("seq", 0)), _int(props, "first_turn_seq"), _str(props, "topic"),
        tuple(str(e) for e in props.get("events", ())), tuple(str(k) for k in props.get("keywords", ())),
        _str(props, "text"),
    )


def session_row(props: Props) -> SessionRow:
    """A Session node's properties as its row."""
    return SessionRow(
        str(props["uid"]), _str(props, "episode"), int(props.get("seq", 0)), float(props["start"]),
        float(props["end"]), _str(props, "started_at"), _str(props, "digest"),
    )


def episode_row(props: Props) -> EpisodeRow:
    """An Episode node's properties as its row."""
    explicit_end = props.get("last_session_explicit_end")
    return EpisodeRow(
        str(props["key"]), str(props["uid"]), _str(props, "kind"), seq=_int(props, "seq"),
        last_t=_int(props, "last_t"), vocab=_text(props, "vocab"), totals=_text(props, "totals"),
        last_gain=_text(props, "last_gain"), last_inventory=_text(props, "last_inventory"),
        last_state=_text(props, "last_state"), turn_count=_int(props, "turn_count"),
        session_count=_int(props, "session_count"), box_count=_int(props, "box_count"),
        last_session=_text(props, "last_session"), last_session_start=_float(props, "last_session_start"),
        last_session_end=_float(props, "last_session_end"),
        last_session_explicit_end=None if explicit_end is None else bool(explicit_end),
        first_session_start=_float(props, "first_session_start"), last_turn=_text(props, "last_turn"),
        last_box=_text(props, "last_box"), speakers=_text(props, "speakers"),
        longest_session=_float(props, "longest_session"), longest_event=_float(props, "longest_event"),
    )


def episode_row_of(row: NodeRow) -> EpisodeRow:
    """The Episode row a write carries, as the store will read it once the write lands (its properties
    are the whole writing state: the writers build every Episode row whole)."""
    return episode_row({**row.props, "key": row.key, "uid": row.uid})


#: The row of each label ``stored_row`` reads, by the prefix of its nodes' keys (``node_key``).
_ROWS: dict[str, Callable[[Props], StoredRow]] = {"step": step_row, "turn": turn_row, "box": box_row, "session": session_row}


def stored_row(props: Props) -> StoredRow:
    """A step's, turn's, box's or session's properties as its row, by the label its key names; another
    label is a ``StoreError`` (no search or chain along NEXT reaches one)."""
    key = str(props["key"])
    convert = _ROWS.get(key.split(":", 1)[0])
    if convert is None:
        raise StoreError(f"{key}: not a step, turn, box or session")
    return convert(props)


# ---------------------------------------------------------------------------------------- typed accessors


def read_episode(store: GraphStore, namespace: str, uid: str) -> EpisodeRow | None:
    """The namespace's Episode ``uid`` (None when it is not stored): one ``get_nodes`` read."""
    key = node_key("Episode", uid)
    props = store.get_nodes(namespace, [key]).get(key)
    return episode_row(props) if props is not None else None


def read_sessions(store: GraphStore, namespace: str, keys: Sequence[str]) -> dict[str, SessionRow]:
    """The stored sessions among the Session node ``keys``, by key."""
    return {key: session_row(props) for key, props in store.get_nodes(namespace, keys).items()}


def read_turns(store: GraphStore, namespace: str, keys: Sequence[str]) -> dict[str, TurnRow]:
    """The stored turns among the Turn node ``keys``, by key."""
    return {key: turn_row(props) for key, props in store.get_nodes(namespace, keys).items()}


def read_rows(store: GraphStore, namespace: str, keys: Sequence[str]) -> dict[str, StoredRow]:
    """The stored steps, turns, boxes and sessions among ``keys`` (any mix of them), by key."""
    return {key: stored_row(props) for key, props in store.get_nodes(namespace, keys).items()}
