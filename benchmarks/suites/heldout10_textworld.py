"""Held-out TextWorld suite: Ash, a note-taking inspector, plays back-to-back ``tw-simple`` games.

The agent
---------
"Ash" plays 8-16 real TextWorld 1.7 ``tw-simple`` games in a row (one episode, 400-900 steps). Every
game is the same six-room house (bedroom, kitchen, bathroom, living room, backyard, garden); the goal
is always to put one food item on the stove, and the reward setting (dense / balanced / sparse) varies
from game to game. The games run on TextWorld's logic engine (no Inform7 text), so the short narration
in each step's ``observation`` is written from the game's facts. In each game Ash starts in the locked
bedroom, looks around, examines furniture, opens what it can, re-reads the goal in its notebook, takes a
few wrong items and puts them back (now and then it carries one into another room and drops it there,
or eats a wrong piece of food), tries a few commands the game refuses, sometimes walks in circles
through side rooms, and otherwise follows the game's own winning policy until the game is won.

Records (one ``Step`` per command)
----------------------------------
* ``t``: 0, 1, 2, ... over the whole episode; ``action``: the command exactly as typed (``"open chest
  drawer"``, ``"go east"``); ``"review notes"`` is Ash's own notebook action and is not sent to the game.
* ``location.region``: the room Ash is in after the step; ``location.position``: ``(x, y)`` on a grid
  derived from the rooms' compass links, the starting bedroom at ``(0, 0)``, east is +x, north is +y.
* ``inventory``: the objects carried after the step, count 1 each (it is empty at the start of a game).
* ``relations[0]``: ``Relation("Ash", "acts on", X)``: X is what the command acted on: the first thing
  it names (the item for take/put/insert/drop/eat, the door for unlock, the direction for ``go``), the
  room for ``look``, ``"inventory"`` for ``inventory`` and ``"notebook"`` for ``review notes``.
* ``state`` (after the step): ``game`` (1, 2, ...), ``game score`` (points of the current game),
  ``total score`` (points summed over all games so far), ``max score`` (of the current game), ``reward
  setting`` (dense / balanced / sparse), ``moves`` (the game's own move counter; refused commands and
  notebook reviews do not count), ``notes taken`` (running total over the episode), ``commands
  refused`` (running total over the episode), ``rooms visited`` (distinct rooms seen in the current game,
  the starting room included) and ``mode``: ``exploring`` (look / examine / open / close / inventory),
  ``tinkering`` (handling a wrong item), ``wandering`` (a detour or walking in circles), ``probing``
  (a command the game refuses), ``reviewing`` (re-reading the goal) or ``solving`` (a policy command).

Event kinds (derived from changes in the game's facts and score, or from the command itself)
--------------------------------------------------------------------------------------------
``start game`` (obj ``"game N"``: the first step of each game), ``look around`` (room), ``examine``
(thing), ``take note`` (thing: the first time in a game Ash examines a thing it writes a note on it),
``review notes`` (re-reading the goal in the notebook), ``check inventory``, ``rejected command`` (obj:
the refused command text), ``leave room`` / ``enter room`` (room: a move from one room into another;
being placed in the bedroom when a game starts is not an entry), ``return to room`` (room: entering a
room already visited earlier in the same game, the starting bedroom included), ``unlock`` (door), ``open`` / ``close`` (container or
door), ``discover`` (an item seen inside a container the step opened), ``pick up`` (item taken into the
inventory), ``put back`` (item returned to the very furniture or floor it was taken from), ``set down``
(item left anywhere else: another room's floor, or the stove), ``eat`` (item), ``grill`` (food put on
the stove), ``score points`` (an award of points: the game score went up; ``count`` is the gain) and
``win game`` (obj ``"game N"``). Ash's inventory is also called its pockets; what a command "acts on" or
"targets" is ``relations[0]``.

Questions
---------
60 per seed, 6 in each of ten families (step index, n-th occurrence, windowed occurrence, condition,
offset, next/previous, count/list, order, distance, existence). "The n-th time" counts over the whole
episode unless the question bounds it; "at step N" means the records of step N (state and inventory as
they were after it). Every question is a structured spec evaluated by a plain scan of the records
(:func:`evaluate`); answers and gold source ids come from that scan.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections import defaultdict

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout10_textworld"
SEED_RANGE = range(10200, 10300)

DIRECTIONS = ("north", "south", "east", "west")
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
_DELTA = {"north_of": (0, 1), "south_of": (0, -1), "east_of": (1, 0), "west_of": (-1, 0)}
_REWARDS = ("dense", "balanced", "sparse")


def episode_id(seed: int) -> str:
    return f"tw-ash-{seed}"


# ==================================================================================================
# The games and the agent
# ==================================================================================================


def _make_game(game_seed: int, rewards: str, goal: str):
    from textworld import GameOptions
    from textworld.challenges import simple

    options = GameOptions()
    options.seeds = game_seed
    return simple.make({"rewards": rewards, "goal": goal, "test": False}, options)


def _open_env(game):
    from textworld.core import EnvInfos
    from textworld.envs.tw import TextWorldEnv
    from textworld.generator.inform7 import Inform7Game

    infos = EnvInfos(policy_commands=True, admissible_commands=True, moves=True, score=True, facts=True,
                     max_score=True, won=True, lost=True)
    env = TextWorldEnv(infos)
    env._game = game
    env._inform7 = Inform7Game(game)
    return env, env.reset()


def _facts(state) -> frozenset:
    return frozenset((p.name, tuple(a.name for a in p.arguments)) for p in state["facts"])


def _types(state) -> dict[str, str]:
    types: dict[str, str] = {}
    for p in state["facts"]:
        for a in p.arguments:
            types[a.name] = a.type
    return types


def _positions(facts: frozenset, start: str) -> dict[str, tuple[int, int]]:
    links = sorted((name, args) for name, args in facts if name in _DELTA)
    pos = {start: (0, 0)}
    changed = True
    while changed:
        changed = False
        for name, (a, b) in links:  # a is <direction> of b
            dx, dy = _DELTA[name]
            if b in pos and a not in pos:
                pos[a] = (pos[b][0] + dx, pos[b][1] + dy)
                changed = True
            elif a in pos and b not in pos:
                pos[b] = (pos[a][0] - dx, pos[a][1] - dy)
                changed = True
    return pos


class _Ash:
    """The note-taking inspector. Plays games one after another and records one Step per command."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 101)
        self.steps: list[Step] = []
        self.total_before = 0  # total score of the finished games
        self.notes = 0
        self.refused = 0

    # ---------------------------------------------------------------- world view
    def room(self, facts=None) -> str:
        facts = self.facts if facts is None else facts
        return next(args[1] for name, args in sorted(facts) if name == "at" and args[0] == "P")

    def carried(self, facts=None) -> list[str]:
        facts = self.facts if facts is None else facts
        return sorted(args[0] for name, args in facts if name == "in" and args[1] == "I")

    def holder(self, item: str, facts=None):
        facts = self.facts if facts is None else facts
        for name, args in sorted(facts):
            if name in ("in", "on", "at") and args[0] == item and args[1] != "I":
                return (name, args[1])
        return None

    def furniture(self) -> list[str]:
        room = self.room()
        return sorted(a[0] for n, a in self.facts if n == "at" and a[1] == room and self.types.get(a[0]) in ("c", "s"))

    def doors(self) -> list[str]:
        room = self.room()
        return sorted({a[1] for n, a in self.facts if n == "link" and a[0] == room})

    def visible_items(self) -> list[str]:
        room = self.room()
        here = set(self.furniture())
        out = []
        for n, a in self.facts:
            on_furniture = n == "on" and a[1] in here
            in_open_box = n == "in" and a[1] in here and ("open", (a[1],)) in self.facts
            on_floor = n == "at" and a[1] == room and self.types.get(a[0]) in ("o", "f", "k")
            if on_furniture or in_open_box or on_floor:
                out.append(a[0])
        return sorted(out)

    def admissible(self) -> list[str]:
        return sorted(self.state["admissible_commands"])

    # ---------------------------------------------------------------- one step
    def act(self, cmd: str, target: str, mode: str, internal: bool = False, start: bool = False) -> None:
        before, room0 = self.facts, self.room()
        score0 = self.state.get("score", 0)
        rejected = False
        if internal:
            state = self.state
        else:
            rejected = cmd not in self.state["admissible_commands"]
            state, _, _ = self.env.step(cmd)
        after = _facts(state)
        if rejected and after != before:
            raise RuntimeError(f"refused command changed the world: {cmd}")
        self.state, self.facts = state, after
        room1 = self.room()
        words = cmd.split()
        events: list[Event] = []
        lines: list[str] = []
        if start:
            events.append(Event("start game", f"game {self.game_no}"))
            lines.append(f"Game {self.game_no} begins ({self.rewards} rewards). Ash stands in the {room1}.")
        if rejected:
            self.refused += 1
            events.append(Event("rejected command", cmd))
            lines.append(f"Ash tries '{cmd}', but the game does not accept it.")
        elif internal:
            events.append(Event("review notes"))
            lines.append(f"Ash re-reads the goal in its notebook: put the {self.food} on the stove.")
        elif words[0] == "look":
            events.append(Event("look around", room1))
            lines.append(f"Ash looks around the {room1}: " + ", ".join(self.furniture()) + ".")
        elif words[0] == "inventory":
            events.append(Event("check inventory"))
            have = self.carried()
            lines.append("Ash checks its pockets: " + (", ".join(have) if have else "nothing") + ".")
        elif words[0] == "examine":
            events.append(Event("examine", target))
            lines.append(f"Ash examines the {target}.")
            if target not in self.examined:
                self.examined.add(target)
                self.notes += 1
                events.append(Event("take note", target))
                lines.append(f"It writes a note about the {target}.")
        # changes of the world
        if room1 != room0:
            events.append(Event("leave room", room0))
            events.append(Event("enter room", room1))
            lines.append(f"Ash walks from the {room0} into the {room1}.")
            if room1 in self.visited:
                events.append(Event("return to room", room1))
            self.visited.add(room1)
        added, removed = after - before, before - after
        for name, args in sorted(added):
            if name == "closed" and ("locked", args) in removed:
                events.append(Event("unlock", args[0]))
                lines.append(f"The {args[0]} is unlocked.")
        for name, args in sorted(added):
            if name == "open":
                events.append(Event("open", args[0]))
                inside = sorted(a[0] for n, a in after if n == "in" and a[1] == args[0])
                lines.append(f"Ash opens the {args[0]}" + (": inside are " + ", ".join(inside) if inside else ", it is empty") + ".")
                for item in inside:
                    events.append(Event("discover", item))
        for name, args in sorted(added):
            if name == "closed" and ("open", args) in removed:
                events.append(Event("close", args[0]))
                lines.append(f"Ash closes the {args[0]}.")
        for name, args in sorted(added):
            if name == "in" and args[1] == "I":
                self.origin[args[0]] = self.holder(args[0], before)
                events.append(Event("pick up", args[0]))
                lines.append(f"Ash picks up the {args[0]}.")
        for name, args in sorted(removed):
            if name == "in" and args[1] == "I":
                item = args[0]
                if ("eaten", (item,)) in after:
                    events.append(Event("eat", item))
                    lines.append(f"Ash eats the {item}.")
                    continue
                where = self.holder(item, after)
                if where == self.origin.get(item):
                    events.append(Event("put back", item))
                    lines.append(f"Ash puts the {item} back where it was.")
                else:
                    events.append(Event("set down", item))
                    lines.append(f"Ash leaves the {item} {'on' if where[0] == 'on' else 'in'} the {where[1]}.")
                if where == ("on", "stove") and self.types.get(item) == "f":
                    events.append(Event("grill", item))
                    lines.append(f"The {item} sizzles on the stove.")
        gain = state.get("score", 0) - score0
        if gain > 0:
            events.append(Event("score points", "", gain))
            lines.append(f"The game awards {gain} point{'s' if gain > 1 else ''}.")
        if state.get("won"):
            self.won = True
            events.append(Event("win game", f"game {self.game_no}"))
            lines.append(f"Ash wins game {self.game_no}.")
        if not lines:
            lines.append(f"Ash: {cmd}.")
        relations = [Relation("Ash", "acts on", target), Relation("Ash", "is in", room1)]
        objects = [target] + [w for w in self.carried() if w != target]
        step_state = {
            "game": self.game_no,
            "game score": state.get("score", 0),
            "total score": self.total_before + state.get("score", 0),
            "max score": state["max_score"],
            "reward setting": self.rewards,
            "moves": state["moves"],
            "notes taken": self.notes,
            "commands refused": self.refused,
            "rooms visited": len(self.visited),
            "mode": mode,
        }
        t = len(self.steps)
        summary = f"Game {self.game_no}, {room1}: {cmd}" + (" (refused)" if rejected else "")
        self.steps.append(Step(
            t=t, action=cmd, summary=summary, objects=tuple(objects), events=tuple(events),
            relations=tuple(relations), inventory={k: 1 for k in self.carried()}, state=step_state,
            location=Location(position=self.pos.get(room1), region=room1), observation=" ".join(lines),
        ))
        self.game_steps += 1

    # ---------------------------------------------------------------- behaviours
    def take_command(self, item: str) -> str | None:
        for cmd in self.admissible():
            if cmd == f"take {item}" or cmd.startswith(f"take {item} from "):
                return cmd
        return None

    def return_command(self, item: str) -> str:
        where = self.origin.get(item)
        cmds = self.admissible()
        if where is not None:
            verb = {"in": f"insert {item} into {where[1]}", "on": f"put {item} on {where[1]}", "at": f"drop {item}"}[where[0]]
            if verb in cmds and (where[0] != "at" or where[1] == self.room()):
                return verb
        return f"drop {item}"

    def refusals(self) -> list[tuple[str, str]]:
        adm = set(self.state["admissible_commands"])
        out: list[tuple[str, str]] = []
        for f in self.furniture():
            out += [(f"take {f}", f), (f"push {f}", f), (f"search {f}", f)]
            if self.types.get(f) == "s":
                out += [(f"open {f}", f), (f"climb {f}", f)]
            if ("closed", (f,)) in self.facts:
                out.append((f"look inside {f}", f))
        for d in self.doors():
            out.append((f"kick {d}", d))
            if ("locked", (d,)) in self.facts:
                out.append((f"open {d}", d))
        exits = {c.split()[1] for c in adm if c.startswith("go ")}
        out += [(f"go {d}", d) for d in DIRECTIONS if d not in exits]
        for item in self.carried():
            if self.types.get(item) != "f":
                out.append((f"eat {item}", item))
        return [c for c in out if c[0] not in adm]

    def wrong_items(self) -> list[str]:
        return [i for i in self.visible_items()
                if i not in (self.food, self.key) and i not in self.carried() and self.take_command(i)]

    def tinker(self) -> None:
        item = self.rng.choice(self.wrong_items())
        self.wrong_taken += 1
        self.act(self.take_command(item), item, "tinkering")
        if self.rng.random() < 0.5 and f"examine {item}" in self.state["admissible_commands"]:
            self.act(f"examine {item}", item, "exploring")
        roll = self.rng.random()
        if roll < 0.12 and self.types.get(item) == "f" and f"eat {item}" in self.state["admissible_commands"]:
            self.act(f"eat {item}", item, "tinkering")
        elif roll < 0.3 and self.stray is None:
            self.stray = item  # carried along and dropped in the next room
        else:
            self.act(self.return_command(item), item, "tinkering")

    def candidates(self) -> list[tuple[float, str]]:
        cands: list[tuple[float, str]] = []
        if not self.looked:
            cands.append((1.0, "look"))
        things = self.furniture() + self.doors() + self.visible_items() + self.carried()
        fresh = [x for x in things if x not in self.examined]
        cands.append((3.0 if fresh else 0.4, "examine"))
        adm = set(self.state["admissible_commands"])
        if any(f"open {c}" in adm for c in self.furniture()):
            cands.append((2.0, "open"))
        if any(f"close {c}" in adm for c in self.furniture()):
            cands.append((0.4, "close"))
        if self.wrong_taken < 3 and self.wrong_items():
            cands.append((1.2, "tinker"))
        if self.game_refused < 4 and self.refusals():
            cands.append((0.8, "probe"))
        cands.append((0.7, "review"))
        cands.append((0.4, "inventory"))
        return cands

    def extra(self) -> None:
        cands = self.candidates()
        pick = self.rng.random() * sum(w for w, _ in cands)
        for w, what in cands:
            pick -= w
            if pick <= 0:
                break
        rng = self.rng
        if what == "look":
            self.looked = True
            self.act("look", self.room(), "exploring")
        elif what == "examine":
            things = self.furniture() + self.doors() + self.visible_items() + self.carried()
            fresh = [x for x in things if x not in self.examined]
            thing = rng.choice(fresh or things)
            self.act(f"examine {thing}", thing, "exploring")
        elif what == "open":
            adm = set(self.state["admissible_commands"])
            box = rng.choice([c for c in self.furniture() if f"open {c}" in adm])
            self.act(f"open {box}", box, "exploring")
        elif what == "close":
            adm = set(self.state["admissible_commands"])
            box = rng.choice([c for c in self.furniture() if f"close {c}" in adm])
            self.act(f"close {box}", box, "exploring")
        elif what == "tinker":
            self.tinker()
        elif what == "probe":
            cmd, target = rng.choice(self.refusals())
            self.game_refused += 1
            self.act(cmd, target, "probing")
        elif what == "review":
            self.act("review notes", "notebook", "reviewing", internal=True)
        else:
            self.act("inventory", "inventory", "exploring")

    def routine(self, k: int) -> None:
        self.looked = False
        if self.stray is not None and self.stray in self.carried():
            item, self.stray = self.stray, None
            self.act(f"drop {item}", item, "tinkering")
        for _ in range(k):
            if self.won:
                break
            self.extra()

    def wander(self) -> None:
        policy = self.state["policy_commands"]
        nxt = policy[0] if policy else ""
        exits = sorted(c.split()[1] for c in self.state["admissible_commands"] if c.startswith("go ") and c != nxt)
        if not exits:
            return
        direction = self.rng.choice(exits)
        for _ in range(3):
            self.act(f"go {direction}", direction, "wandering")
            if self.rng.random() < 0.4:
                self.extra()
            back = _OPPOSITE[direction]
            if f"go {back}" not in self.state["admissible_commands"]:
                return
            self.act(f"go {back}", back, "wandering")
            if self.rng.random() < 0.6:
                return

    def alloc(self) -> int:
        policy = self.state["policy_commands"]
        left = self.budget - self.game_steps - len(policy)
        stops = 1 + sum(1 for c in policy if c.startswith("go "))
        if left <= 0:
            return 0
        return max(0, round(left / stops * self.rng.uniform(0.6, 1.4)))

    @staticmethod
    def policy_target(cmd: str) -> str:
        words = cmd.split()
        if words[0] == "go":
            return words[1]
        rest = cmd.split(" ", 1)[1]
        for sep in (" from ", " on ", " into ", " with "):
            if sep in rest:
                return rest.split(sep)[0]
        return rest

    def play_game(self, game_no: int, rewards: str, goal: str, budget: int) -> None:
        game = _make_game(self.seed * 100 + game_no, rewards, goal)
        self.env, self.state = _open_env(game)
        self.facts, self.types = _facts(self.state), _types(self.state)
        walkthrough = game.metadata["walkthrough"]
        self.food = walkthrough[-1][len("put "):-len(" on stove")]
        self.key = next(a[0] for n, a in sorted(self.facts) if n == "match")
        self.game_no, self.rewards, self.budget = game_no, rewards, budget
        self.pos = _positions(self.facts, self.room())
        self.visited = {self.room()}
        self.examined: set[str] = set()
        self.origin: dict = {}
        self.won, self.stray = False, None
        self.game_steps = self.wrong_taken = self.game_refused = 0
        self.looked = True
        self.act("look", self.room(), "exploring", start=True)
        self.routine(self.alloc())
        while not self.won:
            policy = self.state["policy_commands"]
            if not policy or self.game_steps > budget + 80:
                raise RuntimeError(f"game {game_no} of seed {self.seed} did not finish")
            left = budget - self.game_steps - len(policy)
            if left > 3 and self.rng.random() < 0.2 and self.game_steps < budget:
                self.wander()
                continue
            cmd = policy[0]
            room0 = self.room()
            self.act(cmd, self.policy_target(cmd), "solving")
            if self.won:
                break
            if self.room() != room0:
                self.routine(self.alloc())
            elif left > 0 and self.rng.random() < 0.25:
                self.extra()
        self.total_before += self.state.get("score", 0)


def _play(seed: int) -> list[Step]:
    ash = _Ash(seed)
    rng = random.Random(seed * 31 + 7)
    n_games = rng.randint(8, 16)
    target = rng.randint(470, 830)
    rewards = [r for _ in range(6) for r in _REWARDS]
    rng.shuffle(rewards)
    for g in range(1, n_games + 1):
        share = (target - len(ash.steps)) / (n_games - g + 1)
        budget = max(22, min(110, int(share * rng.uniform(0.75, 1.25))))
        ash.play_game(g, rewards[g - 1], rng.choice(("detailed", "brief")), budget)
    return ash.steps


# ==================================================================================================
# Reference evaluator: specs are plain dicts/lists; answers and gold come from a scan of the steps
# ==================================================================================================


def _matches(step: Step, pat) -> bool:
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def _value(step: Step, var):
    source, name = var
    if source == "item":
        return step.inventory_dict.get(name, 0)
    return step.state_dict.get(name)


def _holds(steps: list[Step], t: int, cond) -> bool:
    op, val = cond["op"], cond["val"]
    v = _value(steps[t], cond["var"])
    if v is None:
        return False
    if op == "ge":
        return v >= val
    if op == "le":
        return v <= val
    if op == "eq":
        return v == val
    if t == 0:
        return False
    prev = _value(steps[t - 1], cond["var"])
    if op == "drop_le":
        return v <= val < prev
    if op == "to_zero":
        return v == 0 and prev > 0
    raise ValueError(op)


def _window(steps: list[Step], window):
    """The steps of a window spec, and the gold of the anchors that bound it (None: an anchor is missing)."""
    lo, hi, gold, game = 0, len(steps) - 1, set(), None
    if window:
        game = window.get("game")
        for side in ("lo", "hi"):
            b = window.get(side)
            if b is None:
                continue
            if "step" in b:
                t = b["step"] if b.get("incl") else b["step"] + (1 if side == "lo" else -1)
            else:
                found = _anchor(steps, b["anchor"])
                if found is None:
                    return None
                t = found[0] + (1 if side == "lo" else -1)
                gold |= found[1]
            lo, hi = (max(lo, t), hi) if side == "lo" else (lo, min(hi, t))
    ts = [t for t in range(lo, hi + 1) if game is None or steps[t].state_dict.get("game") == game]
    return ts, gold


def _anchor(steps: list[Step], a):
    """(step index, gold set) of an anchor spec, or None when it names no step."""
    kind = a["type"]
    if kind == "step":
        return (a["t"], frozenset()) if 0 <= a["t"] < len(steps) else None
    if kind == "offset":
        base = _anchor(steps, a["base"])
        if base is None or not 0 <= base[0] + a["k"] < len(steps):
            return None
        return base[0] + a["k"], base[1]
    found = _window(steps, a.get("window"))
    if found is None:
        return None
    ts, gold = found
    if kind == "occ":
        hits = [t for t in ts if _matches(steps[t], a["pat"])]
        n = a["n"]
        idx = n - 1 if n > 0 else n
        if not hits or not -len(hits) <= idx < len(hits):
            return None
        t = hits[idx]
    elif kind == "cond":
        hits = [t for t in ts if _holds(steps, t, a["cond"])]
        if not hits:
            return None
        t = hits[0] if a["which"] == "first" else hits[-1]
    else:
        raise ValueError(kind)
    return t, frozenset(gold | {t})


def _slot(step: Step, slot: str, arg):
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        pos = step.location.position
        return None if pos is None else f"{pos[0]},{pos[1]}"
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        return ", ".join(f"{k} {v}" for k, v in sorted(step.inventory) if v > 0) or "empty"
    if slot == "state":
        value = step.state_dict.get(arg)
        return None if value is None else str(value)
    if slot == "facing":
        return step.relations[0].obj if step.relations else None
    if slot == "events":
        return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events) or "none"
    raise ValueError(slot)


def _few(ts: list[int]) -> set[int]:
    return set(ts) if len(ts) <= 5 else {ts[-1]}


def evaluate(steps: list[Step], episode: str, spec):
    """(answer, gold ids) of a question spec by a plain scan of ``steps``, or None when it has no answer."""
    q = spec["q"]
    if q == "slot":
        found = _anchor(steps, spec["target"])
        if found is None:
            return None
        t, gold = found
        answer = _slot(steps[t], spec["slot"], spec.get("arg"))
        if answer is None:
            return None
        gold = set(gold) | {t}
    elif q in ("count", "list", "exists"):
        found = _window(steps, spec.get("window"))
        if found is None:
            return None
        ts, gold = found
        if q == "list":
            hits = [t for t in ts if any(e.kind == spec["kind"] and e.obj for e in steps[t].events)]
            objs = sorted({e.obj for t in hits for e in steps[t].events if e.kind == spec["kind"] and e.obj})
            answer = ", ".join(objs) or "none"
            gold = gold | _few(hits)
        else:
            hits = [t for t in ts if _matches(steps[t], spec["pat"])]
            if q == "count":
                answer = str(len(hits))
                gold = gold | _few(hits)
            else:
                answer = "yes" if hits else "no"
                gold = gold | ({hits[0]} if hits else set())
    elif q in ("order", "distance"):
        a, b = _anchor(steps, spec["a"]), _anchor(steps, spec["b"])
        if a is None or b is None or a[0] == b[0]:
            return None
        gold = set(a[1]) | set(b[1])
        if q == "order":
            answer = spec["labels"][0] if a[0] < b[0] else spec["labels"][1]
        else:
            answer = str(abs(a[0] - b[0]))
    else:
        raise ValueError(q)
    return answer, [f"{episode}:{t}" for t in sorted(gold)]


def _slot_name(spec) -> str:
    return {"slot": spec.get("slot"), "count": "count", "list": "list", "exists": "yes/no",
            "order": "which-first", "distance": "duration"}[spec["q"]]


# ==================================================================================================
# Wording
# ==================================================================================================

#: kind -> {"obj": [(past, base, names the kind verbatim)], "any": [...]}; ``{o}`` is the object text.
_PHRASES: dict[str, dict[str, list[tuple[str, str, bool]]]] = {
    "start game": {
        "obj": [("began {o}", "begin {o}", False), ("started {o}", "start {o}", True)],
        "any": [("began a new game", "begin a new game", False)],
    },
    "look around": {
        "obj": [("surveyed the {o}", "survey the {o}", False), ("looked around the {o}", "look around the {o}", True)],
        "any": [("surveyed the surroundings", "survey the surroundings", False), ("looked around", "look around", True)],
    },
    "examine": {
        "obj": [("inspected the {o}", "inspect the {o}", False), ("studied the {o}", "study the {o}", False),
                ("examined the {o}", "examine the {o}", True)],
        "any": [("inspected something", "inspect something", False), ("examined something", "examine something", True)],
    },
    "take note": {
        "obj": [("jotted down a note about the {o}", "jot down a note about the {o}", False),
                ("took a note on the {o}", "take a note on the {o}", True)],
        "any": [("wrote something in the notebook", "write something in the notebook", False),
                ("took a note", "take a note", True)],
    },
    "review notes": {
        "any": [("re-read the goal in the notebook", "re-read the goal in the notebook", False),
                ("went over the notebook", "go over the notebook", False), ("reviewed the notes", "review the notes", True)],
    },
    "check inventory": {
        "any": [("checked what was being carried", "check what was being carried", False),
                ("took stock of the pockets", "take stock of the pockets", False),
                ("checked the inventory", "check the inventory", True)],
    },
    "rejected command": {
        "obj": [("had the command {o} refused by the game", "have the command {o} refused by the game", False),
                ("got the command {o} rejected", "get the command {o} rejected", True)],
        "any": [("had a command refused by the game", "have a command refused by the game", False),
                ("typed something the game would not accept", "type something the game would not accept", False),
                ("got a command rejected", "get a command rejected", True)],
    },
    "leave room": {
        "obj": [("walked out of the {o}", "walk out of the {o}", False), ("stepped out of the {o}", "step out of the {o}", False),
                ("left the {o}", "leave the {o}", True)],
        "any": [("walked out of a room", "walk out of a room", False)],
    },
    "enter room": {
        "obj": [("walked into the {o}", "walk into the {o}", False), ("went into the {o}", "go into the {o}", False),
                ("arrived in the {o}", "arrive in the {o}", False), ("entered the {o}", "enter the {o}", True)],
        "any": [("moved into a room", "move into a room", False), ("entered a room", "enter a room", True)],
    },
    "return to room": {
        "obj": [("came back to the {o}", "come back to the {o}", False), ("returned to the {o}", "return to the {o}", True)],
        "any": [("came back to a room already seen in that game", "come back to a room already seen in that game", False)],
    },
    "unlock": {
        "obj": [("undid the lock of the {o}", "undo the lock of the {o}", False), ("unlocked the {o}", "unlock the {o}", True)],
        "any": [("undid a lock", "undo a lock", False)],
    },
    "open": {
        "obj": [("opened the {o}", "open the {o}", True), ("pulled the {o} open", "pull the {o} open", True)],
        "any": [("opened something", "open something", True)],
    },
    "close": {
        "obj": [("shut the {o}", "shut the {o}", False), ("closed the {o}", "close the {o}", True)],
        "any": [("shut something", "shut something", False)],
    },
    "discover": {
        "obj": [("came upon the {o} inside something just opened", "come upon the {o} inside something just opened", False),
                ("discovered the {o}", "discover the {o}", True)],
        "any": [("turned up something hidden in a container", "turn up something hidden in a container", False)],
    },
    "pick up": {
        "obj": [("took the {o}", "take the {o}", False), ("grabbed the {o}", "grab the {o}", False),
                ("picked up the {o}", "pick up the {o}", True)],
        "any": [("grabbed something", "grab something", False), ("picked something up", "pick something up", True)],
    },
    "put back": {
        "obj": [("returned the {o} to where it came from", "return the {o} to where it came from", False),
                ("put the {o} back", "put the {o} back", True)],
        "any": [("returned an item to where it came from", "return an item to where it came from", False)],
    },
    "set down": {
        "obj": [("left the {o} somewhere other than where it came from", "leave the {o} somewhere other than where it came from", False),
                ("set down the {o}", "set down the {o}", True)],
        "any": [("left an item somewhere other than where it came from", "leave an item somewhere other than where it came from", False)],
    },
    "eat": {
        "obj": [("snacked on the {o}", "snack on the {o}", False), ("ate the {o}", "eat the {o}", True)],
        "any": [("snacked on something", "snack on something", False), ("ate something", "eat something", True)],
    },
    "grill": {
        "obj": [("put the {o} on the stove", "put the {o} on the stove", False), ("cooked the {o}", "cook the {o}", False),
                ("grilled the {o}", "grill the {o}", True)],
        "any": [("put some food on the stove", "put some food on the stove", False)],
    },
    "score points": {
        "any": [("earned points", "earn points", False), ("got rewarded by the game", "get rewarded by the game", False),
                ("scored points", "score points", True)],
    },
    "win game": {
        "obj": [("beat {o}", "beat {o}", False), ("completed {o}", "complete {o}", False), ("won {o}", "win {o}", True)],
        "any": [("beat a game", "beat a game", False)],
    },
}

_SUBJECTS = [
    # subject, possessive, was/were, do/does
    ("I", "my", "was", "do"),
    ("we", "our", "were", "do"),
    ("you", "your", "were", "do"),
    ("the agent", "the agent's", "was", "does"),
    ("Ash", "Ash's", "was", "does"),
    ("it", "its", "was", "does"),
]

#: state key -> [(words, takes a possessive)]
_STATE_WORDS = {
    "total score": [("total score", True), ("overall score over all games", True)],
    "game score": [("score in the current game", True), ("points in the game being played", True)],
    "notes taken": [("count of notes taken", True), ("number of notes written", True)],
    "commands refused": [("number of refused commands", True), ("tally of commands the game had refused", True)],
    "moves": [("move counter of the current game", False)],
    "rooms visited": [("number of rooms visited in the current game", False)],
    "game": [("game number", False), ("number of the game being played", False)],
    "mode": [("mode", True), ("working mode", True)],
    "reward setting": [("reward setting of the current game", False)],
    "max score": [("maximum score of the current game", False)],
}

_ORDINALS = {1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"),
             -1: ("last", "final"), -2: ("second-to-last", "next-to-last")}


def _otext(kind: str, obj: str) -> str:
    return f"'{obj}'" if kind == "rejected command" else obj


def _kind_regex(kind: str) -> re.Pattern:
    words = [re.escape(w) + r"(?:s|es|ed|d|ing)?" for w in kind.split()]
    return re.compile(r"\b" + r"\s+".join(words) + r"\b", re.IGNORECASE)


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _pat_key(pat) -> tuple:
    return (pat[0], pat[1])

#: The fixed furniture and items of the tw-simple house (names as the game spells them).
_HOUSE_ITEMS = ("toothbrush", "soap bar", "remote", "shovel", "note", "old key", "apple", "milk", "tomato plant",
                "bell pepper", "lettuce", "half of a bag of chips")
_FOODS = ("apple", "milk", "tomato plant", "bell pepper", "lettuce", "half of a bag of chips")
_CONTAINERS = ("chest drawer", "antique trunk", "refrigerator", "toilet", "bath")
_ROOMS = ("bedroom", "kitchen", "bathroom", "living room", "backyard", "garden")

#: kind -> [(noun phrase for "list the ..." questions, names the kind verbatim)]
_LIST_WORDS = {
    "pick up": [("distinct items {s} grabbed", False), ("different things {s} picked up", True)],
    "enter room": [("rooms {s} walked into", False), ("rooms {s} entered", True)],
    "open": [("things {s} opened", True)],
    "close": [("things {s} shut", False)],
    "examine": [("things {s} inspected", False), ("things {s} examined", True)],
    "discover": [("items {s} came upon inside opened containers", False)],
    "rejected command": [("commands the game refused", False)],
    "put back": [("items {s} returned to where they came from", False)],
    "set down": [("items {s} left somewhere other than where they came from", False)],
    "eat": [("foods {s} snacked on", False)],
    "grill": [("foods {s} put on the stove", False)],
    "take note": [("things {s} jotted notes about", False)],
    "look around": [("rooms {s} surveyed", False)],
    "return to room": [("rooms {s} came back to within a game", False)],
    "unlock": [("things {s} undid the lock of", False)],
}


#: Short answer labels for order questions about "any object" patterns.
_KIND_LABELS = {
    "start game": "new game", "look around": "survey", "examine": "inspection", "take note": "note",
    "review notes": "notebook", "check inventory": "inventory", "rejected command": "refusal", "leave room": "exit",
    "enter room": "room change", "return to room": "comeback", "unlock": "lock", "open": "opening", "close": "shutting",
    "discover": "find", "pick up": "grab", "put back": "return", "set down": "misplace", "eat": "snack",
    "grill": "stove", "score points": "points", "win game": "win",
}


class _Asker:
    """Builds the 60 questions of one episode from structured specs."""

    MAX_VERBATIM = 28

    def __init__(self, steps: list[Step], episode: str, seed: int):
        self.steps, self.ep, self.T = steps, episode, len(steps)
        self.rng = random.Random(seed * 1_000_003 + 29)
        self.occ: dict[tuple, list[int]] = defaultdict(list)
        self.multi: set[str] = set()
        for s in steps:
            counts: dict[str, int] = defaultdict(int)
            for e in s.events:
                counts[e.kind] += 1
                key = (e.kind, e.obj) if e.obj else (e.kind, None)
                if not self.occ[key] or self.occ[key][-1] != s.t:
                    self.occ[key].append(s.t)
            for k in sorted(counts):
                if self.occ[(k, None)][-1:] != [s.t]:
                    self.occ[(k, None)].append(s.t)
                if counts[k] > 1:
                    self.multi.add(k)
        self.games: dict[int, tuple[int, int]] = {}
        for s in steps:
            g = s.state_dict["game"]
            self.games[g] = (self.games.get(g, (s.t, s.t))[0], s.t)
        self.items = sorted({k for s in steps for k, _ in s.inventory})
        self.regexes = [_kind_regex(k) for k in sorted({e.kind for s in steps for e in s.events})]
        self.questions: list[dict] = []
        self.texts: set[str] = set()
        self.specs: set[str] = set()
        self.verbatim = 0
        self.oneoffs = 0
        self.flag = False

    # ------------------------------------------------------------------ small helpers
    def ri(self, a: int, b: int) -> int:
        return self.rng.randint(a, b)

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def subj(self):
        return self.pick(_SUBJECTS)

    def ordw(self, n: int) -> str:
        return self.pick(_ORDINALS[n])

    def ev(self, pat, S=None):
        """(past, base) of an event pattern, a paraphrase about two times in three."""
        kind, obj = pat
        opts = _PHRASES[kind]["obj" if obj else "any"]
        pool = [p for p in opts if not p[2]] if self.rng.random() < 0.7 else opts
        past, base, verb = self.pick(pool or opts)
        self.flag = self.flag or verb
        o = _otext(kind, obj) if obj else ""
        return past.format(o=o), base.format(o=o)

    def gm(self, t: int) -> int:
        return self.steps[t].state_dict["game"]

    def hits(self, pat, window=None) -> list[int]:
        ts = self.occ.get(_pat_key(pat), [])
        if window is None:
            return list(ts)
        found = _window(self.steps, window)
        if found is None:
            return []
        allowed = set(found[0])
        return [t for t in ts if t in allowed]

    def pick_event(self, lo: int = 0, hi: int | None = None, kinds=None, skip=()):
        hi = self.T - 1 if hi is None else min(hi, self.T - 1)
        lo = max(lo, 0)
        if hi < lo:
            return None
        for _ in range(60):
            t = self.ri(lo, hi)
            for u in range(t, min(hi, t + 25) + 1):
                evs = [e for e in self.steps[u].events if (kinds is None or e.kind in kinds) and e.kind not in skip]
                if evs:
                    return u, self.pick(evs)
        return None

    def pattern_of(self, e, kind_only: float = 0.3):
        if not e.obj:
            return [e.kind, None]
        if e.kind not in self.multi and self.rng.random() < kind_only:
            return [e.kind, None]
        return [e.kind, e.obj]

    @staticmethod
    def rep_n(ts: list[int], u: int):
        idx = ts.index(u)
        if idx < 3:
            return idx + 1
        if len(ts) - idx <= 2:
            return idx - len(ts)
        return None

    def pick_anchor(self, lo: int = 0, hi: int | None = None, kinds=None, skip=("take note",)):
        """An occurrence anchor near a random step of [lo, hi]: (spec, t, pat, n, window words, unique)."""
        for _ in range(40):
            found = self.pick_event(lo, hi, kinds, skip)
            if found is None:
                return None
            u, e = found
            pat = self.pattern_of(e)
            ts = self.hits(pat)
            n = self.rep_n(ts, u)
            if n is not None:
                return {"type": "occ", "pat": pat, "n": n}, u, pat, n, "", len(ts) == 1
            g = self.gm(u)
            gts = self.hits(pat, {"game": g})
            n = self.rep_n(gts, u)
            if n is not None:
                words = self.pick([f" in game {g}", f" during game {g}"])
                return {"type": "occ", "pat": pat, "n": n, "window": {"game": g}}, u, pat, n, words, len(gts) == 1
        return None

    def occ_words(self, S, pat, n, wtext="", unique=False, noun=True):
        """'the second time I took the remote' (noun) or 'when I took the remote for the second time'."""
        s = S[0]
        past, _ = self.ev(pat)
        if unique:
            return f"the moment {s} {past}{wtext}" if noun or self.rng.random() < 0.5 else f"when {s} {past}{wtext}"
        o = self.ordw(n)
        if noun or self.rng.random() < 0.5:
            return f"the {o} time {s} {past}{wtext}"
        return f"when {s} {past} for the {o} time{wtext}"

    def anchor_words(self, S, anchor, noun=True):
        _, _, pat, n, wtext, unique = anchor
        return self.occ_words(S, pat, n, wtext, unique, noun)

    def var_words(self, S, key):
        words, poss = self.pick(_STATE_WORDS[key])
        return f"{S[1]} {words}" if poss else f"the {words}"

    def cond_words(self, S, cond, which):
        s, p, be, _ = S
        var, op, val = cond["var"], cond["op"], cond["val"]
        if var[0] == "item":
            item = var[1]
            if op == "ge" and which == "first":
                return self.pick([f"the first step at which {s} {be} carrying the {item}",
                                  f"the first step with the {item} in {p} inventory"])
            if op == "ge":
                return self.pick([f"the last step at which {s} still had the {item}",
                                  f"the last step with the {item} still in {p} inventory"])
            return self.pick([f"the first step at which the {item} was gone from {p} inventory",
                              f"the moment {s} first stopped carrying the {item}"])
        w = self.var_words(S, var[1])
        shown = f"'{val}'" if isinstance(val, str) else str(val)
        if op == "ge":
            return self.pick([f"the moment {w} first reached {val}", f"the first step at which {w} was {val} or more"])
        if op == "eq":
            return f"the {which} step at which {w} was {shown}"
        if op == "to_zero":
            return f"the first step at which {w} dropped back to 0"
        if op == "drop_le":
            return f"the first step at which {w} fell to {val} or below"
        raise ValueError(op)

    def slot_pick(self, t=None, allow=("action", "location", "position", "item", "inventory", "state", "facing", "events")):
        slot = self.pick(allow)
        arg = None
        if slot == "item":
            inv = sorted(self.steps[t].inventory_dict) if t is not None else []
            arg = self.pick(inv) if inv and self.rng.random() < 0.6 else self.pick(self.items)
        elif slot == "state":
            arg = self.pick(sorted(_STATE_WORDS))
        return slot, arg

    def slot_main(self, S, slot, arg):
        s, p, be, _ = S
        opts = {
            "action": [f"what did {s} do", f"which command did {s} type", f"what command {be} {s} giving"],
            "location": [f"which room {be} {s} in", f"where {be} {s}", f"in what room {be} {s}"],
            "position": [f"what was {p} (x,y) grid position", f"at which x,y grid cell {be} {s}"],
            "item": [f"how many of the {arg} {be} {s} carrying (0 or 1)", f"what was {p} inventory count of the {arg}"],
            "inventory": [f"what {be} {s} carrying", f"what was in {p} inventory", f"what did {s} have on hand"],
            "facing": [f"what did {p} command act on", f"what was the object of {p} command",
                       f"which thing did {p} command target"],
            "events": ["which events were recorded", "what events did the records list", "which events happened"],
        }
        if slot == "state":
            return f"what was {self.var_words(S, arg)}"
        return self.pick(opts[slot])

    def compose(self, main: str, when: str) -> str:
        if self.rng.random() < 0.5:
            return f"{_cap(main)} {when}?"
        return f"{_cap(when)}, {main}?"

    def slot_spec(self, target, slot, arg):
        return {"q": "slot", "target": target, "slot": slot, "arg": arg}

    def step_question(self, S, base_clause: str, past_clause: str) -> str:
        """A question asking for a step number; clauses without the subject."""
        s = S[0]
        return self.pick([f"When did {s} {base_clause}?", f"At which step did {s} {base_clause}?",
                          f"Give the step number at which {s} {past_clause}."])

    # ------------------------------------------------------------------ bookkeeping
    def add(self, family: str, spec, text: str, oneoff: bool = False) -> bool:
        result = evaluate(self.steps, self.ep, spec)
        if result is None:
            return False
        answer, gold = result
        text = " ".join(text.split())
        key = repr(spec)
        if text.lower() in self.texts or key in self.specs:
            return False
        verbatim = self.flag or any(r.search(text) for r in self.regexes)
        if verbatim and self.verbatim >= self.MAX_VERBATIM:
            return False
        if not gold and answer not in ("no", "0", "none"):
            return False
        self.texts.add(text.lower())
        self.specs.add(key)
        self.verbatim += verbatim
        self.oneoffs += oneoff
        self.questions.append({"episode": self.ep, "family": family, "slot": _slot_name(spec), "question": text,
                               "answer": answer, "gold": gold, "spec": spec})
        return True

    def run_family(self, family: str, templates, oneoffs, n_oneoff: int = 2, total: int = 6) -> None:
        got = 0
        pool = list(oneoffs)
        self.rng.shuffle(pool)
        for fn in pool:
            if got >= n_oneoff:
                break
            for _ in range(6):
                self.flag = False
                made = fn()
                if made is not None and self.add(family, made[0], made[1], oneoff=True):
                    got += 1
                    break
        order = list(templates)
        self.rng.shuffle(order)
        tries = 0
        while got < total:
            if tries > 600:
                raise RuntimeError(f"{self.ep}: could not fill family {family}")
            fn = order[tries % len(order)]
            tries += 1
            self.flag = False
            made = fn()
            if made is not None and self.add(family, made[0], made[1]):
                got += 1

    # ================================================================== 1. step index
    def t1_slot(self):
        t = self.ri(0, self.T - 1)
        S = self.subj()
        slot, arg = self.slot_pick(t)
        when = self.pick([f"at step {t}", f"once step {t} was done"]) if slot in ("inventory", "state", "item") else f"at step {t}"
        return self.slot_spec({"type": "step", "t": t}, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t1_action(self):
        t = self.ri(0, self.T - 1)
        s = self.subj()[0]
        text = self.pick([f"What did {s} do at step {t}?", f"Step {t}: which command was typed?",
                          f"Which command does the record of step {t} show?"])
        return self.slot_spec({"type": "step", "t": t}, "action", None), text

    def t1_where(self):
        t = self.ri(0, self.T - 1)
        S = self.subj()
        slot = self.pick(["location", "position"])
        return self.slot_spec({"type": "step", "t": t}, slot, None), self.compose(self.slot_main(S, slot, None), f"at step {t}")

    def o1_game(self):
        t = self.ri(0, self.T - 1)
        return (self.slot_spec({"type": "step", "t": t}, "state", "game"),
                f"Which of the back-to-back games was under way at step {t}? Give its number.")

    def o1_verbatim_command(self):
        t = self.ri(0, self.T - 1)
        return self.slot_spec({"type": "step", "t": t}, "action", None), f"Write out, word for word, the command Ash typed at step {t}."

    def o1_pockets(self):
        t = self.ri(0, self.T - 1)
        return (self.slot_spec({"type": "step", "t": t}, "inventory", None),
                f"Once step {t} was over, were Ash's pockets empty? If not, list what they held.")

    def o1_target(self):
        t = self.ri(0, self.T - 1)
        return self.slot_spec({"type": "step", "t": t}, "facing", None), f"What thing did the step-{t} command concern?"

    def o1_refused_tally(self):
        t = self.ri(self.T // 3, self.T - 1)
        return (self.slot_spec({"type": "step", "t": t}, "state", "commands refused"),
                f"By the end of step {t}, how many of the agent's commands had the games turned down altogether?")

    # ================================================================== 2. n-th occurrence
    def _nth(self, min_count: int = 2):
        for _ in range(40):
            found = self.pick_event(skip=("take note",))
            if found is None:
                return None
            u, e = found
            pat = self.pattern_of(e)
            ts = self.hits(pat)
            if len(ts) < min_count:
                continue
            n = self.rep_n(ts, u)
            if n is not None:
                return u, pat, n
        return None

    def t2_step(self):
        found = self._nth()
        if found is None:
            return None
        _, pat, n = found
        S = self.subj()
        past, base = self.ev(pat)
        o = self.ordw(n)
        if n == 1:
            text = self.pick([f"When did {S[0]} first {base}?", f"At which step did {S[0]} {base} for the first time?"])
        elif n == -1:
            text = self.pick([f"When did {S[0]} {base} for the last time?", f"What was the last step at which {S[0]} {past}?"])
        else:
            text = self.step_question(S, f"{base} for the {o} time", f"{past} for the {o} time")
        return self.slot_spec({"type": "occ", "pat": pat, "n": n}, "step", None), text

    def t2_slot(self):
        found = self._nth()
        if found is None:
            return None
        u, pat, n = found
        S = self.subj()
        slot, arg = self.slot_pick(u, ("location", "position", "item", "inventory", "state", "facing", "events"))
        when = self.occ_words(S, pat, n, noun=self.rng.random() < 0.5)
        return self.slot_spec({"type": "occ", "pat": pat, "n": n}, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def o2_refused(self):
        ts = self.hits(["rejected command", None])
        n = self.pick([2, 3, -1, -2])
        if len(ts) < 4:
            return None
        return (self.slot_spec({"type": "occ", "pat": ["rejected command", None], "n": n}, "action", None),
                f"What exactly did Ash type the {_ORDINALS[n][0]} time the game refused one of its commands?")

    def o2_item_game(self):
        items = [i for i in self.items if i != "old key" and len(self.hits(["pick up", i])) >= 2]
        if not items:
            return None
        item = self.pick(items)
        n = self.pick([2, -1]) if len(self.hits(["pick up", item])) > 2 else 2
        return (self.slot_spec({"type": "occ", "pat": ["pick up", item], "n": n}, "state", "game"),
                f"Counting over the whole run, during which game did Ash pick up the {item} for the {_ORDINALS[n][0]} time?")

    def o2_room_entry(self):
        n = self.pick([2, 3, -2])
        return (self.slot_spec({"type": "occ", "pat": ["enter room", None], "n": n}, "location", None),
                f"Counting every move from one room into another over the whole run, where did the {_ORDINALS[n][0]} such move take Ash?")

    def o2_award(self):
        ts = self.hits(["score points", None])
        n = self.pick([3, -2, -1])
        if len(ts) < 4:
            return None
        return (self.slot_spec({"type": "occ", "pat": ["score points", None], "n": n}, "state", "total score"),
                (f"Counting every award of points in the whole run, what did the agent's score summed over all games "
                 f"stand at right after the {_ORDINALS[n][0]} one?"))

    # ================================================================== 3. windowed occurrence
    def t3_after_step(self):
        found = self.pick_event(lo=20, skip=("take note",))
        if found is None:
            return None
        u, e = found
        pat = self.pattern_of(e, 0.5)
        ts = self.hits(pat)
        if len(ts) < 2:
            return None
        idx = ts.index(u)
        prev = ts[idx - 1] if idx else -1
        lo = max(prev, u - 60, 0)
        if lo > u - 1:
            return None
        n_step = self.ri(lo, u - 1)
        spec_t = {"type": "occ", "pat": pat, "n": 1, "window": {"lo": {"step": n_step}}}
        S = self.subj()
        past, base = self.ev(pat)
        if self.rng.random() < 0.45:
            text = self.pick([f"After step {n_step}, when did {S[0]} first {base}?",
                              f"When did {S[0]} first {base} after step {n_step}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(u, ("location", "state", "inventory", "facing", "position", "events"))
        when = f"the first time {S[0]} {past} after step {n_step}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t3_before_step(self):
        found = self.pick_event(hi=self.T - 20, skip=("take note",))
        if found is None:
            return None
        u, e = found
        pat = self.pattern_of(e, 0.5)
        ts = self.hits(pat)
        if len(ts) < 2:
            return None
        idx = ts.index(u)
        nxt = ts[idx + 1] if idx + 1 < len(ts) else self.T
        n_step = self.ri(u + 1, min(nxt, u + 60, self.T - 1))
        S = self.subj()
        past, base = self.ev(pat)
        if self.rng.random() < 0.5:
            window = {"hi": {"step": n_step}}
            wtext = self.pick([f"before step {n_step}", f"in the first {n_step} steps"])
        else:
            n_step = max(n_step - 1, u)
            window = {"hi": {"step": n_step, "incl": True}}
            wtext = f"up to step {n_step}"
        spec_t = {"type": "occ", "pat": pat, "n": -1, "window": window}
        if self.rng.random() < 0.4:
            text = self.pick([f"{_cap(wtext)}, when did {S[0]} last {base}?", f"When did {S[0]} last {base} {wtext}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(u, ("location", "state", "inventory", "item", "facing", "action"))
        when = f"the last time {S[0]} {past} {wtext}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t3_between(self):
        found = self.pick_event(skip=("take note",))
        if found is None:
            return None
        u, e = found
        pat = self.pattern_of(e, 0.4)
        a = self.ri(max(0, u - 50), u)
        b = self.ri(u, min(self.T - 1, u + 50))
        if b - a < 10:
            return None
        window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
        ts = self.hits(pat, window)
        idx = ts.index(u)
        if idx >= 3:
            return None
        n = idx + 1
        S = self.subj()
        past, base = self.ev(pat)
        spec_t = {"type": "occ", "pat": pat, "n": n, "window": window}
        o = self.ordw(n)
        if self.rng.random() < 0.5:
            text = self.pick([f"Between step {a} and step {b}, at which step did {S[0]} {base} for the {o} time?",
                              f"At which step did {S[0]} {base} for the {o} time between step {a} and step {b}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(u, ("location", "state", "inventory", "facing", "events", "position"))
        when = f"the {o} time {S[0]} {past} between step {a} and step {b}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t3_after_anchor(self):
        anchor = self.pick_anchor(hi=self.T - 30)
        if anchor is None:
            return None
        ta = anchor[1]
        found = self.pick_event(ta + 1, ta + 40, skip=("take note",))
        if found is None:
            return None
        u, e = found
        pat = self.pattern_of(e, 0.5)
        if pat == anchor[2]:
            return None
        spec_t = {"type": "occ", "pat": pat, "n": 1, "window": {"lo": {"anchor": anchor[0]}}}
        S = self.subj()
        past, base = self.ev(pat)
        aw = self.anchor_words(S, anchor)
        if self.rng.random() < 0.5:
            text = self.pick([f"After {aw}, when did {S[0]} first {base}?", f"When did {S[0]} first {base} after {aw}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(u, ("location", "state", "inventory", "facing", "action"))
        when = f"the first time {S[0]} {past} after {aw}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t3_game(self):
        found = self.pick_event(skip=("take note",))
        if found is None:
            return None
        u, e = found
        pat = self.pattern_of(e, 0.5)
        g = self.gm(u)
        window = {"game": g}
        ts = self.hits(pat, window)
        n = self.rep_n(ts, u)
        if n is None or len(ts) < 2:
            return None
        S = self.subj()
        past, base = self.ev(pat)
        o = self.ordw(n)
        spec_t = {"type": "occ", "pat": pat, "n": n, "window": window}
        if self.rng.random() < 0.5:
            text = self.pick([f"In game {g}, when did {S[0]} {base} for the {o} time?",
                              f"When, during game {g}, did {S[0]} {base} for the {o} time?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(u, ("location", "state", "inventory", "facing", "position"))
        when = f"the {o} time {S[0]} {past} in game {g}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def o3_refused_upto(self):
        ts = self.hits(["rejected command", None])
        if len(ts) < 3:
            return None
        u = self.pick(ts[1:])
        n_step = self.ri(u, min(u + 30, self.T - 1))
        spec_t = {"type": "occ", "pat": ["rejected command", None], "n": -1,
                  "window": {"hi": {"step": n_step, "incl": True}}}
        return (self.slot_spec(spec_t, "facing", None),
                f"Up to and including step {n_step}, what did the most recent command the game refused try to act on?")

    def o3_first_room_of_game(self):
        g = self.pick(sorted(self.games)[1:])
        start = {"type": "occ", "pat": ["start game", f"game {g}"], "n": 1}
        spec_t = {"type": "occ", "pat": ["enter room", None], "n": 1, "window": {"lo": {"anchor": start}}}
        return self.slot_spec(spec_t, "location", None), f"Once game {g} had begun, which room did Ash first walk into?"

    def o3_second_grab(self):
        a = self.ri(0, self.T - 80)
        b = a + self.ri(40, 79)
        window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
        spec_t = {"type": "occ", "pat": ["pick up", None], "n": 2, "window": window}
        return (self.slot_spec(spec_t, "facing", None),
                f"Looking only at steps {a} through {b}, what was the second item the agent picked up there?")

    def o3_first_open_in_game(self):
        g = self.pick(sorted(self.games))
        spec_t = {"type": "occ", "pat": ["open", None], "n": 2, "window": {"game": g}}
        return (self.slot_spec(spec_t, "step", None),
                f"Counting only game {g}, at which step did Ash open something for the second time?")

    # ================================================================== 4. condition
    def _cond_target(self, cond, which, window, wtext, pick_t):
        S = self.subj()
        spec_t = {"type": "cond", "cond": cond, "which": which}
        if window:
            spec_t["window"] = window
        when = self.cond_words(S, cond, which) + wtext
        if self.rng.random() < 0.4:
            if when.startswith(("the first step", "the last step")):
                text = self.pick([f"What was {when}?", f"Give {when}."])
            else:
                text = f"Give the step number of {when}."
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(pick_t, ("location", "action", "state", "inventory", "facing", "position"))
        if slot == "state" and arg == cond["var"][1]:
            return None
        if when.startswith(("the first step", "the last step")):
            when = "at " + when
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t4_reach(self):
        key = self.pick(["total score", "notes taken", "commands refused"])
        t = self.ri(5, self.T - 1)
        val = self.steps[t].state_dict[key]
        if not val:
            return None
        return self._cond_target({"var": ["state", key], "op": "ge", "val": val}, "first", None, "", t)

    def t4_item(self):
        if not self.items:
            return None
        item = self.pick(self.items)
        carried = [s.t for s in self.steps if s.inventory_dict.get(item)]
        if not carried:
            return None
        u = self.pick(carried)
        g = self.gm(u)
        which = self.pick(["first", "last"])
        return self._cond_target({"var": ["item", item], "op": "ge", "val": 1}, which, {"game": g}, f" in game {g}", u)

    def t4_gone(self):
        if self.rng.random() < 0.5 and self.items:
            item = self.pick(self.items)
            cond = {"var": ["item", item], "op": "to_zero", "val": 0}
        else:
            cond = {"var": ["state", "game score"], "op": "to_zero", "val": 0}
        n_step = self.ri(0, self.T - 40)
        return self._cond_target(cond, "first", {"lo": {"step": n_step}}, f" after step {n_step}", None)

    def t4_mode(self):
        mode = self.pick(["wandering", "probing", "tinkering", "reviewing"])
        n_step = self.ri(30, self.T - 30)
        if self.rng.random() < 0.5:
            return self._cond_target({"var": ["state", "mode"], "op": "eq", "val": mode}, "first",
                                     {"lo": {"step": n_step}}, f" after step {n_step}", None)
        return self._cond_target({"var": ["state", "mode"], "op": "eq", "val": mode}, "last",
                                 {"hi": {"step": n_step}}, f" before step {n_step}", None)

    def t4_rooms(self):
        g = self.pick(sorted(self.games))
        _, hi = self.games[g]
        most = self.steps[hi].state_dict["rooms visited"]
        if most < 3:
            return None
        k = self.ri(2, most)
        return self._cond_target({"var": ["state", "rooms visited"], "op": "ge", "val": k}, "first",
                                 {"game": g}, f" in game {g}", None)

    def o4_lift(self):
        t = self.ri(self.T // 4, self.T - 1)
        k = self.steps[t].state_dict["total score"]
        if not k:
            return None
        spec_t = {"type": "cond", "cond": {"var": ["state", "total score"], "op": "ge", "val": k}, "which": "first"}
        return self.slot_spec(spec_t, "action", None), f"Which command first lifted Ash's overall score to {k} or more?"

    def o4_last_held(self):
        items = [i for i in self.items if i != "old key"]
        if not items:
            return None
        item = self.pick(items)
        spec_t = {"type": "cond", "cond": {"var": ["item", item], "op": "ge", "val": 1}, "which": "last"}
        return (self.slot_spec(spec_t, "location", None),
                f"In what room was the agent standing at the very last step it still held the {item}?")

    def o4_moves(self):
        g = self.pick(sorted(self.games))
        _, hi = self.games[g]
        k = self.ri(3, max(3, self.steps[hi].state_dict["moves"]))
        spec_t = {"type": "cond", "cond": {"var": ["state", "moves"], "op": "eq", "val": k}, "which": "first",
                  "window": {"game": g}}
        return (self.slot_spec(spec_t, "step", None),
                f"In game {g}, which step was the first where the game's own move counter read exactly {k}?")

    def o4_notebook(self):
        t = self.ri(self.T // 5, self.T - 1)
        k = self.steps[t].state_dict["notes taken"]
        spec_t = {"type": "cond", "cond": {"var": ["state", "notes taken"], "op": "ge", "val": k}, "which": "first"}
        return (self.slot_spec(spec_t, "location", None),
                f"Ash's notebook reached {k} notes at some step. Which room was Ash in at that step?")

    # ================================================================== 5. offset
    def t5_step(self):
        n_step = self.ri(12, self.T - 13)
        k = self.ri(1, 12) * self.pick([1, -1])
        S = self.subj()
        slot, arg = self.slot_pick(n_step + k, ("action", "location", "state", "inventory", "facing", "events", "item"))
        when = f"{abs(k)} step{'s' if abs(k) > 1 else ''} {'after' if k > 0 else 'before'} step {n_step}"
        spec_t = {"type": "offset", "base": {"type": "step", "t": n_step}, "k": k}
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t5_occ(self):
        anchor = self.pick_anchor(lo=12, hi=self.T - 13)
        if anchor is None:
            return None
        k = self.ri(1, 10) * self.pick([1, -1])
        S = self.subj()
        slot, arg = self.slot_pick(anchor[1] + k, ("action", "location", "state", "inventory", "facing", "events", "position"))
        rel = self.pick(["after", "later than"]) if k > 0 else self.pick(["before", "earlier than"])
        when = f"{abs(k)} step{'s' if abs(k) > 1 else ''} {rel} {self.anchor_words(S, anchor)}"
        spec_t = {"type": "offset", "base": anchor[0], "k": k}
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def o5_later(self):
        anchor = self.pick_anchor(hi=self.T - 10)
        if anchor is None:
            return None
        k = self.ri(2, 8)
        S = ("Ash", "Ash's", "was", "does")
        aw = self.anchor_words(S, anchor)
        spec_t = {"type": "offset", "base": anchor[0], "k": k}
        return self.slot_spec(spec_t, "facing", None), f"Take {aw}. {k} steps later, what did Ash's command act on?"

    def o5_before_win(self):
        g = self.pick(sorted(self.games))
        k = self.ri(2, 9)
        win = {"type": "occ", "pat": ["win game", f"game {g}"], "n": 1}
        spec_t = {"type": "offset", "base": win, "k": -k}
        return (self.slot_spec(spec_t, "location", None),
                f"Exactly {k} steps before it beat game {g}, which room was the agent in?")

    def o5_grid_back(self):
        n_step = self.ri(40, self.T - 1)
        k = self.ri(3, 15)
        spec_t = {"type": "offset", "base": {"type": "step", "t": n_step}, "k": -k}
        return (self.slot_spec(spec_t, "position", None),
                f"Counting {k} steps back from step {n_step}, which grid cell (x,y) was Ash standing on?")

    def o5_after_refusal(self):
        ts = self.hits(["rejected command", None])
        if len(ts) < 3:
            return None
        n = self.pick([2, 3, -1])
        k = self.ri(1, 6)
        spec_t = {"type": "offset", "base": {"type": "occ", "pat": ["rejected command", None], "n": n}, "k": k}
        return (self.slot_spec(spec_t, "events", None),
                f"What events were logged {k} step{'s' if k > 1 else ''} after the {_ORDINALS[n][0]} command the game refused?")

    # ================================================================== 6. next / previous
    def t6_next_step(self):
        n_step = self.ri(0, self.T - 30)
        found = self.pick_event(n_step + 1, n_step + 30, skip=("take note",))
        if found is None:
            return None
        _, e = found
        pat = self.pattern_of(e, 0.6)
        spec_t = {"type": "occ", "pat": pat, "n": 1, "window": {"lo": {"step": n_step}}}
        S = self.subj()
        past, base = self.ev(pat)
        if self.rng.random() < 0.4:
            text = self.pick([f"After step {n_step}, when did {S[0]} next {base}?",
                              f"What was the next step after step {n_step} at which {S[0]} {past}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(None, ("location", "facing", "state", "inventory", "action", "position"))
        when = f"the next time {S[0]} {past} after step {n_step}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t6_prev_step(self):
        n_step = self.ri(30, self.T - 1)
        found = self.pick_event(n_step - 30, n_step - 1, skip=("take note",))
        if found is None:
            return None
        _, e = found
        pat = self.pattern_of(e, 0.6)
        spec_t = {"type": "occ", "pat": pat, "n": -1, "window": {"hi": {"step": n_step}}}
        S = self.subj()
        past, base = self.ev(pat)
        if self.rng.random() < 0.4:
            text = self.pick([f"Before step {n_step}, when did {S[0]} most recently {base}?",
                              f"When did {S[0]} last {base} before step {n_step}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(None, ("location", "facing", "state", "inventory", "events", "item"))
        when = f"the most recent time before step {n_step} that {S[0]} {past}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t6_next_anchor(self):
        anchor = self.pick_anchor(hi=self.T - 30)
        if anchor is None:
            return None
        ta = anchor[1]
        S = self.subj()
        aw = self.anchor_words(S, anchor)
        if self.rng.random() < 0.4:
            spec_t = {"type": "occ", "pat": ["enter room", None], "n": 1, "window": {"lo": {"anchor": anchor[0]}}}
            text = self.pick([f"After {aw}, which room did {S[0]} walk into next?",
                              f"Which room did {S[0]} move into next, after {aw}?"])
            return self.slot_spec(spec_t, "location", None), text
        found = self.pick_event(ta + 1, ta + 30, skip=("take note",))
        if found is None:
            return None
        _, e = found
        pat = self.pattern_of(e, 0.6)
        if pat == anchor[2]:
            return None
        spec_t = {"type": "occ", "pat": pat, "n": 1, "window": {"lo": {"anchor": anchor[0]}}}
        past, base = self.ev(pat)
        if self.rng.random() < 0.5:
            text = self.pick([f"After {aw}, when did {S[0]} next {base}?", f"When did {S[0]} next {base}, after {aw}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(None, ("location", "facing", "state", "inventory", "action"))
        when = f"the next time {S[0]} {past} after {aw}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def t6_prev_anchor(self):
        anchor = self.pick_anchor(lo=30)
        if anchor is None:
            return None
        ta = anchor[1]
        S = self.subj()
        aw = self.anchor_words(S, anchor)
        found = self.pick_event(ta - 30, ta - 1, skip=("take note",))
        if found is None:
            return None
        _, e = found
        pat = self.pattern_of(e, 0.6)
        if pat == anchor[2]:
            return None
        spec_t = {"type": "occ", "pat": pat, "n": -1, "window": {"hi": {"anchor": anchor[0]}}}
        past, base = self.ev(pat)
        if self.rng.random() < 0.5:
            text = self.pick([f"Before {aw}, when did {S[0]} last {base}?",
                              f"When did {S[0]} most recently {base} before {aw}?"])
            return self.slot_spec(spec_t, "step", None), text
        slot, arg = self.slot_pick(None, ("location", "facing", "state", "inventory", "events"))
        when = f"the previous time {S[0]} {past} before {aw}"
        return self.slot_spec(spec_t, slot, arg), self.compose(self.slot_main(S, slot, arg), when)

    def o6_after_award(self):
        ts = self.hits(["score points", None])
        if len(ts) < 4:
            return None
        n = self.pick([2, 3, -2])
        award = {"type": "occ", "pat": ["score points", None], "n": n}
        spec_t = {"type": "occ", "pat": ["pick up", None], "n": 1, "window": {"lo": {"anchor": award}}}
        return (self.slot_spec(spec_t, "facing", None),
                (f"Counting awards of points over the whole run, what was the next item Ash got hold of after the "
                 f"{_ORDINALS[n][0]} award?"))

    def o6_before_win(self):
        g = self.pick(sorted(self.games))
        win = {"type": "occ", "pat": ["win game", f"game {g}"], "n": 1}
        spec_t = {"type": "occ", "pat": ["review notes", None], "n": -1, "window": {"hi": {"anchor": win}}}
        return self.slot_spec(spec_t, "step", None), f"Before the agent beat game {g}, when had it last re-read its goal?"

    def o6_next_open(self):
        n_step = self.ri(0, self.T - 40)
        spec_t = {"type": "occ", "pat": ["open", None], "n": 1, "window": {"lo": {"step": n_step}}}
        return (self.slot_spec(spec_t, "facing", None),
                f"Following step {n_step}, which container or door was the next to be opened?")

    def o6_prev_inspect(self):
        n_step = self.ri(20, self.T - 1)
        spec_t = {"type": "occ", "pat": ["examine", None], "n": -1, "window": {"hi": {"step": n_step}}}
        return (self.slot_spec(spec_t, "facing", None),
                f"What was the most recent thing the agent had looked at closely before step {n_step}?")

    # ================================================================== 7. count / list
    def _count_pat(self):
        found = self.pick_event(skip=("take note",))
        if found is None:
            return None
        u, e = found
        return u, self.pattern_of(e, 0.5)

    def count_text(self, S, pat, wtext):
        _, base = self.ev(pat)
        s = S[0]
        if wtext:
            return self.pick([f"How many times did {s} {base} {wtext}?", f"{_cap(wtext)}, how many times did {s} {base}?",
                              f"How often did {s} {base} {wtext}?"])
        return self.pick([f"How many times did {s} {base} over the whole run?", f"In total, how often did {s} {base}?",
                          f"How many times in all did {s} {base}?"])

    def t7_count_all(self):
        found = self._count_pat()
        if found is None:
            return None
        _, pat = found
        if pat[1] is None and len(self.hits(pat)) > 60:
            return None
        return {"q": "count", "pat": pat, "window": None}, self.count_text(self.subj(), pat, "")

    def t7_count_between(self):
        found = self._count_pat()
        if found is None:
            return None
        u, pat = found
        a = max(0, u - self.ri(0, 80))
        b = min(self.T - 1, a + self.ri(30, 150))
        window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
        return {"q": "count", "pat": pat, "window": window}, self.count_text(self.subj(), pat, f"between step {a} and step {b}")

    def t7_count_game(self):
        found = self._count_pat()
        if found is None:
            return None
        u, pat = found
        g = self.gm(u)
        return {"q": "count", "pat": pat, "window": {"game": g}}, self.count_text(self.subj(), pat, self.pick([f"in game {g}", f"during game {g}"]))

    def t7_count_after(self):
        anchor = self.pick_anchor(lo=self.T // 3)
        if anchor is None:
            return None
        found = self._count_pat()
        if found is None:
            return None
        _, pat = found
        if pat == anchor[2]:
            return None
        S = self.subj()
        return ({"q": "count", "pat": pat, "window": {"lo": {"anchor": anchor[0]}}},
                self.count_text(S, pat, f"after {self.anchor_words(S, anchor)}"))

    def list_text(self, S, kind, wtext):
        words, verb = self.pick(_LIST_WORDS[kind])
        self.flag = self.flag or verb
        words = words.format(s=S[0])
        return self.pick([f"List the {words} {wtext}.", f"Name the {words} {wtext}.",
                          f"{_cap(wtext)}, what were the {words}?"])

    def t7_list(self):
        kind = self.pick(sorted(_LIST_WORDS))
        if self.rng.random() < 0.5:
            g = self.pick(sorted(self.games))
            window, wtext = {"game": g}, self.pick([f"in game {g}", f"during game {g}"])
        else:
            a = self.ri(0, self.T - 40)
            b = min(self.T - 1, a + self.ri(25, 120))
            window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
            wtext = f"between step {a} and step {b}"
        return {"q": "list", "kind": kind, "window": window}, self.list_text(self.subj(), kind, wtext)

    def t7_list_before(self):
        kind = self.pick(["eat", "grill", "unlock", "set down", "put back", "discover", "rejected command"])
        n_step = self.ri(self.T // 4, self.T - 1)
        S = self.subj()
        if self.rng.random() < 0.5:
            return {"q": "list", "kind": kind, "window": {"hi": {"step": n_step}}}, self.list_text(S, kind, f"before step {n_step}")
        return ({"q": "list", "kind": kind, "window": {"lo": {"step": n_step, "incl": True}}},
                self.list_text(S, kind, f"from step {n_step} on"))

    def o7_wins(self):
        return {"q": "count", "pat": ["win game", None], "window": None}, "Over the whole run, how many games did Ash manage to win?"

    def o7_refusals_in_game(self):
        g = self.pick(sorted(self.games))
        return ({"q": "list", "kind": "rejected command", "window": {"game": g}},
                f"Name every command the game turned down during game {g} (or say none).")

    def o7_rereads(self):
        n_step = self.ri(60, self.T - 1)
        return ({"q": "count", "pat": ["review notes", None], "window": {"hi": {"step": n_step}}},
                f"How often did the notebook get re-read in the first {n_step} steps?")

    def o7_opened_span(self):
        a = self.ri(0, self.T - 60)
        b = a + self.ri(30, 59)
        window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
        return {"q": "list", "kind": "open", "window": window}, f"What different things got opened from step {a} through step {b}?"

    # ================================================================== 8. order
    def _label(self, pat) -> str:
        kind, obj = pat
        if obj is None:
            return _KIND_LABELS[kind]
        return obj

    def _two_anchors(self):
        a = self.pick_anchor()
        b = self.pick_anchor()
        if a is None or b is None or a[2] == b[2] or a[1] == b[1]:
            return None
        la, lb = self._label(a[2]), self._label(b[2])
        if la == lb:
            return None
        return a, b, la, lb

    def t8_order(self):
        found = self._two_anchors()
        if found is None:
            return None
        a, b, la, lb = found
        S = self.subj()
        wa, wb = self.anchor_words(S, a), self.anchor_words(S, b)
        text = self.pick([
            f"Which came first: {wa}, or {wb}? Answer '{la}' or '{lb}'.",
            f"Which happened earlier, {wa} or {wb}? Reply '{la}' or '{lb}'.",
            f"Of {wa} and {wb}, which was earlier? Say '{la}' or '{lb}'.",
        ])
        return {"q": "order", "a": a[0], "b": b[0], "labels": [la, lb]}, text

    def t8_cond(self):
        key = self.pick(["total score", "notes taken", "commands refused"])
        t = self.ri(10, self.T - 1)
        val = self.steps[t].state_dict[key]
        b = self.pick_anchor()
        if not val or b is None:
            return None
        S = self.subj()
        cond_a = {"type": "cond", "cond": {"var": ["state", key], "op": "ge", "val": val}, "which": "first"}
        la = {"total score": "score", "notes taken": "notes", "commands refused": "refusals"}[key]
        lb = self._label(b[2])
        if la == lb:
            return None
        wa = f"{self.var_words(S, key)} first reaching {val}"
        wb = self.anchor_words(S, b)
        if self.rng.random() < 0.5:
            return ({"q": "order", "a": cond_a, "b": b[0], "labels": [la, lb]},
                    f"Which came first: {wa}, or {wb}? Answer '{la}' or '{lb}'.")
        return ({"q": "order", "a": b[0], "b": cond_a, "labels": [lb, la]},
                f"Was it {wb} that came first, or {wa}? Answer '{lb}' or '{la}'.")

    def o8_score_vs_refusal(self):
        t = self.ri(self.T // 4, self.T - 1)
        k = self.steps[t].state_dict["total score"]
        ts = self.hits(["rejected command", None])
        if not k or len(ts) < 3:
            return None
        n = self.pick([2, 3, -1, -2])
        cond_a = {"type": "cond", "cond": {"var": ["state", "total score"], "op": "ge", "val": k}, "which": "first"}
        occ_b = {"type": "occ", "pat": ["rejected command", None], "n": n}
        return ({"q": "order", "a": cond_a, "b": occ_b, "labels": ["score", "refusal"]},
                (f"Ash's overall score first reaching {k}, or its {_ORDINALS[n][0]} refused command: which came first? "
                 "Answer 'score' or 'refusal'."))

    def o8_unlock_vs_notebook(self):
        g = self.pick(sorted(self.games))
        w = {"game": g}
        a = {"type": "occ", "pat": ["unlock", "wooden door"], "n": 1, "window": w}
        b = {"type": "occ", "pat": ["review notes", None], "n": 1, "window": w}
        return ({"q": "order", "a": a, "b": b, "labels": ["unlock", "notebook"]},
                (f"In game {g}, did the agent undo the lock of the wooden door before or after it first went over its "
                 "notebook in that game? Answer 'unlock' if the lock came first, 'notebook' otherwise."))

    def o8_refusal_vs_kitchen(self):
        g = self.pick(sorted(self.games))
        w = {"game": g}
        a = {"type": "occ", "pat": ["rejected command", None], "n": 1, "window": w}
        b = {"type": "occ", "pat": ["enter room", "kitchen"], "n": 1, "window": w}
        return ({"q": "order", "a": a, "b": b, "labels": ["refusal", "kitchen"]},
                (f"Game {g}: which came sooner, Ash's first refused command of that game or its first arrival in the "
                 "kitchen? Answer 'refusal' or 'kitchen'."))

    # ================================================================== 9. distance
    def t9_pair(self):
        found = self._two_anchors()
        if found is None:
            return None
        a, b, _, _ = found
        if abs(a[1] - b[1]) > 250:
            return None
        S = self.subj()
        wa, wb = self.anchor_words(S, a), self.anchor_words(S, b)
        text = self.pick([f"How many steps passed between {wa} and {wb}?",
                          f"How many steps apart were {wa} and {wb}?",
                          f"Counting in steps, how far was {wa} from {wb}?"])
        return {"q": "distance", "a": a[0], "b": b[0]}, text

    def t9_next(self):
        anchor = self.pick_anchor(hi=self.T - 30)
        if anchor is None:
            return None
        ta = anchor[1]
        found = self.pick_event(ta + 1, ta + 40, skip=("take note",))
        if found is None:
            return None
        _, e = found
        pat = self.pattern_of(e, 0.5)
        if pat == anchor[2]:
            return None
        S = self.subj()
        past, base = self.ev(pat)
        b = {"type": "occ", "pat": pat, "n": 1, "window": {"lo": {"anchor": anchor[0]}}}
        aw = self.anchor_words(S, anchor)
        text = self.pick([f"How many steps after {aw} did {S[0]} next {base}?",
                          f"After {aw}, how many steps went by before {S[0]} {past}?"])
        return {"q": "distance", "a": anchor[0], "b": b}, text

    def t9_cond(self):
        key = self.pick(["total score", "notes taken", "commands refused"])
        t = self.ri(10, self.T - 1)
        val = self.steps[t].state_dict[key]
        b = self.pick_anchor(lo=max(0, t - 120), hi=t + 120)
        if not val or b is None:
            return None
        S = self.subj()
        cond_a = {"type": "cond", "cond": {"var": ["state", key], "op": "ge", "val": val}, "which": "first"}
        wa = f"{self.var_words(S, key)} first reached {val}"
        return ({"q": "distance", "a": cond_a, "b": b[0]},
                f"How many steps lay between the moment {wa} and {self.anchor_words(S, b)}?")

    def o9_game_length(self):
        g = self.pick(sorted(self.games))
        a = {"type": "occ", "pat": ["start game", f"game {g}"], "n": 1}
        b = {"type": "occ", "pat": ["win game", f"game {g}"], "n": 1}
        return {"q": "distance", "a": a, "b": b}, f"How many steps did game {g} take, counted from its first step to the winning one?"

    def o9_key_to_door(self):
        g = self.pick(sorted(self.games))
        w = {"game": g}
        a = {"type": "occ", "pat": ["pick up", "old key"], "n": 1, "window": w}
        b = {"type": "occ", "pat": ["unlock", "wooden door"], "n": 1, "window": w}
        return ({"q": "distance", "a": a, "b": b},
                f"Between first taking the old key in game {g} and undoing the wooden door's lock in that game, how many steps went by?")

    def o9_refusal_span(self):
        if len(self.hits(["rejected command", None])) < 2:
            return None
        a = {"type": "occ", "pat": ["rejected command", None], "n": 1}
        b = {"type": "occ", "pat": ["rejected command", None], "n": -1}
        return {"q": "distance", "a": a, "b": b}, "How far apart, in steps, were the very first and the very last refused commands of the run?"

    # ================================================================== 10. existence
    def absent_patterns(self, window=None):
        cands = [["pick up", i] for i in _HOUSE_ITEMS] + [["eat", f] for f in _FOODS] + [["grill", f] for f in _FOODS]
        cands += [["discover", i] for i in _HOUSE_ITEMS] + [["open", c] for c in _CONTAINERS]
        cands += [["put back", i] for i in _HOUSE_ITEMS] + [["enter room", r] for r in _ROOMS]
        cands += [["set down", i] for i in _HOUSE_ITEMS] + [["close", c] for c in _CONTAINERS]
        return [p for p in cands if not self.hits(p, window)]

    def exists_text(self, S, pat, wtext):
        past, base = self.ev(pat)
        s = S[0]
        if not wtext:
            return self.pick([f"Did {s} ever {base}?", f"Was there ever a moment when {s} {past}?",
                              f"At any point in the run, did {s} {base}?"])
        return self.pick([f"Did {s} {base} {wtext}?", f"{_cap(wtext)}, did {s} ever {base}?",
                          f"Is there a step {wtext} at which {s} {past}?"])

    def t10_ever(self, want):
        if want == "no":
            pats = self.absent_patterns()
            if not pats:
                return None
            pat = self.pick(pats)
        else:
            found = self._count_pat()
            if found is None:
                return None
            pat = found[1]
        return {"q": "exists", "pat": pat, "window": None}, self.exists_text(self.subj(), pat, "")

    def _gap_window(self, want):
        """A step window and a pattern that does (yes) or does not (no) happen in it."""
        found = self._count_pat()
        if found is None:
            return None
        u, pat = found
        ts = self.hits(pat)
        if want == "yes":
            a = max(0, u - self.ri(0, 60))
            b = min(self.T - 1, u + self.ri(0, 60))
            return pat, a, b
        idx = ts.index(u)
        if idx + 1 >= len(ts) or ts[idx + 1] - u < 15:
            return None
        a = u + 1 + self.ri(0, 3)
        b = ts[idx + 1] - 1 - self.ri(0, 3)
        return (pat, a, b) if b - a >= 8 else None

    def t10_between(self, want):
        found = self._gap_window(want)
        if found is None:
            return None
        pat, a, b = found
        window = {"lo": {"step": a, "incl": True}, "hi": {"step": b, "incl": True}}
        return {"q": "exists", "pat": pat, "window": window}, self.exists_text(self.subj(), pat, f"between step {a} and step {b}")

    def t10_before(self, want):
        found = self._count_pat()
        if found is None:
            return None
        _, pat = found
        first = self.hits(pat)[0]
        if want == "yes":
            n_step = self.ri(first + 1, self.T - 1)
        else:
            if first < 25:
                return None
            n_step = self.ri(max(20, first - 100), first)
        return {"q": "exists", "pat": pat, "window": {"hi": {"step": n_step}}}, self.exists_text(self.subj(), pat, f"before step {n_step}")

    def t10_game(self, want):
        g = self.pick(sorted(self.games))
        window = {"game": g}
        if want == "no":
            pats = self.absent_patterns(window)
            if not pats:
                return None
            pat = self.pick(pats)
        else:
            lo, hi = self.games[g]
            found = self.pick_event(lo, hi, skip=("take note",))
            if found is None:
                return None
            pat = self.pattern_of(found[1], 0.4)
        return {"q": "exists", "pat": pat, "window": window}, self.exists_text(self.subj(), pat, self.pick([f"in game {g}", f"during game {g}"]))

    def t10_after(self, want):
        anchor = self.pick_anchor(lo=self.T // 2)
        if anchor is None:
            return None
        window = {"lo": {"anchor": anchor[0]}}
        if want == "no":
            pats = self.absent_patterns(window)
            if not pats:
                return None
            pat = self.pick(pats)
        else:
            found = self.pick_event(anchor[1] + 1, skip=("take note",))
            if found is None:
                return None
            pat = self.pattern_of(found[1], 0.5)
        S = self.subj()
        return {"q": "exists", "pat": pat, "window": window}, self.exists_text(S, pat, f"after {self.anchor_words(S, anchor)}")

    def o10_food(self):
        return {"q": "exists", "pat": ["eat", None], "window": None}, "Was any food eaten at all during the whole run?"

    def o10_refusal_after_win(self):
        g = self.pick(sorted(self.games)[-3:])
        win = {"type": "occ", "pat": ["win game", f"game {g}"], "n": 1}
        return ({"q": "exists", "pat": ["rejected command", None], "window": {"lo": {"anchor": win}}},
                f"Did the game ever refuse a command from Ash after it had beaten game {g}?")

    def o10_comeback(self):
        room = self.pick(["kitchen", "backyard", "bedroom", "garden", "living room", "bathroom"])
        n_step = self.ri(20, self.T // 2)
        return ({"q": "exists", "pat": ["return to room", room], "window": {"hi": {"step": n_step}}},
                f"Is there any point before step {n_step} where the agent came back to the {room} within the same game?")

    def o10_stray(self):
        item = self.pick(_HOUSE_ITEMS)
        return ({"q": "exists", "pat": ["set down", item], "window": None},
                f"Did Ash ever leave the {item} lying somewhere other than the spot it had been taken from?")

    def run_existence(self) -> None:
        family = "10_existence"
        start = len(self.questions)
        pool = [self.o10_food, self.o10_refusal_after_win, self.o10_comeback, self.o10_stray]
        self.rng.shuffle(pool)
        got = 0
        for fn in pool:
            if got >= 2:
                break
            for _ in range(6):
                self.flag = False
                made = fn()
                if made is not None and self.add(family, made[0], made[1], oneoff=True):
                    got += 1
                    break
        nos = sum(q["answer"] == "no" for q in self.questions[start:])
        wants = ["no"] * max(0, 2 - nos) + ["yes"] * 6
        wants = wants[: 6 - got]
        self.rng.shuffle(wants)
        templates = [self.t10_ever, self.t10_between, self.t10_before, self.t10_game, self.t10_after]
        tries = 0
        for want in wants:
            while True:
                if tries > 600:
                    raise RuntimeError(f"{self.ep}: could not fill family {family}")
                fn = templates[tries % len(templates)]
                tries += 1
                self.flag = False
                made = fn(want)
                if made is None:
                    continue
                result = evaluate(self.steps, self.ep, made[0])
                if result is None or result[0] != want:
                    continue
                if self.add(family, made[0], made[1]):
                    break

    # ------------------------------------------------------------------ all families
    def build(self) -> list[dict]:
        fam = [
            ("1_step_index", [self.t1_slot, self.t1_action, self.t1_where],
             [self.o1_game, self.o1_verbatim_command, self.o1_pockets, self.o1_target, self.o1_refused_tally]),
            ("2_nth_occurrence", [self.t2_step, self.t2_slot],
             [self.o2_refused, self.o2_item_game, self.o2_room_entry, self.o2_award]),
            ("3_windowed_occurrence", [self.t3_after_step, self.t3_before_step, self.t3_between, self.t3_after_anchor, self.t3_game],
             [self.o3_refused_upto, self.o3_first_room_of_game, self.o3_second_grab, self.o3_first_open_in_game]),
            ("4_condition", [self.t4_reach, self.t4_item, self.t4_gone, self.t4_mode, self.t4_rooms],
             [self.o4_lift, self.o4_last_held, self.o4_moves, self.o4_notebook]),
            ("5_offset", [self.t5_step, self.t5_occ],
             [self.o5_later, self.o5_before_win, self.o5_grid_back, self.o5_after_refusal]),
            ("6_next_previous", [self.t6_next_step, self.t6_prev_step, self.t6_next_anchor, self.t6_prev_anchor],
             [self.o6_after_award, self.o6_before_win, self.o6_next_open, self.o6_prev_inspect]),
            ("7_count", [self.t7_count_all, self.t7_count_between, self.t7_count_game, self.t7_count_after, self.t7_list, self.t7_list_before],
             [self.o7_wins, self.o7_refusals_in_game, self.o7_rereads, self.o7_opened_span]),
            ("8_order", [self.t8_order, self.t8_cond],
             [self.o8_score_vs_refusal, self.o8_unlock_vs_notebook, self.o8_refusal_vs_kitchen]),
            ("9_distance", [self.t9_pair, self.t9_next, self.t9_cond],
             [self.o9_game_length, self.o9_key_to_door, self.o9_refusal_span]),
        ]
        for family, templates, oneoffs in fam:
            self.run_family(family, templates, oneoffs)
        self.run_existence()
        return self.questions


# ==================================================================================================
# Build and self-check
# ==================================================================================================


def build(seed: int) -> dict:
    """One episode of back-to-back tw-simple games and its 60 questions; deterministic in ``seed``."""
    steps = _play(seed)
    ep = episode_id(seed)
    validate_steps(steps, ep)
    asker = _Asker(steps, ep, seed)
    questions = asker.build()
    if asker.verbatim > 30 or asker.oneoffs < 20:
        raise RuntimeError(f"{ep}: {asker.verbatim} questions name a kind verbatim, {asker.oneoffs} one-offs")
    return {"episodes": {ep: steps}, "questions": questions}


def _self_check(seeds: list[int]) -> None:
    for seed in seeds:
        t0, c0 = time.time(), time.process_time()
        data = build(seed)
        wall, cpu = time.time() - t0, time.process_time() - c0
        (ep, steps), = data["episodes"].items()
        qs = data["questions"]
        validate_steps(steps, ep)
        assert [s.t for s in steps] == list(range(len(steps))), "steps must be numbered 0, 1, 2, ..."
        assert 300 <= len(steps) <= 1500 and 400 <= len(steps) <= 900, len(steps)
        games = sorted({s.state_dict["game"] for s in steps})
        assert 8 <= len(games) <= 16, games
        kinds = sorted({e.kind for s in steps for e in s.events})
        assert len(kinds) >= 16, kinds
        assert len(qs) == 60, len(qs)
        fam: dict[str, int] = defaultdict(int)
        slots: dict[tuple, int] = defaultdict(int)
        for q in qs:
            fam[q["family"]] += 1
            slots[(q["family"], q["slot"])] += 1
            assert all(g.rsplit(":", 1)[0] == q["episode"] == ep for g in q["gold"]), q
            again = evaluate(steps, q["episode"], q["spec"])
            assert again is not None and again[0] == q["answer"] and again[1] == q["gold"], q
            assert q["gold"] or q["answer"] in ("no", "0", "none"), q
            ts = [int(g.rsplit(":", 1)[1]) for g in q["gold"]]
            assert ts == sorted(set(ts)), q
        assert all(v == 6 for v in fam.values()) and len(fam) == 10, dict(fam)
        regexes = [_kind_regex(k) for k in kinds]
        verbatim = sum(any(r.search(q["question"]) for r in regexes) for q in qs)
        nos = sum(q["answer"] == "no" for q in qs if q["family"] == "10_existence")
        second = build(seed)
        assert second["questions"] == qs, "a second build gave other questions"
        assert second["episodes"][ep] == steps, "a second build gave other steps"
        print(f"seed {seed}: episode {ep}, {len(steps)} steps, {len(games)} games, {len(kinds)} event kinds, "
              f"{len(qs)} questions; build {wall:.1f} s wall / {cpu:.1f} s CPU")
        print(f"  question text naming a stored kind (regex, lower bound): {verbatim}; existence 'no': {nos}")
        for family in sorted(fam, key=lambda f: int(f.split("_")[0])):
            per = ", ".join(f"{s}={n}" for (f, s), n in sorted(slots.items()) if f == family)
            print(f"  {family:24s} {fam[family]}  ({per})")
        rng = random.Random(seed)
        for q in rng.sample(qs, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")
    print("self-check passed")


if __name__ == "__main__":
    chosen = [int(a) for a in sys.argv[1:3]] or list(SEED_RANGE[:2])
    if len(chosen) < 2:
        chosen.append(SEED_RANGE[1] if chosen[0] != SEED_RANGE[1] else SEED_RANGE[0])
    _self_check(chosen)
