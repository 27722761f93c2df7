"""Shared machinery of the second development suites (dev2_crafter, dev2_textworld, dev2_science): written from the suite spec without the recall code as a held-out set, then studied, so development data now.

Two halves, kept apart on purpose so that one checks the other:

* a reference evaluator (:class:`Evaluator`) that answers a structured query (:class:`SlotQ`,
  :class:`CountQ`, ...) from ``Step`` records alone, following the suites' canonical-answer conventions
  ("before step N" excludes N, "between" includes both ends, an occurrence without an ordinal is the
  first one, "the next X after Y" is the first X strictly after Y's step, ...);
* a question writer (:class:`Writer`) that picks concrete targets in an episode, builds the structured
  query for each, renders it in varied English from an environment's :class:`Vocab`, computes the answer
  it expects directly from its own pick, and asserts that the evaluator agrees.

The module knows no environment; each suite hands it a vocabulary (how a user would name the events,
items and state values of that environment).

>>> steps = [Step(0, "chop tree", events=(Event("collect", "wood"),), inventory={"wood": 1})]
>>> Evaluator(steps).answer(CountQ(Match("collect", "wood"), None))
('1', [0])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphmem.records import EVENT_KINDS, Event, Scalar, Step, validate_steps

FAMILIES: tuple[str, ...] = (
    "step_index",
    "nth_occurrence",
    "window_occurrence",
    "condition",
    "offset",
    "next_previous",
    "window_count",
    "order",
    "distance",
    "existence",
)


class NoAnswer(Exception):
    """A query does not resolve in this episode (the writer then drops the candidate question)."""


# ------------------------------------------------------------------------------------------------
# Structured queries
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """Which events count: a kind and, unless ``obj`` is None, exactly that object."""

    kind: str
    obj: str | None = None

    def hits(self, event: Event) -> bool:
        return event.kind == self.kind and (self.obj is None or event.obj == self.obj)


@dataclass(frozen=True)
class Occ:
    """The ``nth`` matching event (1-based; -1 is the last, -2 the second-to-last) inside ``window``."""

    match: Match
    nth: int = 1
    window: Window | None = None


@dataclass(frozen=True)
class Window:
    """Steps a question looks at: numeric bounds (inclusive) and event anchors.

    ``after``/``before`` are strict (the anchor's own step is outside); ``since``/``until`` are the
    inclusive ends of "between A and B".
    """

    lo: int | None = None
    hi: int | None = None
    after: Occ | None = None
    before: Occ | None = None
    since: Occ | None = None
    until: Occ | None = None


@dataclass(frozen=True)
class Cond:
    """The first (or last) step in ``window`` at which an inventory/state value meets ``op value``.

    ``op`` is one of ``>= > <= < ==`` or ``runout`` (the value became 0 at this step, having been > 0
    at the step before).
    """

    source: str  # "inventory" | "state"
    key: str
    op: str
    value: Scalar
    which: str = "first"
    window: Window | None = None


@dataclass(frozen=True)
class Offset:
    """The step ``k`` steps after (``k`` > 0) or before (``k`` < 0) an occurrence."""

    base: Occ
    k: int


Target = int | Occ | Cond | Offset


@dataclass(frozen=True)
class SlotQ:
    target: Target
    slot: str
    key: str = ""


@dataclass(frozen=True)
class CountQ:
    match: Match
    window: Window | None


@dataclass(frozen=True)
class ExistsQ:
    match: Match
    window: Window | None


@dataclass(frozen=True)
class OrderQ:
    a: Occ
    b: Occ


@dataclass(frozen=True)
class DistanceQ:
    a: Occ | Cond
    b: Occ | Cond


@dataclass(frozen=True)
class ListQ:
    match: Match
    window: Window | None


Query = SlotQ | CountQ | ExistsQ | OrderQ | DistanceQ | ListQ


# ------------------------------------------------------------------------------------------------
# Canonical answer formatting
# ------------------------------------------------------------------------------------------------


def event_text(event: Event) -> str:
    """``kind obj`` or ``kind``: ``event_text(Event("collect", "wood"))`` -> ``'collect wood'``."""
    return f"{event.kind} {event.obj}" if event.obj else event.kind


def state_text(value: Scalar) -> str:
    """Ints in decimal, floats with %g, bools true/false, text verbatim: ``state_text(2.50)`` -> ``'2.5'``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return value


def slot_text(step: Step, slot: str, key: str = "") -> str:
    """The canonical answer of ``slot`` at one step (values after the step)."""
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        if step.location.region:
            return step.location.region
        if step.location.position is None:
            raise NoAnswer("step has neither region nor position")
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "position":
        if step.location.position is None:
            raise NoAnswer("step has no position")
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "item":
        return str(step.inventory_dict.get(key, 0))
    if slot == "inventory":
        held = [f"{name} {count}" for name, count in sorted(step.inventory) if count > 0]
        return ", ".join(held) if held else "none"
    if slot == "state":
        if key not in step.state_dict:
            raise NoAnswer(f"no state {key!r}")
        return state_text(step.state_dict[key])
    if slot == "facing":
        for rel in step.relations:
            if rel.subject == "agent" and rel.predicate == "facing":
                return rel.obj
        raise NoAnswer("no facing relation")
    if slot == "events":
        return "; ".join(event_text(e) for e in step.events) if step.events else "none"
    raise ValueError(f"unknown slot {slot!r}")


def source_ids(episode_id: str, ts: Sequence[int]) -> list[str]:
    return [f"{episode_id}:{t}" for t in sorted(set(ts))]


# ------------------------------------------------------------------------------------------------
# Reference evaluator
# ------------------------------------------------------------------------------------------------


class Evaluator:
    """Answers structured queries from the Step records of one episode.

    >>> ev = Evaluator([Step(0, "a", events=(Event("eat", "cow"),)), Step(1, "b")])
    >>> ev.answer(SlotQ(Offset(Occ(Match("eat", "cow")), 1), "action"))
    ('b', [0, 1])
    """

    def __init__(self, steps: Sequence[Step]) -> None:
        for i, step in enumerate(steps):
            if step.t != i:
                raise ValueError(f"step #{i} has t={step.t}; steps must be numbered 0, 1, 2, ...")
        self.steps = list(steps)
        self.last = len(self.steps) - 1

    # -- events -------------------------------------------------------------------------------
    def occurrences(self, match: Match) -> list[tuple[int, Event]]:
        return [(s.t, e) for s in self.steps for e in s.events if match.hits(e)]

    def bounds(self, window: Window | None) -> tuple[int, int, list[int]]:
        """Inclusive step range of a window and the anchor steps that bound it."""
        lo, hi = 0, self.last
        anchors: list[int] = []
        if window is None:
            return lo, hi, anchors
        if window.lo is not None:
            lo = max(lo, window.lo)
        if window.hi is not None:
            hi = min(hi, window.hi)
        for occ, shift, side in (
            (window.after, 1, "lo"),
            (window.since, 0, "lo"),
            (window.before, -1, "hi"),
            (window.until, 0, "hi"),
        ):
            if occ is None:
                continue
            t, gold = self.resolve(occ)
            anchors.extend(gold)
            if side == "lo":
                lo = max(lo, t + shift)
            else:
                hi = min(hi, t + shift)
        return lo, hi, anchors

    def pick(self, occ: Occ) -> tuple[int, Event, list[int]]:
        """Step, event and gold steps (itself plus window anchors) of an occurrence."""
        lo, hi, anchors = self.bounds(occ.window)
        found = [(t, e) for t, e in self.occurrences(occ.match) if lo <= t <= hi]
        index = occ.nth - 1 if occ.nth > 0 else occ.nth
        if occ.nth == 0 or not -len(found) <= index < len(found):
            raise NoAnswer(f"no occurrence #{occ.nth} of {occ.match}")
        t, event = found[index]
        return t, event, [t, *anchors]

    def resolve(self, occ: Occ) -> tuple[int, list[int]]:
        t, _, gold = self.pick(occ)
        return t, gold

    # -- values ---------------------------------------------------------------------------------
    def value(self, source: str, key: str, t: int) -> Scalar | None:
        """An inventory count (0 if absent) or a state value (None before the state first exists)."""
        step = self.steps[t]
        if source == "inventory":
            return step.inventory_dict.get(key, 0)
        return step.state_dict.get(key)

    def holds(self, cond: Cond, t: int) -> bool:
        value = self.value(cond.source, cond.key, t)
        if value is None:
            return False
        if cond.op == "runout":
            return value == 0 and t > 0 and self.value(cond.source, cond.key, t - 1) != 0
        if cond.op == "==":
            return value == cond.value
        if isinstance(value, (bool, str)) or isinstance(cond.value, (bool, str)):
            return False
        if cond.op == ">=":
            return value >= cond.value
        if cond.op == ">":
            return value > cond.value
        if cond.op == "<=":
            return value <= cond.value
        if cond.op == "<":
            return value < cond.value
        raise ValueError(f"unknown operator {cond.op!r}")

    def resolve_cond(self, cond: Cond) -> tuple[int, list[int]]:
        lo, hi, anchors = self.bounds(cond.window)
        hits = [t for t in range(lo, hi + 1) if self.holds(cond, t)]
        if not hits:
            raise NoAnswer(f"condition never holds: {cond}")
        t = hits[0] if cond.which == "first" else hits[-1]
        return t, [t, *anchors]

    def resolve_target(self, target: Target) -> tuple[int, list[int]]:
        if isinstance(target, int):
            if not 0 <= target <= self.last:
                raise NoAnswer(f"step {target} outside the episode")
            return target, [target]
        if isinstance(target, Occ):
            return self.resolve(target)
        if isinstance(target, Cond):
            return self.resolve_cond(target)
        base, gold = self.resolve(target.base)
        t = base + target.k
        if not 0 <= t <= self.last:
            raise NoAnswer("offset leaves the episode")
        return t, [t, *gold]

    # -- queries --------------------------------------------------------------------------------
    def answer(self, query: Query) -> tuple[str, list[int]]:
        """Canonical answer text and the gold steps (sorted, unique) of a query."""
        if isinstance(query, SlotQ):
            t, gold = self.resolve_target(query.target)
            return slot_text(self.steps[t], query.slot, query.key), sorted(set(gold))
        if isinstance(query, (CountQ, ExistsQ, ListQ)):
            lo, hi, anchors = self.bounds(query.window)
            found = [(t, e) for t, e in self.occurrences(query.match) if lo <= t <= hi]
            if isinstance(query, CountQ):
                gold = anchors + ([found[-1][0]] if found else [])
                return str(len(found)), sorted(set(gold))
            if isinstance(query, ExistsQ):
                gold = anchors + ([found[0][0]] if found else [])
                return ("yes" if found else "no"), sorted(set(gold))
            if not found:
                raise NoAnswer("empty list")
            names: list[str] = []
            for _, e in found:
                if e.obj not in names:
                    names.append(e.obj)
            return ", ".join(names), sorted(set(anchors + [t for t, _ in found]))
        if isinstance(query, OrderQ):
            ta, ea, ga = self.pick(query.a)
            tb, eb, gb = self.pick(query.b)
            if ta == tb:
                raise NoAnswer("both anchors on one step")
            return event_text(ea if ta < tb else eb), sorted(set(ga + gb))
        ta, ga = self.resolve_target(query.a)
        tb, gb = self.resolve_target(query.b)
        return str(abs(tb - ta)), sorted(set(ga + gb))


# ------------------------------------------------------------------------------------------------
# Words
# ------------------------------------------------------------------------------------------------

_IRREGULAR: dict[str, tuple[str, str]] = {
    "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"),
    "make": ("made", "made"),
    "get": ("got", "gotten"),
    "go": ("went", "gone"),
    "take": ("took", "taken"),
    "put": ("put", "put"),
    "build": ("built", "built"),
    "cut": ("cut", "cut"),
    "come": ("came", "come"),
    "find": ("found", "found"),
    "set": ("set", "set"),
    "dig": ("dug", "dug"),
    "fight": ("fought", "fought"),
    "slay": ("slew", "slain"),
    "hit": ("hit", "hit"),
    "sleep": ("slept", "slept"),
    "wake": ("woke", "woken"),
    "lose": ("lost", "lost"),
    "lay": ("laid", "laid"),
    "throw": ("threw", "thrown"),
    "fall": ("fell", "fallen"),
    "freeze": ("froze", "frozen"),
    "light": ("lit", "lit"),
    "read": ("read", "read"),
    "leave": ("left", "left"),
    "shut": ("shut", "shut"),
    "feed": ("fed", "fed"),
    "bring": ("brought", "brought"),
    "catch": ("caught", "caught"),
    "see": ("saw", "seen"),
    "give": ("gave", "given"),
    "have": ("had", "had"),
    "run": ("ran", "run"),
    "win": ("won", "won"),
    "break": ("broke", "broken"),
    "stick": ("stuck", "stuck"),
    "grow": ("grew", "grown"),
    "sow": ("sowed", "sown"),
    "hold": ("held", "held"),
    "stand": ("stood", "stood"),
    "turn": ("turned", "turned"),
    "spend": ("spent", "spent"),
    "swing": ("swung", "swung"),
    "choose": ("chose", "chosen"),
    "beat": ("beat", "beaten"),
    "blow": ("blew", "blown"),
    "shake": ("shook", "shaken"),
    "ride": ("rode", "ridden"),
    "keep": ("kept", "kept"),
    "send": ("sent", "sent"),
    "lie": ("lay", "lain"),
    "begin": ("began", "begun"),
    "pour": ("poured", "poured"),
}
# One-syllable verbs that double their last consonant (chop -> chopped, chopping).
_DOUBLE = {
    "chop", "grab", "drop", "stop", "plan", "step", "sip", "dip", "nap", "trap", "pop", "plug",
    "tap", "hop", "wrap", "get", "cut", "put", "dig", "hit", "set", "run", "win", "shut", "sit",
    "stab", "jab", "mop", "bag", "transfer", "prefer", "occur", "admit", "permit", "control", "unbar", "stir",
    "strip", "skip", "slip", "ship",
}  # fmt: skip


def conjugate(verb: str) -> tuple[str, str, str]:
    """(past, participle, gerund) of a verb: ``conjugate("chop")`` -> ``('chopped', 'chopped', 'chopping')``."""
    if verb in _IRREGULAR:
        past, part = _IRREGULAR[verb]
    elif verb in _DOUBLE:
        past = part = verb + verb[-1] + "ed"
    elif verb.endswith("e"):
        past = part = verb + "d"
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        past = part = verb[:-1] + "ied"
    else:
        past = part = verb + "ed"
    if verb in _DOUBLE:
        ger = verb + verb[-1] + "ing"
    elif verb.endswith("ie"):
        ger = verb[:-2] + "ying"
    elif verb.endswith("e") and not verb.endswith("ee") and verb != "be":
        ger = verb[:-1] + "ing"
    else:
        ger = verb + "ing"
    return past, part, ger


@dataclass(frozen=True)
class VP:
    """A verb phrase in its four forms, plus optional event nouns ("table placement")."""

    base: str
    past: str
    part: str
    ger: str
    nouns: tuple[str, ...] = ()


def vp(text: str, *nouns: str) -> VP:
    """Conjugate a phrase on its first word: ``vp("pick up a sapling").past`` -> ``'picked up a sapling'``."""
    verb, _, rest = text.partition(" ")
    past, part, ger = conjugate(verb)
    tail = f" {rest}" if rest else ""
    return VP(text, past + tail, part + tail, ger + tail, tuple(nouns))


@dataclass(frozen=True)
class Subject:
    """Who the question is about: ``I``/``we``/``you``/``the agent``/``it``/a name, with its forms."""

    subj: str
    obj: str
    poss: str
    be: str
    have: str


def subjects(name: str) -> list[tuple[Subject, float]]:
    """The subjects a user picks, with weights; ``name`` is the agent's given name."""
    return [
        (Subject("I", "me", "my", "was", "have"), 0.38),
        (Subject("we", "us", "our", "were", "have"), 0.1),
        (Subject("you", "you", "your", "were", "have"), 0.1),
        (Subject("the agent", "the agent", "the agent's", "was", "has"), 0.17),
        (Subject("it", "it", "its", "was", "has"), 0.05),
        (Subject(name, name, f"{name}'s", "was", "has"), 0.2),
    ]


@dataclass(frozen=True)
class ItemWords:
    """How a user names an inventory item: nouns ("saplings") and how-many openers.

    ``unique`` items exist once (a text-adventure key): conditions on them read "when did I first
    have the key", not "... 1 or more keys", and ``nouns[0]`` names the item itself ("the key").
    """

    nouns: tuple[str, ...]
    how_many: tuple[str, ...]
    unique: bool = False


@dataclass(frozen=True)
class StateWords:
    """How a user names a state value; phrases may use {P} (my/its/...). ``unit`` follows numbers."""

    phrases: tuple[str, ...]
    unit: str = ""


@dataclass(frozen=True)
class StateCond:
    """A text/bool state condition a user asks about, e.g. daytime == "night".

    ``ask`` are complete step questions, ``when`` are time clauses ("when night first fell"); both may
    use the subject placeholders {S} {O} {P} {BE} {HAVE}.
    """

    key: str
    value: Scalar
    which: str
    ask: tuple[str, ...]
    when: tuple[str, ...]
    after: Match | None = None  # only look after the first such event ("switched off again")


@dataclass
class Vocab:
    """An environment's words, as an independent user would use them."""

    name: str
    region_nouns: tuple[str, ...]
    events: dict[Match, list[VP]]
    lists: dict[str, list[str]]
    items: dict[str, ItemWords]
    states: dict[str, StateWords]
    state_conds: list[StateCond] = field(default_factory=list)
    slots: tuple[str, ...] = ("action", "location", "inventory", "item", "state", "events")


# ------------------------------------------------------------------------------------------------
# Phrasing helpers
# ------------------------------------------------------------------------------------------------

_ORD_WORDS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"]
_NUM_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def ord_digits(n: int) -> str:
    """``ord_digits(3)`` -> ``'3rd'``; ``ord_digits(12)`` -> ``'12th'``."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }".replace(" ", "")


@dataclass
class Phraser:
    """Random but seeded word choices."""

    rng: random.Random

    def choice(self, options: Sequence[str]) -> str:
        return self.rng.choice(list(options))

    def ordinal(self, n: int) -> str:
        if n < len(_ORD_WORDS) and self.rng.random() < 0.6:
            return _ORD_WORDS[n]
        return ord_digits(n)

    def last(self) -> str:
        return self.choice(["last", "latest", "most recent", "final", "last"])

    def from_last(self, k: int) -> str:
        if k == 2:
            return self.choice(["second-to-last", "2nd-to-last", "next-to-last", "penultimate", "second last"])
        return self.choice([f"{self.ordinal(k)}-to-last", f"{self.ordinal(k)} from last"])

    def number(self, n: int) -> str:
        if n < len(_NUM_WORDS) and self.rng.random() < 0.4:
            return _NUM_WORDS[n]
        return str(n)


def singular(noun: str) -> str:
    """``singular("pieces of wood")`` -> ``'piece of wood'``; ``singular("saplings")`` -> ``'sapling'``."""
    head, sep, tail = noun.partition(" of ")
    if sep:
        return singular(head) + sep + tail
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith("ss"):
        return noun[:-1]
    return noun


def fill(template: str, sub: Subject, **extra: str) -> str:
    return template.format(S=sub.subj, O=sub.obj, P=sub.poss, BE=sub.be, HAVE=sub.have, **extra)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Forms:
    """Ways to refer to one occurrence: a did-question tail, noun phrases, clauses, bare/gerund forms."""

    did: list[str]
    np: list[str]
    clause: list[str]
    bare: list[str]
    ger: list[str]


def occ_forms(ph: Phraser, sub: Subject, v: VP, nth: int, sfx: str = "") -> Forms:
    """Forms of "the nth time <sub> <v>" (nth < 0 counts from the last); ``sfx`` is a window phrase."""
    S, P = sub.subj, sub.poss
    if nth >= 1:
        o = ph.ordinal(nth)
        did = [f"did {S} {v.base} for the {o} time{sfx}"]
        np = [f"the {o} time {S} {v.past}{sfx}"] + [f"{P} {o} {n}{sfx}" for n in v.nouns]
        clause = [f"{S} {v.past} for the {o} time{sfx}"]
        bare = [f"{v.base} for the {o} time{sfx}"]
        ger = [f"{v.ger} for the {o} time{sfx}"]
        if nth == 1:
            did.append(f"did {S} first {v.base}{sfx}")
            clause += [f"{S} first {v.past}{sfx}", f"{S} {v.past}{sfx}"]
            bare.append(f"{v.base}{sfx}")
            ger.append(f"{v.ger}{sfx}")
        if nth == 2 and not sfx:
            did.append(f"did {S} {v.base} again after the first time")
    elif nth == -1:
        w = ph.last()
        did = [f"did {S} last {v.base}{sfx}", f"did {S} {v.base} for the {w} time{sfx}", f"did {S} most recently {v.base}{sfx}"]
        np = [f"the {w} time {S} {v.past}{sfx}"] + [f"{P} {w} {n}{sfx}" for n in v.nouns]
        clause = [f"{S} last {v.past}{sfx}", f"{S} {v.past} for the {w} time{sfx}"]
        bare = [f"{v.base} for the {w} time{sfx}"]
        ger = [f"{v.ger} for the {w} time{sfx}"]
    else:
        w = ph.from_last(-nth)
        did = [f"did {S} {v.base} for the {w} time{sfx}"]
        np = [f"the {w} time {S} {v.past}{sfx}"] + [f"{P} {w} {n}{sfx}" for n in v.nouns]
        clause = [f"{S} {v.past} for the {w} time{sfx}"]
        bare = [f"{v.base} for the {w} time{sfx}"]
        ger = [f"{v.ger} for the {w} time{sfx}"]
    return Forms(did, np, clause, bare, ger)


def next_forms(sub: Subject, v: VP, anchor: str) -> Forms:
    """Forms of "the next time <sub> <v> after <anchor>"."""
    S, P = sub.subj, sub.poss
    return Forms(
        did=[f"did {S} next {v.base} after {anchor}", f"did {S} {v.base} next after {anchor}"],
        np=[f"the next time {S} {v.past} after {anchor}", f"the first time {S} {v.past} after {anchor}"]
        + [f"{P} next {n} after {anchor}" for n in v.nouns]
        + [f"{P} first {n} {'after' if anchor.startswith(S + ' ') else 'following'} {anchor}" for n in v.nouns],
        clause=[f"{S} next {v.past} after {anchor}", f"{S} {v.past} for the first time after {anchor}"],
        bare=[f"{v.base} next after {anchor}"],
        ger=[f"{v.ger} next after {anchor}"],
    )


def prev_forms(sub: Subject, v: VP, anchor: str) -> Forms:
    """Forms of "the last time <sub> <v> before <anchor>"."""
    S, P = sub.subj, sub.poss
    return Forms(
        did=[f"did {S} last {v.base} before {anchor}", f"did {S} most recently {v.base} before {anchor}"],
        np=[
            f"the last time {S} {v.past} before {anchor}",
            f"the previous time {S} {v.past} before {anchor}",
            f"the most recent time {S} {v.past} before {anchor}",
        ]
        + [f"{P} last {n} before {anchor}" for n in v.nouns]
        + [f"{P} last {n} {'before' if anchor.startswith(S + ' ') else 'prior to'} {anchor}" for n in v.nouns],
        clause=[f"{S} last {v.past} before {anchor}", f"{S} had most recently {v.part} before {anchor}"],
        bare=[f"{v.base} for the last time before {anchor}"],
        ger=[f"{v.ger} for the last time before {anchor}"],
    )


_AT_STEP = ("at step {N}", "at time step {N}", "on step {N}", "at t={N}", "in step {N}", "at step #{N}", "at step {N}")

_SLOT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "action": (
        "What did {S} do {ADV}?",
        "Which action did {S} take {ADV}?",
        "What action did {S} perform {ADV}?",
        "{ADVC}, what did {S} do?",
        "What was {P} action {ADV}?",
        "What command did {S} issue {ADV}?",
        "Which move did {S} make {ADV}?",
    ),
    "location": (
        "Where {BE} {S} {ADV}?",
        "{ADVC}, where {BE} {S}?",
        "What was {P} location {ADV}?",
        "In which {REGION} {BE} {S} {ADV}?",
        "Which {REGION} {BE} {S} in {ADV}?",
        "Where {BE} {S} standing {ADV}?",
    ),
    "position": (
        "What were {P} coordinates {ADV}?",
        "At what x,y position {BE} {S} {ADV}?",
        "{ADVC}, what grid position {BE} {S} at?",
        "Give {P} (x, y) position {ADV}.",
        "What were the x and y coordinates of {O} {ADV}?",
    ),
    "inventory": (
        "What {BE} {S} carrying {ADV}?",
        "What was in {P} inventory {ADV}?",
        "What did {S} have in {P} bag {ADV}?",
        "{ADVC}, what {BE} {S} holding?",
        "List everything {S} had on {O} {ADV}.",
        "What items did {S} hold {ADV}?",
        "What did {P} inventory contain {ADV}?",
    ),
    "item": (
        "{HOWMANY} did {S} have {ADV}?",
        "{ADVC}, {HOWMANY_L} did {S} have?",
        "{HOWMANY} {BE} {S} carrying {ADV}?",
        "{HOWMANY} did {S} hold {ADV}?",
    ),
    "state": (
        "What was {SW} {ADV}?",
        "{ADVC}, what was {SW}?",
        "What value did {SW} have {ADV}?",
        "Tell me {SW} {ADV}.",
    ),
    "facing": (
        "What {BE} {S} facing {ADV}?",
        "What did {S} see in front of {O} {ADV}?",
        "What was directly ahead of {O} {ADV}?",
        "{ADVC}, what was in front of {O}?",
        "What {BE} {S} looking at {ADV}?",
        "What was right in front of {O} {ADV}?",
    ),
    "events": (
        "What happened {ADV}?",
        "Which events were recorded {ADV}?",
        "{ADVC}, what events occurred?",
        "List the events {ADV}.",
        "What went on {ADV}?",
        "What events took place {ADV}?",
    ),
}
_ELSE = ("What else happened {ADV}?", "{ADVC}, what else happened?")


# ------------------------------------------------------------------------------------------------
# The writer
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Written:
    family: str
    slot: str
    text: str
    query: Query
    expected: str


class Writer:
    """Writes the questions of one episode; see the module docstring.

    ``per_family`` questions are written for each of the ten families (fewer only if an episode cannot
    support that many distinct questions, which ``build`` turns into an error).
    """

    def __init__(self, episode_id: str, steps: Sequence[Step], vocab: Vocab, seed: int) -> None:
        validate_steps(steps, f"episode {episode_id}")
        for step in steps:
            for event in step.events:
                if event.kind not in EVENT_KINDS:
                    raise ValueError(f"non-canonical event kind {event.kind!r}")
        self.episode_id = episode_id
        self.steps = list(steps)
        self.ev = Evaluator(steps)
        self.vocab = vocab
        self.rng = random.Random(seed * 7919 + 17)
        self.ph = Phraser(self.rng)
        self.T = len(self.steps)
        self.subjects = subjects(vocab.name)
        self.occ: dict[Match, list[int]] = {}
        for match in vocab.events:
            ts = [t for t, _ in self.ev.occurrences(match)]
            # An ordinal is only well defined if no step holds two matching events.
            if len(ts) == len(set(ts)):
                self.occ[match] = ts
        self.present = [m for m, ts in self.occ.items() if ts]
        self.items = sorted({name for s in self.steps for name, c in s.inventory if c > 0} & set(vocab.items))
        # A state may start later (a reading exists after the first measurement); it must then stay.
        self.state_keys = sorted(k for k in vocab.states if self._state_from(k) is not None)
        self._conds: list[tuple[Cond, int, list[str], list[str]]] | None = None
        self._yes_no = {"yes": 0, "no": 0}

    def _state_from(self, key: str) -> int | None:
        """First step from which ``key`` is in every step's state, if that leaves most of the episode."""
        have = [key in s.state_dict for s in self.steps]
        if True not in have:
            return None
        first = have.index(True)
        return first if all(have[first:]) and first < self.T // 2 else None

    # -- small helpers -------------------------------------------------------------------------
    def subject(self) -> Subject:
        subs, weights = zip(*self.subjects)
        return self.rng.choices(subs, weights=weights)[0]

    def phrase(self, match: Match) -> VP:
        return self.rng.choice(self.vocab.events[match])

    def pick_present(self, min_count: int = 1, specific: bool | None = None) -> Match:
        pool = [m for m in self.present if len(self.occ[m]) >= min_count]
        if specific is not None:
            pool = [m for m in pool if (m.obj is not None) == specific]
        if not pool:
            raise NoAnswer("no matcher with enough occurrences")
        # Favour matchers with many occurrences a little: their ordinals are the hard part.
        weights = [1.0 + min(len(self.occ[m]), 30) / 10 for m in pool]
        return self.rng.choices(pool, weights=weights)[0]

    def nth_spec(self, n_total: int, index: int) -> int:
        """An ordinal for occurrence ``index`` (0-based) out of ``n_total``: counted from start or end."""
        from_end = n_total - index
        if n_total == 1:
            return 1 if self.rng.random() < 0.75 else -1
        if from_end == 1 and self.rng.random() < 0.7:
            return -1
        if from_end <= 3 and index > 2 and self.rng.random() < 0.5:
            return -from_end
        return index + 1

    def anchor(self, sub: Subject, exclude: Match | None = None, t_range: tuple[int, int] | None = None) -> tuple[Occ, int, str]:
        """A random event anchor: (Occ, its step, a phrase usable after "after"/"before").

        The phrase is a clause ("I placed a table") or a noun phrase ("my first table placement").
        """
        pool = [m for m in self.present if m != exclude]
        if not pool:
            raise NoAnswer("no anchor")
        m = self.rng.choice(pool)
        ts = self.occ[m]
        idxs = list(range(len(ts)))
        if t_range is not None:
            idxs = [i for i in idxs if t_range[0] <= ts[i] <= t_range[1]]
            if not idxs:
                raise NoAnswer("no anchor in range")
        # Early ordinals are what people remember; keep most anchors among the first few.
        i = self.rng.choice(idxs[:4]) if self.rng.random() < 0.7 else self.rng.choice(idxs)
        nth = self.nth_spec(len(ts), i)
        f = occ_forms(self.ph, sub, self.phrase(m), nth)
        text = self.ph.choice(f.clause + f.np)
        return Occ(m, nth), ts[i], text

    def adverbial(self, f: Forms, sub: Subject) -> str:
        """A time adverbial: "when I ...", "the third time I ...", "at my third wood chop"."""
        options = [f"when {c}" for c in f.clause] + [f"at {n}" if n.startswith(sub.poss + " ") else n for n in f.np]
        return self.ph.choice(options)

    def slot_question(self, slot: str, sub: Subject, adv: str, key: str = "", event_adv: bool = False) -> str:
        templates = list(_SLOT_TEMPLATES[slot])
        if slot == "events" and event_adv:
            templates += list(_ELSE)
        extra: dict[str, str] = {"ADV": adv, "ADVC": cap(adv), "REGION": self.ph.choice(self.vocab.region_nouns)}
        if slot == "item":
            hm = self.ph.choice(self.vocab.items[key].how_many)
            extra.update(HOWMANY=cap(hm), HOWMANY_L=hm)
        if slot == "state":
            extra["SW"] = fill(self.ph.choice(self.vocab.states[key].phrases), sub)
        return fill(self.ph.choice(templates), sub, **extra)

    def slot_key(self, slot: str, t: int) -> str:
        if slot == "item":
            if not self.items:
                raise NoAnswer("no items")
            held = [k for k in self.items if self.steps[t].inventory_dict.get(k, 0) > 0]
            pool = held if held and self.rng.random() < 0.8 else self.items
            return self.rng.choice(pool)
        if slot == "state":
            keys = [k for k in self.state_keys if k in self.steps[t].state_dict]
            if not keys:
                raise NoAnswer("no states")
            return self.rng.choice(keys)
        return ""

    def not_trivial(self, slot: str, m: Match) -> None:
        """"Where was I when I entered the kitchen?" answers itself; such questions are dropped."""
        if slot == "location" and m.kind == "visit":
            raise NoAnswer("location of a visit is its own object")

    def finish(self, text: str) -> str:
        text = cap(" ".join(text.split()))
        if text.endswith("?") and self.rng.random() < 0.12:
            text = text[:-1]
        return text

    def window(
        self,
        sub: Subject,
        kinds: Sequence[str],
        avoid: Match | None = None,
        n_range: tuple[int, int] | None = None,
        anchor_range: tuple[int, int] | None = None,
    ) -> tuple[Window, str]:
        """A random window of one of ``kinds`` and its phrase (no leading space).

        ``n_range`` narrows the step number of numeric windows (the start of "between" ones);
        ``anchor_range`` the step of the anchor of event windows.
        """
        kind = self.rng.choice(list(kinds))
        T, ph = self.T, self.ph
        rounder = self.rng.choice([1, 1, 10, 50])
        def num(lo: int, hi: int) -> int:
            if n_range is not None:
                lo, hi = max(lo, n_range[0]), min(hi, n_range[1])
                if lo > hi:
                    raise NoAnswer("empty number range")
            n = self.rng.randint(lo, max(lo, hi))
            rounded = (n // rounder) * rounder
            return rounded if rounder > 1 and lo <= rounded <= hi else n
        if kind == "first_n":
            n = num(20, T - 20)
            return Window(lo=0, hi=n - 1), ph.choice(
                [f"in the first {n} steps", f"during the first {n} steps", f"within the first {n} steps", f"over the first {n} steps"])
        if kind == "before_n":
            n = num(10, T - 10)
            return Window(hi=n - 1), ph.choice([f"before step {n}", f"prior to step {n}", f"earlier than step {n}"])
        if kind == "by_n":
            n = num(10, T - 10)
            return Window(hi=n), ph.choice([f"by step {n}", f"up to step {n}", f"until step {n}", f"up to and including step {n}", f"through step {n}"])
        if kind == "after_n":
            n = num(10, T - 20)
            return Window(lo=n + 1), ph.choice([f"after step {n}", f"later than step {n}", f"once step {n} had passed"])
        if kind == "between_n":
            a = num(0, T - 30)
            b = min(T - 1, a + self.rng.randint(10, max(12, T // 3)))
            if n_range is not None:
                b = min(b, n_range[1] + 10)
            return Window(lo=a, hi=b), ph.choice(
                [f"between step {a} and step {b}", f"between steps {a} and {b}", f"from step {a} through step {b}", f"from step {a} to step {b} inclusive"])
        if kind == "after_occ":
            occ, _, text = self.anchor(sub, exclude=avoid, t_range=anchor_range)
            is_clause = text.startswith(sub.subj + " ")
            return Window(after=occ), ph.choice([f"after {text}", f"after {text}"] + ([] if is_clause else [f"following {text}"]))
        if kind == "before_occ":
            occ, _, text = self.anchor(sub, exclude=avoid, t_range=anchor_range)
            is_clause = text.startswith(sub.subj + " ")
            return Window(before=occ), ph.choice([f"before {text}", f"before {text}"] + ([] if is_clause else [f"prior to {text}"]))
        if kind == "between_occ":
            occ_a, ta, text_a = self.anchor(sub, exclude=avoid)
            occ_b, tb, text_b = self.anchor(sub, exclude=avoid, t_range=(ta + 1, T - 1))
            if tb <= ta:
                raise NoAnswer("anchors out of order")
            a_np = text_a if not text_a.startswith(sub.subj + " ") else f"the moment {text_a}"
            b_np = text_b if not text_b.startswith(sub.subj + " ") else f"the moment {text_b}"
            return Window(since=occ_a, until=occ_b), f"between {a_np} and {b_np}"
        raise ValueError(kind)

    def window_steps(self, w: Window, m: Match | None = None) -> tuple[int, int]:
        """Inclusive step range of a window.

        With ``m``, windows whose anchor step itself holds an ``m`` event are refused: "did I spend
        wood after I placed the table" is strict by convention, but a reader could fairly count the
        wood spent on that very table.
        """
        lo, hi, _ = self.ev.bounds(w)
        if m is not None:
            self.no_clash(w, m)
        return lo, hi

    def no_clash(self, w: Window, m: Match) -> None:
        for occ in (w.after, w.before, w.since, w.until):
            if occ is not None:
                t, _ = self.ev.resolve(occ)
                if any(m.hits(e) for e in self.steps[t].events):
                    raise NoAnswer("the anchor step holds a matching event")

    # -- families -------------------------------------------------------------------------------
    def f_step_index(self, slot: str) -> Written:
        t = self.rng.randint(0, self.T - 1)
        if slot == "events" and self.rng.random() < 0.8:
            with_events = [s.t for s in self.steps if s.events]
            t = self.rng.choice(with_events) if with_events else t
        key = self.slot_key(slot, t)
        sub = self.subject()
        adv = self.ph.choice(_AT_STEP).format(N=t)
        text = self.slot_question(slot, sub, adv, key)
        return Written("step_index", slot, text, SlotQ(t, slot, key), slot_text(self.steps[t], slot, key))

    def step_question(self, f: Forms) -> str:
        options = (
            [f"When {d}?" for d in f.did]
            + [f"At which step {d}?" for d in f.did]
            + [f"At what step {d}?" for d in f.did]
            + [f"When was {n}?" for n in f.np]
            + [f"Which step was {n}?" for n in f.np]
            + [f"What step was it when {c}?" for c in f.clause]
            + [f"Give the step number of {n}." for n in f.np]
        )
        return self.ph.choice(options)

    def f_nth_occurrence(self, slot: str) -> Written:
        m = self.pick_present()
        ts = self.occ[m]
        i = self.rng.randrange(len(ts))
        nth = self.nth_spec(len(ts), i)
        t = ts[i]
        sub = self.subject()
        f = occ_forms(self.ph, sub, self.phrase(m), nth)
        key = self.slot_key(slot, t)
        self.not_trivial(slot, m)
        if slot == "step":
            text = self.step_question(f)
        else:
            text = self.slot_question(slot, sub, self.adverbial(f, sub), key, event_adv=True)
        return Written("nth_occurrence", slot, text, SlotQ(Occ(m, nth), slot, key), slot_text(self.steps[t], slot, key))

    def f_window_occurrence(self, slot: str) -> Written:
        sub = self.subject()
        specific = None if self.rng.random() < 0.75 else False
        m = self.pick_present(specific=specific)
        kinds = ["after_occ", "after_occ", "before_occ", "before_n", "by_n", "after_n", "between_n", "first_n"]
        w, wtext = self.window(sub, kinds, avoid=m)
        lo, hi = self.window_steps(w, m)
        inside = [t for t in self.occ[m] if lo <= t <= hi]
        if not inside:
            raise NoAnswer("nothing in window")
        # "before" windows mostly ask for the latest one; others for the first, second, third or last.
        before_like = w.before is not None or (w.hi is not None and w.lo is None)
        if before_like and self.rng.random() < 0.8:
            nth = -1 if len(inside) == 1 or self.rng.random() < 0.75 else -2
        elif self.rng.random() < 0.8:
            nth = self.rng.randint(1, min(3, len(inside)))
        else:
            nth = -1
        t = inside[nth - 1 if nth > 0 else nth]
        self.not_trivial(slot, m)
        f = occ_forms(self.ph, sub, self.phrase(m), nth, sfx=" " + wtext)
        key = self.slot_key(slot, t)
        if slot == "step":
            text = self.step_question(f)
        else:
            text = self.slot_question(slot, sub, self.adverbial(f, sub), key)
        return Written("window_occurrence", slot, text, SlotQ(Occ(m, nth, w), slot, key), slot_text(self.steps[t], slot, key))

    def cond_candidates(self) -> list[tuple[Cond, int, list[str], list[str]]]:
        """Conditions a user may ask about: (Cond, expected step, step questions, when clauses).

        Questions keep {S}-style placeholders; they are filled per question. Computed once.
        """
        if self._conds is not None:
            return self._conds
        out: list[tuple[Cond, int, list[str], list[str]]] = []
        self._conds = out
        T = self.T
        series: list[tuple[str, str, list[Scalar]]] = []
        for item in self.items:
            series.append(("inventory", item, [s.inventory_dict.get(item, 0) for s in self.steps]))
        for key in self.state_keys:
            vals = [s.state_dict[key] for s in self.steps if key in s.state_dict]
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                series.append(("state", key, vals))
        for source, key, vals in series:
            start = (self._state_from(key) or 0) if source == "state" else 0
            if source == "inventory" and self.vocab.items[key].unique:
                out.extend(self.unique_item_conds(key))
                continue
            nums = [float(v) for v in vals if not isinstance(v, (bool, str))]
            distinct = sorted(set(nums))
            if len(distinct) < 2:
                continue
            thresholds = self.rng.sample(distinct, min(4, len(distinct)))
            for k in thresholds:
                kv: Scalar = int(k) if float(k).is_integer() and all(isinstance(v, int) for v in vals) else k
                for op in (">=", ">", "<=", "<", "=="):
                    if op == "==" and ((source == "state" and isinstance(kv, float)) or kv == 0):
                        continue
                    if op == "<=" and kv == 0:
                        continue  # "0 or less" of a count reads oddly; "ran out" covers it
                    for which in ("first", "last"):
                        cond = Cond(source, key, op, kv, which)
                        hits = [t for t in range(T) if self.ev.holds(cond, t)]
                        if not hits:
                            continue
                        if which == "first":
                            if hits[0] <= start:
                                continue  # true from the start: "when did it first ..." would be odd
                            t = hits[0]
                        else:
                            if hits[-1] >= T - 1 or op == "==":
                                continue  # still true at the end: no "last time"
                            t = hits[-1]
                        out.append((cond, t, *self.cond_words(source, key, op, kv, which)))
            if source == "inventory":
                for which in ("first", "last"):
                    cond = Cond(source, key, "runout", 0, which)
                    hits = [t for t in range(T) if self.ev.holds(cond, t)]
                    if hits:
                        t = hits[0] if which == "first" else hits[-1]
                        if which == "last" and len(hits) == 1:
                            continue
                        out.append((cond, t, *self.cond_words(source, key, "runout", 0, which)))
        for sc in self.vocab.state_conds:
            if sc.key not in self.state_keys:
                continue
            window = None
            lo = self._state_from(sc.key) or 0
            if sc.after is not None:
                if not self.occ.get(sc.after):
                    continue
                window = Window(after=Occ(sc.after))
                lo = self.occ[sc.after][0] + 1
            cond = Cond("state", sc.key, "==", sc.value, sc.which, window)
            hits = [t for t in range(lo, T) if self.ev.holds(cond, t)]
            if not hits:
                continue
            if sc.which == "first" and hits[0] <= lo:
                continue
            if sc.which == "last" and hits[-1] >= T - 1:
                continue
            t = hits[0] if sc.which == "first" else hits[-1]
            out.append((cond, t, list(sc.ask), list(sc.when)))
        return out

    def unique_item_conds(self, key: str) -> list[tuple[Cond, int, list[str], list[str]]]:
        """Have-it / stopped-having-it conditions of a one-of-a-kind item."""
        x = self.vocab.items[key].nouns[0]
        out: list[tuple[Cond, int, list[str], list[str]]] = []
        words = {
            (">=", "first"): (
                [f"When did {{S}} first have {x}?", f"At which step did {x} first show up in {{P}} inventory?", f"When was {x} first in {{P}} inventory?"],
                [f"when {{S}} first had {x}", f"the first time {x} was in {{P}} inventory"],
            ),
            (">=", "last"): (
                [f"What was the last step at which {{S}} still had {x}?", f"When did {{S}} last have {x} in {{P}} inventory?"],
                [f"the last time {{S}} still had {x}"],
            ),
            ("runout", "first"): (
                [f"When did {x} first leave {{P}} inventory?", f"When did {{S}} first stop carrying {x}?", f"At which step did {{S}} first no longer have {x}?"],
                [f"when {{S}} first stopped carrying {x}"],
            ),
            ("runout", "last"): (
                [f"When did {{S}} stop carrying {x} for the last time?", f"At which step did {x} leave {{P}} inventory for the last time?"],
                [f"the last time {{S}} stopped carrying {x}"],
            ),
        }
        for (op, which), (ask, when) in words.items():
            cond = Cond("inventory", key, op, 1 if op == ">=" else 0, which)
            hits = [t for t in range(self.T) if self.ev.holds(cond, t)]
            if not hits:
                continue
            if op == ">=" and which == "first" and hits[0] == 0:
                continue
            if op == ">=" and which == "last" and hits[-1] >= self.T - 1:
                continue
            if op == "runout" and which == "last" and len(hits) == 1:
                continue
            out.append((cond, hits[0] if which == "first" else hits[-1], ask, when))
        return out

    def cond_words(self, source: str, key: str, op: str, k: Scalar, which: str) -> tuple[list[str], list[str]]:
        """Step questions and when-clauses for a numeric condition (placeholders kept)."""
        if source == "inventory":
            nouns = self.vocab.items[key].nouns
            noun = self.ph.choice(nouns)
            unit = ""
            one = singular(noun) if k == 1 else noun  # "exactly 1 sapling", "at least 1 stone"
            what = [f"{{P}} {key} count", f"the number of {noun} {{S}} had"]
        else:
            sw = self.vocab.states[key]
            noun = one = ""
            unit = sw.unit
            what = list(sw.phrases)
        if isinstance(k, (bool, str)):
            kk = state_text(k)
        elif isinstance(k, int):
            kk = self.ph.number(k)
        else:
            kk = state_text(k)
        K = f"{kk}{unit}"
        W = self.ph.choice(what)
        first = which == "first"
        ask: list[str] = []
        when: list[str] = []
        if op == "runout":
            if first:
                ask = [f"When did {{S}} first run out of {noun}?", f"When did {{S}} run out of {noun} for the first time?", f"At which step did {{S}} first use up all {{P}} {noun}?"]
                when = [f"when {{S}} first ran out of {noun}", f"the first time {{S}} ran out of {noun}"]
            else:
                ask = [f"When did {{S}} last run out of {noun}?", f"When was the last time {{S}} ran out of {noun}?", f"At which step did {{P}} {noun} hit zero for the last time?"]
                when = [f"when {{S}} last ran out of {noun}", f"the last time {{S}} ran out of {noun}"]
            return ask, when
        if source == "inventory":
            if op == ">=":
                if first:
                    ask = [f"When did {{S}} first have {K} or more {noun}?", f"When did {{S}} first hold at least {K} {one}?", f"At which step did {W} first reach {K}?", f"What was the first step at which {{S}} had at least {K} {one}?"]
                    when = [f"when {{S}} first had at least {K} {one}", f"when {W} first reached {K}"]
                else:
                    ask = [f"When did {{S}} last have {K} or more {noun}?", f"What was the last step at which {{S}} held at least {K} {one}?"]
                    when = [f"the last time {{S}} had at least {K} {one}"]
            elif op == ">":
                if first:
                    ask = [f"When did {{S}} first have more than {K} {noun}?", f"When did {W} first exceed {K}?", f"At which step did {W} first go above {K}?"]
                    when = [f"when {{S}} first had more than {K} {noun}", f"when {W} first exceeded {K}"]
                else:
                    ask = [f"What was the last step at which {{S}} had more than {K} {noun}?", f"When was {W} above {K} for the last time?"]
                    when = [f"the last time {W} was above {K}"]
            elif op == "<=":
                if first:
                    ask = [f"When did {W} first drop to {K} or below?", f"When did {{S}} first have {K} or fewer {noun}?", f"At which step did {W} first fall to {K} or lower?"]
                    when = [f"when {W} first dropped to {K} or below"]
                else:
                    ask = [f"When did {{S}} last have {K} or fewer {noun}?", f"What was the last step at which {W} was at most {K}?"]
                    when = [f"the last time {W} was at most {K}"]
            elif op == "<":
                if first:
                    ask = [f"When did {W} first drop below {K}?", f"When did {{S}} first have fewer than {K} {noun}?", f"At which step did {W} first go under {K}?"]
                    when = [f"when {W} first dropped below {K}"]
                else:
                    ask = [f"What was the last step at which {{S}} had fewer than {K} {noun}?", f"When was {W} below {K} for the last time?"]
                    when = [f"the last time {W} was below {K}"]
            else:
                ask = [f"When did {{S}} first have exactly {K} {one}?", f"When did {{S}} first hold exactly {K} {one}?", f"At which step did {W} first equal {K}?", f"When did {{S}} have precisely {K} {one} for the first time?"]
                when = [f"when {{S}} first had exactly {K} {one}", f"the first time {{S}} held exactly {K} {one}"]
            return ask, when
        # numeric state
        if op in (">=", ">"):
            phrase = f"{K} or more" if op == ">=" else f"above {K}"
            rise = f"reach {K} or more" if op == ">=" else f"rise above {K}"
            risen = f"reached {K} or more" if op == ">=" else f"rose above {K}"
        else:
            phrase = f"{K} or less" if op == "<=" else f"below {K}"
            rise = f"drop to {K} or less" if op == "<=" else f"fall below {K}"
            risen = f"dropped to {K} or less" if op == "<=" else f"fell below {K}"
        if op == "==":
            if first:
                ask = [f"When was {W} first exactly {K}?", f"At which step did {W} first equal {K}?", f"When did {W} first become {K}?"]
                when = [f"when {W} first became {K}"]
            return ask, when
        if first:
            ask = [f"When did {W} first {rise}?", f"At which step did {W} first {rise}?", f"What was the first step at which {W} was {phrase}?", f"When was {W} first {phrase}?"]
            when = [f"when {W} first {risen}", f"the first time {W} was {phrase}"]
        else:
            ask = [f"What was the last step at which {W} was {phrase}?", f"When was {W} {phrase} for the last time?", f"When was {W} last {phrase}?"]
            when = [f"the last time {W} was {phrase}"]
        return ask, when

    def f_condition(self, slot: str) -> Written:
        cands = self.cond_candidates()
        if not cands:
            raise NoAnswer("no conditions")
        cond, t, ask, when = self.rng.choice(cands)
        sub = self.subject()
        # Sometimes restrict to after a step N, keeping "first" meaningful (false at the window start).
        if cond.which == "first" and cond.op != "runout" and cond.window is None and self.rng.random() < 0.3:
            hits = [u for u in range(self.T) if self.ev.holds(cond, u)]
            last_hit = max(hits)
            starts = [u for u in range(1, self.T - 20) if u + 1 < last_hit and not self.ev.holds(cond, u + 1)]
            if starts:
                n = self.rng.choice(starts)
                wcond = Cond(cond.source, cond.key, cond.op, cond.value, "first", Window(lo=n + 1))
                t = min(h for h in hits if h > n)
                suffix = self.ph.choice([f" after step {n}", f" later than step {n}"])
                ask = [a[:-1] + suffix + "?" if a.endswith("?") else a + suffix for a in ask]
                when = [w + suffix for w in when]
                cond = wcond
        key = self.slot_key(slot, t)
        if slot == "step":
            text = fill(self.ph.choice(ask), sub)
        else:
            text = self.slot_question(slot, sub, fill(self.ph.choice(when), sub), key)
        return Written("condition", slot, text, SlotQ(cond, slot, key), slot_text(self.steps[t], slot, key))

    def f_offset(self, slot: str) -> Written:
        sub = self.subject()
        m = self.pick_present()
        ts = self.occ[m]
        i = self.rng.choice(range(min(4, len(ts)))) if self.rng.random() < 0.6 else self.rng.randrange(len(ts))
        nth = self.nth_spec(len(ts), i)
        k = self.rng.choice([1, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25]) * self.rng.choice([1, 1, -1])
        t = ts[i] + k
        if not 0 <= t < self.T:
            raise NoAnswer("offset outside episode")
        f = occ_forms(self.ph, sub, self.phrase(m), nth)
        a = self.ph.choice(f.clause + f.np)
        n = abs(k)
        if k == 1:
            adv = self.ph.choice([f"right after {a}", f"the step after {a}", f"immediately after {a}", f"one step after {a}", f"1 step after {a}"])
        elif k == -1:
            adv = self.ph.choice([f"right before {a}", f"the step before {a}", f"just before {a}", f"one step before {a}", f"immediately before {a}"])
        elif k > 0:
            adv = self.ph.choice([f"{self.ph.number(n)} steps after {a}", f"{n} steps after {a}", f"{self.ph.number(n)} steps later than {a}"])
        else:
            adv = self.ph.choice([f"{self.ph.number(n)} steps before {a}", f"{n} steps before {a}", f"{self.ph.number(n)} steps earlier than {a}"])
        key = self.slot_key(slot, t)
        if slot == "action" and k == 1 and self.rng.random() < 0.3:
            text = fill(self.ph.choice(["What did {S} do next after {A}?", "What was {P} very next action after {A}?", "Right after {A}, what did {S} do next?"]), sub, A=a)
        else:
            text = self.slot_question(slot, sub, adv, key)
        return Written("offset", slot, text, SlotQ(Offset(Occ(m, nth), k), slot, key), slot_text(self.steps[t], slot, key))

    def f_next_previous(self, slot: str) -> Written:
        sub = self.subject()
        occ_a, ta, atext = self.anchor(sub)
        m = self.pick_present()
        if any(m.hits(e) for e in self.steps[ta].events):
            raise NoAnswer("the anchor step holds a matching event")
        nxt = self.rng.random() < 0.55
        if nxt:
            later = [t for t in self.occ[m] if t > ta]
            if not later:
                raise NoAnswer("nothing after anchor")
            t = later[0]
            f = next_forms(sub, self.phrase(m), atext)
            occ = Occ(m, 1, Window(after=occ_a))
        else:
            earlier = [t for t in self.occ[m] if t < ta]
            if not earlier:
                raise NoAnswer("nothing before anchor")
            t = earlier[-1]
            f = prev_forms(sub, self.phrase(m), atext)
            occ = Occ(m, -1, Window(before=occ_a))
        key = self.slot_key(slot, t)
        self.not_trivial(slot, m)
        if slot == "step":
            extra = [f"After {atext}, when did {sub.subj} next {self.phrase(m).base}?"] if nxt else [f"Before {atext}, when had {sub.subj} last {self.phrase(m).part}?"]
            text = self.ph.choice([self.step_question(f), *extra])
        else:
            text = self.slot_question(slot, sub, self.adverbial(f, sub), key)
        return Written("next_previous", slot, text, SlotQ(occ, slot, key), slot_text(self.steps[t], slot, key))

    def f_window_count(self, slot: str) -> Written:
        sub = self.subject()
        if slot == "list":
            return self.f_list(sub)
        r = self.rng.random()
        if r < 0.15:
            m = self.rng.choice([mm for mm in self.vocab.events if mm in self.occ])
        else:
            m = self.pick_present()
        kinds = ["first_n", "before_n", "by_n", "after_n", "between_n", "after_occ", "before_occ", "between_occ", "whole"]
        kind = self.rng.choice(kinds)
        if kind == "whole":
            w: Window | None = None
            wtext = self.ph.choice(["in total", "over the whole episode", "altogether", "during the entire run", "in the whole trajectory"])
        else:
            w, wtext = self.window(sub, [kind], avoid=m)
            if w.since is not None or w.until is not None:
                lo, hi = self.window_steps(w)
                if lo in self.occ.get(m, []) or hi in self.occ.get(m, []):
                    raise NoAnswer("a window edge holds a matching event; inclusive/exclusive would differ")
        lo, hi = self.window_steps(w, m) if w else (0, self.T - 1)
        if lo > hi:
            raise NoAnswer("empty window")
        expected = sum(1 for t in self.occ.get(m, []) if lo <= t <= hi)
        v = self.phrase(m)
        text = fill(self.ph.choice([
            "How many times did {S} {B} {W}?",
            "How often did {S} {B} {W}?",
            "{WC}, how many times did {S} {B}?",
            "Count the times {S} {PAST} {W}.",
            "What is the number of times {S} {PAST} {W}?",
            "How many times {HAVE} {S} {PART} {W}?" if kind == "whole" else "How many times did {S} {B} {W}?",
        ]), sub, B=v.base, PAST=v.past, PART=v.part, W=wtext, WC=cap(wtext))
        return Written("window_count", "count", text, CountQ(m, w), str(expected))

    def f_list(self, sub: Subject) -> Written:
        kinds = [k for k in self.vocab.lists if any(m.kind == k for m in self.present)]
        if not kinds:
            raise NoAnswer("no list kinds")
        kind = self.rng.choice(kinds)
        m = Match(kind, None)
        all_ts = [t for t, _ in self.ev.occurrences(m)]
        if not all_ts:
            raise NoAnswer("kind absent")
        w, wtext = self.window(sub, ["first_n", "before_n", "between_n", "after_occ", "before_occ", "by_n", "after_n"])
        lo, hi = self.window_steps(w, m)
        found = [(t, e) for t, e in self.ev.occurrences(m) if lo <= t <= hi]
        if not 1 <= len(found) <= 4:
            raise NoAnswer("list size out of range")
        names: list[str] = []
        for _, e in found:
            if e.obj and e.obj not in names:
                names.append(e.obj)
        if not names or any(not e.obj for _, e in found):
            raise NoAnswer("unnamed events")
        stub = self.ph.choice(self.vocab.lists[kind])
        text = fill(self.ph.choice(["{L} {W}?", "{WC}, {LL}?", "Name everything: {LL} {W}?"]), sub, L=cap(fill(stub, sub)), LL=fill(stub, sub), W=wtext, WC=cap(wtext))
        return Written("window_count", "list", text, ListQ(m, w), ", ".join(names))

    def two_occurrences(self, sub: Subject, max_gap: int | None = None) -> tuple[Occ, int, Forms, Occ, int, Forms]:
        ma = self.pick_present()
        ta_i = self.rng.randrange(len(self.occ[ma])) if self.rng.random() < 0.4 else self.rng.randrange(min(3, len(self.occ[ma])))
        ta = self.occ[ma][ta_i]
        mb_pool = [m for m in self.present if m != ma]
        if not mb_pool:
            raise NoAnswer("one matcher only")
        mb = self.rng.choice(mb_pool)
        ts_b = self.occ[mb]
        if max_gap is not None:
            near = [i for i, t in enumerate(ts_b) if 0 < abs(t - ta) <= max_gap]
            tb_i = self.rng.choice(near) if near else self.rng.randrange(len(ts_b))
        else:
            tb_i = self.rng.randrange(len(ts_b)) if self.rng.random() < 0.4 else self.rng.randrange(min(3, len(ts_b)))
        tb = ts_b[tb_i]
        if ta == tb:
            raise NoAnswer("same step")
        nth_a = self.nth_spec(len(self.occ[ma]), ta_i)
        nth_b = self.nth_spec(len(ts_b), tb_i)
        fa = occ_forms(self.ph, sub, self.phrase(ma), nth_a)
        fb = occ_forms(self.ph, sub, self.phrase(mb), nth_b)
        return Occ(ma, nth_a), ta, fa, Occ(mb, nth_b), tb, fb

    def f_order(self, slot: str) -> Written:
        sub = self.subject()
        oa, ta, fa, ob, tb, fb = self.two_occurrences(sub, max_gap=self.rng.choice([15, 60, None]))
        style = self.rng.randrange(4)
        if style == 0:
            text = self.ph.choice(["Which came first: {A} or {B}?", "Which happened earlier, {A} or {B}?", "Of {A} and {B}, which occurred first?", "Which was earlier — {A} or {B}?"]).format(
                A=self.ph.choice(fa.np), B=self.ph.choice(fb.np))
        elif style == 1:
            text = fill("What did {S} do first: {A} or {B}?", sub, A=self.ph.choice(fa.bare), B=self.ph.choice(fb.bare))
        elif style == 2:
            text = fill("Which did {S} do first — {A}, or {B}?", sub, A=self.ph.choice(fa.bare), B=self.ph.choice(fb.bare))
        else:
            text = self.ph.choice(["Which came first, {A} or {B}?", "Which happened before the other: {A} or {B}?", "Which did {S} do earlier: {A} or {B}?"]).format(
                A=self.ph.choice(fa.ger), B=self.ph.choice(fb.ger), S=sub.subj)
        first_t = min(ta, tb)
        e = next(e for e in self.steps[first_t].events if (oa.match if ta < tb else ob.match).hits(e))
        return Written("order", "which-first", text, OrderQ(oa, ob), event_text(e))

    def f_distance(self, slot: str) -> Written:
        sub = self.subject()
        oa, ta, fa, ob, tb, fb = self.two_occurrences(sub)
        if tb < ta:
            oa, ta, fa, ob, tb, fb = ob, tb, fb, oa, ta, fa
        style = self.rng.randrange(3)
        A, B = self.ph.choice(fa.np), self.ph.choice(fb.np)
        if style == 0:
            text = self.ph.choice([
                "How many steps passed between {A} and {B}?",
                "How many steps were there between {A} and {B}?",
                "What was the gap, in steps, between {A} and {B}?",
                "How many steps separate {A} from {B}?",
                "How many steps did it take from {A} to {B}?",
            ]).format(A=A, B=B)
        elif style == 1:
            anchor = self.ph.choice(fa.clause + fa.np)
            did = self.ph.choice(fb.bare)
            text = fill(self.ph.choice(["How long after {A} did {S} {D}?", "How many steps after {A} did {S} {D}?"]), sub, A=anchor, D=did)
        else:
            text = self.ph.choice(["How many steps after {A} was {B}?", "{BC} came how many steps after {A}?", "Counting in steps, how far apart were {A} and {B}?"]).format(
                A=A, B=B, BC=cap(B))
        return Written("distance", "duration", text, DistanceQ(oa, ob), str(tb - ta))

    def f_existence(self, slot: str) -> Written:
        sub = self.subject()
        # Keep at least half of the answers a true "no".
        want_yes = self._yes_no["yes"] < self._yes_no["no"]
        absent = [m for m, ts in self.occ.items() if not ts]
        kinds = ["before_n", "by_n", "after_n", "between_n", "first_n", "after_occ", "before_occ", "before_occ", "after_occ", "ever"]
        kind = self.rng.choice(kinds)
        n_range: tuple[int, int] | None = None
        anchor_range: tuple[int, int] | None = None
        if want_yes:
            m = self.rng.choice(self.present)
        elif absent and self.rng.random() < 0.3:
            m = self.rng.choice(absent)
        else:
            # A matcher that does occur, with a window that misses all its occurrences.
            m = self.rng.choice(self.present)
            first, last = self.occ[m][0], self.occ[m][-1]
            kind = self.rng.choice(["before_n", "by_n", "first_n", "after_n", "before_occ", "after_occ", "between_n"])
            if kind in ("before_n", "first_n"):
                n_range = (0, first)
            elif kind == "by_n":
                n_range = (0, first - 1)
            elif kind == "after_n":
                n_range = (last, self.T)
            elif kind == "before_occ":
                anchor_range = (0, first)
            elif kind == "after_occ":
                anchor_range = (last, self.T)
            else:
                gaps = [(a + 1, b - 1) for a, b in zip(self.occ[m], self.occ[m][1:]) if b - a > 14]
                if not gaps:
                    raise NoAnswer("no gap")
                g = self.rng.choice(gaps)
                n_range = (g[0], g[1] - 10)
        if kind == "ever":
            w: Window | None = None
            wtext = ""
        else:
            w, wtext = self.window(sub, [kind], avoid=m, n_range=n_range, anchor_range=anchor_range)
        lo, hi = self.window_steps(w, m) if w else (0, self.T - 1)
        inside = [t for t in self.occ[m] if lo <= t <= hi]
        if bool(inside) != want_yes:
            raise NoAnswer("wrong polarity")
        v = self.phrase(m)
        if kind == "ever":
            text = fill(self.ph.choice([
                "Did {S} ever {B}?", "{HAVE_C} {S} ever {PART}?", "Did {S} {B} at any point?", "Was there ever a step where {S} {PAST}?", "At any point in the episode, did {S} {B}?"
            ]), sub, B=v.base, PART=v.part, PAST=v.past, HAVE_C=cap(sub.have))
        else:
            opts = ["Did {S} ever {B} {W}?", "Did {S} {B} at any point {W}?", "{WC}, did {S} {B}?", "Is there any step {W} where {S} {PAST}?", "Did {S} {B} at all {W}?"]
            if w is not None and (w.before is not None or (w.hi is not None and w.lo is None)):
                opts += ["Had {S} {PART} {W}?", "Had {S} already {PART} {W}?"]
            if v.nouns:
                opts.append("Was there any " + self.ph.choice(v.nouns) + " {W}?")
            text = fill(self.ph.choice(opts), sub, B=v.base, PART=v.part, PAST=v.past, W=wtext, WC=cap(wtext))
        return Written("existence", "yes/no", text, ExistsQ(m, w), "yes" if inside else "no")

    # -- driver ---------------------------------------------------------------------------------
    def family_slots(self, family: str) -> list[str]:
        s = [x for x in self.vocab.slots]
        if family == "step_index":
            return s
        if family == "nth_occurrence":
            return ["step", "step", *[x for x in s if x != "action"]]
        if family == "window_occurrence":
            return ["step", "step", "step", *[x for x in s if x in ("location", "inventory", "item", "position", "state")]]
        if family == "condition":
            return ["step", "step", "step", "step", *[x for x in s if x in ("location", "inventory", "item", "action")]]
        if family == "offset":
            return s
        if family == "next_previous":
            return ["step", "step", *[x for x in s if x in ("location", "inventory", "item", "events", "state")]]
        if family == "window_count":
            return ["count", "count", "count", "list"]
        if family == "order":
            return ["which-first"]
        if family == "distance":
            return ["duration"]
        return ["yes/no"]

    def write(self, per_family: int) -> list[dict[str, object]]:
        makers: dict[str, Callable[[str], Written]] = {
            "step_index": self.f_step_index,
            "nth_occurrence": self.f_nth_occurrence,
            "window_occurrence": self.f_window_occurrence,
            "condition": self.f_condition,
            "offset": self.f_offset,
            "next_previous": self.f_next_previous,
            "window_count": self.f_window_count,
            "order": self.f_order,
            "distance": self.f_distance,
            "existence": self.f_existence,
        }
        out: list[dict[str, object]] = []
        seen: set[str] = set()
        for family in FAMILIES:
            slots = self.family_slots(family)
            self.rng.shuffle(slots)
            made, attempts = 0, 0
            while made < per_family and attempts < 400:
                slot = slots[(made + attempts // 25) % len(slots)]
                attempts += 1
                try:
                    w = makers[family](slot)
                except NoAnswer:
                    continue
                if w.text in seen:
                    continue
                if family == "existence":
                    self._yes_no[w.expected] += 1
                answer, gold = self.ev.answer(w.query)
                assert answer == w.expected, f"{self.episode_id} {family}: evaluator {answer!r} != writer {w.expected!r} for {w.text!r}"
                seen.add(w.text)
                out.append({
                    "episode": self.episode_id,
                    "family": family,
                    "slot": w.slot,
                    "question": self.finish(w.text),
                    "answer": answer,
                    "gold": source_ids(self.episode_id, gold),
                })
                made += 1
            if made < per_family:
                raise RuntimeError(f"{self.episode_id}: only {made} questions for family {family}")
        return out


def self_check(build: Callable[[int], dict[str, object]], seeds: Sequence[int], samples: int = 10) -> None:
    """Build ``seeds``, re-check every answer with a fresh evaluator, print counts and samples."""
    import collections
    import time

    for seed in seeds:
        t0 = time.time()
        data = build(seed)
        took = time.time() - t0
        episodes = data["episodes"]
        questions = data["questions"]
        assert isinstance(episodes, dict) and isinstance(questions, list)
        assert 40 <= len(questions) <= 80, len(questions)
        for steps in episodes.values():
            assert 300 <= len(steps) <= 1500, len(steps)
            Evaluator(steps)
        for q in questions:
            assert q["episode"] in episodes
            assert q["family"] in FAMILIES
            for sid in q["gold"]:
                eid, _, t = sid.rpartition(":")
                assert eid == q["episode"] and 0 <= int(t) < len(episodes[eid])
        fam = collections.Counter(q["family"] for q in questions)
        slot = collections.Counter(q["slot"] for q in questions)
        yn = collections.Counter(q["answer"] for q in questions if q["slot"] == "yes/no")
        lengths = {eid: len(steps) for eid, steps in episodes.items()}
        print(f"seed {seed}: {len(questions)} questions, episodes {lengths}, build {took:.1f}s")
        print("  families:", dict(fam))
        print("  slots:", dict(slot))
        print("  yes/no:", dict(yn))
        rng = random.Random(seed)
        for q in rng.sample(questions, min(samples, len(questions))):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']}   gold={q['gold']}")
