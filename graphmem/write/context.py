"""Episodic context of each dialogue turn (RaMem's episodic anchoring).

For every turn the writer records who takes part, what and where it is about, which time expressions it
uses and, when the turn says when the reported event happened, the grounded event time. Event time and
session time are kept apart: a turn said on 8 May about "yesterday" has event time 7 May.

The module has two halves:

* a small grammar of English time expressions (:func:`parse_time_mentions`, :func:`ground_mention`), pure
  and shared with :mod:`graphmem.recall.frames` so that a question's "last August" means what a turn's
  "last August" means;
* :class:`ContextExtractor`, which runs spaCy over a session's turns and fills :class:`TurnContext`.
"""

from __future__ import annotations

import calendar
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from graphmem.records import Turn, validate_datetime, validate_turns

logger = logging.getLogger(__name__)


# ==================================================================================================
# Time expressions: parsing (text -> TimeMention) is separate from grounding (mention + reference ->
# window), because the writer grounds against the session date while recall frames ground against the
# whole history's date range.
# ==================================================================================================

Window = tuple[datetime, datetime]

MONTHS: dict[str, int] = {calendar.month_name[n].lower(): n for n in range(1, 13)}
_MONTH_ABBR: dict[str, int] = {calendar.month_abbr[n].lower(): n for n in range(1, 13)}
_MONTH_ABBR["sept"] = 9
WEEKDAYS: dict[str, int] = {calendar.day_name[n].lower(): n for n in range(7)}
# Short forms ("last Fri"); read only after last/this/next, since "sun", "sat" and "wed" are also words.
_WEEKDAY_ABBR: dict[str, int] = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
}
# Meteorological seasons of the northern hemisphere, by first month; each lasts three months, so winter Y
# runs from December Y to February Y+1.
SEASONS: dict[str, int] = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
# Vague counts as (fewest, most) units: "a few days ago" is 2 to 5 days ago.
_VAGUE_COUNTS: dict[str, tuple[int, int]] = {"couple": (2, 3), "few": (2, 5), "several": (3, 7)}

_MONTH_FULL = "|".join(MONTHS)
# A full month name, or an abbreviation that may end in a dot ("Sept. 3").
_MONTH_ANY = rf"(?:{'|'.join(MONTHS)})\b|(?:{'|'.join(_MONTH_ABBR)})\b\.?"
_WEEKDAY = "|".join(WEEKDAYS)
_SEASON = "|".join(SEASONS)
_YEAR = r"(?:19|20)\d\d(?![\d,.]\d)"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?(?![\d:])"
_COUNT = (
    r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a\s+couple\s+of|a\s+couple|couple\s+of|a\s+few|few|several)"
)
_MODIFIER = r"(?:this\s+past|this\s+coming|last|this|next|past|coming)"
_PART = r"(?:early|mid|late|the\s+(?:beginning|start|middle|end)\s+of|(?:beginning|start|middle|end)\s+of)"
_UNIT = r"(?:day|week|weekend|month|year)"
# Words right after a year that show the number counts things (e.g. "in 2000 words").
_NOT_A_YEAR_AFTER = re.compile(
    r"^\s*(?:%|percent|people|persons|dollars|bucks|euros|pounds|miles|km|kilometers|meters|metres|feet|steps|"
    r"calories|points|copies|units|items|pieces|times|followers|subscribers|views|likes|members|students|"
    r"participants|pages|words|hours|minutes|seconds|kids|children|runners|signatures|lbs|kg)\b",
    re.IGNORECASE,
)
# Prepositions that make a bare month name ("in June", "since March") a month rather than a name or verb.
_MONTH_CUE_BEFORE = re.compile(
    r"\b(?:in|during|since|until|till|through|throughout|by|before|after|around|for|of|on|early|mid|late|every|"
    r"all|last|this|next|from|between)\s+$",
    re.IGNORECASE,
)
# The second of two listed months or years: "from May to July", "in June and July", "between 2019 and 2021".
_LIST_CUE = r"\s*(?:,|and|or|to|until|till|through|-|–)\s+$"
_MONTH_LIST_CUE_BEFORE = re.compile(
    rf"\b(?:in|during|since|from|between|until|through|by|of)\s+(?:{_MONTH_FULL}){_LIST_CUE}", re.IGNORECASE
)
_YEAR_LIST_CUE_BEFORE = re.compile(rf"\b(?:in|during|since|from|between|until|through)\s+{_YEAR}{_LIST_CUE}", re.IGNORECASE)
_SEASON_CUE_BEFORE = re.compile(
    r"\b(?:in|during|over|since|until|till|through|throughout|by|before|after|around|for|all|this|last|next|"
    r"early|late|mid)\s+$",
    re.IGNORECASE,
)
_YEAR_CUE_BEFORE = re.compile(
    r"\b(?:in|during|since|until|till|through|throughout|by|before|after|around|from|between|back\s+in|early|mid|"
    r"late|year|of)\s+$",
    re.IGNORECASE,
)
# A leading preposition that belongs to the expression: "since 2016" bounds the time, "in 2022" does not.
_LEADING_PREPOSITION = re.compile(
    r"\b(?P<prep>in|on|during|over|throughout|back\s+in|around|since|until|till|by|before|after|prior\s+to)\s+$",
    re.IGNORECASE,
)
_BOUNDS = {"since": "since", "until": "until", "till": "until", "by": "until", "before": "before", "after": "after",
           "prior to": "before"}
_ANCHOR_BEFORE = re.compile(
    rf"(?:\b(?:the|a|an|on\s+the)\s+)?(?:\b(?P<count>{_COUNT})\s+)?\b(?P<unit>{_UNIT}s?|{_WEEKDAY})\s+"
    r"(?P<side>before|after|of|prior\s+to|following)\s+$",
    re.IGNORECASE,
)
_RANGE_JOIN = re.compile(r"^\s*(?:to|and|until|till|through|thru|-|–|—)\s*$", re.IGNORECASE)
_RANGE_OPEN = re.compile(r"\b(?:between|from)\s+$", re.IGNORECASE)


@dataclass(frozen=True)
class TimeMention:
    """A time expression found in text, not yet grounded.

    ``unit`` is the size of what it names: "day", "week", "weekend", "month", "season", "year", or "vague"
    ("recently", "years ago": a time expression that names no window). Named calendar fields (``year``,
    ``month``, ``day``, ``season``) are set when the text names them; ``modifier`` is "last", "this" or
    "next" for named periods ("last August"); ``shift`` is the (fewest, most) units from the reference for
    counted ones ("two weeks ago" -> (-2, -2), "a few days ago" -> (-5, -2)). ``anchor`` replaces the
    reference ("the week before June 9, 2023"); ``bound`` opens the window on one side ("since 2016");
    ``until_mention`` closes a range ("from May to July 2023").

    >>> [m.text for m in parse_time_mentions("I went there last Saturday, two weeks ago and in 2022.")]
    ['last Saturday', 'two weeks ago', 'in 2022']
    """

    text: str
    start_char: int
    end_char: int
    unit: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    season: str | None = None
    weekday: int | None = None
    part: str | None = None
    modifier: str | None = None
    shift: tuple[int, int] | None = None
    trailing: bool = False
    anchor: TimeMention | None = None
    bound: str | None = None
    until_mention: TimeMention | None = None

    @property
    def calendar(self) -> bool:
        """True when the expression names the calendar (a year, month, season or date), directly or via its anchor."""
        if self.until_mention is not None:
            return self._names_calendar() and self.until_mention.calendar
        return self._names_calendar() or (self.anchor is not None and self.anchor.calendar)

    def _names_calendar(self) -> bool:
        return self.year is not None or self.month is not None or self.season is not None

    @property
    def needs_year(self) -> bool:
        """Names a month, season or date but no year ("in May", "last August"): the year must be chosen."""
        return self.year is None and (self.month is not None or self.season is not None)


def _count(text: str | None) -> tuple[int, int]:
    if text is None:
        return (1, 1)
    words = text.lower().split()
    for word, span in _VAGUE_COUNTS.items():
        if word in words:
            return span
    value = _NUMBERS.get(words[0]) if not words[0].isdigit() else int(words[0])
    return (value or 1, value or 1)


def _part_of(text: str | None) -> str | None:
    if not text:
        return None
    text = text.lower()
    if "early" in text or "beginning" in text or "start" in text:
        return "early"
    if "mid" in text:
        return "mid"
    if "late" in text or "end" in text:
        return "late"
    return None


def _month_number(word: str) -> int | None:
    word = word.lower().rstrip(".")
    return MONTHS.get(word) or _MONTH_ABBR.get(word)


def _verb_like_month(surface: str) -> bool:
    """"may" and "march" are month names only when written as names ("May"), unlike the verbs ("3 may be")."""
    return surface.lower().rstrip(".") in {"may", "march"} and not surface[:1].isupper()


# Each rule: (regex, builder). A builder gets the match and the whole text and returns a mention or None
# (None when the context shows it is not a time, e.g. "I may go").
_Builder = Callable[[re.Match[str], str], TimeMention | None]
_RULES: list[tuple[re.Pattern[str], _Builder]] = []


def _rule(pattern: str) -> Callable[[_Builder], _Builder]:
    def register(builder: _Builder) -> _Builder:
        _RULES.append((re.compile(pattern, re.IGNORECASE), builder))
        return builder

    return register


_LOOK_BACK = 80  # characters: more than any cue needs ("a couple of weekends before "), so scans stay linear


def _before(text: str, position: int) -> str:
    """The few words before ``position``."""
    return text[max(0, position - _LOOK_BACK): position]


def _cue_start(position: int, cue: re.Match[str]) -> int:
    """Where a cue found in ``_before(text, position)`` starts in the whole text."""
    return max(0, position - _LOOK_BACK) + cue.start()


def _mention(match: re.Match[str], unit: str, **fields: Any) -> TimeMention:
    return TimeMention(match.group(0), match.start(), match.end(), unit, **fields)


def _calendar_day(match: re.Match[str]) -> TimeMention | None:
    """The day a match with ``day``, ``month`` and optional ``year`` groups names, if it exists."""
    month = _month_number(match["month"])
    day = int(re.sub(r"\D", "", match["day"]))
    year = int(match["year"]) if match["year"] else None
    if month is None or not _valid_day(year, month, day):
        return None
    return _mention(match, "day", year=year, month=month, day=day)


@_rule(rf"\b(?:(?:{_WEEKDAY}),?\s+(?:the\s+)?)?(?P<day>{_DAY})\s+(?:of\s+)?(?P<month>{_MONTH_ANY})(?:,?\s+(?P<year>{_YEAR}))?")
def _day_month(match: re.Match[str], text: str) -> TimeMention | None:
    if _verb_like_month(match["month"]) and not match["year"]:
        return None
    return _calendar_day(match)


@_rule(rf"\b(?:(?:{_WEEKDAY}),?\s+)?(?P<month>{_MONTH_ANY})\s+(?:the\s+)?(?P<day>{_DAY})\b(?:,?\s+(?P<year>{_YEAR}))?")
def _month_day(match: re.Match[str], text: str) -> TimeMention | None:
    if _verb_like_month(match["month"]):
        return None
    return _calendar_day(match)


@_rule(r"\b(?P<year>\d{4})[-/](?P<month>\d{1,2})[-/](?P<day>\d{1,2})\b")
def _iso_date(match: re.Match[str], text: str) -> TimeMention | None:
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    if not 1900 <= year <= 2099 or not 1 <= month <= 12 or not _valid_day(year, month, day):
        return None
    return _mention(match, "day", year=year, month=month, day=day)


@_rule(r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4})\b")
def _numeric_date(match: re.Match[str], text: str) -> TimeMention | None:
    a, b, year = int(match["a"]), int(match["b"]), int(match["year"])
    # 5/8/2023 reads as 8 May in the US and 5 August elsewhere: only an unambiguous order is taken.
    if a > 12 >= b:
        day, month = a, b
    elif b > 12 >= a:
        month, day = a, b
    elif a == b:
        month = day = a
    else:
        return None
    if not 1900 <= year <= 2099 or not 1 <= month <= 12 or not _valid_day(year, month, day):
        return None
    return _mention(match, "day", year=year, month=month, day=day)


@_rule(rf"\b(?:(?P<mod>{_MODIFIER})\s+|(?P<part>{_PART})[\s-]*)?(?P<month>{_MONTH_FULL})\b(?:,?\s+(?:of\s+)?(?P<year>{_YEAR}))?")
def _month(match: re.Match[str], text: str) -> TimeMention | None:
    if _verb_like_month(match["month"]):
        return None
    before = _before(text, match.start())
    has_cue = (
        match["mod"] or match["part"] or match["year"]
        or _MONTH_CUE_BEFORE.search(before) or _MONTH_LIST_CUE_BEFORE.search(before)
    )
    if not has_cue:  # a bare "June" is as likely a person as a month
        return None
    return _mention(
        match,
        "month",
        year=int(match["year"]) if match["year"] else None,
        month=_month_number(match["month"]),
        part=_part_of(match["part"]),
        modifier=_modifier(match["mod"]),
    )


@_rule(rf"\b(?P<month>{'|'.join(_MONTH_ABBR)})\.?,?\s+(?:of\s+)?(?P<year>{_YEAR})")
def _month_abbr_year(match: re.Match[str], text: str) -> TimeMention | None:
    if _verb_like_month(match["month"]):
        return None
    return _mention(match, "month", year=int(match["year"]), month=_month_number(match["month"]))


@_rule(
    rf"\b(?:(?P<mod>{_MODIFIER})\s+|(?P<part>early|mid|late)[\s-]+)?(?:the\s+)?(?P<season>{_SEASON})\b"
    rf"(?:\s+(?:of\s+)?(?P<year>{_YEAR}))?"
)
def _season(match: re.Match[str], text: str) -> TimeMention | None:
    has_cue = match["mod"] or match["part"] or match["year"] or _SEASON_CUE_BEFORE.search(_before(text, match.start()))
    if not has_cue:  # "summer camp", "I fall asleep"
        return None
    return _mention(
        match,
        "season",
        year=int(match["year"]) if match["year"] else None,
        season=match["season"].lower(),
        part=_part_of(match["part"]),
        modifier=_modifier(match["mod"]),
    )


@_rule(rf"\b(?:(?P<part>{_PART})[\s-]*)?(?P<year>{_YEAR})\b")
def _year(match: re.Match[str], text: str) -> TimeMention | None:
    before = _before(text, match.start())
    has_cue = match["part"] or _YEAR_CUE_BEFORE.search(before) or _YEAR_LIST_CUE_BEFORE.search(before)
    if not has_cue or before.rstrip().endswith(("$", "#", "£", "€")):
        return None
    if _NOT_A_YEAR_AFTER.match(text[match.end():]):
        return None
    return _mention(match, "year", year=int(match["year"]), part=_part_of(match["part"]))


@_rule(
    rf"\b(?:the\s+)?(?P<ord>first|second|third|fourth|last)\s+(?P<unit>week|weekend)\s+of\s+"
    rf"(?P<month>{_MONTH_FULL})\b(?:,?\s+(?P<year>{_YEAR}))?"
)
def _week_of_month(match: re.Match[str], text: str) -> TimeMention | None:
    if _verb_like_month(match["month"]):
        return None
    return _mention(
        match,
        "week",
        year=int(match["year"]) if match["year"] else None,
        month=_month_number(match["month"]),
        part=f"{match['unit'].lower()}:{match['ord'].lower()}",
    )


@_rule(rf"\b(?P<mod>{_MODIFIER})\s+(?P<unit>week|weekend|month|year)\b")
def _shifted_unit(match: re.Match[str], text: str) -> TimeMention | None:
    modifier = _modifier(match["mod"])
    unit = match["unit"].lower()
    if match["mod"].lower() == "past" and _before(text, match.start()).lower().endswith(("the ", "in the ", "over the ")):
        return None  # "the past week" is a trailing window, matched below
    step = {"last": -1, "this": 0, "next": 1}[modifier]  # type: ignore[index]
    return _mention(match, unit, shift=(step, step))


@_rule(
    rf"\b(?:in\s+|over\s+|during\s+)?the\s+(?:past|last)\s+(?:(?P<count>{_COUNT})\s+)?"
    r"(?P<unit>day|week|month|year)s?\b(?!\s+of\b)"
)
def _trailing(match: re.Match[str], text: str) -> TimeMention | None:
    low, high = _count(match["count"])
    return _mention(match, match["unit"].lower(), shift=(-high, 0), trailing=True)


@_rule(rf"\b(?P<count>{_COUNT})\s+(?P<unit>{_UNIT})s?\s+(?P<dir>ago|from\s+now)\b")
def _counted(match: re.Match[str], text: str) -> TimeMention | None:
    low, high = _count(match["count"])
    if match["dir"].lower() == "ago":
        return _mention(match, match["unit"].lower(), shift=(-high, -low))
    return _mention(match, match["unit"].lower(), shift=(low, high))


@_rule(
    r"\b(?P<word>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow|"
    r"last\s+night|this\s+(?:morning|afternoon|evening)|the\s+other\s+day)\b"
)
def _day_word(match: re.Match[str], text: str) -> TimeMention | None:
    word = " ".join(match["word"].lower().split())
    shifts = {
        "the day before yesterday": (-2, -2), "the day after tomorrow": (2, 2), "yesterday": (-1, -1),
        "last night": (-1, -1), "tomorrow": (1, 1), "the other day": (-7, -1),
    }
    return _mention(match, "day", shift=shifts.get(word, (0, 0)))


@_rule(rf"\b(?:(?P<mod>{_MODIFIER})\s+)?(?P<weekday>{_WEEKDAY})(?P<plural>s)?\b(?:\s+(?:morning|afternoon|evening|night))?")
def _weekday(match: re.Match[str], text: str) -> TimeMention | None:
    if match["plural"]:  # "on Saturdays" is a habit, not a day
        return _mention(match, "vague")
    return _mention(match, "day", weekday=WEEKDAYS[match["weekday"].lower()], modifier=_modifier(match["mod"]))


@_rule(rf"\b(?P<mod>{_MODIFIER})\s+(?P<weekday>{'|'.join(_WEEKDAY_ABBR)})\b\.?")
def _weekday_abbr(match: re.Match[str], text: str) -> TimeMention | None:
    return _mention(match, "day", weekday=_WEEKDAY_ABBR[match["weekday"].lower()], modifier=_modifier(match["mod"]))


@_rule(r"\b(?:(?:over|on|at|during|for)\s+)?the\s+weekend\b")
def _the_weekend(match: re.Match[str], text: str) -> TimeMention | None:
    return _mention(match, "weekend")


@_rule(
    r"\b(?:recently|lately|a\s+(?:long\s+)?while\s+(?:ago|back)|some\s+time\s+ago|a\s+long\s+time\s+ago|long\s+ago|"
    r"(?:years|months|weeks|ages)\s+ago|back\s+then|these\s+days|nowadays)\b"
)
def _vague(match: re.Match[str], text: str) -> TimeMention | None:
    return _mention(match, "vague")


def _modifier(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.lower().split())
    return {"last": "last", "past": "last", "this past": "last", "this": "this", "next": "next",
            "coming": "next", "this coming": "next"}[text]


def _valid_day(year: int | None, month: int, day: int) -> bool:
    last = calendar.monthrange(year if year is not None else 2000, month)[1]  # 2000: leap, keeps 29 Feb
    return 1 <= day <= last


def parse_time_mentions(text: str) -> list[TimeMention]:
    """Find the time expressions in ``text``, longest first where they overlap, in text order.

    Composite expressions are assembled from their parts: an anchor ("the week before June 9, 2023"), a
    bounding preposition ("since 2016") and ranges ("between May and July 2023").

    >>> [(m.text, m.unit) for m in parse_time_mentions("We met the Friday before 15 July, 2023.")]
    [('the Friday before 15 July, 2023', 'day')]
    """
    if not isinstance(text, str) or not text:
        return []
    found: list[TimeMention] = []
    for pattern, builder in _RULES:
        for match in pattern.finditer(text):
            mention = builder(match, text)
            if mention is not None:
                found.append(mention)
    mentions = _without_overlaps(found)
    mentions = [_with_anchor(text, m) for m in mentions]
    mentions = _without_overlaps(mentions)
    mentions = _join_ranges(text, mentions)
    return [_with_preposition(text, m) for m in mentions]


def _without_overlaps(mentions: Iterable[TimeMention]) -> list[TimeMention]:
    chosen: list[TimeMention] = []
    for mention in sorted(mentions, key=lambda m: (-(m.end_char - m.start_char), m.start_char)):
        if all(mention.end_char <= c.start_char or mention.start_char >= c.end_char for c in chosen):
            chosen.append(mention)
    return sorted(chosen, key=lambda m: m.start_char)


def _with_anchor(text: str, mention: TimeMention) -> TimeMention:
    """Fold "the week before " + <mention> into one mention anchored on it."""
    if mention.unit == "vague" or mention.bound:
        return mention
    match = _ANCHOR_BEFORE.search(_before(text, mention.start_char))
    if match is None:
        return mention
    unit_word = match["unit"].lower()
    side = " ".join(match["side"].lower().split())
    step = {"before": -1, "prior to": -1, "after": 1, "following": 1, "of": 0}[side]
    start = _cue_start(mention.start_char, match)
    surface = text[start: mention.end_char]
    if unit_word in WEEKDAYS:
        modifier = {-1: "last", 1: "next", 0: "this"}[step]
        return TimeMention(surface, start, mention.end_char, "day", weekday=WEEKDAYS[unit_word], modifier=modifier,
                           anchor=mention)
    unit = unit_word.rstrip("s")
    low, high = _count(match["count"])
    shift = (0, 0) if step == 0 else ((-high, -low) if step < 0 else (low, high))
    return TimeMention(surface, start, mention.end_char, unit, shift=shift, anchor=mention)


def _join_ranges(text: str, mentions: list[TimeMention]) -> list[TimeMention]:
    """"from May to July 2023", "between June 1 and June 5": one mention spanning both ends."""
    joined: list[TimeMention] = []
    index = 0
    while index < len(mentions):
        first = mentions[index]
        if index + 1 < len(mentions):
            second = mentions[index + 1]
            opener = _RANGE_OPEN.search(_before(text, first.start_char))
            if (
                opener
                and first.unit != "vague"
                and second.unit != "vague"
                and _RANGE_JOIN.match(text[first.end_char: second.start_char])
            ):
                if first.needs_year and second.year is not None:
                    first = replace(first, year=second.year)
                start = _cue_start(first.start_char, opener)
                joined.append(
                    replace(first, text=text[start: second.end_char], start_char=start, end_char=second.end_char,
                            until_mention=second)
                )
                index += 2
                continue
        joined.append(first)
        index += 1
    return joined


def _with_preposition(text: str, mention: TimeMention) -> TimeMention:
    """Take a leading preposition into the surface; "since", "before", "after", "until" also bound the time."""
    if mention.until_mention is not None:  # starts with its own "from"/"between"
        return mention
    match = _LEADING_PREPOSITION.search(_before(text, mention.start_char))
    if match is None:
        return mention
    prep = " ".join(match["prep"].lower().split())
    start = _cue_start(mention.start_char, match)
    return replace(
        mention,
        text=text[start: mention.end_char],
        start_char=start,
        bound=_BOUNDS.get(prep, mention.bound),
    )


# --------------------------------------------------------------------------------------------------
# Grounding.
# --------------------------------------------------------------------------------------------------


def _as_date(value: datetime | date) -> date:
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc)
        return value.date()
    return value


def day_window(first: date, last: date | None = None) -> Window:
    """The whole days from ``first`` to ``last`` (inclusive) as an aware UTC window."""
    last = first if last is None else last
    return (
        datetime.combine(first, time.min, tzinfo=timezone.utc),
        datetime.combine(last, time(23, 59, 59), tzinfo=timezone.utc),
    )


def _month_span(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _add_months(year: int, month: int, count: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + count
    return index // 12, index % 12 + 1


def _season_span(season: str, year: int) -> tuple[date, date]:
    first = SEASONS[season]
    last_year, last_month = _add_months(year, first, 2)
    return date(year, first, 1), _month_span(last_year, last_month)[1]


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _narrow(span: tuple[date, date], part: str | None) -> tuple[date, date]:
    """Early/mid/late thirds of a period; "week:first" and the like inside a month."""
    if part is None:
        return span
    first, last = span
    if part.startswith(("week:", "weekend:")):
        unit, order = part.split(":")
        if order == "last":
            anchor = last - timedelta(days=6)
        else:
            anchor = first + timedelta(days=7 * ["first", "second", "third", "fourth"].index(order))
        if unit == "weekend":
            saturday = anchor + timedelta(days=(5 - anchor.weekday()) % 7)
            return saturday, saturday + timedelta(days=1)
        return anchor, min(anchor + timedelta(days=6), last)
    index = ("early", "mid", "late").index(part)
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    if months >= 3:  # a year or a season: thirds in whole months (early 2022 = January to April)
        size = months // 3
        year, month = _add_months(first.year, first.month, index * size)
        end_year, end_month = _add_months(year, month, size - 1)
        return date(year, month, 1), _month_span(end_year, end_month)[1]
    # a month: the 1st-10th, 11th-20th, 21st-end, as people use "early/mid/late June"
    start = first + timedelta(days=10 * index)
    return start, last if index == 2 else start + timedelta(days=9)


def calendar_span(mention: TimeMention, year: int) -> tuple[date, date] | None:
    """The period a calendar mention names in ``year`` (the year a season or month falls in).

    >>> calendar_span(parse_time_mentions("in the summer")[0], 2022)
    (datetime.date(2022, 6, 1), datetime.date(2022, 8, 31))
    """
    if mention.month is not None and mention.day is not None:
        if not _valid_day(year, mention.month, mention.day):
            return None
        day = date(year, mention.month, mention.day)
        return day, day
    if mention.month is not None:
        return _narrow(_month_span(year, mention.month), mention.part)
    if mention.season is not None:
        span = _season_span(mention.season, year)
        return _narrow(span, mention.part) if mention.part in ("early", "mid", "late") else span
    if mention.year is not None:
        return _narrow((date(year, 1, 1), date(year, 12, 31)), mention.part)
    return None


def _pick(candidates: list[tuple[date, date]], ref: date, how: str) -> tuple[date, date] | None:
    """Choose one occurrence of a yearless period relative to ``ref``.

    last: the latest one over before ``ref``; next: the first one starting after; this: the one holding
    ``ref``, else the nearest; past/future: the latest started / first not yet over; nearest: by distance.
    """
    def distance(span: tuple[date, date]) -> int:
        return 0 if span[0] <= ref <= span[1] else min(abs((span[0] - ref).days), abs((span[1] - ref).days))

    if how == "last":
        pool = [c for c in candidates if c[1] < ref]
        return max(pool) if pool else None
    if how == "next":
        pool = [c for c in candidates if c[0] > ref]
        return min(pool) if pool else None
    if how == "past":
        pool = [c for c in candidates if c[0] <= ref]
        return max(pool) if pool else None
    if how == "future":
        pool = [c for c in candidates if c[1] >= ref]
        return min(pool) if pool else None
    return min(candidates, key=lambda c: (distance(c), c)) if candidates else None


def _how(mention: TimeMention, tense: str) -> str:
    if mention.modifier is not None:
        return mention.modifier
    return {"past": "past", "future": "future"}.get(tense, "nearest")


def _ground_span(mention: TimeMention, ref: date, tense: str) -> tuple[date, date] | None:
    if mention.unit == "vague":
        return None
    if mention.anchor is not None:
        anchor = _ground_span(mention.anchor, ref, tense)
        if anchor is None:
            return None
        step = mention.shift[0] if mention.shift else {"last": -1, "next": 1}.get(mention.modifier or "", 0)
        # "the week before X" is "last week" said on X; "the week after X" is "next week" said at X's end.
        new_ref = anchor[0] if step < 0 else anchor[1] if step > 0 else anchor[0]
        return _ground_span(replace(mention, anchor=None), new_ref, tense)
    if mention.until_mention is not None:
        first = _ground_span(replace(mention, until_mention=None), ref, tense)
        last = _ground_span(mention.until_mention, ref, tense)
        if first is None or last is None or first[0] > last[1]:
            return None
        return first[0], last[1]

    if mention.year is not None or mention.needs_year:
        if mention.year is not None:
            return calendar_span(mention, mention.year)
        years = range(ref.year - 2, ref.year + 3)
        spans = [span for year in years if (span := calendar_span(mention, year)) is not None]
        return _pick(spans, ref, _how(mention, tense))

    if mention.weekday is not None:
        days = [ref + timedelta(days=offset) for offset in range(-14, 15)]
        same = [(d, d) for d in days if d.weekday() == mention.weekday]
        if mention.modifier == "this":
            day = _week_start(ref) + timedelta(days=mention.weekday)
            return day, day
        how = _how(mention, tense)
        # A weekday said without "this" means another day than today.
        return _pick([s for s in same if s[0] != ref], ref, how)

    if mention.unit == "weekend" and mention.shift is None:
        saturdays = [_week_start(ref) + timedelta(days=5 + 7 * k) for k in range(-3, 4)]
        spans = [(s, s + timedelta(days=1)) for s in saturdays]
        how = _how(mention, tense)
        if how == "past":
            return max(s for s in spans if s[0] < ref)
        return _pick(spans, ref, how)

    if mention.shift is None:
        return None
    low, high = mention.shift
    if mention.unit == "day":
        return ref + timedelta(days=low), ref + timedelta(days=high)
    if mention.unit == "week":
        if mention.trailing:
            return ref + timedelta(weeks=low), ref
        monday = _week_start(ref)
        return monday + timedelta(weeks=low), monday + timedelta(weeks=high, days=6)
    if mention.unit == "weekend":
        # Weekends count from the one of the reference's own (Monday-first) week, so "last weekend" said on
        # a Sunday is the weekend before, not the one in progress.
        this_saturday = _week_start(ref) + timedelta(days=5)
        return this_saturday + timedelta(weeks=low), this_saturday + timedelta(weeks=high, days=1)
    if mention.unit == "month":
        if mention.trailing:
            year, month = _add_months(ref.year, ref.month, low)
            return date(year, month, min(ref.day, calendar.monthrange(year, month)[1])), ref
        first = _month_span(*_add_months(ref.year, ref.month, low))[0]
        last = _month_span(*_add_months(ref.year, ref.month, high))[1]
        return first, last
    if mention.unit == "year":
        if mention.trailing:
            return date(ref.year + low, ref.month, min(ref.day, 28)), ref
        return date(ref.year + low, 1, 1), date(ref.year + high, 12, 31)
    return None


def ground_mention(mention: TimeMention, reference: datetime | date, tense: str = "neutral") -> Window | None:
    """Ground a mention against ``reference`` (the moment it was said); None if it names no window.

    ``tense`` ("past", "future" or "neutral") chooses between occurrences when the text does not:
    "on Friday" said on a Wednesday is the Friday before in a past-tense sentence and the one after in a
    future-tense one. A ``bound`` is not applied here; the caller decides what "since 2016" opens onto.

    >>> ground_mention(parse_time_mentions("yesterday")[0], datetime(2023, 5, 8, 13, 56))[0].date()
    datetime.date(2023, 5, 7)
    """
    try:
        span = _ground_span(mention, _as_date(reference), tense)
    except (ValueError, OverflowError):  # dates beyond year 1..9999
        return None
    if span is None:
        return None
    return day_window(*span)


def find_time_expressions(
    text: str, reference: datetime | date, tense: str = "neutral"
) -> list[tuple[TimeMention, Window | None]]:
    """Parse and ground in one call.

    >>> [(m.text, w[0].date()) for m, w in find_time_expressions("two weeks ago", datetime(2023, 5, 8))]
    [('two weeks ago', datetime.date(2023, 4, 24))]
    """
    return [(m, ground_mention(m, reference, tense)) for m in parse_time_mentions(text)]


# ==================================================================================================
# Turn context.
# ==================================================================================================

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
# A spaCy DATE/TIME entity counts as a time mention only with something calendar-like in it: "4 years",
# "two weeks", "Christmas"; not "a long day" or "many happy years".
_CALENDAR_WORD = re.compile(
    rf"\d|\b(?:{_MONTH_FULL}|{_WEEKDAY}|{_SEASON}|ago|decade|christmas|thanksgiving|easter|halloween|new\s+year)\b|"
    rf"\b(?:{'|'.join(_NUMBERS)}|few|several|couple)\s+(?:day|week|weekend|month|year)s?\b",
    re.IGNORECASE,
)
# dateparser is asked only about texts that look like a date ("Sept 3rd", "9/3/21"): on durations such as
# "4 years" it answers with "4 years ago", an invented day. Bare number pairs are left out: "9-5" is office
# hours and "3/4" a fraction far more often than a date.
_DATE_LIKE = re.compile(rf"\b(?:{_MONTH_ANY})|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"^\W*\d{1,3}\W*$")  # "since I was 17": an age, not a date
_FUTURE_WORDS = frozenset({"will", "shall", "'ll", "gon", "gonna", "plan", "planning", "upcoming"})


@dataclass(frozen=True)
class TurnContext:
    """The episodic coordinates of one turn.

    ``event_start``/``event_end`` ground what the turn reports when it says when (aware UTC), and are None
    otherwise; the session time is not copied into them.

    >>> day = datetime(2023, 5, 7, tzinfo=timezone.utc)
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


def _default_nlp() -> Any:
    """The spaCy pipeline, loaded once per process (``graphmem.nlp.load_nlp``)."""
    from graphmem.nlp import load_nlp

    return load_nlp()


class ContextExtractor:
    """Fills a :class:`TurnContext` for each turn of a session.

    >>> extractor = ContextExtractor()
    >>> [ctx] = extractor.extract([Turn("D1:3", "Caroline", "I went to a support group yesterday.")],
    ...                           datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc), ["Caroline", "Melanie"])
    >>> ctx.event_start.date(), ctx.mentioned_times
    (datetime.date(2023, 5, 7), ('yesterday',))
    """

    def __init__(self, nlp: Any = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = _default_nlp()
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
            window = ground_mention(mention, reference, _tense_around(doc, mention.start_char))
            if window is None or mention.bound not in (None, "since"):
                continue  # "before 2020" says when something did not happen, not when it did
            if mention.bound == "since":
                window = (window[0], day_window(_as_date(reference))[1])
            windows.append(window)

        times = [m.text for m in mentions]
        covered = [(m.start_char, m.end_char) for m in mentions]
        for ent in doc.ents:
            if ent.label_ not in ("DATE", "TIME") or _overlaps(ent.start_char, ent.end_char, covered):
                continue
            if not _CALENDAR_WORD.search(ent.text) or _BARE_NUMBER.match(ent.text):
                continue
            times.append(ent.text)
            if _DATE_LIKE.search(ent.text):
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
                "RELATIVE_BASE": reference.astimezone(timezone.utc).replace(tzinfo=None),
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
