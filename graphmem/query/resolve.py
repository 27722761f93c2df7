"""Resolving a query against the store: every anchor to a step, every count and list to a fact.

Each anchor becomes one index read (``find_event``, ``find_change``) once the anchors it depends on (a
window's ends, a shifted anchor's base) are resolved. The result, a :class:`Resolution`, names the steps
that decide the answer (``marks``, each with a short note the evidence line shows), the steps that support
it (the chain between an anchor and a shifted target, the last counted event), and the facts that a count,
list or existence question is answered by. Recall packs them first; the executor reads them back from the
packed evidence only.

>>> from graphmem.query.algebra import EventPattern, Occurrence
>>> ordinal_word(1), ordinal_word(-1), ordinal_word(-2), ordinal_word(22)
('1st', 'last', '2nd to last', '22nd')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from graphmem.query.algebra import (
    Anchor,
    Condition,
    Count,
    CountSteps,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Precedes,
    Query,
    Reached,
    Read,
    Shifted,
    StepAt,
    StepIs,
    WhichFirst,
    Window,
)
from graphmem.store.protocol import GraphStore

#: A shifted anchor this close to its base packs every step between them (the chain that explains the
#: target); longer shifts pack only the two ends.
CHAIN_SPAN = 3
#: A list question reads at most this many matching events (one index read each).
LIST_LIMIT = 12
#: A count of at most this many events shows each counted step (the count is proven line by line);
#: a larger one shows the last, as more lines would crowd out the budget.
COUNT_SHOWN = 5


def ordinal_word(n: int) -> str:
    if n == -1:
        return "last"
    if n < -1:
        return f"{ordinal_word(-n)} to last"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class Mark:
    """A resolved anchor: its role in the query (``"anchor"``, ``"a"``, ``"b"``, ``"a.base"``, ...), its step
    and a note for the evidence line (``"1st collect wood"``)."""

    role: str
    t: int
    note: str


@dataclass(frozen=True)
class Fact:
    """A derived answer line (a count, a list, an existence): ``value`` is what the line proves."""

    role: str
    value: str
    line: str


@dataclass(frozen=True)
class Resolution:
    marks: tuple[Mark, ...] = ()
    facts: tuple[Fact, ...] = ()
    support: tuple[int, ...] = ()
    #: Whether every anchor the answer needs named a step (False: recall falls back to content search).
    complete: bool = True
    #: Event patterns and conditions the query mentions (the lines show them).
    patterns: tuple[EventPattern, ...] = ()
    conditions: tuple[Condition, ...] = field(default=())

    @property
    def decisive(self) -> tuple[int, ...]:
        """Steps to pack first: the marks in query order, then the support."""
        return tuple(dict.fromkeys([m.t for m in self.marks] + list(self.support)))


class _Resolver:
    def __init__(self, store: GraphStore, namespace: str, episode: str, last_t: int) -> None:
        self.store = store
        self.ns = namespace
        self.ep = episode
        self.last_t = last_t
        self.marks: list[Mark] = []
        self.support: list[int] = []
        #: window bounds given as step numbers: shown last, only where the budget has room
        self.bounds: list[int] = []
        self.complete = True
        self.patterns: list[EventPattern] = []
        self.conditions: list[Condition] = []

    def window(self, window: Window | None, role: str) -> tuple[int, int, str] | None:
        """(lo, hi, text) of a window, or None when one of its anchors names nothing."""
        if window is None:
            return 0, self.last_t, ""
        lo, hi, parts = 0, self.last_t, []
        # A step bound past the end of the episode bounds nothing more than its end does.
        if isinstance(window.end, StepAt) and window.end.t > self.last_t:
            window = Window(window.start, None, window.include_start, True)
        if isinstance(window.start, StepAt) and window.start.t > self.last_t:
            return self.last_t + 1, self.last_t, f"after [{self.last_t}]"
        # A bound given as a step number is the question's own: it needs no step packed to show it. A
        # span named by a state's value ("in game 3") is the question's too: its ends are shown last.
        span = window.held() is not None
        if window.start is not None:
            t = self._bound(window.start) if isinstance(window.start, StepAt) else self.anchor(window.start, f"{role}.start", span)
            if t is None:
                return None
            lo = t if window.include_start else t + 1
            parts.append(f"from [{t}]" if window.include_start else f"after [{t}]")
        if window.end is not None:
            t = self._bound(window.end) if isinstance(window.end, StepAt) else self.anchor(window.end, f"{role}.end", span)
            if t is None:
                return None
            hi = t if window.include_end else t - 1
            parts.append(f"to [{t}]" if window.include_end else f"before [{t}]")
        return lo, hi, " ".join(parts)

    def _bound(self, bound: StepAt) -> int:
        self.bounds.append(bound.t)
        return bound.t

    def anchor(self, anchor: Anchor, role: str, shown_last: bool = False) -> int | None:
        """The step an anchor names (None: it names none); ``shown_last``: its steps go with the bounds."""
        marked, supported = len(self.marks), len(self.support)
        t = self._anchor(anchor, role)
        if t is None:
            self.complete = False
        if shown_last:
            self.bounds += [m.t for m in self.marks[marked:]] + self.support[supported:]
            del self.marks[marked:], self.support[supported:]
        return t

    def _anchor(self, anchor: Anchor, role: str) -> int | None:
        if isinstance(anchor, StepAt):
            if not 0 <= anchor.t <= self.last_t:
                return None
            self.marks.append(Mark(role, anchor.t, ""))
            return anchor.t
        if isinstance(anchor, Shifted):
            base = self.anchor(anchor.anchor, f"{role}.base")
            if base is None:
                return None
            t = base + anchor.steps
            if not 0 <= t <= self.last_t:
                return None
            if 0 < abs(anchor.steps) <= CHAIN_SPAN:
                lo, hi = sorted((base, t))
                self.support.extend(range(lo + 1, hi))
            direction = "after" if anchor.steps > 0 else "before"
            self.marks.append(Mark(role, t, f"{abs(anchor.steps)} {'step' if abs(anchor.steps) == 1 else 'steps'} {direction} [{base}]"))
            return t
        bounds = self.window(anchor.window, f"{role}.window")
        if bounds is None:
            return None
        lo, hi, where = bounds
        if lo > hi:
            return None
        if isinstance(anchor, Occurrence):
            p = anchor.pattern
            self.patterns.append(p)
            row = self.store.find_event(self.ns, self.ep, p.kind, p.obj, anchor.ordinal, lo, hi)
            if row is None:
                return None
            note = f"{ordinal_word(anchor.ordinal)} {p.label()}" + (f" {where}" if where else "")
            self.marks.append(Mark(role, row.t, note))
            return row.t
        assert isinstance(anchor, Reached)
        c = anchor.condition
        self.conditions.append(c)
        change = self.store.find_change(self.ns, self.ep, c.source, c.name, c.cmp, c.value, anchor.ordinal, lo, hi)
        if change is None:
            return None
        t = change.t
        if anchor.at == "end":
            # The run that starts at ``t`` lasts until the step before its condition stops holding.
            n = c.negated()
            stop = self.store.find_change(self.ns, self.ep, n.source, n.name, n.cmp, n.value, 1, t + 1, hi)
            t = stop.t - 1 if stop is not None else hi
            self.support.append(change.t)
            if stop is not None:
                self.support.append(stop.t)
            note = f"{c.label()} from [{change.t}] to here"
        else:
            note = f"{ordinal_word(anchor.ordinal)} time {c.label()}" + (f" {where}" if where else "")
        self.marks.append(Mark(role, t, note))
        return t


#: Other readings of a question tried when its own names a step the memory does not hold.
MAX_READINGS = 8


def _occurrences(node: object) -> list[Occurrence]:
    """Every occurrence anchor inside a query node, outermost first."""
    found: list[Occurrence] = []
    if isinstance(node, Occurrence):
        found.append(node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            found += _occurrences(getattr(node, f.name))
    return found


def _replaced(node: Any, old: Occurrence, new: Occurrence) -> Any:
    if node is old:
        return new
    if dataclasses.is_dataclass(node) and not isinstance(node, type) and not isinstance(node, (EventPattern, Condition)):
        changes = {f.name: _replaced(getattr(node, f.name), old, new) for f in dataclasses.fields(node)}
        return dataclasses.replace(node, **changes)
    return node


def readings(query: Query, pairs: frozenset[tuple[str, str]]) -> list[Query]:
    """Other readings of a query, each with one occurrence's kind swapped for another kind the memory
    holds with the same object ("stowed the key": placed it, or put it, or used it). Recall tries them,
    in order, only when the query's own reading names a step the memory does not hold, so the memory's
    content settles what the words could not.

    >>> q = Read(Occurrence(EventPattern("use", "key"), 7), "step")
    >>> [r.anchor.pattern.kind for r in readings(q, frozenset({("use", "key"), ("place", "key")}))]
    ['place']
    """
    out: list[Query] = []
    for occ in _occurrences(query):
        kind, obj = occ.pattern.kind, occ.pattern.obj
        if not obj or kind is None:
            continue
        alternatives = [(k, obj) for k in sorted({k for k, o in pairs if o == obj and k != kind})]
        # An object that says a whole event ("unlock place table") also names the event about its last
        # word's object: the tables built, whose first one the unlocking marked.
        head = obj.split()[-1] if len(obj.split()) > 1 else None
        alternatives += sorted((k, o) for k, o in pairs if head and o != obj and o.split() and o.split()[-1] == head
                               and set(o.split()) <= set(obj.split()))
        for other_kind, other_obj in alternatives:
            out.append(_replaced(query, occ, dataclasses.replace(occ, pattern=EventPattern(other_kind, other_obj))))
            if len(out) >= MAX_READINGS:
                return out
    return out


def _span_text(where: str) -> str:
    return f" {where}" if where else " in all"


def resolve(store: GraphStore, namespace: str, episode: str, last_t: int, query: Query) -> Resolution:
    """Resolve every anchor of ``query`` in one episode (whose last step is ``last_t``)."""
    r = _Resolver(store, namespace, episode, last_t)
    facts: list[Fact] = []
    if isinstance(query, Read):
        r.anchor(query.anchor, "anchor")
    elif isinstance(query, (WhichFirst, Precedes, Distance)):
        r.anchor(query.a, "a")
        r.anchor(query.b, "b")
    else:
        bounds = r.window(query.window, "window")
        if bounds is None:
            r.complete = False
        else:
            lo, hi, where = bounds
            facts.append(_window_fact(r, query, lo, hi, where))
    support = [*r.support, *(t for t in r.bounds if 0 <= t <= last_t)]
    return Resolution(tuple(r.marks), tuple(facts), tuple(support), r.complete, tuple(r.patterns), tuple(r.conditions))


def _steps_fact(r: _Resolver, query: CountSteps, lo: int, hi: int, where: str) -> Fact:
    """How many steps of the window match, shown step by step when few do (else the last)."""
    what = query.what
    shown: tuple[int, ...] = ()
    if lo > hi:
        n = 0
    elif isinstance(what, StepIs):
        tally = r.store.count_steps(r.ns, r.ep, what.field, what.value, lo, hi, COUNT_SHOWN)
        n, shown = tally.total, tally.shown
    else:
        r.conditions.append(what)
        c = what
        tally = r.store.count_held(r.ns, r.ep, c.source, c.name, c.cmp, c.value, lo, hi, COUNT_SHOWN)
        n, shown = tally.total, tally.shown
    r.support.extend(shown if n <= COUNT_SHOWN else shown[-1:])
    return Fact("count", str(n), f"steps with {what.label()}{_span_text(where)}: {n} {'step' if n == 1 else 'steps'}")


def _window_fact(r: _Resolver, query: Count | CountSteps | Exists | ListEvents, lo: int, hi: int, where: str) -> Fact:
    """The fact that answers a window question, and the steps that show it."""
    if isinstance(query, CountSteps):
        return _steps_fact(r, query, lo, hi, where)
    store, ns, ep = r.store, r.ns, r.ep
    empty = lo > hi
    if isinstance(query, Exists) and isinstance(query.what, Condition):
        c = query.what
        r.conditions.append(c)
        change = None if empty else store.find_change(ns, ep, c.source, c.name, c.cmp, c.value, 1, lo, hi)
        if change is not None:
            r.marks.append(Mark("found", change.t, f"1st time {c.label()}" + (f" {where}" if where else "")))
            return Fact("exists", "yes", f"{c.label()}{_span_text(where)}: yes, 1st at [{change.t}]")
        return Fact("exists", "no", f"{c.label()}{_span_text(where)}: never")
    p = query.pattern if isinstance(query, (Count, ListEvents)) else query.what
    assert isinstance(p, EventPattern)
    r.patterns.append(p)
    if isinstance(query, Exists):
        row = None if empty else store.find_event(ns, ep, p.kind, p.obj, 1, lo, hi)
        if row is not None:
            r.marks.append(Mark("found", row.t, f"1st {p.label()}" + (f" {where}" if where else "")))
            return Fact("exists", "yes", f"{p.label()}{_span_text(where)}: yes, 1st at [{row.t}]")
        # A "no" shows the nearest time it did happen outside the window ("did A before B": A came after)
        later = store.find_event(ns, ep, p.kind, p.obj, 1, hi + 1, r.last_t) if hi < r.last_t else None
        earlier = store.find_event(ns, ep, p.kind, p.obj, -1, 0, lo - 1) if later is None and lo > 0 else None
        outside = later or earlier
        if outside is not None:
            r.support.append(outside.t)
            side = "after" if outside is later else "before"
            return Fact("exists", "no", f"{p.label()}{_span_text(where)}: never (nearest {side} it at [{outside.t}])")
        return Fact("exists", "no", f"{p.label()}{_span_text(where)}: never")
    n = 0 if empty else store.count_events(ns, ep, p.kind, p.obj, lo, hi)
    if isinstance(query, Count):
        if n:
            last = store.find_event(ns, ep, p.kind, p.obj, -1, lo, hi)
            if last is not None:
                r.support.append(last.t)
            for ordinal in range(1, n if n <= COUNT_SHOWN else 1):
                row = store.find_event(ns, ep, p.kind, p.obj, ordinal, lo, hi)
                if row is not None:
                    r.support.append(row.t)
        return Fact("count", str(n), f"{p.label()}{_span_text(where)}: {n} {'time' if n == 1 else 'times'}")
    objects: list[str] = []
    listed_ts: list[int] = []
    for ordinal in range(1, min(n, LIST_LIMIT) + 1):
        row = store.find_event(ns, ep, p.kind, p.obj, ordinal, lo, hi)
        if row is None:
            break
        listed_ts.append(row.t)
        if row.obj and row.obj not in objects:
            objects.append(row.obj)
    if n > COUNT_SHOWN:
        # the last listed event, first: it shows the list reaches the window's end
        last = store.find_event(ns, ep, p.kind, p.obj, -1, lo, hi) if n > LIST_LIMIT else None
        end_t = last.t if last is not None else (listed_ts[-1] if listed_ts else None)
        if end_t is not None:
            r.support.append(end_t)
    r.support.extend(listed_ts)
    listed = ", ".join(objects) if objects else "none"
    more = f" (first {LIST_LIMIT} of {n} events)" if n > LIST_LIMIT else ""
    return Fact("list", listed, f"{p.label()}{_span_text(where)}: {listed}{more}")
