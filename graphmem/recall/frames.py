"""Recall frame induction (RaMem): split a question into its information need and the conditions a valid
memory must meet (a time window, the people involved, a before/after relation).

The temporal frame is conservative. It fires only when the question names a year, month, season, date or
a week/weekend phrase and every such expression grounds to one window against the history's own dates;
otherwise recall falls back to content alone. A wrong window hides the right memory, a missing one only
costs ranking, so doubt always means "no frame".

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from graphmem.errors import InvalidRecordError
from graphmem.records import validate_datetime
from graphmem.timeexpr.ground import Window, calendar_span, ground_mention
from graphmem.timeexpr.parse import TimeMention, parse_time_mentions

logger = logging.getLogger(__name__)

#: RaMem widens a grounded window by 5 days on each side: sessions are dated by when they were held and an
#: event is often reported a few days after it happened.
FRAME_BUFFER = timedelta(days=5)

# Units whose mention may form a frame on its own: a week/weekend phrase, a month, a season or a year. A
# single relative day ("yesterday", "last Saturday") is too narrow to guess from a question.
_FRAME_UNITS = frozenset({"week", "weekend", "month", "season", "year"})

# Questions that ask for a time: the time is the answer, so it cannot also be a condition.
_ASKS_FOR_TIME = re.compile(
    r"^\W*(?:(?:and|so|but|also|then|ok|okay)\W+)?(?:(?:do|did|does|can)\s+(?:you|i|we)\s+(?:know|remember|recall)\s+)?"
    r"(?:when\b|since\s+when\b|until\s+when\b|how\s+long\b|how\s+many\s+(?:days|weeks|weekends|months|years)\b|"
    r"how\s+much\s+time\b|(?:in|on|at|during|by|from)?\s*(?:what|which)\s+(?:year|month|day|date|time|week|weekend|"
    r"season|decade)s?\b|what\s+(?:is|was|'s)\s+the\s+date\b)",
    re.IGNORECASE,
)
_RELATION = re.compile(
    r"\b(?P<word>before|after|prior\s+to|since|until|till)\s+(?P<ref>[^?.!,;]+?)"
    r"(?=\s*[?.!,;]|\s+(?:and|but|or|while|so)\s|$)",
    re.IGNORECASE,
)
# "look after", "named after", "ever before": not a relation between events.
_NOT_RELATION_BEFORE = re.compile(
    r"\b(?:look|looks|looked|looking|named|take|takes|took|taking|ask|asks|asked|asking|go|goes|went|going|chase|"
    r"chased|chasing|ever|never|than|as|right)\s+$",
    re.IGNORECASE,
)
# A question about plans or the future ("plans for the summer", "will she go in August") is answered by
# what was said before that time, so its window opens back to the start of the history.
_LOOKS_AHEAD = re.compile(
    r"\b(?:plan|plans|planned|planning|will|won't|going\s+to|gonna|intend|intends|intending|hope|hopes|hoping|"
    r"upcoming|scheduled|expect|expects|expecting)\b",
    re.IGNORECASE,
)
# "plans for the summer"; not "accepted for on May 23", where "for" belongs to the verb.
_FOR_BEFORE = re.compile(r"\bfor\s+$", re.IGNORECASE)
_OWN_PREPOSITION = re.compile(
    r"^(?:in|on|at|during|over|throughout|back|around|since|until|till|by|before|after|prior)\b", re.IGNORECASE
)
_REFERENCE_STOPWORDS = frozenset({"the", "a", "an", "that", "this", "it", "then", "now", "all", "them", "so"})
_RELATIONS = {"before": "before", "prior to": "before", "until": "before", "till": "before", "after": "after",
              "since": "after"}
# First names that are also ordinary words: matched only when written as names.
_WORD_NAMES = frozenset(
    {"will", "may", "june", "april", "august", "bill", "grace", "hope", "joy", "faith", "rose", "mark", "pat",
     "sue", "art", "rich", "jack", "frank", "sunny", "summer", "autumn", "dawn", "eve", "ray", "max", "jay",
     "guy", "chase", "drew", "gene", "lily", "iris", "ivy", "holly", "amber", "ruby", "pearl", "crystal", "don",
     "dean", "page", "miles", "cliff", "brook", "wade", "reed", "lane", "hunter", "penny", "carol", "earl",
     "sky", "river", "star", "angel", "bob", "matt", "al", "ed", "sol", "win", "lee"}
)


@dataclass(frozen=True)
class RecallFrame:
    """The conditions a valid memory for a question must meet.

    ``start``/``end`` (aware UTC) are set only when ``confident``; they already include the buffer.
    ``expressions`` are the surface phrases that formed the frame; ``need`` is the question without them.

    >>> from datetime import timezone
    >>> may_2023, jan_2024 = datetime(2023, 5, 8, tzinfo=timezone.utc), datetime(2024, 1, 4, tzinfo=timezone.utc)
    >>> frame = induce_frame("What did Caroline paint last August?", may_2023, jan_2024, ["Caroline", "Melanie"])
    >>> frame.need, frame.people, frame.start.date(), frame.end.date()
    ('What did Caroline paint?', ('Caroline',), datetime.date(2023, 7, 27), datetime.date(2023, 9, 5))
    """

    need: str
    start: datetime | None
    end: datetime | None
    people: tuple[str, ...]
    relation: str | None
    reference: str | None
    confident: bool
    expressions: tuple[str, ...]


def induce_frame(
    question: str,
    history_start: datetime,
    history_end: datetime,
    known_people: Sequence[str],
    question_date: datetime | None = None,
) -> RecallFrame:
    """Induce the recall frame of ``question`` against a history spanning ``history_start``..``history_end``.

    Relative expressions ("last August", "this month") are grounded at ``question_date`` if given, else at
    the end of the history. "When ...?" questions are framed only by fixed calendar phrases ("in June"):
    otherwise the time is what they ask.

    >>> from datetime import timezone
    >>> may_2023, jan_2024 = datetime(2023, 5, 8, tzinfo=timezone.utc), datetime(2024, 1, 4, tzinfo=timezone.utc)
    >>> f = induce_frame("What did Melanie do in the summer of 2023?", may_2023, jan_2024, ["Melanie"])
    >>> f.confident, f.start.date(), f.end.date(), f.expressions
    (True, datetime.date(2023, 5, 27), datetime.date(2023, 9, 5), ('in the summer of 2023',))
    >>> induce_frame("When did Melanie paint a sunrise last year?", may_2023, jan_2024, ["Melanie"]).confident
    False
    """
    first = validate_datetime(history_start, "induce_frame", "history_start")
    last = validate_datetime(history_end, "induce_frame", "history_end")
    if first > last:
        raise InvalidRecordError("induce_frame", "history_start", f"is after history_end ({first} > {last})")
    reference = last if question_date is None else validate_datetime(question_date, "induce_frame", "question_date")
    text = question if isinstance(question, str) else ""

    mentions = parse_time_mentions(text)
    people = _people(text, known_people, mentions)
    relation, reference_text, relation_span = _relation(text, mentions)
    expressions: list[tuple[int, int]] = []
    if relation_span is not None:
        expressions.append(relation_span)

    start = end = None
    framing = [m for m in mentions if _can_frame(m) and not _inside(m, relation_span)]
    if _ASKS_FOR_TIME.match(text):
        # "When did she go camping in June?": a fixed calendar phrase still conditions the answer; only
        # a relative phrase ("last week") could be the very time that is asked for.
        framing = [m for m in framing if m.calendar and m.modifier is None and m.shift is None and m.anchor is None]
    if framing:
        looks_ahead = bool(_LOOKS_AHEAD.search(text))
        window = _temporal_window(framing, first, last, reference, looks_ahead=looks_ahead, text=text)
        if window is not None:
            start, end = window
            expressions.extend((m.start_char, m.end_char) for m in framing)
        else:
            logger.debug("no confident temporal frame for %r", text)

    expressions.sort()
    return RecallFrame(
        need=_without(text, expressions),
        start=start,
        end=end,
        people=tuple(people),
        relation=relation,
        reference=reference_text,
        confident=start is not None,
        expressions=tuple(text[a:b] for a, b in expressions),
    )


# --------------------------------------------------------------------------------------------------
# Temporal window.
# --------------------------------------------------------------------------------------------------


def _can_frame(mention: TimeMention) -> bool:
    return mention.unit != "vague" and (mention.calendar or mention.unit in _FRAME_UNITS)


def _inside(mention: TimeMention, span: tuple[int, int] | None) -> bool:
    """A time inside the relation's reference dates the reference ("after the trip in May"), not the answer."""
    return span is not None and span[0] <= mention.start_char and mention.end_char <= span[1]


def _temporal_window(
    mentions: list[TimeMention], first: datetime, last: datetime, reference: datetime, looks_ahead: bool, text: str
) -> Window | None:
    low, high = first - FRAME_BUFFER, last + FRAME_BUFFER
    windows = []
    for mention in mentions:
        window = _ground_in_history(mention, first.date(), last.date(), reference.date())
        if window is None:
            return None  # every expression must ground, or the frame would rest on a guess
        # An open side ("since 2022", "before June") closes at the edge of the history.
        if mention.bound in ("since", "after"):
            window = (window[1] + timedelta(seconds=1) if mention.bound == "after" else window[0], last)
        elif mention.bound in ("until", "before"):
            window = (first, window[0] - timedelta(seconds=1) if mention.bound == "before" else window[1])
        elif looks_ahead or _is_target_time(text, mention):
            window = (first, window[1])
        windows.append(window)
    start = max(min(w[0] for w in windows) - FRAME_BUFFER, low)
    end = min(max(w[1] for w in windows) + FRAME_BUFFER, high)
    if start > end:  # the window lies outside the history
        return None
    return start, end


def _is_target_time(text: str, mention: TimeMention) -> bool:
    """ "plans for the summer": the time something is meant for, told before that time."""
    return bool(_FOR_BEFORE.search(text[max(0, mention.start_char - 10): mention.start_char])) and not (
        _OWN_PREPOSITION.match(mention.text)
    )


def _overlap_days(span: tuple[date, date], first: date, last: date) -> int:
    return (min(span[1], last) - max(span[0], first)).days + 1


def _ground_in_history(mention: TimeMention, first: date, last: date, reference: date) -> Window | None:
    """Ground one mention so that it lies within (or within the buffer of) the history's date range."""
    if mention.until_mention is not None:
        head = _ground_in_history(replace(mention, until_mention=None, bound=None), first, last, reference)
        tail = _ground_in_history(mention.until_mention, first, last, reference)
        if head is None or tail is None or head[0] > tail[1]:
            return None
        return head[0], tail[1]
    if mention.anchor is not None:
        anchor = _with_year(mention.anchor, first, last, reference)
        if anchor is None:
            return None
        window = ground_mention(replace(mention, anchor=anchor), reference, "past")
    elif mention.needs_year:
        chosen = _with_year(mention, first, last, reference)
        window = None if chosen is None else ground_mention(chosen, reference, "past")
    else:
        window = ground_mention(mention, reference, "past")
    if window is None:
        return None
    buffer_first, buffer_last = first - FRAME_BUFFER, last + FRAME_BUFFER
    if _overlap_days((window[0].date(), window[1].date()), buffer_first, buffer_last) <= 0:
        return None
    return window


def _with_year(mention: TimeMention, first: date, last: date, reference: date) -> TimeMention | None:
    """Give a yearless month/season/date the year that places it in the history; None when unclear.

    "last August" is the latest August over before the reference; "this August" the one holding or nearest
    the reference; "next August" the first after it. A bare "in May" must be the only May the history
    touches (a two-year history makes it ambiguous).
    """
    if not mention.needs_year:
        return mention
    buffer_first, buffer_last = first - FRAME_BUFFER, last + FRAME_BUFFER
    spans = {}
    for year in range(first.year - 1, last.year + 2):
        span = calendar_span(mention, year)
        if span is not None and _overlap_days(span, buffer_first, buffer_last) > 0:
            spans[year] = span
    if not spans:
        return None
    if mention.modifier == "last":
        years = [y for y, s in spans.items() if s[1] < reference]
        return replace(mention, year=max(years), modifier=None) if years else None
    if mention.modifier == "next":
        years = [y for y, s in spans.items() if s[0] > reference]
        return replace(mention, year=min(years), modifier=None) if years else None
    if mention.modifier == "this":
        def distance(year: int) -> int:
            s = spans[year]
            return 0 if s[0] <= reference <= s[1] else min(abs((s[0] - reference).days), abs((s[1] - reference).days))

        return replace(mention, year=min(spans, key=distance), modifier=None)
    inside = [y for y, s in spans.items() if _overlap_days(s, first, last) > 0]
    candidates = inside or list(spans)
    if len(candidates) != 1:
        return None
    return replace(mention, year=candidates[0])


# --------------------------------------------------------------------------------------------------
# People and relations.
# --------------------------------------------------------------------------------------------------


def _people(text: str, known_people: Sequence[str], mentions: Sequence[TimeMention]) -> list[str]:
    """Known people named in the question, by full or first name, in order of appearance.

    Case does not matter ("caroline's"), except for first names that are also words ("Will", "June"); a
    name inside a time expression ("in June") is the month.
    """
    found: list[tuple[int, str]] = []
    for person in known_people:
        if not isinstance(person, str) or not person.strip():
            continue
        name = " ".join(person.split())
        first_name = name.split()[0]
        pattern = re.compile(rf"\b(?:{re.escape(name)}|{re.escape(first_name)})(?:'s|’s|')?(?!\w)", re.IGNORECASE)
        for match in pattern.finditer(text):
            surface = match.group(0)
            if any(m.start_char <= match.start() < m.end_char for m in mentions):
                continue
            if first_name.lower() in _WORD_NAMES and (
                not surface[:1].isupper() or not text[: match.start()].strip(" \"'(")
            ):
                continue  # "will", and "Will ..." opening a question, are the verb
            found.append((match.start(), person))
            break
    seen: list[str] = []
    for _, person in sorted(found):
        if person not in seen:
            seen.append(person)
    return seen


def _relation(text: str, mentions: list[TimeMention]) -> tuple[str | None, str | None, tuple[int, int] | None]:
    """The first before/after clause that points at an event ("after the appointment")."""
    for match in _RELATION.finditer(text):
        word = " ".join(match["word"].lower().split())
        if word == "since" and not text[: match.start()].strip():
            continue  # "Since Caroline likes art, ..." gives a reason, not a time
        if _NOT_RELATION_BEFORE.search(text[max(0, match.start() - 40): match.start()]):
            continue
        # Part of a time expression ("the week before June 9", "after May 2023"): the temporal frame's job.
        if any(m.start_char <= match.start() < m.end_char for m in mentions):
            continue
        reference = match["ref"].strip()
        if not [w for w in re.findall(r"\w+", reference.lower()) if w not in _REFERENCE_STOPWORDS]:
            continue
        return _RELATIONS[word], reference, (match.start(), match.start() + len(match.group(0).rstrip()))
    return None, None, None


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """The question minus the given spans, with spacing and punctuation tidied."""
    if not spans:
        return text.strip()
    pieces, cursor = [], 0
    for start, end in spans:
        if start < cursor:
            continue
        pieces.append(text[cursor:start])
        cursor = end
    pieces.append(text[cursor:])
    need = re.sub(r"\s+", " ", "".join(pieces))
    need = re.sub(r"\s+([?.!,;:])", r"\1", need)
    need = re.sub(r",(?=[?.!])", "", need).strip(" ,")
    return need if re.search(r"\w", need) else text.strip()


def history_window(first: datetime, last: datetime) -> Window:
    """The history's own range widened by the frame buffer: every confident frame lies inside it.

    >>> from datetime import timezone
    >>> may_2023, jan_2024 = datetime(2023, 5, 8, tzinfo=timezone.utc), datetime(2024, 1, 4, tzinfo=timezone.utc)
    >>> start, end = history_window(may_2023, jan_2024)
    >>> start.date(), end.date()
    (datetime.date(2023, 5, 3), datetime.date(2024, 1, 9))
    """
    return validate_datetime(first, "history_window", "first") - FRAME_BUFFER, validate_datetime(
        last, "history_window", "last"
    ) + FRAME_BUFFER


__all__ = ["FRAME_BUFFER", "RecallFrame", "history_window", "induce_frame"]
