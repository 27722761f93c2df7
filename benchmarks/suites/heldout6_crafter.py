"""Held-out suite 6, Crafter: "Flint the prospector".

A scripted prospector plays real Crafter (64x64). It cuts just enough timber for its first tools, then
follows the terrain to stone, tunnels through rock toward coal, iron and diamond, sets up tables and
furnaces as waypoints along its tunnels, drinks and hunts when it must, sleeps in rock pockets, fights
or flees creatures, and keeps a tally of the materials it has discovered. After a death it starts a new
life in a fresh world seeded from the seed; step numbering continues.

Regions are nine "claims" laid over the map (3x3 sectors named like a prospector's claims); positions
are the player's (x, y). Questions are computed by a plain reference scan over the Step records.
"""

from __future__ import annotations

import heapq
import random
import sys
import time
from collections import Counter

import crafter
import numpy as np
from crafter import objects as cobj

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout6_crafter"
SEED_RANGE = range(8500, 8600)
AGENT = "flint"

# --------------------------------------------------------------------------------------------------
# Environment: deterministic Crafter
# --------------------------------------------------------------------------------------------------


class StableEnv(crafter.Env):
    """Crafter whose creature balancing picks among creatures in a stable (position) order.

    The stock env iterates a set of objects (ordered by memory address) before choosing one to
    despawn at random, so two processes could roll out differently."""

    def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist, spawn_prob,
                        despawn_prob, ctor, target_fn):
        ordered = sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]), type(o).__name__))
        return super()._balance_object(chunk, ordered, cls, material, span_dist, despan_dist,
                                       spawn_prob, despawn_prob, ctor, target_fn)


AREA = 64
WALKABLE = ("grass", "sand", "path")
VITALS = ("health", "food", "drink", "energy")
DIRS = ((0, -1), (1, 0), (0, 1), (-1, 0))
MOVE = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
CREATURES = {cobj.Zombie: "zombie", cobj.Skeleton: "skeleton", cobj.Cow: "cow", cobj.Arrow: "arrow",
             cobj.Plant: "plant"}
MINE_NEEDS = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe",
              "diamond": "iron_pickaxe"}

# nine claims, columns west->east, rows north->south (y grows southward)
CLAIMS = (
    ("crow hollow", "north bluff", "eagle gulch"),
    ("west bench", "camp meadow", "east bench"),
    ("snake draw", "south bluff", "bear gulch"),
)


def claim_of(x: int, y: int) -> str:
    col = 0 if x < 21 else (1 if x < 43 else 2)
    row = 0 if y < 21 else (1 if y < 43 else 2)
    return CLAIMS[row][col]


def nice(name: str) -> str:
    return name.replace("_", " ")


def creature_name(obj) -> str:
    return CREATURES.get(type(obj), type(obj).__name__.lower())


# --------------------------------------------------------------------------------------------------
# The prospector
# --------------------------------------------------------------------------------------------------


class Prospector:
    def __init__(self, env: StableEnv, rng: random.Random):
        self.rng = rng
        self.mode = "timbering"
        self.attach(env)

    def attach(self, env: StableEnv) -> None:
        self.env = env
        self.world = env._world
        self.player = env._player
        self.seen = np.zeros((AREA, AREA), bool)
        self.target = None
        self.target_age = 0
        self.last_pos = None
        self.still = 0
        self.mode = "timbering"
        self.update_seen()
        self.snapshot()

    # -- world access ------------------------------------------------------------------------
    def snapshot(self):
        names = self.world._mat_names
        self.M = [[names[v] for v in col] for col in self.world._mat_map.tolist()]
        self.O = self.world._obj_map.tolist()

    def mat(self, p):
        x, y = p
        if not (0 <= x < AREA and 0 <= y < AREA):
            return None
        return self.M[x][y]

    def obj(self, p):
        x, y = p
        if not (0 <= x < AREA and 0 <= y < AREA):
            return None
        i = self.O[x][y]
        return self.world._objects[i] if i else None

    def pos(self):
        return (int(self.player.pos[0]), int(self.player.pos[1]))

    def inv(self, name):
        return self.player.inventory.get(name, 0)

    def update_seen(self):
        x, y = self.pos()
        self.seen[max(0, x - 4): x + 5, max(0, y - 3): y + 4] = True

    def can_mine(self, m):
        need = MINE_NEEDS.get(m)
        return need is not None and self.inv(need) > 0

    def cost(self, p):
        m = self.mat(p)
        if m is None:
            return None
        if m in WALKABLE:
            o = self.obj(p)
            return 1 if o is None or o is self.player else 9
        if self.can_mine(m):
            return 3
        return None

    def search(self, goal, max_cost=90):
        """Dijkstra from the player; goal(p) tested when a tile is settled. Returns the path."""
        start = self.pos()
        dist = {start: 0}
        prev = {}
        heap = [(0, start)]
        while heap:
            c, p = heapq.heappop(heap)
            if c > dist.get(p, 1 << 30):
                continue
            if goal(p):
                path = []
                while p != start:
                    path.append(p)
                    p = prev[p]
                return path[::-1]
            if c > max_cost:
                return None
            for d in DIRS:
                q = (p[0] + d[0], p[1] + d[1])
                w = self.cost(q)
                if w is None:
                    continue
                nc = c + w
                if nc < dist.get(q, 1 << 30):
                    dist[q] = nc
                    prev[q] = p
                    heapq.heappush(heap, (nc, q))
        return None

    def follow(self, path):
        p = self.pos()
        q = path[0]
        d = (q[0] - p[0], q[1] - p[1])
        m = self.mat(q)
        o = self.obj(q)
        if m not in WALKABLE and self.can_mine(m):
            return "do" if tuple(self.player.facing) == d else MOVE[d]
        if o is not None and isinstance(o, (cobj.Cow, cobj.Zombie, cobj.Skeleton, cobj.Plant)):
            return "do" if tuple(self.player.facing) == d else MOVE[d]
        return MOVE[d]

    def neighbours(self, p):
        return [(p[0] + d[0], p[1] + d[1]) for d in DIRS]

    def act_on(self, pred):
        """If a neighbour satisfies pred: face it and 'do' (or turn to it). Else None."""
        p = self.pos()
        f = tuple(self.player.facing)
        fp = (p[0] + f[0], p[1] + f[1])
        if pred(fp):
            return "do"
        for d in DIRS:
            q = (p[0] + d[0], p[1] + d[1])
            if pred(q):
                return MOVE[d]
        return None

    def near(self, material, radius=1):
        x, y = self.pos()
        mats, _ = self.world.nearby((x, y), radius)
        return material in mats

    def seen_mat(self, p, materials):
        return self.seen[p] if 0 <= p[0] < AREA and 0 <= p[1] < AREA else False

    def go_adjacent(self, materials, max_cost=90, need_seen=True):
        """Action toward standing next to one of materials (and acting on it)."""
        def is_target(q):
            return self.mat(q) in materials and (not need_seen or self.seen[q])
        a = self.act_on(is_target)
        if a is not None:
            return a
        stands = set()
        mask = np.isin(self.world._mat_map, [self.world._mat_ids[m] for m in materials if m in self.world._mat_ids])
        if need_seen:
            mask &= self.seen
        for x, y in zip(*np.nonzero(mask)):
            for d in DIRS:
                stands.add((int(x) + d[0], int(y) + d[1]))
        if not stands:
            return None
        path = self.search(lambda p: p in stands, max_cost)
        if path:
            return self.follow(path)
        return None

    def place(self, what, where=WALKABLE):
        """Place an item on the faced tile, or step so that a valid tile is faced."""
        p = self.pos()
        f = tuple(self.player.facing)
        fp = (p[0] + f[0], p[1] + f[1])
        if self.mat(fp) in where and self.obj(fp) is None:
            return "place_" + what
        for d in DIRS:
            q = (p[0] + d[0], p[1] + d[1])
            q2 = (q[0] + d[0], q[1] + d[1])
            if self.mat(q) in WALKABLE and self.obj(q) is None and self.mat(q2) in where and self.obj(q2) is None:
                return MOVE[d]
        return None

    def creatures_within(self, kind, r):
        p = np.array(self.pos())
        out = []
        for o in self.world.objects:
            if isinstance(o, kind) and not o.removed:
                dd = int(np.abs(o.pos - p).sum())
                if dd <= r:
                    out.append((dd, int(o.pos[0]), int(o.pos[1]), o))
        out.sort(key=lambda t: t[:3])
        return out

    def nearest_struct(self, material, r):
        x, y = self.pos()
        best = None
        for i in range(max(0, x - r), min(AREA, x + r + 1)):
            for j in range(max(0, y - r), min(AREA, y + r + 1)):
                if self.M[i][j] == material and self.seen[i, j]:
                    dd = abs(i - x) + abs(j - y)
                    if dd <= r and (best is None or dd < best):
                        best = dd
        return best

    # -- decision ---------------------------------------------------------------------------
    def decide(self):
        a, mode = self._decide()
        if a is None:
            a = "noop"
        self.mode = mode
        return a

    def _decide(self):
        self.snapshot()
        pl = self.player
        if pl.sleeping:
            return "sleep", "resting"
        hp, food, drink, energy = (self.inv(v) for v in VITALS)
        sword = self.inv("wood_sword") + self.inv("stone_sword") + self.inv("iron_sword") > 0
        pos = self.pos()
        if pos == self.last_pos:
            self.still += 1
        else:
            self.still = 0
        self.last_pos = pos

        # threats
        for kind in (cobj.Zombie, cobj.Skeleton):
            close = self.creatures_within(kind, 1)
            if close and not (hp <= 2 and not sword):
                o = close[0][3]
                d = (int(o.pos[0]) - pos[0], int(o.pos[1]) - pos[1])
                return ("do" if tuple(pl.facing) == d else MOVE[d]), "fighting"
        danger = self.creatures_within(cobj.Zombie, 3) + self.creatures_within(cobj.Skeleton, 4)
        if danger and (hp <= 4 or (not sword and hp <= 6)):
            o = danger[0][3]
            best, bd = None, -1
            for d in DIRS:
                q = (pos[0] + d[0], pos[1] + d[1])
                if self.mat(q) in WALKABLE and self.obj(q) is None:
                    dd = abs(q[0] - int(o.pos[0])) + abs(q[1] - int(o.pos[1]))
                    if dd > bd:
                        best, bd = d, dd
            if best is not None:
                return MOVE[best], "fleeing"

        # needs
        if drink <= 3 or (self.mode == "drinking" and drink < 9):
            a = self.go_adjacent(("water",), 120)
            if a:
                return a, "drinking"
        if food <= 3 or (self.mode == "hunting" and food < 7):
            a = self.act_on(lambda q: isinstance(self.obj(q), cobj.Plant) and self.obj(q).ripe)
            if a:
                return a, "hunting"
            cows = self.creatures_within(cobj.Cow, 30)
            if cows:
                if cows[0][0] == 1:
                    o = cows[0][3]
                    d = (int(o.pos[0]) - pos[0], int(o.pos[1]) - pos[1])
                    return ("do" if tuple(pl.facing) == d else MOVE[d]), "hunting"
                targets = {(c[1], c[2]) for c in cows[:4]}
                path = self.search(lambda p: any(q in targets for q in self.neighbours(p)), 80)
                if path:
                    return self.follow(path), "hunting"
        night = self.world.daylight < 0.3
        if energy <= 2 or (self.mode == "resting" and energy < 9) or (night and energy <= 5):
            blocked = sum(1 for q in self.neighbours(pos) if self.mat(q) not in WALKABLE)
            if blocked >= 3 or self.still > 30:
                f = tuple(pl.facing)
                fp = (pos[0] + f[0], pos[1] + f[1])
                if self.mat(fp) in WALKABLE and self.obj(fp) is None and self.inv("stone") > 0:
                    return "place_stone", "resting"
                return "sleep", "resting"
            def pocket(p):
                if self.mat(p) not in WALKABLE:
                    return False
                ns = self.neighbours(p)
                if any(self.mat(q) == "lava" for q in ns):
                    return False
                return sum(1 for q in ns if self.mat(q) not in WALKABLE) >= 3
            path = self.search(pocket, 30)
            if path:
                return self.follow(path), "resting"
            return "sleep", "resting"

        # saplings: plant them along the way on grass
        if self.inv("sapling") > 0:
            f = tuple(pl.facing)
            fp = (pos[0] + f[0], pos[1] + f[1])
            if self.mat(fp) == "grass" and self.obj(fp) is None:
                return "place_plant", "planting"

        wood, stone = self.inv("wood"), self.inv("stone")
        coal, iron = self.inv("coal"), self.inv("iron")
        table = self.near("table")
        furnace = self.near("furnace")

        # tools
        if not self.inv("wood_pickaxe"):
            if table and wood >= 1:
                return "make_wood_pickaxe", "crafting"
            if wood >= 3:
                a = self.place("table")
                if a:
                    return a, "crafting"
            return self.timber(), "timbering"
        if not self.inv("wood_sword"):
            if table and wood >= 1:
                return "make_wood_sword", "crafting"
            if wood < 1:
                return self.timber(), "timbering"
        if not self.inv("stone_pickaxe") or not self.inv("stone_sword"):
            tool = "stone_pickaxe" if not self.inv("stone_pickaxe") else "stone_sword"
            if table and wood >= 1 and stone >= 1:
                return "make_" + tool, "crafting"
            if wood < 1 or (not table and wood < 3 and self.nearest_struct("table", 10) is None):
                a = self.timber()
                if a:
                    return a, "timbering"
            if stone < 2:
                a = self.go_adjacent(("stone",), 120)
                if a:
                    return a, "quarrying"
            else:
                if self.nearest_struct("table", 10) is not None:
                    a = self.go_adjacent(("table",), 40)
                    if a and a != "do":
                        return a, "crafting"
                if wood >= 3:
                    a = self.place("table")
                    if a:
                        return a, "crafting"

        # iron tools: need table and furnace side by side
        if self.inv("stone_pickaxe") and not (self.inv("iron_pickaxe") and self.inv("iron_sword")):
            tool = "iron_pickaxe" if not self.inv("iron_pickaxe") else "iron_sword"
            if coal >= 1 and iron >= 1:
                a = None
                if wood < 1 or (not table and wood < 3):
                    a, mode = self.timber(), "timbering"
                elif stone < 4 and not furnace:
                    a, mode = self.go_adjacent(("stone",), 60), "quarrying"
                elif not table:
                    a, mode = self.place("table"), "crafting"
                elif not furnace:
                    a, mode = self.place("furnace"), "crafting"
                else:
                    a, mode = "make_" + tool, "crafting"
                if a:
                    return a, mode

        # prospecting: ore first
        ores = ["coal"] if coal < 3 else []
        if self.inv("stone_pickaxe") and iron < 2:
            ores.append("iron")
        if self.inv("iron_pickaxe"):
            ores.append("diamond")
        if ores:
            a = self.go_adjacent(tuple(ores), 45)
            if a:
                return a, "mining"
        if stone < 5:
            a = self.go_adjacent(("stone",), 12)
            if a:
                return a, "quarrying"

        # waypoints along the tunnels
        under = self.mat(pos)
        if under == "path" and wood >= 4 and self.nearest_struct("table", 12) is None:
            a = self.place("table")
            if a:
                return a, "waypointing"
        if under == "path" and stone >= 7 and self.nearest_struct("furnace", 14) is None:
            a = self.place("furnace")
            if a:
                return a, "waypointing"
        if wood < 2 and self.seen_any("tree", 10):
            a = self.timber(20)
            if a:
                return a, "timbering"
        return self.explore(), "prospecting"

    def seen_any(self, material, r):
        return self.nearest_struct(material, r) is not None

    def timber(self, max_cost=120):
        a = self.go_adjacent(("tree",), max_cost)
        if a:
            return a
        return self.explore()

    def explore(self):
        pos = self.pos()
        self.target_age += 1
        if (self.target is None or self.target_age > 70 or self.still > 8
                or abs(self.target[0] - pos[0]) + abs(self.target[1] - pos[1]) <= 2):
            self.pick_target()
        path = self.search(lambda p: p == self.target, 160)
        if not path:
            self.pick_target()
            path = self.search(lambda p: p == self.target, 160)
        if path:
            return self.follow(path)
        d = DIRS[self.rng.randrange(4)]
        return MOVE[d]

    def pick_target(self):
        pos = self.pos()
        best = None
        for _ in range(14):
            x, y = self.rng.randrange(2, AREA - 2), self.rng.randrange(2, AREA - 2)
            if self.seen[x, y] or self.mat((x, y)) not in WALKABLE:
                continue
            dd = abs(x - pos[0]) + abs(y - pos[1])
            if dd < 6:
                continue
            # a prospector heads toward rock it has already glimpsed
            win = self.seen[max(0, x - 6): x + 7, max(0, y - 6): y + 7]
            mats = self.world._mat_map[max(0, x - 6): x + 7, max(0, y - 6): y + 7]
            rock = int(((mats == self.world._mat_ids["stone"]) & win).sum())
            score = dd - 2 * min(rock, 10) + self.rng.random()
            if best is None or score < best[0]:
                best = (score, (x, y))
        self.target = best[1] if best else (self.rng.randrange(2, AREA - 2), self.rng.randrange(2, AREA - 2))
        self.target_age = 0


# --------------------------------------------------------------------------------------------------
# Rollout and adapter
# --------------------------------------------------------------------------------------------------

EVENT_ORDER = ("respawn", "enter", "chop", "mine", "forage", "drink", "craft", "set up", "lay", "plant",
               "hit", "slay", "eat", "take damage", "fall asleep", "wake up", "flee", "spot", "discover",
               "unlock", "perish")
COLLECT_KIND = {"wood": ("chop", "wood"), "stone": ("mine", "stone"), "coal": ("mine", "coal"),
                "iron": ("mine", "iron"), "diamond": ("mine", "diamond"), "sapling": ("forage", "sapling"),
                "drink": ("drink", "water")}
SEEN_MATERIALS = ("water", "sand", "tree", "stone", "path", "coal", "iron", "diamond", "lava")


def daypart(daylight: float, env_step: int) -> str:
    progress = (env_step / 300) % 1 + 0.3
    if daylight >= 0.6:
        return "day"
    if progress < 1.0:
        return "dusk" if daylight >= 0.25 else "night"
    return "night" if daylight < 0.25 else "dawn"


def view_contents(agent: Prospector):
    x, y = agent.pos()
    mats = set()
    for i in range(x - 4, x + 5):
        for j in range(y - 3, y + 4):
            m = agent.mat((i, j))
            if m is not None:
                mats.add(m)
    crs = set()
    for o in agent.world.objects:
        if o is agent.player or o.removed:
            continue
        if abs(int(o.pos[0]) - x) <= 4 and abs(int(o.pos[1]) - y) <= 3:
            crs.add(creature_name(o))
    return mats, crs


def rollout(seed: int):
    rng = random.Random(seed * 7919 + 11)
    n_steps = rng.randint(850, 1300)
    life = 1
    env = StableEnv(area=(AREA, AREA), seed=seed)
    env.reset()
    agent = Prospector(env, rng)
    steps = []
    region = claim_of(*agent.pos())
    discovered = set()
    unlocked = set()
    last_seen_kind = {}
    _mats, _crs = view_contents(agent)
    respawned = False
    for t in range(n_steps):
        pl = env._player
        action = agent.decide()
        before_inv = dict(pl.inventory)
        before_ach = dict(pl.achievements)
        before_sleep = pl.sleeping
        fx, fy = int(pl.pos[0] + pl.facing[0]), int(pl.pos[1] + pl.facing[1])
        struck = agent.obj((fx, fy)) if action == "do" else None
        struck_hp = struck.health if struck is not None else None
        arrows_near = any(isinstance(o, cobj.Arrow) and int(np.abs(o.pos - pl.pos).sum()) <= 3
                          for o in env._world.objects)
        _, _, done, info = env.step(env.action_names.index(action))
        agent.update_seen()
        agent.snapshot()
        inv = info["inventory"]
        ach = info["achievements"]
        evs = []
        if respawned:
            evs.append(("respawn", ""))
            respawned = False
        pos = (int(info["player_pos"][0]), int(info["player_pos"][1]))
        reg = claim_of(*pos)
        if reg != region:
            evs.append(("enter", reg))
            region = reg
        for name in ("wood", "stone", "coal", "iron", "diamond", "sapling", "drink"):
            if ach[f"collect_{name}"] > before_ach[f"collect_{name}"]:
                evs.append(COLLECT_KIND[name])
        for tool in ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"):
            if ach[f"make_{tool}"] > before_ach[f"make_{tool}"]:
                evs.append(("craft", nice(tool)))
        for thing in ("table", "furnace"):
            if ach[f"place_{thing}"] > before_ach[f"place_{thing}"]:
                evs.append(("set up", thing))
        if ach["place_stone"] > before_ach["place_stone"]:
            evs.append(("lay", "stone"))
        if ach["place_plant"] > before_ach["place_plant"]:
            evs.append(("plant", "sapling"))
        if struck is not None and isinstance(struck, (cobj.Zombie, cobj.Skeleton, cobj.Cow)):
            name = creature_name(struck)
            if struck.health <= 0:
                if name == "cow":
                    pass  # eating it is recorded below
                else:
                    evs.append(("slay", name))
            elif struck.health < struck_hp:
                evs.append(("hit", name))
        if ach["eat_cow"] > before_ach["eat_cow"]:
            evs.append(("eat", "cow"))
        if ach["eat_plant"] > before_ach["eat_plant"]:
            evs.append(("eat", "plant"))
        if inv["health"] < before_inv["health"]:
            zombie_close = agent.creatures_within(cobj.Zombie, 1)
            skel = agent.creatures_within(cobj.Skeleton, 6)
            if zombie_close:
                cause = "zombie"
            elif arrows_near or skel:
                cause = "arrow"
            elif pl.world[pl.pos][0] == "lava":
                cause = "lava"
            else:
                cause = "exposure"
            evs.append(("take damage", cause))
        if pl.sleeping and not before_sleep:
            evs.append(("fall asleep", ""))
        if before_sleep and not pl.sleeping:
            evs.append(("wake up", ""))
        new_mats, new_crs = view_contents(agent)
        if agent.mode == "fleeing" and (not steps or steps[-1][1]["mode"] != "fleeing"):
            threat = "zombie" if agent.creatures_within(cobj.Zombie, 4) else "skeleton"
            evs.append(("flee", threat))
        for kind in ("cow", "zombie", "skeleton"):
            if kind in new_crs:
                if t - last_seen_kind.get(kind, -100) > 6:
                    evs.append(("spot", kind))
                last_seen_kind[kind] = t
        for m in SEEN_MATERIALS:
            if m in new_mats and m not in discovered:
                discovered.add(m)
                evs.append(("discover", m))
        for name in sorted(ach):
            if ach[name] > 0 and name not in unlocked:
                unlocked.add(name)
                evs.append(("unlock", nice(name)))
        if done and inv["health"] <= 0:
            evs.append(("perish", ""))
        evs.sort(key=lambda e: EVENT_ORDER.index(e[0]))

        f = (int(pl.pos[0] + pl.facing[0]), int(pl.pos[1] + pl.facing[1]))
        fo = agent.obj(f)
        facing = creature_name(fo) if fo is not None else (agent.mat(f) or "edge")
        underfoot = agent.mat(pos) or ""
        daylight = round(float(env._world.daylight), 2)
        state = {
            "health": int(inv["health"]), "food": int(inv["food"]), "drink": int(inv["drink"]),
            "energy": int(inv["energy"]), "daylight": daylight, "asleep": bool(pl.sleeping),
            "mode": agent.mode, "daypart": daypart(daylight, env._step), "life": life,
        }
        items = {nice(k): int(v) for k, v in inv.items() if k not in VITALS and v > 0}
        objs = sorted((new_mats - {None}) | new_crs)
        inv_txt = ", ".join(f"{k} {v}" for k, v in sorted(items.items())) or "nothing"
        obs = (f"{AGENT.title()} is in {reg} at ({pos[0]},{pos[1]}) on {underfoot}, facing {facing}. "
               f"Sees: {', '.join(objs)}. Carrying: {inv_txt}. Health {state['health']}, food {state['food']}, "
               f"drink {state['drink']}, energy {state['energy']}; it is {state['daypart']}.")
        steps.append((action, state, items, pos, reg, underfoot, facing, tuple(objs), tuple(evs), obs))
        if done:
            life += 1
            env = StableEnv(area=(AREA, AREA), seed=seed * 1000 + life)
            env.reset()
            agent.attach(env)
            respawned = True
            last_seen_kind = {}
    return steps


def to_records(raw):
    out = []
    for t, (action, state, items, pos, reg, under, facing, objs, evs, obs) in enumerate(raw):
        out.append(Step(
            t=t, action=action,
            summary=f"{action} ({state['mode']})",
            objects=objs,
            events=tuple(Event(k, o) for k, o in evs),
            relations=(Relation("agent", "facing", facing),),
            inventory=items, state=state,
            location=Location(position=pos, region=reg, underfoot=under),
            observation=obs,
        ))
    return out


# --------------------------------------------------------------------------------------------------
# Reference evaluator: a plain scan over the Step records
# --------------------------------------------------------------------------------------------------


def fmt_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def label(kind: str, obj) -> str:
    return f"{kind} {obj}".strip() if obj else kind


class Ref:
    def __init__(self, steps, ep):
        self.steps = steps
        self.ep = ep
        self.T = len(steps)
        self.ev = [[(e.kind, e.obj) for e in s.events] for s in steps]

    def gid(self, t):
        return f"{self.ep}:{t}"

    def match(self, t, pat):
        kind, obj = pat
        return any(k == kind and (obj is None or o == obj) for k, o in self.ev[t])

    def occ(self, pat, lo=0, hi=None):
        hi = self.T - 1 if hi is None else hi
        return [t for t in range(max(0, lo), min(self.T - 1, hi) + 1) if self.match(t, pat)]

    def n_events(self, pat, lo=0, hi=None):
        hi = self.T - 1 if hi is None else hi
        kind, obj = pat
        return sum(1 for t in range(max(0, lo), min(self.T - 1, hi) + 1) for k, o in self.ev[t]
                   if k == kind and (obj is None or o == obj))

    def item(self, t, name):
        return self.steps[t].inventory_dict.get(name, 0)

    def st(self, t, name):
        return self.steps[t].state_dict[name]

    def value(self, t, slot, arg=None) -> str:
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "location":
            return s.location.region
        if slot == "position":
            return f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "inventory":
            inv = s.inventory_dict
            return ", ".join(f"{k} {v}" for k, v in sorted(inv.items())) or "none"
        if slot == "item":
            return str(s.inventory_dict.get(arg, 0))
        if slot == "state":
            return fmt_value(s.state_dict[arg])
        if slot == "facing":
            return next(r.obj for r in s.relations if r.subject == "agent" and r.predicate == "facing")
        if slot == "events":
            return "; ".join(label(e.kind, e.obj) for e in s.events) or "none"
        raise ValueError(slot)

    def cond_steps(self, getter, test, transition=False):
        out = []
        for t in range(self.T):
            now = test(getter(t))
            if transition:
                if now and t > 0 and not test(getter(t - 1)):
                    out.append(t)
            elif now:
                out.append(t)
        return out


# --------------------------------------------------------------------------------------------------
# Wording
# --------------------------------------------------------------------------------------------------

PERSONAS = (  # subject, possessive, "was"
    ("I", "my", "was"), ("we", "our", "were"), ("you", "your", "were"), ("the agent", "the agent's", "was"),
    ("Flint", "Flint's", "was"), ("it", "its", "was"), ("the prospector", "the prospector's", "was"),
)


def plural(name: str) -> str:
    if not name:
        return ""
    return name + "s" if name.endswith(("pickaxe", "sword", "sapling")) else name


def art(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def phrasings(kind, obj):
    """(base form, past form) synonyms for a pattern; obj None = any object of the kind."""
    o = obj
    if kind == "chop":
        return [("chop wood", "chopped wood"), ("cut down a tree", "cut down a tree"),
                ("fell a tree for wood", "felled a tree for wood"), ("harvest wood", "harvested wood")]
    if kind == "mine":
        if o is None:
            return [("mine anything", "mined anything"), ("dig out any rock or ore", "dug out any rock or ore")]
        return [(f"mine {o}", f"mined {o}"), (f"dig out some {o}", f"dug out some {o}"),
                (f"extract {o}", f"extracted {o}"), (f"pick out a block of {o}", f"picked out a block of {o}")]
    if kind == "forage":
        return [("forage a sapling", "foraged a sapling"), ("gather a sapling", "gathered a sapling")]
    if kind == "drink":
        return [("drink water", "drank water"), ("take a drink of water", "took a drink of water"),
                ("sip from the water", "sipped from the water"), ("drink", "drank")]
    if kind == "craft":
        if o is None:
            return [("craft a tool or weapon", "crafted a tool or weapon"), ("make any tool or weapon", "made any tool or weapon")]
        return [(f"craft {art(o)}", f"crafted {art(o)}"), (f"make {art(o)}", f"made {art(o)}"),
                (f"fashion {art(o)}", f"fashioned {art(o)}")]
    if kind == "set up":
        if o is None:
            return [("set up a table or furnace", "set up a table or furnace"),
                    ("put down a workstation", "put down a workstation")]
        return [(f"set up {art(o)}", f"set up {art(o)}"), (f"place {art(o)}", f"placed {art(o)}"),
                (f"put down {art(o)}", f"put down {art(o)}")]
    if kind == "lay":
        return [("lay a stone block", "laid a stone block"), ("place a stone block", "placed a stone block"),
                ("put down a block of stone", "put down a block of stone")]
    if kind == "plant":
        return [("plant a sapling", "planted a sapling"), ("put a sapling in the ground", "put a sapling in the ground")]
    if kind == "hit":
        return [(f"wound {art(o)} without killing it", f"wounded {art(o)} without killing it"),
                (f"land a non-fatal blow on {art(o)}", f"landed a non-fatal blow on {art(o)}"),
                (f"strike {art(o)} and leave it alive", f"struck {art(o)} and left it alive")]
    if kind == "slay":
        if o is None:
            return [("kill a monster", "killed a monster"), ("slay a hostile creature", "slew a hostile creature")]
        return [(f"slay {art(o)}", f"slew {art(o)}"), (f"kill {art(o)}", f"killed {art(o)}"),
                (f"defeat {art(o)}", f"defeated {art(o)}")]
    if kind == "eat":
        if o == "cow":
            return [("eat a cow", "ate a cow"), ("kill and eat a cow", "killed and ate a cow"),
                    ("eat beef", "ate beef")]
        if o == "plant":
            return [("eat a plant", "ate a plant"), ("eat a ripe plant", "ate a ripe plant")]
        return [("eat anything", "ate anything"), ("have a meal", "had a meal")]
    if kind == "take damage":
        if o == "zombie":
            return [("take damage from a zombie", "took damage from a zombie"),
                    ("get hurt by a zombie", "got hurt by a zombie"),
                    ("lose health to a zombie attack", "lost health to a zombie attack")]
        if o == "arrow":
            return [("get hit by an arrow", "got hit by an arrow"), ("take arrow damage", "took arrow damage"),
                    ("get shot by a skeleton's arrow", "got shot by a skeleton's arrow")]
        if o == "exposure":
            return [("lose health to exposure", "lost health to exposure"),
                    ("take damage from hunger, thirst or fatigue", "took damage from hunger, thirst or fatigue")]
        if o == "lava":
            return [("get burned by lava", "got burned by lava"), ("take damage from lava", "took damage from lava")]
        return [("take damage", "took damage"), ("get hurt", "got hurt"), ("lose health", "lost health")]
    if kind == "fall asleep":
        return [("fall asleep", "fell asleep"), ("doze off", "dozed off"), ("go to sleep", "went to sleep")]
    if kind == "wake up":
        return [("wake up", "woke up"), ("wake from sleep", "woke from sleep")]
    if kind == "flee":
        return [(f"flee from {art(o)}", f"fled from {art(o)}"), (f"run away from {art(o)}", f"ran away from {art(o)}")]
    if kind == "spot":
        if o is None:
            return [("spot a creature", "spotted a creature"), ("catch sight of an animal or monster",
                                                                  "caught sight of an animal or monster")]
        return [(f"spot {art(o)}", f"spotted {art(o)}"), (f"catch sight of {art(o)}", f"caught sight of {art(o)}"),
                (f"see {art(o)} come into view", f"saw {art(o)} come into view")]
    if kind == "discover":
        n = "trees" if o == "tree" else o
        return [(f"discover {n}", f"discovered {n}"), (f"come across {n}", f"came across {n}"),
                (f"lay eyes on {n}", f"laid eyes on {n}")]
    if kind == "unlock":
        return [(f"unlock the '{o}' achievement", f"unlocked the '{o}' achievement"),
                (f"earn the {o} achievement", f"earned the {o} achievement")]
    if kind == "enter":
        if o is None:
            return [("cross into another claim", "crossed into another claim"),
                    ("move into a different region", "moved into a different region")]
        return [(f"enter {o}", f"entered {o}"), (f"walk into {o}", f"walked into {o}"),
                (f"arrive in {o}", f"arrived in {o}")]
    if kind == "perish":
        return [("die", "died"), ("perish", "perished"), ("lose a life", "lost a life")]
    if kind == "respawn":
        return [("respawn", "respawned"), ("start a new life", "started a new life"),
                ("come back after dying", "came back after dying")]
    raise ValueError(kind)


ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"],
       5: ["fifth", "5th"], 6: ["sixth", "6th"], 7: ["seventh", "7th"]}
NUMW = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
STATE_WORDS = {"health": ["health", "health points"], "food": ["food", "food level", "hunger meter"],
               "drink": ["drink", "water level", "thirst meter"], "energy": ["energy", "energy level"],
               "daylight": ["daylight", "daylight level"], "mode": ["mode", "current mode"],
               "daypart": ["time of day (daypart)", "daypart"], "life": ["life number", "life count"],
               "asleep": ["asleep flag", "sleeping state"]}


class Gen:
    """Question factory for one seed."""

    def __init__(self, steps, ep, seed):
        self.r = Ref(steps, ep)
        self.rng = random.Random(seed * 31337 + 6)
        self.T = len(steps)
        self.counts = Counter()
        for t in range(self.T):
            for k, o in self.r.ev[t]:
                self.counts[(k, o)] += 1
        # patterns as (kind, obj) with per-step occurrences
        self.pats = sorted(p for p in self.counts if p[0] not in ("unlock", "discover"))
        kinds = Counter(k for k, o in self.pats if o)
        self.pats += sorted((k, "*") for k, n in kinds.items()
                            if n >= 2 and k in ("take damage", "mine", "craft", "slay", "spot", "set up", "eat", "enter"))
        self.pats = [p for p in self.pats if len(self.r.occ(self.q(p))) == self.r.n_events(self.q(p))]
        self.all_pats = sorted(self.counts)

    # -- helpers ------------------------------------------------------------------------------
    def persona(self):
        return self.rng.choice(PERSONAS)

    def vp(self, pat, past=False):
        kind, obj = self.q(pat)
        b, p = self.rng.choice(phrasings(kind, obj))
        return p if past else b

    def ordw(self, n):
        return self.rng.choice(ORD[n])

    def pat_with(self, n_min=1, pool=None, exclude=()):
        pool = self.pats if pool is None else pool
        c = [p for p in pool if len(self.r.occ(self.q(p))) >= n_min and p not in exclude]
        return self.rng.choice(c) if c else None

    @staticmethod
    def q(pat):
        """A stored (kind, obj) pattern as a query pattern (empty obj = any)."""
        return (pat[0], pat[1] if pat[1] not in ("", "*", None) else None)

    def rand_step(self, lo=5, hi=None):
        hi = self.T - 6 if hi is None else hi
        return self.rng.randint(lo, hi)

    def slot_phrase(self, slot, poss, subj, was, when, arg=None):
        """A question asking `slot` at a target step described by the clause `when`."""
        R = self.rng
        if slot == "step":
            return R.choice([f"Tell me the step at which {when}.", f"What step was it when {when}?",
                             f"Which step number marks when {when}?"])
        if slot == "location":
            return R.choice([f"Which claim {was} {subj} in when {when}?", f"In what region {was} {subj} when {when}?",
                             f"Where (which region) {was} {subj} when {when}?"])
        if slot == "position":
            return R.choice([f"What were {poss} x,y coordinates when {when}?",
                             f"At what (x, y) position {was} {subj} when {when}?"])
        if slot == "item":
            n = arg
            return R.choice([f"How many {plural(n)} did {subj} have when {when}?", f"When {when}, how much {n} was in {poss} inventory?",
                             f"What was {poss} {n} count when {when}?"])
        if slot == "state":
            w = R.choice(STATE_WORDS[arg])
            return R.choice([f"What was {poss} {w} when {when}?", f"When {when}, what did {poss} {w} read?"])
        if slot == "facing":
            return R.choice([f"What {was} {subj} facing when {when}?", f"When {when}, what was in front of {'me' if subj == 'I' else ('us' if subj == 'we' else subj)}?"])
        if slot == "inventory":
            return R.choice([f"What did {poss} inventory hold when {when}?", f"What {was} {subj} carrying when {when}?"])
        if slot == "action":
            return R.choice([f"What action did {subj} take when {when}?", f"Which command was issued when {when}?"])
        if slot == "events":
            return f"What events were recorded at the step when {when}?"
        raise ValueError(slot)

    def pick_slot(self, t, slots=None):
        """A random answer slot and its arg for a target step."""
        R = self.rng
        slots = slots or ["step", "step", "location", "position", "item", "state", "facing", "inventory"]
        slot = R.choice(slots)
        arg = None
        if slot == "item":
            inv = self.r.steps[t].inventory_dict
            names = sorted(inv) or ["wood"]
            arg = R.choice(names + ["stone", "coal", "wood"])
        if slot == "state":
            arg = R.choice(["health", "food", "drink", "energy", "mode", "daypart", "daylight"])
        return slot, arg

    def answer(self, t, slot, arg):
        return str(t) if slot == "step" else self.r.value(t, slot, arg)

    def mk(self, fam, slot, question, answer, gold, oneoff=False):
        gold = sorted(set(gold), key=lambda g: int(g.rsplit(":", 1)[1]))
        return {"episode": self.r.ep, "family": fam, "slot": slot, "question": question,
                "answer": str(answer), "gold": gold, "_oneoff": oneoff}

    # -- occurrence descriptions ------------------------------------------------------------------
    def nth_clause(self, pat, n, subj):
        """(clause, step) for the n-th (n>0), last (n=-1) or second-to-last (n=-2) occurrence."""
        ts = self.r.occ(self.q(pat))
        if not ts or (n > 0 and len(ts) < n) or (n < 0 and len(ts) < -n):
            return None
        past = self.vp(pat, past=True)
        if n > 0:
            t = ts[n - 1]
            if n == 1:
                c = self.rng.choice([f"{subj} first {past}", f"{subj} {past} for the first time"])
            elif n == 2 and self.rng.random() < 0.4:
                c = f"{subj} {past} again"
            else:
                c = f"{subj} {past} for the {self.ordw(n)} time"
        elif n == -1:
            t = ts[-1]
            c = self.rng.choice([f"{subj} {past} for the last time", f"{subj} most recently {past}",
                                 f"{subj} {past} for the final time"])
        else:
            t = ts[-2]
            c = f"{subj} {past} for the second-to-last time"
        return c, t

    # -- families ------------------------------------------------------------------------------
    def f1(self, slot):
        R = self.rng
        subj, poss, was = self.persona()
        if slot == "events":
            cands = [t for t in range(self.T) if self.r.ev[t]]
            N = R.choice(cands) if R.random() < 0.85 else self.rand_step()
        else:
            N = self.rand_step(1, self.T - 1)
        arg = None
        if slot == "item":
            inv = self.r.steps[N].inventory_dict
            arg = R.choice(sorted(inv) + ["coal", "iron"]) if inv else "wood"
        if slot == "state":
            arg = R.choice(["health", "food", "drink", "energy", "mode", "daypart", "daylight", "asleep"])
        sn = R.choice([f"step {N}", f"step #{N}", f"t={N}"])
        Q = {
            "action": [f"What action did {subj} take at {sn}?", f"Which command was executed at {sn}?"],
            "location": [f"Which claim {was} {subj} in at {sn}?", f"At {sn}, what region {was} {subj} in?"],
            "position": [f"What was {poss} position (x,y) after {sn}?", f"Give {poss} coordinates at {sn}."],
            "inventory": [f"What did {poss} inventory contain after {sn}?", f"List what {subj} {was} carrying at {sn}."],
            "item": [f"How many {plural(arg)} did {subj} have at {sn}?", f"At {sn}, what was {poss} {arg} count?"],
            "state": [f"What was {poss} {R.choice(STATE_WORDS.get(arg, [arg]))} at {sn}?",
                      f"At {sn}, what value did {poss} {arg} state have?"],
            "facing": [f"What {was} {subj} facing at {sn}?", f"At {sn}, what was directly in front of {subj}?"],
            "events": [f"What events happened at {sn}?", f"Which events were logged for {sn}?"],
        }[slot]
        return self.mk("1_step_index", slot, R.choice(Q), self.r.value(N, slot, arg), [self.r.gid(N)])

    def f2(self, slot):
        R = self.rng
        subj, poss, was = self.persona()
        pat = self.pat_with(2) if R.random() < 0.8 else self.pat_with(1)
        if pat is None:
            return None
        cnt = len(self.r.occ(self.q(pat)))
        n = R.choice([k for k in range(1, min(cnt, 6) + 1)] + ([-1, -1] if cnt > 1 else []) + ([-2] if cnt > 2 else []))
        res = self.nth_clause(pat, n, subj)
        if res is None:
            return None
        clause, t = res
        _, arg = self.pick_slot(t, [slot])
        q = self.slot_phrase(slot, poss, subj, was, clause, arg)
        return self.mk("2_nth_occurrence", slot, q, self.answer(t, slot, arg), [self.r.gid(t)])

    def f3(self, slot):
        R = self.rng
        subj, poss, was = self.persona()
        pat = self.pat_with(3)
        if pat is None:
            return None
        ts = self.r.occ(self.q(pat))
        _base, past = self.vp(pat), self.vp(pat, True)
        mode = R.choice(["after", "before", "between", "firstN", "after_event"])
        gold = []
        if mode == "after":
            N = R.randint(ts[0], max(ts[0], ts[-1] - 1))
            tt = [t for t in ts if t > N]
            if not tt:
                return None
            t = tt[0]
            when = f"{subj} first {past} after step {N}"
        elif mode == "before":
            N = R.randint(ts[0] + 1, ts[-1] + 10)
            tt = [t for t in ts if t < N]
            t = tt[-1]
            when = f"{subj} last {past} before step {N}"
        elif mode == "between":
            A = R.randint(0, ts[len(ts) // 2])
            B = min(self.T - 1, A + R.randint(60, 400))
            tt = [t for t in ts if A <= t <= B]
            if not tt:
                return None
            first = R.random() < 0.6
            t = tt[0] if first else tt[-1]
            when = f"{subj} {'first' if first else 'last'} {past} between steps {A} and {B}"
        elif mode == "firstN":
            N = R.choice([100, 150, 200, 250, 300, 400, 500, 600])
            tt = [t for t in ts if t < N]
            if not tt:
                return None
            t = tt[-1]
            when = f"{subj} {past} for the last time in the first {N} steps"
        else:
            apat = self.pat_with(1, exclude=(pat,))
            if apat is None:
                return None
            a = self.r.occ(self.q(apat))[0]
            tt = [t for t in ts if t > a]
            if not tt:
                return None
            t = tt[0]
            when = f"{subj} first {past} after {subj} had first {self.vp(apat, True)}"
            gold.append(self.r.gid(a))
        _, arg = self.pick_slot(t, [slot])
        q = self.slot_phrase(slot, poss, subj, was, when, arg)
        return self.mk("3_windowed_occurrence", slot, q, self.answer(t, slot, arg), gold + [self.r.gid(t)])

    def conditions(self):
        """Candidate conditions: (description given persona, step)."""
        r = self.r
        out = []
        items = sorted({n for s in r.steps for n, _ in s.inventory} & {"wood", "stone", "coal", "iron", "diamond", "sapling"})
        for name in items:
            g = lambda t, n=name: r.item(t, n)
            top = max(g(t) for t in range(self.T))
            for k in range(2, top + 1):
                ts = r.cond_steps(g, lambda v, k=k: v >= k)
                if ts and ts[0] > 0 and g(ts[0]) == k and g(ts[0] - 1) < k:
                    out.append((lambda p, n=name, k=k: f"{p[1]} {n} first reached {k}", ts[0]))
                    if k >= 2:
                        out.append((lambda p, n=name, k=k: f"{p[1]} {n} count first went above {k - 1}", ts[0]))
            ts = r.cond_steps(g, lambda v: v == 0, transition=True)
            if ts:
                out.append((lambda p, n=name: f"{p[0]} first ran out of {n}", ts[0]))
                if len(ts) > 1:
                    out.append((lambda p, n=name: f"{p[0]} ran out of {n} for the last time", ts[-1]))
        for name in ("health", "food", "drink", "energy"):
            g = lambda t, n=name: r.st(t, n)
            for k in range(8):
                ts = r.cond_steps(g, lambda v, k=k: v <= k)
                if ts and ts[0] > 0 and g(ts[0]) == k:
                    w = self.rng.choice(STATE_WORDS[name])
                    out.append((lambda p, w=w, k=k: f"{p[1]} {w} first dropped to {k}", ts[0]))
                    last = ts[-1]
                    out.append((lambda p, w=w, k=k: f"{p[1]} {w} was at most {k} for the last time", last))
                ts2 = r.cond_steps(g, lambda v, k=k: v < k)
                if ts2 and ts2[0] > 0 and k >= 2:
                    w = self.rng.choice(STATE_WORDS[name])
                    out.append((lambda p, w=w, k=k: f"{p[1]} {w} first fell below {k}", ts2[0]))
        for mode in sorted({r.st(t, "mode") for t in range(self.T)} - {r.st(0, "mode")}):
            ts = r.cond_steps(lambda t: r.st(t, "mode"), lambda v, m=mode: v == m, transition=True)
            if ts:
                out.append((lambda p, m=mode: f"{p[1]} mode first became '{m}'", ts[0]))
                if len(ts) > 2:
                    out.append((lambda p, m=mode: f"{p[1]} mode switched to '{m}' for the last time", ts[-1]))
        for part in ("night", "dawn", "dusk"):
            ts = r.cond_steps(lambda t: r.st(t, "daypart"), lambda v, d=part: v == d, transition=True)
            if ts:
                out.append((lambda p, d=part: f"the daypart first became {d}", ts[0]))
        ts = r.cond_steps(lambda t: r.st(t, "asleep"), lambda v: v is True, transition=True)
        if ts:
            out.append((lambda p: f"{p[1]} asleep flag first became true", ts[0]))
        ts = r.cond_steps(lambda t: r.st(t, "life"), lambda v: v >= 2)
        if ts:
            out.append((lambda p: f"{p[1]} life number first reached 2", ts[0]))
        return out

    def f4(self, slot):
        R = self.rng
        p = self.persona()
        conds = self.conditions()
        if not conds:
            return None
        desc, t = R.choice(conds)
        when = desc(p)
        _, arg = self.pick_slot(t, [slot])
        q = self.slot_phrase(slot, p[1], p[0], p[2], when, arg)
        return self.mk("4_condition", slot, q, self.answer(t, slot, arg), [self.r.gid(t)])

    def anchor(self, p):
        """(phrase, step, is_event_anchor) for an offset/next/previous anchor."""
        R = self.rng
        kind = R.choice(["occ", "occ", "step", "cond"])
        if kind == "occ":
            pat = self.pat_with(1)
            ts = self.r.occ(self.q(pat))
            n = R.choice([1, 1, 2, -1]) if len(ts) > 1 else 1
            t = {1: ts[0], 2: ts[1] if len(ts) > 1 else ts[0], -1: ts[-1]}[n]
            word = {1: R.choice(["first", "1st"]), 2: R.choice(["second", "2nd"]), -1: "last"}[n]
            return f"the {word} time {p[0]} {self.vp(pat, True)}", t, True
        if kind == "step":
            N = self.rand_step(10, self.T - 10)
            return f"step {N}", N, False
        conds = self.conditions()
        desc, t = R.choice(conds)
        return f"the moment {desc(p)}", t, True

    def f5(self, slot):
        R = self.rng
        p = self.persona()
        aphr, a, ev = self.anchor(p)
        k = R.choice([1, 1, 2, 3, 4, 5, 6])
        after = R.random() < 0.6
        t = a + k if after else a - k
        if not (0 <= t < self.T):
            return None
        if slot == "step":
            slot = "action"
        _, arg = self.pick_slot(t, [slot])
        if k == 1 and after and not ev and R.random() < 0.5:
            rel = f"right after {aphr}"
        else:
            rel = f"{NUMW[k] if R.random() < 0.5 else k} step{'s' if k > 1 else ''} {'after' if after else 'before'} {aphr}"
        subj, poss, was = p
        Q = {
            "action": [f"What did {subj} do {rel}?", f"{rel[0].upper() + rel[1:]}, which action was taken?"],
            "location": [f"Which region {was} {subj} in {rel}?", f"{rel[0].upper() + rel[1:]}, what claim {was} {subj} in?"],
            "position": [f"What was {poss} x,y position {rel}?"],
            "item": [f"How many {plural(arg)} did {subj} have {rel}?"],
            "state": [f"What was {poss} {R.choice(STATE_WORDS.get(arg, [arg]))} {rel}?"],
            "facing": [f"What {was} {subj} facing {rel}?"],
            "inventory": [f"What was in {poss} inventory {rel}?"],
            "events": [f"What happened {rel}? List the events."],
        }[slot]
        gold = [self.r.gid(t)] + ([self.r.gid(a)] if ev else [])
        return self.mk("5_offset", slot, R.choice(Q), self.answer(t, slot, arg), gold)

    def f6(self, slot):
        R = self.rng
        p = self.persona()
        subj, poss, was = p
        pat = self.pat_with(2)
        ts = self.r.occ(self.q(pat))
        nxt = R.random() < 0.55
        aphr, a, ev = self.anchor(p)
        if ev and R.random() < 0.3:
            # anchor on the same pattern: next/previous occurrence of it
            pass
        cand = [t for t in ts if t > a] if nxt else [t for t in ts if t < a]
        if not cand:
            return None
        t = cand[0] if nxt else cand[-1]
        past, _base = self.vp(pat, True), self.vp(pat)
        if nxt:
            when = R.choice([f"{subj} next {past} after {aphr}", f"{subj} {past} next, following {aphr}"])
        else:
            when = R.choice([f"{subj} previously {past} before {aphr}", f"{subj} last {past} prior to {aphr}"])
        _, arg = self.pick_slot(t, [slot])
        q = self.slot_phrase(slot, poss, subj, was, when, arg)
        gold = [self.r.gid(t)] + ([self.r.gid(a)] if ev else [])
        return self.mk("6_next_previous", slot, q, self.answer(t, slot, arg), gold)

    def never_pats(self):
        cands = [("mine", "diamond"), ("slay", "skeleton"), ("eat", "plant"), ("plant", "sapling"),
                 ("craft", "iron pickaxe"), ("craft", "iron sword"), ("forage", "sapling"), ("set up", "furnace"),
                 ("take damage", "lava"), ("lay", "stone"), ("hit", "cow"), ("hit", "skeleton"), ("perish", ""),
                 ("flee", "skeleton"), ("enter", "crow hollow"), ("enter", "eagle gulch"), ("enter", "north bluff"),
                 ("take damage", "exposure"), ("eat", "cow")]
        return [c for c in cands if self.counts.get(c, 0) == 0]

    def f7(self, slot="count"):
        R = self.rng
        p = self.persona()
        subj = p[0]
        self.never_pats()
        gold = []
        if slot == "zero":
            return self.f7_zero(p)
        pat = self.pat_with(1)
        qp = self.q(pat)
        mode = R.choice(["whole", "between", "firstN", "before", "after_event"])
        if mode == "whole":
            lo, hi = 0, self.T - 1
            win = R.choice(["in the whole episode", "over the entire run", "in total", ""])
        elif mode == "between":
            lo = R.randint(0, self.T // 2)
            hi = min(self.T - 1, lo + R.randint(50, 400))
            win = f"between steps {lo} and {hi}"
        elif mode == "firstN":
            N = R.choice([100, 200, 250, 300, 400, 500])
            lo, hi = 0, N - 1
            win = f"in the first {N} steps"
        elif mode == "before":
            N = R.randint(50, self.T - 1)
            lo, hi = 0, N - 1
            win = f"before step {N}"
        else:
            apat = self.pat_with(1, exclude=(pat,))
            a = self.r.occ(self.q(apat))[0]
            lo, hi = a + 1, self.T - 1
            win = f"after {subj} first {self.vp(apat, True)}"
            gold.append(self.r.gid(a))
        ts = self.r.occ(qp, lo, hi)
        if len(ts) != self.r.n_events(qp, lo, hi):
            return None
        if ts:
            gold.append(self.r.gid(ts[-1]))
        base = self.vp(pat)
        q = R.choice([f"How many times did {subj} {base} {win}?", f"{win[:1].upper() + win[1:]}, how many times did {subj} {base}?"
                      if win else f"How many times did {subj} {base}?", f"Count how often {subj} {self.vp(pat, True)} {win}."])
        q = " ".join(q.split()).replace(" ?", "?").replace(" .", ".")
        return self.mk("7_count", "count", q, str(len(ts)), gold)

    def f7_zero(self, p):
        """A count question whose answer is 0: a never-seen pattern, or a window that misses a real one."""
        R = self.rng
        subj = p[0]
        never = self.never_pats()
        mode = R.choice(["never", "before", "after", "after_event"] if never else ["before", "after", "after_event"])
        gold = []
        if mode == "never":
            pat = R.choice(never)
            lo, hi, win = 0, self.T - 1, R.choice(["during the whole run", "in the entire episode", "at all"])
        else:
            pat = self.pat_with(1)
            ts = self.r.occ(self.q(pat))
            if mode == "before":
                if ts[0] < 20:
                    return None
                N = R.randint(10, ts[0])
                lo, hi, win = 0, N - 1, R.choice([f"before step {N}", f"in the first {N} steps"])
            elif mode == "after":
                if ts[-1] > self.T - 15:
                    return None
                N = R.randint(ts[-1], self.T - 5)
                lo, hi, win = N + 1, self.T - 1, f"after step {N}"
            else:
                apat = self.pat_with(1, exclude=(pat,))
                a = self.r.occ(self.q(apat))[-1]
                lo, hi = a + 1, self.T - 1
                win = f"after {subj} last {self.vp(apat, True)}"
                gold.append(self.r.gid(a))
        ts = self.r.occ(self.q(pat), lo, hi)
        if ts:
            return None
        q = R.choice([f"How many times did {subj} {self.vp(pat)} {win}?", f"{win[:1].upper() + win[1:]}, how many times did {subj} {self.vp(pat)}?"])
        return self.mk("7_count", "count", q, "0", gold)

    def f8(self, slot):
        R = self.rng
        p = self.persona()
        subj = p[0]
        pool = [pp for pp in self.all_pats if pp[1]]
        a = self.pat_with(1, pool)
        b = self.pat_with(1, pool, exclude=(a,))
        if a is None or b is None:
            return None
        ta, tb = self.r.occ(a)[0], self.r.occ(b)[0]
        if ta == tb:
            return None
        gold = [self.r.gid(ta), self.r.gid(tb)]
        if slot == "which-first":
            q = R.choice([f"Which happened first: {subj} {self.vp(a, True)}, or {subj} {self.vp(b, True)}?",
                          f"Which came earlier, the first time {subj} {self.vp(a, True)} or the first time {subj} {self.vp(b, True)}?",
                          f"Did {subj} {self.vp(a)} or {self.vp(b)} first?"])
            ans = label(*a) if ta < tb else label(*b)
            return self.mk("8_order", "which-first", q, ans, gold)
        q = R.choice([f"Did {subj} {self.vp(a)} before {subj} first {self.vp(b, True)}?",
                      f"Before {subj} first {self.vp(b, True)}, had {subj} already {self.vp(a, True)}?"])
        return self.mk("8_order", "yes/no", q, "yes" if ta < tb else "no", gold)

    def f9(self, slot="duration"):
        R = self.rng
        p = self.persona()
        subj = p[0]
        mode = R.choice(["two", "two", "firstlast", "consecutive", "consecutive", "stepN", "cond"])
        if mode == "two":
            a = self.pat_with(1)
            b = self.pat_with(1, exclude=(a,))
            ta, tb = self.r.occ(self.q(a))[0], self.r.occ(self.q(b))[0]
            q = R.choice([f"How many steps passed between the first time {subj} {self.vp(a, True)} and the first time {subj} {self.vp(b, True)}?",
                          f"How far apart, in steps, were the first time {subj} {self.vp(a, True)} and the first time {subj} {self.vp(b, True)}?"])
            gold = [ta, tb]
        elif mode == "firstlast":
            a = self.pat_with(2)
            ts = self.r.occ(self.q(a))
            ta, tb = ts[0], ts[-1]
            q = f"How many steps separate the first and the last time {subj} {self.vp(a, True)}?"
            gold = [ta, tb]
        elif mode == "consecutive":
            a = self.pat_with(3)
            if a is None:
                return None
            ts = self.r.occ(self.q(a))
            n = R.randint(1, min(len(ts) - 1, 5))
            ta, tb = ts[n - 1], ts[n]
            q = f"How many steps were there between the {ORD[n][0]} and the {ORD[n + 1][0]} time {subj} {self.vp(a, True)}?"
            gold = [ta, tb]
        elif mode == "stepN":
            a = self.pat_with(1)
            ta = self.r.occ(self.q(a))[0]
            tb = self.rand_step(0, self.T - 1)
            q = f"How many steps lie between step {tb} and the first time {subj} {self.vp(a, True)}?"
            gold = [ta]
        else:
            desc, ta = R.choice(self.conditions())
            b = self.pat_with(1)
            tb = self.r.occ(self.q(b))[0]
            q = f"How many steps were there between the moment {desc(p)} and the first time {subj} {self.vp(b, True)}?"
            gold = [ta, tb]
        return self.mk("9_distance", "duration", q, str(abs(ta - tb)), [self.r.gid(t) for t in gold])

    def f10(self, slot="yes/no"):
        R = self.rng
        p = self.persona()
        subj = p[0]
        mode = R.choice(["ever", "ever_no", "before", "after", "after_event", "between"])
        never = self.never_pats()
        gold = []
        if mode == "ever":
            pat = self.pat_with(1, self.all_pats)
            lo, hi, win = 0, self.T - 1, R.choice(["ever", "at any point"])
            q = f"Did {subj} {win} {self.vp(self.q(pat))}?"
        elif mode == "ever_no":
            if not never:
                return None
            pat = R.choice(never)
            lo, hi = 0, self.T - 1
            q = R.choice([f"Did {subj} ever {self.vp(self.q(pat))}?", f"Was there any point where {subj} {self.vp(self.q(pat), True)}?"])
        elif mode in ("before", "after"):
            pat = self.pat_with(1)
            ts = self.r.occ(self.q(pat))
            # aim at windows that give real "no" answers about things that do happen elsewhere
            if R.random() < 0.5:
                N = ts[0] - R.randint(0, min(ts[0], 30)) if mode == "before" else ts[-1] + R.randint(0, self.T - 1 - ts[-1])
            else:
                N = self.rand_step(10, self.T - 10)
            if mode == "before":
                lo, hi = 0, N - 1
            else:
                lo, hi = N + 1, self.T - 1
            q = R.choice([f"Did {subj} {self.vp(self.q(pat))} {mode} step {N}?", f"{mode.title()} step {N}, did {subj} ever {self.vp(self.q(pat))}?"])
        elif mode == "after_event":
            apat = self.pat_with(1)
            pat = self.pat_with(1, exclude=(apat,))
            a = self.r.occ(self.q(apat))[0] if R.random() < 0.5 else self.r.occ(self.q(apat))[-1]
            word = "first" if a == self.r.occ(self.q(apat))[0] else "last"
            before = R.random() < 0.4
            lo, hi = (0, a - 1) if before else (a + 1, self.T - 1)
            q = f"{'Before' if before else 'After'} {subj} {word} {self.vp(apat, True)}, did {subj} {self.vp(self.q(pat))}?"
            gold.append(self.r.gid(a))
        else:
            pat = self.pat_with(1)
            lo = self.rand_step(0, self.T - 60)
            hi = min(self.T - 1, lo + R.randint(20, 200))
            q = f"Between steps {lo} and {hi}, did {subj} {self.vp(self.q(pat))}?"
        ts = self.r.occ(self.q(pat), lo, hi)
        if ts:
            gold.append(self.r.gid(ts[0]))
        q = " ".join(q.split())
        return self.mk("10_existence", "yes/no", q, "yes" if ts else "no", gold)

    # -- hand-worded one-offs (each its own sentence) ---------------------------------------------
    def first(self, pat):
        ts = self.r.occ(self.q(pat))
        return ts[0] if ts else None

    def o1(self):
        R, r = self.rng, self.r
        N = self.rand_step(1, self.T - 1)
        opts = [
            lambda: ("state", f"Right as step {N} finished, how much drink did Flint have left?", r.value(N, "state", "drink")),
            lambda: ("facing", f"Step {N}: what was sitting directly in front of me?", r.value(N, "facing")),
            lambda: ("inventory", f"Looking back at step {N}, could you list everything the agent was carrying, item by item?",
                     r.value(N, "inventory")),
            lambda: ("location", f"I'm trying to place myself on the map at step {N} -- which claim was I working then?",
                     r.value(N, "location")),
            lambda: ("action", f"Which button did the prospector press on step {N}?", r.value(N, "action")),
            lambda: ("state", f"Once step {N} was over, how much energy did we have?", r.value(N, "state", "energy")),
            lambda: ("item", f"If you check step {N}, how many blocks of stone were in my pack?", r.value(N, "item", "stone")),
            lambda: ("position", f"Where on the grid did Flint stand after step {N}? Answer as x,y.", r.value(N, "position")),
            lambda: ("state", f"Was it day, dusk, night or dawn at step {N}?", r.value(N, "state", "daypart")),
        ]
        slot, q, a = R.choice(opts)()
        return self.mk("1_step_index", slot, q, a, [r.gid(N)], True)

    def o2(self):
        R, r = self.rng, self.r
        opts = []
        ts = r.occ(("drink", "water"))
        if len(ts) >= 3:
            opts.append(lambda: ("step", "On which step did I take my third drink of water?", str(ts[2]), ts[2]))
        ts2 = r.occ(("mine", "stone"))
        if len(ts2) >= 2:
            opts.append(lambda: ("position", "Where was the prospector standing (x,y) the last time it dug out a stone block?",
                                 r.value(ts2[-1], "position"), ts2[-1]))
        ts3 = r.occ(("take damage", None))
        if len(ts3) >= 2:
            opts.append(lambda: ("state", "The second time Flint got hurt, what was its health afterwards?",
                                 r.value(ts3[1], "state", "health"), ts3[1]))
        ts4 = r.occ(("chop", "wood"))
        if len(ts4) >= 5:
            opts.append(lambda: ("location", "Which claim was I in when I felled my fifth tree?", r.value(ts4[4], "location"), ts4[4]))
        ts5 = r.occ(("set up", "table"))
        if len(ts5) >= 2:
            opts.append(lambda: ("step", "When did we put down our second crafting table?", str(ts5[1]), ts5[1]))
        ts6 = r.occ(("spot", "zombie"))
        if len(ts6) >= 2:
            opts.append(lambda: ("facing", "At the second-to-last zombie sighting, what was the agent facing?",
                                 r.value(ts6[-2], "facing"), ts6[-2]))
        if not opts:
            return None
        slot, q, a, t = R.choice(opts)()
        return self.mk("2_nth_occurrence", slot, q, a, [r.gid(t)], True)

    def o3(self):
        R, r = self.rng, self.r
        opts = []
        N = R.choice([200, 300, 400, 500])
        ts = [t for t in r.occ(("mine", None)) if t < N]
        if ts:
            opts.append(lambda: ("step", f"Within the first {N} steps, what was the last step on which I mined something?", str(ts[-1]), [ts[-1]]))
        f = self.first(("craft", "stone pickaxe"))
        if f is not None:
            tt = [t for t in r.occ(("mine", None)) if t > f]
            if tt:
                opts.append(lambda: ("item", "Once the stone pickaxe was crafted, the first thing Flint mined afterwards -- how many coal was it holding then?",
                                     r.value(tt[0], "item", "coal"), [f, tt[0]]))
        A = self.rand_step(0, self.T // 2)
        B = A + 150
        tw = r.occ(("drink", "water"), A, B)
        if tw:
            opts.append(lambda: ("location", f"Somewhere between step {A} and step {B} I stopped for water; in which claim was the earliest of those drinks?",
                                 r.value(tw[0], "location"), [tw[0]]))
        d = self.first(("fall asleep", None))
        if d is not None:
            tz = [t for t in r.occ(("spot", "cow")) if t < d]
            if tz:
                opts.append(lambda: ("step", "Before the agent dozed off for the first time, when had it last spotted a cow?", str(tz[-1]), [d, tz[-1]]))
        if not opts:
            return None
        slot, q, a, g = R.choice(opts)()
        return self.mk("3_windowed_occurrence", slot, q, a, [r.gid(t) for t in g], True)

    def o4(self):
        R, r = self.rng, self.r
        opts = []
        ts = r.cond_steps(lambda t: r.st(t, "drink"), lambda v: v <= 2)
        if ts and ts[0] > 0 and r.st(ts[0], "drink") == 2:
            opts.append(lambda: ("location", "The first time my thirst meter sank to 2, where was I?", r.value(ts[0], "location"), ts[0]))
        ts2 = r.cond_steps(lambda t: r.item(t, "stone"), lambda v: v >= 5)
        if ts2 and r.item(ts2[0], "stone") == 5 and r.item(ts2[0] - 1, "stone") < 5:
            opts.append(lambda: ("step", "At what step did Flint first have five stones in hand?", str(ts2[0]), ts2[0]))
        ts3 = r.cond_steps(lambda t: r.st(t, "health"), lambda v: v <= 4)
        if ts3 and ts3[0] > 0:
            opts.append(lambda: ("step", "What was the last step at which the agent's health was 4 or lower?", str(ts3[-1]), ts3[-1]))
        ts4 = r.cond_steps(lambda t: r.st(t, "mode"), lambda v: v == "fleeing", transition=True)
        if ts4 and r.st(0, "mode") != "fleeing":
            opts.append(lambda: ("facing", "When our mode first turned to 'fleeing', what were we facing?", r.value(ts4[0], "facing"), ts4[0]))
        ts5 = r.cond_steps(lambda t: r.item(t, "wood"), lambda v: v == 0, transition=True)
        if ts5:
            opts.append(lambda: ("step", "When did I first use up all my wood?", str(ts5[0]), ts5[0]))
        if not opts:
            return None
        slot, q, a, t = R.choice(opts)()
        return self.mk("4_condition", slot, q, a, [r.gid(t)], True)

    def o5(self):
        R, r = self.rng, self.r
        opts = []
        f = self.first(("set up", "table"))
        if f is not None and f + 2 < self.T:
            opts.append(lambda: ("action", "Two steps after setting up its first table, what did the prospector do?", r.value(f + 2, "action"), [f, f + 2]))
        N = self.rand_step(5, self.T - 5)
        opts.append(lambda: ("location", f"Right after step {N}, which claim was I in?", r.value(N + 1, "location"), [N + 1]))
        d = self.first(("take damage", None))
        if d is not None and d >= 3:
            opts.append(lambda: ("position", "Three steps before Flint first got hurt, where was it (x,y)?", r.value(d - 3, "position"), [d, d - 3]))
        ts = r.cond_steps(lambda t: r.st(t, "energy"), lambda v: v <= 5)
        if ts and ts[0] > 0 and r.st(ts[0], "energy") == 5 and ts[0] + 4 < self.T:
            a = ts[0]
            opts.append(lambda: ("state", "Four steps after my energy first dropped to 5, what was my mode?", r.value(a + 4, "state", "mode"), [a, a + 4]))
        slot, q, a, g = R.choice(opts)()
        return self.mk("5_offset", slot, q, a, [r.gid(t) for t in g], True)

    def o6(self):
        R, r = self.rng, self.r
        opts = []
        w = self.first(("wake up", None))
        if w is not None:
            tt = [t for t in r.occ(("drink", "water")) if t > w]
            if tt:
                opts.append(lambda: ("step", "After I first woke up, when was my next drink of water?", str(tt[0]), [w, tt[0]]))
        N = self.rand_step(100, self.T - 5)
        tp = [t for t in r.occ(("chop", "wood")) if t < N]
        if tp:
            opts.append(lambda: ("location", f"Before step {N}, where had I most recently chopped wood?", r.value(tp[-1], "location"), [tp[-1]]))
        s = self.first(("slay", "zombie"))
        if s is not None:
            tt2 = [t for t in r.occ(("take damage", None)) if t > s]
            if tt2:
                opts.append(lambda: ("state", "Following Flint's first zombie kill, how much health did it have the next time it took damage?",
                                     r.value(tt2[0], "state", "health"), [s, tt2[0]]))
        c = self.first(("mine", "coal"))
        if c is not None:
            tp2 = [t for t in r.occ(("enter", None)) if t < c]
            if tp2:
                opts.append(lambda: ("step", "Just before the first coal came out of the rock, when had the agent previously crossed into a different claim?",
                                     str(tp2[-1]), [c, tp2[-1]]))
        slot, q, a, g = R.choice(opts)()
        return self.mk("6_next_previous", slot, q, a, [r.gid(t) for t in g], True)

    def o7(self):
        R, r = self.rng, self.r
        opts = []
        def cnt(pat, lo=0, hi=None, anchors=()):
            ts = r.occ(pat, lo, hi)
            return str(len(ts)), list(anchors) + ([ts[-1]] if ts else [])
        opts.append(lambda: ("How many stone blocks did I dig out over the whole run?",) + cnt(("mine", "stone")))
        opts.append(lambda: ("How often did Flint drink in its first 300 steps?",) + cnt(("drink", "water"), 0, 299))
        opts.append(lambda: ("Tally up the zombies we killed.",) + cnt(("slay", "zombie")))
        opts.append(lambda: ("How many diamonds did the prospector dig up?",) + cnt(("mine", "diamond")))
        f = self.first(("craft", "wood pickaxe"))
        if f is not None:
            opts.append(lambda: ("After crafting the first wooden pickaxe, how many tables did I set up?",)
                        + cnt(("set up", "table"), f + 1, None, [f]))
        opts.append(lambda: ("How many times in all did the agent fall asleep?",) + cnt(("fall asleep", None)))
        q, a, g = R.choice(opts)()
        return self.mk("7_count", "count", q, a, [r.gid(t) for t in g], True)

    def o8(self):
        R, r = self.rng, self.r
        opts = []
        pairs = [(("mine", "coal"), ("mine", "iron"), "Which did I mine first, coal or iron? Answer with the event."),
                 (("craft", "wood sword"), ("craft", "wood pickaxe"), "Was my first wooden tool a sword or a pickaxe? Answer with the event."),
                 (("discover", "lava"), ("discover", "diamond"), "Did the prospector lay eyes on lava before it ever saw a diamond?"),
                 (("slay", "zombie"), ("eat", "cow"), "Did Flint kill a zombie before it ate its first cow?"),
                 (("set up", "furnace"), ("perish", ""), "Had we built a furnace by the time we first died?"),
                 (("spot", "skeleton"), ("spot", "zombie"), "What showed up in view first, a skeleton or a zombie?")]
        for a, b, q in pairs:
            ta, tb = self.first(a), self.first(b)
            if ta is None or tb is None or ta == tb:
                continue
            if q.endswith("?") and (q.startswith(("Did", "Had"))):
                ans = "yes" if ta < tb else "no"
                if q.startswith("Had"):
                    ans = "yes" if ta <= tb else "no"
                opts.append(("yes/no", q, ans, [ta, tb]))
            else:
                opts.append(("which-first", q, label(*a) if ta < tb else label(*b), [ta, tb]))
        if not opts:
            return None
        slot, q, a, g = R.choice(opts)
        return self.mk("8_order", slot, q, a, [r.gid(t) for t in g], True)

    def o9(self):
        R, r = self.rng, self.r
        opts = []
        a, b = self.first(("craft", "wood pickaxe")), self.first(("craft", "stone pickaxe"))
        if a is not None and b is not None:
            opts.append(("How long did it take to go from a wooden pickaxe to a stone one, in steps?", a, b))
        a, b = self.first(("fall asleep", None)), self.first(("wake up", None))
        if a is not None and b is not None:
            opts.append(("How many steps did my first sleep last, from dozing off to waking?", a, b))
        ts = r.occ(("perish", None))
        if ts:
            opts.append(("How many steps into the run did Flint die for the first time?", 0, ts[0]))
        a, b = self.first(("discover", "coal")), self.first(("mine", "coal"))
        if a is not None and b is not None:
            opts.append(("From first catching sight of coal to actually mining some, how many steps went by?", a, b))
        if not opts:
            return None
        q, a, b = R.choice(opts)
        gold = [a, b] if not q.startswith("How many steps into") else [b]
        return self.mk("9_distance", "duration", q, str(abs(a - b)), [r.gid(t) for t in gold], True)

    def o10(self):
        R, r = self.rng, self.r
        opts = []
        ts = r.occ(("take damage", "lava"))
        opts.append(("Did I ever get burned by lava?", ts[:1], []))
        ts = r.occ(("mine", "diamond"))
        opts.append(("Any diamonds mined at all?", ts[:1], []))
        f = self.first(("craft", "stone sword"))
        if f is not None:
            ts = r.occ(("flee", None), f + 1)
            opts.append(("Once it had a stone sword, did the agent ever run away from anything?", ts[:1], [f]))
        ts = r.occ(("eat", "plant"))
        opts.append(("Did Flint ever eat a plant it had grown?", ts[:1], []))
        N = R.choice([60, 100, 150])
        ts = r.occ(("take damage", None), 0, N - 1)
        opts.append((f"Was I hurt at all in the first {N} steps?", ts[:1], []))
        q, ts, anchors = R.choice(opts)
        return self.mk("10_existence", "yes/no", q, "yes" if ts else "no", [r.gid(t) for t in list(ts) + anchors], True)


FAMILY_SLOTS = {
    "1_step_index": ["action", "location", "position", "inventory", "item", "state", "facing", "events"],
    "2_nth_occurrence": ["step", "step", "location", "state", "item", "position", "facing"],
    "3_windowed_occurrence": ["step", "step", "location", "item", "state", "position"],
    "4_condition": ["step", "step", "location", "state", "item", "facing", "position"],
    "5_offset": ["action", "location", "position", "item", "state", "facing", "events", "inventory"],
    "6_next_previous": ["step", "step", "location", "state", "position", "item"],
    "7_count": ["zero", "count", "count", "count"],
    "8_order": ["which-first", "yes/no"],
    "9_distance": ["duration"],
    "10_existence": ["yes/no"],
}


def make_questions(steps, ep, seed):
    g = Gen(steps, ep, seed)
    out = []
    seen = set()
    prefixes = set()
    for i, (fam, slots) in enumerate(FAMILY_SLOTS.items(), start=1):
        templ = getattr(g, f"f{i}")
        oneoff = getattr(g, f"o{i}")
        got = []
        tries = 0
        while sum(1 for q in got if q["_oneoff"]) < 2 and tries < 60:
            tries += 1
            q = oneoff()
            if q and q["question"] not in seen and q["question"][:20] not in prefixes:
                seen.add(q["question"])
                prefixes.add(q["question"][:20])
                got.append(q)
        order = slots[:]
        if fam != "7_count":
            g.rng.shuffle(order)
        k = 0
        tries = 0
        while len(got) < 6 and tries < 400:
            tries += 1
            slot = order[k % len(order)]
            try:
                q = templ(slot)
            except (IndexError, ValueError, TypeError):
                q = None
            if q is None or q["question"] in seen:
                continue
            if fam == "7_count" and q["answer"] == "0" and sum(1 for x in got if x["answer"] == "0") >= 2:
                continue
            if fam == "10_existence" and sum(1 for x in got if x["answer"] == q["answer"]) >= 4:
                continue
            seen.add(q["question"])
            got.append(q)
            k += 1
        if len(got) != 6:
            raise RuntimeError(f"{ep}: could not make 6 questions for {fam}")
        out.extend(got)
    for q in out:
        del q["_oneoff"]
    return out


def build(seed: int) -> dict:
    raw = rollout(seed)
    steps = to_records(raw)
    ep = f"{SUITE}_{seed}"
    validate_steps(steps, ep)
    return {"episodes": {ep: steps}, "questions": make_questions(steps, ep, seed)}


def _self_check(seeds):
    for seed in seeds:
        t0 = time.time()
        a = build(seed)
        dt = time.time() - t0
        b = build(seed)
        assert a == b, f"seed {seed}: build is not deterministic"
        (ep, steps), = a["episodes"].items()
        validate_steps(steps, ep)
        assert 300 <= len(steps) <= 1500 and all(s.t == i for i, s in enumerate(steps))
        qs = a["questions"]
        assert len(qs) == 60
        fams = Counter(q["family"] for q in qs)
        assert all(v == 6 for v in fams.values()) and len(fams) == 10, fams
        for q in qs:
            for gid in q["gold"]:
                e, t = gid.rsplit(":", 1)
                assert e == ep and 0 <= int(t) < len(steps), gid
        print(f"== seed {seed}: {len(steps)} steps, {len(qs)} questions, build {dt:.1f}s, deterministic")
        print("families/slots:")
        for (f, s), n in sorted(Counter((q["family"], q["slot"]) for q in qs).items(),
                                key=lambda x: (int(x[0][0].split("_")[0]), x[0][1])):
            print(f"  {f:24s} {s:12s} {n}")
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        print("answers yes/no:", Counter(q["answer"] for q in qs if q["slot"] == "yes/no"),
              "zero counts:", sum(1 for q in qs if q["slot"] == "count" and q["answer"] == "0"))
        rng = random.Random(seed)
        for q in rng.sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold={q['gold']}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args or [SEED_RANGE[0], SEED_RANGE[1]])
