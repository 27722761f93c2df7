"""Membox's Topic Loom without an LLM: online topic segmentation of a session into sealed boxes.

Membox (repository nnnoidea/Membox) asks an LLM, for every incoming message, whether it continues the
main topic of the previous two messages (Yes / No / Partially Shifted), seals the open box on anything
but "Yes", and asks the LLM again at sealing for keywords, a topic phrase and the explicit events. This
module keeps that control flow and makes both LLM calls pluggable:

* ``TopicDecider`` decides continue / partial shift / break. ``LocalDecider`` (the default) uses the
  sentence embeddings of the turns, lexical cohesion (shared content lemmas and entities), question /
  answer structure and discourse cues; ``LLMDecider`` sends Membox's own prompt to a ``chat`` callable.
* ``BoxExtractor`` extracts topic, events and keywords at sealing from spaCy parses;
  ``LLMBoxExtractor`` sends Membox's extraction prompt and falls back to the local extraction.

Example (``embed`` returns L2-normalized rows, e.g. all-MiniLM-L6-v2)::

    loom = TopicLoom(LocalDecider(), BoxExtractor())
    boxes = loom.segment("conv-26:s1", make_loom_turns("conv-26:s1", turns, embed))
    boxes[0].box_id, boxes[0].topic   # ("conv-26:s1#b0", "lgbtq support group")
"""

from __future__ import annotations

import enum
import functools
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from graphmem.nlp import DEFAULT_SPACY_MODEL, load_nlp
from graphmem.records import Turn

logger = logging.getLogger(__name__)

Embed = Callable[[Sequence[str]], np.ndarray]
"""Embeds texts; returns one L2-normalized row per text, shape (n, dim) (dim 384 for MiniLM)."""

Chat = Callable[[str], str]
"""An LLM call: a prompt in, the model's answer text out."""


# --------------------------------------------------------------------------------------------------
# Thresholds of the local decider, on the scale of all-MiniLM-L6-v2 cosines. In casual two-person chat
# every turn shares register, names and small talk, so even unrelated adjacent turns sit around 0.2-0.35
# and a reply on the same subject usually scores 0.5 or more. Other embedding models need other values
# (they are constructor arguments).
# --------------------------------------------------------------------------------------------------

#: Cohesion at or above this continues the open box: clearly above the chat's background similarity.
CONTINUE_SCORE = 0.45
#: Cohesion at or above this (and below CONTINUE_SCORE) is a partial shift: related, but drifting.
PARTIAL_SCORE = 0.30
#: Weight of the box centroid vs the last two turns: the centroid keeps the box's main topic, the recent
#: turns let a conversation drift gradually without a break.
CENTROID_WEIGHT = 0.5
#: Bonus per shared content lemma/entity (capped at LEXICAL_CAP terms): repeating a noun or a name is the
#: classic lexical-cohesion signal, and MiniLM underrates it for long turns.
LEXICAL_BONUS = 0.06
LEXICAL_CAP = 3
#: Penalty when the turn opens a sentence with a topic-shift marker ("by the way", "guess what").
SHIFT_CUE_PENALTY = 0.15
#: A turn with at most this many content terms is a backchannel ("Thanks, that's sweet!"); it has too
#: little content to open a topic, so it stays with what it acknowledges.
BACKCHANNEL_MAX_TERMS = 1
#: Boxes longer than this need more cohesion for each further turn (SIZE_PRESSURE per extra turn). Membox's
#: LLM boxes average 4-6 utterances on LoCoMo; a much longer box mixes sub-topics and its embedding blurs.
SOFT_MAX_TURNS = 6
SIZE_PRESSURE = 0.04
#: Turns considered "recent" in the open box (Membox shows the LLM the previous 2 messages).
RECENT_TURNS = 2

#: Events longer than this (in tokens) are cut: an event is a short phrase, not a retelling.
MAX_EVENT_TOKENS = 14
#: At most this many events per box; the rest are usually restatements of the first ones.
MAX_EVENTS_PER_BOX = 10
#: Keywords per box (Membox asks the LLM for 3-8).
MIN_KEYWORDS = 3
MAX_KEYWORDS = 8

# Discourse markers that open a new topic when they start a sentence (generic English, not LoCoMo-specific).
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

# Casual contractions the small spaCy model mis-parses ("Gonna" becomes a noun).
_CONTRACTIONS = ((re.compile(r"\bgonna\b", re.I), "going to"), (re.compile(r"\bwanna\b", re.I), "want to"),
                 (re.compile(r"\bgotta\b", re.I), "got to"))

# Nouns so common in any conversation that sharing them says nothing about the topic.
GENERIC_NOUNS: frozenset[str] = frozenset(
    """thing stuff time lot day way people kind bit sort part one guy life world moment idea fun today
    tomorrow yesterday week weekend month year night morning evening something anything everything nothing
    someone anyone everyone thanks thank yeah hey wow lol omg photo picture pic pics image look chance
    place word feeling sense reason question answer point end start other others while minute hour
    yep yup nope yay haha hmm congrat congrats bye whoa man dude kinda sorta gonna wanna glad good sure
    okay btw awesome""".split()
)

# Verbs that carry no topic (cohesion) and no event (extraction) on their own.
LIGHT_VERBS: frozenset[str] = frozenset(
    "be have do go get make take come put give let say see know talk chat speak".split()
)

# Verbs of state, feeling or opinion: "I love it", "I think so" are not events (Membox's rule 3.3).
STATIVE_VERBS: frozenset[str] = frozenset(
    """be have feel think know love like hope mean guess bet wish seem sound thank agree appreciate believe
    understand want need enjoy care matter say remember miss admire hate mind suppose imagine realize
    wonder appear consider sound hear tell ask""".split()
)

# Verbs whose infinitive complement is a plan: "planning to adopt", "going to paint", "decided to move".
PLAN_VERBS: frozenset[str] = frozenset("plan go decide intend aim prepare start begin try schedule arrange".split())

_FILLER_ADVERBS: frozenset[str] = frozenset(
    """just really so actually also finally totally definitely even still too very pretty literally honestly
    basically already always never ever kinda sorta quite truly seriously btw unfortunately hopefully""".split()
)

# Praise words that decorate a noun chunk without naming the topic ("an amazing support group").
_EVALUATIVE_ADJECTIVES: frozenset[str] = frozenset(
    """great good amazing awesome cool nice beautiful lovely special wonderful incredible fantastic huge big
    little small new old best better favorite fun interesting inspiring powerful happy sad tough hard real
    exciting excited kinda""".split()
)

_ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "WORK_OF_ART", "PRODUCT", "LANGUAGE"}
)


# --------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------


class Decision(enum.Enum):
    """What a topic decider says about an incoming turn (Membox: Yes / Partially Shifted / No)."""

    CONTINUE = "continue"
    PARTIAL = "partial"
    BREAK = "break"


@dataclass(frozen=True)
class LoomTurn:
    """One utterance as the loom sees it: text (with any photo caption) and its normalized embedding.

    The embedding is stored as a read-only float32 array and is left out of equality and hashing.

    >>> turn = LoomTurn("D1:3", "Caroline", "I went to the support group.", [0.6, 0.8], "s1")
    >>> turn.embedding.dtype, turn == LoomTurn("D1:3", "Caroline", "I went to the support group.", [1, 0], "s1")
    (dtype('float32'), True)
    """

    id: str
    speaker: str
    text: str
    embedding: np.ndarray = field(compare=False, repr=False)
    session_id: str

    def __post_init__(self) -> None:
        vector = np.asarray(self.embedding, dtype=np.float32).reshape(-1)
        vector.setflags(write=False)
        object.__setattr__(self, "embedding", vector)


@dataclass(frozen=True)
class SealedBox:
    """A sealed Membox: consecutive turns of one session on one local topic, with what was extracted.

    >>> box = SealedBox("s1#b0", "s1", ("D1:1", "D1:2"), "support group", ("went to a support group",),
    ...                 ("support", "group", "lgbtq"))
    >>> box.turn_ids
    ('D1:1', 'D1:2')
    """

    box_id: str
    session_id: str
    turn_ids: tuple[str, ...]
    topic: str
    events: tuple[str, ...]
    keywords: tuple[str, ...]


def box_id_for(session_id: str, index: int) -> str:
    """The deterministic id of the ``index``-th box (0-based) of a session.

    >>> box_id_for("conv-26:session_1", 2)
    'conv-26:session_1#b2'
    """
    return f"{session_id}#b{index}"


_PHOTO_RE = re.compile(r"\s*\[shared a photo: ([^\]]*)\]")


def split_photo(text: str) -> tuple[str, tuple[str, ...]]:
    """Separate the utterance from the photo captions ``turn_text`` appended to it.

    >>> split_photo("Look! [shared a photo: a photo of a lake]")
    ('Look!', ('a photo of a lake',))
    """
    captions = tuple(m.group(1).strip() for m in _PHOTO_RE.finditer(text))
    return _PHOTO_RE.sub("", text).strip(), captions


def turn_text(turn: Turn) -> str:
    """The text the loom reads for a turn: the utterance, plus the caption of a shared photo.

    >>> turn_text(Turn("D1:5", "Caroline", "Look!", image_caption="a photo of a lake"))
    'Look! [shared a photo: a photo of a lake]'
    """
    if turn.image_caption:
        return f"{turn.text} [shared a photo: {turn.image_caption}]"
    return turn.text


def make_loom_turns(session_id: str, turns: Sequence[Turn], embed: Embed) -> list[LoomTurn]:
    """Embed a session's turns (one batch call) and wrap them as ``LoomTurn``.

    >>> fake_embed = lambda texts: np.tile([1.0, 0.0], (len(texts), 1))
    >>> make_loom_turns("s1", [Turn("D1:1", "A", "Hi!")], fake_embed)[0].session_id
    's1'
    """
    texts = [turn_text(t) for t in turns]
    if not texts:
        return []
    vectors = np.asarray(embed(texts), dtype=np.float32)
    if vectors.shape[0] != len(texts):
        raise ValueError(f"embed returned {vectors.shape[0]} rows for {len(texts)} texts")
    return [LoomTurn(t.id, t.speaker, text, vec, session_id) for t, text, vec in zip(turns, texts, vectors)]


# --------------------------------------------------------------------------------------------------
# Shared text analysis
# --------------------------------------------------------------------------------------------------


def normalize_for_parse(text: str) -> str:
    """Spell out casual contractions the small spaCy model mis-parses.

    >>> normalize_for_parse("Gonna paint tomorrow")
    'going to paint tomorrow'
    """
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _is_name_of(word: str, speakers: Iterable[str]) -> bool:
    """True if ``word`` is a speaker's name or a nickname prefix of it ("Mel" for "Melanie")."""
    word = word.lower()
    for speaker in speakers:
        for part in speaker.lower().split():
            if word == part or (len(word) >= 3 and part.startswith(word)):
                return True
    return False


def content_terms(doc: Any, speakers: Iterable[str] = (), verbs: bool = False) -> frozenset[str]:
    """Lower-cased content lemmas (nouns, proper nouns, optionally non-light verbs) and entities of a parse.

    Speakers' names are left out: they are vocatives in every box and say nothing about the topic.

    >>> sorted(content_terms(load_nlp()("Mel, I went to a LGBTQ support group."), ["Melanie"]))
    ['group', 'lgbtq', 'support']
    """
    speakers = tuple(speakers)
    terms: set[str] = set()
    for token in doc:
        if not token.is_alpha or token.is_stop or len(token.text) < 3:
            continue
        lemma = token.lemma_.lower()
        if token.pos_ in ("NOUN", "PROPN"):
            if lemma in GENERIC_NOUNS or _is_name_of(lemma, speakers):
                continue
            terms.add(lemma)
        elif verbs and token.pos_ == "VERB" and lemma not in LIGHT_VERBS and lemma not in STATIVE_VERBS:
            terms.add(lemma)
    for ent in doc.ents:
        if ent.label_ in _ENTITY_LABELS and not _is_name_of(ent.text, speakers):
            terms.add(ent.text.lower())
    return frozenset(terms)


def _has_question(text: str) -> bool:
    return "?" in text


# --------------------------------------------------------------------------------------------------
# Deciders
# --------------------------------------------------------------------------------------------------


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
    2. a backchannel (at most ``BACKCHANNEL_MAX_TERMS`` content terms) or a farewell continues;
    3. otherwise ``score = w * cos(turn, centroid) + (1 - w) * max cos(turn, last 2 turns)
       + LEXICAL_BONUS * shared content terms - SHIFT_CUE_PENALTY * shift cue
       - SIZE_PRESSURE * turns beyond soft_max_turns``, compared with ``continue_score`` (continue) and
       ``partial_score`` (partial shift; below it, break).

    A backchannel that opens with a shift cue ("Thanks! What's up with you lately?") is scored, not
    waved through: its question usually opens the next subject. Thresholds suit all-MiniLM-L6-v2.

    >>> q = LoomTurn("1", "A", "Did you paint that lake?", [1.0, 0.0], "s1")
    >>> a = LoomTurn("2", "B", "Yes, I painted it last summer.", [1.0, 0.0], "s1")
    >>> LocalDecider().decide([q, a], LoomTurn("3", "A", "My car broke down on the highway.", [0.0, 1.0], "s1"))
    <Decision.BREAK: 'break'>
    """

    def __init__(
        self,
        nlp: Any = None,
        continue_score: float = CONTINUE_SCORE,
        partial_score: float = PARTIAL_SCORE,
        soft_max_turns: int = SOFT_MAX_TURNS,
    ) -> None:
        if partial_score > continue_score:
            raise ValueError("partial_score must not exceed continue_score")
        self._nlp = nlp
        self.continue_score = continue_score
        self.partial_score = partial_score
        self.soft_max_turns = soft_max_turns
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
        backchannel = content_count <= BACKCHANNEL_MAX_TERMS or bool(_FAREWELL_RE.search(turn.text))
        shift_cue = bool(_SHIFT_CUE_RE.search(turn.text))

        embeddings = np.stack([t.embedding for t in open_box])
        centroid = embeddings.mean(axis=0)
        norm = float(np.linalg.norm(centroid))
        centroid_sim = float(centroid @ turn.embedding / norm) if norm > 0 else 0.0
        recent_sim = float(max(embeddings[-RECENT_TURNS:] @ turn.embedding))
        # Long boxes must earn each further turn: the bar rises past SOFT_MAX_TURNS (see the constant).
        pressure = SIZE_PRESSURE * max(0, len(open_box) - self.soft_max_turns)
        score = (
            CENTROID_WEIGHT * centroid_sim
            + (1.0 - CENTROID_WEIGHT) * recent_sim
            + LEXICAL_BONUS * min(len(shared), LEXICAL_CAP)
            - (SHIFT_CUE_PENALTY if shift_cue else 0.0)
            - pressure
        )
        if answers or (backchannel and not shift_cue):
            decision = Decision.CONTINUE
        elif score >= self.continue_score:
            decision = Decision.CONTINUE
        elif score >= self.partial_score:
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
        return frozenset(t for t in terms if not _is_name_of(t, speakers))


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


PROMPT_MSG_CONTINUATION = (
    "Please determine whether the current message continues with the main topic of the previous messages. "
    "Only answer Yes/No/Partially Shifted.  \n"
    "previous messages: {ref}\n"
    "current message: {curr}\n"
    "Answer:"
)
"""Membox's continuation prompt (membox.py, PROMPT_MSG_CONTINUATION), unchanged."""


def parse_continuation(answer: str) -> Decision | None:
    """Map an LLM answer to a decision; ``None`` when it says none of Yes / No / Partially Shifted.

    "Partial" is checked first because "Partially shifted, yes" must not read as a plain yes.

    >>> parse_continuation("Partially Shifted")
    <Decision.PARTIAL: 'partial'>
    >>> parse_continuation("Yes.")
    <Decision.CONTINUE: 'continue'>
    """
    lowered = answer.strip().lower()
    if "partial" in lowered or "shift" in lowered:
        return Decision.PARTIAL
    if re.search(r"\byes\b", lowered):
        return Decision.CONTINUE
    if re.search(r"\bno\b", lowered):
        return Decision.BREAK
    return None


class LLMDecider:
    """Membox's LLM topic decider: one ``chat`` call per turn with the previous two messages.

    An answer that is none of Yes / No / Partially Shifted goes to ``fallback`` when given, else counts
    as a break (the released code seals on anything but "yes").

    >>> box = [LoomTurn("1", "A", "I adopted a dog.", [1, 0], "s1"), LoomTurn("2", "B", "Aww!", [1, 0], "s1")]
    >>> LLMDecider(chat=lambda prompt: "Yes").decide(box, LoomTurn("3", "A", "His name is Rex.", [1, 0], "s1"))
    <Decision.CONTINUE: 'continue'>
    """

    def __init__(self, chat: Chat, fallback: TopicDecider | None = None, previous: int = RECENT_TURNS) -> None:
        self.chat = chat
        self.fallback = fallback
        self.previous = max(1, previous)

    def prompt(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> str:
        """The prompt sent for ``turn`` (Membox's wording, "speaker: text" lines).

        >>> box = [LoomTurn("1", "A", "Coffee?", [1, 0], "s1")]
        >>> print(LLMDecider(chat=print).prompt(box, LoomTurn("2", "B", "Sure!", [1, 0], "s1")).splitlines()[-2])
        current message: B: Sure!
        """
        ref = "\n".join(f"{t.speaker}: {t.text}" for t in open_box[-self.previous :])
        return PROMPT_MSG_CONTINUATION.format(ref=ref, curr=f"{turn.speaker}: {turn.text}")

    def decide(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Decision:
        """Ask the LLM; parse Yes / No / Partially Shifted.

        >>> box = [LoomTurn("1", "A", "I adopted a dog.", [1, 0], "s1"), LoomTurn("2", "B", "Aww!", [1, 0], "s1")]
        >>> LLMDecider(lambda p: "Partially Shifted").decide(box, LoomTurn("3", "A", "Also, work...", [1, 0], "s1"))
        <Decision.PARTIAL: 'partial'>
        """
        answer = self.chat(self.prompt(open_box, turn))
        decision = parse_continuation(answer)
        if decision is not None:
            return decision
        logger.warning("topic decider: unreadable LLM answer %r for turn %s", answer[:80], turn.id)
        if self.fallback is not None:
            return self.fallback.decide(open_box, turn)
        return Decision.BREAK


# --------------------------------------------------------------------------------------------------
# Extraction at sealing
# --------------------------------------------------------------------------------------------------


class BoxExtractor:
    """Local extraction of a box's topic, events and keywords from spaCy parses.

    * keywords: content lemmas (nouns, names, entities; content verbs at half weight) ranked by how many
      of the box's turns use them, then by count; generic nouns and speakers' names are left out;
    * topic: the noun chunk whose words are most salient (determiners and possessives stripped);
    * events: first-person / named actions from the dependency parse, with their objects — past events
      ("went to a LGBTQ support group yesterday"), ongoing developments ("taking a pottery class"),
      plans ("planning to adopt a child", "going to paint"); questions, negations and states of mind
      are not events.

    >>> turns = [LoomTurn("D1:3", "Caroline", "I went to a LGBTQ support group yesterday.", [1, 0], "s1"),
    ...          LoomTurn("D1:4", "Melanie", "Wow! Did you hear any inspiring stories?", [1, 0], "s1")]
    >>> BoxExtractor().extract("s1#b0", "s1", turns).events
    ('went to a LGBTQ support group yesterday',)
    """

    def __init__(self, nlp: Any = None) -> None:
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp()
        return self._nlp

    def extract(self, box_id: str, session_id: str, turns: Sequence[LoomTurn]) -> SealedBox:
        """Seal ``turns`` into a ``SealedBox`` with a topic, events and keywords.

        >>> turns = [LoomTurn("1", "A", "I signed up for a pottery class.", [1, 0], "s1"),
        ...          LoomTurn("2", "B", "Pottery is great. Show me your first pottery bowl!", [1, 0], "s1")]
        >>> box = BoxExtractor().extract("s1#b0", "s1", turns)
        >>> box.topic, box.keywords[:3], box.events
        ('pottery', ('pottery', 'class', 'bowl'), ('signed up for a pottery class',))
        """
        # Captions describe the photo (keywords, topic) but are not something a speaker did (events).
        split = [split_photo(t.text) for t in turns]
        docs = list(self.nlp.pipe(normalize_for_parse(text) for text, _ in split))
        caption_docs = list(self.nlp.pipe(c for _, captions in split for c in captions))
        speakers = {t.speaker for t in turns}
        salience = _salience(docs + caption_docs, speakers)
        keywords = [term for term, _ in salience[:MAX_KEYWORDS]]
        if len(keywords) < MIN_KEYWORDS:
            # A chit-chat box ("Thanks!" "Glad to help!") has few nouns; its adjectives and verbs still
            # say what it is about, better than an empty keyword list.
            for term in _fallback_terms(docs, speakers):
                if len(keywords) >= MIN_KEYWORDS:
                    break
                if term not in keywords:
                    keywords.append(term)
        topic = _topic(docs + caption_docs, dict(salience), speakers)
        events: list[str] = []
        for doc in docs:
            for event in _events(doc):
                if len(events) >= MAX_EVENTS_PER_BOX:
                    break
                if not any(event.lower() in e.lower() or e.lower() in event.lower() for e in events):
                    events.append(event)
        return SealedBox(box_id, session_id, tuple(t.id for t in turns), topic, tuple(events), tuple(keywords))

    def entities(self, turns: Sequence[LoomTurn]) -> frozenset[str]:
        """Lower-cased named entities and proper nouns of the turns, speakers excluded (for the weaver).

        >>> turns = [LoomTurn("1", "Caroline", "Mel, my grandma gave me this necklace in Sweden.", [1, 0], "s1"),
        ...          LoomTurn("2", "Melanie", "Beautiful, Caroline!", [1, 0], "s1")]
        >>> sorted(BoxExtractor().entities(turns))
        ['sweden']
        """
        speakers = {t.speaker for t in turns}
        found: set[str] = set()
        for doc in self.nlp.pipe(normalize_for_parse(t.text) for t in turns):
            for ent in doc.ents:
                if ent.label_ in _ENTITY_LABELS and not _is_name_of(ent.text, speakers):
                    found.add(ent.text.lower())
            for token in doc:
                if token.pos_ != "PROPN" or not token.is_alpha or len(token.text) <= 2:
                    continue
                if not _is_name_of(token.text, speakers):
                    found.add(token.text.lower())
        return frozenset(found)


def _salience(docs: Sequence[Any], speakers: Iterable[str]) -> list[tuple[str, float]]:
    """Content terms ranked by salience: (turns using it) * (1 + log count) * part-of-speech weight.

    Spread over several turns is the "document frequency inside the box": a word the speakers keep
    coming back to is the box's subject; the part-of-speech weight stands in for idf (names and nouns
    are more specific than verbs). Ties keep first-mention order, so the ranking is deterministic.
    """
    speakers = tuple(speakers)
    counts: Counter[str] = Counter()
    turns_with: Counter[str] = Counter()
    weight: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    position = 0
    for doc in docs:
        in_turn: set[str] = set()
        for token in doc:
            position += 1
            if not token.is_alpha or token.is_stop or len(token.text) < 3:
                continue
            lemma = token.lemma_.lower()
            if token.pos_ == "PROPN":
                w = 1.5
            elif token.pos_ == "NOUN":
                w = 1.0
            elif token.pos_ == "VERB" and lemma not in LIGHT_VERBS and lemma not in STATIVE_VERBS:
                w = 0.5
            else:
                continue
            if lemma in GENERIC_NOUNS or _is_name_of(lemma, speakers):
                continue
            counts[lemma] += 1
            in_turn.add(lemma)
            weight[lemma] = max(weight.get(lemma, 0.0), w)
            first_seen.setdefault(lemma, position)
        for lemma in in_turn:
            turns_with[lemma] += 1
    scored = [(lemma, turns_with[lemma] * (1.0 + math.log(counts[lemma])) * weight[lemma]) for lemma in counts]
    scored.sort(key=lambda item: (-item[1], first_seen[item[0]]))
    return scored


def _fallback_terms(docs: Sequence[Any], speakers: Iterable[str]) -> list[str]:
    """Adjectives and verbs of the box in order of appearance (keyword padding for noun-poor boxes)."""
    speakers = tuple(speakers)
    terms: list[str] = []
    for doc in docs:
        for token in doc:
            lemma = token.lemma_.lower()
            if token.pos_ not in ("ADJ", "VERB") or not token.is_alpha or token.is_stop or len(lemma) < 3:
                continue
            if lemma in GENERIC_NOUNS or lemma in LIGHT_VERBS or _is_name_of(lemma, speakers) or lemma in terms:
                continue
            terms.append(lemma)
    return terms


def _topic(docs: Sequence[Any], salience: dict[str, float], speakers: Iterable[str]) -> str:
    """The most salient noun chunk, without determiners/possessives; falls back to the top keywords."""
    speakers = tuple(speakers)
    best: tuple[float, int, str] | None = None
    order = 0
    for doc in docs:
        for chunk in doc.noun_chunks:
            order += 1
            words = [t for t in chunk if t.pos_ in ("NOUN", "PROPN", "NUM", "ADJ") and not t.is_stop]
            words = [t for t in words if t.pos_ != "ADJ" or t.lemma_.lower() not in _EVALUATIVE_ADJECTIVES]
            words = [t for t in words if t.is_alpha or t.pos_ in ("NUM", "PROPN")]
            if not words or chunk.root.pos_ == "PRON":
                continue
            root_lemma = chunk.root.lemma_.lower()
            if root_lemma not in salience:
                continue  # the chunk is about nothing the box dwells on (a filler, a name, "Agreed")
            words = [t for t in words if not _is_name_of(t.text, speakers)]
            score = sum(salience.get(t.lemma_.lower(), 0.0) for t in words)
            score += 0.5 * salience.get(root_lemma, 0.0)  # the head noun is what the chunk is about
            text = " ".join(t.text.lower() if t.pos_ != "PROPN" else t.text for t in words)
            candidate = (score, -order, text)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    if best is not None and best[0] > 0:
        return best[2]
    top = [term for term, _ in sorted(salience.items(), key=lambda kv: -kv[1])[:2]]
    return " ".join(top) if top else "small talk"


def _subject_of(verb: Any) -> Any | None:
    """The verb's subject, inherited through conjunctions ("I went and bought ...")."""
    current = verb
    for _ in range(4):  # conj chains are short; the bound guards against odd parses
        for child in current.children:
            if child.dep_ in ("nsubj", "nsubjpass"):
                return child
        if current.dep_ in ("conj", "xcomp") and current.head is not current:
            current = current.head
            continue
        return None
    return None


def _subject_kind(subject: Any | None, verb: Any) -> str | None:
    """'self' for I/we, 'other' for a named person, my/our-someone or he/she; None for anything else."""
    if subject is None:
        # Chat drops the subject: "Went to the beach yesterday!", "Going to paint more" start with the verb.
        first = next((t for t in verb.sent if not t.is_punct and t.pos_ not in ("INTJ", "ADV")), None)
        if first is None or first.i != verb.i:
            return None
        plan = verb.lemma_.lower() in PLAN_VERBS and any(c.dep_ == "xcomp" for c in verb.children)
        return "self" if verb.tag_ == "VBD" or plan else None
    words = {t.lower_ for t in subject.subtree}
    if subject.lower_ in ("i", "we"):
        return "self"
    if words & {"i", "we", "my", "our"}:
        return "other"  # "my kids and I", "my friend": keep the subject, it says who
    if subject.pos_ == "PROPN" or subject.lower_ in ("he", "she"):
        return "other"
    return None


def _plans_activity(verb: Any) -> bool:
    """'thinking about going camping', 'considering moving': a plan phrased as a thought."""
    for child in verb.children:
        if child.dep_ == "prep" and child.lower_ in ("about", "of"):
            if any(g.dep_ == "pcomp" and g.tag_ == "VBG" for g in child.children):
                return True
        if child.dep_ in ("xcomp", "dobj") and child.tag_ == "VBG":
            return True
    return False


def _is_event_verb(verb: Any) -> bool:
    """Past, perfect, progressive, future or plan forms of a verb of action (Membox's event rules)."""
    lemma = verb.lemma_.lower()
    children = list(verb.children)
    has_xcomp = any(c.dep_ == "xcomp" for c in children)
    considering = lemma in ("think", "consider") and verb.tag_ == "VBG" and _plans_activity(verb)
    if lemma in STATIVE_VERBS and not (lemma in PLAN_VERBS and has_xcomp) and not considering:
        return False
    if any(c.dep_ == "neg" for c in children):
        return False
    if any(c.dep_ == "mark" and c.lower_ in ("if", "unless", "whether") for c in children):
        return False  # conditions are not facts
    auxes = [c for c in children if c.dep_ in ("aux", "auxpass")]
    aux = {c.lemma_.lower() for c in auxes}
    if aux & {"would", "could", "should", "might", "may", "can", "must"}:
        return False  # wishes and possibilities ("I'd love to", "I could try") are not events
    tag = verb.tag_
    if tag == "VBD":
        return True
    if tag == "VBN":
        if "have" in aux or "get" in aux:
            return True
        # "I was invited" is an event; "I'm swamped" is a state (present-tense passive of a participle).
        return any(c.dep_ == "auxpass" and c.tag_ == "VBD" for c in auxes)
    if tag == "VBG":
        return "be" in aux or verb.dep_ in ("xcomp", "conj") or (lemma in PLAN_VERBS and has_xcomp)
    if tag in ("VB", "VBP", "VBZ"):
        if aux & {"will", "shall"}:
            return True
        return lemma in PLAN_VERBS and has_xcomp
    return False


_WORD_PUNCT = frozenset({"-", "+", "/", "'"})

# Dependents that leave an event phrase wherever they occur: subjects, sub-clauses, interjections.
_PHRASE_DROP_DEPS = frozenset(
    {"nsubj", "nsubjpass", "csubj", "advcl", "relcl", "parataxis", "ccomp", "mark", "intj", "discourse",
     "dep", "neg", "meta", "appos"}
)


def _event_tokens(verb: Any, kind: str) -> list[Any]:
    """The verb with its objects and modifiers, without subject, auxiliaries, sub-clauses and fillers.

    A time before the verb ("Last week I went ...") moves behind it: "went to a pride parade last week";
    other modifiers before the verb (vocatives, "Unfortunately") are left out.
    """
    kept: list[Any] = []

    def walk(token: Any) -> None:
        kept.append(token)
        for child in token.children:
            dep, lemma = child.dep_, child.lemma_.lower()
            top = token is verb
            if dep in _PHRASE_DROP_DEPS or lemma in _FILLER_ADVERBS:
                continue
            if top and (dep == "cc" or (dep == "conj" and child.pos_ in ("VERB", "AUX"))):
                continue  # a coordinated clause is an event of its own
            if dep == "punct":
                inside_word = child.text in _WORD_PUNCT and child.i > 0 and not child.doc[child.i - 1].whitespace_
                if not inside_word:
                    continue  # keep only punctuation inside a word ("self-care", "LGBTQ+")
            if top and dep in ("aux", "auxpass") and kind == "self" and lemma not in ("will", "shall"):
                continue  # "'m planning" -> "planning"; "will start" keeps its future
            if top and child.i < verb.i and dep not in ("aux", "auxpass"):
                if not any(t.ent_type_ in ("DATE", "TIME") for t in child.subtree):
                    continue  # "Unfortunately", "Mel," frame the clause; only a time ("Last week") is kept
            walk(child)

    walk(verb)
    kept.sort(key=lambda t: t.i)
    head_start = min((t.i for t in kept if t.i >= verb.i or t.dep_ in ("aux", "auxpass")), default=verb.i)
    before = [t for t in kept if t.i < head_start]
    return [t for t in kept if t.i >= head_start][:MAX_EVENT_TOKENS] + before[:4]


def _render(tokens: Sequence[Any], subject: Any | None, kind: str) -> str:
    """Join event tokens with their original spacing; a moved time phrase is lower-cased ("last week")."""
    parts: list[str] = []
    for index, token in enumerate(tokens):
        text = "will" if token.lower_ == "'ll" else token.text
        if index > 0 and token.i < tokens[0].i and token.pos_ != "PROPN":
            text = text.lower()
        parts.append(text)
        if index + 1 < len(tokens):
            parts.append(token.whitespace_ if tokens[index + 1].i == token.i + 1 else " ")
    phrase = "".join(parts).strip(" ,.;:-!")
    if kind == "other" and subject is not None:
        phrase = f"{subject.doc[subject.left_edge.i : subject.right_edge.i + 1].text} {phrase}"
    return phrase


def _has_content(verb: Any, tokens: Sequence[Any]) -> bool:
    """An event needs something to remember: a specific noun, name or number, or a second verb of action."""
    for token in tokens:
        if token.i == verb.i or token.is_stop:
            continue
        if token.pos_ in ("NOUN", "PROPN", "NUM") and token.lemma_.lower() not in GENERIC_NOUNS:
            return True
        if token.pos_ == "VERB" and token.lemma_.lower() not in LIGHT_VERBS | STATIVE_VERBS:
            return True
    return False


def _is_embedded_question(verb: Any) -> bool:
    """'how much our community has grown', 'what I did': a wh-word before the verb in its own clause."""
    for token in verb.subtree:
        if token.i >= verb.i:
            break
        if token.tag_ in ("WP", "WDT", "WRB") and token.lower_ != "when":
            return True
    return False


def _events(doc: Any) -> list[str]:
    """Explicit events and plans of one parsed turn (see ``BoxExtractor``)."""
    events: list[str] = []
    for sent in doc.sents:
        if sent.text.rstrip().endswith("?"):
            continue  # questions ask about events; they do not report them
        for verb in sent:
            if verb.pos_ != "VERB" or verb.dep_ in ("relcl", "acl", "amod", "pcomp"):
                continue  # relative clauses describe a noun of the main event
            if verb.dep_ == "xcomp" and verb.head.pos_ == "VERB":
                continue  # part of the head's phrase ("planning to adopt"), or of its non-event ("love to")
            subject = _subject_of(verb)
            kind = _subject_kind(subject, verb)
            if kind is None or not _is_event_verb(verb) or _is_embedded_question(verb):
                continue
            tokens = _event_tokens(verb, kind)
            if not _has_content(verb, tokens):
                continue
            phrase = _render(tokens, subject, kind)
            if len(phrase.split()) >= 2:
                events.append(phrase)
    return events


PROMPT_DIALOG_EXTRACT = """Generate a structured analysis of the provided dialog by performing the following tasks:

1. **Identifying salient keywords:** Extract 3-8 most salient nouns, named entities, and key terminology that represent core concepts. Avoid common words (e.g., "good", "see") and prioritize specificity.

2. **Determining the core topic:** In one clear phrase, state the primary subject or objective of the discussion based on the actual content.

3. **Extracting explicit event and plan mentions:** Identify and list only the **events, factual developments, or specific future plans** that are **explicitly mentioned** in the dialog. Follow these strict rules:
    3.1. **Focus on Verbatim or Near-Verbatim Content:** Each extracted item must be directly grounded in the dialog text. Do not infer, summarize, or combine information to create new "events."
    3.2. **Distinguish Event Types:**
        - **Past/Completed Events:** Actions or occurrences that are stated as having happened (e.g., "I went to...", "We completed the project").
        - **Established Facts/Changes:** Concrete facts or changes presented as already true (e.g., "I am now the team lead", "The system is down").
        - **Explicit Future Plans:** Specific plans for the future mentioned by the speakers (e.g., "We will meet on Friday", "I'm planning to visit Paris").
    3.3. **Exclude Non-Events:** Do NOT include:
        - General states of being (e.g., "I'm swamped", "I'm happy").
        - Questions, greetings, or expressions of intent without a plan (e.g., "We should talk sometime").
        - Vague aspirations or possibilities.
    3.4. **Framing:** Phrase each extracted item as a concise, standalone clause that captures the core of what was mentioned.

**Output Format:** Provide the analysis as a valid JSON object with the following exact keys:
{{
"keywords": ["keyword1", "keyword2", ...],
"topic": "clear topic phrase",
"explicit_mentions": [
    "A mentioned past event or established fact",
    "A mentioned specific future plan",
    // ... more as needed
]
}}
Content to analyze: {text}"""
"""Membox's extraction prompt (membox.py, PROMPT_DIALOG_EXTRACT), unchanged."""


def parse_json_object(answer: str) -> dict[str, Any] | None:
    """The first JSON object in an LLM answer (code fences and chatter around it are ignored).

    >>> parse_json_object('```json\\n{"topic": "x"}\\n```')
    {'topic': 'x'}
    """
    start = answer.find("{")
    end = answer.rfind("}")
    if start < 0 or end <= start:
        return None
    body = re.sub(r"^\s*//.*$", "", answer[start : end + 1], flags=re.MULTILINE)  # the prompt's own // comment
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()]


class LLMBoxExtractor(BoxExtractor):
    """Membox's extraction at sealing through ``chat``; each missing or unreadable field falls back to
    the local extraction, so a sealed box always has a topic and keywords.

    >>> chat = lambda p: '{"keywords": ["pottery"], "topic": "pottery class", "explicit_mentions": []}'
    >>> turns = [LoomTurn("1", "A", "I took a pottery class.", [1, 0], "s1")]
    >>> LLMBoxExtractor(chat).extract("s1#b0", "s1", turns).topic
    'pottery class'
    """

    def __init__(self, chat: Chat, nlp: Any = None) -> None:
        super().__init__(nlp)
        self.chat = chat

    def prompt(self, turns: Sequence[LoomTurn]) -> str:
        """Membox's extraction prompt over "speaker: text" lines.

        >>> LLMBoxExtractor(chat=print).prompt([LoomTurn("1", "A", "Hi", [1, 0], "s1")]).splitlines()[-1]
        'Content to analyze: A: Hi'
        """
        return PROMPT_DIALOG_EXTRACT.format(text="\n".join(f"{t.speaker}: {t.text}" for t in turns))

    def extract(self, box_id: str, session_id: str, turns: Sequence[LoomTurn]) -> SealedBox:
        """Ask the LLM for keywords, topic and explicit mentions; fill gaps locally.

        >>> turns = [LoomTurn("1", "A", "I took a pottery class.", [1, 0], "s1")]
        >>> LLMBoxExtractor(lambda p: "not json").extract("s1#b0", "s1", turns).events  # local fallback
        ('took a pottery class',)
        """
        data = parse_json_object(self.chat(self.prompt(turns))) or {}
        keywords = _strings(data.get("keywords"))[:MAX_KEYWORDS]
        topic = str(data.get("topic") or "").strip()
        events = _strings(data.get("explicit_mentions"))[:MAX_EVENTS_PER_BOX]
        if not data:
            logger.warning("box extractor: unreadable LLM answer for %s; using local extraction", box_id)
        if keywords and topic and "explicit_mentions" in data:
            return SealedBox(box_id, session_id, tuple(t.id for t in turns), topic, tuple(events), tuple(keywords))
        local = super().extract(box_id, session_id, turns)
        return SealedBox(
            box_id,
            session_id,
            local.turn_ids,
            topic or local.topic,
            tuple(events) if "explicit_mentions" in data else local.events,
            tuple(keywords) if keywords else local.keywords,
        )


# --------------------------------------------------------------------------------------------------
# The loom
# --------------------------------------------------------------------------------------------------


class TopicLoom:
    """Online segmentation of one session into sealed boxes (Membox's Topic Loom).

    Turn by turn: the first turn opens a box; the box's second turn is added without asking (a new box
    takes at least one adjacent reply, so no box is a lone utterance unless the session ends); every
    later turn goes to the decider. ``CONTINUE`` appends; ``BREAK`` seals and opens a new box with the
    turn. ``PARTIAL`` seals too by default, as Membox's released code does (it seals on anything but
    "yes"): a partially shifted turn usually opens the next subject, and smaller boxes keep retrieval
    focused. Pass ``seal_on_partial=False`` to keep partial shifts in the open box instead. The session
    end seals the last box; boxes never span sessions because ``segment`` sees one session at a time.

    >>> texts = ["I took a pottery class.", "Pottery is so calming!", "I made a pottery bowl.",
    ...          "My brother bought a motorcycle.", "A motorcycle? Which one?", "A red Ducati motorcycle."]
    >>> turns = [LoomTurn(f"D1:{i}", "AB"[i % 2], t, [1.0, 0.0] if i < 3 else [0.0, 1.0], "s1")
    ...          for i, t in enumerate(texts)]
    >>> [b.turn_ids for b in TopicLoom(LocalDecider(), BoxExtractor()).segment("s1", turns)]
    [('D1:0', 'D1:1', 'D1:2'), ('D1:3', 'D1:4', 'D1:5')]
    """

    def __init__(self, decider: TopicDecider, extractor: BoxExtractor, seal_on_partial: bool = True) -> None:
        self.decider = decider
        self.extractor = extractor
        self.seal_on_partial = seal_on_partial

    def segment(self, session_id: str, turns: Sequence[LoomTurn]) -> list[SealedBox]:
        """Split a session's turns (in order) into sealed boxes; every turn lands in exactly one box.

        Raises ``ValueError`` if a turn belongs to another session or a turn id repeats.

        >>> turns = [LoomTurn(f"D1:{i}", "AB"[i % 2], "Hello there!", [1, 0], "s1") for i in range(5)]
        >>> boxes = TopicLoom(LocalDecider(), BoxExtractor()).segment("s1", turns)
        >>> [t for b in boxes for t in b.turn_ids] == [t.id for t in turns]
        True
        """
        seen: set[str] = set()
        for turn in turns:
            if turn.session_id != session_id:
                raise ValueError(f"turn {turn.id!r} belongs to session {turn.session_id!r}, not {session_id!r}")
            if turn.id in seen:
                raise ValueError(f"turn id {turn.id!r} appears twice in session {session_id!r}")
            seen.add(turn.id)

        boxes: list[SealedBox] = []
        open_box: list[LoomTurn] = []
        for turn in turns:
            if len(open_box) < 2:
                open_box.append(turn)
                continue
            decision = self.decider.decide(tuple(open_box), turn)
            logger.debug("loom %s: turn %s -> %s", session_id, turn.id, decision.value)
            if decision is Decision.CONTINUE or (decision is Decision.PARTIAL and not self.seal_on_partial):
                open_box.append(turn)
                continue
            boxes.append(self._seal(session_id, len(boxes), open_box))
            open_box = [turn]
        if open_box:
            boxes.append(self._seal(session_id, len(boxes), open_box))
        logger.debug("loom %s: %d turns -> %d boxes", session_id, len(turns), len(boxes))
        return boxes

    def _seal(self, session_id: str, index: int, turns: Sequence[LoomTurn]) -> SealedBox:
        box_id = box_id_for(session_id, index)
        box = self.extractor.extract(box_id, session_id, tuple(turns))
        expected = tuple(t.id for t in turns)
        if box.box_id != box_id or box.turn_ids != expected or box.session_id != session_id:
            # A custom extractor must not move turns between boxes: coverage is the loom's guarantee.
            raise ValueError(f"extractor returned box {box.box_id!r} with other turns than {box_id!r}")
        return box
