"""Episodic context of turns: the time grammar (pure) and the spaCy-based extractor."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import locomo_dev
from graphmem.errors import InvalidRecordError
from graphmem.records import Turn
from graphmem.timeexpr.ground import find_time_expressions, ground_mention
from graphmem.timeexpr.parse import parse_time_mentions
from graphmem.write.context import ContextExtractor, TurnContext

MON_8_MAY_2023 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # LoCoMo conv-26, session 1 (a Monday)


def _days(text: str, reference: datetime = MON_8_MAY_2023, tense: str = "past") -> list[tuple[str, date, date]]:
    return [(m.text, w[0].date(), w[1].date()) for m, w in find_time_expressions(text, reference, tense) if w]


# --------------------------------------------------------------------------------------------------
# Grammar: grounding against the session date.
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, surface, first, last",
    [
        ("I went to a support group yesterday.", "yesterday", date(2023, 5, 7), date(2023, 5, 7)),
        ("I ran a charity race last Saturday.", "last Saturday", date(2023, 5, 6), date(2023, 5, 6)),
        ("We moved two weeks ago.", "two weeks ago", date(2023, 4, 24), date(2023, 4, 30)),
        ("I painted it in 2022.", "in 2022", date(2022, 1, 1), date(2022, 12, 31)),
        ("We went camping a few days ago.", "a few days ago", date(2023, 5, 3), date(2023, 5, 6)),
        ("The talk was last week.", "last week", date(2023, 5, 1), date(2023, 5, 7)),
        ("We hiked last weekend.", "last weekend", date(2023, 5, 6), date(2023, 5, 7)),
        ("I started last month.", "last month", date(2023, 4, 1), date(2023, 4, 30)),
        ("I painted that lake sunrise last year!", "last year", date(2022, 1, 1), date(2022, 12, 31)),
        ("I'm going to the conference next month.", "next month", date(2023, 6, 1), date(2023, 6, 30)),
        ("We fly out tomorrow.", "tomorrow", date(2023, 5, 9), date(2023, 5, 9)),
        ("We'll go to the beach this summer.", "this summer", date(2023, 6, 1), date(2023, 8, 31)),
        ("Last night I cooked.", "Last night", date(2023, 5, 7), date(2023, 5, 7)),
        ("I went there three months ago.", "three months ago", date(2023, 2, 1), date(2023, 2, 28)),
        ("It was ten years ago.", "ten years ago", date(2013, 1, 1), date(2013, 12, 31)),
        ("I joined a group last Tues.", "last Tues.", date(2023, 5, 2), date(2023, 5, 2)),
        ("We met last August.", "last August", date(2022, 8, 1), date(2022, 8, 31)),
        ("It was in the summer of 2021.", "in the summer of 2021", date(2021, 6, 1), date(2021, 8, 31)),
        ("They married in the winter of 2020.", "in the winter of 2020", date(2020, 12, 1), date(2021, 2, 28)),
        ("We met on 3 May, 2023.", "on 3 May, 2023", date(2023, 5, 3), date(2023, 5, 3)),
        ("We met on March 3rd.", "on March 3rd", date(2023, 3, 3), date(2023, 3, 3)),
        ("We met on the 5th of April 2019.", "5th of April 2019", date(2019, 4, 5), date(2019, 4, 5)),
        ("It was Sept. 3rd, 2021.", "Sept. 3rd, 2021", date(2021, 9, 3), date(2021, 9, 3)),
        ("Dated 2023-04-30.", "2023-04-30", date(2023, 4, 30), date(2023, 4, 30)),
        ("Dated 4/30/2023.", "4/30/2023", date(2023, 4, 30), date(2023, 4, 30)),
        ("It started in early April.", "in early April", date(2023, 4, 1), date(2023, 4, 10)),
        ("It ended at the end of 2021.", "the end of 2021", date(2021, 9, 1), date(2021, 12, 31)),
        ("It was mid-2020.", "mid-2020", date(2020, 5, 1), date(2020, 8, 31)),
        ("It was in late summer 2020.", "in late summer 2020", date(2020, 8, 1), date(2020, 8, 31)),
        ("It was in mid June 2020.", "in mid June 2020", date(2020, 6, 11), date(2020, 6, 20)),
        ("I was busy during the first week of April.", "during the first week of April", date(2023, 4, 1), date(2023, 4, 7)),
        ("It was the week before June 9, 2023.", "the week before June 9, 2023", date(2023, 5, 29), date(2023, 6, 4)),
        ("It was the Friday before 15 July 2023.", "the Friday before 15 July 2023", date(2023, 7, 14), date(2023, 7, 14)),
        ("We went two weekends before 17 July 2023.", "two weekends before 17 July 2023", date(2023, 7, 8), date(2023, 7, 9)),
        ("It was the week of 23 August 2023.", "the week of 23 August 2023", date(2023, 8, 21), date(2023, 8, 27)),
        ("I lived there from 2019 to 2021.", "from 2019 to 2021", date(2019, 1, 1), date(2021, 12, 31)),
        ("I travel between June 1 and June 5.", "between June 1 and June 5", date(2022, 6, 1), date(2022, 6, 5)),
        ("The past week was hard.", "The past week", date(2023, 5, 1), date(2023, 5, 8)),
        ("I saw her the other day.", "the other day", date(2023, 5, 1), date(2023, 5, 7)),
    ],
)
def test_grounding_against_the_session_date(text: str, surface: str, first: date, last: date) -> None:
    assert (surface, first, last) in _days(text)


def test_tense_chooses_the_occurrence() -> None:
    # Monday 8 May 2023: "on Friday" is 5 May in a past sentence and 12 May in a future one.
    assert _days("on Friday", tense="past") == [("on Friday", date(2023, 5, 5), date(2023, 5, 5))]
    assert _days("on Friday", tense="future") == [("on Friday", date(2023, 5, 12), date(2023, 5, 12))]
    assert _days("in December", tense="past")[0][1] == date(2022, 12, 1)
    assert _days("in December", tense="future")[0][1] == date(2023, 12, 1)
    # "last weekend" said on a Sunday is the weekend before, not the one in progress.
    sunday = datetime(2023, 5, 14, 10, 0, tzinfo=UTC)
    assert _days("last weekend", sunday) == [("last weekend", date(2023, 5, 6), date(2023, 5, 7))]
    assert _days("over the weekend", sunday) == [("over the weekend", date(2023, 5, 13), date(2023, 5, 14))]


@pytest.mark.parametrize(
    "text",
    [
        "May I come along?",
        "You may go now, and the top 3 may be enough.",
        "June said hi to April.",
        "I wrote 2000 words and ran 2022 steps.",
        "It cost $2019.",
        "Wait a second, I fall asleep at summer camp.",
        "My office hours are 9-5.",
        "We march together.",
        "She was born in a sunny town.",
        "Hi Mel! Good to see you!",
    ],
)
def test_no_false_time_mentions(text: str) -> None:
    assert parse_time_mentions(text) == []


def test_mentions_keep_surface_and_bounds() -> None:
    [since] = parse_time_mentions("I have been painting since 2016.")
    assert (since.text, since.bound, since.unit) == ("since 2016", "since", "year")
    vague = parse_time_mentions("Recently I go there on Saturdays.")
    assert [(m.text, m.unit) for m in vague] == [("Recently", "vague"), ("on Saturdays", "vague")]
    assert all(ground_mention(m, MON_8_MAY_2023) is None for m in vague)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120), st.datetimes(min_value=datetime(1900, 3, 1), max_value=datetime(2099, 10, 1)),
       st.sampled_from(["past", "future", "neutral"]))
def test_grammar_never_crashes_and_windows_are_ordered(text: str, reference: datetime, tense: str) -> None:
    for mention, window in find_time_expressions(text, reference, tense):
        assert text[mention.start_char: mention.end_char] == mention.text
        if window is not None:
            assert window[0] <= window[1]
            assert window[0].tzinfo is UTC and window[1].tzinfo is UTC


def test_offsets_hold_far_into_long_texts() -> None:
    text = "word " * 400 + "I have painted since 2016, two weekends before 17 July 2023 and from May to July 2023."
    mentions = parse_time_mentions(text)
    assert [m.text for m in mentions] == ["since 2016", "two weekends before 17 July 2023", "from May to July 2023"]
    assert all(text[m.start_char: m.end_char] == m.text for m in mentions)


def test_long_texts_parse_in_linear_time() -> None:
    import random
    import time

    rng = random.Random(7)
    words = ["in", "on", "the", "last", "May", "June", "2023", "summer", "week", "before", "after", "since", "of", ",", "Friday", "between", "and", "to", "from", "ago", "two"]
    text = " ".join(rng.choice(words) for _ in range(10_000))  # about 45,000 characters, dense with cues
    started = time.perf_counter()
    mentions = parse_time_mentions(text)
    assert time.perf_counter() - started < 10  # about 0.4 s; a quadratic scan took over 20 s
    assert mentions and all(text[m.start_char: m.end_char] == m.text for m in mentions)


_PHRASES = st.sampled_from(
    ["yesterday", "last Saturday", "two weeks ago", "in 2022", "last week", "last weekend", "a few days ago",
     "last month", "last year", "this summer", "next month", "tomorrow", "in May", "on 8 May", "last August",
     "the week before June 9, 2023", "since 2016", "from May to July 2023", "in early June", "next Friday",
     "the other day", "this past weekend", "in the fall", "three years ago", "the day before yesterday"]
)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" abcdefgIMSTWy,.", max_size=20), _PHRASES, st.text(alphabet=" abcdefg,.!?", max_size=20),
       st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 1, 1)))
def test_known_phrases_ground_anywhere_in_text(prefix: str, phrase: str, suffix: str, reference: datetime) -> None:
    text = f"{prefix} {phrase} {suffix}"
    grounded = [(m, w) for m, w in find_time_expressions(text, reference, "past") if w is not None]
    assert any(phrase.lower() in m.text.lower() for m, _ in grounded)
    for _, (start, end) in grounded:
        assert start <= end


# --------------------------------------------------------------------------------------------------
# ContextExtractor (spaCy)
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def extractor() -> ContextExtractor:
    return ContextExtractor()


SPEAKERS = ["Caroline", "Melanie"]


def _one(extractor: ContextExtractor, text: str, speaker: str = "Caroline", caption: str | None = None,
         when: datetime = MON_8_MAY_2023) -> TurnContext:
    [ctx] = extractor.extract([Turn("D1:1", speaker, text, caption)], when, SPEAKERS)
    return ctx


def test_yesterday_grounds_to_the_day_before_the_session(extractor: ContextExtractor) -> None:
    ctx = _one(extractor, "I went to a LGBTQ support group yesterday and it was so powerful.")
    assert ctx.event_start == datetime(2023, 5, 7, tzinfo=UTC)
    assert ctx.event_end == datetime(2023, 5, 7, 23, 59, 59, tzinfo=UTC)
    assert ctx.mentioned_times == ("yesterday",)
    assert "lgbtq support group" in ctx.entities
    assert {"support", "group", "powerful"} <= set(ctx.keywords)
    assert ctx.participants == ("Caroline",)


@pytest.mark.parametrize(
    "text, first, last",
    [
        ("I ran a charity race for mental health last Saturday.", date(2023, 5, 6), date(2023, 5, 6)),
        ("We moved into the new house two weeks ago.", date(2023, 4, 24), date(2023, 4, 30)),
        ("I painted that sunrise in 2022.", date(2022, 1, 1), date(2022, 12, 31)),
        ("I've been painting since 2016.", date(2016, 1, 1), date(2023, 5, 8)),
        ("I'm going to the transgender conference next month.", date(2023, 6, 1), date(2023, 6, 30)),
        ("I'll see the doctor on Friday.", date(2023, 5, 12), date(2023, 5, 12)),
        ("I saw the doctor on Friday.", date(2023, 5, 5), date(2023, 5, 5)),
        # The most specific time wins: the weekend, not the year.
        ("Last weekend we went camping, the first time since 2019.", date(2023, 5, 6), date(2023, 5, 7)),
    ],
)
def test_event_time_of_reported_events(extractor: ContextExtractor, text: str, first: date, last: date) -> None:
    ctx = _one(extractor, text)
    assert (ctx.event_start.date(), ctx.event_end.date()) == (first, last)  # type: ignore[union-attr]


SAT_2_MAR_2024 = datetime(2024, 3, 2, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text, first, last",
    [
        # Arranged in the past, for the nearest June: the one ahead, not June 2023.
        ("I signed up for the half marathon in June!", date(2024, 6, 1), date(2024, 6, 30)),
        ("We registered for a pottery class in July.", date(2024, 7, 1), date(2024, 7, 31)),
        ("I booked a cabin for the summer.", date(2024, 6, 1), date(2024, 8, 31)),
        # A past verb of doing still dates the month behind the session.
        ("I ran the half marathon in June.", date(2023, 6, 1), date(2023, 6, 30)),
        ("I signed the lease in June.", date(2023, 6, 1), date(2023, 6, 30)),
    ],
)
def test_a_bare_month_said_with_a_verb_of_arranging_is_the_nearest(
    extractor: ContextExtractor, text: str, first: date, last: date
) -> None:
    ctx = _one(extractor, text, when=SAT_2_MAR_2024)
    assert (ctx.event_start.date(), ctx.event_end.date()) == (first, last)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "Wow, love that painting! So cool you found such a helpful group.",
        "I have been looking into counseling lately.",  # a time word, but no when
        "I moved here before 2020.",  # says when it did not happen, not when it did
        "My office is open 9-5 and I've had these friends for 4 years.",
    ],
)
def test_no_event_time_when_the_turn_does_not_say_when(extractor: ContextExtractor, text: str) -> None:
    ctx = _one(extractor, text)
    assert ctx.event_start is None and ctx.event_end is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Oh no, is Pepper ok?", "Pepper"),  # the small model's PERSON span runs on: "Pepper ok?"
        ("Did you hear from Mary Ann?", "Mary Ann"),
    ],
)
def test_a_mentioned_person_is_the_leading_capitalized_words(extractor: ContextExtractor, text: str, expected: str) -> None:
    ctx = _one(extractor, text, speaker="Leo")
    others = [p for p in ctx.participants if p != "Leo"]
    assert all(all(word[:1].isupper() for word in p.split()) for p in others), others
    assert not any(p.endswith(("?", "!", ".")) for p in others)
    assert expected in others


def test_participants_speaker_first_then_named_people(extractor: ContextExtractor) -> None:
    ctx = _one(extractor, "Hey Mel! I met Jessica and her brother Tom at the park with Caroline's mentor.", speaker="Caroline")
    assert ctx.participants[0] == "Caroline"
    assert "Melanie" in ctx.participants  # "Mel" is a short form of a known speaker
    assert {"Jessica", "Tom"} <= set(ctx.participants)
    assert len(ctx.participants) == len(set(ctx.participants))


def test_entities_locations_and_keywords(extractor: ContextExtractor) -> None:
    ctx = _one(extractor, "This necklace is a gift from my grandma in my home country, Sweden. We visited Paris in July.")
    assert "Sweden" in ctx.locations and "Paris" in ctx.locations
    assert "necklace" in ctx.entities and "home country" in ctx.entities
    assert not {"i", "my", "we", "this", "it"} & set(ctx.entities)
    assert all(e == e.lower() for e in ctx.entities)
    assert {"necklace", "gift", "grandma", "visit"} <= set(ctx.keywords)
    assert "in July" in ctx.mentioned_times


def test_image_caption_feeds_entities_not_time(extractor: ContextExtractor) -> None:
    ctx = _one(extractor, "Look at this!", caption="a photo of a dog walking past a wall with a painting of a woman")
    assert {"dog", "wall", "painting", "woman"} <= set(ctx.entities)
    assert "dog" in ctx.keywords
    assert ctx.event_start is None


def test_extract_batches_and_validates(extractor: ContextExtractor) -> None:
    turns = [Turn(f"D1:{i}", "Caroline" if i % 2 else "Melanie", f"Message {i} about hiking yesterday.") for i in range(1, 8)]
    contexts = extractor.extract(turns, datetime(2023, 5, 8, 13, 56), SPEAKERS)  # naive means UTC
    assert len(contexts) == 7
    assert all(c.event_start == datetime(2023, 5, 7, tzinfo=UTC) for c in contexts)
    assert [c.participants[0] for c in contexts] == [t.speaker for t in turns]
    assert extractor.extract([], MON_8_MAY_2023, SPEAKERS) == []
    with pytest.raises(InvalidRecordError):
        extractor.extract([Turn("D1:1", "Caroline", "   ")], MON_8_MAY_2023, SPEAKERS)
    with pytest.raises(InvalidRecordError):
        extractor.extract([Turn("D1:1", "Caroline", "Hi")], "2023-05-08", SPEAKERS)  # type: ignore[arg-type]


def test_locomo_dev_session_event_times(extractor: ContextExtractor) -> None:
    """Spot checks on conv-26 against the benchmark's gold answers for these turns."""
    conv = locomo_dev.conversation("conv-26")
    contexts = {}
    for session in conv.sessions[:10]:
        for turn, ctx in zip(session.turns, extractor.extract(session.turns, session.started_at, conv.speakers)):
            contexts[turn.id] = ctx
    expected = {
        "D1:3": (date(2023, 5, 7), date(2023, 5, 7)),  # gold: 7 May 2023
        "D3:1": (date(2023, 5, 29), date(2023, 6, 4)),  # gold: the week before 9 June 2023
        "D5:4": (date(2023, 7, 2), date(2023, 7, 2)),  # gold: 2 July 2023
        "D8:9": (date(2023, 7, 14), date(2023, 7, 14)),  # gold: the Friday before 15 July 2023
        "D9:1": (date(2023, 7, 8), date(2023, 7, 9)),  # gold: two weekends before 17 July 2023
        "D10:3": (date(2023, 7, 18), date(2023, 7, 18)),  # gold: the Tuesday before 20 July 2023 ("last Tues")
    }
    for turn_id, (first, last) in expected.items():
        ctx = contexts[turn_id]
        assert (ctx.event_start.date(), ctx.event_end.date()) == (first, last), turn_id  # type: ignore[union-attr]
    assert contexts["D1:1"].event_start is None
