"""Recall frame induction: temporal windows only when confident, people, before/after relations."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locomo_dev
from graphmem.errors import InvalidRecordError
from graphmem.recall.frames import FRAME_BUFFER, history_window, induce_frame

START = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # conv-26's history: 8 May 2023 ...
END = datetime(2024, 1, 4, 0, 19, tzinfo=UTC)  # ... to 4 January 2024
PEOPLE = ["Caroline", "Melanie"]
DAY = timedelta(days=1)


def _window(question: str, start: datetime = START, end: datetime = END, **kwargs) -> tuple[date, date] | None:
    frame = induce_frame(question, start, end, PEOPLE, **kwargs)
    if not frame.confident:
        assert frame.start is None and frame.end is None
        return None
    assert frame.start is not None and frame.end is not None
    return frame.start.date(), frame.end.date()


def _buffered(first: date, last: date) -> tuple[date, date]:
    return first - FRAME_BUFFER, last + FRAME_BUFFER


def test_buffer_is_five_days() -> None:
    assert FRAME_BUFFER == timedelta(days=5)


@pytest.mark.parametrize(
    "question, first, last",
    [
        ("What did Caroline do in August 2023?", date(2023, 8, 1), date(2023, 8, 31)),
        ("What did Caroline paint last August?", date(2023, 8, 1), date(2023, 8, 31)),
        ("What did Melanie do in the summer of 2023?", date(2023, 6, 1), date(2023, 8, 31)),
        ("What did Melanie do on 8 October?", date(2023, 10, 8), date(2023, 10, 8)),
        ("What happened on October 13, 2023?", date(2023, 10, 13), date(2023, 10, 13)),
        ("What did they discuss the week before June 9, 2023?", date(2023, 5, 29), date(2023, 6, 4)),
        ("Whom did Caroline meet the Friday before 15 July 2023?", date(2023, 7, 14), date(2023, 7, 14)),
        ("What did Melanie do over the weekend of 15 July 2023?", date(2023, 7, 15), date(2023, 7, 16)),
        ("What did Melanie read in September?", date(2023, 9, 1), date(2023, 9, 30)),
        ("Which books did Melanie read between June and August?", date(2023, 6, 1), date(2023, 8, 31)),
        ("What did Caroline do in early September?", date(2023, 9, 1), date(2023, 9, 10)),
        ("Did Caroline go anywhere during the first week of August?", date(2023, 8, 1), date(2023, 8, 7)),
        ("What did Melanie do in the fall?", date(2023, 9, 1), date(2023, 11, 30)),
        ("What did Melanie bake last Christmas week, in December?", date(2023, 12, 1), date(2023, 12, 31)),
        ("what did caroline do in july 2023", date(2023, 7, 1), date(2023, 7, 31)),
        # Relative to the end of the history (4 Jan 2024, a Thursday).
        ("What did Melanie do last year?", date(2023, 1, 1), date(2023, 12, 31)),
        ("What did Melanie do this month?", date(2024, 1, 1), date(2024, 1, 31)),
        ("What did Caroline do last week?", date(2023, 12, 25), date(2023, 12, 31)),
        ("What did Caroline do last weekend?", date(2023, 12, 30), date(2023, 12, 31)),
        ("What did they talk about two weeks ago?", date(2023, 12, 18), date(2023, 12, 24)),
    ],
)
def test_temporal_frames(question: str, first: date, last: date) -> None:
    low, high = history_window(START, END)
    expected_first, expected_last = _buffered(first, last)
    assert _window(question) == (max(expected_first, low.date()), min(expected_last, high.date()))


@pytest.mark.parametrize(
    "question",
    [
        "When did Caroline go to the LGBTQ support group?",  # the time is what is asked
        "When did Caroline visit Paris last month?",  # a relative phrase may be the asked time itself
        "In which month did Caroline start the painting class?",
        "How long has Melanie been painting since 2016?",
        "What did Caroline do in 2019?",  # outside the history
        "What did Caroline do in the summer of 2022?",  # outside the history
        "What did Caroline do yesterday?",  # a single relative day is too narrow to guess
        "What did Melanie buy on Saturday?",
        "What did Caroline do recently?",
        "What is Caroline's favourite painting?",
        "May I ask what Melanie painted?",
        "What will Caroline do next summer?",  # next summer lies after the history
        "What did Melanie do after the trip in May 2023?",  # May dates the trip, not the answer
    ],
)
def test_no_temporal_frame(question: str) -> None:
    frame = induce_frame(question, START, END, PEOPLE)
    assert not frame.confident and frame.start is None and frame.end is None
    assert frame.need == question.strip() or frame.relation is not None


def test_ambiguous_month_over_two_years_gives_no_frame() -> None:
    start, end = datetime(2022, 3, 1, tzinfo=UTC), datetime(2024, 2, 1, tzinfo=UTC)
    assert _window("What did Caroline do in May?", start, end) is None  # May 2022 or May 2023?
    assert _window("What did Caroline do in May 2022?", start, end) == _buffered(date(2022, 5, 1), date(2022, 5, 31))
    # "last May" picks the latest May before the reference, here the end of the history.
    assert _window("What did Caroline do last May?", start, end) == _buffered(date(2023, 5, 1), date(2023, 5, 31))


def test_last_august_is_the_one_before_the_reference() -> None:
    start, end = datetime(2021, 6, 1, tzinfo=UTC), datetime(2023, 10, 1, tzinfo=UTC)
    assert _window("What did Caroline do last August?", start, end) == _buffered(date(2023, 8, 1), date(2023, 8, 31))
    asked = datetime(2023, 3, 1, tzinfo=UTC)
    assert _window("What did Caroline do last August?", start, end, question_date=asked) == _buffered(
        date(2022, 8, 1), date(2022, 8, 31)
    )


def test_question_date_grounds_relative_expressions() -> None:
    start, end = datetime(2023, 3, 4, tzinfo=UTC), datetime(2023, 5, 27, tzinfo=UTC)
    asked = datetime(2023, 5, 30, 23, 40, tzinfo=UTC)  # LongMemEval-style question date after the history
    assert _window("What did I buy last month?", start, end, question_date=asked) == _buffered(
        date(2023, 4, 1), date(2023, 4, 30)
    )
    assert _window("What did I buy this month?", start, end, question_date=asked) == (
        date(2023, 4, 26), date(2023, 6, 1)  # May, widened, clipped to the history's end + 5 days
    )


def test_open_windows_close_at_the_history_edges() -> None:
    low, high = history_window(START, END)
    assert _window("What did Caroline do since October 2023?") == (date(2023, 9, 26), high.date())
    assert _window("What did Caroline do before July 2023?") == (low.date(), date(2023, 7, 5))
    assert _window("What did Caroline do after September 2023?") == (date(2023, 9, 26), high.date())


def test_plans_open_the_window_back_to_the_start() -> None:
    # Plans for the summer are told before the summer: the window reaches back to the history's start.
    low, _ = history_window(START, END)
    assert _window("What are Caroline's plans for the summer?") == (low.date(), date(2023, 9, 5))
    assert _window("Will Melanie go camping in August 2023?") == (low.date(), date(2023, 9, 5))


def test_need_and_expressions() -> None:
    frame = induce_frame("What did Caroline paint last August?", START, END, PEOPLE)
    assert frame.need == "What did Caroline paint?"
    assert frame.expressions == ("last August",)
    frame = induce_frame("In May 2023, what did Melanie paint?", START, END, PEOPLE)
    assert frame.expressions == ("In May 2023",) and frame.need == "what did Melanie paint?"
    frame = induce_frame("What did Caroline do in 2019?", START, END, PEOPLE)
    assert frame.expressions == () and frame.need == "What did Caroline do in 2019?"


@pytest.mark.parametrize(
    "question, people",
    [
        ("What did Caroline paint?", ("Caroline",)),
        ("What did caroline's kids paint?", ("Caroline",)),
        ("What did CAROLINE and Melanie paint?", ("Caroline", "Melanie")),
        ("What did Melanie tell Caroline?", ("Melanie", "Caroline")),
        ("Where did Mel go?", ()),  # a nickname is not a known name
        ("What did the kids paint?", ()),
    ],
)
def test_people(question: str, people: tuple[str, ...]) -> None:
    assert induce_frame(question, START, END, PEOPLE).people == people


def test_people_full_names_and_word_names() -> None:
    known = ["Caroline Smith", "Will Turner", "June", "Melanie"]
    assert induce_frame("What did Caroline's sister say?", START, END, known).people == ("Caroline Smith",)
    assert induce_frame("What did Will Turner say to June?", START, END, known).people == ("Will Turner", "June")
    assert induce_frame("Will Caroline go there in June?", START, END, known).people == ("Caroline Smith",)
    assert induce_frame("What will melanie do?", START, END, known).people == ("Melanie",)


@pytest.mark.parametrize(
    "question, relation, reference",
    [
        ("What did Melanie do after the appointment?", "after", "the appointment"),
        ("What did Caroline do before she moved to Sweden?", "before", "she moved to Sweden"),
        ("How did Melanie feel after the accident?", "after", "the accident"),
        ("What has Caroline painted since her divorce?", "after", "her divorce"),
        ("What did Jon do prior to opening the studio?", "before", "opening the studio"),
        ("When did Melanie go on a hike after the roadtrip?", "after", "the roadtrip"),
        ("Who did Caroline look after?", None, None),
        ("Has Caroline ever painted a sunset before?", None, None),
        ("Since Caroline likes art, what would she enjoy?", None, None),
        ("What happened the week before June 9, 2023?", None, None),
        ("What did Caroline do after September 2023?", None, None),  # a time, not an event
    ],
)
def test_relations(question: str, relation: str | None, reference: str | None) -> None:
    frame = induce_frame(question, START, END, PEOPLE)
    assert (frame.relation, frame.reference) == (relation, reference)
    if relation is not None:
        assert frame.expressions[0].startswith(("after", "before", "since", "prior"))
        assert reference not in frame.need


def test_inputs_are_validated() -> None:
    with pytest.raises(InvalidRecordError):
        induce_frame("What?", END, START, PEOPLE)
    with pytest.raises(InvalidRecordError):
        induce_frame("What?", "2023-01-01", END, PEOPLE)  # type: ignore[arg-type]
    naive = induce_frame("What did Caroline do in August 2023?", START.replace(tzinfo=None), END.replace(tzinfo=None), PEOPLE)
    assert naive.start is not None and naive.start.tzinfo is UTC


# --------------------------------------------------------------------------------------------------
# Properties.
# --------------------------------------------------------------------------------------------------

_history = st.tuples(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2080, 1, 1)),
    st.integers(min_value=0, max_value=900),
).map(lambda pair: (pair[0].replace(tzinfo=UTC), pair[0].replace(tzinfo=UTC) + timedelta(days=pair[1])))


def _check(frame, start: datetime, end: datetime) -> None:
    if frame.confident:
        assert frame.start is not None and frame.end is not None
        assert frame.start <= frame.end
        low, high = history_window(start, end)
        assert low <= frame.start and frame.end <= high
        assert frame.expressions
    else:
        assert frame.start is None and frame.end is None
    assert isinstance(frame.need, str)
    assert set(frame.people) <= set(PEOPLE)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=150), _history)
def test_never_crashes_on_arbitrary_text(question: str, history: tuple[datetime, datetime]) -> None:
    start, end = history
    _check(induce_frame(question, start, end, PEOPLE), start, end)


_FRAME_PHRASES = st.sampled_from(
    ["in May", "last August", "in the summer of 2022", "the week before June 9, 2023", "on 8 May", "in 2023",
     "last year", "this month", "last weekend", "two weeks ago", "between June and August", "since March 2021",
     "before July 2020", "in early September", "during the first week of August", "in the fall", "next winter",
     "after the appointment", "in December 2019", "last week", "the Friday before 15 July 2023", "in winter"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(["What did Caroline do", "What did melanie buy", "Where did Caroline's kids go", "Why did they meet",
                     "When did Melanie paint", "How long did Caroline stay"]),
    st.lists(_FRAME_PHRASES, min_size=1, max_size=3),
    _history,
    st.one_of(st.none(), st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2085, 1, 1))),
)
def test_frame_phrases_stay_inside_the_history(
    head: str, phrases: list[str], history: tuple[datetime, datetime], asked: datetime | None
) -> None:
    start, end = history
    question = f"{head} {' and '.join(phrases)}?"
    frame = induce_frame(question, start, end, PEOPLE, question_date=asked)
    _check(frame, start, end)
    if head.startswith(("When", "How long")) and frame.confident:
        # A "When" question is framed only by fixed calendar phrases.
        assert all(not p.startswith(("last", "this", "next")) for p in frame.expressions), frame.expressions


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1995, max_value=2075), st.integers(min_value=1, max_value=12), _history)
def test_explicit_month_and_year_is_confident_exactly_when_it_meets_the_history(
    year: int, month: int, history: tuple[datetime, datetime]
) -> None:
    start, end = history
    name = datetime(2000, month, 1).strftime("%B")
    frame = induce_frame(f"What did Caroline do in {name} {year}?", start, end, PEOPLE)
    first = datetime(year, month, 1, tzinfo=UTC)
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(seconds=1)
    low, high = history_window(start, end)
    # The month must itself fall within the buffered history (by date); the buffer is not applied twice.
    meets = first.date() <= high.date() and last.date() >= low.date()
    assert frame.confident == meets
    if meets:
        assert frame.start == max(first - FRAME_BUFFER, low)
        assert frame.end.date() == min(last + FRAME_BUFFER, high).date()  # type: ignore[union-attr]


# --------------------------------------------------------------------------------------------------
# LoCoMo dev: measured, not tuned on.
# --------------------------------------------------------------------------------------------------


def test_locomo_dev_frames() -> None:
    """Category-2 questions ask "When/How long": only those with a fixed calendar phrase ("in June") get a
    frame; every frame that fires on the dev questions contains the sessions of its gold evidence."""
    framed = category2 = 0
    for name in ("conv-26.json", "conv-30.json"):
        conv = locomo_dev.conversation(name.removesuffix(".json"))
        first, last = conv.sessions[0].started_at, conv.sessions[-1].started_at
        session_of = {t.id: s for s in conv.sessions for t in s.turns}
        for qa in conv.qa:
            frame = induce_frame(qa.question, first, last, conv.speakers)
            if qa.category == 2:
                category2 += 1
                assert not frame.confident or frame.expressions, qa.question
            if frame.confident:
                framed += 1
                for turn_id in qa.evidence:
                    assert frame.start <= session_of[turn_id].started_at <= frame.end, qa.question  # type: ignore[operator]
            assert set(frame.people) <= set(conv.speakers)
    assert category2 == 63
    assert framed == 15  # 11 non-temporal questions + 4 "When ... in June/July/August/the summer"
