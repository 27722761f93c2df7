"""Held-out suite 8 (Crafter): "Tern", a bridge-builder and scout.

The agent
---------
Tern lives in real Crafter worlds (64x64, spawn at the centre). A scripted policy reads the world
grid directly and:

* chops trees for wood, sets up a crafting table and makes a wood pickaxe and a wood sword, then
  quarries stone and makes the stone pickaxe and sword (setting up a fresh table near the stone when
  the old one is far away) and later a furnace next to its table;
* scouts far from its spawn, visiting named landmarks it picks out of each new world (the biggest
  lake, the highest rock, the densest wood, a sand bar, a coal seam, a far outpost); its planner
  crosses water by placing stone on it and opening the stone into a walkway ("bridges"), and
  tunnels through rock with its pickaxe;
* keeps itself alive: drinks when thirsty, hunts cows when hungry, sleeps when tired or at night in
  a two-tile pocket it walls in with stone, fights zombies and skeletons next to it and runs away
  when weak;
* dies sometimes; the next step it starts a new life in a fresh world whose seed is derived from the
  episode seed and the life number (the compass regions stay tied to the spawn point, which Crafter
  always puts at the centre).

The records
-----------
One ``Step`` per environment step, ``t`` = 0, 1, ... (600-1400 steps per episode):

* ``action``: the Crafter action name sent (``move_left``, ``do``, ``place_stone``, ``sleep``...).
* ``location``: ``region`` is a compass sector around the spawn ("spawn camp" within 5 tiles,
  "<dir> fringe" up to 16 tiles, "far <dir>" beyond; north is up), ``position`` the grid (x, y),
  ``underfoot`` the ground material.
* ``inventory``: items with a count above zero (names with spaces: "wood pickaxe").
* ``state``: health, food, drink, energy, life (1, 2, ...), bridges (bridge stones laid in all lives),
  landmarks (landmarks reached in all lives), distance (Manhattan distance from the spawn), task
  (what Tern was doing), asleep (bool).
* ``relations``: first ("Tern", "facing", <material or creature in front>), then "standing on" and,
  while scouting, "heading to" <landmark>.
* ``events`` (own words): chop wood, quarry <mineral>, dig through <mineral> (tunnelling on the
  way), bridge water, pave bridge (opening a bridge stone into a walkway), wall in stone, break out
  stone, forage sapling, sow sapling, sip water, feast cow, strike <creature>, slay <creature>,
  fashion <tool>, set up table/furnace, doze off, wake, wounded <cause>, perish <cause>, rise again,
  flee <creature>, enter <region>, arrive <landmark>.

Questions: 60 per seed (10 families x 6) computed by a reference evaluator that scans the steps, and
checked against the generator's own index of the episode.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
import sys
from collections import defaultdict

import numpy as np

import crafter
from crafter import constants, engine, objects

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout8_crafter"
SEED_RANGE = range(9500, 9600)
SHORT = "tern"
AGENT = "Tern"

SPAWN = (32, 32)
WALKABLE = ("grass", "sand", "path")
MINABLE = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe", "diamond": "iron_pickaxe"}
MOVES = (("move_left", (-1, 0)), ("move_right", (1, 0)), ("move_up", (0, -1)), ("move_down", (0, 1)))
ACTION_OF = {d: a for a, d in MOVES}
DIRS = tuple(d for _, d in MOVES)
VITALS = ("health", "food", "drink", "energy")
TABLE_WOOD = constants.place["table"]["uses"]["wood"]
FURNACE_STONE = constants.place["furnace"]["uses"]["stone"]

LANDMARK_NAMES = {
    "water": ["Heron Pool", "Mirror Mere", "Reedwater", "Otter Lake", "Silver Tarn", "Cold Spring"],
    "stone": ["Grey Spire", "Anvil Crag", "Wolf Tooth", "Cloud Tor", "Raven Peak", "Iron Knuckle"],
    "tree": ["Old Grove", "Elder Thicket", "Owl Wood", "Mossy Stand", "Hollow Copse", "Thorn Glade"],
    "sand": ["Dune Crest", "Gold Spit", "Shell Bar", "Pale Strand", "Salt Flat", "Amber Shoal"],
    "coal": ["Coal Seam", "Black Vein", "Soot Ledge", "Cinder Shelf", "Dark Lode", "Ash Pocket"],
    "far": ["Far Beacon", "Lone Cairn", "Last Marker", "Wind Post", "Edge Stone", "Outer Cairn"],
}
SECTORS = ("east", "northeast", "north", "northwest", "west", "southwest", "south", "southeast")


def region_of(pos) -> str:
    """Compass sector around the spawn: y grows downwards, so north is -y."""
    dx, dy = int(pos[0]) - SPAWN[0], int(pos[1]) - SPAWN[1]
    ring = max(abs(dx), abs(dy))
    if ring <= 5:
        return "spawn camp"
    angle = math.degrees(math.atan2(-dy, dx)) % 360.0
    sector = SECTORS[int(((angle + 22.5) % 360.0) // 45.0)]
    return f"{sector} fringe" if ring <= 16 else f"far {sector}"


ALL_REGIONS = ["spawn camp"] + [f"{s} fringe" for s in SECTORS] + [f"far {s}" for s in SECTORS]


def manhattan(a, b) -> int:
    return abs(int(a[0]) - int(b[0])) + abs(int(a[1]) - int(b[1]))


def item_name(key: str) -> str:
    return key.replace("_", " ")


# --------------------------------------------------------------------------------------------------
# Environment: real Crafter, without rendering, with a deterministic despawn choice and a record of
# which object's update hurt the player.
# --------------------------------------------------------------------------------------------------


class TernEnv(crafter.Env):
    def __init__(self, seed: int):  # lean: no textures or views, nothing is drawn
        self._area = (64, 64)
        self._view = np.array((9, 9))
        self._size = np.array((64, 64))
        self._reward = False
        self._length = None
        self._seed = seed
        self._episode = 0
        self._world = engine.World(self._area, constants.materials, (12, 12))
        self._step = None
        self._player = None
        self._last_health = None
        self._unlocked = None
        self.reward_range = None
        self.metadata = None

    def _obs(self):
        return None

    def render(self, size=None):
        return None

    def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist,
                        spawn_prob, despawn_prob, ctor, target_fn):
        xmin, xmax, ymin, ymax = chunk
        random_ = self._world.random
        creatures = sorted((obj for obj in objs if isinstance(obj, cls)),
                           key=lambda o: (int(o.pos[0]), int(o.pos[1])))
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and random_.uniform() < spawn_prob:
            xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
            ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
            xs, ys = xs[mask], ys[mask]
            i = random_.randint(0, len(xs))
            pos = np.array((xs[i], ys[i]))
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and random_.uniform() < despawn_prob:
            obj = creatures[random_.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)

    def _cause(self, obj) -> str:
        if isinstance(obj, objects.Zombie):
            return "zombie"
        if isinstance(obj, objects.Arrow):
            return "arrow"
        if isinstance(obj, objects.Player):
            if self._world[obj.pos][0] == "lava":
                return "lava"
            inv = obj.inventory
            if inv["food"] <= 0:
                return "hunger"
            if inv["drink"] <= 0:
                return "thirst"
            return "exhaustion"
        return type(obj).__name__.lower()

    def act(self, action: str):
        """One Crafter step (the upstream loop without drawing); returns (dead, causes of harm)."""
        self._step += 1
        self._update_time()
        player = self._player
        player.action = action
        hurts = []
        for obj in self._world.objects:
            if player.distance(obj) < 2 * max(self._view):
                before = player.health
                obj.update()
                if player.health < before:
                    hurts.append(self._cause(obj))
        if self._step % 10 == 0:
            for chunk, objs in self._world.chunks.items():
                self._balance_chunk(chunk, objs)
        return player.health <= 0, hurts


# --------------------------------------------------------------------------------------------------
# The agent.
# --------------------------------------------------------------------------------------------------


class Tern:
    def __init__(self, seed: int, rng: random.Random):
        self.seed = seed
        self.rng = rng
        self.life = 0
        self.bridges = 0
        self.reached = 0
        self.dead = False
        self.new_life()

    # ---- life ----------------------------------------------------------------------------------
    def new_life(self):
        self.life += 1
        self.env = TernEnv(self.seed * 1000 + self.life)
        self.env.reset()
        self.world = self.env._world
        self.p = self.env._player
        self.dead = False
        self.walls = set()
        self.bridge_tiles = set()
        self.tables = []
        self.furnaces = []
        self.path = []
        self.path_key = None
        self.path_age = 0
        self.need = None
        self.pocket = None
        self.cool = defaultdict(int)
        self.flee_left = 0
        self.task = "gathering wood"
        self.heading = None
        self.wander = None
        self.forage_tries = 0
        self.landmarks = self._find_landmarks()

    def _find_landmarks(self):
        mat = self.world._mat_map
        ids = self.world._mat_ids
        xs, ys = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
        dist = np.abs(xs - SPAWN[0]) + np.abs(ys - SPAWN[1])
        chosen = []

        def density(mask, r):
            pre = np.zeros((65, 65), int)
            pre[1:, 1:] = mask.astype(int).cumsum(0).cumsum(1)
            x0, x1 = np.clip(xs - r, 0, 64), np.clip(xs + r + 1, 0, 64)
            y0, y1 = np.clip(ys - r, 0, 64), np.clip(ys + r + 1, 0, 64)
            return pre[x1, y1] - pre[x0, y1] - pre[x1, y0] + pre[x0, y0]

        def far_enough(x, y):
            return all(abs(x - cx) + abs(y - cy) >= 9 for cx, cy, _ in chosen)

        for kind in ("water", "stone", "tree", "sand", "coal"):
            if kind not in ids:
                continue
            mask = mat == ids[kind]
            score = density(mask, 3) * 1000 + dist
            score = np.where(mask & (dist >= 10), score, -1)
            order = np.argsort(-score, axis=None, kind="stable")
            for flat in order[:400]:
                x, y = divmod(int(flat), 64)
                if score[x, y] < 0:
                    break
                if far_enough(x, y):
                    chosen.append((x, y, kind))
                    break
        walk = np.isin(mat, [ids[m] for m in WALKABLE if m in ids])
        score = np.where(walk & (dist <= 26), dist, -1)
        order = np.argsort(-score, axis=None, kind="stable")
        for flat in order[:400]:
            x, y = divmod(int(flat), 64)
            if score[x, y] < 18:
                break
            if far_enough(x, y):
                chosen.append((x, y, "far"))
                break
        marks = []
        for x, y, kind in chosen:
            pool = LANDMARK_NAMES[kind]
            name = pool[(self.life - 1) % len(pool)]
            if self.life > len(pool):
                name = f"{name} {self.life}"
            marks.append({"name": name, "pos": (x, y), "kind": kind, "reached": False, "skipped": False})
        return marks

    # ---- world helpers ---------------------------------------------------------------------------
    def pos(self):
        return (int(self.p.pos[0]), int(self.p.pos[1]))

    def facing(self):
        return (int(self.p.facing[0]), int(self.p.facing[1]))

    def front(self):
        (x, y), (dx, dy) = self.pos(), self.facing()
        return (x + dx, y + dy)

    def at(self, tile):
        return self.world[tile]

    def free(self, tile):
        m, o = self.world[tile]
        return o is None and m in WALKABLE

    def creatures(self, radius):
        here = self.pos()
        out = []
        for obj in self.world.objects:
            if isinstance(obj, (objects.Zombie, objects.Skeleton, objects.Cow)):
                d = manhattan(here, obj.pos)
                if d <= radius:
                    out.append((d, int(obj.pos[0]), int(obj.pos[1]), obj))
        out.sort(key=lambda e: e[:3])
        return out

    def near_station(self, name, radius):
        here = self.pos()
        best = None
        for tile in (self.tables if name == "table" else self.furnaces):
            if self.world[tile][0] != name:
                continue
            d = max(abs(tile[0] - here[0]), abs(tile[1] - here[1]))
            if d <= radius and (best is None or d < best[0]):
                best = (d, tile)
        return best[1] if best else None

    # ---- planning --------------------------------------------------------------------------------
    def plan(self, goal, max_cost=400):
        """Cheapest route (Dijkstra) to a tile satisfying goal; tiles of rock are tunnelled, water is
        bridged (place stone, open it, walk), trees are chopped. Returns the tiles to walk, or None."""
        mat = self.world._mat_map.tolist()
        names = self.world._mat_names
        objmap = self.world._obj_map.tolist()
        objs = self.world._objects
        inv = self.p.inventory
        pick = {name: inv[req] > 0 for name, req in MINABLE.items()}
        bridge_ok = inv["stone"] > 0 and inv["wood_pickaxe"] > 0
        start = self.pos()
        danger = defaultdict(int)
        for _, cx, cy, obj in self.creatures(24):
            reach = 2 if isinstance(obj, objects.Zombie) else 4 if isinstance(obj, objects.Skeleton) else -1
            for ddx in range(-reach, reach + 1):
                for ddy in range(-reach + abs(ddx), reach - abs(ddx) + 1):
                    danger[(cx + ddx, cy + ddy)] += 3
        if goal(start):
            return []
        dist = {start: 0}
        prev = {}
        heap = [(0, start)]
        while heap:
            c, u = heapq.heappop(heap)
            if c > dist[u]:
                continue
            if u != start and goal(u):
                route = [u]
                while route[-1] in prev and prev[route[-1]] != start:
                    route.append(prev[route[-1]])
                return route[::-1]
            if c > max_cost:
                break
            for dx, dy in DIRS:
                x, y = u[0] + dx, u[1] + dy
                if not (0 <= x < 64 and 0 <= y < 64):
                    continue
                name = names[mat[x][y]]
                if name in WALKABLE:
                    step = 1
                    oid = objmap[x][y]
                    if oid:
                        obj = objs[oid]
                        if isinstance(obj, objects.Plant):
                            continue
                        step += 3
                elif name == "tree":
                    step = 3
                elif name == "water":
                    if not bridge_ok:
                        continue
                    step = 4
                elif name in MINABLE:
                    if not pick[name]:
                        continue
                    step = 3 if name == "stone" else 4
                else:
                    continue
                v = (x, y)
                nc = c + step + danger.get(v, 0)
                if nc < dist.get(v, 1 << 30):
                    dist[v] = nc
                    prev[v] = u
                    heapq.heappush(heap, (nc, v))
        return None

    def reach_all(self, max_cost):
        """Costs of every walkable tile reachable by plain walking (for choosing a sleeping pocket)."""
        start = self.pos()
        dist = {start: 0}
        prev = {}
        heap = [(0, start)]
        while heap:
            c, u = heapq.heappop(heap)
            if c > dist[u] or c >= max_cost:
                continue
            for dx, dy in DIRS:
                v = (u[0] + dx, u[1] + dy)
                if not (0 <= v[0] < 64 and 0 <= v[1] < 64) or not self.free(v):
                    continue
                if c + 1 < dist.get(v, 1 << 30):
                    dist[v] = c + 1
                    prev[v] = u
                    heapq.heappush(heap, (c + 1, v))
        return dist, prev

    def advance(self):
        """The action that moves one tile along the stored route (turning, bridging, digging first)."""
        if not self.path:
            return None
        here = self.pos()
        nxt = self.path[0]
        d = (nxt[0] - here[0], nxt[1] - here[1])
        if d not in ACTION_OF:
            self.path = []
            return None
        act = ACTION_OF[d]
        m, o = self.world[nxt]
        if o is not None:
            if isinstance(o, (objects.Zombie, objects.Skeleton, objects.Cow)):
                return "do" if self.facing() == d else act
            return "noop"
        if m in WALKABLE:
            return act
        if self.facing() != d:
            return act if m != "lava" else None
        if m == "water":
            return "place_stone" if self.p.inventory["stone"] > 0 else None
        if m in MINABLE or m == "tree":
            return "do"
        self.path = []
        return None

    def goto(self, key, goal, max_cost=400, every=20):
        """One step towards a goal; 'here' when it is reached, None when there is no route."""
        if goal(self.pos()):
            self.path = []
            return "here"
        if self.path_key != key or not self.path or self.path_age >= every:
            route = self.plan(goal, max_cost)
            self.path_key = key
            self.path_age = 0
            if route is None:
                self.path = []
                return None
            self.path = route
            if not route:
                return "here"
        self.path_age += 1
        act = self.advance()
        if act is None:
            route = self.plan(goal, max_cost)
            self.path = route or []
            self.path_age = 0
            act = self.advance() if route else None
        return act

    def face_and(self, tile, action):
        here = self.pos()
        d = (tile[0] - here[0], tile[1] - here[1])
        if self.facing() == d:
            return action
        return ACTION_OF[d]

    def adjacent(self, pred):
        here = self.pos()
        for d in DIRS:
            tile = (here[0] + d[0], here[1] + d[1])
            if pred(tile):
                return tile
        return None

    # ---- behaviours ------------------------------------------------------------------------------
    def decide(self):
        """(action, task, intent, flee target): intent 'harvest' marks deliberate mining."""
        self.fleeing_now = None
        if self.p.sleeping:
            return "sleep", "resting", None
        for key in list(self.cool):
            if self.cool[key] > 0:
                self.cool[key] -= 1
        threat = self.threat()
        if threat:
            return threat
        inv = self.p.inventory
        if self.pocket is not None:
            got = self.pocket_step()
            if got:
                return got
        if self.need is None:
            if inv["drink"] <= 4 and not self.cool["drink"]:
                self.need = "drink"
            elif inv["food"] <= 4 and not self.cool["food"]:
                self.need = "food"
            elif (inv["energy"] <= 3 or (self.world.daylight < 0.3 and inv["energy"] <= 7)
                  or (inv["health"] <= 4 and inv["energy"] <= 8)) and not self.cool["sleep"]:
                self.need = "sleep"
        if self.need == "drink":
            got = self.drink()
            if got:
                return got
        if self.need == "food":
            got = self.hunt()
            if got:
                return got
        if self.need == "sleep":
            got = self.bed_down()
            if got:
                return got
        return self.progress()

    def threat(self):
        near = [c for c in self.creatures(7) if isinstance(c[3], (objects.Zombie, objects.Skeleton))]
        if not near:
            self.flee_left = 0
            return None
        inv = self.p.inventory
        armed = inv["wood_sword"] or inv["stone_sword"] or inv["iron_sword"]
        health = inv["health"]
        for d, x, y, obj in near:
            if d == 1:
                if health >= 4 or armed or isinstance(obj, objects.Skeleton):
                    self.pocket = None
                    return self.face_and((x, y), "do"), "fighting", None
                return self.flee(near)
        if self.flee_left > 0:
            self.flee_left -= 1
            return self.flee(near)
        if self.cool["flee"]:
            return None
        if (health <= 4 and any(d <= 3 and isinstance(o, objects.Zombie) for d, _, _, o in near)) or (
                health <= 5 and any(d <= 5 and isinstance(o, objects.Skeleton) for d, _, _, o in near)):
            self.flee_left = 6
            self.cool["flee"] = 36
            return self.flee(near)
        return None

    def flee(self, near):
        here = self.pos()
        best = None
        for act, (dx, dy) in MOVES:
            tile = (here[0] + dx, here[1] + dy)
            if not self.free(tile):
                continue
            score = sum(manhattan(tile, (x, y)) for _, x, y, _ in near)
            if best is None or score > best[0]:
                best = (score, act)
        if best is None:
            d, x, y, _ = near[0]
            if d == 1:
                return self.face_and((x, y), "do"), "fighting", None
            return None
        self.pocket = None
        self.path = []
        self.fleeing_now = "zombie" if isinstance(near[0][3], objects.Zombie) else "skeleton"
        return best[1], "fleeing", None

    def drink(self):
        inv = self.p.inventory
        if inv["drink"] >= 9:
            self.need = None
            return None
        water = self.adjacent(lambda tile: self.world[tile][0] == "water" and self.world[tile][1] is None)
        if water:
            return self.face_and(water, "do"), "drinking", None
        goal = lambda tile: any(self.world[(tile[0] + dx, tile[1] + dy)][0] == "water" for dx, dy in DIRS)
        act = self.goto("drink", goal, max_cost=120)
        if act is None or act == "here":
            self.need = None
            self.cool["drink"] = 40
            return None
        return act, "drinking", None

    def hunt(self):
        inv = self.p.inventory
        if inv["food"] >= 8:
            self.need = None
            return None
        cow = self.adjacent(lambda tile: isinstance(self.world[tile][1], objects.Cow))
        if cow:
            return self.face_and(cow, "do"), "hunting", None
        cows = [c for c in self.creatures(30) if isinstance(c[3], objects.Cow)]
        if not cows:
            self.need = None
            self.cool["food"] = 40
            return None
        spots = {(x + dx, y + dy) for _, x, y, _ in cows for dx, dy in DIRS}
        key = ("hunt", tuple(sorted((x, y) for _, x, y, _ in cows[:3])))
        act = self.goto(key, lambda tile: tile in spots, max_cost=90, every=3)
        if act is None or act == "here":
            self.need = None
            self.cool["food"] = 30
            return None
        return act, "hunting", None

    def bed_down(self):
        pocket = self.find_pocket()
        if pocket is None:
            inv = self.p.inventory
            if inv["wood_pickaxe"] and inv["stone"] < 2 and inv["energy"] > 1:
                got = self.quarry(min_cost=150)
                if got:
                    return got[0], "walling in", got[2]
            if inv["energy"] <= 2 or self.world.daylight < 0.3:
                self.need = None
                self.cool["sleep"] = 30
                return "sleep", "resting", None
            self.need = None
            self.cool["sleep"] = 25
            return None
        self.pocket = pocket
        return self.pocket_step()

    def find_pocket(self):
        """A two-tile pocket O->E->E2 (straight line) whose sides are blocked: enter, step to E2, seal
        the tile ahead, step back to E (now facing O) and seal O."""
        inv = self.p.inventory
        dist, prev = self.reach_all(40)
        cands = sorted(dist.items(), key=lambda kv: (kv[1], kv[0]))

        def blocked(tile):
            m, _ = self.world[tile]
            return m is None or m not in WALKABLE

        def enterable(tile):
            m, o = self.world[tile]
            if o is not None or m is None:
                return False
            if m in WALKABLE or m == "tree":
                return True
            return m in ("stone", "coal") and inv["wood_pickaxe"] > 0

        foes = [(x, y) for _, x, y, o in self.creatures(40) if not isinstance(o, objects.Cow)]
        for tile, cost in cands:
            if any(manhattan(tile, f) <= 6 for f in foes):
                continue
            for d in DIRS:
                e = (tile[0] + d[0], tile[1] + d[1])
                e2 = (e[0] + d[0], e[1] + d[1])
                ahead = (e2[0] + d[0], e2[1] + d[1])
                if not (enterable(e) and enterable(e2)):
                    continue
                sides = [(c[0] + d[1], c[1] + d[0]) for c in (e, e2)] + [(c[0] - d[1], c[1] - d[0]) for c in (e, e2)]
                if not all(blocked(s) for s in sides):
                    continue
                m_ahead, o_ahead = self.world[ahead]
                if o_ahead is not None:
                    continue
                need = 1 + (1 if (m_ahead in WALKABLE) else 0)
                gain = sum(1 for c in (e, e2) if self.world[c][0] == "stone")
                if inv["stone"] + gain < need:
                    continue
                route = [tile]
                while route[-1] in prev:
                    route.append(prev[route[-1]])
                return {"O": tile, "d": d, "E": e, "E2": e2, "A": ahead, "back": False,
                        "route": route[::-1][1:], "steps": 0}
        return None

    def pocket_step(self):
        pk = self.pocket
        pk["steps"] += 1
        if pk["steps"] > len(pk["route"]) + 30:
            self.pocket = None
            self.need = None
            self.cool["sleep"] = 20
            return None
        here = self.pos()
        d = pk["d"]
        back = (-d[0], -d[1])
        inv = self.p.inventory
        if here == pk["E"] and pk["back"]:
            m, o = self.world[pk["O"]]
            if self.facing() != back:
                self.pocket = None
                return None
            if o is not None:
                return "do", "walling in", None
            if m in WALKABLE:
                if inv["stone"] <= 0:
                    self.pocket = None
                    return None
                return "place_stone", "walling in", None
            self.pocket = None
            self.need = None
            self.cool["sleep"] = 40
            return "sleep", "resting", None
        if here == pk["E2"]:
            m, o = self.world[pk["A"]]
            if m in WALKABLE and o is None and inv["stone"] > 0 and self.facing() == d:
                return "place_stone", "walling in", None
            if m in WALKABLE and o is not None:
                return self.face_and(pk["A"], "do"), "walling in", None
            pk["back"] = True
            return ACTION_OF[back], "walling in", None
        if here == pk["E"]:
            return self.step_into(pk["E2"], d)
        if here == pk["O"]:
            return self.step_into(pk["E"], d)
        self.path = pk["route"][pk["route"].index(here) + 1:] if here in pk["route"] else self.plan(lambda t: t == pk["O"], 80) or []
        self.path_key = ("pocket", pk["O"])
        self.path_age = 0
        act = self.advance()
        if act is None:
            self.pocket = None
            return None
        return act, "walling in", None

    def step_into(self, tile, d):
        m, o = self.world[tile]
        if o is not None:
            return self.face_and(tile, "do"), "walling in", None
        if m in WALKABLE:
            return ACTION_OF[d], "walling in", None
        if self.facing() != d:
            return ACTION_OF[d], "walling in", None
        return "do", "walling in", None

    def chop(self):
        tree = self.adjacent(lambda tile: self.world[tile][0] == "tree")
        if tree:
            return self.face_and(tree, "do"), "gathering wood", "harvest"
        goal = lambda tile: self.free(tile) and any(
            self.world[(tile[0] + dx, tile[1] + dy)][0] == "tree" for dx, dy in DIRS)
        act = self.goto("chop", goal, max_cost=150)
        if act is None or act == "here":
            return None
        return act, "gathering wood", None

    def quarry(self, want=("coal", "stone"), min_cost=200):
        rock = self.adjacent(lambda tile: self.world[tile][0] in want)
        if rock:
            return self.face_and(rock, "do"), "quarrying", "harvest"
        goal = lambda tile: self.free(tile) and any(
            self.world[(tile[0] + dx, tile[1] + dy)][0] in want for dx, dy in DIRS)
        act = self.goto(("quarry", want), goal, max_cost=min_cost)
        if act is None or act == "here":
            return None
        return act, "quarrying", None

    def place_station(self, what):
        tile = self.front()
        m, o = self.world[tile]
        if o is None and m in WALKABLE and tile != self.pos():
            return f"place_{what}", "crafting", None
        here = self.pos()
        options = [(act, (here[0] + dx, here[1] + dy)) for act, (dx, dy) in MOVES]
        self.rng.shuffle(options)
        for act, tile in options:
            if self.free(tile):
                return act, "crafting", None
        for act, tile in options:
            if self.world[tile][0] in ("tree", "stone"):
                return self.face_and(tile, "do"), "crafting", None
        return "noop", "crafting", None

    def at_station(self, name, tool):
        table = self.near_station(name, 30)
        if table is None:
            return None
        goal = lambda tile: tile != table and max(abs(tile[0] - table[0]), abs(tile[1] - table[1])) <= 1
        act = self.goto(("station", table), goal, max_cost=200)
        if act == "here":
            return f"make_{tool}", "crafting", None
        if act is None:
            self.tables = [t for t in self.tables if t != table]
            return None
        return act, "crafting", None

    def progress(self):
        inv = self.p.inventory
        # 1. wood tools
        if not inv["wood_pickaxe"] or not inv["wood_sword"]:
            table = self.near_station("table", 12)
            need = (0 if table else TABLE_WOOD) + (0 if inv["wood_pickaxe"] else 1) + (0 if inv["wood_sword"] else 1)
            if inv["wood"] < need:
                got = self.chop()
                if got:
                    return got
            elif not table:
                return self.place_station("table")
            else:
                got = self.at_station("table", "wood_pickaxe" if not inv["wood_pickaxe"] else "wood_sword")
                if got:
                    return got
        # a handful of tries at finding a sapling in the grass, and sowing it
        if inv["wood_pickaxe"] and self.forage_tries < 12:
            m, o = self.world[self.front()]
            if m == "grass" and o is None:
                self.forage_tries += 1
                if inv["sapling"]:
                    self.forage_tries = 99
                    return "place_plant", "sowing", None
                return "do", "foraging", "harvest"
        # 2. stone tools
        if inv["wood_pickaxe"] and (not inv["stone_pickaxe"] or not inv["stone_sword"]):
            missing = (0 if inv["stone_pickaxe"] else 1) + (0 if inv["stone_sword"] else 1)
            table = self.near_station("table", 12)
            wood_need = missing + (0 if table else TABLE_WOOD)
            if inv["wood"] < wood_need and not self.cool["chop"]:
                got = self.chop()
                if got:
                    return got
                self.cool["chop"] = 60
            elif inv["stone"] < missing + 2 and not self.cool["quarry"]:
                got = self.quarry()
                if got:
                    return got
                self.cool["quarry"] = 60
            elif inv["wood"] >= wood_need and inv["stone"] >= missing:
                if not table:
                    return self.place_station("table")
                got = self.at_station("table", "stone_pickaxe" if not inv["stone_pickaxe"] else "stone_sword")
                if got:
                    return got
        # 3. a furnace next to the table it works at
        if inv["stone_pickaxe"] and not self.furnaces and not self.cool["furnace"]:
            table = self.near_station("table", 12)
            if inv["stone"] < FURNACE_STONE + 2:
                got = self.quarry()
                if got:
                    return got
                self.cool["furnace"] = 80
            elif table:
                if max(abs(self.pos()[0] - table[0]), abs(self.pos()[1] - table[1])) <= 1:
                    return self.place_station("furnace")
                got = self.at_station("table", "stone_sword")
                if got and got[0].startswith("make_"):
                    return self.place_station("furnace")
                if got:
                    return got
            elif inv["wood"] >= TABLE_WOOD:
                return self.place_station("table")
            else:
                got = self.chop()
                if got:
                    return got
                self.cool["furnace"] = 80
        # 4. iron tools when the makings are at hand
        if inv["iron"] and inv["coal"] and inv["wood"] and self.near_station("furnace", 20) and self.near_station("table", 20):
            tool = "iron_pickaxe" if not inv["iron_pickaxe"] else "iron_sword"
            table = self.near_station("table", 20)
            furnace = self.near_station("furnace", 20)
            if max(abs(table[0] - furnace[0]), abs(table[1] - furnace[1])) <= 2:
                goal = lambda tile: all(max(abs(tile[0] - s[0]), abs(tile[1] - s[1])) <= 1 for s in (table, furnace)) and tile not in (table, furnace)
                act = self.goto(("iron", table), goal, max_cost=120)
                if act == "here":
                    return f"make_{tool}", "crafting", None
                if act:
                    return act, "crafting", None
        # 5. opportunistic minerals on the way
        if inv["wood_pickaxe"]:
            want = ["coal"] + (["iron"] if inv["stone_pickaxe"] else []) + (["diamond"] if inv["iron_pickaxe"] else [])
            rock = self.adjacent(lambda tile: self.world[tile][0] in want)
            if rock:
                return self.face_and(rock, "do"), "quarrying", "harvest"
            if inv["stone"] < 3 and not self.cool["quarry"]:
                got = self.quarry(("stone",), min_cost=40)
                if got:
                    return got
                self.cool["quarry"] = 50
        if inv["wood"] < 1 and not self.cool["chop"]:
            got = self.chop()
            if got:
                return got
            self.cool["chop"] = 80
        return self.scout()

    def scout(self):
        here = self.pos()
        todo = [lm for lm in self.landmarks if not lm["reached"] and not lm["skipped"]]
        if todo:
            todo.sort(key=lambda lm: (manhattan(here, lm["pos"]), lm["name"]))
            lm = todo[0]
            goal = lambda tile: manhattan(tile, lm["pos"]) <= 2
            act = self.goto(("lm", lm["name"]), goal, max_cost=600, every=25)
            if act is None:
                lm["skipped"] = True
                return "noop", "scouting", None
            if act == "here":
                return "noop", "scouting", None
            self.heading = lm["name"]
            return act, "scouting", None
        self.heading = None
        for _ in range(6):
            if self.wander is None:
                x, y = self.rng.randrange(4, 60), self.rng.randrange(4, 60)
                if manhattan(here, (x, y)) < 14 or self.world[(x, y)][0] == "lava":
                    continue
                self.wander = (x, y)
            target = self.wander
            act = self.goto(("wander", target), lambda tile: manhattan(tile, target) <= 1, max_cost=500, every=25)
            if act is None or act == "here":
                self.wander = None
                continue
            return act, "wandering", None
        return "noop", "wandering", None


# --------------------------------------------------------------------------------------------------
# Adapter: run the agent and turn each step into a Step record.
# --------------------------------------------------------------------------------------------------


def creature_name(obj) -> str:
    if isinstance(obj, objects.Plant):
        return "ripe plant" if obj.ripe else "sapling plant"
    return type(obj).__name__.lower()


def facing_name(world, tile) -> str:
    m, o = world[tile]
    if o is not None:
        return creature_name(o)
    return "map edge" if m is None else m


def tools_of(inv) -> dict:
    return {item_name(k): int(v) for k, v in sorted(inv.items()) if k not in VITALS and v > 0}


def simulate(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 101)
    length = rng.randint(600, 1400)
    tern = Tern(seed, rng)
    steps = []
    prev_region = region_of(tern.pos())
    was_fleeing = False
    for t in range(length):
        events = []
        if tern.dead:
            tern.new_life()
            events.append(Event("rise again", ""))
        p = tern.p
        world = tern.world
        pre_inv = dict(p.inventory)
        pre_ach = dict(p.achievements)
        pre_sleep = p.sleeping
        target = tern.front()
        m0, o0 = world[target]
        action, task, intent = tern.decide()
        flee_from = tern.fleeing_now
        dead, hurts = tern.env.act(action)
        inv = p.inventory
        ach = p.achievements
        m1, o1 = world[target]
        gained = lambda k: inv[k] > pre_inv[k]
        if not pre_sleep and action == "do":
            if o0 is not None and not isinstance(o0, (objects.Arrow, objects.Plant)):
                kind = creature_name(o0)
                if ach["defeat_zombie"] > pre_ach["defeat_zombie"]:
                    events.append(Event("slay", "zombie"))
                elif ach["defeat_skeleton"] > pre_ach["defeat_skeleton"]:
                    events.append(Event("slay", "skeleton"))
                elif ach["eat_cow"] > pre_ach["eat_cow"]:
                    events.append(Event("feast", "cow"))
                else:
                    events.append(Event("strike", kind))
            elif isinstance(o0, objects.Plant) and ach["eat_plant"] > pre_ach["eat_plant"]:
                events.append(Event("feast", "plant"))
            elif o0 is None:
                if m0 == "tree" and m1 != "tree":
                    events.append(Event("chop", "wood"))
                elif m0 == "water" and gained("drink"):
                    events.append(Event("sip", "water"))
                elif m0 in MINABLE and m1 == "path":
                    if target in tern.walls:
                        tern.walls.discard(target)
                        events.append(Event("break out", m0))
                    elif target in tern.bridge_tiles:
                        tern.bridge_tiles.discard(target)
                        events.append(Event("pave", "bridge"))
                    elif intent == "harvest":
                        events.append(Event("quarry", m0))
                    else:
                        events.append(Event("dig through", m0))
                elif m0 == "grass" and gained("sapling"):
                    events.append(Event("forage", "sapling"))
        if action == "place_stone" and m1 == "stone" and m0 != "stone":
            if m0 in ("water", "lava"):
                tern.bridges += 1
                tern.bridge_tiles.add(target)
                events.append(Event("bridge", m0))
            else:
                tern.walls.add(target)
                events.append(Event("wall in", "stone"))
        if action == "place_table" and m1 == "table" and m0 != "table":
            tern.tables.append(target)
            events.append(Event("set up", "table"))
        if action == "place_furnace" and m1 == "furnace" and m0 != "furnace":
            tern.furnaces.append(target)
            events.append(Event("set up", "furnace"))
        if action == "place_plant" and inv["sapling"] < pre_inv["sapling"]:
            events.append(Event("sow", "sapling"))
        if action.startswith("make_") and gained(action[5:]):
            events.append(Event("fashion", item_name(action[5:])))
        if flee_from and not was_fleeing:
            events.append(Event("flee", flee_from))
        was_fleeing = bool(flee_from)
        if not pre_sleep and p.sleeping:
            events.append(Event("doze off", ""))
        if pre_sleep and not p.sleeping:
            events.append(Event("wake", ""))
        for cause in dict.fromkeys(hurts):
            events.append(Event("wounded", cause))
        if dead:
            tern.dead = True
            events.append(Event("perish", hurts[-1] if hurts else "exhaustion"))
        here = tern.pos()
        region = region_of(here)
        if region != prev_region:
            events.append(Event("enter", region))
        prev_region = region
        for lm in tern.landmarks:
            if not lm["reached"] and manhattan(here, lm["pos"]) <= 2:
                lm["reached"] = True
                tern.reached += 1
                events.append(Event("arrive", lm["name"]))
        face = facing_name(world, tern.front())
        under = world[here][0] or "unknown"
        relations = [Relation(AGENT, "facing", face), Relation(AGENT, "standing on", under)]
        if task == "scouting" and tern.heading:
            relations.append(Relation(AGENT, "heading to", tern.heading))
        near = sorted({creature_name(c[3]) for c in tern.creatures(4)})
        state = {
            "health": int(inv["health"]), "food": int(inv["food"]), "drink": int(inv["drink"]),
            "energy": int(inv["energy"]), "life": tern.life, "bridges": tern.bridges,
            "landmarks": tern.reached, "distance": manhattan(here, SPAWN), "task": task,
            "asleep": bool(p.sleeping),
        }
        obs = (f"{AGENT} faces {face} while {task}; health {state['health']}, food {state['food']}, "
               f"drink {state['drink']}, energy {state['energy']}"
               + (f"; nearby: {', '.join(near)}" if near else "") + ".")
        steps.append(Step(
            t=t, action=action, summary="; ".join(label(e) for e in events),
            objects=tuple(near), events=tuple(events), relations=tuple(relations),
            inventory=tools_of(inv), state=state,
            location=Location(position=here, region=region, underfoot=under), observation=obs,
        ))
    return steps


def label(ev) -> str:
    return f"{ev.kind} {ev.obj}" if ev.obj else ev.kind


# --------------------------------------------------------------------------------------------------
# Answers: slot values, the reference evaluator (plain scans over the steps) and the generator's own
# index (occurrence lists searched by bisection). Every question is answered by both and they must
# agree.
#
# Specs: anchors are ("t", n) (a step number), ("ev", pattern, n) (n-th occurrence, n < 0 from the
# end), ("next" | "prev", pattern, anchor) (first occurrence strictly after / last strictly before).
# Window bounds given by step numbers are inclusive, by events exclusive. A pattern is (kind, obj)
# with obj None for any object. Gold: the target step(s) plus every step an event anchor resolves to.
# --------------------------------------------------------------------------------------------------


def fmt_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def slot_value(step: Step, slot: str, arg=None) -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "inventory":
        items = [f"{name} {count}" for name, count in step.inventory if count > 0]
        return ", ".join(items) if items else "none"
    if slot == "item":
        return str(dict(step.inventory).get(arg, 0))
    if slot == "state":
        return fmt_value(dict(step.state)[arg])
    if slot == "facing":
        return step.relations[0].obj
    if slot == "events":
        return "; ".join(label(e) for e in step.events) or "none"
    raise ValueError(slot)


def pat_label(pat) -> str:
    kind, obj = pat
    return f"{kind} {obj}" if obj else kind


def has_event(step: Step, pat) -> bool:
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def var_value(step: Step, var):
    where, name = var
    if where == "item":
        return dict(step.inventory).get(name, 0)
    return dict(step.state)[name]


def compare(value, cmp, v) -> bool:
    return {"<=": value <= v, ">=": value >= v, "==": value == v, ">": value > v, "<": value < v}[cmp]


def count_gold(ts):
    return list(ts) if len(ts) <= 5 else [ts[-1]]


class Reference:
    """The reference evaluator: every answer is found by scanning the steps in order."""

    def __init__(self, steps):
        self.steps = steps

    def find(self, anchor):
        tag = anchor[0]
        if tag == "t":
            return anchor[1], []
        if tag == "ev":
            _, pat, n = anchor
            hits = []
            for step in self.steps:
                if has_event(step, pat):
                    hits.append(step.t)
            t = hits[n - 1] if n > 0 else hits[n]
            return t, [t]
        _, pat, base = anchor
        bt, bgold = self.find(base)
        if tag == "next":
            for step in self.steps:
                if step.t > bt and has_event(step, pat):
                    return step.t, bgold + [step.t]
        else:
            for step in reversed(self.steps):
                if step.t < bt and has_event(step, pat):
                    return step.t, bgold + [step.t]
        raise LookupError(anchor)

    def span(self, lo, hi):
        first, last, gold = 0, len(self.steps) - 1, []
        if lo is not None:
            t, g = self.find(lo)
            first = t if lo[0] == "t" else t + 1
            gold += g
        if hi is not None:
            t, g = self.find(hi)
            last = t if hi[0] == "t" else t - 1
            gold += g
        return first, last, gold

    def matches(self, pat, lo=None, hi=None):
        first, last, gold = self.span(lo, hi)
        return [s.t for s in self.steps if first <= s.t <= last and has_event(s, pat)], gold

    def answer(self, spec):
        op = spec["op"]
        steps = self.steps
        if op == "at":
            t, gold = spec["t"], []
        elif op == "nth":
            hits, gold = self.matches(spec["pat"], spec.get("lo"), spec.get("hi"))
            n = spec["n"]
            t = hits[n - 1] if n > 0 else hits[n]
        elif op == "cond":
            first, last, gold = self.span(spec.get("lo"), None)
            found = []
            for step in steps:
                if not first <= step.t <= last:
                    continue
                value = var_value(step, spec["var"])
                if spec["cmp"] == "runout":
                    ok = value == 0 and step.t > 0 and var_value(steps[step.t - 1], spec["var"]) > 0
                else:
                    ok = compare(value, spec["cmp"], spec["v"])
                if ok:
                    found.append(step.t)
            t = found[0] if spec["which"] == "first" else found[-1]
        elif op == "offset":
            base, gold = self.find(spec["anchor"])
            t = base + spec["k"]
        elif op == "next":
            t, gold = self.find(spec["anchor"])
            gold = gold[:-1]
        elif op in ("count", "list", "exists"):
            hits, gold = self.matches(spec["pat"], spec.get("lo"), spec.get("hi"))
            if op == "count":
                return str(len(hits)), sorted(set(gold + count_gold(hits)))
            if op == "exists":
                return ("yes" if hits else "no"), sorted(set(gold + hits[:1]))
            names = []
            for step in steps:
                if step.t in hits:
                    for e in step.events:
                        if e.kind == spec["pat"][0] and e.obj not in names:
                            names.append(e.obj)
            return ", ".join(sorted(names)), sorted(set(gold + count_gold(hits)))
        elif op == "order":
            ta, ga = self.find(spec["a"])
            tb, gb = self.find(spec["b"])
            first = spec["a"] if ta < tb else spec["b"]
            return pat_label(first[1]), sorted(set(ga + gb))
        elif op == "dist":
            ta, ga = self.find(spec["a"])
            tb, gb = self.find(spec["b"])
            return str(abs(ta - tb)), sorted(set(ga + gb))
        else:
            raise ValueError(op)
        value = slot_value(steps[t], spec["slot"], spec.get("arg"))
        return value, sorted(set(gold + [t]))


class Index:
    """The generator's own index of an episode: occurrence lists per pattern, value arrays per
    variable, searched by bisection."""

    def __init__(self, steps):
        self.steps = steps
        self.T = len(steps)
        self.occ = defaultdict(list)
        for step in steps:
            seen = set()
            for e in step.events:
                for pat in ((e.kind, e.obj), (e.kind, None)):
                    if pat not in seen:
                        seen.add(pat)
                        self.occ[pat].append(step.t)
        self.values = {}

    def hits(self, pat):
        return self.occ.get(pat, [])

    def series(self, var):
        if var not in self.values:
            self.values[var] = [var_value(s, var) for s in self.steps]
        return self.values[var]

    def find(self, anchor):
        tag = anchor[0]
        if tag == "t":
            return anchor[1], []
        if tag == "ev":
            _, pat, n = anchor
            hits = self.hits(pat)
            if not hits or (n > 0 and n > len(hits)) or (n < 0 and -n > len(hits)) or n == 0:
                return None, []
            t = hits[n - 1] if n > 0 else hits[n]
            return t, [t]
        _, pat, base = anchor
        bt, bgold = self.find(base)
        if bt is None:
            return None, []
        hits = self.hits(pat)
        if tag == "next":
            i = bisect.bisect_right(hits, bt)
            if i >= len(hits):
                return None, []
            return hits[i], bgold + [hits[i]]
        i = bisect.bisect_left(hits, bt) - 1
        if i < 0:
            return None, []
        return hits[i], bgold + [hits[i]]

    def span(self, lo, hi):
        first, last, gold = 0, self.T - 1, []
        if lo is not None:
            t, g = self.find(lo)
            if t is None:
                return None
            first, gold = (t if lo[0] == "t" else t + 1), gold + g
        if hi is not None:
            t, g = self.find(hi)
            if t is None:
                return None
            last, gold = (t if hi[0] == "t" else t - 1), gold + g
        return first, last, gold

    def within(self, pat, lo=None, hi=None):
        sp = self.span(lo, hi)
        if sp is None:
            return None, []
        first, last, gold = sp
        hits = self.hits(pat)
        return hits[bisect.bisect_left(hits, first):bisect.bisect_right(hits, last)], gold

    def answer(self, spec):
        """(answer, gold) or None when the spec does not resolve."""
        op = spec["op"]
        if op == "at":
            t, gold = spec["t"], []
        elif op == "nth":
            hits, gold = self.within(spec["pat"], spec.get("lo"), spec.get("hi"))
            n = spec["n"]
            if not hits or n == 0 or (n > 0 and n > len(hits)) or (n < 0 and -n > len(hits)):
                return None
            t = hits[n - 1] if n > 0 else hits[n]
        elif op == "cond":
            sp = self.span(spec.get("lo"), None)
            if sp is None:
                return None
            first, last, gold = sp
            series = self.series(spec["var"])
            if spec["cmp"] == "runout":
                found = [t for t in range(max(first, 1), last + 1) if series[t] == 0 and series[t - 1] > 0]
            else:
                found = [t for t in range(first, last + 1) if compare(series[t], spec["cmp"], spec["v"])]
            if not found:
                return None
            t = found[0] if spec["which"] == "first" else found[-1]
        elif op == "offset":
            base, gold = self.find(spec["anchor"])
            if base is None:
                return None
            t = base + spec["k"]
            if not 0 <= t < self.T:
                return None
        elif op == "next":
            t, gold = self.find(spec["anchor"])
            if t is None:
                return None
            gold = gold[:-1]
        elif op in ("count", "list", "exists"):
            hits, gold = self.within(spec["pat"], spec.get("lo"), spec.get("hi"))
            if hits is None:
                return None
            if op == "count":
                return str(len(hits)), sorted(set(gold + count_gold(hits)))
            if op == "exists":
                return ("yes" if hits else "no"), sorted(set(gold + hits[:1]))
            names = sorted({e.obj for t in hits for e in self.steps[t].events if e.kind == spec["pat"][0]})
            return ", ".join(names), sorted(set(gold + count_gold(hits)))
        elif op in ("order", "dist"):
            ta, ga = self.find(spec["a"])
            tb, gb = self.find(spec["b"])
            if ta is None or tb is None:
                return None
            if op == "order":
                if ta == tb:
                    return None
                return pat_label((spec["a"] if ta < tb else spec["b"])[1]), sorted(set(ga + gb))
            return str(abs(ta - tb)), sorted(set(ga + gb))
        else:
            raise ValueError(op)
        return slot_value(self.steps[t], spec["slot"], spec.get("arg")), sorted(set(gold + [t]))


# --------------------------------------------------------------------------------------------------
# Wording.
# --------------------------------------------------------------------------------------------------


def art(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


CAUSES = {"zombie": "a zombie", "arrow": "an arrow", "skeleton": "a skeleton", "hunger": "hunger",
          "thirst": "thirst", "exhaustion": "exhaustion", "lava": "lava"}
STATION = {"table": "crafting table", "furnace": "furnace"}


def phrase_options(kind: str, obj):
    """(base form, past form) wordings of an event pattern."""
    if kind == "chop":
        return [("chop wood", "chopped wood"), ("cut down a tree", "cut down a tree"),
                ("harvest wood from a tree", "harvested wood from a tree"), ("gather a log", "gathered a log")]
    if kind == "quarry":
        if obj is None:
            return [("quarry something", "quarried something"), ("mine any mineral", "mined a mineral")]
        return [(f"quarry {obj}", f"quarried {obj}"), (f"mine some {obj}", f"mined some {obj}"),
                (f"dig {obj} out of the rock", f"dug {obj} out of the rock")]
    if kind == "dig through":
        return [(f"tunnel through {obj}", f"tunnelled through {obj}"),
                (f"bore a passage through {obj}", f"bored a passage through {obj}"),
                (f"dig through {obj}", f"dug through {obj}")]
    if kind == "bridge":
        if obj == "lava":
            return [("bridge over lava", "bridged over lava"), ("lay a stone over lava", "laid a stone over lava")]
        return [("bridge the water", "bridged the water"),
                ("lay a bridge stone on the water", "laid a bridge stone on the water"),
                ("drop a stone into the water to build a crossing", "dropped a stone into the water to build a crossing")]
    if kind == "pave":
        return [("pave a bridge tile", "paved a bridge tile"),
                ("open a bridge stone into a walkway", "opened a bridge stone into a walkway"),
                ("clear a bridge block to walk on", "cleared a bridge block to walk on")]
    if kind == "wall in":
        return [("wall in with stone", "walled in with stone"),
                ("put up a stone wall block", "put up a stone wall block"),
                ("place a stone to seal a shelter", "placed a stone to seal a shelter")]
    if kind == "break out":
        return [("break out of a stone shelter", "broke out of a stone shelter"),
                ("knock down a shelter wall", "knocked down a shelter wall"),
                ("break out through stone", "broke out through stone")]
    if kind == "forage":
        return [("forage a sapling", "foraged a sapling"), ("find a sapling in the grass", "found a sapling in the grass"),
                ("pick up a sapling", "picked up a sapling")]
    if kind == "sow":
        return [("sow a sapling", "sowed a sapling"), ("plant a sapling", "planted a sapling"),
                ("put a sapling in the ground", "put a sapling in the ground")]
    if kind == "sip":
        return [("sip water", "sipped water"), ("drink from the water", "drank from the water"),
                ("take a drink of water", "took a drink of water")]
    if kind == "feast":
        if obj == "plant":
            return [("eat a ripe plant", "ate a ripe plant"), ("feast on a ripe plant", "feasted on a ripe plant")]
        return [("feast on a cow", "feasted on a cow"), ("eat a cow", "ate a cow"),
                ("kill a cow and eat it", "killed a cow and ate it")]
    if kind == "strike":
        if obj is None:
            return [("strike a creature", "struck a creature"), ("hit a creature without killing it", "hit a creature without killing it")]
        return [(f"strike {art(obj)}", f"struck {art(obj)}"), (f"hit {art(obj)} without killing it", f"hit {art(obj)} without killing it"),
                (f"land a blow on {art(obj)}", f"landed a blow on {art(obj)}")]
    if kind == "slay":
        if obj is None:
            return [("slay a monster", "slew a monster"), ("defeat an enemy", "defeated an enemy")]
        return [(f"slay {art(obj)}", f"slew {art(obj)}"), (f"kill {art(obj)}", f"killed {art(obj)}"),
                (f"defeat {art(obj)}", f"defeated {art(obj)}")]
    if kind == "flee":
        return [(f"flee from {art(obj)}", f"fled from {art(obj)}"), (f"run away from {art(obj)}", f"ran away from {art(obj)}"),
                (f"retreat from {art(obj)}", f"retreated from {art(obj)}")]
    if kind == "fashion":
        if obj is None:
            return [("craft a tool", "crafted a tool"), ("make a tool", "made a tool")]
        return [(f"fashion {art(obj)}", f"fashioned {art(obj)}"), (f"craft {art(obj)}", f"crafted {art(obj)}"),
                (f"make {art(obj)}", f"made {art(obj)}")]
    if kind == "set up":
        noun = STATION[obj]
        return [(f"set up {art(noun)}", f"set up {art(noun)}"), (f"place {art(noun)}", f"placed {art(noun)}"),
                (f"build {art(noun)}", f"built {art(noun)}")]
    if kind == "doze off":
        return [("doze off", "dozed off"), ("fall asleep", "fell asleep"), ("go to sleep", "went to sleep")]
    if kind == "wake":
        return [("wake", "woke"), ("wake up", "woke up"), ("stir from sleep", "stirred from sleep")]
    if kind == "wounded":
        if obj is None:
            return [("get hurt", "got hurt"), ("take damage", "took damage"), ("get wounded", "got wounded")]
        c = CAUSES[obj]
        return [(f"get hurt by {c}", f"got hurt by {c}"), (f"take damage from {c}", f"took damage from {c}"),
                (f"get wounded by {c}", f"got wounded by {c}")]
    if kind == "perish":
        if obj is None:
            return [("die", "died"), ("perish", "perished"), ("lose a life", "lost a life")]
        c = CAUSES[obj]
        return [(f"die from {c}", f"died from {c}"), (f"perish because of {c}", f"perished because of {c}"),
                (f"lose a life to {c}", f"lost a life to {c}")]
    if kind == "rise again":
        return [("start a new life", "started a new life"), ("respawn", "respawned"), ("rise again", "rose again")]
    if kind == "enter":
        if obj is None:
            return [("cross into a different region", "crossed into a different region"), ("change regions", "changed regions")]
        return [(f"enter the {obj}", f"entered the {obj}"), (f"cross into the {obj}", f"crossed into the {obj}"),
                (f"move into the {obj}", f"moved into the {obj}")]
    if kind == "arrive":
        if obj is None:
            return [("reach a landmark", "reached a landmark"), ("arrive at a landmark", "arrived at a landmark")]
        return [(f"reach {obj}", f"reached {obj}"), (f"arrive at {obj}", f"arrived at {obj}"),
                (f"make it to the landmark {obj}", f"made it to the landmark {obj}")]
    raise KeyError(kind)


ANY_KINDS = ("quarry", "strike", "slay", "fashion", "wounded", "perish", "enter", "arrive")

# (S, P, was, O) for the subject as first named and as a pronoun afterwards.
SUBJECTS = [
    (("I", "my", "was", "me"), ("I", "my", "was", "me")),
    (("we", "our", "were", "us"), ("we", "our", "were", "us")),
    (("you", "your", "were", "you"), ("you", "your", "were", "you")),
    (("Tern", "Tern's", "was", "Tern"), ("it", "its", "was", "it")),
    (("the agent", "the agent's", "was", "the agent"), ("it", "its", "was", "it")),
    (("the scout", "the scout's", "was", "the scout"), ("it", "its", "was", "it")),
]

ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth"]


def ordinal_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


ITEM_NOUN = {"wood": "pieces of wood", "stone": "pieces of stone", "coal": "lumps of coal", "iron": "pieces of iron",
             "diamond": "diamonds", "sapling": "saplings"}
ITEM_MASS = {"wood": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamonds", "sapling": "saplings"}


def item_noun(name: str) -> str:
    return ITEM_NOUN.get(name, name + "s")


STATE_ASK = {
    "health": ["what was {P} health", "how much health did {S} have"],
    "food": ["what was {P} food level", "how full was {P} food bar (0-9)"],
    "drink": ["what was {P} drink level", "what did {P} drink meter read"],
    "energy": ["what was {P} energy", "how much energy did {S} have"],
    "life": ["which life {was} {S} on (the life number)", "what was {P} life number"],
    "bridges": ["how many bridge stones had {S} laid so far", "what was {P} running count of bridge stones"],
    "landmarks": ["how many landmarks had {S} reached so far", "what was {P} landmark tally"],
    "distance": ["how far, in Manhattan distance, {was} {S} from the spawn point",
                 "what was {P} Manhattan distance from the spawn"],
    "task": ["what task {was} {S} on", "what {was} {S} busy with according to the task field"],
    "asleep": ["{was} {S} asleep (true or false)"],
}
VITAL_WORD = {"health": "health", "food": "food level", "drink": "drink level", "energy": "energy"}

SLOT_ASK = {
    "action": ["which action did {S} take", "what action did {S} perform", "what command did {S} issue"],
    "location": ["which region {was} {S} in", "in which region {was} {S}", "what part of the map {was} {S} in"],
    "position": ["what were {P} coordinates", "at which grid position (x,y) {was} {S}", "what was {P} x,y position"],
    "inventory": ["what {was} {S} holding", "what did {S} carry", "what was in {P} inventory"],
    "facing": ["what {was} {S} facing", "what was directly in front of {O}"],
    "events": ["what events were recorded", "which events were logged", "what happened"],
}


def cap(text: str) -> str:
    return text[0].upper() + text[1:]


def fill(template: str, forms) -> str:
    S, P, was, O = forms
    return template.replace("{S}", S).replace("{P}", P).replace("{was}", was).replace("{O}", O)


def tidy(text: str, subj) -> str:
    """Name a third-person subject once; later mentions become the pronoun."""
    noun, pron = subj
    name = noun[0]
    if name in ("I", "we", "you"):
        return text
    i = text.lower().find(name.lower())
    if i < 0:
        return text
    j = i + len(name)
    rest = text[j:]
    for tail in (" ", "?", ",", "."):
        rest = rest.replace(f" {name}{tail}", f" {pron[0]}{tail}")
    rest = rest.replace(f" {name}'s ", f" {pron[1]} ")
    return text[:j] + rest


FAMILIES = ["1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence"]


# --------------------------------------------------------------------------------------------------
# Question generator.
# --------------------------------------------------------------------------------------------------

S, P, WAS, O = "{S}", "{P}", "{was}", "{O}"
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
STATE_NAMES = ["health", "food", "drink", "energy", "life", "bridges", "landmarks", "distance", "task", "asleep"]
STATE_WEIGHTS = [4, 3, 3, 3, 1, 2, 2, 2, 3, 1]


class Generator:
    def __init__(self, eid: str, steps, seed: int):
        self.eid = eid
        self.steps = steps
        self.T = len(steps)
        self.idx = Index(steps)
        self.ref = Reference(steps)
        self.rng = random.Random(seed * 104729 + 8)
        self.texts = set()
        self.questions = []
        self.family = None
        self.slot_bag = []
        self.specific = sorted((p for p in self.idx.occ if p[1] is not None), key=lambda p: (p[0], p[1]))
        self.items_seen = sorted({name for s in steps for name, c in s.inventory if c > 0})
        self.lives = max(int(dict(s.state)["life"]) for s in steps)

    # ---- small helpers ---------------------------------------------------------------------------
    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def hits(self, pat):
        return self.idx.hits(pat)

    def subj(self):
        return self.choice(SUBJECTS)

    def phr(self, pat):
        return self.choice(phrase_options(*pat))

    def ordw(self, n: int) -> str:
        if n == -1:
            return self.choice(["last", "final", "very last"])
        if n == -2:
            return self.choice(["second-to-last", "penultimate", "next-to-last"])
        if n <= len(ORDINALS) and self.rng.random() < 0.6:
            return ORDINALS[n - 1]
        return ordinal_digits(n)

    def numw(self, k: int) -> str:
        return NUMBER_WORDS[k] if k < len(NUMBER_WORDS) and self.rng.random() < 0.5 else str(k)

    def steps_word(self, k: int) -> str:
        return f"{self.numw(k)} step" + ("s" if k != 1 else "")

    def pick_n(self, count: int, low=False):
        if count <= 0:
            return None
        options = list(range(1, min(count, 12) + 1))
        if count >= 2:
            options += [-1, -1]
        if count >= 3:
            options += [-2]
        if low:
            options = [n for n in options if n in (1, 2, 3, -1)] or options
        return self.choice(options)

    def at_n(self, hits, n):
        return hits[n - 1] if n > 0 else hits[n]

    def pick_pat(self, min_n=1, allow_any=0.0, exclude=(), cond=None):
        if allow_any and self.rng.random() < allow_any:
            anys = [(k, None) for k in ANY_KINDS if len(self.hits((k, None))) >= min_n
                    and len({p[1] for p in self.specific if p[0] == k}) >= 2 and k not in exclude]
            anys = [p for p in anys if cond is None or cond(p)]
            if anys:
                return self.choice(anys)
        cands = [p for p in self.specific if len(self.hits(p)) >= min_n and p[0] not in exclude
                 and (cond is None or cond(p))]
        if not cands:
            return None
        kinds = sorted({p[0] for p in cands})
        kind = self.choice(kinds)
        return self.choice([p for p in cands if p[0] == kind])

    def universe(self):
        pats = [("chop", "wood"), ("quarry", "stone"), ("quarry", "coal"), ("quarry", "iron"), ("quarry", "diamond"),
                ("dig through", "stone"), ("dig through", "coal"), ("dig through", "iron"), ("bridge", "water"),
                ("bridge", "lava"), ("pave", "bridge"), ("wall in", "stone"), ("break out", "stone"),
                ("forage", "sapling"), ("sow", "sapling"), ("sip", "water"), ("feast", "cow"), ("feast", "plant"),
                ("strike", "zombie"), ("strike", "skeleton"), ("strike", "cow"), ("slay", "zombie"),
                ("slay", "skeleton"), ("flee", "zombie"), ("flee", "skeleton"), ("set up", "table"),
                ("set up", "furnace"), ("doze off", ""), ("wake", ""), ("rise again", "")]
        pats += [("fashion", item_name(f"{m}_{k}")) for m in ("wood", "stone", "iron") for k in ("pickaxe", "sword")]
        pats += [("wounded", c) for c in CAUSES] + [("perish", c) for c in CAUSES]
        pats += [("enter", r) for r in ALL_REGIONS]
        for life in range(1, self.lives + 1):
            for pool in LANDMARK_NAMES.values():
                name = pool[(life - 1) % len(pool)]
                pats.append(("arrive", name if life <= len(pool) else f"{name} {life}"))
        return pats

    def absent_pats(self, lo=None, hi=None):
        out = []
        for pat in self.universe():
            hits, _ = self.idx.within(pat, lo, hi)
            if hits is not None and not hits:
                out.append(pat)
        return out

    def pick_t(self, with_events=False):
        if with_events:
            cands = [s.t for s in self.steps if s.events]
            if cands:
                return self.choice(cands)
        return self.rng.randrange(self.T)

    def pick_item(self, t=None):
        held = [n for n, c in self.steps[t].inventory if c > 0] if t is not None else []
        if held and self.rng.random() < 0.7:
            return self.choice(held)
        if self.items_seen and self.rng.random() < 0.85:
            return self.choice(self.items_seen)
        return self.choice(["wood", "stone", "sapling", "coal", "iron", "diamond"])

    def pick_state(self):
        return self.rng.choices(STATE_NAMES, weights=STATE_WEIGHTS)[0]

    def pick_arg(self, slot, t=None):
        if slot == "item":
            return self.pick_item(t)
        if slot == "state":
            return self.pick_state()
        return None

    def next_slot(self, slots):
        if not self.slot_bag:
            self.slot_bag = list(slots)
            self.rng.shuffle(self.slot_bag)
        return self.slot_bag.pop()

    def ask(self, slot, arg):
        if slot == "item":
            noun = item_noun(arg)
            return self.choice([f"how many {noun} did {S} have", f"how many {noun} {WAS} {S} carrying"])
        if slot == "state":
            return self.choice(STATE_ASK[arg])
        return self.choice(SLOT_ASK[slot])

    def compose(self, slot, arg, when, subj=None):
        """A step-slot question from a 'when' clause, clause order either way."""
        noun, pron = subj = subj or self.subj()
        question = self.ask(slot, arg)
        names_subject = any(mark in when for mark in (S, P, O))
        if self.rng.random() < 0.5:
            text = cap(fill(when, noun)) + ", " + fill(question, pron if names_subject else noun) + "?"
        else:
            text = cap(fill(question, noun)) + " " + fill(when, pron) + "?"
        return tidy(text, subj)

    def add(self, slot, text, spec, expect=None):
        text = " ".join(text.split())
        text = cap(text)
        if text in self.texts:
            return False
        got = self.idx.answer(spec)
        if got is None:
            return False
        ref = self.ref.answer(spec)
        assert ref == got, (text, spec, ref, got)
        if expect is not None:
            assert ref[0] == expect, (text, spec, ref, expect)
        self.texts.add(text)
        self.questions.append({
            "episode": self.eid, "family": self.family, "slot": slot, "question": text,
            "answer": ref[0], "gold": [f"{self.eid}:{t}" for t in ref[1]],
        })
        return True

    def safe_steps(self, pats, count=2, gap=60):
        """Step numbers A < B (B - A >= gap) on which none of the patterns occur."""
        bad = set()
        for pat in pats:
            bad.update(self.hits(pat))
        for _ in range(40):
            a = self.rng.randrange(0, self.T - gap - 1)
            b = self.rng.randrange(a + gap, self.T)
            if a not in bad and b not in bad and (a + 1) not in bad and (b - 1) not in bad:
                return (a, b) if count == 2 else a
        return None

    def safe_step(self, pats, lo=1, hi=None):
        bad = set()
        for pat in pats:
            bad.update(self.hits(pat))
        hi = self.T - 2 if hi is None else hi
        for _ in range(40):
            t = self.rng.randrange(lo, max(lo + 1, hi))
            if t not in bad and t - 1 not in bad and t + 1 not in bad:
                return t
        return None

    def two(self, first, second, subj=None):
        """Join two clauses; the subject is named in the first and a pronoun in the second."""
        noun, pron = subj or self.subj()
        names_subject = any(mark in first for mark in (S, P, O))
        return tidy(cap(fill(first, noun) + fill(second, pron if names_subject else noun)), (noun, pron))

    def win_steps(self, pat):
        ab = self.safe_steps([pat])
        if not ab:
            return None
        a, b = ab
        phrase = self.choice([f"between step {a} and step {b}", f"from step {a} to step {b}"])
        return ("t", a), ("t", b), phrase, {"a": a, "b": b}

    def win_first(self, pat):
        hits = self.hits(pat)
        if hits[0] + 2 >= self.T:
            return None
        n = self.rng.randrange(max(60, hits[0] + 2), self.T)
        if (n - 1) in hits or n in hits:
            return None
        return None, ("t", n - 1), self.choice([f"in the first {n} steps", f"during the first {n} steps"]), {"n": n}

    def win_after(self, pat):
        hits = self.hits(pat)
        a = self.safe_step([pat], 1, hits[-1])
        if a is None:
            return None
        return ("t", a + 1), None, self.choice([f"after step {a}", f"once step {a} had passed"]), {"a": a}

    def win_between(self, pat):
        hits = self.hits(pat)
        other = [p for p in self.specific if p[0] != pat[0]]
        for _ in range(30):
            pa, pb = self.choice(other), self.choice(other)
            ta, tb = self.hits(pa)[0], self.hits(pb)[0]
            if pa == pb or tb - ta < 8 or ta in hits or tb in hits:
                continue
            if not any(ta < t < tb for t in hits):
                continue
            qa, qb = self.phr(pa)[1], self.phr(pb)[1]
            phrase = f"between the first time {S} {qa} and the first time {S} {qb}"
            return ("ev", pa, 1), ("ev", pb, 1), phrase, {"qa": qa, "qb": qb}
        return None

    def win_before(self, pat):
        hits = self.hits(pat)
        other = [p for p in self.specific if p != pat]
        for _ in range(30):
            pb = self.choice(other)
            n = self.pick_n(len(self.hits(pb)), low=True)
            tb = self.at_n(self.hits(pb), n)
            if tb in hits or not any(t < tb for t in hits):
                continue
            qb = self.phr(pb)[1]
            phrase = f"before {S} first {qb}" if n == 1 else f"before the {self.ordw(n)} time {S} {qb}"
            return None, ("ev", pb, n), phrase, {"qb": qb, "n": n}
        return None

    def win_afterev(self, pat):
        hits = self.hits(pat)
        other = [p for p in self.specific if p != pat]
        for _ in range(30):
            pa = self.choice(other)
            n = self.pick_n(len(self.hits(pa)), low=True)
            ta = self.at_n(self.hits(pa), n)
            if ta in hits or not any(t > ta for t in hits):
                continue
            qa = self.phr(pa)[1]
            phrase = f"after {S} first {qa}" if n == 1 else f"after the {self.ordw(n)} time {S} {qa}"
            return ("ev", pa, n), None, phrase, {"qa": qa, "n": n}
        return None

    def window(self, pat):
        """A window holding at least one occurrence of pat whose bounds are unambiguous:
        (lo, hi, phrase with subject marks, details)."""
        builder = self.choice([self.win_steps, self.win_first, self.win_after, self.win_between,
                               self.win_before, self.win_afterev])
        return builder(pat)

    # ---- families --------------------------------------------------------------------------------
    def run_family(self, family, templates, oneoffs, modes=None):
        self.family = family
        self.slot_bag = []
        pool = list(oneoffs)
        self.rng.shuffle(pool)
        made, tries, one = 0, 0, 0
        modes = list(modes) if modes else [None] * 6
        while made < 6:
            tries += 1
            assert tries < 600, (self.eid, family, made)
            mode = modes[made]
            if one < 2 and pool:
                fn = pool.pop()
                if fn(mode):
                    made += 1
                    one += 1
                continue
            if one < 2 and not pool and tries < 60:
                pool = list(oneoffs)
                self.rng.shuffle(pool)
            fn = self.choice(templates)
            if fn(mode):
                made += 1

    def build(self):
        self.run_family("1_step_index", [self.f1], self.oneoffs1())
        self.run_family("2_nth_occurrence", [self.f2], self.oneoffs2())
        self.run_family("3_windowed_occurrence", [self.f3], self.oneoffs3())
        self.run_family("4_condition", [self.f4], self.oneoffs4())
        self.run_family("5_offset", [self.f5], self.oneoffs5())
        self.run_family("6_next_previous", [self.f6a, self.f6b], self.oneoffs6())
        modes = ["zero", "zero", None, None, None, "list"]
        self.rng.shuffle(modes)
        self.run_family("7_count", [self.f7], self.oneoffs7(), modes)
        self.run_family("8_order", [self.f8], self.oneoffs8())
        self.run_family("9_distance", [self.f9], self.oneoffs9())
        modes = ["yes", "yes", "yes", "no", "no", "no"]
        self.rng.shuffle(modes)
        self.run_family("10_existence", [self.f10], self.oneoffs10(), modes)
        return self.questions

    # 1 ---------------------------------------------------------------------------------------------
    def f1(self, mode):
        slot = self.next_slot(["inventory", "action", "location", "position", "item", "state", "facing", "events"])
        t = self.pick_t(with_events=slot == "events")
        arg = self.pick_arg(slot, t)
        when = self.choice([f"at step {t}", f"as of step {t}", f"on step {t}", f"when step {t} was done"])
        return self.add(slot, self.compose(slot, arg, when), {"op": "at", "t": t, "slot": slot, "arg": arg},
                        expect=slot_value(self.steps[t], slot, arg))

    def oneoffs1(self):
        def at(slot, text, t, arg=None):
            return self.add(slot, text, {"op": "at", "t": t, "slot": slot, "arg": arg})

        def a(mode):
            t = self.pick_t()
            return at("facing", f"Right after step {t} was taken, which tile or creature sat directly in front of Tern?", t)

        def b(mode):
            t = self.pick_t()
            return at("action", f"Step {t}: which command did the agent issue?", t)

        def c(mode):
            t = self.pick_t()
            item = self.pick_item(t)
            return at("item", f"Looking only at step {t}, how many {item_noun(item)} were in Tern's pack?", t, item)

        def d(mode):
            t = self.pick_t(with_events=True)
            return at("events", f"What did the log note happening at step {t}?", t)

        def e(mode):
            t = self.pick_t()
            return at("location", f"Which part of the map did step {t} leave me in?", t)

        def f(mode):
            t = self.pick_t()
            return at("position", f"Once step {t} was done, which grid square, as x,y, did Tern occupy?", t)

        def g(mode):
            t = self.pick_t()
            vital = self.choice(list(VITAL_WORD))
            return at("state", f"If you had checked my {VITAL_WORD[vital]} right after step {t}, what would it have read?", t, vital)

        def h(mode):
            t = self.pick_t()
            return at("inventory", f"Item by item, what was in my bag when step {t} ended?", t)

        def i(mode):
            t = self.pick_t()
            return at("state", f"What was Tern busy with at step {t}, going by its task field?", t, "task")

        def j(mode):
            t = self.pick_t()
            return at("state", f"By the end of step {t}, how many stones had Tern laid down as bridges, counting every life?", t, "bridges")

        def k(mode):
            t = self.pick_t()
            return at("state", f"How far from the spawn point, in Manhattan steps, did the scout stand at step {t}?", t, "distance")

        return [a, b, c, d, e, f, g, h, i, j, k]

    # 2 ---------------------------------------------------------------------------------------------
    def nth_spec(self, pat, n, slot, arg=None, lo=None, hi=None):
        spec = {"op": "nth", "pat": pat, "n": n, "slot": slot, "arg": arg}
        if lo is not None:
            spec["lo"] = lo
        if hi is not None:
            spec["hi"] = hi
        return spec

    def f2(self, mode):
        slot = self.next_slot(["step", "location", "state", "inventory", "facing", "action", "position", "item", "events"])
        pat = self.pick_pat(1, allow_any=0.2)
        hits = self.hits(pat)
        n = self.pick_n(len(hits))
        t = self.at_n(hits, n)
        base, past = self.phr(pat)
        ordw = self.ordw(n)
        noun, pron = subj = self.subj()
        arg = self.pick_arg(slot, t)
        if slot == "step":
            options = [f"at which step did {S} {base} for the {ordw} time?", f"when did {S} {base} for the {ordw} time?",
                       f"at what step was the {ordw} time {S} {past}?"]
            if n == -1:
                options.append(f"when did {S} last {base}?")
            text = cap(fill(self.choice(options), noun))
        else:
            when = self.choice([f"the {ordw} time {S} {past}", f"when {S} {past} for the {ordw} time"])
            text = self.compose(slot, arg, when, subj)
        return self.add(slot, text, self.nth_spec(pat, n, slot, arg), expect=slot_value(self.steps[t], slot, arg))

    def oneoffs2(self):
        def nth(slot, make, n_choice=None, arg_of=None, min_n=1):
            pat = self.pick_pat(min_n)
            if pat is None:
                return False
            hits = self.hits(pat)
            n = n_choice(len(hits)) if n_choice else self.pick_n(len(hits))
            if n is None:
                return False
            base, past = self.phr(pat)
            arg = arg_of(self.at_n(hits, n)) if arg_of else None
            return self.add(slot, make(base, past, self.ordw(n), arg), self.nth_spec(pat, n, slot, arg))

        def a(mode):
            return nth("location", lambda b, p, o, _: f"The very last time Tern {p}, where on the map was it?", lambda c: -1)

        def b(mode):
            return nth("step", lambda b, p, o, _: f"Counting from the start, the {o} occasion on which I {p} fell on which step?",
                       lambda c: self.choice(range(1, min(c, 12) + 1)))

        def c(mode):
            return nth("inventory", lambda b, p, o, _: f"On the penultimate occasion that the agent {p}, what did its inventory hold?",
                       lambda c: -2, min_n=3)

        def d(mode):
            return nth("state", lambda b, p, o, _: f"Think of the {o} time we {p}: what was our task field set to?",
                       arg_of=lambda t: "task")

        def e(mode):
            return nth("position", lambda b, p, o, _: f"Which square, as x,y, did you stand on the {o} time you {p}?")

        def f(mode):
            return nth("facing", lambda b, p, o, _: f"What lay directly ahead of Tern right after it {p} for the {o} time?")

        def g(mode):
            return nth("item", lambda b, p, o, item: f"How many {item_noun(item)} did I hold just after I {p} for the {o} time?",
                       arg_of=lambda t: self.pick_item(t))

        def h(mode):
            return nth("action", lambda b, p, o, _: f"Which command did the scout send on the {o} occasion it {p}?")

        def i(mode):
            return nth("events", lambda b, p, o, _: f"The {o} time I {p}, what was everything the log recorded for that step?")

        def j(mode):
            return nth("state", lambda b, p, o, _: f"How healthy was Tern, as a health value, the {o} time it {p}?",
                       arg_of=lambda t: "health")

        return [a, b, c, d, e, f, g, h, i, j]

    # 3 ---------------------------------------------------------------------------------------------
    def f3(self, mode):
        slot = self.next_slot(["step", "location", "item", "state", "facing", "inventory", "position", "step", "action"])
        pat = self.pick_pat(2)
        if pat is None:
            return False
        win = self.window(pat)
        if win is None:
            return False
        lo, hi, wphrase, _ = win
        inside, _ = self.idx.within(pat, lo, hi)
        if not inside:
            return False
        n = self.pick_n(len(inside), low=True)
        t = self.at_n(inside, n)
        base, past = self.phr(pat)
        ordw = self.ordw(n)
        subj = self.subj()
        arg = self.pick_arg(slot, t)
        if slot == "step":
            form = self.rng.randrange(3 if n == -1 else 2)
            if form == 0:
                text = self.two(f"{wphrase}, ", f"when did {S} {base} for the {ordw} time?", subj)
            elif form == 1:
                text = self.two(f"when did {S} {base} for the {ordw} time ", f"{wphrase}?", subj)
            else:
                text = self.two(f"{wphrase}, ", f"what was the last step at which {S} {past}?", subj)
        else:
            text = self.compose(slot, arg, f"the {ordw} time {S} {past} {wphrase}", subj)
        return self.add(slot, text, self.nth_spec(pat, n, slot, arg, lo, hi), expect=slot_value(self.steps[t], slot, arg))

    def oneoffs3(self):
        def windowed(slot, builder, make, n_choice=None, arg_of=None):
            pat = self.pick_pat(2)
            if pat is None:
                return False
            win = builder(pat)
            if win is None:
                return False
            lo, hi, wphrase, info = win
            inside, _ = self.idx.within(pat, lo, hi)
            if not inside:
                return False
            n = n_choice(len(inside)) if n_choice else self.pick_n(len(inside), low=True)
            base, past = self.phr(pat)
            arg = arg_of(self.at_n(inside, n)) if arg_of else None
            return self.add(slot, make(base, past, self.ordw(n), wphrase, info, arg), self.nth_spec(pat, n, slot, arg, lo, hi))

        me, us, tern, agent = SUBJECTS[0][0], SUBJECTS[1][0], SUBJECTS[3][0], SUBJECTS[4][1]

        def a(mode):
            return windowed("step", self.win_steps, lambda b, p, o, w, i, _:
                            f"Looking only at steps {i['a']} through {i['b']}, what was the final step on which Tern {p}?",
                            lambda c: -1)

        def b(mode):
            return windowed("location", self.win_after, lambda b, p, o, w, i, _:
                            f"Once step {i['a']} was behind me, where was I the first time I {p}?", lambda c: 1)

        def c(mode):
            return windowed("step", self.win_before, lambda b, p, o, w, i, _:
                            fill(f"Of all the times the agent {p} {w}, which step was the last one?", agent), lambda c: -1)

        def d(mode):
            return windowed("inventory", self.win_first, lambda b, p, o, w, i, _:
                            f"In the opening {i['n']} steps, what was my inventory the {o} time I {p}?")

        def e(mode):
            return windowed("action", self.win_between, lambda b, p, o, w, i, _:
                            f"Tern {i['qa']} for the first time and later {i['qb']} for the first time; in between, which action did it take the {o} time it {p}?")

        def f(mode):
            return windowed("state", self.win_before, lambda b, p, o, w, i, arg:
                            fill(f"What was my food level the last time I {p} {w}?", me), lambda c: -1, arg_of=lambda t: "food")

        def g(mode):
            return windowed("position", self.win_afterev, lambda b, p, o, w, i, _:
                            fill(f"{cap(w)}, at which grid square (x,y) did we {b} for the {o} time?", us))

        def h(mode):
            return windowed("facing", self.win_steps, lambda b, p, o, w, i, _:
                            f"Restricting attention to steps {i['a']}-{i['b']}, what was the scout facing when it {p} for the {o} time?")

        return [a, b, c, d, e, f, g, h]

    # 4 ---------------------------------------------------------------------------------------------
    def pick_cond(self):
        """A condition that some step meets: (spec part, 'at which step' question, 'when' clause)."""
        kind = self.choice(["drop", "drop", "dropafter", "reach", "runout", "full", "far", "bridges", "itemlast", "landmarks"])
        if kind in ("drop", "dropafter"):
            vital = self.choice(list(VITAL_WORD))
            series = self.idx.series(("state", vital))
            lo, start = None, 0
            if kind == "dropafter":
                a = self.rng.randrange(1, self.T - 50)
                lo, start = ("t", a + 1), a + 1
            later = series[start:]
            if not later:
                return None
            v = self.rng.randrange(min(later), 9) if min(later) < 9 else None
            if v is None or series[max(start - 1, 0)] <= v or series[start] <= v:
                return None
            vw = VITAL_WORD[vital]
            spec = {"var": ("state", vital), "cmp": "<=", "v": v, "which": "first"}
            if lo:
                spec["lo"] = lo
                a = lo[1] - 1
                q = self.choice([f"after step {a}, when did {P} {vw} first drop to {v} or below?",
                                 f"at which step after step {a} did {P} {vw} first fall to {v} or lower?"])
                w = f"the first time after step {a} that {P} {vw} fell to {v} or lower"
            else:
                q = self.choice([f"when did {P} {vw} first drop to {v} or below?",
                                 f"at which step did {P} {vw} first fall to {v} or lower?"])
                w = self.choice([f"when {P} {vw} first dropped to {v} or below",
                                 f"the first time {P} {vw} fell to {v} or lower"])
            return spec, q, w
        if kind in ("reach", "itemlast"):
            if not self.items_seen:
                return None
            item = self.choice(self.items_seen)
            series = self.idx.series(("item", item))
            top = max(series)
            v = self.rng.randrange(1, top + 1)
            if series[0] >= v and kind == "reach":
                return None
            tool = item.endswith(("pickaxe", "sword"))
            noun = item_noun(item) if not tool else item + "s"
            if v == 1 and tool:
                noun = art(item)
            if kind == "reach":
                spec = {"var": ("item", item), "cmp": ">=", "v": v, "which": "first"}
                if v == 1:
                    q = f"when did {S} first have {noun}?" if tool else f"when did {S} first have any {noun}?"
                    w = f"the first time {S} had {noun}" if tool else f"the first time {S} had any {noun}"
                else:
                    q = self.choice([f"when did {S} first hold at least {v} {noun}?",
                                     f"at which step did {S} first have {v} or more {noun}?"])
                    w = f"when {S} first held at least {v} {noun}"
            else:
                spec = {"var": ("item", item), "cmp": ">=", "v": v, "which": "last"}
                amount = noun if (v == 1 and tool) else f"at least {v} {noun}"
                q = f"what was the last step at which {S} had {amount}?"
                w = f"the last time {S} had {amount}"
            return spec, q, w
        if kind == "runout":
            item = self.choice([i for i in ("wood", "stone", "sapling", "coal", "iron") if i in self.items_seen] or ["wood"])
            series = self.idx.series(("item", item))
            if not any(series[t] == 0 and series[t - 1] > 0 for t in range(1, self.T)):
                return None
            which = self.choice(["first", "first", "last"])
            spec = {"var": ("item", item), "cmp": "runout", "v": 0, "which": which}
            q = f"when did {S} {which} run out of {ITEM_MASS[item]}?"
            w = f"the {which} time {S} ran out of {ITEM_MASS[item]}"
            return spec, q, w
        if kind == "full":
            vital = self.choice(list(VITAL_WORD))
            vw = VITAL_WORD[vital]
            spec = {"var": ("state", vital), "cmp": "==", "v": 9, "which": "last"}
            if 9 not in self.idx.series(("state", vital)):
                return None
            q = f"what was the last step at which {P} {vw} was full at 9?"
            w = f"the last time {P} {vw} stood at 9"
            return spec, q, w
        if kind == "far":
            series = self.idx.series(("state", "distance"))
            if max(series) < 8:
                return None
            v = self.rng.randrange(5, max(series))
            spec = {"var": ("state", "distance"), "cmp": ">", "v": v, "which": "first"}
            q = f"when did {S} first get more than {v} tiles (Manhattan distance) away from the spawn point?"
            w = f"when {S} first got more than {v} tiles (Manhattan distance) from the spawn point"
            return spec, q, w
        name = "bridges" if kind == "bridges" else "landmarks"
        series = self.idx.series(("state", name))
        if max(series) < 1:
            return None
        v = self.rng.randrange(1, max(series) + 1)
        spec = {"var": ("state", name), "cmp": ">=", "v": v, "which": "first"}
        if name == "bridges":
            q = f"at which step did {P} count of bridge stones first reach {v}?"
            w = f"when {P} count of bridge stones first reached {v}"
        else:
            q = f"at which step did {P} tally of landmarks reached first hit {v}?"
            w = f"when {P} tally of landmarks reached first hit {v}"
        return spec, q, w

    def f4(self, mode):
        slot = self.next_slot(["step", "step", "step", "location", "position", "facing", "action", "inventory", "state"])
        got = self.pick_cond()
        if got is None:
            return False
        spec, q, w = got
        spec = dict(spec, op="cond", slot=slot)
        subj = self.subj()
        if slot == "step":
            text = cap(fill(q, subj[0]))
        else:
            ans = self.idx.answer(dict(spec, slot="step"))
            if ans is None:
                return False
            spec["arg"] = self.pick_arg(slot, int(ans[0]))
            text = self.compose(slot, spec["arg"], w, subj)
        return self.add(slot, text, spec)

    def oneoffs4(self):
        def cond(slot, text, var, cmp, v, which="first", lo=None, arg=None):
            spec = {"op": "cond", "var": var, "cmp": cmp, "v": v, "which": which, "slot": slot, "arg": arg}
            if lo:
                spec["lo"] = lo
            return self.add(slot, text, spec)

        def a(mode):
            tools = [i for i in self.items_seen if i.endswith(("pickaxe", "sword"))]
            if not tools:
                return False
            tool = self.choice(tools)
            return cond("step", f"At what step did Tern first carry {art(tool)}?", ("item", tool), ">=", 1)

        def b(mode):
            series = self.idx.series(("state", "energy"))
            if min(series) >= 8:
                return False
            v = self.rng.randrange(min(series), 8)
            return cond("location", f"The first moment my energy sank to {v} or less, which region was I in?",
                        ("state", "energy"), "<=", v)

        def c(mode):
            series = self.idx.series(("state", "distance"))
            if max(series) < 10:
                return False
            v = self.rng.randrange(6, max(series))
            return cond("step", f"When did the scout first stand more than {v} tiles from where it started, by Manhattan distance?",
                        ("state", "distance"), ">", v)

        def d(mode):
            mats = [i for i in ("wood", "stone", "coal") if i in self.items_seen]
            if not mats:
                return False
            item = self.choice(mats)
            series = self.idx.series(("item", item))
            v = self.rng.randrange(1, max(series) + 1)
            if series[0] >= v:
                return False
            return cond("inventory", f"What was my inventory at the first step where I held {v} or more {item_noun(item)}?",
                        ("item", item), ">=", v)

        def e(mode):
            return cond("step", "When did I last have a full food bar of 9?", ("state", "food"), "==", 9, "last")

        def f(mode):
            if self.lives < 2:
                return False
            return cond("facing", "On the first step of my second life, what was I facing?", ("state", "life"), ">=", 2)

        def g(mode):
            series = self.idx.series(("state", "landmarks"))
            if max(series) < 2:
                return False
            v = self.rng.randrange(2, max(series) + 1)
            return cond("step", f"When did Tern's count of landmarks reached first get to {v}?", ("state", "landmarks"), ">=", v)

        def h(mode):
            return cond("step", "What was the last step at which I was asleep?", ("state", "asleep"), "==", True, "last")

        def i(mode):
            tasks = sorted({dict(s.state)["task"] for s in self.steps} - {"gathering wood"})
            task = self.choice(tasks)
            return cond("step", f"At which step did the agent's task first switch to '{task}'?", ("state", "task"), "==", task)

        def j(mode):
            series = self.idx.series(("state", "health"))
            a = self.rng.randrange(1, self.T - 50)
            if series[a] >= 9 or 9 not in series[a + 1:]:
                return False
            return cond("position", f"After step {a}, where (x,y) was Tern when its health first climbed back to 9?",
                        ("state", "health"), "==", 9, lo=("t", a + 1))

        return [a, b, c, d, e, f, g, h, i, j]

    # 5 ---------------------------------------------------------------------------------------------
    def pick_anchor(self, pat=None, low=True):
        """An event anchor and its phrase (subject marks), or None."""
        pat = pat or self.pick_pat(1, allow_any=0.1)
        if pat is None:
            return None
        hits = self.hits(pat)
        n = self.pick_n(len(hits), low=low)
        base, past = self.phr(pat)
        if n == 1 and self.rng.random() < 0.6:
            phrase = f"{S} first {past}"
        else:
            phrase = f"the {self.ordw(n)} time {S} {past}"
        return ("ev", pat, n), phrase, self.at_n(hits, n)

    def f5(self, mode):
        slot = self.next_slot(["facing", "action", "location", "inventory", "item", "state", "position", "events"])
        k = self.rng.randint(1, 12)
        after = self.rng.random() < 0.6
        if self.rng.random() < 0.7:
            got = self.pick_anchor()
            if got is None:
                return False
            anchor, phrase, t0 = got
        else:
            t0 = self.rng.randrange(self.T)
            anchor, phrase = ("t", t0), f"step {t0}"
        target = t0 + (k if after else -k)
        if not 0 <= target < self.T:
            return False
        arg = self.pick_arg(slot, target)
        word = self.choice(["after", "later than"] if after else ["before", "earlier than", "prior to"])
        when = f"{self.steps_word(k)} {word} {phrase}"
        text = self.compose(slot, arg, when)
        spec = {"op": "offset", "anchor": anchor, "k": k if after else -k, "slot": slot, "arg": arg}
        return self.add(slot, text, spec, expect=slot_value(self.steps[target], slot, arg))

    def oneoffs5(self):
        def off(slot, make, k_range=(1, 12), after=None, step_anchor=False, arg_of=None, pat_n=None):
            k = self.rng.randint(*k_range)
            after = (self.rng.random() < 0.6) if after is None else after
            if step_anchor:
                t0 = self.rng.randrange(self.T)
                anchor, info = ("t", t0), {"t0": t0}
            else:
                pat = self.pick_pat(1)
                hits = self.hits(pat)
                n = pat_n(len(hits)) if pat_n else self.pick_n(len(hits), low=True)
                if n is None or n > len(hits) or -n > len(hits):
                    return False
                t0 = self.at_n(hits, n)
                base, past = self.phr(pat)
                anchor, info = ("ev", pat, n), {"base": base, "past": past, "ord": self.ordw(n)}
            target = t0 + (k if after else -k)
            if not 0 <= target < self.T:
                return False
            arg = arg_of(target) if arg_of else None
            info.update(k=k, kw=self.steps_word(k))
            text = make(info, arg)
            return self.add(slot, text, {"op": "offset", "anchor": anchor, "k": k if after else -k, "slot": slot, "arg": arg})

        def a(mode):
            return off("location", lambda i, _: f"Exactly {i['kw']} before Tern first {i['past']}, which region was it in?",
                       after=False, pat_n=lambda c: 1)

        def b(mode):
            return off("action", lambda i, _: f"Take the {i['ord']} time I {i['past']} and move {i['kw']} forward: what action did I take then?",
                       after=True)

        def c(mode):
            return off("inventory", lambda i, _: f"Fast-forward {i['kw']} from step {i['t0']}: what was in my bag?",
                       after=True, step_anchor=True)

        def d(mode):
            return off("facing", lambda i, _: f"Going back {i['kw']} from the last time you {i['past']}, what were you facing?",
                       after=False, pat_n=lambda c: -1)

        def e(mode):
            return off("state", lambda i, _: f"{cap(i['kw'])} on from the first time we {i['past']}, what was our drink level?",
                       after=True, pat_n=lambda c: 1, arg_of=lambda t: "drink")

        def f(mode):
            return off("position", lambda i, _: f"Where exactly, as x,y, was Tern {i['kw']} before it {i['past']} for the {i['ord']} time?",
                       after=False)

        def g(mode):
            return off("events", lambda i, _: f"What got logged {i['kw']} after I first {i['past']}?", after=True, pat_n=lambda c: 1)

        def h(mode):
            return off("item", lambda i, item: f"How many {item_noun(item)} did I have {i['kw']} before step {i['t0']}?",
                       after=False, step_anchor=True, arg_of=lambda t: self.pick_item(t))

        def i(mode):
            return off("state", lambda i, _: f"Just {i['kw']} after the agent {i['past']} for the {i['ord']} time, what was it doing according to its task?",
                       k_range=(1, 4), after=True, arg_of=lambda t: "task")

        return [a, b, c, d, e, f, g, h, i]

    # 6 ---------------------------------------------------------------------------------------------
    def f6a(self, mode):
        """Next / previous occurrence after / before an event, asked as a step."""
        pa = self.pick_pat(1)
        pb = self.pick_pat(1, allow_any=0.1)
        if pa is None or pb is None:
            return False
        forward = self.rng.random() < 0.6
        hits_a, hits_b = self.hits(pa), self.hits(pb)
        n = self.pick_n(len(hits_a), low=True)
        ta = self.at_n(hits_a, n)
        if ta in hits_b:
            return False
        anchor = ("next" if forward else "prev", pb, ("ev", pa, n))
        _, qa = self.phr(pa)
        base_b, qb = self.phr(pb)
        ordw = self.ordw(n)
        subj = self.subj()
        if forward:
            text = self.choice([
                self.two(f"after the {ordw} time {S} {qa}, ", f"when did {S} next {base_b}?", subj),
                self.two(f"when did {S} next {base_b} ", f"after {S} {qa} for the {ordw} time?", subj),
            ])
        else:
            text = self.choice([
                self.two(f"when did {S} last {base_b} ", f"before the {ordw} time {S} {qa}?", subj),
                self.two(f"before {S} {qa} for the {ordw} time, ", f"what was the most recent step at which {S} {qb}?", subj),
            ])
        return self.add("step", text, {"op": "next", "anchor": anchor, "slot": "step"})

    def f6b(self, mode):
        """Next / previous occurrence around a step or an event, asked for another slot."""
        slot = self.next_slot(["location", "inventory", "state", "facing", "action", "position", "item", "step"])
        pb = self.pick_pat(1, allow_any=0.1)
        forward = self.rng.random() < 0.5
        subj = self.subj()
        base_b, qb = self.phr(pb)
        if self.rng.random() < 0.5:
            t0 = self.safe_step([pb], 1, self.T - 2)
            if t0 is None:
                return False
            base = ("t", t0)
            when = (f"the next time {S} {qb} after step {t0}" if forward else
                    self.choice([f"the most recent time {S} {qb} before step {t0}", f"the last time before step {t0} that {S} {qb}"]))
        else:
            pa = self.pick_pat(1)
            hits_a = self.hits(pa)
            n = self.pick_n(len(hits_a), low=True)
            ta = self.at_n(hits_a, n)
            if ta in self.hits(pb):
                return False
            base = ("ev", pa, n)
            qa = self.phr(pa)[1]
            ordw = self.ordw(n)
            when = (self.choice([f"the next time {S} {qb} after {S} {qa} for the {ordw} time",
                                 f"the first time {S} {qb} following the {ordw} time {S} {qa}"]) if forward else
                    f"the last time {S} {qb} before the {ordw} time {S} {qa}")
        anchor = ("next" if forward else "prev", pb, base)
        t, _ = self.idx.find(anchor)
        if t is None:
            return False
        arg = self.pick_arg(slot, t)
        if slot == "step":
            text = self.two("at which step was ", when + "?", subj)
        else:
            # the subject is named in the 'when' clause too: name it once, use the pronoun after
            text = self.compose(slot, arg, when, subj)
        return self.add(slot, text, {"op": "next", "anchor": anchor, "slot": slot, "arg": arg},
                        expect=slot_value(self.steps[t], slot, arg))

    def oneoffs6(self):
        def nxt(slot, make, forward, step_base=False, arg_of=None, n_a=None):
            pb = self.pick_pat(1)
            base_b, qb = self.phr(pb)
            info = {"bb": base_b, "qb": qb}
            if step_base:
                t0 = self.safe_step([pb], 1, self.T - 2)
                if t0 is None:
                    return False
                base, info["t0"] = ("t", t0), t0
            else:
                pa = self.pick_pat(1)
                hits_a = self.hits(pa)
                n = n_a(len(hits_a)) if n_a else self.pick_n(len(hits_a), low=True)
                ta = self.at_n(hits_a, n)
                if ta in self.hits(pb):
                    return False
                base = ("ev", pa, n)
                info.update(ba=self.phr(pa)[0], qa=self.phr(pa)[1], ord=self.ordw(n))
            anchor = ("next" if forward else "prev", pb, base)
            t, _ = self.idx.find(anchor)
            if t is None:
                return False
            arg = arg_of(t) if arg_of else None
            return self.add(slot, make(info, arg), {"op": "next", "anchor": anchor, "slot": slot, "arg": arg})

        def a(mode):
            return nxt("step", lambda i, _: f"Right after Tern first {i['qa']}, when was the next occasion it {i['qb']}?", True, n_a=lambda c: 1)

        def b(mode):
            return nxt("step", lambda i, _: f"What was the last step before step {i['t0']} on which I {i['qb']}?", False, step_base=True)

        def c(mode):
            return nxt("location", lambda i, _: f"Once the agent had finished the {i['ord']} occasion on which it {i['qa']}, where was it when it next {i['qb']}?", True)

        def d(mode):
            return nxt("inventory", lambda i, _: f"Looking backwards from the {i['ord']} time you {i['qa']}, what were you holding the previous time you {i['qb']}?", False)

        def e(mode):
            return nxt("action", lambda i, _: f"Following step {i['t0']}, which action did the scout take the next time it {i['qb']}?", True, step_base=True)

        def f(mode):
            return nxt("state", lambda i, _: f"What was my energy the most recent time I {i['qb']} before I first {i['qa']}?", False,
                       arg_of=lambda t: "energy", n_a=lambda c: 1)

        def g(mode):
            return nxt("position", lambda i, _: f"We {i['qa']} for the {i['ord']} time; at which x,y position did we next {i['bb']}?", True)

        def h(mode):
            return nxt("facing", lambda i, _: f"Just before step {i['t0']}, on the latest occasion Tern {i['qb']}, what was it facing?", False, step_base=True)

        return [a, b, c, d, e, f, g, h]

    # 7 ---------------------------------------------------------------------------------------------
    def count_window(self, pat, zero):
        """A span for counting pat: (lo, hi, phrase, is_prefix) with no occurrence of pat on a bound."""
        hits = self.hits(pat)
        kind = self.choice(["all", "steps", "first", "after", "beforeev", "afterev"])
        if kind == "all":
            return None, None, self.choice(["in total", "over the whole episode", "across the whole run"]), False
        if kind == "steps":
            ab = self.safe_steps([pat], gap=80)
            if not ab:
                return None
            a, b = ab
            return ("t", a), ("t", b), f"between step {a} and step {b}", self.rng.random() < 0.4
        if kind == "first":
            n = self.rng.randrange(80, self.T)
            if (n - 1) in hits or n in hits:
                return None
            return None, ("t", n - 1), f"in the first {n} steps", self.rng.random() < 0.5
        if kind == "after":
            a = self.safe_step([pat], 20, self.T - 40)
            if a is None:
                return None
            return ("t", a + 1), None, f"after step {a}", self.rng.random() < 0.5
        other = [p for p in self.specific if p != pat]
        pa = self.choice(other)
        n = self.pick_n(len(self.hits(pa)), low=True)
        ta = self.at_n(self.hits(pa), n)
        if ta in hits:
            return None
        qa = self.phr(pa)[1]
        who = f"{S} first {qa}" if n == 1 else f"the {self.ordw(n)} time {S} {qa}"
        if kind == "beforeev":
            return None, ("ev", pa, n), f"before {who}", self.rng.random() < 0.6
        return ("ev", pa, n), None, f"after {who}", self.rng.random() < 0.6

    def f7(self, mode):
        if mode == "list":
            return self.list_question()
        zero = mode == "zero"
        if zero and self.rng.random() < 0.4:
            pat = self.choice(self.absent_pats())
        else:
            pat = self.pick_pat(1, allow_any=0.15)
        if pat is None:
            return False
        win = self.count_window(pat, zero)
        if win is None:
            return False
        lo, hi, phrase, prefix = win
        hits, _ = self.idx.within(pat, lo, hi)
        if hits is None or (zero and hits) or (not zero and not hits):
            return False
        base, past = self.phr(pat)
        subj = self.subj()
        how = self.choice([f"how many times did {S} {base}", f"how often did {S} {base}"])
        if prefix and lo is not None or prefix and hi is not None:
            text = self.two(f"{phrase}, ", how + "?", subj)
        else:
            text = self.two(how + " ", phrase + "?", subj)
        return self.add("count", text, {"op": "count", "pat": pat, "lo": lo, "hi": hi})

    def list_question(self):
        kind = self.choice(["arrive", "fashion", "enter", "quarry"])
        pat = (kind, None)
        if not self.hits(pat):
            return False
        lo = hi = None
        span = ""
        if self.rng.random() < 0.5:
            ab = self.safe_steps([pat], gap=150)
            if not ab:
                return False
            a, b = ab
            lo, hi, span = ("t", a), ("t", b), f" between step {a} and step {b}"
            hits, _ = self.idx.within(pat, lo, hi)
            if not hits:
                return False
        noun, _ = self.subj()
        text = {
            "arrive": f"which landmarks did {S} reach{span}?",
            "fashion": f"which tools did {S} craft{span}?",
            "enter": f"which regions did {S} cross into{span}?",
            "quarry": f"which minerals did {S} quarry{span}?",
        }[kind]
        return self.add("list", cap(fill(text, noun)), {"op": "list", "pat": pat, "lo": lo, "hi": hi})

    def oneoffs7(self):
        def cnt(text_of, pat=None, lo=None, hi=None, zero=None, slot="count", op="count"):
            pat = pat or self.pick_pat(1)
            if pat is None:
                return False
            hits, _ = self.idx.within(pat, lo, hi)
            if hits is None or (zero is True and hits) or (zero is False and not hits):
                return False
            if op == "list" and not hits:
                return False
            base, past = self.phr(pat)
            return self.add(slot, text_of(base, past), {"op": op, "pat": pat, "lo": lo, "hi": hi})

        def zero_ok(mode):
            return None if mode is None else (mode == "zero")

        def a(mode):
            pat = self.choice(self.absent_pats()) if mode == "zero" else None
            return cnt(lambda b, p: f"Across all of Tern's lives, how many times did it {b}?", pat, zero=zero_ok(mode))

        def b(mode):
            pat = self.pick_pat(1)
            ab = self.safe_steps([pat], gap=100)
            if not ab:
                return False
            return cnt(lambda b_, p: f"From step {ab[0]} up to step {ab[1]}, how many times did I {b_}?", pat,
                       ("t", ab[0]), ("t", ab[1]), zero=zero_ok(mode))

        def c(mode):
            pat, pa = self.pick_pat(1), self.pick_pat(1)
            if pat == pa or self.hits(pa)[0] in self.hits(pat):
                return False
            qa = self.phr(pa)[1]
            return cnt(lambda b, p: f"Up to the moment I first {qa}, how often did I {b}?", pat, None, ("ev", pa, 1), zero=zero_ok(mode))

        def d(mode):
            pat = self.pick_pat(1)
            a_ = self.safe_step([pat], 20, self.T - 40)
            if a_ is None:
                return False
            return cnt(lambda b, p: f"Once step {a_} was past, on how many occasions did the agent {b}?", pat, ("t", a_ + 1), None,
                       zero=zero_ok(mode))

        def e(mode):
            if mode == "zero":
                return False
            ab = self.safe_steps([("enter", None)], gap=150)
            if not ab:
                return False
            return cnt(lambda b, p: f"Which regions did I pass into between step {ab[0]} and step {ab[1]}?", ("enter", None),
                       ("t", ab[0]), ("t", ab[1]), slot="list", op="list")

        def f(mode):
            if mode == "zero" or not self.hits(("fashion", None)):
                return False
            return cnt(lambda b, p: "Which tools did Tern make over the whole run?", ("fashion", None), slot="list", op="list")

        def g(mode):
            pat = ("arrive", None)
            t0 = self.safe_step([pat], 30, self.T - 2)
            if t0 is None:
                return False
            return cnt(lambda b, p: f"How many different landmarks did we reach before step {t0}?", pat, None, ("t", t0 - 1),
                       zero=zero_ok(mode))

        def h(mode):
            if mode == "zero" or not self.hits(("arrive", None)):
                return False
            return cnt(lambda b, p: "By name, which landmarks did the scout manage to reach over the run?", ("arrive", None), slot="list", op="list")

        def i(mode):
            if not self.hits(("doze off", "")):
                return False
            return cnt(lambda b, p: "How many naps did Tern take, counting each time it dozed off?", ("doze off", ""), zero=zero_ok(mode))

        return [a, b, c, d, e, f, g, h, i]

    # 8 ---------------------------------------------------------------------------------------------
    def two_pats(self, na=1, nb=1):
        for _ in range(20):
            pa, pb = self.pick_pat(abs(na)), self.pick_pat(abs(nb))
            if pa is None or pb is None or pat_label(pa) == pat_label(pb):
                continue
            ta, tb = self.at_n(self.hits(pa), na), self.at_n(self.hits(pb), nb)
            if ta != tb:
                return pa, pb
        return None

    def f8(self, mode):
        form = self.rng.randrange(5)
        na, nb = 1, 1
        if form == 3:
            na, nb = -1, -1
        if form == 4:
            na = self.choice([2, 3])
        got = self.two_pats(na, nb)
        if got is None:
            return False
        pa, pb = got
        if self.rng.random() < 0.5:
            pa, pb = pb, pa
            na, nb = nb, na
        (ba, qa), (bb, qb) = self.phr(pa), self.phr(pb)
        subj = self.subj()
        if form == 0:
            text = self.two(f"which happened first: the first time {S} {qa}, ", f"or the first time {S} {qb}?", subj)
        elif form == 1:
            text = self.two(f"did {S} {ba} or {bb} first?", "", subj)
        elif form == 2:
            text = self.two(f"which came earlier: {S} first {qa}, ", f"or {S} first {qb}?", subj)
        elif form == 3:
            text = self.two(f"comparing the last time {S} {qa} with the last time {S} {qb}, ", "which came first?", subj)
        else:
            oa, ob = self.ordw(na), self.ordw(nb)
            text = self.two(f"which was earlier: the {oa} time {S} {qa} ", f"or the {ob} time {S} {qb}?", subj)
        return self.add("which-first", text, {"op": "order", "a": ("ev", pa, na), "b": ("ev", pb, nb)})

    def oneoffs8(self):
        def order(make, na=1, nb=1):
            got = self.two_pats(na, nb)
            if got is None:
                return False
            pa, pb = got
            (ba, qa), (bb, qb) = self.phr(pa), self.phr(pb)
            info = {"ba": ba, "qa": qa, "bb": bb, "qb": qb, "oa": self.ordw(na), "ob": self.ordw(nb)}
            return self.add("which-first", make(info), {"op": "order", "a": ("ev", pa, na), "b": ("ev", pb, nb)})

        def a(mode):
            return order(lambda i: f"Tern {i['qa']} and also {i['qb']} at some point; which did it do first?")

        def b(mode):
            return order(lambda i: f"Which did I manage sooner: to {i['ba']}, or to {i['bb']}?")

        def c(mode):
            return order(lambda i: f"Thinking only of the final occasions, which came first: the agent's last time it {i['qa']}, or its last time it {i['qb']}?", -1, -1)

        def d(mode):
            return order(lambda i: f"Which came sooner, the {i['oa']} occasion on which we {i['qa']} or the first occasion on which we {i['qb']}?",
                         self.choice([1, 2, 3]), 1)

        def e(mode):
            return order(lambda i: f"First occurrences only: {i['ba']} or {i['bb']}, which came first for the scout?")

        def f(mode):
            return order(lambda i: f"Scanning the log from the start, which do you meet first: a step where you {i['qa']}, or a step where you {i['qb']}?")

        return [a, b, c, d, e, f]

    # 9 ---------------------------------------------------------------------------------------------
    def f9(self, mode):
        form = self.rng.randrange(6)
        subj = self.subj()
        if form == 0:
            got = self.two_pats()
            if got is None:
                return False
            pa, pb = got
            text = self.two(f"how many steps passed between the first time {S} {self.phr(pa)[1]} ",
                            f"and the first time {S} {self.phr(pb)[1]}?", subj)
            spec = {"op": "dist", "a": ("ev", pa, 1), "b": ("ev", pb, 1)}
        elif form == 1:
            pb = self.pick_pat(1)
            t0 = self.safe_step([pb], 1, self.hits(pb)[-1])
            if t0 is None:
                return False
            text = self.two(f"how long after step {t0} did {S} next {self.phr(pb)[0]}?", "", subj)
            spec = {"op": "dist", "a": ("t", t0), "b": ("next", pb, ("t", t0))}
        elif form == 2:
            pat = self.pick_pat(2)
            if pat is None:
                return False
            text = self.two(f"how far apart, in steps, were the first and the last time {S} {self.phr(pat)[1]}?", "", subj)
            spec = {"op": "dist", "a": ("ev", pat, 1), "b": ("ev", pat, -1)}
        elif form == 3:
            pat = self.pick_pat(3)
            if pat is None:
                return False
            count = len(self.hits(pat))
            n1 = self.rng.randrange(1, min(count, 12))
            n2 = self.rng.randrange(n1 + 1, min(count, 12) + 1)
            text = self.two(f"how many steps separated the {self.ordw(n1)} and the {self.ordw(n2)} time {S} {self.phr(pat)[1]}?", "", subj)
            spec = {"op": "dist", "a": ("ev", pat, n1), "b": ("ev", pat, n2)}
        elif form == 4:
            pa, pb = self.pick_pat(1), self.pick_pat(1)
            hits_a = self.hits(pa)
            n = self.pick_n(len(hits_a), low=True)
            if self.at_n(hits_a, n) in self.hits(pb):
                return False
            text = self.two(f"how many steps after {S} {self.phr(pa)[1]} for the {self.ordw(n)} time ",
                            f"did {S} next {self.phr(pb)[0]}?", subj)
            spec = {"op": "dist", "a": ("ev", pa, n), "b": ("next", pb, ("ev", pa, n))}
        else:
            doze = ("doze off", "")
            hits = self.hits(doze)
            if not hits:
                return False
            n = self.pick_n(len(hits), low=True)
            a = ("ev", doze, n)
            text = self.two(f"how long did {P} {self.ordw(n)} sleep last, from dozing off until {S} next woke?", "", subj)
            spec = {"op": "dist", "a": a, "b": ("next", ("wake", ""), a)}
        return self.add("duration", text, spec)

    def oneoffs9(self):
        def a(mode):
            pa, pb = self.pick_pat(1), self.pick_pat(1)
            if pa == pb or self.hits(pa)[0] in self.hits(pb):
                return False
            qa, bb = self.phr(pa)[1], self.phr(pb)[0]
            return self.add("duration", f"How many steps did it take Tern, after it first {qa}, to {bb}?",
                            {"op": "dist", "a": ("ev", pa, 1), "b": ("next", pb, ("ev", pa, 1))})

        def b(mode):
            pb = self.pick_pat(1)
            t0 = self.safe_step([pb], 1, self.hits(pb)[-1])
            if t0 is None:
                return False
            return self.add("duration", f"From step {t0}, how long was it until I {self.phr(pb)[1]} again?",
                            {"op": "dist", "a": ("t", t0), "b": ("next", pb, ("t", t0))})

        def c(mode):
            pat = self.pick_pat(2)
            if pat is None:
                return False
            count = min(len(self.hits(pat)), 12)
            n1 = self.rng.randrange(1, count)
            n2 = n1 + 1
            return self.add("duration", f"What was the gap in steps between the {self.ordw(n1)} and the {self.ordw(n2)} time I {self.phr(pat)[1]}?",
                            {"op": "dist", "a": ("ev", pat, n1), "b": ("ev", pat, n2)})

        def d(mode):
            pat = self.pick_pat(1)
            t0 = self.rng.randrange(self.T)
            if t0 == self.hits(pat)[-1]:
                return False
            return self.add("duration", f"How far apart, in steps, were step {t0} and the last time the agent {self.phr(pat)[1]}?",
                            {"op": "dist", "a": ("t", t0), "b": ("ev", pat, -1)})

        def e(mode):
            got = self.two_pats(-1, -1)
            if got is None:
                return False
            pa, pb = got
            return self.add("duration", f"How long was the stretch between the last time we {self.phr(pa)[1]} and the last time we {self.phr(pb)[1]}?",
                            {"op": "dist", "a": ("ev", pa, -1), "b": ("ev", pb, -1)})

        def f(mode):
            doze = ("doze off", "")
            if not self.hits(doze):
                return False
            a = ("ev", doze, 1)
            return self.add("duration", "How many steps was the scout asleep the first time it dozed off, counting until it woke?",
                            {"op": "dist", "a": a, "b": ("next", ("wake", ""), a)})

        def g(mode):
            pat = self.pick_pat(1)
            first = self.hits(pat)[0]
            return self.add("duration", f"How many steps into the episode (counting from step 0) did Tern first {self.phr(pat)[0]}?",
                            {"op": "dist", "a": ("t", 0), "b": ("ev", pat, 1)}) if first > 0 else False

        return [a, b, c, d, e, f, g]

    # 10 --------------------------------------------------------------------------------------------
    def exist_span(self, pat, want):
        """A span for 'did pat happen' with the wanted answer: (lo, hi, phrase, prefix) or None."""
        hits = self.hits(pat)
        kind = self.choice(["ever", "before", "after", "steps", "beforeev", "afterev"])
        if kind == "ever":
            return None, None, self.choice(["ever", "at any point", "at all"]), False
        if kind in ("before", "after"):
            t0 = self.safe_step([pat], 10, self.T - 10)
            if t0 is None:
                return None
            if kind == "before":
                return None, ("t", t0 - 1), f"before step {t0}", self.rng.random() < 0.5
            return ("t", t0 + 1), None, f"after step {t0}", self.rng.random() < 0.5
        if kind == "steps":
            ab = self.safe_steps([pat], gap=60)
            if not ab:
                return None
            return ("t", ab[0]), ("t", ab[1]), f"between step {ab[0]} and step {ab[1]}", self.rng.random() < 0.5
        pa = self.pick_pat(1)
        if pa is None or pa == pat:
            return None
        n = self.pick_n(len(self.hits(pa)), low=True)
        if self.at_n(self.hits(pa), n) in hits:
            return None
        qa = self.phr(pa)[1]
        who = f"{S} first {qa}" if n == 1 else f"the {self.ordw(n)} time {S} {qa}"
        if kind == "beforeev":
            return None, ("ev", pa, n), f"before {who}", self.rng.random() < 0.5
        return ("ev", pa, n), None, f"after {who}", self.rng.random() < 0.5

    def f10(self, mode):
        want = mode
        if want == "no" and self.rng.random() < 0.5:
            pat = self.choice(self.absent_pats())
        else:
            pat = self.pick_pat(1)
        win = self.exist_span(pat, want)
        if win is None:
            return False
        lo, hi, phrase, prefix = win
        hits, _ = self.idx.within(pat, lo, hi)
        if hits is None or bool(hits) != (want == "yes"):
            return False
        base, past = self.phr(pat)
        subj = self.subj()
        if phrase in ("ever", "at any point", "at all"):
            text = self.choice([self.two(f"did {S} ever {base}?", "", subj),
                                self.two(f"at any point, did {S} {base}?", "", subj),
                                self.two(f"did {S} {base} at all?", "", subj)])
        elif prefix:
            text = self.two(f"{phrase}, ", f"did {S} {base}?", subj)
        else:
            text = self.two(f"did {S} {base} ", f"{phrase}?", subj)
        return self.add("yes/no", text, {"op": "exists", "pat": pat, "lo": lo, "hi": hi}, expect=want)

    def oneoffs10(self):
        def ex(text_of, want, pat=None, lo=None, hi=None):
            if pat is None:
                pat = self.choice(self.absent_pats()) if want == "no" and self.rng.random() < 0.6 else self.pick_pat(1)
            hits, _ = self.idx.within(pat, lo, hi)
            if hits is None or bool(hits) != (want == "yes"):
                return False
            base, past = self.phr(pat)
            return self.add("yes/no", text_of(base, past), {"op": "exists", "pat": pat, "lo": lo, "hi": hi}, expect=want)

        def a(mode):
            return ex(lambda b, p: f"Does the log show that Tern ever {p}?", mode)

        def b(mode):
            pat = self.pick_pat(1)
            hits = self.hits(pat)
            n = self.pick_n(len(hits), low=True)
            if n == -1 and mode == "yes":
                return False
            return ex(lambda b_, p: f"After the {self.ordw(n)} time I {p}, did I ever {b_} again?", mode, pat, ("ev", pat, n))

        def c(mode):
            n = self.rng.randrange(100, self.T)
            pat = self.pick_pat(1) if mode == "yes" or self.rng.random() < 0.5 else self.choice(self.absent_pats())
            if (n - 1) in self.hits(pat) or n in self.hits(pat):
                return False
            return ex(lambda b, p: f"During the first {n} steps, did the agent ever {b}?", mode, pat, None, ("t", n - 1))

        def d(mode):
            pat = self.pick_pat(1)
            t0 = self.safe_step([pat], 10, self.T - 10)
            if t0 is None:
                return False
            return ex(lambda b, p: f"Prior to step {t0}, did you ever {b}?", mode, pat, None, ("t", t0 - 1))

        def e(mode):
            pat = self.pick_pat(1)
            win = self.win_between(pat) if mode == "yes" else None
            if mode == "no":
                got = self.two_pats()
                if got is None:
                    return False
                pa, pb = got
                ta, tb = self.hits(pa)[0], self.hits(pb)[0]
                if tb < ta or tb - ta < 8 or ta in self.hits(pat) or tb in self.hits(pat):
                    return False
                win = (("ev", pa, 1), ("ev", pb, 1), "", {"qa": self.phr(pa)[1], "qb": self.phr(pb)[1]})
            if win is None:
                return False
            lo, hi, _, info = win
            return ex(lambda b, p: f"Did we {b} at all in the stretch between the first time we {info['qa']} and the first time we {info['qb']}?",
                      mode, pat, lo, hi)

        def f(mode):
            pat = self.pick_pat(1) if mode == "yes" or self.rng.random() < 0.5 else self.choice(self.absent_pats())
            t0 = self.safe_step([pat], 10, self.T - 10)
            if t0 is None:
                return False
            return ex(lambda b, p: f"Was Tern ever seen to {b} after step {t0}?", mode, pat, ("t", t0 + 1), None)

        return [a, b, c, d, e, f]


# --------------------------------------------------------------------------------------------------
# Suite interface and self-check.
# --------------------------------------------------------------------------------------------------


def build(seed: int) -> dict:
    eid = f"{SHORT}-{seed}"
    steps = simulate(seed)
    validate_steps(steps, eid)
    questions = Generator(eid, steps, seed).build()
    return {"episodes": {eid: steps}, "questions": questions}


def _self_check(seeds) -> None:
    import time
    from collections import Counter

    for seed in seeds:
        started = time.process_time()
        data = build(seed)
        elapsed = time.process_time() - started
        (eid, steps), = data["episodes"].items()
        questions = data["questions"]
        print(f"== {SUITE} seed {seed}: episode {eid}, {len(steps)} steps, {len(questions)} questions, "
              f"built in {elapsed:.1f}s CPU")
        assert 300 <= len(steps) <= 1500
        assert [s.t for s in steps] == list(range(len(steps)))
        assert len(questions) == 60, len(questions)
        fam = Counter(q["family"] for q in questions)
        assert all(fam[f] == 6 for f in FAMILIES), fam
        print("families:", dict(fam))
        print("slots per family:")
        for f in FAMILIES:
            print(f"  {f}: {dict(Counter(q['slot'] for q in questions if q['family'] == f))}")
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(sorted(kinds.items(), key=lambda kv: -kv[1])))
        yn = Counter(q["answer"] for q in questions if q["family"] == "10_existence")
        assert yn["yes"] == 3 and yn["no"] == 3, yn
        zeros = sum(1 for q in questions if q["slot"] == "count" and q["answer"] == "0")
        assert zeros >= 1
        assert len({q["question"] for q in questions}) == 60
        known = {f"{eid}:{s.t}" for s in steps}
        for q in questions:
            assert q["episode"] == eid
            assert all(g.startswith(f"{eid}:") and g in known for g in q["gold"]), q
            assert q["gold"] == sorted(q["gold"], key=lambda g: int(g.split(":")[1]))
            if not q["gold"]:
                assert q["answer"] in ("no", "0"), q
        rng = random.Random(seed)
        for q in rng.sample(questions, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")
        again = build(seed)
        assert again["questions"] == questions, "second build differs (questions)"
        assert again["episodes"][eid] == steps, "second build differs (steps)"
        print("second build identical: yes")
    print("self-check passed")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args or list(SEED_RANGE)[:2])
