"""Blind question suite on a ScienceWorld-style simulator (seeds 9200-9299).

The installed ScienceWorld runs a JVM that needs roughly a tenth of a second per step here, so a few
hundred steps per seed would not fit the build budget; this module simulates a house in its style
instead: rooms joined by doors (closed at the start; ``teleport to`` also works), containers and
devices (stove, sink, fridge, freezer, blast furnace), substances with temperatures and states of
matter (water/ice/steam, chocolate, orange juice, tin), a thermometer, flower pots with seeds that
grow when watered, paints that mix, animals outside, and a task score. A scripted experimenter
works through a seeded list of tasks (boil, freeze, melt, grow, mix, find an animal) with detours.

Adapter choices (each command is one ``Step``):

* action: the command (``move metal pot to stove``, ``use thermometer on water``); region: the room;
* events: ``visit R``, ``open``/``close`` (``door to the kitchen``, ``freezer``), ``collect X``
  (picked up), ``place X`` (put down, or a seed planted), ``move X`` (into a container; pouring),
  ``use X`` (activate a device, the thermometer), ``observe X`` (focus), ``make X`` (a substance
  changed its state of matter, or a mixed paint), ``consume X`` (paint used in a mix), ``eat X``,
  ``achievement <task>``;
* state: score, open doors (ints), thermometer reading, pot temperature (floats), stove on, sink on
  (bools), task, focus, pot contents, plant stage (text).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from benchmarks.suites._dev2_core import (
    ItemWords,
    Match,
    StateCond,
    StateWords,
    Vocab,
    Writer,
    self_check,
    vp,
)
from graphmem.records import Event, Location, Relation, Scalar, Step

SUITE = "dev2_science"
SEEDS = range(9200, 9300)
PER_FAMILY = 6

_NAMES = ("Curie", "Ibn", "Lise", "Alvar", "Rosalind", "Nikola", "Emmy", "Carl", "Hedy", "Ada")
ROOMS = ("hallway", "kitchen", "bathroom", "workshop", "greenhouse", "art studio", "bedroom", "living room", "outside", "foundry")
DOORS = (
    ("hallway", "kitchen"), ("hallway", "art studio"), ("hallway", "bedroom"), ("hallway", "living room"),
    ("hallway", "greenhouse"), ("hallway", "workshop"), ("kitchen", "bathroom"), ("kitchen", "outside"),
    ("greenhouse", "outside"), ("outside", "foundry"),
)  # fmt: skip
# base -> (solid name, liquid name, gas name, melting point, boiling point)
SUBSTANCES: dict[str, tuple[str, str, str, float, float]] = {
    "water": ("ice", "water", "steam", 0.0, 100.0),
    "chocolate": ("chocolate", "liquid chocolate", "chocolate smoke", 35.0, 400.0),
    "orange juice": ("frozen orange juice", "orange juice", "orange juice vapor", -2.0, 100.0),
    "tin": ("tin", "liquid tin", "tin vapor", 232.0, 2600.0),
    "red paint": ("dried red paint", "red paint", "red paint fumes", -40.0, 500.0),
    "blue paint": ("dried blue paint", "blue paint", "blue paint fumes", -40.0, 500.0),
    "yellow paint": ("dried yellow paint", "yellow paint", "yellow paint fumes", -40.0, 500.0),
    "violet paint": ("dried violet paint", "violet paint", "violet paint fumes", -40.0, 500.0),
    "green paint": ("dried green paint", "green paint", "green paint fumes", -40.0, 500.0),
    "orange paint": ("dried orange paint", "orange paint", "orange paint fumes", -40.0, 500.0),
}
MIXES = {frozenset({"red paint", "blue paint"}): "violet paint", frozenset({"blue paint", "yellow paint"}): "green paint", frozenset({"red paint", "yellow paint"}): "orange paint"}
STAGES = ((0, "seed"), (14, "seedling"), (36, "adult"), (64, "flowering"))
PLANT_NAMES = {"seed": "{p} seed", "seedling": "{p} seedling", "adult": "adult {p} plant", "flowering": "flowering {p} plant"}


@dataclass
class Thing:
    """One object of the house. ``where`` is a room, another thing's key, or ``"inventory"``."""

    key: str
    label: str
    kind: str  # item | container | device | fixture | substance | plant | animal | food
    where: str
    portable: bool = False
    is_open: bool = True
    active: bool = False
    temp: float = 20.0
    base: str = ""  # substance base, plant species
    growth: int = 0
    water: int = 0


@dataclass
class Outcome:
    feedback: str
    events: list[Event] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


class House:
    """The simulator: state, command parser, physics tick and task scoring."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.room = "hallway"
        self.things: dict[str, Thing] = {}
        self.doors = {frozenset(d): False for d in DOORS}
        self.focus = ""
        self.reading: float | None = None
        self.score = 0
        self.task = "exploring"
        self.completed: set[str] = set()
        self.rewarded: set[str] = set()
        self._populate()

    # -- setup -----------------------------------------------------------------------------------
    def add(self, key: str, kind: str, where: str, label: str = "", **kw: object) -> Thing:
        thing = Thing(key, label or key, kind, where, **kw)  # type: ignore[arg-type]
        self.things[key] = thing
        return thing

    def _populate(self) -> None:
        r = self.rng
        self.add("stove", "device", "kitchen")
        self.add("kitchen sink", "device", "kitchen", "sink")
        self.add("fridge", "container", "kitchen", is_open=False, temp=4.0)
        self.add("freezer", "container", "kitchen", is_open=False, temp=-12.0)
        self.add("cupboard", "container", "kitchen", is_open=False)
        self.add("counter", "fixture", "kitchen")
        self.add("metal pot", "container", "cupboard", portable=True)
        self.add("glass cup", "container", "cupboard", portable=True)
        self.add("bowl", "container", "fridge", portable=True, temp=4.0)
        self.add("sub:chocolate", "substance", "bowl", base="chocolate", temp=4.0 + r.random())
        self.add("glass jar", "container", "fridge", portable=True, temp=4.0)
        self.add("sub:orange juice", "substance", "glass jar", base="orange juice", temp=4.0 + r.random())
        self.add("thermometer", "item", r.choice(["counter", "kitchen", "workshop"]), portable=True)
        for food in r.sample(["apple", "banana", "orange", "peanut", "bread"], 3):
            self.add(food, "food", r.choice(["counter", "kitchen", "living room"]), portable=True)
        self.add("bathroom sink", "device", "bathroom", "sink")
        self.add("toilet", "fixture", "bathroom")
        self.add("soap", "item", "bathroom", portable=True)
        self.add("greenhouse sink", "device", "greenhouse", "sink")
        self.add("seed jar", "container", "greenhouse", is_open=r.random() < 0.5, portable=True)
        species = r.choice(["bean", "pea", "sunflower"])
        self.species = species
        for i in range(3):
            self.add(f"seed#{i}", "plant", "seed jar", PLANT_NAMES["seed"].format(p=species), portable=True, base=species)
        for i in (1, 2, 3):
            self.add(f"flower pot {i}", "container", "greenhouse")
        self.add("watering can", "container", "greenhouse", portable=True)
        self.add("shovel", "item", "greenhouse", portable=True)
        self.add("battery", "item", "workshop", portable=True)
        self.add("wire", "item", "workshop", portable=True)
        self.add("light bulb", "item", "workshop", portable=True)
        self.add("workbench", "fixture", "workshop")
        for i, color in enumerate(r.sample(["red paint", "blue paint", "yellow paint"], 3), start=1):
            self.add(f"paint cup {i}", "container", "art studio", portable=True)
            self.add(f"sub:{color}", "substance", f"paint cup {i}", base=color)
        self.add("jug", "container", "art studio", portable=True)
        self.add("easel", "fixture", "art studio")
        self.add("bed", "fixture", "bedroom")
        self.add("book", "item", r.choice(["bedroom", "living room"]), portable=True)
        self.add("couch", "fixture", "living room")
        self.add("picture", "fixture", "hallway")
        for animal in r.sample(["frog", "butterfly", "bird", "snail"], 2):
            self.add(animal, "animal", "outside")
        self.add("rock", "item", "outside", portable=True)
        self.add("fire pit", "fixture", "outside")
        self.add("blast furnace", "device", "foundry")
        self.add("steel crucible", "container", "foundry", portable=True)
        self.add("sub:tin", "substance", "steel crucible", base="tin")
        for t in self.things.values():
            if t.kind in ("item", "food", "container", "plant", "substance") and t.temp == 20.0:
                t.temp = round(18.0 + 4 * r.random(), 2)

    # -- queries -----------------------------------------------------------------------------------
    def name(self, key: str) -> str:
        t = self.things[key]
        if t.kind == "substance":
            solid, liquid, gas, mp, bp = SUBSTANCES[t.base]
            return solid if t.temp < mp else gas if t.temp >= bp else liquid
        if t.kind == "plant":
            return PLANT_NAMES[self.stage(t)].format(p=t.base)
        return t.label

    def stage(self, t: Thing) -> str:
        if not t.where.startswith("flower pot"):
            return "seed"
        out = "seed"
        for threshold, name in STAGES:
            if t.growth >= threshold:
                out = name
        return out

    def room_of(self, key: str) -> str:
        where = self.things[key].where
        seen = 0
        while where in self.things and seen < 6:
            where = self.things[where].where
            seen += 1
        return self.room if where == "inventory" else where

    def contents(self, key: str) -> list[str]:
        return [k for k, t in self.things.items() if t.where == key]

    def substance_in(self, key: str) -> str | None:
        subs = [k for k in self.contents(key) if self.things[k].kind == "substance"]
        return subs[0] if subs else None

    def reachable(self) -> list[str]:
        """Keys the agent can act on: in the room, in the inventory, and inside open containers there."""
        out: list[str] = []
        frontier = [k for k, t in self.things.items() if t.where in (self.room, "inventory")]
        while frontier:
            k = frontier.pop()
            out.append(k)
            t = self.things[k]
            if t.kind != "substance" and (t.is_open or t.kind in ("device", "fixture")):
                frontier += [c for c in self.contents(k) if c not in out]
        return out

    def find(self, label: str) -> str | None:
        hits = [k for k in self.reachable() if self.name(k) == label]
        hits.sort(key=lambda k: (self.things[k].where != "inventory", k))
        return hits[0] if hits else None

    def neighbours(self, room: str) -> list[str]:
        return sorted(b for a, b in ((x, y) for d in DOORS for x, y in (d, d[::-1])) if a == room)

    def inventory(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for k, t in self.things.items():
            if t.where == "inventory":
                out[self.name(k)] = out.get(self.name(k), 0) + 1
        return out

    def visible(self) -> tuple[str, ...]:
        return tuple(sorted({self.name(k) for k in self.reachable() if self.things[k].where != "inventory"}))

    # -- commands ----------------------------------------------------------------------------------
    def execute(self, command: str) -> Outcome:
        out = self._do(command)
        ticks = 5 if command == "wait" else 1
        for _ in range(ticks):
            out.events += self.tick()
        out.events += self.score_tasks()
        return out

    def _do(self, c: str) -> Outcome:
        if c == "look around":
            return Outcome(f"This room is called the {self.room}. In it, you see: {', '.join(self.visible())}.")
        if c == "inventory":
            return Outcome("In your inventory, you see: " + (", ".join(self.inventory()) or "nothing") + ".")
        if c in ("wait", "wait1"):
            return Outcome("You decide to wait.")
        for prefix in ("teleport to ", "go to "):
            if c.startswith(prefix):
                target = c[len(prefix):]
                if target not in ROOMS or target == self.room:
                    return Outcome("You can't go there.")
                if prefix == "go to " and not self.doors.get(frozenset((self.room, target)), False):
                    return Outcome("The door is not open.")
                self.room = target
                return Outcome(f"You move to the {target}.", [Event("visit", target)])
        for verb in ("open door to ", "close door to "):
            if c.startswith(verb):
                target = c[len(verb):]
                door = frozenset((self.room, target))
                if door not in self.doors:
                    return Outcome("There is no such door here.")
                want = verb.startswith("open")
                if self.doors[door] == want:
                    return Outcome(f"The door is already {'open' if want else 'closed'}.")
                self.doors[door] = want
                return Outcome(f"The door to the {target} is now {'open' if want else 'closed'}.", [Event("open" if want else "close", f"door to the {target}")])
        if c.startswith("move ") and " to " in c:
            what, _, dest = c[5:].rpartition(" to ")
            return self.move(what, dest)
        if c.startswith("pour ") and " into " in c:
            what, _, dest = c[5:].rpartition(" into ")
            return self.pour(what, dest)
        if c.startswith("use thermometer on "):
            return self.measure(c[len("use thermometer on "):])
        verb, _, rest = c.partition(" ")
        if c.startswith("pick up "):
            verb, rest = "pick", c[8:]
        elif c.startswith("put down "):
            verb, rest = "put", c[9:]
        elif c.startswith("focus on "):
            verb, rest = "focus", c[9:]
        elif c.startswith("look at "):
            verb, rest = "look", c[8:]
        key = self.find(rest)
        if key is None:
            return Outcome("No known action matches that input.")
        t = self.things[key]
        label = self.name(key)
        if verb == "look":
            extra = f" It contains {', '.join(self.name(k) for k in self.contents(key)) or 'nothing'}." if t.kind in ("container", "device") and t.is_open else ""
            return Outcome(f"a {label}.{extra}")
        if verb in ("open", "close") and t.kind == "container":
            want = verb == "open"
            if t.is_open == want:
                return Outcome(f"The {label} is already {verb}{'ed' if verb == 'close' else ''}.")
            t.is_open = want
            return Outcome(f"The {label} is now {'open' if want else 'closed'}.", [Event(verb, label)])
        if verb in ("activate", "deactivate") and t.kind == "device":
            want = verb == "activate"
            if t.active == want:
                return Outcome(f"The {label} is already {verb}d.")
            t.active = want
            return Outcome(f"The {label} is now {verb}d.", [Event("use", label)] if want else [])
        if verb == "pick" and t.portable:
            if t.where == "inventory":
                return Outcome(f"The {label} is already in your inventory.")
            t.where = "inventory"
            return Outcome(f"You move the {label} to the inventory.", [Event("collect", label)])
        if verb == "put" and t.where == "inventory":
            t.where = self.room
            return Outcome(f"You put the {label} down in the {self.room}.", [Event("place", label)])
        if verb == "focus":
            self.focus = key
            return Outcome(f"You focus on the {label}.", [Event("observe", label)])
        if verb == "eat" and t.kind == "food":
            del self.things[key]
            return Outcome(f"You eat the {label}. Delicious.", [Event("eat", label)])
        if verb == "mix" and t.kind == "container":
            return self.mix(key)
        return Outcome("Nothing happens.")

    def move(self, what: str, dest: str) -> Outcome:
        key, target = self.find(what), self.find(dest)
        if key is None or target is None or key == target:
            return Outcome("No known action matches that input.")
        t, d = self.things[key], self.things[target]
        if not t.portable or d.kind not in ("container", "device", "fixture") or (d.kind == "container" and not d.is_open):
            return Outcome("You can't do that.")
        label, dlabel = self.name(key), self.name(target)
        t.where = target
        if t.kind == "plant" and target.startswith("flower pot"):
            t.growth = 0
            return Outcome(f"You plant the {label} in the {dlabel}.", [Event("place", label)], [Relation(label, "in", dlabel)])
        return Outcome(f"You move the {label} to the {dlabel}.", [Event("move", label)], [Relation(label, "in", dlabel)])

    def pour(self, what: str, dest: str) -> Outcome:
        src, target = self.find(what), self.find(dest)
        if src is None or target is None or src == target:
            return Outcome("No known action matches that input.")
        sub = self.substance_in(src)
        if sub is None:
            return Outcome(f"The {what} is empty.")
        label, dlabel = self.name(sub), self.name(target)
        if target.startswith("flower pot") and self.things[sub].base == "water":
            del self.things[sub]
            self.things[target].water = 4
            return Outcome(f"You water the {dlabel}.", [Event("move", label)], [Relation(label, "in", dlabel)])
        if self.substance_in(target) is not None and target != "jug":
            return Outcome(f"The {dlabel} is not empty.")
        self.things[sub].where = target
        return Outcome(f"You pour the {label} into the {dlabel}.", [Event("move", label)], [Relation(label, "in", dlabel)])

    def mix(self, key: str) -> Outcome:
        subs = [k for k in self.contents(key) if self.things[k].kind == "substance"]
        bases = frozenset(self.things[k].base for k in subs)
        result = MIXES.get(bases)
        if result is None:
            return Outcome("Nothing changes.")
        events = [Event("make", result)] + [Event("consume", self.name(k)) for k in subs]
        temp = sum(self.things[k].temp for k in subs) / len(subs)
        for k in subs:
            del self.things[k]
        self.add(f"sub:{result}", "substance", key, base=result, temp=round(temp, 2))
        return Outcome(f"The paints mix into {result}.", events)

    def measure(self, what: str) -> Outcome:
        if self.things["thermometer"].where != "inventory":
            return Outcome("You do not have a thermometer.")
        key = self.find(what)
        if key is None:
            return Outcome("No known action matches that input.")
        self.reading = round(self.things[key].temp, 1)
        label = self.name(key)
        return Outcome(f"The thermometer measures a temperature of {self.reading:g} degrees celsius.", [Event("use", "thermometer")], [Relation("thermometer", "measured", label)])

    # -- physics ------------------------------------------------------------------------------------
    def ambient(self, key: str) -> tuple[float, float]:
        """(target temperature, approach rate) of a thing, from where it sits."""
        where = self.things[key].where
        chain: list[str] = []
        while where in self.things and len(chain) < 6:
            chain.append(where)
            where = self.things[where].where
        for holder in chain:
            h = self.things[holder]
            if holder == "stove" and h.active:
                return 160.0, 0.07
            if holder == "blast furnace" and h.active:
                return 1400.0, 0.03
            if holder == "freezer":
                return -14.0, 0.06 if not h.is_open else 0.02
            if holder == "fridge":
                return 3.0, 0.05 if not h.is_open else 0.02
        room = self.room if where == "inventory" else where
        return (12.0 if room == "outside" else 21.0), 0.03

    def tick(self) -> list[Event]:
        events: list[Event] = []
        for key, t in list(self.things.items()):
            if t.kind in ("substance", "container", "item", "food", "plant"):
                before = self.name(key)
                target, rate = self.ambient(key)
                t.temp = round(t.temp + (target - t.temp) * rate + self.rng.uniform(-0.05, 0.05), 2)
                after = self.name(key)
                if t.kind == "substance" and after != before:
                    events.append(Event("make", after))
            if t.kind == "plant" and t.where.startswith("flower pot"):
                pot = self.things[t.where]
                if pot.water > 0:
                    t.growth += 1
        for i in (1, 2, 3):
            pot = self.things[f"flower pot {i}"]
            if pot.water > 0 and self.rng.random() < 0.1:
                pot.water -= 1
        for sink in ("kitchen sink", "bathroom sink", "greenhouse sink"):
            if self.things[sink].active:
                for k in self.contents(sink):
                    if self.things[k].kind == "container" and self.substance_in(k) is None:
                        self.add(f"sub:water@{k}", "substance", k, base="water", temp=round(11.0 + self.rng.random(), 2))
        return events

    def score_tasks(self) -> list[Event]:
        """Subgoal points and task completion, ScienceWorld style."""
        events: list[Event] = []
        f = self.things.get(self.focus)
        name = self.name(self.focus) if f else ""
        goals = {
            "boil water": f is not None and f.base == "water" and name == "steam",
            "freeze water": f is not None and f.base == "water" and name == "ice",
            "freeze orange juice": f is not None and f.base == "orange juice" and name == "frozen orange juice",
            "melt chocolate": f is not None and f.base == "chocolate" and name == "liquid chocolate",
            "melt tin": f is not None and f.base == "tin" and name == "liquid tin",
            f"grow a {self.species} plant": f is not None and f.kind == "plant" and self.stage(f) == "flowering",
            "mix a secondary color": f is not None and f.base in ("violet paint", "green paint", "orange paint"),
            "find an animal": f is not None and f.kind == "animal",
        }
        if self.task in goals and f is not None:
            sub = f"{self.task}:focus"
            if sub not in self.rewarded:
                self.rewarded.add(sub)
                self.score += 5
            if f.kind == "substance" and abs(f.temp - 20.0) > 15 and f"{self.task}:change" not in self.rewarded:
                self.rewarded.add(f"{self.task}:change")
                self.score += 5
            if goals[self.task] and self.task not in self.completed:
                self.completed.add(self.task)
                self.score += 15
                events.append(Event("achievement", self.task))
        return events

    def state(self) -> dict[str, Scalar]:
        pot = self.substance_in("metal pot")
        pot_key = pot or "metal pot"
        plants = [t for t in self.things.values() if t.kind == "plant" and t.where.startswith("flower pot")]
        s: dict[str, Scalar] = {
            "score": self.score,
            "task": self.task,
            "focus": self.name(self.focus) if self.focus in self.things else "nothing",
            "stove on": self.things["stove"].active,
            "sink on": self.things["kitchen sink"].active,
            "pot temperature": round(self.things[pot_key].temp, 1),
            "pot contents": self.name(pot) if pot else "empty",
            "plant stage": self.stage(plants[0]) if plants else "not planted",
            "open doors": sum(self.doors.values()),
        }
        if self.reading is not None:
            s["thermometer reading"] = self.reading
        return s


# ------------------------------------------------------------------------------------------------
# The experimenter
# ------------------------------------------------------------------------------------------------


class Experimenter:
    """Works through tasks as generators of commands; reads the house between commands."""

    def __init__(self, house: House, rng: random.Random) -> None:
        self.h = house
        self.rng = rng

    def go(self, room: str) -> Iterator[str]:
        h = self.h
        if h.room == room:
            return
        if self.rng.random() < 0.45:
            yield f"teleport to {room}"
            return
        prev: dict[str, str | None] = {h.room: None}
        queue = [h.room]
        while queue:
            r = queue.pop(0)
            for n in h.neighbours(r):
                if n not in prev:
                    prev[n] = r
                    queue.append(n)
        path = [room]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])  # type: ignore[arg-type]
        for nxt in reversed(path[:-1]):
            here = h.room
            if not h.doors[frozenset((here, nxt))]:
                yield f"open door to {nxt}"
            yield f"go to {nxt}"
            if self.rng.random() < 0.12:
                yield f"close door to {here}"

    def fetch(self, key: str) -> Iterator[str]:
        """Walk to a thing, open what holds it, pick it up."""
        h = self.h
        if key not in h.things or h.things[key].where == "inventory":
            return
        yield from self.go(h.room_of(key))
        holder = h.things[key].where
        if holder in h.things and h.things[holder].kind == "container" and not h.things[holder].is_open:
            yield f"open {h.name(holder)}"
        yield f"pick up {h.name(key)}"

    def detour(self) -> Iterator[str]:
        """Idle curiosity: look, inspect, wander, snack."""
        h, r = self.h, self.rng
        for _ in range(r.randint(1, 5)):
            roll = r.random()
            if roll < 0.25:
                yield "look around"
            elif roll < 0.45:
                things = [h.name(k) for k in h.reachable()]
                if things:
                    yield f"look at {r.choice(things)}"
            elif roll < 0.6:
                yield from self.go(r.choice([x for x in ROOMS if x != h.room]))
            elif roll < 0.68:
                yield "inventory"
            elif roll < 0.76:
                food = [k for k in h.reachable() if h.things[k].kind == "food"]
                if food:
                    k = r.choice(food)
                    if h.things[k].where != "inventory":
                        yield f"pick up {h.name(k)}"
                    elif r.random() < 0.5:
                        yield f"eat {h.name(k)}"
            elif roll < 0.84:
                loose = [k for k in h.reachable() if h.things[k].kind == "item" and k != "thermometer"]
                if loose:
                    k = r.choice(loose)
                    yield f"put down {h.name(k)}" if h.things[k].where == "inventory" else f"pick up {h.name(k)}"
            elif roll < 0.92:
                yield "wait1"
            else:
                doors = [n for n in h.neighbours(h.room)]
                n = r.choice(doors)
                yield f"{'close' if h.doors[frozenset((h.room, n))] else 'open'} door to {n}"

    def heat_or_cool(self, sub_key: str, done: str, limit: int = 45) -> Iterator[str]:
        """Watch a substance with the thermometer until its name becomes ``done``."""
        h, r = self.h, self.rng
        for _ in range(limit):
            if sub_key not in h.things or h.name(sub_key) == done:
                break
            roll = r.random()
            if roll < 0.5:
                yield f"use thermometer on {h.name(sub_key)}"
            elif roll < 0.75:
                yield "wait1"
            elif roll < 0.85:
                yield "wait"
            elif roll < 0.92:
                yield f"look at {h.name(sub_key)}"
            else:
                yield "look around"
        if sub_key in h.things:
            yield f"use thermometer on {h.name(sub_key)}"

    def boil(self) -> Iterator[str]:
        h = self.h
        h.task = "boil water"
        yield from self.fetch("thermometer")
        yield from self.fetch("metal pot")
        if h.room != "kitchen":
            yield from self.go("kitchen")
        if h.substance_in("metal pot") is None:
            yield "move metal pot to sink"
            yield "activate sink"
            yield "deactivate sink"
            yield "pick up metal pot"
        sub = h.substance_in("metal pot")
        if sub is None or h.things[sub].base != "water":
            return
        yield f"focus on {h.name(sub)}"
        yield "move metal pot to stove"
        yield "activate stove"
        yield from self.heat_or_cool(sub, "steam")
        yield "deactivate stove"
        if self.rng.random() < 0.5:
            yield "pick up metal pot"

    def freeze(self, base: str) -> Iterator[str]:
        h = self.h
        h.task = "freeze water" if base == "water" else "freeze orange juice"
        yield from self.fetch("thermometer")
        if base == "water":
            yield from self.fetch("glass cup")
            yield from self.go("kitchen")
            if h.substance_in("glass cup") is None:
                yield "move glass cup to sink"
                yield "activate sink"
                yield "deactivate sink"
                yield "pick up glass cup"
            holder = "glass cup"
        else:
            yield from self.fetch("glass jar")
            holder = "glass jar"
        sub = h.substance_in(holder)
        if sub is None:
            return
        yield from self.go("kitchen")
        yield f"focus on {h.name(sub)}"
        if not h.things["freezer"].is_open:
            yield "open freezer"
        yield f"move {holder} to freezer"
        if self.rng.random() < 0.6:
            yield "close freezer"
        done = SUBSTANCES[base][0]
        for _ in range(40):
            if h.name(sub) == done:
                break
            if not h.things["freezer"].is_open and self.rng.random() < 0.3:
                yield "open freezer"
                yield f"use thermometer on {h.name(sub)}"
                yield "close freezer"
            elif h.things["freezer"].is_open:
                yield f"use thermometer on {h.name(sub)}"
            else:
                yield self.rng.choice(["wait1", "wait", "look around"])
        if not h.things["freezer"].is_open:
            yield "open freezer"
        yield f"use thermometer on {h.name(sub)}"
        yield f"pick up {holder}"

    def melt(self, base: str) -> Iterator[str]:
        h = self.h
        h.task = f"melt {base}"
        yield from self.fetch("thermometer")
        holder = "bowl" if base == "chocolate" else "steel crucible"
        device = "stove" if base == "chocolate" else "blast furnace"
        yield from self.fetch(holder)
        yield from self.go("kitchen" if base == "chocolate" else "foundry")
        sub = h.substance_in(holder)
        if sub is None:
            return
        yield f"focus on {h.name(sub)}"
        if device == "stove" and h.substance_in("metal pot") and h.things["metal pot"].where == "stove":
            yield "pick up metal pot"
        yield f"move {holder} to {device}"
        yield f"activate {device}"
        yield from self.heat_or_cool(sub, SUBSTANCES[base][1])
        yield f"deactivate {device}"

    def grow(self) -> Iterator[str]:
        h, r = self.h, self.rng
        h.task = f"grow a {h.species} plant"
        seeds = [k for k, t in h.things.items() if t.kind == "plant" and t.where == "seed jar"]
        if not seeds:
            return
        yield from self.fetch(seeds[0])
        yield from self.go("greenhouse")
        pot = f"flower pot {r.randint(1, 3)}"
        yield f"move {h.name(seeds[0])} to {pot}"
        yield f"focus on {h.name(seeds[0])}"
        yield from self.fetch("watering can")
        for _ in range(60):
            if h.stage(h.things[seeds[0]]) == "flowering":
                break
            if h.things[pot].water <= 1:
                if h.substance_in("watering can") is None:
                    yield "move watering can to sink"
                    yield "activate sink"
                    yield "deactivate sink"
                    yield "pick up watering can"
                yield f"pour watering can into {pot}"
            else:
                yield r.choice(["wait", "wait", f"look at {pot}", "wait1", f"look at {h.name(seeds[0])}"])

    def paint(self) -> Iterator[str]:
        h, r = self.h, self.rng
        h.task = "mix a secondary color"
        yield from self.go("art studio")
        cups = [f"paint cup {i}" for i in (1, 2, 3)]
        a, b = r.sample(cups, 2)
        yield f"look at {a}"
        yield f"pour {a} into jug"
        yield f"pour {b} into jug"
        yield "mix jug"
        sub = h.substance_in("jug")
        if sub is not None:
            yield f"focus on {h.name(sub)}"

    def animal(self) -> Iterator[str]:
        h = self.h
        h.task = "find an animal"
        yield from self.go("outside")
        yield "look around"
        animals = [k for k, t in h.things.items() if t.kind == "animal"]
        yield f"look at {h.name(self.rng.choice(animals))}"
        yield f"focus on {h.name(animals[0])}"

    def run(self) -> Iterator[str]:
        tasks = [self.boil, lambda: self.freeze("water"), lambda: self.melt("chocolate"), self.grow, self.paint, self.animal, lambda: self.melt("tin"), lambda: self.freeze("orange juice")]
        self.rng.shuffle(tasks)
        yield "look around"
        for task in tasks:
            yield from self.detour()
            yield from task()
            self.h.task = "exploring"
            yield from self.detour()
        while True:
            yield from self.detour()


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed * 101 + 7)
    house = House(rng)
    agent = Experimenter(house, random.Random(seed * 7 + 3))
    length = rng.randint(340, 720)
    steps: list[Step] = []
    commands = agent.run()
    for t in range(length):
        command = next(commands)
        out = house.execute(command)
        summary = "; ".join(f"{e.kind} {e.obj}".strip() for e in out.events) or command
        steps.append(Step(
            t=t,
            action=command,
            summary=summary,
            objects=house.visible(),
            events=tuple(out.events),
            relations=tuple(out.relations),
            inventory=tuple(sorted(house.inventory().items())),
            state=tuple(sorted(house.state().items())),
            location=Location(region=house.room),
            observation=out.feedback[:400],
        ))
    return steps


# ------------------------------------------------------------------------------------------------
# How a user talks about it
# ------------------------------------------------------------------------------------------------


def vocab(steps: list[Step], name: str) -> Vocab:
    seen = {(e.kind, e.obj) for s in steps for e in s.events}
    ev: dict[Match, list] = {}
    for r in ROOMS:
        if r == "outside":
            ev[Match("visit", r)] = [vp("go outside", "trip outside"), vp("step outside"), vp("head outdoors"), vp("walk out into the open air")]
        else:
            ev[Match("visit", r)] = [vp(f"go to the {r}", f"arrival in the {r}"), vp(f"enter the {r}"), vp(f"arrive in the {r}"), vp(f"get to the {r}"), vp(f"head into the {r}")]
        ev[Match("open", f"door to the {r}")] = [vp(f"open the door to the {r}"), vp(f"open the {r} door"), vp(f"unbar the door leading to the {r}")]
        if ("close", f"door to the {r}") in seen:
            ev[Match("close", f"door to the {r}")] = [vp(f"close the door to the {r}"), vp(f"shut the {r} door")]
    for c in ("freezer", "fridge", "cupboard", "seed jar"):
        ev[Match("open", c)] = [vp(f"open the {c}"), vp(f"pull open the {c}")]
        ev[Match("close", c)] = [vp(f"close the {c}"), vp(f"shut the {c}")]
    portable = sorted({o for k, o in seen if k in ("collect", "place")} | {"thermometer", "metal pot", "glass cup", "rock", "battery", "steel crucible"})
    for x in portable:
        ev[Match("collect", x)] = [vp(f"pick up the {x}"), vp(f"take the {x}"), vp(f"grab the {x}"), vp(f"get the {x}")]
    for x in sorted({o for k, o in seen if k == "place"}):
        ev[Match("place", x)] = [vp(f"put down the {x}"), vp(f"set the {x} down"), vp(f"plant the {x}") if "seed" in x else vp(f"leave the {x} on the floor")]
    for x in sorted({o for k, o in seen if k == "move"}):
        ev[Match("move", x)] = [vp(f"move the {x} somewhere"), vp(f"transfer the {x}"), vp(f"put the {x} into something")]
    for x in sorted({o for k, o in seen if k == "eat"} | {"apple", "banana", "orange", "bread"}):
        ev[Match("eat", x)] = [vp(f"eat the {x}"), vp(f"have the {x} as a snack"), vp(f"munch on the {x}")]
    for device in ("stove", "sink", "blast furnace"):
        ev[Match("use", device)] = [vp(f"turn on the {device}"), vp(f"switch on the {device}"), vp(f"activate the {device}"), vp(f"fire up the {device}")]
    ev[Match("use", "thermometer")] = [vp("use the thermometer", "temperature reading"), vp("take a temperature reading"), vp("measure a temperature"), vp("check the thermometer")]
    for x in sorted({o for k, o in seen if k == "observe"}):
        ev[Match("observe", x)] = [vp(f"focus on the {x}"), vp(f"select the {x} as the focus"), vp(f"set the focus on the {x}")]
    for x in sorted({o for k, o in seen if k == "make"} | {"steam", "ice", "liquid chocolate", "liquid tin", "frozen orange juice", "green paint"}):
        ev[Match("make", x)] = [vp(f"produce {x}"), vp(f"end up with {x}"), vp(f"turn something into {x}")]
    for x in sorted({o for k, o in seen if k == "consume"}):
        ev[Match("consume", x)] = [vp(f"use up the {x}"), vp(f"spend the {x} in a mix")]
    tasks = sorted({o for k, o in seen if k == "achievement"} | {"boil water", "melt tin", "find an animal"})
    for x in tasks:
        ev[Match("achievement", x)] = [vp(f"complete the task '{x}'"), vp(f"finish the '{x}' task"), vp(f"accomplish the task to {x}")]
    ev[Match("achievement")] = [vp("complete a task"), vp("finish a task"), vp("accomplish an experiment")]
    ev[Match("visit")] = [vp("move to another room"), vp("change rooms"), vp("enter a room")]
    ev[Match("collect")] = [vp("pick something up"), vp("take an object")]
    ev[Match("open")] = [vp("open something"), vp("open a door or container")]
    ev[Match("make")] = [vp("produce a new substance"), vp("cause a change of state or a mix")]
    ev[Match("eat")] = [vp("eat something"), vp("have a snack")]
    ev[Match("observe")] = [vp("focus on something"), vp("choose a focus")]
    plurals = {
        "thermometer": "thermometers", "metal pot": "metal pots", "glass cup": "glass cups", "bowl": "bowls",
        "glass jar": "glass jars", "watering can": "watering cans", "steel crucible": "steel crucibles",
        "battery": "batteries", "wire": "wires", "rock": "rocks", "book": "books", "soap": "bars of soap",
        "jug": "jugs", "shovel": "shovels", "light bulb": "light bulbs",
    }  # fmt: skip
    items = {x: ItemWords((p,), (f"how many {p}",)) for x, p in plurals.items()}
    for x in ("apple", "banana", "orange", "peanut", "bread"):
        items[x] = ItemWords((f"{x}s" if x != "bread" else "loaves of bread",), (f"how many {x}s" if x != "bread" else "how many loaves of bread",))
    for stage in ("seed",):
        for sp in ("bean", "pea", "sunflower"):
            items[f"{sp} {stage}"] = ItemWords((f"{sp} seeds",), (f"how many {sp} seeds",))
    states = {
        "score": StateWords(("{P} score", "the task score", "{P} total score")),
        "task": StateWords(("the current task", "the task {S} {BE} working on", "the active task")),
        "focus": StateWords(("the object of focus", "the thing {S} {BE} focused on", "{P} current focus")),
        "stove on": StateWords(("the stove's on flag (true/false)", "the stove-on flag (true or false)")),
        "sink on": StateWords(("the kitchen sink's on flag (true/false)", "the running flag of the kitchen sink (true or false)")),
        "pot temperature": StateWords(("the temperature of the metal pot's contents", "the pot temperature", "the metal pot temperature"), unit=" degrees"),
        "pot contents": StateWords(("the contents of the metal pot", "the substance in the metal pot (or empty)")),
        "plant stage": StateWords(("the plant's growth stage", "the stage of the plant", "the life stage of the planted seed")),
        "open doors": StateWords(("the number of open doors", "the count of open doors")),
        "thermometer reading": StateWords(("the thermometer reading", "the last temperature {S} measured", "the temperature shown on the thermometer"), unit=" degrees"),
    }
    conds = [
        StateCond("stove on", True, "first", ("When was the stove first switched on?", "At which step was the stove on for the first time?"), ("when the stove was first on",)),
        StateCond("stove on", False, "first", ("When was the stove turned off again after {S} first switched it on?", "After the stove was first switched on, at which step was it off again?"), ("when the stove was first off again after {S} had switched it on",), after=Match("use", "stove")),
        StateCond("sink on", False, "first", ("When was the kitchen sink turned off again after {S} first turned it on?",), ("when the kitchen sink was off again after {S} first ran it",), after=Match("use", "sink")),
        StateCond("pot contents", "water", "first", ("When did the metal pot first hold liquid water?", "At which step was there water in the metal pot for the first time?"), ("when the metal pot first held water",)),
        StateCond("pot contents", "steam", "first", ("When did the metal pot first contain steam?", "At which step had the water in the pot first turned to steam?"), ("when the pot first contained steam",)),
        StateCond("plant stage", "seedling", "first", ("When did the plant first become a seedling?", "At which step did the seed first sprout into a seedling?"), ("when the plant first became a seedling",)),
        StateCond("plant stage", "adult", "first", ("When did the plant first reach the adult stage?",), ("when the plant first became an adult plant",)),
        StateCond("plant stage", "flowering", "first", ("When did the plant first flower?", "At which step was the plant first in its flowering stage?"), ("when the plant first flowered",)),
        StateCond("task", "exploring", "last", ("What was the last step at which {S} {BE} just exploring, with no task?",), ("the last time {S} {BE} between tasks",)),
    ]
    lists = {
        "visit": ["which rooms did {S} go to", "what rooms did {S} enter"],
        "collect": ["what did {S} pick up", "which objects did {S} take"],
        "make": ["what substances did {S} produce", "what new substances appeared"],
        "achievement": ["which tasks did {S} complete", "what tasks did {S} finish"],
        "observe": ["what did {S} focus on"],
        "open": ["what did {S} open"],
        "eat": ["what did {S} eat"],
        "use": ["what did {S} switch on or use"],
    }
    return Vocab(
        name=name,
        region_nouns=("room", "part of the house", "location"),
        events=ev,
        lists=lists,
        items=items,
        states=states,
        state_conds=conds,
        slots=("action", "location", "inventory", "item", "state", "events"),
    )


def build(seed: int) -> dict:
    """One simulated science episode for ``seed`` and its questions (see the module docstring)."""
    steps = rollout(seed)
    episode_id = f"{SUITE}-{seed}"
    name = _NAMES[seed % len(_NAMES)]
    writer = Writer(episode_id, steps, vocab(steps, name), seed)
    return {"episodes": {episode_id: steps}, "questions": writer.write(PER_FAMILY)}


if __name__ == "__main__":
    self_check(build, (9200, 9201))
