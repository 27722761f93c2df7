"""Development question suite on real Crafter rollouts.

A scripted survival agent (drink when thirsty, hunt cows when hungry, sleep when tired, fight
adjacent zombies, climb the tool tree: table, wood tools, stone tools, furnace, iron pickaxe; plant
saplings, place stones, wander between areas) plays ``crafter.Env(seed=seed)``. This module's own
adapter turns every env step into a ``graphmem.records.Step``: events from the differences of the
inventory, the achievement counters and the sleeping flag, the materials and tools as inventory,
health/food/drink/energy as state, position plus a coarse area ("area B3", 8x8 tiles each) as
location, and what the agent faces as a relation. A death before step 500 starts a new life in the
same episode (a ``respawn`` event); a later death ends the episode.

Development seeds: 100-199. Self-check: ``python -m benchmarks.suites.dev_crafter 100 101``.

>>> area_of((10, 17)), SUITE
('area B3', 'dev_crafter')
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

import crafter  # type: ignore[import-untyped]
import numpy as np
from crafter import constants, objects  # type: ignore[import-untyped]

from benchmarks.suites._common import (
    ItemWords,
    StateWords,
    Vocab,
    make_questions,
    selfcheck,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "dev_crafter"

DIRS: dict[str, tuple[int, int]] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
WALKABLE = {"grass", "sand", "path"}
VITALS = ("health", "food", "drink", "energy")
AREA_TILES = 8  # one area is 8x8 tiles: columns A-H, rows 1-8 on the 64x64 map


def _name(raw: str) -> str:
    return raw.replace("_", " ")


# --------------------------------------------------------------------------------------------------
# The scripted agent (reads the env's world and player directly, as a scripted bot would)
# --------------------------------------------------------------------------------------------------


class ScriptedAgent:
    """Chooses a Crafter action name from the world around the player."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mode = ""  # an errand that lasts several steps: "drink", "eat", "wander", "wood", ...
        self.mode_left = 0
        self.wander_to: tuple[int, int] | None = None

    # --- world queries ---------------------------------------------------------------------------

    @staticmethod
    def _free(world: Any, pos: tuple[int, int]) -> bool:
        material, obj = world[pos]
        return material in WALKABLE and obj is None

    def _bfs(
        self, env: Any, is_target: Callable[[tuple[int, int]], bool], limit: int = 1800
    ) -> tuple[tuple[int, int] | None, tuple[int, int]] | None:
        """(first move or None when already adjacent, direction from the last cell to the target)."""
        world = env._world
        start = (int(env._player.pos[0]), int(env._player.pos[1]))
        first: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
        queue = deque([start])
        dirs = list(DIRS.values())
        self.rng.shuffle(dirs)
        while queue and len(first) < limit:
            cell = queue.popleft()
            for d in dirs:
                nxt = (cell[0] + d[0], cell[1] + d[1])
                if is_target(nxt):
                    return first[cell], d
                if nxt not in first and self._free(world, nxt):
                    first[nxt] = d if cell == start else first[cell]
                    queue.append(nxt)
        return None

    def _approach(self, env: Any, is_target: Callable[[tuple[int, int]], bool], final: str = "do") -> str | None:
        found = self._bfs(env, is_target)
        if found is None:
            return None
        move, face = found
        if move is not None:
            return self._move(move)
        if tuple(env._player.facing) != face:
            return self._move(face)  # the target blocks the way, so moving toward it only turns
        return final

    @staticmethod
    def _move(d: tuple[int, int]) -> str:
        return "move_" + next(name for name, v in DIRS.items() if v == d)

    def _material(self, env: Any, names: set[str]) -> Callable[[tuple[int, int]], bool]:
        world = env._world
        return lambda pos: world[pos][0] in names

    def _creature(self, env: Any, cls: Any, ripe: bool = False) -> Callable[[tuple[int, int]], bool]:
        spots = {
            (int(o.pos[0]), int(o.pos[1]))
            for o in env._world.objects
            if isinstance(o, cls) and (not ripe or getattr(o, "ripe", False))
        }
        return lambda pos: pos in spots

    def _near(self, env: Any, material: str) -> bool:
        materials, _ = env._world.nearby(env._player.pos, 1)
        return material in materials

    def _seen(self, env: Any, material: str, radius: int = 9) -> bool:
        materials, _ = env._world.nearby(env._player.pos, radius)
        return material in materials

    def _has(self, env: Any, needs: dict[str, int]) -> bool:
        return all(env._player.inventory[k] >= v for k, v in needs.items())

    def _facing_cell(self, env: Any) -> tuple[str | None, Any]:
        p = env._player
        return env._world[(int(p.pos[0] + p.facing[0]), int(p.pos[1] + p.facing[1]))]

    def _random_move(self) -> str:
        return "move_" + self.rng.choice(list(DIRS))

    # --- errands ---------------------------------------------------------------------------------

    def _place(self, env: Any, name: str) -> str:
        material, obj = self._facing_cell(env)
        if obj is None and material in constants.place[name]["where"]:
            return "place_" + name
        return self._random_move()

    def _gather(self, env: Any, material: str) -> str | None:
        return self._approach(env, self._material(env, {material}))

    def _get(self, env: Any, item: str) -> str | None:
        """Fetch one unit of a raw material (or None when it cannot be fetched now)."""
        inv = env._player.inventory
        if item == "wood":
            return self._gather(env, "tree")
        if item in ("stone", "coal") and inv["wood_pickaxe"]:
            return self._gather(env, item)
        if item == "iron" and inv["stone_pickaxe"]:
            return self._gather(env, "iron")
        return None

    def _craft(self, env: Any, tool: str) -> str | None:
        """One step toward making ``tool``: fetch what is missing, reach a table/furnace, make it."""
        info = constants.make[tool]
        for item, amount in info["uses"].items():
            if env._player.inventory[item] < amount:
                return self._get(env, item)
        for util in info["nearby"]:
            if self._near(env, util):
                continue
            if self._seen(env, util):
                return self._approach(env, self._material(env, {util}), final="noop")
            cost = constants.place[util]["uses"]
            if self._has(env, cost):
                return self._place(env, util)
            for item, amount in cost.items():
                if env._player.inventory[item] < amount + sum(info["uses"].values()):
                    return self._get(env, item)
        return "make_" + tool

    def _errand(self, env: Any, goal: str) -> str | None:
        inv = env._player.inventory
        if goal in ("wood", "stone", "coal", "iron"):
            return self._get(env, goal)
        if goal == "sapling":
            material, obj = self._facing_cell(env)
            return "do" if material == "grass" and obj is None else self._random_move()
        if goal == "plant":
            return self._place(env, "plant") if inv["sapling"] else None
        if goal == "place stone":
            return self._place(env, "stone") if inv["stone"] else None
        if goal == "wander":
            return self._wander(env)
        if goal == "tools":
            return self._tools(env)
        if goal == "furnace":
            return self._place(env, "furnace") if self._has(env, constants.place["furnace"]["uses"]) else None
        return None

    def _wander(self, env: Any) -> str | None:
        p = env._player
        if self.wander_to is None or tuple(int(v) for v in p.pos) == self.wander_to:
            x = int(np.clip(p.pos[0] + self.rng.randint(-20, 20), 1, 62))
            y = int(np.clip(p.pos[1] + self.rng.randint(-20, 20), 1, 62))
            self.wander_to = (x, y)
        dx, dy = self.wander_to[0] - int(p.pos[0]), self.wander_to[1] - int(p.pos[1])
        options = []
        if dx:
            options.append((int(np.sign(dx)), 0))
        if dy:
            options.append((0, int(np.sign(dy))))
        d = self.rng.choice(options) if options else self.rng.choice(list(DIRS.values()))
        target = (int(p.pos[0] + d[0]), int(p.pos[1] + d[1]))
        if not self._free(env._world, target):
            if self.rng.random() < 0.3:
                self.wander_to = None
            return self._random_move()
        return self._move(d)

    # --- the policy --------------------------------------------------------------------------------

    def _tools(self, env: Any) -> str | None:
        """One step up the tool tree; None when nothing is missing or nothing can be done now."""
        inv = env._player.inventory
        for tool in ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword", "iron_pickaxe"):
            if inv[tool] == 0 and (tool != "iron_pickaxe" or inv["iron"] > 0):
                got = self._craft(env, tool)
                if got is not None:
                    return got
        return None

    def _flee(self, env: Any, threat: Any) -> str:
        p = env._player
        best = max(
            DIRS.values(),
            key=lambda d: (
                self._free(env._world, (int(p.pos[0] + d[0]), int(p.pos[1] + d[1]))),
                abs(p.pos[0] + d[0] - threat.pos[0]) + abs(p.pos[1] + d[1] - threat.pos[1]),
            ),
        )
        return self._move(best)

    def _new_errand(self, env: Any) -> str:
        inv = env._player.inventory
        options: list[tuple[str, int]] = [("tools", 6), ("wood", 2), ("sapling", 1), ("wander", 3)]
        if inv["sapling"]:
            options.append(("plant", 2))
        if inv["wood_pickaxe"]:
            options += [("stone", 2), ("coal", 1)]
        if inv["stone"]:
            options.append(("place stone", 1))
        if inv["stone_pickaxe"]:
            options.append(("iron", 1))
        if inv["stone"] >= constants.place["furnace"]["uses"]["stone"] and not self._seen(env, "furnace", 12):
            options.append(("furnace", 2))
        return self.rng.choices([o for o, _ in options], [w for _, w in options])[0]

    def act(self, env: Any) -> str:
        p = env._player
        inv = p.inventory
        if p.sleeping:
            return "sleep"
        zombies = sorted(
            (o for o in env._world.objects if isinstance(o, objects.Zombie) and p.distance(o) <= 8),
            key=lambda o: p.distance(o),
        )
        if zombies and p.distance(zombies[0]) <= 2:
            z = zombies[0]
            if p.distance(z) <= 1:
                d = (int(z.pos[0] - p.pos[0]), int(z.pos[1] - p.pos[1]))
                return "do" if tuple(p.facing) == d else self._move(d)
            if inv["health"] <= 3:
                return self._flee(env, z)
            got = self._approach(env, self._creature(env, objects.Zombie))
            if got is not None:
                return got
        if self.rng.random() < 0.05:
            return self._random_move()
        if inv["energy"] <= 2 and not zombies:
            return "sleep"
        if inv["drink"] <= 4 or (self.mode == "drink" and inv["drink"] < 9):
            self.mode = "drink"
            got = self._gather(env, "water")
            if got is not None:
                return got
        if inv["food"] <= 4 or (self.mode == "eat" and inv["food"] < 8):
            self.mode = "eat"
            got = self._approach(env, self._creature(env, objects.Cow)) or self._approach(
                env, self._creature(env, objects.Plant, ripe=True)
            )
            if got is not None:
                return got
        if self.mode in ("drink", "eat"):
            self.mode = ""
        front = (int(p.pos[0] + p.facing[0]), int(p.pos[1] + p.facing[1]))
        if self._creature(env, objects.Plant, ripe=True)(front):
            return "do"
        for _ in range(3):
            if self.mode_left > 0 and self.mode:
                self.mode_left -= 1
                got = self._errand(env, self.mode)
                if got is not None:
                    return got
            self.mode = self._new_errand(env)
            self.mode_left = self.rng.randint(10, 50)
        return self._random_move()


# --------------------------------------------------------------------------------------------------
# The adapter: env state before/after a step -> Step
# --------------------------------------------------------------------------------------------------

ACHIEVEMENT_EVENTS: dict[str, tuple[str, str]] = {
    "collect_wood": ("collect", "wood"),
    "collect_stone": ("collect", "stone"),
    "collect_coal": ("collect", "coal"),
    "collect_iron": ("collect", "iron"),
    "collect_diamond": ("collect", "diamond"),
    "collect_sapling": ("collect", "sapling"),
    "collect_drink": ("drink", "water"),
    "eat_cow": ("eat", "cow"),
    "eat_plant": ("eat", "plant"),
    "place_table": ("place", "table"),
    "place_stone": ("place", "stone"),
    "place_furnace": ("place", "furnace"),
    "place_plant": ("place", "plant"),
    "make_wood_pickaxe": ("make", "wood pickaxe"),
    "make_stone_pickaxe": ("make", "stone pickaxe"),
    "make_iron_pickaxe": ("make", "iron pickaxe"),
    "make_wood_sword": ("make", "wood sword"),
    "make_stone_sword": ("make", "stone sword"),
    "make_iron_sword": ("make", "iron sword"),
    "defeat_zombie": ("defeat", "zombie"),
    "defeat_skeleton": ("defeat", "skeleton"),
}


def area_of(pos: tuple[int, int]) -> str:
    """The coarse area name of a tile: ``area B3`` is columns 8-15, rows 16-23.

    >>> area_of((10, 17))
    'area B3'
    """
    return f"area {'ABCDEFGH'[pos[0] // AREA_TILES]}{pos[1] // AREA_TILES + 1}"


def _thing_at(world: Any, pos: tuple[int, int]) -> str:
    material, obj = world[pos]
    if obj is not None:
        return type(obj).__name__.lower()
    return material or "boundary"


class Snapshot:
    """What the adapter remembers of the env between two steps."""

    def __init__(self, env: Any) -> None:
        p = env._player
        self.inventory = dict(p.inventory)
        self.achievements = dict(p.achievements)
        self.unlocked = set(env._unlocked)
        self.sleeping = bool(p.sleeping)
        self.pos = (int(p.pos[0]), int(p.pos[1]))
        self.threats = self._threats(env)

    @staticmethod
    def _threats(env: Any) -> set[str]:
        p = env._player
        return {
            type(o).__name__.lower()
            for o in env._world.objects
            if isinstance(o, (objects.Zombie, objects.Arrow)) and p.distance(o) <= 1
        }


def to_step(t: int, action: str, before: Snapshot, env: Any, info: dict[str, Any], respawned: bool) -> Step:
    p = env._player
    world = env._world
    after = Snapshot(env)
    events: list[Event] = []
    if respawned:
        events.append(Event("respawn"))
    region = area_of(after.pos)
    if region != area_of(before.pos) or respawned:
        events.append(Event("visit", region))
    for name, (kind, obj) in ACHIEVEMENT_EVENTS.items():
        if info["achievements"][name] > before.achievements[name]:
            events.append(Event(kind, obj))
    if after.sleeping and not before.sleeping:
        events.append(Event("sleep"))
    if before.sleeping and not after.sleeping:
        events.append(Event("wake"))
    if info["inventory"]["health"] < before.inventory["health"]:
        cause = sorted(before.threats | after.threats)
        events.append(Event("damage", cause[0] if cause else ""))
    if info["inventory"]["health"] <= 0:
        events.append(Event("die"))
    for name in sorted(after.unlocked - before.unlocked):
        events.append(Event("achievement", _name(name)))
    inventory = {_name(k): v for k, v in info["inventory"].items() if k not in VITALS and v > 0}
    state = {k: int(info["inventory"][k]) for k in VITALS}
    front = (after.pos[0] + int(p.facing[0]), after.pos[1] + int(p.facing[1]))
    facing = _thing_at(world, front)
    around, _ = world.nearby(p.pos, 2)
    creatures = sorted({type(o).__name__.lower() for o in world.objects if o is not p and p.distance(o) <= 4})
    sights = sorted({m for m in around if m and m != "grass"} | set(creatures))
    underfoot = world[after.pos][0] or ""
    observation = f"Facing {facing}. Standing on {underfoot}. Nearby: {', '.join(sights) if sights else 'grass only'}."
    return Step(
        t=t,
        action="interact" if action == "do" else _name(action),
        events=tuple(events),
        relations=(Relation("agent", "facing", facing),),
        objects=tuple(creatures),
        inventory=tuple(sorted(inventory.items())),
        state=tuple(sorted(state.items())),
        location=Location(position=after.pos, region=region, underfoot=underfoot),
        observation=observation,
    )


class SeededEnv(crafter.Env):  # type: ignore[misc]
    """``crafter.Env`` whose creature despawning does not depend on memory addresses.

    Upstream picks the creature to despawn from a list built by iterating a set of objects, whose order
    follows ``id()``; the same seed then gives different worlds in different runs. This copy of
    ``_balance_object`` orders the candidates by position first, so a seed fixes the whole rollout.
    The image observation is still drawn: at night its noise draws from the world's random state, so
    skipping it would change the world's dynamics relative to an upstream run.
    """

    def _balance_object(
        self, chunk: Any, objs: Any, cls: Any, material: Any, span_dist: Any, despan_dist: Any,
        spawn_prob: Any, despawn_prob: Any, ctor: Any, target_fn: Any,
    ) -> None:
        xmin, xmax, ymin, ymax = chunk
        random = self._world.random
        creatures = sorted((obj for obj in objs if isinstance(obj, cls)), key=lambda o: (int(o.pos[0]), int(o.pos[1])))
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and random.uniform() < spawn_prob:
            xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
            ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
            xs, ys = xs[mask], ys[mask]
            i = random.randint(0, len(xs))
            pos = np.array((xs[i], ys[i]))
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and random.uniform() < despawn_prob:
            obj = creatures[random.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)


def rollout(seed: int) -> list[Step]:
    """One episode of the scripted agent on ``crafter.Env(seed=seed)``."""
    rng = random.Random(seed)
    length = rng.randint(700, 1400)
    env = SeededEnv(seed=seed)
    env.reset()
    agent = ScriptedAgent(rng)
    index = {name: i for i, name in enumerate(constants.actions)}
    steps: list[Step] = []
    respawned = False
    while len(steps) < length:
        before = Snapshot(env)
        action = agent.act(env)
        _, _, done, info = env.step(index[action])
        steps.append(to_step(len(steps), action, before, env, info, respawned))
        respawned = False
        if info["inventory"]["health"] <= 0:
            if len(steps) >= 500:
                break
            env.reset()
            agent = ScriptedAgent(rng)
            respawned = True
        elif done:
            break
    return steps


# --------------------------------------------------------------------------------------------------
# The suite's words
# --------------------------------------------------------------------------------------------------

_EVENT_WORDS: dict[tuple[str, str | None], list[str]] = {
    ("collect", "wood"): ["collect wood", "chop a tree", "gather wood", "get wood", "harvest wood", "cut down a tree"],
    ("collect", "stone"): ["collect stone", "mine stone", "quarry stone", "dig up stone", "pick up a stone"],
    ("collect", "coal"): ["collect coal", "mine coal", "dig up coal"],
    ("collect", "iron"): ["collect iron", "mine iron", "dig up iron ore"],
    ("collect", "diamond"): ["collect a diamond", "mine a diamond", "find a diamond"],
    ("collect", "sapling"): ["collect a sapling", "pick up a sapling", "find a sapling", "get a sapling"],
    ("drink", "water"): ["drink water", "take a drink", "drink from the water", "sip some water"],
    ("eat", "cow"): ["eat a cow", "eat beef", "have beef", "kill and eat a cow"],
    ("eat", "plant"): ["eat a plant", "eat a ripe plant", "harvest a ripe plant to eat"],
    ("place", "table"): ["place a table", "put down a crafting table", "build a table", "set up a workbench"],
    ("place", "stone"): ["place a stone", "put down a stone block", "lay a stone"],
    ("place", "furnace"): ["place a furnace", "build a furnace", "set up a furnace"],
    ("place", "plant"): ["plant a sapling", "put a sapling in the ground", "sow a sapling"],
    ("defeat", "zombie"): ["defeat a zombie", "kill a zombie", "slay a zombie", "beat a zombie"],
    ("defeat", "skeleton"): ["defeat a skeleton", "kill a skeleton"],
    ("sleep", ""): ["go to sleep", "fall asleep", "go to bed", "doze off"],
    ("wake", ""): ["wake up", "get up after sleeping"],
    ("damage", "zombie"): ["get hit by a zombie", "take damage from a zombie", "get hurt by a zombie"],
    ("damage", "arrow"): ["get hit by an arrow", "take an arrow hit"],
    ("die", ""): ["die", "get killed", "lose a life"],
    ("respawn", ""): ["respawn", "come back to life", "start a new life"],
    ("collect", None): ["collect something", "pick something up", "gather anything"],
    ("place", None): ["place something", "put something down"],
    ("make", None): ["craft something", "make a tool"],
    ("eat", None): ["eat something", "eat anything"],
    ("visit", None): ["cross into another area", "move into a different area"],
    ("achievement", None): ["unlock an achievement", "earn an achievement"],
    ("damage", None): ["take damage", "get hurt", "lose health"],
    ("defeat", None): ["defeat a monster", "kill a monster"],
}

_WHAT_VERBS: dict[str, list[str]] = {
    "collect": ["collect", "gather", "pick up"],
    "place": ["place", "put down"],
    "make": ["make", "craft"],
    "eat": ["eat"],
    "visit": ["visit", "enter", "cross into"],
    "achievement": ["unlock"],
    "defeat": ["defeat", "kill"],
}


def event_phrases(kind: str, obj: str | None) -> list[str]:
    """Base verb phrases for one Crafter event (``obj`` None: any object of the kind)."""
    if (kind, obj) in _EVENT_WORDS:
        return _EVENT_WORDS[(kind, obj)]
    if obj is None:
        return []
    if kind == "make":
        a = "an" if obj[0] in "aeiou" else "a"
        wooden = obj.replace("wood ", "wooden ")
        return [f"make {a} {obj}", f"craft {a} {obj}", f"craft {a} {wooden}", f"build {a} {obj}"]
    if kind == "visit":
        return [f"enter {obj}", f"cross into {obj}", f"arrive in {obj}", f"walk into {obj}"]
    if kind == "achievement":
        return [f"unlock the '{obj}' achievement", f"earn the '{obj}' achievement", f"get the '{obj}' achievement"]
    return []


_EVENT_NOUNS: dict[tuple[str, str], list[str]] = {
    ("collect", "wood"): ["wood collection", "tree chop"],
    ("collect", "stone"): ["stone pickup", "bit of quarrying"],
    ("collect", "sapling"): ["sapling pickup", "sapling find"],
    ("drink", "water"): ["drink of water", "water break"],
    ("eat", "cow"): ["beef meal", "cow meal"],
    ("place", "table"): ["table placement"],
    ("place", "stone"): ["stone placement"],
    ("sleep", ""): ["nap", "sleep"],
    ("damage", "zombie"): ["zombie hit", "zombie attack"],
    ("defeat", "zombie"): ["zombie kill"],
    ("die", ""): ["death"],
}


def event_nouns(kind: str, obj: str | None) -> list[str]:
    """Nouns for one Crafter event ("wood collection", "arrival in area B3")."""
    if kind == "visit" and obj:
        return [f"arrival in {obj}", f"entry into {obj}"]
    return _EVENT_NOUNS.get((kind, obj or ""), []) if obj is not None else []


def vocab() -> Vocab:
    """The Crafter suite's words."""
    mass = {"wood", "stone", "coal", "iron"}
    items = {
        _name(k): ItemWords((_name(k),) + (("timber",) if k == "wood" else ()), mass=k in mass)
        for k in constants.items
        if k not in VITALS
    }
    states = {
        "health": StateWords(("{poss} health", "{poss} health level", "{poss} HP"), "int"),
        "food": StateWords(("{poss} food", "{poss} food level", "{poss} food bar"), "int"),
        "drink": StateWords(("{poss} drink level", "{poss} water level", "{poss} thirst meter"), "int"),
        "energy": StateWords(("{poss} energy", "{poss} energy level", "{poss} stamina"), "int"),
    }
    absent = tuple(ACHIEVEMENT_EVENTS.values()) + (("damage", "arrow"), ("die", ""), ("respawn", ""))
    return Vocab(
        name="Ada",
        region_nouns=("area", "map area", "region"),
        event_phrases=event_phrases,
        event_nouns=event_nouns,
        what_verbs=lambda kind: _WHAT_VERBS.get(kind, []),
        items=items,
        states=states,
        slots=("action", "step", "location", "position", "item", "inventory", "state", "facing", "events"),
        absent_events=absent,
        kind_weights={"achievement": 0.4, "visit": 0.8, "respawn": 0.5, "die": 0.5},
        place_kinds=("visit", "respawn"),
        list_nouns={"visit": ("areas", "places"), "achievement": ("achievements",)},
    )


def build(seed: int) -> dict[str, Any]:
    """One Crafter episode of the scripted agent and 60 checked questions about it.

    Example (a rollout takes a few seconds)::

        data = build(100)
        data["questions"][0]["episode"]  # 'crafter-100'
        data["episodes"]["crafter-100"][0].action  # e.g. 'move left'
    """
    episode = f"crafter-{seed}"
    steps = rollout(seed)
    questions = make_questions(episode, steps, vocab(), seed)
    return {"episodes": {episode: steps}, "questions": questions}


if __name__ == "__main__":
    import sys

    selfcheck(build, [int(a) for a in sys.argv[1:]] or [100, 101])
