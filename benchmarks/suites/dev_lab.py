"""Development question suite on a science-lab simulator with tools.

A small lab building (a hallway with doors to a kitchen, greenhouse, workshop, laboratory, foundry,
art studio and bathroom; any room can also be reached by teleporting) holds substances, devices and
tools. A scripted experimenter works through a seeded list of tasks: melt a substance on the stove or
in the blast furnace while measuring its temperature, boil or freeze water, mix paints, grow a plant,
test which materials conduct electricity, and calls tools (unit converter, calculator, lab notebook,
periodic table, timer) along the way.

Each command becomes a ``graphmem.records.Step``: the command as action, the simulator's reply as
observation, events in the lab's own words ("focus on", "pick up", "move", "activate", "heat",
"measure", "melt", "boil", "freeze", "pour", "mix", "plant", "sprout", "connect", "run test",
"call tool", "teleport", "visit", "open", "close", "observe"), the room as region, what is carried
as inventory, and the last thermometer reading (float), the task stage (text), the stove, blast
furnace and light bulb (bools) and the score as state.

Development seeds: 100-199. Self-check: ``python -m benchmarks.suites.dev_lab 100 101``.

>>> data = build(100)
>>> len(data["questions"]), sorted({q["family"] for q in data["questions"]})[:2]
(60, ['10_existence', '1_step_index'])
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.suites._common import (
    ItemWords,
    StateWords,
    Vocab,
    make_questions,
    selfcheck,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "dev_lab"

ROOMS = ("hallway", "kitchen", "greenhouse", "workshop", "laboratory", "foundry", "art studio", "bathroom")
#: substance -> (where it is kept, its container there, starting temperature, melting point, heat source)
MELTABLE: dict[str, tuple[str, str, float, float, str]] = {
    "chocolate": ("kitchen", "fridge", 4.0, 45.0, "stove"),
    "butter": ("kitchen", "fridge", 4.0, 35.0, "stove"),
    "ice cube": ("kitchen", "freezer", -18.0, 0.0, "stove"),
    "wax": ("laboratory", "", 21.0, 62.0, "stove"),
    "tin": ("foundry", "", 21.0, 232.0, "blast furnace"),
    "lead": ("foundry", "", 21.0, 327.0, "blast furnace"),
}
HEATERS = {"stove": ("kitchen", "pot", 6.0, 14.0), "blast furnace": ("foundry", "crucible", 45.0, 90.0)}
MATERIALS = {"copper rod": True, "iron nail": True, "wooden stick": False, "plastic spoon": False, "glass rod": False}
PAINTS = {("blue", "red"): "purple paint", ("blue", "yellow"): "green paint", ("red", "yellow"): "orange paint"}
SEEDS = ("bean seed", "sunflower seed")
TOOLS = ("unit converter", "calculator", "lab notebook", "periodic table", "timer")


@dataclass
class Lab:
    """The simulated building: where things are, devices, temperatures, and the rules of commands."""

    rng: random.Random
    here: str = "hallway"
    where: dict[str, str] = field(default_factory=dict)  # thing -> room, container name, or "agent"
    temp: dict[str, float] = field(default_factory=dict)
    phase: dict[str, str] = field(default_factory=dict)
    doors_open: set[str] = field(default_factory=set)
    containers_open: set[str] = field(default_factory=set)
    devices_on: set[str] = field(default_factory=set)
    contents: dict[str, list[str]] = field(default_factory=dict)
    connected: list[str] = field(default_factory=list)
    watered_at: dict[str, int] = field(default_factory=dict)
    reading: float = 21.0
    stage: str = "idle"
    bulb_lit: bool = False
    score: int = 0
    turn: int = 0

    def room_of(self, thing: str) -> str:
        place = self.where.get(thing, "")
        seen: set[str] = set()
        while place in self.where and place not in seen:  # inside a container: the container's room
            seen.add(place)
            place = self.where[place]
        return place

    def reachable(self, thing: str) -> bool:
        place = self.where.get(thing)
        if place == "agent":
            return True
        if place in self.contents and place not in ("fridge", "freezer") or place in ("fridge", "freezer") and place in self.containers_open:
            return self.room_of(thing) == self.here
        return place == self.here

    def carried(self) -> dict[str, int]:
        return {t: 1 for t, p in sorted(self.where.items()) if p == "agent"}

    def _put(self, thing: str, place: str) -> None:
        old = self.where.get(thing)
        if old in self.contents and thing in self.contents[old]:
            self.contents[old].remove(thing)
        self.where[thing] = place
        if place in self.contents:
            self.contents[place].append(thing)

    # --- physics, once per command ---------------------------------------------------------------

    def _physics(self, events: list[Event]) -> None:
        for heater, (_, vessel, low, high) in HEATERS.items():
            if heater in self.devices_on:
                for thing in list(self.contents[vessel]):
                    self._warm(thing, self.rng.uniform(low, high), events)
        chilled = list(self.contents["freezer"])
        chilled += [inner for box in chilled for inner in self.contents.get(box, [])]  # a cup's water, too
        for thing in chilled:
            if thing in self.temp:
                self.temp[thing] = max(-18.0, self.temp[thing] - self.rng.uniform(3.0, 7.0))
                if thing == "water" and self.temp[thing] <= 0 and self.phase.get(thing) == "liquid":
                    self.phase[thing] = "solid"
                    events.append(Event("freeze", thing))
        for seed, since in list(self.watered_at.items()):
            if self.turn - since >= 6 and self.phase.get(seed) == "seed":
                self.phase[seed] = "sprout"
                events.append(Event("sprout", seed))

    def _warm(self, thing: str, amount: float, events: list[Event]) -> None:
        if thing not in self.temp:
            return
        self.temp[thing] += amount
        melting = MELTABLE[thing][3] if thing in MELTABLE else None
        if melting is not None and self.phase.get(thing) == "solid" and self.temp[thing] >= melting:
            self.phase[thing] = "liquid"
            events.append(Event("melt", thing))
        if thing in ("water", "ice cube") and self.phase.get(thing) == "liquid" and self.temp[thing] >= 100.0:
            self.temp[thing] = 100.0
            self.phase[thing] = "gas"
            events.append(Event("boil", "water"))
        if self.phase.get(thing) == "gas":
            self.temp[thing] = min(self.temp[thing], 100.0)

    # --- commands ------------------------------------------------------------------------------

    def do(self, command: str) -> tuple[str, list[Event], list[Relation]]:
        self.turn += 1
        events: list[Event] = []
        relations: list[Relation] = []
        reply = self._command(command, events, relations)
        self._physics(events)
        return reply, events, relations

    def _command(self, c: str, events: list[Event], relations: list[Relation]) -> str:
        if c.startswith("teleport to "):
            self.here = c[len("teleport to ") :]
            events.append(Event("teleport", self.here))
            return f"You teleport to the {self.here}."
        if c.startswith("go to "):
            room = c[len("go to ") :]
            door = room if room != "hallway" else self.here
            if "hallway" not in (room, self.here):
                return f"There is no way from the {self.here} to the {room} except through the hallway."
            if door not in self.doors_open:
                return f"The door to the {door} is closed."
            self.here = room
            events.append(Event("visit", room))
            return f"You walk into the {room}."
        if c.startswith(("open door to ", "close door to ")):
            opening = c.startswith("open")
            room = c.split(" to ", 1)[1]
            if opening == (room in self.doors_open):
                return "Nothing changes."
            (self.doors_open.add if opening else self.doors_open.discard)(room)
            events.append(Event("open" if opening else "close", f"door to {room}"))
            return f"The door to the {room} is now {'open' if opening else 'closed'}."
        verb, _, rest = c.partition(" ")
        if verb in ("open", "close") and rest in ("fridge", "freezer"):
            (self.containers_open.add if verb == "open" else self.containers_open.discard)(rest)
            events.append(Event(verb, rest))
            return f"The {rest} is now {'open' if verb == 'open' else 'closed'}."
        if c.startswith("pick up "):
            thing = c[len("pick up ") :]
            if not self.reachable(thing):
                return f"There is no {thing} here."
            self._put(thing, "agent")
            events.append(Event("pick up", thing))
            return f"You pick up the {thing}."
        if c.startswith("put down "):
            thing = c[len("put down ") :]
            if self.where.get(thing) != "agent":
                return f"You are not holding the {thing}."
            self._put(thing, self.here)
            events.append(Event("put down", thing))
            return f"You put down the {thing}."
        if c.startswith("move "):
            thing, _, box = c[len("move ") :].partition(" to ")
            if not self.reachable(thing) or self.room_of(box) != self.here and self.where.get(box) != self.here:
                return "You cannot do that."
            self._put(thing, box)
            events.append(Event("move", thing))
            relations.append(Relation(thing, "in", box))
            return f"You move the {thing} to the {box}."
        if c.startswith("focus on "):
            thing = c[len("focus on ") :]
            events.append(Event("focus on", thing))
            return f"You focus on the {thing}."
        if verb in ("activate", "deactivate"):
            if rest not in HEATERS or HEATERS[rest][0] != self.here:
                return f"There is no {rest} here."
            (self.devices_on.add if verb == "activate" else self.devices_on.discard)(rest)
            events.append(Event(verb, rest))
            return f"The {rest} is now {'on' if verb == 'activate' else 'off'}."
        if verb == "heat":
            vessel = next((v for h, (_, v, _, _) in HEATERS.items() if rest in self.contents[v] and h in self.devices_on), None)
            if vessel is None:
                return f"The {rest} is not on a running heat source."
            self._warm(rest, self.rng.uniform(4.0, 10.0) * (6 if vessel == "crucible" else 1), events)
            events.insert(0, Event("heat", rest))
            return f"You heat the {rest}."
        if c.startswith("measure temperature of "):
            thing = c[len("measure temperature of ") :]
            if self.where.get("thermometer") != "agent" or not self.reachable(thing) and self.room_of(thing) != self.here:
                return "You need a thermometer and the thing in front of you."
            self.reading = round(self.temp.get(thing, 21.0) + self.rng.uniform(-0.4, 0.4), 1)
            events.append(Event("measure", thing))
            return f"The thermometer reads {self.reading:g} degrees celsius."
        if c.startswith("pour "):
            liquid, _, box = c[len("pour ") :].partition(" into ")
            if liquid == "water":
                if self.here not in ("kitchen", "bathroom", "greenhouse"):
                    return "There is no water source here."
                self.temp["water"] = 21.0 if "water" not in self.temp or self.phase.get("water") != "liquid" else self.temp["water"]
                self.phase["water"] = "liquid"
            elif self.where.get(liquid) != "agent":
                return f"You are not holding the {liquid}."
            if liquid.endswith(" paint"):
                self.contents[box].append(liquid)  # some paint goes in; the jar stays in hand
            else:
                self._put(liquid, box)
            events.append(Event("pour", liquid))
            relations.append(Relation(liquid, "in", box))
            if box == "flower pot":
                for seed in self.contents["flower pot"]:
                    if seed in SEEDS and seed not in self.watered_at:
                        self.watered_at[seed] = self.turn
            return f"You pour the {liquid} into the {box}."
        if c.startswith("mix "):
            box = c[len("mix ") :]
            paints = sorted(p.split()[0] for p in self.contents.get(box, []) if p.split()[0] in ("red", "blue", "yellow"))
            result = PAINTS.get((paints[0], paints[1])) if len(paints) == 2 else None
            if result is None:
                return "Nothing to mix."
            self.contents[box] = [p for p in self.contents[box] if p.split()[0] not in ("red", "blue", "yellow")]
            self._put(result, box)
            events.append(Event("mix", result))
            return f"The paints blend into {result}."
        if c.startswith("plant "):
            seed = c[len("plant ") :].split(" in ")[0]
            if self.where.get(seed) != "agent" or self.here != "greenhouse":
                return "You cannot plant that here."
            self._put(seed, "flower pot")
            self.phase[seed] = "seed"
            events.append(Event("plant", seed))
            return f"You plant the {seed} in the flower pot."
        if verb in ("connect", "disconnect"):
            thing = rest.split(" to ")[0]
            if verb == "connect":
                if self.where.get(thing) != "agent" and not self.reachable(thing):
                    return f"There is no {thing} here."
                self.connected.append(thing)
            elif thing in self.connected:
                self.connected.remove(thing)
            else:
                return f"The {thing} is not connected."
            events.append(Event(verb, thing))
            self.bulb_lit = self._circuit_closed()
            return f"You {verb} the {thing}." + (" The light bulb glows." if self.bulb_lit else "")
        if c.startswith("run test on "):
            thing = c[len("run test on ") :]
            events.append(Event("run test", thing))
            self.bulb_lit = self._circuit_closed()
            return "The light bulb " + ("glows: the circuit conducts." if self.bulb_lit else "stays dark: no current flows.")
        if c.startswith("call tool "):
            tool, _, query = c[len("call tool ") :].partition(": ")
            events.append(Event("call tool", tool))
            return f"[{tool}] {_tool_answer(tool, query)}"
        if c.startswith("look at "):
            thing = c[len("look at ") :]
            events.append(Event("observe", thing))
            inside = ", ".join(self.contents.get(thing, [])) or "nothing"
            return f"The {thing} holds {inside}." + (" A green sprout shows." if any(self.phase.get(s) == "sprout" for s in self.contents.get(thing, [])) else "")
        if c == "look around":
            things = sorted(t for t, p in self.where.items() if p == self.here)
            return f"You are in the {self.here}. You see: {', '.join(things) or 'nothing much'}."
        if c == "inventory":
            return "You carry: " + (", ".join(self.carried()) or "nothing") + "."
        if c == "wait":
            return "You wait."
        return "I don't understand that."

    def _circuit_closed(self) -> bool:
        needed = {"battery", "wire", "light bulb"}
        if not needed <= set(self.connected):
            return False
        probes = [t for t in self.connected if t in MATERIALS]
        return all(MATERIALS[t] for t in probes)


def _tool_answer(tool: str, query: str) -> str:
    if tool == "unit converter" and query:
        celsius = float(query.split()[0])
        return f"{celsius:g} C = {celsius * 9 / 5 + 32:.1f} F"
    if tool == "calculator" and query:
        a, _, b = query.partition(" - ")
        return f"{float(a) - float(b):.1f}"
    if tool == "lab notebook":
        return "Entry saved."
    if tool == "periodic table" and query:
        return f"{query}: metal" if query in ("tin", "lead", "copper", "iron") else f"{query}: not an element"
    return "Done."


def new_lab(rng: random.Random) -> Lab:
    lab = Lab(rng)
    for box in ("pot", "crucible", "fridge", "freezer", "flower pot", "bowl", "beaker", "cup", "trash can"):
        lab.contents[box] = []
    lab.where.update({"pot": "kitchen", "fridge": "kitchen", "freezer": "kitchen", "trash can": "kitchen", "cup": "kitchen"})
    lab.where.update({"crucible": "foundry", "flower pot": "greenhouse", "bowl": "art studio", "beaker": "laboratory"})
    lab.where["thermometer"] = rng.choice(["laboratory", "kitchen", "workshop"])
    for thing, (room, box, start, _, _) in MELTABLE.items():
        lab._put(thing, box or room)
        lab.temp[thing] = start
        lab.phase[thing] = "solid"
    for thing in list(MATERIALS) + ["battery", "wire", "light bulb"]:
        lab.where[thing] = "workshop"
    for seed in SEEDS:
        lab.where[seed] = "greenhouse"
    for color in ("red", "blue", "yellow"):
        lab.where[f"{color} paint"] = "art studio"
    lab.doors_open = {r for r in ROOMS if r != "hallway" and rng.random() < 0.3}
    return lab


# --------------------------------------------------------------------------------------------------
# The scripted experimenter
# --------------------------------------------------------------------------------------------------


class Experimenter:
    """Works through tasks; each task is a generator of commands that reads the lab as it goes."""

    def __init__(self, lab: Lab, rng: random.Random) -> None:
        self.lab = lab
        self.rng = rng

    def go(self, room: str) -> Iterator[str]:
        lab = self.lab
        if lab.here == room:
            return
        if self.rng.random() < 0.45:
            yield f"teleport to {room}"
            return
        if lab.here != "hallway":
            if lab.here not in lab.doors_open:
                yield f"open door to {lab.here}"
            yield "go to hallway"
        if room != "hallway":
            if room not in lab.doors_open:
                yield f"open door to {room}"
            yield f"go to {room}"
            if self.rng.random() < 0.25:
                yield f"close door to {room}"

    def fetch(self, thing: str) -> Iterator[str]:
        lab = self.lab
        if lab.where.get(thing) == "agent":
            return
        yield from self.go(lab.room_of(thing))
        box = lab.where.get(thing)
        if box in ("fridge", "freezer") and box not in lab.containers_open:
            yield f"open {box}"
        yield f"pick up {thing}"
        if box in ("fridge", "freezer") and self.rng.random() < 0.7:
            yield f"close {box}"

    def tool(self, tool: str, query: str = "") -> Iterator[str]:
        yield f"call tool {tool}" + (f": {query}" if query else "")

    def fidget(self) -> Iterator[str]:
        roll = self.rng.random()
        if roll < 0.3:
            yield "look around"
        elif roll < 0.5:
            yield "inventory"
        elif roll < 0.7:
            tool = self.rng.choice(["timer", "periodic table", "calculator"])
            yield from self.tool(tool, self._tool_query(tool))
        else:
            yield "wait"

    def _tool_query(self, tool: str) -> str:
        if tool == "calculator":
            return f"{self.rng.randint(50, 300)} - {self.rng.randint(1, 49)}"
        if tool == "periodic table":
            return self.rng.choice(["tin", "copper", "lead", "water"])
        return self.rng.choice(["", "30 s", "2 min"])

    def _set(self, stage: str) -> None:
        self.lab.stage = stage

    def _heat_until(self, thing: str, heater: str, done: str) -> Iterator[str]:
        lab = self.lab
        for _ in range(60):
            if lab.phase.get(thing) == done:
                break
            roll = self.rng.random()
            if roll < 0.45:
                yield f"heat {thing}"
            elif roll < 0.8:
                yield f"measure temperature of {thing}"
            elif roll < 0.9:
                yield "wait"
            else:
                yield from self.fidget()
        yield f"measure temperature of {thing}"

    def melt(self, thing: str) -> Iterator[str]:
        lab = self.lab
        heater = MELTABLE[thing][4]
        room, vessel = HEATERS[heater][0], HEATERS[heater][1]
        self._set("preparing")
        yield f"focus on {thing}"
        yield from self.fetch("thermometer")
        yield from self.fetch(thing)
        yield f"measure temperature of {thing}"
        yield from self.go(room)
        yield f"move {thing} to {vessel}"
        yield f"activate {heater}"
        self._set("heating")
        yield from self._heat_until(thing, heater, "liquid")
        self._set("recording")
        yield f"deactivate {heater}"
        yield from self.tool("unit converter", f"{lab.reading:g} C to F")
        yield from self.tool("lab notebook", f"{thing} melted near {lab.reading:g} C")
        yield f"move {thing} to trash can" if room == "kitchen" else f"look at {vessel}"
        lab.score += 10
        self._set("done")

    def boil(self) -> Iterator[str]:
        lab = self.lab
        self._set("preparing")
        yield "focus on water"
        yield from self.fetch("thermometer")
        yield from self.go("kitchen")
        yield "pour water into pot"
        yield "activate stove"
        self._set("heating")
        yield from self._heat_until("water", "stove", "gas")
        self._set("recording")
        yield "deactivate stove"
        yield from self.tool("lab notebook", f"water boiled at {lab.reading:g} C")
        lab.score += 10
        self._set("done")

    def freeze(self) -> Iterator[str]:
        lab = self.lab
        self._set("preparing")
        yield "focus on water"
        yield from self.fetch("thermometer")
        yield from self.go("kitchen")
        if lab.where.get("water") == "pot":
            lab._put("water", "used")
        yield "pour water into cup"
        if "freezer" not in lab.containers_open:
            yield "open freezer"
        yield "move cup to freezer"
        yield "close freezer"
        self._set("cooling")
        for _ in range(40):
            if lab.phase.get("water") == "solid":
                break
            roll = self.rng.random()
            if roll < 0.5:
                yield "wait"
            elif roll < 0.8:
                yield "open freezer"
                yield "measure temperature of water"
                yield "close freezer"
            else:
                yield from self.fidget()
        yield "open freezer"
        yield "measure temperature of water"
        self._set("recording")
        yield from self.tool("calculator", f"21 - {lab.reading:g}")
        lab.score += 10
        self._set("done")

    def mix(self, a: str, b: str) -> Iterator[str]:
        self._set("preparing")
        result = PAINTS[tuple(sorted((a, b)))]  # type: ignore[index]
        yield f"focus on {result}"
        for color in (a, b):
            yield from self.fetch(f"{color} paint")
        yield from self.go("art studio")
        self._set("mixing")
        for color in (a, b):
            yield f"pour {color} paint into bowl"
        yield "mix bowl"
        yield "look at bowl"
        yield f"pick up {result}"
        self._set("done")
        self.lab.score += 5

    def grow(self, seed: str) -> Iterator[str]:
        lab = self.lab
        self._set("preparing")
        yield f"focus on {seed}"
        yield from self.go("greenhouse")
        yield f"pick up {seed}"
        yield f"plant {seed} in flower pot"
        yield "pour water into flower pot"
        self._set("growing")
        for _ in range(30):
            if lab.phase.get(seed) == "sprout":
                break
            yield self.rng.choice(["wait", "wait", "look at flower pot"])
        yield "look at flower pot"
        self._set("done")
        lab.score += 10

    def conductivity(self, material: str) -> Iterator[str]:
        lab = self.lab
        self._set("preparing")
        yield f"focus on {material}"
        yield from self.go("workshop")
        for part in ("battery", "wire", "light bulb"):
            if part not in lab.connected:
                if lab.where.get(part) != "agent" and self.rng.random() < 0.5:
                    yield f"pick up {part}"
                yield f"connect {part} to circuit"
        yield "run test on circuit"
        self._set("testing")
        yield f"pick up {material}"
        yield f"connect {material} to circuit"
        yield f"run test on {material}"
        yield from self.tool("lab notebook", f"{material} conducts: {'yes' if lab.bulb_lit else 'no'}")
        yield f"disconnect {material}"
        yield f"put down {material}"
        self._set("done")
        lab.score += 5

    def survey(self, room: str) -> Iterator[str]:
        """Measure whatever lies in a room and note it down."""
        lab = self.lab
        self._set("surveying")
        yield from self.fetch("thermometer")
        yield from self.go(room)
        yield "look around"
        things = sorted(t for t, p in lab.where.items() if p == room and t in lab.temp)
        if things:
            thing = self.rng.choice(things)
            yield f"focus on {thing}"
            yield f"measure temperature of {thing}"
            yield from self.tool("lab notebook", f"{thing} in the {room}: {lab.reading:g} C")
        self._set("done")

    def tasks(self) -> Iterator[Iterator[str]]:
        rng = self.rng
        meltables = list(MELTABLE)
        rng.shuffle(meltables)
        colors = [("red", "blue"), ("blue", "yellow"), ("red", "yellow")]
        rng.shuffle(colors)
        materials = list(MATERIALS)
        rng.shuffle(materials)
        plan: list[Iterator[str]] = (
            [self.melt(m) for m in meltables]
            + [self.boil(), self.freeze()]
            + [self.mix(a, b) for a, b in colors]
            + [self.grow(s) for s in SEEDS]
            + [self.conductivity(m) for m in materials]
        )
        order = list(range(len(plan)))
        rng.shuffle(order)
        for i in order:
            yield plan[i]
            if rng.random() < 0.5:
                yield self.fidget()

    def commands(self) -> Iterator[str]:
        for task in self.tasks():
            yield from task
        while True:  # the planned tasks are done: surveys and re-tests until the session ends
            if self.rng.random() < 0.5:
                yield from self.survey(self.rng.choice(ROOMS))
            else:
                yield from self.conductivity(self.rng.choice(sorted(MATERIALS)))
            yield from self.fidget()


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed)
    lab = new_lab(rng)
    agent = Experimenter(lab, rng)
    steps: list[Step] = []
    length = rng.randint(350, 750)
    for t, command in enumerate(agent.commands()):
        if t == length:
            break
        reply, events, relations = lab.do(command)
        steps.append(
            Step(
                t=t,
                action=command,
                events=tuple(events),
                relations=tuple(relations),
                objects=tuple(sorted(x for x, p in lab.where.items() if p == lab.here)),
                inventory=tuple(sorted(lab.carried().items())),
                state=(
                    ("bulb lit", lab.bulb_lit),
                    ("furnace on", "blast furnace" in lab.devices_on),
                    ("score", lab.score),
                    ("stage", lab.stage),
                    ("stove on", "stove" in lab.devices_on),
                    ("temperature", lab.reading),
                ),
                location=Location(region=lab.here),
                observation=reply,
            )
        )
    return steps


# --------------------------------------------------------------------------------------------------
# The suite's words
# --------------------------------------------------------------------------------------------------

_KIND_PHRASES: dict[str, list[str]] = {
    "focus on": ["focus on the {o}", "select the {o} as the focus", "concentrate on the {o}"],
    "pick up": ["pick up the {o}", "grab the {o}", "take the {o}"],
    "put down": ["put down the {o}", "set the {o} down"],
    "move": ["move the {o} into a container", "transfer the {o}", "place the {o} in a vessel"],
    "activate": ["activate the {o}", "turn on the {o}", "switch on the {o}", "fire up the {o}"],
    "deactivate": ["deactivate the {o}", "turn off the {o}", "switch off the {o}"],
    "heat": ["heat the {o}", "warm up the {o}", "apply heat to the {o}"],
    "measure": ["measure the temperature of the {o}", "take the temperature of the {o}", "check how hot the {o} was"],
    "melt": ["see the {o} melt", "watch the {o} melt", "get the {o} to melt"],
    "boil": ["see the {o} boil", "bring the {o} to a boil", "watch the {o} boil"],
    "freeze": ["see the {o} freeze", "get the {o} to freeze", "watch the {o} turn to ice"],
    "sprout": ["see the {o} sprout", "watch the {o} sprout", "get the {o} to sprout"],
    "pour": ["pour {o}", "pour some {o}", "pour out {o}"],
    "mix": ["mix the paints into {o}", "make {o} by mixing", "produce {o} by mixing paints"],
    "plant": ["plant the {o}", "sow the {o}", "put the {o} in soil"],
    "connect": ["connect the {o}", "wire up the {o}", "hook up the {o}"],
    "disconnect": ["disconnect the {o}", "unhook the {o}"],
    "run test": ["run a test on the {o}", "test the {o}", "run a conductivity test on the {o}"],
    "call tool": ["call the {o} tool", "use the {o}", "invoke the {o}", "query the {o}"],
    "teleport": ["teleport to the {o}", "beam over to the {o}", "jump straight to the {o}"],
    "visit": ["walk into the {o}", "walk over to the {o}", "arrive at the {o} on foot"],
    "open": ["open the {o}"],
    "close": ["close the {o}", "shut the {o}"],
    "observe": ["look at the {o}", "inspect the {o}", "examine the {o}"],
}
_GENERIC: dict[str, list[str]] = {
    "pick up": ["pick something up", "pick up anything"],
    "measure": ["measure a temperature", "take a temperature reading"],
    "call tool": ["call a tool", "use any tool"],
    "teleport": ["teleport anywhere", "teleport somewhere"],
    "focus on": ["focus on something", "focus on anything"],
    "pour": ["pour something", "pour anything"],
    "heat": ["heat something", "heat anything"],
    "run test": ["run a test", "run any test"],
    "visit": ["walk into a room", "walk into any room"],
    "move": ["move something into a container", "transfer anything"],
}
_WHAT: dict[str, list[str]] = {
    "pick up": ["pick up", "grab"],
    "measure": ["measure"],
    "call tool": ["call", "use"],
    "teleport": ["teleport to"],
    "focus on": ["focus on"],
    "pour": ["pour"],
    "heat": ["heat"],
    "run test": ["run tests on", "test"],
    "visit": ["walk into"],
    "move": ["move", "transfer"],
}


def event_phrases(kind: str, obj: str | None) -> list[str]:
    """Base verb phrases for one lab event (``obj`` None: any object of the kind)."""
    if obj is None:
        return _GENERIC.get(kind, [])
    words = obj.replace("door to ", "door to the ") if obj.startswith("door to ") else obj
    return [p.format(o=words) for p in _KIND_PHRASES.get(kind, [])]


def event_nouns(kind: str, obj: str | None) -> list[str]:
    """Nouns for one lab event ("arrival in the kitchen", "temperature reading of the wax")."""
    if obj is None:
        return []
    return {
        "teleport": [f"teleport to the {obj}", f"arrival in the {obj} by teleport"],
        "visit": [f"arrival in the {obj} on foot", f"walk into the {obj}"],
        "measure": [f"temperature reading of the {obj}", f"measurement of the {obj}"],
        "call tool": [f"call to the {obj}", f"use of the {obj}"],
        "run test": [f"test of the {obj}"],
        "focus on": [f"focus on the {obj}"],
    }.get(kind, [])


def vocab() -> Vocab:
    names = list(MELTABLE) + list(MATERIALS) + list(SEEDS) + ["thermometer", "battery", "wire", "light bulb"]
    names += [f"{c} paint" for c in ("red", "blue", "yellow")] + list(PAINTS.values())
    items = {n: ItemWords((n,), mass=n in ("chocolate", "butter", "wax", "tin", "lead") or n.endswith(" paint")) for n in names}
    states = {
        "temperature": StateWords(("the temperature reading", "the last measured temperature", "the thermometer reading"), "float", unit="degrees"),
        "stage": StateWords(("{poss} task stage", "the experiment stage", "the current stage of the task"), "text"),
        "stove on": StateWords(("the stove",), "bool", true_words=("on", "running"), switched_on=("turned on", "switched on", "activated")),
        "furnace on": StateWords(("the blast furnace", "the furnace"), "bool", true_words=("on", "running"), switched_on=("turned on", "fired up")),
        "bulb lit": StateWords(("the light bulb", "the bulb"), "bool", true_words=("lit", "glowing"), switched_on=("lit up",)),
        "score": StateWords(("{poss} score", "the task score"), "int"),
    }
    absent = tuple(
        [("melt", m) for m in MELTABLE]
        + [("boil", "water"), ("freeze", "water")]
        + [("mix", p) for p in PAINTS.values()]
        + [("sprout", s) for s in SEEDS]
        + [("run test", m) for m in MATERIALS]
        + [("call tool", t) for t in TOOLS]
        + [("teleport", r) for r in ROOMS]
    )
    return Vocab(
        name="Curie",
        region_nouns=("room", "part of the building"),
        event_phrases=event_phrases,
        event_nouns=event_nouns,
        what_verbs=lambda kind: _WHAT.get(kind, []),
        items=items,
        states=states,
        slots=("action", "step", "location", "item", "inventory", "state", "events"),
        absent_events=absent,
        kind_weights={"open": 0.5, "close": 0.5, "put down": 0.6, "observe": 0.6},
        place_kinds=("visit", "teleport"),
        list_nouns={"teleport": ("rooms", "places"), "call tool": ("tools",), "visit": ("rooms",), "run test": ("things",)},
    )


def build(seed: int) -> dict[str, Any]:
    """One lab session of ``seed`` and 60 checked questions about it.

    >>> list(build(101)["episodes"])
    ['lab-101']
    """
    episode = f"lab-{seed}"
    steps = rollout(seed)
    return {"episodes": {episode: steps}, "questions": make_questions(episode, steps, vocab(), seed)}


if __name__ == "__main__":
    import sys

    selfcheck(build, [int(a) for a in sys.argv[1:]] or [100, 101])
