"""Held-out suite 7: a Crafter rancher that keeps a planted field near its starting grassland.

The agent ("Rue") picks a strip of grassland near where it wakes up, sows saplings in a row there,
puts stone fence pieces between the plants, herds (follows) cows around the paddock, guards the field
from zombies at night, eats ripe plants and cows, and makes only the tools it needs (a wood pickaxe,
a wood sword and a stone sword).  After a death it starts a new life in a fresh world seeded from the
suite seed, step numbering continuing.  Questions are computed by a plain scan over the Step records.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections import Counter, deque
from pathlib import Path

import crafter
import numpy as np
from crafter import objects as cobj

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout7_crafter"
SEED_RANGE = range(8800, 8900)
AGENT = "Rue"

ACTIONS = list(crafter.constants.actions)
WALK = ("grass", "sand", "path")
DIRS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
VITALS = ("health", "food", "drink", "energy")
CREATURES = {cobj.Cow: "cow", cobj.Zombie: "zombie", cobj.Skeleton: "skeleton", cobj.Arrow: "arrow", cobj.Plant: "plant"}


class _StableEnv(crafter.Env):
    """Crafter with a deterministic despawn choice (candidates sorted by position) and no image rendering."""

    def _balance_object(self, chunk, objs, *args):
        ordered = sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]), type(o).__name__))
        return super()._balance_object(chunk, ordered, *args)

    def _obs(self):
        return None


# ------------------------------------------------------------------------------------------------
# The rancher agent
# ------------------------------------------------------------------------------------------------


class Rancher:
    def __init__(self, env: _StableEnv, rng: random.Random):
        self.env = env
        self.rng = rng
        self.world = env._world
        self.player = env._player
        self.mode = ""  # sticky goal: "water", "food"
        self.wander_goal = None
        self.place_target = None
        self.tries: Counter = Counter()
        self.skip: set = set()
        self.home = tuple(int(v) for v in self.player.pos)
        self.spots: list[tuple[int, tuple[int, int]]] = []  # (kind 0 plant / 1 fence, cell)
        self._choose_field()

    # -- map helpers --------------------------------------------------------------------------------
    def mat(self, pos):
        return self.world[pos][0]

    def _grids(self):
        names = self.world._mat_names
        mm = self.world._mat_map
        walk_ids = [i for i, n in names.items() if n in WALK]
        walk = np.isin(mm, walk_ids) & (self.world._obj_map == 0)
        return walk.tolist()

    def _choose_field(self):
        hx, hy = self.home
        best = None
        for fy in range(hy - 8, hy + 9):
            for fx in range(hx - 10, hx + 10):
                cols = []
                for i in range(-1, 10):
                    x = fx + i
                    if self.mat((x, fy)) == "grass" and self.mat((x, fy + 1)) in WALK and self.mat((x, fy + 2)) in WALK:
                        cols.append(i)
                key = (-len(cols), abs(fx - hx) + abs(fy - hy), fy, fx)
                if best is None or key < best[0]:
                    best = (key, fx, fy, cols)
        _, fx, fy, cols = best
        self.field = (fx, fy)
        # plant spots at even offsets, fence pieces at odd ones (and the left end)
        self.spots = [(0 if i >= 0 and i % 2 == 0 else 1, (fx + i, fy)) for i in cols]

    def field_center(self):
        return (self.field[0] + 4, self.field[1])

    def bfs(self, goal_fn, limit=40):
        walk = self._grids()
        start = tuple(int(v) for v in self.player.pos)
        if goal_fn(start):
            return "here"
        seen = {start: None}
        queue = deque([start])
        order = ("left", "right", "up", "down")
        while queue:
            cur = queue.popleft()
            if abs(cur[0] - start[0]) + abs(cur[1] - start[1]) > limit:
                continue
            for name in order:
                dx, dy = DIRS[name]
                nxt = (cur[0] + dx, cur[1] + dy)
                if nxt in seen or not (0 <= nxt[0] < 64 and 0 <= nxt[1] < 64) or not walk[nxt[0]][nxt[1]]:
                    continue
                seen[nxt] = (cur, name)
                if goal_fn(nxt):
                    step = nxt
                    while seen[step][0] != start:
                        step = seen[step][0]
                    return seen[step][1]
                queue.append(nxt)
        return None

    def adjacent_dir(self, pos, pred):
        for name in ("left", "right", "up", "down"):
            dx, dy = DIRS[name]
            cell = (pos[0] + dx, pos[1] + dy)
            if pred(cell):
                return name
        return None

    def facing_cell(self):
        return (int(self.player.pos[0] + self.player.facing[0]), int(self.player.pos[1] + self.player.facing[1]))

    def creatures(self, cls, radius):
        px, py = self.player.pos
        found = [o for o in self.world.objects if isinstance(o, cls) and abs(o.pos[0] - px) + abs(o.pos[1] - py) <= radius]
        return sorted(found, key=lambda o: (abs(o.pos[0] - px) + abs(o.pos[1] - py), int(o.pos[0]), int(o.pos[1])))

    def go_use(self, pred, use="do", limit=40):
        """Walk next to a cell satisfying pred, face it and act on it."""
        pos = tuple(int(v) for v in self.player.pos)
        if pred(self.facing_cell()):
            return use
        d = self.adjacent_dir(pos, pred)
        if d is not None:
            return "move_" + d
        step = self.bfs(lambda c: self.adjacent_dir(c, pred) is not None, limit)
        if step in (None, "here"):
            return None
        return "move_" + step

    def wander(self, radius=10):
        cx, cy = self.field_center()
        pos = tuple(int(v) for v in self.player.pos)
        if self.wander_goal is None or pos == self.wander_goal or self.rng.random() < 0.05:
            for _ in range(20):
                g = (cx + self.rng.randint(-radius, radius), cy + self.rng.randint(-radius // 2, radius // 2 + 2))
                if 0 <= g[0] < 64 and 0 <= g[1] < 64 and self.mat(g) in WALK:
                    self.wander_goal = g
                    break
        if self.wander_goal is None:
            return "noop"
        step = self.bfs(lambda c: c == self.wander_goal, 30)
        if step in (None, "here"):
            self.wander_goal = None
            return "noop"
        return "move_" + step

    # -- the policy ---------------------------------------------------------------------------------
    def act(self):
        inv = self.player.inventory
        pos = tuple(int(v) for v in self.player.pos)
        night = self.world.daylight < 0.3
        if self.player.sleeping:
            return "noop", "sleeping"
        hostile = [o for o in self.creatures(cobj.Zombie, 1)] + [o for o in self.creatures(cobj.Skeleton, 1)]
        if not hostile and inv["health"] >= 3:
            hostile = [o for o in self.creatures(cobj.Zombie, 2)]
            if hostile:
                cells = {tuple(int(v) for v in hostile[0].pos)}
                a = self.go_use(lambda c: c in cells, limit=4)
                if a:
                    return a, "fighting"
        if hostile:
            tgt = tuple(int(v) for v in hostile[0].pos)
            if self.facing_cell() == tgt:
                return "do", "fighting"
            return "move_" + self.adjacent_dir(pos, lambda c: c == tgt), "fighting"
        if inv["drink"] <= 3:
            self.mode = "water"
        if inv["food"] <= 3 and self.mode != "water":
            self.mode = "food"
        if self.mode == "water":
            if inv["drink"] >= 9:
                self.mode = ""
            else:
                a = self.go_use(lambda c: self.mat(c) == "water", limit=60)
                if a:
                    return a, "fetching water"
                self.mode = ""
        if self.mode == "food":
            if inv["food"] >= 8:
                self.mode = ""
            else:
                ripe = [o for o in self.creatures(cobj.Plant, 30) if o.ripe]
                if ripe:
                    cells = {tuple(int(v) for v in o.pos) for o in ripe}
                    a = self.go_use(lambda c: c in cells)
                    if a:
                        return a, "harvesting crops"
                cows = self.creatures(cobj.Cow, 30)
                if cows and (not night or inv["health"] >= 5):
                    cells = {tuple(int(v) for v in o.pos) for o in cows}
                    a = self.go_use(lambda c: c in cells)
                    if a:
                        return a, "hunting cattle"
                return self.wander(14), "looking for food"
        # guard the field at night
        if night:
            cx, cy = self.field_center()
            near = [o for o in self.world.objects if isinstance(o, cobj.Zombie)
                    and abs(o.pos[0] - cx) + abs(o.pos[1] - cy) <= 7 and self.player.distance(o) <= 9]
            if near and inv["health"] >= 4:
                cells = {tuple(int(v) for v in near[0].pos)}
                a = self.go_use(lambda c: c in cells)
                if a:
                    return a, "guarding field"
            if inv["energy"] <= 3 and not near:
                return "sleep", "sleeping"
        if inv["energy"] <= 1:
            return "sleep", "sleeping"
        # tools: only what the ranch needs
        table_near = any(self.mat((pos[0] + dx, pos[1] + dy)) == "table" for dx in (-1, 0, 1) for dy in (-1, 0, 1))
        need_pick = inv["wood_pickaxe"] == 0
        need_sword = inv["wood_sword"] == 0
        need_stone_sword = inv["stone_sword"] == 0 and inv["stone"] >= 1
        if need_pick or need_sword or need_stone_sword:
            if table_near:
                if need_pick and inv["wood"] >= 1:
                    return "make_wood_pickaxe", "making tools"
                if need_sword and inv["wood"] >= 1:
                    return "make_wood_sword", "making tools"
                if need_stone_sword and inv["wood"] >= 1:
                    return "make_stone_sword", "making tools"
            have_table = self._table_pos() is not None
            wood_needed = int(need_pick) + int(need_sword) + int(need_stone_sword) + (0 if have_table else 2)
            if inv["wood"] < wood_needed:
                a = self.go_use(lambda c: self.mat(c) == "tree", limit=50)
                if a:
                    return a, "chopping wood"
            elif not have_table:
                if self.mat(self.facing_cell()) in ("grass", "sand", "path") and self.world[self.facing_cell()][1] is None \
                        and self.facing_cell() not in {c for _, c in self.spots}:
                    return "place_table", "setting up workshop"
                return self.wander(3), "setting up workshop"
            else:
                tp = self._table_pos()
                a = self.go_use(lambda c: c == tp, use="noop")
                if a and a != "noop":
                    return a, "making tools"
        # saplings and planting
        open_plants = [c for k, c in self.spots if k == 0 and self.mat(c) == "grass" and self.world[c][1] is None and c not in self.skip]
        open_fence = [c for k, c in self.spots if k == 1 and self.mat(c) == "grass" and self.world[c][1] is None and c not in self.skip]
        if open_plants and inv["sapling"] >= 1:
            a = self.place_from_below(open_plants, "place_plant")
            if a:
                return a, "planting row"
        if open_fence and inv["stone"] >= 1 and inv["wood_pickaxe"]:
            a = self.place_from_below(open_fence, "place_stone")
            if a:
                return a, "fencing field"
        # tend: eat ripe plants when not full
        ripe = [o for o in self.creatures(cobj.Plant, 25) if o.ripe]
        if ripe and inv["food"] <= 7:
            cells = {tuple(int(v) for v in o.pos) for o in ripe}
            a = self.go_use(lambda c: c in cells)
            if a:
                return a, "harvesting crops"
        if open_plants and inv["sapling"] == 0 and self.rng.random() < 0.8:
            fc = self.facing_cell()
            if self.mat(fc) == "grass" and self.world[fc][1] is None and fc not in {c for _, c in self.spots}:
                return "do", "gathering saplings"
            return self.wander(6), "gathering saplings"
        if open_fence and inv["stone"] < 4 and inv["wood_pickaxe"]:
            fence_cells = {c for _, c in self.spots}
            a = self.go_use(lambda c: self.mat(c) == "stone" and c not in fence_cells, limit=25)
            if a:
                return a, "quarrying stone"
        if inv["drink"] <= 6 and self.rng.random() < 0.3:
            self.mode = "water"
            return "noop", "fetching water"
        # herd: follow the nearest cow around the pasture
        cows = [o for o in self.creatures(cobj.Cow, 10)]
        cx, cy = self.field_center()
        if cows and abs(cows[0].pos[0] - cx) + abs(cows[0].pos[1] - cy) <= 16 and self.rng.random() < 0.7:
            tgt = tuple(int(v) for v in cows[0].pos)
            if self.player.distance(cows[0]) <= 2:
                return self.wander(8), "herding cattle"
            step = self.bfs(lambda c: abs(c[0] - tgt[0]) + abs(c[1] - tgt[1]) <= 2, 20)
            if step not in (None, "here"):
                return "move_" + step, "herding cattle"
        return self.wander(9), "patrolling pasture"

    def _table_pos(self):
        px, py = (int(v) for v in self.player.pos)
        best = None
        for x in range(max(0, px - 12), min(64, px + 13)):
            for y in range(max(0, py - 12), min(64, py + 13)):
                if self.world._mat_names[self.world._mat_map[x, y]] == "table":
                    d = abs(x - px) + abs(y - py)
                    if best is None or d < best[0]:
                        best = (d, (x, y))
        return None if best is None else best[1]

    def place_from_below(self, cells, action):
        pos = tuple(int(v) for v in self.player.pos)
        fc = self.facing_cell()
        if fc in cells and tuple(self.player.facing) == (0, -1):
            return action
        if self.place_target in cells:
            targets = [self.place_target]
        else:
            targets = sorted(cells, key=lambda c: (abs(c[0] - pos[0]) + abs(c[1] + 2 - pos[1]), c))[:1]
        for cell in targets:
            self.place_target = cell
            self.tries[cell] += 1
            if self.tries[cell] > 14:
                self.skip.add(cell)
            lane, approach = (cell[0], cell[1] + 1), (cell[0], cell[1] + 2)
            if pos == approach:
                if self.world[lane][1] is None and self.mat(lane) in WALK:
                    return "move_up"
                self.skip.add(cell)
                continue
            step = self.bfs(lambda c, a=approach: c == a, 30)
            if step == "here":
                return "move_up"
            if step is not None:
                return "move_" + step
        return None


def _region(world, pos, field):
    x, y = pos
    fx, fy = field
    if fx - 2 <= x <= fx + 10 and abs(y - fy) <= 3:
        return "paddock"
    counts = Counter()
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            m = world[(x + dx, y + dy)][0]
            if m is not None:
                counts[m] += 1
    if counts["water"] >= 3:
        return "waterside"
    if counts["tree"] >= 6:
        return "woodlot"
    if counts["stone"] + counts["path"] + counts["coal"] + counts["iron"] >= 8:
        return "rocky ground"
    if world[pos][0] == "sand" or counts["sand"] >= 8:
        return "sandbank"
    if abs(x - fx - 4) + abs(y - fy) <= 14:
        return "home pasture"
    return "far pasture"


def _name(s: str) -> str:
    return s.replace("_", " ")


def _visible(world, pos):
    mats, objs = set(), set()
    x, y = pos
    for dx in range(-4, 5):
        for dy in range(-3, 4):
            m, o = world[(x + dx, y + dy)]
            if m is not None:
                mats.add(m)
            if o is not None and (dx or dy):
                objs.add(CREATURES.get(type(o), type(o).__name__.lower()))
    return mats, objs


def rollout(seed: int):
    rng = random.Random(seed * 31 + 7)
    total = rng.randint(600, 1300)
    steps: list[Step] = []
    life = 1
    env = _StableEnv(area=(64, 64), seed=seed)
    env.reset()
    agent = Rancher(env, rng)
    prev_region = None
    prev_sky = "day"
    prev_seen = {"zombie": False, "cow": False, "skeleton": False}
    prev_sleep = False
    respawned = False
    while len(steps) < total:
        p = env._player
        before_inv = dict(p.inventory)
        before_ach = dict(p.achievements)
        facing_obj = env._world[(int(p.pos[0] + p.facing[0]), int(p.pos[1] + p.facing[1]))][1]
        target_health = facing_obj.health if facing_obj is not None else None
        field_before = {c for k, c in agent.spots if k == 0 and isinstance(env._world[c][1], cobj.Plant)}
        action, task = agent.act()
        _, _, done, info = env.step(ACTIONS.index(action))
        inv = info["inventory"]
        pos = (int(p.pos[0]), int(p.pos[1]))
        events: list[Event] = []
        if respawned:
            events.append(Event("respawn"))
            respawned = False
        for item in ("wood", "sapling", "stone", "coal", "iron", "diamond"):
            if action == "do" and inv[item] > before_inv[item]:
                events.append(Event("gather", item))
        if action == "do" and inv["drink"] > before_inv["drink"]:
            events.append(Event("drink", "water"))
        ach = info["achievements"]
        if ach["eat_plant"] > before_ach["eat_plant"]:
            events.append(Event("harvest", "plant"))
        if ach["eat_cow"] > before_ach["eat_cow"]:
            events.append(Event("slaughter", "cow"))
        for foe in ("zombie", "skeleton"):
            if ach[f"defeat_{foe}"] > before_ach[f"defeat_{foe}"]:
                events.append(Event("fend off", foe))
        if action == "do" and facing_obj is not None and target_health is not None and 0 < facing_obj.health < target_health:
            events.append(Event("strike", CREATURES.get(type(facing_obj), "creature")))
        if ach["place_plant"] > before_ach["place_plant"]:
            events.append(Event("sow", "sapling"))
        if ach["place_stone"] > before_ach["place_stone"]:
            events.append(Event("build fence", "stone"))
        if ach["place_table"] > before_ach["place_table"]:
            events.append(Event("set up", "table"))
        for tool in ("wood_pickaxe", "wood_sword", "stone_sword", "stone_pickaxe"):
            if ach[f"make_{tool}"] > before_ach[f"make_{tool}"]:
                events.append(Event("craft", _name(tool)))
        for name in sorted(ach):
            if ach[name] > 0 and before_ach[name] == 0:
                events.append(Event("unlock", _name(name)))
        if inv["health"] < before_inv["health"]:
            near = {CREATURES.get(type(o)) for o in env._world.objects if p.distance(o) <= 2 and o is not p}
            if "zombie" in near:
                cause = "zombie"
            elif "arrow" in near or "skeleton" in near:
                cause = "arrow"
            elif inv["drink"] == 0:
                cause = "thirst"
            elif inv["food"] == 0:
                cause = "hunger"
            elif inv["energy"] == 0:
                cause = "exhaustion"
            else:
                cause = "unknown"
            events.append(Event("take damage", cause))
        if p.sleeping and not prev_sleep:
            events.append(Event("doze off"))
        if prev_sleep and not p.sleeping:
            events.append(Event("wake up"))
        prev_sleep = p.sleeping
        mats, objs = _visible(env._world, pos)
        for kind in ("cow", "zombie", "skeleton"):
            if kind in objs and not prev_seen[kind]:
                events.append(Event("spot", kind))
            prev_seen[kind] = kind in objs
        region = _region(env._world, pos, agent.field)
        if region != prev_region and prev_region is not None:
            events.append(Event("arrive at", region))
        prev_region = region
        sky = "night" if env._world.daylight < 0.3 else "day"
        if sky != prev_sky:
            events.append(Event("nightfall" if sky == "night" else "daybreak"))
        prev_sky = sky
        field_after = {c for k, c in agent.spots if k == 0 and isinstance(env._world[c][1], cobj.Plant)}
        if field_before - field_after:
            events.append(Event("lose seedling", "plant"))
        if done:
            events.append(Event("die"))
        fc = (int(p.pos[0] + p.facing[0]), int(p.pos[1] + p.facing[1]))
        fm, fo = env._world[fc]
        facing = CREATURES.get(type(fo), "object") if fo is not None else (fm or "void")
        inventory = {_name(k): int(v) for k, v in inv.items() if k not in VITALS and v > 0}
        state = {k: int(inv[k]) for k in VITALS}
        state.update(task=task, sky=sky, life=life, crops=len(field_after))
        visible = sorted(mats | objs)
        obs = (f"{sky}, {region} at ({pos[0]},{pos[1]}), facing {facing}; "
               f"health {state['health']} food {state['food']} drink {state['drink']} energy {state['energy']}; "
               f"sees {', '.join(visible)}")
        steps.append(Step(
            t=len(steps), action=action, summary=f"{task}: {action}", objects=tuple(visible), events=tuple(events),
            relations=(Relation("agent", "facing", facing),), inventory=inventory, state=state,
            location=Location(position=pos, region=region, underfoot=env._world[pos][0] or ""), observation=obs))
        if done:
            life += 1
            env = _StableEnv(area=(64, 64), seed=seed * 1000 + life)
            env.reset()
            agent = Rancher(env, rng)
            prev_region, prev_sky, prev_sleep, respawned = None, "day", False, True
            prev_seen = {k: False for k in prev_seen}
    return steps


# ------------------------------------------------------------------------------------------------
# Reference evaluator and questions
# ------------------------------------------------------------------------------------------------

SUBJECTS = [("I", "my", "me"), ("we", "our", "us"), ("you", "your", "you"), ("the agent", "the agent's", "the agent"),
            ("it", "its", "it"), (AGENT, AGENT + "'s", AGENT)]
ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"], 5: ["fifth", "5th"]}

PHRASES = {
    ("gather", "wood"): [("gather wood", "gathered wood"), ("chop wood", "chopped wood"), ("get wood from a tree", "got wood from a tree")],
    ("gather", "sapling"): [("gather a sapling", "gathered a sapling"), ("pick up a sapling", "picked up a sapling")],
    ("gather", "stone"): [("gather stone", "gathered stone"), ("quarry a stone", "quarried a stone"), ("mine stone", "mined stone")],
    ("gather", "coal"): [("gather coal", "gathered coal"), ("mine coal", "mined coal")],
    ("gather", "diamond"): [("gather a diamond", "gathered a diamond"), ("mine a diamond", "mined a diamond")],
    ("gather", "iron"): [("gather iron", "gathered iron"), ("mine iron", "mined iron")],
    ("drink", "water"): [("drink water", "drank water"), ("take a drink of water", "took a drink of water")],
    ("harvest", "plant"): [("harvest a ripe plant", "harvested a ripe plant"), ("eat a ripe crop", "ate a ripe crop")],
    ("slaughter", "cow"): [("slaughter a cow", "slaughtered a cow"), ("kill and eat a cow", "killed and ate a cow")],
    ("strike", "zombie"): [("strike a zombie without killing it", "struck a zombie without killing it"), ("land a non-fatal blow on a zombie", "landed a non-fatal blow on a zombie")],
    ("strike", "cow"): [("strike a cow without killing it", "struck a cow without killing it")],
    ("strike", "skeleton"): [("strike a skeleton without killing it", "struck a skeleton without killing it")],
    ("fend off", "zombie"): [("fend off a zombie", "fended off a zombie"), ("kill a zombie", "killed a zombie"), ("defeat a zombie", "defeated a zombie")],
    ("fend off", "skeleton"): [("fend off a skeleton", "fended off a skeleton"), ("defeat a skeleton", "defeated a skeleton")],
    ("sow", "sapling"): [("sow a sapling", "sowed a sapling"), ("plant a sapling", "planted a sapling")],
    ("build fence", "stone"): [("build a piece of stone fence", "built a piece of stone fence"), ("put up a fence stone", "put up a fence stone")],
    ("set up", "table"): [("set up a table", "set up a table"), ("put down a crafting table", "put down a crafting table")],
    ("set up", "furnace"): [("set up a furnace", "set up a furnace"), ("put down a furnace", "put down a furnace")],
    ("take damage", "zombie"): [("take damage from a zombie", "took damage from a zombie"), ("get hurt by a zombie", "got hurt by a zombie")],
    ("take damage", "arrow"): [("take damage from an arrow", "took damage from an arrow")],
    ("take damage", "thirst"): [("take damage from thirst", "took damage from thirst")],
    ("take damage", "hunger"): [("take damage from hunger", "took damage from hunger")],
    ("take damage", "unknown"): [("take damage from an unknown cause", "took damage from an unknown cause")],
    ("take damage", None): [("take damage", "took damage"), ("get hurt", "got hurt"), ("lose health", "lost health")],
    ("doze off", ""): [("doze off", "dozed off"), ("fall asleep", "fell asleep")],
    ("wake up", ""): [("wake up", "woke up")],
    ("spot", "cow"): [("spot a cow", "spotted a cow"), ("catch sight of a cow", "caught sight of a cow")],
    ("spot", "zombie"): [("spot a zombie", "spotted a zombie"), ("catch sight of a zombie", "caught sight of a zombie")],
    ("spot", "skeleton"): [("spot a skeleton", "spotted a skeleton"), ("catch sight of a skeleton", "caught sight of a skeleton")],
    ("nightfall", ""): [("see night fall", "saw night fall"), ("see nightfall", "saw nightfall")],
    ("daybreak", ""): [("see daybreak", "saw daybreak"), ("see the day break", "saw the day break")],
    ("lose seedling", "plant"): [("lose a seedling", "lost a seedling"), ("lose a plant from the field", "lost a plant from the field")],
    ("die", ""): [("die", "died"), ("get killed", "got killed")],
    ("respawn", ""): [("respawn", "respawned"), ("start a new life", "started a new life")],
}
NEVER = [("gather", "diamond"), ("gather", "iron"), ("set up", "furnace"), ("craft", "iron pickaxe"), ("craft", "stone pickaxe"),
         ("fend off", "skeleton"), ("harvest", "plant"), ("take damage", "thirst"), ("gather", "coal"), ("strike", "cow")]


def phrases(pat):
    kind, obj = pat
    if pat in PHRASES:
        return PHRASES[pat]
    if kind == "craft":
        return [(f"craft a {obj}", f"crafted a {obj}"), (f"make a {obj}", f"made a {obj}")]
    if kind == "unlock":
        return [(f"unlock the '{obj}' achievement", f"unlocked the '{obj}' achievement")]
    if kind == "arrive at":
        return [(f"arrive at the {obj}", f"arrived at the {obj}"), (f"get to the {obj}", f"got to the {obj}"), (f"enter the {obj}", f"entered the {obj}")]
    return [(f"{kind} {obj}".strip(), f"{kind} {obj}".strip())]


def label(pat):
    return f"{pat[0]} {pat[1]}".strip() if pat[1] else pat[0]


class Ref:
    """The reference evaluator: plain scans over the Step records."""

    def __init__(self, steps, episode):
        self.steps = steps
        self.ep = episode
        self.n = len(steps)
        self.ev = [[(e.kind, e.obj) for e in s.events] for s in steps]
        self.inv = [dict(s.inventory) for s in steps]
        self.st = [dict(s.state) for s in steps]

    def gid(self, t):
        return f"{self.ep}:{t}"

    def occ(self, pat, lo=0, hi=None):
        hi = self.n - 1 if hi is None else hi
        kind, obj = pat
        return [t for t in range(max(lo, 0), min(hi, self.n - 1) + 1)
                if any(k == kind and (obj is None or o == obj) for k, o in self.ev[t])]

    def slot(self, t, slot, arg=None):
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "location":
            return s.location.region
        if slot == "position":
            return f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "inventory":
            return ", ".join(f"{k} {v}" for k, v in sorted(self.inv[t].items())) or "none"
        if slot == "item":
            return str(self.inv[t].get(arg, 0))
        if slot == "state":
            v = self.st[t][arg]
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        if slot == "facing":
            return s.relations[0].obj
        if slot == "events":
            return "; ".join(label(p) for p in self.ev[t]) or "none"
        raise ValueError(slot)


SLOT_STEMS = {
    "action": ["what action did {s} take", "which command did {s} issue", "what did {s} do"],
    "location": ["in which region did {s} stand", "which area of the map did {s} occupy", "in what region did {s} end up"],
    "position": ["what were {p} coordinates", "what was {p} x,y position", "at which grid position did {s} stand"],
    "inventory": ["what was in {p} inventory", "what did {s} carry", "what items did {s} hold"],
    "item": ["how many {a} did {s} have", "what was {p} {a} count", "how much {a} was in {p} inventory"],
    "state": ["what was {p} {a}", "what value did {p} {a} have"],
    "facing": ["what did {s} face", "what was right in front of {o}"],
    "events": ["what events were logged", "what happened"],
}
STATE_WORDS = {"health": "health", "food": "food level", "drink": "drink level", "energy": "energy", "task": "current task",
               "sky": "sky state (day or night)", "life": "life number", "crops": "count of crops standing in the field"}


class Gen:
    def __init__(self, ref: Ref, rng: random.Random):
        self.r = ref
        self.rng = rng
        self.out = []
        self.pats = sorted({p for evs in ref.ev for p in evs}, key=label)
        self.cnt = Counter(p for evs in ref.ev for p in evs)

    def subj(self):
        return self.rng.choice(SUBJECTS)

    def pick_pat(self, min_count=1, exclude=()):
        pool = [p for p in self.pats if self.cnt[p] >= min_count and p not in exclude and p[0] != "unlock"]
        return self.rng.choice(pool) if pool else None

    def vp(self, pat, past=False):
        return self.rng.choice(phrases(pat))[1 if past else 0]

    def slot_pick(self, t, allow_events=True):
        slots = ["action", "location", "position", "inventory", "item", "state", "facing"] + (["events"] if allow_events else [])
        slot = self.rng.choice(slots)
        arg = None
        if slot == "item":
            items = sorted(set().union(*[set(d) for d in self.r.inv])) or ["wood"]
            arg = self.rng.choice(items + ["sapling", "stone"])
        if slot == "state":
            arg = self.rng.choice(sorted(STATE_WORDS))
        return slot, arg

    def stem(self, slot, arg, s):
        sub, pos, obj = s
        a = STATE_WORDS.get(arg, arg) if slot == "state" else arg
        text = self.rng.choice(SLOT_STEMS[slot]).format(s=sub, p=pos, o=obj, a=a)
        return text

    def add(self, fam, slot, q, a, gold):
        q = q[0].upper() + q[1:]
        self.out.append({"family": fam, "slot": slot, "question": q, "answer": str(a),
                         "gold": sorted({self.r.gid(t) for t in gold}, key=lambda g: int(g.split(":")[1]))})

    def rand_t(self, lo=5, hi=None):
        hi = self.r.n - 6 if hi is None else hi
        return self.rng.randint(lo, hi)

    def ordinal(self, n):
        return self.rng.choice(ORD[n])


def _f1(g: Gen, one_off: bool):
    r, t = g.r, g.rand_t(1, g.r.n - 1)
    if one_off:
        choice = g.rng.randint(0, 1)
        if choice == 0:
            return g.add("1_step_index", "facing", f"Right after step {t - 1}, what was directly ahead of {AGENT}?", r.slot(t, "facing"), [t])
        return g.add("1_step_index", "events", f"Step {t} of the ranch run: list whatever got logged as events there.", r.slot(t, "events"), [t])
    s = g.subj()
    slot, arg = g.slot_pick(t)
    when = g.rng.choice([f"at step {t}", f"on step {t}", f"at t={t}"])
    q = f"{g.stem(slot, arg, s)} {when}?" if g.rng.random() < 0.6 else f"{when[0].upper() + when[1:]}, {g.stem(slot, arg, s)}?"
    g.add("1_step_index", slot, q, r.slot(t, slot, arg), [t])


def _f2(g: Gen, one_off: bool):
    r = g.r
    pat = g.pick_pat(2)
    occ = r.occ(pat)
    if one_off:
        if g.rng.random() < 0.5:
            return g.add("2_nth_occurrence", "step", f"Counting from the start, at which step did {AGENT} {g.vp(pat)} for the second time?", occ[1], [occ[1]])
        return g.add("2_nth_occurrence", "location", f"The very last time {g.subj()[0]} {g.vp(pat, True)} -- which region was that in?", r.slot(occ[-1], "location"), [occ[-1]])
    s = g.subj()
    mode = g.rng.choice(["nth", "nth", "last", "penult"])
    if mode == "nth":
        n = g.rng.randint(1, min(5, len(occ)))
        t, phrase = occ[n - 1], f"the {g.ordinal(n)} time {s[0]} {g.vp(pat, True)}"
    elif mode == "last":
        t, phrase = occ[-1], f"the {g.rng.choice(['last', 'final', 'most recent'])} time {s[0]} {g.vp(pat, True)}"
    else:
        t, phrase = occ[-2], f"the second-to-last time {s[0]} {g.vp(pat, True)}"
    if g.rng.random() < 0.5:
        g.add("2_nth_occurrence", "step", f"At what step was {phrase}?", t, [t])
    else:
        slot, arg = g.slot_pick(t, allow_events=False)
        g.add("2_nth_occurrence", slot, f"{g.stem(slot, arg, s)} {phrase}?", r.slot(t, slot, arg), [t])


def _f3(g: Gen, one_off: bool):
    r = g.r
    for _ in range(50):
        pat = g.pick_pat(2)
        mode = g.rng.choice(["after", "before", "between", "first", "after_ev"])
        anchors = []
        s = g.subj()
        if mode == "after":
            n = g.rand_t(); occ = r.occ(pat, n + 1); w = f"after step {n}"
        elif mode == "before":
            n = g.rand_t(); occ = r.occ(pat, 0, n - 1); w = f"before step {n}"
        elif mode == "between":
            a = g.rand_t(); b = min(r.n - 1, a + g.rng.randint(60, 300)); occ = r.occ(pat, a, b); w = f"between steps {a} and {b}"
        elif mode == "first":
            n = g.rand_t(50); occ = r.occ(pat, 0, n - 1); w = f"in the first {n} steps"
        else:
            ap = g.pick_pat(1, exclude=(pat,)); at = r.occ(ap)[0]; occ = r.occ(pat, at + 1); anchors = [at]
            w = f"after {s[0]} first {g.vp(ap, True)}"
        if not occ:
            continue
        last = g.rng.random() < 0.3 and mode != "after_ev"
        t = occ[-1] if last else occ[0]
        which = "last" if last else "first"
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("3_windowed_occurrence", "step", f"Looking only {w}: when was the {which} time {AGENT} managed to {g.vp(pat)}?", t, [t] + anchors)
            return g.add("3_windowed_occurrence", "position", f"{w[0].upper() + w[1:]}, {s[0]} {g.vp(pat, True)} at some point; give the x,y spot of the {which} such occasion.", r.slot(t, "position"), [t] + anchors)
        if g.rng.random() < 0.5:
            return g.add("3_windowed_occurrence", "step", f"{w[0].upper() + w[1:]}, at which step did {s[0]} {which} {g.vp(pat)}?", t, [t] + anchors)
        slot, arg = g.slot_pick(t, allow_events=False)
        return g.add("3_windowed_occurrence", slot, f"{g.stem(slot, arg, s)} the {which} time {s[0]} {g.vp(pat, True)} {w}?", r.slot(t, slot, arg), [t] + anchors)


def _conditions(r: Ref):
    """(description builder, matching steps) for conditions that occur in the episode."""
    conds = []
    items = sorted(set().union(*[set(d) for d in r.inv]))
    for it in items:
        peak = max(d.get(it, 0) for d in r.inv)
        for k in range(1, peak + 1):
            conds.append((f"{it} count first reached {k} or more", "reach", it, k,
                          [t for t in range(r.n) if r.inv[t].get(it, 0) >= k]))
        runs = [t for t in range(1, r.n) if r.inv[t].get(it, 0) == 0 and r.inv[t - 1].get(it, 0) > 0]
        if runs:
            conds.append((f"ran out of {it}", "runout", it, 0, runs))
    for v in ("health", "food", "drink", "energy"):
        low = min(d[v] for d in r.st)
        for k in range(max(low, 1), 8):
            conds.append((f"{v} fell to {k} or below", "low", v, k, [t for t in range(r.n) if r.st[t][v] <= k]))
    for task in sorted({d["task"] for d in r.st}):
        ts = [t for t in range(r.n) if r.st[t]["task"] == task and (t == 0 or r.st[t - 1]["task"] != task)]
        conds.append((f"task became '{task}'", "task", "task", task, ts))
    ts = [t for t in range(1, r.n) if r.st[t]["sky"] == "night" and r.st[t - 1]["sky"] != "night"]
    if ts:
        conds.append(("sky became night", "sky", "sky", "night", ts))
    return [c for c in conds if c[4]]


def _cond_text(g: Gen, c, s):
    _, kind, name, k, _ = c
    sub, pos, _ = s
    if kind == "reach":
        return g.rng.choice([f"{pos} {name} first reached {k}" if k > 1 else f"{sub} first had any {name}", f"{sub} first held at least {k} {name}"])
    if kind == "runout":
        return g.rng.choice([f"{sub} ran out of {name}", f"{pos} {name} ran out"])
    if kind == "low":
        return g.rng.choice([f"{pos} {name} first dropped to {k} or lower", f"{pos} {name} was first at or below {k}"])
    if kind == "task":
        return g.rng.choice([f"{pos} task first became '{k}'", f"{sub} first switched to the task '{k}'"])
    return "night first fell"


def _f4(g: Gen, one_off: bool):
    r = g.r
    conds = _conditions(r)
    c = g.rng.choice(conds)
    s = g.subj()
    last = c[1] in ("reach", "low") and g.rng.random() < 0.2
    t = c[4][-1] if last else c[4][0]
    if one_off:
        if g.rng.random() < 0.5 and c[1] == "low":
            return g.add("4_condition", "step", f"{AGENT}'s {c[2]} kept sliding at times; name the first step at which it stood at {c[3]} or less.", c[4][0], [c[4][0]])
        return g.add("4_condition", "location", f"Where on the map was {s[0]} at the moment {_cond_text(g, c, s)}?", r.slot(c[4][0], "location"), [c[4][0]])
    text = _cond_text(g, c, s)
    if last:
        text = {"reach": f"{s[1]} {c[2]} count was {c[3]} or more", "low": f"{s[1]} {c[2]} was {c[3]} or below"}[c[1]]
        head = "the last step"
    else:
        head = "the step"
    if g.rng.random() < 0.5:
        q = f"Which was {head} {'at which ' + text if last else 'when ' + text}?" if not last else f"What was {head} at which {text}?"
        return g.add("4_condition", "step", q, t, [t])
    slot, arg = g.slot_pick(t, allow_events=False)
    lead = f"on {head} at which {text}" if last else f"when {text}"
    return g.add("4_condition", slot, f"{g.stem(slot, arg, s)} {lead}?", r.slot(t, slot, arg), [t])


def _f5(g: Gen, one_off: bool):
    r = g.r
    for _ in range(50):
        s = g.subj()
        k = g.rng.randint(1, 6)
        sign = g.rng.choice([1, -1])
        mode = g.rng.choice(["occ", "occ", "cond", "step"])
        if mode == "occ":
            pat = g.pick_pat(1); occ = r.occ(pat)
            n = g.rng.randint(1, min(3, len(occ))); at = occ[n - 1]
            anchor = f"the {g.ordinal(n)} time {s[0]} {g.vp(pat, True)}" if n > 1 else f"the moment {s[0]} first {g.vp(pat, True)}"
        elif mode == "cond":
            c = g.rng.choice(_conditions(r)); at = c[4][0]; anchor = _cond_text(g, c, s)
        else:
            at = g.rand_t(); anchor = f"step {at}"
        t = at + sign * k
        if not 0 <= t < r.n:
            continue
        rel = f"{k} step{'s' if k > 1 else ''} {'after' if sign > 0 else 'before'}"
        rel_anchor = f"{rel} the step when {anchor}" if mode == "cond" else f"{rel} {anchor}"
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("5_offset", "action", f"Think back to {rel_anchor}. Which action went out to the environment then?", r.slot(t, "action"), [t, at])
            return g.add("5_offset", "position", f"Where exactly (x,y) did {AGENT} stand {rel_anchor}?", r.slot(t, "position"), [t, at])
        slot, arg = g.slot_pick(t)
        if g.rng.random() < 0.5:
            return g.add("5_offset", slot, f"{g.stem(slot, arg, s)} {rel_anchor}?", r.slot(t, slot, arg), [t, at])
        return g.add("5_offset", slot, f"{rel_anchor[0].upper() + rel_anchor[1:]}: {g.stem(slot, arg, s)}?", r.slot(t, slot, arg), [t, at])


def _f6(g: Gen, one_off: bool):
    r = g.r
    for _ in range(50):
        s = g.subj()
        pat = g.pick_pat(2)
        nxt = g.rng.random() < 0.55
        if g.rng.random() < 0.5:
            at = g.rand_t(); anchor = f"step {at}"; anchors = []
        else:
            ap = g.pick_pat(1, exclude=(pat,)); aocc = r.occ(ap)
            at = aocc[0] if g.rng.random() < 0.6 else aocc[-1]
            which = "first" if at == aocc[0] else "last"
            anchor = f"{s[1]} {which} '{label(ap)}' event" if g.rng.random() < 0.3 else f"the {which} time {s[0]} {g.vp(ap, True)}"
            anchors = [at]
        occ = r.occ(pat, at + 1) if nxt else r.occ(pat, 0, at - 1)
        if not occ:
            continue
        t = occ[0] if nxt else occ[-1]
        if one_off:
            if nxt:
                return g.add("6_next_previous", "step", f"Once {anchor} was behind {s[2]}, how long until the next chance to {g.vp(pat)} -- give the step.", t, [t] + anchors)
            return g.add("6_next_previous", "location", f"Going backwards from {anchor}, where was {AGENT} the previous time it {g.vp(pat, True)}?", r.slot(t, "location"), [t] + anchors)
        word = "next" if nxt else g.rng.choice(["previous", "last"])
        prep = "after" if nxt else "before"
        if g.rng.random() < 0.5:
            return g.add("6_next_previous", "step", f"When did {s[0]} {word} {g.vp(pat)} {prep} {anchor}?", t, [t] + anchors)
        slot, arg = g.slot_pick(t, allow_events=False)
        return g.add("6_next_previous", slot, f"{prep.capitalize()} {anchor}, {g.stem(slot, arg, s)} the {word} time {s[0]} {g.vp(pat, True)}?", r.slot(t, slot, arg), [t] + anchors)


def _f7(g: Gen, one_off: bool, zero: bool):
    r = g.r
    for _ in range(60):
        s = g.subj()
        pat = g.rng.choice(NEVER) if zero and g.rng.random() < 0.4 else g.pick_pat(1)
        mode = g.rng.choice(["all", "before", "after", "between", "first", "after_ev"])
        anchors = []
        if mode == "all":
            occ, w = r.occ(pat), g.rng.choice(["in the whole episode", "over the entire run", ""])
        elif mode == "before":
            n = g.rand_t(); occ, w = r.occ(pat, 0, n - 1), f"before step {n}"
        elif mode == "after":
            n = g.rand_t(); occ, w = r.occ(pat, n + 1), f"after step {n}"
        elif mode == "between":
            a = g.rand_t(); b = min(r.n - 1, a + g.rng.randint(50, 400)); occ, w = r.occ(pat, a, b), f"between steps {a} and {b}"
        elif mode == "first":
            n = g.rand_t(40); occ, w = r.occ(pat, 0, n - 1), f"in the first {n} steps"
        else:
            ap = g.pick_pat(1, exclude=(pat,)); at = r.occ(ap)[0]; anchors = [at]
            occ, w = r.occ(pat, at + 1), f"after {s[0]} first {g.vp(ap, True)}"
        if zero != (len(occ) == 0):
            continue
        gold = ([occ[-1]] if occ else []) + anchors
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("7_count", "count", f"Tally it up for me: {w or 'overall'}, how often did {AGENT} {g.vp(pat)}?", len(occ), gold)
            return g.add("7_count", "count", f"{w[0].upper() + w[1:] if w else 'All told'}, {s[0]} {g.vp(pat, True)} how many times?", len(occ), gold)
        q = g.rng.choice([f"How many times did {s[0]} {g.vp(pat)} {w}?", f"How often did {s[0]} {g.vp(pat)} {w}?",
                          f"{w[0].upper() + w[1:] if w else 'Overall'}, how many times did {s[0]} {g.vp(pat)}?"])
        return g.add("7_count", "count", q.replace("  ", " ").replace(" ?", "?"), len(occ), gold)


def _f8(g: Gen, one_off: bool):
    r = g.r
    for _ in range(50):
        s = g.subj()
        a, b = g.pick_pat(1), g.pick_pat(1)
        if a == b:
            continue
        ta, tb = r.occ(a)[0], r.occ(b)[0]
        if ta == tb:
            continue
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("8_order", "which-first", f"Of these two, which one did {AGENT} get to earlier: '{label(a)}' or '{label(b)}'?", label(a) if ta < tb else label(b), [ta, tb])
            return g.add("8_order", "yes/no", f"Thinking of the first time each happened: did {AGENT} {g.vp(a)} earlier than {AGENT} {g.vp(b, True)}?", "yes" if ta < tb else "no", [ta, tb])
        if g.rng.random() < 0.5:
            q = g.rng.choice([f"Which came first: {s[0]} {g.vp(a, True)} or {s[0]} {g.vp(b, True)}?",
                              f"Which happened earlier, '{label(a)}' or '{label(b)}'?"])
            return g.add("8_order", "which-first", q, label(a) if ta < tb else label(b), [ta, tb])
        q = g.rng.choice([f"Did {s[0]} {g.vp(a)} before {s[0]} first {g.vp(b, True)}?",
                          f"Was {s[1]} first '{label(a)}' earlier than {s[1]} first '{label(b)}'?"])
        return g.add("8_order", "yes/no", q, "yes" if ta < tb else "no", [ta, tb])


def _f9(g: Gen, one_off: bool):
    r = g.r
    for _ in range(50):
        s = g.subj()
        mode = g.rng.choice(["two", "same", "step"])
        if mode == "two":
            a, b = g.pick_pat(1), g.pick_pat(1)
            if a == b:
                continue
            ta, tb = r.occ(a)[0], r.occ(b)[0]
            da, db = f"when {s[0]} first {g.vp(a, True)}", f"when {s[0]} first {g.vp(b, True)}"
        elif mode == "same":
            a = g.pick_pat(2); occ = r.occ(a); ta, tb = occ[0], occ[1]
            da, db = f"the first time {s[0]} {g.vp(a, True)}", "the second time"
        else:
            a = g.pick_pat(1); ta = g.rand_t(); tb = r.occ(a)[0]
            da, db = f"step {ta}", f"when {s[0]} first {g.vp(a, True)}"
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("9_distance", "duration", f"How much time, in steps, passed between {da} and {db}?", abs(ta - tb), [ta, tb])
            return g.add("9_distance", "duration", f"Measure the gap: from {da} to {db}, how many steps?", abs(ta - tb), [ta, tb])
        q = g.rng.choice([f"How many steps passed between {da} and {db}?", f"How many steps separate {da} from {db}?"])
        return g.add("9_distance", "duration", q, abs(ta - tb), [ta, tb])


def _f10(g: Gen, one_off: bool, want_yes: bool):
    r = g.r
    for _ in range(80):
        s = g.subj()
        mode = g.rng.choice(["ever", "before", "after", "after_ev", "between"])
        pat = g.rng.choice(NEVER) if (not want_yes and mode == "ever") else g.pick_pat(1)
        anchors = []
        if mode == "ever":
            occ, w = r.occ(pat), ""
        elif mode == "before":
            n = g.rand_t(); occ, w = r.occ(pat, 0, n - 1), f"before step {n}"
        elif mode == "after":
            n = g.rand_t(); occ, w = r.occ(pat, n + 1), f"after step {n}"
        elif mode == "between":
            a = g.rand_t(); b = min(r.n - 1, a + g.rng.randint(30, 200)); occ, w = r.occ(pat, a, b), f"between steps {a} and {b}"
        else:
            ap = g.pick_pat(1, exclude=(pat,)); at = r.occ(ap)[0]; anchors = [at]
            occ, w = r.occ(pat, at + 1), f"after {s[0]} first {g.vp(ap, True)}"
            if g.rng.random() < 0.5:
                occ, w = r.occ(pat, 0, at - 1), f"before {s[0]} first {g.vp(ap, True)}"
        if want_yes != bool(occ):
            continue
        gold = ([occ[0]] if occ else []) + anchors
        ans = "yes" if occ else "no"
        if one_off:
            if g.rng.random() < 0.5:
                return g.add("10_existence", "yes/no", f"{'Ever' if not w else w[0].upper() + w[1:]} -- is there any record that {AGENT} {g.vp(pat, True)}?", ans, gold)
            return g.add("10_existence", "yes/no", f"I'm trying to remember whether {s[0]} {g.vp(pat, True)} {w or 'at any point'}. Did that happen?", ans, gold)
        q = g.rng.choice([f"Did {s[0]} ever {g.vp(pat)} {w}?", f"{w[0].upper() + w[1:] + ', did' if w else 'Did'} {s[0]} {g.vp(pat)} at all?"])
        return g.add("10_existence", "yes/no", q.replace(" ?", "?"), ans, gold)


def make_questions(steps, episode, seed):
    g = Gen(Ref(steps, episode), random.Random(seed * 17 + 3))
    one_offs = {0, 3}  # two hand-worded one-offs per family (20 of 60)
    for i in range(6):
        _f1(g, i in one_offs)
    for fn in (_f2, _f3, _f4, _f5, _f6, _f8, _f9):
        for i in range(6):
            before = len(g.out)
            fn(g, i in one_offs)
            if len(g.out) == before:
                fn(g, False)
    for i in range(6):
        _f7(g, i in one_offs, zero=i in (2, 5))
    for i in range(6):
        _f10(g, i in one_offs, want_yes=i % 2 == 0)
    for q in g.out:
        q["episode"] = episode
    return [{k: q[k] for k in ("episode", "family", "slot", "question", "answer", "gold")} for q in g.out]


def build(seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="heldout7_") as tmp:
        steps = rollout(seed)
        episode = f"{SUITE}_{seed}"
        validate_steps(steps, episode)
        Path(tmp, "steps.txt").write_text("\n".join(s.observation for s in steps))
        questions = make_questions(steps, episode, seed)
    return {"episodes": {episode: steps}, "questions": questions}


def _self_check(seeds):
    for seed in seeds:
        t0 = time.time()
        a = build(seed)
        elapsed = time.time() - t0
        b = build(seed)
        assert a["questions"] == b["questions"], "questions differ between builds"
        ep, steps = next(iter(a["episodes"].items()))
        assert steps == b["episodes"][ep], "steps differ between builds"
        validate_steps(steps, ep)
        assert all(s.t == i for i, s in enumerate(steps)) and 300 <= len(steps) <= 1500
        qs = a["questions"]
        assert len(qs) == 60, len(qs)
        fam = Counter(q["family"] for q in qs)
        assert all(v == 6 for v in fam.values()) and len(fam) == 10, fam
        print(f"seed {seed}: {len(steps)} steps, built in {elapsed:.1f}s, deterministic")
        print("  families:", dict(sorted(fam.items())))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  event kinds:", dict(sorted(Counter(e.kind for s in steps for e in s.events).items())))
        for q in random.Random(seed).sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']} {q['gold']}")


if __name__ == "__main__":
    _self_check([int(a) for a in sys.argv[1:]] or list(SEED_RANGE)[:2])
