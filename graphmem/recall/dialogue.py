"""Validity-aware recall over dialogue (RaMem) with topic boxes and traces (Membox).

1. Induce the recall frame: the information need, and a time window / people when the question names
   them and grounding against the history's own dates is confident.
2. Analyse the need: content words and their lemmas for full-text search (function words and the names
   of the conversation's people left out), plus the -ing form of its verbs ("painted" also searches
   "painting"), and the need without those names for the dense query. A question asking for a list
   ("What books has X read?", "Where has X camped?") is told apart by its form (see ``list_question``).
3. Content candidates: full-text and vector hits on turns, the turns of the best topic boxes and, when
   asked, of the boxes that share a trace with them; and full-text hits for the neighbours of the
   question's rare words, those (almost) none of its own full-text hits contain ("art" against a history
   that says "painting"; ``graphmem.recall.expansion``). Each candidate is scored by a weighted sum of
   its lexical score (BM25 over the best hit, plus a share of the expansion's; weighted less for a list
   question), its cosine, its box's cosine, and a bonus when a person the question names is its speaker. Scores then flow along the
   dialogue: a reply inherits most of the score of the question it answers, and a turn some of its
   neighbours' (the answer to "what did X paint?" is often "a sunset!" right after the turn that says
   "painting").
4. Validity before relevance: candidates whose session interval or event time fits the window come
   first; the other content matches follow as fallback. The window's turns and sessions are read with
   the dialogue's longest session and event time as bounds (kept on its Episode), so the reads seek
   only what can overlap the window, however long the history.
5. Pack greedily under the budget. Lines are compact: the session date once per session group, then
   ``speaker: text`` with the grounded event time; a long turn is cut to its sentences that match the
   question, a skip between two of them marked with "…" (see ``trim_turn``). The turn ids go with the
   evidence (``Evidence.lines``), and into the text with ``context="full"``.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from graphmem.embed import Embedder
from graphmem.recall.frames import RecallFrame, induce_frame
from graphmem.recall.expansion import expand, rare_terms, unknown_terms
from graphmem.recall.packer import Evidence, PackItem, Packer, pack
from graphmem.recall.parallel import together
from graphmem.store.protocol import GraphStore, Hit, node_key
from graphmem.store.text_index import FUNCTION_WORDS, analyze, stem_match
from graphmem.tokens import count_line_tokens

log = logging.getLogger(__name__)
_TURN_PREFIX = node_key("Turn", "")

#: Turn candidates from full-text search, as deep as the dense list. Deeper lexical hits mostly add weak
#: matches that crowd the fused ranking (a whole LoCoMo conversation is ~400-700 turns): LoCoMo dev
#: categories 1-4 at 150/300/600/1200 tokens, depth 100 -> 0.731/0.831/0.877/0.917, 80 -> the same but
#: 0.918 @1200, 60 -> .../0.882/0.924, 50 -> .../0.882/0.929, 40 -> 0.717/0.827/0.874/0.922. Each hit is
#: read with its properties: at 1M units (1,000 namespaces) the full-text query 5.2-6.4 -> 3.2-3.8 ms p50.
TURN_DEPTH = 50
#: Turn candidates from vector search. Shallower than the full-text list: the HNSW query's cost grows
#: with its depth (at 1M turns, keys only: fetch 150 ~19-22 ms, 75 ~13 ms; a dialogue recall 8-10 ms
#: faster at p50), while past ~50 the dense list's turns are rarely decisive. LoCoMo dev @600 with 20
#: flow sources: depth 100 -> 0.880 (multi-hop 0.670), 70 -> 0.878 (0.659), 50 -> 0.877 (0.655);
#: @1200: 0.920, 0.921, 0.916. The multi-hop differences are one question's partial recall.
DENSE_DEPTH = 50
#: Boxes retrieved by vector search; their cosine is every member turn's topical context.
BOX_DEPTH = 30
#: Boxes whose member turns join the candidates even when no turn-level search found them.
BOX_MEMBERS = 8
#: Boxes whose traces are expanded (Membox expands from the top retrieved boxes only).
TRACE_SEEDS = 2
#: Lexical weight; BM25 is divided by the best hit's score so that it lives on the cosine's scale.
W_LEXICAL = 1.0
#: Lexical weight for a question that asks for a list (``list_question``). Its words name the category
#: ("What activities...", "What books...", "What has X painted?") while its answers name instances ("went
#: swimming", "Charlotte's Web", a photo of a sunset): the words mostly meet talk *about* the category,
#: and the dense and topic (box) similarity, which relate a category to its instances, should lead. On
#: LoCoMo dev multi-hop @600: 1.0 -> 0.63, 0.4 -> 0.67, gaining on both conversations; 0.3-0.5 alike.
LIST_W_LEXICAL = 0.4
#: Share of the lexical weight for full-text hits of the question's expanded rare words
#: (``graphmem.recall.expansion``; their BM25 is divided by the best expansion hit's). On LoCoMo dev
#: categories 1-4 at 150/300/600/1200 tokens (0.731/0.831/0.882/0.929 without): 0.2 ->
#: 0.735/0.835/0.893/0.929, 0.3 -> 0.735/0.842/0.893/0.929, 0.4 -> 0.735/0.842/0.893/0.929, 0.5 ->
#: 0.742/0.835/0.895/0.929; multi-hop at 600 tokens 0.655 -> 0.679 at 0.2-0.4.
W_EXPANSION = 0.3
#: Dense weight (cosine of MiniLM vectors of the need and the turn).
W_DENSE = 1.0
#: Box weight: the cosine of the turn's box (the normalized mean of its turns and events) with the need.
#: Many decisive turns ("They give me the strength to keep going") only say what they are about in the
#: turns around them; the box carries that topic.
W_BOX = 0.6
#: Trace expansion: a box sharing a trace with a top box gets this share of the seed box's cosine.
W_TRACE = 0.5
#: Bonus for a turn spoken by a person the question names: people answer questions about themselves
#: by talking about themselves (in LoCoMo ~96% of the gold turns of a one-person question are that
#: person's own), while the other speaker mostly reacts.
SPEAKER_BONUS = 0.5
#: A reply right after a question of the same session inherits this share of the question's score: the
#: question carries the topic words, the reply carries the answer ("Did you go hiking?" "Yup, yesterday!").
ANSWER_SHARE = 0.8
#: Any turn inherits this share of an adjacent turn's score in the same session: the exchange around a
#: hit often holds the fact the hit only alludes to.
NEIGHBOUR_SHARE = 0.5
#: Ranked turns offered to the packer (and valid turns read for a time window): at least this many, and
#: one per ``PACK_TOKENS_PER_TURN`` tokens of budget beyond it (see ``pack_candidates``).
PACK_CANDIDATES = 60
#: A turn's line is rarely shorter than this many tokens (a session's date and "Melanie: Thanks!"), so a budget
#: holds at most about budget / 8 lines: 150 candidates at 1,200 tokens, 500 at 4,000. On LoCoMo dev,
#: 60, 80, 100 and 150 candidates at every budget up to 1,200 give the same recall; at 1M units a time
#: window's read of 60 valid turns instead of 150 takes a millisecond or two off the slowest recalls.
PACK_TOKENS_PER_TURN = 8
#: Turns whose score flows to their neighbours (the best by content score). A neighbour of a lower
#: turn rarely climbs into the ranks a budget takes: on LoCoMo dev, 8, 15, 20, 30 and 60 sources gave the
#: same recall @600 (0.880, with a 100-deep dense list) and 10, 15, 20 and 30 the same at every budget
#: (with 50-deep lists); fewer sources read fewer neighbours (at 1M units: 2.2-2.3 -> 1.4-1.6 ms p50).
FLOW_SOURCES = 10
#: A turn line longer than this many tokens is trimmed to the question's sentences (when some match).
TRIM_MIN_TOKENS = 18
#: Sentences kept of a long turn in which no sentence matches the question (after its reactions).
KEEP_UNMATCHED = 1

# Chat reactions with no content of their own ("Wow, Caroline!", "Thanks so much!", "That's awesome!"):
# generic English small talk. A long turn drops such sentences first when it is trimmed.
_REACTION_WORDS = frozenset(
    """wow woah whoa oh ooh aw aww hey hi hello yay yeah yes yep yup nope no ok okay sure thanks thank thx congrats
    congratulations cool nice great awesome amazing wonderful fantastic incredible lovely sweet glad happy
    good fun love sounds sound lol haha omg totally definitely absolutely exactly agreed agree true right
    indeed bet super so much too really that's it's what's i'm you're""".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")
_CAPTION_PREFIX = re.compile(r"^(?:a\s+)?(?:photo|photograph|photography|picture|image)\s+of\s+", re.IGNORECASE)


@dataclass(frozen=True)
class DialogueRecall:
    evidence: Evidence
    frame: RecallFrame | None
    ranking: tuple[str, ...]
    #: The caller's turn id of each ranked key, in ranking order.
    uids: tuple[str, ...] = ()


@dataclass(frozen=True)
class QueryTerms:
    """What the question asks, as search sees it: full-text terms and the dense query text.

    ``gerunds`` are the -ing forms of the question's verbs ("painting" for "painted"): full-text search
    looks for them too, while a turn line is trimmed to the sentences with the question's own words.
    """

    lexical: tuple[str, ...]
    dense: str
    gerunds: tuple[str, ...] = ()
    #: The lexical terms that rare-word expansion may expand (``EXPANDABLE_POS``, no dates or numbers).
    expandable: tuple[str, ...] = ()


@functools.lru_cache(maxsize=4096)
def _day(ts: float | None) -> str:
    if ts is None:
        return "?"
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%-d %b %Y")


@functools.lru_cache(maxsize=4096)
def date_span(start: float, end: float | None = None) -> str:
    """A day range (epoch seconds, UTC) in as few words as say it exactly: a whole year or month by its
    name, shared month and year written once.

    >>> from datetime import datetime, timezone
    >>> def ts(y, m, d): return datetime(y, m, d, tzinfo=timezone.utc).timestamp()
    >>> date_span(ts(2023, 5, 7)), date_span(ts(2023, 8, 14), ts(2023, 8, 20))
    ('7 May 2023', '14-20 Aug 2023')
    >>> date_span(ts(2023, 8, 1), ts(2023, 8, 31)), date_span(ts(2022, 1, 1), ts(2022, 12, 31))
    ('Aug 2023', '2022')
    >>> date_span(ts(2023, 8, 28), ts(2023, 9, 3)), date_span(ts(2022, 12, 30), ts(2023, 1, 2))
    ('28 Aug to 3 Sep 2023', '30 Dec 2022 to 2 Jan 2023')
    """
    first = datetime.fromtimestamp(start, tz=timezone.utc).date()
    last = first if end is None else datetime.fromtimestamp(end, tz=timezone.utc).date()
    if last <= first:
        return _day(start)
    month_ends = (last + timedelta(days=1)).day == 1
    if first.year == last.year and (first.month, first.day) == (1, 1) and (last.month, last.day) == (12, 31):
        return str(first.year)
    if (first.year, first.month) == (last.year, last.month):
        if first.day == 1 and month_ends:
            return f"{first:%b %Y}"
        return f"{first.day}-{last.day} {last:%b %Y}"
    if first.year == last.year:
        return f"{first.day} {first:%b} to {last.day} {last:%b %Y}"
    return f"{first.day} {first:%b %Y} to {last.day} {last:%b %Y}"


def _history(store: GraphStore, namespace: str, episodes: Sequence[dict[str, Any]]) -> tuple[datetime, datetime] | None:
    """The dialogue history's first session start and last session end.

    The writer keeps both on each dialogue ``Episode``; a dialogue written before it did is read from
    its sessions instead.
    """
    dialogues = [e for e in episodes if e.get("kind") == "dialogue"]
    if not dialogues:
        return None
    if all(e.get("first_session_start") is not None and e.get("last_session_end") is not None for e in dialogues):
        first = min(float(e["first_session_start"]) for e in dialogues)
        last = max(float(e["last_session_end"]) for e in dialogues)
    else:
        sessions = store.sessions(namespace)
        if not sessions:
            return None
        first, last = min(s.start for s in sessions), max(s.end for s in sessions)
    return datetime.fromtimestamp(first, tz=timezone.utc), datetime.fromtimestamp(last, tz=timezone.utc)


def _longest(episodes: Sequence[dict[str, Any]], prop: str) -> float | None:
    """The longest session (``longest_session``) or event time (``longest_event``) over the dialogue
    episodes: bounds the window reads (``GraphStore.units_in_window``); None when one of them was written
    before graphmem kept it."""
    values = [e.get(prop) for e in episodes if e.get("kind") == "dialogue"]
    if not values or any(v is None for v in values):
        return None
    return max(float(v) for v in values)


def _name_parts(people: Sequence[str]) -> frozenset[str]:
    return frozenset(part.lower() for person in people for part in person.split() if part)


def strip_names(text: str, people: Sequence[str]) -> str:
    """The text without the people's names (and their possessive 's).

    A name says whose memory is asked about; the speaker bonus uses it. Left in the dense query it only
    pulls towards turns that address the person ("Hey Melanie!"), not towards what they did.

    >>> strip_names("What did Melanie's kids paint?", ["Melanie"])
    'What did kids paint?'
    """
    parts = sorted(_name_parts(people), key=len, reverse=True)
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
    except Exception as exc:  # pragma: no cover - spaCy is a declared dependency
        log.warning("question analysis without spaCy: %s", exc)
        return None


#: Nouns that only classify the noun after "of" ("what kind of art", "which types of pottery"): the
#: question's content is the art, not the kind ("kind" otherwise meets every "your kind words").
_CLASSIFIERS = frozenset({"kind", "type", "sort"})


#: Parts of speech whose words rare-word expansion may expand (``graphmem.recall.expansion``): content
#: words. Not proper nouns (a name's neighbours are other names) and not words of a date, time or number
#: ("June" would expand to the other months, "last week" to the weekdays: a date's neighbours are other
#: dates, never what the question asks). LoCoMo dev 1-4 at 150/300/600/1200 tokens:
#: any word 0.735/0.842/0.893/0.929; nouns, verbs and adjectives 0.739/0.842/0.893/0.929 (nouns and verbs
#: alike, with adverbs 0.735 at 150, nouns only 0.737/0.835/0.888/0.929).
EXPANDABLE_POS = frozenset({"NOUN", "VERB", "ADJ"})
_QUANTITY_ENTITIES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"})


def _is_classifier(token: Any) -> bool:
    """Whether the token is a classifier ("kind", "types", "sort") right before "of"."""
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return token.lemma_.lower() in _CLASSIFIERS and following is not None and following.lower_ == "of"


@functools.lru_cache(maxsize=4096)
def analyze_question(need: str, people: tuple[str, ...]) -> QueryTerms:
    """Content words of the need plus their lemmas ("painted" also searches "paint"), without function
    words, classifiers ("kind of") or the people's names; the -ing forms of its verbs; and the dense
    query text (the need without the names).

    The index holds each turn's lemmas too (``graphmem.write.turns.turn_search_text``), so a question's
    "painted" meets a turn's "I paint" through the lemma. A turn's noun "painting" ("my latest painting",
    "we went camping") keeps its -ing form as its lemma, which only the question verb's -ing form meets.
    """
    names = _name_parts(people)
    terms: list[str] = []
    gerunds: list[str] = []
    expandable: list[str] = []
    doc = _question_doc(need)
    if doc is not None:
        tokens = [
            (t.text, t.lemma_, t.pos_, t.pos_ in EXPANDABLE_POS and t.ent_type_ not in _QUANTITY_ENTITIES)
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


# --------------------------------------------------------------------------------------------------
# Serialization
# --------------------------------------------------------------------------------------------------


def session_header(start: float | None) -> str:
    """The group header: the session's date, written once for all its turns ("8 May 2023:")."""
    return f"{_day(start)}:"


@functools.lru_cache(maxsize=8192)
def _words(unit: str) -> tuple[str, ...]:
    """``analyze(unit)``, cached: recall trims the same few hundred turns' sentences question after question."""
    return tuple(analyze(unit))


@functools.lru_cache(maxsize=8192)
def _word_set(unit: str) -> frozenset[str]:
    return frozenset(_words(unit))


@functools.lru_cache(maxsize=64)
def _term_matcher(terms: tuple[str, ...]) -> Callable[[str], int]:
    """How many of the terms some word of a unit (a sentence, a caption) matches, for one question's terms;
    each word's matches are remembered (a question's trimming meets the same words in many sentences)."""
    by_word: dict[str, frozenset[int]] = {}

    def score(unit: str) -> int:
        matched: set[int] = set()
        for word in _word_set(unit):
            hits = by_word.get(word)
            if hits is None:
                hits = by_word[word] = frozenset(i for i, t in enumerate(terms) if stem_match(t, word))
            if hits:
                matched |= hits
        return len(matched)

    return score


def short_caption(caption: str) -> str:
    """A photo caption without its "a photo of" opening: "[photo: a lake]" says the same in fewer tokens."""
    return _CAPTION_PREFIX.sub("", caption.strip()) or caption.strip()


def _content_words(unit: str, names: frozenset[str]) -> int:
    return sum(1 for w in _words(unit) if w not in _REACTION_WORDS and w not in FUNCTION_WORDS and w not in names)


def _is_reaction(unit: str, names: frozenset[str]) -> bool:
    words = _words(unit)
    return bool(words) and all(w in _REACTION_WORDS or w in FUNCTION_WORDS or w in names for w in words)


def trim_turn(utterance: str, caption: str | None, terms: Sequence[str], names: frozenset[str] = frozenset()) -> tuple[str, bool]:
    """The turn's text for the evidence, and whether it was cut.

    A long turn keeps only its sentences and photo caption that share a word with the question, in
    their order; a long turn with no matching sentence keeps its most contentful sentence (not its
    reactions: "Wow, Mel!", "Thanks so much!"). A short turn is written whole, its photo caption (the
    dataset's description of a shared picture, not the speaker's words) too unless neither the caption
    nor the text shares a word with the question: a turn the question's words do not reach lends its
    picture nothing. This is legitimate compression, not invention: every kept word is the speaker's
    own, the turn's context (speaker, session date, event time) always stays, and a "…" between two kept
    sentences marks where the turn skips some (not at the line's ends: what a line leaves out before or
    after changes nothing in how it reads).
    """
    units = [u for u in _SENTENCE_END.split(utterance.strip()) if u]
    unit_score = _term_matcher(tuple(terms))
    scored = [(unit_score(u), u) for u in units] if terms else []
    photo = f"[photo: {short_caption(caption)}]" if caption else None
    photo_score = unit_score(caption) if caption and terms else 0
    text_matches = any(score > 0 for score, _ in scored)
    dropped_photo = photo is not None and bool(terms) and photo_score <= 0 and not text_matches
    if dropped_photo:
        photo = None
    full = utterance.strip() + (f" {photo}" if photo else "")
    if not terms or count_line_tokens(full) <= TRIM_MIN_TOKENS:
        return full, dropped_photo
    if not text_matches and photo_score <= 0:
        # Nothing matches the question: keep the turn's most contentful sentences (KEEP_UNMATCHED of them,
        # by number of content words; reactions and greetings have few).
        richness = sorted(range(len(units)), key=lambda i: (-_content_words(units[i], names), i))
        content = [i for i in richness if not _is_reaction(units[i], names)][:KEEP_UNMATCHED]
        scored = [(1 if i in content else 0, u) for i, u in enumerate(units)]
    keep_photo = photo is not None and photo_score > 0
    if not dropped_photo and all(score > 0 for score, _ in scored) and (photo is None or keep_photo):
        return full, False
    pieces: list[str] = []
    gap = False
    for score, unit in scored:
        if score <= 0:
            gap = True
        else:
            if gap and pieces:
                pieces.append("…")
            pieces.append(unit)
            gap = False
    if photo is not None and keep_photo:
        pieces.append(photo)
    if not pieces:
        pieces = ["…"]  # a long run of reactions only: the line says that the turn said something
    return " ".join(pieces), True


def turn_opening(props: dict[str, Any], topic: str | None = None) -> str:
    """What a turn's line opens with: ``speaker:``; with a ``topic`` (the full context serialization),
    the turn id first and the people the turn mentions and its box's topic after the speaker:
    ``[id] speaker (mentions A, B; topic: T):``. The compact line leaves the id to ``Evidence.lines``: an
    answering model reads nothing in it, and it costs a sixth of a compact line ("[D14:25]" is 5 tokens).
    """
    speaker = str(props.get("speaker", "?"))
    if topic is None:
        return f"{speaker}:"
    context = []
    mentioned = [p for p in json.loads(props.get("payload") or "{}").get("participants", []) if p != speaker]
    if mentioned:
        context.append("mentions " + ", ".join(mentioned))
    if topic:
        context.append(f"topic: {topic}")
    who = f"{speaker} ({'; '.join(context)})" if context else speaker
    return f"[{props['uid']}] {who}:"


def turn_line(
    props: dict[str, Any],
    terms: Sequence[str] = (),
    names: frozenset[str] = frozenset(),
    topic: str | None = None,
    opening: str | None = None,
) -> str:
    """``speaker: text [photo: caption] (event D)``; trimmed to the question's sentences when long.
    ``opening`` is ``turn_opening(props, topic)`` when the caller has it already."""
    text, _ = trim_turn(str(props.get("utterance", "")), props.get("image_caption"), terms, names)
    line = f"{opening if opening is not None else turn_opening(props, topic)} {text}"
    if props.get("event_start") is not None:
        line += f" (event {date_span(props['event_start'], props.get('event_end'))})"
    return line


# --------------------------------------------------------------------------------------------------
# Recall
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidWindow:
    """The recall frame's time window as validity sees it: its bounds (epoch seconds) and the keys of the
    sessions whose interval overlaps it (``GraphStore.sessions_in_window``)."""

    start: float
    end: float
    sessions: frozenset[str]

    def holds(self, turn: dict[str, Any]) -> bool:
        """A turn is valid when its session overlaps the window or its event time falls in it."""
        session = turn.get("session")
        if session is not None and node_key("Session", str(session)) in self.sessions:
            return True
        ev_start, ev_end = turn.get("event_start"), turn.get("event_end")
        return ev_start is not None and ev_end is not None and ev_start <= self.end and ev_end >= self.start


def pack_candidates(budget: int) -> int:
    """How many ranked turns the packer is offered for a budget: ``PACK_CANDIDATES``, or one per
    ``PACK_TOKENS_PER_TURN`` tokens when the budget could hold more lines than that.

    >>> pack_candidates(300), pack_candidates(1200), pack_candidates(4000)
    (60, 150, 500)
    """
    return max(PACK_CANDIDATES, budget // PACK_TOKENS_PER_TURN)


def _cosine(hit_score: float) -> float:
    """The store's vector score is ``(1 + cos) / 2``; back to the cosine."""
    return 2.0 * hit_score - 1.0


def _content_scores(
    store: GraphStore,
    namespace: str,
    query: QueryTerms,
    vector: Any,
    use_boxes: bool,
    use_traces: bool,
    w_lexical: float = W_LEXICAL,
    expansion: Expansion | None = None,
) -> tuple[dict[str, float], dict[str, dict[str, Any]]]:
    """Content score of each candidate turn, before people and the dialogue flow; and the turns' nodes.
    With an ``expansion``, the question's rare words are expanded (``_expansion_hits``)."""
    lexical, dense, box_hits = together(
        lambda: store.fulltext(namespace, " ".join(query.lexical + query.gerunds), TURN_DEPTH, with_props=True) if query.lexical else [],
        lambda: store.vector(namespace, vector, DENSE_DEPTH, label="Turn", with_props=True),
        lambda: store.vector(namespace, vector, BOX_DEPTH, label="Box") if use_boxes else [],
    )
    lexical = _turns_only(lexical)
    best_bm25 = max((h.score for h in lexical), default=0.0)
    bm25 = {h.key: h.score / best_bm25 for h in lexical} if best_bm25 > 0 else {}
    expanded = _expansion_hits(store, namespace, query, lexical, expansion) if expansion is not None else []
    best_expanded = max((h.score for h in expanded), default=0.0)
    if best_expanded > 0:
        for h in expanded:
            bm25[h.key] = bm25.get(h.key, 0.0) + W_EXPANSION * h.score / best_expanded
    cos = {h.key: _cosine(h.score) for h in dense}
    # A turn outside the dense list is at most as close as the last one in it.
    cos_floor = min(cos.values(), default=0.0)
    candidates: dict[str, None] = dict.fromkeys([*bm25, *cos])

    box_cos: dict[str, float] = {}
    box_floor = 0.0
    if use_boxes:
        box_cos = {h.key: _cosine(h.score) for h in box_hits}
        box_floor = min(box_cos.values(), default=0.0)
        top_boxes = [h.key for h in box_hits[:BOX_MEMBERS]]
        expand = list(top_boxes)
        if use_traces and top_boxes:
            # A box on the same trace as a top box (the same activity in another session) inherits a
            # share of the seed's cosine, and its turns join the candidates.
            seeds = top_boxes[:TRACE_SEEDS]
            related = store.trace_boxes(namespace, seeds)
            for seed in seeds:
                for other in related.get(seed, []):
                    box_cos[other] = max(box_cos.get(other, box_floor), W_TRACE * box_cos[seed])
                    expand.append(other)
        for turns in store.box_members(namespace, list(dict.fromkeys(expand))).values():
            for turn in turns:
                candidates.setdefault(turn, None)

    # The searches brought their hits' nodes; only the boxes' other turns are read here.
    nodes = {h.key: dict(h.props) for h in (*lexical, *expanded, *dense) if h.props is not None}
    unread = [key for key in candidates if key not in nodes]
    if unread:
        nodes.update(store.get_nodes(namespace, unread))
    box_of = {key: props["box"] for key, props in nodes.items() if props.get("box")}
    if use_boxes:
        # Turns written before graphmem kept their box on the turn: ask the graph.
        unknown = [k for k in nodes if k not in box_of and "box" not in nodes[k] and k.startswith(_TURN_PREFIX)]
        if unknown:
            box_of.update(store.boxes_of(namespace, unknown))

    scores: dict[str, float] = {}
    for key in candidates:
        score = w_lexical * bm25.get(key, 0.0) + W_DENSE * cos.get(key, cos_floor)
        if use_boxes:
            score += W_BOX * box_cos.get(box_of.get(key, ""), box_floor)
        scores[key] = score
    return scores, nodes


@dataclass(frozen=True)
class Expansion:
    """What rare-word expansion needs: the embedder, and the vectors of the question's words that the
    expansion vocabulary lacks (embedded with the question)."""

    embedder: Embedder
    vectors: dict[str, Any]


def _expansion_hits(store: GraphStore, namespace: str, query: QueryTerms, lexical: Sequence[Hit], expansion: Expansion) -> list[Hit]:
    """Full-text hits for the neighbours of the question's rare words (``graphmem.recall.expansion``):
    words that at most ``expansion.MAX_HITS`` of the question's own full-text hits contain."""
    texts = [f"{h.props.get('utterance', '')} {h.props.get('image_caption') or ''}" for h in lexical if h.props is not None]
    rare = rare_terms(query.expandable, texts)
    words = expand(rare, query.lexical + query.gerunds, expansion.embedder, vectors=expansion.vectors)
    if not words:
        return []
    return _turns_only(store.fulltext(namespace, " ".join(words), TURN_DEPTH, with_props=True))


def _turns_only(hits: Sequence[Hit]) -> list[Hit]:
    """The turns among full-text hits: a namespace that holds an agent's steps too searches them in the
    same index, and a step is no dialogue evidence."""
    turn = node_key("Turn", "")
    return [h for h in hits if h.key.startswith(turn)]


def _flow(store: GraphStore, namespace: str, scores: dict[str, float], nodes: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Let scores flow to adjacent turns of the same session (see ``ANSWER_SHARE`` and ``NEIGHBOUR_SHARE``).

    Only the best ``FLOW_SOURCES`` turns pass score on: a share of a lower score never reaches the ranks
    the packer takes.
    """
    sources = sorted(scores, key=lambda k: (-scores[k], k))[:FLOW_SOURCES]
    neighbourhood = store.neighbours(namespace, sources, 1, 1, with_props=True)
    around = neighbourhood.chains
    for key, props in neighbourhood.nodes.items():
        nodes.setdefault(key, dict(props))
    flowed = dict(scores)
    for key in sources:
        score = scores[key]
        chain = around.get(key, [key])
        position = chain.index(key) if key in chain else 0
        props = nodes.get(key, {})
        session = props.get("session")
        is_question = "?" in str(props.get("utterance", ""))
        for offset, other in enumerate(chain):
            if other == key or nodes.get(other, {}).get("session") != session:
                continue
            share = NEIGHBOUR_SHARE
            if offset > position and is_question and nodes[other].get("speaker") != props.get("speaker"):
                share = ANSWER_SHARE  # the reply to a question
            flowed[other] = max(flowed.get(other, float("-inf")), share * score)
    return flowed


def recall_dialogue(
    store: GraphStore,
    embedder: Embedder,
    namespace: str,
    question: str,
    budget: int,
    use_frames: bool = True,
    use_boxes: bool = True,
    use_traces: bool = True,
    use_expansion: bool = True,
    episode: str | None = None,
    episodes: Sequence[dict[str, Any]] | None = None,
    context: str = "compact",
) -> DialogueRecall:
    """Evidence for a question about a dialogue history; ``episodes`` saves a read when the caller has them.

    ``context="compact"`` (the default) writes each session's date once and each turn's speaker and event
    time; ``context="full"`` also writes each session's interval (start to end) and each turn's id,
    mentioned people and topic, at a cost in tokens (fewer turns fit a budget). Either way
    ``evidence.lines`` pairs each packed line with its turn id.
    """
    if context not in ("compact", "full"):
        raise ValueError(f"context must be 'compact' or 'full', got {context!r}")
    if episodes is None:
        episodes = store.episode_nodes(namespace, kind="dialogue")
    history = _history(store, namespace, episodes)
    if history is None:
        return DialogueRecall(pack([], budget), None, ())
    hist_start, hist_end = history
    if use_boxes and all(int(ep.get("box_count", 1)) == 0 for ep in episodes):
        # Written without topic boxes (``Memory(boxes=False)``): no box search to wait for.
        use_boxes = False
    speakers: set[str] = set()
    for ep in episodes:
        speakers.update(json.loads(ep.get("speakers", "[]")))
    known = sorted(speakers)
    frame = induce_frame(question, hist_start, hist_end, known) if use_frames else None
    need = frame.need if frame is not None and frame.need.strip() else question
    if frame is not None and frame.reference:
        # "after the roadtrip": the frame takes the relation out of the need, but the event it points at
        # is what the answer's neighbourhood talks about.
        need = f"{need} {frame.reference}"
    people = set(frame.people) if frame is not None else set(induce_frame(question, hist_start, hist_end, known).people)

    query = analyze_question(need, tuple(known))
    w_lexical = LIST_W_LEXICAL if list_question(need) else W_LEXICAL  # the need's parse is analyze_question's
    # Expandable question words the expansion vocabulary lacks are embedded with the question, in one
    # model call, in case the full-text hits show them rare (``_expansion_hits``).
    unknown = unknown_terms(query.expandable, embedder) if use_expansion else []
    vectors = embedder.embed([query.dense, *unknown])
    vector = vectors[0]
    expansion = Expansion(embedder, dict(zip(unknown, vectors[1:]))) if use_expansion else None
    offer_limit = pack_candidates(budget)
    window: ValidWindow | None = None
    filler: dict[str, dict[str, Any]] = {}
    if frame is not None and frame.confident and frame.start is not None and frame.end is not None:
        start, end = frame.start.timestamp(), frame.end.timestamp()
        longest_session, longest_event = _longest(episodes, "longest_session"), _longest(episodes, "longest_event")
        (content, nodes), filler, sessions = together(
            lambda: _content_scores(store, namespace, query, vector, use_boxes, use_traces, w_lexical, expansion),
            lambda: store.units_in_window(namespace, start, end, offer_limit, longest_session, longest_event),
            lambda: store.sessions_in_window(namespace, start, end, longest_session),
        )
        window = ValidWindow(start, end, frozenset(sessions))
    else:
        content, nodes = _content_scores(store, namespace, query, vector, use_boxes, use_traces, w_lexical, expansion)

    # Content flows along the dialogue first; the speaker bonus is the receiving turn's own (a reaction
    # of the other speaker to a named person's turn does not inherit that person's bonus).
    scored = _flow(store, namespace, {k: v for k, v in content.items() if k in nodes}, nodes)
    if people:
        for key in scored:
            if nodes.get(key, {}).get("speaker") in people:
                scored[key] += SPEAKER_BONUS
    valid: set[str] = set()
    if window is not None:
        valid = {k for k in scored if window.holds(nodes.get(k, {}))}
        # Valid turns that no content search reached still compete, at the bottom of the valid tier (as
        # many as the packer could take).
        floor = min(scored.values(), default=0.0) - 1.0
        extra = [k for k in filler if k not in scored][: max(0, offer_limit - len(valid))]
        for key in extra:
            nodes.setdefault(key, filler[key])
            scored[key] = floor
            valid.add(key)

    def rank_key(key: str) -> tuple[int, float, str]:
        tier = 0 if (window is None or key in valid) else 1
        return tier, -scored[key], key

    ranking = [k for k in sorted(scored, key=rank_key) if k in nodes and nodes[k].get("uid")]
    names = _name_parts(known)
    offered = ranking[:offer_limit]
    context_nodes: dict[str, dict[str, Any]] = {}
    if context == "full":
        # The sessions' intervals and the boxes' topics of the offered turns, in one read.
        wanted = {node_key("Session", str(nodes[k]["session"])) for k in offered if nodes[k].get("session")}
        wanted |= {str(nodes[k]["box"]) for k in offered if nodes[k].get("box")}
        context_nodes = store.get_nodes(namespace, sorted(wanted))
    # Lines are written as the packer takes them: a turn whose opening alone no longer fits is skipped
    # without trimming its text (most offered turns, once the budget is nearly full).
    packer = Packer(budget)
    for key in offered:
        props = nodes[key]
        start = props.get("session_start")
        header = session_header(float(start)) if start is not None else ""
        topic = None
        if context == "full":
            session = context_nodes.get(node_key("Session", str(props.get("session"))), {})
            if start is not None and session.get("end") is not None and _day(session["end"]) != _day(float(start)):
                header = f"{_day(float(start))} to {_day(float(session['end']))}:"
            topic = str(context_nodes.get(str(props.get("box") or ""), {}).get("topic") or "")
        opening = turn_opening(props, topic)
        if not packer.may_fit(opening):
            continue
        line = turn_line(props, query.lexical, names, topic, opening)
        packer.offer(PackItem(props["uid"], line, order=float(props.get("seq", 0)), header=header))
    return DialogueRecall(packer.evidence(), frame, tuple(ranking), tuple(str(nodes[k]["uid"]) for k in ranking))


def recall_turns(store: GraphStore, embedder: Embedder, namespace: str, question: str, budget: int, **options: Any) -> Evidence:
    """Evidence for a question about a dialogue history (see ``recall_dialogue`` for the stages)."""
    return recall_dialogue(store, embedder, namespace, question, budget, **options).evidence
