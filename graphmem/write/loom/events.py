"""Explicit events and plans of a parsed turn, read from spaCy's dependency parse (Membox's event
rules without an LLM): first-person or named actions with their objects, in the past ("went to a LGBTQ
support group yesterday"), ongoing ("taking a pottery class") or planned ("planning to adopt a child",
"going to paint"); questions, negations, conditions, wishes and states of mind are not events.

>>> from graphmem.nlp import load_nlp
>>> events_of(load_nlp()("Last week I went to a pride parade. I love it!"))
['went to a pride parade last week']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.terms import (
    GENERIC_NOUNS,
    LIGHT_VERBS,
    PLAN_VERBS,
    STATIVE_VERBS,
)

__all__ = ["events_of"]

_FILLER_ADVERBS: frozenset[str] = frozenset(
    {
        "just", "really", "so", "actually", "also", "finally", "totally", "definitely", "even", "still", "too",
        "very", "pretty", "literally", "honestly", "basically", "already", "always", "never", "ever", "kinda",
        "sorta", "quite", "truly", "seriously", "btw", "unfortunately", "hopefully"
    }
)


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
        if child.dep_ == "prep" and child.lower_ in ("about", "of") and any(
            g.dep_ == "pcomp" and g.tag_ == "VBG" for g in child.children
        ):
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


def _event_tokens(verb: Any, kind: str, max_tokens: int) -> list[Any]:
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
            if (
                top and child.i < verb.i and dep not in ("aux", "auxpass")
                and not any(t.ent_type_ in ("DATE", "TIME") for t in child.subtree)
            ):
                continue  # "Unfortunately", "Mel," frame the clause; only a time ("Last week") is kept
            walk(child)

    walk(verb)
    kept.sort(key=lambda t: t.i)
    head_start = min((t.i for t in kept if t.i >= verb.i or t.dep_ in ("aux", "auxpass")), default=verb.i)
    before = [t for t in kept if t.i < head_start]
    return [t for t in kept if t.i >= head_start][:max_tokens] + before[:4]


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


def events_of(doc: Any, config: LoomConfig = DEFAULT_LOOM_CONFIG) -> list[str]:
    """Explicit events and plans of one parsed turn, each a short phrase (at most
    ``config.max_event_tokens`` tokens, and a moved time phrase)."""
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
            tokens = _event_tokens(verb, kind, config.max_event_tokens)
            if not _has_content(verb, tokens):
                continue
            phrase = _render(tokens, subject, kind)
            if len(phrase.split()) >= 2:
                events.append(phrase)
    return events
