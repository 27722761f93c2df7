"""Validity-aware dialogue recall on a small hand-written dialogue (real MiniLM and spaCy, embedded store):
the frame's window comes first, a person-named question prefers that person's turns, a reply inherits its
question's score, evidence stays within budget with turn ids and session dates, and trace expansion
reaches a related box in a distant session. Plus the pure helpers (question analysis, trimming)."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.recall.dialogue.config import DialogueRecallConfig
from graphmem.recall.dialogue.lines import date_span, session_header, trim_turn, turn_line
from graphmem.recall.dialogue.question import analyze_question, list_question, strip_names
from graphmem.recall.dialogue.recall import recall_dialogue
from graphmem.records import Turn
from graphmem.store.protocol import TurnRow
from graphmem.store.rows import episode_row_of, read_turns
from graphmem.tokens import count_tokens

NS = "ana-ben"


def _at(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, 14, 0, tzinfo=UTC)


# Four sessions over a year; pottery comes back in sessions 1, 3 and 4, running in 1, 2 and 4.
SESSIONS = [
    ("s1", _at(2023, 3, 1), [
        ("D1:1", "Ana", "Hi Ben! Guess what, I started a pottery class last week and I love shaping clay."),
        ("D1:2", "Ben", "That's great! What did you make in the pottery class?"),
        ("D1:3", "Ana", "A small blue bowl for my kitchen. The teacher says my wheel technique is improving."),
        ("D1:4", "Ben", "By the way, I have been training for a marathon in the spring."),
        ("D1:5", "Ana", "Wow, how far do you run every week?"),
        ("D1:6", "Ben", "About forty kilometres, mostly along the river on Sunday mornings."),
    ]),
    ("s2", _at(2023, 5, 10), [
        ("D2:1", "Ben", "I finished the marathon last Sunday! My legs still hurt but I am proud."),
        ("D2:2", "Ana", "Congratulations, that is a huge achievement! How long did it take you?"),
        ("D2:3", "Ben", "Four hours and ten minutes."),
        ("D2:4", "Ana", "I went hiking in the mountains with my sister, the views were amazing."),
        ("D2:5", "Ben", "Sounds lovely. I also run in the park near my office at lunch."),
        ("D2:6", "Ana", "I sometimes run in the park too, but only short jogs."),
    ]),
    ("s3", _at(2023, 9, 20), [
        ("D3:1", "Ben", "Hey Ana, how are things? I adopted a puppy called Max last month."),
        ("D3:2", "Ana", "Oh he must be adorable! What breed is he?"),
        ("D3:3", "Ben", "A beagle. He chews everything, including my running shoes."),
        ("D3:4", "Ana", "Haha. By the way, I signed up for an advanced pottery class and made a tall vase with a glaze."),
        ("D3:5", "Ben", "You should sell your pottery at the market someday."),
    ]),
    ("s4", _at(2023, 12, 15), [
        ("D4:1", "Ana", "Happy holidays Ben! I gave my parents a set of mugs from my pottery class as a present."),
        ("D4:2", "Ben", "What a thoughtful gift! I took Max to the vet yesterday, he is healthy."),
        ("D4:3", "Ana", "Glad to hear it. Are you training for another race?"),
        ("D4:4", "Ben", "Yes, a half marathon in March next year."),
    ]),
]


@pytest.fixture(scope="module")
def memory():
    from graphmem.memory import Memory
    from graphmem.store.embedded import EmbeddedStore

    with Memory(store=EmbeddedStore()) as mem:
        for session_id, start, turns in SESSIONS:
            mem.add_session(NS, session_id, [Turn(i, speaker, text) for i, speaker, text in turns], start)
        yield mem


def recall(memory, question: str, budget: int = 300, **arguments):
    return recall_dialogue(memory.store, memory.embedder, NS, question, budget, **arguments)


def uid(key: str) -> str:
    return key.split(":", 1)[1]


# --------------------------------------------------------------------------------------------------
# Behaviour
# --------------------------------------------------------------------------------------------------


def test_frame_window_turns_come_first(memory):
    result = recall(memory, "What did Ana do in December 2023?")
    frame = result.frame
    assert frame is not None and frame.confident
    window = set(memory.store.units_in_window(NS, frame.start.timestamp(), frame.end.timestamp(), 10_000))
    assert "turn:D4:1" in window and "turn:D1:1" not in window
    tiers = [key in window for key in result.ranking]
    assert tiers == sorted(tiers, reverse=True), "a turn outside the window ranks before one inside it"
    # The packed evidence also starts with the window: its pack order is the ranking's order.
    packed = [f"turn:{i}" for i in result.evidence.source_ids]
    assert packed and packed[0] in window


def test_content_fallback_after_the_window(memory):
    # Pottery is talked about before the window too: those turns still come, after the window's turns.
    result = recall(memory, "What did Ana make in her pottery class in December 2023?", budget=2000)
    ranking = list(result.ranking)
    assert ranking.index("turn:D4:1") < ranking.index("turn:D1:1")
    assert "D1:1" in result.evidence.source_ids


@pytest.mark.parametrize("person, own, other", [("Ben", "turn:D2:5", "turn:D2:6"), ("Ana", "turn:D2:6", "turn:D2:5")])
def test_person_named_question_prefers_that_persons_turns(memory, person, own, other):
    # Both say they run in the park; the question names one of them.
    ranking = list(recall(memory, f"Where does {person} go running?").ranking)
    assert ranking.index(own) < ranking.index(other)


def test_reply_inherits_the_score_of_its_question(memory):
    # "Four hours and ten minutes." shares no word with the question; the question it answers does.
    question = "How long did the marathon take?"
    ranking = list(recall(memory, question).ranking)
    assert ranking[:2] == ["turn:D2:2", "turn:D2:3"]
    no_flow = DialogueRecallConfig(answer_share=0.0, neighbour_share=0.0)
    alone = list(recall(memory, question, config=no_flow).ranking)
    assert alone.index("turn:D2:3") > 2


@pytest.mark.parametrize("budget", [40, 80, 150, 400])
def test_evidence_within_budget_carries_turn_ids_and_session_dates(memory, budget):
    evidence = recall(memory, "How is Ana's pottery going?", budget=budget).evidence
    assert evidence.tokens <= budget and evidence.tokens == count_tokens(evidence.text)
    assert evidence.source_ids, "a budget of 40 tokens still fits a turn"
    assert [sid for sid, _ in evidence.lines] == list(evidence.source_ids)
    turn_of_line = {line: sid for sid, line in evidence.lines}
    speakers = {t[0]: t[1] for _, _, turns in SESSIONS for t in turns}
    dates = {f"{start.day} {start:%b %Y}:" for _, start, _ in SESSIONS}
    current_header = None
    seen = []
    for line in evidence.text.splitlines():
        if line in dates:
            current_header = line
            continue
        # A compact line: "speaker: text", its turn id in evidence.lines (not in the text).
        assert line in turn_of_line, f"not a packed turn line: {line!r}"
        turn_id = turn_of_line[line]
        assert re.match(rf"^{speakers[turn_id]}: \S", line) and "[D" not in line
        session = next(start for _, start, turns in SESSIONS if any(t[0] == turn_id for t in turns))
        assert current_header == f"{session.day} {session:%b %Y}:", "a turn under another session's date"
        seen.append(turn_id)
    assert sorted(seen) == sorted(evidence.source_ids)


def test_trace_expansion_reaches_a_related_box_in_a_distant_session(memory):
    # The pottery boxes of sessions 1, 3 and 4 share a trace.
    store = memory.store
    related = store.trace_boxes(NS, ["box:s1#b0"])["box:s1#b0"]
    assert "box:s4#b0" in related
    # Narrow every other channel to the single best hit, as in a long history where the December box is
    # far down both lists: only the trace can bring it in.
    narrow = DialogueRecallConfig(turn_depth=1, dense_depth=1, box_depth=1, box_members=1)
    question = "What did Ana shape from clay at the pottery wheel?"
    without = recall(memory, question, use_traces=False, config=narrow).ranking
    with_traces = recall(memory, question, use_traces=True, config=narrow).ranking
    assert "turn:D4:1" not in without
    assert "turn:D4:1" in with_traces


def test_the_episode_keeps_the_history_range_and_each_turn_its_box(memory):
    store = memory.store
    (episode,) = [e for e in store.episode_nodes(NS) if e.kind == "dialogue"]
    assert episode.first_session_start == SESSIONS[0][1].timestamp()
    assert episode.last_session_end == SESSIONS[-1][1].timestamp()  # no explicit end: its start
    turn_keys = [f"turn:{t[0]}" for _, _, turns in SESSIONS for t in turns]
    turns = read_turns(store, NS, turn_keys)
    assert {k: t.box for k, t in turns.items()} == store.boxes_of(NS, turn_keys)
    # The longest session and event time, which bound recall's window reads: exactly the stored maxima.
    sessions = store.sessions(NS)
    assert episode.longest_session is not None and episode.longest_session == max(s.end - s.start for s in sessions) > 0
    spans = [t.event_end - t.event_start for t in turns.values() if t.event_start is not None and t.event_end is not None]
    assert spans and episode.longest_event == max(spans)


def test_no_history_gives_empty_evidence():
    from graphmem.embed import default_embedder
    from graphmem.store.embedded import EmbeddedStore

    result = recall_dialogue(EmbeddedStore(), default_embedder(), "nobody", "What happened?", 100)
    assert result.evidence.source_ids == () and result.evidence.tokens == 0


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def test_analyze_question_drops_names_and_function_words_and_adds_lemmas():
    query = analyze_question("What has Melanie's daughter painted?", ("Melanie", "Caroline"))
    assert "paint" in query.lexical and "painted" in query.lexical and "daughter" in query.lexical
    assert not {"what", "has", "melanie", "melanie's", "s"} & set(query.lexical)
    assert query.dense == "What has daughter painted?"


def test_analyze_question_drops_a_classifier_before_of():
    # "kind" in "What kind of art" would meet every "your kind words"; the content is the art.
    assert analyze_question("What kind of art does Caroline make?", ("Caroline",)).lexical == ("art", "make")
    assert "types" not in analyze_question("What types of pottery has Melanie made?", ("Melanie",)).lexical
    assert "sort" not in analyze_question("What sort of music does Jon like?", ("Jon",)).lexical
    # Not a classifier without "of": the adjective stays.
    assert analyze_question("Is Caroline kind to her neighbours?", ("Caroline",)).lexical[0] == "kind"


def test_analyze_question_also_searches_the_ing_form_of_its_verbs():
    query = analyze_question("Where has Melanie camped?", ("Melanie",))
    assert query.gerunds == ("camping",)  # "a pic of my family camping at the beach"
    assert "camping" not in query.lexical  # trimming keeps to the question's own words
    assert analyze_question("Which books did Melanie buy?", ("Melanie",)).gerunds == ("buying",)  # nouns: none


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("What books has Melanie read?", True),
        ("Which cities has Jon visited?", True),
        ("In what ways is Caroline helping?", True),
        ("How many times has she gone to the beach?", True),
        ("What are Melanie's pets' names?", True),
        ("Where has Melanie camped?", True),
        ("Did Jon and Gina both dance?", True),
        ("What do Jon and Gina have in common?", True),
        ("What did Melanie read yesterday?", False),
        ("What book did Caroline recommend?", False),
        ("How long have Mel and her husband been married?", False),
        ("What does Gina say the studio that Jon has opened looks like?", False),
    ],
)
def test_list_question_is_told_by_its_form(question, wanted):
    assert list_question(question) is wanted


def test_strip_names_keeps_a_question_made_only_of_a_name():
    assert strip_names("Caroline?", ["Caroline"]) == "Caroline?"
    assert strip_names("Did Mel and Caroline meet?", ["Caroline Smith"]) == "Did Mel and meet?"


def test_trim_keeps_matching_sentences_and_marks_inner_cuts():
    text = ("Thanks, Caroline! It was a busy week at work. We finally painted the kitchen wall blue. "
            "The kids helped a lot.")
    trimmed, cut = trim_turn(text, "a photo of a blue wall", ["paint", "wall"], frozenset({"caroline"}))
    # What goes before and after the kept sentences is left out silently; the caption matches "wall".
    assert cut
    assert trimmed == "We finally painted the kitchen wall blue. [photo: a blue wall]"
    text = "We painted the wall on Monday. It was a long and busy week at work for both of us. The paint was blue."
    trimmed, cut = trim_turn(text, None, ["paint"])
    assert cut and trimmed == "We painted the wall on Monday. … The paint was blue."


def test_trim_leaves_short_turns_and_unmatched_content_alone():
    short = "I painted it blue."
    assert trim_turn(short, None, ["paint"]) == (short, False)
    # No sentence matches: reactions go, the most contentful sentence stays.
    text = "Wow, Mel! That's awesome! I gave my parents a set of mugs from my pottery class as a present."
    trimmed, cut = trim_turn(text, None, ["vacation"], frozenset({"mel"}))
    assert cut and trimmed == "I gave my parents a set of mugs from my pottery class as a present."
    # Only reactions, none matching: the line still says the turn said something.
    reactions = "Wow, Mel! That is so awesome! Thanks so much, Mel! Wow, that is amazing, really amazing!"
    assert trim_turn(reactions, None, ["vacation"], frozenset({"mel"})) == ("…", True)


def test_trim_keeps_a_caption_only_where_the_question_reaches_the_turn():
    # The text matches: its picture stays, even when the caption shares no word with the question.
    assert trim_turn("Here is my new painting!", "a photo of a sunset over a lake", ["paint"]) == (
        "Here is my new painting! [photo: a sunset over a lake]", False)
    # The caption matches: it stays.
    assert trim_turn("Look at this!", "a photo of a painting of a horse", ["paint"]) == (
        "Look at this! [photo: a painting of a horse]", False)
    # Neither matches: the caption goes (the question did not reach this turn by its words).
    assert trim_turn("Look at this!", "a photo of a dog", ["paint"]) == ("Look at this!", True)
    # No lexical terms to judge by: the turn is written whole.
    assert trim_turn("Look at this!", "a photo of a dog", []) == ("Look at this! [photo: a dog]", False)


_MONTHS = {f"{datetime(2000, m, 1):%b}": m for m in range(1, 13)}


def _parse_span(text: str) -> tuple[date, date]:
    """The inverse of ``date_span``, written from its formats' description alone."""
    if re.fullmatch(r"\d{4}", text):
        return date(int(text), 1, 1), date(int(text), 12, 31)
    if m := re.fullmatch(r"(\w{3}) (\d{4})", text):
        first = date(int(m[2]), _MONTHS[m[1]], 1)
        return first, (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
    if m := re.fullmatch(r"(\d+) (\w{3}) (\d{4})", text):
        day = date(int(m[3]), _MONTHS[m[2]], int(m[1]))
        return day, day
    if m := re.fullmatch(r"(\d+)-(\d+) (\w{3}) (\d{4})", text):
        return date(int(m[4]), _MONTHS[m[3]], int(m[1])), date(int(m[4]), _MONTHS[m[3]], int(m[2]))
    if m := re.fullmatch(r"(\d+) (\w{3}) to (\d+) (\w{3}) (\d{4})", text):
        return date(int(m[5]), _MONTHS[m[2]], int(m[1])), date(int(m[5]), _MONTHS[m[4]], int(m[3]))
    m = re.fullmatch(r"(\d+) (\w{3}) (\d{4}) to (\d+) (\w{3}) (\d{4})", text)
    assert m, f"not a date span: {text!r}"
    return date(int(m[3]), _MONTHS[m[2]], int(m[1])), date(int(m[6]), _MONTHS[m[5]], int(m[4]))


@given(first=st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31)), days=st.integers(0, 800),
       hour=st.integers(0, 23))
def test_date_span_says_exactly_its_days(first, days, hour):
    last = first + timedelta(days=days)
    start = datetime(first.year, first.month, first.day, hour, tzinfo=UTC).timestamp()
    end = datetime(last.year, last.month, last.day, 23 - hour, tzinfo=UTC).timestamp()
    text = date_span(start, end)
    assert _parse_span(text) == (first, last)
    assert len(text) <= len(f"{first.day} {first:%b %Y} to {last.day} {last:%b %Y}")


def test_turn_line_has_speaker_and_event_time_and_the_full_line_its_id():
    turn = TurnRow("turn:D2:1", "D2:1", "Ben", "I finished the marathon last Sunday!",
                   event_start=_at(2023, 5, 7).timestamp(), event_end=_at(2023, 5, 7).timestamp())
    assert turn_line(turn) == "Ben: I finished the marathon last Sunday! (event 7 May 2023)"
    assert turn_line(turn, topic="marathon") == "[D2:1] Ben (topic: marathon): I finished the marathon last Sunday! (event 7 May 2023)"
    assert session_header(_at(2023, 5, 10).timestamp()) == "10 May 2023:"
    week = dataclasses.replace(turn, event_start=_at(2023, 4, 24).timestamp(), event_end=_at(2023, 4, 30).timestamp())
    assert turn_line(week).endswith("(event 24-30 Apr 2023)")
    month = dataclasses.replace(turn, event_start=_at(2023, 4, 1).timestamp(), event_end=_at(2023, 4, 30).timestamp())
    assert turn_line(month).endswith("(event Apr 2023)")


# --------------------------------------------------------------------------------------------------
# The writer's trace-event cache
# --------------------------------------------------------------------------------------------------


def _write(store, embedder, sessions, writers: str) -> None:
    """Write ``sessions`` into ``store``; ``writers[i]`` names the Memory that writes session i."""
    from graphmem.memory import Memory

    memories: dict[str, Memory] = {}
    for who, (session_id, start, turns) in zip(writers, sessions):
        if who not in memories:
            memories[who] = Memory(store=store, embedder=embedder)
        memories[who].add_session(NS, session_id, [Turn(i, speaker, text) for i, speaker, text in turns], start)


def _traces_and_boxes(store) -> tuple[list[tuple[str, str, str, str]], dict[str, dict[str, object]]]:
    rows = [(r.key, r.box, r.trace, r.text) for r in store.trace_events(NS)]
    boxes = store.get_nodes(NS, [f"box:{s}#b{i}" for s, _, _ in SESSIONS for i in range(6)])
    return rows, {k: {p: v for p, v in props.items() if p != "embedding"} for k, props in boxes.items()}


@pytest.mark.parametrize("writers", ["AAAA", "AABA", "ABAB"])
def test_cached_trace_events_weave_exactly_like_a_fresh_read(memory, writers):
    # "ABCD": a fresh writer per session reads every trace event from the store. One writer keeps them
    # between sessions; when another writer adds boxes in between, the first must notice and re-read.
    from graphmem.store.embedded import EmbeddedStore

    fresh, cached = EmbeddedStore(), EmbeddedStore()
    _write(fresh, memory.embedder, SESSIONS, "ABCD")
    _write(cached, memory.embedder, SESSIONS, writers)
    expected = _traces_and_boxes(fresh)
    assert len({trace for _, _, trace, _ in expected[0]}) < len(expected[0]), "some trace links two events"
    assert _traces_and_boxes(cached) == expected


# --------------------------------------------------------------------------------------------------
# Full context serialization
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [60, 300])
def test_full_context_writes_session_intervals_and_topics(memory, budget):
    question = "How is Ana's pottery going?"
    compact = recall(memory, question, budget=budget)
    full = recall(memory, question, budget=budget, context="full")
    assert compact.evidence == recall(memory, question, budget=budget, context="compact").evidence
    assert full.ranking == compact.ranking
    assert full.evidence.tokens <= budget and full.evidence.tokens == count_tokens(full.evidence.text)
    boxes = memory.store.boxes_of(NS, [f"turn:{i}" for i in full.evidence.source_ids])
    topics = {k: p["topic"] for k, p in memory.store.get_nodes(NS, sorted(set(boxes.values()))).items()}
    starts = [start for _, start, _ in SESSIONS]
    for line in full.evidence.text.splitlines():
        header = re.fullmatch(r"(\d+ \w+ \d{4})(?: to (\d+ \w+ \d{4}))?:", line)
        if header:
            # Every session but the last lasts until the next one starts (RaMem's interval).
            i = [f"{s.day} {s:%b %Y}" for s in starts].index(header[1])
            if i + 1 < len(starts):
                assert header[2] == f"{starts[i + 1].day} {starts[i + 1]:%b %Y}"
            else:
                assert header[2] is None
            continue
        match = re.match(r"^\[(D\d+:\d+)\] (Ana|Ben) \((?:mentions [^;]+; )?topic: ([^)]+)\): \S", line)
        assert match, f"not a full-context turn line: {line!r}"
        assert match[3] == topics[boxes[f"turn:{match[1]}"]]
    assert len(full.evidence.text) > 0 and full.evidence.source_ids


def test_unknown_context_is_a_clear_error(memory):
    with pytest.raises(ValueError, match="context must be"):
        recall(memory, "How is Ana's pottery going?", context="verbose")


def test_the_episode_keeps_upper_bounds_of_session_and_event_intervals():
    # The bounds recall's window reads trust: a session without an explicit end lasts until the next one
    # starts (its span grows then), one with an explicit end keeps it; event times keep their own span.
    import numpy as np

    from graphmem.records import Turn
    from graphmem.write.context import TurnContext
    from graphmem.write.turns import build_session_batch, dialogue_so_far, session_digest

    day = timedelta(days=1)
    base = datetime(2024, 1, 1, tzinfo=UTC)
    plan = [  # (session start, explicit end, event spans of its two turns)
        (base, None, (None, 1 * day)),
        (base + 10 * day, base + 12 * day, (7 * day, None)),
        (base + 40 * day, None, (None, None)),
    ]
    expected = [(0.0, 86400.0), (10 * 86400.0, 7 * 86400.0), (10 * 86400.0, 7 * 86400.0)]
    so_far = dialogue_so_far(None, 0)
    for i, ((start, end, spans), want) in enumerate(zip(plan, expected)):
        sid = f"s{i}"
        turns = [Turn(f"{sid}:{j}", "Ana", f"turn {j} of session {i}") for j in range(2)]
        contexts = [TurnContext((), (), (), (), start - 3 * day if span else None, start - 3 * day + span if span else None, ())
                    for span in spans]
        batch = build_session_batch("ns", "dialogue", sid, turns, start, end, contexts, np.zeros((2, 384), dtype=np.float32),
                                    [], so_far, session_digest(sid, start, end, turns), ["Ana"])
        episode = next(row for row in batch.nodes if row.label == "Episode")
        assert (episode.props["longest_session"], episode.props["longest_event"]) == want
        so_far = dialogue_so_far(episode_row_of(episode), 0)


def test_a_dialogue_without_boxes_asks_for_none(memory, monkeypatch):
    # Written with Memory(boxes=False): every dialogue episode says it holds no box, and recall does not
    # wait for a box search. The same history with boxes does search them.
    from graphmem.memory import Memory
    from graphmem.store.embedded import EmbeddedStore

    asked: list[str] = []

    def spy(store):
        inner = store.vector

        def vector(namespace, embedding, k, label="unit", with_props=False):
            asked.append(label)
            return inner(namespace, embedding, k, label=label, with_props=with_props)

        monkeypatch.setattr(store, "vector", vector)

    with Memory(store=EmbeddedStore(), embedder=memory.embedder, boxes=False) as plain:
        for session_id, start, turns in SESSIONS:
            plain.add_session(NS, session_id, [Turn(i, speaker, text) for i, speaker, text in turns], start)
        assert [e.box_count for e in plain.store.episode_nodes(NS, kind="dialogue")] == [0]
        spy(plain.store)
        result = recall_dialogue(plain.store, plain.embedder, NS, "What did Ben name his puppy?", 300)
        assert asked == ["Turn"] and "turn:D3:1" in result.ranking[:3]
    asked.clear()
    spy(memory.store)
    recall(memory, "What did Ben name his puppy?")
    assert sorted(asked) == ["Box", "Turn"]


# --------------------------------------------------------------------------------------------------
# Recall configs through Memory
# --------------------------------------------------------------------------------------------------


def test_a_memory_recalls_with_its_config_unless_a_call_gives_one(memory):
    from graphmem.memory import Memory
    from graphmem.recall.config import RecallConfig

    question = "How is Ana's pottery going?"
    full = recall(memory, question, context="full").evidence
    compact = recall(memory, question).evidence
    assert full.text != compact.text
    assert memory.recall(NS, question, config=RecallConfig(context="full")) == full
    # Not closed here: it shares the module's store.
    full_memory = Memory(store=memory.store, embedder=memory.embedder, recall_config=RecallConfig(context="full"))
    assert full_memory.recall(NS, question) == full
    assert full_memory.recall(NS, question, config=RecallConfig()) == compact == memory.recall(NS, question)


def test_search_ranks_with_the_memorys_dialogue_tuning(memory):
    from graphmem.memory import Memory
    from graphmem.recall.config import RecallConfig

    question = "How long did the marathon take?"
    no_flow = RecallConfig(dialogue=DialogueRecallConfig(answer_share=0.0, neighbour_share=0.0))
    tuned = Memory(store=memory.store, embedder=memory.embedder, recall_config=no_flow)
    assert [h.source_id for h in memory.search(NS, question, k=2)] == ["D2:2", "D2:3"]
    assert "D2:3" not in [h.source_id for h in tuned.search(NS, question, k=2)]
