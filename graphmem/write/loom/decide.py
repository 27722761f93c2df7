"""Topic deciders: does an incoming turn continue the open box, shift it partially, or break it?

``TopicDecider`` is what the loom asks; ``LocalDecider`` answers without an LLM, from the turns'
sentence embeddings, lexical cohesion, question / answer structure and discourse cues
(``graphmem.write.loom.llm.LLMDecider`` asks an LLM instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from graphmem.nlp import load_nlp
from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.records import Decision, LoomTurn
from graphmem.write.loom.terms import content_terms, is_name_of, normalize_for_parse

__all__ = ["Cohesion", "LocalDecider", "TopicDecider"]

# Discourse markers that open a new topic when they start a sentence (generic English).
_SHIFT_CUE_RE = re.compile(
    r"(?:^|[.!?]\s+|^\W*(?:oh|hey|so|well|and)[,!]?\s+)"
    r"(?:by the way|btw|anyway|anyways|speaking of|on (?:another|a different|a side|an unrelated) note|"
    r"changing the subject|to change the subject|guess what|oh,? and|i have (?:some )?news|"
    r"i(?:'ve| have) got (?:some )?news|what's new|what is new|what's up|what have you been up to|"
    r"how have you been|how's it going|how've you been|how are you|how are things|how's everything|long time no|it's been a while|"
    r"i wanted to tell you|i forgot to (?:tell|mention)|quick update|something else)\b",
    re.IGNORECASE,
)

# Leave-taking: a farewell closes the current box rather than opening a new one.
_FAREWELL_RE = re.compile(
    r"\b(?:talk (?:to you )?(?:soon|later)|bye|goodbye|see you|see ya|take care|catch you later|"
    r"gotta go|have to go|got to go|good night|ttyl)\b",
    re.IGNORECASE,
)


def _has_question(text: str) -> bool:
    return "?" in text


class TopicDecider(Protocol):
    """Decides whether ``turn`` continues the open box (which holds at least one turn)."""

    def decide(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Decision: ...


@dataclass(frozen=True)
class Cohesion:
    """How the local decider scored one turn against the open box (kept for logging and tests)."""

    centroid_sim: float
    recent_sim: float
    shared_terms: tuple[str, ...]
    shift_cue: bool
    answers_question: bool
    backchannel: bool
    score: float
    decision: Decision


class LocalDecider:
    """The default, LLM-free topic decider.

    Rules, in order:

    1. a turn right after a question (or replying to a question asked by the other speaker in the
       trailing turns) always continues: a question and its answer form one exchange;
    2. a backchannel (at most ``backchannel_max_terms`` content terms) or a farewell continues;
    3. otherwise ``score = w * cos(turn, centroid) + (1 - w) * max cos(turn, recent turns)
       + lexical_bonus * shared content terms - shift_cue_penalty * shift cue
       - size_pressure * turns beyond soft_max_turns``, compared with ``continue_score`` (continue) and
       ``partial_score`` (partial shift; below it, break); the names are ``LoomConfig`` fields.

    A backchannel that opens with a shift cue ("Thanks! What's up with you lately?") is scored, not
    waved through: its question usually opens the next subject. The default thresholds suit
    all-MiniLM-L6-v2.

    >>> q = LoomTurn("1", "A", "Did you paint that lake?", [1.0, 0.0], "s1")
    >>> a = LoomTurn("2", "B", "Yes, I painted it last summer.", [1.0, 0.0], "s1")
    >>> LocalDecider().decide([q, a], LoomTurn("3", "A", "My car broke down on the highway.", [0.0, 1.0], "s1"))
    <Decision.BREAK: 'break'>
    """

    def __init__(self, nlp: Any = None, config: LoomConfig = DEFAULT_LOOM_CONFIG) -> None:
        self._nlp = nlp
        self.config = config
        self._terms_cache: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp()
        return self._nlp

    def decide(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Decision:
        """Continue, partial shift or break for ``turn`` against the open box.

        >>> q = LoomTurn("1", "A", "Did you paint that lake?", [1.0, 0.0], "s1")
        >>> LocalDecider().decide([q], LoomTurn("2", "B", "My car broke down on the highway.", [0.0, 1.0], "s1"))
        <Decision.CONTINUE: 'continue'>
        """
        return self.assess(open_box, turn).decision

    def assess(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Cohesion:
        """The full scoring behind ``decide`` (similarities, shared terms, cues).

        >>> box = [LoomTurn("1", "A", "I took a pottery class.", [1.0, 0.0], "s1"),
        ...        LoomTurn("2", "B", "Pottery is so calming!", [1.0, 0.0], "s1")]
        >>> c = LocalDecider().assess(box, LoomTurn("3", "A", "I made a pottery bowl.", [0.6, 0.8], "s1"))
        >>> c.shared_terms, round(c.score, 2), c.decision
        (('pottery',), 0.66, <Decision.CONTINUE: 'continue'>)
        """
        if not open_box:
            # Nothing to continue: the turn opens a box whatever we answer; say so explicitly.
            return Cohesion(0.0, 0.0, (), False, False, False, 0.0, Decision.BREAK)
        answers = _answers_question(open_box, turn)
        speakers = {t.speaker for t in open_box} | {turn.speaker}
        turn_terms = self._terms(turn.text, speakers)
        box_terms: set[str] = set()
        for previous in open_box:
            box_terms |= self._terms(previous.text, speakers)
        shared = tuple(sorted(turn_terms & box_terms))
        content_count = len(self._terms(turn.text, speakers, verbs=True))
        config = self.config
        backchannel = content_count <= config.backchannel_max_terms or bool(_FAREWELL_RE.search(turn.text))
        shift_cue = bool(_SHIFT_CUE_RE.search(turn.text))

        embeddings = np.stack([t.embedding for t in open_box])
        centroid = embeddings.mean(axis=0)
        norm = float(np.linalg.norm(centroid))
        centroid_sim = float(centroid @ turn.embedding / norm) if norm > 0 else 0.0
        recent_sim = float(max(embeddings[-config.recent_turns:] @ turn.embedding))
        # Long boxes must earn each further turn: the bar rises past soft_max_turns (see LoomConfig).
        pressure = config.size_pressure * max(0, len(open_box) - config.soft_max_turns)
        score = (
            config.centroid_weight * centroid_sim
            + (1.0 - config.centroid_weight) * recent_sim
            + config.lexical_bonus * min(len(shared), config.lexical_cap)
            - (config.shift_cue_penalty if shift_cue else 0.0)
            - pressure
        )
        if answers or (backchannel and not shift_cue) or score >= config.continue_score:
            decision = Decision.CONTINUE
        elif score >= config.partial_score:
            decision = Decision.PARTIAL
        else:
            decision = Decision.BREAK
        return Cohesion(centroid_sim, recent_sim, shared, shift_cue, answers, backchannel, score, decision)

    def _terms(self, text: str, speakers: Iterable[str], verbs: bool = False) -> frozenset[str]:
        cached = self._terms_cache.get(text)
        if cached is None:
            if len(self._terms_cache) > 20_000:  # bounded: a decider may live for a whole corpus
                self._terms_cache.clear()
            # One parse per text, without the dependency parser (lemmas, tags and entities suffice);
            # speakers are filtered after caching so that the parse serves every box.
            doc = self.nlp(normalize_for_parse(text), disable=["parser"])
            cached = (content_terms(doc), content_terms(doc, verbs=True))
            self._terms_cache[text] = cached
        terms = cached[1] if verbs else cached[0]
        return frozenset(t for t in terms if not is_name_of(t, speakers))


def _answers_question(open_box: Sequence[LoomTurn], turn: LoomTurn) -> bool:
    """True if ``turn`` comes right after a question, or replies to a question of the other speaker.

    The reply case walks back over the trailing run of turns by other speakers: "A: Did you go? A: The
    one on Friday. B: Yes!" still answers A's question.
    """
    if _has_question(open_box[-1].text):
        return True
    for previous in reversed(open_box):
        if previous.speaker == turn.speaker:
            return False
        if _has_question(previous.text):
            return True
    return False
