"""Dialogue loaders: LoCoMo, LongMemEval and JSONL chat logs load whole or raise naming file, session, turn."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidRecordError
from graphmem.loaders.chat_jsonl import dump_chat_jsonl, load_chat_jsonl
from graphmem.loaders.dialogue import Conversation
from graphmem.loaders.locomo import load_locomo, parse_locomo_datetime, repair_evidence
from graphmem.loaders.longmemeval import load_longmemeval, parse_longmemeval_datetime
from locomo_dev import LOCOMO_DIR

REPO = Path(__file__).resolve().parents[2]
LONGMEMEVAL_SAMPLE = REPO / "tests" / "data" / "longmemeval_sample.json"


@pytest.fixture(scope="module")
def conv26() -> Conversation:
    [conv] = load_locomo(LOCOMO_DIR / "conv-26.json")
    return conv


@pytest.fixture(scope="module")
def conv26_raw() -> dict[str, Any]:
    return json.loads((LOCOMO_DIR / "conv-26.json").read_text())


def _write(tmp_path: Path, data: Any, name: str = "sample.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def _small_locomo() -> dict[str, Any]:
    """A minimal LoCoMo conversation in the dev files' layout."""
    return {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "9:05 am on 3 March, 2024",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat yesterday!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! What's her name?",
             "blip_caption": "a photo of a grey cat", "img_url": ["http://x"], "query": "cat"},
        ],
        "session_2_date_time": "12:30 pm on 10 March, 2024",
        "session_2": [{"speaker": "Ana", "dia_id": "D2:1", "text": "Her name is Miso."}],
        "qa": [
            {"question": "When did Ana adopt a cat?", "answer": "2 March 2024", "evidence": ["D1:1"], "category": 2},
            {"question": "What is the cat's name?", "answer": "Miso", "evidence": ["D2:01; D:1:2", "D9:9"], "category": 1},
            {"question": "What is Ben's dog called?", "adversarial_answer": "Rex", "evidence": [], "category": 5},
        ],
    }


# --------------------------------------------------------------------------------------------------
# LoCoMo
# --------------------------------------------------------------------------------------------------


def test_locomo_dev_conv26_loads_whole(conv26: Conversation) -> None:
    assert conv26.conversation_id == "conv-26"
    assert conv26.speakers == ("Caroline", "Melanie")
    assert len(conv26.sessions) == 19
    assert sum(len(s.turns) for s in conv26.sessions) == 419
    assert len(conv26.qa) == 199
    first = conv26.sessions[0]
    assert first.session_id == "session_1"
    assert first.started_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert conv26.sessions[-1].started_at == datetime(2023, 10, 22, 9, 55, tzinfo=UTC)
    assert [s.started_at for s in conv26.sessions] == sorted(s.started_at for s in conv26.sessions)
    turn = first.turns[2]
    assert (turn.id, turn.speaker) == ("D1:3", "Caroline")
    assert "support group yesterday" in turn.text


def test_locomo_image_turns_carry_the_blip_caption(conv26: Conversation, conv26_raw: dict[str, Any]) -> None:
    turns = {t.id: t for s in conv26.sessions for t in s.turns}
    assert turns["D1:5"].image_caption == "a photo of a dog walking past a wall with a painting of a woman"
    assert turns["D1:3"].image_caption is None
    captioned = {t["dia_id"] for k, v in conv26_raw.items() if k.startswith("session_") and isinstance(v, list)
                 for t in v if t.get("blip_caption")}
    assert {t.id for t in turns.values() if t.image_caption} == captioned


def test_locomo_dev_repairs_are_reported(conv26: Conversation) -> None:
    # qa #37 lists "D8:6; D9:17" as one id; it is split, both turns exist, and the split is reported.
    assert conv26.qa[37].evidence == ("D8:6", "D9:17")
    assert any("qa #37" in p and "split" in p for p in conv26.problems)
    # Sessions 20-35 have dates but no turns in the release: skipped, and said so.
    assert any("session_20" in p and "session_35" in p for p in conv26.problems)
    ids = conv26.turn_ids
    assert all(e in ids for q in conv26.qa for e in q.evidence)


def test_locomo_dev_answers_and_categories(conv26: Conversation) -> None:
    by_question = {q.question: q for q in conv26.qa}
    assert by_question["When did Caroline go to the LGBTQ support group?"].answer == "7 May 2023"
    assert by_question["When did Melanie paint a sunrise?"].answer == "2022"  # a number in the file
    adversarial = [q for q in conv26.qa if q.category == 5]
    assert len(adversarial) == 47
    assert all(q.adversarial_answer for q in adversarial)
    assert {q.category for q in conv26.qa} == {1, 2, 3, 4, 5}
    assert all(q.question_date is None for q in conv26.qa)


def test_locomo_dev_conv30_loads_without_problems() -> None:
    [conv] = load_locomo(LOCOMO_DIR / "conv-30.json")
    assert conv.speakers == ("Jon", "Gina")
    assert len(conv.sessions) == 19
    assert conv.sessions[0].started_at == datetime(2023, 1, 20, 16, 4, tzinfo=UTC)
    assert len(conv.qa) == 105
    assert conv.problems == ()


def test_locomo10_list_layout(tmp_path: Path, conv26_raw: dict[str, Any]) -> None:
    qa = conv26_raw["qa"]
    body = {k: v for k, v in conv26_raw.items() if k != "qa"}
    samples = [
        {"sample_id": "conv-26", "conversation": body, "qa": qa},
        {"sample_id": "small", "conversation": {k: v for k, v in _small_locomo().items() if k != "qa"},
         "qa": _small_locomo()["qa"]},
    ]
    convs = load_locomo(_write(tmp_path, samples, "locomo10.json"))
    assert [c.conversation_id for c in convs] == ["conv-26", "small"]
    assert len(convs[0].sessions) == 19 and len(convs[0].qa) == 199
    assert convs[1].speakers == ("Ana", "Ben")


def test_locomo_evidence_repairs(tmp_path: Path) -> None:
    [conv] = load_locomo(_write(tmp_path, _small_locomo()))
    qa = conv.qa[1]
    assert qa.evidence == ("D2:1", "D1:2")  # "D2:01; D:1:2" split and normalized, "D9:9" dropped
    assert any("D2:01" in p and "'D2:1'" in p for p in conv.problems)
    assert any("'D:1:2' repaired to 'D1:2'" in p for p in conv.problems)
    assert any("D9:9" in p and "do not exist" in p for p in conv.problems)
    assert conv.qa[2].answer is None and conv.qa[2].adversarial_answer == "Rex"
    assert conv.sessions[0].turns[1].image_caption == "a photo of a grey cat"


def test_repair_evidence_only_makes_unambiguous_repairs() -> None:
    ids, notes = repair_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D1:3", "D1:3", "Q2", "", 7])
    assert ids == ["D8:6", "D9:17", "D11:26", "D30:5", "D1:3"]
    assert len(notes) == 6  # split, two repairs, a non-id, an empty string, a non-text
    assert repair_evidence("D1:2") == (["D1:2"], [])
    assert repair_evidence(None)[0] == []


def _session_turns(data: dict[str, Any], n: int) -> list[dict[str, Any]]:
    return data[f"session_{n}"]


MALFORMED: list[tuple[str, Any, tuple[str, ...]]] = [
    ("not json", "{ this is not json", ("json",)),
    ("a number", 42, ("json",)),
    ("no sessions", {"speaker_a": "Ana", "speaker_b": "Ben", "qa": []}, ("session",)),
    ("no speaker", {**{k: v for k, v in _small_locomo().items() if k != "speaker_a"}}, ("speaker_a",)),
]


@pytest.mark.parametrize("label, data, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_locomo_malformed_file_names_the_file(tmp_path: Path, label: str, data: Any, words: tuple[str, ...]) -> None:
    path = _write(tmp_path, data, "broken.json")
    with pytest.raises(InvalidRecordError) as err:
        load_locomo(path)
    assert "broken.json" in str(err.value)
    for word in words:
        assert word in str(err.value)


def _mutations() -> list[tuple[str, Any, str, str]]:
    """(label, mutate(data), expected session text, expected turn text) for session/turn-level breakage."""

    def empty_session(d: dict[str, Any]) -> None:
        d["session_2"] = []

    def no_dia_id(d: dict[str, Any]) -> None:
        del _session_turns(d, 1)[1]["dia_id"]

    def empty_text(d: dict[str, Any]) -> None:
        _session_turns(d, 1)[0]["text"] = "   "

    def bad_date(d: dict[str, Any]) -> None:
        d["session_2_date_time"] = "2024-03-10 12:30"

    def missing_date(d: dict[str, Any]) -> None:
        del d["session_2_date_time"]

    def impossible_date(d: dict[str, Any]) -> None:
        d["session_1_date_time"] = "9:05 am on 31 February, 2024"

    def session_not_list(d: dict[str, Any]) -> None:
        d["session_1"] = "hello"

    def duplicate_id(d: dict[str, Any]) -> None:
        _session_turns(d, 2)[0]["dia_id"] = "D1:1"

    def no_speaker(d: dict[str, Any]) -> None:
        _session_turns(d, 2)[0]["speaker"] = ""

    return [
        ("empty session", empty_session, "session_2", ""),
        ("turn without dia_id", no_dia_id, "session_1", "turn #1"),
        ("empty text", empty_text, "session_1", "turn #0 (D1:1)"),
        ("unknown date format", bad_date, "session_2", ""),
        ("missing date", missing_date, "session_2", ""),
        ("impossible date", impossible_date, "session_1", ""),
        ("session not a list", session_not_list, "session_1", ""),
        ("turn id reused", duplicate_id, "session_2", "D1:1"),
        ("turn without speaker", no_speaker, "session_2", "turn #0 (D2:1)"),
    ]


@pytest.mark.parametrize("label, mutate, session, turn", _mutations(), ids=[m[0] for m in _mutations()])
def test_locomo_malformed_session_or_turn_is_named(tmp_path: Path, label: str, mutate: Any, session: str, turn: str) -> None:
    data = copy.deepcopy(_small_locomo())
    mutate(data)
    path = _write(tmp_path, data, "conv-x.json")
    with pytest.raises(InvalidRecordError) as err:
        load_locomo(path)
    message = str(err.value)
    assert "conv-x.json" in message and session in message and turn in message


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9, tzinfo=UTC)),
        ("12:30 pm on 1 Jan, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=UTC)),
        ("  7:05 AM on 29 February 2024 ", datetime(2024, 2, 29, 7, 5, tzinfo=UTC)),
    ],
)
def test_parse_locomo_datetime(text: str, expected: datetime) -> None:
    assert parse_locomo_datetime(text) == expected


@pytest.mark.parametrize(
    "text",
    ["8 May 2023", "13:56 pm on 8 May, 2023", "1:56 pm on 8 Mayo, 2023", "1:56 pm on 30 February, 2023",
     "1:61 pm on 8 May, 2023", "yesterday", "", "0:10 am on 8 May, 2023"],
)
def test_parse_locomo_datetime_rejects_other_layouts(text: str) -> None:
    with pytest.raises(ValueError):
        parse_locomo_datetime(text)


@given(st.text(max_size=60))
def test_parse_locomo_datetime_only_raises_value_error(text: str) -> None:
    try:
        value = parse_locomo_datetime(text)
    except ValueError:
        return
    assert value.tzinfo is UTC


@given(st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2100, 12, 31)))
def test_parse_locomo_datetime_round_trips(moment: datetime) -> None:
    moment = moment.replace(second=0, microsecond=0)
    hour = moment.hour % 12 or 12
    text = f"{hour}:{moment.minute:02d} {'pm' if moment.hour >= 12 else 'am'} on {moment.day} {moment:%B}, {moment.year}"
    assert parse_locomo_datetime(text) == moment.replace(tzinfo=UTC)


# --------------------------------------------------------------------------------------------------
# LongMemEval
# --------------------------------------------------------------------------------------------------


def test_longmemeval_sample_loads() -> None:
    convs = load_longmemeval(LONGMEMEVAL_SAMPLE)
    assert [c.conversation_id for c in convs] == ["gpt4_2f8be40d", "8a2466db_abs"]
    assert all(len(c.sessions) == 3 for c in convs)
    first = convs[0]
    assert first.speakers == ("user", "assistant")
    assert first.sessions[1].session_id == "answer_4be1b6b4_1"
    assert first.sessions[1].started_at == datetime(2023, 5, 20, 9, 5, tzinfo=UTC)
    assert [t.id for t in first.sessions[1].turns] == ["answer_4be1b6b4_1:0", "answer_4be1b6b4_1:1", "answer_4be1b6b4_1:2"]
    assert first.sessions[1].turns[1].speaker == "assistant"
    [qa] = first.qa
    assert qa.category == "temporal-reasoning"
    assert qa.question_date == datetime(2023, 5, 30, 23, 40, tzinfo=UTC)
    assert qa.evidence == ("answer_4be1b6b4_1:0", "answer_4be1b6b4_2:0")  # the has_answer turns
    assert first.problems == ()


def test_longmemeval_without_marks_uses_answer_sessions() -> None:
    conv = load_longmemeval(LONGMEMEVAL_SAMPLE)[1]
    assert conv.qa[0].evidence == ("answer_8a2466db_1:0", "answer_8a2466db_1:1")
    assert any("has_answer" in p for p in conv.problems)


def _lme_items() -> list[dict[str, Any]]:
    return json.loads(LONGMEMEVAL_SAMPLE.read_text())


def test_longmemeval_sorts_sessions_and_reports(tmp_path: Path) -> None:
    items = _lme_items()
    item = items[0]
    for key in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        item[key] = item[key][::-1]  # the oracle file lists sessions unsorted
    conv = load_longmemeval(_write(tmp_path, items))[0]
    assert [s.session_id for s in conv.sessions] == ["sharegpt_yPZxQ7x_0", "answer_4be1b6b4_1", "answer_4be1b6b4_2"]
    assert any("time order" in p for p in conv.problems)


def test_longmemeval_weekday_mismatch_is_reported(tmp_path: Path) -> None:
    items = _lme_items()
    items[0]["haystack_dates"][0] = "2023/05/20 (Mon) 02:21"
    conv = load_longmemeval(_write(tmp_path, items))[0]
    assert any("Mon" in p and "sharegpt_yPZxQ7x_0" in p for p in conv.problems)


def _lme_break(kind: str) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    items = _lme_items()
    item = items[1]
    if kind == "lengths":
        item["haystack_dates"] = item["haystack_dates"][:2]
        return items, ("item #1", "8a2466db_abs", "haystack_sessions")
    if kind == "date":
        item["haystack_dates"][2] = "March 25, 2023"
        return items, ("item #1", "sharegpt_Qm3XrTb_12", "haystack_dates")
    if kind == "question_date":
        item["question_date"] = "2023-04-02"
        return items, ("item #1", "question_date")
    if kind == "role":
        item["haystack_sessions"][1][1]["role"] = "system"
        return items, ("answer_8a2466db_1", "turn #1", "role")
    if kind == "content":
        item["haystack_sessions"][2][2]["content"] = ""
        return items, ("sharegpt_Qm3XrTb_12", "turn #2", "content")
    if kind == "empty session":
        item["haystack_sessions"][0] = []
        return items, ("ultrachat_482913",)
    if kind == "duplicate session":
        item["haystack_session_ids"][2] = item["haystack_session_ids"][1]
        return items, ("answer_8a2466db_1", "id")
    if kind == "duplicate question":
        item["question_id"] = items[0]["question_id"]
        return items, ("item #1", "question_id")
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["lengths", "date", "question_date", "role", "content", "empty session", "duplicate session", "duplicate question"]
)
def test_longmemeval_malformed_is_named(tmp_path: Path, kind: str) -> None:
    items, words = _lme_break(kind)
    with pytest.raises(InvalidRecordError) as err:
        load_longmemeval(_write(tmp_path, items, "lme.json"))
    message = str(err.value)
    assert "lme.json" in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("data", ["[oops", {"question_id": "x"}, []])
def test_longmemeval_not_a_list_of_items(tmp_path: Path, data: Any) -> None:
    with pytest.raises(InvalidRecordError, match="lme.json"):
        load_longmemeval(_write(tmp_path, data, "lme.json"))


def test_parse_longmemeval_datetime() -> None:
    assert parse_longmemeval_datetime("2023/05/20 (Sat) 02:21") == (datetime(2023, 5, 20, 2, 21, tzinfo=UTC), None)
    assert parse_longmemeval_datetime("2023/05/20 02:21")[0] == datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    for bad in ("2023-05-20 02:21", "2023/13/20 (Sat) 02:21", "20/05/2023 (Sat) 02:21", ""):
        with pytest.raises(ValueError):
            parse_longmemeval_datetime(bad)


# --------------------------------------------------------------------------------------------------
# JSONL chat logs
# --------------------------------------------------------------------------------------------------


def test_chat_jsonl_round_trip(tmp_path: Path, conv26: Conversation) -> None:
    path = tmp_path / "conv26.jsonl"
    dump_chat_jsonl(conv26.sessions, path)
    [back] = load_chat_jsonl(path)
    assert back.conversation_id == "conv26"
    assert back.sessions == conv26.sessions
    assert set(back.speakers) == set(conv26.speakers)
    assert back.qa == () and back.problems == ()


def test_chat_jsonl_round_trip_keeps_unusual_text(tmp_path: Path, conv26: Conversation) -> None:
    session = conv26.sessions[0]
    odd = replace(session.turns[0], text="line\u2028separator\x85 and \u00e9 \U0001F600", image_caption="a \u2029 caption")
    sessions = (replace(session, turns=(odd, *session.turns[1:])),)
    path = tmp_path / "odd.jsonl"
    dump_chat_jsonl(sessions, path)
    assert load_chat_jsonl(path)[0].sessions == sessions


def _lines(tmp_path: Path, rows: list[Any], name: str = "chat.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_chat_jsonl_groups_sessions_and_defaults_ids(tmp_path: Path) -> None:
    rows = [
        {"session_id": "s1", "timestamp": "2024-03-03T09:05:00Z", "speaker": "Ana", "text": "Hi"},
        {"session_id": "s1", "timestamp": "2024-03-03T09:06:00Z", "speaker": "Ben", "text": "Hello", "id": "m-2"},
        "",
        {"session_id": "s2", "timestamp": "2024-03-10T14:30:00+02:00", "speaker": "Ana", "text": "Back again"},
        {"session_id": "s1", "timestamp": "2024-03-03T09:07:00", "speaker": "Ana", "text": "Late line"},
    ]
    [conv] = load_chat_jsonl(_lines(tmp_path, rows))
    s1, s2 = conv.sessions
    assert [t.id for t in s1.turns] == ["s1:0", "m-2", "s1:2"]
    assert s1.turns[2].text == "Late line"
    assert s1.started_at == datetime(2024, 3, 3, 9, 5, tzinfo=UTC)
    assert s2.started_at == datetime(2024, 3, 10, 12, 30, tzinfo=UTC)  # +02:00 converted to UTC
    assert conv.speakers == ("Ana", "Ben")


def test_chat_jsonl_sessions_in_time_order(tmp_path: Path) -> None:
    rows = [
        {"session_id": "later", "timestamp": "2024-03-10T09:00:00", "speaker": "Ana", "text": "b"},
        {"session_id": "earlier", "timestamp": "2024-03-01T09:00:00", "speaker": "Ana", "text": "a"},
    ]
    [conv] = load_chat_jsonl(_lines(tmp_path, rows))
    assert [s.session_id for s in conv.sessions] == ["earlier", "later"]
    assert conv.problems


GOOD = {"session_id": "s1", "timestamp": "2024-03-03T09:05:00Z", "speaker": "Ana", "text": "Hi"}


@pytest.mark.parametrize(
    "bad, field",
    [
        ("{not json", "json"),
        ("[1, 2]", "line"),
        ({**GOOD, "timestamp": "yesterday"}, "timestamp"),
        ({k: v for k, v in GOOD.items() if k != "timestamp"}, "timestamp"),
        ({**GOOD, "speaker": ""}, "speaker"),
        ({**GOOD, "text": "  "}, "text"),
        ({**GOOD, "session_id": 3}, "session_id"),
        ({**GOOD, "id": ""}, "id"),
        ({**GOOD, "id": "s1:0"}, "id"),  # collides with the default id of line 1
    ],
)
def test_chat_jsonl_errors_name_file_and_line(tmp_path: Path, bad: Any, field: str) -> None:
    path = _lines(tmp_path, [GOOD, bad], "log.jsonl")
    with pytest.raises(InvalidRecordError) as err:
        load_chat_jsonl(path)
    assert "log.jsonl" in str(err.value) and "line 2" in str(err.value)
    assert err.value.field == field


def test_chat_jsonl_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidRecordError, match="no chat lines"):
        load_chat_jsonl(_lines(tmp_path, ["", "  "]))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["s1", "s2", "s3"]),
            st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)),
            st.sampled_from(["Ana", "Ben"]),
            st.text(min_size=1, max_size=40).filter(lambda t: t.strip()),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_chat_jsonl_loads_any_wellformed_log(tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, datetime, str, str]]) -> None:
    path = tmp_path_factory.mktemp("chat") / "log.jsonl"
    path.write_text(
        "".join(
            json.dumps({"session_id": s, "timestamp": t.isoformat(), "speaker": who, "text": text}) + "\n"
            for s, t, who, text in rows
        )
    )
    [conv] = load_chat_jsonl(path)
    assert sum(len(s.turns) for s in conv.sessions) == len(rows)
    assert [s.started_at for s in conv.sessions] == sorted(s.started_at for s in conv.sessions)
    for session in conv.sessions:
        own = [t for s, t, _, _ in rows if s == session.session_id]
        assert session.started_at == min(own).replace(tzinfo=UTC)
        assert [t.text for t in session.turns] == [text for s, _, _, text in rows if s == session.session_id]
    assert timedelta(0) <= conv.sessions[-1].started_at - conv.sessions[0].started_at
