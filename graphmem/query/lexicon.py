"""What a memory holds, as the question compiler matches words against it.

A :class:`Lexicon` is built from an episode's write-time summary: the (kind, object) pairs of its events,
its inventory items, state names and regions. Question words are matched against it in two ways, both
without any environment's word list: by English morphology (``quarried`` -> ``quarry``, ``saplings`` ->
``sapling``), and by embedding similarity with the model the memory already uses (``went to bed`` ->
``sleep``). A caller that compiles questions itself may add ``aliases`` (a phrase -> a stored name).

>>> lex = Lexicon(frozenset({("collect", "wood"), ("place", "table")}), frozenset({"wood"}))
>>> lex.event(words("collected wood")), lex.event(words("placed the table"))
(EventPattern(kind='collect', obj='wood'), EventPattern(kind='place', obj='table'))
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from graphmem.nlp import lemma_text, verb_words
from graphmem.query.algebra import EventPattern
from graphmem.query.synonyms import synonyms

#: ``texts -> unit vectors`` (an ``Embedder.embed``).
Embed = Callable[[Sequence[str]], Any]

# Irregular English past forms (closed class: the language's, not an environment's).
# fmt: off
IRREGULAR = {
    "slew": "slay", "slain": "slay", "ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink",
    "got": "get", "gotten": "get", "made": "make", "built": "build", "took": "take", "taken": "take",
    "slept": "sleep", "woke": "wake", "woken": "wake", "awoke": "wake", "went": "go", "gone": "go",
    "came": "come", "fought": "fight", "beaten": "beat", "dug": "dig", "lost": "lose", "spent": "spend",
    "caught": "catch", "held": "hold", "had": "have", "has": "have", "fell": "fall", "fallen": "fall",
    "ran": "run", "kept": "keep", "did": "do", "done": "do", "met": "meet", "hid": "hide", "shot": "shoot",
    "struck": "strike", "threw": "throw", "thrown": "throw", "put": "put", "set": "set", "cut": "cut",
    "hit": "hit", "left": "leave", "found": "find", "brought": "bring", "bought": "buy", "saw": "see",
    "seen": "see", "wrote": "write", "written": "write", "read": "read", "sat": "sit", "stood": "stand",
    "drove": "drive", "rode": "ride", "froze": "freeze", "frozen": "freeze", "broke": "break",
    "broken": "break", "chose": "choose", "drew": "draw", "grew": "grow", "grown": "grow", "knew": "know",
    "began": "begin", "begun": "begin", "swam": "swim", "ground": "grind", "won": "win", "led": "lead",
    "fed": "feed", "bit": "bite", "bitten": "bite", "rose": "rise", "risen": "rise", "lit": "light",
    "shut": "shut", "sent": "send", "told": "tell", "said": "say", "paid": "pay", "laid": "lay",
    # nouns of events whose verb they do not spell: "my first death", "the second entry"
    "death": "die", "deaths": "die", "entry": "enter", "entries": "enter", "sale": "sell", "loss": "lose",
    "sight": "see", "flight": "fly", "choice": "choose", "birth": "bear", "growth": "grow", "theft": "steal",
}
# fmt: on

#: Words that never name an event's kind or object: function words, subjects, and the vocabulary of the
#: questions themselves (steps, times, counts).
# fmt: off
FUNCTION_WORDS = frozenset({
    "i", "me", "my", "myself", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his",
    "she", "her", "it", "its", "they", "them", "their", "agent", "player", "bot", "robot", "character",
    "the", "a", "an", "some", "any", "this", "that", "these", "those", "of", "to", "in", "into", "on", "onto",
    "at", "for", "with", "from", "by", "up", "down", "out", "off", "over", "about", "around", "through",
    "and", "or", "but", "so", "then", "than", "did", "do", "does", "done", "doing", "have", "has", "had",
    "having", "was", "were", "is", "are", "be", "been", "being", "am", "will", "would", "could", "should",
    "can", "may", "might", "must", "shall", "ever", "never", "not", "no", "yet", "already", "just", "also",
    "again", "time", "times", "step", "steps", "timestep", "timesteps", "moves", "turns",
    "moment", "occasion", "instance", "point", "thing", "things", "something", "anything", "item", "items",
    "stuff", "object", "objects", "one", "ones", "what", "which", "who", "whom", "when", "where", "how",
    "why", "whether", "there", "here", "many", "much", "often", "number", "count", "total", "all", "each",
    "every", "very", "really", "actually", "first", "last", "next", "previous", "final", "latest", "recent",
    "recently", "most", "successfully", "finally", "once", "twice", "manage", "managed",
    "happen", "happened", "occur", "occurred", "episode", "game", "trajectory", "ago", "right",
    "immediately", "directly", "exactly", "later", "earlier", "before", "after", "more", "less", "quite",
    "still", "only", "between", "until", "till", "since", "during", "within", "while", "without", "across",
    "along", "among", "against", "toward", "towards", "beyond", "above", "below", "under", "soon", "precisely", "least", "whole",
    "entire", "altogether", "overall", "separate", "different", "another", "other", "else", "same",
    "whenever", "wherever", "somewhere", "anywhere", "everything", "nothing", "someone", "ord",
    "lower", "higher", "greater", "fewer", "bigger", "smaller", "amount", "level", "value", "list",
})
# fmt: on
#: English category nouns: "made a tool", "killed a monster", "entered a zone" name the kind of event,
#: not one object, unless the memory holds an object of that very name.
CATEGORY_NOUNS = frozenset({
    "thing", "things", "item", "items", "object", "objects", "stuff", "tool", "tools", "resource", "resources",
    "material", "materials", "creature", "creatures", "monster", "monsters", "enemy", "enemies", "mob", "mobs",
    "animal", "animals", "beast", "food", "meal", "snack", "zone", "zones", "area", "areas", "region", "regions",
    "sector", "sectors", "room", "rooms", "place", "places", "location", "locations", "spot", "container",
    "containers", "receptacle", "weapon", "weapons", "structure", "building", "equipment", "gear", "device",
    "substance", "ingredient", "page", "site", "file", "files", "action", "task", "achievement", "achievements",
    "target", "destination", "something", "anything", "everything", "one", "button", "buttons", "link", "links",
    "tab", "tabs", "field", "fields", "window", "windows", "document", "message", "messages", "record", "entry",
    "plant", "plants", "vessel", "appliance", "furniture", "surface", "door", "doors",
})
#: Category nouns of places: the memory's regions say which events went to one.
LOCATION_NOUNS = frozenset({
    "zone", "zones", "area", "areas", "region", "regions", "sector", "sectors", "room", "rooms", "place", "places",
    "location", "locations", "spot", "site", "square", "cell", "part", "chamber", "space",
})
#: Verbs so generic that only their object says what happened ("got wood", "did the table").
LIGHT_VERBS = frozenset({"get", "go", "do", "have", "come", "take", "manage", "try", "start", "finish", "end"})

#: Below this cosine a phrase names nothing in the memory (MiniLM: unrelated short phrases sit near
#: 0.1-0.3, paraphrases of one action above 0.5) ...
MIN_SIMILARITY = 0.42
#: ... unless it is well ahead of every other candidate: "put something down" is 0.39 to "place" and at
#: most 0.26 to any other kind.
MIN_LEAD_SIMILARITY = 0.3
MIN_LEAD = 0.08


def _clear_winner(scores: Sequence[float]) -> bool:
    ranked = sorted(scores, reverse=True)
    if not ranked:
        return False
    if ranked[0] >= MIN_SIMILARITY:
        return True
    return ranked[0] >= MIN_LEAD_SIMILARITY and (len(ranked) == 1 or ranked[0] - ranked[1] >= MIN_LEAD)


def singular_forms(word: str) -> set[str]:
    """Every plausible singular: over-generating is harmless when matching against a vocabulary.

    >>> sorted(singular_forms("berries"))
    ['berrie', 'berries', 'berry']
    """
    out = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        out.add(word[:-1])
    if len(word) > 4 and word.endswith("es") and word.endswith(("sses", "xes", "ches", "shes", "zes", "oes")):
        out.add(word[:-2])
    if len(word) > 4 and word.endswith("ies"):
        out.add(word[:-3] + "y")
    return out


def verb_forms(word: str) -> set[str]:
    """Cheap inflection stripping: ``chopped -> chop``, ``carried -> carry``, ``making -> make``.

    >>> {"chop", "quarry", "make"} <= verb_forms("chopped") | verb_forms("quarried") | verb_forms("making")
    True
    """
    out = {word}
    if word in IRREGULAR:
        out.add(IRREGULAR[word])
    if word.endswith("ying") and len(word) >= 5:
        out.add(word[:-4] + "ie")  # dying -> die, tying -> tie
    for suffix in ("ed", "ing", "d"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            out.update({stem, stem + "e"})
            if len(stem) > 2 and stem[-1] == stem[-2]:
                out.add(stem[:-1])
            if stem.endswith("i"):
                out.add(stem[:-1] + "y")
    if word.endswith("s") and len(word) > 3:
        out.update(singular_forms(word))
    # the noun of an action names its verb: placement -> place, arrival -> arrive, collection -> collect
    for suffix, ends in (("ments", ("", "e")), ("ment", ("", "e")), ("als", ("e", "")), ("al", ("e", "")),
                         ("ions", ("", "e")), ("ion", ("", "e")), ("ings", ("", "e"))):
        if word.endswith(suffix) and len(word) > len(suffix) + 3:
            out.update(word[: -len(suffix)] + end for end in ends)
            break
    return out


@functools.lru_cache(maxsize=65536)
def morph_forms(word: str) -> frozenset[str]:
    """The forms a word's morphology allows: verb stems, singulars, and the noun of a material
    adjective ("wooden" -> wood, "golden" -> gold)."""
    out = verb_forms(word) | singular_forms(word)
    if len(word) > 5 and word.endswith("en"):
        out.add(word[:-2])
    return frozenset(out)


@functools.lru_cache(maxsize=65536)
def forms(word: str) -> frozenset[str]:
    """Every form a word may stand for: its morphological forms and their one-word synonyms."""
    out = set(morph_forms(word))
    for base in list(out):
        out |= synonyms(base)
    return frozenset(out)


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Lower-case word tokens (underscores and hyphens split words: ``wood_pickaxe`` -> wood, pickaxe)."""
    return _WORD.findall(text.lower().replace("_", " ").replace("-", " "))


def content_words(tokens: Iterable[str]) -> list[str]:
    return [w for w in tokens if w not in FUNCTION_WORDS and not w.isdigit()]


def name_words(tokens: Sequence[str]) -> list[str]:
    """Content words with the numbers that belong to a name: "cabinet 4", "bug 276" keep their digits
    (a digit right after a content word), "3 times" and "step 40" do not."""
    out: list[str] = []
    for i, w in enumerate(tokens):
        if w in FUNCTION_WORDS:
            continue
        if w.isdigit() and not (i > 0 and tokens[i - 1] not in FUNCTION_WORDS and not tokens[i - 1].isdigit()
                                and tokens[i - 1] not in _COUNTED):
            continue
        out.append(w)
    return out


#: Words a number after which is a count or a step, not part of a name.
_COUNTED = frozenset({"step", "steps", "times", "ord", "reached", "hit", "to", "least", "most", "exactly", "than"})


def digits_agree(name: str, tokens: Sequence[str]) -> bool:
    """Whether every number in a stored name is one the question says: "cabinet 4" is never "cabinet 1"."""
    need = [w for w in words(name) if any(c.isdigit() for c in w)]
    return all(w in tokens for w in need)


def _covers(name_words: Sequence[str], question_forms: Sequence[frozenset[str]], strict: bool = False) -> float:
    """The share of a name's words that some question word is a form of (``strict``: by morphology
    alone, no synonyms; the question forms must then be :func:`morph_forms` too)."""
    if not name_words:
        return 0.0
    of = morph_forms if strict else forms
    hit = sum(1 for w in name_words if any(w in f or (of(w) & f) for f in question_forms))
    return hit / len(name_words)


@dataclass(frozen=True)
class Lexicon:
    """An episode's names: event (kind, obj) pairs, inventory items, state names, regions, and aliases."""

    pairs: frozenset[tuple[str, str]] = frozenset()
    items: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    regions: frozenset[str] = frozenset()
    #: (state name, text value) pairs the memory holds: "when my goal was 'find water'"
    state_values: frozenset[tuple[str, str]] = frozenset()
    #: state names whose values are true/false: "when I was first logged in"
    flags: frozenset[str] = frozenset()
    aliases: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    embed: Embed | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted({k for k, _ in self.pairs}))

    def _expand(self, tokens: Sequence[str]) -> list[str]:
        """Tokens with loader aliases applied (a phrase of the question -> a stored name's words)."""
        text = " ".join(tokens)
        for phrase, name in self.aliases.items():
            if re.search(rf"\b{re.escape(phrase.lower())}\b", text):
                text = re.sub(rf"\b{re.escape(phrase.lower())}\b", name.lower(), text)
        return words(text)

    # -------------------------------------------------------------- names (items, states, regions)
    def name(self, tokens: Sequence[str], names: Iterable[str], fuzzy: bool = True, loose: bool = False) -> str | None:
        """The stored name the tokens mention: whole-name morphology first (longest name wins), then
        embedding similarity of the content words with each name (``loose``: where the question has
        already said it asks for a value, a clear lead over the other names is enough)."""
        tokens = self._expand(tokens)
        names = list(names)
        for strict in (True, False):  # the name said as written before one said by a synonym
            qforms = [morph_forms(w) if strict else forms(w) for w in tokens]
            best: tuple[int, tuple[bool, int], str] | None = None
            for name in sorted(names):
                nw = words(name)
                if nw and _covers(nw, qforms, strict) == 1.0 and _contiguous(nw, tokens, strict):
                    # the longest name, and of equal ones the head of the phrase: the last said before any
                    # "of" ("the task score" is the score, "the move count of the game" the moves)
                    at = max((i for i, f in enumerate(qforms) if nw[-1] in f or (morph_forms(nw[-1]) & f)), default=-1)
                    prep = next((i for i, w in enumerate(tokens) if w in _HEAD_ENDS and i > 0), len(tokens))
                    rank = (at < prep, at)
                    if best is None or (len(nw), rank) > best[:2]:
                        best = (len(nw), rank, name)
            if best is not None:
                return best[2]
        content = content_words(tokens)
        if not fuzzy or not content or self.embed is None:
            return None
        pool = sorted(names)
        scores = _similarities(self.embed, " ".join(content), pool)
        phrase = " ".join(_phrase(tokens))
        if scores and phrase != " ".join(content):
            # the phrase with its particles: "signed in" is "logged in", "signed" alone is not
            scores = [max(a, b) for a, b in zip(scores, _similarities(self.embed, phrase, pool))]
        if not scores:
            return None
        i = int(np.argmax(scores))
        if scores[i] >= max(MIN_SIMILARITY, 0.55):
            return pool[i]
        runner_up = max((x for j, x in enumerate(scores) if j != i), default=0.0)
        return pool[i] if loose and scores[i] >= MIN_SIMILARITY and scores[i] - runner_up >= MIN_LEAD else None

    # -------------------------------------------------------------- events
    def event(self, tokens: Sequence[str]) -> EventPattern | None:
        """The event pattern the words describe, or None when they describe none.

        1. A stored (kind, object) pair whose kind and object the words both say.
        2. A stored object the words name (or one their noun is a near synonym of: "timber" -> wood);
           the kind is the stored kind the verb is a form of, else the nearest by embedding among the
           kinds seen with that object. A verb that names another stored kind keeps that kind: "did I
           ever eat a plant" matches nothing when plants were only ever placed, which is the answer.
        3. A stored kind the verb names: with an unknown noun ("eat a diamond") the pattern keeps the
           noun, so nothing matches; a noun all of whose stored objects share one kind ("a different
           area" -> any "area ..." visited) or a kind seen only without objects ("lose a life") drops it.
        4. Else the nearest stored event by embedding of the whole phrase.
        """
        tokens = words(_active_voice(" ".join(self._expand(tokens))))
        content = name_words(tokens)
        if not content_words(content):
            return None
        # A stored name with a number in it ("drawer 4", "BUG-276") is only ever the one the words number.
        numbers = [w for w in content if w.isdigit()]
        pairs = frozenset((k, o) for k, o in self.pairs if not numbers or digits_agree(o, numbers))
        if pairs and pairs != self.pairs:
            return replace(self, pairs=pairs).event(tokens)
        qforms = [forms(w) for w in content]
        both = [(k, o) for k, o in self.pairs if o and _covers(words(k), qforms) == 1.0 and _contiguous(words(o), content, True)]
        if both:
            strict_forms = [morph_forms(w) for w in content]

            def said_as_written(p: tuple[str, str]) -> bool:
                return _covers(words(p[0]), strict_forms, True) == 1.0 and _contiguous(words(p[1]), content, True)

            k, o = max(both, key=lambda p: (said_as_written(p), len(words(p[0])) + len(words(p[1])), len(words(p[1])), p))
            return EventPattern(k, o)
        objects = {o for _, o in self.pairs if o}
        all_forms = [forms(w) for w in tokens]
        named_kinds = [k for k in self.kinds if _covers(words(k), all_forms if len(words(k)) > 1 else qforms) == 1.0
                       and (len(words(k)) == 1 or _contiguous(words(k), tokens))]
        morph_all = [morph_forms(w) for w in tokens]
        named_kind = max(named_kinds, key=lambda k: (_covers(words(k), morph_all, True) == 1.0, len(words(k)))) if named_kinds else None
        obj = _longest_name(objects, content, strict=True)
        head_words = _before_place_phrase(tokens, content)
        in_place_phrase = obj is not None and not set(words(obj)) & set(head_words)
        if obj is not None and self.embed is not None:
            # "a stone pick": the stored "stone pickaxe" the whole phrase names, not "stone" it contains
            at = next((i for i in range(len(content)) if content[i] in words(obj) or forms(content[i]) & _all_forms(obj)), None)
            if at is not None and at + len(words(obj)) < len(content):
                phrase = " ".join(content[at: at + len(words(obj)) + 1])
                longer = sorted(o for o in objects if len(words(o)) > len(words(obj)) and set(words(obj)) <= set(words(o)))
                scores = _similarities(self.embed, phrase, longer)
                if scores and max(scores) >= 0.75:
                    obj = longer[int(np.argmax(scores))]
        if in_place_phrase and named_kind is not None and (named_kind, obj) not in self.pairs:
            # the name is only where it happened ("dropped an item on the floor"): the object, if any, is before
            obj = _longest_name(objects, head_words, strict=True)
        if obj is not None and named_kind is not None and _all_forms(named_kind, strict=True) & _all_forms(obj, strict=True):
            obj = None  # "woke up" names the kind wake, not an object "wake up" of another kind
        if obj is not None and named_kind is None and obj in self.kinds:
            # "waking" says the stored kind "wake up", not the object "wake up" of an event about it
            # (an achievement "unlock wake up") unless the words also say that event's kind
            holders = sorted({k for k, o in self.pairs if o == obj})
            rest = [w for w in content if not forms(w) & _all_forms(obj) and w not in LIGHT_VERBS]
            said = any(_covers(words(k), qforms) > 0 for k in holders) or bool(
                rest and self.embed is not None and max(_similarities(self.embed, " ".join(rest), holders)) >= MIN_LEAD_SIMILARITY)
            if not said:
                return EventPattern(obj, None)
        if named_kind is not None:
            # Nouns follow their verb: in "unlock an achievement" nothing after the kind word is a noun.
            at = max(i for i, w in enumerate(content) if forms(w) & _all_forms(named_kind))
            after = content[at + 1:]
        else:
            after = content
        tagged_verbs = verb_words(" ".join(tokens))
        if obj is None and re.search(r"\b(?:any|anything|something|anywhere|somewhere|every|whatever)\b", " ".join(tokens)) and named_kind is None:
            kind_only = self._kind([w for w in content if w not in LIGHT_VERBS], list(self.kinds), qforms, phrase=tokens)
            if kind_only is None and self.embed is not None and self.pairs:
                # "walked into any room": the kind of the stored event nearest the whole phrase
                ranked = sorted(self.pairs)
                scores = _similarities(self.embed, " ".join(_phrase(tokens)), [f"{k} {o}".strip() for k, o in ranked])
                if _clear_winner(scores) or max(scores) >= MIN_LEAD_SIMILARITY:
                    kind_only = ranked[int(np.argmax(scores))][0]
            if kind_only is not None:
                return EventPattern(kind_only, None)
        if obj is None and re.search(r"\b(?:any|anything|something|anywhere|somewhere|every|whatever)\b", " ".join(tokens)) and named_kind is not None:
            return EventPattern(named_kind, None)
        nouns = [w for w in _before_place_phrase(tokens, after) if _nounish(w) and w not in tagged_verbs
                 and not (named_kind and forms(w) & _all_forms(named_kind))]
        stored_words = {x for o in objects for x in words(o)}
        other_place = bool(nouns) and bool(re.search(rf"\b(?:a|an|another|different|new|other|any|some)\s+(?:[a-z]+\s+)?{re.escape(nouns[-1])}\b", " ".join(tokens)))
        if obj is None and nouns and nouns[-1] in LOCATION_NOUNS and (nouns[-1] not in stored_words or other_place) and named_kind is None:
            # "entered a zone", "changed rooms": the kind whose objects are the memory's own regions
            by_kind: dict[str, int] = {}
            for k, o in self.pairs:
                if o and o in self.regions:
                    by_kind[k] = by_kind.get(k, 0) + 1
            if by_kind:
                return EventPattern(max(sorted(by_kind), key=lambda k: by_kind[k]), None)
        if obj is None and nouns and nouns[-1] in CATEGORY_NOUNS and nouns[-1] not in stored_words:
            kind = named_kind or self._kind([w for w in content if w not in LIGHT_VERBS and w not in CATEGORY_NOUNS], list(self.kinds), qforms, phrase=tokens)
            if kind is None and self.embed is not None and self.pairs:
                ranked = sorted(self.pairs)
                scores = _similarities(self.embed, " ".join(_phrase(tokens)), [f"{k} {o}".strip() for k, o in ranked])
                kind = ranked[int(np.argmax(scores))][0] if max(scores) >= MIN_LEAD_SIMILARITY else None
            if kind is not None:
                return EventPattern(kind, None)
        for noun in reversed(nouns) if obj is None else ():
            shared = {k for k, o in self.pairs if o and noun in words(o)}
            heads = {o for k, o in self.pairs if o and noun in words(o)}
            if len(heads) > 1 and (shared == {named_kind} or (named_kind is None and len(shared) == 1)):
                return EventPattern(next(iter(shared)), None)  # "a different area", "a sector change": any of them
        if obj is None and nouns and self.embed is not None:
            pool = sorted({o for k, o in self.pairs if o and (named_kind is None or k == named_kind)})
            best = (0.0, "")
            for phrase in dict.fromkeys([" ".join(nouns[-2:]), *nouns[-2:]]):
                scores = _similarities(self.embed, phrase, pool)
                if scores and max(scores) > best[0]:
                    best = (max(scores), pool[int(np.argmax(scores))])
            if best[0] >= 0.65:
                obj = best[1]
        if obj is not None:
            rest = [w for w in content if w not in set(words(obj)) and not (forms(w) & _all_forms(obj))]
            kinds_with_obj = sorted({k for k, o in self.pairs if o == obj})
            if named_kind is not None and named_kind not in kinds_with_obj:
                as_written = [morph_forms(w) for w in content]
                takes_objects = any(k == named_kind and o for k, o in self.pairs)
                if takes_objects and _covers(words(named_kind), as_written, strict=True) == 1.0:
                    return EventPattern(named_kind, obj)
                named_kind = None  # only a synonym of the verb: the object's own kinds decide
            kind = named_kind or self._kind(rest, kinds_with_obj, qforms, force=True, obj=obj, phrase=tokens)
            return EventPattern(kind, obj)
        kind = named_kind or self._kind([w for w in content if w not in LIGHT_VERBS], list(self.kinds), qforms, phrase=tokens)
        if kind is not None:
            stored = {o for k, o in self.pairs if k == kind and o}
            unknown = [w for w in nouns if not (_all_forms(kind) & forms(w))]
            if unknown and stored:
                shared = {k for k, o in self.pairs if o and unknown[-1] in words(o)}
                if shared == {kind}:
                    return EventPattern(kind, None)
                return EventPattern(kind, _singular(unknown[-1]))
            return EventPattern(kind, None)
        if self.embed is None:
            return None
        pool = sorted(f"{k} {o}".strip() for k, o in self.pairs)
        scores = _similarities(self.embed, " ".join(_phrase(tokens)), pool)
        if not scores:
            return None
        i = int(np.argmax(scores))
        if scores[i] < MIN_SIMILARITY:
            return None
        label = pool[i]
        for k, o in self.pairs:
            if f"{k} {o}".strip() == label:
                return EventPattern(k, o or None)
        return None

    def _kind(self, rest: Sequence[str], pool: Sequence[str], qforms: Sequence[frozenset[str]], force: bool = False,
              obj: str | None = None, phrase: Sequence[str] = ()) -> str | None:
        """The kind the verb words name: morphology first, then embedding (``force``: the best of the
        pool whatever its score, when the object already decided the event). With the object known, the
        verb is compared in context ("quarry stone" with "collect stone", "place stone")."""
        lexical = [k for k in pool if _covers(words(k), qforms) == 1.0]
        if lexical:
            return max(lexical, key=lambda k: len(words(k)))
        # "picked" says "pick up": a kind whose words but its particles the verb says, if only one
        said = [k for k in pool if len(words(k)) > 1 and _covers([w for w in words(k) if w not in _PARTICLES] or words(k), qforms) == 1.0]
        if len(said) == 1:
            return said[0]
        # a light verb alone ("got" of "get hurt") says nothing about which kind
        heavy = [f for f in qforms if not f & LIGHT_VERBS]
        partial = [k for k in pool if _covers(words(k), heavy) > 0]
        if len(partial) == 1 and not force:
            return partial[0]
        verbs = [w for w in rest if w not in LIGHT_VERBS] or list(rest)
        if not pool:
            return None
        if len(pool) == 1 and force:
            return pool[0]
        if self.embed is None or not verbs:
            return pool[0] if force else None
        if obj:
            # The verb phrase alone against the kinds (a long object name would drown the verb), plus the
            # whole phrase against each stored event, for verbs that only read right with their object.
            obj_words = set(words(obj))
            verb_phrase = [w for w in (_phrase(phrase) if phrase else verbs) if w not in obj_words]
            alone = _similarities(self.embed, " ".join(verb_phrase), list(pool)) if verb_phrase else [0.0] * len(pool)
            text = " ".join(_phrase(phrase)) if phrase else " ".join([*verbs, obj])
            whole = _similarities(self.embed, text, [f"{k} {obj}" for k in pool])
            scores = [a + w for a, w in zip(alone, whole)]
        else:
            # The phrase keeps its particles: "get up" is not "get", "put down" is not "put".
            scores = _similarities(self.embed, " ".join(_phrase(phrase) or verbs), list(pool))
        i = int(np.argmax(scores))
        # A phrase with no verb in it (a bare noun) names a kind only by a close match, not by a lead.
        has_verb = bool(verb_words(" ".join(phrase or rest)))
        if force or (_clear_winner(scores) if has_verb else scores[i] >= MIN_SIMILARITY):
            return pool[i]
        return None



_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "it", "they", "me", "us", "him", "them", "my", "our", "your",
                       "its", "their", "the", "a", "an", "agent", "player", "did", "do", "does", "was", "were", "had",
                       "have", "has", "ever", "any", "some"})


_PARTICLES = frozenset({"up", "down", "off", "out", "on", "in", "into", "away", "over", "back", "onto", "through"})


_PASSIVE_AUX = r"\b(?:got|get|gets|getting|gotten|was|were|been|being|be)"
_PASSIVE_KILLED = re.compile(rf"{_PASSIVE_AUX} (?:killed|slain|murdered|defeated|eaten)\b")
_PASSIVE_HURT = re.compile(rf"{_PASSIVE_AUX} (?:hit|struck|attacked|bitten|shot|hurt|injured|wounded|damaged|harmed|punched|clawed|stung|burned|burnt)\b")


_TAKE_IDIOM = re.compile(r"\b(?:got|get|gets|getting|gotten|grabbed|took|laid) (?:a )?(?:hold of|hands on|possession of)\b")


def _active_voice(text: str) -> str:
    """The agent as the one it happened to: "got hit by a zombie" is being hurt by it, not hitting it;
    "was killed by an arrow" is dying of it.

    >>> _active_voice("i got hit by a zombie"), _active_voice("we were killed")
    ('i get hurt by a zombie', 'we die')
    """
    text = _PASSIVE_KILLED.sub("die", text)
    text = _TAKE_IDIOM.sub("take", text)  # "got hold of the scarf": took it
    return _PASSIVE_HURT.sub("get hurt", text)


#: Prepositions that end a noun phrase's head: "the score in the current game" is a score.
_HEAD_ENDS = frozenset({"of", "in", "for", "during", "on", "at", "within"})
_THING_WORDS = frozenset({"item", "items", "thing", "things", "something", "anything", "stuff", "object", "objects"})
_PLACE_PREPOSITIONS = frozenset({"on", "onto", "in", "into", "inside", "at", "under", "near", "from", "to", "toward", "towards", "with", "beside", "behind"})


def _before_place_phrase(tokens: Sequence[str], words_after_verb: Sequence[str]) -> list[str]:
    """The words after the verb up to a prepositional phrase that follows its object: in "dropped an
    item on the floor" the floor is where, not what; "went into the kitchen" keeps the kitchen."""
    candidates = set(words_after_verb)
    verbs = verb_words(" ".join(tokens))
    seen_verb = seen_noun = False
    for i, w in enumerate(tokens):
        if w in _PLACE_PREPOSITIONS and seen_noun:
            before = set(tokens[:i])
            return [x for x in words_after_verb if x in before]
        if w in FUNCTION_WORDS and w not in _THING_WORDS:
            continue
        if not seen_verb and (w in verbs or not seen_noun):
            seen_verb = True  # the first content word is the verb ("walk into a room")
            continue
        if (w in candidates and _nounish(w)) or w in _THING_WORDS:
            seen_noun = True
    return list(words_after_verb)


def _phrase(tokens: Sequence[str]) -> list[str]:
    """The words of a verb phrase for embedding: without subjects, articles, auxiliaries and other
    function words, but with its particles ("get up", "put down")."""
    return [w for w in tokens if w not in _SUBJECTS and not w.startswith("ord_") and not w.isdigit()
            and (w not in FUNCTION_WORDS or w in _PARTICLES)]


def _nounish(word: str) -> bool:
    """Whether a content word may be a noun: not an inflected verb form, adverb or preposition."""
    return len(word) > 2 and word not in IRREGULAR and word not in LIGHT_VERBS and not word.endswith(("ly", "ing", "ed"))


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _all_forms(name: str, strict: bool = False) -> frozenset[str]:
    """Every form of every word of a name (``strict``: by morphology alone, no synonyms)."""
    of = morph_forms if strict else forms
    out: set[str] = set()
    for w in words(name):
        out |= of(w)
    return frozenset(out)


def _contiguous(name_words: Sequence[str], tokens: Sequence[str], strict: bool = False) -> bool:
    """Whether the name's words appear in order as neighbouring tokens (forms allowed; articles and
    prepositions do not count on either side: "the door to the foundry" names "door to foundry")."""
    content_name = [w for w in name_words if w not in FUNCTION_WORDS]
    if content_name and (len(content_name) < len(name_words) or any(w in FUNCTION_WORDS for w in tokens)):
        name_words = content_name
        tokens = [w for w in tokens if w not in FUNCTION_WORDS]
    n = len(name_words)
    of = morph_forms if strict else forms
    for i in range(len(tokens) - n + 1):
        if all(name_words[j] in of(tokens[i + j]) or of(name_words[j]) & of(tokens[i + j]) for j in range(n)):
            return True
    return False


def _near(name_words: Sequence[str], tokens: Sequence[str], strict: bool = False) -> bool:
    """Whether every content word of a name appears among the tokens, in any order, within a span one
    word longer than the name ("the bedroom door" names "door to the bedroom")."""
    of = morph_forms if strict else forms
    need = [w for w in name_words if w not in FUNCTION_WORDS] or list(name_words)
    toks = [t for t in tokens if t not in FUNCTION_WORDS]
    hits = [i for i, t in enumerate(toks) if any(w in of(t) or of(w) & of(t) for w in need)]
    for start in hits:
        span = toks[start: start + len(need) + 1]
        if all(any(w in of(t) or of(w) & of(t) for t in span) for w in need):
            return True
    return False


def _longest_name(names: Iterable[str], tokens: Sequence[str], strict: bool = False) -> str | None:
    """The longest stored name whose words all appear together (in order first, then in any order
    within a short span); a lone head word ("pickaxe") of several multi-word names matches none of them
    (the memory, not a word list, must say which)."""
    best: str | None = None
    names = sorted(names)
    for name in names:
        nw = words(name)
        if nw and _contiguous(nw, tokens, strict) and (best is None or len(nw) > len(words(best))):
            best = name
    if best is not None:
        return best
    for name in names:
        nw = words(name)
        if len(nw) > 1 and _near(nw, tokens, strict) and (best is None or len(nw) > len(words(best))):
            best = name
    return best


_CACHE_LOCK = threading.Lock()
_VECTORS: dict[tuple[int, str], np.ndarray] = {}


def _owner(embed: Embed) -> int:
    """The identity of an embedder: a bound method is a new object on every access, its owner is not."""
    return id(getattr(embed, "__self__", embed))


def _vectors(embed: Embed, texts: Sequence[str]) -> list[np.ndarray]:
    """Unit vectors of the texts, cached per embedder and text (names recur in every question)."""
    owner = _owner(embed)
    with _CACHE_LOCK:
        found = {t: _VECTORS.get((owner, t)) for t in texts}
    missing = list(dict.fromkeys(t for t, v in found.items() if v is None))
    if missing:
        fresh = np.asarray(embed(missing), dtype=np.float32)
        with _CACHE_LOCK:
            if len(_VECTORS) > 50_000:
                _VECTORS.clear()
            for t, v in zip(missing, fresh):
                _VECTORS[(owner, t)] = v
                found[t] = v
    return [found[t] for t in texts]  # type: ignore[misc]


def _similarities(embed: Embed, text: str, pool: Sequence[str]) -> list[float]:
    """Cosine of ``text`` with each of ``pool``: the better of the text as written and of its lemmas
    (MiniLM reads "take damage" close to "get hurt", "took damage" much less so)."""
    if not pool:
        return []
    lemmas = lemma_text(text)
    q, *rest = _vectors(embed, [text, *pool])
    scores = [float(q @ v) for v in rest]
    if lemmas != text:
        (lq,) = _vectors(embed, [lemmas])
        scores = [max(s, float(lq @ v)) for s, v in zip(scores, rest)]
    return scores
