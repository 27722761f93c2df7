"""The question grammar compiles generated phrasings into the queries they ask.

Each test draws a random memory (a :class:`Lexicon` of event kinds, among them multi-word and object-less
ones, objects, items and state names), a random subject (I, we, you, the agent, it) and a random phrasing
from one question family of the grammar's closed class (``graphmem.query.grammar``): a step by index; the
n-th, last or n-th to last occurrence, ordinals as words and as digits; an occurrence in a window, the next
one after, the last one before; value conditions (reached, dropped below, exceeded, ran out); offsets in
words and digits; counts over windows; which came first; distances; existence; lists. It asserts the
compiled query is exactly the one the phrasing asks. The lexicons carry no embedder: every phrasing names
its kinds, objects, items and states by their own words or their English inflections.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from graphmem.query.algebra import (
    Anchor,
    Condition,
    Count,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Query,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------------------------- vocabulary

#: Event kinds that take an object: (base, past, gerund).
# fmt: off
VERBS: dict[str, tuple[str, str, str]] = {
    "collect": ("collect", "collected", "collecting"),
    "place": ("place", "placed", "placing"),
    "open": ("open", "opened", "opening"),
    "eat": ("eat", "ate", "eating"),
    "drink": ("drink", "drank", "drinking"),
    "defeat": ("defeat", "defeated", "defeating"),
    "craft": ("craft", "crafted", "crafting"),
    "chop": ("chop", "chopped", "chopping"),
    "unlock": ("unlock", "unlocked", "unlocking"),
    "visit": ("visit", "visited", "visiting"),
    "run test": ("run test", "ran test", "running test"),
    "power wash": ("power wash", "power washed", "power washing"),
    "read": ("read", "read", "reading"),
}
#: Event kinds without an object.
OBJECTLESS: dict[str, tuple[str, str, str]] = {
    "sleep": ("sleep", "slept", "sleeping"),
    "jump": ("jump", "jumped", "jumping"),
    "wake up": ("wake up", "woke up", "waking up"),
    "respawn": ("respawn", "respawned", "respawning"),
}
OBJECTS = ("wood", "stone", "table", "door", "lamp", "cow", "map", "rope", "bucket", "chest", "furnace", "letter",
           "iron key", "wood pickaxe", "red button")
#: Items and their plurals.
ITEMS: dict[str, str] = {"sapling": "saplings", "apple": "apples", "coin": "coins", "arrow": "arrows",
                         "potion": "potions", "torch": "torches", "berry": "berries", "iron sword": "iron swords"}
STATES = ("health", "food", "energy", "thirst", "score", "temperature", "oxygen", "stamina")
#: (subject, possessive, object pronoun, past of "be")
SUBJECTS = (("I", "my", "me", "was"), ("we", "our", "us", "were"), ("you", "your", "you", "were"),
            ("the agent", "the agent's", "the agent", "was"), ("it", "its", "it", "was"))
# fmt: on

UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
TENS = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety"}
ORDINAL_UNITS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                 "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
                 "eighteenth", "nineteenth")
ORDINAL_TENS = {20: "twentieth", 30: "thirtieth", 40: "fortieth", 50: "fiftieth"}


def number_word(n: int) -> str:
    if n < 20:
        return UNITS[n]
    tens, unit = divmod(n, 10)
    return TENS[tens * 10] + (f"-{UNITS[unit]}" if unit else "")


def ordinal_word(n: int) -> str:
    if n < 20:
        return ORDINAL_UNITS[n]
    tens, unit = divmod(n, 10)
    return ORDINAL_TENS[tens * 10] if not unit else f"{TENS[tens * 10]}-{ORDINAL_UNITS[unit]}"


def ordinal_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ---------------------------------------------------------------------------------------------- drawing


class Draw:
    """Choices for one phrasing, drawn by hypothesis."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, options: Any) -> Any:
        return self.data.draw(st.sampled_from(list(options)))

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def coin(self) -> bool:
        return self.data.draw(st.booleans())

    def subset(self, options: Any, lo: int, hi: int) -> list[Any]:
        return self.data.draw(st.lists(st.sampled_from(sorted(options)), min_size=lo, max_size=hi, unique=True))


@dataclass(frozen=True)
class Memory:
    lexicon: Lexicon
    kinds: tuple[str, ...]  # kinds with objects
    objectless: tuple[str, ...]
    items: tuple[str, ...]
    states: tuple[str, ...]
    last_t: int


def draw_memory(d: Draw) -> Memory:
    kinds = d.subset(VERBS, 2, 4)
    objectless = d.subset(OBJECTLESS, 0, 2)
    pairs = {(kind, obj) for kind in kinds for obj in d.subset(OBJECTS, 1, 3)}
    pairs |= {(kind, "") for kind in objectless}
    items = d.subset(ITEMS, 1, 3)
    states = d.subset(STATES, 1, 3)
    last_t = d.integer(60, 3000)
    lexicon = Lexicon(frozenset(pairs), frozenset(items), frozenset(states))
    return Memory(lexicon, tuple(kinds), tuple(objectless), tuple(items), tuple(states), last_t)


@dataclass(frozen=True)
class Event:
    """An event phrase: its pattern and its verb forms with the object filled in."""

    pattern: EventPattern
    base: str  # "open the door"
    past: str  # "opened the door"
    gerund: str  # "opening the door"


def draw_event(d: Draw, mem: Memory, objectless: bool | None = None) -> Event:
    if objectless is None:
        objectless = bool(mem.objectless) and d.integer(0, 3) == 0
    if objectless and mem.objectless:
        kind = d.choice(mem.objectless)
        base, past, gerund = OBJECTLESS[kind]
        return Event(EventPattern(kind, None), base, past, gerund)
    kind, obj = d.choice(sorted(p for p in mem.lexicon.pairs if p[1]))
    base, past, gerund = VERBS[kind]
    noun = d.choice(("the ", "a ", "")) + obj if kind != "visit" else "the " + obj
    noun = noun.replace("a i", "an i")
    return Event(EventPattern(kind, obj), f"{base} {noun}", f"{past} {noun}", f"{gerund} {noun}")


def draw_ordinal(d: Draw, last: bool = True) -> tuple[int, str]:
    """An ordinal (1-based, negative from the end) and its words."""
    roll = d.integer(0, 9)
    if last and roll == 0:
        return -1, d.choice(("last", "final", "very last", "most recent"))
    if last and roll == 1:
        return -2, d.choice(("second to last", "2nd to last", "second-to-last", "penultimate", "next to last"))
    if last and roll == 2:
        return -3, d.choice(("third to last", "3rd to last"))
    n = d.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 19, 20, 21, 22, 23, 30, 35, 42, 50))
    return n, ordinal_word(n) if (n < 20 or n % 10 == 0) and d.coin() else ordinal_digits(n)


def draw_count(d: Draw, lo: int, hi: int) -> tuple[int, str]:
    """A number and its words (digits or English words)."""
    n = d.integer(lo, hi)
    return n, number_word(n) if n < 100 and d.coin() else str(n)


def for_the(words: str) -> str:
    return f"for the {words} time"


# ---------------------------------------------------------------------------------------------- families

Case = tuple[str, Query]


def occurrence_phrase(d: Draw, mem: Memory, subject: str) -> tuple[str, Anchor, Event]:
    """A clause naming an occurrence ("the third time I opened the door", "I opened the door for the 2nd
    time", "I first opened the door"), its anchor and its event."""
    ev = draw_event(d, mem)
    n, words = draw_ordinal(d)
    form = d.integer(0, 2)
    if form == 0:
        text = f"the {words} time {subject} {ev.past}"
    elif form == 1:
        text = f"{subject} {ev.past} {for_the(words)}"
    else:
        n = 1
        text = f"{subject} first {ev.past}" if d.coin() else f"{subject} {ev.past}"
    return text, Occurrence(ev.pattern, n), ev


def step_index(d: Draw, mem: Memory) -> Case:
    subject, poss, _, was = d.choice(SUBJECTS)
    t = d.integer(0, mem.last_t)
    at = d.choice((f"at step {t}", f"at step #{t}", f"at t={t}", f"at timestep {t}", f"on step {t}"))
    slot = d.integer(0, 5)
    if slot == 0:
        return d.choice((f"What did {subject} do {at}?", f"What was {poss} action {at}?",
                         f"Which action did {subject} take {at}?")), Read(StepAt(t), "action")
    if slot == 1:
        return f"Where {was} {subject} {at}?", Read(StepAt(t), "location")
    if slot == 2:
        state = d.choice(mem.states)
        return f"What was {poss} {state} {at}?", Read(StepAt(t), "state", state)
    if slot == 3:
        item = d.choice(mem.items)
        return f"How many {ITEMS[item]} did {subject} have {at}?", Read(StepAt(t), "item", item)
    if slot == 4:
        return d.choice((f"What {was} {subject} carrying {at}?", f"What was in {poss} inventory {at}?")), Read(StepAt(t), "inventory")
    return f"What {was} {subject} facing {at}?", Read(StepAt(t), "facing")


def occurrence(d: Draw, mem: Memory) -> Case:
    subject, _, _, _ = d.choice(SUBJECTS)
    ev = draw_event(d, mem)
    n, words = draw_ordinal(d)
    form = d.integer(0, 7)
    if form == 0:
        q = f"When did {subject} {ev.base} {for_the(words)}?"
    elif form == 1:
        q = f"At which step did {subject} {ev.base} {for_the(words)}?"
    elif form == 2:
        q = f"On what step did {subject} {ev.base} {for_the(words)}?"
    elif form == 3:
        q = f"What step was it when {subject} {ev.past} {for_the(words)}?"
    elif form == 4:
        n = 1
        q = f"When did {subject} first {ev.base}?"
    elif form == 5:
        n = -1
        q = f"When did {subject} last {ev.base}?"
    elif form == 6:
        q = f"When was the {words} time {subject} {ev.past}?"
    else:
        n = 2
        q = f"When did {subject} {ev.base} {d.choice(('again', 'once more', 'once again'))}?"
    return q, Read(Occurrence(ev.pattern, n), "step")


def occurrence_in_window(d: Draw, mem: Memory) -> Case:
    subject, _, _, _ = d.choice(SUBJECTS)
    ev = draw_event(d, mem)
    n, words = draw_ordinal(d, last=False)
    t = d.integer(1, mem.last_t)
    form = d.choice((0, 1, 4, 5, 6))
    if form == 0:
        return f"When did {subject} {ev.base} {for_the(words)} after step {t}?", Read(
            Occurrence(ev.pattern, n, Window(start=StepAt(t), include_start=False)), "step")
    if form == 1:
        return f"When did {subject} {ev.base} {for_the(words)} before step {t}?", Read(
            Occurrence(ev.pattern, n, Window(end=StepAt(t), include_end=False)), "step")
    other = draw_event(d, mem)
    m, other_words = draw_ordinal(d, last=False)
    with_ordinal = d.coin()
    bound_text = f"{subject} {other.past}" + (f" {for_the(other_words)}" if with_ordinal else "")
    bound = Occurrence(other.pattern, m if with_ordinal else 1)
    if form == 4:
        return f"When did {subject} next {ev.base} after {bound_text}?", Read(
            Occurrence(ev.pattern, 1, Window(start=bound, include_start=False)), "step")
    if form == 5:
        return f"When did {subject} last {ev.base} before step {t}?", Read(
            Occurrence(ev.pattern, -1, Window(end=StepAt(t), include_end=False)), "step")
    return f"When did {subject} last {ev.base} before {bound_text}?", Read(
        Occurrence(ev.pattern, -1, Window(end=bound, include_end=False)), "step")


def draw_condition(d: Draw, mem: Memory, subject: str, poss: str, past: bool = False) -> tuple[str, str, Condition]:
    """A clause stating a value condition, as its subject ("my health", "I") and its predicate ("dropped
    below 3"); ``past``: in the past tense (after "when"), else the base form (after "did")."""
    v = d.integer(1, 20)
    form = d.integer(0, 5)
    if form <= 2:
        state = d.choice(mem.states)
        if form == 0:
            verb, cmp = d.choice(((("dropped below", "drop below"), "<"), (("fell below", "fall below"), "<"),
                                  (("went below", "go below"), "<")))
        elif form == 1:
            verb, cmp = d.choice(((("exceeded", "exceed"), ">"), (("rose above", "rise above"), ">"),
                                  (("went above", "go above"), ">")))
        else:
            verb, cmp = d.choice(((("reached", "reach"), ">="), (("hit", "hit"), ">=")))
        return f"{poss} {state}", f"{verb[0] if past else verb[1]} {v}", Condition("state", state, cmp, v)
    item = d.choice(mem.items)
    if form == 3:
        verb = ("reached", "reach") if d.coin() else ("hit", "hit")
        return f"{poss} {item} count", f"{verb[0] if past else verb[1]} {v}", Condition("inventory", item, ">=", v)
    if form == 4:
        return subject, f"{'ran' if past else 'run'} out of {ITEMS[item]}", Condition("inventory", item, "==", 0)
    v = max(v, 2)
    return subject, f"{'had' if past else 'have'} {v} {ITEMS[item]}", Condition("inventory", item, ">=", v)


def value_condition(d: Draw, mem: Memory) -> Case:
    subject, poss, _, _ = d.choice(SUBJECTS)
    form = d.integer(0, 2)
    if form == 0:
        head, predicate, condition = draw_condition(d, mem, subject, poss)
        return f"When did {head} {predicate}?", Read(Reached(condition), "step")
    if form == 1:
        head, predicate, condition = draw_condition(d, mem, subject, poss)
        n, words = draw_ordinal(d, last=False)
        return f"When did {head} {predicate} {for_the(words)}?", Read(Reached(condition, n), "step")
    head, predicate, condition = draw_condition(d, mem, subject, poss, past=True)
    return f"What did {subject} do when {head} {predicate}?", Read(Reached(condition), "action")


def offset(d: Draw, mem: Memory) -> Case:
    subject, poss, _, was = d.choice(SUBJECTS)
    clause, base, _ = occurrence_phrase(d, mem, subject)
    if d.integer(0, 4) == 0:
        t = d.integer(0, mem.last_t)
        clause, base = f"step {t}", StepAt(t)
    form = d.integer(0, 2)
    if form == 0:
        k, words = draw_count(d, 2, 30)
        after = d.coin()
        unit = d.choice(("steps", "moves", "turns", "actions"))
        # "following" and "prior to" take a noun phrase ("the third time I ...", "step 40")
        noun_phrase = clause.startswith(("the ", "step "))
        connective = f"{words} {unit} {d.choice(('after', 'following') if noun_phrase else ('after',)) if after else d.choice(('before', 'prior to') if noun_phrase else ('before',))}"
        steps = k if after else -k
    elif form == 1:
        after = d.coin()
        connective = d.choice(("right after", "just after", "immediately after", "the step after") if after
                              else ("right before", "just before", "immediately before", "the step before"))
        steps = 1 if after else -1
    else:
        after = d.coin()
        connective = f"{d.choice(('one', '1'))} step {'after' if after else 'before'}"
        steps = 1 if after else -1
    slot = d.integer(0, 3)
    anchor = Shifted(base, steps)
    if slot == 0:
        return f"What did {subject} do {connective} {clause}?", Read(anchor, "action")
    if slot == 1:
        return f"Where {was} {subject} {connective} {clause}?", Read(anchor, "location")
    if slot == 2:
        state = d.choice(mem.states)
        return f"What was {poss} {state} {connective} {clause}?", Read(anchor, "state", state)
    item = d.choice(mem.items)
    return f"How many {ITEMS[item]} did {subject} have {connective} {clause}?", Read(anchor, "item", item)


def draw_window(d: Draw, mem: Memory, subject: str, required: bool = False) -> tuple[str, Window | None]:
    """A window phrase and its window (or none, unless ``required``)."""
    form = d.integer(1, 13) if required else d.integer(0, 14)
    t = d.integer(1, mem.last_t)
    if form == 0:
        return "", None
    if form == 10:
        return f" {d.choice(('until', 'up to'))} step {t}", Window(end=StepAt(t))
    if form == 11:
        a = d.integer(0, mem.last_t - 1)
        b = d.integer(a + 1, mem.last_t)
        return f" from step {a} to step {b}", Window(StepAt(a), StepAt(b))
    if form == 12:
        a = d.integer(0, mem.last_t - 1)
        b = d.integer(a + 1, mem.last_t)
        return f" after step {a} and before step {b}", Window(StepAt(a), StepAt(b), False, False)
    if form == 13:
        one, two = draw_event(d, mem), draw_event(d, mem)
        return f" between {one.gerund} and {two.gerund}", Window(Occurrence(one.pattern), Occurrence(two.pattern))
    if form == 14:
        return d.choice((" in total", " altogether", " overall")), None
    if form == 1:
        return f" before step {t}", Window(end=StepAt(t), include_end=False)
    if form == 2:
        return f" by step {t}", Window(end=StepAt(t))
    if form == 3:
        return f" after step {t}", Window(start=StepAt(t), include_start=False)
    if form == 4:
        return f" since step {t}", Window(start=StepAt(t))
    if form == 5:
        n, words = draw_count(d, 2, mem.last_t)
        return f" in the first {words} steps", Window(end=StepAt(n - 1))
    if form == 6:
        n, words = draw_count(d, 2, mem.last_t)
        return f" in the last {words} steps", Window(start=StepAt(max(mem.last_t - n + 1, 0)))
    if form == 7:
        a = d.integer(0, mem.last_t - 1)
        b = d.integer(a + 1, mem.last_t)
        return f" between step {a} and step {b}", Window(StepAt(a), StepAt(b))
    other = draw_event(d, mem)
    m, words = draw_ordinal(d, last=False)
    with_ordinal = d.coin()
    clause = f"{subject} {other.past}" + (f" {for_the(words)}" if with_ordinal else "")
    bound = Occurrence(other.pattern, m if with_ordinal else 1)
    if form == 8:
        return f" after {clause}", Window(start=bound, include_start=False)
    return f" before {clause}", Window(end=bound, include_end=False)


def count(d: Draw, mem: Memory) -> Case:
    subject, _, _, _ = d.choice(SUBJECTS)
    ev = draw_event(d, mem)
    phrase, window = draw_window(d, mem, subject)
    lead = d.choice(("How many times did", "How often did"))
    return f"{lead} {subject} {ev.base}{phrase}?", Count(ev.pattern, window)


def which_first(d: Draw, mem: Memory) -> Case:
    subject, _, _, _ = d.choice(SUBJECTS)
    lead = d.choice(("Which came first", "Which happened first", "What happened first"))
    sep = d.choice((",", ":"))
    form = d.integer(0, 4)
    a, b = draw_event(d, mem), draw_event(d, mem)
    if form == 0:
        return f"{lead}{sep} {a.gerund} or {b.gerund}?", WhichFirst(Occurrence(a.pattern), Occurrence(b.pattern))
    if form == 3:
        return f"Did {subject} {a.base} or {b.base} first?", WhichFirst(Occurrence(a.pattern), Occurrence(b.pattern))
    if form == 4:
        return f"Which did {subject} do first{sep} {a.base} or {b.base}?", WhichFirst(Occurrence(a.pattern), Occurrence(b.pattern))
    n, n_words = draw_ordinal(d)
    m, m_words = draw_ordinal(d)
    if form == 1:
        return (f"{lead}{sep} the {n_words} time {subject} {a.past} or the {m_words} time {subject} {b.past}?",
                WhichFirst(Occurrence(a.pattern, n), Occurrence(b.pattern, m)))
    t = d.integer(0, mem.last_t)
    return f"{lead}{sep} the {n_words} time {subject} {a.past} or step {t}?", WhichFirst(Occurrence(a.pattern, n), StepAt(t))


def distance(d: Draw, mem: Memory) -> Case:
    subject, _, me, _ = d.choice(SUBJECTS)
    a, b = draw_event(d, mem), draw_event(d, mem)
    n, n_words = draw_ordinal(d)
    m, m_words = draw_ordinal(d)
    form = d.integer(0, 4)
    first = Occurrence(a.pattern, n)
    if form == 0:
        return (f"How many steps between the {n_words} time {subject} {a.past} and the {m_words} time {subject} {b.past}?",
                Distance(first, Occurrence(b.pattern, m)))
    if form == 1:
        t = d.integer(0, mem.last_t)
        return f"How many steps passed between step {t} and the {n_words} time {subject} {a.past}?", Distance(StepAt(t), first)
    anchor_text = f"{subject} {a.past} {for_the(n_words)}"
    if form == 2:
        lead = d.choice(("How long", "How many steps", "How many moves"))
        return f"{lead} after {anchor_text} did {subject} {b.base}?", Distance(
            first, Occurrence(b.pattern, 1, Window(start=first, include_start=False)))
    if form == 3:
        lead = d.choice(("How long", "How many steps", "How many moves"))
        return f"{lead} before {anchor_text} did {subject} {b.base}?", Distance(
            first, Occurrence(b.pattern, -1, Window(end=first, include_end=False)))
    return f"How many steps did it take {me} to {b.base} after {anchor_text}?", Distance(
        first, Occurrence(b.pattern, 1, Window(start=first, include_start=False)))


def existence(d: Draw, mem: Memory) -> Case:
    subject, poss, _, _ = d.choice(SUBJECTS)
    phrase, window = draw_window(d, mem, subject)
    if d.integer(0, 2) == 0:
        head, predicate, condition = draw_condition(d, mem, subject, poss)
        return f"Did {head} ever {predicate}{phrase}?", Exists(condition, window)
    ev = draw_event(d, mem)
    q = d.choice((f"Did {subject} ever {ev.base}{phrase}?", f"Did {subject} {ev.base}{phrase}?",
                  f"Did {subject} {ev.base} at all{phrase}?"))
    return q, Exists(ev.pattern, window)


def listing(d: Draw, mem: Memory) -> Case:
    subject, _, _, _ = d.choice(SUBJECTS)
    kind = d.choice(mem.kinds)
    base, _, _ = VERBS[kind]
    phrase, window = draw_window(d, mem, subject, required=True)
    q = d.choice((f"What did {subject} {base}{phrase}?", f"Which things did {subject} {base}{phrase}?",
                  f"What items did {subject} {base}{phrase}?"))
    return q, ListEvents(EventPattern(kind, None), window)


def check(data: st.DataObject, family: Callable[[Draw, Memory], Case]) -> None:
    d = Draw(data)
    mem = draw_memory(d)
    question, expected = family(d, mem)
    note(f"question: {question!r}\nlexicon: {mem.lexicon}\nlast_t: {mem.last_t}")
    assert compile_question(question, mem.lexicon, mem.last_t) == expected, question


# ---------------------------------------------------------------------------------------------- tests


@SETTINGS
@given(st.data())
def test_step_by_index(data: st.DataObject):
    check(data, step_index)


@SETTINGS
@given(st.data())
def test_nth_last_and_nth_to_last_occurrence(data: st.DataObject):
    check(data, occurrence)


@SETTINGS
@given(st.data())
def test_occurrence_in_a_window_next_after_last_before(data: st.DataObject):
    check(data, occurrence_in_window)


@SETTINGS
@given(st.data())
def test_value_conditions(data: st.DataObject):
    check(data, value_condition)


@SETTINGS
@given(st.data())
def test_offsets(data: st.DataObject):
    check(data, offset)


@SETTINGS
@given(st.data())
def test_counts_over_windows(data: st.DataObject):
    check(data, count)


@SETTINGS
@given(st.data())
def test_which_first(data: st.DataObject):
    check(data, which_first)


@SETTINGS
@given(st.data())
def test_distance(data: st.DataObject):
    check(data, distance)


@SETTINGS
@given(st.data())
def test_existence(data: st.DataObject):
    check(data, existence)


@SETTINGS
@given(st.data())
def test_lists(data: st.DataObject):
    check(data, listing)


def test_number_and_ordinal_words():
    assert [number_word(n) for n in (0, 7, 20, 42)] == ["zero", "seven", "twenty", "forty-two"]
    assert [ordinal_word(n) for n in (1, 12, 20, 23)] == ["first", "twelfth", "twentieth", "twenty-third"]
    assert [ordinal_digits(n) for n in (1, 2, 3, 11, 12, 13, 21, 22, 101)] == ["1st", "2nd", "3rd", "11th", "12th", "13th",
                                                                             "21st", "22nd", "101st"]
