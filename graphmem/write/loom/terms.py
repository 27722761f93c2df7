"""Content terms of a parse, shared by the loom's decider, its extractor and the trace weaver: which
words say what a turn is about (nouns, names, entities, verbs of action) and which say nothing (generic
nouns, light and stative verbs, the speakers' own names)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "ENTITY_LABELS",
    "GENERIC_NOUNS",
    "LIGHT_VERBS",
    "PLAN_VERBS",
    "STATIVE_VERBS",
    "content_terms",
    "is_name_of",
    "normalize_for_parse",
]

# Casual contractions the small spaCy model mis-parses ("Gonna" becomes a noun).
_CONTRACTIONS = (
    (re.compile(r"\bgonna\b", re.IGNORECASE), "going to"),
    (re.compile(r"\bwanna\b", re.IGNORECASE), "want to"),
    (re.compile(r"\bgotta\b", re.IGNORECASE), "got to"),
)

# Nouns so common in any conversation that sharing them says nothing about the topic.
GENERIC_NOUNS: frozenset[str] = frozenset(
    {
        "thing", "stuff", "time", "lot", "day", "way", "people", "kind", "bit", "sort", "part", "one", "guy",
        "life", "world", "moment", "idea", "fun", "today", "tomorrow", "yesterday", "week", "weekend", "month",
        "year", "night", "morning", "evening", "something", "anything", "everything", "nothing", "someone",
        "anyone", "everyone", "thanks", "thank", "yeah", "hey", "wow", "lol", "omg", "photo", "picture", "pic",
        "pics", "image", "look", "chance", "place", "word", "feeling", "sense", "reason", "question", "answer",
        "point", "end", "start", "other", "others", "while", "minute", "hour", "yep", "yup", "nope", "yay",
        "haha", "hmm", "congrat", "congrats", "bye", "whoa", "man", "dude", "kinda", "sorta", "gonna", "wanna",
        "glad", "good", "sure", "okay", "btw", "awesome"
    }
)

# Verbs that carry no topic (cohesion) and no event (extraction) on their own.
LIGHT_VERBS: frozenset[str] = frozenset(
    {
        "be", "have", "do", "go", "get", "make", "take", "come", "put", "give", "let", "say", "see", "know",
        "talk", "chat", "speak"
    }
)

# Verbs of state, feeling or opinion: "I love it", "I think so" are not events (Membox's rule 3.3).
STATIVE_VERBS: frozenset[str] = frozenset(
    {
        "be", "have", "feel", "think", "know", "love", "like", "hope", "mean", "guess", "bet", "wish", "seem",
        "sound", "thank", "agree", "appreciate", "believe", "understand", "want", "need", "enjoy", "care",
        "matter", "say", "remember", "miss", "admire", "hate", "mind", "suppose", "imagine", "realize",
        "wonder", "appear", "consider", "hear", "tell", "ask"
    }
)

# Verbs whose infinitive complement is a plan: "planning to adopt", "going to paint", "decided to move".
PLAN_VERBS: frozenset[str] = frozenset(
    {"plan", "go", "decide", "intend", "aim", "prepare", "start", "begin", "try", "schedule", "arrange"}
)

# spaCy entity labels of things a topic can be about (not dates, amounts or numbers).
ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "WORK_OF_ART", "PRODUCT", "LANGUAGE"}
)


def normalize_for_parse(text: str) -> str:
    """Spell out casual contractions the small spaCy model mis-parses.

    >>> normalize_for_parse("Gonna paint tomorrow")
    'going to paint tomorrow'
    """
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def is_name_of(word: str, speakers: Iterable[str]) -> bool:
    """True if ``word`` is a speaker's name or a nickname prefix of it ("Mel" for "Melanie").

    >>> is_name_of("Mel", ["Melanie Smith"]), is_name_of("me", ["Melanie"])
    (True, False)
    """
    word = word.lower()
    for speaker in speakers:
        for part in speaker.lower().split():
            if word == part or (len(word) >= 3 and part.startswith(word)):
                return True
    return False


def content_terms(doc: Any, speakers: Iterable[str] = (), verbs: bool = False) -> frozenset[str]:
    """Lower-cased content lemmas (nouns, proper nouns, optionally non-light verbs) and entities of a parse.

    Speakers' names are left out: they are vocatives in every box and say nothing about the topic.

    >>> from graphmem.nlp import load_nlp
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
            if lemma in GENERIC_NOUNS or is_name_of(lemma, speakers):
                continue
            terms.add(lemma)
        elif verbs and token.pos_ == "VERB" and lemma not in LIGHT_VERBS and lemma not in STATIVE_VERBS:
            terms.add(lemma)
    for ent in doc.ents:
        if ent.label_ in ENTITY_LABELS and not is_name_of(ent.text, speakers):
            terms.add(ent.text.lower())
    return frozenset(terms)
