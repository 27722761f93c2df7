"""How a dialogue turn is written as a line of evidence: compact, and exact about time.

A session's date is written once per session group (``session_header``), then ``speaker: text`` per
turn with its grounded event time, as short as exact (``date_span``: "(event 14-20 Aug 2023)"); a long
turn is cut to its sentences that match the question, a skip between two of them marked with "…"
(``trim_turn``). The full context style also writes the turn id, the people it mentions and its box's
topic (``turn_opening``).

>>> turn_line(TurnRow("turn:D2:1", "D2:1", "Ben", "I finished the marathon!"))
'Ben: I finished the marathon!'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from graphmem.recall.dialogue.config import (
    DEFAULT_DIALOGUE_CONFIG,
    DialogueRecallConfig,
)
from graphmem.store.protocol import TurnRow
from graphmem.store.text_index import FUNCTION_WORDS, analyze, stem_match
from graphmem.tokens import count_line_tokens

__all__ = ["date_span", "day", "session_header", "short_caption", "trim_turn", "turn_line", "turn_opening"]

# Chat reactions with no content of their own ("Wow, Caroline!", "Thanks so much!", "That's awesome!"):
# generic English small talk. A long turn drops such sentences first when it is trimmed.
_REACTION_TEXT = """wow woah whoa oh ooh aw aww hey hi hello yay yeah yes yep yup nope no ok okay sure thanks thank thx congrats
    congratulations cool nice great awesome amazing wonderful fantastic incredible lovely sweet glad happy
    good fun love sounds sound lol haha omg totally definitely absolutely exactly agreed agree true right
    indeed bet super so much too really that's it's what's i'm you're"""
_REACTION_WORDS = frozenset(_REACTION_TEXT.split())
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")
_CAPTION_PREFIX = re.compile(r"^(?:a\s+)?(?:photo|photograph|photography|picture|image)\s+of\s+", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def day(ts: float | None) -> str:
    """A day (epoch seconds, UTC) as evidence writes it: "7 May 2023"; "?" for no time."""
    if ts is None:
        return "?"
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%-d %b %Y")


@functools.lru_cache(maxsize=4096)
def date_span(start: float, end: float | None = None) -> str:
    """A day range (epoch seconds, UTC) in as few words as say it exactly: a whole year or month by its
    name, shared month and year written once.

    >>> from datetime import datetime, timezone
    >>> def ts(y, m, d): return datetime(y, m, d, tzinfo=timezone.utc).timestamp()
    >>> date_span(ts(2023, 5, 7)), date_span(ts(2023, 8, 14), ts(2023, 8, 20))
    ('7 May 2023', '14-20 Aug 2023')
    >>> date_span(ts(2023, 8, 1), ts(2023, 8, 31)), date_span(ts(2022, 1, 1), ts(2022, 12, 31))
    ('Aug 2023', '2022')
    >>> date_span(ts(2023, 8, 28), ts(2023, 9, 3)), date_span(ts(2022, 12, 30), ts(2023, 1, 2))
    ('28 Aug to 3 Sep 2023', '30 Dec 2022 to 2 Jan 2023')
    """
    first = datetime.fromtimestamp(start, tz=UTC).date()
    last = first if end is None else datetime.fromtimestamp(end, tz=UTC).date()
    if last <= first:
        return day(start)
    month_ends = (last + timedelta(days=1)).day == 1
    if first.year == last.year and (first.month, first.day) == (1, 1) and (last.month, last.day) == (12, 31):
        return str(first.year)
    if (first.year, first.month) == (last.year, last.month):
        if first.day == 1 and month_ends:
            return f"{first:%b %Y}"
        return f"{first.day}-{last.day} {last:%b %Y}"
    if first.year == last.year:
        return f"{first.day} {first:%b} to {last.day} {last:%b %Y}"
    return f"{first.day} {first:%b %Y} to {last.day} {last:%b %Y}"


def session_header(start: float | None) -> str:
    """The group header: the session's date, written once for all its turns ("8 May 2023:")."""
    return f"{day(start)}:"


@functools.lru_cache(maxsize=8192)
def _words(unit: str) -> tuple[str, ...]:
    """``analyze(unit)``, cached: recall trims the same few hundred turns' sentences question after question."""
    return tuple(analyze(unit))


@functools.lru_cache(maxsize=8192)
def _word_set(unit: str) -> frozenset[str]:
    return frozenset(_words(unit))


@functools.lru_cache(maxsize=64)
def _term_matcher(terms: tuple[str, ...]) -> Callable[[str], int]:
    """How many of the terms some word of a unit (a sentence, a caption) matches, for one question's terms;
    each word's matches are remembered (a question's trimming meets the same words in many sentences)."""
    by_word: dict[str, frozenset[int]] = {}

    def score(unit: str) -> int:
        matched: set[int] = set()
        for word in _word_set(unit):
            hits = by_word.get(word)
            if hits is None:
                hits = by_word[word] = frozenset(i for i, t in enumerate(terms) if stem_match(t, word))
            if hits:
                matched |= hits
        return len(matched)

    return score


def short_caption(caption: str) -> str:
    """A photo caption without its "a photo of" opening: "[photo: a lake]" says the same in fewer tokens."""
    return _CAPTION_PREFIX.sub("", caption.strip()) or caption.strip()


def _content_words(unit: str, names: frozenset[str]) -> int:
    return sum(1 for w in _words(unit) if w not in _REACTION_WORDS and w not in FUNCTION_WORDS and w not in names)


def _is_reaction(unit: str, names: frozenset[str]) -> bool:
    words = _words(unit)
    return bool(words) and all(w in _REACTION_WORDS or w in FUNCTION_WORDS or w in names for w in words)


def trim_turn(
    utterance: str,
    caption: str | None,
    terms: Sequence[str],
    names: frozenset[str] = frozenset(),
    config: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG,
) -> tuple[str, bool]:
    """The turn's text for the evidence, and whether it was cut (a line of at most
    ``config.trim_min_tokens`` tokens never is).

    A long turn keeps only its sentences and photo caption that share a word with the question, in
    their order; a long turn with no matching sentence keeps its most contentful sentence (not its
    reactions: "Wow, Mel!", "Thanks so much!"). A short turn is written whole, its photo caption (the
    dataset's description of a shared picture, not the speaker's words) too unless neither the caption
    nor the text shares a word with the question: a turn the question's words do not reach lends its
    picture nothing. This is legitimate compression, not invention: every kept word is the speaker's
    own, the turn's context (speaker, session date, event time) always stays, and a "…" between two kept
    sentences marks where the turn skips some (not at the line's ends: what a line leaves out before or
    after changes nothing in how it reads).
    """
    units = [u for u in _SENTENCE_END.split(utterance.strip()) if u]
    unit_score = _term_matcher(tuple(terms))
    scored = [(unit_score(u), u) for u in units] if terms else []
    photo = f"[photo: {short_caption(caption)}]" if caption else None
    photo_score = unit_score(caption) if caption and terms else 0
    text_matches = any(score > 0 for score, _ in scored)
    dropped_photo = photo is not None and bool(terms) and photo_score <= 0 and not text_matches
    if dropped_photo:
        photo = None
    full = utterance.strip() + (f" {photo}" if photo else "")
    if not terms or count_line_tokens(full) <= config.trim_min_tokens:
        return full, dropped_photo
    if not text_matches and photo_score <= 0:
        # Nothing matches the question: keep the turn's most contentful sentences (``keep_unmatched`` of
        # them, by number of content words; reactions and greetings have few).
        richness = sorted(range(len(units)), key=lambda i: (-_content_words(units[i], names), i))
        content = [i for i in richness if not _is_reaction(units[i], names)][: config.keep_unmatched]
        scored = [(1 if i in content else 0, u) for i, u in enumerate(units)]
    keep_photo = photo is not None and photo_score > 0
    if not dropped_photo and all(score > 0 for score, _ in scored) and (photo is None or keep_photo):
        return full, False
    pieces: list[str] = []
    gap = False
    for score, unit in scored:
        if score <= 0:
            gap = True
        else:
            if gap and pieces:
                pieces.append("…")
            pieces.append(unit)
            gap = False
    if photo is not None and keep_photo:
        pieces.append(photo)
    if not pieces:
        pieces = ["…"]  # a long run of reactions only: the line says that the turn said something
    return " ".join(pieces), True


def turn_opening(turn: TurnRow, topic: str | None = None) -> str:
    """What a turn's line opens with: ``speaker:``; with a ``topic`` (the full context serialization),
    the turn id first and the people the turn mentions and its box's topic after the speaker:
    ``[id] speaker (mentions A, B; topic: T):``. The compact line leaves the id to ``Evidence.lines``: an
    answering model reads nothing in it, and it costs a sixth of a compact line ("[D14:25]" is 5 tokens).
    """
    speaker = turn.speaker
    if topic is None:
        return f"{speaker}:"
    context = []
    mentioned = [p for p in json.loads(turn.payload or "{}").get("participants", []) if p != speaker]
    if mentioned:
        context.append("mentions " + ", ".join(mentioned))
    if topic:
        context.append(f"topic: {topic}")
    who = f"{speaker} ({'; '.join(context)})" if context else speaker
    return f"[{turn.uid}] {who}:"


def turn_line(
    turn: TurnRow,
    terms: Sequence[str] = (),
    names: frozenset[str] = frozenset(),
    topic: str | None = None,
    opening: str | None = None,
    config: DialogueRecallConfig = DEFAULT_DIALOGUE_CONFIG,
) -> str:
    """``speaker: text [photo: caption] (event D)``; trimmed to the question's sentences when long
    (``trim_turn``). ``opening`` is ``turn_opening(turn, topic)`` when the caller has it already."""
    text, _ = trim_turn(turn.utterance, turn.image_caption, terms, names, config)
    line = f"{opening if opening is not None else turn_opening(turn, topic)} {text}"
    if turn.event_start is not None:
        line += f" (event {date_span(turn.event_start, turn.event_end)})"
    return line
