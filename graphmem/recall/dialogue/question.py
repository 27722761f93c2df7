"""Question analysis for dialogue recall: what a question asks, as full-text and vector search see it.

The need (the question without its recall frame) becomes content words and their lemmas for full-text
search, without function words, classifiers ("kind of") and the names of the conversation's people;
plus the -ing form of its verbs ("painted" also searches "painting"), and the need without those names
for the dense query. A question asking for a list ("What books has X read?") is told apart by its form
(``list_question``).

>>> analyze_question("What has Melanie's daughter painted?", ("Melanie",)).dense
'What has daughter painted?'
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.recall.dialogue.config import DEFAULT_DIALOGUE_CONFIG
from graphmem.store.text_index import FUNCTION_WORDS, analyze

__all__ = ["QueryTerms", "analyze_question", "gerund", "list_question", "name_parts", "strip_names"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueryTerms:
    """What the question asks, as search sees it: full-text terms and the dense query text.

    ``gerunds`` are the -ing forms of the question's verbs ("painting" for "painted"): full-text search
    looks for them too, while a turn line is trimmed to the sentences with the question's own words.
    """

    lexical: tuple[str, ...]
    dense: str
    gerunds: tuple[str, ...] = ()
    #: The lexical terms that rare-word expansion may expand (``DialogueRecallConfig.expandable_pos``, no
    #: dates or numbers).
    expandable: tuple[str, ...] = ()


def name_parts(people: Sequence[str]) -> frozenset[str]:
    """The lower-case words of the people's names: what question analysis and trimming leave out.

    >>> sorted(name_parts(["Caroline Smith", "Mel"]))
    ['caroline', 'mel', 'smith']
    """
    return frozenset(part.lower() for person in people for part in person.split() if part)


def strip_names(text: str, people: Sequence[str]) -> str:
    """The text without the people's names (and their possessive 's).

    A name says whose memory is asked about; the speaker bonus uses it. Left in the dense query it only
    pulls towards turns that address the person ("Hey Melanie!"), not towards what they did.

    >>> strip_names("What did Melanie's kids paint?", ["Melanie"])
    'What did kids paint?'
    """
    parts = sorted(name_parts(people), key=len, reverse=True)
    if not parts:
        return text
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in parts) + r")(?:['’]s)?\b", re.IGNORECASE)
    stripped = re.sub(r"\s+", " ", pattern.sub("", text)).strip()
    stripped = re.sub(r"\s+([?.!,;:])", r"\1", stripped)
    return stripped if re.search(r"\w", stripped) else text


@functools.lru_cache(maxsize=1)
def _nlp() -> Any:
    from graphmem.nlp import load_nlp  # the writer's pipeline, loaded once per process

    return load_nlp()


_VOWELS = frozenset("aeiou")


def gerund(verb: str) -> str:
    """The -ing form of a verb's lemma by English spelling rules.

    >>> [gerund(v) for v in ("paint", "dance", "swim", "tie", "see", "visit", "play")]
    ['painting', 'dancing', 'swimming', 'tying', 'seeing', 'visiting', 'playing']
    """
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if len(verb) > 2 and verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    # One short syllable ending consonant-vowel-consonant doubles its last letter: "swim" -> "swimming".
    one_syllable = 3 <= len(verb) <= 4 and sum(c in _VOWELS for c in verb) == 1
    if one_syllable and verb[-3] not in _VOWELS and verb[-2] in _VOWELS and verb[-1] not in _VOWELS | set("wxy"):
        return verb + verb[-1] + "ing"
    return verb + "ing"


@functools.lru_cache(maxsize=1024)
def _question_doc(text: str) -> Any:
    """The spaCy parse of a question (or its need), shared by ``analyze_question`` and ``list_question``;
    None when spaCy fails."""
    try:
        return _nlp()(text)
    except Exception as exc:  # noqa: BLE001  # pragma: no cover - spaCy is a declared dependency; any failure degrades
        log.warning("question analysis without spaCy: %s", exc)
        return None


#: Nouns that only classify the noun after "of" ("what kind of art", "which types of pottery"): the
#: question's content is the art, not the kind ("kind" otherwise meets every "your kind words").
_CLASSIFIERS = frozenset({"kind", "type", "sort"})
#: Named entity types of dates, times and numbers: rare-word expansion leaves their words alone ("June"
#: would expand to the other months, "last week" to the weekdays: a date's neighbours are other dates,
#: never what the question asks).
_QUANTITY_ENTITIES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"})


def _is_classifier(token: Any) -> bool:
    """Whether the token is a classifier ("kind", "types", "sort") right before "of"."""
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return token.lemma_.lower() in _CLASSIFIERS and following is not None and following.lower_ == "of"


@functools.lru_cache(maxsize=4096)
def analyze_question(
    need: str, people: tuple[str, ...], expandable_pos: frozenset[str] = DEFAULT_DIALOGUE_CONFIG.expandable_pos
) -> QueryTerms:
    """Content words of the need plus their lemmas ("painted" also searches "paint"), without function
    words, classifiers ("kind of") or the people's names; the -ing forms of its verbs; and the dense
    query text (the need without the names). The words rare-word expansion may expand are those of the
    parts of speech ``expandable_pos`` (``DialogueRecallConfig.expandable_pos``).

    The index holds each turn's lemmas too (``graphmem.write.turns.turn_search_text``), so a question's
    "painted" meets a turn's "I paint" through the lemma. A turn's noun "painting" ("my latest painting",
    "we went camping") keeps its -ing form as its lemma, which only the question verb's -ing form meets.
    """
    names = name_parts(people)
    terms: list[str] = []
    gerunds: list[str] = []
    expandable: list[str] = []
    doc = _question_doc(need)
    if doc is not None:
        tokens = [
            (t.text, t.lemma_, t.pos_, t.pos_ in expandable_pos and t.ent_type_ not in _QUANTITY_ENTITIES)
            for t in doc
            if not t.is_punct and not t.is_space and not _is_classifier(t)
        ]
    else:  # pragma: no cover - spaCy is a declared dependency; degrade to plain words
        tokens = [(w, w, "", True) for w in analyze(need)]
    for text, lemma, pos, may_expand in tokens:
        for word in analyze(text):
            base = re.sub(r"['’]s$", "", word)
            if word in FUNCTION_WORDS or base in names or len(base) < 2 or not re.search(r"\w", word):
                continue  # also the "s" of a split possessive
            terms.append(word)
            if may_expand:
                expandable.append(word)
        for word in analyze(lemma):
            if word not in FUNCTION_WORDS and word not in names and len(word) >= 2:
                terms.append(word)
                if may_expand:
                    expandable.append(word)
                if pos == "VERB" and word.isalpha() and len(word) >= 3:
                    gerunds.append(gerund(word))
    lexical = tuple(dict.fromkeys(terms))
    gerund_terms = tuple(g for g in dict.fromkeys(gerunds) if g not in lexical)
    return QueryTerms(lexical, strip_names(need, people), gerund_terms, tuple(dict.fromkeys(expandable)))


_WH_WORDS = frozenset({"what", "which", "where", "who"})


@functools.lru_cache(maxsize=4096)
def list_question(question: str) -> bool:
    """Whether the question asks for a list of things gathered over the history, by its form alone:

    * a wh-determiner or "many" on a plural noun: "What books...", "Which cities...", "In what ways...",
      "How many times...";
    * a plural copula after the wh-word: "What are X's pets' names?";
    * the present perfect right after the wh-word, which asks over the whole past: "What has X painted?",
      "Where has X camped?" (not "How long have they been married?");
    * two people compared: "both", "in common".

    >>> list_question("What books has Melanie read?"), list_question("What did Melanie read yesterday?")
    (True, False)
    """
    doc = _question_doc(question)
    if doc is None:  # pragma: no cover - spaCy is a declared dependency
        return False
    words = [t for t in doc if not t.is_punct and not t.is_space]
    if len(words) < 2:
        return False
    for t in words:
        if t.lower_ in ("what", "which", "many") and t.head.tag_ == "NNS" and t.dep_ in ("det", "amod"):
            return True
        if t.lower_ == "both" or (t.lower_ == "common" and t.i > 0 and doc[t.i - 1].lower_ == "in"):
            return True
    opening = words[0].lower_ in _WH_WORDS
    if opening and words[1].lower_ in ("are", "were"):
        return True
    for t in words[1:4]:
        if opening and t.lower_ in ("has", "have") and t.dep_ == "aux" and t.head.tag_ == "VBN" and t.head.lower_ != "been":
            return True
    return False
