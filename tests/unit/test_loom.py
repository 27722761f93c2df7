"""Topic Loom: segmentation invariants on LoCoMo dev sessions (real MiniLM), rules of the local decider,
local extraction, the pluggable LLM decider/extractor (fake chat), and a property test on coverage."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import locomo_dev
from graphmem.nlp import load_nlp
from graphmem.records import Turn
from graphmem.write.loom.config import LoomConfig
from graphmem.write.loom.decide import LocalDecider
from graphmem.write.loom.extract import BoxExtractor
from graphmem.write.loom.llm import LLMBoxExtractor, LLMDecider, parse_continuation
from graphmem.write.loom.prepare import make_loom_turns, split_photo, turn_text
from graphmem.write.loom.records import Decision, LoomTurn, SealedBox, box_id_for
from graphmem.write.loom.topic_loom import TopicLoom

logger = logging.getLogger(__name__)

CONVERSATIONS = ("conv-26", "conv-30")


# --------------------------------------------------------------------------------------------------
# Fixtures: the real model, loaded once per module; the dev conversations, segmented once.
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


@pytest.fixture(scope="module")
def dev_sessions(embed) -> dict[str, list[tuple[str, list[LoomTurn]]]]:
    # Never skip: the conversations ship in tests/data/locomo-dev; locomo_dev fails loudly when they are missing.
    return {
        name: [(sid, make_loom_turns(sid, turns, embed)) for sid, turns in locomo_dev.sessions(name)]
        for name in CONVERSATIONS
    }


@pytest.fixture(scope="module")
def dev_boxes(dev_sessions, nlp) -> dict[str, list[tuple[str, list[LoomTurn], list[SealedBox]]]]:
    loom = TopicLoom(LocalDecider(nlp), BoxExtractor(nlp))
    result = {}
    for name, sessions in dev_sessions.items():
        result[name] = [(sid, turns, loom.segment(sid, turns)) for sid, turns in sessions]
        sizes = [len(b.turn_ids) for _, _, boxes in result[name] for b in boxes]
        logger.info("%s: %d boxes, mean %.2f turns per box", name, len(sizes), float(np.mean(sizes)))
    return result


def unit(vector: Sequence[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


def lt(turn_id: str, speaker: str, text: str, vector: Sequence[float], session: str = "s1") -> LoomTurn:
    return LoomTurn(turn_id, speaker, text, unit(vector), session)


class ScriptedDecider:
    """Returns the given decisions in order (CONTINUE once they run out); records what it was asked."""

    def __init__(self, decisions: Sequence[Decision]) -> None:
        self.decisions = list(decisions)
        self.calls: list[tuple[tuple[str, ...], str]] = []

    def decide(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Decision:
        self.calls.append((tuple(t.id for t in open_box), turn.id))
        return self.decisions.pop(0) if self.decisions else Decision.CONTINUE


class StubExtractor(BoxExtractor):
    """No parsing: for tests of the loom's control flow."""

    def extract(self, box_id: str, session_id: str, turns: Sequence[LoomTurn]) -> SealedBox:
        return SealedBox(box_id, session_id, tuple(t.id for t in turns), "stub", (), ("a", "b", "c"))


# --------------------------------------------------------------------------------------------------
# Segmentation of the dev conversations
# --------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", CONVERSATIONS)
def test_every_turn_in_exactly_one_box_and_in_order(dev_boxes, name):
    for session_id, turns, boxes in dev_boxes[name]:
        covered = [turn_id for box in boxes for turn_id in box.turn_ids]
        assert covered == [t.id for t in turns], session_id


@pytest.mark.slow
@pytest.mark.parametrize("name", CONVERSATIONS)
def test_boxes_never_cross_sessions_and_ids_are_positional(dev_boxes, name):
    for session_id, turns, boxes in dev_boxes[name]:
        session_turn_ids = {t.id for t in turns}
        for index, box in enumerate(boxes):
            assert box.session_id == session_id
            assert box.box_id == box_id_for(session_id, index) == f"{session_id}#b{index}"
            assert set(box.turn_ids) <= session_turn_ids


@pytest.mark.slow
@pytest.mark.parametrize("name", CONVERSATIONS)
def test_a_reply_to_a_question_is_never_split_from_it(dev_boxes, name):
    checked = 0
    for session_id, turns, boxes in dev_boxes[name]:
        box_of = {turn_id: box.box_id for box in boxes for turn_id in box.turn_ids}
        for question, reply in pairwise(turns):
            if "?" in question.text:
                checked += 1
                assert box_of[question.id] == box_of[reply.id], (session_id, question.id, reply.id)
    assert checked > 20  # the dev data is full of questions; the check must have bitten


@pytest.mark.slow
@pytest.mark.parametrize("name", CONVERSATIONS)
def test_box_sizes_are_episodes(dev_boxes, name):
    """Membox reports 4-6 utterances per box on LoCoMo; we accept a wider band, not tuned to the dev set."""
    sizes = [len(box.turn_ids) for _, _, boxes in dev_boxes[name] for box in boxes]
    mean = float(np.mean(sizes))
    logger.info("%s: mean box size %.2f over %d boxes (max %d)", name, mean, len(sizes), max(sizes))
    assert 3.0 <= mean <= 8.0
    # A new box takes at least one adjacent reply: only a session's last box may hold a single turn.
    for _, turns, boxes in dev_boxes[name]:
        assert all(len(box.turn_ids) >= 2 for box in boxes[:-1])


@pytest.mark.slow
@pytest.mark.parametrize("name", CONVERSATIONS)
def test_sealed_boxes_carry_topic_keywords_and_short_events(dev_boxes, name):
    boxes = [box for _, _, session_boxes in dev_boxes[name] for box in session_boxes]
    for box in boxes:
        assert box.topic.strip()
        assert 1 <= len(box.keywords) <= 8
        assert len(set(box.keywords)) == len(box.keywords)
        for event in box.events:
            assert 2 <= len(event.split()) <= 20, event
            assert not event.endswith("?")
    assert sum(1 for box in boxes if len(box.keywords) >= 3) >= 0.9 * len(boxes)
    assert sum(1 for box in boxes if box.events) >= 0.4 * len(boxes)


@pytest.mark.slow
def test_segmentation_is_deterministic(dev_sessions, dev_boxes, nlp):
    loom = TopicLoom(LocalDecider(nlp), BoxExtractor(nlp))
    for session_id, turns in dev_sessions["conv-26"][:4]:
        expected = next(boxes for sid, _, boxes in dev_boxes["conv-26"] if sid == session_id)
        assert loom.segment(session_id, turns) == expected


@pytest.mark.slow
def test_support_group_box_of_conv26(dev_boxes):
    """The first box of conv-26 is about the LGBTQ support group and holds the visit as an event."""
    first = dev_boxes["conv-26"][0][2][0]
    assert "D1:3" in first.turn_ids
    assert any("support group" in event.lower() for event in first.events)
    assert {"support", "group"} <= set(first.keywords)


# --------------------------------------------------------------------------------------------------
# The loom's control flow
# --------------------------------------------------------------------------------------------------


def test_a_new_box_takes_one_adjacent_reply_before_the_next_decision():
    turns = [lt(f"t{i}", "AB"[i % 2], f"text {i}", [1, i]) for i in range(7)]
    decider = ScriptedDecider([Decision.BREAK] * 10)
    boxes = TopicLoom(decider, StubExtractor()).segment("s1", turns)
    assert [b.turn_ids for b in boxes] == [("t0", "t1"), ("t2", "t3"), ("t4", "t5"), ("t6",)]
    # The decider was never asked about a box's second turn, and always saw the whole open box.
    assert decider.calls == [(("t0", "t1"), "t2"), (("t2", "t3"), "t4"), (("t4", "t5"), "t6")]


def test_partial_shift_seals_by_default_and_can_be_kept():
    turns = [lt(f"t{i}", "AB"[i % 2], f"text {i}", [1, i]) for i in range(5)]
    sealed = TopicLoom(ScriptedDecider([Decision.CONTINUE, Decision.PARTIAL]), StubExtractor()).segment("s1", turns)
    assert [b.turn_ids for b in sealed] == [("t0", "t1", "t2"), ("t3", "t4")]
    kept = TopicLoom(ScriptedDecider([Decision.CONTINUE, Decision.PARTIAL]), StubExtractor(), LoomConfig(seal_on_partial=False))
    assert [b.turn_ids for b in kept.segment("s1", turns)] == [("t0", "t1", "t2", "t3", "t4")]


def test_segment_rejects_foreign_and_duplicate_turns():
    loom = TopicLoom(ScriptedDecider([]), StubExtractor())
    with pytest.raises(ValueError, match="belongs to session"):
        loom.segment("s1", [lt("t0", "A", "hi", [1, 0], session="s2")])
    with pytest.raises(ValueError, match="twice"):
        loom.segment("s1", [lt("t0", "A", "hi", [1, 0]), lt("t0", "B", "hi", [1, 0])])
    assert loom.segment("s1", []) == []


def test_an_extractor_may_not_move_turns():
    class Greedy(StubExtractor):
        def extract(self, box_id, session_id, turns):
            return SealedBox(box_id, session_id, ("t0",), "x", (), ())

    turns = [lt(f"t{i}", "AB"[i % 2], "x", [1, 0]) for i in range(3)]
    with pytest.raises(ValueError, match="other turns"):
        TopicLoom(ScriptedDecider([]), Greedy()).segment("s1", turns)


@settings(max_examples=150, deadline=None)
@given(
    decisions=st.lists(st.sampled_from(list(Decision)), max_size=40),
    size=st.integers(min_value=0, max_value=40),
)
def test_segment_covers_every_turn_once_for_any_decisions(decisions, size):
    turns = [lt(f"t{i}", "B" if i % 3 == 0 else "A", f"text {i}", [1, i % 5]) for i in range(size)]
    boxes = TopicLoom(ScriptedDecider(decisions), StubExtractor()).segment("s1", turns)
    assert [turn_id for box in boxes for turn_id in box.turn_ids] == [t.id for t in turns]
    assert [box.box_id for box in boxes] == [f"s1#b{i}" for i in range(len(boxes))]
    assert all(len(box.turn_ids) >= 2 for box in boxes[:-1])


_WORDS = ["I", "went", "to", "the", "park", "yesterday", "painting", "?", "wow", "my", "kids", "by the way",
          "adoption", "agency", "guess what", "cool", "!", "Sweden", "planning to", "adopt", "a", "dog", "."]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["Caroline", "Melanie", "Jon"]),
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12),
            st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=8, max_size=8),
        ),
        max_size=25,
    )
)
def test_local_loom_covers_every_turn_once_for_arbitrary_sequences(nlp, rows):
    turns = []
    for i, (speaker, words, vector) in enumerate(rows):
        vector = np.asarray(vector, dtype=np.float32)
        if not np.any(vector):
            vector[0] = 1.0
        turns.append(LoomTurn(f"D1:{i + 1}", speaker, " ".join(words), unit(vector), "conv:s1"))
    boxes = TopicLoom(LocalDecider(nlp), BoxExtractor(nlp)).segment("conv:s1", turns)
    assert [turn_id for box in boxes for turn_id in box.turn_ids] == [t.id for t in turns]
    assert len({box.box_id for box in boxes}) == len(boxes)
    for box in boxes:
        assert box.session_id == "conv:s1" and box.topic and len(box.keywords) <= 8


# --------------------------------------------------------------------------------------------------
# The local decider's rules (synthetic embeddings: the rule, not the model, decides)
# --------------------------------------------------------------------------------------------------


def test_a_turn_right_after_a_question_always_continues(nlp):
    box = [lt("1", "A", "I adopted a dog last week.", [1, 0, 0]), lt("2", "B", "Wow, what breed is it?", [1, 0, 0])]
    unrelated = lt("3", "A", "The stock market crashed and my portfolio of bonds collapsed.", [0, 0, 1])
    assert LocalDecider(nlp).decide(box, unrelated) is Decision.CONTINUE


def test_a_reply_to_an_earlier_question_of_the_other_speaker_continues(nlp):
    box = [
        lt("1", "A", "Hi there.", [1, 0, 0]),
        lt("2", "B", "Did you go to the concert?", [1, 0, 0]),
        lt("3", "B", "The one downtown on Friday.", [1, 0, 0]),
    ]
    reply = lt("4", "A", "Yes, the band played my favourite songs all night long.", [0, 0, 1])
    assert LocalDecider(nlp).decide(box, reply) is Decision.CONTINUE


def test_unrelated_content_breaks_and_related_content_continues(nlp):
    box = [
        lt("1", "A", "I signed up for a pottery class yesterday.", [1, 0.1, 0]),
        lt("2", "B", "Pottery is such a calming hobby.", [1, 0.15, 0]),
    ]
    related = lt("3", "A", "I made a clay bowl in the pottery class.", [1, 0.12, 0])
    unrelated = lt("3", "A", "My brother bought a motorcycle in Texas.", [0, 0.1, 1])
    decider = LocalDecider(nlp)
    assert decider.decide(box, related) is Decision.CONTINUE
    assert decider.decide(box, unrelated) is Decision.BREAK
    cohesion = decider.assess(box, related)
    assert "pottery" in cohesion.shared_terms and cohesion.score > decider.config.continue_score


def test_a_shift_cue_lowers_cohesion_and_backchannels_stay(nlp):
    box = [
        lt("1", "A", "I signed up for a pottery class yesterday.", [1, 0.3, 0]),
        lt("2", "B", "Pottery is such a calming hobby.", [1, 0.3, 0]),
    ]
    plain = lt("3", "A", "I also started a garden with tomatoes.", [1, 0, 0.6])
    cued = lt("3", "A", "By the way, I also started a garden with tomatoes.", [1, 0, 0.6])
    decider = LocalDecider(nlp)
    assert decider.assess(box, cued).shift_cue
    assert decider.assess(box, cued).score < decider.assess(box, plain).score
    thanks = lt("3", "A", "Thanks, that's so sweet!", [0, 0, 1])
    assert decider.decide(box, thanks) is Decision.CONTINUE


# --------------------------------------------------------------------------------------------------
# Local extraction
# --------------------------------------------------------------------------------------------------


def _extract(nlp, *texts: str) -> SealedBox:
    turns = [lt(str(i), ("Caroline", "Melanie")[i % 2], text, [1, 0]) for i, text in enumerate(texts)]
    return BoxExtractor(nlp).extract("s1#b0", "s1", turns)


def test_events_are_actions_and_plans_not_states_or_questions(nlp):
    box = _extract(
        nlp,
        "I went to a LGBTQ support group yesterday and it was so powerful.",
        "Did you hear any inspiring stories? I'm swamped with work.",
        "I'm planning to adopt a child next year. I didn't go to the gym.",
        "Gonna continue my edu and check out career options!",
        "My kids and I went camping at the beach last weekend. I love it.",
    )
    events = [e.lower() for e in box.events]
    assert "went to a lgbtq support group yesterday" in events
    assert "planning to adopt a child next year" in events
    assert any(e.startswith("going to continue my edu") for e in events)
    assert any("camping" in e and e.startswith("my kids and i") for e in events)
    assert not any("swamped" in e or "gym" in e or "hear" in e or "love" in e for e in events)


def test_time_phrases_move_behind_the_verb_and_photos_are_not_events(nlp):
    box = _extract(nlp, "Last week I went to a pride parade. [shared a photo: a photo of a parade]")
    assert box.events == ("went to a pride parade last week",)
    assert "parade" in box.keywords


def test_topic_and_keywords_name_what_the_box_dwells_on(nlp):
    box = _extract(
        nlp,
        "Mel, I just signed up for a pottery class!",
        "Pottery sounds so relaxing, Caroline. What are you making in the pottery class?",
        "A bowl for my mom, my first pottery bowl.",
    )
    assert "pottery" in box.topic
    assert box.keywords[0] == "pottery"
    assert 3 <= len(box.keywords) <= 8
    assert not {"mel", "caroline"} & set(box.keywords)
    assert box.events[0] == "signed up for a pottery class"


def test_entities_leave_out_the_speakers(nlp):
    turns = [
        lt("1", "Caroline", "Melanie, my grandma gave me this necklace in Sweden.", [1, 0]),
        lt("2", "Melanie", "Caroline, that is lovely!", [1, 0]),
    ]
    assert BoxExtractor(nlp).entities(turns) == frozenset({"sweden"})


def test_turn_text_keeps_the_photo_caption_apart():
    turn = Turn("D1:5", "Caroline", "Look at this!", image_caption="a photo of a lake")
    text = turn_text(turn)
    assert split_photo(text) == ("Look at this!", ("a photo of a lake",))
    assert turn_text(Turn("D1:6", "Melanie", "Nice")) == "Nice"


# --------------------------------------------------------------------------------------------------
# Pluggable LLM decider and extractor, with a fake chat
# --------------------------------------------------------------------------------------------------


class FakeChat:
    """Answers prompts from a script and records them."""

    def __init__(self, answers: Sequence[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0) if self.answers else "Yes"


def test_parse_continuation_reads_membox_labels():
    assert parse_continuation("Yes") is Decision.CONTINUE
    assert parse_continuation("yes, it continues.") is Decision.CONTINUE
    assert parse_continuation("No.") is Decision.BREAK
    assert parse_continuation("Partially Shifted") is Decision.PARTIAL
    assert parse_continuation("Partially shifted, yes") is Decision.PARTIAL
    assert parse_continuation("I cannot tell") is None


def test_fake_llm_decider_drives_the_loom_with_membox_prompts():
    turns = [lt(f"t{i}", "AB"[i % 2], f"message number {i}", [1, 0]) for i in range(7)]
    chat = FakeChat(["Yes", "Partially Shifted", "No", "Yes"])
    boxes = TopicLoom(LLMDecider(chat), StubExtractor()).segment("s1", turns)
    # t2: yes; t3: partial -> seal; t4 joins t3 unasked; t5: no -> seal; t6 joins unasked.
    assert [b.turn_ids for b in boxes] == [("t0", "t1", "t2"), ("t3", "t4"), ("t5", "t6")]
    assert len(chat.prompts) == 3
    first = chat.prompts[0]
    assert "Only answer Yes/No/Partially Shifted" in first
    assert "previous messages: A: message number 0\nB: message number 1" in first
    assert "current message: A: message number 2" in first
    # Only the previous two messages are shown, as in Membox.
    assert "message number 0" not in chat.prompts[1] and "message number 1" in chat.prompts[1]


def test_llm_decider_falls_back_on_unreadable_answers(nlp):
    box = [lt("1", "A", "Did you paint that?", [1, 0]), lt("2", "B", "Yes, last year.", [1, 0])]
    turn = lt("3", "A", "It is lovely.", [1, 0])
    assert LLMDecider(FakeChat(["???"])).decide(box, turn) is Decision.BREAK
    with_fallback = LLMDecider(FakeChat(["???"]), fallback=ScriptedDecider([Decision.CONTINUE]))
    assert with_fallback.decide(box, turn) is Decision.CONTINUE


def test_fake_llm_box_extractor_uses_the_answer_and_falls_back(nlp):
    turns = [lt("1", "A", "I signed up for a pottery class yesterday.", [1, 0]), lt("2", "B", "So cool!", [1, 0])]
    answer = (
        'Here you go:\n```json\n{"keywords": ["pottery", "class", "clay"], "topic": "Pottery class",\n'
        '"explicit_mentions": ["A signed up for a pottery class"]}\n```'
    )
    chat = FakeChat([answer])
    box = LLMBoxExtractor(chat, nlp).extract("s1#b0", "s1", turns)
    assert box == SealedBox("s1#b0", "s1", ("1", "2"), "Pottery class", ("A signed up for a pottery class",),
                            ("pottery", "class", "clay"))
    assert "Content to analyze: A: I signed up for a pottery class yesterday.\nB: So cool!" in chat.prompts[0]
    assert "explicit_mentions" in chat.prompts[0]

    local = BoxExtractor(nlp).extract("s1#b0", "s1", turns)
    fallback = LLMBoxExtractor(FakeChat(["sorry, no JSON"]), nlp).extract("s1#b0", "s1", turns)
    assert fallback == local
    partial = LLMBoxExtractor(FakeChat(['{"topic": "pottery"}']), nlp).extract("s1#b0", "s1", turns)
    assert partial.topic == "pottery" and partial.keywords == local.keywords and partial.events == local.events
