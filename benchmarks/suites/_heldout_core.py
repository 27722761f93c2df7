"""Reference evaluator and question builder shared by the held-out suites (``heldout_*``).

A held-out suite simulates (or runs) an environment with a scripted agent, turns the rollout into
``graphmem.records.Step`` records, and asks questions about it. Every question is first built as a
small structured query (:class:`SlotQ`, :class:`CountQ`, ...); its answer and gold evidence come from
:func:`evaluate`, a plain scan over the Step records that knows nothing of graphmem. The question
text is then phrased from the suite's own words (:class:`Lexicon`, templates per family).

The conventions are those of the question-suite spec: "before step N" excludes N, "by step N"
includes it, "in the first N steps" is t in [0, N-1], an occurrence without an ordinal is the first,
"the next X after Y" is the first X strictly after Y's step, "the last X before Y" the last X
strictly before it.

>>> from graphmem.records import Step, Event
>>> steps = [Step(0, "chop"), Step(1, "chop", events=(Event("chop", "tree"),)), Step(2, "chop", events=(Event("chop", "tree"),))]
>>> evaluate(steps, "ep", SlotQ(AtOcc(Occ(Match("chop", "tree"), 2)), "step"))
('2', ['ep:2'])
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphmem.records import Scalar, Step, validate_steps

# --------------------------------------------------------------------------------------------------
# Query model
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """Events of ``kind`` (and of ``obj``; ``None`` means any object)."""

    kind: str
    obj: str | None = None


@dataclass(frozen=True)
class Window:
    """Steps a question looks at: numeric bounds are inclusive, event anchors are strict."""

    lo: int | None = None
    hi: int | None = None
    after: Occ | None = None
    before: Occ | None = None
    #: How a numeric window is worded ("first_n", "by", "before", "after", "between"); the
    #: evaluator ignores it, the phrasing needs it ("before step 50" and "by step 49" are one window).
    style: str = ""


@dataclass(frozen=True)
class Occ:
    """The ``n``-th matching event (1-based; -1 is the last, -2 the second-to-last) in a window."""

    match: Match
    n: int = 1
    window: Window | None = None


@dataclass(frozen=True)
class AtStep:
    t: int


@dataclass(frozen=True)
class AtOcc:
    occ: Occ


@dataclass(frozen=True)
class Offset:
    """``k`` steps after (k > 0) or before (k < 0) the step of ``occ``."""

    occ: Occ
    k: int


@dataclass(frozen=True)
class Cond:
    """The first (or last) step whose inventory item / state value meets ``op value``.

    ``op`` is one of ``>= <= > < ==`` or ``runout`` (the count is 0 and was above 0 one step earlier).
    """

    var: str  # "item" or "state"
    name: str
    op: str
    value: Scalar
    last: bool = False
    window: Window | None = None


Target = AtStep | AtOcc | Offset | Cond


@dataclass(frozen=True)
class SlotQ:
    target: Target
    slot: str
    param: str = ""


@dataclass(frozen=True)
class CountQ:
    match: Match
    window: Window | None = None


@dataclass(frozen=True)
class ListQ:
    match: Match
    window: Window | None = None


@dataclass(frozen=True)
class ExistsQ:
    match: Match
    window: Window | None = None


@dataclass(frozen=True)
class OrderQ:
    a: Occ
    b: Occ


@dataclass(frozen=True)
class DurationQ:
    a: Occ
    b: Occ


Query = SlotQ | CountQ | ListQ | ExistsQ | OrderQ | DurationQ


class Unanswerable(ValueError):
    """The query names something the episode does not hold (an occurrence that never happened, ...)."""


# --------------------------------------------------------------------------------------------------
# Reference evaluator: a direct scan over the Step records
# --------------------------------------------------------------------------------------------------


def format_scalar(value: Scalar) -> str:
    """A state value as the canonical answer writes it.

    >>> format_scalar(True), format_scalar(7), format_scalar(12.50), format_scalar("green")
    ('true', '7', '12.5', 'green')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def event_text(kind: str, obj: str) -> str:
    return f"{kind} {obj}" if obj else kind


def slot_value(step: Step, slot: str, param: str = "") -> str:
    """The canonical answer of one slot of one step (see the spec's answer table)."""
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        if step.location.region:
            return step.location.region
        if step.location.position is None:
            raise Unanswerable(f"step {step.t} has no location")
        return f"{step.location.position[0]},{step.location.position[1]}"
    if slot == "position":
        if step.location.position is None:
            raise Unanswerable(f"step {step.t} has no position")
        return f"{step.location.position[0]},{step.location.position[1]}"
    if slot == "item":
        return str(step.inventory_dict.get(param, 0))
    if slot == "inventory":
        held = [f"{name} {count}" for name, count in sorted(step.inventory) if count > 0]
        return ", ".join(held) if held else "none"
    if slot == "state":
        state = step.state_dict
        if param not in state:
            raise Unanswerable(f"step {step.t} has no state {param!r}")
        return format_scalar(state[param])
    if slot == "facing":
        for rel in step.relations:
            if rel.subject == "agent" and rel.predicate == "facing":
                return rel.obj
        raise Unanswerable(f"step {step.t} faces nothing")
    if slot == "events":
        return "; ".join(event_text(e.kind, e.obj) for e in step.events) or "none"
    raise ValueError(f"unknown slot {slot!r}")


def _matches(match: Match, kind: str, obj: str) -> bool:
    return kind == match.kind and (match.obj is None or obj == match.obj)


def _bounds(steps: Sequence[Step], window: Window | None) -> tuple[int, int, list[int]]:
    """Inclusive [lo, hi] of a window and the steps of its event anchors."""
    lo, hi = 0, len(steps) - 1
    anchors: list[int] = []
    if window is None:
        return lo, hi, anchors
    if window.lo is not None:
        lo = max(lo, window.lo)
    if window.hi is not None:
        hi = min(hi, window.hi)
    if window.after is not None:
        t, _, _, more = _occurrence(steps, window.after)
        anchors += [t, *more]
        lo = max(lo, t + 1)
    if window.before is not None:
        t, _, _, more = _occurrence(steps, window.before)
        anchors += [t, *more]
        hi = min(hi, t - 1)
    return lo, hi, anchors


def _hits(steps: Sequence[Step], match: Match, window: Window | None) -> tuple[list[tuple[int, str, str]], list[int]]:
    lo, hi, anchors = _bounds(steps, window)
    hits = [(step.t, e.kind, e.obj) for step in steps[lo : hi + 1] for e in step.events if _matches(match, e.kind, e.obj)]
    return hits, anchors


def _occurrence(steps: Sequence[Step], occ: Occ) -> tuple[int, str, str, list[int]]:
    """(t, kind, obj, anchor steps) of an occurrence."""
    hits, anchors = _hits(steps, occ.match, occ.window)
    index = occ.n - 1 if occ.n > 0 else occ.n
    if occ.n == 0 or not -len(hits) <= index < len(hits):
        raise Unanswerable(f"no occurrence {occ.n} of {occ.match}")
    t, kind, obj = hits[index]
    return t, kind, obj, anchors


def _var(step: Step, var: str, name: str) -> Scalar:
    if var == "item":
        return step.inventory_dict.get(name, 0)
    state = step.state_dict
    if name not in state:
        raise Unanswerable(f"step {step.t} has no state {name!r}")
    return state[name]


def _meets(value: Scalar, op: str, bound: Scalar, previous: Scalar | None) -> bool:
    if op == "==":
        return value == bound and type(value) is type(bound)
    if op == "runout":
        return value == 0 and previous is not None and isinstance(previous, int) and previous > 0
    if isinstance(value, (bool, str)) or isinstance(bound, (bool, str)):
        raise TypeError(f"{op} needs numbers")
    return {">=": value >= bound, "<=": value <= bound, ">": value > bound, "<": value < bound}[op]


def _target(steps: Sequence[Step], target: Target) -> tuple[int, list[int]]:
    """(t, anchor steps) a target names."""
    if isinstance(target, AtStep):
        if not 0 <= target.t < len(steps):
            raise Unanswerable(f"no step {target.t}")
        return target.t, []
    if isinstance(target, AtOcc):
        t, _, _, anchors = _occurrence(steps, target.occ)
        return t, anchors
    if isinstance(target, Offset):
        t, _, _, anchors = _occurrence(steps, target.occ)
        if not 0 <= t + target.k < len(steps):
            raise Unanswerable("offset leaves the episode")
        return t + target.k, [t, *anchors]
    lo, hi, anchors = _bounds(steps, target.window)
    found = [
        step.t
        for step in steps[lo : hi + 1]
        if _meets(_var(step, target.var, target.name), target.op, target.value,
                  _var(steps[step.t - 1], target.var, target.name) if step.t > 0 else None)
    ]
    if not found:
        raise Unanswerable(f"no step meets {target}")
    return (found[-1] if target.last else found[0]), anchors


def target_step(steps: Sequence[Step], target: Target) -> int:
    """The step a target names (for the builders' own checks)."""
    return _target(steps, target)[0]


def evaluate(steps: Sequence[Step], episode: str, query: Query) -> tuple[str, list[str]]:
    """(canonical answer, gold source ids) of a query over one episode's steps.

    >>> from graphmem.records import Step, Event
    >>> steps = [Step(t, "go", events=(Event("eat", "cow"),) if t % 2 else ()) for t in range(6)]
    >>> evaluate(steps, "e", CountQ(Match("eat", "cow"), Window(hi=3)))
    ('2', ['e:3'])
    """
    for i, step in enumerate(steps):
        if step.t != i:
            raise ValueError("steps must be numbered 0, 1, 2, ...")
    gold: list[int]
    if isinstance(query, SlotQ):
        t, anchors = _target(steps, query.target)
        answer = slot_value(steps[t], query.slot, query.param)
        gold = [t, *anchors]
    elif isinstance(query, CountQ):
        hits, anchors = _hits(steps, query.match, query.window)
        answer = str(len(hits))
        gold = anchors + ([hits[-1][0]] if hits else [])
    elif isinstance(query, ListQ):
        hits, anchors = _hits(steps, query.match, query.window)
        if not hits:
            raise Unanswerable("empty list")
        objs: list[str] = []
        for _, _, obj in hits:
            if obj not in objs:
                objs.append(obj)
        answer = ", ".join(objs)
        gold = anchors + [t for t, _, _ in hits]
    elif isinstance(query, ExistsQ):
        hits, anchors = _hits(steps, query.match, query.window)
        answer = "yes" if hits else "no"
        gold = anchors + ([hits[0][0]] if hits else [])
    elif isinstance(query, OrderQ):
        ta, ka, oa, more_a = _occurrence(steps, query.a)
        tb, kb, ob, more_b = _occurrence(steps, query.b)
        if ta == tb:
            raise Unanswerable("both happened at the same step")
        answer = event_text(ka, oa) if ta < tb else event_text(kb, ob)
        gold = [ta, tb, *more_a, *more_b]
    else:
        ta, _, _, more_a = _occurrence(steps, query.a)
        tb, _, _, more_b = _occurrence(steps, query.b)
        if ta == tb:
            raise Unanswerable("both happened at the same step")
        answer = str(abs(tb - ta))
        gold = [ta, tb, *more_a, *more_b]
    return answer, [f"{episode}:{t}" for t in sorted(set(gold))]


# --------------------------------------------------------------------------------------------------
# Words: verb conjugation, ordinals, subjects
# --------------------------------------------------------------------------------------------------

_IRREGULAR = {
    "be": ("was", "been"), "begin": ("began", "begun"), "bring": ("brought", "brought"),
    "build": ("built", "built"), "buy": ("bought", "bought"), "catch": ("caught", "caught"),
    "choose": ("chose", "chosen"), "come": ("came", "come"), "cut": ("cut", "cut"), "dig": ("dug", "dug"),
    "do": ("did", "done"), "drink": ("drank", "drunk"), "eat": ("ate", "eaten"), "fall": ("fell", "fallen"),
    "feed": ("fed", "fed"), "fight": ("fought", "fought"), "find": ("found", "found"), "get": ("got", "gotten"),
    "give": ("gave", "given"), "go": ("went", "gone"), "grab": ("grabbed", "grabbed"), "have": ("had", "had"),
    "hit": ("hit", "hit"), "hold": ("held", "held"), "keep": ("kept", "kept"), "lay": ("laid", "laid"),
    "leave": ("left", "left"), "lose": ("lost", "lost"), "make": ("made", "made"), "pay": ("paid", "paid"),
    "put": ("put", "put"), "read": ("read", "read"), "rerun": ("reran", "rerun"), "run": ("ran", "run"),
    "see": ("saw", "seen"), "send": ("sent", "sent"), "set": ("set", "set"), "shut": ("shut", "shut"),
    "sleep": ("slept", "slept"), "slay": ("slew", "slain"), "spend": ("spent", "spent"),
    "stick": ("stuck", "stuck"), "take": ("took", "taken"), "throw": ("threw", "thrown"),
    "wake": ("woke", "woken"), "write": ("wrote", "written"), "rewrite": ("rewrote", "rewritten"),
    "undergo": ("underwent", "undergone"), "upload": ("uploaded", "uploaded"), "meet": ("met", "met"),
    "stand": ("stood", "stood"), "swing": ("swung", "swung"), "tear": ("tore", "torn"), "light": ("lit", "lit"), "strike": ("struck", "struck"),
    "break": ("broke", "broken"), "forget": ("forgot", "forgotten"), "win": ("won", "won"), "sweep": ("swept", "swept"),
}
_DOUBLE = {"chop", "grab", "log", "plan", "stop", "drop", "commit", "submit", "hop", "dip", "trip", "tap",
           "slam", "pop", "scrub", "ship", "rip", "jog", "shop", "zap", "mop", "nab", "bag", "tag", "chip", "scan", "wrap",
           "step", "nap", "skip", "snap", "swap", "tab"}


#: Irregular verbs whose -ing form doubles the last consonant (their past tense is irregular).
_DOUBLE_ING = {"get", "put", "cut", "hit", "set", "run", "rerun", "dig", "shut", "sit", "begin", "swim", "forget"}


def _ing(verb: str) -> str:
    if verb in _DOUBLE or verb in _DOUBLE_ING:
        return verb + verb[-1] + "ing"
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and verb not in {"be"}:
        return verb[:-1] + "ing"
    return verb + "ing"


def _past(verb: str) -> tuple[str, str]:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb in _DOUBLE:
        return (verb + verb[-1] + "ed",) * 2
    if verb.endswith("e"):
        return (verb + "d",) * 2
    if verb.endswith("y") and verb[-2:-1] not in set("aeiou"):
        return (verb[:-1] + "ied",) * 2
    return (verb + "ed",) * 2


@dataclass(frozen=True)
class Verb:
    """A verb phrase in its four forms; the first word is the verb.

    >>> v = Verb.of("pick up the mug"); v.past, v.pp, v.ing
    ('picked up the mug', 'picked up the mug', 'picking up the mug')
    """

    base: str
    past: str
    pp: str
    ing: str

    @staticmethod
    def of(phrase: str) -> Verb:
        verb, _, rest = phrase.partition(" ")
        past, pp = _past(verb)
        tail = f" {rest}" if rest else ""
        return Verb(phrase, past + tail, pp + tail, _ing(verb) + tail)


_ORD_WORDS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
              "tenth", "eleventh", "twelfth"]


def ordinal_digits(n: int) -> str:
    """``3`` -> ``3rd``.

    >>> ordinal_digits(2), ordinal_digits(11), ordinal_digits(23)
    ('2nd', '11th', '23rd')
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ordinal(n: int, rng: random.Random) -> str:
    """An ordinal in words or digits; negative n counts from the end."""
    if n == -1:
        return rng.choice(["last", "final", "most recent", "latest"])
    if n < -1:
        k = -n
        base = rng.choice([_ORD_WORDS[k], ordinal_digits(k)]) if k < len(_ORD_WORDS) else ordinal_digits(k)
        forms = [f"{base}-to-last", f"{base} to last", f"{base}-from-last"]
        if k == 2:
            forms += ["next-to-last", "penultimate"]
        return rng.choice(forms)
    if n < len(_ORD_WORDS) and rng.random() < 0.6:
        return _ORD_WORDS[n]
    return ordinal_digits(n)


def number(n: int, rng: random.Random) -> str:
    """A small count in words or digits."""
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    if 0 <= n < len(words) and rng.random() < 0.5:
        return words[n]
    return str(n)


@dataclass(frozen=True)
class Subject:
    """Who the question is about, with the words that agree with it."""

    S: str
    was: str
    poss: str
    obj: str
    has: str

    def words(self) -> dict[str, str]:
        return {"S": self.S, "was": self.was, "poss": self.poss, "obj": self.obj, "has": self.has}


def subjects(name: str, pronoun: str) -> list[Subject]:
    """I, we, you, the agent, it and the agent's name (``pronoun``: she, he or they)."""
    obj = {"she": "her", "he": "him", "they": "them"}[pronoun]
    return [
        Subject("I", "was", "my", "me", "have"),
        Subject("we", "were", "our", "us", "have"),
        Subject("you", "were", "your", "you", "have"),
        Subject("the agent", "was", "the agent's", "it", "has"),
        Subject("it", "was", "its", "it", "has"),
        Subject(name, "was", f"{name}'s", obj, "has"),
    ]


def finish(text: str, rng: random.Random) -> str:
    """First letter upper case, single spaces; a question mark most of the time (a template ending
    in "." is a request and keeps its full stop)."""
    request = text.rstrip().endswith(".")
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,?.:])", r"\1", text).rstrip("?. ")
    text = text[0].upper() + text[1:]
    if request:
        return text + "."
    return text + ("?" if rng.random() < 0.8 else "")


# --------------------------------------------------------------------------------------------------
# Suite vocabulary
# --------------------------------------------------------------------------------------------------


@dataclass
class Lexicon:
    """A suite's words for the things its records hold.

    ``events`` maps ``(kind, obj)`` (obj ``None``: any object of the kind) to verb phrases a person
    would use ("collect wood", "chop down a tree"); ``nouns`` optionally to noun phrases ("wood pickup").
    ``kind_verbs`` maps a kind to transitive verbs without object for list questions ("mine").
    ``items``/``states`` map names to how people call them; ``state_q`` holds per-state question
    templates; ``slot_q`` per-slot question templates ({S} {was} {poss} {obj} {has} {P}).
    ``bools`` maps a bool state to the adjective for true and for false ("logged in", "logged out").
    ``states`` lists the states value-condition questions may name.
    """

    events: dict[tuple[str, str | None], list[str]]
    items: dict[str, list[str]]
    states: dict[str, list[str]]
    state_q: dict[str, list[str]]
    slot_q: dict[str, list[str]]
    subjects: list[Subject]
    nouns: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)
    kind_verbs: dict[str, list[str]] = field(default_factory=dict)
    bools: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Inventory items that value-condition questions may name (all of ``items`` when None).
    cond_items: list[str] | None = None

    def verb(self, match: Match, rng: random.Random) -> Verb:
        return Verb.of(rng.choice(self.events[(match.kind, match.obj)]))

    def knows(self, match: Match) -> bool:
        return (match.kind, match.obj) in self.events


# --------------------------------------------------------------------------------------------------
# Episode index (what the builders choose from)
# --------------------------------------------------------------------------------------------------


class Index:
    """Occurrences of every event key and kind of one episode, in order (one entry per event)."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = steps
        self.n = len(steps)
        self.key_steps: dict[tuple[str, str], list[int]] = {}
        self.kind_steps: dict[str, list[int]] = {}
        doubled_keys: set[tuple[str, str]] = set()
        doubled_kinds: set[str] = set()
        for step in steps:
            seen_keys: Counter[tuple[str, str]] = Counter()
            seen_kinds: Counter[str] = Counter()
            for e in step.events:
                self.key_steps.setdefault((e.kind, e.obj), []).append(step.t)
                self.kind_steps.setdefault(e.kind, []).append(step.t)
                seen_keys[(e.kind, e.obj)] += 1
                seen_kinds[e.kind] += 1
            doubled_keys |= {k for k, c in seen_keys.items() if c > 1}
            doubled_kinds |= {k for k, c in seen_kinds.items() if c > 1}
        self.doubled_keys = doubled_keys
        self.doubled_kinds = doubled_kinds

    def times(self, match: Match) -> list[int]:
        if match.obj is None:
            return self.kind_steps.get(match.kind, [])
        return self.key_steps.get((match.kind, match.obj), [])

    def ordinal_safe(self, match: Match) -> bool:
        """Whether "the n-th time" is clear: never two matching events in one step."""
        if match.obj is None:
            return match.kind not in self.doubled_kinds
        return (match.kind, match.obj) not in self.doubled_keys


# --------------------------------------------------------------------------------------------------
# Question builder
# --------------------------------------------------------------------------------------------------

FAMILIES = [
    "step_index", "nth_occurrence", "windowed_occurrence", "value_condition", "offset",
    "next_previous", "window_count", "order", "distance", "existence",
]

#: Slots each family asks, rotated so that a seed's questions cover many of them.
FAMILY_SLOTS: dict[str, list[str]] = {
    "step_index": ["action", "location", "position", "inventory", "item", "state", "facing", "events"],
    "nth_occurrence": ["step", "location", "inventory", "events", "state", "item", "action", "position", "facing"],
    "windowed_occurrence": ["step", "action", "location", "state", "inventory", "step", "events"],
    "value_condition": ["step", "step", "step", "location", "action", "inventory"],
    "offset": ["action", "location", "inventory", "item", "state", "events", "facing", "position"],
    "next_previous": ["step", "step", "location", "action", "inventory", "state"],
    "window_count": ["count", "count", "count", "count", "list", "list"],
    "order": ["which-first"],
    "distance": ["duration"],
    "existence": ["yes/no"],
}

Forms = Callable[[Subject], str]


class Builder:
    """Turns structured queries into phrased questions about one episode.

    ``templates`` holds the suite's own sentence templates per family; the placeholders each one
    fills are: f1 {Q} {N}; f2/f3/f4/f6 {Q} {W} and their ``_step`` variants {D} {W}; f5 {Q} {W};
    f7 {X} {XP} {XPP} {XI} {WIN}; f7_list {V} {VP} {WIN}; f8 {A} {B} {AW} {BW}; f9 {A} {B} {AW} {BD};
    f10 {X} {XP} {XPP} {XI} {WIN}; every template may use the subject words {S} {was} {poss} {obj}
    {has}. {Q} asks a slot ("what was I carrying"), {W} names the step ("when I chopped a tree for
    the third time"), {D} is a question core ("did I chop a tree for the third time"), {X}.. are the
    event's verb forms, {A}/{B} noun-like phrases of two occurrences, {WIN} a window.

    The builder draws anchors from the episode, phrases them with the suite's :class:`Lexicon`, and
    keeps a question only if :func:`evaluate` answers it; the answer and gold come from there.
    """

    def __init__(self, episode: str, steps: Sequence[Step], lex: Lexicon, templates: dict[str, list[str]],
                 rng: random.Random, matches: Sequence[Match]) -> None:
        self.episode = episode
        self.steps = steps
        self.lex = lex
        self.tpl = templates
        self.rng = rng
        self.index = Index(steps)
        # Matches the suite lets questions name, split by whether the episode holds them.
        self.present = [m for m in matches if self.index.times(m) and lex.knows(m)]
        self.absent = [m for m in matches if not self.index.times(m) and lex.knows(m)]
        self.questions: list[dict[str, object]] = []
        self._texts: set[str] = set()
        self._keys: set[object] = set()

    # ---------------------------------------------------------------- keeping a question

    def add(self, family: str, slot: str, text: str, query: Query, expect_t: int | None = None,
            expect: str | None = None) -> bool:
        """Keep the question if it is new and answerable; its answer comes from :func:`evaluate`.

        ``expect_t`` (the step the builder meant) and ``expect`` (the answer the builder worked out from
        its own index) are checked against the evaluator: two independent readings of the records."""
        key = (query, slot)
        if text in self._texts or key in self._keys:
            return False
        try:
            answer, gold = evaluate(self.steps, self.episode, query)
        except Unanswerable:
            return False
        if expect_t is not None and isinstance(query, SlotQ):
            # The builder's own pick (from its Index) must be the step the evaluator lands on.
            assert target_step(self.steps, query.target) == expect_t, (text, expect_t)
        assert expect is None or expect == answer, (text, expect, answer)
        self._texts.add(text)
        self._keys.add(key)
        self.questions.append({"episode": self.episode, "family": family, "slot": slot, "question": text,
                               "answer": answer, "gold": gold})
        return True

    def pick(self, name: str) -> str:
        return self.rng.choice(self.tpl[name])

    def fill(self, template: str, subj: Subject, **words: str) -> str:
        values = subj.words()
        values.update(words)
        return template.format(**values)

    def subject(self) -> Subject:
        return self.rng.choice(self.lex.subjects)

    # ---------------------------------------------------------------- choosing anchors

    def choose(self, pool: Sequence[Match]) -> Match | None:
        """A match from ``pool``: a kind first, then one of its objects, so that kinds with many objects
        (every receptacle one can walk to) do not crowd out the rest."""
        if not pool:
            return None
        kind = self.rng.choice(sorted({m.kind for m in pool}))
        return self.rng.choice([m for m in pool if m.kind == kind])

    def some_match(self, ordinal_safe: bool = True, min_count: int = 1) -> Match | None:
        return self.choose([m for m in self.present
                            if len(self.index.times(m)) >= min_count and (not ordinal_safe or self.index.ordinal_safe(m))])

    def some_occ(self, min_count: int = 1, allow_last: bool = True) -> tuple[Occ, int] | None:
        match = self.some_match(min_count=min_count)
        if match is None:
            return None
        times = self.index.times(match)
        choices = list(range(1, min(len(times), 6) + 1)) + [1]
        if allow_last and len(times) >= 2:
            choices += [-1, -1]
        if allow_last and len(times) >= 4:
            choices += [-2]
        n = self.rng.choice(choices)
        return Occ(match, n), (times[n - 1] if n > 0 else times[n])

    def make_window(self, kind: str, ref: int | None = None) -> Window | None:
        """A random window: "numeric", "after_event" or "before_event"; it contains step ``ref`` if given."""
        n, rng = self.index.n, self.rng
        if kind in ("after_event", "before_event"):
            got = self.some_occ(allow_last=False)
            if got is None:
                return None
            occ, t = got
            if ref is not None and ((kind == "after_event" and t >= ref) or (kind == "before_event" and t <= ref)):
                return None
            return Window(after=occ) if kind == "after_event" else Window(before=occ)
        style = rng.choice(["first_n", "by", "before", "after", "between", "between"])
        if style in ("first_n", "by", "before"):
            low = ref + 1 if ref is not None else 20
            if low >= n - 1:
                return None
            bound = rng.randint(low, n - 1)
            if rng.random() < 0.7:
                bound = min(n - 1, ((bound + 9) // 10) * 10)
            if style == "by":
                return Window(hi=bound, style=style)
            return Window(hi=bound - 1, style=style) if bound - 1 >= (ref if ref is not None else 0) else None
        if style == "after":
            top = ref - 1 if ref is not None else n - 20
            if top < 1:
                return None
            start = rng.randint(max(0, top - n // 2), top)
            return Window(lo=start + 1, style=style)
        width = rng.randint(20, max(21, n // 3))
        lo = rng.randint(0, max(0, n - width - 1)) if ref is None else rng.randint(max(0, ref - width), ref)
        return Window(lo=lo, hi=min(n - 1, lo + width), style="between")

    # ---------------------------------------------------------------- phrasing occurrences

    def _ordinal_words(self, n: int, explicit: bool, with_again: bool = False) -> tuple[str, str]:
        """(adverb before the verb, phrase after it) for the n-th occurrence; ``explicit=False``
        allows no ordinal at all for the first one (the spec's convention: no ordinal is the first)."""
        rng = self.rng
        if n == 1:
            forms = [("first", ""), ("", "for the first time")] + ([] if explicit else [("", ""), ("", "")])
            return rng.choice(forms)
        if n == -1:
            return rng.choice([("last", ""), ("", "for the last time"), ("", "for the final time")])
        if n == 2 and with_again and rng.random() < 0.3:
            return "", "again"
        return "", f"for the {ordinal(n, rng)} time"

    def when(self, occ: Occ, subj: Subject, lead: bool = True, with_again: bool = False) -> str:
        """A clause naming an occurrence. ``lead=True`` (a question's target, always with an ordinal):
        "when I chopped a tree for the third time", "the last time I chopped a tree".
        ``lead=False`` (an anchor after "after"/"before"): "I chopped a tree", "I first chopped a tree"."""
        rng = self.rng
        v = self.lex.verb(occ.match, rng)
        s = subj.S
        win = self.window_phrase(occ.window, subj)
        if lead and rng.random() < 0.4:
            if occ.n == -1 and rng.random() < 0.3:
                return f"the most recent time {s} {v.past} {win}"
            return f"the {ordinal(occ.n, rng)} time {s} {v.past} {win}"
        adv, post = self._ordinal_words(occ.n, explicit=lead, with_again=with_again and occ.window is None)
        core = f"{s} {adv} {v.past} {post} {win}"
        return f"when {core}" if lead else core

    def did(self, occ: Occ, subj: Subject) -> str:
        """A question core for an occurrence's step: "did I chop a tree for the third time",
        "was the last time I chopped a tree"."""
        rng = self.rng
        v = self.lex.verb(occ.match, rng)
        s = subj.S
        win = self.window_phrase(occ.window, subj)
        if rng.random() < 0.3:
            return f"was the {ordinal(occ.n, rng)} time {s} {v.past} {win}"
        # No "again" here: "when did I chop a tree again?" also reads as "remind me when".
        adv, post = self._ordinal_words(occ.n, explicit=True)
        return f"did {s} {adv} {v.base} {post} {win}"

    def ing(self, occ: Occ, subj: Subject) -> str:
        """A noun-like phrase for an anchor: "chopping a tree for the third time", "my third wood pickup"."""
        rng = self.rng
        nouns = self.lex.nouns.get((occ.match.kind, occ.match.obj), [])
        win = self.window_phrase(occ.window, subj)
        if nouns and rng.random() < 0.45:
            noun = rng.choice(nouns)
            if occ.n == 1 and rng.random() < 0.3:
                return f"{rng.choice([subj.poss, 'the'])} {noun} {win}"
            return f"{subj.poss} {ordinal(occ.n, rng)} {noun} {win}"
        v = self.lex.verb(occ.match, rng)
        if occ.n == 1:
            return rng.choice([f"{v.ing} {win}", f"{v.ing} for the first time {win}", f"first {v.ing} {win}"])
        if occ.n == -1:
            return rng.choice([f"{v.ing} for the last time {win}", f"{v.ing} for the final time {win}"])
        return f"{v.ing} for the {ordinal(occ.n, rng)} time {win}"

    def anchor(self, occ: Occ, subj: Subject) -> str:
        """What follows "after"/"before": "I built a table", "building a table for the second time"."""
        if self.rng.random() < 0.55:
            return self.when(occ, subj, lead=False)
        return self.ing(occ, subj)

    def window_phrase(self, window: Window | None, subj: Subject) -> str:
        if window is None:
            return ""
        rng = self.rng
        if window.after is not None:
            return f"after {self.anchor(window.after, subj)}"
        if window.before is not None:
            if rng.random() < 0.25:
                return f"prior to {self.ing(window.before, subj)}"
            return f"before {self.anchor(window.before, subj)}"
        lo, hi, style = window.lo, window.hi, window.style
        if style == "first_n" and hi is not None:
            return rng.choice(["in the first {n} steps", "during the first {n} steps", "within the first {n} steps",
                               "over the first {n} steps"]).format(n=hi + 1)
        if style == "by" and hi is not None:
            return rng.choice(["by step {n}", "up to step {n}", "until step {n}", "up to and including step {n}"]).format(n=hi)
        if style == "before" and hi is not None:
            return rng.choice(["before step {n}", "prior to step {n}", "earlier than step {n}"]).format(n=hi + 1)
        if style == "after" and lo is not None:
            return rng.choice(["after step {n}", "later than step {n}", "once step {n} was over"]).format(n=lo - 1)
        if style == "between" and lo is not None and hi is not None:
            return rng.choice(["between step {a} and step {b}", "between steps {a} and {b}",
                               "from step {a} to step {b}", "from step {a} through step {b}"]).format(a=lo, b=hi)
        raise ValueError(f"window {window} has no wording")

    # ---------------------------------------------------------------- slot questions

    def slot_question(self, slot: str, subj: Subject, t: int) -> tuple[str, str] | None:
        """(question words, param) asking one slot of step ``t``, e.g. ("what was I carrying", "")."""
        rng = self.rng
        step = self.steps[t]
        if slot == "state":
            names = [nm for nm in sorted(self.lex.state_q) if nm in step.state_dict]
            if not names:
                return None
            name = rng.choice(names)
            return self.fill(rng.choice(self.lex.state_q[name]), subj), name
        if slot == "item":
            names = sorted(self.lex.items)
            if not names or "item" not in self.lex.slot_q:
                return None
            held = [nm for nm in names if step.inventory_dict.get(nm, 0) > 0]
            name = rng.choice(held if held and rng.random() < 0.75 else names)
            return self.fill(rng.choice(self.lex.slot_q["item"]), subj, P=rng.choice(self.lex.items[name])), name
        if slot not in self.lex.slot_q:
            return None
        try:
            slot_value(step, slot, "")
        except Unanswerable:
            return None
        return self.fill(rng.choice(self.lex.slot_q[slot]), subj), ""

    def _ask(self, family: str, tpl: str, slot: str, target: Target, t: int, when: Forms, did: Forms | None) -> bool:
        """Ask ``slot`` of the step a target names, with the family's templates."""
        subj = self.subject()
        if slot == "step":
            if did is None:
                return False
            text = self.fill(self.pick(tpl + "_step"), subj, D=did(subj), W=when(subj))
            return self.add(family, slot, finish(text, self.rng), SlotQ(target, "step"), t)
        got = self.slot_question(slot, subj, t)
        if got is None:
            return False
        q, param = got
        text = self.fill(self.pick(tpl), subj, Q=q, W=when(subj))
        return self.add(family, slot, finish(text, self.rng), SlotQ(target, slot, param), t)

    # ---------------------------------------------------------------- the ten families

    def f1_step_index(self, slot: str) -> bool:
        rng = self.rng
        t = rng.randint(1, self.index.n - 1)
        if slot in ("events", "action", "facing") and rng.random() < 0.7:
            busy = [s.t for s in self.steps if s.events]
            t = rng.choice(busy) if busy else t
        subj = self.subject()
        got = self.slot_question(slot, subj, t)
        if got is None:
            return False
        q, param = got
        text = self.fill(self.pick("f1"), subj, Q=q, N=str(t))
        return self.add("step_index", slot, finish(text, rng), SlotQ(AtStep(t), slot, param), t)

    def f2_nth(self, slot: str) -> bool:
        got = self.some_occ()
        if got is None:
            return False
        occ, t = got
        return self._ask("nth_occurrence", "f2", slot, AtOcc(occ), t,
                         lambda subj: self.when(occ, subj, with_again=True), lambda subj: self.did(occ, subj))

    def f3_windowed(self, slot: str) -> bool:
        rng = self.rng
        kind = rng.choice(["after_event", "after_event", "before_event", "numeric"])
        match = self.some_match(min_count=2)
        if match is None:
            return False
        window = self.make_window(kind)
        if window is None or (window.after or window.before) is not None and (window.after or window.before).match == match:  # type: ignore[union-attr]
            return False
        lo, hi, _ = _bounds(self.steps, window)
        times = [t for t in self.index.times(match) if lo <= t <= hi]
        if not times:
            return False
        choices = [1, 1, 2, 3, -1, -1] if kind != "before_event" else [-1, -1, -2, 1, 2]
        choices = [c for c in choices if (0 < c <= len(times)) or (c < 0 and -c <= len(times))]
        if len(times) == 1:
            choices = [1]
        n = rng.choice(choices)
        t = times[n - 1] if n > 0 else times[n]
        occ = Occ(match, n, window)
        return self._ask("windowed_occurrence", "f3", slot, AtOcc(occ), t,
                         lambda subj: self.when(occ, subj), lambda subj: self.did(occ, subj))

    def f4_condition(self, slot: str) -> bool:
        rng = self.rng
        got = self._some_condition()
        if got is None:
            return False
        cond, when_forms, did_forms = got
        t = target_step(self.steps, cond)
        return self._ask("value_condition", "f4", slot, cond, t,
                         lambda subj: rng.choice(when_forms(subj)), lambda subj: rng.choice(did_forms(subj)))

    def _values(self, var: str, name: str) -> list[Scalar] | None:
        if var == "state" and any(name not in s.state_dict for s in self.steps):
            return None
        return [_var(s, var, name) for s in self.steps]

    def _some_condition(self) -> tuple[Cond, Callable[[Subject], list[str]], Callable[[Subject], list[str]]] | None:
        rng, steps = self.rng, self.steps
        items = self.lex.items if self.lex.cond_items is None else self.lex.cond_items
        options = [("item", nm) for nm in items] + [("state", nm) for nm in self.lex.states]
        var, name = rng.choice(options)
        values = self._values(var, name)
        if values is None:
            return None
        last = rng.random() < 0.25
        if isinstance(values[0], (bool, str)):
            later = [v for v in values[1:] if v != values[0]]
            if not later:
                return None
            cond = Cond(var, name, "==", rng.choice(later), last=last)
        else:
            nums = [float(v) for v in values]
            ops = [">=", ">=", "<=", "runout"] if var == "item" else [">=", "<=", "<=", ">", "<"]
            op = rng.choice(ops)
            if op == "runout":
                cond = Cond(var, name, "runout", 0, last=last)
            else:
                v0 = nums[0]
                levels = sorted(set(nums))
                cands = [v for v in levels if (v > v0 if op in (">=", ">") else v < v0)]
                if not cands:
                    return None
                bound = rng.choice(cands)
                # "exceeded v" / "fell below v": v is a level the value sat at, one short of the one it reached.
                if op == ">":
                    below = [v for v in levels if v0 <= v < bound]
                    bound = below[-1]
                if op == "<":
                    above = [v for v in levels if bound < v <= v0]
                    bound = above[0]
                typed: Scalar = int(bound) if isinstance(values[0], int) else bound
                cond = Cond(var, name, op, typed, last=last)
        try:
            t = target_step(steps, cond)
        except Unanswerable:
            return None
        prev = _var(steps[t - 1], var, name) if t > 0 else None
        before_prev = _var(steps[t - 2], var, name) if t > 1 else None
        if t == 0 or prev is None:
            return None
        if not cond.last and _meets(prev, cond.op, cond.value, before_prev):
            return None
        if cond.last and t == len(steps) - 1:
            return None
        exact = _var(steps[t], var, name) == cond.value
        if cond.op == "==":
            return (cond, lambda subj: self._eq_words(cond, subj)[0], lambda subj: self._eq_words(cond, subj)[1])
        return (cond, lambda subj: self._num_words(cond, subj, exact)[0], lambda subj: self._num_words(cond, subj, exact)[1])

    def _var_noun(self, cond: Cond, subj: Subject) -> str:
        if cond.var == "item":
            return f"{subj.poss} {self.rng.choice(self.lex.items[cond.name])} count"
        return f"{subj.poss} {self.rng.choice(self.lex.states[cond.name])}"

    def _num_words(self, cond: Cond, subj: Subject, exact: bool) -> tuple[list[str], list[str]]:
        """(when-forms, did-forms) of a numeric condition."""
        rng, s, vs = self.rng, subj.S, format_scalar(cond.value)
        noun = self._var_noun(cond, subj)
        item = rng.choice(self.lex.items[cond.name]) if cond.var == "item" else ""
        if cond.op == "runout":
            if cond.last:
                return ([f"the last time {s} ran out of {item}", f"when {s} last ran out of {item}"],
                        [f"did {s} last run out of {item}", f"was the last time {s} ran out of {item}"])
            return ([f"when {s} first ran out of {item}", f"the first time {s} ran out of {item}",
                     f"when {s} first used up all {subj.poss} {item}"],
                    [f"did {s} first run out of {item}", f"did {s} run out of {item} for the first time",
                     f"did {noun} first drop to zero"])
        if cond.last:
            when = {">=": [f"at the last step at which {noun} was at least {vs}", f"the last time {noun} was {vs} or more"],
                    "<=": [f"at the last step at which {noun} was at most {vs}", f"the last time {noun} was {vs} or lower"],
                    ">": [f"at the last step at which {noun} was above {vs}", f"the last time {noun} was over {vs}"],
                    "<": [f"at the last step at which {noun} was below {vs}", f"the last time {noun} was under {vs}"]}
            did = {">=": [f"was {noun} last at least {vs}", f"was {noun} {vs} or more for the last time"],
                   "<=": [f"was {noun} last at most {vs}", f"was {noun} {vs} or lower for the last time"],
                   ">": [f"was {noun} last above {vs}", f"was {noun} over {vs} for the last time"],
                   "<": [f"was {noun} last below {vs}", f"was {noun} under {vs} for the last time"]}
            if item and cond.op == ">=":
                some = "any" if vs == "1" else f"at least {vs}"
                when[">="].append(f"the last time {s} had {some} {item}")
                did[">="].append(f"did {s} last have {some} {item}")
            return when[cond.op], did[cond.op]
        when = {">=": [f"when {noun} first reached at least {vs}", f"the first time {noun} was {vs} or more"],
                "<=": [f"when {noun} first dropped to {vs} or lower", f"the first time {noun} was at most {vs}"],
                ">": [f"when {noun} first exceeded {vs}", f"the first time {noun} went above {vs}"],
                "<": [f"when {noun} first fell below {vs}", f"the first time {noun} dipped under {vs}"]}
        did = {">=": [f"did {noun} first reach {vs} or more", f"was {noun} first at least {vs}"],
               "<=": [f"did {noun} first drop to {vs} or below", f"was {noun} first at or under {vs}"],
               ">": [f"did {noun} first exceed {vs}", f"did {noun} first go above {vs}"],
               "<": [f"did {noun} first fall below {vs}", f"did {noun} first dip under {vs}"]}
        if item and cond.op == ">=" and vs == "1":
            when[">="] += [f"when {s} first had any {item}", f"the first time {s} held any {item}"]
            did[">="].append(f"did {s} first have any {item}")
        elif item and cond.op == ">=":
            when[">="] += [f"when {s} first had at least {vs} {item}", f"the first time {s} held {vs} or more {item}"]
            did[">="].append(f"did {s} first have at least {vs} {item}")
        if exact:
            # "reached 4" / "dropped to 2" only when the value landed exactly there (no jump past it).
            if cond.op == ">=":
                when[">="].append(f"when {noun} first hit {vs}")
                did[">="].append(f"did {noun} first reach {vs}")
                if item and vs != "1":
                    when[">="].append(f"when {s} first had {vs} {item}")
                    did[">="].append(f"did {s} first have {vs} {item}")
            if cond.op == "<=":
                when["<="].append(f"when {noun} first dropped to {vs}")
                did["<="].append(f"did {noun} first drop to {vs}")
        return when[cond.op], did[cond.op]

    def _eq_words(self, cond: Cond, subj: Subject) -> tuple[list[str], list[str]]:
        """(when-forms, did-forms) of an equality condition on a text or bool state."""
        v, first = cond.value, "last" if cond.last else "first"
        if isinstance(v, bool):
            adj = self.lex.bools[cond.name][0 if v else 1]
            return ([f"at the {first} step at which {subj.S} {subj.was} {adj}", f"when {subj.S} {subj.was} {first} {adj}",
                     f"the {first} time {subj.S} {subj.was} {adj}"],
                    [f"{subj.was} {subj.S} {first} {adj}", f"{subj.was} {subj.S} {adj} for the {first} time"])
        noun = self._var_noun(cond, subj)
        return ([f"at the {first} step at which {noun} was \"{v}\"", f"when {noun} was {first} \"{v}\"",
                 f"the {first} time {noun} read \"{v}\""],
                [f"was {noun} {first} \"{v}\"", f"did {noun} {first} read \"{v}\""])

    def f5_offset(self, slot: str) -> bool:
        rng = self.rng
        got = self.some_occ()
        if got is None:
            return False
        occ, t0 = got
        k = rng.choice([1, 1, 2, 3, 4, 5, -1, -1, -2, -3])
        if not 0 <= t0 + k < self.index.n:
            return False

        def when(subj: Subject) -> str:
            a = self.anchor(occ, subj)
            if k == 1:
                return rng.choice([f"right after {a}", f"the step after {a}", f"one step after {a}", f"immediately after {a}"])
            if k == -1:
                return rng.choice([f"right before {a}", f"the step before {a}", f"one step before {a}", f"just before {a}"])
            side = "after" if k > 0 else "before"
            return f"{number(abs(k), rng)} steps {side} {a}"

        return self._ask("offset", "f5", slot, Offset(occ, k), t0 + k, when, None)

    def f6_next_prev(self, slot: str) -> bool:
        rng = self.rng
        got = self.some_occ()
        if got is None:
            return False
        anchor, ta = got
        forward = rng.random() < 0.6
        pool = [m for m in self.present if self.index.ordinal_safe(m) and m.kind != anchor.match.kind
                and any((t > ta) if forward else (t < ta) for t in self.index.times(m))]
        match = self.choose(pool)
        if match is None:
            return False
        window = Window(after=anchor) if forward else Window(before=anchor)
        occ = Occ(match, 1 if forward else -1, window)
        hits = [t for t in self.index.times(match) if (t > ta if forward else t < ta)]
        t = hits[0] if forward else hits[-1]

        def when(subj: Subject) -> str:
            v, a = self.lex.verb(match, rng), self.anchor(anchor, subj)
            if forward:
                return rng.choice([f"the next time {subj.S} {v.past} after {a}", f"when {subj.S} next {v.past} after {a}",
                                   f"the first time {subj.S} {v.past} after {a}"])
            return rng.choice([f"the last time {subj.S} {v.past} before {a}", f"the previous time {subj.S} {v.past} before {a}",
                               f"the most recent time {subj.S} had {v.pp} before {a}"])

        def did(subj: Subject) -> str:
            v, a = self.lex.verb(match, rng), self.anchor(anchor, subj)
            if forward:
                return rng.choice([f"did {subj.S} next {v.base} after {a}", f"was the next time {subj.S} {v.past} after {a}"])
            return rng.choice([f"had {subj.S} last {v.pp} before {a}", f"did {subj.S} last {v.base} before {a}",
                               f"was the previous time {subj.S} {v.past} before {a}"])

        return self._ask("next_previous", "f6", slot, AtOcc(occ), t, when, did)

    def f7_count(self, slot: str) -> bool:
        rng = self.rng
        if slot == "list":
            kinds = [k for k, vs in self.lex.kind_verbs.items() if vs and self.index.kind_steps.get(k)]
            if not kinds:
                return False
            kind = rng.choice(kinds)
            times = self.index.kind_steps[kind]
            # A window holding one to four matching events.
            i = rng.randrange(len(times))
            j = min(len(times) - 1, i + rng.randint(1, 3))
            lo = max(0, times[i] - rng.randint(0, 6))
            hi = min(self.index.n - 1, times[j] + rng.randint(0, 6))
            hits = [t for t in times if lo <= t <= hi]
            if not 1 <= len(hits) <= 4:
                return False
            span = Window(lo=lo, hi=hi, style="between")
            subj = self.subject()
            verb = Verb.of(rng.choice(self.lex.kind_verbs[kind]))
            text = self.fill(self.pick("f7_list"), subj, V=verb.base, VP=verb.past, WIN=self.window_phrase(span, subj))
            return self.add("window_count", "list", finish(text, rng), ListQ(Match(kind), span))
        match = self.some_match(ordinal_safe=False)
        if match is None:
            return False
        window = self.make_window(rng.choice(["numeric", "numeric", "after_event", "before_event"]))
        if window is None:
            return False
        subj = self.subject()
        v = self.lex.verb(match, rng)
        text = self.fill(self.pick("f7"), subj, X=v.base, XP=v.past, XPP=v.pp, XI=v.ing, WIN=self.window_phrase(window, subj))
        lo, hi, _ = _bounds(self.steps, window)
        expect = str(sum(lo <= t <= hi for t in self.index.times(match)))
        return self.add("window_count", "count", finish(text, rng), CountQ(match, window), expect=expect)

    def _two(self) -> tuple[Occ, int, Occ, int] | None:
        a, b = self.some_occ(), self.some_occ()
        if a is None or b is None:
            return None
        (oa, ta), (ob, tb) = a, b
        # Two different things (not "a tree" against "anything chopped") at two different steps.
        if ta == tb or oa.match.kind == ob.match.kind and (oa.match.obj is None or ob.match.obj is None or oa.match == ob.match):
            return None
        return oa, ta, ob, tb

    def f8_order(self, slot: str) -> bool:
        got = self._two()
        if got is None:
            return False
        oa, ta, ob, tb = got
        first, t_first = (oa, ta) if ta < tb else (ob, tb)
        event = next(e for e in self.steps[t_first].events if _matches(first.match, e.kind, e.obj))
        subj = self.subject()
        text = self.fill(self.pick("f8"), subj, A=self.ing(oa, subj), B=self.ing(ob, subj),
                         AW=self.when(oa, subj, lead=False), BW=self.when(ob, subj, lead=False))
        return self.add("order", "which-first", finish(text, self.rng), OrderQ(oa, ob), expect=event_text(event.kind, event.obj))

    def f9_distance(self, slot: str) -> bool:
        rng = self.rng
        got = self._two()
        if got is None:
            return False
        oa, ta, ob, tb = got
        if ta > tb:
            oa, ta, ob, tb = ob, tb, oa, ta
        # "How long after A did I B" reads B's ordinal from A on: only ask it when no B came before A.
        if any(t <= ta for t in self.index.times(ob.match)):
            return False
        subj = self.subject()
        vb = self.lex.verb(ob.match, rng)
        adv, post = self._ordinal_words(ob.n, explicit=False)
        text = self.fill(self.pick("f9"), subj, A=self.ing(oa, subj), B=self.ing(ob, subj),
                         AW=self.when(oa, subj, lead=False), BD=f"{adv} {vb.base} {post}")
        return self.add("distance", "duration", finish(text, rng), DurationQ(oa, ob), expect=str(tb - ta))

    def f10_exists(self, want_no: bool) -> bool:
        rng = self.rng
        kind = rng.choice(["numeric", "after_event", "before_event", "numeric"])
        window = self.make_window(kind)
        if window is None:
            return False
        lo, hi, _ = _bounds(self.steps, window)
        if lo > hi:
            return False
        anchor = window.after or window.before
        pool = [m for m in self.present + self.absent if anchor is None or m.kind != anchor.match.kind]
        if want_no:
            pool = [m for m in pool if not any(lo <= t <= hi for t in self.index.times(m))]
            # Mostly things that do happen in the episode, only not in the window: a harder "no".
            inside = [m for m in pool if self.index.times(m)]
            pool = inside if inside and rng.random() < 0.7 else pool
        else:
            pool = [m for m in pool if any(lo <= t <= hi for t in self.index.times(m))]
        match = self.choose(pool)
        if match is None:
            return False
        subj = self.subject()
        v = self.lex.verb(match, rng)
        text = self.fill(self.pick("f10"), subj, X=v.base, XP=v.past, XPP=v.pp, XI=v.ing, WIN=self.window_phrase(window, subj))
        expect = "yes" if any(lo <= t <= hi for t in self.index.times(match)) else "no"
        assert expect == ("no" if want_no else "yes")
        return self.add("existence", "yes/no", finish(text, rng), ExistsQ(match, window), expect=expect)

    # ---------------------------------------------------------------- a whole question set

    def build(self, per_family: int = 6) -> list[dict[str, object]]:
        """``per_family`` questions of each family (fewer if the episode cannot support them)."""
        makers: dict[str, Callable[[str], bool]] = {
            "step_index": self.f1_step_index, "nth_occurrence": self.f2_nth, "windowed_occurrence": self.f3_windowed,
            "value_condition": self.f4_condition, "offset": self.f5_offset, "next_previous": self.f6_next_prev,
            "window_count": self.f7_count, "order": self.f8_order, "distance": self.f9_distance,
        }
        for family in FAMILIES:
            slots = FAMILY_SLOTS[family][:]
            self.rng.shuffle(slots)
            made = tries = 0
            while made < per_family and tries < 500:
                slot = slots[(made + tries) % len(slots)]
                tries += 1
                if family == "existence":
                    made += self.f10_exists(want_no=made % 2 == 0)
                else:
                    made += makers[family](slot)
        return self.questions


def check_suite(data: dict[str, object]) -> None:
    """Structural checks of a built suite (episode lengths, families, gold ids within the episode)."""
    episodes = data["episodes"]
    questions = data["questions"]
    assert isinstance(episodes, dict) and isinstance(questions, list)
    for episode, steps in episodes.items():
        validate_steps(steps, f"episode {episode}")
        assert 300 <= len(steps) <= 1500, len(steps)
    assert 40 <= len(questions) <= 80, len(questions)
    for q in questions:
        assert isinstance(q, dict)
        steps = episodes[q["episode"]]
        assert q["family"] in FAMILIES, q["family"]
        assert str(q["answer"]).strip() and str(q["question"]).strip()
        for gold in q["gold"]:
            ep, _, t = str(gold).rpartition(":")
            assert ep == q["episode"] and 0 <= int(t) < len(steps), gold
    for q in questions:
        assert isinstance(q, dict)
        assert q["gold"] == sorted(set(q["gold"]), key=lambda g: int(str(g).rpartition(":")[2])), q


def self_check(build: Callable[[int], dict[str, object]], seeds: Sequence[int], samples: int = 15) -> None:
    """Build a suite for some seeds; print counts per family and slot and sample questions."""
    import time

    for seed in seeds:
        start = time.time()
        data = build(seed)
        elapsed = time.time() - start
        check_suite(data)
        episodes = data["episodes"]
        questions = data["questions"]
        assert isinstance(episodes, dict) and isinstance(questions, list)
        lengths = {ep: len(steps) for ep, steps in episodes.items()}
        print(f"seed {seed}: {len(questions)} questions, episodes {lengths}, built in {elapsed:.1f}s")
        print("  per family:", dict(Counter(q["family"] for q in questions)))
        print("  per slot:  ", dict(Counter(q["slot"] for q in questions)))
        rng = random.Random(seed)
        for q in rng.sample(questions, min(samples, len(questions))):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}  ->  {q['answer']}   gold={q['gold']}")
