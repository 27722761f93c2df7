"""Answering a query from packed evidence alone, in one canonical format per answer type.

The executor reads only the :class:`QueryEvidence` it is given: the packed steps (each with the roles of
the anchors it resolved) and the packed facts. Whenever the decisive step or fact is not in the evidence
it returns ``None`` rather than guessing, so its accuracy measures what the packed evidence supports.

=========== ======================================================= ==========================
answer      format                                                  example
=========== ======================================================= ==========================
action      the step's ``action`` text, verbatim                    ``"collect wood"``
step        the step index ``t`` in decimal                         ``"412"``
location    the region; the position ``"x,y"`` if there is none     ``"forest"``
position    ``"x,y"``                                               ``"32,17"``
item        the item's count after the step; ``"0"`` if absent      ``"3"``
inventory   items with count > 0 by name, ``"name n"``, ", "-joined  ``"sapling 1, wood 3"``
            (``"none"`` when empty)
state       ints in decimal, floats ``%g``, ``"true"``/``"false"``,  ``"7"``
            text verbatim
facing      the object of the relation (agent, facing, X)           ``"tree"``
observation the step's observation text, verbatim                   ``"You see a door."``
events      ``"kind obj"`` per event in step order, "; "-joined      ``"collect wood; gain wood"``
            (``"none"`` for a step without events)
count       matching events (or steps), in decimal                  ``"5"``
yes/no      ``"yes"`` or ``"no"``                                    ``"no"``
which-first the earlier anchor's label (an occurrence's kind obj)   ``"place table"``
duration    steps between the two anchors, in decimal               ``"37"``
list        distinct objects in order of first event, ", "-joined   ``"wood, sapling"``
=========== ======================================================= ==========================

>>> from graphmem.query.algebra import EventPattern, Occurrence, Read
>>> from graphmem.records import Event, Step
>>> step = PackedStep("ep:3", 3, Step(3, "collect wood", events=(Event("collect", "wood"),)), ("anchor",))
>>> answer(Read(Occurrence(EventPattern("collect", "wood")), "step"), QueryEvidence((step,)))
'3'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.query.algebra import (
    Anchor,
    Distance,
    Occurrence,
    Precedes,
    Query,
    Reached,
    Read,
    WhichFirst,
    anchor_label,
)
from graphmem.query.resolve import Fact
from graphmem.records import Scalar, Step


@dataclass(frozen=True)
class PackedStep:
    """A step in the packed evidence, with the roles of the anchors it resolved (``("anchor",)``)."""

    source_id: str
    t: int
    step: Step
    roles: tuple[str, ...] = ()


@dataclass(frozen=True)
class QueryEvidence:
    """What the executor may read: the packed steps and the packed facts."""

    steps: tuple[PackedStep, ...] = ()
    facts: tuple[Fact, ...] = ()

    def marked(self, role: str) -> PackedStep | None:
        return next((s for s in self.steps if role in s.roles), None)

    def fact(self, role: str) -> Fact | None:
        return next((f for f in self.facts if f.role == role), None)


def format_scalar(value: Scalar) -> str:
    """Canonical text of a state value: ``7 -> "7"``, ``7.0 -> "7"``, ``0.25 -> "0.25"``, ``True -> "true"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, "g")
    return str(value)


def format_position(position: tuple[int, int]) -> str:
    return f"{position[0]},{position[1]}"


def format_inventory(step: Step) -> str:
    held = [f"{name} {count}" for name, count in step.inventory if count > 0]
    return ", ".join(held) if held else "none"


def format_events(step: Step) -> str:
    return "; ".join(f"{ev.kind} {ev.obj}".strip() for ev in step.events) if step.events else "none"


_FACING_PREDICATES = frozenset({"facing", "faces", "face", "in front of", "looking at", "looks at"})


def facing_of(step: Step) -> str | None:
    """What the agent faced or acted on: the agent's ``facing`` relation; else any facing relation
    (an agent that records itself by name); else the step's first relation, which by convention is
    what the command acted on (``("Mote", "acts on", "pine desk")``).

    >>> from graphmem.records import Relation
    >>> facing_of(Step(0, "go", relations=[Relation("Tern", "facing", "tree")]))
    'tree'
    """
    own = next((r.obj for r in step.relations if r.subject == "agent" and r.predicate in _FACING_PREDICATES), None)
    if own is not None:
        return own
    faced = next((r.obj for r in step.relations if r.predicate in _FACING_PREDICATES), None)
    if faced is not None:
        return faced
    return step.relations[0].obj if step.relations else None


def event_object(anchor: Anchor, step: Step) -> str | None:
    """The object of the event an occurrence anchor matched at its step ("what did I pick up first": the
    thing picked up), or None when the anchor is no occurrence or the event has no object."""
    if not isinstance(anchor, Occurrence):
        return None
    return next((ev.obj for ev in step.events if anchor.pattern.matches(ev.kind, ev.obj) and ev.obj), None)


def read_slot(step: Step, slot: str, name: str | None = None) -> str | None:
    """The canonical answer for a read slot off one step (``None`` when the step does not hold it).

    >>> read_slot(Step(3, "collect wood", inventory={"wood": 2}), "item", "wood")
    '2'
    """
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        if step.location.region:
            return step.location.region
        return format_position(step.location.position) if step.location.position is not None else None
    if slot == "position":
        return format_position(step.location.position) if step.location.position is not None else None
    if slot == "item":
        return str(step.inventory_dict.get(name, 0)) if name is not None else None
    if slot == "inventory":
        return format_inventory(step)
    if slot == "state":
        return format_scalar(step.state_dict[name]) if name is not None and name in step.state_dict else None
    if slot in ("facing", "object"):
        return facing_of(step)
    if slot == "observation":
        return step.observation or None
    if slot == "events":
        return format_events(step)
    return None


def _label(anchor: Anchor, packed: PackedStep) -> str:
    """What an anchor's step did, as recorded: the first event its pattern matches ("drink water" for a
    pattern of any drink); for a change in what was carried, the event at that step about the item
    ("unpack flower pot" for the step the flower pot was no longer carried); else the anchor's label."""
    if isinstance(anchor, Occurrence):
        for ev in packed.step.events:
            if anchor.pattern.matches(ev.kind, ev.obj):
                return f"{ev.kind} {ev.obj}".strip()
    if isinstance(anchor, Reached) and anchor.condition.source == "inventory":
        for ev in packed.step.events:
            if ev.obj == anchor.condition.name:
                return f"{ev.kind} {ev.obj}".strip()
    return anchor_label(anchor)


_OFFERED = re.compile(r"""(?:^|[\s(:])['"\u2018\u201c]([^'"\u2019\u201d]{1,80})['"\u2019\u201d]\s*,?\s*or\s+['"\u2018\u201c]([^'"\u2019\u201d]{1,80})['"\u2019\u201d]""")


def offered_options(question: str) -> tuple[str, str] | None:
    """The two answers a question offers in quotes ("Answer 'slay' or 'quarry stone'."), or None.

    >>> offered_options("Which came first? Reply 'craft stone_pickaxe' or 'craft wood_sword'.")
    ('craft stone_pickaxe', 'craft wood_sword')
    """
    m = _OFFERED.search(question)
    return (m.group(1).strip(), m.group(2).strip()) if m else None


def _overlap(option: str, label: str) -> int:
    said = set(re.findall(r"[a-z0-9]+", option.lower().replace("_", " ")))
    return len(said & set(re.findall(r"[a-z0-9]+", label.lower().replace("_", " "))))


def _offered(first: str, second: str, options: tuple[str, str], first_earlier: bool) -> str:
    """Of the offered options, the one that names the earlier anchor: by the words each shares with the
    anchors' labels, else in the order the anchors were asked."""
    said = [o.strip().lower() for o in options]
    if set(said) in ({"before", "after"}, {"earlier", "later"}, {"yes", "no"}):
        # "was A before or after B? Answer 'before' or 'after'": where the first anchor stands
        word = {"before": "after", "earlier": "later", "yes": "no"}
        yes = next(o for o in said if o in word)
        return options[said.index(yes)] if first_earlier else options[said.index(word[yes])]
    kept = _overlap(options[0], first) + _overlap(options[1], second)
    swapped = _overlap(options[0], second) + _overlap(options[1], first)
    in_order = kept >= swapped
    return options[0 if first_earlier == in_order else 1]


def answer(query: Query, evidence: QueryEvidence, options: tuple[str, str] | None = None) -> str | None:
    """The canonical answer that the evidence proves, or ``None``; a which-first answer is one of
    ``options`` when the question offered two (see :func:`offered_options`)."""
    if isinstance(query, Read):
        target = evidence.marked("anchor")
        if target is not None and query.slot == "object":
            done = event_object(query.anchor, target.step)
            if done is not None:
                return done
        return None if target is None else read_slot(target.step, query.slot, query.name)
    if isinstance(query, (WhichFirst, Precedes, Distance)):
        a, b = evidence.marked("a"), evidence.marked("b")
        if a is None or b is None:
            return None
        if isinstance(query, Distance):
            return str(abs(b.t - a.t))
        if isinstance(query, Precedes):
            return None if a.t == b.t else "yes" if a.t < b.t else "no"
        if a.t == b.t:
            return "same step"
        if options is not None:
            return _offered(_label(query.a, a), _label(query.b, b), options, a.t < b.t)
        return _label(query.a, a) if a.t < b.t else _label(query.b, b)
    for role in ("count", "exists", "list"):
        fact = evidence.fact(role)
        if fact is not None:
            return fact.value
    return None


_ARTICLES = re.compile(r"^(?:the|a|an)\s+")
_STEP_PREFIX = re.compile(r"^(?:at\s+)?(?:time\s*step|timestep|step|t\s*=|t)\s*#?\s*(?=\d)")


def normalize_answer(answer: str | None) -> str:
    """Comparable form of an answer: lower case, single spaces, no surrounding punctuation or leading
    article, "step 412"/"t=412" -> "412", "(3, 4)" -> "3,4", "7.0" -> "7", "wood_pickaxe" -> "wood pickaxe",
    "empty" -> "none".

    >>> normalize_answer(" Step 412. ") == normalize_answer("412")
    True
    """
    if answer is None:
        return ""
    s = str(answer).strip().lower().replace("_", " ")
    s = re.sub(r"\s+", " ", s)
    s = s.strip(" \t\n\"'`.!?;:")
    s = _ARTICLES.sub("", s)
    s = _STEP_PREFIX.sub("", s)
    pos = re.fullmatch(r"\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?", s)
    if pos:
        return f"{pos.group(1)},{pos.group(2)}"
    if re.fullmatch(r"(?:empty|nothing|none|nothing at all|empty inventory|empty-handed|no items)", s):
        return "none"  # an empty inventory or no events, in any of the words for it
    num = re.fullmatch(r"-?\d+\.0+", s)
    if num:
        return s.split(".")[0]
    return s


def answers_match(predicted: str | None, gold: str, as_set: bool = False) -> bool:
    """Whether two answers agree after ``normalize_answer``; ``as_set`` compares ", "-separated lists
    as sets (list answers).

    >>> answers_match("Wood, sapling", "sapling, wood", as_set=True)
    True
    """
    if predicted is None:
        return False
    if as_set:
        return {normalize_answer(p) for p in predicted.split(",")} == {normalize_answer(g) for g in gold.split(",")}
    return normalize_answer(predicted) == normalize_answer(gold)
