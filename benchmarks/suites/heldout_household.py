"""Held-out suite: an ALFWorld-style household agent doing chores in a simulated flat, and questions.

The flat has six rooms (kitchen, breakfast nook, den, home office, washroom, bedroom) with
ALFWorld receptacles (``countertop 1``, ``fridge 1``, ``sinkbasin 1``, ``drawer 3`` ...) and objects
(``mug 2``, ``apple 1``). Each episode is a run of chores ("put a clean mug in coffeemachine 1",
"put a hot potato in fridge 1", "look at cd 1 under the desklamp 1", "put two pencils in drawer 4",
"put a sliced tomato on diningtable 1"), done by a scripted agent that does not know where things
are: it searches likely places, opens and sometimes closes containers, fumbles now and then
("Nothing happens."), and uses the text actions of ALFWorld (go to / open / close / take from /
put in/on / clean with / heat with / cool with / slice with / use / examine / look / inventory).

Records use this suite's own words: events ``head to``, ``step into``, ``open up``, ``shut``,
``pick up``, ``set down``, ``rinse``, ``warm up``, ``chill``, ``cut up``, ``switch on``, ``inspect``,
``nothing happens``, ``start task``, ``finish task``; state ``objective``, ``phase``, ``carrying``,
``tasks done``, ``open containers``, ``lamp on``; regions are the rooms. Seeds 7100-7199.

>>> data = build(7100)  # doctest: +SKIP
>>> sorted(data)  # doctest: +SKIP
['episodes', 'questions']
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.suites._heldout_core import (
    Builder,
    Lexicon,
    Match,
    self_check,
    subjects,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "heldout_household"
SEEDS = range(7100, 7200)

# name: (room, floor-plan position, openable, "in" or "on")
RECEPTACLES: dict[str, tuple[str, tuple[int, int], bool, str]] = {
    "countertop 1": ("kitchen", (1, 1), False, "on"), "countertop 2": ("kitchen", (3, 1), False, "on"),
    "cabinet 1": ("kitchen", (1, 2), True, "in"), "cabinet 2": ("kitchen", (2, 2), True, "in"),
    "cabinet 3": ("kitchen", (3, 2), True, "in"), "cabinet 4": ("kitchen", (4, 2), True, "in"),
    "drawer 1": ("kitchen", (1, 3), True, "in"), "drawer 2": ("kitchen", (2, 3), True, "in"),
    "drawer 3": ("kitchen", (3, 3), True, "in"), "fridge 1": ("kitchen", (5, 1), True, "in"),
    "microwave 1": ("kitchen", (4, 1), True, "in"), "sinkbasin 1": ("kitchen", (2, 1), False, "in"),
    "stoveburner 1": ("kitchen", (5, 2), False, "on"), "stoveburner 2": ("kitchen", (5, 3), False, "on"),
    "coffeemachine 1": ("kitchen", (0, 1), False, "in"), "toaster 1": ("kitchen", (0, 2), False, "in"),
    "garbagecan 1": ("kitchen", (0, 3), False, "in"),
    "diningtable 1": ("breakfast nook", (7, 2), False, "on"), "shelf 1": ("breakfast nook", (8, 1), False, "on"),
    "sidetable 1": ("breakfast nook", (8, 3), False, "on"),
    "sofa 1": ("den", (11, 2), False, "on"), "armchair 1": ("den", (12, 1), False, "on"),
    "coffeetable 1": ("den", (11, 3), False, "on"), "tvstand 1": ("den", (13, 2), False, "on"),
    "shelf 2": ("den", (13, 4), False, "on"),
    "desk 1": ("home office", (11, 7), False, "on"), "drawer 4": ("home office", (12, 7), True, "in"),
    "shelf 3": ("home office", (13, 8), False, "on"), "safe 1": ("home office", (13, 6), True, "in"),
    "sinkbasin 2": ("washroom", (1, 7), False, "in"), "bathtubbasin 1": ("washroom", (2, 8), False, "in"),
    "toilet 1": ("washroom", (0, 8), False, "on"), "towelholder 1": ("washroom", (0, 6), False, "on"),
    "countertop 3": ("washroom", (2, 6), False, "on"), "cabinet 5": ("washroom", (3, 7), True, "in"),
    "garbagecan 2": ("washroom", (3, 8), False, "in"),
    "bed 1": ("bedroom", (6, 8), False, "on"), "dresser 1": ("bedroom", (8, 7), False, "on"),
    "drawer 5": ("bedroom", (8, 8), True, "in"), "sidetable 2": ("bedroom", (6, 6), False, "on"),
    "laundryhamper 1": ("bedroom", (5, 8), False, "in"),
}
ROOMS = ["kitchen", "breakfast nook", "den", "home office", "washroom", "bedroom"]
LAMPS = {"desklamp 1": "desk 1", "desklamp 2": "sidetable 2", "floorlamp 1": "armchair 1"}

_K = ["countertop 1", "countertop 2"]
# Where each kind of object lives (its starting places and the places chores send it to).
HOMES: dict[str, list[str]] = {
    "mug": ["coffeemachine 1", "cabinet 1", "shelf 1", "diningtable 1", *_K, "sinkbasin 1"],
    "cup": ["cabinet 2", "shelf 1", "diningtable 1", "countertop 1", "microwave 1"],
    "apple": ["fridge 1", "diningtable 1", "garbagecan 1", *_K, "microwave 1"],
    "tomato": ["fridge 1", "diningtable 1", "countertop 1", "sinkbasin 1"],
    "potato": ["fridge 1", "diningtable 1", "garbagecan 1", "countertop 2", "cabinet 3"],
    "egg": ["fridge 1", "countertop 1", "diningtable 1", "garbagecan 1"],
    "lettuce": ["fridge 1", "diningtable 1", "countertop 2"],
    "bread": ["diningtable 1", "countertop 1", "fridge 1", "cabinet 4"],
    "knife": ["drawer 1", "countertop 2", "diningtable 1"], "butterknife": ["drawer 2", "countertop 1"],
    "plate": ["cabinet 3", "diningtable 1", "shelf 1", "countertop 1"],
    "bowl": ["cabinet 4", "shelf 1", "diningtable 1", "fridge 1"],
    "pan": ["stoveburner 1", "stoveburner 2", "countertop 1", "cabinet 1"], "pot": ["stoveburner 2", "countertop 2", "cabinet 2"],
    "spatula": ["drawer 2", "countertop 1", "diningtable 1"], "spoon": ["drawer 3", "countertop 2", "diningtable 1"],
    "dishsponge": ["sinkbasin 1", "countertop 1", "cabinet 2"],
    "soapbar": ["cabinet 5", "countertop 3", "toilet 1", "sinkbasin 2"], "cloth": ["cabinet 5", "countertop 3", "bathtubbasin 1", "laundryhamper 1"],
    "towel": ["towelholder 1", "countertop 3", "bathtubbasin 1"], "toiletpaper": ["toilet 1", "cabinet 5", "countertop 3"],
    "spraybottle": ["cabinet 5", "toilet 1", "countertop 3"], "candle": ["countertop 3", "cabinet 5", "shelf 2"],
    "book": ["desk 1", "shelf 3", "bed 1", "sofa 1", "sidetable 2"], "pen": ["desk 1", "drawer 4", "shelf 3"],
    "pencil": ["desk 1", "drawer 4", "shelf 3", "sidetable 2"], "cellphone": ["desk 1", "bed 1", "sofa 1", "dresser 1"],
    "keychain": ["dresser 1", "safe 1", "sidetable 1", "drawer 5"], "creditcard": ["desk 1", "safe 1", "dresser 1", "drawer 4"],
    "remotecontrol": ["sofa 1", "coffeetable 1", "tvstand 1", "armchair 1"], "newspaper": ["sofa 1", "coffeetable 1", "sidetable 1"],
    "pillow": ["sofa 1", "armchair 1", "bed 1"], "laptop": ["desk 1", "bed 1", "sofa 1"],
    "cd": ["shelf 3", "safe 1", "desk 1", "drawer 4"], "alarmclock": ["desk 1", "sidetable 2", "dresser 1"],
    "vase": ["shelf 1", "shelf 2", "coffeetable 1", "sidetable 1"], "statue": ["shelf 2", "coffeetable 1", "tvstand 1", "dresser 1"],
    "watch": ["dresser 1", "safe 1", "sidetable 2", "drawer 5"],
}
CLEANABLE = {"mug", "cup", "plate", "bowl", "pan", "pot", "apple", "tomato", "potato", "lettuce", "spatula", "spoon",
             "knife", "butterknife", "cloth"}
HEATABLE = {"mug", "cup", "apple", "potato", "tomato", "egg", "bread", "plate"}
COOLABLE = {"mug", "cup", "apple", "potato", "tomato", "egg", "lettuce", "bread", "bowl", "plate", "pan", "pot"}
SLICEABLE = {"apple", "tomato", "potato", "lettuce", "bread"}
LOOKABLE = {"book", "cd", "cellphone", "pen", "pencil", "keychain", "creditcard", "alarmclock", "statue", "vase", "watch",
            "remotecontrol", "newspaper"}


@dataclass
class Task:
    kind: str  # pick, clean, heat, cool, slice, two, look
    otype: str
    dest: str  # a receptacle, or a lamp for "look"

    @property
    def text(self) -> str:
        prep = RECEPTACLES[self.dest][3] if self.dest in RECEPTACLES else ""
        if self.kind == "look":
            return f"look at {self.otype} under the {self.dest}"
        if self.kind == "two":
            plural = self.otype + ("es" if self.otype.endswith(("ch", "sh", "s")) else "s")
            return f"put two {plural} {prep} {self.dest}"
        adjective = {"pick": "", "clean": "clean ", "heat": "hot ", "cool": "cool ", "slice": "sliced "}[self.kind]
        article = "an" if (adjective or self.otype)[0] in "aeiou" else "a"
        return f"put {article} {adjective}{self.otype} {prep} {self.dest}"


@dataclass
class Flat:
    """The simulated household: where everything is, what is open, what the agent holds."""

    rng: random.Random
    place: dict[str, str] = field(default_factory=dict)  # object -> receptacle ("" while held)
    props: dict[str, set[str]] = field(default_factory=dict)
    opened: dict[str, bool] = field(default_factory=dict)
    lamps_on: set[str] = field(default_factory=set)
    held: str = ""
    at: str = ""

    def populate(self) -> None:
        for otype, homes in HOMES.items():
            for i in range(1, self.rng.choice([1, 1, 2, 2, 3]) + 1):
                obj = f"{otype} {i}"
                self.place[obj] = self.rng.choice(homes)
                self.props[obj] = set() if otype not in CLEANABLE or self.rng.random() < 0.3 else {"dirty"}
        self.opened = {r: False for r, info in RECEPTACLES.items() if info[2]}

    def contents(self, recep: str) -> list[str]:
        return sorted((o for o, r in self.place.items() if r == recep), key=lambda o: (o.split()[0], int(o.split()[1])))

    def visible(self, recep: str) -> bool:
        return not RECEPTACLES[recep][2] or self.opened[recep]

    def room(self) -> str:
        if self.at in RECEPTACLES:
            return RECEPTACLES[self.at][0]
        return "hallway"  # where every episode starts, by the front door

    def describe(self, recep: str) -> str:
        if not self.visible(recep):
            return f"The {recep} is closed."
        things = self.contents(recep)
        lamp = [lamp for lamp, spot in LAMPS.items() if spot == recep]
        things += lamp
        if not things:
            return f"On the {recep}, you see nothing."
        return f"On the {recep}, you see " + ", ".join(f"a {t}" for t in things) + "."


class Housekeeper:
    """A scripted chore agent: searches likely receptacles for what a chore needs, then does it."""

    def __init__(self, flat: Flat, rng: random.Random) -> None:
        self.flat = flat
        self.rng = rng
        self.seen: dict[str, str] = {}  # object -> receptacle where the agent last saw it
        self.phase = "searching"

    def remember(self, recep: str) -> None:
        if self.flat.visible(recep):
            for obj, where in list(self.seen.items()):
                if where == recep and self.flat.place.get(obj) != recep:
                    del self.seen[obj]
            for obj in self.flat.contents(recep):
                self.seen[obj] = recep

    def goto(self, recep: str) -> Iterator[str]:
        if self.flat.at != recep:
            yield f"go to {recep}"

    def forget(self) -> None:
        """Between chores the agent's picture of the flat fades (it is no perfect planner)."""
        for obj in sorted(self.seen):
            if self.rng.random() < 0.8:
                del self.seen[obj]

    def fetch(self, otype: str, avoid: set[str]) -> Iterator[str]:
        """Find an object of ``otype`` (not in ``avoid``) and pick it up."""
        self.phase = "searching"
        # The agent half-knows where things live: each usual place is tried early with even odds,
        # then the flat room by room.
        rooms = ROOMS[:]
        self.rng.shuffle(rooms)
        order = []
        for room in rooms:
            here = [r for r, info in RECEPTACLES.items() if info[0] == room]
            self.rng.shuffle(here)
            order += here
        early = [r for r in order if r in HOMES[otype] and self.rng.random() < 0.5]
        order = early + [r for r in order if r not in early]
        for recep in order:
            known = [o for o, r in self.seen.items() if o.split()[0] == otype and o not in avoid and self.flat.place.get(o) == r]
            if known:
                recep = self.seen[known[0]]
            yield from self.goto(recep)
            if not self.flat.visible(recep):
                yield f"open {recep}"
            if self.rng.random() < 0.12:
                yield self.rng.choice(["look", "inventory", f"examine {recep}", f"examine {recep}"])
            found = [o for o in self.flat.contents(recep) if o.split()[0] == otype and o not in avoid]
            if found:
                if self.rng.random() < 0.07:
                    # A fumble: the wrong instance number.
                    yield f"take {otype} {int(found[0].split()[1]) + 3} from {recep}"
                yield f"take {found[0]} from {recep}"
                if RECEPTACLES[recep][2] and self.rng.random() < 0.4:
                    yield f"close {recep}"
                return
            if RECEPTACLES[recep][2] and self.rng.random() < 0.5:
                yield f"close {recep}"

    def put(self, dest: str) -> Iterator[str]:
        self.phase = "delivering"
        if self.rng.random() < 0.25:
            # Heads for the wrong piece of furniture in the right room first.
            near = [r for r, info in RECEPTACLES.items() if info[0] == RECEPTACLES[dest][0] and r not in (dest, self.flat.at)]
            if near:
                yield from self.goto(self.rng.choice(near))
        yield from self.goto(dest)
        if RECEPTACLES[dest][2] and not self.flat.opened[dest]:
            if self.rng.random() < 0.3:
                yield f"put {self.flat.held} in/on {dest}"  # forgets it is closed: nothing happens
            yield f"open {dest}"
        yield f"put {self.flat.held} in/on {dest}"

    def run(self, task: Task) -> Iterator[str]:
        t, rng = task, self.rng
        self.forget()
        if t.kind == "look":
            yield from self.fetch(t.otype, set())
            if not self.flat.held:
                return
            self.phase = "preparing"
            yield from self.goto(LAMPS[t.dest])
            if rng.random() < 0.3:
                yield f"examine {self.flat.held}"
            yield f"use {t.dest}"
            return
        if t.kind == "two":
            first = ""
            for _ in range(2):
                yield from self.fetch(t.otype, {first} if first else set())
                if not self.flat.held:
                    return
                first = self.flat.held
                yield from self.put(t.dest)
            return
        if t.kind == "slice":
            yield from self.fetch("knife", set())
            if not self.flat.held:
                return
            self.phase = "preparing"
            knife = self.flat.held
            target = [o for o, r in self.seen.items() if o.split()[0] == t.otype and self.flat.place.get(o) == r]
            if target:
                recep = self.seen[target[0]]
                yield from self.goto(recep)
                yield f"slice {target[0]} with {knife}"
                yield f"put {knife} in/on {recep}"
                yield f"take {target[0]} from {recep}"
            else:
                # Put the knife down by the food once found: carry it around while searching.
                yield from self.search_and_slice(t.otype, knife)
            if self.flat.held.split(" ")[0] == t.otype:
                yield from self.put(t.dest)
            return
        yield from self.fetch(t.otype, set())
        if not self.flat.held:
            return
        self.phase = "preparing"
        obj = self.flat.held
        if t.kind == "clean":
            yield from self.goto("sinkbasin 1" if self.flat.room() != "washroom" else "sinkbasin 2")
            yield f"clean {obj} with {self.flat.at}"
        elif t.kind == "heat":
            yield from self.goto("microwave 1")
            yield f"heat {obj} with microwave 1"
        elif t.kind == "cool":
            yield from self.goto("fridge 1")
            yield f"cool {obj} with fridge 1"
        yield from self.put(t.dest)

    def search_and_slice(self, otype: str, knife: str) -> Iterator[str]:
        self.phase = "searching"
        order = HOMES[otype][:]
        self.rng.shuffle(order)
        order += [r for r in RECEPTACLES if r not in order]
        for recep in order:
            yield from self.goto(recep)
            if not self.flat.visible(recep):
                yield f"open {recep}"
            found = [o for o in self.flat.contents(recep) if o.split()[0] == otype]
            if found:
                self.phase = "preparing"
                yield f"slice {found[0]} with {knife}"
                yield f"put {knife} in/on {recep}"
                yield f"take {found[0]} from {recep}"
                return


def apply(flat: Flat, agent: Housekeeper, action: str) -> tuple[str, list[Event], list[Relation]]:
    """Carry out one text action; returns the feedback text, the events and relations it produced."""
    words = action.split()
    verb = words[0]
    events: list[Event] = []
    rels: list[Relation] = []
    nothing = "Nothing happens."
    if verb == "go":
        recep = action[len("go to "):]
        if recep == flat.at:
            return nothing, [Event("nothing happens")], rels
        old_room = flat.room()
        flat.at = recep
        events.append(Event("head to", recep))
        if flat.room() != old_room:
            events.append(Event("step into", flat.room()))
        agent.remember(recep)
        return f"You arrive at {recep}. " + flat.describe(recep), events, rels
    if verb in ("open", "close"):
        recep = action[len(verb) + 1:]
        if recep != flat.at or recep not in flat.opened or flat.opened[recep] == (verb == "open"):
            return nothing, [Event("nothing happens")], rels
        flat.opened[recep] = verb == "open"
        agent.remember(recep)
        if verb == "open":
            return f"You open the {recep}. " + flat.describe(recep).replace("On the", "In the"), [Event("open up", recep)], rels
        return f"You close the {recep}.", [Event("shut", recep)], rels
    if verb == "take":
        obj, recep = action[5:].split(" from ")
        if flat.held or flat.place.get(obj) != recep or recep != flat.at or not flat.visible(recep):
            return nothing, [Event("nothing happens")], rels
        flat.place[obj] = ""
        flat.held = obj
        agent.seen.pop(obj, None)
        rels.append(Relation("agent", "holds", obj))
        return f"You pick up the {obj} from the {recep}.", [Event("pick up", obj)], rels
    if verb == "put":
        obj, recep = action[4:].split(" in/on ")
        if flat.held != obj or recep != flat.at or not flat.visible(recep):
            return nothing, [Event("nothing happens")], rels
        flat.place[obj] = recep
        flat.held = ""
        agent.seen[obj] = recep
        rels.append(Relation(obj, RECEPTACLES[recep][3], recep))
        return f"You put the {obj} {RECEPTACLES[recep][3]} the {recep}.", [Event("set down", obj)], rels
    if verb in ("clean", "heat", "cool"):
        obj, tool = action[len(verb) + 1:].split(" with ")
        ok = {"clean": tool.startswith("sinkbasin"), "heat": tool.startswith("microwave"), "cool": tool.startswith("fridge")}[verb]
        if flat.held != obj or tool != flat.at or not ok:
            return nothing, [Event("nothing happens")], rels
        props = flat.props[obj]
        if verb == "clean":
            props.discard("dirty")
            props.add("clean")
        else:
            props.discard("hot" if verb == "cool" else "cold")
            props.add("hot" if verb == "heat" else "cold")
        kind = {"clean": "rinse", "heat": "warm up", "cool": "chill"}[verb]
        done = {"clean": "clean", "heat": "heat", "cool": "cool"}[verb]
        return f"You {done} the {obj} using the {tool}.", [Event(kind, obj)], rels
    if verb == "slice":
        obj, knife = action[6:].split(" with ")
        if flat.held != knife or flat.place.get(obj) != flat.at:
            return nothing, [Event("nothing happens")], rels
        flat.props[obj].add("sliced")
        return f"You slice the {obj} with the {knife}.", [Event("cut up", obj)], rels
    if verb == "use":
        lamp = words[1] + " " + words[2]
        if LAMPS.get(lamp) != flat.at:
            return nothing, [Event("nothing happens")], rels
        if lamp in flat.lamps_on:
            flat.lamps_on.discard(lamp)
            return f"You turn off the {lamp}.", [Event("switch off", lamp)], rels
        flat.lamps_on.add(lamp)
        return f"You turn on the {lamp}.", [Event("switch on", lamp)], rels
    if verb == "examine":
        thing = action[8:]
        if thing in RECEPTACLES:
            return flat.describe(thing), [Event("inspect", thing)], rels
        if thing != flat.held:
            return nothing, [Event("nothing happens")], rels
        state = ", ".join(sorted(flat.props[thing])) or "ordinary"
        return f"There's nothing special about {thing} ({state}).", [Event("inspect", thing)], rels
    if verb == "look":
        where = flat.at or "front door"
        return f"You are facing the {where}.", [Event("look around")], rels
    if verb == "inventory":
        return (f"You are carrying: a {flat.held}." if flat.held else "You are not carrying anything."), [Event("check inventory")], rels
    raise ValueError(action)


def done(flat: Flat, task: Task, placed: list[str]) -> bool:
    if task.kind == "look":
        return flat.held.split(" ")[0] == task.otype and task.dest in flat.lamps_on
    need = {"pick": "", "clean": "clean", "heat": "hot", "cool": "cold", "slice": "sliced", "two": ""}[task.kind]
    fits = [o for o in placed if o.split()[0] == task.otype and flat.place.get(o) == task.dest and (not need or need in flat.props[o])]
    return len(fits) >= (2 if task.kind == "two" else 1)


def new_task(flat: Flat, rng: random.Random, last: str) -> Task:
    counts: dict[str, int] = {}
    for obj in flat.place:
        counts[obj.split()[0]] = counts.get(obj.split()[0], 0) + 1
    while True:
        kind = rng.choice(["pick", "pick", "clean", "heat", "cool", "two", "look", "slice"])
        pool = {"pick": set(HOMES), "clean": CLEANABLE, "heat": HEATABLE, "cool": COOLABLE, "slice": SLICEABLE,
                "two": {o for o, c in counts.items() if c >= 2}, "look": LOOKABLE}[kind]
        otype = rng.choice(sorted(pool - {"knife"}))
        if kind == "look":
            dest = rng.choice(sorted(LAMPS))
        else:
            dest = rng.choice(HOMES[otype])
            if (kind, dest) in (("heat", "microwave 1"), ("cool", "fridge 1")):
                continue
            if any(o.split()[0] == otype and flat.place.get(o) == dest for o in flat.place):
                continue
        task = Task(kind, otype, dest)
        if task.text != last:
            return task


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed)
    flat = Flat(rng)
    flat.populate()
    agent = Housekeeper(flat, rng)
    target = rng.randint(380, 1000)
    steps: list[Step] = []
    finished = 0
    last = ""
    while len(steps) < target:
        task = new_task(flat, rng, last)
        last = task.text
        placed: list[str] = []
        first = True
        for action in agent.run(task):
            if len(steps) >= 1450:
                break
            feedback, events, rels = apply(flat, agent, action)
            if first:
                events.insert(0, Event("start task", task.text))
                first = False
            if action.startswith("put ") and events[-1].kind == "set down":
                placed.append(events[-1].obj)
            complete = done(flat, task, placed)
            if complete:
                finished += 1
                events.append(Event("finish task", task.text))
                agent.phase = "complete"
            steps.append(record(len(steps), action, feedback, events, rels, flat, agent, task, finished))
            if complete:
                break
        # Tidy up before the next chore: hands free, lamps off.
        tidy: list[str] = []
        if flat.held:
            tidy.append(f"put {flat.held} in/on {flat.at}")
        for lamp in sorted(flat.lamps_on):
            tidy += [f"go to {LAMPS[lamp]}"] if flat.at != LAMPS[lamp] else []
            tidy.append(f"use {lamp}")
        for action in tidy:
            if len(steps) >= 1450:
                break
            feedback, events, rels = apply(flat, agent, action)
            steps.append(record(len(steps), action, feedback, events, rels, flat, agent, None, finished))
    return steps


def record(t: int, action: str, feedback: str, events: list[Event], rels: list[Relation], flat: Flat, agent: Housekeeper,
           task: Task | None, finished: int) -> Step:
    recep = flat.at
    room, pos = (RECEPTACLES[recep][0], RECEPTACLES[recep][1]) if recep else ("hallway", (6, 4))
    visible = flat.contents(recep) if recep and flat.visible(recep) else []
    state: dict[str, int | float | str | bool] = {
        "objective": task.text if task else "tidy up after the last chore",
        "phase": agent.phase if task else "tidying",
        "carrying": bool(flat.held),
        "tasks done": finished,
        "open containers": sum(flat.opened.values()),
        "lamp on": bool(flat.lamps_on),
    }
    said = ", ".join(f"{e.kind} {e.obj}".strip() for e in events)
    return Step(
        t=t, action=action, summary=f"{action} -> {feedback}" + (f" [{said}]" if said else ""),
        objects=tuple(visible), events=tuple(events),
        relations=(Relation("agent", "facing", recep or "front door"), *rels),
        inventory=((flat.held, 1),) if flat.held else (), state=tuple(sorted(state.items())),
        location=Location(position=pos, region=room, underfoot="floor"), observation=feedback,
    )


# --------------------------------------------------------------------------------------------------
# Words and templates
# --------------------------------------------------------------------------------------------------


def lexicon(steps: list[Step]) -> Lexicon:
    objs = sorted({o for o in _all_objects(steps)})
    events: dict[tuple[str, str | None], list[str]] = {
        ("pick up", None): ["pick something up", "take an object", "grab something"],
        ("set down", None): ["put something down", "place an object somewhere", "set something down"],
        ("open up", None): ["open something", "open a container"],
        ("shut", None): ["close something", "shut a container"],
        ("rinse", None): ["clean something", "wash something"],
        ("warm up", None): ["heat something", "warm something up"],
        ("chill", None): ["cool something", "chill something"],
        ("step into", None): ["change rooms", "move to another room", "walk into a different room"],
        ("nothing happens", None): ["fail at an action", "attempt an action that did nothing", "get a 'Nothing happens' reply",
                                    "make an invalid move"],
        ("look around", None): ["look around", "scan the room", "take a look around"],
        ("check inventory", None): ["check inventory", "check what was in hand"],
        ("start task", None): ["start a task", "begin a new task", "take on a new chore", "start a new chore"],
        ("finish task", None): ["finish a task", "complete a task", "get a chore done", "wrap up a chore"],
        ("inspect", None): ["examine something", "inspect something"],
    }
    for obj in objs:
        events[("pick up", obj)] = [f"pick up {obj}", f"take {obj}", f"grab {obj}", f"lift {obj}"]
        events[("set down", obj)] = [f"put down {obj}", f"set {obj} down", f"drop off {obj}", f"put {obj} away"]
        events[("inspect", obj)] = [f"examine {obj}", f"inspect {obj}", f"look closely at {obj}"]
        otype = obj.split()[0]
        if otype in CLEANABLE:
            events[("rinse", obj)] = [f"clean {obj}", f"wash {obj}", f"rinse {obj}", f"scrub {obj}"]
        if otype in HEATABLE:
            events[("warm up", obj)] = [f"heat {obj}", f"warm {obj} up", f"microwave {obj}", f"heat up {obj}"]
        if otype in COOLABLE:
            events[("chill", obj)] = [f"cool {obj}", f"chill {obj}", f"cool {obj} down", f"refrigerate {obj}"]
        if otype in SLICEABLE:
            events[("cut up", obj)] = [f"slice {obj}", f"cut {obj}", f"cut up {obj}", f"chop {obj}"]
    for recep, info in RECEPTACLES.items():
        events[("head to", recep)] = [f"go to {recep}", f"walk over to {recep}", f"visit {recep}", f"head over to {recep}"]
        events[("inspect", recep)] = [f"examine {recep}", f"inspect {recep}"]
        if info[2]:
            events[("open up", recep)] = [f"open {recep}", f"pull open {recep}", f"open up {recep}"]
            events[("shut", recep)] = [f"close {recep}", f"shut {recep}", f"close up {recep}"]
    for lamp in LAMPS:
        events[("switch on", lamp)] = [f"turn on {lamp}", f"switch on {lamp}", f"light {lamp}", f"toggle {lamp} on"]
        events[("switch off", lamp)] = [f"turn off {lamp}", f"switch off {lamp}", f"toggle {lamp} off"]
    for room in ROOMS:
        events[("step into", room)] = [f"enter the {room}", f"walk into the {room}", f"go into the {room}", f"arrive in the {room}"]
    for desc in sorted({e.obj for s in steps for e in s.events if e.kind in ("start task", "finish task")}):
        events[("finish task", desc)] = [f"finish the task '{desc}'", f"complete the '{desc}' task", f"get the '{desc}' chore done"]
        events[("start task", desc)] = [f"start the task '{desc}'", f"begin the '{desc}' chore"]
    nouns: dict[tuple[str, str | None], list[str]] = {
        ("finish task", None): ["completed task", "finished chore"],
        ("nothing happens", None): ["failed action", "wasted move"],
        ("start task", None): ["new task", "new chore"],
        **{("head to", r): [f"trip to {r}", f"visit to {r}"] for r in RECEPTACLES},
        **{("step into", r): [f"entry into the {r}", f"arrival in the {r}"] for r in ROOMS},
    }
    state_q = {
        "objective": ["what was {poss} current task", "which task {was} {S} working on", "what chore {was} {S} doing",
                      "what was {poss} objective"],
        "phase": ["what stage of the chore {was} {S} in", "what phase {was} {S} in", "how far along the chore {was} {S} (its phase)"],
        "carrying": ["{was} {S} carrying anything", "{was} {S} holding something", "did {S} have something in hand"],
        "tasks done": ["how many tasks had {S} finished", "how many chores had {S} completed", "what was {poss} score",
                       "how many tasks were done"],
        "open containers": ["how many containers were open", "how many things had {S} left open", "how many receptacles stood open"],
        "lamp on": ["was any lamp switched on", "was a lamp lit"],
    }
    states = {"tasks done": ["score", "completed-task count", "task tally"],
              "open containers": ["open-container count", "number of open containers"],
              "phase": ["phase", "task phase"], "objective": ["current task", "objective"], "carrying": ["hands"]}
    slot_q = {
        "action": ["what did {S} do", "what command did {S} issue", "which action did {S} perform", "what was {poss} action"],
        "location": ["which room {was} {S} in", "where {was} {S}", "what room {was} {S} in", "in which part of the flat {was} {S}"],
        "position": ["what were {poss} floor-plan coordinates", "at what x,y position {was} {S}",
                     "where on the floor plan {was} {S} (coordinates)"],
        "inventory": ["what {was} {S} holding", "what did {S} have in hand", "what {was} {S} carrying", "what was in {poss} hands"],
        "facing": ["what {was} {S} standing in front of", "which furniture or appliance {was} {S} at",
                   "what was right in front of {obj}", "which receptacle {was} {S} facing"],
        "events": ["what happened", "what events occurred", "what took place", "which events were logged"],
    }
    return Lexicon(events=events, items={}, states=states, state_q=state_q, slot_q=slot_q,
                   subjects=subjects("Rosie", "she"), nouns=nouns,
                   kind_verbs={"pick up": ["pick up", "take", "grab"], "set down": ["put down", "set down"],
                               "head to": ["visit", "go to"], "open up": ["open"], "rinse": ["clean", "wash"],
                               "step into": ["enter", "walk into"], "finish task": ["finish", "complete"]},
                   bools={"carrying": ("carrying something", "empty-handed")})


def _all_objects(steps: list[Step]) -> set[str]:
    found: set[str] = set()
    for s in steps:
        found.update(s.objects)
        found.update(name for name, _ in s.inventory)
    return found


TEMPLATES: dict[str, list[str]] = {
    "f1": ["{Q} at step {N}?", "During step {N}, {Q}?", "{Q} as of step {N}?", "Step #{N} — {Q}?", "{Q} right at step {N}?",
           "Looking at step {N}: {Q}?"],
    "f2": ["{Q} {W}?", "{W}, {Q}?", "Tell me this: {Q} {W}?", "{Q}, {W}?"],
    "f2_step": ["When {D}?", "At which step {D}?", "What step was it {W}?", "Which step {D}?", "In which step {D}?"],
    "f3": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Say, {Q} {W}?"],
    "f3_step": ["When {D}?", "At which step {D}?", "What step was it {W}?", "Step number, please: when {D}?"],
    "f4": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{Q} — {W}?"],
    "f4_step": ["When {D}?", "At which step {D}?", "What step {D}?", "Which step {D}?"],
    "f5": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{Q} — {W}?"],
    "f6": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Considering {W}: {Q}?"],
    "f6_step": ["When {D}?", "At which step {D}?", "What step was it {W}?", "Which step {D}?"],
    "f7": ["How many times did {S} {X} {WIN}?", "{WIN}, how many times did {S} {X}?", "How often did {S} {X} {WIN}?",
           "What number of times did {S} {X} {WIN}?", "Count the times {S} {XP} {WIN}.", "How many times had {S} {XPP} {WIN}?"],
    "f7_list": ["What did {S} {V} {WIN}?", "Which things did {S} {V} {WIN}?", "List everything {S} {VP} {WIN}.",
                "{WIN}, which things did {S} {V}?"],
    "f8": ["Which came first, {A} or {B}?", "Which happened earlier: {A} or {B}?", "What came first — {A} or {B}?",
           "Of {A} and {B}, which happened first?", "{A} or {B} — which was first?"],
    "f9": ["How many steps separated {A} and {B}?", "How many steps lay between {A} and {B}?", "How long after {AW} did {S} {BD}?",
           "How many steps after {AW} did {S} {BD}?", "What's the distance in steps between {A} and {B}?"],
    "f10": ["Did {S} {X} at any point {WIN}?", "{WIN}, did {S} ever {X}?", "Had {S} {XPP} {WIN}?",
            "Was there a time {WIN} that {S} {XP}?", "Did {S} {X} {WIN}?", "Any chance {S} {XP} {WIN}?",
            "{has} {S} {XPP} at all {WIN}?"],
}


def build(seed: int) -> dict[str, Any]:
    """One household episode of seed ``seed`` and 40-80 questions about it, each answered by the reference evaluator.

    >>> data = build(7100)  # doctest: +SKIP
    >>> len(data["questions"]) >= 40  # doctest: +SKIP
    True
    """
    steps = rollout(seed)
    episode = f"household-{seed}"
    lex = lexicon(steps)
    matches = [Match(kind, obj) for kind, obj in lex.events]
    builder = Builder(episode, steps, lex, TEMPLATES, random.Random(seed * 7 + 2), matches)
    return {"episodes": {episode: steps}, "questions": builder.build(per_family=6)}


if __name__ == "__main__":
    self_check(build, [7100, 7101])
