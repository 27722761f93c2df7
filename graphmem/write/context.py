"""Episodic context of each dialogue turn (RaMem's episodic anchoring).

For every turn the writer records who takes part, what and where it is about, which time expressions it
uses and, when the turn says when the reported event happened, the grounded event time. Event time and
session time are kept apart: a turn said on 8 May about "yesterday" has event time 7 May.

:class:`ContextExtractor` runs spaCy over a session's turns and fills :class:`TurnContext`; the time
expressions are read by :mod:`graphmem.timeexpr`, the grammar recall frames read questions with, and
grounded against the session date with the tense of the sentence that uses them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphmem.nlp import load_nlp
from graphmem.records import Turn, validate_datetime, validate_turns
from graphmem.timeexpr.ground import Window, as_date, day_window, ground_mention
from graphmem.timeexpr.parse import (
    CALENDAR_WORD,
    DATE_LIKE,
    TimeMention,
    parse_time_mentions,
)

__all__ = ["ContextExtractor", "TurnContext"]

logger = logging.getLogger(__name__)

# Entity labels that are amounts or times, not things a memory is about.
_NON_THING_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY"})
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})
# Nouns too general to say what a turn is about.
_GENERIC_NOUNS = frozenset(
    {"thing", "things", "stuff", "lot", "lots", "bit", "time", "times", "way", "kind", "sort", "something",
     "anything", "everything", "nothing", "one", "ones", "photo", "picture", "pic", "day", "today", "yesterday",
     "thanks", "thank", "congrats", "congratulations", "hey", "hi", "hello", "wow", "yep", "yeah", "lol", "good"}
)
_BARE_NUMBER = re.compile(r"^\W*\d{1,3}\W*$")  # "since I was 17": an age, not a date
_FUTURE_WORDS = frozenset({"will", "shall", "'ll", "gon", "gonna", "plan", "planning", "upcoming"})
# Verbs of arranging something ahead ("signed up for the half marathon in June", "booked a cabin for the
# summer"): their tense dates the arranging, while a month or season said with them usually dates what
# was arranged, which may still lie ahead. "sign" counts only with "up" ("signed the lease in June").
_ARRANGING_VERBS = frozenset({"register", "enroll", "enrol", "book", "reserve", "schedule", "plan", "arrange"})
_ARRANGING_WITH_PARTICLE = frozenset({("sign", "up")})


@dataclass(frozen=True)
class TurnContext:
    """The episodic coordinates of one turn.

    ``event_start``/``event_end`` ground what the turn reports when it says when (aware UTC), and are None
    otherwise; the session time is not copied into them.

    >>> day = datetime(2023, 5, 7, tzinfo=UTC)
    >>> TurnContext(("Caroline",), ("lgbtq support group",), (), ("yesterday",), day, day, ("support", "group")).event_start
    datetime.datetime(2023, 5, 7, 0, 0, tzinfo=datetime.timezone.utc)
    """

    participants: tuple[str, ...]
    entities: tuple[str, ...]
    locations: tuple[str, ...]
    mentioned_times: tuple[str, ...]
    event_start: datetime | None
    event_end: datetime | None
    keywords: tuple[str, ...]


class ContextExtractor:
    """Fills a :class:`TurnContext` for each turn of a session.

    >>> extractor = ContextExtractor()
    >>> [ctx] = extractor.extract([Turn("D1:3", "Caroline", "I went to a support group yesterday.")],
    ...                           datetime(2023, 5, 8, 13, 56, tzinfo=UTC), ["Caroline", "Melanie"])
    >>> ctx.event_start.date(), ctx.mentioned_times
    (datetime.date(2023, 5, 7), ('yesterday',))
    """

    def __init__(self, nlp: Any = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp()
        return self._nlp

    def extract(self, turns: Sequence[Turn], session_start: datetime, speakers: Sequence[str]) -> list[TurnContext]:
        """One context per turn, in order; the turns are parsed together with ``nlp.pipe``.

        ``session_start`` is the reference for relative times ("yesterday"); ``speakers`` are the people
        of the conversation, recognized when a turn names them.
        """
        if not turns:
            return []
        checked = validate_turns(turns, "ContextExtractor.extract")
        reference = validate_datetime(session_start, "ContextExtractor.extract", "session_start")
        known = [name.strip() for name in speakers if isinstance(name, str) and name.strip()]
        captions = [turn.image_caption for turn in checked if turn.image_caption]
        docs = list(self.nlp.pipe([turn.text for turn in checked] + captions))
        text_docs, caption_docs = docs[: len(checked)], iter(docs[len(checked):])
        contexts = []
        for turn, doc in zip(checked, text_docs):
            caption_doc = next(caption_docs) if turn.image_caption else None
            contexts.append(self._context(turn, doc, caption_doc, reference, known))
        return contexts

    def _context(self, turn: Turn, doc: Any, caption_doc: Any, reference: datetime, known: list[str]) -> TurnContext:
        mentions = parse_time_mentions(turn.text)
        windows: list[Window] = []
        for mention in mentions:
            window = ground_mention(mention, reference, _tense_of(doc, mention))
            if window is None or mention.bound not in (None, "since"):
                continue  # "before 2020" says when something did not happen, not when it did
            if mention.bound == "since":
                window = (window[0], day_window(as_date(reference))[1])
            windows.append(window)

        times = [m.text for m in mentions]
        covered = [(m.start_char, m.end_char) for m in mentions]
        for ent in doc.ents:
            if ent.label_ not in ("DATE", "TIME") or _overlaps(ent.start_char, ent.end_char, covered):
                continue
            if not CALENDAR_WORD.search(ent.text) or _BARE_NUMBER.match(ent.text):
                continue
            times.append(ent.text)
            # dateparser is asked only about texts that look like a date: on durations such as "4 years" it
            # answers with "4 years ago", an invented day.
            if DATE_LIKE.search(ent.text):
                window = _dateparser_day(ent.text, reference, _tense_around(doc, ent.start_char))
                if window is not None:
                    windows.append(window)

        caption_entities = [] if caption_doc is None else _entities(caption_doc, [], known)
        # The narrowest window is the most specific statement of when ("last weekend, first time since 2019").
        event = min(windows, key=lambda w: (w[1] - w[0], w[0])) if windows else None
        return TurnContext(
            participants=tuple(_participants(turn.speaker, doc, known)),
            entities=tuple(_dedupe(_entities(doc, covered, known) + caption_entities)),
            locations=tuple(_dedupe(_strip_article(ent.text) for ent in doc.ents if ent.label_ in _PLACE_LABELS)),
            mentioned_times=tuple(_dedupe(times)),
            event_start=event[0] if event else None,
            event_end=event[1] if event else None,
            keywords=tuple(_dedupe(_keywords(doc) + ([] if caption_doc is None else _keywords(caption_doc)))),
        )


def _overlaps(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < span_end and span_start < end for span_start, span_end in spans)


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    result = []
    for item in items:
        key = item.lower()
        if item and key not in seen:
            seen.add(key)
            result.append(item)
    return result


def _strip_article(text: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.IGNORECASE)


def _tense_of(doc: Any, mention: TimeMention) -> str:
    """The tense a mention is grounded with: its sentence's, except that a month or season named without
    year or modifier ("in June") and said with a past verb of arranging ("I signed up for the half
    marathon in June") is the nearest one, since what was arranged may lie ahead."""
    tense = _tense_around(doc, mention.start_char)
    if tense == "past" and mention.needs_year and mention.modifier is None and _said_with_arranging(doc, mention):
        return "neutral"
    return tense


def _said_with_arranging(doc: Any, mention: TimeMention) -> bool:
    """Whether the verb the mention hangs from (in the parse) is a verb of arranging."""
    span = doc.char_span(mention.start_char, mention.end_char, alignment_mode="expand")
    if span is None or not doc.has_annotation("DEP"):
        return False
    token = span.root
    for _ in range(6):  # up to the governing verb; the bound guards against odd parses
        if token.pos_ in ("VERB", "AUX"):
            lemma = token.lemma_.lower()
            particles = {child.lower_ for child in token.children if child.dep_ == "prt"}
            return lemma in _ARRANGING_VERBS or any(
                (lemma, particle) in _ARRANGING_WITH_PARTICLE for particle in particles
            )
        if token.head is token:
            return False
        token = token.head
    return False


def _tense_around(doc: Any, char: int) -> str:
    """Tense of the sentence holding ``char``: decides e.g. whether "on Friday" is behind or ahead."""
    if doc.has_annotation("SENT_START"):
        sentence = next((s for s in doc.sents if s.start_char <= char < s.end_char), None)
        tokens = list(sentence) if sentence is not None else list(doc)
    else:  # a pipeline without parser or sentencizer
        tokens = list(doc)
    for index, token in enumerate(tokens):
        lower = token.lower_
        if lower in _FUTURE_WORDS or (token.tag_ == "MD" and token.lemma_ in ("will", "shall")):
            return "future"
        # "going to <verb>": the future, unlike "going to the park"
        following = tokens[index + 1: index + 3]
        if lower == "going" and len(following) == 2 and following[0].lower_ == "to" and following[1].tag_ == "VB":
            return "future"
    if any(token.tag_ == "VBD" or (token.tag_ == "VBN" and token.dep_ != "amod") for token in tokens):
        return "past"
    return "neutral"


def _dateparser_day(text: str, reference: datetime, tense: str) -> Window | None:
    """dateparser for day-level dates the grammar does not know ("3rd of Sept", "Sep 3 '21").

    Only dates naming both day and month are taken: dateparser fills missing parts from the reference,
    which would turn "2 years" or "the 15th" into confident but invented days.
    """
    import dateparser  # slow to import; most sessions never reach this

    prefer = {"past": "past", "future": "future"}.get(tense, "current_period")
    try:
        parsed = dateparser.parse(
            text,
            languages=["en"],
            settings={
                "RELATIVE_BASE": reference.astimezone(UTC).replace(tzinfo=None),
                "PREFER_DATES_FROM": prefer,
                "REQUIRE_PARTS": ["day", "month"],
                "RETURN_AS_TIMEZONE_AWARE": False,
            },
        )
    except (ValueError, OverflowError, TypeError) as exc:
        logger.debug("dateparser failed on %r: %s", text, exc)
        return None
    return None if parsed is None else day_window(parsed.date())


def _participants(speaker: str, doc: Any, known: list[str]) -> list[str]:
    people = [speaker]
    text = doc.text
    for name in known:
        first = name.split()[0]
        if re.search(rf"\b(?:{re.escape(name)}|{re.escape(first)})\b", text):
            people.append(name)
    for ent in doc.ents:
        if ent.label_ != "PERSON":
            continue
        # A name is the entity's leading capitalized words: the small model sometimes runs a PERSON span
        # on into the sentence ("is Pepper ok?" -> "Pepper ok?").
        words: list[str] = []
        for word in ent.text.split():
            if not word[:1].isupper():
                break
            words.append(word)
        name = re.sub(r"(?:'s|’s|')$", "", re.sub(r"[^\w'’]+$", "", " ".join(words)))
        if not name:
            continue
        # A short form of a known name ("Mel" for Melanie) is that person, not a new one.
        match = next(
            (k for k in known if k.split()[0].lower().startswith(name.lower()) and len(name) >= 3), None
        )
        people.append(match or name)
    return _dedupe(people)


def _entities(doc: Any, time_spans: list[tuple[int, int]], known: list[str]) -> list[str]:
    names = {part.lower() for name in known for part in name.split()}
    found = []
    for ent in doc.ents:
        if ent.label_ in _NON_THING_LABELS or ent.label_ == "PERSON":
            continue
        found.append(_strip_article(ent.text).lower())
    for chunk in doc.noun_chunks:
        if _overlaps(chunk.start_char, chunk.end_char, time_spans):
            continue
        if any(ent.label_ in _NON_THING_LABELS | {"PERSON"} for ent in chunk.ents):
            continue
        # Keep the content of the chunk: "my new LGBTQ support group" -> "new lgbtq support group".
        words = [t for t in chunk if t.pos_ not in ("DET", "PRON", "PART", "PUNCT", "INTJ") and not t.is_space]
        words = [t for t in words if t.text.lower() not in names]
        while words and words[0].is_stop:
            words.pop(0)
        if not any(t.pos_ in ("NOUN", "PROPN") and not t.is_stop for t in words):
            continue
        phrase = " ".join(t.text for t in words).lower()
        if phrase and phrase not in _GENERIC_NOUNS:
            found.append(phrase)
    return _dedupe(found)


def _keywords(doc: Any) -> list[str]:
    return [
        token.lemma_.lower()
        for token in doc
        if token.pos_ in _CONTENT_POS and not token.is_stop and not token.is_punct and len(token.text) > 1
        and any(ch.isalnum() for ch in token.text) and token.lemma_.lower() not in ("be", "have", "do")
    ]
