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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from graphmem.nlp import verb_words
from graphmem.query.algebra import EventPattern
from graphmem.query.effects import kinds_moving, state_moving
from graphmem.query.similarity import (
    MIN_LEAD,
    MIN_LEAD_SIMILARITY,
    MIN_SIMILARITY,
    Embed,
    clear_winner,
    similarities,
)
from graphmem.query.wordforms import (
    CATEGORY_NOUNS,
    FUNCTION_WORDS,
    HEAD_ENDS,
    LIGHT_VERBS,
    LOCATION_NOUNS,
    PARTICLES,
    active_voice,
    after_the_thing,
    before_place_phrase,
    content_words,
    contiguous,
    covers,
    digits_agree,
    forms,
    longest_name,
    morph_forms,
    name_forms,
    name_words,
    near,
    nounish,
    phrase_words,
    said_outside,
    said_together,
    said_words,
    singular,
    unheld_compound,
    words,
)

__all__ = ["FUNCTION_WORDS", "Embed", "Lexicon", "content_words", "words"]

_AUXILIARIES = frozenset({"do", "does", "did"})
_RECENT = ("last", "latest", "final", "current", "recent", "newest")
_QUOTED = re.compile(r"(^|[\s(,:;])[\"'\u201c\u2018]([^\"'\u201c\u201d\u2018\u2019]{1,120})[\"'\u201d\u2019](?![a-z])", re.IGNORECASE)
_NAMEREF = re.compile(r"nameref(\d+)")
#: An action's words say a kind when at least this share of the events they did were of that kind (the
#: rest are what followed from the action at the same step: a score, a task begun).
OWN_ACTION_SHARE = 0.8
#: Category words that are pronouns: "in or on something" says where, not an alternative object.
_PRONOUNS = frozenset({"something", "anything", "everything", "one", "thing", "things"})
#: How much less a phrase's similarity to a kind's typed words counts than to the kind's name.
TYPED_DISCOUNT = 0.05
#: Prepositions of where a thing was put, grouped by the relation they say (on a surface, into a holder,
#: out of one).
_PLACE_WORDS = {"on": "on", "onto": "on", "upon": "on", "top": "on", "in": "in", "into": "in", "inside": "in",
                "within": "in", "from": "out", "off": "out", "out": "out"}
#: "... or (a|some ...) <category noun>": an alternative that is any object ("a door or container"), not a
#: place ("in or on something").
_OR_CATEGORY = re.compile(rf"\bor\s+(?:a |an |any |some |another )?(?!{'|'.join(sorted(PARTICLES | _PLACE_WORDS.keys()))}\b)(?:[a-z]+\s+)?"
                          rf"({'|'.join(map(re.escape, sorted(CATEGORY_NOUNS - _PRONOUNS)))})\b")


@dataclass(frozen=True)
class Lexicon:
    """An episode's names: event (kind, obj) pairs, inventory items, state names, regions, and aliases."""

    pairs: frozenset[tuple[str, str]] = frozenset()
    items: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    regions: frozenset[str] = frozenset()
    #: the actions the agent took, verbatim ("noop", "move_left", "open the door"): "on how many steps did I noop"
    actions: frozenset[str] = frozenset()
    #: (state name, text value) pairs the memory holds: "when my goal was 'find water'"
    state_values: frozenset[tuple[str, str]] = frozenset()
    #: state names whose values are true/false: "when I was first logged in"
    flags: frozenset[str] = frozenset()
    #: (kind, action words, times): how the agent's actions said each kind ("teleport to" for "warp to")
    kind_actions: frozenset[tuple[str, str, int]] = frozenset()
    #: (kind, object, gains, losses): how often an event's step raised or lowered its object's count
    pair_effects: frozenset[tuple[str, str, int, int]] = frozenset()
    #: (kind, state name, rises, falls): how often a step of that kind raised or lowered a numeric state
    state_effects: frozenset[tuple[str, str, int, int]] = frozenset()
    aliases: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    embed: Embed | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted({k for k, _ in self.pairs}))

    @functools.cached_property
    def actions_of(self) -> Mapping[str, tuple[str, ...]]:
        """Each kind's action words that say that kind: "teleport to" when (nearly) only "warp to" events
        were typed so, not "do" when many kinds were, nor "examine" when that is a kind's own name."""
        by_action: dict[str, dict[str, int]] = {}
        for kind, action, n in self.kind_actions:
            by_action.setdefault(action, {})[kind] = n
        own: dict[str, list[str]] = {}
        for action, counts in sorted(by_action.items()):
            kind = max(sorted(counts), key=lambda k: counts[k])
            said = words(action)
            if not said or said[0] in FUNCTION_WORDS:
                continue  # "in" alone (what "put X in Y" leaves of a name-heavy action) says no doing
            if counts[kind] >= OWN_ACTION_SHARE * sum(counts.values()) and " ".join(said) not in self.kinds:
                own.setdefault(kind, []).append(action)
        return {k: tuple(v) for k, v in own.items()}

    @functools.cached_property
    def numeric_states(self) -> frozenset[str]:
        """State names never seen holding text or true/false: the ones a "how many" question reads."""
        return self.states - {n for n, _ in self.state_values} - self.flags

    @functools.cached_property
    def _joined_kinds(self) -> Mapping[str, str]:
        """A phrasal kind said as one noun: "my last pickup" is "pick up", "the first checkout" "check out"."""
        return {"".join(words(k)): k for k in self.kinds if len(words(k)) > 1}

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """Every stored name (event objects, items, states, regions), sorted: ``nameref<i>`` is ``names[i]``."""
        return tuple(sorted({o for _, o in self.pairs if o} | self.items | self.states | self.regions))

    def mark_quoted(self, text: str) -> str:
        """A stored name the question quotes ("the 'collect stone' achievement") becomes one token,
        ``nameref<i>``, so that it is read as that name and not as words that also name a kind."""
        index = {name.lower(): i for i, name in enumerate(self.names)}

        labels = {f"{k} {o}".lower(): (k, o) for k, o in sorted(self.pairs) if o}

        def replace_quoted(m: re.Match[str]) -> str:
            quoted = re.sub(r"\s+", " ", m.group(2).strip().lower())
            i = index.get(quoted)
            if i is None and quoted in labels:  # "a 'switch target wood' event": that kind, with that object
                kind, obj = labels[quoted]
                return f"{m.group(1)}{kind} nameref{index[obj.lower()]}"
            return m.group(0) if i is None else f"{m.group(1)}nameref{i}"

        text = _QUOTED.sub(replace_quoted, text)
        for i, name in enumerate(self.names):
            # A name that starts with a word of order ("last reading") is not an ordinal when the question
            # says it, perhaps with a modifier between: "the latest temperature reading".
            first, *rest = words(name)
            if first not in _RECENT or not rest:
                continue
            said = re.compile(rf"\b(?:{'|'.join(_RECENT)}|most recent)\s+((?:[a-z-]+\s+){{0,2}}?){re.escape(' '.join(rest))}\b", re.IGNORECASE)
            text = said.sub(functools.partial(_ordinal_or_name, token=f"nameref{i}"), text)
        return text

    def mark_worded(self, text: str) -> str:
        """An event object named with a word the questions use for themselves ("level 5", "point of
        entry"), said as stored in the normalized question, becomes its ``nameref<i>`` token: its words
        would otherwise be read as question words."""
        index = {name: i for i, name in enumerate(self.names)}
        for name in sorted(self._worded_objects, key=lambda n: (-len(n), n)):
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", f"nameref{index[name]}", text)
        return text

    @functools.cached_property
    def _worded_objects(self) -> tuple[str, ...]:
        """Event objects of several words of which one is a word of the questions' own vocabulary."""
        return tuple(sorted({o for _, o in self.pairs if len(words(o)) > 1 and any(w in FUNCTION_WORDS for w in words(o))
                             and not all(w in FUNCTION_WORDS for w in words(o))}))

    def _named(self, token: str) -> str | None:
        m = _NAMEREF.fullmatch(token)
        return self.names[int(m.group(1))] if m and int(m.group(1)) < len(self.names) else None

    def _expand(self, tokens: Sequence[str]) -> list[str]:
        """Tokens with quoted names spelled out and loader aliases applied (a phrase of the question ->
        a stored name's words)."""
        text = " ".join(self._named(t) or self._joined_kinds.get(t) or t for t in tokens)
        for phrase, name in self.aliases.items():
            if re.search(rf"\b{re.escape(phrase.lower())}\b", text):
                text = re.sub(rf"\b{re.escape(phrase.lower())}\b", name.lower(), text)
        return words(text)

    # -------------------------------------------------------------- names (items, states, regions)
    def name(self, tokens: Sequence[str], names: Iterable[str], fuzzy: bool = True, loose: bool = False) -> str | None:
        """The stored name the tokens mention: whole-name morphology first (longest name wins), then
        embedding similarity of the content words with each name (``loose``: where the question has
        already said it asks for a value, a clear lead over the other names is enough)."""
        tokens = [w for w in self._expand(tokens) if w not in _AUXILIARIES]  # "what did the task score read" says no "done"
        names = list(names)
        found: list[tuple[int, tuple[bool, int], str]] = []
        for strict in (True, False):  # the name said as written before one said by a synonym
            qforms = [morph_forms(w) if strict else forms(w) for w in tokens]
            best: tuple[int, tuple[bool, int], str] | None = None
            for name in sorted(names):
                nw = words(name)
                if nw and covers(nw, qforms, strict) == 1.0 and (contiguous(nw, tokens, strict) or (len(nw) > 1 and near(nw, tokens, strict))):
                    # the longest name, and of equal ones the head of the phrase: the last said before any
                    # "of" ("the task score" is the score, "the move count of the game" the moves)
                    at = max((i for i, f in enumerate(qforms) if nw[-1] in f or (morph_forms(nw[-1]) & f)), default=-1)
                    prep = next((i for i, w in enumerate(tokens) if w in HEAD_ENDS and i > 0), len(tokens))
                    rank = (at < prep, at)
                    if best is None or (len(nw), rank) > best[:2]:
                        best = (len(nw), rank, name)
            if best is not None:
                found.append(best)
        if found:
            # ... unless the written one is only in an "of" phrase and a synonym names the head:
            # "the objective of the current game" is the quest, not the game
            written = found[0]
            if len(found) > 1 and found[1][0] > written[0] and set(words(written[2])) <= set(words(found[1][2])):
                return found[1][2]  # "the overall score" is the stored "total score", not the "score" it contains
            head = next((b for b in found if b[1][0]), None)
            return (head if head is not None and not written[1][0] else written)[2]
        content = content_words(tokens)
        if not fuzzy or not content or self.embed is None:
            return None
        pool = sorted(names)
        scores = similarities(self.embed, " ".join(content), pool)
        phrase = " ".join(phrase_words(tokens))
        if scores and phrase != " ".join(content):
            # the phrase with its particles: "signed in" is "logged in", "signed" alone is not
            scores = [max(a, b) for a, b in zip(scores, similarities(self.embed, phrase, pool))]
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
        quoted = [n for n in map(self._named, tokens) if n]
        quoted_objects = sorted({o for _, o in self.pairs if o in quoted})
        if quoted_objects:
            # A quoted stored object is that object: the other words only choose among its kinds.
            quoted_obj = quoted_objects[0]
            rest = words(active_voice(" ".join(t for t in tokens if self._named(t) != quoted_obj)))
            pool = sorted({k for k, o in self.pairs if o == quoted_obj})
            rest_content = name_words(rest)
            if quoted_obj in self.kinds and not any(covers(said_words(k), [forms(w) for w in rest_content]) > 0 for k in pool):
                return EventPattern(quoted_obj, None)  # "a 'open' event": the kind, not a refused command "open"
            as_written = [morph_forms(w) for w in rest_content]
            other = [k for k in self.kinds if k not in pool and covers(words(k), as_written, strict=True) == 1.0
                     and any(kk == k and o for kk, o in self.pairs)]
            if other:  # "set the calendar down" when it was never dropped: that drop, which matches nothing
                return EventPattern(max(other, key=lambda k: (len(words(k)), k)), quoted_obj)
            return EventPattern(self._kind(rest_content, pool, [forms(w) for w in rest_content], force=True, obj=quoted_obj, phrase=rest), quoted_obj)
        tokens = self._without_instrument(words(active_voice(" ".join(self._expand(tokens)))))
        content = name_words(tokens)
        if not content_words(content):
            return None
        possessed = self._possessed(tokens)
        if possessed is not None:
            return possessed
        moving = state_moving(self, tokens)
        if moving is not None:
            return EventPattern(moving, None)
        # A stored name with a number in it ("drawer 4", "BUG-276") is only ever the one the words number.
        numbers = [w for w in content if w.isdigit()]
        pairs = frozenset((k, o) for k, o in self.pairs if not numbers or digits_agree(o, numbers))
        if pairs and pairs != self.pairs:
            return replace(self, pairs=pairs).event(tokens)
        qforms = [forms(w) for w in content]
        # A kind counts only when a word of it is said outside the object's name: "grabbed the pork chop"
        # does not say "chop"; "chopped the pork chop" does.
        both = [(k, o) for k, o in self.pairs if o and covers(said_words(k), qforms) == 1.0 and contiguous(words(o), content, True)
                and said_outside(said_words(k), content, words(o))]
        if both:
            strict_forms = [morph_forms(w) for w in content]

            def said_as_written(p: tuple[str, str]) -> bool:
                return covers(said_words(p[0]), strict_forms, True) == 1.0 and contiguous(words(p[1]), content, True)

            k, o = max(both, key=lambda p: (said_as_written(p), len(words(p[0])) + len(words(p[1])), len(words(p[1])), p))
            alternative = _OR_CATEGORY.search(" ".join(tokens))
            if alternative and singular(alternative.group(1)) not in {o2 for _, o2 in self.pairs}:
                return EventPattern(k, None)  # "opened a door or container": whatever was opened
            kind_forms = set().union(*(forms(w) for w in words(k)))
            longer = [x for x in {o2 for _, o2 in self.pairs if o2} if len(words(x)) > len(words(o)) and set(words(o)) <= set(words(x))
                      and contiguous(words(x), content, True)
                      and (re.search(rf"\b(?:the|my|our|its|their|your|his|her|a|an) {re.escape(' '.join(words(x)))}\b", " ".join(tokens))
                           or not any(forms(w) & kind_forms for w in words(x) if w not in words(o)))]
            if longer:  # "unlocked the formless locker" is not the "locker" unlocked, whatever was done to it
                whole = max(longer, key=lambda x: (len(words(x)), x))
                holders = sorted({k2 for k2, o2 in self.pairs if o2 == whole})
                verb_in_name = any(forms(w) & kind_forms for w in words(whole) if w not in words(o))
                if k not in holders and holders and verb_in_name:
                    # the name said as stored, a word of it the verb ("the make wood pickaxe achievement"):
                    # the kinds that hold that name decide
                    rest = [w for w in content if w not in words(whole)]
                    k = self._kind(rest, holders, [forms(w) for w in rest], force=True, obj=whole, phrase=tokens) or holders[0]
                return EventPattern(k, whole)
            return EventPattern(k, o)
        objects = {o for _, o in self.pairs if o}
        all_forms = [forms(w) for w in tokens]
        named_kinds = [k for k in self.kinds if covers(words(k), all_forms if len(words(k)) > 1 else qforms) == 1.0
                       and (len(words(k)) == 1 or contiguous(words(k), tokens))]
        morph_all = [morph_forms(w) for w in tokens]
        obj = longest_name(objects, content, strict=True)
        if obj is not None and len(words(obj)) > 1 and re.search(rf"\b{re.escape(words(obj)[0])} (?:a|an|the|some) {re.escape(words(obj)[1])}\b", " ".join(tokens)):
            # "defeat a zombie" is a verb and its object, not the name "defeat zombie" said without its article
            obj = longest_name({o for o in objects if len(words(o)) == 1 or said_together(words(o), tokens)}, content, strict=True)
        unheld_pair = unheld_compound(content, obj, objects, tokens)
        if unheld_pair is not None:  # "a stone pickaxe" when only a wood pickaxe was ever made: no stone one
            holders = sorted({k for k, o in self.pairs if o and words(o)[-1] == unheld_pair[1]})
            kind = holders[0] if len(holders) == 1 else self._kind(content, holders, qforms, force=True, phrase=tokens)
            return EventPattern(kind, unheld_pair[0])
        if obj is not None:
            holders = sorted({k for k, o in self.pairs if o == obj})
            inside = [k for k in named_kinds if covers(words(k), [forms(w) for w in words(obj)]) == 1.0 and k not in holders]
            if inside and len(words(obj)) == 1 and not any(covers(said_words(h), qforms) > 0 for h in holders if h not in inside):
                # "what did I examine next" when a refused command "examine" is stored too: the verb says
                # the kind, and nothing says the kind that holds the word as its object
                return EventPattern(max(inside, key=lambda k: (len(words(k)), k)), None)
            named_kinds = [k for k in named_kinds if said_outside(words(k), content, words(obj))]
        named_kind = max(named_kinds, key=lambda k: (covers(words(k), morph_all, True) == 1.0, len(words(k)))) if named_kinds else None
        if obj is None and (named_kind is None or covers(words(named_kind), morph_all, True) < 1.0):
            # "looked through our pockets" is the one kind named with that noun ("check pockets"), not a
            # synonym's kind with an object nothing holds
            by_noun = sorted({k for k in self.kinds if len(words(k)) > 1
                              and any(forms(w) & morph_forms(x) for x in words(k)[1:] if x not in PARTICLES for w in content if nounish(w))})
            if len(by_noun) == 1 and by_noun[0] != named_kind and not any(o and forms(w) & name_forms(o) for k, o in self.pairs
                                                                          if k == by_noun[0] for w in content):
                return EventPattern(by_noun[0], None)
        head_words = before_place_phrase(tokens, content)
        in_place_phrase = obj is not None and not set(words(obj)) & set(head_words)
        if obj is not None and self.embed is not None:
            # "a stone pick": the stored "stone pickaxe" the whole phrase names, not "stone" it contains
            at = next((i for i in range(len(content)) if content[i] in words(obj) or forms(content[i]) & name_forms(obj)), None)
            if at is not None and at + len(words(obj)) < len(content):
                phrase = " ".join(content[at: at + len(words(obj)) + 1])
                longer = sorted(o for o in objects if len(words(o)) > len(words(obj)) and set(words(obj)) <= set(words(o)))
                scores = similarities(self.embed, phrase, longer)
                if scores and max(scores) >= 0.75:
                    obj = longer[int(np.argmax(scores))]
        if in_place_phrase and named_kind is not None and (named_kind, obj) not in self.pairs:
            # the name is only where it happened ("dropped an item on the floor"): the object, if any, is before
            obj = longest_name(objects, head_words, strict=True)
        if obj is not None and named_kind is not None and name_forms(named_kind, strict=True) & name_forms(obj, strict=True):
            obj = None  # "woke up" names the kind wake, not an object "wake up" of another kind
        if obj is not None and named_kind is None and obj in self.kinds:
            # "waking" says the stored kind "wake up", not the object "wake up" of an event about it
            # (an achievement "unlock wake up") unless the words also say that event's kind
            holders = sorted({k for k, o in self.pairs if o == obj})
            rest = [w for w in content if not forms(w) & name_forms(obj) and w not in LIGHT_VERBS]
            said = any(covers(words(k), qforms) > 0 for k in holders) or bool(
                rest and self.embed is not None and max(similarities(self.embed, " ".join(rest), holders)) >= MIN_LEAD_SIMILARITY)
            if not said:
                return EventPattern(obj, None)
        if named_kind is not None:
            # Nouns follow their verb: in "unlock an achievement" nothing after the kind word is a noun.
            at = max((i for i, w in enumerate(content) if forms(w) & name_forms(named_kind)), default=None)
            after = content[at + 1:] if at is not None else content
        else:
            after = content
        tagged_verbs = verb_words(" ".join(tokens))
        if obj is None and re.search(r"\b(?:any|anything|something|some|anywhere|somewhere|every|whatever)\b", " ".join(tokens)) and named_kind is None:
            kind_only = self._kind([w for w in content if w not in LIGHT_VERBS], list(self.kinds), qforms, phrase=tokens)
            if kind_only is None and self.embed is not None and self.pairs:
                # "walked into any room": the kind of the stored event nearest the whole phrase
                ranked = sorted(self.pairs)
                scores = similarities(self.embed, " ".join(phrase_words(tokens)), [f"{k} {o}".strip() for k, o in ranked])
                if clear_winner(scores) or max(scores) >= MIN_LEAD_SIMILARITY:
                    kind_only = ranked[int(np.argmax(scores))][0]
            if kind_only is not None:
                return EventPattern(kind_only, None)
        if obj is None and re.search(r"\b(?:any|anything|something|some|anywhere|somewhere|every|whatever)\b", " ".join(tokens)) and named_kind is not None:
            return EventPattern(named_kind, None)
        nouns = [w for w in before_place_phrase(tokens, after) if nounish(w) and w not in tagged_verbs
                 and not (named_kind and forms(w) & name_forms(named_kind))]
        stored_words = {x for o in objects for x in words(o)}
        other_place = bool(nouns) and bool(re.search(rf"\b(?:a|an|another|different|new|other|any|some)\s+(?:[a-z]+\s+)?{re.escape(nouns[-1])}\b", " ".join(tokens)))
        if obj is None and nouns and nouns[-1] in LOCATION_NOUNS and (nouns[-1] not in stored_words or other_place) and named_kind is None:
            # "entered a zone", "changed rooms": the kind whose objects are the memory's own regions
            by_kind: dict[str, int] = {}
            for k, o in self.pairs:
                if o and o in self.regions:
                    by_kind[k] = by_kind.get(k, 0) + 1
            if by_kind:
                most = max(by_kind.values())
                tied = sorted(k for k, n in by_kind.items() if n == most)  # the verb breaks a tie
                by_particle = [k for k in tied if {w for w in words(k) if w in PARTICLES} & set(tokens)]
                if len(by_particle) == 1:  # "went into a room" is the kind said "into"
                    tied = by_particle
                verbs = [w for w in content if w not in LIGHT_VERBS and w != nouns[-1]]
                chosen = self._kind(verbs, tied, [forms(w) for w in verbs], phrase=tokens) if len(tied) > 1 and verbs else None
                return EventPattern(chosen or tied[0], None)
        spoken = " ".join(tokens)
        category = next((n for n in nouns if n in CATEGORY_NOUNS and singular(n) not in objects and re.search(
            rf"\b(?:a|an|another|any|some|one|each|every|or)\s+(?:[a-z]+\s+)?{re.escape(n)}\b", spoken)), None)
        if named_kind is not None and category is not None and category not in _PRONOUNS and (
                obj is None or re.search(rf"\bor\s+(?:a |an |any |some |another )?(?:[a-z]+\s+)?{re.escape(category)}\b", spoken)):
            return EventPattern(named_kind, None)  # "charted a new room", "opened a door or container": any
        # a noun right before the category noun, as one compound ("a fruit meal"), not "a piece of food"
        compound = re.search(rf"\b([a-z]+) {re.escape(nouns[-1])}\b", " ".join(tokens)) if nouns else None
        modifier = (compound.group(1) if compound and nouns[-1] in CATEGORY_NOUNS and compound.group(1) in nouns
                    and compound.group(1) not in CATEGORY_NOUNS else None)
        if obj is None and nouns and nouns[-1] in CATEGORY_NOUNS and nouns[-1] not in stored_words:
            kind = named_kind or self._kind([w for w in content if w not in LIGHT_VERBS and w not in CATEGORY_NOUNS], list(self.kinds), qforms, phrase=tokens)
            if kind is None and self.embed is not None and self.pairs:
                ranked = sorted(self.pairs)
                scores = similarities(self.embed, " ".join(phrase_words(tokens)), [f"{k} {o}".strip() for k, o in ranked])
                kind = ranked[int(np.argmax(scores))][0] if max(scores) >= MIN_LEAD_SIMILARITY else None
            if kind is not None:
                # "a fruit meal" when no fruit was ever eaten names no meal the memory holds
                # (unless the category noun is the kind's own word: "closed a browser tab" is "close tab")
                unheld_modifier = modifier is not None and modifier not in stored_words and not name_forms(kind) & forms(nouns[-1])
                return EventPattern(kind, singular(modifier) if unheld_modifier and modifier else None)
        for noun in reversed(nouns) if obj is None else ():
            shared = {k for k, o in self.pairs if o and noun in words(o)}
            heads = {o for k, o in self.pairs if o and noun in words(o)}
            if len(heads) > 1 and (shared == {named_kind} or (named_kind is None and len(shared) == 1)):
                return EventPattern(next(iter(shared)), None)  # "a different area", "a sector change": any of them
        if obj is None and nouns and self.embed is not None:
            pool = sorted({o for k, o in self.pairs if o and (named_kind is None or k == named_kind)})
            best = (0.0, "")
            for phrase in dict.fromkeys([" ".join(nouns[-2:]), *nouns[-2:]]):
                scores = similarities(self.embed, phrase, pool)
                if scores and max(scores) > best[0]:
                    best = (max(scores), pool[int(np.argmax(scores))])
            if best[0] >= 0.65:
                obj = best[1]
        if obj is not None:
            rest = [w for w in content if w not in set(words(obj)) and not (forms(w) & name_forms(obj))]
            kinds_with_obj = sorted({k for k, o in self.pairs if o == obj})
            if named_kind is not None and named_kind not in kinds_with_obj:
                as_written = [morph_forms(w) for w in content]
                takes_objects = any(k == named_kind and o for k, o in self.pairs)
                if takes_objects and (covers(words(named_kind), as_written, strict=True) == 1.0 or said_together(words(named_kind), tokens)):
                    return EventPattern(named_kind, obj)
                named_kind = None  # only a synonym of the verb: the object's own kinds decide
            if named_kind is None and len(kinds_with_obj) > 1:
                # "got wood", "used up a stone": of the object's kinds, those that brought it or took it
                moved = kinds_moving(self, obj, kinds_with_obj, tokens)
                if len(moved) == 1:
                    return EventPattern(moved[0], obj)
                if moved:
                    kinds_with_obj = moved
            kind = named_kind or self._kind(rest, kinds_with_obj, [forms(w) for w in rest], force=True, obj=obj, phrase=tokens)
            return EventPattern(kind, obj)
        kind = named_kind or self._kind([w for w in content if w not in LIGHT_VERBS], list(self.kinds), qforms, phrase=tokens)
        if kind is not None:
            stored = {o for k, o in self.pairs if k == kind and o}
            unknown = [w for w in nouns if not (name_forms(kind) & forms(w))]
            if unknown and stored:
                shared = {k for k, o in self.pairs if o and unknown[-1] in words(o)}
                if shared == {kind}:
                    return EventPattern(kind, None)
                return EventPattern(kind, singular(unknown[-1]))
            return EventPattern(kind, None)
        if self.embed is None:
            return None
        unheld = [w for w in nouns if not any(forms(w) & name_forms(o) for o in objects)]
        if unheld and not re.search(r"\b(?:any|anything|something|some)\b", " ".join(tokens)):
            return None  # "find a diamond" when no diamond was ever seen: no other event is that
        pool = sorted(f"{k} {o}".strip() for k, o in self.pairs)
        scores = similarities(self.embed, " ".join(phrase_words(tokens)), pool)
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

    def _without_instrument(self, tokens: list[str]) -> list[str]:
        """The words without a "with ..." phrase of what it was done with ("mined stone with the pickaxe",
        "locked the safe with its key") when the words before it already name a stored object and no
        kind of the memory was typed with "with" ("combine _ with")."""
        if "with" not in tokens or any("with" in words(a) for acts in self.actions_of.values() for a in acts):
            return tokens
        head = tokens[: tokens.index("with")]
        objects = {o for _, o in self.pairs if o}
        return head if longest_name(objects, name_words(head), strict=True) is not None else tokens

    def unheard(self, tokens: Sequence[str]) -> EventPattern | None:
        """An event the memory holds nothing like ("did I unlock the portmanteau" when nothing was ever
        unlocked and no portmanteau was ever touched): the verb and its noun as said, which match no
        stored event, so that "did it ever happen" is answered no rather than not at all."""
        tokens = words(active_voice(" ".join(tokens)))
        verbs = [w for w in verb_words(" ".join(tokens)) if w not in LIGHT_VERBS and w not in _AUXILIARIES and w in tokens]
        if not verbs:
            return None
        after = tokens[tokens.index(verbs[0]) + 1:]
        nouns = [w for w in content_words(after) if nounish(w)]
        verb = min(morph_forms(verbs[0]), key=len)
        return EventPattern(verb, singular(nouns[-1]) if nouns else None)

    def _possessed(self, tokens: Sequence[str]) -> EventPattern | None:
        """ "took the liquid gallium's temperature": the stored object before the possessive, and of its kinds
        the one that names what it has ("measure temperature" with "liquid gallium")."""
        for i, token in enumerate(tokens[:-1]):
            if not token.endswith("'s"):
                continue
            before = [*tokens[:i], token[:-2]]
            obj = longest_name({o for _, o in self.pairs if o}, before[-6:], strict=True)
            if obj is None or words(obj)[-1] not in morph_forms(token[:-2]):
                continue
            noun = forms(tokens[i + 1])
            kinds = sorted(k for k, o in self.pairs if o == obj and noun & name_forms(k))
            if kinds:
                return EventPattern(max(kinds, key=lambda k: len(words(k))), obj)
        return None

    def _kind_similarities(self, text: str, pool: Sequence[str]) -> list[float]:
        """Similarity of ``text`` with each kind: the better of the kind's name and the words the agent
        typed for it, those a little discounted so that a name said as well wins."""
        assert self.embed is not None
        scores = similarities(self.embed, text, list(pool))
        typed = [(i, " ".join(words(a))) for i, k in enumerate(pool) for a in self.actions_of.get(k, ())]
        if typed:
            for (i, _), score in zip(typed, similarities(self.embed, text, [a for _, a in typed])):
                scores[i] = max(scores[i], score - TYPED_DISCOUNT)
        return scores

    def _kind(self, rest: Sequence[str], pool: Sequence[str], qforms: Sequence[frozenset[str]], force: bool = False,
              obj: str | None = None, phrase: Sequence[str] = ()) -> str | None:
        """The kind the verb words name: morphology first, then embedding (``force``: the best of the
        pool whatever its score, when the object already decided the event). With the object known, the
        verb is compared in context ("quarry stone" with "collect stone", "place stone")."""
        lexical = [k for k in pool if covers(words(k), qforms) == 1.0]
        if lexical:
            return max(lexical, key=lambda k: len(words(k)))
        # the words the agent typed for a kind ("teleported" for "warp to", typed "teleport to"): the
        # template's verb said as written and its other words said too
        phrase_forms = [morph_forms(w) for w in phrase] if phrase else [morph_forms(w) for w in rest]
        typed = [k for k in pool if any(covers(words(a)[:1], phrase_forms, strict=True) == 1.0 and covers(words(a), [forms(w) for w in phrase or rest]) == 1.0
                                        for a in self.actions_of.get(k, ()))]
        if len(typed) == 1:
            return typed[0]
        # where the object went, said as the agent typed it: "put the cd on a surface" is the kind typed
        # "put ... on", not the one typed "insert ... into" or "drop"
        said_places = {_PLACE_WORDS[w] for w in after_the_thing(phrase, obj) if w in _PLACE_WORDS}
        if len(said_places) == 1:
            placed = [k for k in pool if any(_PLACE_WORDS.get(w) in said_places for a in self.actions_of.get(k, ())
                                             for w in re.findall(r"_ ([a-z]+)", a))]
            if len(placed) == 1:
                return placed[0]
        # "picked" says "pick up": a kind whose words but its particles the verb says, if only one
        said_particles = {w for w in phrase if w in PARTICLES}

        def particles_agree(kind: str) -> bool:
            """ "put it into the box" is not "put down": a kind's particle, if the phrase says one, must be it."""
            own = {w for w in words(kind) if w in PARTICLES}
            return not own or not said_particles or bool(own & said_particles)

        said = [k for k in pool if len(words(k)) > 1 and particles_agree(k)
                and covers([w for w in words(k) if w not in PARTICLES] or words(k), qforms) == 1.0]
        if len(said) == 1:
            return said[0]
        # a light verb alone ("got" of "get hurt") says nothing about which kind
        heavy = [f for f in qforms if not f & LIGHT_VERBS]
        partial = [k for k in pool if covers(words(k), heavy) > 0 and particles_agree(k)]
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
            verb_phrase = [w for w in (phrase_words(phrase) if phrase else verbs) if w not in obj_words]
            alone = self._kind_similarities(" ".join(verb_phrase), pool) if verb_phrase else [0.0] * len(pool)
            text = " ".join(phrase_words(phrase)) if phrase else " ".join([*verbs, obj])
            whole = similarities(self.embed, text, [f"{k} {obj}" for k in pool])
            scores = [a + w for a, w in zip(alone, whole)]
        else:
            # The phrase keeps its particles: "get up" is not "get", "put down" is not "put".
            scores = self._kind_similarities(" ".join(phrase_words(phrase) or verbs), pool)
        i = int(np.argmax(scores))
        # A phrase with no verb in it (a bare noun) names a kind only by a close match, not by a lead.
        has_verb = bool(verb_words(" ".join(phrase or rest)))
        if force or (clear_winner(scores) if has_verb else scores[i] >= MIN_SIMILARITY):
            return pool[i]
        return None


def _ordinal_or_name(m: re.Match[str], token: str) -> str:
    """ "the last time the reading ..." keeps its ordinal; "the latest temperature reading" is the name."""
    return m.group(0) if re.search(r"\b(?:time|times|occasion|step|moment|point)\b", m.group(1)) else token
