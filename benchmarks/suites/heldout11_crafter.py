"""Tansy the market gardener: a question suite over real Crafter trajectories.

The agent
    Tansy is a scripted market gardener living in a real Crafter world (``crafter.Env(seed=seed)``,
    frames not rendered, creature despawning made order-independent by sorting candidates by position).
    It picks a grassy spot near water (and not too far from trees and rock) for a two-cell shed, marks out
    2-4 named two-cell garden plots around it, chops wood, sets a crafting table into the shed wall, crafts
    tools, quarries stone, walls the shed and fences each plot on three sides with stones, gathers
    saplings from the grass and plants them, shuts the plot gates with stones when it leaves them and
    opens them to plant or harvest, guards the plots (fights zombies and skeletons, chases and eats cows
    near the plants), keeps its vitals up (drinks at the pond, eats ripe plants or cows), and sleeps in its
    sealed shed at night. When it dies it starts a new life in the shed with its tools but without its
    materials; the step counter keeps running.

The records (one ``Step`` per step, values after the step)
    action      the Crafter action taken ("move_left", "do", "place_stone", "sleep", "noop", ...)
    events      (kind, obj) in record order. Kinds: stake plot, gather sapling, sow, ripen, harvest,
                trampled, zombie raid, chop, quarry, drink, lay stone, set table, craft, strike, slay,
                butcher, spot intruder, hurt, collapse, revive, doze off, wake, nightfall, daybreak, arrive,
                milestone, shut, unbar, take up chore. ("shut"/"unbar": a stone put into / mined out of the
                shed door or a plot gate; "lay stone": a stone put into a shed wall or a plot fence;
                "quarry": stone, coal or iron mined from natural rock; "strike": any blow that hurt a
                creature, "slay"/"butcher" the blow that killed a monster / a cow; "arrive" and
                "take up chore" are also logged at step 0; "nightfall"/"daybreak" when the time of day
                turns to "night" / "dawn".)
    location    position (x, y), region (a plot name, shed (with its doorway), pond, quarry, woodlot,
                sand flats, far fields, home meadow) and underfoot material
    inventory   items held (count > 0): sapling, wood, stone, coal, iron, wood pickaxe, wood sword, ...
    state       vigor, fullness, hydration, stamina (0-9), plants growing, chore, day, time of day,
                harvest tally, life
    relations   relations[0] = (Tansy, faces, what is in front: a material, a creature, "young plant",
                "ripe plant")
    observation a one-line description of the step

Question conventions
    * Occurrences are counted per step: "the third time X" is the third step whose events match X; counts
      ("how many times", "count the steps on which") count such steps.
    * A value "at" an event or "once X had happened" is the record of the step where X happened (values are
      those after the step); "k steps after X" is the record at step t(X) + k.
    * Windows given by step numbers include the numbered steps: "between step A and step B" and "from step A
      to step B" include A and B; "up to and including step N" / "as of step N (inclusive)" include N;
      "before step N" / "prior to step N" / "in the first N steps" mean t < N; "after step N" /
      "following step N" mean t > N.
    * Windows bounded by events exclude the event steps ("after the first X", "since", "before",
      "prior to", "following" an event). "The next time Y after X" is the first Y strictly after X's step.
    * Conditions: "first time v dropped to k or below" is the first step with v <= k; "ran out of" is the
      first step where the count is 0 and the step before had a positive count.
    * Which-first and yes/no order questions compare the steps of the named occurrences (first occurrence
      unless said otherwise); distances are absolute step differences.
    * Gold evidence: the target step and every anchor step named by an event or condition; counts and lists
      give every matching step if there are at most 5, else the last one (plus event anchors); a "yes"
      existence answer gives its first matching step (plus anchors), a "no" only the event anchors.
"""

import collections
import random
import sys
import time
from collections import deque

import crafter
from crafter import constants as C
from crafter import objects as O

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout11_crafter"
SEED_RANGE = range(10400, 10500)


DIRS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
DIR_OF = {v: k for k, v in DIRS.items()}
WALKABLE = ("grass", "sand", "path")
PLOT_POOL = ["Bean Row", "Marigold Bed", "Squash Patch", "Herb Corner", "Pea Trellis", "Onion Strip"]
ITEM_NAMES = ["sapling", "wood", "stone", "coal", "iron", "diamond", "wood_pickaxe", "stone_pickaxe",
              "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"]


class QuietCrafter(crafter.Env):
    """Crafter without frame rendering, with creature balancing in a fixed order."""

    def _obs(self):
        return None

    def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist,
                        spawn_prob, despawn_prob, ctor, target_fn):
        xmin, xmax, ymin, ymax = chunk
        rnd = self._world.random
        creatures = sorted((o for o in objs if isinstance(o, cls)),
                           key=lambda o: (int(o.pos[0]), int(o.pos[1])))
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and rnd.uniform() < spawn_prob:
            rows = mask.tolist()
            cells = [(xmin + i, ymin + j) for i in range(xmax - xmin) for j in range(ymax - ymin) if rows[i][j]]
            i = rnd.randint(0, len(cells))
            pos = cells[i]
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and rnd.uniform() < despawn_prob:
            obj = creatures[rnd.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)


def time_of_day(s):
    r = s % 300
    if r < 100:
        return "morning"
    if r < 150:
        return "afternoon"
    if r < 175:
        return "dusk"
    if r < 250:
        return "night"
    return "dawn"


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def manh(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def cheb(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _pt(a):
    return (int(a[0]), int(a[1]))


class Garden:
    """Tansy's plan: the site, the plots, the shed and its walls."""

    def __init__(self, world, start, rng):
        self.world = world
        names = world._mat_names
        mm = world._mat_map.tolist()
        self.w, self.h = len(mm), len(mm[0])
        mat = lambda p: names[mm[p[0]][p[1]]] if 0 <= p[0] < self.w and 0 <= p[1] < self.h else None
        # reachable cells from the start (ignoring creatures)
        seen, order, dq = {start: 0}, [start], deque([start])
        while dq:
            c = dq.popleft()
            for d in DIRS.values():
                n = add(c, d)
                if n not in seen and mat(n) in WALKABLE:
                    seen[n] = seen[c] + 1
                    order.append(n)
                    dq.append(n)
        def cells_of(m):
            return [(x, y) for x in range(self.w) for y in range(self.h) if mm[x][y] == world._mat_ids[m]]

        water = cells_of("water")

        def water_dist(p):
            return min((cheb(p, q) for q in water), default=99)

        def shed_ok(p):
            q = add(p, (1, 0))
            if mat(p) not in ("grass", "sand") or mat(q) not in ("grass", "sand"):
                return False
            per = [add(p, (-1, 0)), add(q, (1, 0)), add(p, (0, -1)), add(q, (0, -1)), add(p, (0, 1)), add(q, (0, 1))]
            if any(mat(c) in (None, "lava", "diamond", "coal", "iron") for c in per):
                return False
            if not any(mat(c) in WALKABLE for c in per[2:]):
                return False
            outward = [(-1, 0), (1, 0), (0, -1), (0, -1), (0, 1), (0, 1)]
            for c, d in zip(per, outward):
                if mat(c) not in WALKABLE:
                    continue
                s1, s2 = add(c, d), add(add(c, d), d)
                if mat(s1) not in ("grass", "sand") or mat(s2) not in ("grass", "sand"):
                    return False
            for dx in range(-9, 10):
                for dy in range(-9, 10):
                    if mat((p[0] + dx, p[1] + dy)) == "path":
                        return False
            if mat(per[1]) not in WALKABLE and mat(per[0]) not in WALKABLE:
                return False
            return True

        stone, trees = cells_of("stone"), cells_of("tree")

        def near_dist(p, cells):
            return min((manh(p, q) for q in cells), default=99)

        best = None
        for lo, hi in ((3, 7), (2, 10), (1, 30), (0, 99)):
            scored = []
            for c in order:
                if mat(c) != "grass" or seen[c] > 30:
                    continue
                wd = water_dist(c)
                if not lo <= wd <= hi or not shed_ok(c):
                    continue
                grass = sum(1 for dx in range(-4, 6) for dy in range(-4, 5) if mat((c[0] + dx, c[1] + dy)) == "grass")
                if grass < 45:
                    continue
                score = seen[c] + 2 * max(0, near_dist(c, stone) - 10) + 2 * max(0, near_dist(c, trees) - 4)
                scored.append((score, c))
            if scored:
                best = min(scored)[1]
                break
        self.site = best = best or next((c for c in order if shed_ok(c)), start)
        p = best
        q = add(p, (1, 0))
        self.inside = [p, q]
        west, east = add(p, (-1, 0)), add(q, (1, 0))
        if mat(east) in WALKABLE:
            self.door, self.back, self.door_dir = east, west, (1, 0)
            self.door_inner, self.far_inner = q, p
        else:
            self.door, self.back, self.door_dir = west, east, (-1, 0)
            self.door_inner, self.far_inner = p, q
        back_name = "west wall" if self.back == west else "east wall"
        self.walls = {self.back: back_name, add(p, (0, -1)): "north wall", add(q, (0, -1)): "north wall",
                      add(p, (0, 1)): "south wall", add(q, (0, 1)): "south wall", self.door: "door"}
        self.perimeter = set(self.walls)
        # table: a north or south wall cell that is walkable now
        self.table_cell = None
        for c in (add(p, (0, -1)), add(q, (0, -1)), add(p, (0, 1)), add(q, (0, 1))):
            if mat(c) in WALKABLE:
                self.table_cell = c
                break
        # plots: two cells side by side, fenced later on three sides, open to the north
        k = rng.choice([2, 3, 3, 4])
        names_pool = PLOT_POOL[:]
        rng.shuffle(names_pool)
        slots = [(-5, -4), (5, -4), (-5, 4), (5, 4), (0, -5), (1, 5), (-7, 0), (7, 0), (-3, -7), (3, 7),
                 (-8, -4), (8, 4), (-2, 8), (2, -8)]
        rng.shuffle(slots)
        taken = {(c[0] + dx, c[1] + dy) for c in self.perimeter | set(self.inside)
                 for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        self.plots, self.fences, self.gates, self.plot_fence, self.plot_gates = [], {}, {}, {}, {}
        for off in slots:
            if len(self.plots) >= k:
                break
            a = add(p, off)
            b = add(a, (1, 0))
            cells = [a, b]
            fence = [add(a, (-1, 0)), add(b, (1, 0)), add(a, (0, 1)), add(b, (0, 1))]
            gates = [add(a, (0, -1)), add(b, (0, -1))]
            outer = [add(a, (0, -2)), add(b, (0, -2))]
            if not all(mat(c) == "grass" for c in cells):
                continue
            if not all(mat(c) in ("grass", "sand", "path", "tree", "water") for c in fence):
                continue
            if not all(mat(c) in ("grass", "sand") for c in gates + outer):
                continue
            if not any(c in seen for c in gates + outer):
                continue
            zone = {(c[0] + dx, c[1] + dy) for c in cells for dx in (-2, -1, 0, 1, 2) for dy in (-3, -2, -1, 0, 1, 2)}
            if zone & taken:
                continue
            name = names_pool[len(self.plots)]
            self.plots.append((name, cells))
            for c in fence:
                self.fences[c] = name + " fence"
            for c in gates:
                self.gates[c] = name + " gate"
            self.plot_fence[name] = fence
            self.plot_gates[name] = gates
            taken |= {(c[0] + dx, c[1] + dy) for c in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        self.plot_of = {c: name for name, cells in self.plots for c in cells}
        self.plot_zone = {(c[0] + dx, c[1] + dy): name for name, cells in self.plots for c in cells
                          for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
        self.built = set(self.perimeter) | set(self.fences) | set(self.gates)

    def region(self, pos, mat):
        if pos in self.inside or pos == self.door:
            return "shed"
        if pos in self.plot_zone:
            return self.plot_zone[pos]
        around = [add(pos, (dx, dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        near = [mat(c) for c in around]
        far = manh(pos, self.site) > 16
        if "water" in near and not far:
            return "pond"
        if mat(pos) == "path" or any(mat(c) in ("stone", "coal", "iron") for c in around if c not in self.built):
            return "quarry"
        if far:
            return "far fields"
        if mat(pos) == "sand":
            return "sand flats"
        if "tree" in near:
            return "woodlot"
        return "home meadow"


class Tansy:
    """The scripted market gardener."""

    def __init__(self, env, garden, rng):
        self.env = env
        self.world = env._world
        self.player = env._player
        self.g = garden
        self.rng = rng
        self.names = self.world._mat_names
        self.walk_ids = {self.world._mat_ids[m] for m in WALKABLE if m in self.world._mat_ids}
        self.staked = []
        self.hiding = False
        self.commit = None
        self.pending = []
        self.sap_target = None
        self.patrol_plot = 0
        self.spawn = garden.site
        self.reach_stone = True

    # ---- map access -------------------------------------------------------------------------
    def refresh(self):
        self.mm = self.world._mat_map.tolist()
        self.om = self.world._obj_map.tolist()
        self.pos = (int(self.player.pos[0]), int(self.player.pos[1]))
        self.facing = tuple(int(v) for v in self.player.facing)

    def inb(self, p):
        return 0 <= p[0] < self.g.w and 0 <= p[1] < self.g.h

    def mat(self, p):
        if not self.inb(p):
            return None
        return self.names[self.mm[p[0]][p[1]]]

    def obj(self, p):
        if not self.inb(p):
            return None
        i = self.om[p[0]][p[1]]
        return self.world._objects[i] if i else None

    def passable(self, p):
        return self.inb(p) and self.mm[p[0]][p[1]] in self.walk_ids and self.om[p[0]][p[1]] == 0

    def bfs(self):
        start = self.pos
        dist, par, order, dq = {start: 0}, {start: None}, [start], deque([start])
        dirs = list(DIRS.values())
        while dq:
            c = dq.popleft()
            dc = dist[c]
            if dc > 45:
                continue
            for d in dirs:
                n = (c[0] + d[0], c[1] + d[1])
                if n in dist or not self.passable(n):
                    continue
                dist[n] = dc + 1
                par[n] = c
                order.append(n)
                dq.append(n)
        self.dist, self.par, self.order = dist, par, order

    def step_toward(self, goal):
        if goal == self.pos or goal not in self.par:
            return None
        c = goal
        while self.par[c] != self.pos:
            c = self.par[c]
        return "move_" + DIR_OF[sub(c, self.pos)]

    def approach(self, target, only_s=None):
        """An action bringing Tansy next to ``target`` facing it; "READY" when it is there."""
        pos, fac = self.pos, self.facing
        blocked = not self.passable(target) or target == pos
        if blocked and target != pos:
            best = None
            for d in DIRS.values():
                s = sub(target, d)
                if only_s is not None and s != only_s:
                    continue
                if s == pos:
                    if fac == d:
                        return "READY"
                    return "move_" + DIR_OF[d]
                if s in self.dist and (best is None or self.dist[s] < best[0]):
                    best = (self.dist[s], s)
            if best is None:
                return None
            return self.step_toward(best[1])
        return self.approach_free(target, only_s)

    def approach_free(self, target, only_s=None, limit=36):
        """Search over (cell, facing): a move turns Tansy and steps only when the cell ahead is free."""
        start = (self.pos, self.facing)
        goals = set()
        for d in DIRS.values():
            s = sub(target, d)
            if only_s is not None and s != only_s:
                continue
            goals.add((s, d))
        if start in goals:
            return "READY"
        if not goals:
            return None
        first = {start: None}
        depth = {start: 0}
        dq = deque([start])
        dirs = list(DIRS.items())
        while dq:
            st = dq.popleft()
            p, f = st
            if depth[st] >= limit:
                continue
            for name, d in dirs:
                n = (p[0] + d[0], p[1] + d[1])
                if self.mat(n) == "lava":
                    continue
                if n == self.pos or self.passable(n):
                    nst = (n, d)
                else:
                    nst = (p, d)
                if nst in first:
                    continue
                first[nst] = first[st] or ("move_" + name)
                depth[nst] = depth[st] + 1
                if nst in goals:
                    return first[nst]
                dq.append(nst)
        return None

    def nearest_cell(self, test, limit=40):
        """The nearest cell next to a reachable cell that passes ``test`` (BFS order)."""
        for c in self.order:
            if self.dist[c] > limit:
                break
            for d in DIRS.values():
                n = add(c, d)
                if self.inb(n) and test(n):
                    return n
        return None

    # ---- world facts ------------------------------------------------------------------------
    def creatures(self, cls):
        out = [o for o in self.world.objects if isinstance(o, cls) and not o.removed and o.health > 0]
        return sorted(out, key=lambda o: (manh(self.pos, tuple(int(v) for v in o.pos)), int(o.pos[0]), int(o.pos[1])))

    def plants(self):
        return [(c, self.obj(c)) for name, cells in self.g.plots for c in cells if isinstance(self.obj(c), O.Plant)]

    def empty_plot_cells(self):
        return [c for name, cells in self.g.plots for c in cells
                if self.mat(c) == "grass" and self.obj(c) is None]

    def shed_complete(self):
        g = self.g
        return (any(self.mat(c) == "table" for c in g.walls)
                and all(self.mat(c) not in WALKABLE for c in g.walls if c != g.door))

    def door_sealed(self):
        return self.mat(self.g.door) not in WALKABLE

    def walls_to_build(self):
        g = self.g
        return [c for c in sorted(g.walls) if c != g.door and not (c == g.table_cell and self.mat(c) != "table")
                and (self.mat(c) in WALKABLE or self.mat(c) == "water")]

    def near_table(self):
        return any(self.mat(add(self.pos, (dx, dy))) == "table" for dx in (-1, 0, 1) for dy in (-1, 0, 1))

    # ---- chores -----------------------------------------------------------------------------
    def act(self, target, verb="do", only_s=None):
        """Walk up to ``target``, face it, then take ``verb``."""
        a = self.approach(target, only_s)
        return verb if a == "READY" else a

    def act_any(self, cells, verb):
        for c in sorted(cells, key=lambda c: (manh(self.pos, c), c)):
            if a := self.act(c, verb):
                return a
        return None

    def attack(self, creature):
        return self.act(_pt(creature.pos))

    def do_drink(self):
        if self.player.inventory["drink"] >= 9:
            return None
        tgt = self.nearest_cell(lambda n: self.mat(n) == "water", 60)
        return None if tgt is None else self.act(tgt)

    def do_forage(self, hunt=True):
        if a := self.act_any([c for c, o in self.plants() if o.ripe], "do"):
            return a
        if not hunt:
            return None
        for cow in self.creatures(O.Cow):
            if manh(_pt(cow.pos), self.pos) > 30:
                break
            if a := self.attack(cow):
                return a
        return None

    def do_saplings(self):
        g = self.g
        def ok(n):
            return (self.mat(n) == "grass" and self.obj(n) is None and n not in g.plot_of
                    and n not in g.built and n not in g.inside and manh(n, g.site) <= 12)
        if self.sap_target is not None and ok(self.sap_target):
            a = self.approach(self.sap_target)
            if a == "READY":
                return "do"
            if a and self.dist.get(self.pos, 0) == 0 and manh(self.pos, self.sap_target) <= 3:
                return a
        self.sap_target = tgt = self.nearest_cell(ok, 30)
        return None if tgt is None else self.act(tgt)

    def do_plant(self):
        cells = self.empty_plot_cells()
        if not cells or self.player.inventory["sapling"] < 1:
            return None
        return self.act_any(cells, "place_plant")

    def do_chop(self):
        g = self.g
        tgt = self.nearest_cell(lambda n: self.mat(n) == "tree" and n not in g.built, 45)
        return None if tgt is None else self.act(tgt)

    def do_quarry(self):
        g = self.g
        inv = self.player.inventory
        if inv["wood_pickaxe"] < 1:
            return None
        wanted = {"stone"}
        if inv["coal"] < 2:
            wanted.add("coal")
        if inv["stone_pickaxe"] >= 1 and inv["iron"] < 1:
            wanted.add("iron")
        tgt = self.nearest_cell(lambda n: self.mat(n) in wanted and n not in g.built, 45)
        if tgt is None:
            self.reach_stone = False
            return None
        return self.act(tgt)

    def do_craft(self, item):
        if self.near_table():
            return "make_" + item
        g = self.g
        tables = [c for c in g.walls if self.mat(c) == "table"]
        best = next((c for c in self.order if any(cheb(c, t) <= 1 for t in tables)), None)
        return None if best is None else self.step_toward(best)

    def do_table(self):
        c = self.g.table_cell
        if c is None or self.mat(c) not in WALKABLE:
            return None
        return self.act(c, "place_table")

    def do_walls(self):
        return self.act_any([c for c in self.walls_to_build() if self.obj(c) is None], "place_stone")

    def do_turn_in(self, rest=False):
        g = self.g
        inv = self.player.inventory
        if self.pos in g.inside and self.door_sealed():
            if rest:
                return ("sleep" if inv["energy"] < 9 else "noop"), "resting in the shed"
            if inv["energy"] < 9:
                return "sleep", "sleeping in the shed"
            return "noop", "keeping watch from the shed"
        if self.door_sealed():
            # shut out: open the door from outside
            a = self.act(g.door, "do", add(g.door, g.door_dir))
            return (a, "turning in for the night") if a else (None, None)
        if self.pos in g.inside:
            a = self.act(g.door, "place_stone", g.door_inner)
            return (a, "turning in for the night") if a else (None, None)
        if a := self.step_toward(g.far_inner) or self.step_toward(g.door_inner):
            return a, "turning in for the night"
        return None, None

    def do_let_out(self):
        return self.act(self.g.door, "do", self.g.door_inner)

    def note_stakes(self):
        name = self.g.plot_zone.get(self.pos)
        if name is not None and name not in self.staked:
            self.staked.append(name)
            self.pending.append(Event("stake plot", name))

    def do_patrol(self, t):
        plots = self.g.plots
        if not plots:
            return "noop"
        if t % 45 == 0:
            self.patrol_plot = (self.patrol_plot + 1) % len(plots)
        name, cells = plots[self.patrol_plot]
        if self.g.plot_zone.get(self.pos) == name:
            return "noop"
        for c in self.order:
            if self.g.plot_zone.get(c) == name:
                return self.step_toward(c)
        return "noop"

    # ---- the plan ---------------------------------------------------------------------------
    def gate_plan(self, evening):
        """(gate cell, "open"/"close") for the nearest gate that needs tending, or None."""
        inv = self.player.inventory
        g = self.g
        jobs = []
        for name, cells in g.plots:
            if not self.plot_fenced(name):
                continue
            plants = [(c, self.obj(c)) for c in cells if isinstance(self.obj(c), O.Plant)]
            for c, gate in zip(cells, g.plot_gates[name]):
                o = self.obj(c)
                ripe = isinstance(o, O.Plant) and o.ripe
                empty = o is None and self.mat(c) == "grass"
                access = ripe or (empty and inv["sapling"] > 0 and not evening)
                closed = self.mat(gate) not in WALKABLE
                if access and closed and inv["wood_pickaxe"] >= 1:
                    jobs.append((manh(self.pos, gate), gate, "open"))
                elif plants and not access and not closed and self.obj(gate) is None:
                    jobs.append((manh(self.pos, gate), gate, "close"))
        jobs.sort()
        return [(gate, what) for _, gate, what in jobs]

    def do_gates(self, evening, stone_floor):
        inv = self.player.inventory
        for gate, what in self.gate_plan(evening)[:3]:
            if what == "open" or inv["stone"] > stone_floor:
                if a := self.act(gate, "do" if what == "open" else "place_stone"):
                    return a
        return None

    def plot_fenced(self, name):
        return all(self.mat(c) not in WALKABLE and self.mat(c) != "water" for c in self.g.plot_fence[name])

    def fences_to_build(self):
        """The fence cells still open around the first plot that is not fenced yet (nearest the shed first)."""
        g = self.g
        for name, cells in sorted(g.plots, key=lambda p: (manh(p[1][0], g.site), p[0])):
            out = [c for c in g.plot_fence[name] if self.mat(c) in WALKABLE or self.mat(c) == "water"]
            if out:
                return out
        return []

    def do_fences(self):
        return self.act_any([c for c in self.fences_to_build() if self.obj(c) is None], "place_stone")

    def go(self, chore, fn, **goals):
        """Commit to a chore and take its first action; drop the commitment when there is none."""
        self.commit = chore
        for k, v in goals.items():
            setattr(self, k, v)
        a = fn()
        if not a:
            self.commit = None
        return a

    def chop(self, need_wood):
        self.commit, self.wood_goal = "chopping wood", min(9, need_wood)
        return self.do_chop()

    def decide(self, t):
        pl = self.player
        if pl.sleeping:
            return "sleep", "sleeping"
        self.refresh()
        self.bfs()
        inv = pl.inventory
        g = self.g
        r = (t + 1) % 300
        shelter = 150 <= r < 275
        sealed_in = self.pos in g.inside and self.door_sealed()
        complete = self.shed_complete()
        zombies = self.creatures(O.Zombie)
        near_z = [z for z in zombies if manh(self.pos, _pt(z.pos)) <= 5]
        can_seal = inv["wood_pickaxe"] >= 1 and (inv["stone"] >= 1 or self.door_sealed())
        # 0. hurt and hunted: hide in the shed
        if self.hiding and (inv["health"] >= 7 or inv["food"] <= 2 or inv["drink"] <= 2
                            or not complete or not can_seal):
            self.hiding = False
        if complete and can_seal and inv["health"] <= 3 and near_z and inv["food"] > 2 and inv["drink"] > 2:
            self.hiding = True
        if self.hiding:
            a, chore = self.do_turn_in(rest=True)
            if a:
                return a, chore
            self.hiding = False
        # 1. a creature right next to Tansy
        for z in zombies:
            if manh(self.pos, _pt(z.pos)) > 2:
                break
            if a := self.attack(z):
                self.commit = None
                return a, "fighting off a zombie"
        for sk in self.creatures(O.Skeleton):
            if manh(self.pos, _pt(sk.pos)) > 3:
                break
            if a := self.attack(sk):
                self.commit = None
                return a, "fighting a skeleton"
        # 2. critical vitals
        if inv["drink"] <= 3 and self.commit != "fetching water":
            self.commit = "fetching water"
        if inv["food"] <= 3 and self.commit not in ("fetching water", "foraging"):
            self.commit = "foraging"
        if self.commit == "fetching water":
            if a := self.do_drink():
                return a, "fetching water"
            self.commit = None
        if self.commit == "foraging":
            if a := self.do_forage() if inv["food"] < 8 else None:
                return a, "foraging"
            self.commit = None
        # 3. the night in the shed
        if shelter and complete and can_seal:
            if inv["drink"] <= 5 and not sealed_in:
                if a := self.do_drink():
                    return a, "fetching water"
            if r < 170 and not sealed_in:
                if a := self.do_gates(True, 0 if self.door_sealed() else 1):
                    return a, "shutting the plot gates"
            a, chore = self.do_turn_in()
            if a:
                return a, chore
        if sealed_in and not shelter and not self.hiding:
            late = r >= 275 and any(manh(_pt(z.pos), g.site) <= 6 for z in zombies)
            if not late:
                if a := self.do_let_out():
                    return a, "leaving the shed"
        if sealed_in:
            return "noop", "waiting in the shed"
        # 4. guard the plots
        living = [c for c, o in self.plants()]
        if living:
            for cow in self.creatures(O.Cow):
                cp = _pt(cow.pos)
                if manh(cp, self.pos) > 10:
                    break
                if min(manh(cp, c) for c in living) <= 3:
                    if a := self.attack(cow):
                        return a, "chasing off a cow"
            for z in zombies:
                zp = _pt(z.pos)
                if manh(zp, self.pos) > 8:
                    break
                if min(manh(zp, c) for c in living) <= 4 and inv["health"] >= 5:
                    if a := self.attack(z):
                        return a, "guarding the plots"
        # 5. exhausted
        if inv["energy"] <= 2:
            return "sleep", "napping in the open"
        # 6. commitments
        if self.commit == "chopping wood":
            if inv["wood"] < self.wood_goal:
                if a := self.do_chop():
                    return a, "chopping wood"
            self.commit = None
        if self.commit == "quarrying stone":
            if inv["stone"] < self.stone_goal:
                if a := self.do_quarry():
                    return a, "quarrying stone"
            self.commit = None
        if self.commit == "gathering saplings":
            if inv["sapling"] < self.sap_goal and not shelter:
                if a := self.do_saplings():
                    return a, "gathering saplings"
            self.commit = None
        # 7. the day's plan
        if shelter and complete and not can_seal and inv["wood_pickaxe"] >= 1:
            if a := self.go("quarrying stone", self.do_quarry, stone_goal=1):
                return a, "quarrying stone"
        if not shelter:
            if a := self.do_gates(130 <= r, 0 if self.door_sealed() else 1):
                return a, "tending the plot gates"
        if a := None if shelter else self.do_plant():
            return a, "planting"
        if a := None if shelter and complete else self.do_forage(hunt=False):
            return a, "harvesting"
        if inv["drink"] <= 5 or (130 <= r < 150 and inv["drink"] <= 7):
            if a := self.go("fetching water", self.do_drink):
                return a, "fetching water"
        if inv["food"] <= 5:
            if a := self.go("foraging", self.do_forage):
                return a, "foraging"
        empty = len(self.empty_plot_cells())
        if complete and not shelter:
            fenced_empty = len([c for c in self.empty_plot_cells() if self.plot_fenced(g.plot_of[c])])
            if fenced_empty > inv["sapling"]:
                if a := self.go("gathering saplings", self.do_saplings, sap_goal=min(4, fenced_empty)):
                    return a, "gathering saplings"
            a, chore = self.do_fence_chain()
            if a:
                return a, chore
            if empty > inv["sapling"]:
                if a := self.go("gathering saplings", self.do_saplings, sap_goal=min(4, empty)):
                    return a, "gathering saplings"
        a, chore = self.do_build(t, shelter, complete)
        if a:
            return a, chore
        if empty > inv["sapling"] and not shelter:
            if a := self.go("gathering saplings", self.do_saplings, sap_goal=min(4, empty)):
                return a, "gathering saplings"
        if inv["drink"] <= 7:
            if a := self.do_drink():
                self.commit = "fetching water"
                return a, "fetching water"
        if inv["sapling"] < 1 and not shelter:
            if a := self.go("gathering saplings", self.do_saplings, sap_goal=1):
                return a, "gathering saplings"
        return self.do_patrol(t) or "noop", "keeping watch"

    def do_build(self, t, shelter, complete):
        inv = self.player.inventory
        g = self.g
        has_table = any(self.mat(c) == "table" for c in g.walls)
        need_wood = ((0 if has_table else 2) + (inv["wood_pickaxe"] < 1) + (inv["wood_sword"] < 1)
                     + (inv["stone_pickaxe"] < 1) + (inv["stone_sword"] < 1))
        if not has_table:
            if inv["wood"] >= 2:
                if a := self.do_table():
                    return a, "setting up the workbench"
            else:
                if a := self.chop(need_wood):
                    return a, "chopping wood"
                self.commit = None
            return None, None
        for tool in ("wood_pickaxe", "wood_sword"):
            if inv[tool] < 1:
                if a := self.do_craft(tool) if inv["wood"] >= 1 else self.chop(need_wood):
                    return a, ("crafting tools" if inv["wood"] >= 1 else "chopping wood")
                self.commit = None
        if inv["wood_pickaxe"] < 1 or not self.reach_stone:
            return None, None
        reserve = 0 if self.door_sealed() else 1
        walls = self.walls_to_build()
        stone_need = min(9, len(walls) + reserve + (inv["stone_pickaxe"] < 1) + (inv["stone_sword"] < 1))
        if walls and inv["stone"] < stone_need:
            if a := self.go("quarrying stone", self.do_quarry, stone_goal=stone_need):
                return a, "quarrying stone"
        for tool in ("stone_pickaxe", "stone_sword"):
            if inv[tool] < 1 and inv["stone"] >= 1 + reserve and (tool == "stone_pickaxe" or not walls):
                if a := self.do_craft(tool) if inv["wood"] >= 1 else (None if shelter else self.chop(need_wood)):
                    return a, ("crafting tools" if inv["wood"] >= 1 else "chopping wood")
                self.commit = None
        if inv["stone"] >= 1 + reserve and walls:
            if a := self.do_walls():
                return a, "building the shed"
        return None, None

    def do_fence_chain(self):
        inv = self.player.inventory
        if inv["wood_pickaxe"] < 1 or not self.reach_stone:
            return None, None
        reserve = 0 if self.door_sealed() else 1
        fences = self.fences_to_build()
        gates = sum(1 for c in self.g.gates if self.mat(c) in WALKABLE)
        need = min(9, len(fences) + gates + reserve)
        if fences and inv["stone"] < 1 + reserve:
            if a := self.go("quarrying stone", self.do_quarry, stone_goal=need):
                return a, "quarrying stone"
        if fences and inv["stone"] >= 1 + reserve:
            if a := self.do_fences():
                return a, "fencing the plots"
        return None, None

def simulate(seed):
    rng = random.Random(seed * 7919 + 11)
    length = rng.randint(1100, 1500)
    env = QuietCrafter(seed=seed, length=10 ** 6)
    env.reset()
    world = env._world
    pl = env._player
    garden = Garden(world, _pt(pl.pos), rng)
    agent = Tansy(env, garden, rng)
    tracked, steps = {}, []      # tracked: plot cell -> [plant object, was ripe]
    prev_chore = prev_region = None
    life, tally, last_cause, dead = 1, 0, "unknown", False
    prev_tod = time_of_day(0)

    def mat(p):
        return world[p][0]

    for t in range(length):
        pre_events = []
        if dead:
            # a new life: Tansy wakes up at its starting spot with nothing
            for name, info in C.items.items():
                if "pickaxe" not in name and "sword" not in name:
                    pl.inventory[name] = info["initial"]
            pl._hunger = pl._thirst = pl._fatigue = pl._recover = 0
            pl.sleeping = False
            pl._last_health = pl.health
            env._last_health = pl.health
            agent.refresh()
            spot = agent.spawn
            if not agent.passable(spot) and _pt(pl.pos) != spot:
                ring = sorted(((x, y) for x in range(garden.w) for y in range(garden.h) if agent.passable((x, y))),
                              key=lambda c: (manh(c, agent.spawn), c))
                spot = ring[0]
            if _pt(pl.pos) != spot:
                world.move(pl, spot)
            life += 1
            agent.commit = None
            agent.hiding = False
            dead = False
            pre_events.append(Event("revive", garden.region(spot, mat)))
        agent.pending = []
        action, chore = agent.decide(t)
        if action is None:
            action = "noop"
        pos0 = _pt(pl.pos)
        face0 = _pt(pl.facing)
        tcell = add(pos0, face0)
        tobj = world[tcell][1]
        thealth = tobj.health if tobj is not None else None
        inv0 = dict(pl.inventory)
        ach0 = dict(pl.achievements)
        sleep0 = pl.sleeping
        env.step(C.actions.index(action))
        pos1 = _pt(pl.pos)
        inv1 = dict(pl.inventory)
        ach1 = dict(pl.achievements)
        events = list(pre_events)

        def dach(name):
            return ach1.get(name, 0) - ach0.get(name, 0)

        # what the action did
        for ach, kind, obj in (("collect_wood", "chop", "tree"), ("collect_sapling", "gather sapling", "sapling"),
                               ("collect_drink", "drink", "water")):
            if dach(ach):
                events.append(Event(kind, obj))
        for m in ("stone", "coal", "iron", "diamond"):
            if dach("collect_" + m):
                if tcell == garden.door and m == "stone":
                    events.append(Event("unbar", "shed door"))
                elif tcell in garden.gates and m == "stone":
                    events.append(Event("unbar", garden.gates[tcell]))
                else:
                    events.append(Event("quarry", m))
        if dach("eat_plant"):
            tally += 1
            events.append(Event("harvest", garden.plot_of.get(tcell, "wild plant")))
        if dach("place_plant"):
            events.append(Event("sow", garden.plot_of.get(tcell, "meadow")))
            po = world[tcell][1]
            if tcell in garden.plot_of and isinstance(po, O.Plant):
                tracked[tcell] = [po, False]
        if dach("place_stone"):
            if tcell == garden.door:
                events.append(Event("shut", "shed door"))
            elif tcell in garden.gates:
                events.append(Event("shut", garden.gates[tcell]))
            else:
                events.append(Event("lay stone", garden.walls.get(tcell) or garden.fences.get(tcell, "loose stone")))
        if dach("place_table"):
            events.append(Event("set table", garden.walls.get(tcell, "meadow")))
        for tool in ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"):
            if dach("make_" + tool):
                events.append(Event("craft", tool.replace("_", " ")))
        if action == "do" and isinstance(tobj, (O.Zombie, O.Cow, O.Skeleton)) and tobj.health < thealth:
            events.append(Event("strike", type(tobj).__name__.lower()))
        for ach, kind, obj in (("defeat_zombie", "slay", "zombie"), ("defeat_skeleton", "slay", "skeleton"),
                               ("eat_cow", "butcher", "cow")):
            if dach(ach):
                events.append(Event(kind, obj))
        agent.refresh()
        agent.note_stakes()
        events.extend(agent.pending)
        # intruders near the plants
        living = [c for c, (po, _) in sorted(tracked.items()) if not po.removed]
        if living:
            seen = []
            for o in world.objects:
                if isinstance(o, (O.Zombie, O.Cow)) and not getattr(o, "_tansy_seen", False):
                    op = _pt(o.pos)
                    if manh(op, pos1) <= 8 and min(manh(op, c) for c in living) <= 3:
                        seen.append((op, type(o).__name__.lower(), o))
            for op, kind, o in sorted(seen, key=lambda x: (x[0], x[1])):
                o._tansy_seen = True
                events.append(Event("spot intruder", kind))
        # the plants themselves
        for cell in sorted(tracked):
            po, was_ripe = tracked[cell]
            plot = garden.plot_of[cell]
            if po.removed or po.health <= 0:
                near = [o for o in world.objects if isinstance(o, (O.Zombie, O.Skeleton, O.Cow))
                        and manh(_pt(o.pos), cell) <= 2]
                if any(isinstance(o, (O.Zombie, O.Skeleton)) for o in near):
                    events.append(Event("zombie raid", plot))
                else:
                    events.append(Event("trampled", plot))
                del tracked[cell]
                continue
            if po.ripe and not was_ripe:
                events.append(Event("ripen", plot))
            tracked[cell][1] = po.ripe
        # body
        if inv1["health"] < inv0["health"]:
            zs = [o for o in world.objects if isinstance(o, O.Zombie) and manh(_pt(o.pos), pos1) <= 2]
            sk = [o for o in world.objects if isinstance(o, (O.Skeleton, O.Arrow)) and manh(_pt(o.pos), pos1) <= 6]
            causes = (("zombie", zs), ("arrow", sk), ("hunger", inv1["food"] <= 0), ("thirst", inv1["drink"] <= 0),
                      ("exhaustion", inv1["energy"] <= 0), ("lava", mat(pos1) == "lava"))
            last_cause = next((c for c, hit in causes if hit), "unknown")
            events.append(Event("hurt", last_cause))
        if pl.health <= 0:
            events.append(Event("collapse", last_cause))
            dead = True
        region = garden.region(pos1, mat)
        if pl.sleeping and not sleep0:
            events.append(Event("doze off", region))
        if sleep0 and not pl.sleeping:
            events.append(Event("wake", "rested" if inv1["energy"] >= 9 else "startled"))
        for name in sorted(ach1):
            if ach1[name] > 0 and ach0.get(name, 0) == 0:
                events.append(Event("milestone", name.replace("_", " ")))
        if region != prev_region:
            events.append(Event("arrive", region))
        if chore != prev_chore:
            events.append(Event("take up chore", chore))
        tod = time_of_day(t + 1)
        if tod == "night" and prev_tod != "night":
            events.append(Event("nightfall"))
        if tod == "dawn" and prev_tod != "dawn":
            events.append(Event("daybreak"))
        prev_tod = tod
        prev_region, prev_chore = region, chore
        # the record
        face1 = _pt(pl.facing)
        fcell = add(pos1, face1)
        fm, fo = world[fcell]
        if fo is not None:
            if isinstance(fo, O.Plant):
                facing = "ripe plant" if fo.ripe else "young plant"
            else:
                facing = type(fo).__name__.lower()
        else:
            facing = fm if fm is not None else "edge of the world"
        inventory = {n.replace("_", " "): int(inv1[n]) for n in ITEM_NAMES if inv1[n] > 0}
        s = t + 1
        state = {
            "vigor": int(inv1["health"]), "fullness": int(inv1["food"]),
            "hydration": int(inv1["drink"]), "stamina": int(inv1["energy"]),
            "plants growing": sum(1 for po, _ in tracked.values() if not po.removed),
            "chore": chore, "day": s // 300 + 1, "time of day": time_of_day(s),
            "harvest tally": tally, "life": life,
        }
        near = sorted({type(o).__name__.lower() for o in world.objects
                       if o is not pl and cheb(_pt(o.pos), pos1) <= 4})
        under = mat(pos1)
        obs = (f"Day {state['day']}, {state['time of day']}. Tansy is in {region} at ({pos1[0]},{pos1[1]}) on "
               f"{under}, facing {facing}. Vigor {state['vigor']}, fullness {state['fullness']}, hydration "
               f"{state['hydration']}, stamina {state['stamina']}. Chore: {chore}."
               + (f" Nearby: {', '.join(near)}." if near else ""))
        steps.append(Step(
            t=t, action=action, objects=tuple(near),
            events=tuple(events),
            relations=(Relation("Tansy", "faces", facing),),
            inventory=inventory, state=state,
            location=Location(position=pos1, region=region, underfoot=under),
            observation=obs,
        ))
    return steps, garden


FAMILIES = ["1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence"]

# ------------------------------------------------------------------------------------------------
# The reference evaluator: plain scans over the Step records
# ------------------------------------------------------------------------------------------------


def fmt_inventory(step):
    items = [(n, c) for n, c in step.inventory if c > 0]
    if not items:
        return "empty"
    return ", ".join(f"{n} {c}" for n, c in sorted(items))


def fmt_events(step):
    if not step.events:
        return "none"
    return "; ".join(f"{e.kind} {e.obj}" if e.obj else e.kind for e in step.events)


def slot_value(step, slot, arg=None):
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        return fmt_inventory(step)
    if slot == "state":
        return str(step.state_dict[arg])
    if slot == "facing":
        return step.relations[0].obj
    if slot == "events":
        return fmt_events(step)
    raise ValueError(slot)


def matches(step, pat):
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def var_value(step, var):
    where, name = var
    if where == "state":
        return step.state_dict[name]
    return step.inventory_dict.get(name, 0)


OPS = {"<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
       ">": lambda a, b: a > b, "<": lambda a, b: a < b}


def holds(value, rel, k):
    return OPS[rel](value, k)


class Evaluator:
    """Answers a question spec by scanning the records; returns (answer, gold steps)."""

    def __init__(self, steps):
        self.steps = steps
        self.T = len(steps)

    def scan(self, pat, lo=0, hi=None):
        hi = self.T - 1 if hi is None else hi
        return [s.t for s in self.steps[max(0, lo):hi + 1] if matches(s, pat)]

    def cond_steps(self, cond, lo=0, hi=None):
        hi = self.T - 1 if hi is None else hi
        out = []
        for s in self.steps[max(0, lo):hi + 1]:
            v = var_value(s, cond["var"])
            if cond.get("ranout"):
                if v == 0 and s.t > 0 and var_value(self.steps[s.t - 1], cond["var"]) > 0:
                    out.append(s.t)
            elif holds(v, cond["rel"], cond["k"]):
                out.append(s.t)
        return out

    def test_steps(self, test, lo, hi):
        def hit(s):
            if test[0] == "region":
                return s.location.region == test[1]
            if test[0] == "action":
                return s.action == test[1]
            return holds(var_value(s, test[1]), test[2], test[3])
        return [s.t for s in self.steps[lo:hi + 1] if hit(s)]

    def anchor(self, a):
        """The step of an anchor: {"pat", "n"} (n-th matching step, negative from the end) or {"cond", "n"},
        optionally inside a window {"win"}."""
        lo, hi = self.window(a.get("win"))[:2]
        ts = self.scan(a["pat"], lo, hi) if "pat" in a else self.cond_steps(a["cond"], lo, hi)
        n = a.get("n", 1)
        return ts[n - 1] if n > 0 else ts[n]

    def anchor_gold(self, a):
        return [self.anchor(a)] + (self.window(a["win"])[2] if a.get("win") else [])

    def window(self, win):
        """(lo, hi, anchor steps) with inclusive numeric bounds: step bounds ("incl"/"excl", N) or anchors,
        which are excluded."""
        lo, hi, anchors = 0, self.T - 1, []
        for side in ("after", "before"):
            b = (win or {}).get(side)
            if b is None:
                continue
            if isinstance(b, tuple):
                n = b[1] if b[0] == "incl" else (b[1] + 1 if side == "after" else b[1] - 1)
            else:
                t = self.anchor(b)
                anchors += self.anchor_gold(b)
                n = t + 1 if side == "after" else t - 1
            lo, hi = (max(lo, n), hi) if side == "after" else (lo, min(hi, n))
        return lo, hi, anchors

    def many(self, ts):
        return list(ts) if len(ts) <= 5 else [ts[-1]]

    def answer(self, q):
        op, st = q["op"], self.steps
        if op == "at":
            return slot_value(st[q["t"]], q["slot"], q.get("arg")), [q["t"]]
        if op == "offset":
            t = self.anchor(q["anchor"]) + q["k"]
            return slot_value(st[t], q["slot"], q.get("arg")), [t] + self.anchor_gold(q["anchor"])
        if op in ("which_first", "before", "distance"):
            ta, tb = self.anchor(q["a"]), self.anchor(q["b"])
            gold = self.anchor_gold(q["a"]) + self.anchor_gold(q["b"])
            if op == "distance":
                return str(abs(tb - ta)), gold
            if op == "before":
                return ("yes" if ta < tb else "no"), gold
            return q["labels"][0 if ta < tb else 1], gold
        lo, hi, anchors = self.window(q.get("win"))
        if op == "nth":
            ts = self.scan(q["pat"], lo, hi)
            t = ts[q["n"] - 1] if q["n"] > 0 else ts[q["n"]]
            return slot_value(st[t], q["slot"], q.get("arg")), [t] + anchors
        if op == "cond":
            ts = self.cond_steps(q["cond"], lo, hi)
            t = ts[0] if q["pick"] == "first" else ts[-1]
            return slot_value(st[t], q["slot"], q.get("arg")), [t] + anchors
        if op in ("count", "count_steps"):
            ts = self.scan(q["pat"], lo, hi) if op == "count" else self.test_steps(q["test"], lo, hi)
            return str(len(ts)), self.many(ts) + anchors
        if op == "list":
            vals, ts = set(), []
            for s in st[lo:hi + 1]:
                hit = ([e.obj for e in s.events if e.kind == q["what"][1]] if q["what"][0] == "eventobj"
                       else [s.location.region])
                if hit:
                    vals.update(hit)
                    ts.append(s.t)
            return (", ".join(sorted(vals)) if vals else "none"), self.many(ts) + anchors
        if op == "exists":
            ts = self.scan(q["pat"], lo, hi) if "pat" in q else self.test_steps(q["test"], lo, hi)
            return ("yes", [ts[0]] + anchors) if ts else ("no", anchors)
        raise ValueError(op)


# ------------------------------------------------------------------------------------------------
# Wording
# ------------------------------------------------------------------------------------------------

ORD_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh",
             8: "eighth", 9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth"}


def ordinal(n, rng):
    if n in ORD_WORDS and (n == 1 or rng.random() < 0.65):
        return ORD_WORDS[n]
    suf = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suf}"


# subject, possessive, past "be", object form
SUBJECTS = [("I", "my", "was", "me"), ("we", "our", "were", "us"), ("you", "your", "were", "you"),
            ("the agent", "the agent's", "was", "the agent"), ("Tansy", "Tansy's", "was", "Tansy"),
            ("it", "its", "was", "it"), ("the gardener", "the gardener's", "was", "the gardener")]


def cap(s):
    return s[:1].upper() + s[1:]


CAUSE = {"zombie": "a zombie", "arrow": "an arrow", "hunger": "hunger", "thirst": "thirst",
         "exhaustion": "exhaustion", "unknown": "an unknown cause", "lava": "lava"}


def odisp(kind, obj):
    """How an event object reads inside a sentence."""
    if kind in ("sow", "harvest", "ripen", "trampled", "zombie raid", "stake plot", "arrive", "doze off"):
        return f"the {obj}"
    if kind == "craft":
        return f"a {obj}"
    if kind == "lay stone":
        return f"the shed's {obj}" if obj.endswith("wall") else f"the {obj}"
    if kind in ("shut", "unbar", "set table"):
        return f"the shed's {obj}" if obj.endswith("wall") else f"the {obj}"
    if kind in ("hurt", "collapse"):
        return CAUSE.get(obj, obj)
    if kind in ("take up chore", "milestone"):
        return f'"{obj}"'
    return obj


# Agent kinds give predicates (past tense, after a subject); world kinds give whole clauses.
# para: wording without the stored kind; verb: wording that uses it. *_any: the object left open.
PH = {
    "chop": dict(agent=True, para=["felled a tree", "cut down a tree for wood", "got a log from a tree"],
                 verb=["chopped a tree", "chopped down a tree"], ger=["felling a tree", "cutting down a tree"]),
    "quarry": dict(agent=True, para=["mined {o} from natural rock", "dug {o} out of the natural rock"],
                   para_any=["mined any stone or ore from natural rock", "dug anything out of the natural rock"],
                   verb=["quarried {o}"], verb_any=["quarried anything"],
                   ger=["mining {o} from natural rock"], ger_any=["mining natural rock"]),
    "gather sapling": dict(agent=True, para=["picked up a sapling", "found a sapling in the grass",
                                              "pulled a sapling out of the grass"],
                           verb=[], ger=["picking up a sapling", "finding a sapling in the grass"]),
    "sow": dict(agent=True, para=["planted a sapling in {o}", "put a seedling into {o}"],
                para_any=["planted a sapling", "put a seedling in the ground"],
                verb=["sowed a sapling in {o}"], verb_any=["sowed a sapling"],
                ger=["planting a sapling in {o}"], ger_any=["planting a sapling"]),
    "harvest": dict(agent=True, para=["ate a ripe plant from {o}", "picked and ate ripe produce in {o}"],
                    para_any=["ate a ripe plant", "picked and ate ripe produce"],
                    verb=["harvested a plant in {o}"], verb_any=["harvested a plant"],
                    ger=["eating a ripe plant from {o}"], ger_any=["eating a ripe plant"]),
    "ripen": dict(agent=False, para=["a plant in {o} became ripe", "something in {o} was ready to pick"],
                  para_any=["one of the plants became ripe", "a crop was ready to eat"],
                  verb=["a plant in {o} ripened"], verb_any=["a plant ripened"]),
    "trampled": dict(agent=False, para=["a cow destroyed a plant in {o}", "a seedling in {o} got crushed by a cow"],
                     para_any=["a cow destroyed one of the plants", "a cow crushed a seedling"],
                     verb=["a plant in {o} was trampled"], verb_any=["a plant was trampled"]),
    "zombie raid": dict(agent=False, para=["a zombie destroyed a plant in {o}", "a zombie wrecked a seedling in {o}"],
                        para_any=["a zombie destroyed one of the plants", "a zombie wrecked a seedling"],
                        verb=[], verb_any=[]),
    "drink": dict(agent=True, para=["drank water", "took a sip of water", "sipped some water"],
                  verb=["had a drink of water"], ger=["sipping water", "taking a sip of water"]),
    "lay stone": dict(agent=True, para=["placed a stone block at {o}", "set a stone into {o}"],
                      para_any=["placed a stone in a shed wall or plot fence", "built a piece of shed wall or fence"],
                      verb=[], ger=["placing a stone at {o}"], ger_any=["building a piece of wall or fence"]),
    "set table": dict(agent=True, para=["put down a crafting table in {o}", "built a workbench into {o}"],
                      para_any=["put down a crafting table", "built a workbench"],
                      verb=[], ger=["putting down a crafting table"], ger_any=["putting down a crafting table"]),
    "craft": dict(agent=True, para=["made {o}", "put together {o}"], para_any=["made a tool", "made a new tool"],
                  verb=["crafted {o}"], verb_any=["crafted a tool"], ger=["making {o}"], ger_any=["making a tool"]),
    "strike": dict(agent=True, para=["hit a {o}", "landed a blow on a {o}"], para_any=["hit a creature"],
                   verb=["struck a {o}"], verb_any=["struck a creature"], ger=["hitting a {o}"],
                   ger_any=["hitting a creature"]),
    "slay": dict(agent=True, para=["killed a {o}", "defeated a {o}"], para_any=["killed a monster"],
                 verb=["slayed a {o}"], verb_any=["slayed a monster"], ger=["killing a {o}"],
                 ger_any=["killing a monster"]),
    "butcher": dict(agent=True, para=["killed and ate a cow", "made a meal of a cow"], verb=["butchered a cow"],
                    ger=["killing a cow for food"]),
    "spot intruder": dict(agent=True, para=["noticed a {o} close to the plants", "saw a {o} creeping near the garden"],
                          para_any=["noticed a creature close to the plants"], verb=[],
                          ger=["noticing a {o} near the plants"], ger_any=["noticing a creature near the plants"]),
    "hurt": dict(agent=True, para=["lost health to {o}", "took damage from {o}"],
                 para_any=["lost health", "took damage"], verb=["got hurt by {o}"], verb_any=["got hurt"],
                 ger=["taking damage from {o}"], ger_any=["taking damage"]),
    "collapse": dict(agent=True, para=["died from {o}", "lost a life to {o}"], para_any=["died", "lost a life"],
                     verb=["collapsed from {o}"], verb_any=["collapsed"], ger=["dying from {o}"],
                     ger_any=["dying"]),
    "revive": dict(agent=True, para=["came back to life", "started a new life"],
                   para_any=["came back to life", "started a new life"], verb=["revived"], verb_any=["revived"],
                   ger=["coming back to life"], ger_any=["coming back to life"]),
    "doze off": dict(agent=True, para=["fell asleep in {o}"], para_any=["fell asleep", "nodded off to sleep"],
                     verb=[], ger=["falling asleep in {o}"], ger_any=["falling asleep"]),
    "wake": dict(agent=True, para=["woke up {o}"], para_any=["woke up"], verb=[], verb_any=[],
                 ger=["waking up {o}"], ger_any=["waking up"]),
    "nightfall": dict(agent=False, para=["night fell", "it got dark"], verb=["nightfall came"]),
    "daybreak": dict(agent=False, para=["the sun came up", "dawn broke"], verb=["daybreak came"]),
    "arrive": dict(agent=True, para=["reached {o}", "got to {o}", "entered {o}", "walked into {o}"],
                   para_any=["moved into a different region", "changed regions"],
                   verb=["arrived at {o}"], verb_any=["arrived somewhere new"],
                   ger=["reaching {o}", "walking into {o}"], ger_any=["changing regions"]),
    "stake plot": dict(agent=True, para=["marked out {o}", "marked out {o} as a garden bed"],
                       para_any=["marked out a garden bed"], verb=[], ger=["marking out {o}"],
                       ger_any=["marking out a garden bed"]),
    "shut": dict(agent=True, para=["closed {o} with a stone", "blocked {o} with a stone"],
                 para_any=["closed a gate or the door with a stone"], verb=[], ger=["closing {o}"],
                 ger_any=["closing a gate or the door"]),
    "unbar": dict(agent=True, para=["opened {o}", "broke {o} open"], para_any=["opened a gate or the door"],
                  verb=[], ger=["opening {o}"], ger_any=["opening a gate or the door"]),
    "milestone": dict(agent=True, para=["unlocked the {o} achievement"], para_any=["unlocked an achievement"],
                      verb=[], ger=["unlocking the {o} achievement"], ger_any=["unlocking an achievement"]),
    "take up chore": dict(agent=True, para=["switched to the chore {o}", "started on the chore {o}"],
                          para_any=["changed chores"], verb=[], ger=["switching to the chore {o}"],
                          ger_any=["changing chores"]),
}
WAKE_OBJ = {"rested": "fully rested", "startled": "before being fully rested"}
SINGLE_OBJ = ("chop", "gather sapling", "drink", "butcher", "nightfall", "daybreak", "revive")


def ev_label(pat):
    kind, obj = pat
    return f"{kind} {obj}" if obj else kind


class Voice:
    """Puts patterns into words for one question."""

    def __init__(self, rng, verbatim_ok):
        self.rng = rng
        self.verbatim_ok = verbatim_ok

    def subject(self):
        return self.rng.choice(SUBJECTS)

    def _forms(self, pat, which):
        kind, obj = pat
        ph = PH[kind]
        if obj is None or kind in SINGLE_OBJ:
            key = which + "_any" if (which + "_any") in ph and kind not in SINGLE_OBJ else which
            forms = ph.get(key, [])
            return [f for f in forms if "{o}" not in f]
        o = WAKE_OBJ.get(obj, obj) if kind == "wake" else odisp(kind, obj)
        return [f.replace("{o}", o) for f in ph.get(which, []) if "{o}" in f]

    def use_verbatim(self):
        return self.verbatim_ok and self.rng.random() < 0.4

    def clause(self, pat, subj):
        """A past-tense clause: "Tansy felled a tree", "night fell"."""
        kind = pat[0]
        ph = PH[kind]
        verb = self.use_verbatim()
        forms = self._forms(pat, "verb") if verb else []
        if verb and (not forms or self.rng.random() < 0.2) and self.rng.random() < 0.6:
            lab = ev_label(pat) if pat[1] is not None or kind in SINGLE_OBJ else kind
            art = "an" if lab[0] in "aeiou" else "a"
            return self.rng.choice([f'{art} "{lab}" event was logged', f'the log showed "{lab}"'])
        if not forms:
            forms = self._forms(pat, "para")
        f = self.rng.choice(forms)
        return f"{subj} {f}" if ph["agent"] else f

    def gerund(self, pat):
        forms = self._forms(pat, "ger")
        if not forms:
            forms = self._forms(pat, "para")
        return self.rng.choice(forms)

    def nth_time(self, pat, n, subj, allow_when=False):
        """A phrase naming the n-th step with the pattern: "the third time Tansy felled a tree"."""
        rng = self.rng
        c = self.clause(pat, subj)
        if n == -1:
            return rng.choice([f"the last time {c}", f"the final time {c}", f"the most recent time {c}"])
        if n == -2:
            return rng.choice([f"the second-to-last time {c}", f"the penultimate time {c}",
                               f"the next-to-last time {c}"])
        o = ordinal(n, rng)
        if allow_when and rng.random() < 0.3:
            return f"when {c} for the {o} time"
        return f"the {o} time {c}"


ITEM_PLURAL = {"sapling": "saplings", "wood": "pieces of wood", "stone": "stones", "coal": "lumps of coal",
               "iron": "pieces of iron", "diamond": "diamonds", "wood pickaxe": "wood pickaxes",
               "stone pickaxe": "stone pickaxes", "iron pickaxe": "iron pickaxes", "wood sword": "wood swords",
               "stone sword": "stone swords", "iron sword": "iron swords"}
STATE_WORDS = {"vigor": "vigor", "fullness": "fullness", "hydration": "hydration", "stamina": "stamina",
               "plants growing": '"plants growing" count', "chore": "current chore", "day": "day counter",
               "time of day": "time of day", "harvest tally": "harvest tally", "life": "life number"}


def ask(slot, arg, when, S, rng, front=None):
    """A question asking ``slot`` at the moment ``when`` ("at step 40", "the third time ...")."""
    subj, poss, be, objf = S
    front = rng.random() < 0.3 if front is None else front
    if slot == "action":
        opts = [f"What action did {subj} take {when}?", f"Which action was recorded {when}?",
                f"What was {poss} action {when}?"]
        fr = [f"{cap(when)}, which action did {subj} take?", f"{cap(when)}: what was the action?"]
    elif slot == "step":
        opts = [f"At which step was {when}?", f"Which step number was {when}?", f"What step was {when}?"]
        fr = [f"{cap(when)} - at which step was that?", f"{cap(when)}: which step was it?"]
    elif slot == "location":
        opts = [f"Where {be} {subj} {when}?", f"In which region {be} {subj} {when}?",
                f"What area {be} {subj} in {when}?"]
        fr = [f"{cap(when)}, where {be} {subj}?", f"{cap(when)}, which region {be} {subj} in?"]
    elif slot == "position":
        opts = [f"What were {poss} grid coordinates {when}?", f"At what x,y position {be} {subj} {when}?",
                f"What was {poss} exact position {when}?"]
        fr = [f"{cap(when)}, what were {poss} coordinates?"]
    elif slot == "item":
        pl = ITEM_PLURAL.get(arg, arg)
        opts = [f"How many {pl} did {subj} have {when}?", f"How many {pl} {be} {subj} carrying {when}?",
                f'What was {poss} "{arg}" count {when}?']
        fr = [f"{cap(when)}, how many {pl} did {subj} hold?"]
    elif slot == "inventory":
        opts = [f"What was in {poss} inventory {when}?", f"What {be} {subj} carrying {when}?",
                f"List {poss} inventory {when}."]
        fr = [f"{cap(when)}, what did {subj} have in {poss} pack?", f"{cap(when)}, what was {subj} carrying?"]
    elif slot == "state":
        w = STATE_WORDS[arg]
        opts = [f"What was {poss} {w} {when}?", f"What value did {poss} {w} have {when}?"]
        fr = [f"{cap(when)}, what was {poss} {w}?"]
    elif slot == "facing":
        opts = [f"What {be} {subj} facing {when}?", f"What was directly in front of {objf} {when}?"]
        fr = [f"{cap(when)}, what {be} {subj} facing?", f"{cap(when)}, what lay right in front of {objf}?"]
    elif slot == "events":
        opts = [f"What events were logged {when}?", f"Which events happened {when}?",
                f"What happened {when}? List the events."]
        fr = [f"{cap(when)}, which events were recorded?"]
    else:
        raise ValueError(slot)
    return rng.choice(fr) if front else rng.choice(opts)


BARE = {"felled": "fell", "cut": "cut", "got": "get", "mined": "mine", "dug": "dig", "broke": "break",
        "picked": "pick", "found": "find", "pulled": "pull", "planted": "plant", "put": "put", "ate": "eat",
        "drank": "drink", "took": "take", "sipped": "sip", "placed": "place", "set": "set", "built": "build",
        "made": "make", "hit": "hit", "landed": "land", "killed": "kill", "defeated": "defeat",
        "noticed": "notice", "saw": "see", "lost": "lose", "died": "die", "came": "come", "started": "start",
        "fell": "fall", "nodded": "nod", "woke": "wake", "reached": "reach", "entered": "enter",
        "walked": "walk", "marked": "mark", "closed": "close", "blocked": "block", "opened": "open",
        "unlocked": "unlock", "switched": "switch", "changed": "change", "chopped": "chop",
        "quarried": "quarry", "sowed": "sow", "harvested": "harvest", "crafted": "craft", "struck": "strike",
        "slayed": "slay", "butchered": "butcher", "collapsed": "collapse", "revived": "revive",
        "arrived": "arrive", "had": "have"}


def bare(pred):
    w, _, rest = pred.partition(" ")
    if w not in BARE:
        return None
    return (BARE[w] + " " + rest).strip()


def names_kind(text):
    low = text.lower()
    return any(k in low for k in PH)


VITALS = ["vigor", "fullness", "hydration", "stamina"]
REL_WORDS = {"<=": ["dropped to {k} or below", "fell to {k} or lower"],
             ">=": ["reached {k} or more", "got to at least {k}"],
             "==": ["was exactly {k}", "hit {k}"],
             ">": ["exceeded {k}", "went above {k}"]}
REL_STATIVE = {"<=": ["was {k} or less", "was at most {k}"], ">=": ["was at least {k}", "was {k} or higher"],
               "==": ["was exactly {k}", "stood at {k}"], ">": ["was above {k}", "was more than {k}"]}


def bare_clause(v, pat, subj):
    """"Tansy fell a tree": subject and bare verb, for "did ..." questions; None for world events."""
    kind = pat[0]
    if not PH[kind]["agent"]:
        return None
    forms = v._forms(pat, "verb") if v.use_verbatim() else []
    forms = [bare(f) for f in forms if bare(f)]
    if not forms:
        forms = [bare(f) for f in v._forms(pat, "para") if bare(f)]
    if not forms:
        return None
    return f"{subj} {v.rng.choice(forms)}"


class Writer:
    """Writes the 60 questions of one episode and checks each answer with the Evaluator."""

    SLOTS = ["action", "step", "location", "position", "item", "inventory", "state", "facing", "events"]

    def __init__(self, seed, steps, episode, plots):
        self.seed = seed
        self.steps = steps
        self.T = len(steps)
        self.ep = episode
        self.plots = plots
        self.ev = Evaluator(steps)
        self.rng = random.Random(seed * 7817 + 3)
        self.occ = {}
        for s in steps:
            seen = set()
            for e in s.events:
                for p in ((e.kind, e.obj), (e.kind, None)):
                    if p not in seen:
                        seen.add(p)
                        self.occ.setdefault(p, []).append(s.t)
        self.pats = sorted(self.occ, key=lambda p: (p[0], p[1] or ""))
        self.verbatim = 0
        self.hand = 0
        self.items = sorted({n for s in steps for n, c in s.inventory})
        self.questions = []
        self.texts = set()
        self.slot_queues = {}
        self.tries = 0

    # ---- helpers ------------------------------------------------------------------------------
    def o(self, pat):
        return self.occ.get(pat, [])

    def voice(self):
        return Voice(self.rng, self.verbatim < 24)

    def pick_pat(self, minc=1, maxc=10 ** 9, exclude=(), agent=None, anyobj=None):
        rng = self.rng
        cands = [p for p in self.pats if minc <= len(self.o(p)) <= maxc and p not in exclude
                 and (agent is None or PH[p[0]]["agent"] == agent)]
        cands = [p for p in cands if not (p[1] is None and p[0] in SINGLE_OBJ + ("arrive", "take up chore"))]
        if anyobj is not None:
            cands = [p for p in cands if (p[1] is None) == anyobj]
        # the very common bookkeeping kinds less often
        weights = [0.2 if p[0] in ("arrive", "take up chore", "milestone") else
                   (0.5 if p[0] in ("strike", "hurt") else 1.0) for p in cands]
        if not cands:
            return None
        return rng.choices(cands, weights)[0]

    def setup(self):
        v = self.voice()
        S, cs = self.subj_pair(v)
        return self.rng, self.T, v, S, cs

    def subj_pair(self, v):
        S = v.subject()
        cs = S[0]
        if S[0] in ("Tansy", "the agent", "the gardener") and self.rng.random() < 0.5:
            cs = "it"
        return S, cs

    def arg_for(self, slot, t):
        rng = self.rng
        if slot == "item":
            held = [n for n, c in self.steps[t].inventory if c > 0]
            basic = [n for n in held if n in ("sapling", "wood", "stone", "coal", "iron")]
            r = rng.random()
            if basic and r < 0.6:
                return rng.choice(basic)
            if held and r < 0.75:
                return rng.choice(held)
            return rng.choice(["sapling", "wood", "stone", "sapling", "wood pickaxe", "stone sword"])
        if slot == "state":
            return rng.choice(["vigor", "fullness", "hydration", "stamina", "plants growing", "chore", "day",
                               "time of day", "harvest tally", "life", "chore", "hydration"])
        return None

    def add(self, family, slot, text, spec, expected, hand):
        if text in self.texts:
            return False
        verb = names_kind(text)
        if verb and self.verbatim >= 28:
            return False
        answer, gold = self.ev.answer(spec)
        assert answer == expected, (family, text, answer, expected)
        gold = sorted(set(gold))
        self.texts.add(text)
        self.verbatim += verb
        self.hand += hand
        self.questions.append({"episode": self.ep, "family": family, "slot": slot, "question": text,
                               "answer": answer, "gold": [f"{self.ep}:{t}" for t in gold]})
        return True

    def next_slot(self, fam, k, slots):
        if fam not in self.slot_queues:
            q = slots[:]
            self.rng.shuffle(q)
            self.slot_queues[fam] = q
        q = self.slot_queues[fam]
        return q[(k + self.tries // 40) % len(q)]

    def val(self, t, slot, arg):
        return slot_value(self.steps[t], slot, arg)

    def win_phrase(self, rng, kind=None):
        """A window given by step numbers: (phrase, win spec, lo, hi)."""
        T = self.T
        kind = kind or rng.choice(["before", "between", "first", "after", "upto"])
        if kind == "before":
            n = rng.randrange(T // 4, T - 20)
            return rng.choice([f" before step {n}", f" prior to step {n}"]), {"before": ("excl", n)}, 0, n - 1
        if kind == "first":
            n = rng.choice([100, 150, 200, 250, 300, 400, 500, 600, 700, 800])
            n = min(n, T - 10)
            return f" in the first {n} steps", {"before": ("excl", n)}, 0, n - 1
        if kind == "after":
            n = rng.randrange(50, T - T // 4)
            return rng.choice([f" after step {n}", f" following step {n}"]), {"after": ("excl", n)}, n + 1, T - 1
        if kind == "upto":
            n = rng.randrange(T // 4, T - 20)
            return rng.choice([f" up to and including step {n}", f" as of step {n} (inclusive)"]), \
                {"before": ("incl", n)}, 0, n
        a = rng.randrange(0, T - 200)
        b = rng.randrange(a + 60, min(T - 1, a + 600))
        return rng.choice([f" between step {a} and step {b}", f" from step {a} to step {b}"]), \
            {"after": ("incl", a), "before": ("incl", b)}, a, b

    # ---- 1. step index -------------------------------------------------------------------------
    def f1(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "1_step_index"
        slots = ["action", "location", "position", "item", "inventory", "state", "facing", "events"]
        slot = self.next_slot(fam, k, slots)
        if slot == "events" and rng.random() < 0.8:
            cands = [s.t for s in self.steps if s.events]
            t = rng.choice(cands)
        else:
            t = rng.randrange(0, T)
        arg = self.arg_for(slot, t)
        hand = rng.random() < 0.5
        if hand:
            if slot == "state":
                texts = {"chore": [f"Which chore was {subj} busy with at step {t}?",
                                   f"At step {t}, what job {be} {subj} working on?"],
                         "stamina": [f"At step {t}, how much stamina did {subj} have left?"],
                         "vigor": [f"How healthy {be} {subj} at step {t} - what was {poss} vigor?"],
                         "fullness": [f"How full was {poss} belly at step {t}? Give the fullness value."],
                         "hydration": [f"What was {poss} hydration on step {t}?"],
                         "plants growing": [f"How many plants were growing in the plots at step {t}?"],
                         "time of day": [f"What time of day was it at step {t}?"],
                         "day": [f"Which day of the episode was step {t} on?"],
                         "harvest tally": [f"How many harvests had {subj} tallied by step {t}, step included?"],
                         "life": [f"Which life {be} {subj} on at step {t}?"]}[arg]
                text = rng.choice(texts)
            elif slot == "facing":
                text = rng.choice([f"What did {subj} see right in front of {objf} on step {t}?",
                                   f"Step {t}: what was the tile or creature ahead of {objf}?"])
            elif slot == "inventory":
                text = rng.choice([f"Step {t}: what {be} {subj} holding?",
                                   f"Give the full contents of {poss} pack at step {t}."])
            elif slot == "action":
                text = rng.choice([f"Which command did {subj} issue at step {t}?",
                                   f"What was the raw action string at step {t}?"])
            elif slot == "location":
                text = rng.choice([f"In what part of the farm {be} {subj} standing at step {t}?",
                                   f"Which named area held {objf} at step {t}?"])
            elif slot == "position":
                text = f"Give {poss} x,y coordinates at step {t}."
            elif slot == "item":
                text = f"At step {t}, how many {ITEM_PLURAL.get(arg, arg)} were in {poss} inventory?"
            else:
                text = rng.choice([f"What got logged at step {t}?", f"Which events did step {t} record?"])
        else:
            when = rng.choice([f"at step {t}", f"on step {t}", f"at time step {t}", f"in step {t}"])
            text = ask(slot, arg, when, S, rng)
        spec = {"op": "at", "t": t, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), hand)

    # ---- 2. n-th occurrence --------------------------------------------------------------------
    def f2(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "2_nth_occurrence"
        slot = self.next_slot(fam, k, self.SLOTS)
        hand = rng.random() < 0.45
        if hand:
            choice = rng.choice(["sow", "butcher", "hurt", "drink", "shut", "harvest", "chop", "doze"])
            pat = {"sow": ("sow", None), "butcher": ("butcher", "cow"), "hurt": ("hurt", "zombie"),
                   "drink": ("drink", "water"), "shut": ("shut", "shed door"), "harvest": ("harvest", None),
                   "chop": ("chop", "tree"), "doze": ("doze off", None)}[choice]
            ts = self.o(pat)
            if len(ts) < 2:
                return False
            n = rng.choice([2, 3, -1, 1, -2][:max(2, min(5, len(ts)))])
            if n > len(ts):
                n = -1
            t = ts[n - 1] if n > 0 else ts[n]
            o = "last" if n == -1 else ("second-to-last" if n == -2 else ordinal(n, rng))
            want = slot

            def pick(options):
                same = [o for o in options if o[0] == want]
                return same[0] if same else rng.choice(options)
            if choice == "sow":
                slot, arg = pick([("location", None), ("item", "sapling"), ("step", None)])
                text = {"location": f"Where {be} {subj} standing when {cs} put {poss if cs == subj else 'its'} {o} seedling into the ground?",
                        "item": f"How many saplings were left in {poss} pack once {cs} had planted a sapling for the {o} time?",
                        "step": f"On which step did {subj} plant a sapling for the {o} time?"}[slot]
            elif choice == "butcher":
                slot, arg = pick([("state", "fullness"), ("location", None)])
                text = {"state": f"What was {poss} fullness once {cs} had killed and eaten a cow for the {o} time?",
                        "location": f"Where did {subj} make a meal of a cow for the {o} time?"}[slot]
            elif choice == "hurt":
                slot, arg = pick([("state", "vigor"), ("action", None), ("step", None)])
                text = {"state": f"The {o} time a zombie hurt {objf}, how much vigor did {subj} have left?",
                        "action": f"What was {subj} doing (the action) the {o} time a zombie wounded {objf}?",
                        "step": f"When did a zombie draw blood from {objf} for the {o} time? Step number, please."}[slot]
            elif choice == "drink":
                slot, arg = pick([("step", None), ("position", None), ("state", "hydration")])
                text = {"step": f"When did {subj} sip water for the {o} time?",
                        "position": f"Where exactly (x,y) {be} {subj} the {o} time {cs} drank?",
                        "state": f"What was {poss} hydration as recorded at the {o} sip of water?"}[slot]
            elif choice == "shut":
                slot, arg = pick([("inventory", None), ("state", "day"), ("step", None)])
                text = {"inventory": f"What did {subj} carry the {o} time {cs} closed the shed door behind {objf if cs == subj else 'it'}?",
                        "state": f"On which day did {subj} shut the shed door for the {o} time?",
                        "step": f"At which step was the shed door blocked with a stone for the {o} time?"}[slot]
            elif choice == "harvest":
                slot, arg = pick([("location", None), ("state", "harvest tally"), ("step", None)])
                text = {"location": f"From which plot did {subj} eat a ripe plant the {o} time?",
                        "state": f"What did the harvest tally read after the {o} ripe plant {cs} ate?",
                        "step": f"When was the {o} time {subj} picked and ate something ripe?"}[slot]
            elif choice == "chop":
                slot, arg = pick([("item", "wood"), ("facing", None), ("position", None)])
                text = {"item": f"How much wood did {subj} hold once {cs} had felled a tree for the {o} time?",
                        "facing": f"The {o} time {cs} cut down a tree, what was in front of {objf if cs == subj else 'it'} at that step?",
                        "position": f"At what coordinates did {subj} cut down a tree for the {o} time?"}[slot]
            else:
                slot, arg = pick([("location", None), ("state", "stamina"), ("step", None)])
                text = {"location": f"Where did {subj} nod off the {o} time {cs} fell asleep?",
                        "state": f"What was {poss} stamina when {cs} fell asleep for the {o} time?",
                        "step": f"At which step did {subj} fall asleep for the {o} time?"}[slot]
            if choice == "harvest" and slot == "location" and not matches(self.steps[t], ("harvest", self.val(t, slot, arg))):
                return False
            spec = {"op": "nth", "pat": pat, "n": n, "slot": slot, "arg": arg}
            return self.add(fam, slot, text, spec, self.val(t, slot, arg), True)
        pat = self.pick_pat(2)
        if pat is None:
            return False
        ts = self.o(pat)
        n = rng.choice([1, 2, 3, -1, -2, rng.randint(1, min(len(ts), 12))])
        if n > len(ts) or (n == -2 and len(ts) < 3):
            n = -1
        t = ts[n - 1] if n > 0 else ts[n]
        arg = self.arg_for(slot, t)
        when = v.nth_time(pat, n, cs, allow_when=True)
        text = ask(slot, arg, when, S, rng)
        spec = {"op": "nth", "pat": pat, "n": n, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), False)

    # ---- 3. windowed occurrence ----------------------------------------------------------------
    def f3(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "3_windowed_occurrence"
        slot = self.next_slot(fam, k, self.SLOTS)
        mode = rng.choice(["after_event", "before_step", "between", "after_step", "before_event", "first_n",
                           "after_event", "between"])
        pat = self.pick_pat(2)
        if pat is None:
            return False
        xs = self.o(pat)
        hand = False
        if mode in ("after_event", "before_event"):
            apat = self.pick_pat(1, exclude=(pat,))
            if apat is None:
                return False
            ats = self.o(apat)
            an = rng.choice([1, 1, 2, -1]) if len(ats) >= 2 else 1
            ta = ats[an - 1] if an > 0 else ats[an]
            anchor = {"pat": apat, "n": an}
            aphr = v.nth_time(apat, an, cs)
            if mode == "after_event":
                inside = [t for t in xs if t > ta]
                win = {"after": anchor}
            else:
                inside = [t for t in xs if t < ta]
                win = {"before": anchor}
            if not inside:
                return False
            if mode == "after_event":
                n = rng.choice([1, 1, 2]) if len(inside) >= 2 else 1
                t = inside[n - 1]
                o = ordinal(n, rng)
                c = v.clause(pat, cs)
                when = rng.choice([f"the {o} time {c} after {aphr}", f"the {o} time {c} following {aphr}"])
                lead = rng.choice([f"After {aphr}", f"Following {aphr}", f"Once {aphr} had passed"])
                alt = f"{lead}, consider the {o} time {c}."
            else:
                n = rng.choice([-1, -1, -2]) if len(inside) >= 2 else -1
                t = inside[n]
                c = v.clause(pat, cs)
                o = "last" if n == -1 else "second-to-last"
                when = rng.choice([f"the {o} time {c} before {aphr}", f"the {o} time {c} prior to {aphr}"])
                alt = f"Before {aphr}, consider the {o} time {c}."
            spec_n = n
        else:
            wkind = {"before_step": "before", "between": "between", "after_step": "after", "first_n": "first"}[mode]
            for _ in range(6):
                phrase, win, lo, hi = self.win_phrase(rng, wkind)
                inside = [t for t in xs if lo <= t <= hi]
                if inside:
                    break
            else:
                return False
            c = v.clause(pat, cs)
            if wkind == "before":
                n = -1 if rng.random() < 0.75 or len(inside) < 2 else -2
                o = "last" if n == -1 else "second-to-last"
            else:
                n = rng.choice([1, 1, 2, 3]) if len(inside) >= 3 else 1
                o = ordinal(n, rng)
            t = inside[n - 1] if n > 0 else inside[n]
            when = f"the {o} time {c}{phrase}"
            alt = f"{cap(phrase.strip())}, consider the {o} time {c}."
            spec_n = n
        arg = self.arg_for(slot, t)
        if rng.random() < 0.4:
            hand = True
            tail = {"action": "Which action was taken then?", "step": "Which step was that?",
                    "location": f"Where {be} {subj} at that moment?", "position": f"What were {poss} coordinates then?",
                    "item": f"How many {ITEM_PLURAL.get(arg, arg)} did {subj} hold at that point?",
                    "inventory": f"What {be} {subj} carrying then?",
                    "state": f"What was {poss} {STATE_WORDS.get(arg, arg)} then?",
                    "facing": f"What {be} {subj} facing at that step?",
                    "events": "Which events were logged on that step?"}[slot]
            text = f"{alt} {tail}"
        else:
            text = ask(slot, arg, when, S, rng)
        spec = {"op": "nth", "pat": pat, "n": spec_n, "win": win, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), hand)

    # ---- 4. condition --------------------------------------------------------------------------
    def cond_pick(self, rng):
        """A (cond spec, wording) for some variable, with the steps where it holds."""
        kind = rng.choice(["vital_low", "vital_low", "vital_eq", "item_ge", "ranout", "plants", "tally",
                           "vital_high_last", "item_ge"])
        if kind in ("vital_low", "vital_eq", "vital_high_last"):
            name = rng.choice(VITALS)
            var = ("state", name)
            if kind == "vital_low":
                k = rng.randint(1, 6)
                cond = {"var": var, "rel": "<=", "k": k}
            elif kind == "vital_eq":
                k = rng.randint(2, 7)
                cond = {"var": var, "rel": "==", "k": k}
            else:
                k = rng.randint(6, 9)
                cond = {"var": var, "rel": ">=", "k": k}
            label = STATE_WORDS[name]
        elif kind == "item_ge":
            items = [n for n in self.items if n in ("sapling", "wood", "stone", "coal")]
            if not items:
                return None
            name = rng.choice(items)
            k = rng.randint(2, 6)
            var = ("item", name)
            cond = {"var": var, "rel": ">=", "k": k}
            label = name
        elif kind == "ranout":
            items = [n for n in self.items if n in ("sapling", "wood", "stone")]
            if not items:
                return None
            name = rng.choice(items)
            var = ("item", name)
            cond = {"var": var, "ranout": True}
            label = name
        elif kind == "plants":
            var = ("state", "plants growing")
            k = rng.randint(1, 4)
            cond = {"var": var, "rel": rng.choice([">=", "=="]), "k": k}
            label = STATE_WORDS["plants growing"]
        else:
            var = ("state", "harvest tally")
            k = rng.randint(1, 3)
            cond = {"var": var, "rel": ">=", "k": k}
            label = STATE_WORDS["harvest tally"]
        ts = self.ev.cond_steps(cond)
        if not ts:
            return None
        if kind != "vital_high_last" and not cond.get("ranout") and ts[0] == 0:
            return None
        return kind, cond, label, ts

    def cond_words(self, kind, cond, label, S, rng, start_value):
        subj, poss, be, objf = S
        if cond.get("ranout"):
            pl = ITEM_PLURAL.get(label, label)
            return rng.choice([f"{subj} ran out of {pl}", f"{poss} last {label} was used up"]), \
                "(the count fell to zero from a positive count)"
        rel, k = cond["rel"], cond["k"]
        stative = holds(start_value, rel, k)
        words = REL_STATIVE[rel] if stative else REL_WORDS[rel]
        w = rng.choice(words).format(k=k)
        if cond["var"][0] == "item":
            pl = ITEM_PLURAL.get(label, label)
            if rel == ">=":
                return rng.choice([f"{subj} held at least {k} {pl}", f"{poss} {pl} numbered {k} or more"]), ""
            return f'{poss} "{label}" count {w}', ""
        return f"{poss} {label} {w}", ""

    def f4(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "4_condition"
        got = self.cond_pick(rng)
        if got is None:
            return False
        kind, cond, label, ts = got
        slot = self.next_slot(fam, k, ["step", "location", "position", "action", "inventory", "facing", "state",
                                       "step", "item"])
        pick = "last" if kind == "vital_high_last" or rng.random() < 0.15 else "first"
        win = None
        wphr = ""
        if rng.random() < 0.3:
            n = rng.randrange(50, T - T // 3)
            later = [t for t in ts if t > n]
            if later:
                win = {"after": ("excl", n)}
                ts = later
                wphr = rng.choice([f"after step {n}", f"following step {n}"])
        t = ts[0] if pick == "first" else ts[-1]
        start_t = (win["after"][1] + 1) if win else 0
        if pick == "first" and t == start_t:
            return False
        start_value = var_value(self.steps[start_t], cond["var"]) if not cond.get("ranout") else 0
        cw, note = self.cond_words(kind, cond, label, (cs, "its" if cs == "it" else S[1], S[2], S[3]), rng,
                                   start_value)
        arg = self.arg_for(slot, t)
        if slot == "state":
            arg = rng.choice([a for a in ["vigor", "fullness", "hydration", "stamina", "chore", "time of day", "day"]
                              if ("state", a) != cond["var"]])
        if pick == "first":
            when = rng.choice([f"the first time {cw}", f"when {cw} for the first time"])
        else:
            when = rng.choice([f"the last time {cw}", f"the final step at which {cw}"])
        if wphr:
            when = f"{when} {wphr}"
        if note:
            when = f"{when} {note}"
        hand = rng.random() < 0.5
        if hand and slot == "step":
            lead = f"{cap(wphr)}, " if wphr else ""
            if pick == "first":
                text = rng.choice([f"{lead}at which step did it first happen that {cw}?",
                                   f"{lead}when was the first step on which {cw}? {note}".strip()])
            else:
                text = f"{lead}what was the last step on which {cw}? {note}".strip()
            text = cap(text)
        elif hand:
            tail = {"location": f"where {be} {subj}?", "position": f"what were {poss} coordinates?",
                    "action": "which action had just been taken?", "inventory": f"what {be} {subj} carrying?",
                    "facing": f"what {be} {subj} facing?", "state": f"what was {poss} {STATE_WORDS.get(arg, arg)}?",
                    "item": f"how many {ITEM_PLURAL.get(arg, arg)} did {subj} have?",
                    "events": "what was logged?"}[slot]
            text = f"{cap(when)}, {tail}"
        else:
            text = ask(slot, arg, when, S, rng, front=False)
        spec = {"op": "cond", "cond": cond, "pick": pick, "win": win, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), hand)

    # ---- 5. offset -----------------------------------------------------------------------------
    def f5(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "5_offset"
        slot = self.next_slot(fam, k, self.SLOTS)
        if rng.random() < 0.8:
            apat = self.pick_pat(1)
            if apat is None:
                return False
            ats = self.o(apat)
            an = rng.choice([1, 1, 2, -1]) if len(ats) >= 2 else 1
            ta = ats[an - 1] if an > 0 else ats[an]
            anchor = {"pat": apat, "n": an}
            aphr = v.nth_time(apat, an, cs)
        else:
            got = self.cond_pick(rng)
            if got is None:
                return False
            kind, cond, label, ts = got
            ta = ts[0]
            anchor = {"cond": cond, "n": 1}
            cw, note = self.cond_words(kind, cond, label, (cs, "its" if cs == "it" else S[1], S[2], S[3]), rng,
                                       var_value(self.steps[0], cond["var"]) if not cond.get("ranout") else 0)
            aphr = f"the first time {cw}" + (f" {note}" if note else "")
        kk = rng.choice([1, 2, 3, 4, 5, 6, 8, 10, 15, 20])
        sign = rng.choice([1, -1])
        t = ta + sign * kk
        if not 0 <= t < T:
            sign = -sign
            t = ta + sign * kk
            if not 0 <= t < T:
                return False
        arg = self.arg_for(slot, t)
        if kk == 1:
            rel = rng.choice(["one step after", "the step after"]) if sign > 0 else \
                rng.choice(["one step before", "the step before"])
        else:
            nk = str(kk)
            rel = rng.choice([f"{nk} steps after", f"{nk} steps later than"]) if sign > 0 else \
                rng.choice([f"{nk} steps before", f"{nk} steps prior to"])
        when = f"{rel} {aphr}"
        hand = rng.random() < 0.4
        if hand:
            hint = "later" if sign > 0 else "earlier"
            tail = {"action": f"what did {subj} do (which action)?", "step": "which step was that?",
                    "location": f"where {be} {subj}?", "position": f"what were {poss} x,y coordinates?",
                    "item": f"how many {ITEM_PLURAL.get(arg, arg)} did {subj} hold?",
                    "inventory": f"what {be} in {poss} inventory?",
                    "state": f"what was {poss} {STATE_WORDS.get(arg, arg)}?",
                    "facing": f"what {be} {subj} looking at?", "events": "what was logged on that step?"}[slot]
            text = f"Take {aphr} and count {kk} step{'s' if kk > 1 else ''} {hint}: {tail}"
        else:
            text = ask(slot, arg, when, S, rng)
        spec = {"op": "offset", "anchor": anchor, "k": sign * kk, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), hand)

    # ---- 6. next / previous --------------------------------------------------------------------
    def f6(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "6_next_previous"
        slot = self.next_slot(fam, k, self.SLOTS)
        mode = rng.choice(["next", "prev", "again", "next_step", "prev_step", "next", "again"])
        hand = False
        if mode in ("next", "prev", "again"):
            apat = self.pick_pat(2 if mode == "again" else 1)
            if apat is None:
                return False
            ats = self.o(apat)
            pat = apat if mode == "again" else self.pick_pat(1, exclude=(apat,))
            if pat is None:
                return False
            xs = self.o(pat)
            an = rng.choice([1, 2, 3, -1]) if len(ats) >= 3 else rng.choice([1, len(ats)])
            ta = ats[an - 1] if an > 0 else ats[an]
            anchor = {"pat": apat, "n": an}
            aphr = v.nth_time(apat, an, cs)
            if mode == "prev":
                inside = [t for t in xs if t < ta]
                if not inside:
                    return False
                t = inside[-1]
                win, n = {"before": anchor}, -1
                c = v.clause(pat, cs)
                when = rng.choice([f"the previous time {c} before {aphr}",
                                   f"the most recent time {c} before {aphr}",
                                   f"the last time {c} prior to {aphr}"])
                alt = f"Going back from {aphr}, find the most recent earlier time {c}."
            else:
                inside = [t for t in xs if t > ta]
                if not inside:
                    return False
                t = inside[0]
                win, n = {"after": anchor}, 1
                if mode == "again":
                    b = bare_clause(v, pat, cs)
                    c = v.clause(pat, cs)
                    when = rng.choice([f"the next time {c} after {aphr}", f"the time {c} again after {aphr}"])
                    alt = (f"After {aphr}, when did {b} again?" if b else
                           f"After {aphr}, look at the next time {c} again.")
                    if b and slot == "step":
                        hand = True
                        text = alt + " Give the step."
                else:
                    c = v.clause(pat, cs)
                    when = rng.choice([f"the next time {c} after {aphr}", f"the first time {c} after {aphr}"])
                    alt = f"After {aphr}, find the next time {c}."
        else:
            pat = self.pick_pat(2)
            if pat is None:
                return False
            xs = self.o(pat)
            n0 = rng.randrange(20, T - 20)
            c = v.clause(pat, cs)
            if mode == "next_step":
                inside = [t for t in xs if t > n0]
                if not inside:
                    return False
                t, win, n = inside[0], {"after": ("excl", n0)}, 1
                when = rng.choice([f"the next time {c} after step {n0}", f"the first time {c} after step {n0}"])
                alt = f"Starting from step {n0}, find the next time {c} (strictly after step {n0})."
            else:
                inside = [t for t in xs if t < n0]
                if not inside:
                    return False
                t, win, n = inside[-1], {"before": ("excl", n0)}, -1
                when = rng.choice([f"the most recent time {c} before step {n0}",
                                   f"the previous time {c} before step {n0}"])
                alt = f"Looking back from step {n0}, find the most recent earlier time {c}."
        arg = self.arg_for(slot, t)
        if not hand:
            if rng.random() < 0.35:
                hand = True
                tail = {"action": "Which action was taken there?", "step": "Which step was it?",
                        "location": f"Where {be} {subj} then?", "position": f"Give {poss} coordinates then.",
                        "item": f"How many {ITEM_PLURAL.get(arg, arg)} did {subj} hold then?",
                        "inventory": f"What did {subj} carry at that point?",
                        "state": f"What was {poss} {STATE_WORDS.get(arg, arg)} then?",
                        "facing": f"What {be} {subj} facing then?", "events": "Which events did that step log?"}[slot]
                text = f"{alt} {tail}"
            else:
                text = ask(slot, arg, when, S, rng)
        spec = {"op": "nth", "pat": pat, "n": n, "win": win, "slot": slot, "arg": arg}
        return self.add(fam, slot, text, spec, self.val(t, slot, arg), hand)

    # ---- 7. count ------------------------------------------------------------------------------
    def f7(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "7_count"
        mode = rng.choice(["events", "events", "events", "region", "cond", "list", "list", "action"])
        wk = rng.choice([None, "before", "between", "first", "after", "upto", "event_after", "event_before"])
        win, phrase = None, ""
        if wk in ("event_after", "event_before"):
            apat = self.pick_pat(1, maxc=40)
            if apat is None:
                return False
            ats = self.o(apat)
            an = rng.choice([1, -1]) if len(ats) > 1 else 1
            anchor = {"pat": apat, "n": an}
            aphr = v.nth_time(apat, an, cs)
            if wk == "event_after":
                win, phrase = {"after": anchor}, rng.choice([f" after {aphr}", f" since {aphr}"])
            else:
                win, phrase = {"before": anchor}, rng.choice([f" before {aphr}", f" prior to {aphr}"])
        elif wk:
            phrase, win, lo, hi = self.win_phrase(rng, wk)
        lo, hi, _ = self.ev.window(win)
        if lo > hi:
            return False
        hand = False
        if mode == "events":
            pat = self.pick_pat(1)
            if pat is None:
                return False
            expected = str(len([t for t in self.o(pat) if lo <= t <= hi]))
            b = bare_clause(v, pat, cs)
            r = rng.random()
            if b and r < 0.55:
                text = rng.choice([f"How many times did {b}{phrase}?", f"{cap(phrase.strip())}, how many times did {b}?"
                                   if phrase else f"In the whole episode, how many times did {b}?"])
            elif r < 0.8:
                text = f"Count the steps on which {v.clause(pat, cs)}{phrase}."
                hand = True
            else:
                lab = ev_label(pat) if pat[1] is not None or pat[0] in SINGLE_OBJ else pat[0]
                text = f'How many steps logged {"an" if lab[0] in "aeiou" else "a"} "{lab}" event{phrase}?'
            spec = {"op": "count", "pat": pat, "win": win}
            slot = "count"
        elif mode == "region":
            regions = sorted({s.location.region for s in self.steps})
            reg = rng.choice(regions)
            expected = str(sum(1 for s in self.steps[lo:hi + 1] if s.location.region == reg))
            text = rng.choice([f"How many steps did {subj} spend in the {reg}{phrase}?",
                               f"For how many steps {be} {subj} located in the {reg}{phrase}?"])
            hand = rng.random() < 0.5
            spec = {"op": "count_steps", "test": ("region", reg), "win": win}
            slot = "count"
        elif mode == "action":
            act = rng.choice(self.steps).action
            expected = str(sum(1 for s in self.steps[lo:hi + 1] if s.action == act))
            text = rng.choice([f'How many times was the action "{act}" taken{phrase}?',
                               f'On how many steps did {subj} choose "{act}"{phrase}?'])
            hand = True
            spec = {"op": "count_steps", "test": ("action", act), "win": win}
            slot = "count"
        elif mode == "cond":
            name = rng.choice(VITALS)
            rel = rng.choice(["<=", ">="])
            kk = rng.randint(2, 5) if rel == "<=" else rng.randint(7, 9)
            expected = str(sum(1 for s in self.steps[lo:hi + 1] if holds(s.state_dict[name], rel, kk)))
            rw = "at or below" if rel == "<=" else "at or above"
            text = rng.choice([f"On how many steps was {poss} {name} {rw} {kk}{phrase}?",
                               f"How many steps had {poss} {name} {rw} {kk}{phrase}?"])
            hand = rng.random() < 0.5
            spec = {"op": "count_steps", "test": ("cond", ("state", name), rel, kk), "win": win}
            slot = "count"
        else:
            what = rng.choice(["craft", "sow", "strike", "hurt", "milestone", "zombie raid", "region", "quarry",
                               "harvest", "arrive"])
            if what == "region":
                vals = sorted({s.location.region for s in self.steps[lo:hi + 1]})
                spec = {"op": "list", "what": ("region",), "win": win}
                text = rng.choice([f"Which regions did {subj} pass through{phrase}?",
                                   f"List the areas where {subj} stood at some step{phrase}."])
            else:
                vals = sorted({e.obj for s in self.steps[lo:hi + 1] for e in s.events if e.kind == what})
                spec = {"op": "list", "what": ("eventobj", what), "win": win}
                text = {"craft": f"Which tools did {subj} make{phrase}?",
                        "sow": f"Which plots did {subj} plant saplings in{phrase}?",
                        "strike": f"What kinds of creatures did {subj} hit{phrase}?",
                        "hurt": f"What were the causes of {poss} injuries{phrase}?",
                        "milestone": f"Which achievements did {subj} unlock{phrase}?",
                        "zombie raid": f"Which plots had a plant destroyed by a zombie{phrase}?",
                        "quarry": f"What materials did {subj} dig out of the rock{phrase}?",
                        "harvest": f"From which plots did {subj} eat ripe plants{phrase}?",
                        "arrive": f"Which areas did {subj} walk into (entering them){phrase}?"}[what]
            if not vals and rng.random() < 0.7:
                return False
            expected = ", ".join(vals) if vals else "none"
            hand = True
            slot = "list"
        return self.add(fam, slot, text, spec, expected, hand)


    # ---- anchors shared by order / distance ----------------------------------------------------
    def anchor_pick(self, v, cs, S, exclude=(), agent=None, allow_cond=True):
        """(anchor spec, phrase, step, gerund label or None)."""
        rng = self.rng
        if allow_cond and rng.random() < 0.2:
            got = self.cond_pick(rng)
            if got is not None:
                kind, cond, label, ts = got
                sv = var_value(self.steps[0], cond["var"]) if not cond.get("ranout") else 0
                cw, note = self.cond_words(kind, cond, label, (cs, "its" if cs == "it" else S[1], S[2], S[3]),
                                           rng, sv)
                return {"cond": cond, "n": 1}, f"the first time {cw}" + (f" {note}" if note else ""), ts[0], None
        pat = self.pick_pat(1, exclude=exclude, agent=agent)
        if pat is None:
            return None
        ts = self.o(pat)
        n = 1 if rng.random() < 0.6 or len(ts) < 2 else rng.choice([2, -1] if len(ts) > 2 else [-1])
        t = ts[n - 1] if n > 0 else ts[n]
        ger = None
        if PH[pat[0]]["agent"]:
            g = v.gerund(pat)
            ger = g if n == 1 else (f"{g} for the last time" if n == -1 else f"{g} for the {ordinal(n, rng)} time")
        return {"pat": pat, "n": n}, v.nth_time(pat, n, cs), t, ger

    # ---- 8. order ------------------------------------------------------------------------------
    def f8(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "8_order"
        if (k + self.tries // 60) % 2 == 0:
            a = self.anchor_pick(v, cs, S, agent=True, allow_cond=False)
            if a is None:
                return False
            b = self.anchor_pick(v, cs, S, exclude=(a[0]["pat"],), agent=True, allow_cond=False)
            if b is None or a[2] == b[2] or not a[3] or not b[3] or a[3] == b[3] or '"' in a[3] + b[3]:
                return False
            (sa, pa, ta, la), (sb, pb, tb, lb) = a, b
            if rng.random() < 0.35 and v.verbatim_ok:
                la = ev_label(sa["pat"]) if sa["n"] == 1 else la
                lb = ev_label(sb["pat"]) if sb["n"] == 1 else lb
            note = " (compare the first time each happened)" if sa["n"] == 1 and sb["n"] == 1 else ""
            text = rng.choice([f'Which happened first: "{la}" or "{lb}"?{note}',
                               f'Which came earlier for {objf}, "{la}" or "{lb}"?{note}',
                               f'What did {subj} do first - "{la}" or "{lb}"?{note}'])
            spec = {"op": "which_first", "a": sa, "b": sb, "labels": (la, lb)}
            expected = la if ta < tb else lb
            return self.add(fam, "which-first", text, spec, expected, True)
        a = self.anchor_pick(v, cs, S)
        b = self.anchor_pick(v, cs, S, exclude=(a[0].get("pat"),) if a else ())
        if a is None or b is None or a[2] == b[2]:
            return False
        (sa, pa, ta, _), (sb, pb, tb, _) = a, b
        form = rng.randrange(4)
        if form == 0:
            text = f"Did {pa} come before {pb}?"
        elif form == 1:
            text = f"Was {pa} earlier than {pb}?"
        elif form == 2:
            text = f"Did {pb} come after {pa}?"
        else:
            text = f"Is it true that {pa} preceded {pb}?"
        spec = {"op": "before", "a": sa, "b": sb}
        return self.add(fam, "yes/no", cap(text), spec, "yes" if ta < tb else "no", form == 3)

    # ---- 9. distance ---------------------------------------------------------------------------
    def f9(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "9_distance"
        mode = rng.choice(["two", "two", "after", "firstlast", "after"])
        hand = False
        if mode == "firstlast":
            pat = self.pick_pat(2)
            if pat is None:
                return False
            ts = self.o(pat)
            c = v.clause(pat, cs)
            sa, sb = {"pat": pat, "n": 1}, {"pat": pat, "n": -1}
            text = rng.choice([f"How many steps lie between the first and the last time {c}?",
                               f"From the first time {c} to the last time, how many steps passed?"])
            hand = True
            expected = str(ts[-1] - ts[0])
        elif mode == "two":
            a = self.anchor_pick(v, cs, S)
            b = self.anchor_pick(v, cs, S, exclude=(a[0].get("pat"),) if a else ())
            if a is None or b is None:
                return False
            (sa, pa, ta, _), (sb, pb, tb, _) = a, b
            text = rng.choice([f"How many steps passed between {pa} and {pb}?",
                               f"What is the distance in steps between {pa} and {pb}?",
                               f"How far apart, in steps, were {pa} and {pb}?"])
            expected = str(abs(tb - ta))
        else:
            a = self.anchor_pick(v, cs, S)
            if a is None:
                return False
            sa, pa, ta, _ = a
            pat = self.pick_pat(1, exclude=(sa.get("pat"),))
            if pat is None:
                return False
            later = [t for t in self.o(pat) if t > ta]
            if not later:
                return False
            sb = {"pat": pat, "n": 1, "win": {"after": sa}}
            c = v.clause(pat, cs)
            b = bare_clause(v, pat, cs)
            if b and rng.random() < 0.6:
                text = rng.choice([f"How long after {pa} did {b} next? Answer in steps.",
                                   f"After {pa}, how many steps went by before {c}?"])
                hand = True
            else:
                text = rng.choice([f"How many steps after {pa} was the next time {c}?",
                                   f"Counting from {pa}, how many steps until the next time {c}?"])
            expected = str(later[0] - ta)
        spec = {"op": "distance", "a": sa, "b": sb}
        return self.add(fam, "duration", cap(text), spec, expected, hand)

    # ---- 10. existence -------------------------------------------------------------------------
    def never_pats(self):
        cat = [("quarry", "diamond"), ("quarry", "iron"), ("quarry", "coal"), ("craft", "iron pickaxe"),
               ("craft", "iron sword"), ("craft", "stone sword"), ("slay", "skeleton"), ("collapse", "thirst"),
               ("collapse", "hunger"), ("collapse", "arrow"), ("hurt", "thirst"), ("hurt", "exhaustion"),
               ("hurt", "hunger"), ("wake", "startled"), ("spot intruder", "cow"), ("revive", None),
               ("collapse", None), ("milestone", "collect diamond"), ("milestone", "make iron pickaxe"),
               ("milestone", "eat plant"), ("arrive", "far fields"), ("arrive", "sand flats"), ("trampled", None),
               ("zombie raid", None), ("harvest", None), ("ripen", None)]
        for p in self.plots:
            cat += [("harvest", p), ("zombie raid", p), ("trampled", p), ("ripen", p), ("sow", p),
                    ("unbar", p + " gate"), ("shut", p + " gate")]
        return [p for p in cat if not self.o(p)]

    def f10(self, k):
        rng, T, v, S, cs = self.setup()
        subj, poss, be, objf = S
        fam = "10_existence"
        want_no = k in (1, 4)
        mode = rng.choice(["ever", "window", "after_event", "before_event", "window"])
        win, phrase = None, ""
        if mode == "ever":
            if want_no:
                cands = self.never_pats()
                if not cands:
                    return False
                pat = rng.choice(cands)
            else:
                pat = self.pick_pat(1)
        else:
            if mode == "window":
                phrase, win, lo, hi = self.win_phrase(rng)
            else:
                a = self.anchor_pick(v, cs, S, allow_cond=True)
                if a is None:
                    return False
                sa, pa, ta, _ = a
                win = {"after": sa} if mode == "after_event" else {"before": sa}
            lo, hi, _ = self.ev.window(win)
            if lo > hi:
                return False
            if want_no:
                cands = [p for p in self.pats if not [t for t in self.o(p) if lo <= t <= hi]
                         and not (p[1] is None and p[0] in SINGLE_OBJ + ("arrive", "take up chore"))]
                cands += self.never_pats()
                if not cands:
                    return False
                pat = rng.choice(cands)
            else:
                cands = [p for p in self.pats if [t for t in self.o(p) if lo <= t <= hi]
                         and not (p[1] is None and p[0] in SINGLE_OBJ + ("arrive", "take up chore"))]
                if not cands:
                    return False
                pat = rng.choice(cands)
        if pat is None:
            return False
        inside = [t for t in self.o(pat) if self.ev.window(win)[0] <= t <= self.ev.window(win)[1]]
        expected = "yes" if inside else "no"
        if expected != ("no" if want_no else "yes"):
            return False
        b = bare_clause(v, pat, cs)
        c = v.clause(pat, cs)
        hand = False
        if mode == "ever":
            if b and rng.random() < 0.7:
                text = rng.choice([f"Did {b} at any point?", f"Did {b} at all during the episode?",
                                   f"Has it ever happened that {c}?"])
            else:
                text = f"Was there ever a step on which {c}?"
        elif mode == "window":
            text = rng.choice([f"Was there any step{phrase} on which {c}?",
                               f"{cap(phrase.strip())}, did it ever happen that {c}?"])
            hand = True
        elif mode == "after_event":
            text = (f"After {pa}, did {b} at all?" if b and rng.random() < 0.6
                    else f"Once {pa} had happened, was there any later step on which {c}?")
            hand = True
        else:
            text = rng.choice([f"Before {pa}, was there any step on which {c}?",
                               f"Prior to {pa}, had it ever happened that {c}?"])
        spec = {"op": "exists", "pat": pat, "win": win}
        return self.add(fam, "yes/no", cap(text), spec, expected, hand)

    # ---- all of them ---------------------------------------------------------------------------
    def write(self):
        for i, fam in enumerate(FAMILIES):
            maker = getattr(self, f"f{i + 1}")
            made, tries = 0, 0
            while made < 6:
                tries += 1
                self.tries = tries
                if tries > 3000:
                    raise RuntimeError(f"could not write {fam} questions for seed {self.seed}")
                if maker(made):
                    made += 1
        return self.questions


# ------------------------------------------------------------------------------------------------
# The suite interface
# ------------------------------------------------------------------------------------------------


def episode_id(seed):
    return f"{SUITE}-{seed}"


def build(seed: int) -> dict:
    steps, garden = simulate(seed)
    ep = episode_id(seed)
    writer = Writer(seed, steps, ep, [name for name, cells in garden.plots])
    questions = writer.write()
    assert len(questions) == 60
    assert writer.verbatim <= 30, writer.verbatim
    assert writer.hand >= 20, writer.hand
    return {"episodes": {ep: steps}, "questions": questions}


def _self_check(seeds):
    for seed in seeds:
        t0 = time.process_time()
        a = build(seed)
        dt = time.process_time() - t0
        b = build(seed)
        assert a == b, f"seed {seed}: a second build differs"
        (ep, steps), = a["episodes"].items()
        validate_steps(steps, ep)
        assert [s.t for s in steps] == list(range(len(steps)))
        assert 300 <= len(steps) <= 1500
        qs = a["questions"]
        no = sum(1 for q in qs if q["family"] == "10_existence" and q["answer"] == "no")
        print(f"seed {seed}: {len(steps)} steps, {len(qs)} questions, build {dt:.1f} s CPU, "
              f"existence answered no: {no}/6")
        fam = collections.Counter((q["family"], q["slot"]) for q in qs)
        for (f, s), n in sorted(fam.items(), key=lambda kv: (int(kv[0][0].split("_")[0]), kv[0][1])):
            print(f"  {f:24s} {s:12s} {n}")
        kinds = collections.Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        rng = random.Random(seed)
        for q in rng.sample(qs, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold {q['gold']}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args or [SEED_RANGE[0], SEED_RANGE[1]])
