"""Extraction at sealing: a box's topic, events and keywords from spaCy parses of its turns, without an
LLM (``graphmem.write.loom.llm.LLMBoxExtractor`` asks one, and falls back to this).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.nlp import load_nlp
from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.events import events_of
from graphmem.write.loom.prepare import split_photo
from graphmem.write.loom.records import LoomTurn, SealedBox
from graphmem.write.loom.terms import (
    ENTITY_LABELS,
    GENERIC_NOUNS,
    LIGHT_VERBS,
    STATIVE_VERBS,
    is_name_of,
    normalize_for_parse,
)

__all__ = ["BoxExtractor"]

# Praise words that decorate a noun chunk without naming the topic ("an amazing support group").
_EVALUATIVE_ADJECTIVES: frozenset[str] = frozenset(
    {
        "great", "good", "amazing", "awesome", "cool", "nice", "beautiful", "lovely", "special", "wonderful",
        "incredible", "fantastic", "huge", "big", "little", "small", "new", "old", "best", "better",
        "favorite", "fun", "interesting", "inspiring", "powerful", "happy", "sad", "tough", "hard", "real",
        "exciting", "excited", "kinda"
    }
)


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

    def __init__(self, nlp: Any = None, config: LoomConfig = DEFAULT_LOOM_CONFIG) -> None:
        self._nlp = nlp
        self.config = config

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
        config = self.config
        keywords = [term for term, _ in salience[:config.max_keywords]]
        if len(keywords) < config.min_keywords:
            # A chit-chat box ("Thanks!" "Glad to help!") has few nouns; its adjectives and verbs still
            # say what it is about, better than an empty keyword list.
            for term in _fallback_terms(docs, speakers):
                if len(keywords) >= config.min_keywords:
                    break
                if term not in keywords:
                    keywords.append(term)
        topic = _topic(docs + caption_docs, dict(salience), speakers)
        events: list[str] = []
        for doc in docs:
            for event in events_of(doc, config):
                if len(events) >= config.max_events_per_box:
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
                if ent.label_ in ENTITY_LABELS and not is_name_of(ent.text, speakers):
                    found.add(ent.text.lower())
            for token in doc:
                if token.pos_ != "PROPN" or not token.is_alpha or len(token.text) <= 2:
                    continue
                if not is_name_of(token.text, speakers):
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
            if lemma in GENERIC_NOUNS or is_name_of(lemma, speakers):
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
            if lemma in GENERIC_NOUNS or lemma in LIGHT_VERBS or is_name_of(lemma, speakers) or lemma in terms:
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
            words = [t for t in words if not is_name_of(t.text, speakers)]
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
