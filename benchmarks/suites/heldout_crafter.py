"""Held-out suite: real Crafter rollouts of a cautious builder, and questions about them.

The agent is scripted here: it keeps its water, food and energy up, fights what comes next to it,
digs itself a sealed two-cell burrow in rock before sleeping, and otherwise climbs the tool ladder
(table, wood tools, stone tools, furnace, iron tools), planting saplings once it has the basics.
Each env step becomes one ``Step`` with this suite's own words: events such as ``chop tree``,
``mine stone``, ``lay stone``, ``craft wood pickaxe``, ``strike zombie``, ``get hurt``, ``enter pine
forest``; state ``health``, ``satiety``, ``hydration``, ``stamina``, ``daylight``, ``goal``, ``asleep``;
regions named by the terrain around the agent (``open meadow``, ``rocky highlands``, ...).

Seeds 7000-7099 are the held-out seeds. Upstream Crafter balances creatures by iterating a set of
objects, whose order follows memory addresses; :class:`StableEnv` hands that code the creatures in
the order they entered the world instead, so a seed gives the same rollout in every process.

>>> from benchmarks.suites.heldout_crafter import build
>>> data = build(7000)  # doctest: +SKIP
>>> sorted(data) == ["episodes", "questions"]  # doctest: +SKIP
True
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

import crafter  # type: ignore[import-untyped]
import numpy as np
from crafter import constants, objects  # type: ignore[import-untyped]

from benchmarks.suites._heldout_core import (
    Builder,
    Lexicon,
    Match,
    self_check,
    subjects,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "heldout_crafter"
SEEDS = range(7000, 7100)

WALKABLE = {"grass", "sand", "path"}
DIRS: dict[str, tuple[int, int]] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
ACTION_WORDS = {"noop": "wait", "move_left": "walk west", "move_right": "walk east", "move_up": "walk north",
                "move_down": "walk south", "do": "interact", "sleep": "sleep"}
CREATURES: dict[type, str] = {objects.Zombie: "zombie", objects.Skeleton: "skeleton", objects.Cow: "cow",
                              objects.Plant: "plant", objects.Arrow: "arrow"}
REGIONS = ["open meadow", "pine forest", "rocky highlands", "cave tunnels", "lakeshore", "sandy beach", "lava vents"]
TOOLS = ["wood pickaxe", "wood sword", "stone pickaxe", "stone sword", "iron pickaxe", "iron sword"]
ITEMS = ["wood", "stone", "coal", "iron", "diamond", "sapling", *TOOLS]
VITALS = {"health": "health", "food": "satiety", "drink": "hydration", "energy": "stamina"}


class StableEnv(crafter.Env):  # type: ignore[misc]
    """Crafter whose creature balancing is deterministic per seed.

    ``_balance_object`` picks a creature to despawn by index into a list built from a chunk's *set*
    of objects; set order follows object ids (memory addresses), so two processes could remove
    different creatures. Sorting by the world's object index (insertion order) removes that.
    """

    def _balance_object(self, chunk: Any, objs: Any, *args: Any) -> None:
        ordered = sorted(objs, key=lambda obj: int(self._world._obj_map[tuple(obj.pos)]))
        super()._balance_object(chunk, ordered, *args)


def _name(key: str) -> str:
    return key.replace("_", " ")


# --------------------------------------------------------------------------------------------------
# The scripted agent
# --------------------------------------------------------------------------------------------------


class CautiousBuilder:
    """Chooses one Crafter action per step from the true world state (a scripted agent, not a learner)."""

    def __init__(self, env: StableEnv, rng: random.Random) -> None:
        self.env = env
        self.rng = rng
        self.goal = "look around"
        self.mode = ""  # "drink" / "eat" while topping up, so that it does not stop at the threshold
        self.burrow: list[str] = []  # remaining actions of the dig-in-and-sleep routine
        self.sleep_after_burrow = False
        self.rest_health = 0  # stay sealed in the burrow until health is back to this
        self.explore_to: tuple[int, int] | None = None
        self.hobby_until = 0

    # ---------------------------------------------------------------- world access

    @property
    def player(self) -> Any:
        return self.env._player

    def mat(self, pos: tuple[int, int]) -> str | None:
        material, _ = self.env._world[pos]
        return material  # type: ignore[no-any-return]

    def obj(self, pos: tuple[int, int]) -> Any:
        return self.env._world[pos][1]

    def here(self) -> tuple[int, int]:
        return int(self.player.pos[0]), int(self.player.pos[1])

    def free(self, pos: tuple[int, int]) -> bool:
        return self.mat(pos) in WALKABLE and self.obj(pos) is None

    def solid(self, pos: tuple[int, int]) -> bool:
        """Nothing can walk in: not ground, not lava, and no creature."""
        material = self.mat(pos)
        return material is not None and material not in WALKABLE and material != "lava" and self.obj(pos) is None

    def facing_dir(self) -> str:
        f = tuple(self.player.facing)
        return next(name for name, d in DIRS.items() if d == f)

    # ---------------------------------------------------------------- movement

    def bfs(self, goal: Callable[[tuple[int, int]], bool], limit: int = 2500) -> str | None:
        """First move toward the nearest walkable cell meeting ``goal`` ("" if standing on one)."""
        start = self.here()
        if goal(start):
            return ""
        area = self.env._world.area
        seen = {start: ""}
        queue = deque([start])
        while queue and len(seen) < limit:
            cell = queue.popleft()
            for name, (dx, dy) in DIRS.items():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt in seen or not (0 <= nxt[0] < area[0] and 0 <= nxt[1] < area[1]) or not self.free(nxt):
                    continue
                seen[nxt] = seen[cell] or name
                if goal(nxt):
                    return seen[nxt]
                queue.append(nxt)
        return None

    def approach(self, is_target: Callable[[tuple[int, int]], bool]) -> str | None:
        """Act on an adjacent target ("do") or turn/walk toward the nearest one."""
        x, y = self.here()
        for name, (dx, dy) in DIRS.items():
            if is_target((x + dx, y + dy)):
                return "do" if self.facing_dir() == name else f"move_{name}"
        first = self.bfs(lambda c: any(is_target((c[0] + dx, c[1] + dy)) for dx, dy in DIRS.values()))
        return f"move_{first}" if first else None

    def _near_target(self, cell: tuple[int, int]) -> bool:
        assert self.explore_to is not None
        return abs(cell[0] - self.explore_to[0]) + abs(cell[1] - self.explore_to[1]) <= 2

    def explore(self) -> str:
        """Walk toward a far random cell; pick another when there or stuck."""
        area = self.env._world.area
        for _ in range(4):
            if self.explore_to is None or self.explore_to == self.here():
                self.explore_to = (self.rng.randrange(4, area[0] - 4), self.rng.randrange(4, area[1] - 4))
            first = self.bfs(self._near_target)
            if first:
                return f"move_{first}"
            self.explore_to = None
        # Stuck: turn or step anywhere but into lava (the player may walk onto lava and die).
        x, y = self.here()
        safe = [n for n, (dx, dy) in DIRS.items() if self.mat((x + dx, y + dy)) not in ("lava", None)]
        return f"move_{self.rng.choice(safe)}" if safe else "noop"

    # ---------------------------------------------------------------- helpers

    def near(self, material: str, cell: tuple[int, int] | None = None) -> bool:
        """Crafter's crafting test: the material within the 3x3 area around a cell."""
        x, y = cell or self.here()
        return any(self.mat((x + dx, y + dy)) == material for dx in (-1, 0, 1) for dy in (-1, 0, 1))

    def within(self, material: str, radius: int) -> bool:
        x, y = self.here()
        world = self.env._world
        ids = world._mat_map[max(0, x - radius): x + radius + 1, max(0, y - radius): y + radius + 1]
        return bool((ids == world._mat_ids[material]).any())

    def has(self, item: str, count: int = 1) -> bool:
        return int(self.player.inventory[item]) >= count

    def can_make(self, tool: str) -> bool:
        return all(self.has(k, v) for k, v in constants.make[tool]["uses"].items())

    def go_craft(self, tool: str, stations: tuple[str, ...]) -> str | None:
        if all(self.near(s) for s in stations):
            return f"make_{tool}"
        first = self.bfs(lambda c: all(self.near(s, c) for s in stations))
        return f"move_{first}" if first else None

    def place(self, name: str) -> str:
        """Place ``name`` on the cell ahead, stepping so that a suitable cell is ahead."""
        where = constants.place[name]["where"]
        x, y = self.here()
        fx, fy = self.player.facing
        if self.mat((x + fx, y + fy)) in where and self.obj((x + fx, y + fy)) is None:
            return f"place_{name}"
        options = [n for n, (dx, dy) in DIRS.items()
                   if self.free((x + dx, y + dy)) and self.mat((x + 2 * dx, y + 2 * dy)) in where
                   and self.obj((x + 2 * dx, y + 2 * dy)) is None]
        if options:
            return f"move_{self.rng.choice(options)}"
        return self.explore()

    def gather(self, materials: set[str]) -> str:
        act = self.approach(lambda p: self.mat(p) in materials and self.obj(p) is None)
        return act or self.explore()

    # ---------------------------------------------------------------- the burrow

    def burrow_site(self, cell: tuple[int, int]) -> str | None:
        """A direction d from ``cell`` with two stone cells ahead that form a sealed pocket once dug."""
        x, y = cell
        for name, (dx, dy) in DIRS.items():
            a, b = (x + dx, y + dy), (x + 2 * dx, y + 2 * dy)
            if self.mat(a) != "stone" or self.mat(b) != "stone":
                continue
            sides = [(a[0] + dy, a[1] + dx), (a[0] - dy, a[1] - dx), (b[0] + dy, b[1] + dx), (b[0] - dy, b[1] - dx),
                     (b[0] + dx, b[1] + dy)]
            if all(self.solid(s) for s in sides):
                return name
        return None

    def start_burrow(self) -> str | None:
        """Walk to a burrow site; once there, queue dig-in, seal, sleep."""
        if not self.has("wood_pickaxe"):
            return None
        site = self.burrow_site(self.here())
        if site is not None:
            back = {"left": "right", "right": "left", "up": "down", "down": "up"}[site]
            turn = [] if self.facing_dir() == site else [f"move_{site}"]
            self.burrow = [*turn, "do", f"move_{site}", "do", f"move_{site}", f"move_{back}", "place_stone"]
            self.sleep_after_burrow = True
            return self.burrow.pop(0)
        first = self.bfs(lambda c: self.burrow_site(c) is not None, limit=1500)
        return f"move_{first}" if first else None

    # ---------------------------------------------------------------- choosing

    def act(self, t: int) -> str:
        inv = self.player.inventory
        if self.player.sleeping:
            self.goal = "sleep in the burrow" if self.sleep_after_burrow else "sleep in the open"
            return "sleep"
        if self.sleep_after_burrow and not self.burrow:
            supplies = inv["drink"] > 2 and inv["food"] > 2
            if supplies and inv["energy"] < constants.items["energy"]["max"] and not self.env._world.daylight > 0.7:
                return "sleep"
            if supplies and inv["health"] < self.rest_health:
                self.goal = "rest in the burrow"
                return "noop"
            # Rested (or thirsty): dig out through the stone we laid.
            self.sleep_after_burrow = False
            self.rest_health = 0
            self.goal = "dig out of the burrow"
            return "do"
        if self.burrow:
            return self.burrow.pop(0)
        threat = self.threat()
        if threat:
            self.goal = "fight off an attacker"
            return threat
        if inv["health"] <= 3 and inv["drink"] > 3 and inv["food"] > 3:
            # Cautious: badly hurt, it hides in rock and heals before doing anything else.
            self.goal = "hide in a burrow to heal"
            act = self.start_burrow()
            if act:
                self.rest_health = 7
                return act
        if inv["drink"] <= 4 or (self.mode == "drink" and inv["drink"] < 9):
            self.mode, self.goal = "drink", "find water"
            return self.approach(lambda p: self.mat(p) == "water") or self.explore()
        if inv["food"] <= 4 or (self.mode == "eat" and inv["food"] < 8):
            self.mode, self.goal = "eat", "hunt a cow"
            act = self.approach(lambda p: isinstance(self.obj(p), objects.Cow))
            if act:
                return act
            ripe = self.approach(lambda p: isinstance(self.obj(p), objects.Plant) and self.obj(p).ripe)
            return ripe or self.explore()
        self.mode = ""
        dark = self.env._world.daylight < 0.3
        if inv["energy"] <= 2 or (dark and inv["energy"] <= 6):
            self.goal = "dig a burrow to sleep in"
            act = self.start_burrow()
            if act:
                return act
            self.goal = "sleep in the open"
            return "sleep"
        return self.ladder(t)

    def threat(self) -> str | None:
        x, y = self.here()
        for name, (dx, dy) in DIRS.items():
            if isinstance(self.obj((x + dx, y + dy)), (objects.Zombie, objects.Skeleton)):
                return "do" if self.facing_dir() == name else f"move_{name}"
        return None

    def ladder(self, t: int) -> str:
        """The builder's plan: table, wood tools, stone tools, furnace, iron tools, then hobbies."""
        table_close = self.within("table", 8)
        for tool, wood_needed in (("wood_pickaxe", 1), ("wood_sword", 1)):
            if not self.has(tool):
                return self.tool(tool, wood_needed, table_close, ())
        for tool in ("stone_pickaxe", "stone_sword"):
            if not self.has(tool):
                if not self.has("stone"):
                    self.goal = "mine stone"
                    return self.gather({"stone"})
                return self.tool(tool, 1, table_close, ())
        if not (table_close and self.within("furnace", 8)):
            if not self.has("stone", constants.place["furnace"]["uses"]["stone"] + 1):
                self.goal = "mine stone"
                return self.gather({"stone"})
            if not table_close:
                return self.tool("", 0, table_close, ())
            self.goal = "build a furnace"
            if self.near("table"):
                return self.place("furnace")
            first = self.bfs(lambda c: self.near("table", c))
            return f"move_{first}" if first else self.explore()
        for tool in ("iron_pickaxe", "iron_sword"):
            if not self.has(tool):
                for need, where in (("coal", {"coal"}), ("iron", {"iron"})):
                    if not self.has(need):
                        self.goal = f"mine {need}"
                        if need == "iron" and not self.within("iron", 30):
                            return self.explore()
                        return self.gather(where)
                if not self.has("wood"):
                    self.goal = "gather wood"
                    return self.gather({"tree"})
                self.goal = f"craft {_name(tool)}"
                return self.go_craft(tool, ("table", "furnace")) or self.explore()
        return self.hobby(t)

    def tool(self, tool: str, wood_needed: int, table_close: bool, extra: tuple[str, ...]) -> str:
        """Get wood, put a table down if none is close, then craft ``tool`` there."""
        table_cost = constants.place["table"]["uses"]["wood"]
        wood = int(self.player.inventory["wood"])
        if not table_close:
            if wood < table_cost + wood_needed:
                self.goal = "gather wood"
                return self.gather({"tree"})
            self.goal = "build a crafting table"
            return self.place("table")
        if not tool:
            return self.explore()
        if not self.can_make(tool):
            self.goal = "gather wood"
            return self.gather({"tree"})
        self.goal = f"craft {_name(tool)}"
        return self.go_craft(tool, ("table",)) or self.explore()

    def hobby(self, t: int) -> str:
        """With the tools done: plant saplings, stock stone, look for diamonds, wander."""
        inv = self.player.inventory
        if self.has("sapling"):
            self.goal = "plant a sapling"
            return self.place("plant")
        if t < self.hobby_until or self.rng.random() < 0.02:
            if t >= self.hobby_until:
                self.hobby_until = t + 25
            self.goal = "forage for saplings"
            x, y = self.here()
            fx, fy = self.player.facing
            if self.mat((x + fx, y + fy)) == "grass" and self.obj((x + fx, y + fy)) is None:
                return "do"
            return self.explore()
        if inv["stone"] < 6:
            self.goal = "stock up on stone"
            return self.gather({"stone"})
        if self.within("diamond", 20):
            self.goal = "mine a diamond"
            return self.gather({"diamond"})
        self.goal = "explore"
        return self.explore()


# --------------------------------------------------------------------------------------------------
# Rollout -> Step records
# --------------------------------------------------------------------------------------------------

EVENT_OF_ACHIEVEMENT: dict[str, tuple[str, str]] = {
    "collect_wood": ("chop", "tree"), "collect_stone": ("mine", "stone"), "collect_coal": ("mine", "coal"),
    "collect_iron": ("mine", "iron"), "collect_diamond": ("mine", "diamond"), "collect_sapling": ("forage", "sapling"),
    "collect_drink": ("drink", "water"), "place_table": ("build", "table"), "place_furnace": ("build", "furnace"),
    "place_stone": ("lay", "stone"), "place_plant": ("plant", "sapling"), "eat_cow": ("eat", "cow"),
    "eat_plant": ("eat", "plant"), "defeat_zombie": ("slay", "zombie"), "defeat_skeleton": ("slay", "skeleton"),
    **{f"make_{tool.replace(' ', '_')}": ("craft", tool) for tool in TOOLS},
}


def classify(env: StableEnv, pos: tuple[int, int]) -> str:
    """The kind of land around a cell (9x9 window), in this suite's region names."""
    world = env._world
    x, y = pos
    ids = world._mat_map[max(0, x - 4): x + 5, max(0, y - 4): y + 5]
    count = {name: int((ids == world._mat_ids[name]).sum()) for name in
             ("water", "tree", "stone", "path", "sand", "lava", "coal", "iron", "diamond")}
    rock = count["stone"] + count["coal"] + count["iron"] + count["diamond"]
    if count["lava"] >= 4:
        return "lava vents"
    if count["path"] >= 10 and rock + count["path"] >= 40:
        return "cave tunnels"
    if rock >= 35:
        return "rocky highlands"
    if count["water"] >= 15:
        return "lakeshore"
    if count["tree"] >= 14:
        return "pine forest"
    if count["sand"] >= 15:
        return "sandy beach"
    return "open meadow"


def _thing(env: StableEnv, pos: tuple[int, int]) -> str:
    material, obj = env._world[pos]
    if obj is not None:
        return CREATURES.get(type(obj), "creature")
    return str(material or "edge of the world")


def rollout(seed: int) -> list[Step]:
    """One episode of the cautious builder in Crafter world ``seed`` (respawning into a new world on death)."""
    rng = random.Random(seed)
    length = rng.randint(480, 900)
    env = StableEnv(seed=seed)
    env.reset()
    agent = CautiousBuilder(env, rng)
    action_names: list[str] = list(constants.actions)
    steps: list[Step] = []
    region = classify(env, agent.here())
    pending: list[Event] = []  # "enter" means crossing into a region: none for where the agent starts
    stable_for = 0
    candidate = region
    for t in range(length):
        player = env._player
        before_inv = dict(player.inventory)
        before_ach = dict(player.achievements)
        was_sleeping = bool(player.sleeping)
        x, y = agent.here()
        fx, fy = player.facing
        ahead_before = _thing(env, (x + fx, y + fy))
        name = agent.act(t)
        _, _, done, info = env.step(action_names.index(name))
        player = env._player
        inv, ach = info["inventory"], info["achievements"]
        events: list[Event] = list(pending)
        pending = []
        if name == "do" and ahead_before in ("zombie", "skeleton", "cow"):
            events.append(Event("strike", ahead_before))
        for key, (kind, obj) in EVENT_OF_ACHIEVEMENT.items():
            for _ in range(ach[key] - before_ach[key]):
                events.append(Event(kind, obj))
        if inv["health"] < before_inv["health"]:
            events.append(Event("get hurt", "", before_inv["health"] - inv["health"]))
        if player.sleeping and not was_sleeping:
            events.append(Event("fall asleep"))
        if was_sleeping and not player.sleeping:
            # Rested or woken by a blow: either way the agent is awake again.
            events.append(Event("wake up"))
        pos = (int(info["player_pos"][0]), int(info["player_pos"][1]))
        seen = classify(env, pos)
        # Regions change only when the new land holds for three steps (no flicker at borders).
        if seen == candidate:
            stable_for += 1
        else:
            candidate, stable_for = seen, 1
        if candidate != region and stable_for >= 3:
            region = candidate
            events.append(Event("enter", region))
        for key in sorted(ach):
            if ach[key] > 0 and before_ach[key] == 0:
                events.append(Event("unlock", _name(key)))
        dead = inv["health"] <= 0
        if dead:
            events.append(Event("die"))
        fx, fy = player.facing
        ahead = _thing(env, (pos[0] + fx, pos[1] + fy))
        items = {_name(k): int(v) for k, v in inv.items() if k not in VITALS and v > 0}
        state: dict[str, int | float | str | bool] = {VITALS[k]: int(inv[k]) for k in VITALS}
        state.update(daylight=round(float(env._world.daylight), 2), goal=agent.goal, asleep=bool(player.sleeping))
        nearby = sorted({_thing(env, (pos[0] + dx, pos[1] + dy)) for dx in range(-3, 4) for dy in range(-3, 4)}
                        - {"grass", "sand", "path", "edge of the world"})
        changes = [f"{_name(k)} {int(inv[k]) - int(before_inv[k]):+d}" for k in inv if inv[k] != before_inv[k]]
        said = ", ".join(f"{e.kind} {e.obj}".strip() for e in events)
        summary = f"{ACTION_WORDS.get(name, _name(name))} while trying to {agent.goal}" + (f"; {said}" if said else "") + (
            f" ({', '.join(changes)})" if changes else "")
        steps.append(Step(
            t=t, action=ACTION_WORDS.get(name, _name(name).replace("make ", "craft ")), summary=summary,
            objects=tuple(nearby), events=tuple(events), relations=(Relation("agent", "facing", ahead),),
            inventory=tuple(sorted(items.items())), state=tuple(sorted(state.items())),
            location=Location(position=pos, region=region, underfoot=str(env._world[pos][0])),
            observation=f"In the {region} at {pos[0]},{pos[1]}, facing {ahead}. Around: {', '.join(nearby) or 'nothing'}.",
        ))
        if dead or done:
            # A new life in a new world: the episode goes on.
            env.reset()
            agent = CautiousBuilder(env, rng)
            region = classify(env, agent.here())
            pending = [Event("respawn")]
            candidate, stable_for = region, 0
    return steps


# --------------------------------------------------------------------------------------------------
# Words and templates
# --------------------------------------------------------------------------------------------------


def lexicon() -> Lexicon:
    events: dict[tuple[str, str | None], list[str]] = {
        ("chop", "tree"): ["collect wood", "chop a tree", "gather wood", "cut down a tree", "get wood", "harvest wood"],
        ("mine", "stone"): ["mine stone", "quarry stone", "dig up stone", "collect stone", "break a stone block", "get stone"],
        ("mine", "coal"): ["mine coal", "dig up coal", "collect coal", "get coal"],
        ("mine", "iron"): ["mine iron", "collect iron", "dig up iron ore", "get iron"],
        ("mine", "diamond"): ["mine a diamond", "find a diamond", "collect a diamond", "dig up a diamond"],
        ("mine", None): ["mine something", "dig something up", "mine anything"],
        ("forage", "sapling"): ["collect a sapling", "pick up a sapling", "find a sapling", "get a sapling"],
        ("plant", "sapling"): ["plant a sapling", "put a sapling in the ground", "place a plant", "plant a seedling"],
        ("build", "table"): ["place a table", "build a crafting table", "put down a workbench", "set up a table"],
        ("build", "furnace"): ["place a furnace", "build a furnace", "set up a furnace", "put down a furnace"],
        ("build", None): ["build a station", "put down a crafting station", "set up a crafting station"],
        ("lay", "stone"): ["place stone", "put down a stone block", "lay a stone", "set a stone block down"],
        ("craft", None): ["craft something", "make a tool", "craft a tool"],
        ("drink", "water"): ["drink water", "have a drink", "take a sip of water", "drink some water"],
        ("eat", "cow"): ["eat a cow", "eat beef", "have beef", "eat meat"],
        ("eat", "plant"): ["eat a plant", "eat a ripe plant", "eat from a plant"],
        ("eat", None): ["eat something", "have a meal", "eat anything"],
        ("strike", "zombie"): ["hit a zombie", "attack a zombie", "punch a zombie", "strike a zombie"],
        ("strike", "cow"): ["hit a cow", "attack a cow", "punch a cow", "smack a cow"],
        ("strike", "skeleton"): ["hit a skeleton", "attack a skeleton"],
        ("strike", None): ["attack something", "hit a creature", "land a blow"],
        ("slay", "zombie"): ["kill a zombie", "defeat a zombie", "destroy a zombie", "beat a zombie"],
        ("slay", "skeleton"): ["kill a skeleton", "defeat a skeleton"],
        ("get hurt", None): ["take damage", "get hurt", "lose health", "get injured"],
        ("fall asleep", None): ["fall asleep", "go to sleep", "go to bed", "doze off"],
        ("wake up", None): ["wake up", "get up after sleeping", "wake"],
        ("enter", None): ["change regions", "move into a different region", "cross into another region"],
        ("die", None): ["die", "get killed", "perish"],
        ("respawn", None): ["respawn", "come back to life", "start over in a new world"],
        ("unlock", None): ["unlock an achievement", "earn an achievement", "get a new achievement"],
    }
    for tool in TOOLS:
        material, kind = tool.split()
        wooden = "wooden" if material == "wood" else material
        events[("craft", tool)] = [f"craft a {tool}", f"make a {wooden} {kind}", f"build a {tool}", f"create a {wooden} {kind}"]
    for region in REGIONS:
        events[("enter", region)] = [f"enter the {region}", f"arrive in the {region}", f"cross into the {region}",
                                     f"reach the {region}", f"walk into the {region}"]
    for key in constants.achievements:
        a = _name(key)
        events[("unlock", a)] = [f"unlock the '{a}' achievement", f"earn the '{a}' achievement", f"get the '{a}' achievement"]
    nouns: dict[tuple[str, str | None], list[str]] = {
        ("chop", "tree"): ["wood pickup", "tree chop", "log harvest"],
        ("mine", "stone"): ["stone pickup", "stone mined"],
        ("drink", "water"): ["drink", "sip of water", "drink of water"],
        ("build", "table"): ["table placement", "workbench"],
        ("fall asleep", None): ["nap", "bedtime"],
        ("eat", "cow"): ["beef meal", "cow meal"],
        ("slay", "zombie"): ["zombie kill"],
        ("strike", "zombie"): ["zombie hit", "blow against a zombie"],
        ("get hurt", None): ["injury", "hit taken"],
        ("lay", "stone"): ["stone placement"],
        **{("enter", r): [f"arrival in the {r}", f"visit to the {r}"] for r in REGIONS},
    }
    items = {
        "wood": ["wood", "logs", "pieces of wood"], "stone": ["stone", "stones", "cobblestone"],
        "coal": ["coal", "lumps of coal"], "iron": ["iron", "iron ore"], "diamond": ["diamonds"],
        "sapling": ["saplings", "seedlings"],
        "wood pickaxe": ["wood pickaxes", "wooden pickaxes"], "wood sword": ["wood swords", "wooden swords"],
        "stone pickaxe": ["stone pickaxes"], "stone sword": ["stone swords"],
        "iron pickaxe": ["iron pickaxes"], "iron sword": ["iron swords"],
    }
    states = {"health": ["health", "hit points", "hp"], "satiety": ["food level", "hunger meter", "satiety"],
              "hydration": ["water level", "thirst meter", "hydration"], "stamina": ["energy", "stamina", "energy level"],
              "goal": ["goal", "current objective"], "asleep": ["sleep status"]}
    state_q = {
        "health": ["what was {poss} health", "how many hit points did {S} have", "what was {poss} hp", "how much health {was} {S} on"],
        "satiety": ["what was {poss} food level", "how full {was} {S}", "what did {poss} hunger meter read", "what was {poss} satiety"],
        "hydration": ["what was {poss} water level", "how hydrated {was} {S}", "what did {poss} thirst meter show",
                      "what was {poss} drink level"],
        "stamina": ["what was {poss} energy", "how much energy did {S} have", "what was {poss} stamina",
                    "what did {poss} energy bar read"],
        "daylight": ["how bright was it", "what was the daylight level", "how much daylight was there"],
        "goal": ["what {was} {S} trying to do", "what was {poss} current goal", "what objective {was} {S} pursuing",
                 "what {was} {S} working on"],
        "asleep": ["{was} {S} asleep", "{was} {S} sleeping"],
    }
    slot_q = {
        "action": ["what did {S} do", "what action did {S} take", "which action did {S} choose", "what move did {S} make"],
        "location": ["where {was} {S}", "what area {was} {S} in", "which region {was} {S} in", "what part of the map {was} {S} in"],
        "position": ["what were {poss} coordinates", "at which grid cell {was} {S}", "what was {poss} x,y position",
                     "where exactly on the grid {was} {S}"],
        "inventory": ["what {was} {S} carrying", "what was in {poss} inventory", "what did {S} have on {obj}", "what was in {poss} bag"],
        "item": ["how many {P} did {S} have", "how many {P} {was} {S} carrying", "what was {poss} count of {P}",
                 "how many {P} were in {poss} inventory"],
        "facing": ["what {was} {S} facing", "what did {S} see in front of {obj}", "what was directly ahead of {obj}",
                   "what {was} {S} looking at"],
        "events": ["what happened", "which events took place", "what went on", "what events were recorded"],
    }
    return Lexicon(events=events, items=items, states=states, state_q=state_q, slot_q=slot_q,
                   subjects=subjects("Pip", "they"), nouns=nouns,
                   kind_verbs={"mine": ["mine", "quarry", "dig up"], "craft": ["craft", "make"], "build": ["build", "place"],
                               "strike": ["attack", "hit"], "enter": ["enter", "visit"], "unlock": ["unlock", "earn"]},
                   bools={"asleep": ("asleep", "awake")}, cond_items=["wood", "stone", "coal", "iron", "sapling"])


TEMPLATES: dict[str, list[str]] = {
    "f1": ["{Q} at step {N}?", "At step {N}, {Q}?", "{Q} on step #{N}?", "Step {N}: {Q}?", "{Q} at time step {N}?",
           "Back at step {N}, {Q}?"],
    "f2": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "I'm curious: {Q} {W}?"],
    "f2_step": ["When {D}?", "At which step {D}?", "At what step {D}?", "Which step was it {W}?",
                "What was the step number {W}?", "On which step {D}?"],
    "f3": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Quick check: {Q} {W}?"],
    "f3_step": ["When {D}?", "At which step {D}?", "Which step was it {W}?", "Give me the step number {W}.",
                "In which step {D}?"],
    "f4": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{Q} exactly {W}?"],
    "f4_step": ["When {D}?", "At which step {D}?", "What step {D}?", "On which step {D}?", "At what point (step number) {D}?"],
    "f5": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "{W} — {Q}?"],
    "f6": ["{Q} {W}?", "{W}, {Q}?", "{Q}, {W}?", "Thinking of {W}: {Q}?"],
    "f6_step": ["When {D}?", "At which step {D}?", "Which step was it {W}?", "On what step {D}?"],
    "f7": ["How many times did {S} {X} {WIN}?", "{WIN}, how many times did {S} {X}?", "How many times had {S} {XPP} {WIN}?",
           "Count how many times {S} {XP} {WIN}.", "What's the number of times {S} {XP} {WIN}?",
           "How often did {S} {X} {WIN}?"],
    "f7_list": ["What did {S} {V} {WIN}?", "Which things did {S} {V} {WIN}?", "List what {S} {VP} {WIN}.",
                "{WIN}, what did {S} {V}?", "Name everything {S} {VP} {WIN}."],
    "f8": ["Which came first: {A} or {B}?", "What happened earlier, {A} or {B}?", "Which happened first — {A} or {B}?",
           "{A} or {B}: which was earlier?", "Between {A} and {B}, which came first?"],
    "f9": ["How many steps passed between {A} and {B}?", "How many steps were there between {A} and {B}?",
           "How long after {AW} did {S} {BD}?", "What was the gap in steps between {A} and {B}?",
           "How many steps did it take to go from {A} to {B}?"],
    "f10": ["Did {S} ever {X} {WIN}?", "Had {S} {XPP} at all {WIN}?", "{WIN}, did {S} {X}?",
            "Was there any point {WIN} when {S} {XP}?", "Is it true that {S} {XP} {WIN}?", "Did {S} {X} even once {WIN}?",
            "{has} {S} ever {XPP} {WIN}?"],
}


def build(seed: int) -> dict[str, Any]:
    """One Crafter episode of seed ``seed`` and 40-80 questions about it, each answered by the reference evaluator.

    >>> data = build(7000)  # doctest: +SKIP
    >>> len(data["questions"]) >= 40  # doctest: +SKIP
    True
    """
    np.random.seed(seed)  # crafter draws nothing from it here, but keep any library use repeatable
    steps = rollout(seed)
    episode = f"crafter-{seed}"
    lex = lexicon()
    # Achievement unlocks mirror the actions that earn them: ask about them as a kind, and name a few.
    named_unlocks = {"collect wood", "place table", "wake up", "defeat zombie", "eat cow"}
    matches = [Match(kind, obj) for kind, obj in lex.events if kind != "unlock" or obj is None or obj in named_unlocks]
    builder = Builder(episode, steps, lex, TEMPLATES, random.Random(seed * 7 + 1), matches)
    return {"episodes": {episode: steps}, "questions": builder.build(per_family=6)}


if __name__ == "__main__":
    self_check(build, [7000, 7001])
