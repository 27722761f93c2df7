"""Grounding time expressions: a :class:`~graphmem.timeexpr.parse.TimeMention` and the moment it was
said (the reference) in, the whole days it names out, as an aware UTC :data:`Window`.

A mention that names no year ("in May", "last August", "on Friday") is placed against the reference: its
modifier decides when it has one, else the tense the caller read ("past", "future" or "neutral").

>>> ground_mention(parse_time_mentions("last August")[0], date(2023, 5, 8))[0].date()
datetime.date(2022, 8, 1)
"""

from __future__ import annotations

import calendar
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

from graphmem.timeexpr.parse import SEASONS, TimeMention, parse_time_mentions, valid_day

__all__ = ["Window", "as_date", "calendar_span", "day_window", "find_time_expressions", "ground_mention"]

#: A span of time as (first moment, last moment), aware UTC.
Window = tuple[datetime, datetime]


def as_date(value: datetime | date) -> date:
    """The calendar day of ``value``, in UTC when it is aware.

    >>> from datetime import timezone
    >>> as_date(datetime(2023, 5, 8, 23, 30, tzinfo=timezone(timedelta(hours=-2))))
    datetime.date(2023, 5, 9)
    """
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.date()
    return value


def day_window(first: date, last: date | None = None) -> Window:
    """The whole days from ``first`` to ``last`` (inclusive) as an aware UTC window."""
    last = first if last is None else last
    return (
        datetime.combine(first, time.min, tzinfo=UTC),
        datetime.combine(last, time(23, 59, 59), tzinfo=UTC),
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
        if not valid_day(year, mention.month, mention.day):
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
        head = _ground_span(replace(mention, until_mention=None), ref, tense)
        tail = _ground_span(mention.until_mention, ref, tense)
        if head is None or tail is None or head[0] > tail[1]:
            return None
        return head[0], tail[1]

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
        span = _ground_span(mention, as_date(reference), tense)
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
