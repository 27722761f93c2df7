"""English time expressions, parsed: text in, :class:`TimeMention` out (nothing grounded yet).

A small grammar of the ways people say when: calendar dates ("3 May, 2023", "Sept. 3rd"), months,
seasons and years with their cues ("in June", "last August", "the summer of 2021"), counted and relative
times ("two weeks ago", "last weekend", "yesterday"), anchors ("the week before June 9, 2023"), bounds
("since 2016") and ranges ("from May to July 2023"). Parsing is kept apart from grounding
(:mod:`graphmem.timeexpr.ground`), because the writer grounds against the session date while recall
frames ground against the whole history's date range; both read a mention the same way, so a question's
"last August" means what a turn's "last August" means.

>>> [(m.text, m.unit, m.month) for m in parse_time_mentions("We met in early June.")]
[('in early June', 'month', 6)]
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, cast

__all__ = [
    "CALENDAR_WORD",
    "DATE_LIKE",
    "MONTHS",
    "SEASONS",
    "WEEKDAYS",
    "TimeMention",
    "parse_time_mentions",
    "valid_day",
]

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
    if month is None or not valid_day(year, month, day):
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
    if not 1900 <= year <= 2099 or not 1 <= month <= 12 or not valid_day(year, month, day):
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
    if not 1900 <= year <= 2099 or not 1 <= month <= 12 or not valid_day(year, month, day):
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
    step = {"last": -1, "this": 0, "next": 1}[cast(str, modifier)]  # the pattern matched a modifier
    return _mention(match, unit, shift=(step, step))


@_rule(
    rf"\b(?:in\s+|over\s+|during\s+)?the\s+(?:past|last)\s+(?:(?P<count>{_COUNT})\s+)?"
    r"(?P<unit>day|week|month|year)s?\b(?!\s+of\b)"
)
def _trailing(match: re.Match[str], text: str) -> TimeMention | None:
    high = _count(match["count"])[1]
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


def valid_day(year: int | None, month: int, day: int) -> bool:
    """Whether the month has that day (in ``year``; a yearless 29 February exists).

    >>> valid_day(2023, 2, 29), valid_day(None, 2, 29)
    (False, True)
    """
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


# Something calendar-like inside a text another tool calls a date or time (spaCy's DATE/TIME entities):
# "4 years", "two weeks", "Christmas"; not "a long day" or "many happy years".
CALENDAR_WORD = re.compile(
    rf"\d|\b(?:{_MONTH_FULL}|{_WEEKDAY}|{_SEASON}|ago|decade|christmas|thanksgiving|easter|halloween|new\s+year)\b|"
    rf"\b(?:{'|'.join(_NUMBERS)}|few|several|couple)\s+(?:day|week|weekend|month|year)s?\b",
    re.IGNORECASE,
)
# A text that looks like a day of the calendar ("Sept 3rd", "9/3/21"), unlike a duration ("4 years"). Bare
# number pairs are left out: "9-5" is office hours and "3/4" a fraction far more often than a date.
DATE_LIKE = re.compile(rf"\b(?:{_MONTH_ANY})|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b", re.IGNORECASE)
