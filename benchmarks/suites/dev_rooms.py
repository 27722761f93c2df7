"""Development question suite on a text adventure in a generated house.

The house (10-13 rooms on a grid, doors between some of them, two locked with keys, containers such
as a fridge or a locked trunk, food, treasures, things to read, scenery to examine, dark rooms that
need the lamp) is generated from the seed. A scripted adventurer explores it: it opens doors and
containers, unlocks what it has keys for, takes things, eats when hungry, reads what it finds, puts
treasures into the trophy case, and later wanders, drops, stores and re-takes things.

Each command becomes a ``graphmem.records.Step``: the command as action, the game's reply as
observation, events in the game's own words ("enter", "take", "drop", "open", "close", "unlock",
"put", "eat", "read", "examine", "turn on", "turn off"), the room as region, what is carried as
inventory, and score, moves, hunger and the lamp (a bool) as state.

Development seeds: 100-199. Self-check: ``python -m benchmarks.suites.dev_rooms 100 101``.

>>> data = build(100)
>>> len(data["questions"]), sorted({q["family"] for q in data["questions"]})[:2]
(60, ['10_existence', '1_step_index'])
"""

from __future__ import annotations

import random
from collections import Counter, deque
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

SUITE = "dev_rooms"

ROOM_POOL = (
    "hallway", "dining room", "pantry", "study", "library", "bedroom", "bathroom", "attic", "shed",
    "porch", "conservatory", "gallery", "nursery", "workshop", "music room",
)
ALWAYS = ("kitchen", "living room", "garden", "cellar")
DARK = {"cellar", "attic"}
TREASURES = ("ruby", "gold coin", "silver ring", "jade figurine", "pearl necklace", "emerald", "crystal bell")
FOODS = ("bread", "cheese", "carrot", "cookie", "banana", "sandwich", "pie", "plum")
READABLES = ("letter", "diary", "map", "recipe card", "newspaper", "old book", "postcard")
TOOLS = ("rope", "hammer", "candle", "umbrella", "matchbox", "screwdriver", "teacup")
KEYS = ("brass key", "iron key", "small key")
DOORS = ("oak door", "red door", "glass door", "green door", "iron gate", "blue door", "trapdoor")
CONTAINER_BY_ROOM = {
    "kitchen": ("fridge", "cupboard"),
    "study": ("desk drawer",),
    "bedroom": ("wardrobe", "nightstand"),
    "shed": ("toolbox",),
    "attic": ("old trunk",),
    "pantry": ("bread bin",),
    "library": ("cabinet",),
    "workshop": ("crate",),
    "bathroom": ("medicine cabinet",),
}
SCENERY = ("painting", "grandfather clock", "fireplace", "mirror", "statue", "rug", "window", "piano", "bookshelf", "sink")
MASS_FOODS = {"bread", "cheese"}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
STEP_OF = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}


@dataclass
class Door:
    name: str
    open: bool = False
    locked: bool = False
    key: str = ""


@dataclass
class Container:
    name: str
    room: str
    open: bool = False
    locked: bool = False
    key: str = ""
    contents: list[str] = field(default_factory=list)


@dataclass
class House:
    """The simulated world and the rules of its commands."""

    rooms: list[str]
    exits: dict[str, dict[str, str]]
    doors: dict[frozenset[str], Door]
    floor: dict[str, list[str]]
    containers: dict[str, Container]
    scenery: dict[str, list[str]]
    here: str
    carried: Counter[str] = field(default_factory=Counter)
    lamp_on: bool = False
    score: int = 0
    moves: int = 0
    hunger: int = 0
    turn: int = 0
    visited: set[str] = field(default_factory=set)
    read_once: set[str] = field(default_factory=set)
    scored_treasures: set[str] = field(default_factory=set)

    # --- what can be seen --------------------------------------------------------------------------

    def lit(self, room: str | None = None) -> bool:
        room = self.here if room is None else room
        return room not in DARK or (self.lamp_on and self.carried["lamp"] > 0)

    def room_containers(self, room: str | None = None) -> list[Container]:
        room = self.here if room is None else room
        return [c for c in self.containers.values() if c.room == room]

    def visible_items(self) -> list[str]:
        if not self.lit():
            return []
        items = list(self.floor[self.here])
        for c in self.room_containers():
            if c.open:
                items += c.contents
        if self.here == "garden":
            items.append("apple")  # the apple tree always has one more
        return items

    def door_between(self, a: str, b: str) -> Door | None:
        return self.doors.get(frozenset((a, b)))

    def describe(self) -> str:
        if not self.lit():
            return f"{self.here.title()}. It is pitch dark; you can hardly see your hand."
        parts = [f"{self.here.title()}."]
        things = self.floor[self.here] + [c.name for c in self.room_containers()] + self.scenery[self.here]
        if self.here == "garden":
            things.append("apple tree")
        if things:
            parts.append("You see " + ", ".join(f"a {t}" for t in things) + ".")
        exits = []
        for d, room in sorted(self.exits[self.here].items()):
            door = self.door_between(self.here, room)
            exits.append(f"{d} ({door.name}, {'open' if door.open else 'closed'})" if door else d)
        parts.append("Exits: " + ", ".join(exits) + ".")
        return " ".join(parts)

    # --- commands ------------------------------------------------------------------------------

    def do(self, command: str) -> tuple[str, list[Event], list[Relation]]:
        """Run one command: (reply, events, relations)."""
        self.turn += 1
        if self.turn % 10 == 0:
            self.hunger += 1
        verb, _, rest = command.partition(" ")
        events: list[Event] = []
        relations: list[Relation] = []
        reply = "Nothing happens."
        if verb == "go":
            reply = self._go(rest, events)
        elif verb == "take":
            reply = self._take(rest.split(" from ")[0], events)
        elif verb == "drop":
            if self.carried[rest]:
                self.carried[rest] -= 1
                self.floor[self.here].append(rest)
                if rest == "lamp":
                    self.lamp_on = False
                events.append(Event("drop", rest))
                reply = "Dropped."
        elif verb in ("open", "close"):
            reply = self._open_close(verb, rest, events)
        elif verb == "unlock":
            target, _, key = rest.partition(" with ")
            reply = self._unlock(target, key, events)
        elif verb == "put":
            item, _, box = rest.partition(" in ")
            c = self.containers.get(box)
            if self.carried[item] and c is not None and c.room == self.here and c.open:
                self.carried[item] -= 1
                c.contents.append(item)
                events.append(Event("put", item))
                relations.append(Relation(item, "in", box))
                reply = f"You put the {item} in the {box}."
                if box == "trophy case" and item in TREASURES and item not in self.scored_treasures:
                    self.scored_treasures.add(item)
                    self.score += 10
                    reply += " Your score goes up by 10."
        elif verb == "eat":
            if self.carried[rest]:
                self.carried[rest] -= 1
                self.hunger = max(0, self.hunger - 4)
                self.score += 1
                events.append(Event("eat", rest))
                reply = f"You eat the {rest}. Delicious."
        elif verb == "read":
            if self.carried[rest]:
                events.append(Event("read", rest))
                reply = f"The {rest} reads: '{_text_of(rest)}'"
                if rest not in self.read_once:
                    self.read_once.add(rest)
                    self.score += 2
        elif verb == "examine":
            visible = self.scenery[self.here] + [c.name for c in self.room_containers()] + list(self.carried)
            if self.lit() and rest in visible:
                events.append(Event("examine", rest))
                reply = f"You look closely at the {rest}. {_detail_of(rest)}"
        elif verb == "turn":
            state = rest.split()[0]
            if self.carried["lamp"]:
                self.lamp_on = state == "on"
                events.append(Event(f"turn {state}", "lamp"))
                reply = f"The lamp is now {state}."
        elif command == "look":
            reply = self.describe()
        elif command == "inventory":
            held = sorted(k for k, v in self.carried.items() if v)
            reply = "You are carrying: " + (", ".join(held) if held else "nothing") + "."
        elif command == "wait":
            reply = "Time passes."
        return reply, events, relations

    def _go(self, d: str, events: list[Event]) -> str:
        room = self.exits[self.here].get(d)
        if room is None:
            return "You can't go that way."
        door = self.door_between(self.here, room)
        if door is not None and not door.open:
            return f"The {door.name} is closed."
        self.here = room
        self.moves += 1
        if room not in self.visited:
            self.visited.add(room)
            self.score += 1
        events.append(Event("enter", room))
        return self.describe()

    def _take(self, item: str, events: list[Event]) -> str:
        if item not in self.visible_items():
            return "You don't see that here."
        if sum(self.carried.values()) >= 8:
            return "Your hands are full."
        if item in self.floor[self.here]:
            self.floor[self.here].remove(item)
        elif not (self.here == "garden" and item == "apple"):
            for c in self.room_containers():
                if c.open and item in c.contents:
                    c.contents.remove(item)
                    break
        self.carried[item] += 1
        events.append(Event("take", item))
        return "Taken."

    def _target(self, name: str) -> Door | Container | None:
        c = self.containers.get(name)
        if c is not None and c.room == self.here:
            return c
        for room in self.exits[self.here].values():
            door = self.door_between(self.here, room)
            if door is not None and door.name == name:
                return door
        return None

    def _open_close(self, verb: str, name: str, events: list[Event]) -> str:
        target = self._target(name)
        # Doors can be found by touch; containers need light.
        if target is None or (isinstance(target, Container) and not self.lit()):
            return "You don't see that here."
        if verb == "open":
            if target.locked:
                return f"The {name} is locked."
            if target.open:
                return f"The {name} is already open."
            target.open = True
            events.append(Event("open", name))
            if isinstance(target, Container):
                inside = ", ".join(target.contents) or "nothing"
                return f"You open the {name}. Inside: {inside}."
            return f"The {name} swings open."
        if not target.open:
            return f"The {name} is already closed."
        target.open = False
        events.append(Event("close", name))
        return f"You close the {name}."

    def _unlock(self, name: str, key: str, events: list[Event]) -> str:
        target = self._target(name)
        if target is None or not target.locked:
            return "There is nothing to unlock."
        if not self.carried[key] or key != target.key:
            return "That key does not fit."
        target.locked = False
        self.score += 3
        events.append(Event("unlock", name))
        return f"The {name} unlocks with a click."


def _text_of(item: str) -> str:
    return {
        "letter": "Meet me in the garden at noon.",
        "diary": "Day 12. The cellar is darker than ever.",
        "map": "X marks the spot under the rug.",
        "recipe card": "Two eggs, flour, a pinch of salt.",
        "newspaper": "Local house sold to mysterious buyer.",
        "old book": "Chapter one: the keeper of keys.",
        "postcard": "Greetings from the seaside!",
    }.get(item, "Nothing legible.")


def _detail_of(thing: str) -> str:
    return {
        "painting": "A stern ancestor glares back.",
        "grandfather clock": "It ticks loudly.",
        "fireplace": "Cold ashes.",
        "mirror": "You look tired.",
        "statue": "A marble hound.",
        "rug": "It is worn in the middle.",
        "window": "Rain streaks the glass.",
        "piano": "One key is missing.",
        "bookshelf": "Dusty volumes.",
        "sink": "A dripping tap.",
    }.get(thing, "Nothing special.")


# --------------------------------------------------------------------------------------------------
# Generating a house
# --------------------------------------------------------------------------------------------------


def generate_house(rng: random.Random) -> House:
    extra = rng.sample(ROOM_POOL, rng.randint(6, 9))
    names = list(ALWAYS) + extra
    rng.shuffle(names)
    cells: dict[tuple[int, int], str] = {(0, 0): names[0]}
    where = {names[0]: (0, 0)}
    exits: dict[str, dict[str, str]] = {n: {} for n in names}
    for name in names[1:]:
        while True:
            base = rng.choice(sorted(where))
            d = rng.choice(sorted(STEP_OF))
            x, y = where[base]
            cell = (x + STEP_OF[d][0], y + STEP_OF[d][1])
            if cell not in cells:
                break
        cells[cell] = name
        where[name] = cell
        exits[base][d] = name
        exits[name][OPPOSITE[d]] = base
    for name, (x, y) in sorted(where.items()):
        for d, (dx, dy) in sorted(STEP_OF.items()):
            other = cells.get((x + dx, y + dy))
            if other and d not in exits[name] and rng.random() < 0.2:
                exits[name][d] = other
                exits[other][OPPOSITE[d]] = name
    links = sorted({tuple(sorted((a, b))) for a in names for b in exits[a].values()})
    doors: dict[frozenset[str], Door] = {}
    door_names = list(DOORS)
    rng.shuffle(door_names)
    for a, b in links:
        if door_names and rng.random() < 0.5:
            doors[frozenset((a, b))] = Door(door_names.pop())
    start = names[0]

    def reachable(blocked: set[frozenset[str]]) -> set[str]:
        seen, queue = {start}, deque([start])
        while queue:
            room = queue.popleft()
            for other in exits[room].values():
                if other not in seen and frozenset((room, other)) not in blocked:
                    seen.add(other)
                    queue.append(other)
        return seen

    floor: dict[str, list[str]] = {n: [] for n in names}
    # Lock two doors that cut the house; each key lies where it can be reached before its door.
    lockable = [k for k in sorted(doors, key=sorted) if len(reachable({k})) < len(names)]
    rng.shuffle(lockable)
    locked = lockable[:2]
    keys = list(KEYS[:2])
    for i, link in enumerate(locked):
        doors[link].locked = True
        doors[link].key = keys[i]
        region = sorted(reachable(set(locked[i:])))
        floor[rng.choice(region)].append(keys[i])
    containers: dict[str, Container] = {}
    for room in names:
        for cname in CONTAINER_BY_ROOM.get(room, ()):
            containers[cname] = Container(cname, room)
    containers["trophy case"] = Container("trophy case", "living room")
    if "old trunk" in containers:
        containers["old trunk"].locked = True
        containers["old trunk"].key = "small key"
        floor[rng.choice(sorted(reachable(set(locked))))].append("small key")
    items = (
        rng.sample(TREASURES, 4) + rng.sample(FOODS, 5) + rng.sample(READABLES, 4) + rng.sample(TOOLS, 3)
    )
    # The lamp lies in the start region so that the dark rooms can be seen.
    floor[rng.choice(sorted(reachable(set(locked)) - DARK))].append("lamp")
    boxes = sorted(c for c in containers if c != "trophy case")
    for item in items:
        if boxes and rng.random() < 0.4:
            containers[rng.choice(boxes)].contents.append(item)
        else:
            floor[rng.choice(names)].append(item)
    scenery = {n: rng.sample(SCENERY, rng.randint(0, 2)) for n in names}
    house = House(names, exits, doors, floor, containers, scenery, here=start)
    house.visited.add(start)
    return house


# --------------------------------------------------------------------------------------------------
# The scripted adventurer
# --------------------------------------------------------------------------------------------------


class Adventurer:
    """Chooses the next command from what it has seen of the house."""

    def __init__(self, house: House, rng: random.Random) -> None:
        self.house = house
        self.rng = rng
        self.known: set[str] = {house.here}
        self.blocked: dict[frozenset[str], str] = {}  # locked door -> its name, until a key is found
        self.locked_boxes: set[str] = set()
        self.examined: set[str] = set()
        self.skipped: set[str] = set()  # items it decided to leave where they are
        self.wander_to: str | None = None
        self.tried_go = False
        self.failures: Counter[str] = Counter()  # commands that changed nothing, by text

    def observe(self, command: str, events: list[Event]) -> None:
        """Remember commands that did nothing, so as not to repeat them forever."""
        if events or command in ("look", "inventory", "wait"):
            self.failures.clear()
        else:
            self.failures[command] += 1

    def choose(self) -> str:
        command = self._choose()
        if self.failures[command] >= 3:
            self.failures.clear()
            self.wander_to = self.rng.choice(sorted(self.known))
            return self.rng.choice(["look", "wait", "inventory"])
        return command

    def _path(self, goals: set[str]) -> list[str]:
        """Rooms on the shortest known path to the nearest goal (excluding the current room)."""
        h = self.house
        start = h.here
        prev: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            room = queue.popleft()
            if room in goals and room != start:
                path = [room]
                while prev[path[-1]] != start:
                    path.append(prev[path[-1]])  # type: ignore[arg-type]
                return path[::-1]
            if room not in self.known:
                continue  # exits of unseen rooms are unknown
            for other in h.exits[room].values():
                link = frozenset((room, other))
                if other in prev or (link in self.blocked and not h.carried[h.doors[link].key]):
                    continue
                prev[other] = room
                queue.append(other)
        return []

    def _pending_rooms(self) -> set[str]:
        h = self.house
        goals = {r for k in self.known for r in h.exits[k].values() if r not in self.known}
        for c in h.containers.values():
            visible = c.room not in DARK or h.carried["lamp"] > 0
            fresh = c.name not in self.examined and c.name not in self.locked_boxes
            openable = c.locked and h.carried[c.key] > 0
            if c.room in self.known and visible and not c.open and (fresh or openable):
                goals.add(c.room)
        for link in self.blocked:
            if h.carried[h.doors[link].key]:
                goals |= {r for r in link if r in self.known}
        if any(h.carried[t] for t in TREASURES):
            goals.add("living room")
        if h.hunger >= 4 and not any(h.carried[f] for f in FOODS + ("apple",)):
            goals.add("garden")
        return goals

    def _step_toward(self, room: str) -> str:
        h = self.house
        d = next(d for d, r in h.exits[h.here].items() if r == room)
        link = frozenset((h.here, room))
        door = h.doors.get(link)
        if door is not None and not door.open:
            if door.locked:
                if h.carried[door.key]:
                    return f"unlock {door.name} with {door.key}"
                if link in self.blocked or self.rng.random() < 0.5:
                    self.blocked[link] = door.name
                    return f"open {door.name}"
            if not self.tried_go and self.rng.random() < 0.2:
                self.tried_go = True
                return f"go {d}"  # walks into the closed door first, now and then
            self.tried_go = False
            return f"open {door.name}"
        return f"go {d}"

    def _choose(self) -> str:
        h, rng = self.house, self.rng
        self.known.add(h.here)
        self.blocked = {link: name for link, name in self.blocked.items() if h.doors[link].locked}
        held = [k for k, v in sorted(h.carried.items()) if v]
        if rng.random() < 0.05:
            return rng.choice(["look", "inventory", "wait"])
        foods = [f for f in held if f in FOODS or f == "apple"]
        if h.hunger >= 5 and foods:
            return f"eat {rng.choice(foods)}"
        if not h.lit() and h.carried["lamp"] and not h.lamp_on:
            return "turn on lamp"
        if h.lamp_on and h.here not in DARK and rng.random() < 0.15:
            return "turn off lamp"
        for c in h.room_containers():
            if not h.lit():
                break
            if c.name == "trophy case" and not c.open:
                return "open trophy case"
            if c.name == "trophy case":
                for t in held:
                    if t in TREASURES:
                        return f"put {t} in trophy case"
            if not c.open and c.locked:
                if h.carried[c.key]:
                    return f"unlock {c.name} with {c.key}"
                if c.name not in self.locked_boxes:
                    self.locked_boxes.add(c.name)
                    return f"open {c.name}"
            elif not c.open and (c.name not in self.examined or rng.random() < 0.1):
                self.examined.add(c.name)
                return f"open {c.name}"
        showcased = h.containers["trophy case"].contents
        for item in h.visible_items():
            if item == "apple":
                if h.hunger < 3 or h.carried["apple"] >= 2:
                    continue
            elif item in self.skipped or item in showcased:
                continue
            if sum(h.carried.values()) >= 8:
                spare = [t for t in held if t in TOOLS or t in h.read_once]
                if not spare:
                    break
                dropped = rng.choice(spare)
                self.skipped.add(dropped)  # leave it here rather than juggle it
                return f"drop {dropped}"
            if rng.random() < 0.15 and item not in KEYS and item not in ("lamp", "apple"):
                self.skipped.add(item)
                continue
            source = next((c.name for c in h.room_containers() if c.open and item in c.contents), "")
            if item == "apple" and h.here == "garden" and "apple" not in h.floor[h.here]:
                source = "apple tree"
            return f"take {item}" + (f" from {source}" if source and rng.random() < 0.6 else "")
        unread = [t for t in held if t in READABLES and t not in h.read_once]
        if unread:
            return f"read {unread[0]}"
        for thing in h.scenery[h.here]:
            if h.lit() and thing not in self.examined:
                self.examined.add(thing)
                return f"examine {thing}"
        path = self._path(self._pending_rooms())
        if path:
            return self._step_toward(path[0])
        return self._idle(held)

    def _idle(self, held: list[str]) -> str:
        """Once the house is explored: wander, re-read, store and re-take things, close doors."""
        h, rng = self.house, self.rng
        roll = rng.random()
        if roll < 0.08 and held:
            choices = [t for t in held if t not in KEYS and t != "lamp"]
            if choices:
                thing = rng.choice(choices)
                self.skipped.add(thing)  # leave it here for a while
                return f"drop {thing}"
        if roll < 0.16:
            boxes = [c for c in h.room_containers() if c.open and c.name != "trophy case"]
            spare = [t for t in held if t in FOODS or t in TOOLS or t in READABLES]
            if boxes and spare:
                return f"put {rng.choice(spare)} in {rng.choice(boxes).name}"
        if roll < 0.22:
            readable = [t for t in held if t in READABLES]
            if readable:
                return f"read {rng.choice(readable)}"
        if roll < 0.27 and h.lit():
            things = h.scenery[h.here] + [c.name for c in h.room_containers()]
            if things:
                return f"examine {rng.choice(things)}"
        if roll < 0.32:
            for room in h.exits[h.here].values():
                door = h.door_between(h.here, room)
                if door is not None and door.open:
                    return f"close {door.name}"
            for c in h.room_containers():
                if c.open and c.name != "trophy case":
                    return f"close {c.name}"
        if roll < 0.4:
            for item in h.visible_items():
                if item in self.skipped and sum(h.carried.values()) < 8:
                    self.skipped.discard(item)
                    return f"take {item}"
        if self.wander_to is None or self.wander_to == h.here:
            self.wander_to = rng.choice(sorted(self.known - {h.here}))
        path = self._path({self.wander_to})
        if not path:
            self.wander_to = None
            return "wait"
        return self._step_toward(path[0])


# --------------------------------------------------------------------------------------------------
# Rollout and the suite's words
# --------------------------------------------------------------------------------------------------


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed)
    house = generate_house(rng)
    agent = Adventurer(house, rng)
    steps: list[Step] = []
    for t in range(rng.randint(350, 750)):
        command = agent.choose()
        reply, events, relations = house.do(command)
        agent.observe(command, events)
        seen = house.visible_items() + [c.name for c in house.room_containers()] + house.scenery[house.here]
        steps.append(
            Step(
                t=t,
                action=command,
                events=tuple(events),
                relations=tuple(relations),
                objects=tuple(sorted(set(seen))) if house.lit() else (),
                inventory=tuple(sorted((k, v) for k, v in house.carried.items() if v > 0)),
                state=(("hunger", house.hunger), ("lamp", house.lamp_on), ("moves", house.moves), ("score", house.score)),
                location=Location(region=house.here),
                observation=reply,
            )
        )
    return steps


_KIND_PHRASES: dict[str, list[str]] = {
    "enter": ["enter the {o}", "go into the {o}", "walk into the {o}", "arrive in the {o}", "come into the {o}", "step into the {o}"],
    "take": ["take the {o}", "pick up the {o}", "grab the {o}", "get the {o}"],
    "drop": ["drop the {o}", "discard the {o}", "let go of the {o}"],
    "open": ["open the {o}"],
    "close": ["close the {o}", "shut the {o}"],
    "unlock": ["unlock the {o}"],
    "put": ["put the {o} away in a container", "stash the {o}", "store the {o} in something"],
    "eat": ["eat the {o}", "munch on the {o}", "have the {o} as a snack"],
    "read": ["read the {o}", "look through the {o}", "peruse the {o}"],
    "examine": ["examine the {o}", "inspect the {o}", "look closely at the {o}", "check out the {o}"],
    "turn on": ["turn on the {o}", "light the {o}", "switch the {o} on"],
    "turn off": ["turn off the {o}", "switch the {o} off", "put out the {o}"],
}
_GENERIC: dict[str, list[str]] = {
    "enter": ["enter a room", "walk into a room"],
    "take": ["take something", "pick anything up"],
    "drop": ["drop something", "drop anything"],
    "open": ["open something", "open anything"],
    "eat": ["eat something", "eat anything"],
    "read": ["read something", "read anything"],
    "examine": ["examine something", "inspect anything"],
    "put": ["put something into a container", "store anything away"],
}
_WHAT: dict[str, list[str]] = {
    "enter": ["enter", "walk into", "visit"],
    "take": ["take", "pick up"],
    "drop": ["drop"],
    "open": ["open"],
    "eat": ["eat"],
    "read": ["read"],
    "examine": ["examine", "inspect"],
    "put": ["put away", "store"],
}


def event_phrases(kind: str, obj: str | None) -> list[str]:
    """Base verb phrases for one event of the house (``obj`` None: any object of the kind)."""
    if obj is None:
        return _GENERIC.get(kind, [])
    phrases = [p.format(o=obj) for p in _KIND_PHRASES.get(kind, [])]
    if obj == "apple" and kind in ("take", "eat"):
        phrases = [p.replace("the apple", "an apple") for p in phrases]
    return phrases


def event_nouns(kind: str, obj: str | None) -> list[str]:
    """Nouns for one event of the house ("arrival in the kitchen", "reading of the diary")."""
    if obj is None:
        return []
    return {
        "enter": [f"arrival in the {obj}", f"visit to the {obj}", f"entry into the {obj}"],
        "take": [f"pickup of the {obj}"] if obj != "apple" else ["apple pickup"],
        "read": [f"reading of the {obj}"],
        "examine": [f"look at the {obj}", f"inspection of the {obj}"],
        "unlock": [f"unlocking of the {obj}"],
    }.get(kind, [])


def vocab() -> Vocab:
    everything = TREASURES + FOODS + READABLES + TOOLS + KEYS + ("lamp", "apple")
    items = {name: ItemWords((name,), mass=name in MASS_FOODS) for name in everything}
    states = {
        "score": StateWords(("{poss} score", "the score"), "int"),
        "moves": StateWords(("{poss} move count", "the move counter", "{poss} number of moves"), "int"),
        "hunger": StateWords(("{poss} hunger", "{poss} hunger level"), "int"),
        "lamp": StateWords(("the lamp",), "bool", true_words=("on", "lit"), switched_on=("turned on", "switched on", "lit")),
    }
    absent = tuple(
        [("eat", f) for f in FOODS]
        + [("read", r) for r in READABLES]
        + [("take", t) for t in TREASURES + TOOLS]
        + [("enter", r) for r in ROOM_POOL]
        + [("unlock", d) for d in DOORS]
        + [("put", t) for t in TREASURES]
    )
    return Vocab(
        name="Max",
        region_nouns=("room", "part of the house"),
        event_phrases=event_phrases,
        event_nouns=event_nouns,
        what_verbs=lambda kind: _WHAT.get(kind, []),
        items=items,
        states=states,
        slots=("action", "step", "location", "item", "inventory", "state", "events"),
        absent_events=absent,
        kind_weights={"enter": 1.5, "take": 1.5, "close": 0.7},
        place_kinds=("enter",),
        list_nouns={"enter": ("rooms",)},
    )


def build(seed: int) -> dict[str, Any]:
    """One adventure in the house of ``seed`` and 60 checked questions about it.

    >>> list(build(101)["episodes"])
    ['rooms-101']
    """
    episode = f"rooms-{seed}"
    steps = rollout(seed)
    return {"episodes": {episode: steps}, "questions": make_questions(episode, steps, vocab(), seed)}


if __name__ == "__main__":
    import sys

    selfcheck(build, [int(a) for a in sys.argv[1:]] or [100, 101])
