"""Shared parts of the development question suites.

A suite module simulates an agent in its own environment, converts what happened into
``graphmem.records.Step`` records and hands them to :func:`make_questions` together with a
:class:`Vocab` of its own words. This module holds what the suites have in common:

* the canonical answer formats (:func:`slot_value`, :func:`fmt_scalar`);
* a reference evaluator (:class:`Evaluator`) that answers a structured query from the Step records
  alone, by scanning them; every generated question is answered by it and the result is asserted
  against what the generator expected from its own index of the episode;
* English verb forms (:func:`verb_forms`) so that a suite can list base phrases only;
* the ten question families, phrased from the suite's vocabulary.

>>> from graphmem.records import Event, Step
>>> steps = [Step(0, "chop", events=(Event("collect", "wood"),), inventory={"wood": 1}), Step(1, "wait")]
>>> slot_value(steps[0], "inventory"), slot_value(steps[1], "events")
('wood 1', 'none')
>>> Evaluator("e", steps).answer(CountQ(Match("collect", "wood"), Window(hi=1)))
('1', ['e:0'])
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.records import Event, Scalar, Step, validate_steps

# --------------------------------------------------------------------------------------------------
# Answer formats
# --------------------------------------------------------------------------------------------------

SLOTS = (
    "action",
    "step",
    "location",
    "position",
    "item",
    "inventory",
    "state",
    "facing",
    "events",
    "count",
    "yes/no",
    "which-first",
    "duration",
    "list",
)

FAMILIES = (
    "1_step_index",
    "2_nth_occurrence",
    "3_windowed_occurrence",
    "4_condition",
    "5_offset",
    "6_next_previous",
    "7_count",
    "8_order",
    "9_distance",
    "10_existence",
)


def fmt_scalar(value: Scalar) -> str:
    """A state value in the canonical form: ints decimal, floats %g, bools true/false, text verbatim.

    >>> fmt_scalar(True), fmt_scalar(7), fmt_scalar(21.50), fmt_scalar("heating")
    ('true', '7', '21.5', 'heating')
    """
    if isinstance(value, bool):  # bool first: it is an int subclass
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def event_label(ev: Event) -> str:
    """``kind obj``, or ``kind`` when the event has no object.

    >>> event_label(Event("collect", "wood")), event_label(Event("sleep"))
    ('collect wood', 'sleep')
    """
    return f"{ev.kind} {ev.obj}" if ev.obj else ev.kind


def facing_of(step: Step) -> str | None:
    for rel in step.relations:
        if rel.subject == "agent" and rel.predicate == "facing":
            return rel.obj
    return None


def slot_value(step: Step, slot: str, arg: str = "") -> str:
    """The canonical answer of ``slot`` read from one step (``arg``: item or state name).

    >>> slot_value(Step(3, "go north", inventory={"key": 1, "apple": 2}), "inventory")
    'apple 2, key 1'
    """
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        loc = step.location
        if loc.region:
            return loc.region
        if loc.position is None:
            raise ValueError(f"step {step.t} has neither region nor position")
        return f"{loc.position[0]},{loc.position[1]}"
    if slot == "position":
        if step.location.position is None:
            raise ValueError(f"step {step.t} has no position")
        return f"{step.location.position[0]},{step.location.position[1]}"
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        held = [(name, n) for name, n in step.inventory if n > 0]
        return ", ".join(f"{name} {n}" for name, n in sorted(held)) if held else "none"
    if slot == "state":
        return fmt_scalar(step.state_dict[arg])
    if slot == "facing":
        obj = facing_of(step)
        if obj is None:
            raise ValueError(f"step {step.t} has no facing relation")
        return obj
    if slot == "events":
        return "; ".join(event_label(ev) for ev in step.events) if step.events else "none"
    raise ValueError(f"not a step slot: {slot}")


# --------------------------------------------------------------------------------------------------
# Structured queries and the reference evaluator
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """Which events a question means: a kind and an object, or any object when ``obj`` is None."""

    kind: str
    obj: str | None = None

    def hits(self, ev: Event) -> bool:
        return ev.kind == self.kind and (self.obj is None or ev.obj == self.obj)


@dataclass(frozen=True)
class At:
    """A step given by its index."""

    t: int


@dataclass(frozen=True)
class Window:
    """Steps ``lo..hi`` (inclusive numeric bounds), strictly after ``after`` and strictly before ``before``."""

    lo: int | None = None
    hi: int | None = None
    after: Anchor | None = None
    before: Anchor | None = None


@dataclass(frozen=True)
class Occ:
    """The n-th matching event (1 = first, -1 = last, -2 = second-to-last) inside a window."""

    match: Match
    n: int
    window: Window = field(default_factory=Window)


@dataclass(frozen=True)
class Cond:
    """The first or last step where an inventory count or a state value meets ``op value``.

    With ``transition`` only steps where the condition holds and did not hold on the step before count
    ("ran out of wood", "the stove was switched on").
    """

    source: str  # "item" or "state"
    name: str
    op: str  # ">=", "<=", ">", "<", "=="
    value: Scalar
    which: str  # "first" or "last"
    transition: bool = False


Anchor = At | Occ | Cond


@dataclass(frozen=True)
class SlotQ:
    anchor: Anchor
    slot: str
    arg: str = ""
    offset: int = 0


@dataclass(frozen=True)
class CountQ:
    match: Match
    window: Window


@dataclass(frozen=True)
class ListQ:
    match: Match
    window: Window


@dataclass(frozen=True)
class OrderQ:
    a: Occ
    b: Occ


@dataclass(frozen=True)
class DistQ:
    a: Anchor
    b: Anchor


@dataclass(frozen=True)
class ExistsQ:
    match: Match
    window: Window


Query = SlotQ | CountQ | ListQ | OrderQ | DistQ | ExistsQ


def _compare(value: Scalar, op: str, target: Scalar) -> bool:
    if isinstance(target, (bool, str)) or isinstance(value, (bool, str)):
        if op != "==":
            raise ValueError("text and bool values compare with == only")
        return value == target and type(value) is type(target)
    if op == ">=":
        return value >= target
    if op == "<=":
        return value <= target
    if op == ">":
        return value > target
    if op == "<":
        return value < target
    if op == "==":
        return value == target
    raise ValueError(f"unknown comparison {op!r}")


class Evaluator:
    """Answers structured queries by scanning the Step records of one episode (no index, no graphmem).

    >>> from graphmem.records import Event, Step
    >>> steps = [Step(t, "act", events=(Event("eat", "apple"),) if t % 3 == 0 else ()) for t in range(7)]
    >>> Evaluator("ep", steps).answer(SlotQ(Occ(Match("eat", "apple"), -1), "step"))
    ('6', ['ep:6'])
    """

    def __init__(self, episode_id: str, steps: Sequence[Step]) -> None:
        for i, step in enumerate(steps):
            if step.t != i:
                raise ValueError(f"step #{i} has t={step.t}; steps must be numbered 0, 1, 2, ...")
        self.episode_id = episode_id
        self.steps = steps

    # --- anchors -------------------------------------------------------------------------------

    def bounds(self, w: Window) -> tuple[int, int, set[int]] | None:
        """(lo, hi, anchor steps) of a window, or None when one of its anchors does not resolve."""
        lo = 0 if w.lo is None else w.lo
        hi = len(self.steps) - 1 if w.hi is None else w.hi
        gold: set[int] = set()
        if w.after is not None:
            got = self.resolve(w.after)
            if got is None:
                return None
            lo = max(lo, got[0] + 1)
            gold |= got[2]
        if w.before is not None:
            got = self.resolve(w.before)
            if got is None:
                return None
            hi = min(hi, got[0] - 1)
            gold |= got[2]
        return lo, hi, gold

    def hits(self, match: Match, lo: int, hi: int) -> list[tuple[int, Event]]:
        found = []
        for step in self.steps[max(lo, 0) : hi + 1]:
            for ev in step.events:
                if match.hits(ev):
                    found.append((step.t, ev))
        return found

    def _value(self, step: Step, source: str, name: str) -> Scalar | None:
        if source == "item":
            return step.inventory_dict.get(name, 0)
        return step.state_dict.get(name)

    def _holds(self, t: int, c: Cond) -> bool:
        value = self._value(self.steps[t], c.source, c.name)
        return value is not None and _compare(value, c.op, c.value)

    def resolve(self, anchor: Anchor) -> tuple[int, Event | None, set[int]] | None:
        """(step, the matched event or None, gold steps) of an anchor, or None when it does not occur."""
        if isinstance(anchor, At):
            if not 0 <= anchor.t < len(self.steps):
                return None
            return anchor.t, None, {anchor.t}
        if isinstance(anchor, Occ):
            b = self.bounds(anchor.window)
            if b is None:
                return None
            lo, hi, gold = b
            found = self.hits(anchor.match, lo, hi)
            n = anchor.n
            if n == 0 or len(found) < abs(n):
                return None
            t, ev = found[n - 1] if n > 0 else found[n]
            return t, ev, gold | {t}
        steps = [
            t
            for t in range(len(self.steps))
            if self._holds(t, anchor) and (not anchor.transition or (t > 0 and not self._holds(t - 1, anchor)))
        ]
        if not steps:
            return None
        t = steps[0] if anchor.which == "first" else steps[-1]
        return t, None, {t}

    # --- queries -------------------------------------------------------------------------------

    def _ids(self, steps: set[int]) -> list[str]:
        return [f"{self.episode_id}:{t}" for t in sorted(steps)]

    def answer(self, q: Query) -> tuple[str, list[str]]:
        """(canonical answer, gold source ids); raises ValueError when the query has no answer."""
        if isinstance(q, SlotQ):
            got = self.resolve(q.anchor)
            if got is None:
                raise ValueError(f"anchor does not occur: {q.anchor}")
            t = got[0] + q.offset
            if not 0 <= t < len(self.steps):
                raise ValueError(f"offset step {t} is outside the episode")
            return slot_value(self.steps[t], q.slot, q.arg), self._ids(got[2] | {t})
        if isinstance(q, (CountQ, ListQ, ExistsQ)):
            b = self.bounds(q.window)
            if b is None:
                raise ValueError(f"window anchor does not occur: {q.window}")
            lo, hi, gold = b
            found = self.hits(q.match, lo, hi)
            if isinstance(q, CountQ):
                return str(len(found)), self._ids(gold | ({found[-1][0]} if found else set()))
            if isinstance(q, ExistsQ):
                return ("yes" if found else "no"), self._ids(gold | ({found[0][0]} if found else set()))
            objs: list[str] = []
            for _, ev in found:
                if not ev.obj:
                    raise ValueError("a list answer needs events with objects")
                if ev.obj not in objs:
                    objs.append(ev.obj)
            if not objs:
                raise ValueError("a list answer needs at least one event")
            return ", ".join(objs), self._ids(gold | {t for t, _ in found})
        ga, gb = self.resolve(q.a), self.resolve(q.b)
        if ga is None or gb is None:
            raise ValueError("an anchor does not occur")
        if isinstance(q, OrderQ):
            if ga[0] == gb[0] or ga[1] is None or gb[1] is None:
                raise ValueError("which-first needs two events at different steps")
            first = ga[1] if ga[0] < gb[0] else gb[1]
            return event_label(first), self._ids(ga[2] | gb[2])
        return str(abs(ga[0] - gb[0])), self._ids(ga[2] | gb[2])


# --------------------------------------------------------------------------------------------------
# English forms
# --------------------------------------------------------------------------------------------------

#: base -> (past, past participle) for irregular verbs the suites use.
_IRREGULAR: dict[str, tuple[str, str]] = {
    "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"),
    "make": ("made", "made"),
    "take": ("took", "taken"),
    "get": ("got", "gotten"),
    "go": ("went", "gone"),
    "put": ("put", "put"),
    "read": ("read", "read"),
    "sleep": ("slept", "slept"),
    "build": ("built", "built"),
    "come": ("came", "come"),
    "set": ("set", "set"),
    "run": ("ran", "run"),
    "fall": ("fell", "fallen"),
    "find": ("found", "found"),
    "dig": ("dug", "dug"),
    "hit": ("hit", "hit"),
    "lose": ("lost", "lost"),
    "leave": ("left", "left"),
    "wake": ("woke", "woken"),
    "slay": ("slew", "slain"),
    "beat": ("beat", "beaten"),
    "shut": ("shut", "shut"),
    "light": ("lit", "lit"),
    "freeze": ("froze", "frozen"),
    "see": ("saw", "seen"),
    "lay": ("laid", "laid"),
    "cut": ("cut", "cut"),
    "bring": ("brought", "brought"),
    "catch": ("caught", "caught"),
    "sow": ("sowed", "sown"),
    "begin": ("began", "begun"),
    "have": ("had", "had"),
    "grow": ("grew", "grown"),
    "throw": ("threw", "thrown"),
    "stick": ("stuck", "stuck"),
    "hold": ("held", "held"),
    "give": ("gave", "given"),
    "pay": ("paid", "paid"),
    "let": ("let", "let"),
    "rise": ("rose", "risen"),
    "drive": ("drove", "driven"),
    "spend": ("spent", "spent"),
    "feel": ("felt", "felt"),
}
#: verbs that double their last consonant before -ed / -ing.
_DOUBLE = {"grab", "drop", "chop", "stop", "step", "plan", "sip", "skim", "flip", "stir", "plug", "chug", "tap", "dip", "pop", "nab", "transfer", "refer", "occur"}


def _past_regular(verb: str) -> str:
    if verb in _DOUBLE:
        return verb + verb[-1] + "ed"
    if verb.endswith("e"):
        return verb + "d"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _gerund(verb: str) -> str:
    if verb in _DOUBLE or verb in {"get", "put", "run", "dig", "hit", "set", "shut", "cut", "begin", "let"}:
        return verb + verb[-1] + "ing"
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and verb != "be":
        return verb[:-1] + "ing"
    return verb + "ing"


@dataclass(frozen=True)
class VerbPhrase:
    base: str
    past: str
    pp: str
    ger: str


def verb_forms(base: str) -> VerbPhrase:
    """Past, participle and gerund of a phrase whose first word is the verb.

    >>> verb_forms("pick up a sapling").past, verb_forms("eat a cow").pp, verb_forms("chop a tree").ger
    ('picked up a sapling', 'eaten a cow', 'chopping a tree')
    """
    verb, _, rest = base.partition(" ")
    tail = f" {rest}" if rest else ""
    past, pp = _IRREGULAR.get(verb, (_past_regular(verb), _past_regular(verb)))
    return VerbPhrase(base, past + tail, pp + tail, _gerund(verb) + tail)


def plural(noun: str) -> str:
    """Plural of a noun phrase (its last word).

    >>> plural("wood pickaxe"), plural("box"), plural("battery")
    ('wood pickaxes', 'boxes', 'batteries')
    """
    head, _, last = noun.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    elif len(last) > 1 and last.endswith("y") and last[-2] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


ORDINALS: dict[int, tuple[str, ...]] = {
    1: ("first", "1st"),
    2: ("second", "2nd"),
    3: ("third", "3rd"),
    4: ("fourth", "4th"),
    5: ("fifth", "5th"),
    6: ("sixth", "6th"),
}
TO_LAST: dict[int, tuple[str, ...]] = {
    2: ("second-to-last", "next-to-last", "penultimate", "second last"),
    3: ("third-to-last", "third from last"),
}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 10: "ten"}


@dataclass(frozen=True)
class Subj:
    """One way of naming the agent: nominative, accusative, possessive, past of 'be'."""

    nom: str
    acc: str
    poss: str
    be: str


def subjects(name: str) -> list[tuple[Subj, int]]:
    """The subjects questions use, with weights ("I" most often)."""
    return [
        (Subj("I", "me", "my", "was"), 10),
        (Subj("we", "us", "our", "were"), 2),
        (Subj("you", "you", "your", "were"), 2),
        (Subj("the agent", "it", "the agent's", "was"), 2),
        (Subj("it", "it", "its", "was"), 1),
        (Subj(name, name, f"{name}'s", "was"), 2),
    ]


# --------------------------------------------------------------------------------------------------
# A suite's vocabulary
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemWords:
    """How questions name an inventory item; ``mass`` nouns take "how much" and no plural."""

    names: tuple[str, ...]
    mass: bool = False


@dataclass(frozen=True)
class StateWords:
    """How questions name a state value.

    ``nouns`` may hold ``{poss}`` ("{poss} health"); bools name their true value with ``true_words``
    ("on", "lit") and the switch to true with ``switched_on`` ("turned on").
    """

    nouns: tuple[str, ...]
    kind: str  # "int", "float", "text" or "bool"
    true_words: tuple[str, ...] = ()
    switched_on: tuple[str, ...] = ()
    unit: str = ""


@dataclass(frozen=True)
class Vocab:
    """A suite's own words for its events, items and state values.

    ``event_phrases(kind, obj)`` gives base verb phrases for one event ("collect wood", "chop a tree")
    and ``event_phrases(kind, None)`` for any event of that kind ("place something"); an empty list
    means the suite does not ask about it. ``what_verbs(kind)`` gives verbs for "what did I ___"
    ("place", "put down"). ``absent_events`` lists events that could happen in the environment; those
    that never happen in an episode make true "no" existence questions. ``kind_weights`` make some
    kinds rarer or more frequent in questions (1 when not listed); a kind is drawn first, then an object.
    ``list_nouns`` name the objects of a kind in list questions ("which areas did I enter").
    ``place_kinds`` are kinds whose object is the region the agent arrives in ("visit", "teleport"):
    asking where the agent was at such an event would repeat the question's own words.
    ``event_nouns(kind, obj)`` gives nouns for one event ("wood collection", "arrival in the kitchen")
    used as "my third wood collection".
    """

    name: str
    region_nouns: tuple[str, ...]
    event_phrases: Callable[[str, str | None], list[str]]
    what_verbs: Callable[[str], list[str]]
    items: dict[str, ItemWords]
    states: dict[str, StateWords]
    slots: tuple[str, ...]
    absent_events: tuple[tuple[str, str], ...] = ()
    kind_weights: dict[str, float] = field(default_factory=dict)
    list_nouns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    place_kinds: tuple[str, ...] = ()
    event_nouns: Callable[[str, str | None], list[str]] = field(default=lambda kind, obj: [])


# --------------------------------------------------------------------------------------------------
# Question generation
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    family: str
    slot: str
    text: str
    query: Query
    expected: str


@dataclass(frozen=True)
class Forms:
    """Ways of saying one anchor: ``do`` follows "When", ``clause`` follows "when/after/before",
    ``noun`` stands alone ("the third time I collected wood"), ``ger`` is a gerund phrase."""

    do: str
    clause: str
    noun: str
    ger: str


class _Skip(Exception):
    """The drawn parameters do not make a well-defined question; draw again."""


class Generator:
    """Draws questions of the ten families for one episode."""

    def __init__(self, episode_id: str, steps: Sequence[Step], vocab: Vocab, rng: random.Random) -> None:
        self.episode_id = episode_id
        self.steps = steps
        self.vocab = vocab
        self.rng = rng
        self.evaluator = Evaluator(episode_id, steps)
        self.n = len(steps)
        # The generator's own index (the evaluator scans the records instead).
        self.occ: dict[Match, list[int]] = {}
        for step in steps:
            for ev in step.events:
                for m in (Match(ev.kind, ev.obj), Match(ev.kind, None)):
                    self.occ.setdefault(m, []).append(step.t)
        self.specific = sorted(
            (m for m in self.occ if m.obj is not None and vocab.event_phrases(m.kind, m.obj)),
            key=lambda m: (m.kind, m.obj or ""),
        )
        self.generic = sorted(
            (
                m
                for m in self.occ
                if m.obj is None
                and vocab.event_phrases(m.kind, None)
                and len({ev_obj for ev_obj in self._objs(m.kind)}) > 1
            ),
            key=lambda m: m.kind,
        )
        self.items = sorted({name for step in steps for name, c in step.inventory if c > 0})
        self.state_names = sorted({name for step in steps for name, _ in step.state if name in vocab.states})
        self.subjects = subjects(vocab.name)
        # Slots already asked in the family being drawn: used ones are drawn less often, so each family
        # spreads over the slots.
        self.family_slots: Counter[str] = Counter()

    def _objs(self, kind: str) -> set[str]:
        return {m.obj for m in self.occ if m.kind == kind and m.obj is not None}

    # --- small helpers -------------------------------------------------------------------------

    def pick(self, options: Sequence[Any]) -> Any:
        if not options:
            raise _Skip("nothing to choose from")
        return options[self.rng.randrange(len(options))]

    def subj(self) -> Subj:
        people = [s for s, _ in self.subjects]
        weights = [w for _, w in self.subjects]
        return self.rng.choices(people, weights)[0]

    def finish(self, text: str) -> str:
        text = re.sub(r"\s+", " ", text).strip()
        text = text.replace(" up up to step", " up by step")  # "woken up up to step 9"
        text = text[0].upper() + text[1:]
        if text.endswith((".", "?")):
            return text
        return text + ("?" if self.rng.random() < 0.85 else "")

    def vp(self, m: Match) -> VerbPhrase:
        return verb_forms(self.pick(self.vocab.event_phrases(m.kind, m.obj)))

    def count(self, m: Match, lo: int = 0, hi: int | None = None) -> list[int]:
        hi = self.n - 1 if hi is None else hi
        return [t for t in self.occ.get(m, []) if lo <= t <= hi]

    def specific_match(self, among: Sequence[Match] | None = None) -> Match:
        """A specific event: a kind drawn by the suite's weights, then one of its objects."""
        pool = list(self.specific if among is None else among)
        kinds = sorted({m.kind for m in pool})
        if not kinds:
            raise _Skip("no events to ask about")
        weights = [self.vocab.kind_weights.get(k, 1.0) for k in kinds]
        kind = self.rng.choices(kinds, weights)[0]
        return self.pick([m for m in pool if m.kind == kind])

    def matches(self, generic_share: float = 0.2) -> Match:
        if self.generic and self.rng.random() < generic_share:
            return self.pick(self.generic)
        return self.specific_match()

    def num(self, k: int) -> str:
        return NUMBER_WORDS[k] if k in NUMBER_WORDS and self.rng.random() < 0.4 else str(k)

    # --- anchors in words ----------------------------------------------------------------------

    def occ_forms(self, s: Subj, occ: Occ, w: str = "", bare: bool = False) -> Forms:
        """Forms of "the n-th matching event" (``w``: the window already in words, with a leading space).

        ``bare`` allows the ordinal-less wording for a first occurrence ("after I placed a table"),
        which the conventions read as the first one; targets always say their ordinal.
        """
        v, n, pick = self.vp(occ.match), occ.n, self.pick
        if n == 1:
            clause = [f"{s.nom} first {v.past}{w}", f"{s.nom} {v.past} for the first time{w}"]
            do = [f"did {s.nom} first {v.base}{w}", f"did {s.nom} {v.base} for the first time{w}"]
            noun = [f"the first time {s.nom} {v.past}{w}"]
            ger = [f"{v.ger} for the first time{w}"]
            if bare:
                clause += [f"{s.nom} {v.past}{w}"] * 2
                ger += [f"{v.ger}{w}"] * 2
        elif n > 1:
            word = pick(ORDINALS[n])
            clause = [f"{s.nom} {v.past} for the {word} time{w}"]
            do = [f"did {s.nom} {v.base} for the {word} time{w}"]
            if n == 2 and not w:
                do.append(f"did {s.nom} {v.base} again after the first time")
            noun = [f"the {word} time {s.nom} {v.past}{w}"]
            ger = [f"{v.ger} for the {word} time{w}"]
        elif n == -1:
            last = pick(("last", "final"))
            clause = [f"{s.nom} last {v.past}{w}", f"{s.nom} {v.past} for the {last} time{w}"]
            do = [f"did {s.nom} last {v.base}{w}", f"did {s.nom} {v.base} for the {last} time{w}"]
            noun = [f"the {pick(('last', 'latest', 'final', 'most recent'))} time {s.nom} {v.past}{w}"]
            ger = [f"{v.ger} for the {last} time{w}"]
        else:
            word = pick(TO_LAST[-n])
            clause = [f"{s.nom} {v.past} for the {word} time{w}"]
            do = [f"did {s.nom} {v.base} for the {word} time{w}"]
            noun = [f"the {word} time {s.nom} {v.past}{w}"]
            ger = [f"{v.ger} for the {word} time{w}"]
        nouns = self.vocab.event_nouns(occ.match.kind, occ.match.obj)
        if nouns and self.rng.random() < 0.5:
            # "my third wood collection", "the agent's last arrival in the kitchen"
            if n == 1:
                word = "first"
            elif n == -1:
                word = pick(("last", "latest", "final", "most recent"))
            else:
                word = pick(ORDINALS[n] if n > 0 else TO_LAST[-n])
            noun = [f"{s.poss} {word} {pick(nouns)}{w}"]
        return Forms(pick(do), pick(clause), pick(noun), pick(ger))

    def _pred(self, c: Cond, sw: StateWords | None) -> str:
        v = fmt_scalar(c.value)
        if isinstance(c.value, str):
            return f"'{v}'"
        unit = f" {sw.unit}" if sw is not None and sw.unit else ""
        words = {
            ">=": [f"at least {v}{unit}", f"{v}{unit} or more"],
            "<=": [f"at most {v}{unit}", f"{v}{unit} or less"],
            ">": [f"above {v}{unit}", f"more than {v}{unit}", f"greater than {v}{unit}"],
            "<": [f"below {v}{unit}", f"less than {v}{unit}", f"under {v}{unit}"],
            "==": [f"exactly {v}{unit}", f"equal to {v}{unit}"],
        }
        return self.pick(words[c.op])

    def cond_forms(self, s: Subj, c: Cond) -> Forms:
        """Forms of "the first/last step where <value> <op> <threshold>"."""
        pick, which = self.pick, c.which
        if c.source == "item":
            iw = self.vocab.items.get(c.name, ItemWords((c.name,)))
            name = pick(iw.names)
            stuff = name if iw.mass else plural(name)
            if c.transition and c.op == "==" and c.value == 0:
                return Forms(
                    f"did {s.nom} {which} run out of {stuff}",
                    f"{s.nom} {which} ran out of {stuff}",
                    f"the {which} time {s.nom} ran out of {stuff}",
                    f"running out of {stuff} for the {which} time",
                )
            subject = pick([f"{s.poss} {name} count", f"the {'amount' if iw.mass else 'number'} of {stuff} {s.nom} had"])
            value = int(c.value)
            amount = f"{value} {name if iw.mass or value == 1 else stuff}"
            have = {">=": f"at least {amount}", "==": f"exactly {amount}", "<=": f"at most {amount}"}.get(c.op)
            if have is not None and self.rng.random() < 0.5:
                verb = pick(("have", "hold")) if which == "first" else "have"
                return Forms(
                    f"did {s.nom} {which} {verb} {have}",
                    f"{s.nom} {which} {verb_forms(verb).past} {have}",
                    f"the {which} step at which {s.nom} had {have}",
                    f"having {have} for the {which} time",
                )
            sw: StateWords | None = None
        else:
            sw = self.vocab.states[c.name]
            subject = pick(sw.nouns).format(poss=s.poss)
            if sw.kind == "bool":
                if c.transition:
                    on = pick(sw.switched_on)
                    return Forms(
                        f"was {subject} {which} {on}",
                        f"{subject} was {which} {on}",
                        f"the {which} time {subject} was {on}",
                        f"{subject} being {on} for the {which} time",
                    )
                on = pick(sw.true_words)
                return Forms(
                    f"was {subject} {which} {on}",
                    f"{subject} was {which} {on}",
                    f"the {which} step at which {subject} was {on}",
                    f"{subject} being {on} for the {which} time",
                )
        v = fmt_scalar(c.value)
        unit = f" {sw.unit}" if sw is not None and sw.unit else ""
        verbs = {
            ">=": [f"reach {v}{unit}"],
            "<=": [f"drop to {v}{unit} or below", f"fall to {v}{unit} or lower"],
            "<": [f"drop below {v}{unit}", f"fall below {v}{unit}"],
            ">": [f"rise above {v}{unit}", f"exceed {v}{unit}", f"go above {v}{unit}"],
        }.get(c.op)
        if which == "first" and not c.transition and verbs and not isinstance(c.value, (str, bool)) and self.rng.random() < 0.5:
            verb = verb_forms(pick(verbs))
            return Forms(
                f"did {subject} first {verb.base}",
                f"{subject} first {verb.past}",
                f"the first time {subject} {verb.past}",
                f"{subject} first {verb.ger}",
            )
        pred = self._pred(c, sw)
        return Forms(
            f"was {subject} {which} {pred}",
            f"{subject} was {which} {pred}",
            pick([f"the {which} step at which {subject} was {pred}", f"the {which} time {subject} was {pred}"]),
            f"{subject} being {pred} for the {which} time",
        )

    def anchor_forms(self, s: Subj, a: Anchor, bare: bool = True) -> Forms:
        if isinstance(a, Occ):
            has_anchor = a.window.after is not None or a.window.before is not None
            w = self.window_words(s, a.window) if has_anchor else ""
            return self.occ_forms(s, a, w, bare=bare)
        if isinstance(a, Cond):
            return self.cond_forms(s, a)
        return Forms(f"was step {a.t}", f"step {a.t} came", f"step {a.t}", f"step {a.t}")

    def window_words(self, s: Subj, w: Window) -> str:
        """Words of an anchor window built by :meth:`anchor_window` (numeric windows carry words)."""
        if w.after is not None:
            f = self.anchor_forms(s, w.after)
            return self.pick([f" after {f.clause}"] + ([f" after {f.ger}"] if isinstance(w.after, Occ) else []))
        if w.before is not None:
            f = self.anchor_forms(s, w.before)
            return self.pick([f" before {f.clause}"] + ([f" before {f.ger}"] if isinstance(w.before, Occ) else []))
        raise ValueError("numeric windows are phrased where they are drawn")

    def numeric_window(self, styles: Sequence[str] = ("between", "first", "by", "before", "after")) -> tuple[Window, str]:
        """A window given by step numbers, with its words (leading space)."""
        style = self.pick(styles)
        n = self.n
        if style == "between":
            a = self.rng.randrange(0, n - 60)
            b = self.rng.randrange(a + 20, min(n, a + 400))
            return Window(lo=a, hi=b), self.pick([f" between step {a} and step {b}", f" between steps {a} and {b}", f" from step {a} to step {b}"])
        if style == "first":
            k = self.rng.randrange(30, n - 20, 10)
            return Window(lo=0, hi=k - 1), self.pick([f" in the first {k} steps", f" during the first {k} steps", f" within the first {k} steps"])
        if style == "by":
            k = self.rng.randrange(20, n - 20)
            return Window(hi=k), self.pick([f" by step {k}", f" up to step {k}", f" until step {k}", f" up to and including step {k}"])
        if style == "before":
            k = self.rng.randrange(20, n - 20)
            return Window(hi=k - 1), self.pick([f" before step {k}", f" earlier than step {k}", f" prior to step {k}"])
        k = self.rng.randrange(20, n - 40)
        return Window(lo=k + 1), self.pick([f" after step {k}", f" later than step {k}"])

    def event_anchor(self, avoid: Match | None = None, ordinals: Sequence[int] = (1, 1, 1, 2, -1)) -> Occ:
        """An event occurrence to anchor on: a specific event other than ``avoid``, with an ordinal it has."""
        m = self.specific_match([x for x in self.specific if avoid is None or x.kind != avoid.kind])
        n = self.pick([k for k in ordinals if abs(k) <= len(self.occ[m])])
        return Occ(m, n)

    def anchor_step(self, a: Anchor) -> int:
        """The step of an anchor, from the generator's own index (the evaluator checks it later)."""
        if isinstance(a, At):
            return a.t
        if isinstance(a, Cond):
            return self.cond_step(a)
        lo, hi = 0, self.n - 1
        if a.window.lo is not None:
            lo = a.window.lo
        if a.window.hi is not None:
            hi = a.window.hi
        if a.window.after is not None:
            lo = max(lo, self.anchor_step(a.window.after) + 1)
        if a.window.before is not None:
            hi = min(hi, self.anchor_step(a.window.before) - 1)
        found = self.count(a.match, lo, hi)
        if a.n == 0 or len(found) < abs(a.n):
            raise _Skip("anchor does not occur")
        return found[a.n - 1] if a.n > 0 else found[a.n]

    def series(self, source: str, name: str) -> list[Scalar | None]:
        if source == "item":
            return [step.inventory_dict.get(name, 0) for step in self.steps]
        return [step.state_dict.get(name) for step in self.steps]

    def cond_holds(self, c: Cond) -> list[bool]:
        ops: dict[str, Callable[[Any, Any], bool]] = {
            ">=": lambda a, b: a >= b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            "<": lambda a, b: a < b,
            "==": lambda a, b: a == b and type(a) is type(b),
        }
        return [v is not None and ops[c.op](v, c.value) for v in self.series(c.source, c.name)]

    def cond_step(self, c: Cond) -> int:
        holds = self.cond_holds(c)
        steps = [t for t, h in enumerate(holds) if h and (not c.transition or (t > 0 and not holds[t - 1]))]
        if not steps:
            raise _Skip("condition never holds")
        return steps[0] if c.which == "first" else steps[-1]

    def cond_anchor(self, first_only: bool = False) -> Cond:
        """A condition on an item count or a state value that first holds after step 0."""
        rng = self.rng
        sources = [("item", name) for name in self.items] + [("state", name) for name in self.state_names]
        source, name = self.pick(sources)
        values: list[Scalar] = []
        for step in self.steps:
            got = step.inventory_dict.get(name, 0) if source == "item" else step.state_dict.get(name)
            if got is None:
                raise _Skip("state missing on some step")
            values.append(got)
        kind = "int" if source == "item" else self.vocab.states[name].kind
        which = "first" if first_only or rng.random() < 0.7 else "last"
        if kind in ("text", "bool"):
            later = sorted({fmt_scalar(v) for v in values[1:] if v != values[0]})
            target = self.pick([v for v in values if fmt_scalar(v) in later])
            transition = kind == "bool" and bool(self.vocab.states[name].switched_on) and rng.random() < 0.5
            return Cond(source, name, "==", target, which, transition)
        if source == "item" and rng.random() < 0.25:
            c = Cond(source, name, "==", 0, which, transition=True)
            self.cond_step(c)  # raises when it never ran out
            return c
        start = values[0]
        assert not isinstance(start, (str, bool))
        nums = [v for v in values if not isinstance(v, (str, bool))]
        up = [v for v in nums if v > start]
        down = [v for v in nums if v < start]
        if up and (not down or rng.random() < 0.5):
            v = self.pick(sorted(set(up)))
            op = self.pick([">=", "=="] if isinstance(v, int) else [">="])
            if isinstance(v, float):
                v, op = float(int(v)), ">"
                if not v > start:
                    raise _Skip("threshold not above the start")
            elif rng.random() < 0.3 and v - 1 >= start:
                v, op = v - 1, ">"
        elif down:
            v = self.pick(sorted(set(down)))
            op = self.pick(["<=", "=="] if isinstance(v, int) else ["<="])
            if isinstance(v, float):
                v, op = float(int(v) + 1), "<"
                if not v < start:
                    raise _Skip("threshold not below the start")
            elif rng.random() < 0.3 and v + 1 <= start:
                v, op = v + 1, "<"
        else:
            raise _Skip("value never changes")
        c = Cond(source, name, op, v, which)
        holds = self.cond_holds(c)
        if holds[0]:
            raise _Skip("condition already holds at step 0")
        if which == "last" and holds[-1]:
            raise _Skip("condition still holds at the end")
        return c

    # --- slots in words ------------------------------------------------------------------------

    def step_slot(self, slots: Sequence[tuple[str, int]]) -> str:
        allowed = [(s, w / (1 + 2 * self.family_slots[s])) for s, w in slots if s in self.vocab.slots]
        return self.rng.choices([s for s, _ in allowed], [w for _, w in allowed])[0]

    def check_slot(self, slot: str, m: Match) -> None:
        if slot == "location" and m.kind in self.vocab.place_kinds:
            raise _Skip("the location of an arrival is in the question")

    def slot_arg(self, slot: str, t: int) -> str:
        if slot == "item":
            held = [name for name, c in self.steps[t].inventory if c > 0]
            return self.pick(held if held and self.rng.random() < 0.75 else self.items)
        if slot == "state":
            return self.pick([name for name in self.state_names if name in self.steps[t].state_dict])
        if slot == "facing" and facing_of(self.steps[t]) is None:
            raise _Skip("no facing relation")
        return ""

    def slot_question(self, slot: str, s: Subj, m: str, arg: str) -> str:
        """A question asking ``slot`` at moment ``m`` ("at step 40", "when I first placed a table")."""
        pick = self.pick
        if slot == "action":
            opts = [
                f"what did {s.nom} do {m}",
                f"which action did {s.nom} take {m}",
                f"what action was taken {m}",
                f"what was {s.poss} action {m}",
                f"{m}, what did {s.nom} do",
            ]
        elif slot == "location":
            r = pick(self.vocab.region_nouns)
            opts = [
                f"where {s.be} {s.nom} {m}",
                f"which {r} {s.be} {s.nom} in {m}",
                f"what {r} {s.be} {s.nom} in {m}",
                f"{m}, where {s.be} {s.nom}",
                f"in which {r} {s.be} {s.nom} {m}",
            ]
        elif slot == "position":
            opts = [
                f"what were {s.poss} coordinates {m}",
                f"at what x,y position {s.be} {s.nom} {m}",
                f"what was {s.poss} position {m}",
                f"{m}, what were {s.poss} x,y coordinates",
            ]
        elif slot == "item":
            iw = self.vocab.items.get(arg, ItemWords((arg,)))
            name = pick(iw.names)
            how = f"how much {name}" if iw.mass else f"how many {plural(name)}"
            opts = [
                f"{how} did {s.nom} have {m}",
                f"{how} {s.be} {s.nom} carrying {m}",
                f"what was {s.poss} {name} count {m}",
                f"{how} did {s.nom} hold {m}",
                f"{m}, {how} did {s.nom} have",
            ]
        elif slot == "inventory":
            opts = [
                f"what {s.be} {s.nom} carrying {m}",
                f"what was in {s.poss} inventory {m}",
                f"what did {s.nom} have in {s.poss} inventory {m}",
                f"what was in {s.poss} bag {m}",
                f"what items did {s.nom} hold {m}",
                f"{m}, what {s.be} {s.nom} holding",
            ]
        elif slot == "state":
            sw = self.vocab.states[arg]
            noun = pick(sw.nouns).format(poss=s.poss)
            if sw.kind == "bool":
                on = pick(sw.true_words)
                opts = [f"was {noun} {on} {m} (true or false)", f"true or false: {noun} was {on} {m}"]
            else:
                opts = [f"what was {noun} {m}", f"{m}, what was {noun}", f"what value did {noun} have {m}"]
        elif slot == "facing":
            opts = [
                f"what {s.be} {s.nom} facing {m}",
                f"what was in front of {s.acc} {m}",
                f"what did {s.nom} see in front of {s.acc} {m}",
                f"what was directly ahead of {s.acc} {m}",
            ]
        elif slot == "events":
            opts = [f"what happened {m}", f"which events occurred {m}", f"what events were recorded {m}", f"what took place {m}"]
        else:
            raise ValueError(slot)
        return pick(opts)

    # --- the families --------------------------------------------------------------------------

    def f1_step_index(self) -> Question:
        slot = self.step_slot(
            [("action", 3), ("location", 3), ("position", 2), ("inventory", 3), ("item", 3), ("state", 3), ("facing", 2), ("events", 2)]
        )
        t = self.rng.randrange(self.n)
        if slot == "events" and not self.steps[t].events and self.rng.random() < 0.8:
            raise _Skip("prefer a step with events")
        arg = self.slot_arg(slot, t)
        s = self.subj()
        m = self.pick([f"at step {t}", f"on step {t}", f"at time step {t}", f"in step {t}", f"at t={t}", f"at step #{t}"])
        text = self.slot_question(slot, s, m, arg)
        return Question(FAMILIES[0], slot, text, SlotQ(At(t), slot, arg), slot_value(self.steps[t], slot, arg))

    def f2_nth(self) -> Question:
        m = self.matches()
        k = len(self.occ[m])
        n = self.pick([x for x in (1, 1, 2, 3, 4, 5, -1, -1, -2, -3) if abs(x) <= k and (x > 0 or k >= 2)])
        t = self.occ[m][n - 1] if n > 0 else self.occ[m][n]
        slot = self.step_slot([("step", 6), ("location", 2), ("inventory", 2), ("item", 2), ("state", 2), ("events", 1), ("position", 1)])
        self.check_slot(slot, m)
        arg = self.slot_arg(slot, t)
        s = self.subj()
        f = self.occ_forms(s, Occ(m, n))
        if slot == "step":
            text = self.pick(
                [f"when {f.do}", f"at which step {f.do}", f"when was {f.noun}", f"what step was it when {f.clause}", f"which step was {f.noun}"]
            )
        else:
            moment = self.pick([f"when {f.clause}", f.noun, f"at the step where {f.clause}"])
            text = self.slot_question(slot, s, moment, arg)
        return Question(FAMILIES[1], slot, text, SlotQ(Occ(m, n), slot, arg), slot_value(self.steps[t], slot, arg))

    def f3_window(self) -> Question:
        s = self.subj()
        style = self.pick(["after_event", "after_event", "numeric", "numeric", "list", "list"])
        if style == "list":
            return self._list_question(s)
        m = self.matches(generic_share=0.4)
        if style == "after_event":
            y = self.event_anchor(avoid=m)
            ty = self.anchor_step(y)
            window = Window(after=y)
            w = self.window_words(s, window)
            found = self.count(m, ty + 1)
            # Only forward ordinals: "the last X after Y" would just be the last X.
            n = self.pick([x for x in (1, 2, 2, 3) if x <= len(found)])
        else:
            window, w = self.numeric_window(("between", "before", "after", "first"))
            lo = window.lo or 0
            hi = self.n - 1 if window.hi is None else window.hi
            found = self.count(m, lo, hi)
            n = self.pick([x for x in (1, 2, -1, -1, -2) if abs(x) <= len(found)])
            # A window that only cuts the end leaves the first ones as they are (and the start the last).
            if (n > 0 and lo == 0) or (n < 0 and hi == self.n - 1):
                raise _Skip("the window does not change this ordinal")
        if len(found) == len(self.occ[m]):
            raise _Skip("the window does not restrict anything")
        t = found[n - 1] if n > 0 else found[n]
        slot = self.step_slot([("step", 6), ("location", 2), ("inventory", 1), ("item", 1), ("events", 1), ("state", 1)])
        self.check_slot(slot, m)
        arg = self.slot_arg(slot, t)
        f = self.occ_forms(s, Occ(m, n), w)
        if slot == "step":
            text = self.pick([f"when {f.do}", f"at which step {f.do}", f"when was {f.noun}"])
        else:
            text = self.slot_question(slot, s, self.pick([f"when {f.clause}", f.noun]), arg)
        return Question(FAMILIES[2], slot, text, SlotQ(Occ(m, n, window), slot, arg), slot_value(self.steps[t], slot, arg))

    def _list_question(self, s: Subj) -> Question:
        m = self.pick([g for g in self.generic if all(self._objs(g.kind))])
        if self.rng.random() < 0.5:
            window, w = self.numeric_window(("between", "first", "by", "before", "after"))
            lo, hi = window.lo or 0, self.n - 1 if window.hi is None else window.hi
        else:
            y = self.event_anchor(avoid=m)
            ty = self.anchor_step(y)
            window = Window(after=y) if self.rng.random() < 0.5 else Window(before=y)
            lo, hi = (ty + 1, self.n - 1) if window.after is not None else (0, ty - 1)
            w = self.window_words(s, window)
        found = self.count(m, lo, hi)
        if not 1 <= len(found) <= 4:
            raise _Skip("a list question wants 1-4 matching steps")
        objs: list[str] = []
        for t in found:
            for ev in self.steps[t].events:
                if m.hits(ev) and ev.obj not in objs:
                    objs.append(ev.obj)
        verb = self.pick(self.vocab.what_verbs(m.kind))
        things = self.pick(self.vocab.list_nouns.get(m.kind, ("things", "items", "objects")))
        text = self.pick([f"what did {s.nom} {verb}{w}", f"which {things} did {s.nom} {verb}{w}", f"list everything {s.nom} {verb_forms(verb).past}{w}"])
        return Question(FAMILIES[2], "list", text, ListQ(m, window), ", ".join(objs))

    def f4_condition(self) -> Question:
        c = self.cond_anchor()
        t = self.anchor_step(c)
        slot = self.step_slot([("step", 8), ("location", 2), ("action", 1), ("inventory", 1), ("state", 1), ("position", 1)])
        arg = self.slot_arg(slot, t)
        if slot == "state" and arg == c.name:
            raise _Skip("asks back the condition's own value")
        s = self.subj()
        f = self.cond_forms(s, c)
        if slot == "step":
            text = self.pick([f"when {f.do}", f"at which step {f.do}", f"which step was {f.noun}", f"when was {f.noun}"])
        else:
            text = self.slot_question(slot, s, self.pick([f"when {f.clause}", f.noun]), arg)
        return Question(FAMILIES[3], slot, text, SlotQ(c, slot, arg), slot_value(self.steps[t], slot, arg))

    def f5_offset(self) -> Question:
        s = self.subj()
        a: Anchor
        if self.rng.random() < 0.75:
            m = self.matches(generic_share=0.1)
            k_occ = len(self.occ[m])
            n = self.pick([x for x in (1, 1, 2, 3, -1) if abs(x) <= k_occ])
            a = Occ(m, n)
        else:
            a = self.cond_anchor(first_only=True)
        ta = self.anchor_step(a)
        k = self.pick([1, 1, 1, 2, 3, 4, 5, 10, -1, -1, -1, -2, -3, -5])
        t = ta + k
        if not 0 <= t < self.n:
            raise _Skip("offset outside the episode")
        f = self.anchor_forms(s, a)
        c = f.clause
        if k == 1:
            moment = self.pick([f"the step after {c}", f"right after {c}", f"one step after {c}", f"1 step after {c}", f"immediately after {c}"])
        elif k == -1:
            moment = self.pick([f"the step before {c}", f"right before {c}", f"one step before {c}", f"just before {c}"])
        elif k > 0:
            moment = self.pick([f"{self.num(k)} steps after {c}", f"{self.num(k)} steps after {f.noun}"])
        else:
            moment = self.pick([f"{self.num(-k)} steps before {c}", f"{self.num(-k)} steps before {f.noun}"])
        slot = self.step_slot(
            [("action", 4), ("location", 3), ("inventory", 2), ("item", 2), ("state", 2), ("facing", 2), ("events", 2), ("position", 1)]
        )
        arg = self.slot_arg(slot, t)
        text = self.slot_question(slot, s, moment, arg)
        return Question(FAMILIES[4], slot, text, SlotQ(a, slot, arg, k), slot_value(self.steps[t], slot, arg))

    def f6_next_previous(self) -> Question:
        s = self.subj()
        x = self.matches(generic_share=0.2)
        y = self.event_anchor(avoid=x, ordinals=(1, 1, 2, 3, -1, -2))
        ty = self.anchor_step(y)
        nxt = self.rng.random() < 0.5
        found = self.count(x, ty + 1) if nxt else self.count(x, 0, ty - 1)
        if not found:
            raise _Skip("no next/previous occurrence")
        t = found[0] if nxt else found[-1]
        plain = (nxt and t == self.occ[x][0]) or (not nxt and t == self.occ[x][-1])
        if plain and self.rng.random() < 0.7:
            raise _Skip("prefer a next/previous that differs from the plain first/last")
        occ = Occ(x, 1, Window(after=y)) if nxt else Occ(x, -1, Window(before=y))
        yf = self.anchor_forms(s, y)
        v = self.vp(x)
        slot = self.step_slot([("step", 6), ("location", 2), ("inventory", 2), ("action", 1), ("events", 1), ("item", 1)])
        self.check_slot(slot, x)
        arg = self.slot_arg(slot, t)
        if slot == "step":
            if nxt:
                text = self.pick(
                    [
                        f"when did {s.nom} next {v.base} after {yf.clause}",
                        f"after {yf.clause}, when was the next time {s.nom} {v.past}",
                        f"at which step did {s.nom} {v.base} next, after {yf.clause}",
                        f"what was the first step after {yf.clause} at which {s.nom} {v.past}",
                    ]
                )
            else:
                text = self.pick(
                    [
                        f"when had {s.nom} last {v.pp} before {yf.clause}",
                        f"before {yf.clause}, when was the last time {s.nom} {v.past}",
                        f"when was the previous time {s.nom} {v.past} before {yf.clause}",
                        f"what was the most recent step before {yf.clause} at which {s.nom} {v.past}",
                    ]
                )
        else:
            if nxt:
                moment = self.pick([f"the next time {s.nom} {v.past} after {yf.clause}", f"the first time {s.nom} {v.past} after {yf.clause}"])
            else:
                moment = self.pick([f"the last time {s.nom} {v.past} before {yf.clause}", f"the previous time {s.nom} {v.past} before {yf.clause}"])
            text = self.slot_question(slot, s, moment, arg)
        return Question(FAMILIES[5], slot, text, SlotQ(occ, slot, arg), slot_value(self.steps[t], slot, arg))

    def _window_any(self, s: Subj, m: Match | None) -> tuple[Window, str, int, int]:
        """A numeric or event-anchored window with its words and its bounds."""
        if self.rng.random() < 0.55:
            window, w = self.numeric_window()
            return window, w, window.lo or 0, self.n - 1 if window.hi is None else window.hi
        y = self.event_anchor(avoid=m)
        ty = self.anchor_step(y)
        if self.rng.random() < 0.5:
            window = Window(after=y)
            return window, self.window_words(s, window), ty + 1, self.n - 1
        window = Window(before=y)
        return window, self.window_words(s, window), 0, ty - 1

    def f7_count(self) -> Question:
        s = self.subj()
        m = self.matches(generic_share=0.25)
        window, w, lo, hi = self._window_any(s, m)
        found = self.count(m, lo, hi)
        if not found and self.rng.random() < 0.7:
            raise _Skip("keep zero counts rare")
        if len(found) == len(self.occ[m]) and self.rng.random() < 0.5:
            raise _Skip("prefer windows that cut")
        # Counts are of events: "how many things did I collect" could mean distinct things, so the
        # questions always count times.
        v = self.vp(m)
        opts = [f"how many times did {s.nom} {v.base}{w}", f"how often did {s.nom} {v.base}{w}", f"count the times {s.nom} {v.past}{w}"]
        if window.before is not None or (window.hi is not None and window.lo is None):
            opts.append(f"how many times had {s.nom} {v.pp}{w}")
        text = self.pick(opts)
        return Question(FAMILIES[6], "count", text, CountQ(m, window), str(len(found)))

    def f8_order(self) -> Question:
        s = self.subj()
        a = self.event_anchor(ordinals=(1, 1, 1, 2, 3, -1))
        b = self.event_anchor(avoid=a.match, ordinals=(1, 1, 1, 2, -1))
        ta, tb = self.anchor_step(a), self.anchor_step(b)
        if ta == tb:
            raise _Skip("same step")
        if self.rng.random() < 0.5:
            a, b, ta, tb = b, a, tb, ta
        fa, fb = self.occ_forms(s, a, bare=True), self.occ_forms(s, b, bare=True)
        opts = [
            f"which came first: {fa.ger} or {fb.ger}",
            f"which happened earlier, {fa.noun} or {fb.noun}",
            f"did {fa.ger} or {fb.ger} happen first",
            f"which was first, {fa.noun} or {fb.noun}",
        ]
        if a.n == 1 and b.n == 1:
            va, vb = self.vp(a.match), self.vp(b.match)
            opts.append(f"what did {s.nom} do first, {va.base} or {vb.base}")
        first = a if ta < tb else b
        label = first.match.kind + (f" {first.match.obj}" if first.match.obj else "")
        return Question(FAMILIES[7], "which-first", self.pick(opts), OrderQ(a, b), label)

    def f9_distance(self) -> Question:
        s = self.subj()
        style = self.pick(["between", "between", "after_first", "after_next", "cond"])
        a: Anchor
        b: Anchor
        if style == "cond":
            a = self.cond_anchor(first_only=True)
        else:
            a = self.event_anchor(ordinals=(1, 1, 2, -1))
        ta = self.anchor_step(a)
        fa = self.anchor_forms(s, a)
        if style == "between":
            assert isinstance(a, Occ)
            b = self.event_anchor(avoid=a.match, ordinals=(1, 1, 2, -1))
            tb = self.anchor_step(b)
            if ta == tb:
                raise _Skip("same step")
            fb = self.anchor_forms(s, b)
            text = self.pick(
                [
                    f"how many steps passed between {fa.noun} and {fb.noun}",
                    f"how many steps were there between {fa.noun} and {fb.noun}",
                    f"how far apart, in steps, were {fa.noun} and {fb.noun}",
                ]
            )
        else:
            mb = self.specific_match([x for x in self.specific if not (isinstance(a, Occ) and x.kind == a.match.kind)])
            vb = self.vp(mb)
            if style == "after_first":
                if self.occ[mb][0] <= ta:
                    raise _Skip("first B is not after A")
                b = Occ(mb, 1)
                tb = self.occ[mb][0]
                text = self.pick(
                    [
                        f"how long after {fa.clause} did {s.nom} first {vb.base}",
                        f"how many steps after {fa.clause} did {s.nom} {vb.base} for the first time",
                    ]
                )
            else:
                later = self.count(mb, ta + 1)
                if not later:
                    raise _Skip("no B after A")
                b = Occ(mb, 1, Window(after=a))
                tb = later[0]
                text = self.pick(
                    [
                        f"how many steps after {fa.clause} did {s.nom} next {vb.base}",
                        f"after {fa.clause}, how long was it until {s.nom} next {vb.past}",
                        f"how many steps passed from {fa.noun} until {s.nom} next {vb.past}",
                    ]
                )
        return Question(FAMILIES[8], "duration", text, DistQ(a, b), str(abs(tb - ta)))

    def f10_existence(self) -> Question:
        s = self.subj()
        want_yes = self.rng.random() < 0.45
        whole = self.rng.random() < 0.1
        m: Match
        if whole:
            if want_yes:
                m = self.specific_match()
            else:
                absent = [Match(k, o) for k, o in self.vocab.absent_events if Match(k, o) not in self.occ and self.vocab.event_phrases(k, o)]
                m = self.pick(absent)
            window, w, lo, hi = Window(), "", 0, self.n - 1
        else:
            m = self.specific_match()
            window, w, lo, hi = self._window_any(s, m)
            if lo > hi:
                raise _Skip("empty window")
            if bool(self.count(m, lo, hi)) != want_yes:
                raise _Skip("draw again for the wanted answer")
        found = self.count(m, lo, hi)
        v = self.vp(m)
        opts = [f"did {s.nom} ever {v.base}{w}", f"did {s.nom} {v.base} at any point{w}", f"was there any time {s.nom} {v.past}{w}"]
        if window.before is not None or (window.hi is not None and window.lo is None):
            opts.append(f"had {s.nom} {v.pp}{w}")
            opts.append(f"had {s.nom} already {v.pp}{w}")
        if whole:
            opts.append(f"has {s.nom} ever {v.pp}" if s.nom in {"it", "the agent", self.vocab.name} else f"have {s.nom} ever {v.pp}")
        return Question(FAMILIES[9], "yes/no", self.pick(opts), ExistsQ(m, window), "yes" if found else "no")


def make_questions(
    episode_id: str,
    steps: Sequence[Step],
    vocab: Vocab,
    seed: int,
    per_family: int = 6,
) -> list[dict[str, Any]]:
    """Questions of all ten families for one episode, each answered and checked by the evaluator.

    Returns dicts with episode, family, slot, question, answer and gold (source ids).
    """
    rng = random.Random(seed)
    gen = Generator(episode_id, steps, vocab, rng)
    makers = [
        gen.f1_step_index,
        gen.f2_nth,
        gen.f3_window,
        gen.f4_condition,
        gen.f5_offset,
        gen.f6_next_previous,
        gen.f7_count,
        gen.f8_order,
        gen.f9_distance,
        gen.f10_existence,
    ]
    out: list[dict[str, Any]] = []
    seen_text: set[str] = set()
    seen_query: set[Query] = set()
    for make in makers:
        made = 0
        gen.family_slots = Counter()
        for _ in range(per_family * 60):
            if made == per_family:
                break
            try:
                q = make()
            except _Skip:
                continue
            text = gen.finish(q.text)
            if text in seen_text or q.query in seen_query:
                continue
            answer, gold = gen.evaluator.answer(q.query)
            if answer != q.expected:
                raise AssertionError(f"{text!r}: generator expected {q.expected!r}, evaluator says {answer!r}")
            seen_text.add(text)
            seen_query.add(q.query)
            gen.family_slots[q.slot] += 1
            out.append({"episode": episode_id, "family": q.family, "slot": q.slot, "question": text, "answer": answer, "gold": gold})
            made += 1
    return out


# --------------------------------------------------------------------------------------------------
# Record checks and the self-check
# --------------------------------------------------------------------------------------------------

_KIND = re.compile(r"^[a-z0-9][a-z0-9 -]{0,63}$")


def check_steps(steps: Sequence[Step]) -> None:
    """Raise ValueError unless the steps follow the record rules the suites rely on."""
    for i, step in enumerate(steps):
        if step.t != i:
            raise ValueError(f"step #{i} has t={step.t}")
        if not step.action.strip():
            raise ValueError(f"step {i} has an empty action")
        for ev in step.events:
            if not _KIND.match(ev.kind) or ev.kind != ev.kind.strip():
                raise ValueError(f"step {i}: bad event kind {ev.kind!r}")
        for name, count in step.inventory:
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"step {i}: inventory {name!r}={count!r}")
        labels = [event_label(ev) for ev in step.events]
        if len(labels) != len(set(labels)):
            raise ValueError(f"step {i}: the same event twice in one step: {labels}")


def selfcheck(build: Callable[[int], dict[str, Any]], seeds: Sequence[int], samples: int = 10) -> None:
    """Build each seed, check determinism and the question spread, print counts and samples."""
    for seed in seeds:
        start = time.perf_counter()
        data = build(seed)
        took = time.perf_counter() - start
        episodes = data["episodes"]
        questions = data["questions"]
        for episode_id, steps in episodes.items():
            check_steps(steps)
            validate_steps(steps, episode_id)
        again = build(seed)
        assert again["episodes"] == episodes, "build(seed) does not give the same steps twice"
        assert again["questions"] == questions, "build(seed) does not give the same questions twice"
        for q in questions:
            steps = episodes[q["episode"]]
            assert all(g.startswith(q["episode"] + ":") for g in q["gold"])
            # Only a "no" or a zero count over numeric bounds has nothing to point at.
            assert q["gold"] or q["answer"] in ("no", "0"), q
        lengths = {e: len(s) for e, s in episodes.items()}
        print(f"seed {seed}: {len(questions)} questions, episodes {lengths}, build {took:.1f}s")
        print("  per family:", dict(sorted(Counter(q["family"] for q in questions).items(), key=lambda kv: int(kv[0].split("_")[0]))))
        print("  per slot:  ", dict(Counter(q["slot"] for q in questions).most_common()))
        kinds = Counter(ev.kind for steps in episodes.values() for step in steps for ev in step.events)
        print("  event kinds:", dict(kinds.most_common()))
        rng = random.Random(seed)
        for q in rng.sample(questions, min(samples, len(questions))):
            print(f"    [{q['family']}/{q['slot']}] {q['question']}  ->  {q['answer']}   gold={q['gold']}")
