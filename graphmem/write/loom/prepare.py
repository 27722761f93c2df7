"""Turn preparation for the loom: the text it reads of a turn (the utterance and a shared photo's
caption) and the turns of a session embedded in one batch (``make_loom_turns``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from graphmem.records import Turn
from graphmem.write.loom.records import LoomTurn

__all__ = ["Embed", "make_loom_turns", "split_photo", "turn_text"]

Embed = Callable[[Sequence[str]], np.ndarray]
"""Embeds texts; returns one L2-normalized row per text, shape (n, dim) (dim 384 for MiniLM)."""

_PHOTO_RE = re.compile(r"\s*\[shared a photo: ([^\]]*)\]")


def split_photo(text: str) -> tuple[str, tuple[str, ...]]:
    """Separate the utterance from the photo captions ``turn_text`` appended to it.

    >>> split_photo("Look! [shared a photo: a photo of a lake]")
    ('Look!', ('a photo of a lake',))
    """
    captions = tuple(m.group(1).strip() for m in _PHOTO_RE.finditer(text))
    return _PHOTO_RE.sub("", text).strip(), captions


def turn_text(turn: Turn) -> str:
    """The text the loom reads for a turn: the utterance, plus the caption of a shared photo.

    >>> turn_text(Turn("D1:5", "Caroline", "Look!", image_caption="a photo of a lake"))
    'Look! [shared a photo: a photo of a lake]'
    """
    if turn.image_caption:
        return f"{turn.text} [shared a photo: {turn.image_caption}]"
    return turn.text


def make_loom_turns(session_id: str, turns: Sequence[Turn], embed: Embed) -> list[LoomTurn]:
    """Embed a session's turns (one batch call) and wrap them as ``LoomTurn``.

    >>> fake_embed = lambda texts: np.tile([1.0, 0.0], (len(texts), 1))
    >>> make_loom_turns("s1", [Turn("D1:1", "A", "Hi!")], fake_embed)[0].session_id
    's1'
    """
    texts = [turn_text(t) for t in turns]
    if not texts:
        return []
    vectors = np.asarray(embed(texts), dtype=np.float32)
    if vectors.shape[0] != len(texts):
        raise ValueError(f"embed returned {vectors.shape[0]} rows for {len(texts)} texts")
    return [LoomTurn(t.id, t.speaker, text, vec, session_id) for t, text, vec in zip(turns, texts, vectors)]
