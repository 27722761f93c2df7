"""heldout4_textworld: a TextWorld errand-runner that dawdles, and questions about its log.

What is simulated
    Every seed generates one *custom* TextWorld game with TextWorld's own generator
    (``textworld.generator.make_game``): a map of 6 to 10 rooms, 14 to 30 objects (containers,
    supporters, keys, food, doors, plain things) and two or three chained quests of length 2 to 4. The
    game is compiled to Inform 7 / Z-machine and played for real through ``textworld.start``; the game's
    fact tracking gives the world state after every command, its status line gives score and moves.
    Maps where fewer than two thirds of the rooms can be reached without a locked door are regenerated.

How the agent behaves
    The agent is an errand runner with a step budget (320 to 780 commands). It knows the game's
    remaining walkthrough at every step (TextWorld's winning policy, recomputed after each command) and
    advances it in short bursts, paced so that the last quest is finished on its final step. Between
    bursts it dawdles: it walks to other rooms (opening closed doors on the way), walks back the way it
    came, examines things (often the same thing again), looks around, checks its pockets, picks up,
    drops, puts on surfaces and stows in containers objects that no quest needs, opens, shuts, locks and
    unlocks containers with keys that fit, eats spare food, and makes mistakes on purpose: it walks into
    walls, tries to take furniture, opens locked containers, tries wrong keys, tries to eat things that
    are not food and examines things that are in another room. It never touches an object the quests
    need except when following the walkthrough, so the game stays winnable.

Records
    One Step per command. ``action`` is the command as typed; ``location.region`` is the room after the
    command and ``location.position`` the room's cell on the game's grid map (the starting room is 0,0,
    east is +x, north is +y); ``inventory`` holds every carried object with count 1; ``state`` holds
    ``score`` and ``moves`` (the game's counters), ``rooms seen`` (distinct rooms entered so far,
    starting room included), ``heading`` (direction of the last successful move, "none" before the
    first) and ``walkthrough left`` (number of commands in the remaining walkthrough); ``objects`` are
    the things in view (in the room, on its supporters, in its open containers, its doors) and
    ``relations`` say which of them lie on or in which holder. Events come from
    the difference of the game's facts before and after the command, in this order: ``enter`` (room),
    ``pick up``, ``drop`` (onto the floor), ``shelve`` (onto a supporter), ``stow`` (into a container),
    ``eat`` (item), ``unlock``, ``open``, ``shut``, ``lock`` (container or door), then ``earn point``
    when the score rose and ``win game`` when the game was won. Commands that change no fact give
    ``examine`` (thing), ``look around``, ``check inventory``, or ``fail to <verb>`` with the target
    (``fail to go`` takes the direction).

How answers are computed
    A reference evaluator scans the Step records only (events, inventory, state, location) with the
    conventions of the suite specification: windows "before"/"after" exclusive, "by"/"between"
    inclusive, an occurrence without ordinal is the first, "again" the second, conditions name the
    first (or last) step that meets them, "k steps after X" is X's step + k.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout4_textworld"
SEED_RANGE = range(8000, 8100)

DIRECTIONS: tuple[str, ...] = ("north", "south", "east", "west")
_DIR_DELTA: dict[str, tuple[int, int]] = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
_DIR_FACT: dict[str, str] = {"north": "north_of", "south": "south_of", "east": "east_of", "west": "west_of"}


# ==================================================================================================
# Game generation
# ==================================================================================================


@dataclass(frozen=True)
class GameConfig:
    rooms: int
    objects: int
    quest_length: int
    quests: int
    budget: int


def game_config(seed: int) -> GameConfig:
    rng = random.Random(seed * 7919 + 17)
    rooms = rng.randint(6, 10)
    objects = rng.randint(rooms * 2 + 2, rooms * 3)
    quest_length = rng.randint(2, 4)
    quests = rng.randint(2, 3) if rooms * quest_length < 32 else 2
    return GameConfig(rooms=rooms, objects=objects, quest_length=quest_length, quests=quests,
                      budget=rng.randint(320, 780))


def _make_game(seed: int, config: GameConfig, folder: str, first_attempt: int = 0) -> tuple[str, Any]:
    """Generate and compile a game; retry with derived seeds if names clash or generation fails."""
    from textworld.generator import compile_game, make_game
    from textworld.generator.game import GameOptions

    last_error: Exception | None = None
    for attempt in range(first_attempt, first_attempt + 8):
        options = GameOptions()
        options.seeds = seed * 100 + attempt
        options.nb_rooms = config.rooms
        options.nb_objects = config.objects
        options.quest_length = config.quest_length
        options.nb_parallel_quests = config.quests
        options.path = os.path.join(folder, f"game{attempt}.z8")
        options.force_recompile = True
        try:
            game = make_game(options)
        except Exception as exc:  # the generator occasionally cannot build a quest chain
            last_error = exc
            continue
        names = [info.name for info in game.infos.values() if info.name]
        lowered = [n.lower() for n in names]
        if len(set(lowered)) != len(lowered) or any(n.lower() in DIRECTIONS for n in names):
            continue
        # The parser must not have to ask "which do you mean?" in a two-object walkthrough command
        # (whole names of single objects are resolved by the game itself).
        shadowed = shadowed_names(names)
        commands = list(game.metadata.get("walkthrough") or []) + [c for q in game.quests for c in q.commands]
        if any(len(args) == 2 and set(args) & shadowed for args in map(command_args, commands)):
            continue
        # Most of the map must be reachable from the start without a locked door.
        start = make_view(list(game.world.facts))
        if len(first_hops(start)) + 1 < min(config.rooms, max(4, config.rooms * 2 // 3)):
            continue
        return compile_game(game, options), game
    raise RuntimeError(f"could not generate a game for seed {seed}: {last_error}")


# ==================================================================================================
# World view parsed from the game's facts
# ==================================================================================================

FactKey = tuple[str, tuple[str, ...]]


@dataclass
class View:
    """The world as the game's facts describe it after a command."""

    facts: frozenset[FactKey]
    types: dict[str, str]
    room: str = ""
    held: list[str] = field(default_factory=list)
    exits: dict[str, tuple[str, str]] = field(default_factory=dict)  # direction -> (room, door or "")
    visible: list[str] = field(default_factory=list)
    where: dict[str, tuple[str, str]] = field(default_factory=dict)  # thing -> (relation, holder)

    def has(self, name: str, *args: str) -> bool:
        return (name, tuple(args)) in self.facts


def make_view(raw_facts: Sequence[Any]) -> View:
    facts: set[FactKey] = set()
    types: dict[str, str] = {}
    for prop in raw_facts:
        args = tuple(str(v.name) for v in prop.arguments)
        for v in prop.arguments:
            types[str(v.name)] = str(v.type)
        facts.add((str(prop.name), args))
    view = View(frozenset(facts), types)
    for name, args in sorted(facts):
        if name == "at" and args[0] == "P":
            view.room = args[1]
    room = view.room
    view.held = sorted(a[0] for n, a in facts if n == "in" and a[1] == "I")
    for direction in DIRECTIONS:
        for n, a in facts:
            if n == _DIR_FACT[direction] and a[1] == room:
                door = ""
                for n2, a2 in facts:
                    if n2 == "link" and a2[0] == room and a2[2] == a[0]:
                        door = a2[1]
                view.exits[direction] = (a[0], door)
    here = sorted(a[0] for n, a in facts if n == "at" and a[1] == room and a[0] != "P")
    visible: list[str] = list(here)
    for n, a in sorted(facts):
        if n == "link" and a[0] == room and a[1] not in visible:
            visible.append(a[1])
    for thing in here:
        view.where[thing] = ("at", room)
    for holder in list(here):
        for n, a in sorted(facts):
            if n == "on" and a[1] == holder:
                visible.append(a[0])
                view.where[a[0]] = ("on", holder)
            if n == "in" and a[1] == holder and ("open", (holder,)) in facts:
                visible.append(a[0])
                view.where[a[0]] = ("in", holder)
    view.visible = sorted(set(visible), key=str.lower)
    return view


def room_grid(view: View) -> dict[str, tuple[int, int]]:
    """Grid cells of all rooms, from the direction facts, starting room at 0,0."""
    grid = {view.room: (0, 0)}
    frontier = [view.room]
    while frontier:
        room = frontier.pop(0)
        x, y = grid[room]
        for direction in DIRECTIONS:
            for n, a in sorted(view.facts):
                if n == _DIR_FACT[direction] and a[1] == room and a[0] not in grid:
                    dx, dy = _DIR_DELTA[direction]
                    grid[a[0]] = (x + dx, y + dy)
                    frontier.append(a[0])
    return grid


def shadowed_names(names: Sequence[str]) -> set[str]:
    """Names whose words all occur in another name ("chest" next to "Canadian limited edition chest"):
    the parser cannot tell which thing a command about them means when both are at hand."""
    word_sets = {n: set(n.lower().split()) for n in names}
    return {n for n, ws in word_sets.items() if any(m != n and ws <= other for m, other in word_sets.items())}


def command_args(command: str) -> list[str]:
    """The object names a command mentions ("insert X into Y" -> [X, Y])."""
    parts = command.split(" ", 1)
    if len(parts) < 2 or parts[0] == "go":
        return []
    rest = parts[1]
    for sep in (" from ", " into ", " on ", " with "):
        if sep in rest:
            return rest.split(sep, 1)
    return [rest]


def first_hops(view: View) -> dict[str, tuple[str, str, str]]:
    """For every room reachable without passing a locked door: the first hop (direction, room, door)."""
    facts = view.facts
    rooms_exits: dict[str, list[tuple[str, str, str]]] = {}
    for direction in DIRECTIONS:
        for n, a in sorted(facts):
            if n == _DIR_FACT[direction]:
                door = ""
                for n2, a2 in facts:
                    if n2 == "link" and a2[0] == a[1] and a2[2] == a[0]:
                        door = a2[1]
                rooms_exits.setdefault(a[1], []).append((direction, a[0], door))
    first: dict[str, tuple[str, str, str]] = {}
    frontier = [view.room]
    seen = {view.room}
    while frontier:
        room = frontier.pop(0)
        for direction, nxt, door in rooms_exits.get(room, []):
            if nxt in seen or (door and ("locked", (door,)) in facts):
                continue
            seen.add(nxt)
            first[nxt] = first.get(room, (direction, nxt, door))
            frontier.append(nxt)
    return first


def fact_events(before: View, after: View, command: str, feedback: str) -> list[Event]:
    """Events of one command, from the change of facts (or, without one, from the command)."""
    added = after.facts - before.facts
    removed = before.facts - after.facts
    events: list[Event] = []
    if after.room != before.room:
        events.append(Event("enter", after.room))
    for n, a in sorted(added):
        if n == "in" and a[1] == "I":
            events.append(Event("pick up", a[0]))
    for n, a in sorted(removed):
        if n == "in" and a[1] == "I":
            thing = a[0]
            if ("at", (thing, after.room)) in added:
                events.append(Event("drop", thing))
            elif any(n2 == "on" and a2[0] == thing for n2, a2 in added):
                events.append(Event("shelve", thing))
            elif any(n2 == "in" and a2[0] == thing for n2, a2 in added):
                events.append(Event("stow", thing))
            else:
                events.append(Event("eat", thing))
    for kind, test in (
        ("unlock", lambda n, a, side: n == "locked" and side == "removed"),
        ("open", lambda n, a, side: n == "open" and side == "added"),
        ("shut", lambda n, a, side: n == "closed" and side == "added" and ("open", a) in removed),
        ("lock", lambda n, a, side: n == "locked" and side == "added"),
    ):
        for side, group in (("added", added), ("removed", removed)):
            for n, a in sorted(group):
                if test(n, a, side):
                    events.append(Event(kind, a[0]))
    if events or added or removed:
        return events
    words = command.split()
    verb = words[0]
    if verb == "look":
        return [Event("look around")]
    if verb == "inventory":
        return [Event("check inventory")]
    target = _command_target(command)
    if verb == "examine" and "can't see any such thing" not in feedback.lower():
        return [Event("examine", target)]
    return [Event(f"fail to {verb}", target)]


def _command_target(command: str) -> str:
    words = command.split()
    if words[0] == "go":
        return words[1]
    rest = " ".join(words[1:])
    for sep in (" with ", " into ", " on ", " from "):
        if sep in rest:
            rest = rest.split(sep)[0]
    return rest


def clean_feedback(text: str) -> str:
    text = text.split("\n>")[0]
    text = " ".join(text.split())
    return text if len(text) <= 380 else text[:377] + "..."


# ==================================================================================================
# The agent
# ==================================================================================================


class Dawdler:
    """Follows the walkthrough in bursts, dawdling in between (see the module docstring)."""

    def __init__(self, rng: random.Random, budget: int, quest_names: set[str], max_score: int,
                 shadowed: set[str]) -> None:
        self.rng = rng
        self.budget = budget
        self.quest_names = quest_names
        self.shadowed = shadowed  # names the agent avoids typing (the parser would ask which one)
        # When each quest but the last is meant to be finished; the last one ends the episode.
        self.schedule = sorted(
            int(budget * (i / max(max_score, 1) + rng.uniform(-0.08, 0.08))) for i in range(1, max(max_score, 1))
        )
        self.plan: list[tuple[str, Any]] = []  # queued intents: ("cmd", text) | ("goto", room) | ("errand", n)
        self.examined: list[str] = []
        self.came_from: list[tuple[str, str]] = []  # (direction back, room left)
        self.visits: dict[str, int] = {}

    # ---- helpers --------------------------------------------------------------------------------
    def free(self, name: str) -> bool:
        return name not in self.quest_names

    def sayable(self, names: Sequence[str]) -> list[str]:
        return [n for n in names if n not in self.shadowed]

    def route(self, view: View, target: str) -> str | None:
        """Next command towards ``target`` (breadth-first over known exits, avoiding locked doors)."""
        if view.room == target:
            return None
        first = first_hops(view)
        if target not in first:
            return None
        direction, _, door = first[target]
        if door and ("closed", (door,)) in view.facts:
            return None if door in self.shadowed else f"open {door}"
        return f"go {direction}"

    # ---- choosing -------------------------------------------------------------------------------
    def act(self, t: int, view: View, policy: list[str], admissible: list[str], score: int) -> str:
        left = self.budget - t
        final_guard = len(policy) == 1
        if left <= len(policy) + 2:
            self.plan = []
            if policy and (not final_guard or left <= 1):
                return policy[0]
            return self.idle(view)
        if left <= len(policy) + 16:
            # Too close to the end for a walk: only one-step dawdles that keep the agent in the room.
            self.plan = [p for p in self.plan if p[0] == "cmd" and not p[1].startswith(("go ", "open "))][:1]
            if self.plan:
                return self.plan.pop(0)[1]
            if policy and not final_guard and self.rng.random() < 0.5:
                return policy[0]
            return self.idle(view)
        due = score < sum(1 for when in self.schedule if when <= t)
        while self.plan:
            kind, arg = self.plan[0]
            if kind == "cmd":
                self.plan.pop(0)
                return arg
            if kind == "goto":
                step = self.route(view, arg)
                if step is None:
                    self.plan.pop(0)
                    continue
                return step
            if kind == "errand":
                if not policy or (final_guard and left > 1) or arg <= 0:
                    self.plan.pop(0)
                    continue
                self.plan[0] = ("errand", arg - 1)
                return policy[0]
        p_errand = 0.45 if due else 0.012
        if policy and not final_guard and self.rng.random() < p_errand:
            self.plan = [("errand", self.rng.randint(2, 5) if due else 1)]
            return self.act(t, view, policy, admissible, score)
        for _ in range(4):
            self.plan = self.dawdle(view, admissible)
            if self.plan:
                break
        if not self.plan:
            return self.idle(view)
        return self.act(t, view, policy, admissible, score)

    def idle(self, view: View) -> str:
        things = self.sayable([x for x in view.visible if view.types.get(x) != "d"])
        fresh = [x for x in things if x not in self.examined[-3:]]
        roll = self.rng.random()
        if fresh and roll < 0.5:
            return self.examine(self.rng.choice(fresh))
        if roll < 0.7:
            mistakes = [c for kind, c in self.blunder(view) if not c.startswith("go ")]
            if mistakes:
                return mistakes[0]
        return "look" if roll < 0.85 else "inventory"

    def examine(self, thing: str) -> str:
        self.examined.append(thing)
        return f"examine {thing}"

    def dawdle(self, view: View, admissible: list[str]) -> list[tuple[str, Any]]:
        rng = self.rng
        choice = rng.choices(
            ["wander", "inspect", "tidy", "tinker", "snack", "glance", "blunder", "backtrack"],
            weights=[10, 13, 26, 14, 4, 6, 10, 6],
        )[0]
        free_cmds = [c for c in admissible if self._cmd_is_free(c)]
        if choice == "wander":
            rooms = sorted(first_hops(view))
            if not rooms:
                return []
            near = [r for r in rooms if self._distance(view, r) <= 3]
            rooms = near or rooms
            weights = [1.0 / (1 + self.visits.get(r, 0)) for r in rooms]
            target = rng.choices(rooms, weights=weights)[0]
            return [("goto", target)]
        if choice == "backtrack":
            if self.came_from:
                back, _ = self.came_from[-1]
                return [("cmd", f"go {back}"), ("goto", view.room)]
            return []
        if choice == "inspect":
            things = self.sayable([x for x in view.visible if view.types.get(x) != "d"])
            if not things:
                return []
            out: list[tuple[str, Any]] = []
            for _ in range(rng.randint(1, 3)):
                seen_here = [x for x in self.examined if x in things]
                if seen_here and rng.random() < 0.4:
                    thing = rng.choice(seen_here)
                else:
                    thing = rng.choice(things)
                self.examined.append(thing)
                out.append(("cmd", f"examine {thing}"))
            return out
        if choice == "glance":
            return [("cmd", rng.choice(["look", "inventory", "look"]))]
        if choice == "tidy":
            held = [x for x in view.held if self.free(x)]
            if held and rng.random() < 0.5:
                cands = [c for c in free_cmds if c.split()[0] in ("drop", "put", "insert")]
            else:
                cands = [c for c in free_cmds if c.split()[0] == "take"]
            return [("cmd", rng.choice(cands))] if cands else []
        if choice == "tinker":
            cands = [c for c in free_cmds if c.split()[0] in ("open", "close", "lock", "unlock")
                     and not (c.startswith("lock") and view.types.get(_command_target(c)) == "d")]
            return [("cmd", rng.choice(cands))] if cands else []
        if choice == "snack":
            cands = [c for c in free_cmds if c.startswith("eat ")]
            return [("cmd", rng.choice(cands))] if cands else []
        return self.blunder(view)

    def _distance(self, view: View, target: str) -> int:
        grid = room_grid(view)
        here, there = grid.get(view.room, (0, 0)), grid.get(target, (0, 0))
        return abs(here[0] - there[0]) + abs(here[1] - there[1])

    def blunder(self, view: View) -> list[tuple[str, Any]]:
        rng = self.rng
        options: list[str] = []
        walls = [d for d in DIRECTIONS if d not in view.exits]
        if walls:
            options.append(f"go {rng.choice(walls)}")
        furniture = self.sayable([x for x in view.visible if view.types.get(x) in ("s", "c")])
        if furniture:
            options.append(f"take {rng.choice(furniture)}")
        locked = self.sayable([x for x in view.visible if view.types.get(x) == "c" and view.has("locked", x)])
        if locked:
            box = rng.choice(locked)
            options.append(f"open {box}")
            wrong = self.sayable([k for k in view.held if view.types.get(k) == "k" and not view.has("match", k, box)])
            if wrong:
                options.append(f"unlock {box} with {rng.choice(wrong)}")
        inedible = self.sayable([x for x in view.held if view.types.get(x) != "f"])
        if inedible:
            options.append(f"eat {rng.choice(inedible)}")
        elsewhere = self.sayable(sorted(a[0] for n, a in view.facts if n == "at" and a[1] != view.room
                                        and view.types.get(a[0]) in ("s", "c", "o", "k", "f")))
        if elsewhere:
            options.append(f"examine {rng.choice(elsewhere)}")
        return [("cmd", rng.choice(options))] if options else []

    def _cmd_is_free(self, command: str) -> bool:
        if any(arg in self.shadowed for arg in command_args(command)):
            return False
        lowered = command.lower()
        for name in self.quest_names:
            if re.search(r"(?<![\w-])" + re.escape(name.lower()) + r"(?![\w-])", lowered):
                return False
        return True

    def moved(self, before: View, after: View, command: str) -> None:
        if after.room != before.room and command.startswith("go "):
            direction = command.split()[1]
            back = {"north": "south", "south": "north", "east": "west", "west": "east"}[direction]
            self.came_from.append((back, before.room))
            self.came_from = self.came_from[-6:]
            self.visits[after.room] = self.visits.get(after.room, 0) + 1


# ==================================================================================================
# Rollout -> Step records
# ==================================================================================================


def _quest_names(game: Any) -> set[str]:
    names = [info.name for info in game.infos.values() if info.name]
    commands: list[str] = []
    for quest in game.quests:
        commands.extend(quest.commands)
    commands.extend(game.metadata.get("walkthrough") or [])
    text = " | ".join(commands).lower()
    found: set[str] = set()
    for name in names:
        if re.search(r"(?<![\w-])" + re.escape(name.lower()) + r"(?![\w-])", text):
            found.add(name)
    return found


@dataclass
class GameFacts:
    """What the question writer may know about the game besides the records (for plausible "no"s)."""

    rooms: list[str]
    foods: list[str]
    openables: list[str]
    portables: list[str]


class ParserQuestion(RuntimeError):
    """The game asked which of two things a command meant; the game is replaced by another one."""


def play_episode(seed: int) -> tuple[list[Step], GameFacts]:
    for first_attempt in (0, 20, 40):
        try:
            return _play(seed, first_attempt)
        except ParserQuestion:
            continue
    raise RuntimeError(f"seed {seed}: every game made the parser ask which thing was meant")


def _play(seed: int, first_attempt: int) -> tuple[list[Step], GameFacts]:
    import textworld

    config = game_config(seed)
    rng = random.Random(seed * 104729 + 3)
    with tempfile.TemporaryDirectory(prefix="tw_dawdler_") as folder:
        path, game = _make_game(seed, config, folder, first_attempt)
        infos = textworld.EnvInfos(facts=True, policy_commands=True, admissible_commands=True,
                                   score=True, moves=True, feedback=True, won=True, lost=True)
        env = textworld.start(path, infos)
        try:
            state = env.reset()
            view = make_view(state["facts"])
            grid = room_grid(view)
            kinds = view.types
            facts = GameFacts(
                rooms=sorted(n for n, k in kinds.items() if k == "r"),
                foods=sorted(n for n, k in kinds.items() if k == "f"),
                openables=sorted(n for n, k in kinds.items() if k in ("c", "d")),
                portables=sorted(n for n, k in kinds.items() if k in ("o", "k", "f")),
            )
            names = [info.name for info in game.infos.values() if info.name]
            agent = Dawdler(rng, config.budget, _quest_names(game), int(game.max_score), shadowed_names(names))
            agent.visits[view.room] = 1
            seen_rooms = [view.room]
            heading = "none"
            score = int(state["score"] or 0)
            steps: list[Step] = []
            t = 0
            while True:
                policy = list(state["policy_commands"] or [])
                if t >= config.budget + 40 or (t >= config.budget and not policy):
                    break
                command = agent.act(t, view, policy, list(state["admissible_commands"] or []), score)
                state, _, done = env.step(command)
                after = make_view(state["facts"])
                feedback = str(state["feedback"] or "")
                if "which do you mean" in feedback.lower():
                    raise ParserQuestion(f"ambiguous command {command!r} at t={t} (seed {seed})")
                events = fact_events(view, after, command, feedback)
                new_score = int(state["score"] or 0)
                if new_score > score:
                    events.append(Event("earn point"))
                if state["won"]:
                    events.append(Event("win game"))
                score = new_score
                agent.moved(view, after, command)
                if after.room != view.room:
                    heading = command.split()[1] if command.startswith("go ") else heading
                    if after.room not in seen_rooms:
                        seen_rooms.append(after.room)
                remaining = list(state["policy_commands"] or [])
                relations = tuple(Relation(thing, rel, holder) for thing, (rel, holder) in sorted(after.where.items())
                                  if rel != "at")
                summary = f"In the {after.room}: " + "; ".join(
                    f"{e.kind} {e.obj}".strip() for e in events)
                steps.append(Step(
                    t=t,
                    action=command,
                    summary=summary,
                    objects=tuple(after.visible),
                    events=tuple(events),
                    relations=relations,
                    inventory=tuple((name, 1) for name in after.held),
                    state=(("score", score), ("moves", int(state["moves"] or 0)), ("rooms seen", len(seen_rooms)),
                           ("heading", heading), ("walkthrough left", len(remaining))),
                    location=Location(position=grid.get(after.room), region=after.room),
                    observation=clean_feedback(feedback),
                ))
                view = after
                t += 1
                if done:
                    break
        finally:
            env.close()
    return steps, facts


# ==================================================================================================
# Reference evaluator: plain scans over the Step records
# ==================================================================================================


@dataclass(frozen=True)
class Pat:
    """An event pattern: a kind and one object, or a kind and any object (``obj=None``)."""

    kind: str
    obj: str | None = None

    def matches(self, event: Event) -> bool:
        return event.kind == self.kind and (self.obj is None or event.obj == self.obj)

    @property
    def text(self) -> str:
        return f"{self.kind} {self.obj}".strip() if self.obj else self.kind


def event_text(event: Event) -> str:
    return f"{event.kind} {event.obj}" if event.obj else event.kind


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


class Log:
    """One episode's records with the scans the questions need."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.last = len(self.steps) - 1

    def sid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def hits(self, pat: Pat, lo: int = 0, hi: int | None = None) -> list[int]:
        """Steps in [lo, hi] holding at least one matching event."""
        hi = self.last if hi is None else hi
        return [s.t for s in self.steps[max(lo, 0):hi + 1] if any(pat.matches(e) for e in s.events)]

    def count(self, pat: Pat, lo: int = 0, hi: int | None = None) -> int:
        hi = self.last if hi is None else hi
        return sum(1 for s in self.steps[max(lo, 0):hi + 1] for e in s.events if pat.matches(e))

    def nth(self, pat: Pat, n: int, lo: int = 0, hi: int | None = None) -> int | None:
        found = self.hits(pat, lo, hi)
        if n > 0:
            return found[n - 1] if len(found) >= n else None
        return found[n] if len(found) >= -n else None

    def distinct_objs(self, pat: Pat, lo: int, hi: int) -> list[str]:
        out: list[str] = []
        for s in self.steps[max(lo, 0):hi + 1]:
            for e in s.events:
                if pat.matches(e) and e.obj and e.obj not in out:
                    out.append(e.obj)
        return out

    def item(self, t: int, name: str) -> int:
        return self.steps[t].inventory_dict.get(name, 0)

    def state(self, t: int, name: str) -> Any:
        return self.steps[t].state_dict[name]

    def held_total(self, t: int) -> int:
        return sum(c for _, c in self.steps[t].inventory)

    def first_where(self, test: Callable[[int], bool]) -> int | None:
        return next((t for t in range(len(self.steps)) if test(t)), None)

    def last_where(self, test: Callable[[int], bool]) -> int | None:
        return next((t for t in range(self.last, -1, -1) if test(t)), None)

    def slot(self, slot: str, t: int, arg: str = "") -> str:
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
            return str(self.item(t, arg))
        if slot == "inventory":
            pairs = [(n, c) for n, c in step.inventory if c > 0]
            return ", ".join(f"{n} {c}" for n, c in pairs) if pairs else "none"
        if slot == "state":
            return format_value(self.state(t, arg))
        if slot == "events":
            return "; ".join(event_text(e) for e in step.events) if step.events else "none"
        raise ValueError(slot)


# ==================================================================================================
# Wording
# ==================================================================================================


@dataclass(frozen=True)
class Person:
    subj: str  # I / we / you / the agent
    poss: str  # my / our / your / the agent's
    be: str  # was / were
    have: str  # have / has
    obj: str  # me / us / you / it
    inner: str  # possessive inside a clause whose subject is already named: my / our / your / its


PERSONS: tuple[Person, ...] = (
    Person("I", "my", "was", "have", "me", "my"),
    Person("I", "my", "was", "have", "me", "my"),
    Person("we", "our", "were", "have", "us", "our"),
    Person("you", "your", "were", "have", "you", "your"),
    Person("the agent", "the agent's", "was", "has", "it", "its"),
    Person("the player", "the player's", "was", "has", "it", "its"),
)

#: Verb phrases per event kind: (past, base, participle). "spec" take an object {o}; "any" do not.
_V = tuple[str, str, str]


@dataclass(frozen=True)
class Lex:
    spec: tuple[_V, ...]
    any: tuple[_V, ...]
    ger_spec: tuple[str, ...]
    ger_any: tuple[str, ...]
    noun_spec: tuple[str, ...] = ()
    noun_any: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()


def _same(*phrases: str) -> tuple[_V, ...]:
    """Verb phrases whose past tense and participle coincide: given as (past, base) pairs."""
    out = []
    for i in range(0, len(phrases), 2):
        out.append((phrases[i], phrases[i + 1], phrases[i]))
    return tuple(out)


LEXICON: dict[str, Lex] = {
    "enter": Lex(
        spec=(("entered the {o}", "enter the {o}", "entered the {o}"),
              ("walked into the {o}", "walk into the {o}", "walked into the {o}"),
              ("went into the {o}", "go into the {o}", "gone into the {o}"),
              ("arrived in the {o}", "arrive in the {o}", "arrived in the {o}")),
        any=(("entered a room", "enter a room", "entered a room"),
             ("moved into another room", "move into another room", "moved into another room"),
             ("walked into a room", "walk into a room", "walked into a room")),
        ger_spec=("entering the {o}", "walking into the {o}", "arriving in the {o}"),
        ger_any=("entering a room", "moving to another room"),
        noun_spec=("visit to the {o}", "arrival in the {o}", "entry into the {o}"),
        noun_any=("room change", "entry into a room"),
        lists=("which rooms did {S} enter{W}?", "name the rooms {S} walked into{W}.", "list the rooms {S} went into{W}."),
    ),
    "pick up": Lex(
        spec=(("picked up the {o}", "pick up the {o}", "picked up the {o}"),
              ("took the {o}", "take the {o}", "taken the {o}"),
              ("grabbed the {o}", "grab the {o}", "grabbed the {o}"),
              ("got hold of the {o}", "get hold of the {o}", "gotten hold of the {o}")),
        any=(("picked something up", "pick something up", "picked something up"),
             ("took an item", "take an item", "taken an item"),
             ("grabbed something", "grab something", "grabbed something")),
        ger_spec=("picking up the {o}", "taking the {o}", "grabbing the {o}"),
        ger_any=("picking something up", "taking an item"),
        noun_spec=("pickup of the {o}",),
        noun_any=("pickup", "item pickup"),
        lists=("what did {S} pick up{W}?", "which things did {S} take{W}?", "list the items {S} grabbed{W}."),
    ),
    "drop": Lex(
        spec=_same("dropped the {o}", "drop the {o}", "put the {o} down on the floor", "put the {o} down on the floor",
                   "left the {o} lying on the floor", "leave the {o} lying on the floor"),
        any=_same("dropped something", "drop something", "dropped an item on the floor", "drop an item on the floor"),
        ger_spec=("dropping the {o}", "putting the {o} down on the floor"),
        ger_any=("dropping something", "dropping an item"),
        lists=("what did {S} drop{W}?", "which items did {S} leave on the floor{W}?"),
    ),
    "shelve": Lex(
        spec=_same("set the {o} down on a surface", "set the {o} down on a surface",
                   "put the {o} on top of something", "put the {o} on top of something",
                   "placed the {o} on a supporter", "place the {o} on a supporter"),
        any=_same("set something down on a surface", "set something down on a surface",
                  "put an item on top of something", "put an item on top of something"),
        ger_spec=("setting the {o} on a surface", "putting the {o} on top of something"),
        ger_any=("putting something on a surface",),
        lists=("what did {S} set down on surfaces{W}?", "which items did {S} put on top of something{W}?"),
    ),
    "stow": Lex(
        spec=_same("put the {o} into a container", "put the {o} into a container",
                   "stowed the {o} in a container", "stow the {o} in a container",
                   "placed the {o} inside something", "place the {o} inside something"),
        any=_same("stowed something in a container", "stow something in a container",
                  "put an item inside a container", "put an item inside a container"),
        ger_spec=("stowing the {o} in a container", "putting the {o} into a container"),
        ger_any=("stowing something away in a container",),
        lists=("what did {S} put into containers{W}?", "which items did {S} stow in containers{W}?"),
    ),
    "open": Lex(
        spec=(("opened the {o}", "open the {o}", "opened the {o}"), ("got the {o} open", "get the {o} open", "gotten the {o} open")),
        any=_same("opened something", "open something", "opened a container or a door", "open a container or a door"),
        ger_spec=("opening the {o}",),
        ger_any=("opening something",),
        lists=("what did {S} open{W}?", "which containers or doors did {S} open{W}?"),
    ),
    "shut": Lex(
        spec=_same("closed the {o}", "close the {o}", "shut the {o}", "shut the {o}"),
        any=_same("closed something", "close something", "shut a container or a door", "shut a container or a door"),
        ger_spec=("closing the {o}", "shutting the {o}"),
        ger_any=("closing something",),
        lists=("what did {S} close{W}?", "which things did {S} shut{W}?"),
    ),
    "unlock": Lex(
        spec=_same("unlocked the {o}", "unlock the {o}"),
        any=_same("unlocked something", "unlock something", "used a key to unlock something", "use a key to unlock something"),
        ger_spec=("unlocking the {o}",),
        ger_any=("unlocking something",),
        lists=("what did {S} unlock{W}?",),
    ),
    "lock": Lex(
        spec=_same("locked the {o}", "lock the {o}", "locked up the {o}", "lock up the {o}"),
        any=_same("locked something", "lock something"),
        ger_spec=("locking the {o}",),
        ger_any=("locking something",),
        lists=("what did {S} lock{W}?",),
    ),
    "eat": Lex(
        spec=(("ate the {o}", "eat the {o}", "eaten the {o}"), ("consumed the {o}", "consume the {o}", "consumed the {o}")),
        any=(("ate something", "eat something", "eaten something"), ("had a snack", "have a snack", "had a snack")),
        ger_spec=("eating the {o}",),
        ger_any=("eating something",),
        noun_any=("snack",),
        lists=("what did {S} eat{W}?", "which foods did {S} eat{W}?"),
    ),
    "examine": Lex(
        spec=_same("examined the {o}", "examine the {o}", "inspected the {o}", "inspect the {o}",
                   "looked closely at the {o}", "look closely at the {o}", "checked out the {o}", "check out the {o}"),
        any=_same("examined something", "examine something", "inspected an object", "inspect an object"),
        ger_spec=("examining the {o}", "inspecting the {o}"),
        ger_any=("examining something",),
        noun_spec=("inspection of the {o}", "close look at the {o}"),
        noun_any=("examination", "inspection"),
        lists=("what did {S} examine{W}?", "which things did {S} inspect{W}?"),
    ),
    "look around": Lex(
        spec=(), any=_same("looked around", "look around", "surveyed the room", "survey the room",
                           "used the look command", "use the look command"),
        ger_spec=(), ger_any=("looking around", "surveying the room"),
        noun_any=("look around the room",),
    ),
    "check inventory": Lex(
        spec=(), any=_same("checked {P} inventory", "check {P} inventory", "looked through {P} inventory",
                           "look through {P} inventory"),
        ger_spec=(), ger_any=("checking inventory",),
        noun_any=("inventory check",),
    ),
    "fail to go": Lex(
        spec=(("tried in vain to go {o}", "try in vain to go {o}", "tried in vain to go {o}"),
              ("failed to head {o}", "fail to head {o}", "failed to head {o}")),
        any=(("failed to move in some direction", "fail to move in some direction", "failed to move in some direction"),
             ("tried in vain to walk somewhere", "try in vain to walk somewhere", "tried in vain to walk somewhere")),
        ger_spec=("failing to go {o}",),
        ger_any=("failing to move somewhere",),
        noun_spec=("failed attempt to go {o}",),
        noun_any=("blocked move", "failed move"),
        lists=("in which directions did {S} fail to go{W}?",),
    ),
    "fail to take": Lex(
        spec=(("tried in vain to take the {o}", "try in vain to take the {o}", "tried in vain to take the {o}"),
              ("failed to pick up the {o}", "fail to pick up the {o}", "failed to pick up the {o}")),
        any=_same("failed to pick something up", "fail to pick something up"),
        ger_spec=("failing to take the {o}",),
        ger_any=("failing to pick something up",),
        noun_spec=("failed attempt to take the {o}",),
        noun_any=("failed pickup",),
        lists=("what did {S} try and fail to pick up{W}?",),
    ),
    "fail to open": Lex(
        spec=(("failed to open the {o}", "fail to open the {o}", "failed to open the {o}"),
              ("tried in vain to open the {o}", "try in vain to open the {o}", "tried in vain to open the {o}")),
        any=_same("failed to open something", "fail to open something"),
        ger_spec=("failing to open the {o}",),
        ger_any=("failing to open something",),
        noun_spec=("failed attempt to open the {o}",),
        lists=("what did {S} try and fail to open{W}?",),
    ),
    "fail to unlock": Lex(
        spec=(("failed to unlock the {o}", "fail to unlock the {o}", "failed to unlock the {o}"),
              ("tried in vain to unlock the {o}", "try in vain to unlock the {o}", "tried in vain to unlock the {o}")),
        any=_same("failed to unlock something", "fail to unlock something"),
        ger_spec=("failing to unlock the {o}",),
        ger_any=("failing to unlock something",),
        noun_spec=("failed attempt to unlock the {o}",),
    ),
    "fail to eat": Lex(
        spec=(("failed to eat the {o}", "fail to eat the {o}", "failed to eat the {o}"),
              ("tried in vain to eat the {o}", "try in vain to eat the {o}", "tried in vain to eat the {o}")),
        any=_same("failed to eat something", "fail to eat something"),
        ger_spec=("failing to eat the {o}",),
        ger_any=("failing to eat something",),
        noun_spec=("failed attempt to eat the {o}",),
        lists=("what did {S} try and fail to eat{W}?",),
    ),
    "fail to examine": Lex(
        spec=(("failed to examine the {o}", "fail to examine the {o}", "failed to examine the {o}"),
              ("tried in vain to examine the {o}", "try in vain to examine the {o}", "tried in vain to examine the {o}")),
        any=_same("failed to examine something", "fail to examine something"),
        ger_spec=("failing to examine the {o}",),
        ger_any=("failing to examine something",),
        noun_spec=("failed attempt to examine the {o}",),
    ),
    "earn point": Lex(
        spec=(), any=_same("scored a point", "score a point", "earned a point", "earn a point"),
        ger_spec=(), ger_any=("scoring a point", "earning a point"),
        noun_any=("point",),
    ),
    "win game": Lex(
        spec=(), any=(("won the game", "win the game", "won the game"), ("finished the game", "finish the game", "finished the game")),
        ger_spec=(), ger_any=("winning the game",),
    ),
}

#: Kinds whose events carry no object.
NO_OBJ_KINDS = frozenset({"look around", "check inventory", "earn point", "win game"})

ORDINALS: dict[int, tuple[str, ...]] = {
    1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"), 5: ("fifth", "5th"),
    6: ("sixth", "6th"), 7: ("seventh", "7th"), 8: ("eighth", "8th"), 9: ("ninth", "9th"), 10: ("tenth", "10th"),
    -1: ("last", "final"), -2: ("second-to-last", "next-to-last", "penultimate"),
}

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                10: "ten", 12: "twelve", 15: "fifteen", 20: "twenty"}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


class Writer:
    """Phrases for patterns, occurrences, windows and slots, chosen with the question RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def person(self) -> Person:
        return PERSONS[self.rng.randrange(len(PERSONS))]

    def fill(self, text: str, pat: Pat, who: Person) -> str:
        """Fill a lexicon phrase; inside a clause the possessive is the short one ("its inventory")."""
        return text.replace("{o}", pat.obj or "").replace("{P}", who.inner).replace("{S}", who.subj)

    def verb(self, pat: Pat, who: Person, form: int) -> str:
        """A verb phrase for ``pat``: form 0 past, 1 base, 2 participle."""
        lex = LEXICON[pat.kind]
        options = lex.spec if (pat.obj and pat.kind not in NO_OBJ_KINDS) else lex.any
        return self.fill(options[self.rng.randrange(len(options))][form], pat, who)

    def gerund(self, pat: Pat, who: Person) -> str:
        lex = LEXICON[pat.kind]
        options = lex.ger_spec if (pat.obj and pat.kind not in NO_OBJ_KINDS) else lex.ger_any
        return self.fill(self.pick(options), pat, who)

    def nouns(self, pat: Pat) -> tuple[str, ...]:
        lex = LEXICON[pat.kind]
        return lex.noun_spec if (pat.obj and pat.kind not in NO_OBJ_KINDS) else lex.noun_any

    def ordinal(self, n: int) -> str:
        return self.pick(ORDINALS[n])

    def number(self, k: int) -> str:
        if k in NUMBER_WORDS and self.rng.random() < 0.5:
            return NUMBER_WORDS[k]
        return str(k)

    # ---- occurrences ----------------------------------------------------------------------------
    def occ_np(self, pat: Pat, n: int, who: Person) -> str:
        """A noun phrase naming the n-th occurrence ("the third time I opened the safe")."""
        options: list[str] = [f"the {self.ordinal(n)} time {who.subj} {self.verb(pat, who, 0)}"]
        nouns = self.nouns(pat)
        if nouns:
            options.append(f"{who.poss} {self.ordinal(n)} {self.fill(self.pick(nouns), pat, who)}")
        if n == 1:
            options.append(f"the moment {who.subj} first {self.verb(pat, who, 0)}")
            options.append(self.gerund(pat, who))
        if n == 2:
            options.append(f"{self.gerund(pat, who)} for the {self.ordinal(2)} time")
        return self.pick(options)

    def occ_when(self, pat: Pat, n: int, who: Person) -> str:
        """An adverbial naming the n-th occurrence ("the third time I opened the safe", "when I ... again")."""
        options: list[str] = [f"the {self.ordinal(n)} time {who.subj} {self.verb(pat, who, 0)}"]
        if n > 0:
            options.append(f"when {who.subj} {self.verb(pat, who, 0)} for the {self.ordinal(n)} time")
        nouns = self.nouns(pat)
        if nouns:
            options.append(f"at {who.poss} {self.ordinal(n)} {self.fill(self.pick(nouns), pat, who)}")
        if n == 1:
            options += [f"when {who.subj} first {self.verb(pat, who, 0)}", f"when {who.subj} {self.verb(pat, who, 0)}"]
        if n == 2:
            options.append(f"when {who.subj} {self.verb(pat, who, 0)} again")
        if n == -1:
            options.append(f"when {who.subj} {self.verb(pat, who, 0)} for the last time")
        return self.pick(options)

    def occ_clause(self, pat: Pat, n: int, who: Person) -> str:
        """A subordinate clause usable after "after"/"before" ("I first opened the safe")."""
        options: list[str] = [f"the {self.ordinal(n)} time {who.subj} {self.verb(pat, who, 0)}"]
        if n == 1:
            options += [f"{who.subj} first {self.verb(pat, who, 0)}"] * 2
        if n == 2:
            options.append(f"{who.subj} {self.verb(pat, who, 0)} again")
        nouns = self.nouns(pat)
        if nouns:
            options.append(f"{who.poss} {self.ordinal(n)} {self.fill(self.pick(nouns), pat, who)}")
        return self.pick(options)

    def base_nth(self, pat: Pat, n: int, who: Person) -> str:
        """A base-form verb phrase with the ordinal ("open the safe for the third time")."""
        vp = self.verb(pat, who, 1)
        if n == 1:
            return self.pick([vp, f"{vp} for the first time", f"first {vp}"])
        if n == 2 and self.rng.random() < 0.4:
            return f"{vp} again"
        return f"{vp} for the {self.ordinal(n)} time"

    def step_at(self, t: int) -> str:
        return self.pick([f"at step {t}", f"at step {t}", f"on step {t}", f"at t={t}", f"at time step {t}"])


# ==================================================================================================
# Question generation
# ==================================================================================================

STATE_NAMES = ("score", "moves", "rooms seen", "heading", "walkthrough left")


class Asker:
    """Draws the questions of one episode; every answer comes from :class:`Log`."""

    def __init__(self, log: Log, game: GameFacts, rng: random.Random) -> None:
        self.log = log
        self.game = game
        self.rng = rng
        self.w = Writer(rng)
        counts: dict[tuple[str, str], int] = {}
        for s in log.steps:
            for e in s.events:
                counts[(e.kind, e.obj)] = counts.get((e.kind, e.obj), 0) + 1
        self.counts = counts
        self.kinds = sorted({k for k, _ in counts if k in LEXICON})
        self.items_ever = sorted({n for s in log.steps for n, _ in s.inventory})

    # ---- choices --------------------------------------------------------------------------------
    def pattern(self, min_hits: int = 1, specific: bool | None = None, exclude: Sequence[str] = ("win game",),
                kinds: Sequence[str] | None = None) -> Pat | None:
        """A pattern with at least ``min_hits`` steps; kind chosen first (uniformly), then the object."""
        pool = [k for k in (kinds or self.kinds) if k not in exclude and k in self.kinds]
        order: list[str] = []
        while pool:  # a weighted shuffle: failures and bookkeeping commands come up less often
            weights = [0.45 if k.startswith("fail to") or k in ("look around", "check inventory") else 1.0 for k in pool]
            order.append(pool.pop(self.rng.choices(range(len(pool)), weights=weights)[0]))
        for kind in order:
            cands: list[Pat] = []
            if kind in NO_OBJ_KINDS:
                cands = [Pat(kind, "")]
            else:
                if specific is not True:
                    cands.append(Pat(kind))
                if specific is not False:
                    cands += [Pat(kind, o) for (k, o) in sorted(self.counts) if k == kind and o]
            cands = [p for p in cands if len(self.log.hits(p)) >= min_hits]
            if cands:
                if specific is None and len(cands) > 1 and self.rng.random() < 0.65:
                    cands = [c for c in cands if c.obj] or cands
                return cands[self.rng.randrange(len(cands))]
        return None

    def ordinal_for(self, pat: Pat, window: tuple[int, int] | None = None) -> int:
        found = self.log.hits(pat, *(window or (0, self.log.last)))
        options = [1, 1, 2, 3, -1, -1, -2, 4, 5]
        options = [n for n in options if (n > 0 and len(found) >= n) or (n < 0 and len(found) >= -n + 1)]
        return self.rng.choice(options) if options else 1

    def state_name(self, t: int) -> str:
        names = [n for n in STATE_NAMES if not (n == "heading" and self.log.state(t, n) == "none")]
        return self.rng.choice(names)

    def item_name(self, t: int) -> str:
        held = [n for n, c in self.log.steps[t].inventory if c > 0]
        pool = held if held and self.rng.random() < 0.6 else self.items_ever
        return self.rng.choice(pool) if pool else ""

    def step_ok(self, slot: str, t: int) -> bool:
        if slot == "item" and not self.items_ever:
            return False
        if slot == "inventory":
            names = [n for n, _ in self.log.steps[t].inventory]
            if sorted(names) != sorted(names, key=str.lower):
                return False
        return 0 <= t <= self.log.last

    # ---- slot questions -------------------------------------------------------------------------
    def slot_question(self, slot: str, t: int, when: str, who: Person, extra: str = "") -> tuple[str, str] | None:
        """A question asking ``slot`` at step ``t`` (described by ``when``) and its canonical answer."""
        w = self.w
        log = self.log
        if not self.step_ok(slot, t):
            return None
        front = self.rng.random() < 0.3
        subj, be = who.subj, who.be

        def join(main: str, end: str = "?") -> str:
            if front:
                return cap(f"{when}, {main}{end}")
            return cap(f"{main} {when}{end}")

        if slot == "action":
            q = w.pick([
                join(f"what command did {subj} issue"), join(f"what did {subj} type"),
                join(f"which action did {subj} take"), join(f"tell me the command {subj} entered", "."),
                join(f"what exactly did {subj} do"),
            ])
        elif slot == "location":
            q = w.pick([join(f"where {be} {subj}"), join(f"which room {be} {subj} in"),
                        join(f"name the room {subj} {be} in", "."), join(f"in what room {be} {subj}")])
        elif slot == "position":
            q = w.pick([join(f"what were {who.poss} grid coordinates"), join(f"at which x,y map cell {be} {subj}"),
                        join(f"give {who.poss} map position as x,y", "."),
                        join(f"what was the x,y position of the room {subj} {be} in")])
        elif slot == "item":
            name = extra or self.item_name(t)
            if not name:
                return None
            q = w.pick([join(f"how many {name} items were in {who.poss} inventory"),
                        join(f"what count of the {name} did {subj} carry"),
                        join(f"how many of the {name} did {subj} have on hand")])
            return q, log.slot("item", t, name)
        elif slot == "inventory":
            q = w.pick([join(f"what {be} {subj} carrying"), join(f"what was in {who.poss} inventory"),
                        join(f"list everything {subj} held", "."), join(f"what did {who.poss} inventory contain")])
        elif slot == "state":
            name = extra or self.state_name(t)
            if name == "heading" and log.state(t, "heading") == "none":
                return None
            phr = {
                "score": [f"what was {who.poss} score", f"how many points did {subj} have"],
                "moves": ["what did the game's move counter show", "how many moves had the game counted"],
                "rooms seen": [f"how many distinct rooms (the starting room included) had {subj} been in",
                               f"how many different rooms, start room included, had {subj} visited"],
                "heading": [f"in which direction had {subj} most recently moved successfully",
                            f"what was the direction of {who.poss} latest successful move"],
                "walkthrough left": ["how many commands remained in the walkthrough",
                                     "how many commands long was the remaining walkthrough"],
            }[name]
            q = join(w.pick(phr))
            return q, log.slot("state", t, name)
        elif slot == "events":
            q = w.pick([join("what happened"), join("which events were recorded"),
                        join(f"what events did {who.poss} command produce"), join("list the events logged", ".")])
        elif slot == "step":
            q = w.pick([cap(f"which step was {when}?"), cap(f"give the step number of {when}."),
                        cap(f"what step was {when}?")])
        else:
            return None
        return q, log.slot(slot, t)

    def trivial(self, slot: str, pat: Pat, t: int) -> bool:
        """Whether the slot's answer is given away by the pattern itself (e.g. the command of "examine X")."""
        if slot == "action":
            if pat.kind in ("look around", "check inventory"):
                return True
            return bool(pat.obj) and (pat.kind in ("examine", "open", "shut", "eat", "drop") or pat.kind.startswith("fail to"))
        if slot == "location":
            return pat.kind == "enter" and bool(pat.obj)
        if slot == "events":
            return self.log.slot("events", t) == pat.text
        return False

    def step_question(self, pat: Pat, n: int, who: Person, tail: str = "") -> str:
        """A question asking the step of the n-th occurrence of ``pat`` (optionally within ``tail``)."""
        w = self.w
        base = w.base_nth(pat, n, who)
        past = w.verb(pat, who, 0) + (f" for the {w.ordinal(n)} time" if n != 1 else "")
        options = [f"at which step did {who.subj} {base}{tail}?", f"when did {who.subj} {base}{tail}? Give the step.",
                   f"give the step where {who.subj} {past}{tail}.", f"what step was it when {who.subj} {past}{tail}?"]
        if n == 1:
            options.append(f"at what step did {who.subj} first {w.verb(pat, who, 1)}{tail}?")
        return cap(w.pick(options))

    # ---- windows --------------------------------------------------------------------------------
    def window(self, kinds: Sequence[str] = ("after", "before", "between", "first", "by")) -> tuple[str, int, int, list[int]]:
        """A step window: (phrase, lo, hi, anchor steps)."""
        last = self.log.last
        kind = self.rng.choice(list(kinds))
        if kind == "after":
            n = self.rng.randint(20, max(21, last - 60))
            return f"after step {n}", n + 1, last, []
        if kind == "before":
            n = self.rng.randint(60, last - 10)
            return f"before step {n}", 0, n - 1, []
        if kind == "between":
            a = self.rng.randint(0, last - 40)
            b = min(last, a + self.rng.randint(25, 200))
            return self.w.pick([f"between step {a} and step {b}", f"between steps {a} and {b}",
                                f"from step {a} through step {b}"]), a, b, []
        if kind == "first":
            n = self.rng.randint(40, max(41, last // 2))
            return self.w.pick([f"in the first {n} steps", f"during the first {n} steps"]), 0, n - 1, []
        n = self.rng.randint(40, last - 10)
        return self.w.pick([f"by step {n}", f"up to and including step {n}", f"until step {n}"]), 0, n, []

    def anchor_window(self, who: Person, exclude: Pat | None = None) -> tuple[str, int, int, list[int]] | None:
        """A window bounded by an event ("after I first opened the safe")."""
        pat = self.pattern(1, specific=True, exclude=("win game",) + ((exclude.kind,) if exclude else ()))
        if pat is None:
            return None
        n = self.ordinal_for(pat)
        ta = self.log.nth(pat, n)
        if ta is None:
            return None
        clause = self.w.occ_clause(pat, n, who)
        after = self.rng.random() < 0.5
        if after and ta < self.log.last - 15:
            return f"after {clause}", ta + 1, self.log.last, [ta]
        if not after and ta > 15:
            return f"before {clause}", 0, ta - 1, [ta]
        return None

    # ---- families -------------------------------------------------------------------------------
    def q(self, family: str, slot: str, question: str, answer: str, gold: Sequence[int]) -> dict[str, Any]:
        ids = [self.log.sid(t) for t in sorted(set(gold))]
        return {"episode": self.log.episode, "family": family, "slot": slot, "question": question,
                "answer": answer, "gold": ids}

    def f1(self, slot: str) -> dict[str, Any] | None:
        t = self.rng.randint(0, self.log.last)
        who = self.w.person()
        if slot == "step":
            return None
        got = self.slot_question(slot, t, self.w.step_at(t), who)
        return self.q("1_step_index", slot, got[0], got[1], [t]) if got else None

    def f2(self, slot: str) -> dict[str, Any] | None:
        pat = self.pattern(2 if self.rng.random() < 0.7 else 1)
        if pat is None:
            return None
        n = self.ordinal_for(pat)
        t = self.log.nth(pat, n)
        if t is None:
            return None
        who = self.w.person()
        if slot == "step":
            return self.q("2_nth_occurrence", slot, self.step_question(pat, n, who), str(t), [t])
        if self.trivial(slot, pat, t):
            return None
        got = self.slot_question(slot, t, self.w.occ_when(pat, n, who), who)
        return self.q("2_nth_occurrence", slot, got[0], got[1], [t]) if got else None

    def f3(self, slot: str) -> dict[str, Any] | None:
        who = self.w.person()
        use_anchor = self.rng.random() < 0.4
        pat = self.pattern(3)
        if pat is None:
            return None
        win = self.anchor_window(who, exclude=pat) if use_anchor else self.window(("after", "before", "between", "first"))
        if win is None:
            return None
        phrase, lo, hi, anchors = win
        found = self.log.hits(pat, lo, hi)
        if not found:
            return None
        first = self.rng.random() < 0.6 if not phrase.startswith("before") else self.rng.random() < 0.35
        t = found[0] if first else found[-1]
        which = "first" if first else "last"
        if slot == "step":
            tail = f" {phrase}"
            vp = self.w.verb(pat, who, 1)
            question = cap(self.w.pick([
                f"at which step did {who.subj} {which} {vp}{tail}?",
                f"{phrase}, when did {who.subj} {which} {vp}? Give the step.",
                f"give the step of the {which} time {who.subj} {self.w.verb(pat, who, 0)}{tail}.",
            ]))
            return self.q("3_windowed_occurrence", slot, question, str(t), [t] + anchors)
        if self.trivial(slot, pat, t):
            return None
        past = self.w.verb(pat, who, 0)
        if self.rng.random() < 0.4 and not anchors:
            when = f"the {which} time {phrase} that {who.subj} {past}"
        else:
            when = f"the {which} time {who.subj} {past} {phrase}"
        got = self.slot_question(slot, t, when, who)
        return self.q("3_windowed_occurrence", slot, got[0], got[1], [t] + anchors) if got else None

    def condition(self, who: Person) -> tuple[list[str], list[str], int] | None:
        """A condition on inventory or state.

        Returns noun phrases naming the step ("the first step at which my score reached 3"), questions
        asking for that step ("At which step did my score first reach 3?") and the step itself.
        """
        log, rng = self.log, self.rng
        S, P, O = who.subj, who.poss, who.obj
        choice = rng.choice(["score", "rooms", "moves", "walk", "hold", "first_item", "ran_out", "last_item"])
        if choice == "score":
            values = sorted({log.state(t, "score") for t in range(1, log.last + 1)} - {log.state(0, "score")})
            if not values:
                return None
            v = rng.choice(values)
            t = log.first_where(lambda i: log.state(i, "score") >= v)
            pts = "point" if v == 1 else "points"
            return ([f"the first step at which {P} score reached {v}", f"the moment {P} score first got to {v}",
                     f"the first step where {S} had {v} {pts} or more"],
                    [f"at which step did {P} score first reach {v}?", f"when did {S} first have {v} {pts}? Give the step.",
                     f"what was the first step with a score of at least {v}?"], t)  # type: ignore[return-value]
        if choice == "rooms":
            start, top = log.state(0, "rooms seen"), log.state(log.last, "rooms seen")
            if top <= start:
                return None
            v = rng.randint(start + 1, top)
            t = log.first_where(lambda i: log.state(i, "rooms seen") >= v)
            return ([f"the first step at which {S} had been in {v} different rooms, the starting room included",
                     f"the moment the number of distinct rooms {S} had been in (start room counted) first reached {v}"],
                    [f"counting the starting room, at which step had {S} first been in {v} different rooms?",
                     f"when did the count of distinct rooms {S} had visited, the start room included, first reach {v}? Give the step."],
                    t)  # type: ignore[return-value]
        if choice == "moves":
            top = log.state(log.last, "moves")
            if top < 40:
                return None
            v = rng.randint(20, top) // 5 * 5
            t = log.first_where(lambda i: log.state(i, "moves") >= v)
            return ([f"the first step at which the game's move counter reached {v}", f"the moment the move count first hit {v}"],
                    [f"at which step did the game's move counter first reach {v}?",
                     f"when did the move count first get to {v}? Answer with the step number."], t)  # type: ignore[return-value]
        if choice == "walk":
            values = sorted({log.state(t, "walkthrough left") for t in range(log.last + 1)})
            low = [v for v in values if 0 < v < log.state(0, "walkthrough left")]
            if not low:
                return None
            v = rng.choice(low)
            t = log.first_where(lambda i: log.state(i, "walkthrough left") <= v)
            cmds = "command" if v == 1 else "commands"
            return ([f"the first step at which the remaining walkthrough was down to {v} {cmds} or fewer",
                     f"the first moment the walkthrough had at most {v} {cmds} left"],
                    [f"at which step did the remaining walkthrough first drop to {v} {cmds} or fewer?",
                     f"when was the walkthrough first down to at most {v} {cmds}? Give the step."], t)  # type: ignore[return-value]
        if choice == "hold":
            top = max(log.held_total(t) for t in range(log.last + 1))
            if top < 2:
                return None
            v = rng.randint(2, top)
            if log.held_total(0) >= v:
                return None
            t = log.first_where(lambda i: log.held_total(i) >= v)
            return ([f"the first step at which {S} carried {v} or more things",
                     f"the moment {P} inventory first held at least {v} items"],
                    [f"at which step did {S} first carry {v} or more things at once?",
                     f"when did {P} inventory first hold at least {v} items? Give the step."], t)  # type: ignore[return-value]
        if not self.items_ever:
            return None
        name = rng.choice(self.items_ever)
        if choice == "first_item":
            if log.item(0, name) > 0:
                return None
            t = log.first_where(lambda i: log.item(i, name) > 0)
            return ([f"the first step at which the {name} was in {P} inventory", f"the moment {S} first had the {name} on {O}"],
                    [f"at which step did the {name} first show up in {P} inventory?",
                     f"when was the {name} first in {P} inventory? Give the step."], t)  # type: ignore[return-value]
        if choice == "ran_out":
            t = log.first_where(lambda i: i > 0 and log.item(i, name) == 0 and log.item(i - 1, name) > 0)
            if t is None:
                return None
            return ([f"the first step at which {S} no longer had the {name} after having had it",
                     f"the first moment the {name} left {P} inventory"],
                    [f"at which step did the {name} first leave {P} inventory?",
                     f"when did {S} first stop having the {name} after carrying it? Give the step."], t)
        t = log.last_where(lambda i: log.item(i, name) > 0)
        if t is None or t == log.last:
            return None
        return ([f"the last step at which {S} still held the {name}", f"the final step with the {name} in {P} inventory"],
                [f"what was the last step at which {S} still had the {name}?",
                 f"at which step was the {name} in {P} inventory for the last time?"], t)

    def f4(self, slot: str) -> dict[str, Any] | None:
        who = self.w.person()
        got_cond = self.condition(who)
        if got_cond is None or got_cond[2] is None:
            return None
        nps, step_qs, t = got_cond
        np = self.w.pick(nps)
        if slot == "step":
            options = [f"what was {np}?", f"give the step of {np}." if not np.startswith("the first step") else f"tell me {np}."]
            options = [o for o in options if "moment" not in o or "step of" in o] + step_qs
            return self.q("4_condition", slot, cap(self.w.pick(options)), str(t), [t])
        got = self.slot_question(slot, t, f"at {np}", who)
        return self.q("4_condition", slot, got[0], got[1], [t]) if got else None

    def f5(self, slot: str) -> dict[str, Any] | None:
        pat = self.pattern(1)
        if pat is None or slot == "step":
            return None
        n = self.ordinal_for(pat)
        ta = self.log.nth(pat, n)
        if ta is None:
            return None
        k = self.rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 10])
        after = self.rng.random() < 0.6
        t = ta + k if after else ta - k
        if not 0 <= t <= self.log.last:
            return None
        who = self.w.person()
        steps_word = "step" if k == 1 else "steps"
        kk = self.w.number(k) if k != 1 else self.w.pick(["one", "1"])
        when = f"{kk} {steps_word} {'after' if after else 'before'} {self.w.occ_clause(pat, n, who)}"
        if slot == "action" and self.rng.random() < 0.4:
            question = cap(f"what did {who.subj} do {when}?")
            return self.q("5_offset", slot, question, self.log.slot("action", t), [ta, t])
        got = self.slot_question(slot, t, when, who)
        return self.q("5_offset", slot, got[0], got[1], [ta, t]) if got else None

    def f6(self, slot: str) -> dict[str, Any] | None:
        anchor = self.pattern(1, specific=True)
        target = self.pattern(2)
        if anchor is None or target is None or anchor == target:
            return None
        n = self.ordinal_for(anchor)
        ta = self.log.nth(anchor, n)
        if ta is None:
            return None
        who = self.w.person()
        nxt = self.rng.random() < 0.6
        if nxt:
            found = self.log.hits(target, ta + 1)
            if not found:
                return None
            t = found[0]
            rel = f"after {self.w.occ_clause(anchor, n, who)}"
            np = self.w.pick([f"the next time {who.subj} {self.w.verb(target, who, 0)} {rel}",
                              f"the first time {who.subj} {self.w.verb(target, who, 0)} {rel}"])
        else:
            found = self.log.hits(target, 0, ta - 1)
            if not found:
                return None
            t = found[-1]
            rel = f"before {self.w.occ_clause(anchor, n, who)}"
            np = self.w.pick([f"the last time {who.subj} {self.w.verb(target, who, 0)} {rel}",
                              f"the previous time {who.subj} {self.w.verb(target, who, 0)} {rel}",
                              f"the most recent time {who.subj} {self.w.verb(target, who, 0)} {rel}"])
        if slot == "step":
            question = cap(self.w.pick([f"which step was {np}?", f"give the step number of {np}.", f"when was {np}? Answer with the step."]))
            return self.q("6_next_previous", slot, question, str(t), [ta, t])
        if self.trivial(slot, target, t):
            return None
        got = self.slot_question(slot, t, np, who)
        return self.q("6_next_previous", slot, got[0], got[1], [ta, t]) if got else None

    def f7(self, variant: int) -> dict[str, Any] | None:
        pat = self.pattern(1)
        if pat is None:
            return None
        who = self.w.person()
        anchors: list[int] = []
        if variant == 0:
            phrase, lo, hi = "", 0, self.log.last
            suffix = self.w.pick(["", " in the whole episode", " over the entire run", " in total", " altogether"])
        elif variant in (1, 2, 3):
            phrase, lo, hi, anchors = self.window()
            suffix = f" {phrase}"
        else:
            got = self.anchor_window(who, exclude=pat)
            if got is None:
                return None
            phrase, lo, hi, anchors = got
            suffix = f" {phrase}"
        n = self.log.count(pat, lo, hi)
        found = self.log.hits(pat, lo, hi)
        gold = ([found[-1]] if found else []) + anchors
        base = self.w.verb(pat, who, 1)
        front = suffix.strip() and self.rng.random() < 0.3
        if front:
            question = cap(f"{suffix.strip()}, how many times did {who.subj} {base}?")
        else:
            question = cap(self.w.pick([f"how many times did {who.subj} {base}{suffix}?",
                                        f"count the times {who.subj} {self.w.verb(pat, who, 0)}{suffix}.",
                                        f"how often did {who.subj} {base}{suffix}?",
                                        f"what is the number of times {who.subj} {self.w.verb(pat, who, 0)}{suffix}?"]))
        return self.q("7_count", "count", question, str(n), gold)

    def two_occurrences(self) -> tuple[Pat, int, int, Pat, int, int] | None:
        a = self.pattern(1, specific=True)
        b = self.pattern(1, specific=True)
        if a is None or b is None or a.text == b.text:
            return None
        na, nb = self.ordinal_for(a), self.ordinal_for(b)
        ta, tb = self.log.nth(a, na), self.log.nth(b, nb)
        if ta is None or tb is None or ta == tb:
            return None
        return a, na, ta, b, nb, tb

    def f8(self) -> dict[str, Any] | None:
        got = self.two_occurrences()
        if got is None:
            return None
        a, na, ta, b, nb, tb = got
        who = self.w.person()
        x, y = self.w.occ_np(a, na, who), self.w.occ_np(b, nb, who)
        question = cap(self.w.pick([f"which happened first: {x} or {y}?", f"which came earlier, {x} or {y}?",
                                    f"of {x} and {y}, which was first?",
                                    f"tell me which occurred sooner: {x}, or {y}."]))
        answer = a.text if ta < tb else b.text
        return self.q("8_order", "which-first", question, answer, [ta, tb])

    def f9(self) -> dict[str, Any] | None:
        got = self.two_occurrences()
        if got is None:
            return None
        a, na, ta, b, nb, tb = got
        if ta > tb:
            a, na, ta, b, nb, tb = b, nb, tb, a, na, ta
        who = self.w.person()
        x, y = self.w.occ_np(a, na, who), self.w.occ_np(b, nb, who)
        options = [f"how many steps passed between {x} and {y}?", f"how far apart, in steps, were {x} and {y}?",
                   f"what is the distance in steps between {x} and {y}?"]
        if nb == 1 and self.log.nth(b, 1) == tb:
            options.append(f"how many steps after {self.w.occ_clause(a, na, who)} did {who.subj} first {self.w.verb(b, who, 1)}?")
        question = cap(self.w.pick(options))
        return self.q("9_distance", "duration", question, str(abs(tb - ta)), [ta, tb])

    def f10(self, want_yes: bool | None, as_list: bool) -> dict[str, Any] | None:
        who = self.w.person()
        if as_list:
            kinds = [k for k in self.kinds if LEXICON[k].lists]
            pat = self.pattern(2, specific=False, kinds=kinds)
            if pat is None or pat.obj is not None:
                return None
            phrase, lo, hi, anchors = self.window(("after", "before", "between", "first"))
            objs = self.log.distinct_objs(pat, lo, hi)
            if not 1 <= len(objs) <= 6:
                return None
            found = self.log.hits(pat, lo, hi)
            template = self.w.pick(LEXICON[pat.kind].lists)
            question = cap(template.replace("{S}", who.subj).replace("{W}", f" {phrase}"))
            return self.q("10_existence", "list", question, ", ".join(objs), found + anchors)
        pat = self.pattern(1, specific=True) if self.rng.random() < 0.85 else self.never_pattern()
        if pat is None:
            return None
        if self.rng.random() < 0.35:
            got = self.anchor_window(who, exclude=pat)
            if got is None:
                return None
        else:
            got = self.window(("after", "before", "between", "first", "by"))
        phrase, lo, hi, anchors = got
        found = self.log.hits(pat, lo, hi)
        if want_yes is not None and bool(found) != want_yes:
            return None
        base, part, past = self.w.verb(pat, who, 1), self.w.verb(pat, who, 2), self.w.verb(pat, who, 0)
        aux = who.have.capitalize() if who.subj != "I" else "Have"
        question = cap(self.w.pick([
            f"did {who.subj} ever {base} {phrase}?", f"did {who.subj} {base} at any point {phrase}?",
            f"{aux} {who.subj} {part} {phrase}?" if phrase.startswith(("before", "by step", "in the first")) else f"did {who.subj} {base} {phrase}?",
            f"was there a time {phrase} when {who.subj} {past}?", f"{phrase}, did {who.subj} {base}?",
        ]))
        answer = "yes" if found else "no"
        gold = ([found[0]] if found else []) + anchors
        return self.q("10_existence", "yes/no", question, answer, gold)

    def never_pattern(self) -> Pat | None:
        """A plausible event that never happened in the episode (food never eaten, a thing never opened...)."""
        options: list[Pat] = []
        options += [Pat("eat", f) for f in self.game.foods if ("eat", f) not in self.counts]
        options += [Pat("open", c) for c in self.game.openables if ("open", c) not in self.counts]
        options += [Pat("pick up", p) for p in self.game.portables if ("pick up", p) not in self.counts]
        options += [Pat("enter", r) for r in self.game.rooms if ("enter", r) not in self.counts]
        options += [Pat("unlock", c) for c in self.game.openables if ("unlock", c) not in self.counts]
        return self.rng.choice(options) if options else None


FAMILY_SLOTS: dict[str, tuple[str, ...]] = {
    "1_step_index": ("action", "location", "inventory", "state", "events", "position", "item"),
    "2_nth_occurrence": ("step", "step", "location", "inventory", "action", "state", "position", "item"),
    "3_windowed_occurrence": ("step", "action", "location", "step", "inventory", "state", "item", "position"),
    "4_condition": ("step", "location", "action", "inventory", "position", "state", "step", "events"),
    "5_offset": ("action", "events", "location", "inventory", "state", "position", "item"),
    "6_next_previous": ("step", "location", "action", "state", "item", "inventory", "position", "events"),
}


def make_questions(log: Log, game: GameFacts, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed * 31337 + 11)
    asker = Asker(log, game, rng)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def add(make: Callable[[], dict[str, Any] | None], tries: int = 300) -> bool:
        for _ in range(tries):
            got = make()
            if got is not None and got["question"] not in seen:
                seen.add(got["question"])
                out.append(got)
                return True
        return False

    methods: dict[str, Callable[[str], dict[str, Any] | None]] = {
        "1_step_index": asker.f1, "2_nth_occurrence": asker.f2, "3_windowed_occurrence": asker.f3,
        "4_condition": asker.f4, "5_offset": asker.f5, "6_next_previous": asker.f6,
    }
    for family, pool in FAMILY_SLOTS.items():
        slots = list(pool)
        rng.shuffle(slots)
        if family in ("1_step_index", "5_offset"):  # keep the events slot in
            slots.remove("events")
            slots.insert(0, "events")
        slots = slots[:6] + [s for s in pool if s not in slots[:6]]
        made = 0
        for slot in slots:
            if made == 6:
                break
            if add(lambda: methods[family](slot), 120):
                made += 1
        while made < 6:
            slot = rng.choice(pool)
            if add(lambda: methods[family](slot), 120):
                made += 1
    for variant in (0, 1, 2, 3, 4, 4):
        add(lambda: asker.f7(variant)) or add(lambda: asker.f7(1))
    for _ in range(6):
        add(asker.f8)
    for _ in range(6):
        add(asker.f9)
    for want, as_list in ((True, False), (True, False), (False, False), (False, False), (None, True), (None, True)):
        add(lambda: asker.f10(want, as_list)) or add(lambda: asker.f10(want, False))
    return out


# ==================================================================================================
# Suite interface
# ==================================================================================================


def build(seed: int) -> dict[str, Any]:
    episode = f"{SUITE}-{seed}"
    steps, game = play_episode(seed)
    validate_steps(steps, episode)
    log = Log(episode, steps)
    questions = make_questions(log, game, seed)
    return {"episodes": {episode: steps}, "questions": questions}


def _digest(data: dict[str, Any]) -> str:
    def plain(obj: Any) -> Any:
        if isinstance(obj, Step):
            return {"t": obj.t, "action": obj.action, "summary": obj.summary, "objects": list(obj.objects),
                    "events": [[e.kind, e.obj, e.count] for e in obj.events],
                    "relations": [[r.subject, r.predicate, r.obj] for r in obj.relations],
                    "inventory": [list(p) for p in obj.inventory], "state": [list(p) for p in obj.state],
                    "location": [list(obj.location.position) if obj.location.position else None,
                                 obj.location.region, obj.location.underfoot],
                    "observation": obj.observation}
        if isinstance(obj, dict):
            return {k: plain(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [plain(v) for v in obj]
        return obj

    return hashlib.sha256(json.dumps(plain(data), sort_keys=True).encode()).hexdigest()


def _check(data: dict[str, Any], seed: int) -> None:
    episodes = data["episodes"]
    assert len(episodes) == 1, "one episode per seed"
    (episode, steps), = episodes.items()
    assert 300 <= len(steps) <= 1500, f"seed {seed}: {len(steps)} steps"
    validate_steps(steps, episode)
    questions = data["questions"]
    assert len(questions) == 60, f"seed {seed}: {len(questions)} questions"
    per_family: dict[str, int] = {}
    for q in questions:
        per_family[q["family"]] = per_family.get(q["family"], 0) + 1
        assert q["episode"] == episode
        assert q["answer"] != "", q
        for gid in q["gold"]:
            ep, _, t = gid.rpartition(":")
            assert ep == episode and 0 <= int(t) < len(steps), gid
        if q["answer"] not in ("no", "0") or q["slot"] not in ("yes/no", "count"):
            assert q["gold"], q
    assert all(v == 6 for v in per_family.values()) and len(per_family) == 10, per_family
    assert len({q["question"] for q in questions}) == 60, "duplicate question text"


if __name__ == "__main__":
    seeds = [int(a) for a in sys.argv[1:]] or [SEED_RANGE[0], SEED_RANGE[1]]
    for seed in seeds:
        started = time.time()
        data = build(seed)
        took = time.time() - started
        _check(data, seed)
        again = build(seed)
        assert _digest(again) == _digest(data), f"seed {seed}: a second build differs"
        (episode, steps), = data["episodes"].items()
        print(f"== seed {seed}: episode {episode}, {len(steps)} steps, built in {took:.1f}s")
        table: dict[tuple[str, str], int] = {}
        for q in data["questions"]:
            table[(q["family"], q["slot"])] = table.get((q["family"], q["slot"]), 0) + 1
        for (family, slot), n in sorted(table.items()):
            print(f"   {family:24s} {slot:12s} {n}")
        kinds: dict[str, int] = {}
        for s in steps:
            for e in s.events:
                kinds[e.kind] = kinds.get(e.kind, 0) + 1
        print("   event kinds:", ", ".join(f"{k} ({n})" for k, n in sorted(kinds.items())))
        sample = random.Random(seed).sample(data["questions"], 10)
        for q in sample:
            print(f"   [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold={q['gold']}")
    print("self-check passed")
