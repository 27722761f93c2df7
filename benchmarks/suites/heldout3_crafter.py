"""Crafter achievement-hunter trajectories and questions about them.

What it simulates
    The real Crafter engine (``crafter.Env``, 64x64 world) seeded with the suite seed. Crafter's
    ``Env._balance_object`` picks a creature to despawn from a ``set`` whose iteration order follows
    memory addresses; :class:`OrderedCrafterEnv` hands it the chunk's creatures sorted by position, so a
    seed gives the same rollout in every process; frames are not drawn (the adapter reads the world). One episode per seed (``crafter-run-{seed}``) of
    500-1200 steps; when the player dies the environment is reset (a new life on a new map) and the step
    counter keeps running.

How the agent behaves
    A scripted "achievement hunter" that reads the world map and plans with Dijkstra (walking over
    grass, sand and path, chopping trees and mining through rock it has the tool for, never onto lava).
    It keeps itself alive first (drink at water when thirsty, hunt cows or eat a ripe plant when hungry,
    fight zombies and skeletons that come close, sleep when tired) and otherwise works down Crafter's
    achievement list: sapling, plant, wood, table, wood pickaxe and sword, stone, place stone, stone
    pickaxe and sword, coal, furnace, iron, iron pickaxe and sword, diamond. Between goals, and when
    nothing is in reach, it wanders for a few steps in a seeded random direction.

Adapter (one Step per action)
    action = Crafter's action name ("move_left", "do", "place_table", ...). Events come from the info
    dict and the player: per-achievement counter increases give ``collect <material>``,
    ``drink water``, ``eat cow`` / ``eat plant``, ``defeat zombie`` / ``defeat skeleton``,
    ``craft <tool>``, ``place <table|furnace|stone|plant>``; the first unlock of an achievement in a life
    gives ``unlock achievement <name>``; inventory decreases give ``spend <item>``; a health decrease
    gives ``hurt``; a "do" aimed at a creature gives ``hit <creature>``; the sleeping flag gives
    ``fall asleep`` / ``wake up``; ``die`` marks the death step and ``respawn`` the first step of the
    next life. Every event has count 1. Inventory holds items (``wood pickaxe`` spelled with spaces);
    state holds health, food, drink, energy, sleeping, daylight (2 decimals), life (1, 2, ...) and
    achievements (achievements unlocked in the current life). Location: position (x, y), a terrain
    region derived from the 7x7 neighbourhood (grassland, forest, lakeside, foothills, beach, cave),
    underfoot material. ``Relation("agent", "facing", X)`` names the creature or material ahead.

How answers are computed
    A reference evaluator scans the Step records only: occurrences are the steps holding a matching
    event, counts count matching events, windows follow the suite conventions ("before N" excludes N,
    "by N" includes N, "between A and B" includes both, "in the first N steps" is t <= N-1), slots read
    the values stored after the step's action.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import crafter
from crafter import constants as cc
from crafter import objects as co

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout3_crafter"
SEEDS = range(7600, 7700)
FAMILIES = (
    "1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
    "6_next_previous", "7_count", "8_order", "9_distance", "10_existence",
)
PER_FAMILY = 6

Pos = tuple[int, int]
DIRS: tuple[Pos, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
MOVE = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
WALK = ("grass", "sand", "path")
CREATURES = {co.Zombie: "zombie", co.Skeleton: "skeleton", co.Cow: "cow", co.Plant: "plant", co.Arrow: "arrow"}
ITEMS = [name for name in cc.items if name not in ("health", "food", "drink", "energy")]
VITALS = ("health", "food", "drink", "energy")


def episode_id(seed: int) -> str:
    return f"crafter-run-{seed}"


# ------------------------------------------------------------------------------------------------
# Environment
# ------------------------------------------------------------------------------------------------


class OrderedCrafterEnv(crafter.Env):
    """crafter.Env whose creature balancing sees each chunk's objects in position order, not set order."""

    def _balance_object(self, chunk, objs, *args):  # type: ignore[override]
        ordered = sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]), type(o).__name__))
        return super()._balance_object(chunk, ordered, *args)

    def _obs(self):  # the suite reads the world, not pixels: skip drawing the frame
        return None


def _add(p: Pos, d: Pos) -> Pos:
    return (p[0] + d[0], p[1] + d[1])


class Hunter:
    """The scripted achievement hunter: survival first, then the achievement ladder, wandering between."""

    def __init__(self, env: OrderedCrafterEnv, rng: random.Random) -> None:
        self.env = env
        self.rng = rng
        self.wander_left = 0
        self.wander_dir: Pos = (1, 0)
        self.banned: dict[str, int] = {}
        self.task = ""
        self.task_steps = 0
        self.drinking = False
        self.eating = False
        self.t = 0
        self.hideout: tuple[Pos, Pos, Pos, Pos] | None = None

    # world access -----------------------------------------------------------------------------
    @property
    def world(self):
        return self.env._world

    @property
    def player(self):
        return self.env._player

    def snapshot(self) -> None:
        """Copy the map once per decision: planning reads plain lists, not the numpy-backed world."""
        names = self.world._mat_names
        self.ids = self.world._mat_map
        self.grid = [[names[v] for v in row] for row in self.ids.tolist()]
        self.objat = {(int(o.pos[0]), int(o.pos[1])): o for o in self.world.objects}
        self.size = len(self.grid)

    def cell(self, p: Pos):
        x, y = p
        if 0 <= x < self.size and 0 <= y < self.size:
            return self.grid[x][y], self.objat.get(p)
        return None, None

    def exists(self, names: Sequence[str], radius: int) -> bool:
        """Is any tile of these materials within the square of this radius around the agent?"""
        x, y = self.pos()
        box = self.ids[max(0, x - radius): x + radius + 1, max(0, y - radius): y + radius + 1]
        ids = self.world._mat_ids
        return any(n in ids and bool((box == ids[n]).any()) for n in names)

    def creature_near(self, cls: type, radius: int, ripe: bool = False) -> bool:
        x, y = self.pos()
        return any(isinstance(o, cls) and (not ripe or o.ripe) and abs(px - x) <= radius and abs(py - y) <= radius
                   for (px, py), o in self.objat.items())

    def pos(self) -> Pos:
        return (int(self.player.pos[0]), int(self.player.pos[1]))

    def facing(self) -> Pos:
        f = self.player.facing
        return (int(f[0]), int(f[1]))

    def can_mine(self, material: str) -> bool:
        inv = self.player.inventory
        if material == "tree":
            return True
        if material in ("stone", "coal"):
            return inv["wood_pickaxe"] > 0
        if material == "iron":
            return inv["stone_pickaxe"] > 0
        if material == "diamond":
            return inv["iron_pickaxe"] > 0
        return False

    def free(self, p: Pos, materials: Sequence[str] = WALK) -> bool:
        material, obj = self.cell(p)
        return material in materials and obj is None

    # planning ---------------------------------------------------------------------------------
    def search(self, goal: Callable[[Pos, Pos], Pos | None], radius: int = 18,
               mine: bool = True) -> tuple[list[Pos], Pos] | None:
        """Cheapest path to a tile where ``goal(tile, arrival direction)`` names a target tile."""
        start = self.pos()
        hit = goal(start, self.facing())
        if hit is not None:
            return [], hit
        dist = {start: 0}
        parent: dict[Pos, Pos] = {}
        heap: list[tuple[int, int, Pos]] = [(0, 0, start)]
        order = 0
        while heap:
            cost, _, p = heapq.heappop(heap)
            if cost > dist[p]:
                continue
            if p != start:
                prev = parent[p]
                hit = goal(p, (p[0] - prev[0], p[1] - prev[1]))
                if hit is not None:
                    path = [p]
                    while path[-1] in parent and parent[path[-1]] != start:
                        path.append(parent[path[-1]])
                    return path[::-1], hit
            for d in DIRS:
                q = _add(p, d)
                if abs(q[0] - start[0]) > radius or abs(q[1] - start[1]) > radius:
                    continue
                material, obj = self.cell(q)
                if material is None or obj is not None:
                    continue
                if material in WALK:
                    step = 1
                elif mine and self.can_mine(material):
                    step = 3
                else:
                    continue
                nc = cost + step
                if nc < dist.get(q, 1 << 30):
                    dist[q] = nc
                    parent[q] = p
                    order += 1
                    heapq.heappush(heap, (nc, order, q))
        return None

    def follow(self, plan: tuple[list[Pos], Pos], act: str, face_target: bool) -> str:
        path, target = plan
        here = self.pos()
        if path:
            nxt = path[0]
            d = (nxt[0] - here[0], nxt[1] - here[1])
            material, obj = self.cell(nxt)
            if obj is None and material in WALK:
                return MOVE[d]
            if self.facing() == d and (obj is not None or self.can_mine(material)):
                return "do"
            return MOVE[d]
        if face_target:
            d = (target[0] - here[0], target[1] - here[1])
            if self.facing() != d:
                return MOVE[d]
        return act

    # goal predicates --------------------------------------------------------------------------
    def next_to(self, test: Callable[[Pos], bool]) -> Callable[[Pos, Pos], Pos | None]:
        def goal(p: Pos, _d: Pos) -> Pos | None:
            for d in DIRS:
                q = _add(p, d)
                if test(q):
                    return q
            return None
        return goal

    def material_is(self, *names: str) -> Callable[[Pos], bool]:
        return lambda q: self.cell(q)[0] in names

    def creature_is(self, cls: type, ripe: bool = False) -> Callable[[Pos], bool]:
        def test(q: Pos) -> bool:
            obj = self.cell(q)[1]
            return isinstance(obj, cls) and (not ripe or obj.ripe)
        return test

    def facing_free(self, materials: Sequence[str], near: Sequence[str] = ()) -> Callable[[Pos, Pos], Pos | None]:
        def goal(p: Pos, d: Pos) -> Pos | None:
            q = _add(p, d)
            if not self.free(q, materials):
                return None
            for station in near:
                if not self.station_near(p, station, exclude=q):
                    return None
            return q
        return goal

    def station_near(self, p: Pos, station: str, exclude: Pos | None = None) -> bool:
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                q = (p[0] + dx, p[1] + dy)
                if q != exclude and self.cell(q)[0] == station:
                    return True
        return False

    def stations(self, *names: str, radius: int = 16) -> Callable[[Pos, Pos], Pos | None] | None:
        """Goal: a tile with every named station in its 3x3 neighbourhood (None if none can exist)."""
        x0, y0 = self.pos()
        zones: list[set[Pos]] = []
        for n in names:
            zone: set[Pos] = set()
            for x in range(max(0, x0 - radius), min(self.size, x0 + radius + 1)):
                col = self.grid[x]
                for y in range(max(0, y0 - radius), min(self.size, y0 + radius + 1)):
                    if col[y] == n:
                        zone.update((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
            zones.append(zone)
        ok = set.intersection(*zones) if zones else set()
        if not ok:
            return None
        return lambda p, _d: p if p in ok else None

    # behaviour --------------------------------------------------------------------------------
    def wander(self) -> str:
        here = self.pos()
        for _ in range(6):
            if self.wander_left <= 0 or self.rng.random() < 0.15:
                self.wander_dir = self.rng.choice(DIRS)
                self.wander_left = self.rng.randint(3, 9)
            q = _add(here, self.wander_dir)
            material, obj = self.cell(q)
            if material in WALK and obj is None:
                self.wander_left -= 1
                return MOVE[self.wander_dir]
            if material == "tree" and self.rng.random() < 0.5:
                return "do" if self.facing() == self.wander_dir else MOVE[self.wander_dir]
            self.wander_left = 0
        return "noop"

    def blocked(self, q: Pos) -> bool:
        return self.cell(q)[0] not in WALK

    def sheltered(self) -> bool:
        return all(self.blocked(_add(self.pos(), d)) for d in DIRS)

    def find_hideout(self, radius: int = 10) -> tuple[Pos, Pos, Pos, Pos] | None:
        """A dead-end pocket P1-P2 entered from P0 (P2 = P1 + d): walking to P2, stepping back to P1 leaves
        the agent facing P0, where one stone seals the pocket."""
        x0, y0 = self.pos()
        best = None
        for x in range(x0 - radius, x0 + radius + 1):
            for y in range(y0 - radius, y0 + radius + 1):
                p1 = (x, y)
                if self.cell(p1)[0] not in WALK:
                    continue
                for d in DIRS:
                    p0, p2 = (x - d[0], y - d[1]), _add(p1, d)
                    side = (d[1], d[0])
                    if not (self.free(p0) and self.cell(p2)[0] in WALK and self.cell(p2)[1] is None):
                        continue
                    walls = (_add(p1, side), (x - side[0], y - side[1]), _add(p2, d), _add(p2, side),
                             (p2[0] - side[0], p2[1] - side[1]))
                    if all(self.blocked(w) for w in walls):
                        cost = abs(x - x0) + abs(y - y0)
                        if best is None or cost < best[0]:
                            best = (cost, (p0, p1, p2, d))
        return None if best is None else best[1]

    def shelter(self) -> str | None:
        here = self.pos()
        if self.hideout is None or self.hideout[2] != here and self.hideout[1] != here and self.rng.random() < 0.05:
            self.hideout = self.find_hideout()
        if self.hideout is None:
            return None
        p0, p1, p2, d = self.hideout
        if here == p1 and self.facing() == (-d[0], -d[1]):
            return "place_stone" if self.free(p0, ("grass", "sand", "path", "water", "lava")) else None
        if here == p2:
            return MOVE[(-d[0], -d[1])]
        plan = self.search(lambda p, _d: p if p == p2 else None, 14, mine=False)
        if plan is None:
            self.hideout = None
            return None
        return self.follow(plan, "noop", False)

    def attempt(self, name: str, goal, act: str, face_target: bool, radius: int = 18) -> str | None:
        if goal is None or self.banned.get(name, -1) > self.t:
            return None
        plan = self.search(goal, radius)
        if plan is None:
            return None
        if name != self.task:
            self.task, self.task_steps = name, 0
        self.task_steps += 1
        if self.task_steps > 90:  # stuck on this goal: give it up for a while
            self.banned[name] = self.t + 150
            self.task_steps = 0
            self.wander_left = self.rng.randint(6, 12)
            return None
        return self.follow(plan, act, face_target)

    def act(self, t: int) -> str:
        self.t = t
        self.snapshot()
        p, inv, ach = self.player, self.player.inventory, self.player.achievements
        if p.sleeping:
            return "sleep"
        # threats
        for cls, name, reach in ((co.Zombie, "zombie", 4), (co.Skeleton, "skeleton", 3)):
            near = [o for o in self.world.objects if isinstance(o, cls) and p.distance(o) <= reach]
            if near:
                a = self.attempt("fight " + name, self.next_to(self.creature_is(cls)), "do", True, radius=reach + 1)
                if a:
                    return a
        # needs
        if inv["drink"] <= 4:
            self.drinking = True
        if self.drinking:
            if inv["drink"] >= 9:
                self.drinking = False
            elif self.exists(("water",), 24):
                a = self.attempt("drink", self.next_to(self.material_is("water")), "do", True, radius=24)
                if a:
                    return a
        if inv["food"] <= 4:
            self.eating = True
        if self.eating:
            if inv["food"] >= 8:
                self.eating = False
            else:
                a = None
                if self.creature_near(co.Plant, 18, ripe=True):
                    a = self.attempt("eat plant", self.next_to(self.creature_is(co.Plant, ripe=True)), "do", True)
                if not a and self.creature_near(co.Cow, 24):
                    a = self.attempt("hunt", self.next_to(self.creature_is(co.Cow)), "do", True, radius=24)
                if a:
                    return a
        tired = inv["energy"] <= 1 or (inv["energy"] <= 3 and self.world.daylight < 0.3)
        if tired and (inv["energy"] == 0 or not self.creature_near(co.Zombie, 9)):
            if self.world.daylight < 0.5 and inv["stone"] >= 1 and inv["wood_pickaxe"] and not self.sheltered():
                a = self.shelter()
                if a:
                    return a
            return "sleep"
        self.hideout = None
        if self.wander_left > 0 and self.rng.random() < 0.85:
            return self.wander()
        if self.rng.random() < 0.04:
            self.wander_left = self.rng.randint(3, 10)
            return self.wander()
        a = self.ladder(inv, ach)
        return a or self.wander()

    def ladder(self, inv: dict, ach: dict) -> str | None:
        table_cost = cc.place["table"]["uses"]["wood"]
        furnace_cost = cc.place["furnace"]["uses"]["stone"]
        if self.creature_near(co.Plant, 10, ripe=True):
            ripe = self.attempt("eat plant", self.next_to(self.creature_is(co.Plant, ripe=True)), "do", True, radius=10)
            if ripe:
                return ripe
        if inv["food"] <= 6 and self.rng.random() < 0.5 and self.creature_near(co.Cow, 8):
            a = self.attempt("hunt", self.next_to(self.creature_is(co.Cow)), "do", True, radius=8)
            if a:
                return a
        if inv["drink"] <= 6 and self.rng.random() < 0.5 and self.exists(("water",), 8):
            a = self.attempt("drink", self.next_to(self.material_is("water")), "do", True, radius=8)
            if a:
                return a
        wants: list[tuple[str, Callable[[], str | None]]] = []
        if inv["sapling"] == 0 and ach["place_plant"] == 0:
            wants.append(("sapling", lambda: self.attempt("sapling", self.facing_free(("grass",)), "do", False, 6)))
        if inv["sapling"] > 0 and ach["place_plant"] == 0:
            wants.append(("plant", lambda: self.attempt("plant", self.facing_free(("grass",)), "place_plant", False, 6)))

        def make(tool: str, near: tuple[str, ...]) -> Callable[[], str | None]:
            return lambda: self.attempt("make " + tool, self.stations(*near), "make_" + tool, False, 14)

        def gather(material: str, item: str) -> Callable[[], str | None]:
            def go() -> str | None:
                if not self.exists((material,), 20):
                    return None
                return self.attempt("collect " + item, self.next_to(self.material_is(material)), "do", True, 20)
            return go

        near_table = self.stations("table", radius=16)
        has_table = near_table is not None and self.search(near_table, 14) is not None
        if not has_table:
            if inv["wood"] >= table_cost + 1:
                wants.append(("table", lambda: self.attempt("table", self.facing_free(WALK), "place_table", False, 6)))
            else:
                wants.append(("wood", gather("tree", "wood")))
        for tool, need in (("wood_pickaxe", {"wood": 1}), ("wood_sword", {"wood": 1}),
                           ("stone_pickaxe", {"wood": 1, "stone": 1}), ("stone_sword", {"wood": 1, "stone": 1})):
            if inv[tool] == 0:
                if all(inv[k] >= v for k, v in need.items()):
                    if has_table:
                        wants.append((tool, make(tool, ("table",))))
                elif inv["wood"] < need["wood"]:
                    wants.append(("wood", gather("tree", "wood")))
                elif inv["wood_pickaxe"]:
                    wants.append(("stone", gather("stone", "stone")))
        if inv["stone"] > 0 and ach["place_stone"] == 0:
            wants.append(("place stone", lambda: self.attempt(
                "place stone", self.facing_free(("grass", "sand", "path", "water", "lava")), "place_stone", False, 6)))
        if inv["stone_pickaxe"]:
            near_both = self.stations("table", "furnace", radius=16)
            has_furnace = near_both is not None and self.search(near_both, 14) is not None
            if not has_furnace:
                if inv["stone"] >= furnace_cost and has_table:
                    wants.append(("furnace", lambda: self.attempt(
                        "furnace", self.facing_free(WALK, near=("table",)), "place_furnace", False, 14)))
                elif inv["stone"] < furnace_cost:
                    wants.append(("stone", gather("stone", "stone")))
            for tool in ("iron_pickaxe", "iron_sword"):
                if inv[tool] == 0:
                    if inv["wood"] >= 1 and inv["coal"] >= 1 and inv["iron"] >= 1:
                        if has_furnace:
                            wants.append((tool, make(tool, ("table", "furnace"))))
                    else:
                        if inv["wood"] < 1:
                            wants.append(("wood", gather("tree", "wood")))
                        if inv["coal"] < 1:
                            wants.append(("coal", gather("coal", "coal")))
                        if inv["iron"] < 1:
                            wants.append(("iron", gather("iron", "iron")))
            if inv["iron_pickaxe"] and inv["diamond"] < 2:
                wants.append(("diamond", gather("diamond", "diamond")))
        # leisure once the ladder is spent or blocked
        extras = [("wood", gather("tree", "wood"))]
        if inv["wood_pickaxe"]:
            extras += [("stone", gather("stone", "stone")), ("coal", gather("coal", "coal"))]
        if inv["stone_pickaxe"]:
            extras.append(("iron", gather("iron", "iron")))
        extras.append(("sapling", lambda: self.attempt("sapling", self.facing_free(("grass",)), "do", False, 4)))
        if inv["sapling"]:
            extras.append(("plant", lambda: self.attempt("plant", self.facing_free(("grass",)), "place_plant", False, 4)))
        self.rng.shuffle(extras)
        for _name, fn in wants + extras:
            a = fn()
            if a:
                return a
        return None


# ------------------------------------------------------------------------------------------------
# Rollout and adapter
# ------------------------------------------------------------------------------------------------


def _name(item: str) -> str:
    return item.replace("_", " ")


def _region(world, p: Pos) -> tuple[str, str]:
    under = world[p][0] or "void"
    counts: dict[str, int] = {}
    for dx in range(-3, 4):
        for dy in range(-3, 4):
            m = world[(p[0] + dx, p[1] + dy)][0]
            if m is not None:
                counts[m] = counts.get(m, 0) + 1
    rock = sum(counts.get(m, 0) for m in ("stone", "coal", "iron", "diamond", "lava", "path"))
    if under == "path":
        return "cave", under
    if under == "sand":
        return "beach", under
    if under == "lava":
        return "lava field", under
    if counts.get("tree", 0) >= 8:
        return "forest", under
    if counts.get("water", 0) >= 8:
        return "lakeside", under
    if rock >= 10:
        return "foothills", under
    return "grassland", under


def _ahead(world, player) -> str | None:
    target = (int(player.pos[0] + player.facing[0]), int(player.pos[1] + player.facing[1]))
    material, obj = world[target]
    if obj is not None:
        return CREATURES.get(type(obj), "creature")
    return material


def _visible(world, p: Pos) -> tuple[str, ...]:
    order = ("cow", "zombie", "skeleton", "arrow", "plant", "tree", "water", "stone", "coal", "iron",
             "diamond", "lava", "table", "furnace", "sand", "path")
    seen: set[str] = set()
    for dx in range(-4, 5):
        for dy in range(-3, 4):
            material, obj = world[(p[0] + dx, p[1] + dy)]
            if material is not None:
                seen.add(material)
            if obj is not None and (dx, dy) != (0, 0):
                seen.add(CREATURES.get(type(obj), "creature"))
    return tuple(x for x in order if x in seen)


def rollout(seed: int) -> list[Step]:
    rng = random.Random(seed * 1009 + 17)
    length = rng.randint(500, 1200)
    env = OrderedCrafterEnv(seed=seed, length=100000)
    env.reset()
    agent = Hunter(env, random.Random(seed * 31 + 5))
    life = 1
    respawned = False
    steps: list[Step] = []
    for t in range(length):
        player, world = env._player, env._world
        before_inv = dict(player.inventory)
        before_ach = dict(player.achievements)
        was_sleeping = bool(player.sleeping)
        target_obj = world[(int(player.pos[0] + player.facing[0]), int(player.pos[1] + player.facing[1]))][1]
        action = agent.act(t)
        _obs, _reward, done, info = env.step(cc.actions.index(action))
        inv, ach = info["inventory"], info["achievements"]
        events: list[Event] = []
        if respawned:
            events.append(Event("respawn"))
            respawned = False
        if action == "do" and isinstance(target_obj, (co.Cow, co.Zombie, co.Skeleton)):
            events.append(Event("hit", CREATURES[type(target_obj)]))
        if was_sleeping and not player.sleeping and not done:
            events.append(Event("wake up"))
        if not was_sleeping and player.sleeping:
            events.append(Event("fall asleep"))
        for name in cc.achievements:
            if ach[name] <= before_ach[name] or name == "wake_up":
                continue
            verb, _, what = name.partition("_")
            if name == "collect_drink":
                events.append(Event("drink", "water"))
            elif verb == "collect":
                events.append(Event("collect", _name(what)))
            elif verb == "make":
                events.append(Event("craft", _name(what)))
            else:  # place, eat, defeat
                events.append(Event(verb, _name(what)))
        for name in cc.achievements:
            if ach[name] > 0 and before_ach[name] == 0:
                events.append(Event("unlock achievement", _name(name)))
        for item in ITEMS:
            if inv[item] < before_inv[item]:
                events.append(Event("spend", _name(item)))
        if inv["health"] < before_inv["health"]:
            events.append(Event("hurt"))
        if done:
            events.append(Event("die"))
        pos = (int(info["player_pos"][0]), int(info["player_pos"][1]))
        region, under = _region(world, pos)
        ahead = _ahead(world, player)
        unlocked = sum(1 for v in ach.values() if v > 0)
        state = {"health": int(inv["health"]), "food": int(inv["food"]), "drink": int(inv["drink"]),
                 "energy": int(inv["energy"]), "sleeping": bool(player.sleeping),
                 "daylight": round(float(world.daylight), 2), "life": life, "achievements": unlocked}
        inventory = {_name(k): int(inv[k]) for k in ITEMS if inv[k] > 0}
        texts = [e.kind + (" " + e.obj if e.obj else "") for e in events]
        summary = f"{action}: " + ("; ".join(texts) if texts else "nothing notable")
        seen = _visible(world, pos)
        observation = (
            f"Life {life}, {region} at ({pos[0]}, {pos[1]}) on {under}"
            + (f", facing {ahead}" if ahead else "")
            + f". Health {state['health']}, food {state['food']}, drink {state['drink']}, energy {state['energy']}"
            + (", asleep" if player.sleeping else "") + ". "
            + ("In view: " + ", ".join(seen) + "." if seen else "")
        )[:390]
        steps.append(Step(
            t=t, action=action, summary=summary, objects=seen, events=tuple(events),
            relations=(Relation("agent", "facing", ahead),) if ahead else (),
            inventory=inventory, state=state, location=Location(position=pos, region=region, underfoot=under),
            observation=observation,
        ))
        if done:
            env.reset()
            life += 1
            respawned = True
            agent.drinking = agent.eating = False
            agent.banned.clear()
    return steps


# ------------------------------------------------------------------------------------------------
# Lexicon
# ------------------------------------------------------------------------------------------------

IRREGULAR = {
    "eat": ("ate", "eaten", "eating"), "drink": ("drank", "drunk", "drinking"), "get": ("got", "gotten", "getting"),
    "make": ("made", "made", "making"), "take": ("took", "taken", "taking"), "wake": ("woke", "woken", "waking"),
    "fall": ("fell", "fallen", "falling"), "build": ("built", "built", "building"), "put": ("put", "put", "putting"),
    "dig": ("dug", "dug", "digging"), "strike": ("struck", "struck", "striking"), "hit": ("hit", "hit", "hitting"),
    "lose": ("lost", "lost", "losing"), "go": ("went", "gone", "going"), "set": ("set", "set", "setting"),
    "spend": ("spent", "spent", "spending"), "die": ("died", "died", "dying"), "slay": ("slew", "slain", "slaying"),
    "chop": ("chopped", "chopped", "chopping"), "cut": ("cut", "cut", "cutting"), "come": ("came", "come", "coming"),
    "nod": ("nodded", "nodded", "nodding"), "have": ("had", "had", "having"), "find": ("found", "found", "finding"),
    "lay": ("laid", "laid", "laying"), "quarry": ("quarried", "quarried", "quarrying"), "feast": ("feasted", "feasted", "feasting"), "punch": ("punched", "punched", "punching"),
}


def conj(phrase: str, form: int) -> str:
    """form 0: past, 1: participle, 2: gerund; only the first word is inflected."""
    head, _, rest = phrase.partition(" ")
    if head in IRREGULAR:
        word = IRREGULAR[head][form]
    elif form == 2:
        word = head[:-1] + "ing" if head.endswith("e") and not head.endswith("ee") else head + "ing"
    else:
        word = head + "d" if head.endswith("e") else head + "ed"
    return word + (" " + rest if rest else "")


@dataclass(frozen=True)
class Lex:
    verbs: tuple[str, ...]
    nouns: tuple[str, ...] = ()


Matcher = tuple[str, str | None]  # (kind, obj) ; obj None matches any object of the kind

LEX: dict[Matcher, Lex] = {
    ("collect", "wood"): Lex(("collect wood", "chop wood", "gather wood", "cut down a tree", "get wood from a tree"),
                             ("wood pickup", "log harvest")),
    ("collect", "stone"): Lex(("mine stone", "collect stone", "dig up some stone", "quarry a stone block"), ("stone pickup",)),
    ("collect", "coal"): Lex(("mine coal", "collect coal", "dig out some coal"), ("coal pickup",)),
    ("collect", "iron"): Lex(("mine iron", "collect iron ore", "dig up iron"), ("iron pickup",)),
    ("collect", "diamond"): Lex(("mine a diamond", "collect a diamond", "dig up a diamond"), ("diamond find",)),
    ("collect", "sapling"): Lex(("collect a sapling", "pick up a sapling", "find a sapling in the grass",
                                 "gather a sapling"), ("sapling pickup",)),
    ("drink", "water"): Lex(("drink water", "take a drink", "drink from the water", "have a sip of water"), ("drink",)),
    ("eat", "cow"): Lex(("eat a cow", "eat cow meat", "feast on a cow"), ("cow meal", "beef meal")),
    ("eat", "plant"): Lex(("eat a ripe plant", "eat the grown plant", "eat from the planted crop"), ("plant meal",)),
    ("defeat", "zombie"): Lex(("defeat a zombie", "kill a zombie", "slay a zombie", "take down a zombie"), ("zombie kill",)),
    ("defeat", "skeleton"): Lex(("defeat a skeleton", "kill a skeleton", "destroy a skeleton"), ("skeleton kill",)),
    ("place", "table"): Lex(("place a table", "put down a crafting table", "set up a workbench", "build a table"),
                            ("table placement",)),
    ("place", "furnace"): Lex(("place a furnace", "build a furnace", "set up a furnace"), ("furnace placement",)),
    ("place", "stone"): Lex(("place a stone", "put down a stone block", "lay a stone block"), ("stone placement",)),
    ("place", "plant"): Lex(("plant a sapling", "place a plant", "put a sapling in the ground"), ("planting",)),
    ("hurt", ""): Lex(("get hurt", "take damage", "lose health"), ("injury",)),
    ("fall asleep", ""): Lex(("fall asleep", "go to sleep", "doze off", "nod off"), ("nap",)),
    ("wake up", ""): Lex(("wake up", "wake from sleep"), ("wake-up",)),
    ("die", ""): Lex(("die", "get killed", "lose a life"), ("death",)),
    ("respawn", ""): Lex(("respawn", "come back to life", "start a new life"), ("respawn",)),
    ("hit", "cow"): Lex(("hit a cow", "strike a cow", "punch a cow")),
    ("hit", "zombie"): Lex(("hit a zombie", "strike a zombie", "attack a zombie")),
    ("hit", "skeleton"): Lex(("hit a skeleton", "strike a skeleton", "attack a skeleton")),
    ("collect", None): Lex(("collect anything", "gather any resource", "pick up any material"), ("resource pickup",)),
    ("eat", None): Lex(("eat something", "eat anything", "have a meal"), ("meal",)),
    ("defeat", None): Lex(("defeat an enemy", "kill a monster"), ("monster kill",)),
    ("craft", None): Lex(("craft a tool", "craft anything", "make a tool"), ("crafted tool",)),
    ("place", None): Lex(("place anything", "put something down in the world"), ("placement",)),
    ("unlock achievement", None): Lex(("unlock an achievement", "earn an achievement"), ("achievement unlock",)),
    ("hit", None): Lex(("hit a creature", "strike an animal or monster")),
}
for _m in ("wood", "stone", "iron"):
    for _t in ("pickaxe", "sword"):
        _adj = "wooden" if _m == "wood" else _m
        LEX[("craft", f"{_m} {_t}")] = Lex((f"craft a {_m} {_t}", f"make a {_adj} {_t}", f"build a {_adj} {_t}"),
                                            (f"{_m} {_t} craft",))
for _i, _w in (("wood", "some wood"), ("stone", "some stone"), ("coal", "some coal"), ("iron", "some iron"),
               ("sapling", "a sapling")):
    LEX[("spend", _i)] = Lex((f"use up {_w}", f"spend {_w}", f"consume {_w}"))
for _a in cc.achievements:
    _n = _name(_a)
    LEX[("unlock achievement", _n)] = Lex((f"unlock the '{_n}' achievement", f"earn the '{_n}' achievement",
                                           f"get the '{_n}' achievement"), (f"'{_n}' achievement unlock",))

ITEM_HOW: dict[str, tuple[str, ...]] = {
    "wood": ("how much wood", "how many pieces of wood"), "stone": ("how much stone", "how many stones"),
    "coal": ("how much coal", "how many lumps of coal"), "iron": ("how much iron", "how many pieces of iron"),
    "diamond": ("how many diamonds",), "sapling": ("how many saplings",),
}
for _m in ("wood", "stone", "iron"):
    for _t in ("pickaxe", "sword"):
        ITEM_HOW[f"{_m} {_t}"] = (f"how many {_m} {_t}s",)
STATE_WORDS: dict[str, tuple[str, ...]] = {
    "health": ("health", "HP", "hit points"), "food": ("food level", "food", "food meter"),
    "drink": ("drink level", "thirst meter", "water level"), "energy": ("energy", "energy level", "stamina"),
    "daylight": ("daylight level",), "life": ("life number",), "achievements": ("achievement tally for the current life",),
}


@dataclass(frozen=True)
class Subj:
    s: str
    poss: str
    be: str
    have: str
    obj: str


SUBJECTS = (
    Subj("I", "my", "was", "have", "me"), Subj("we", "our", "were", "have", "us"),
    Subj("you", "your", "were", "have", "you"), Subj("the agent", "the agent's", "was", "has", "the agent"),
    Subj("the player", "the player's", "was", "has", "the player"),
)
ORD_W = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
ORD_D = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th"}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ------------------------------------------------------------------------------------------------
# Reference evaluator
# ------------------------------------------------------------------------------------------------


def ev_text(e: Event) -> str:
    return e.kind + (" " + e.obj if e.obj else "")


def matches(e: Event, m: Matcher) -> bool:
    return e.kind == m[0] and (m[1] is None or e.obj == m[1])


class Ref:
    """Plain scans over one episode's Step records."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.n = len(steps)

    def occ(self, m: Matcher, lo: int = 0, hi: int | None = None) -> list[int]:
        hi = self.n - 1 if hi is None else hi
        return [s.t for s in self.steps[max(lo, 0): hi + 1] if any(matches(e, m) for e in s.events)]

    def count(self, m: Matcher, lo: int = 0, hi: int | None = None) -> int:
        hi = self.n - 1 if hi is None else hi
        return sum(1 for s in self.steps[max(lo, 0): hi + 1] for e in s.events if matches(e, m))

    def nth(self, m: Matcher, n: int) -> int | None:
        o = self.occ(m)
        if n > 0:
            return o[n - 1] if len(o) >= n else None
        return o[n] if len(o) >= -n else None

    def slot(self, t: int, slot: str, arg: str = "") -> str | None:
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "step":
            return str(t)
        if slot == "location":
            if s.location.region:
                return s.location.region
            return None if s.location.position is None else f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "position":
            return None if s.location.position is None else f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "item":
            return str(s.inventory_dict.get(arg, 0))
        if slot == "inventory":
            items = [f"{k} {v}" for k, v in sorted(s.inventory) if v > 0]
            return ", ".join(items) if items else "none"
        if slot == "state":
            v = s.state_dict.get(arg)
            if v is None:
                return None
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, float):
                return format(v, "g")
            return str(v)
        if slot == "facing":
            for r in s.relations:
                if r.subject == "agent" and r.predicate == "facing":
                    return r.obj
            return None
        if slot == "events":
            return "; ".join(ev_text(e) for e in s.events) if s.events else "none"
        raise ValueError(slot)

    def value(self, t: int, var: tuple[str, str]) -> int:
        kind, name = var
        s = self.steps[t]
        return s.inventory_dict.get(name, 0) if kind == "item" else int(s.state_dict[name])

    def first_where(self, pred: Callable[[int], bool]) -> int | None:
        for t in range(self.n):
            if pred(t):
                return t
        return None

    def last_where(self, pred: Callable[[int], bool]) -> int | None:
        for t in range(self.n - 1, -1, -1):
            if pred(t):
                return t
        return None


# ------------------------------------------------------------------------------------------------
# Question writer
# ------------------------------------------------------------------------------------------------


class Writer:
    def __init__(self, steps: Sequence[Step], eid: str, seed: int) -> None:
        self.ref = Ref(steps)
        self.eid = eid
        self.rng = random.Random(seed * 7919 + 3)
        self.n = len(steps)
        present: list[Matcher] = []
        for m in LEX:
            if self.ref.occ(m):
                present.append(m)
        self.present = present
        # specific matchers that can be asked about by occurrence (one matching event per step at most)
        self.specific = [m for m in present if m[1] is not None or m[0] in ("hurt", "fall asleep", "wake up", "die", "respawn")]
        self.spec_nospend = [m for m in self.specific if m[0] not in ("spend", "unlock achievement")] or self.specific
        self.general = [m for m in present if m[1] is None and m[0] != "hurt"
                        and m[0] not in ("fall asleep", "wake up", "die", "respawn")
                        and all(sum(1 for e in s.events if matches(e, m)) <= 1 for s in steps)]
        self.absent = [m for m in LEX if m not in present and m[0] not in ("spend", "unlock achievement")]

    # helpers ------------------------------------------------------------------------------------
    def gid(self, *ts: int) -> list[str]:
        out: list[str] = []
        for t in ts:
            g = f"{self.eid}:{t}"
            if g not in out:
                out.append(g)
        return out

    def subj(self) -> Subj:
        return self.rng.choice(SUBJECTS)

    def verb(self, m: Matcher) -> str:
        return self.rng.choice(LEX[m].verbs)

    def pick(self, pool: Sequence[Matcher], min_occ: int = 1) -> Matcher | None:
        cands = [m for m in pool if len(self.ref.occ(m)) >= min_occ]
        if not cands:
            return None
        # de-emphasise the most frequent kinds so questions spread over the vocabulary
        weights = [0.3 if m[0] in ("spend", "hit") or m == ("collect", "wood") else 1.0 for m in cands]
        return self.rng.choices(cands, weights)[0]

    def ordinal(self, n: int) -> str:
        return ORD_D[n] if self.rng.random() < 0.3 else ORD_W[n]

    def occ_forms(self, sj: Subj, m: Matcher, n: int) -> tuple[list[str], list[str]]:
        """('the ...' clauses, bare clauses usable after 'when'/'after') for the n-th occurrence."""
        past = conj(self.verb(m), 0)
        nouns = list(LEX[m].nouns)
        the: list[str] = []
        bare: list[str] = []
        if n == 1:
            the += [f"the first time {sj.s} {past}"]
            bare += [f"{sj.s} first {past}", f"{sj.s} {past} for the first time"]
            the += [f"{sj.poss} first {x}" for x in nouns]
        elif n == 2:
            the += [f"the {self.ordinal(2)} time {sj.s} {past}"]
            bare += [f"{sj.s} {past} again", f"{sj.s} {past} for the second time"]
            the += [f"{sj.poss} {self.ordinal(2)} {x}" for x in nouns]
        elif n > 2:
            o = self.ordinal(n)
            the += [f"the {o} time {sj.s} {past}"]
            bare += [f"{sj.s} {past} for the {o} time"]
            the += [f"{sj.poss} {o} {x}" for x in nouns]
        elif n == -1:
            the += [f"the last time {sj.s} {past}", f"the final time {sj.s} {past}"]
            bare += [f"{sj.s} last {past}", f"{sj.s} {past} for the last time"]
            the += [f"{sj.poss} last {x}" for x in nouns]
        else:
            w = self.rng.choice(("second-to-last", "next-to-last", "penultimate"))
            the += [f"the {w} time {sj.s} {past}"]
            bare += [f"{sj.s} {past} for the {w} time"]
            the += [f"{sj.poss} {w} {x}" for x in nouns]
        return the, bare

    def when(self, sj: Subj, m: Matcher, n: int) -> str:
        the, bare = self.occ_forms(sj, m, n)
        opts = [x if x.startswith("the ") else "at " + x for x in the] + ["when " + b for b in bare]
        return self.rng.choice(opts)

    def pick_n(self, m: Matcher) -> int:
        k = len(self.ref.occ(m))
        opts = [1, 1] + [n for n in (2, 3, 4, 5) if n <= k] + ([-1, -1] if k >= 2 else []) + ([-2] if k >= 3 else [])
        return self.rng.choice(opts)

    # slot frames --------------------------------------------------------------------------------
    def slot_pick(self, t: int, allowed: Sequence[str]) -> tuple[str, str] | None:
        s = self.ref.steps[t]
        choices = list(allowed)
        self.rng.shuffle(choices)
        for slot in choices:
            if slot == "item":
                held = [k for k, v in s.inventory if v > 0 and k in ITEM_HOW]
                pool = held + [k for k in ("wood", "stone", "sapling", "coal") if k not in held]
                return slot, self.rng.choice(pool if self.rng.random() < 0.8 else list(ITEM_HOW))
            if slot == "state":
                return slot, self.rng.choice(("health", "food", "drink", "energy", "health", "daylight", "life", "sleeping"))
            if slot == "facing" and self.ref.slot(t, "facing") is None:
                continue
            if slot == "events" and not s.events:
                continue
            return slot, ""
        return None

    def frame(self, sj: Subj, slot: str, arg: str, w: str) -> str:
        """A question asking for ``slot`` at the step described by the clause ``w``."""
        r = self.rng
        pre = r.random() < 0.35
        W = cap(w)
        if slot == "action":
            return r.choice([
                f"What action did {sj.s} take {w}?", f"Which action was chosen {w}?",
                f"{W}, which action did {sj.s} pick?", f"Tell me the action {sj.s} performed {w}.",
                f"What button did {sj.s} press {w}?",
            ])
        if slot == "location":
            return r.choice([
                f"{W}, which region {sj.be} {sj.s} in?" if pre else f"Which region {sj.be} {sj.s} in {w}?",
                f"What kind of terrain {sj.be} {sj.s} in {w}?", f"Where {sj.be} {sj.s} {w}?",
                f"In which area of the map {sj.be} {sj.s} {w}?",
            ])
        if slot == "position":
            return r.choice([
                f"{W}, what were {sj.poss} coordinates?" if pre else f"What were {sj.poss} coordinates {w}?",
                f"At what x,y position {sj.be} {sj.s} {w}?", f"Give {sj.poss} grid position {w}.",
                f"Which (x, y) tile {sj.be} {sj.s} standing on {w}?",
            ])
        if slot == "item":
            how = r.choice(ITEM_HOW[arg])
            return r.choice([
                f"{W}, {how} did {sj.s} have?" if pre else f"{cap(how)} did {sj.s} have {w}?",
                f"{cap(how)} {sj.be} {sj.s} carrying {w}?",
                f"{cap(how)} sat in {sj.poss} inventory {w}?",
            ])
        if slot == "inventory":
            return r.choice([
                f"{W}, what was in {sj.poss} inventory?" if pre else f"What was in {sj.poss} inventory {w}?",
                f"List everything {sj.s} {sj.be} carrying {w}.", f"What items did {sj.s} hold {w}?",
            ])
        if slot == "state":
            if arg == "sleeping":
                return r.choice([
                    f"True or false: {sj.s} {sj.be} asleep {w}.",
                    f"{W}, was the sleeping flag true or false?" if pre else f"Was the sleeping flag true or false {w}?",
                ])
            if arg == "life":
                return r.choice([f"Which life {sj.be} {sj.s} on {w}?", f"{W}, which life number was it?" if pre
                                 else f"What life number was it {w}?"])
            word = r.choice(STATE_WORDS[arg])
            if arg in ("daylight", "achievements"):
                return r.choice([f"What was the {word} {w}?", f"{W}, what was the {word}?" if pre else f"Tell me the {word} {w}."])
            return r.choice([
                f"{W}, what was {sj.poss} {word}?" if pre else f"What was {sj.poss} {word} {w}?",
                f"Tell me {sj.poss} {word} {w}.", f"How high was {sj.poss} {word} {w}?",
            ])
        if slot == "facing":
            return r.choice([
                f"{W}, what {sj.be} {sj.s} facing?" if pre else f"What {sj.be} {sj.s} facing {w}?",
                f"What was directly in front of {sj.obj} {w}?", f"What tile or creature was ahead of {sj.obj} {w}?",
            ])
        if slot == "events":
            return r.choice([
                f"What happened {w}?", f"List the events recorded {w}.", f"{W}, what events took place?" if pre
                else f"Which events took place {w}?",
            ])
        raise ValueError(slot)

    def step_frame(self, the: str) -> str:
        return self.rng.choice([
            f"When was {the}?", f"Which step was {the}?", f"Give the step number of {the}.",
            f"Tell me the step of {the}.", f"Name the step of {the}.",
        ])

    def add_slot(self, out: list, family: str, t: int, sj: Subj, w_any: str, the_opts: list[str],
                 gold_extra: Sequence[int], allowed: Sequence[str], step_q: str | None = None) -> bool:
        """Add a slot question about step t described by the clause; 'step' slot uses the 'the' forms."""
        if "step" in allowed and self.rng.random() < 0.3 and (the_opts or step_q):
            q = step_q if step_q and (not the_opts or self.rng.random() < 0.5) else self.step_frame(self.rng.choice(the_opts))
            return self.emit(out, family, "step", q, str(t), [t, *gold_extra])
        sp = self.slot_pick(t, [a for a in allowed if a != "step"])
        if sp is None:
            return False
        slot, arg = sp
        ans = self.ref.slot(t, slot, arg)
        if ans is None:
            return False
        return self.emit(out, family, slot, self.frame(sj, slot, arg, w_any), ans, [t, *gold_extra])

    def emit(self, out: list, family: str, slot: str, q: str, ans: str, gold_ts: Sequence[int]) -> bool:
        q = " ".join(q.split())
        if any(x["question"] == q for x in out):
            return False
        out.append({"episode": self.eid, "family": family, "slot": slot, "question": q, "answer": ans,
                    "gold": self.gid(*gold_ts)})
        return True

    # families -----------------------------------------------------------------------------------
    SLOTS = ("step", "location", "position", "item", "inventory", "state", "facing", "action", "events")

    def f1(self, out: list) -> bool:
        r = self.rng
        t = r.randrange(1, self.n)
        if r.random() < 0.4:  # favour steps where something happened
            busy = [s.t for s in self.ref.steps if s.events]
            t = r.choice(busy) if busy else t
        sj = self.subj()
        w = r.choice([f"at step {t}", f"at step {t}", f"on step {t}", f"at time step {t}", f"at t={t}"])
        sp = self.slot_pick(t, ("action", "location", "position", "item", "inventory", "state", "facing", "events"))
        if sp is None:
            return False
        slot, arg = sp
        ans = self.ref.slot(t, slot, arg)
        if ans is None:
            return False
        if slot == "events" and r.random() < 0.4:
            q = r.choice([f"Tell me what happened during step {t}.", f"Step {t}: which events were logged?"])
        elif slot == "action" and r.random() < 0.4:
            q = r.choice([f"Which action was taken at step {t}?", f"Step {t}: what move did {sj.s} make?"])
        else:
            q = self.frame(sj, slot, arg, w)
        return self.emit(out, "1_step_index", slot, q, ans, [t])

    def f2(self, out: list) -> bool:
        m = self.pick(self.specific)
        if m is None:
            return False
        n = self.pick_n(m)
        t = self.ref.nth(m, n)
        if t is None:
            return False
        sj = self.subj()
        the, bare = self.occ_forms(sj, m, n)
        base = self.verb(m)
        step_q = None
        if n == 1:
            step_q = self.rng.choice([f"When did {sj.s} first {base}?", f"At which step did {sj.s} {base} for the first time?"])
        elif n == 2:
            step_q = self.rng.choice([f"When did {sj.s} {base} again?", f"At which step did {sj.s} {base} for the second time?"])
        elif n == -1:
            step_q = self.rng.choice([f"When did {sj.s} last {base}?", f"At which step did {sj.s} {base} for the final time?"])
        elif n > 2:
            step_q = f"At which step did {sj.s} {base} for the {self.ordinal(n)} time?"
        w = self.rng.choice([x if x.startswith("the ") else "at " + x for x in the] + ["when " + b for b in bare])
        return self.add_slot(out, "2_nth_occurrence", t, sj, w, the, [], self.SLOTS, step_q)

    def f3(self, out: list) -> bool:
        r = self.rng
        m = self.pick(self.specific)
        if m is None:
            return False
        o = self.ref.occ(m)
        sj = self.subj()
        past = conj(self.verb(m), 0)
        mode = r.choice(("after", "before", "between", "firstN", "anchor_after", "anchor_before", "by"))
        anchors: list[int] = []
        if mode == "after":
            N = r.randrange(0, self.n - 1)
            hits = [t for t in o if t > N]
            if not hits:
                return False
            t = hits[0]
            the = [f"the first time {sj.s} {past} after step {N}"]
            w = r.choice(the + [f"when {sj.s} first {past} after step {N}", f"the first time after step {N} that {sj.s} {past}"])
        elif mode == "before":
            N = r.randrange(1, self.n)
            hits = [t for t in o if t < N]
            if not hits:
                return False
            t = hits[-1]
            the = [f"the last time {sj.s} {past} before step {N}"]
            w = r.choice(the + [f"when {sj.s} last {past} before step {N}", f"the most recent time before step {N} that {sj.s} {past}"])
        elif mode == "by":
            N = r.randrange(1, self.n)
            hits = [t for t in o if t <= N]
            if not hits:
                return False
            t = hits[-1]
            the = [f"the last time {sj.s} {past} by step {N}", f"the last time {sj.s} {past} up to and including step {N}"]
            w = r.choice(the)
        elif mode == "between":
            A = r.randrange(0, self.n - 50)
            B = min(self.n - 1, A + r.randint(40, 300))
            hits = [t for t in o if A <= t <= B]
            if not hits:
                return False
            first = r.random() < 0.6
            t = hits[0] if first else hits[-1]
            word = "first" if first else "last"
            the = [f"the {word} time {sj.s} {past} between step {A} and step {B}",
                   f"the {word} time {sj.s} {past} between steps {A} and {B}"]
            w = r.choice(the)
        elif mode == "firstN":
            N = r.randrange(50, self.n)
            hits = [t for t in o if t <= N - 1]
            if not hits:
                return False
            t = hits[-1]
            the = [f"the last time {sj.s} {past} in the first {N} steps", f"the last time {sj.s} {past} during the first {N} steps"]
            w = r.choice(the)
        else:
            a = self.pick([x for x in self.spec_nospend if x != m])
            if a is None:
                return False
            ta = self.ref.occ(a)[0]
            past2 = conj(self.verb(a), 0)
            if mode == "anchor_after":
                hits = [t for t in o if t > ta]
                if not hits:
                    return False
                t = hits[0]
                the = [f"the first time {sj.s} {past} after {sj.s} first {past2}"]
                w = r.choice(the + [f"when {sj.s} first {past} after {sj.s} first {past2}"])
            else:
                hits = [t for t in o if t < ta]
                if not hits:
                    return False
                t = hits[-1]
                the = [f"the last time {sj.s} {past} before {sj.s} first {past2}"]
                w = r.choice(the)
            anchors = [ta]
        return self.add_slot(out, "3_windowed_occurrence", t, sj, w, the, anchors, self.SLOTS)

    def conditions(self, sj: Subj) -> list[tuple[str, Callable[[int], bool], bool]]:
        """(clause, predicate, first?) candidates; the clause reads after 'when'/'the ... step'."""
        r, ref = self.rng, self.ref
        out: list[tuple[str, Callable[[int], bool], bool]] = []
        for item in ("wood", "stone", "sapling", "coal", "iron", "wood pickaxe", "stone pickaxe", "diamond"):
            mx = max(ref.value(t, ("item", item)) for t in range(self.n))
            if mx <= 0:
                continue
            k = r.randint(1, mx)
            nm = item if item in ("wood", "stone", "coal", "iron") else item + "s" if k > 1 else item
            nm_any = item if item in ("wood", "stone", "coal", "iron") else item + "s"

            def ge(t: int, item=item, k=k) -> bool:
                return ref.value(t, ("item", item)) >= k

            def out_of(t: int, item=item) -> bool:
                return t > 0 and ref.value(t, ("item", item)) == 0 and ref.value(t - 1, ("item", item)) > 0

            out.append((r.choice([f"{sj.poss} {item} count first reached {k}", f"{sj.s} first had at least {k} {nm}",
                                  f"{sj.s} first held {k} or more {nm}"]), ge, True))
            out.append((r.choice([f"{sj.s} last had at least {k} {nm}", f"{sj.poss} {item} count was last {k} or higher"]),
                        ge, False))
            if item in ("wood", "stone", "sapling", "coal", "iron", "diamond"):
                out.append((r.choice([f"{sj.s} first ran out of {nm_any}", f"{sj.s} first used up all {sj.poss} {nm_any}"]),
                            out_of, True))
                out.append((f"{sj.s} last ran out of {nm_any}", out_of, False))
        for var in ("health", "food", "drink", "energy"):
            vals = [ref.value(t, ("state", var)) for t in range(self.n)]
            lo = min(vals)
            if lo >= 9:
                continue
            k = r.randint(lo, 8)
            word = r.choice(STATE_WORDS[var])

            def le(t: int, var=var, k=k) -> bool:
                return ref.value(t, ("state", var)) <= k

            def lt(t: int, var=var, k=k) -> bool:
                return ref.value(t, ("state", var)) < k

            def eq(t: int, var=var, k=k) -> bool:
                return ref.value(t, ("state", var)) == k

            out.append((r.choice([f"{sj.poss} {word} first dropped to {k} or below", f"{sj.poss} {word} first fell to {k} or lower"]),
                        le, True))
            out.append((f"{sj.poss} {word} was first below {k}", lt, True))
            out.append((f"{sj.poss} {word} was last exactly {k}", eq, False))
            out.append((f"{sj.poss} {word} was last at {k} or less", le, False))
        out.append((f"{sj.s} {sj.be} first asleep", lambda t: bool(ref.steps[t].state_dict["sleeping"]), True))
        out.append((f"{sj.s} {sj.be} last asleep", lambda t: bool(ref.steps[t].state_dict["sleeping"]), False))
        return out

    def f4(self, out: list) -> bool:
        sj = self.subj()
        cands = self.conditions(sj)
        clause, pred, first = self.rng.choice(cands)
        t = self.ref.first_where(pred) if first else self.ref.last_where(pred)
        if t is None or (first and t == 0):
            return False
        the = [f"the point at which {clause}", f"the moment {clause}"]
        step_q = self.rng.choice([f"Which step was it when {clause}?", f"Give the step where {clause}.",
                                  f"Tell me the step number at which {clause}."])
        w = self.rng.choice([f"when {clause}", f"at the step where {clause}", f"at the moment {clause}"])
        return self.add_slot(out, "4_condition", t, sj, w, the, [], self.SLOTS, step_q)

    def f5(self, out: list) -> bool:
        r = self.rng
        m = self.pick(self.specific)
        if m is None:
            return False
        n = self.pick_n(m)
        ta = self.ref.nth(m, n)
        if ta is None:
            return False
        k = r.choice((1, 2, 3, 4, 5, 6, 8, 10, 15, 20))
        after = r.random() < 0.6
        t = ta + k if after else ta - k
        if not 0 <= t < self.n:
            return False
        sj = self.subj()
        the, bare = self.occ_forms(sj, m, n)
        rel = "after" if after else "before"
        unit = "step" if k == 1 else "steps"
        anchor = r.choice(the + bare)
        w = f"{k} {unit} {rel} {anchor}"
        return self.add_slot(out, "5_offset", t, sj, w, [], [ta],
                             ("location", "position", "item", "inventory", "state", "facing", "action", "events"))

    def f6(self, out: list) -> bool:
        r = self.rng
        a = self.pick(self.spec_nospend)
        m = self.pick([x for x in self.specific if x != a])
        if a is None or m is None:
            return False
        n = self.pick_n(a)
        ta = self.ref.nth(a, n)
        if ta is None:
            return False
        sj = self.subj()
        the, bare = self.occ_forms(sj, a, n)
        anchor = r.choice(the + bare)
        past = conj(self.verb(m), 0)
        nxt = r.random() < 0.55
        if nxt:
            hits = [t for t in self.ref.occ(m) if t > ta]
            if not hits:
                return False
            t = hits[0]
            the_q = [f"the next time {sj.s} {past} after {anchor}"]
            w = r.choice(the_q + [f"when {sj.s} next {past} after {anchor}"])
        else:
            hits = [t for t in self.ref.occ(m) if t < ta]
            if not hits:
                return False
            t = hits[-1]
            the_q = [f"the previous time {sj.s} {past} before {anchor}", f"the last time {sj.s} {past} before {anchor}"]
            w = r.choice(the_q)
        return self.add_slot(out, "6_next_previous", t, sj, w, the_q, [ta], self.SLOTS)

    def window(self, sj: Subj, allow_anchor: bool = True) -> tuple[str, int, int, list[int]] | None:
        """A window phrase, its inclusive bounds and anchor steps."""
        r = self.rng
        mode = r.choice(("all", "before", "by", "after", "between", "firstN", "anchor_after", "anchor_before")
                        if allow_anchor else ("all", "before", "by", "after", "between", "firstN"))
        n = self.n
        if mode == "all":
            return r.choice(["", " in total", " over the whole run", " in the entire episode"]), 0, n - 1, []
        if mode == "before":
            N = r.randrange(20, n)
            return f" before step {N}", 0, N - 1, []
        if mode == "by":
            N = r.randrange(20, n)
            return r.choice([f" by step {N}", f" up to step {N}", f" as of step {N}"]), 0, N, []
        if mode == "after":
            N = r.randrange(0, n - 20)
            return f" after step {N}", N + 1, n - 1, []
        if mode == "between":
            A = r.randrange(0, n - 30)
            B = min(n - 1, A + r.randint(25, 400))
            return r.choice([f" between step {A} and step {B}", f" between steps {A} and {B}"]), A, B, []
        if mode == "firstN":
            N = r.randrange(30, n)
            return f" in the first {N} steps", 0, N - 1, []
        a = self.pick(self.spec_nospend)
        if a is None:
            return None
        ta = self.ref.occ(a)[0]
        past = conj(self.verb(a), 0)
        if mode == "anchor_after":
            return f" after {sj.s} first {past}", ta + 1, n - 1, [ta]
        return f" before {sj.s} first {past}", 0, ta - 1, [ta]

    def f7(self, out: list) -> bool:
        r = self.rng
        m = self.pick(self.specific + self.general * 2)
        if m is None:
            return False
        sj = self.subj()
        win = self.window(sj)
        if win is None:
            return False
        phrase, lo, hi, anchors = win
        c = self.ref.count(m, lo, hi)
        hits = self.ref.occ(m, lo, hi)
        base = self.verb(m)
        nouns = LEX[m].nouns
        opts = [f"How many times did {sj.s} {base}{phrase}?", f"How often did {sj.s} {base}{phrase}?",
                f"Count the times {sj.s} {conj(base, 0)}{phrase}."]
        if nouns:
            opts.append(f"How many {nouns[0]}s were there{phrase}?" if not nouns[0].endswith("s") else
                        f"How many times was there a {nouns[0]}{phrase}?")
        if phrase.startswith(" after") or phrase.startswith(" before"):
            opts.append(f"{cap(phrase.strip())}, how many times did {sj.s} {base}?")
        return self.emit(out, "7_count", "count", r.choice(opts), str(c), [*anchors, *(hits[-1:] if hits else [])])

    def f8(self, out: list) -> bool:
        r = self.rng
        a = self.pick(self.specific)
        b = self.pick([x for x in self.specific if x != a])
        if a is None or b is None:
            return False
        na = r.choice([1, 1, 1, 2, -1]) if len(self.ref.occ(a)) >= 2 else 1
        nb = r.choice([1, 1, 1, 2, -1]) if len(self.ref.occ(b)) >= 2 else 1
        ta, tb = self.ref.nth(a, na), self.ref.nth(b, nb)
        if ta is None or tb is None or ta == tb:
            return False
        ea = next(e for e in self.ref.steps[ta].events if matches(e, a))
        eb = next(e for e in self.ref.steps[tb].events if matches(e, b))
        ans = ev_text(ea) if ta < tb else ev_text(eb)
        sj = self.subj()
        if na == 1 and nb == 1 and r.random() < 0.6:
            va, vb = self.verb(a), self.verb(b)
            q = r.choice([
                f"Which came first: {conj(va, 2)} or {conj(vb, 2)}?",
                f"Did {sj.s} {va} or {vb} first?",
                f"What happened earlier, {sj.s} {conj(va, 0)} or {sj.s} {conj(vb, 0)}?",
                f"Between {conj(va, 2)} and {conj(vb, 2)}, which did {sj.s} do first?",
            ])
        else:
            ca = self.rng.choice(self.occ_forms(sj, a, na)[0])
            cb = self.rng.choice(self.occ_forms(sj, b, nb)[0])
            q = r.choice([f"Which happened first: {ca} or {cb}?", f"Which was earlier, {ca} or {cb}?",
                          f"Tell me which came first, {ca} or {cb}."])
        return self.emit(out, "8_order", "which-first", q, ans, [ta, tb])

    def f9(self, out: list) -> bool:
        r = self.rng
        a = self.pick(self.spec_nospend)
        b = self.pick([x for x in self.specific if x != a])
        if a is None or b is None:
            return False
        sj = self.subj()
        na = self.pick_n(a)
        ta = self.ref.nth(a, na)
        if ta is None:
            return False
        ca_the, ca_bare = self.occ_forms(sj, a, na)
        mode = r.choice(("nth", "next", "next"))
        if mode == "next":
            hits = [t for t in self.ref.occ(b) if t > ta]
            if not hits:
                return False
            tb = hits[0]
            pb = conj(self.verb(b), 0)
            q = r.choice([
                f"How many steps passed between {r.choice(ca_the)} and the next time {sj.s} {pb}?",
                f"After {r.choice(ca_bare)}, how many steps did it take until {sj.s} next {pb}?",
                f"How long, in steps, from {r.choice(ca_the)} until {sj.s} next {pb}?",
            ])
        else:
            nb = self.pick_n(b)
            tb = self.ref.nth(b, nb)
            if tb is None or tb == ta:
                return False
            cb_the = self.occ_forms(sj, b, nb)[0]
            q = r.choice([
                f"How many steps were there between {r.choice(ca_the)} and {r.choice(cb_the)}?",
                f"What is the distance in steps between {r.choice(ca_the)} and {r.choice(cb_the)}?",
                f"How far apart, in steps, were {r.choice(ca_the)} and {r.choice(cb_the)}?",
            ])
        return self.emit(out, "9_distance", "duration", q, str(abs(tb - ta)), [ta, tb])

    def f10(self, out: list, want_yes: bool, as_list: bool) -> bool:
        r = self.rng
        sj = self.subj()
        if as_list:
            kinds = [m for m in self.general if m[0] in ("collect", "craft", "place", "eat", "hit", "unlock achievement", "defeat")]
            if not kinds:
                return False
            m = r.choice(kinds)
            win = self.window(sj, allow_anchor=r.random() < 0.3)
            if win is None:
                return False
            phrase, lo, hi, anchors = win
            objs: list[str] = []
            hits: list[int] = []
            for s in self.ref.steps[lo: hi + 1]:
                for e in s.events:
                    if matches(e, m):
                        if s.t not in hits:
                            hits.append(s.t)
                        if e.obj not in objs:
                            objs.append(e.obj)
            if not objs:
                return False
            q = {
                "collect": [f"What did {sj.s} collect{phrase}?", f"Which materials did {sj.s} gather{phrase}?",
                            f"List the resources {sj.s} picked up{phrase}."],
                "craft": [f"What did {sj.s} craft{phrase}?", f"Which tools did {sj.s} make{phrase}?"],
                "place": [f"What did {sj.s} place{phrase}?", f"Which things did {sj.s} put down in the world{phrase}?"],
                "eat": [f"What did {sj.s} eat{phrase}?", f"Which foods did {sj.s} eat{phrase}?"],
                "hit": [f"Which creatures did {sj.s} hit{phrase}?", f"What did {sj.s} strike{phrase}?"],
                "defeat": [f"Which monsters did {sj.s} defeat{phrase}?"],
                "unlock achievement": [f"Which achievements did {sj.s} unlock{phrase}?",
                                       f"List the achievements unlocked{phrase}."],
            }[m[0]]
            return self.emit(out, "10_existence", "list", r.choice(q), ", ".join(objs), [*anchors, *hits])
        pool = self.specific + self.absent if not want_yes else self.specific
        m = r.choice(pool) if pool else None
        if m is None:
            return False
        win = self.window(sj)
        if win is None:
            return False
        phrase, lo, hi, anchors = win
        hits = self.ref.occ(m, lo, hi)
        if bool(hits) != want_yes:
            return False
        base = self.verb(m)
        part = conj(base, 1)
        nouns = LEX[m].nouns
        opts = [f"Did {sj.s} {base}{phrase}?", f"Did {sj.s} ever {base}{phrase}?",
                f"{cap(sj.have)} {sj.s} ever {part}{phrase}?" if not phrase.startswith(" before")
                and not phrase.startswith(" after") else f"Did {sj.s} {base} at all{phrase}?"]
        if nouns:
            art = "an" if nouns[0].lstrip("'")[0] in "aeiou" else "a"
            opts.append(f"Was there {art} {nouns[0]}{phrase}?")
        if phrase:
            opts.append(f"{cap(phrase.strip())}, did {sj.s} {base}?")
        return self.emit(out, "10_existence", "yes/no", r.choice(opts), "yes" if hits else "no",
                         [*anchors, hits[0]] if hits else anchors)

    def questions(self) -> list[dict]:
        out: list[dict] = []
        makers: list[tuple[str, Callable[[list], bool]]] = [
            ("1_step_index", self.f1), ("2_nth_occurrence", self.f2), ("3_windowed_occurrence", self.f3),
            ("4_condition", self.f4), ("5_offset", self.f5), ("6_next_previous", self.f6), ("7_count", self.f7),
            ("8_order", self.f8), ("9_distance", self.f9),
        ]
        for family, fn in makers:
            got, tries = 0, 0
            while got < PER_FAMILY:
                tries += 1
                if tries > 3000:
                    raise RuntimeError(f"{self.eid}: could not write {family}")
                if fn(out):
                    got += 1
        plan = [(True, False), (False, False), (True, False), (False, False), (True, True), (False, True)]
        for want_yes, as_list in plan:
            for tries in range(3000):
                if self.f10(out, want_yes, as_list):
                    break
            else:
                if not self._f10_fallback(out, want_yes, as_list):
                    raise RuntimeError(f"{self.eid}: could not write 10_existence")
        return out

    def _f10_fallback(self, out: list, want_yes: bool, as_list: bool) -> bool:
        for _ in range(3000):
            if self.f10(out, want_yes if not as_list else self.rng.random() < 0.5, False):
                return True
        return False


def build(seed: int) -> dict:
    eid = episode_id(seed)
    steps = rollout(seed)
    validate_steps(steps, eid)
    questions = Writer(steps, eid, seed).questions()
    return {"episodes": {eid: steps}, "questions": questions}


def _check(seed: int) -> dict:
    data = build(seed)
    eid = episode_id(seed)
    steps = data["episodes"][eid]
    assert 300 <= len(steps) <= 1500, len(steps)
    qs = data["questions"]
    assert len(qs) == 60, len(qs)
    for fam in FAMILIES:
        assert sum(1 for q in qs if q["family"] == fam) == PER_FAMILY, fam
    for q in qs:
        assert q["episode"] == eid
        for g in q["gold"]:
            assert g.startswith(eid + ":") and 0 <= int(g.rsplit(":", 1)[1]) < len(steps), g
        assert q["gold"] or q["answer"] in ("no", "0") or q["slot"] == "count", q
    assert len({q["question"] for q in qs}) == 60
    again = build(seed)
    assert again["questions"] == qs and again["episodes"][eid] == steps, "build is not deterministic"
    return data


if __name__ == "__main__":
    from collections import Counter

    for sd in (SEEDS[0], SEEDS[1]):
        built = _check(sd)
        qs = built["questions"]
        steps = built["episodes"][episode_id(sd)]
        print(f"seed {sd}: {len(steps)} steps, {len(qs)} questions, lives {steps[-1].state_dict['life']}")
        print("  families:", dict(Counter(q["family"] for q in qs)))
        print("  slots:", dict(Counter(q["slot"] for q in qs)))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", dict(sorted(kinds.items())))
        for q in random.Random(sd).sample(qs, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']}  gold={q['gold'][:4]}")
    print("self-check passed")
