"""Readable captions for the memory graph's nodes, as Neo4j Browser shows them (``caption``).

Every node the writers build carries a short ``caption`` (participants, entities and locations show
their ``name``): what a person exploring the graph reads at a glance, never what recall reads. Both
backends store it alike, since it is built with the node's other properties
(``graphmem.write.steps``, ``graphmem.write.turns``). ``cypher/browser/graphmem.grass`` tells the Browser
to show it.

>>> step_caption(12, "move left"), event_caption("collect", "wood", 3), episode_caption("run-1", "trajectory")
('12 · move left', 'collect wood #3', 'run-1 · trajectory')
>>> turn_caption("Maya", "I finally signed up for the city half marathon in June.")
'Maya: I finally signed up for the city half…'
"""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.records import Scalar

__all__ = [
    "CAPTION_CHARS", "box_caption", "change_caption", "clipped", "episode_caption", "event_caption",
    "session_caption", "step_caption", "topic_caption", "trace_caption", "turn_caption",
]

#: At most this many characters of text in a caption: what a node's circle holds in two or three lines.
CAPTION_CHARS = 40


def clipped(text: str, limit: int = CAPTION_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters at a word where it can be ("…" marks the cut).

    >>> clipped("a  short\\ntext"), clipped("one two three four", 12)
    ('a short text', 'one two…')
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + "…"


def step_caption(t: int, action: str) -> str:
    """A step: its index and action."""
    return f"{t} · {clipped(action)}"


def event_caption(kind: str, obj: str, ordinal: int) -> str:
    """A step's event: kind, object and its ordinal among the episode's events of both ("collect wood #3")."""
    return f"{clipped(f'{kind} {obj}'.strip())} #{ordinal}"


def topic_caption(text: str) -> str:
    """A box's topic event: what the box was about."""
    return f"topic: {clipped(text)}"


def change_caption(name: str, before: Scalar | None, after: Scalar | None) -> str:
    """An inventory item's or state value's change at a step ("wood 2 → 3"; "–" for no value).

    >>> change_caption("wood", 2, 3), change_caption("mode", None, "day")
    ('wood 2 → 3', 'mode – → day')
    """
    def shown(value: Scalar | None) -> str:
        return "–" if value is None else clipped(str(value), 16)

    return f"{clipped(name, 24)} {shown(before)} → {shown(after)}"


def turn_caption(speaker: str, text: str) -> str:
    """A turn: its speaker and the start of what was said."""
    return f"{clipped(speaker, 24)}: {clipped(text)}"


def session_caption(uid: str, start: float) -> str:
    """A session: its id and the day it started (UTC, as dialogue evidence dates it).

    >>> session_caption("s2", 1709805600.0)
    's2 · 7 Mar 2024'
    """
    return f"{clipped(uid, 24)} · {datetime.fromtimestamp(start, tz=UTC):%-d %b %Y}"


def box_caption(topic: str, uid: str) -> str:
    """A topic box: its topic (its id when the loom gave none)."""
    return clipped(topic) if topic.strip() else clipped(uid)


def trace_caption(topic: str, uid: str) -> str:
    """A topic trace: the topic of the box that started it (its id when that box had none)."""
    return box_caption(topic, uid)


def episode_caption(uid: str, kind: str) -> str:
    """An episode: its id and kind."""
    return f"{clipped(uid, 32)} · {kind}"
