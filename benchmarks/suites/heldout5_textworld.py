"""TextWorld "cartographer" levels: a depth-first mapper plays several generated house games in a row.

What it simulates
    Each seed runs one episode made of consecutive *levels*. Every level is a fresh TextWorld house game
    produced by TextWorld's own generator (``textworld.generator.make_game`` with a seeded
    ``GameOptions``: 10-14 rooms, 28-40 objects, a quest of 2-5 actions), compiled with the bundled
    Inform 7 tools and played for real through ``textworld.start`` (the Z-machine interpreter). A level
    ends when its quest is won; the next level's game then starts in a new house, with a new starting
    inventory and the game's move counter back at zero. Levels are added until the episode reaches a
    seeded target length (320-520 steps; the level under way is always finished).

How the agent ("Quill", a cartographer) behaves
    On arriving at a level it looks around and checks its pockets. It then maps the house depth-first
    (exits in a seeded order). In every newly charted room it sometimes looks around and examines
    things, opens each closed container (unlocking it first when it carries the matching key) and
    takes loose objects from the floor, from supporters and from opened containers: keys, food and
    anything the quest needs always, other objects about half the time (decided once per object). It
    sometimes closes (and re-locks) a container it has emptied, and eats food the quest does not need.
    A room with a single exit is a dead end; Quill often leaves a trinket there as a marker. Doors are
    opened or unlocked on the way out and sometimes closed behind it on the way back. Locked doors and
    containers whose key turns up later are revisited by walking over the charted map. Quill is
    forgetful: it re-checks its inventory every 9-22 steps, and once the map is done it walks back to
    5-9 charted rooms to look at them again. Then it follows the game's own winning policy (recomputed
    after every command) until the level is cleared; during mapping it never issues the one command
    that would win. Only admissible commands are issued. All choices come from ``random.Random``
    seeded by the seed, and the games from seeds derived from it.

Records
    One ``Step`` per command. ``action`` is the command as typed; ``location.region`` the room name;
    ``location.position`` Quill's own map coordinates of the room (each level's first room is 0,0;
    east is +x, north is +y); ``inventory`` the carried objects (count 1 each); ``state`` holds
    ``score`` (points over the whole run), ``moves`` (the current game's move counter), ``level`` and
    ``rooms charted`` (distinct rooms visited so far on the current level); ``objects`` what is visible
    in the room; ``observation`` the game's reply. Names are lower-cased. Event kinds, derived from the
    game's fact changes and the command, in this order within a step:
    ``begin`` (obj "level N", first step of a level), ``head into`` (room), ``chart`` (room, first visit
    on a level, including the starting room), ``mark dead end`` (a newly charted room with one exit),
    ``unlock``, ``open``, ``close``, ``lock`` (door or container), ``grab`` (object now carried),
    ``set down`` (left on the floor), ``lay on`` (put on a supporter; obj is the object), ``tuck into``
    (put in a container; obj is the object), ``eat``, ``study`` (examine), ``survey`` (look; obj is
    the room), ``check pockets`` (inventory), ``score rises`` and ``clear`` (obj "level N").

How answers are computed
    A reference evaluator (``Trace``) scans the Step records only (events, inventory, state, location)
    with the conventions of the suite specification: windows by step number ("before"/"after"
    exclusive, "by"/"as of"/"between" inclusive, "the first N steps" = 0..N-1), the first occurrence
    when no ordinal is given, "again" = the second, conditions name the first (or last) step whose
    after-step value meets them, "next"/"previous" are strictly after/before the anchor's step. Gold ids
    are the target step, every anchor step, the last matching step of a count, every matching step of a
    list and the first matching step of a "yes".
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.records import Event, Location, Step, validate_steps

SUITE = "heldout5_textworld"
SEED_RANGE = range(8300, 8400)
AGENT = "Quill"

DIRECTIONS = ("north", "east", "south", "west")
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
DELTA = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
PORTABLE = {"o", "k", "f"}


# ==================================================================================================
# Playing the games
# ==================================================================================================

Fact = tuple[str, tuple[str, ...]]
_KB: list[Any] = []


def _knowledge_base() -> Any:
    """TextWorld's default knowledge base, loaded once per process (loading it takes about a second)."""
    if not _KB:
        from textworld.generator.data import KnowledgeBase

        _KB.append(KnowledgeBase.default())
    return _KB[0]


@dataclass
class RawStep:
    """What one command did in the real game: the facts before and after, the game's numbers."""

    level: int
    command: str
    before: frozenset[Fact]
    after: frozenset[Fact]
    feedback: str
    score: int
    moves: int
    won: bool
    room: str
    coords: tuple[int, int]
    visible: tuple[str, ...]
    exits: int
    first_of_level: bool


def _facts(state: Any) -> tuple[frozenset[Fact], dict[str, str]]:
    facts = set()
    types: dict[str, str] = {}
    for prop in state["facts"]:
        args = tuple(str(v.name) for v in prop.arguments)
        for v in prop.arguments:
            types[str(v.name)] = str(v.type)
        facts.add((str(prop.name), args))
    return frozenset(facts), types


class Level:
    """One generated TextWorld game being played by the cartographer."""

    def __init__(self, number: int, seed: int, workdir: str, rng: random.Random, log: list[RawStep],
                 total_score: list[int]) -> None:
        import textworld  # third-party; imported lazily so that the module can be read without it

        self.number = number
        self.rng = rng
        self.log = log
        self.total_score = total_score
        self.game_file = self._make(textworld, seed, workdir)
        infos = textworld.EnvInfos(admissible_commands=True, facts=True, score=True, moves=True,
                                   policy_commands=True, won=True, lost=True)
        self.env = textworld.start(self.game_file, infos)
        self.state = self.env.reset()
        self.facts, self.types = _facts(self.state)
        self.visited: set[str] = set()
        self.coords = self._layout()
        self.level_score = 0
        self.done = False
        self.first = True
        self.since_check = 0
        self.check_every = rng.randint(9, 22)
        self.dropped: set[str] = set()
        self.handled: set[str] = set()
        self.charted: list[str] = []
        self.choices: dict[str, bool] = {}

    # ---- generation -------------------------------------------------------------------------------
    def _make(self, textworld: Any, seed: int, workdir: str) -> str:
        rng = random.Random(seed * 7919 + self.number)
        for attempt in range(6):
            options = textworld.GameOptions()
            options.kb = _knowledge_base()
            options.seeds = (seed * 37 + self.number * 101 + attempt * 7) % 65000
            options.nb_rooms = rng.randint(10, 14)
            options.nb_objects = rng.randint(28, 40)
            options.quest_length = rng.randint(2, 5)
            options.path = os.path.join(workdir, f"level{self.number}_{attempt}.z8")
            options.force_recompile = True
            try:
                game = textworld.generator.make_game(options)
            except Exception:  # the quest sampler can fail on a map; try the next seeded variant
                continue
            names = [info.name.lower() for info in game.infos.values() if info.name]
            if len(names) != len(set(names)) or game.max_score < 1:
                continue
            return textworld.generator.compile_game(game, options)
        raise RuntimeError(f"could not generate level {self.number} for seed {seed}")

    # ---- map knowledge ----------------------------------------------------------------------------
    def room(self) -> str:
        for name, args in self.facts:
            if name == "at" and args[0] == "P":
                return args[1]
        raise RuntimeError("player has no room")

    def exits(self, room: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, args in self.facts:
            if name.endswith("_of") and args[1] == room:
                out[name[: -len("_of")]] = args[0]
        return out

    def door(self, room: str, other: str) -> str | None:
        for name, args in self.facts:
            if name == "link" and args[0] == room and args[2] == other:
                return args[1]
        return None

    def _layout(self) -> dict[str, tuple[int, int]]:
        start = self.room()
        coords = {start: (0, 0)}
        queue = [start]
        while queue:
            here = queue.pop(0)
            for d, other in sorted(self.exits(here).items()):
                if other not in coords:
                    dx, dy = DELTA[d]
                    coords[other] = (coords[here][0] + dx, coords[here][1] + dy)
                    queue.append(other)
        return coords

    def has(self, fact: Fact) -> bool:
        return fact in self.facts

    def carried(self) -> list[str]:
        return sorted(a[0] for n, a in self.facts if n == "in" and a[1] == "I")

    def key_for(self, target: str) -> str | None:
        for name, args in self.facts:
            if name == "match" and args[1] == target:
                return args[0]
        return None

    def in_room(self, room: str) -> list[str]:
        return sorted(a[0] for n, a in self.facts if n == "at" and a[1] == room and a[0] != "P")

    def inside(self, holder: str, pred: str) -> list[str]:
        return sorted(a[0] for n, a in self.facts if n == pred and a[1] == holder)

    def visible(self, room: str) -> tuple[str, ...]:
        seen: list[str] = []
        for thing in self.in_room(room):
            seen.append(thing)
            kind = self.types.get(thing, "")
            if kind == "s" or (kind == "c" and self.has(("open", (thing,)))):
                seen.extend(self.inside(thing, "on" if kind == "s" else "in"))
        for name, args in sorted(self.facts):
            if name == "link" and args[0] == room and args[1] not in seen:
                seen.append(args[1])
        return tuple(seen)

    def policy(self) -> list[str]:
        return list(self.state["policy_commands"] or [])

    # ---- acting -----------------------------------------------------------------------------------
    def act(self, command: str, solving: bool = False) -> bool:
        if self.done or command not in self.state["admissible_commands"]:
            return False
        if not solving and self.policy() == [command]:
            return False  # the level is only cleared once the map is complete
        before = self.facts
        self.state, _, _ = self.env.step(command)
        self.facts, types = _facts(self.state)
        self.types.update(types)
        score = int(self.state["score"] or 0)
        self.total_score[0] += score - self.level_score
        self.level_score = score
        room = self.room()
        if room not in self.visited:
            self.visited.add(room)
            self.charted.append(room)
        won = bool(self.state["won"])
        self.log.append(RawStep(
            level=self.number, command=command, before=before, after=self.facts,
            feedback=str(self.state.feedback or ""), score=self.total_score[0],
            moves=int(self.state["moves"] or 0), won=won, room=room, coords=self.coords.get(room, (0, 0)),
            visible=self.visible(room), exits=len(self.exits(room)), first_of_level=self.first,
        ))
        self.first = False
        self.since_check += 1
        if won or self.state["lost"]:
            self.done = True
        elif command != "inventory" and self.since_check >= self.check_every:
            self.since_check = 0
            self.check_every = self.rng.randint(9, 22)
            self.act("inventory")
        if command == "inventory":
            self.since_check = 0
        return True

    def needed(self, thing: str) -> bool:
        return any(thing in cmd for cmd in self.policy())

    # ---- exploring --------------------------------------------------------------------------------
    def open_thing(self, thing: str) -> bool:
        """Open a door or container, unlocking it first if the key is carried."""
        if self.has(("open", (thing,))):
            return True
        if self.has(("locked", (thing,))):
            key = self.key_for(thing)
            if key is None or ("in", (key, "I")) not in self.facts:
                return False
            self.act(f"unlock {thing} with {key}")
        if self.has(("closed", (thing,))):
            self.act(f"open {thing}")
        return self.has(("open", (thing,)))

    def take_all(self, room: str) -> None:
        rng = self.rng
        for thing in self.in_room(room):
            if self.done:
                return
            kind = self.types.get(thing, "")
            if kind in PORTABLE:
                if thing in self.dropped or not self.wants(thing):
                    continue
                if rng.random() < 0.25:
                    self.act(f"examine {thing}")
                self.act(f"take {thing}")
                self.maybe_eat(thing)
            elif kind in ("c", "s"):
                if rng.random() < 0.3:
                    self.act(f"examine {thing}")
                was_closed = kind == "c" and not self.has(("open", (thing,)))
                was_locked = kind == "c" and self.has(("locked", (thing,)))
                if kind == "c" and not self.open_thing(thing):
                    continue
                self.handled.add(thing)
                pred = "on" if kind == "s" else "in"
                for item in self.inside(thing, pred):
                    if self.done:
                        return
                    if item in self.dropped or self.types.get(item, "") not in PORTABLE or not self.wants(item):
                        continue
                    if rng.random() < 0.2:
                        self.act(f"examine {item}")
                    self.act(f"take {item} from {thing}")
                    self.maybe_eat(item)
                if was_closed and not self.inside(thing, "in") and rng.random() < 0.45:
                    self.act(f"close {thing}")
                    key = self.key_for(thing)
                    if was_locked and key and rng.random() < 0.5:
                        self.act(f"lock {thing} with {key}")

    def wants(self, thing: str) -> bool:
        """Keys, food and whatever the quest needs are always taken; other objects about half the time,
        decided once per object."""
        if self.types.get(thing) in ("k", "f") or self.needed(thing):
            return True
        if thing not in self.choices:
            self.choices[thing] = self.rng.random() < 0.5
        return self.choices[thing]

    def maybe_eat(self, thing: str) -> None:
        if (self.types.get(thing) == "f" and ("in", (thing, "I")) in self.facts and not self.needed(thing)
                and self.rng.random() < 0.45):
            self.act(f"eat {thing}")

    def arrive(self, room: str, fresh: bool) -> None:
        if self.done:
            return
        if fresh and self.rng.random() < 0.3:
            self.act("look")
        if fresh:
            self.take_all(room)
            if len(self.exits(room)) == 1:
                trinkets = [x for x in self.carried() if self.types.get(x) == "o" and not self.needed(x)]
                if trinkets and self.rng.random() < 0.6:
                    marker = trinkets[0]
                    self.dropped.add(marker)
                    self.act(f"drop {marker}")

    def explore(self, room: str, pending: list[tuple[str, str]]) -> None:
        order = list(DIRECTIONS)
        self.rng.shuffle(order)
        for d in order:
            if self.done:
                return
            other = self.exits(room).get(d)
            if other is None or other in self.visited:
                continue
            door = self.door(room, other)
            if door is not None and not self.open_thing(door):
                pending.append((room, door))
                continue
            if not self.act(f"go {d}"):
                continue
            self.arrive(other, fresh=True)
            self.explore(other, pending)
            if self.done:
                return
            self.act(f"go {OPPOSITE[d]}")
            if door is not None and self.has(("open", (door,))) and self.rng.random() < 0.3:
                self.act(f"close {door}")

    def walk_to(self, target: str) -> bool:
        """Walk over the charted map (breadth-first path), opening closed doors on the way."""
        start = self.room()
        parent: dict[str, tuple[str, str] | None] = {start: None}
        queue = [start]
        while queue:
            here = queue.pop(0)
            if here == target:
                break
            for d, other in sorted(self.exits(here).items()):
                if other in parent or other not in self.visited:
                    continue
                door = self.door(here, other)
                if door is not None and self.has(("locked", (door,))):
                    continue
                parent[other] = (here, d)
                queue.append(other)
        if target not in parent:
            return False
        path: list[tuple[str, str]] = []
        node = target
        while parent[node] is not None:
            prev, d = parent[node]  # type: ignore[misc]
            path.append((prev, d))
            node = prev
        for prev, d in reversed(path):
            if self.done:
                return False
            other = self.exits(prev)[d]
            door = self.door(prev, other)
            if door is not None and not self.open_thing(door):
                return False
            self.act(f"go {d}")
        return self.room() == target

    def review(self) -> None:
        """The forgetful part: walk back to a few charted rooms to double-check them."""
        rng = self.rng
        picks = rng.sample(self.charted, min(len(self.charted), rng.randint(5, 9)))
        for room in sorted(picks, key=self.charted.index):
            if self.done or room == self.room() or not self.walk_to(room):
                continue
            if rng.random() < 0.7:
                self.act("look")
            things = [x for x in self.visible(room) if not self.types.get(x, "") in ("d",)]
            if things and rng.random() < 0.4:
                self.act(f"examine {rng.choice(things)}")

    def play(self) -> None:
        self.visited.add(self.room())
        self.charted.append(self.room())
        self.act("look")
        self.act("inventory")
        start = self.room()
        self.take_all(start)
        pending: list[tuple[str, str]] = []
        self.explore(start, pending)
        for _ in range(8):  # revisit locked doors / containers whose key has turned up
            if self.done:
                break
            todo = [(r, x) for r, x in pending if self.has(("locked", (x,)))
                    and self.key_for(x) and ("in", (self.key_for(x), "I")) in self.facts]
            todo += [(r, c) for r in sorted(self.visited) for c in self.in_room(r)
                     if self.types.get(c) == "c" and self.has(("locked", (c,))) and c not in self.handled
                     and self.key_for(c) and ("in", (self.key_for(c), "I")) in self.facts
                     and (r, c) not in todo]
            if not todo:
                break
            room, thing = todo[0]
            pending = [p for p in pending if p != (room, thing)]
            if not self.walk_to(room):
                continue
            if self.types.get(thing) == "d":
                self.open_thing(thing)
                self.explore(room, pending)
            else:
                self.take_all(room)
        self.review()
        guard = 0
        while not self.done and guard < 120:
            guard += 1
            plan = self.policy()
            if not plan or not self.act(plan[0], solving=True):
                break
        self.done = True  # cleared (or, should the policy ever stall, abandoned: the next level starts)


def play_episode(seed: int) -> list[RawStep]:
    rng = random.Random(seed)
    target = rng.randint(320, 520)
    log: list[RawStep] = []
    total = [0]
    workdir = tempfile.mkdtemp(prefix="tw_cartographer_")
    try:
        number = 0
        while len(log) < target and number < 12:
            number += 1
            level = Level(number, seed, workdir, random.Random(seed * 131 + number), log, total)
            level.play()
            level.env.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return log


# ==================================================================================================
# Adapter: raw game steps -> Step records
# ==================================================================================================

_STATUS = re.compile(r"-= [^=]+ =-\s*-?\d+/\d+\s*$")


def _clean(text: str, limit: int = 380) -> str:
    """The game's reply on one line, without the prompt and the trailing status bar."""
    lines = [ln.strip() for ln in text.replace(">", " ").splitlines()]
    lines = [_STATUS.sub("", ln).strip() for ln in lines]
    flat = " ".join(ln for ln in lines if ln)
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _name(entity: str) -> str:
    return entity.lower()


def to_steps(log: Sequence[RawStep]) -> list[Step]:
    steps: list[Step] = []
    charted: set[str] = set()
    prev_score = 0
    prev_room = ""
    level = 0
    for t, raw in enumerate(log):
        if raw.first_of_level:
            level = raw.level
            charted = set()
            prev_room = ""
        added = raw.after - raw.before
        removed = raw.before - raw.after
        room = _name(raw.room)
        events: list[Event] = []
        if raw.first_of_level:
            events.append(Event("begin", f"level {raw.level}"))
        if prev_room and room != prev_room:
            events.append(Event("head into", room))
        if room not in charted:
            charted.add(room)
            events.append(Event("chart", room))
            if raw.exits == 1:
                events.append(Event("mark dead end", room))
        verb = raw.command.split()[0]
        for name, args in sorted(removed):
            if name == "locked":
                events.append(Event("unlock", _name(args[0])))
        for name, args in sorted(added):
            if name == "open":
                events.append(Event("open", _name(args[0])))
            elif name == "closed" and ("open", args) in raw.before:
                events.append(Event("close", _name(args[0])))
            elif name == "locked":
                events.append(Event("lock", _name(args[0])))
        for name, args in sorted(added):
            if name == "in" and args[1] == "I":
                events.append(Event("grab", _name(args[0])))
        for name, args in sorted(removed):
            if name == "in" and args[1] == "I":
                thing = args[0]
                if verb == "eat":
                    events.append(Event("eat", _name(thing)))
                elif any(f[0] == "at" and f[1][0] == thing for f in added):
                    events.append(Event("set down", _name(thing)))
                elif any(f[0] == "on" and f[1][0] == thing for f in added):
                    events.append(Event("lay on", _name(thing)))
                elif any(f[0] == "in" and f[1][0] == thing for f in added):
                    events.append(Event("tuck into", _name(thing)))
        if verb == "examine":
            events.append(Event("study", _name(raw.command[len("examine "):])))
        elif verb == "look":
            events.append(Event("survey", room))
        elif verb == "inventory":
            events.append(Event("check pockets"))
        if raw.score > prev_score:
            events.append(Event("score rises"))
        if raw.won:
            events.append(Event("clear", f"level {raw.level}"))
        prev_score = raw.score
        prev_room = room
        inventory = tuple(sorted((_name(a[0]), 1) for n, a in raw.after if n == "in" and a[1] == "I"))
        state: tuple[tuple[str, int], ...] = (
            ("level", level), ("moves", raw.moves), ("rooms charted", len(charted)), ("score", raw.score))
        steps.append(Step(
            t=t, action=raw.command, summary=f"level {raw.level}, {room}: {raw.command}",
            objects=tuple(_name(x) for x in raw.visible), events=tuple(events), inventory=inventory,
            state=state, location=Location(position=raw.coords, region=room),
            observation=_clean(raw.feedback),
        ))
    return steps


# ==================================================================================================
# Reference evaluator: plain scans over the Step records
# ==================================================================================================

def event_text(kind: str, obj: str) -> str:
    return f"{kind} {obj}" if obj else kind


class Trace:
    """Scans over one episode's steps, following the suite's conventions."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.last = len(self.steps) - 1

    def matches(self, kind: str, obj: str | None, lo: int = 0, hi: int | None = None) -> list[int]:
        """Steps (ascending, one entry per matching event) with an event of ``kind`` (and ``obj``)."""
        hi = self.last if hi is None else hi
        out: list[int] = []
        for step in self.steps[max(lo, 0): hi + 1]:
            for ev in step.events:
                if ev.kind == kind and (obj is None or ev.obj == obj):
                    out.append(step.t)
        return out

    def nth(self, kind: str, obj: str | None, n: int, lo: int = 0, hi: int | None = None) -> int | None:
        """n >= 1: n-th occurrence; n < 0: from the end (-1 the last)."""
        found = self.matches(kind, obj, lo, hi)
        if n > 0:
            return found[n - 1] if len(found) >= n else None
        return found[n] if len(found) >= -n else None

    def objs(self, kind: str, lo: int, hi: int) -> list[tuple[int, str]]:
        out = []
        for step in self.steps[max(lo, 0): hi + 1]:
            for ev in step.events:
                if ev.kind == kind:
                    out.append((step.t, ev.obj))
        return out

    # ---- slots -------------------------------------------------------------------------------------
    def read(self, t: int, slot: str, arg: str = "") -> str:
        step = self.steps[t]
        if slot == "action":
            return step.action
        if slot == "step":
            return str(t)
        if slot == "location":
            if step.location.region:
                return step.location.region
            x, y = step.location.position  # type: ignore[misc]
            return f"{x},{y}"
        if slot == "position":
            x, y = step.location.position  # type: ignore[misc]
            return f"{x},{y}"
        if slot == "item":
            return str(step.inventory_dict.get(arg, 0))
        if slot == "inventory":
            held = [(n, c) for n, c in step.inventory if c > 0]
            return ", ".join(f"{n} {c}" for n, c in held) if held else "none"
        if slot == "state":
            value = step.state_dict[arg]
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, float):
                return format(value, "g")
            return str(value)
        if slot == "events":
            return "; ".join(event_text(e.kind, e.obj) for e in step.events) or "none"
        raise ValueError(slot)

    def first_where(self, pred: Callable[[Step], bool]) -> int | None:
        for step in self.steps:
            if pred(step):
                return step.t
        return None

    def last_where(self, pred: Callable[[Step], bool]) -> int | None:
        for step in reversed(self.steps):
            if pred(step):
                return step.t
        return None

    def first_drop_to_zero(self, item: str) -> int | None:
        for prev, step in zip(self.steps, self.steps[1:]):
            if step.inventory_dict.get(item, 0) == 0 and prev.inventory_dict.get(item, 0) > 0:
                return step.t
        return None


# ==================================================================================================
# Wording
# ==================================================================================================

@dataclass(frozen=True)
class Who:
    """A way of naming the agent: as the main subject, inside a clause, with its verb forms."""

    main: str
    clause: str
    be: str  # was / were, for the main subject
    be_clause: str
    pos: str  # possessive, for the clause subject
    have: str  # have / has, for the main subject
    obj: str  # object form of the main subject (me, us, ...)


WHO = (
    Who("I", "I", "was", "was", "my", "have", "me"),
    Who("I", "I", "was", "was", "my", "have", "me"),
    Who("we", "we", "were", "were", "our", "have", "us"),
    Who("you", "you", "were", "were", "your", "have", "you"),
    Who("the agent", "it", "was", "was", "its", "has", "the agent"),
    Who(AGENT, AGENT, "was", "was", "its", "has", AGENT),
    Who("the cartographer", "it", "was", "was", "its", "has", "the cartographer"),
)

THIRD_POSSESSIVE = {"the agent": "the agent's", "the cartographer": "the cartographer's", AGENT: f"{AGENT}'s"}
_PRONOUN = re.compile(r"(?<!was )(?<!is )\b(it|its)\b")  # not the dummy 'it' of "which step was it"


def fix_pronouns(text: str, who: Who) -> str:
    """If 'it'/'its' would come before the agent is named, name it there and use the pronoun later."""
    noun = who.main
    if noun not in THIRD_POSSESSIVE:
        return text
    found = _PRONOUN.search(text)
    named = text.lower().find(noun.lower())
    if found is None or 0 <= named < found.start():
        return text
    rep = noun if found.group(1) == "it" else f"{noun}'s"
    text = text[: found.start()] + rep + text[found.end():]
    later = text.lower().find(noun.lower(), found.start() + len(rep))
    if later >= 0:
        rest = text[later + len(noun):]
        text = text[:later] + ("its" + rest[2:] if rest.startswith("'s") else "it" + rest)
    return text


Forms = tuple[str, str, str, str]  # base, past, participle, gerund

LEX: dict[str, list[Forms]] = {
    "head into": [
        ("go into {o}", "went into {o}", "gone into {o}", "going into {o}"),
        ("enter {o}", "entered {o}", "entered {o}", "entering {o}"),
        ("step into {o}", "stepped into {o}", "stepped into {o}", "stepping into {o}"),
        ("head into {o}", "headed into {o}", "headed into {o}", "heading into {o}"),
        ("arrive in {o}", "arrived in {o}", "arrived in {o}", "arriving in {o}"),
        ("make {pos} way into {o}", "made {pos} way into {o}", "made {pos} way into {o}", "making {pos} way into {o}"),
    ],
    "chart": [
        ("chart {o}", "charted {o}", "charted {o}", "charting {o}"),
        ("add {o} to {pos} map", "added {o} to {pos} map", "added {o} to {pos} map", "adding {o} to {pos} map"),
        ("map {o}", "mapped {o}", "mapped {o}", "mapping {o}"),
    ],
    "mark dead end": [
        ("mark {o} as a dead end", "marked {o} as a dead end", "marked {o} as a dead end", "marking {o} as a dead end"),
        ("flag {o} as a dead end", "flagged {o} as a dead end", "flagged {o} as a dead end", "flagging {o} as a dead end"),
        ("note {o} down as a dead end", "noted {o} down as a dead end", "noted {o} down as a dead end",
         "noting {o} down as a dead end"),
    ],
    "open": [
        ("open {o}", "opened {o}", "opened {o}", "opening {o}"),
        ("get {o} open", "got {o} open", "gotten {o} open", "getting {o} open"),
        ("pull {o} open", "pulled {o} open", "pulled {o} open", "pulling {o} open"),
    ],
    "close": [
        ("close {o}", "closed {o}", "closed {o}", "closing {o}"),
        ("shut {o}", "shut {o}", "shut {o}", "shutting {o}"),
    ],
    "unlock": [
        ("unlock {o}", "unlocked {o}", "unlocked {o}", "unlocking {o}"),
        ("undo the lock on {o}", "undid the lock on {o}", "undone the lock on {o}", "undoing the lock on {o}"),
    ],
    "lock": [
        ("lock {o}", "locked {o}", "locked {o}", "locking {o}"),
        ("secure {o} with its key", "secured {o} with its key", "secured {o} with its key", "securing {o} with its key"),
    ],
    "grab": [
        ("grab {o}", "grabbed {o}", "grabbed {o}", "grabbing {o}"),
        ("take {o}", "took {o}", "taken {o}", "taking {o}"),
        ("pick up {o}", "picked up {o}", "picked up {o}", "picking up {o}"),
        ("get hold of {o}", "got hold of {o}", "gotten hold of {o}", "getting hold of {o}"),
    ],
    "set down": [
        ("set {o} down on the floor", "set {o} down on the floor", "set {o} down on the floor", "setting {o} down on the floor"),
        ("drop {o} on the floor", "dropped {o} on the floor", "dropped {o} on the floor", "dropping {o} on the floor"),
        ("leave {o} lying on the ground", "left {o} lying on the ground", "left {o} lying on the ground",
         "leaving {o} lying on the ground"),
    ],
    "lay on": [
        ("lay {o} on a surface", "laid {o} on a surface", "laid {o} on a surface", "laying {o} on a surface"),
        ("put {o} on top of something", "put {o} on top of something", "put {o} on top of something",
         "putting {o} on top of something"),
    ],
    "tuck into": [
        ("tuck {o} into a container", "tucked {o} into a container", "tucked {o} into a container", "tucking {o} into a container"),
        ("put {o} inside a container", "put {o} inside a container", "put {o} inside a container", "putting {o} inside a container"),
    ],
    "eat": [
        ("eat {o}", "ate {o}", "eaten {o}", "eating {o}"),
        ("munch on {o}", "munched on {o}", "munched on {o}", "munching on {o}"),
        ("snack on {o}", "snacked on {o}", "snacked on {o}", "snacking on {o}"),
    ],
    "study": [
        ("study {o}", "studied {o}", "studied {o}", "studying {o}"),
        ("examine {o}", "examined {o}", "examined {o}", "examining {o}"),
        ("take a close look at {o}", "took a close look at {o}", "taken a close look at {o}", "taking a close look at {o}"),
    ],
    "survey": [
        ("look around {o}", "looked around {o}", "looked around {o}", "looking around {o}"),
        ("survey {o}", "surveyed {o}", "surveyed {o}", "surveying {o}"),
    ],
    "check pockets": [
        ("check {pos} inventory", "checked {pos} inventory", "checked {pos} inventory", "checking {pos} inventory"),
        ("check {pos} pockets", "checked {pos} pockets", "checked {pos} pockets", "checking {pos} pockets"),
        ("look through {pos} pockets", "looked through {pos} pockets", "looked through {pos} pockets",
         "looking through {pos} pockets"),
    ],
    "score rises": [
        ("score a point", "scored a point", "scored a point", "scoring a point"),
        ("push {pos} score up", "pushed {pos} score up", "pushed {pos} score up", "pushing {pos} score up"),
    ],
    "begin": [
        ("start {o}", "started {o}", "started {o}", "starting {o}"),
        ("begin {o}", "began {o}", "begun {o}", "beginning {o}"),
    ],
    "clear": [
        ("clear {o}", "cleared {o}", "cleared {o}", "clearing {o}"),
        ("finish {o}", "finished {o}", "finished {o}", "finishing {o}"),
        ("beat {o}", "beat {o}", "beaten {o}", "beating {o}"),
        ("complete {o}", "completed {o}", "completed {o}", "completing {o}"),
    ],
}

#: Phrases for an event kind with any object.
ANY: dict[str, list[Forms]] = {
    "head into": [
        ("go into a room", "went into a room", "gone into a room", "going into a room"),
        ("move into another room", "moved into another room", "moved into another room", "moving into another room"),
    ],
    "chart": [
        ("chart a new room", "charted a new room", "charted a new room", "charting a new room"),
        ("add a room to {pos} map", "added a room to {pos} map", "added a room to {pos} map", "adding a room to {pos} map"),
    ],
    "mark dead end": [
        ("mark a dead end", "marked a dead end", "marked a dead end", "marking a dead end"),
        ("flag a room as a dead end", "flagged a room as a dead end", "flagged a room as a dead end",
         "flagging a room as a dead end"),
    ],
    "open": [
        ("open something", "opened something", "opened something", "opening something"),
        ("open a door or container", "opened a door or container", "opened a door or container", "opening a door or container"),
    ],
    "close": [
        ("close something", "closed something", "closed something", "closing something"),
        ("shut a door or container", "shut a door or container", "shut a door or container", "shutting a door or container"),
    ],
    "unlock": [
        ("unlock something", "unlocked something", "unlocked something", "unlocking something"),
        ("unlock a door or container", "unlocked a door or container", "unlocked a door or container",
         "unlocking a door or container"),
    ],
    "lock": [
        ("lock something", "locked something", "locked something", "locking something"),
    ],
    "grab": [
        ("grab something", "grabbed something", "grabbed something", "grabbing something"),
        ("take an item", "took an item", "taken an item", "taking an item"),
        ("pick something up", "picked something up", "picked something up", "picking something up"),
    ],
    "set down": [
        ("drop something on the floor", "dropped something on the floor", "dropped something on the floor",
         "dropping something on the floor"),
        ("set an item down on the floor", "set an item down on the floor", "set an item down on the floor",
         "setting an item down on the floor"),
    ],
    "lay on": [
        ("put something on a surface", "put something on a surface", "put something on a surface",
         "putting something on a surface"),
    ],
    "tuck into": [
        ("put something inside a container", "put something inside a container", "put something inside a container",
         "putting something inside a container"),
    ],
    "eat": [
        ("eat something", "ate something", "eaten something", "eating something"),
        ("have a bite of food", "had a bite of food", "had a bite of food", "having a bite of food"),
    ],
    "study": [
        ("examine something", "examined something", "examined something", "examining something"),
        ("study something", "studied something", "studied something", "studying something"),
    ],
    "survey": [
        ("look around", "looked around", "looked around", "looking around"),
        ("survey a room", "surveyed a room", "surveyed a room", "surveying a room"),
    ],
    "check pockets": LEX["check pockets"],
    "score rises": LEX["score rises"],
    "begin": [
        ("start a level", "started a level", "started a level", "starting a level"),
        ("begin a level", "began a level", "begun a level", "beginning a level"),
    ],
    "clear": [
        ("clear a level", "cleared a level", "cleared a level", "clearing a level"),
        ("finish a level", "finished a level", "finished a level", "finishing a level"),
    ],
}

NO_OBJECT = {"check pockets", "score rises"}
LEVEL_KINDS = {"begin", "clear"}
ROOM_KINDS = {"head into", "chart", "mark dead end", "survey"}

ORD_WORD = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}
NUM_WORD = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
            10: "ten", 11: "eleven", 12: "twelve"}


def ord_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def uncap(text: str) -> str:
    """Lower-case the first letter unless it starts with 'I ' or the agent's name."""
    if text.startswith("I ") or text.startswith(AGENT):
        return text
    return text[:1].lower() + text[1:]


@dataclass(frozen=True)
class Target:
    """An event to talk about: a kind and one object, or any object (``obj`` None)."""

    kind: str
    obj: str | None

    def text(self) -> str:
        return event_text(self.kind, self.obj or "")


class Words:
    """Random wording choices for one seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.last_who = WHO[0]

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def who(self, personal: bool = False) -> Who:
        """A subject; ``personal``: only I / we / you (for subject-less gerund phrases)."""
        self.last_who = self.pick(WHO[:4] if personal else WHO)
        return self.last_who

    def obj_phrase(self, target: Target) -> str:
        obj = target.obj or ""
        if target.kind in LEVEL_KINDS:
            number = int(obj.split()[-1])
            return self.pick([obj, f"level {NUM_WORD.get(number, str(number))}"])
        return f"the {obj}"

    def verb(self, target: Target, form: int, who: Who) -> str:
        """form: 0 base, 1 past, 2 participle, 3 gerund."""
        table = ANY if target.obj is None else LEX
        forms = self.pick(table[target.kind])
        text = forms[form]
        if target.obj is not None:
            text = text.replace("{o}", self.obj_phrase(target))
        return text.replace("{pos}", who.pos)

    def ordinal(self, n: int) -> str:
        return self.pick([ORD_WORD.get(n, ord_digits(n)), ord_digits(n)]) if n in ORD_WORD else ord_digits(n)

    def number(self, n: int) -> str:
        return self.pick([str(n), NUM_WORD[n]]) if n in NUM_WORD else str(n)

    def occurrence(self, target: Target, n: int, who: Who) -> str:
        """A clause naming the n-th (n<0: from the end) occurrence, e.g. 'the third time I grabbed the hat'."""
        s = who.clause
        past = self.verb(target, 1, who)
        if n == 1:
            return self.pick([f"when {s} first {past}", f"the first time {s} {past}", f"the 1st time {s} {past}",
                              f"when {s} {past}"])
        if n == 2:
            return self.pick([f"when {s} {past} again", f"the second time {s} {past}",
                              f"when {s} {past} for the 2nd time", f"the time {s} {past} again"])
        if n == -1:
            return self.pick([f"the last time {s} {past}", f"when {s} last {past}", f"the final time {s} {past}"])
        if n == -2:
            return self.pick([f"the second-to-last time {s} {past}", f"the next-to-last time {s} {past}",
                              f"the penultimate time {s} {past}"])
        o = self.ordinal(n)
        return self.pick([f"the {o} time {s} {past}", f"when {s} {past} for the {o} time"])

    def gerund_occurrence(self, target: Target, n: int, who: Who, only: bool = False) -> str:
        """A gerund naming the n-th occurrence; ``only``: the event happened once, so no ordinal."""
        ger = self.verb(target, 3, who)
        if only:
            return ger
        if n == 1:
            return self.pick([ger, f"{ger} for the first time"])
        if n == 2:
            return self.pick([f"{ger} again", f"{ger} for the second time", f"{ger} for the 2nd time"])
        if n == -1:
            return f"{ger} for the last time"
        return f"{ger} for the {self.ordinal(n)} time"

    def step_ref(self, t: int) -> str:
        return self.pick([f"step {t}", f"step {t}", f"step #{t}", f"step no. {t}", f"timestep {t}"])

    # ---- slot questions -------------------------------------------------------------------------
    STATE_NAMES = ("score", "moves", "level", "rooms charted")

    def slot_main(self, slot: str, who: Who, arg: str) -> str:
        """The question part asking for a slot, without its time clause (lower-case start allowed)."""
        s, be, pos = who.main, who.be, who.pos
        pos_main = THIRD_POSSESSIVE.get(who.main, pos)
        if slot == "action":
            return self.pick([f"what command did {s} type", f"what did {s} do", f"which action did {s} take",
                              f"what was {pos_main} command", f"what did {s} enter as a command"])
        if slot == "location":
            return self.pick([f"where {be} {s}", f"which room {be} {s} in", f"what room {be} {s} in",
                              f"in which room {be} {s}"])
        if slot == "position":
            return self.pick([f"what were {pos_main} map coordinates", f"at which map coordinates {be} {s}",
                              f"what x,y position on the map {be} {s} at", f"what were the grid coordinates of {pos_main} room"])
        if slot == "item":
            return self.pick([f"how many '{arg}' did {s} have", f"how many '{arg}' {be} {s} carrying",
                              f"what was {pos_main} inventory count of {arg}"])
        if slot == "inventory":
            return self.pick([f"what {be} {s} carrying", f"what was in {pos_main} inventory", f"what did {s} have on hand",
                              f"what {be} {s} holding"])
        if slot == "events":
            return self.pick(["what events were logged", "which events were recorded", "what happened",
                              "what was recorded as happening"])
        if slot == "state":
            if arg == "score":
                return self.pick([f"what was {pos_main} score", f"how many points did {s} have", "what did the score stand at"])
            if arg == "moves":
                return self.pick(["what did the game's move counter read", "what was the game's move count",
                                  f"how many moves had the current game counted for {s if s not in ('I', 'we') else {'I': 'me', 'we': 'us'}[s]}"])
            if arg == "level":
                return self.pick([f"which level {be} {s} on", f"what level {be} {s} playing", "what was the level number"])
            return self.pick([f"how many rooms had {s} charted on the current level",
                              f"what was {pos_main} count of rooms charted on that level",
                              "what did the rooms-charted counter show"])
        if slot == "step":
            return self.pick(["which step was it", "what step was that", "what was the step number"])
        raise ValueError(slot)

    def slot_imperative(self, slot: str, who: Who, arg: str) -> str:
        s, be = who.main, who.be
        pos = THIRD_POSSESSIVE.get(s, who.pos)
        if slot == "action":
            return self.pick(["Tell me the command that was typed", "Name the action taken", "Give the command issued"])
        if slot == "location":
            return self.pick([f"Name the room {s} {be} in", f"Tell me where {s} {be}", "Name the room"])
        if slot == "position":
            return self.pick([f"Give {pos} map coordinates", "State the x,y map position", f"Tell me {pos} grid coordinates"])
        if slot == "item":
            return self.pick([f"Tell me how many '{arg}' {s} had", f"Give {pos} inventory count of {arg}"])
        if slot == "inventory":
            return self.pick([f"List what {s} {be} carrying", f"Tell me what was in {pos} inventory"])
        if slot == "events":
            return self.pick(["List the events recorded", "Tell me what happened", "Name the events logged"])
        if slot == "state":
            return {
                "score": self.pick(["Give the score", f"Tell me {pos} score"]),
                "moves": self.pick(["Tell me the game's move counter", "Give the move count the game showed"]),
                "level": self.pick(["Tell me the level number", f"Name the level {s} {be} on"]),
                "rooms charted": self.pick(["Give the number of rooms charted on the current level",
                                            "Tell me the rooms-charted count"]),
            }[arg]
        if slot == "step":
            return self.pick(["Give the step number", "Tell me the step", "Name the step"])
        raise ValueError(slot)

    def ask(self, slot: str, who: Who, arg: str, clause: str) -> str:
        """Combine a slot question with its time clause, in one of three shapes."""
        if slot == "step" and self.rng.random() < 0.7:
            if clause.startswith("the "):
                lead = self.pick(["Which step was", "What step was", "Give the step number of"])
                return f"{lead} {clause}{'.' if lead.startswith('Give') else '?'}"
            return f"{self.pick(['What step was it', 'Which step was it', 'At which step was it'])} {clause}?"
        shape = self.rng.randrange(3)
        if shape == 0:
            return f"{cap(self.slot_main(slot, who, arg))} {clause}?"
        if shape == 1:
            return f"{cap(clause)}, {uncap(self.slot_main(slot, who, arg))}?"
        return f"{self.slot_imperative(slot, who, arg)} {clause}."


# ==================================================================================================
# Questions
# ==================================================================================================

FAMILIES = ("1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence")
PER_FAMILY = 6
STATE_KEYS = ("score", "moves", "level", "rooms charted")

SLOT_PLAN: dict[str, tuple[str, ...]] = {
    "1_step_index": ("action", "location", "inventory", "state", "events", "position", "item"),
    "2_nth_occurrence": ("location", "action", "step", "state", "inventory", "position", "events", "item"),
    "3_windowed_occurrence": ("action", "step", "location", "state", "events", "inventory", "position"),
    "4_condition": ("action", "location", "step", "position", "state", "events", "inventory"),
    "5_offset": ("action", "location", "events", "inventory", "state", "position", "item"),
    "6_next_previous": ("action", "location", "step", "state", "events", "inventory", "position"),
}

Question = dict[str, Any]


@dataclass
class Side:
    """Facts about the games used only to choose plausible questions (never to compute answers)."""

    foods: set[str] = field(default_factory=set)
    lockables: set[str] = field(default_factory=set)
    containers: set[str] = field(default_factory=set)


def side_facts(log: Sequence[RawStep]) -> Side:
    side = Side()
    for raw in log:
        for name, args in raw.after:
            if name == "edible":
                side.foods.add(_name(args[0]))
            elif name == "locked":
                side.lockables.add(_name(args[0]))
            elif name in ("open", "closed", "locked"):
                side.containers.add(_name(args[0]))
    return side


class Asker:
    def __init__(self, episode: str, steps: Sequence[Step], side: Side, rng: random.Random) -> None:
        self.episode = episode
        self.tr = Trace(steps)
        self.side = side
        self.rng = rng
        self.w = Words(rng)
        self.last = self.tr.last
        counts: dict[tuple[str, str], int] = {}
        for step in steps:
            for ev in step.events:
                counts[(ev.kind, ev.obj)] = counts.get((ev.kind, ev.obj), 0) + 1
        self.counts = counts
        self.kinds = sorted({k for k, _ in counts})
        self.grabbed = sorted({o for (k, o) in counts if k == "grab"})
        self.seen_objects = sorted({o for step in steps for o in step.objects})

    # ---- choosing --------------------------------------------------------------------------------
    def target(self, min_count: int = 1, specific: float = 0.7, kinds: Sequence[str] | None = None,
               allow_any: bool = True) -> Target | None:
        pool = [k for k in (kinds or self.kinds) if k in self.kinds]
        if not pool:
            return None
        kind = self.w.pick(pool)
        if kind in NO_OBJECT:
            t = Target(kind, None)
            return t if self.count(t) >= min_count else None
        if not allow_any or self.rng.random() < specific:
            objs = sorted(o for (k, o), c in self.counts.items() if k == kind and c >= min_count)
            if not objs:
                return None
            return Target(kind, self.w.pick(objs))
        t = Target(kind, None)
        return t if self.count(t) >= min_count else None

    @staticmethod
    def trivial(slot: str, target: Target) -> bool:
        """Whether reading ``slot`` at an occurrence of ``target`` just repeats the question."""
        if slot == "action":
            return target.kind in ("survey", "check pockets") or (target.kind == "study" and target.obj is not None)
        if slot == "location":
            return target.kind in ROOM_KINDS and target.obj is not None
        if slot == "events":
            return target.kind == "check pockets" or (target.kind in ("survey", "study") and target.obj is not None)
        return False

    def count(self, target: Target) -> int:
        return len(self.tr.matches(target.kind, target.obj))

    def occ(self, target: Target, n: int, lo: int = 0, hi: int | None = None) -> int | None:
        return self.tr.nth(target.kind, target.obj, n, lo, hi)

    def choose_n(self, target: Target) -> int:
        c = self.count(target)
        options = [1, 1]
        if c >= 2:
            options += [2, -1]
        if c >= 3:
            options += [3, -2, min(c, self.rng.randint(3, 5))]
        return self.w.pick(options)

    def arg_for(self, slot: str, t: int, avoid: str = "") -> str:
        if slot == "state":
            return self.w.pick([k for k in STATE_KEYS if k != avoid])
        if slot == "item":
            held = [n for n, c in self.tr.steps[t].inventory if c > 0 and n != avoid]
            if held and self.rng.random() < 0.5:
                return self.w.pick(held)
            return self.w.pick([g for g in self.grabbed if g != avoid] or self.grabbed)
        return ""

    def anchor(self, target: Target, n: int, who: Who) -> str:
        s = who.clause
        past = self.w.verb(target, 1, who)
        if n == 1:
            return self.w.pick([f"{s} first {past}", f"{s} {past}", f"the first time {s} {past}"])
        if n == 2:
            return self.w.pick([f"{s} {past} again", f"the second time {s} {past}", f"{s} {past} for the second time"])
        if n == -1:
            return self.w.pick([f"{s} last {past}", f"the last time {s} {past}"])
        if n == -2:
            return self.w.pick([f"the second-to-last time {s} {past}", f"{s} {past} for the next-to-last time"])
        return self.w.pick([f"the {self.w.ordinal(n)} time {s} {past}", f"{s} {past} for the {self.w.ordinal(n)} time"])

    def q(self, family: str, slot: str, question: str, answer: str, gold: Sequence[int],
          fix: bool = True) -> Question:
        """A question record; ``fix``: the text's 'it' may stand for the agent (see :func:`fix_pronouns`)."""
        ids = [f"{self.episode}:{t}" for t in sorted(set(gold))]
        if fix:
            question = fix_pronouns(question, self.w.last_who)
        return {"episode": self.episode, "family": family, "slot": slot, "question": question,
                "answer": answer, "gold": ids}

    def steps_word(self, k: int) -> str:
        return f"{self.w.number(k)} step" + ("" if k == 1 else "s")

    # ---- 1: step index ---------------------------------------------------------------------------
    def f1(self, slot: str) -> Question | None:
        t = self.rng.randint(0, self.last)
        arg = self.arg_for(slot, t)
        who = self.w.who()
        clause = self.w.pick([f"at {self.w.step_ref(t)}", f"on step {t}", f"at step {t}", f"right at step {t}"])
        return self.q("1_step_index", slot, self.w.ask(slot, who, arg, clause), self.tr.read(t, slot, arg), [t])

    # ---- 2: n-th occurrence ----------------------------------------------------------------------
    def f2(self, slot: str) -> Question | None:
        target = self.target()
        if target is None or self.trivial(slot, target):
            return None
        n = self.choose_n(target)
        t = self.occ(target, n)
        if t is None:
            return None
        who = self.w.who()
        arg = self.arg_for(slot, t, avoid=target.obj or "")
        if slot == "step":
            s = who.main
            base = self.w.verb(target, 0, who)
            past = self.w.verb(target, 1, who)
            o = self.w.ordinal(n) if n > 0 else ""
            if n == 1:
                text = self.w.pick([f"When did {s} first {base}?", f"At which step did {s} first {base}?",
                                    f"At what step did {s} {base} for the first time?", f"When did {s} {base}?"])
            elif n == 2:
                text = self.w.pick([f"When did {s} {base} again?", f"At which step did {s} {base} for the second time?",
                                    f"Give the step at which {s} {past} for the 2nd time."])
            elif n == -1:
                text = self.w.pick([f"When did {s} last {base}?", f"At which step did {s} {base} for the last time?",
                                    f"What was the last step at which {s} {past}?"])
            elif n == -2:
                text = self.w.pick([f"At which step did {s} {base} for the second-to-last time?",
                                    f"Which step was the next-to-last time {s} {past}?"])
            else:
                text = self.w.pick([f"At which step did {s} {base} for the {o} time?",
                                    f"Give the step at which {s} {past} for the {o} time."])
            text = cap(text)
        else:
            text = self.w.ask(slot, who, arg, self.w.occurrence(target, n, who))
        return self.q("2_nth_occurrence", slot, text, self.tr.read(t, slot, arg), [t])

    # ---- 3: windowed occurrence ------------------------------------------------------------------
    def f3(self, slot: str) -> Question | None:
        target = self.target(specific=0.4)
        if target is None or self.trivial(slot, target) or (target.kind in LEVEL_KINDS and target.obj):
            return None
        found = self.tr.matches(target.kind, target.obj)
        who = self.w.who()
        sc = who.clause
        past = self.w.verb(target, 1, who)
        mode = self.rng.randrange(4)
        gold: list[int] = []
        if mode == 0:
            n = self.rng.randint(20, self.last - 20)
            later = [x for x in found if x > n]
            if not later:
                return None
            t = later[0]
            clause = self.w.pick([f"the first time {sc} {past} after {self.w.step_ref(n)}",
                                  f"when {sc} first {past} after step {n}"])
        elif mode == 1:
            n = self.rng.randint(20, self.last)
            earlier = [x for x in found if x < n]
            if not earlier:
                return None
            t = earlier[-1]
            clause = self.w.pick([f"the last time {sc} {past} before {self.w.step_ref(n)}",
                                  f"when {sc} last {past} before step {n}"])
        elif mode == 2:
            other = self.target(specific=1.0)
            if other is None or other.kind == target.kind:
                return None
            a = self.occ(other, 1)
            later = [x for x in found if a is not None and x > a]
            if a is None or not later:
                return None
            t = later[0]
            gold.append(a)
            past_y = self.w.verb(other, 1, who)
            clause = self.w.pick([f"the first time {sc} {past} after {sc} first {past_y}",
                                  f"the first time {sc} {past} once {sc} had {self.w.verb(other, 2, who)}"])
        else:
            lo = self.rng.randint(0, self.last - 40)
            hi = lo + self.rng.randint(30, 150)
            inside = [x for x in found if lo <= x <= hi]
            if not inside:
                return None
            t = inside[0]
            clause = self.w.pick([f"the first time {sc} {past} between step {lo} and step {hi}",
                                  f"the first time {sc} {past} between steps {lo} and {hi}"])
        arg = self.arg_for(slot, t)
        text = self.w.ask(slot, who, arg, clause)
        return self.q("3_windowed_occurrence", slot, text, self.tr.read(t, slot, arg), [t] + gold)

    # ---- 4: condition ----------------------------------------------------------------------------
    def f4(self, slot: str) -> Question | None:
        tr, w = self.tr, self.w
        who = w.who()
        sc, be, pos = who.clause, who.be_clause, who.pos
        mode = self.rng.randrange(8)
        avoid = ""
        if mode <= 2:
            if not self.grabbed:
                return None
            item = w.pick(self.grabbed)
            if mode == 0:
                t = tr.first_where(lambda s: s.inventory_dict.get(item, 0) >= 1)
                clause = w.pick([f"the first step at which {sc} {be} carrying the {item}",
                                 f"when the {item} first showed up in {pos} inventory",
                                 f"the first time {sc} had the {item}"])
            elif mode == 1:
                t = tr.first_drop_to_zero(item)
                clause = w.pick([f"when the {item} first left {pos} inventory",
                                 f"when {sc} first stopped carrying the {item}",
                                 f"the first step at which {sc} no longer had the {item} after having carried it"])
            else:
                t = tr.last_where(lambda s: s.inventory_dict.get(item, 0) >= 1)
                clause = w.pick([f"the last step at which {sc} still had the {item}",
                                 f"the final step with the {item} in {pos} inventory"])
            if slot == "inventory" and mode != 1:
                return None
        elif mode == 3:
            top = int(tr.steps[-1].state_dict["score"])
            k = self.rng.randint(1, top)
            t = tr.first_where(lambda s: int(s.state_dict["score"]) >= k)
            clause = w.pick([f"the first step {pos} score reached {k}", f"when the score first hit {k}",
                             f"the first step at which the score was at least {k}"])
            avoid = "score"
        elif mode in (4, 5):
            top = int(tr.steps[-1].state_dict["level"])
            if top < 2:
                return None
            if mode == 4:
                lv = self.rng.randint(2, top)
                t = tr.first_where(lambda s: s.state_dict["level"] == lv)
                clause = w.pick([f"the first step {sc} {be} on level {lv}", f"the first step the level counter showed {lv}"])
            else:
                lv = self.rng.randint(1, top - 1)
                t = tr.last_where(lambda s: s.state_dict["level"] == lv)
                clause = w.pick([f"the last step {sc} spent on level {lv}", f"the last step of level {lv}"])
            avoid = "level"
        elif mode == 6:
            top = max(int(s.state_dict["rooms charted"]) for s in tr.steps)
            k = self.rng.randint(3, top)
            t = tr.first_where(lambda s: int(s.state_dict["rooms charted"]) >= k)
            clause = w.pick([f"the first step {pos} rooms-charted count reached {k}",
                             f"when {sc} had charted {k} rooms on one level for the first time"])
            avoid = "rooms charted"
        else:
            top = max(int(s.state_dict["moves"]) for s in tr.steps)
            k = self.rng.randint(10, max(11, top))
            t = tr.first_where(lambda s: int(s.state_dict["moves"]) >= k)
            clause = w.pick([f"the first time the game's move counter reached {k}",
                             f"when the move count first got to {k}"])
            avoid = "moves"
        if t is None:
            return None
        arg = self.arg_for(slot, t, avoid=avoid)
        return self.q("4_condition", slot, w.ask(slot, who, arg, clause), tr.read(t, slot, arg), [t])

    # ---- 5: offset -------------------------------------------------------------------------------
    def f5(self, slot: str) -> Question | None:
        target = self.target()
        if target is None:
            return None
        n = self.w.pick([1, 1, 2, -1]) if self.count(target) >= 2 else 1
        t0 = self.occ(target, n)
        if t0 is None:
            return None
        k = self.rng.randint(1, 6)
        sign = self.w.pick([1, 1, -1])
        t = t0 + sign * k
        if not 0 <= t <= self.last:
            return None
        who = self.w.who()
        anchor = self.anchor(target, n, who)
        if k == 1 and self.rng.random() < 0.5:
            clause = f"the step right {'after' if sign > 0 else 'before'} {anchor}"
        else:
            clause = f"{self.steps_word(k)} {'after' if sign > 0 else 'before'} {anchor}"
        arg = self.arg_for(slot, t, avoid=target.obj or "")
        return self.q("5_offset", slot, self.w.ask(slot, who, arg, clause), self.tr.read(t, slot, arg), [t, t0])

    # ---- 6: next / previous ----------------------------------------------------------------------
    def f6(self, slot: str) -> Question | None:
        anchor_t = self.target(specific=0.85)
        target = self.target(specific=0.5)
        if anchor_t is None or target is None or anchor_t.kind == target.kind or self.trivial(slot, target):
            return None
        if target.kind in LEVEL_KINDS and target.obj:
            return None  # each level begins and ends once: "the next time I began level 3" reads oddly
        n = self.choose_n(anchor_t)
        ta = self.occ(anchor_t, n)
        if ta is None:
            return None
        who = self.w.who()
        sc = who.clause
        past = self.w.verb(target, 1, who)
        anchor = self.anchor(anchor_t, n, who)
        if self.rng.random() < 0.55:
            after = [x for x in self.tr.matches(target.kind, target.obj) if x > ta]
            if not after:
                return None
            t = after[0]
            clause = self.w.pick([f"the next time {sc} {past} after {anchor}", f"when {sc} next {past} after {anchor}"])
        else:
            before = [x for x in self.tr.matches(target.kind, target.obj) if x < ta]
            if not before:
                return None
            t = before[-1]
            clause = self.w.pick([f"the previous time {sc} {past} before {anchor}",
                                  f"the most recent time {sc} had {self.w.verb(target, 2, who)} before {anchor}",
                                  f"the last time {sc} {past} before {anchor}"])
        arg = self.arg_for(slot, t, avoid=target.obj or "")
        return self.q("6_next_previous", slot, self.w.ask(slot, who, arg, clause), self.tr.read(t, slot, arg), [t, ta])

    # ---- windows shared by counts and existence ---------------------------------------------------
    def window(self, who_pos: Who, target: Target | None = None) -> tuple[str, int, int, list[int]] | None:
        """A window: (phrase, lo, hi, anchor steps); anchors are worded with ``who_pos`` as subject and are
        never the ``target`` event itself."""
        last = self.last
        mode = self.rng.randrange(8)
        if mode == 0:
            return "", 0, last, []
        if mode == 1:
            a = self.rng.randint(0, last - 60)
            b = a + self.rng.randint(40, 200)
            b = min(b, last)
            return self.w.pick([f"between step {a} and step {b}", f"between steps {a} and {b}"]), a, b, []
        if mode == 2:
            n = self.rng.randint(60, last)
            return f"before {self.w.step_ref(n)}", 0, n - 1, []
        if mode == 3:
            n = self.rng.randint(50, last)
            return f"in the first {n} steps", 0, n - 1, []
        if mode == 4:
            n = self.rng.randint(40, last - 40)
            return f"after step {n}", n + 1, last, []
        if mode == 5:
            n = self.rng.randint(40, last)
            return self.w.pick([f"by step {n}", f"up to and including step {n}", f"as of step {n}"]), 0, n, []
        anchor_t = self.target(specific=1.0)
        if anchor_t is None or (target is not None and anchor_t.kind == target.kind):
            return None
        if mode == 6:
            ta = self.occ(anchor_t, 1)
            if ta is None:
                return None
            return f"before {self.anchor(anchor_t, 1, who_pos)}", 0, ta - 1, [ta]
        n = self.w.pick([1, -1]) if self.count(anchor_t) > 1 else 1
        ta = self.occ(anchor_t, n)
        if ta is None:
            return None
        return f"after {self.anchor(anchor_t, n, who_pos)}", ta + 1, last, [ta]

    # ---- 7: count --------------------------------------------------------------------------------
    def f7(self, slot: str) -> Question | None:
        target = self.target(specific=0.5)
        if target is None or (target.kind in LEVEL_KINDS and target.obj is not None):
            return None
        who = self.w.who()
        win = self.window(who, target)
        if target is None or win is None:
            return None
        phrase, lo, hi, anchors = win
        if lo > hi:
            return None
        found = self.tr.matches(target.kind, target.obj, lo, hi)
        s = who.main
        base = self.w.verb(target, 0, who)
        past = self.w.verb(target, 1, who)
        if phrase:
            text = self.w.pick([f"How many times did {s} {base} {phrase}?", f"{cap(phrase)}, how many times did {s} {base}?",
                                f"Count how many times {s} {past} {phrase}.", f"How often did {s} {base} {phrase}?"])
        else:
            text = self.w.pick([f"How many times did {s} {base} in total?", f"How often did {s} {base} over the whole run?",
                                f"Count the times {s} {past}.", f"What is the total number of times {s} {past}?"])
        gold = anchors + ([found[-1]] if found else [])
        return self.q("7_count", "count", cap(text), str(len(found)), gold)

    # ---- 8: order --------------------------------------------------------------------------------
    def f8(self, slot: str) -> Question | None:
        a = self.target(allow_any=False)
        b = self.target(allow_any=False)
        if a is None or b is None or a.text() == b.text():
            return None
        na = self.w.pick([1, 1, 1, 2, -1]) if self.count(a) > 1 else 1
        nb = self.w.pick([1, 1, 1, 2, -1]) if self.count(b) > 1 else 1
        ta, tb = self.occ(a, na), self.occ(b, nb)
        if ta is None or tb is None or ta == tb:
            return None
        who = self.w.who(personal=True)
        ga = self.w.gerund_occurrence(a, na, who, self.count(a) == 1)
        gb = self.w.gerund_occurrence(b, nb, who, self.count(b) == 1)
        s = who.main
        text = self.w.pick([f"Which happened first: {ga} or {gb}?", f"Which came earlier, {ga} or {gb}?",
                            f"What did {s} do first, {ga} or {gb}?", f"Tell me which was earlier: {ga}, or {gb}."])
        answer = a.text() if ta < tb else b.text()
        return self.q("8_order", "which-first", cap(text), answer, [ta, tb])

    # ---- 9: distance -----------------------------------------------------------------------------
    def f9(self, slot: str) -> Question | None:
        who = self.w.who()
        s, sc = who.main, who.clause
        mode = self.rng.randrange(4)
        if mode == 0:
            top = int(self.tr.steps[-1].state_dict["level"])
            lv = self.rng.randint(1, top)
            ta = self.occ(Target("begin", f"level {lv}"), 1)
            tb = self.occ(Target("clear", f"level {lv}"), 1)
            if ta is None or tb is None:
                return None
            name = self.w.pick([f"level {lv}", f"level {NUM_WORD.get(lv, str(lv))}"])
            text = self.w.pick([f"How many steps passed between starting {name} and clearing it?",
                                f"How many steps did it take {who.obj} to get from the start of {name} to finishing it?",
                                f"From beginning {name} to beating it, how many steps went by?"])
        elif mode == 1:
            grabbed = [o for o in self.grabbed if self.count(Target("eat", o)) or self.count(Target("set down", o))]
            if not grabbed:
                return None
            obj = self.w.pick(grabbed)
            follow = "eat" if self.count(Target("eat", obj)) else "set down"
            ta = self.occ(Target("grab", obj), 1)
            later = [x for x in self.tr.matches(follow, obj) if ta is not None and x > ta]
            if ta is None or not later:
                return None
            tb = later[0]
            then = self.w.verb(Target(follow, obj), 0, who).replace(f"the {obj}", "it")
            text = self.w.pick([f"How many steps after first picking up the {obj} did {s} {then}?",
                                f"After {s} first grabbed the {obj}, how many steps went by before {sc} next "
                                f"{self.w.verb(Target(follow, obj), 1, who).replace(f'the {obj}', 'it')}?"])
        elif mode == 2:
            a = self.target(specific=1.0)
            b = self.target(specific=0.5)
            if a is None or b is None or a.kind == b.kind:
                return None
            ta = self.occ(a, 1)
            later = [x for x in self.tr.matches(b.kind, b.obj) if ta is not None and x > ta]
            if ta is None or not later:
                return None
            tb = later[0]
            text = self.w.pick([f"How many steps after {s} first {self.w.verb(a, 1, who)} did {sc} next "
                                f"{self.w.verb(b, 0, who)}?",
                                f"Once {s} had {self.w.verb(a, 2, who)} for the first time, how many steps passed until "
                                f"{sc} next {self.w.verb(b, 1, who)}?"])
        else:
            a = self.target(allow_any=False)
            b = self.target(allow_any=False)
            if a is None or b is None or a.text() == b.text():
                return None
            na = self.w.pick([1, 1, 2, -1]) if self.count(a) > 1 else 1
            nb = self.w.pick([1, 1, 2, -1]) if self.count(b) > 1 else 1
            ta, tb = self.occ(a, na), self.occ(b, nb)
            if ta is None or tb is None or ta == tb:
                return None
            who = self.w.who(personal=True)
            ga = self.w.gerund_occurrence(a, na, who, self.count(a) == 1)
            gb = self.w.gerund_occurrence(b, nb, who, self.count(b) == 1)
            text = self.w.pick([f"How many steps passed between {ga} and {gb}?", f"How many steps apart were {ga} and {gb}?",
                                f"Tell me the number of steps between {ga} and {gb}."])
        return self.q("9_distance", "duration", cap(text), str(abs(tb - ta)), [ta, tb], fix=mode == 2)

    # ---- 10: existence ---------------------------------------------------------------------------
    def f10(self, slot: str) -> Question | None:
        if slot == "list":
            return self.f10_list()
        want_yes = slot == "yes"
        w = self.w
        who = w.who()
        if not want_yes and self.rng.random() < 0.4:
            # A whole-run "no" about something plausible that never happened.
            options: list[Target] = []
            options += [Target("grab", o) for o in self.seen_objects
                        if not self.count(Target("grab", o)) and o not in self.side.containers]
            options += [Target("eat", o) for o in self.grabbed if o in self.side.foods and not self.count(Target("eat", o))]
            options += [Target("unlock", o) for o in sorted(self.side.lockables) if not self.count(Target("unlock", o))]
            options += [Target("open", o) for o in sorted(self.side.containers) if o in self.seen_objects
                        and not self.count(Target("open", o))]
            if not options:
                return None
            target = w.pick(options)
            anchors: list[int] = []
            phrase, lo, hi = "", 0, self.last
        else:
            target = self.target(specific=0.75)
            win = self.window(who, target)
            if target is None or win is None or not win[0]:
                return None
            phrase, lo, hi, anchors = win
            if lo > hi:
                return None
        found = self.tr.matches(target.kind, target.obj, lo, hi)
        if bool(found) != want_yes:
            return None
        s = who.main
        base, part, past = w.verb(target, 0, who), w.verb(target, 2, who), w.verb(target, 1, who)
        tail = f" {phrase}" if phrase else ""
        text = w.pick([f"Did {s} ever {base}{tail}?", f"{cap(who.have)} {s} ever {part}{tail}?",
                       f"Was there any point{tail} when {who.clause} {past}?",
                       f"Is there a record of {who.obj} having {part}{tail}?"])
        if phrase and self.rng.random() < 0.3:
            text = f"{cap(phrase)}, did {s} {base}?"
        gold = anchors + ([found[0]] if found else [])
        return self.q("10_existence", "yes/no", cap(text), "yes" if found else "no", gold)

    def f10_list(self) -> Question | None:
        kind = self.w.pick(["grab", "grab", "eat", "chart", "open", "study", "head into", "unlock"])
        who = self.w.who()
        win = self.window(who, Target(kind, None))
        if win is None or not win[0]:
            return None
        phrase, lo, hi, anchors = win
        if lo > hi:
            return None
        hits = self.tr.objs(kind, lo, hi)
        names: list[str] = []
        for _, obj in hits:
            if obj not in names:
                names.append(obj)
        if not 2 <= len(names) <= 7:
            return None
        s = who.main
        lead = {
            "grab": [f"What did {s} pick up", f"Which items did {s} grab", f"List the things {s} took"],
            "eat": [f"What did {s} eat", f"Which foods did {s} eat", f"List what {s} ate"],
            "chart": [f"Which rooms did {s} chart", f"What rooms did {s} add to the map", f"List the rooms {s} charted"],
            "open": [f"What did {s} open", f"Which doors and containers did {s} open", f"List what {s} opened"],
            "study": [f"What did {s} examine", f"Which things did {s} study", f"List the things {s} examined"],
            "head into": [f"Which rooms did {s} go into", f"What rooms did {s} enter", f"List the rooms {s} headed into"],
            "unlock": [f"What did {s} unlock", f"Which locks did {s} undo", f"List what {s} unlocked"],
        }[kind]
        opener = self.w.pick(lead)
        text = f"{opener} {phrase}" + ("." if opener.startswith("List") else "?")
        if self.rng.random() < 0.3 and not opener.startswith("List"):
            text = f"{cap(phrase)}, {uncap(opener)}?"
        return self.q("10_existence", "list", text, ", ".join(names), anchors + [t for t, _ in hits])

    # ---- assembling ------------------------------------------------------------------------------
    def family(self, family: str) -> list[Question]:
        maker = {"1_step_index": self.f1, "2_nth_occurrence": self.f2, "3_windowed_occurrence": self.f3,
                 "4_condition": self.f4, "5_offset": self.f5, "6_next_previous": self.f6, "7_count": self.f7,
                 "8_order": self.f8, "9_distance": self.f9, "10_existence": self.f10}[family]
        if family in SLOT_PLAN:
            plan = list(SLOT_PLAN[family])
            self.rng.shuffle(plan)
            slots = plan[:PER_FAMILY]
        elif family == "10_existence":
            slots = ["yes", "yes", "no", "no", "list", self.w.pick(["yes", "no", "list"])]
        else:
            slots = [""] * PER_FAMILY
        out: list[Question] = []
        seen: set[Any] = set()
        for slot in slots:
            for attempt in range(400):
                use = slot if attempt < 300 or family not in SLOT_PLAN else self.w.pick(SLOT_PLAN[family])
                q = maker(use)
                if q is None:
                    continue
                same = (q["slot"], q["answer"], tuple(q["gold"]))  # the same question in other words
                if q["question"] not in seen and same not in seen:
                    seen.update((q["question"], same))
                    out.append(q)
                    break
            else:
                raise RuntimeError(f"could not write a {family} question ({slot})")
        return out


def build(seed: int) -> dict:
    episode = f"{SUITE}-{seed}"
    log = play_episode(seed)
    steps = to_steps(log)
    validate_steps(steps, episode)
    asker = Asker(episode, steps, side_facts(log), random.Random(seed * 1009 + 17))
    questions: list[Question] = []
    for family in FAMILIES:
        questions.extend(asker.family(family))
    return {"episodes": {episode: steps}, "questions": questions}


# ==================================================================================================
# Self-check
# ==================================================================================================

def _digest(data: dict) -> str:
    def plain(obj: Any) -> Any:
        if isinstance(obj, Step):
            return {"t": obj.t, "action": obj.action, "summary": obj.summary, "objects": list(obj.objects),
                    "events": [[e.kind, e.obj, e.count] for e in obj.events], "inventory": list(obj.inventory),
                    "state": list(obj.state), "location": [obj.location.position, obj.location.region],
                    "observation": obj.observation}
        if isinstance(obj, dict):
            return {k: plain(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [plain(v) for v in obj]
        return obj

    return hashlib.sha256(json.dumps(plain(data), sort_keys=True).encode()).hexdigest()


def _check(seed: int, data: dict) -> None:
    episodes = data["episodes"]
    assert len(episodes) == 1, "one episode per seed"
    (episode, steps), = episodes.items()
    assert 300 <= len(steps) <= 1500, f"{len(steps)} steps"
    validate_steps(steps, episode)
    questions = data["questions"]
    assert len(questions) == PER_FAMILY * len(FAMILIES), len(questions)
    for family in FAMILIES:
        assert sum(q["family"] == family for q in questions) == PER_FAMILY, family
    assert len({q["question"] for q in questions}) == len(questions), "duplicate question text"
    for q in questions:
        assert q["episode"] == episode
        assert isinstance(q["answer"], str) and q["answer"].strip(), q
        for gold in q["gold"]:
            ep, _, t = gold.rpartition(":")
            assert ep == episode and 0 <= int(t) < len(steps), gold
        if not q["gold"]:
            assert q["answer"] in ("no", "0"), q


def main(argv: Sequence[str]) -> None:
    import time
    from collections import Counter

    seeds = [int(a) for a in argv] or [SEED_RANGE[0], SEED_RANGE[1]]
    for seed in seeds:
        start = time.time()
        data = build(seed)
        took = time.time() - start
        _check(seed, data)
        again = build(seed)
        assert _digest(data) == _digest(again), f"seed {seed}: a second build differs"
        (episode, steps), = data["episodes"].items()
        print(f"== {SUITE} seed {seed}: {len(steps)} steps, levels {steps[-1].state_dict['level']}, "
              f"build {took:.1f}s, digest {_digest(data)[:16]}")
        per = Counter((q["family"], q["slot"]) for q in data["questions"])
        for family in FAMILIES:
            print(f"  {family}: " + ", ".join(f"{slot} {n}" for (f, slot), n in sorted(per.items()) if f == family))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in data["questions"]).items())))
        sample = random.Random(seed).sample(data["questions"], 10)
        for q in sample:
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold {q['gold']}")
    print("self-check passed")


if __name__ == "__main__":
    main(sys.argv[1:])
