"""Question generator for the interactive-QA benchmark (S3Mem-style questions over one trajectory).

Eight families, each asked with several phrasing templates (and verb synonyms) picked by a seeded RNG.
Gold answers are computed from the ground-truth steps, never from a memory, in the canonical formats of
:mod:`graphmem.query.answers` (``read_slot``, ``format_scalar``); ``gold_source_ids`` are the minimal
steps that decide the answer. The verb phrases and mass nouns are Crafter's words, which is why this
generator lives with the benchmarks and not in the library.

Two disjoint template sets exist per family: ``"base"`` (plain wordings) and ``"heldout"`` (paraphrases:
other verbs, clause orders and connectives). ``paraphrase=True`` draws only held-out wordings, so a
benchmark run measures how the question grammar generalizes; ``paraphrase=False`` draws the base ones.

A question is generated only when its answer is well defined: the target step exists, the step holds the
slot (a region, the state), and a verb that can be read several ways ("got wood" = collected or gained)
gives the same answer under every reading that occurs in the episode.

>>> from importlib import resources
>>> from graphmem.loaders.jsonl_steps import read_steps_jsonl
>>> steps = read_steps_jsonl(resources.files("graphmem") / "data" / "demo_crafter.jsonl")  # 300 Crafter steps
>>> qs = generate_questions("crafter-0", steps, per_family=5, seed=1)
>>> len(qs), qs[0]  # doctest: +NORMALIZE_WHITESPACE
(40, GeneratedQuestion(question='What was I doing at t=169?', answer='move down', family='target_step_action',
                       gold_source_ids=('crafter-0:169',)))
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.query.answers import format_scalar, read_slot
from graphmem.records import Step

logger = logging.getLogger(__name__)

FAMILIES: tuple[str, ...] = (
    "target_step_action",
    "occurrence_step",
    "offset_action",
    "occurrence_location",
    "transition_inventory",
    "transition_step",
    "count_until",
    "state_at_occurrence",
)


@dataclass(frozen=True)
class GeneratedQuestion:
    """One benchmark question with its gold answer and the steps that decide it.

    >>> q = GeneratedQuestion("What did I do at step 3?", "collect wood", "target_step_action", ("ep:3",))
    >>> q.family in FAMILIES, q.gold_source_ids
    (True, ('ep:3',))
    """

    question: str
    answer: str
    family: str
    gold_source_ids: tuple[str, ...]  # f"{episode_id}:{t}"


# --------------------------------------------------------------------------------------------------
# Wording: templates, verb phrases, ordinals, offsets
# --------------------------------------------------------------------------------------------------

#: Family templates. Fields: {t} step, {B} bound, {base}/{past}/{pp} verb phrase forms with their object,
#: {ord} ordinal word, {when} a clause for "at the anchor", {after} the object of after/before, {off} an
#: offset phrase, {rel} an inventory-time phrase, {item}/{items} the inventory item, {state} a state name.
TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "target_step_action": {
        "base": (
            "What did I do at step {t}?",
            "Which action did I take at step {t}?",
            "What was my action at step {t}?",
        ),
        "heldout": (
            "At time step {t}, what did I do?",
            "What action did I perform on step {t}?",
            "Tell me what I did during step {t}.",
            "What was I doing at t={t}?",
        ),
    },
    "occurrence_step": {
        "base": (
            "At which step did I {base} for the {ord} time?",
            "When did I {base} for the {ord} time?",
            "What step was it when I {past} for the {ord} time?",
        ),
        "heldout": (
            "On what step did I {base} for the {ord} time?",
            "The {ord} time I {past}: which step was that?",
            "Give the step number of the {ord} time I {past}.",
            "At what point did I {base} for the {ord} time?",
        ),
    },
    "offset_action": {
        "base": (
            "What did I do {off} {after}?",
            "Which action did I take {off} {after}?",
            "What was my action {off} {after}?",
        ),
        "heldout": (
            "{off} {after}, what did I do?",
            "What action did I choose {off} {after}?",
            "Tell me what I did {off} {after}.",
        ),
    },
    "occurrence_location": {
        "base": ("Where was I {when}?", "In which region was I {when}?", "What area was I in {when}?"),
        "heldout": (
            "{when}, where was I?",
            "Which biome was I in {when}?",
            "Where did I find myself {when}?",
            "What part of the map was I in {when}?",
        ),
    },
    "transition_inventory": {
        "base": (
            "How many {items} did I have {rel}?",
            "How many {items} were in my inventory {rel}?",
            "How many {items} did I own {rel}?",
        ),
        "heldout": (
            "{rel}, how many {items} did I hold?",
            "What was my {item} count {rel}?",
            "How many {items} was I carrying {rel}?",
        ),
    },
    "transition_step": {
        "base": (
            "When did I {base} for the {ord} time?",
            "At which step did I {base} for the {ord} time?",
            "What step was it when I {past} for the {ord} time?",
        ),
        "heldout": (
            "On which step did I {base} for the {ord} time?",
            "What was the step when I {past} for the {ord} time?",
            "At what point did I {base} for the {ord} time?",
        ),
    },
    "count_until": {
        "base": (
            "How many times had I {pp} by step {B}?",
            "How many times did I {base} up to step {B}?",
            "How often had I {pp} by step {B}?",
        ),
        "heldout": (
            "By step {B}, how many times had I {pp}?",
            "Up until step {B}, how often did I {base}?",
            "What number of times had I {pp} as of step {B}?",
            "Through step {B}, how many times did I {base}?",
        ),
    },
    "state_at_occurrence": {
        "base": (
            "What was my {state} when I {past} for the {ord} time?",
            "What was my {state} {when}?",
            "How much {state} did I have {when}?",
        ),
        "heldout": (
            "{when}, what was my {state}?",
            "What {state} level did I have {when}?",
            "Tell me my {state} {when}.",
            "What was my {state} value at the moment I {past} for the {ord} time?",
        ),
    },
}

# Clauses around an anchor event. "{past}" already holds the object ("collected wood").
_WHEN = {
    "base": ("the {ord} time I {past}", "when I {past} for the {ord} time"),
    "heldout": (
        "on the {ord} occasion that I {past}",
        "at the moment I {past} for the {ord} time",
        "the {ord} time that I {past}",
    ),
}
_WHEN_FIRST = {"base": ("when I first {past}",), "heldout": ("the moment I first {past}",)}
_AFTER = {
    "base": ("the {ord} time I {past}", "I {past} for the {ord} time"),
    "heldout": ("the {ord} occasion on which I {past}", "I had {pp} for the {ord} time"),
}
_AFTER_FIRST = {"base": ("I first {past}",), "heldout": ("I had first {pp}",)}
#: Clauses that are noun phrases: the only ones that can follow "following"/"preceding"/"prior to".
_AFTER_NP = {
    "base": ("the {ord} time I {past}",),
    "heldout": ("the {ord} occasion on which I {past}", "the {ord} time that I {past}"),
}
_NEEDS_NP = ("following", "preceding", "prior to")
# Offset words: +-1 have their own phrases; others take a number ("two steps after").
_OFF_ONE: dict[str, dict[int, tuple[str, ...]]] = {
    "base": {
        1: ("right after", "the step after", "just after"),
        -1: ("right before", "just before", "the step before"),
    },
    "heldout": {
        1: ("straight after", "the step following", "directly after"),
        -1: ("right prior to", "the step preceding", "directly prior to"),
    },
}
_OFF_N: dict[str, dict[int, tuple[str, ...]]] = {
    "base": {1: ("{n} steps after",), -1: ("{n} steps before",)},
    "heldout": {1: ("{n} steps following", "{n} moves after"), -1: ("{n} steps prior to", "{n} moves before")},
}
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINAL_WORDS = (
    "",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
)
_LAST = {"base": ("last", "most recent"), "heldout": ("final", "very last")}
_SECOND_LAST = {"base": ("second to last",), "heldout": ("penultimate", "next-to-last")}


@dataclass(frozen=True)
class _VerbPhrase:
    base: str  # "collect {o}"
    past: str  # "collected {o}"
    pp: str  # "collected {o}"
    readings: frozenset[str]  # event kinds the words may denote; the answer must agree under each
    mass_ok: bool = True  # False: reads badly with a mass noun ("set up stone")


def _vp(base: str, past: str, pp: str | None = None, readings: Sequence[str] = (), mass_ok: bool = True) -> _VerbPhrase:
    return _VerbPhrase(base, past, pp or past, frozenset(readings), mass_ok)


# Verb phrases per event kind. Phrases without "{o}" are used only when the kind has a single object.
# fmt: off
_VERBS: dict[str, dict[str, tuple[_VerbPhrase, ...]]] = {
    "base": {
        "collect": (_vp("collect {o}", "collected {o}"), _vp("gather {o}", "gathered {o}"),
                    _vp("get {o}", "got {o}", "gotten {o}", ("collect", "make", "gain"))),
        "make": (_vp("make {o}", "made {o}", readings=("make", "place")), _vp("craft {o}", "crafted {o}", readings=("make", "place"))),
        "place": (_vp("place {o}", "placed {o}"), _vp("put down {o}", "put down {o}")),
        "eat": (_vp("eat {o}", "ate {o}", "eaten {o}"),),
        "drink": (_vp("drink {o}", "drank {o}", "drunk {o}"),),
        "defeat": (_vp("defeat {o}", "defeated {o}"), _vp("kill {o}", "killed {o}")),
        "visit": (_vp("visit {o}", "visited {o}"), _vp("enter {o}", "entered {o}")),
        "sleep": (_vp("fall asleep", "fell asleep", "fallen asleep"), _vp("sleep", "slept")),
        "wake": (_vp("wake up", "woke up", "woken up"),),
        "damage": (_vp("take damage from {o}", "took damage from {o}", "taken damage from {o}"),
                   _vp("take damage", "took damage", "taken damage")),
        "die": (_vp("die", "died"),),
        "gain": (_vp("get {o}", "got {o}", "gotten {o}", ("collect", "make", "gain")),
                 _vp("obtain {o}", "obtained {o}", readings=("collect", "make", "gain"))),
        "use": (_vp("use {o}", "used {o}"),),
        "open": (_vp("open {o}", "opened {o}"),),
        "close": (_vp("close {o}", "closed {o}"),),
    },
    "heldout": {
        "collect": (_vp("harvest {o}", "harvested {o}"), _vp("pick up {o}", "picked up {o}"), _vp("grab {o}", "grabbed {o}")),
        "make": (_vp("forge {o}", "forged {o}"), _vp("build {o}", "built {o}", readings=("make", "place"))),
        "place": (_vp("set up {o}", "set up {o}", mass_ok=False), _vp("build {o}", "built {o}", readings=("make", "place"), mass_ok=False),
                  _vp("put {o} down", "put {o} down", readings=("place", "make"))),
        "eat": (_vp("devour {o}", "devoured {o}"), _vp("feed on {o}", "fed on {o}")),
        "drink": (_vp("sip {o}", "sipped {o}"), _vp("take a sip of {o}", "took a sip of {o}", "taken a sip of {o}")),
        "defeat": (_vp("slay {o}", "slew {o}", "slain {o}"), _vp("take down {o}", "took down {o}", "taken down {o}")),
        "visit": (_vp("reach {o}", "reached {o}"), _vp("arrive at {o}", "arrived at {o}"), _vp("go to {o}", "went to {o}", "gone to {o}")),
        "sleep": (_vp("take a nap", "took a nap", "taken a nap"), _vp("doze off", "dozed off")),
        "wake": (_vp("wake", "woke", "woken"), _vp("awaken", "awoke", "awoken")),
        "damage": (_vp("get hurt by {o}", "got hurt by {o}", "gotten hurt by {o}"), _vp("lose health to {o}", "lost health to {o}")),
        "die": (_vp("die", "died"),),
        "gain": (_vp("acquire {o}", "acquired {o}", readings=("collect", "make", "gain")),
                 _vp("receive {o}", "received {o}", readings=("collect", "make", "gain"))),
        "use": (_vp("make use of {o}", "made use of {o}", readings=("use",)),),
        "open": (_vp("open up {o}", "opened up {o}"),),
        "close": (_vp("shut {o}", "shut {o}", readings=("close",)),),
    },
}
# fmt: on

# fmt: off
#: Kinds that can anchor an occurrence question (gain/lose/consume/achievement duplicate other events).
ANCHOR_KINDS: tuple[str, ...] = (
    "collect", "make", "place", "eat", "drink", "defeat", "visit", "sleep", "wake", "damage", "die", "use", "open", "close",
)
#: Mass nouns take no article and are counted in "pieces of".
_MASS = {
    "wood", "stone", "coal", "iron", "diamond", "water", "sand", "grass", "lava", "path", "hunger", "thirst",
    "fatigue", "food", "drink",
}
# fmt: on


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _object_phrase(kind: str, obj: str, rng: random.Random) -> str:
    if kind == "visit":
        return f"the {obj}"
    if obj in _MASS:
        return obj if kind != "drink" or rng.random() < 0.7 else f"some {obj}"
    return (
        rng.choice((f"{_article(obj)} {obj}", f"the {obj}"))
        if kind in ("place", "use", "open", "close")
        else f"{_article(obj)} {obj}"
    )


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


def _count_phrase(item: str, rng: random.Random) -> str:
    """Countable wording of an inventory item: "saplings", "pieces of wood"."""
    if item in _MASS:
        return rng.choice(("pieces of ", "units of ")) + item
    words = item.split(" ")
    return " ".join(words[:-1] + [_plural(words[-1])])


def _ordinal_word(n: int, total: int, rng: random.Random, style: str) -> str:
    """Words for the n-th of ``total`` occurrences; "last"-style words only when they mean the same step."""
    roll = rng.random()
    if n == total and roll < 0.3:
        return rng.choice(_LAST[style])
    if n == total - 1 and n >= 1 and roll < 0.45:
        return rng.choice(_SECOND_LAST[style])
    if n < len(_ORDINAL_WORDS) and rng.random() < 0.6:
        return _ORDINAL_WORDS[n]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _offset_phrase(k: int, rng: random.Random, style: str) -> str:
    sign = 1 if k > 0 else -1
    if abs(k) == 1 and rng.random() < 0.75:
        return rng.choice(_OFF_ONE[style][sign])
    n = abs(k)
    number = _NUMBER_WORDS[n] if n < len(_NUMBER_WORDS) and rng.random() < 0.6 else str(n)
    phrase = rng.choice(_OFF_N[style][sign]).format(n=number)
    return phrase.replace("steps", "step").replace("moves", "move") if n == 1 else phrase


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------------------------------
# Ground truth
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Episode:
    steps: tuple[Step, ...]
    by_t: dict[int, Step]
    occ: dict[tuple[str, str], list[int]]  # (kind, obj) -> step index of each event, in order
    objs_of: dict[str, set[str]]  # kind -> objects

    def nth(self, kind: str, obj: str, n: int) -> int | None:
        """Step of the n-th (n >= 1) or, for n < 0, the |n|-th from last (kind, obj) event."""
        ts = self.occ.get((kind, obj), [])
        if n < 0:
            n = len(ts) + 1 + n
        return ts[n - 1] if 1 <= n <= len(ts) else None


def _episode(steps: Sequence[Step]) -> _Episode:
    ordered = tuple(sorted(steps, key=lambda s: s.t))
    occ: dict[tuple[str, str], list[int]] = {}
    objs_of: dict[str, set[str]] = {}
    for s in ordered:
        for ev in s.events:
            occ.setdefault((ev.kind, ev.obj), []).append(s.t)
            objs_of.setdefault(ev.kind, set()).add(ev.obj)
    return _Episode(ordered, {s.t: s for s in ordered}, occ, objs_of)


@dataclass(frozen=True)
class _Anchor:
    kind: str
    obj: str
    vp: _VerbPhrase
    forms: dict[str, str]  # base/past/pp with the object filled in
    ordinal_word: str
    t: int  # the anchor step


def _ordinal_of_word(word: str, n: int) -> int:
    """What the chosen ordinal word means (+n, or -1/-2 for last/second to last)."""
    if any(word in words for words in _LAST.values()):
        return -1
    if any(word in words for words in _SECOND_LAST.values()):
        return -2
    return n


def _pick_anchor(
    ep: _Episode, rng: random.Random, style: str, kinds: Sequence[str], first_bias: float = 0.0
) -> _Anchor | None:
    """A random (kind, obj) occurrence, worded with a verb phrase whose every reading agrees on its step."""
    pairs = sorted(p for p in ep.occ if p[0] in kinds)
    if not pairs:
        return None
    kind, obj = rng.choice(pairs)
    total = len(ep.occ[(kind, obj)])
    n = 1 if rng.random() < first_bias else rng.randint(1, total)
    phrases = _phrases_for(ep, style, kind, obj)
    if not phrases:
        return None
    vp = rng.choice(phrases)
    word = _ordinal_word(n, total, rng, style)
    ordinal = _ordinal_of_word(word, n)
    t = ep.nth(kind, obj, ordinal)
    if t is None or not _readings_agree(ep, vp, kind, obj, lambda k: ep.nth(k, obj, ordinal)):
        return None
    o = _object_phrase(kind, obj, rng) if obj else ""
    forms = {"base": vp.base.format(o=o), "past": vp.past.format(o=o), "pp": vp.pp.format(o=o)}
    return _Anchor(kind, obj, vp, forms, word, t)


def _phrases_for(ep: _Episode, style: str, kind: str, obj: str) -> list[_VerbPhrase]:
    """Verb phrases that can word (kind, obj); an object-less phrase only if the kind has one object."""
    single_obj = len(ep.objs_of.get(kind, ())) == 1
    out = []
    for vp in _VERBS[style].get(kind, ()):
        has_slot = "{o}" in vp.base
        if (has_slot and not obj) or (not has_slot and obj and not single_obj):
            continue
        if has_slot and obj in _MASS and not vp.mass_ok:
            continue
        out.append(vp)
    return out


def _readings_agree(ep: _Episode, vp: _VerbPhrase, kind: str, obj: str, value: Callable[[str], object]) -> bool:
    """True if every reading of the verb that occurs with ``obj`` gives the same value as ``kind``."""
    expected = value(kind)
    for reading in vp.readings:
        if reading != kind and (reading, obj) in ep.occ and value(reading) != expected:
            return False
    return True


def _when_clause(a: _Anchor, rng: random.Random, style: str) -> str:
    options = list(_WHEN[style]) + (list(_WHEN_FIRST[style]) if a.ordinal_word == "first" else [])
    return rng.choice(options).format(ord=a.ordinal_word, **a.forms)


def _after_clause(a: _Anchor, rng: random.Random, style: str, offset_words: str = "") -> str:
    """The anchor as the object of "after"/"before" (a noun phrase after "following"/"prior to")."""
    if offset_words.endswith(_NEEDS_NP):
        options = list(_AFTER_NP[style])
    else:
        options = list(_AFTER[style]) + (list(_AFTER_FIRST[style]) if a.ordinal_word == "first" else [])
    return rng.choice(options).format(ord=a.ordinal_word, **a.forms)


def _sid(episode_id: str, *ts: int) -> tuple[str, ...]:
    return tuple(f"{episode_id}:{t}" for t in sorted(set(ts)))


# --------------------------------------------------------------------------------------------------
# Families: each returns one question or None (not well defined with this draw)
# --------------------------------------------------------------------------------------------------

_Maker = Callable[[str, _Episode, random.Random, str], "GeneratedQuestion | None"]


def _target_step_action(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    step = rng.choice(ep.steps)
    q = rng.choice(TEMPLATES["target_step_action"][style]).format(t=step.t)
    return GeneratedQuestion(q, step.action, "target_step_action", _sid(eid, step.t))


def _occurrence_step(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ANCHOR_KINDS)
    if a is None:
        return None
    template = rng.choice(TEMPLATES["occurrence_step"][style])
    if a.ordinal_word == "first" and style == "base" and rng.random() < 0.3:
        template = "When did I first {base}?"
    q = _cap(template.format(ord=a.ordinal_word, **a.forms))
    return GeneratedQuestion(q, str(a.t), "occurrence_step", _sid(eid, a.t))


def _offset_action(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ANCHOR_KINDS)
    if a is None:
        return None
    k = rng.choice((-3, -2, -1, 1, 2, 3))
    target = ep.by_t.get(a.t + k)
    if target is None:
        return None  # beyond the episode (or a gap in the steps)
    template = rng.choice(TEMPLATES["offset_action"][style])
    off = _offset_phrase(k, rng, style)
    q = _cap(template.format(off=off, after=_after_clause(a, rng, style, off)))
    return GeneratedQuestion(q, target.action, "offset_action", _sid(eid, a.t, target.t))


def _occurrence_location(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ANCHOR_KINDS)
    if a is None:
        return None
    region = ep.by_t[a.t].location.region
    if not region:
        return None
    template = rng.choice(TEMPLATES["occurrence_location"][style])
    q = _cap(template.format(when=_when_clause(a, rng, style)))
    return GeneratedQuestion(q, region, "occurrence_location", _sid(eid, a.t))


def _inventory_items(ep: _Episode) -> list[str]:
    states = {name for s in ep.steps for name, _ in s.state}
    return sorted({name for s in ep.steps for name, _ in s.inventory} - states)


def _transition_inventory(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ANCHOR_KINDS, first_bias=0.4)
    items = _inventory_items(ep)
    if a is None or not items:
        return None
    k = rng.choice((-1, 0, 1))
    target = ep.by_t.get(a.t + k)
    if target is None:
        return None
    # Prefer an item that changes around the anchor: that is what a transition question is about.
    around = [ep.by_t.get(a.t + d) for d in (-1, 0, 1)]
    changing = [i for i in items if len({s.inventory_dict.get(i, 0) for s in around if s is not None}) > 1]
    item = rng.choice(changing) if changing and rng.random() < 0.6 else rng.choice(items)
    if k == 0:
        rel = _when_clause(a, rng, style)
    else:
        off = rng.choice(_OFF_ONE[style][k])
        rel = f"{off} {_after_clause(a, rng, style, off)}"
    template = rng.choice(TEMPLATES["transition_inventory"][style])
    q = _cap(template.format(items=_count_phrase(item, rng), item=item, rel=rel))
    answer = read_slot(target, "item", item)
    assert answer is not None
    return GeneratedQuestion(q, answer, "transition_inventory", _sid(eid, a.t, target.t))


def _transition_step(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ("gain",), first_bias=0.7)
    if a is None:
        return None
    template = rng.choice(TEMPLATES["transition_step"][style])
    if a.ordinal_word == "first" and rng.random() < 0.5:
        template = "When did I first {base}?" if style == "base" else "At what step did I first {base}?"
    q = _cap(template.format(ord=a.ordinal_word, **a.forms))
    return GeneratedQuestion(q, str(a.t), "transition_step", _sid(eid, a.t))


def _count_until(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    pairs = sorted(p for p in ep.occ if p[0] in ANCHOR_KINDS)
    if not pairs:
        return None
    kind, obj = rng.choice(pairs)
    ts = ep.occ[(kind, obj)]
    distinct = sorted(set(ts))
    j = rng.randrange(len(distinct))
    hi = distinct[j + 1] - 1 if j + 1 < len(distinct) else ep.steps[-1].t
    bound = rng.randint(distinct[j], max(distinct[j], hi))

    def count(k: str) -> int:
        return sum(1 for t in ep.occ.get((k, obj), []) if t <= bound)

    phrases = _phrases_for(ep, style, kind, obj)
    if not phrases:
        return None
    vp = rng.choice(phrases)
    if not _readings_agree(ep, vp, kind, obj, count):
        return None
    o = _object_phrase(kind, obj, rng) if obj else ""
    template = rng.choice(TEMPLATES["count_until"][style])
    q = _cap(template.format(B=bound, base=vp.base.format(o=o), past=vp.past.format(o=o), pp=vp.pp.format(o=o)))
    latest = max(t for t in ts if t <= bound)
    return GeneratedQuestion(q, str(count(kind)), "count_until", _sid(eid, latest))


def _state_at_occurrence(eid: str, ep: _Episode, rng: random.Random, style: str) -> GeneratedQuestion | None:
    a = _pick_anchor(ep, rng, style, ANCHOR_KINDS)
    if a is None:
        return None
    step = ep.by_t[a.t]
    # Numeric states only: "what was my sleeping" or a float "daylight" do not make natural questions.
    names = sorted(n for n, v in step.state if isinstance(v, int) and not isinstance(v, bool))
    if not names:
        return None
    name = rng.choice(names)
    template = rng.choice(TEMPLATES["state_at_occurrence"][style])
    q = _cap(template.format(state=name, ord=a.ordinal_word, when=_when_clause(a, rng, style), **a.forms))
    return GeneratedQuestion(q, format_scalar(step.state_dict[name]), "state_at_occurrence", _sid(eid, a.t))


_MAKERS: dict[str, _Maker] = {
    "target_step_action": _target_step_action,
    "occurrence_step": _occurrence_step,
    "offset_action": _offset_action,
    "occurrence_location": _occurrence_location,
    "transition_inventory": _transition_inventory,
    "transition_step": _transition_step,
    "count_until": _count_until,
    "state_at_occurrence": _state_at_occurrence,
}


def generate_questions(
    episode_id: str, steps: Sequence[Step], per_family: int = 20, seed: int = 0, paraphrase: bool = True
) -> list[GeneratedQuestion]:
    """Up to ``per_family`` distinct questions per family about one episode, deterministic for a seed.

    ``paraphrase=True`` words them with the held-out templates, ``False`` with the base ones.
    Families the episode cannot support (no region, no events) yield fewer or no questions.

    >>> from graphmem.records import Event
    >>> steps = [Step(0, "noop"), Step(1, "collect wood", events=(Event("collect", "wood"),), inventory={"wood": 1}),
    ...          Step(2, "move left", inventory={"wood": 1})]
    >>> qs = generate_questions("ep", steps, per_family=1, seed=0)
    >>> [q.family for q in qs]  # no region, no state, no "gain" event: three families yield nothing
    ['target_step_action', 'occurrence_step', 'offset_action', 'transition_inventory', 'count_until']
    >>> qs[1].question, qs[1].answer, qs[1].gold_source_ids
    ('On what step did I harvest wood for the first time?', '1', ('ep:1',))
    >>> generate_questions("ep", steps, per_family=1, seed=0, paraphrase=False)[1].question
    'At which step did I collect wood for the first time?'
    """
    if not steps or per_family <= 0:
        return []
    ep = _episode(steps)
    style = "heldout" if paraphrase else "base"
    out: list[GeneratedQuestion] = []
    for family in FAMILIES:
        rng = random.Random(f"{seed}|{episode_id}|{family}|{style}")
        seen: set[str] = set()
        attempts = 0
        while len(seen) < per_family and attempts < per_family * 40:
            attempts += 1
            q = _MAKERS[family](episode_id, ep, rng, style)
            if q is None or q.question in seen:
                continue
            seen.add(q.question)
            out.append(q)
        if len(seen) < per_family:
            logger.debug("family %s: %d of %d questions for episode %s", family, len(seen), per_family, episode_id)
    return out
