"""Crafter patrol suite: the trajectories of Sorrel, a scripted patroller, and questions about them.

The agent
---------
Sorrel lives in a real Crafter world (``crafter.Env(seed=...)``, 64x64 cells, days of 300 steps; if the start
lies on a small patch without trees enough, the env's next world for the seed is taken). It gathers
wood and sets up a crafting table near where it starts, makes a wood pickaxe and a wood sword, and then lays out
a *circuit*: 4-6 named waypoints around the table (names such as "Flint Rise" or "Heron Pool"). It walks the
circuit again and again, in the same order. On the way it gathers what lies next to its path (wood, stone,
coal, iron when it has a stone pickaxe); at each waypoint it places a stone *marker* on a fixed cell next to it,
or puts the marker back when it is gone, and it searches the grass for saplings (which it plants near the
table). It breaks off for errands:
water when thirsty, a cow or a ripe plant when hungry, materials when the next tool needs them, trips to the
table to craft (wood pickaxe, wood sword, stone pickaxe, stone sword, then a furnace, iron pickaxe, iron sword).
In daylight, with stone to spare, it builds a small stone hut near the table. At dusk (or when worn out or
badly hurt) it goes to the hut, or to a two-cell nook in rock, closes the door with a stone and sleeps; it waits
inside until daylight, then takes the door stone down. When short of stone at dusk it may pull up one of its
own markers. It fights zombies and skeletons that come next to it (and flees when very weak). When it dies it
begins a new life at the table with full vitals and an empty pack; the step counter keeps running, and the
old circuit is kept. Skeleton arrows can break the table: it then puts a new table on the same cell and keeps
its circuit, or, when that cannot be done, sets up a new table elsewhere and lays out a new circuit.

The records (one ``Step`` per step, ``t`` = 0, 1, 2, ...; values are those *after* the step)
-------------------------------------------------------------------------------------------------------
* ``action``: the Crafter action with spaces: "move left", "do", "noop", "sleep", "place stone", "place table",
  "place furnace", "place plant", "make wood pickaxe", ... ("do" hits, mines, drinks or eats what it faces).
* ``events`` (kind, object). Each kind below; the object in brackets:
  "chop wood" (tree) a tree cut down for wood; "quarry" (stone, coal, iron, diamond) mined (digging a nook to sleep in included); "forage" (sapling)
  found in the grass; "drink" (water) one sip; "eat" (cow, plant) a meal (a cow is eaten on the blow that kills it); "strike" (zombie, skeleton, cow) a
  blow that did not kill; "slay" (zombie, skeleton) a kill; "get hurt" (zombie, arrow, hardship) health went
  down, with the likely cause (hardship: hunger, thirst or fatigue); "perish" (same causes) died; "respawn"
  began a new life; "put up table" (table); "put up furnace" (furnace); "sow" (sapling) planted; "craft" (tool)
  made a tool; "chart circuit" laid out a circuit; "reach waypoint" (name) arrived at the waypoint it was
  heading for; "finish lap" arrived back at the first waypoint after visiting all the others in order;
  "set marker" (waypoint) first marker placed there; "replace marker" (waypoint) a missing marker put back;
  "borrow marker" (waypoint) its marker stone taken up for use; "raise wall" one wall or door stone placed
  (hut or shelter); "finish hut" the last hut wall placed; "seal shelter" the door stone that closes a hut or
  nook placed (solid cells all round); "bed down" fell asleep; "wake" woke up; "dismantle wall" a door or
  wall stone taken down again; "detour" (water, food, wood, stone, coal, iron, table, shelter, hut) broke off
  for an errand; "spot" (zombie, skeleton) a monster came within 4 cells (x and y steps) when none of that kind was that close
  the step before.
* ``location``: ``position`` (x, y) grid cell; ``region``: "home yard" (within 2 cells of the table), a
  waypoint's name (within 1 cell of it), "<A> - <B> leg" (within 2 cells of the straight line between two
  consecutive waypoints), "inner ground" (inside the circuit), "outer margin" (outside it, within 16 cells of
  the table), "far country" (farther), "open country" (no table or no circuit yet); ``underfoot``: the
  material stood on.
* ``inventory``: materials and tools held (sapling, wood, stone, coal, iron, diamond, wood pickaxe, stone
  pickaxe, iron pickaxe, wood sword, stone sword, iron sword); items at 0 are left out.
* ``state``: vitals ``health``, ``food``, ``hydration``, ``energy`` (0-9); ``heading`` (the waypoint it is bound
  for, or has just reached while it sees to the marker; "none" without a circuit); ``laps`` (laps completed,
  over all lives); ``life`` (1 for the first life); ``mode`` (setting up, patrolling, gathering, crafting,
  building, drinking, hunting, sheltering, sleeping, waiting for dawn, recovering, breaking camp, fighting,
  fleeing); ``markers`` (how many of the circuit's marker cells hold a stone); ``phase`` (night while
  Crafter's daylight is below 0.35, else day).
* ``relations[0]`` is (Sorrel, facing, X): the creature or material in the cell it faces; then
  (Sorrel, heading for, waypoint) and (Sorrel, standing on, material).

The questions (60 per seed, 6 in each of 10 families)
------------------------------------------------------
Step index, n-th occurrence, windowed occurrence, condition, offset, next/previous, count or list, order,
distance and existence questions, each written as a structured spec and answered by :func:`evaluate`, a plain
scan over the records. An event "happens at a step" when one of the step's events has the kind (and object);
counts and ordinals count steps. Windows: "between step A and step B", "from step N onward" and "up to step N"
include the numbered steps; "before step N" and "in the first N steps" mean t < N; "after step N" means t > N;
a window bounded by an event excludes that event's step. "The first time X dropped to k or below" is the first
step where the value is <= k while it was above k one step earlier; "the last step at which it carried at least
k" is the last step where the count is >= k. Answers follow the suite conventions (regions, "x,y", item counts,
inventories, state values, event lists, counts, "yes"/"no", labels, step distances, sorted lists or "none").
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter, deque

import crafter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout10_crafter"
SEED_RANGE = range(10100, 10200)
AGENT = "Sorrel"

# ----------------------------------------------------------------------------------------------
# The world: real Crafter, made reproducible and run without rendering frames.
# ----------------------------------------------------------------------------------------------

WALKABLE = frozenset({"grass", "sand", "path"})
DIRS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
DIR_NAME = {v: k for k, v in DIRS.items()}
ITEM_NAMES = {
    "sapling": "sapling", "wood": "wood", "stone": "stone", "coal": "coal", "iron": "iron",
    "diamond": "diamond", "wood_pickaxe": "wood pickaxe", "stone_pickaxe": "stone pickaxe",
    "iron_pickaxe": "iron pickaxe", "wood_sword": "wood sword", "stone_sword": "stone sword",
    "iron_sword": "iron sword",
}
VITALS = {"health": "health", "food": "food", "drink": "hydration", "energy": "energy"}
TOOL_ORDER = ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword", "furnace", "iron_pickaxe", "iron_sword")
WAYPOINT_NAMES = (
    "Old Stump", "Flint Rise", "Heron Pool", "Cairn Gap", "Bramble Corner", "Lookout Knoll",
    "Fox Hollow", "Mossy Bend", "Crow Rock", "Willow Ford", "Badger Bank", "Thistle Patch",
)
HOSTILE = ("zombie", "skeleton")


def _kind_of(obj) -> str:
    return type(obj).__name__.lower()


class _PatrolEnv(crafter.Env):
    """Crafter with a deterministic despawn choice and no rendering."""

    def _obs(self):  # frames are never needed
        return None

    def _balance_object(self, chunk, objs, cls, *args):
        # The engine keeps a chunk's objects in a set ordered by memory address; order them by position.
        ordered = sorted((o for o in objs if isinstance(o, cls)), key=lambda o: (int(o.pos[0]), int(o.pos[1])))
        super()._balance_object(chunk, ordered, cls, *args)

    def advance(self, action: str) -> None:
        self._step += 1
        self._update_time()
        self._player.action = action
        for obj in self._world.objects:
            if self._player.distance(obj) < 2 * max(self._view):
                obj.update()
        if self._step % 10 == 0:
            for chunk, objs in self._world.chunks.items():
                self._balance_chunk(chunk, objs)


class _Sorrel:
    """The scripted patroller. ``decide`` picks one Crafter action; ``record`` turns the result into a Step."""

    def __init__(self, env: _PatrolEnv, rng: random.Random):
        self.env = env
        self.world = env._world
        self.player = env._player
        self.rng = rng
        self.spawn = tuple(int(v) for v in self.player.pos)
        self.life = 1
        self.laps = 0
        self.table: tuple[int, int] | None = None
        self.furnace: tuple[int, int] | None = None
        self.circuit: list[dict] = []
        self.used_names: set[str] = set()
        self.marked: set[str] = set()       # waypoints that have had a marker
        self.idx = 0                        # index of the waypoint it heads for
        self.visit: str | None = None       # None, or "arrived" while it handles a waypoint
        self.visit_steps = 0
        self.lap_seen: set[int] = set()
        self.errand: str | None = None
        self.errand_steps = 0
        self.cooldown: dict[str, int] = {}
        self.shelter: dict | None = None
        self.stuck = 0
        self.sown = 0
        self.forage_tries = 0
        self.intent: dict = {}
        self.pending: list[Event] = []
        self.last_near: dict[str, bool] = {k: False for k in HOSTILE}
        self.dead = False
        self.mode = "setting up"
        self.hut: dict | None = None
        self.furnace_spot: tuple[int, int] | None = None
        self.rebuild_tries = 0

    def respawn(self) -> None:
        """A new life: full vitals, empty pack, back at the table (or where the first life began)."""
        p = self.player
        p.inventory = {name: info["initial"] for name, info in crafter.constants.items.items()}
        p._hunger = p._thirst = p._fatigue = p._recover = 0
        p.sleeping = False
        p._last_health = p.health
        p.facing = (0, 1)
        home = self.table if self.table_ok() else self.spawn
        zombies = [(int(o.pos[0]), int(o.pos[1])) for o in self.world.objects if _kind_of(o) in HOSTILE]
        best = None
        dist = {home: 0}
        frontier = deque([home])
        while frontier:
            cell = frontier.popleft()
            if dist[cell] >= 10:
                continue
            for dx, dy in DIRS.values():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt not in dist and (self.free(nxt) or nxt == self.pos):
                    dist[nxt] = dist[cell] + 1
                    frontier.append(nxt)
        reserved = self.reserved()
        for (x, y), d in sorted(dist.items()):
            if (x, y) == home or not self.free((x, y)) or (x, y) in reserved:
                continue
            gap = min([abs(x - zx) + abs(y - zy) for zx, zy in zombies] + [30])
            key = (-min(gap, 12), d, x, y)
            if best is None or key < best:
                best = key
        if best is not None:
            self.world.move(p, (best[2], best[3]))
        self.env._last_health = p.health
        self.life += 1
        self.dead = False
        self.shelter = None
        self.errand = None
        self.visit = None
        self.cooldown = {}
        self.stuck = 0
        self.lap_seen = set()

    def record(self, t: int, action: str, events: list[Event], episode: str) -> Step:
        x, y = self.pos
        facing = _describe_facing(self)
        heading = self.circuit[self.idx]["name"] if self.circuit else "none"
        nearby = sorted({_kind_of(o) for o in self.world.objects
                         if o is not self.player and abs(int(o.pos[0]) - x) + abs(int(o.pos[1]) - y) <= 4})
        daylight = float(self.world.daylight)
        markers = sum(1 for w in self.circuit if self.mat(w["marker"]) == "stone")
        inventory = {ITEM_NAMES[k]: int(self.player.inventory[k]) for k in ITEM_NAMES if self.player.inventory[k] > 0}
        state = {VITALS[k]: int(self.player.inventory[k]) for k in VITALS}
        state.update({
            "heading": heading, "laps": self.laps, "life": self.life, "mode": self.mode,
            "markers": markers, "phase": "night" if daylight < 0.35 else "day",
        })
        underfoot = self.mat(self.pos) or ""
        said = "; ".join(f"{e.kind} {e.obj}".strip() for e in events) or "nothing of note"
        text = action.replace("_", " ")
        return Step(
            t=t,
            action=text,
            summary=f"{AGENT} ({self.mode}) chose '{text}': {said}.",
            objects=tuple(dict.fromkeys([facing, *nearby])),
            events=tuple(events),
            relations=(
                Relation(AGENT, "facing", facing),
                Relation(AGENT, "heading for", heading),
                Relation(AGENT, "standing on", underfoot or "nothing"),
            ),
            inventory=inventory,
            state=state,
            location=Location(position=(x, y), region=self.region(), underfoot=underfoot),
            observation=(f"Daylight {daylight:.2f}. Facing {facing}. "
                         f"Nearby: {', '.join(nearby) if nearby else 'nothing'}. Source {episode}:{t}."),
        )

    # -- looking at the world ------------------------------------------------------------------------
    def mat(self, c) -> str | None:
        x, y = c
        if not (0 <= x < self.world.area[0] and 0 <= y < self.world.area[1]):
            return None
        return self.world._mat_names[int(self.world._mat_map[x, y])]

    def obj(self, c):
        x, y = c
        if not (0 <= x < self.world.area[0] and 0 <= y < self.world.area[1]):
            return None
        return self.world._objects[int(self.world._obj_map[x, y])]

    def free(self, c) -> bool:
        return self.mat(c) in WALKABLE and self.obj(c) is None

    @property
    def pos(self) -> tuple[int, int]:
        return int(self.player.pos[0]), int(self.player.pos[1])

    @property
    def facing_cell(self) -> tuple[int, int]:
        f = self.player.facing
        return self.pos[0] + int(f[0]), self.pos[1] + int(f[1])

    def inv(self, name: str) -> int:
        return int(self.player.inventory[name])

    def marker_cells(self) -> set:
        return {w["marker"] for w in self.circuit}

    def reserved(self) -> set:
        cells = set()
        for w in self.circuit:
            cells |= {w["pos"], w["marker"], w["approach"]}
        if self.table:
            cells.add(self.table)
        if self.furnace:
            cells.add(self.furnace)
        if self.hut:
            cells |= {self.hut["w"], self.hut["e"], self.hut["entry"], *self.hut_walls(self.hut)}
        return cells

    def near(self, kind: str, radius: int):
        """The creatures of one kind within ``radius`` (Manhattan), nearest first, ties by position."""
        px, py = self.pos
        found = []
        for o in self.world.objects:
            if _kind_of(o) == kind:
                d = abs(int(o.pos[0]) - px) + abs(int(o.pos[1]) - py)
                if d <= radius:
                    found.append((d, int(o.pos[0]), int(o.pos[1]), o))
        found.sort(key=lambda r: r[:3])
        return [r[3] for r in found]

    def bfs(self, goal, limit: int = 60, start=None):
        """Shortest walk (free walkable cells) from ``start`` to a cell with ``goal(cell)``; the path or None."""
        start = start or self.pos
        if goal(start):
            return [start]
        prev = {start: None}
        frontier = deque([(start, 0)])
        while frontier:
            cell, d = frontier.popleft()
            if d >= limit:
                continue
            for dx, dy in DIRS.values():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt in prev or not self.free(nxt):
                    continue
                prev[nxt] = cell
                if goal(nxt):
                    path = [nxt]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1]
                frontier.append((nxt, d + 1))
        return None

    def step_along(self, path) -> str | None:
        if not path or len(path) < 2:
            return None
        nxt = path[1]
        return "move_" + DIR_NAME[(nxt[0] - path[0][0], nxt[1] - path[0][1])]

    def go_to(self, target, limit: int = 60) -> str | None:
        return self.step_along(self.bfs(lambda c: c == target, limit))

    def go_next_to(self, pred, limit: int = 60):
        """A move toward a cell from which a neighbour satisfies ``pred``; (action, neighbour) when already there."""
        def goal(c):
            return any(pred((c[0] + dx, c[1] + dy)) for dx, dy in DIRS.values())
        path = self.bfs(goal, limit)
        if path is None:
            return None, None
        if len(path) == 1:
            for dx, dy in sorted(DIRS.values()):
                cell = (self.pos[0] + dx, self.pos[1] + dy)
                if pred(cell):
                    return None, cell
        return self.step_along(path), None

    def act_on_blocked(self, cell, action: str) -> str:
        """Face a neighbouring cell that cannot be walked into (turning costs a step) and act on it."""
        if self.facing_cell == cell:
            return action
        return "move_" + DIR_NAME[(cell[0] - self.pos[0], cell[1] - self.pos[1])]

    def face_free(self, cell, stand_ok=lambda s: True) -> str | None:
        """Get to face a free walkable ``cell`` (which a move would enter): reach a stand cell next to it by
        stepping in from the far side. Returns the next move, "" when already facing it, None if impossible."""
        options = []
        for dx, dy in DIRS.values():
            s = (cell[0] - dx, cell[1] - dy)           # stand here, facing (dx, dy)
            q = (s[0] - dx, s[1] - dy)                 # and step in from here
            if stand_ok(s) and (self.free(s) or s == self.pos) and (self.free(q) or q == self.pos):
                options.append((s, q, (dx, dy)))
        for s, _q, d in options:
            if self.pos == s and tuple(int(v) for v in self.player.facing) == d:
                return ""
        for s, q, d in options:
            if self.pos == q:
                return "move_" + DIR_NAME[d]
        targets = {q for _s, q, _d in options}
        if not targets:
            return None
        return self.step_along(self.bfs(lambda c: c in targets, 40))

    # -- decisions -----------------------------------------------------------------------------------
    def decide(self) -> str:
        self.intent = {}
        p = self.player
        if p.sleeping:
            self.mode = "sleeping"
            return "sleep"
        for name in list(self.cooldown):
            self.cooldown[name] -= 1
            if self.cooldown[name] <= 0:
                del self.cooldown[name]
        action = self._camp()
        if action:
            return action
        action = self._fight()
        if action:
            return action
        for step in (self._shelter, self._water, self._food, self._setup, self._craft, self._build_hut,
                     self._gather_for_tools, self._sow, self._patrol):
            action = step()
            if action:
                return action
        self.mode = "patrolling"
        return self._wander()

    def _begin(self, errand: str) -> None:
        if self.errand != errand:
            self.errand = errand
            self.errand_steps = 0
            self.pending.append(Event("detour", errand))
        self.errand_steps += 1

    def _end(self, errand: str, cool: int = 0) -> None:
        if self.errand == errand:
            self.errand = None
        if cool:
            self.cooldown[errand] = cool

    def _wander(self) -> str:
        moves = [m for m, (dx, dy) in sorted(DIRS.items()) if self.free((self.pos[0] + dx, self.pos[1] + dy))]
        return "move_" + self.rng.choice(moves) if moves else "noop"

    def _camp(self) -> str | None:
        sh = self.shelter
        if not sh or not sh.get("sealed"):
            return None
        if not sh.get("slept") and self.inv("energy") < 9 and not self.player.sleeping:
            self.mode = "sheltering"
            return "sleep"
        urgent = self.inv("drink") <= 2 or self.inv("food") <= 2
        if self.env._world.daylight < 0.3 and not urgent:
            self.mode = "waiting for dawn"
            return "noop"
        if self.inv("health") < 7 and not urgent:
            if self.inv("energy") < 9:
                sh["slept"] = False
                self.mode = "sheltering"
                return "sleep"
            self.mode = "recovering"
            return "noop"
        self.mode = "breaking camp"
        walls = [(w, s) for w, s in sh["walls"] if self.mat(w) == "stone"]
        if not walls or self.inv("wood_pickaxe") == 0:
            self.shelter = None
            self._end("shelter")
            return None
        wall, stand = walls[-1]
        if self.pos == stand:
            self.intent = {"dismantle": wall}
            return self.act_on_blocked(wall, "do")
        move = self.go_to(stand, 4)
        if move is None:
            self.shelter = None
            self._end("shelter")
        return move

    def _fight(self) -> str | None:
        armed = self.inv("wood_sword") or self.inv("stone_sword") or self.inv("iron_sword")
        if self.inv("health") <= 3 and not (self.shelter and self.shelter.get("sealed")):
            threats = [(int(o.pos[0]), int(o.pos[1])) for o in self.near("zombie", 3)]
            if threats and not (armed and self.near("zombie", 1)):
                best = None
                for name, (dx, dy) in sorted(DIRS.items()):
                    c = (self.pos[0] + dx, self.pos[1] + dy)
                    if self.free(c):
                        gap = min(abs(c[0] - zx) + abs(c[1] - zy) for zx, zy in threats)
                        if best is None or gap > best[0]:
                            best = (gap, name)
                if best is not None and best[0] >= 2:
                    self.mode = "fleeing"
                    return "move_" + best[1]
        for kind in HOSTILE:
            for o in self.near(kind, 1):
                cell = (int(o.pos[0]), int(o.pos[1]))
                self.mode = "fighting"
                return self.act_on_blocked(cell, "do")
        return None

    def night_coming(self) -> bool:
        return 150 <= self.env._step % 300 <= 250

    def _shelter(self) -> str | None:
        p = self.player
        sh = self.shelter
        energy = self.inv("energy")
        if sh is None:
            if "shelter" in self.cooldown:
                return None
            if not ((self.night_coming() and energy <= 7) or energy <= 2 or self.inv("health") <= 4):
                return None
            hut = self.hut if self.hut and self.hut.get("built") else None
            if hut and self.inv("stone") < 1 and self.inv("wood_pickaxe") and "borrow" not in self.cooldown:
                standing = {w["marker"] for w in self.circuit if self.mat(w["marker"]) == "stone"}
                if standing:
                    move, cell = self.go_next_to(lambda c: c in standing, 18)
                    if cell is not None or move is not None:
                        self._begin("shelter")
                        self.mode = "sheltering"
                        return self.act_on_blocked(cell, "do") if cell is not None else move
                self.cooldown["borrow"] = 40
            if hut and self.inv("stone") >= 1 and self.hut_intact() and self.bfs(lambda c: c == hut["entry"], 45):
                self.shelter = {"entry": hut["entry"], "w": hut["w"], "e": hut["e"], "d": hut["d"], "walls": [],
                                "hut": True}
                sh = self.shelter
            if sh is None:
                sh = self.find_pocket()
            if sh is None:
                self.cooldown["shelter"] = 12
                if energy <= 1:
                    self.mode = "sleeping"
                    return "sleep"
                return None
            self.shelter = sh
        self._begin("shelter")
        self.mode = "sheltering"
        if self.errand_steps > 80:
            self.shelter = None
            self._end("shelter", 20)
            return None
        entry, w, e, d = sh["entry"], sh["w"], sh["e"], sh["d"]
        back = (-d[0], -d[1])
        far = (e[0] + d[0], e[1] + d[1])
        pos = self.pos
        if pos not in (entry, w, e):
            step = self.go_to(entry, 40)
            if step is None:
                self.shelter = None
                self._end("shelter", 12)
                return None
            return step
        if pos == entry:
            if self.mat(w) == "stone":
                self.intent = {"dig": w}
                return self.act_on_blocked(w, "do")
            if self.free(w):
                return "move_" + DIR_NAME[d]
            self.shelter = None
            self._end("shelter", 12)
            return None
        if pos == w and not sh.get("inner_done"):
            if self.mat(e) == "stone":
                self.intent = {"dig": e}
                return self.act_on_blocked(e, "do")
            if self.free(e):
                return "move_" + DIR_NAME[d]
            self.shelter = None
            self._end("shelter", 12)
            return None
        if pos == e:
            sh["inner_done"] = True
            if self.mat(far) in WALKABLE:
                if self.obj(far) is not None:
                    return self.act_on_blocked(far, "do")
                if self.inv("stone") < 2:
                    self.shelter = None
                    self._end("shelter", 12)
                    return None
                if far not in [c for c, _s in sh["walls"]]:
                    sh["walls"].append((far, e))
                self.intent = {"wall": far}
                return self.act_on_blocked(far, "place_stone")
            return "move_" + DIR_NAME[back]
        if pos == w:
            if self.mat(far) in WALKABLE:
                return "move_" + DIR_NAME[d]
            if self.mat(entry) == "stone":
                return "sleep"
            if self.obj(entry) is not None:
                return self.act_on_blocked(entry, "do")
            if self.inv("stone") < 1:
                self.shelter = None
                self._end("shelter", 12)
                return None
            if tuple(int(v) for v in p.facing) != back:
                return "move_" + DIR_NAME[d]   # step to the far cell and come back facing the entry
            if entry not in [c for c, _s in sh["walls"]]:
                sh["walls"].append((entry, w))
            self.intent = {"wall": entry, "seal": True}
            return "place_stone"
        return None

    def hut_walls(self, hut: dict) -> list:
        w, e, d = hut["w"], hut["e"], hut["d"]
        perp = ((d[1], d[0]), (-d[1], -d[0]))
        sides = [(c[0] + q[0], c[1] + q[1]) for c in (w, e) for q in perp]
        return sides + [(e[0] + d[0], e[1] + d[1])]

    def hut_intact(self) -> bool:
        return all(self.mat(c) not in WALKABLE and self.mat(c) != "lava" for c in self.hut_walls(self.hut))

    def choose_hut(self) -> dict | None:
        """A two-cell hut site near the table: a door cell, two floor cells, walls to raise where needed."""
        tx, ty = self.table
        reserved = self.reserved()
        best = None
        for d in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            for x in range(tx - 5, tx + 6):
                for y in range(ty - 5, ty + 6):
                    w = (x, y)
                    e = (x + d[0], y + d[1])
                    door = (x - d[0], y - d[1])
                    if max(abs(x - tx), abs(y - ty)) < 2:
                        continue
                    if any(c in reserved or not self.free(c) for c in (w, e, door)):
                        continue
                    hut = {"w": w, "e": e, "d": d, "entry": door}
                    walls = self.hut_walls(hut)
                    if any(c in reserved or self.mat(c) in (None, "lava") or self.obj(c) is not None for c in walls):
                        continue
                    if any(self.mat((c[0] + dx, c[1] + dy)) == "lava" for c in (w, e) for dx, dy in DIRS.values()):
                        continue
                    cost = sum(1 for c in walls if self.mat(c) in WALKABLE)
                    score = (cost, abs(x - tx) + abs(y - ty), x, y, d)
                    if best is None or score < best[0]:
                        best = (score, hut)
        return None if best is None else best[1]

    def _build_hut(self) -> str | None:
        """In daylight, with stone to spare, raise a small stone hut near the table to sleep in."""
        if not self.table_ok() or not self.inv("wood_pickaxe") or "hut" in self.cooldown:
            return None
        if self.hut and self.hut.get("built") and self.hut_intact():
            return None
        if self.errand != "hut" and (self.env._step % 300 >= 130 or self.bfs(lambda c: c == self.hut_site_entry(), 20) is None):
            return None
        if self.hut is None or (self.errand != "hut" and not self.site_ok(self.hut)):
            self.hut = self.choose_hut()
            if self.hut is None:
                self.cooldown["hut"] = 150
                return None
        todo = [c for c in self.hut_walls(self.hut) if self.mat(c) in WALKABLE]
        if not todo:
            self.hut["built"] = True
            self._end("hut")
            return None
        if self.errand != "hut" and self.inv("stone") < len(todo) + 1:
            return None
        if self.inv("stone") < 1:
            self._end("hut", 60)
            return None
        self._begin("hut")
        self.mode = "building"
        if self.errand_steps > 70:
            self._end("hut", 100)
            self.hut = None
            return None
        for c in todo:
            if self.obj(c) is not None:
                continue
            move = self.face_free(c, lambda st: st not in todo)
            if move == "":
                self.intent = {"wall": c, "hut": len(todo) == 1}
                return "place_stone"
            if move:
                return move
        self._end("hut", 30)
        return None

    def hut_site_entry(self):
        if self.hut is None:
            self.hut = self.choose_hut()
        return self.hut["entry"] if self.hut else None

    def site_ok(self, hut: dict) -> bool:
        return all(self.free(c) or c == self.pos for c in (hut["w"], hut["e"], hut["entry"]))

    def find_pocket(self) -> dict | None:
        """A two-cell nook (walkable or diggable cells flanked by solid ground) it can close with one stone."""
        pick = self.inv("wood_pickaxe") > 0
        if not pick:
            return None
        stone = self.inv("stone")
        reserved = self.reserved()

        def solid(c):
            m = self.mat(c)
            return m is not None and m not in WALKABLE and m != "lava"

        def enterable(c):
            if c in reserved:
                return False
            return self.free(c) or (pick and self.mat(c) == "stone")

        best = None
        prev = {self.pos: None}
        frontier = deque([(self.pos, 0)])
        while frontier:
            cell, dist = frontier.popleft()
            for d in sorted(DIRS.values()):
                w = (cell[0] + d[0], cell[1] + d[1])
                e = (w[0] + d[0], w[1] + d[1])
                far = (e[0] + d[0], e[1] + d[1])
                if cell in reserved or not (enterable(w) and enterable(e)):
                    continue
                perp = ((d[1], d[0]), (-d[1], -d[0]))
                if not all(solid((c[0] + q[0], c[1] + q[1])) for c in (w, e) for q in perp):
                    continue
                mf = self.mat(far)
                if mf is None or mf == "lava":
                    continue
                need = 1 + (mf in WALKABLE)
                have = stone + (self.mat(w) == "stone") + (self.mat(e) == "stone")
                if have < need or (mf in WALKABLE and self.obj(far) is not None):
                    continue
                if any(self.mat((c[0] + dx, c[1] + dy)) == "lava" for c in (w, e) for dx, dy in DIRS.values()):
                    continue
                best = {"entry": cell, "w": w, "e": e, "d": d, "walls": [], "inner": e}
                break
            if best or dist >= 30:
                break
            for dx, dy in DIRS.values():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt not in prev and self.free(nxt):
                    prev[nxt] = cell
                    frontier.append((nxt, dist + 1))
            if best:
                break
        if best:
            best["inner"] = best["e"]
        return best

    def _water(self) -> str | None:
        level = self.inv("drink")
        if not (level <= 4 or (self.errand == "water" and level < 9)) or "water" in self.cooldown:
            return None
        self._begin("water")
        self.mode = "drinking"
        if self.errand_steps > 70:
            self._end("water", 30)
            return None
        move, cell = self.go_next_to(lambda c: self.mat(c) == "water", 45)
        if cell is not None:
            return self.act_on_blocked(cell, "do")
        if move is None:
            self._end("water", 30)
        return move

    def _food(self) -> str | None:
        level = self.inv("food")
        if not (level <= 4 or (self.errand == "food" and level <= 6)) or "food" in self.cooldown:
            if self.errand == "food":
                self._end("food")
            return None
        self._begin("food")
        self.mode = "hunting"
        if self.errand_steps > 90:
            self._end("food", 40)
            return None
        plants = [o for o in self.near("plant", 18) if o.ripe]
        targets = plants or self.near("cow", 30)
        if not targets:
            self._end("food", 25)
            return None
        goal = {(int(o.pos[0]), int(o.pos[1])) for o in targets[:3]}
        move, cell = self.go_next_to(lambda c: c in goal, 40)
        if cell is not None:
            return self.act_on_blocked(cell, "do")
        if move is None:
            self._end("food", 25)
        return move

    def table_ok(self) -> bool:
        return self.table is not None and self.mat(self.table) == "table"

    def _setup(self) -> str | None:
        if self.table_ok():
            if not self.circuit:
                self.chart()
            if self.inv("wood_pickaxe") and self.inv("wood_sword"):
                return None
            if self.inv("wood") >= 1:
                return None        # the crafting trip takes over
            self.mode = "setting up"
            move, cell = self.go_next_to(lambda c: self.mat(c) == "tree", 40)
            if cell is not None:
                return self.act_on_blocked(cell, "do")
            return move
        self.mode = "setting up"
        if self.table is not None and self.circuit and self.rebuild_tries < 60:
            # the table is gone (arrows break tables): put a new one on the same cell and keep the circuit
            self.rebuild_tries += 1
            if self.inv("wood") >= 2 and self.free(self.table):
                move = self.face_free(self.table)
                if move == "":
                    self.intent = {"table": self.table}
                    return "place_table"
                if move:
                    return move
            elif self.inv("wood") < 2:
                move, cell = self.go_next_to(lambda c: self.mat(c) == "tree", 40)
                if cell is not None:
                    return self.act_on_blocked(cell, "do")
                if move:
                    return move
        if self.table is not None:         # no table to be had there: a new base, a new circuit
            self.table = None
            self.furnace = None
            self.circuit = []
        if self.inv("wood") >= 5:
            cell = self.facing_cell
            if self.free(cell) and self.mat(cell) in ("grass", "sand", "path"):
                self.intent = {"table": cell}
                return "place_table"
            moves = [m for m, (dx, dy) in sorted(DIRS.items()) if self.free((self.pos[0] + dx, self.pos[1] + dy))]
            return "move_" + moves[0] if moves else "noop"
        move, cell = self.go_next_to(lambda c: self.mat(c) == "tree", 60)
        if cell is not None:
            return self.act_on_blocked(cell, "do")
        return move or self._wander()

    def next_tool(self) -> str | None:
        for tool in TOOL_ORDER:
            if tool == "furnace":
                if not (self.hut and self.hut.get("built")):
                    return None
                if self.furnace is None or self.mat(self.furnace) != "furnace":
                    return tool
            elif self.inv(tool) == 0:
                return tool
        return None

    def can_make(self, tool: str) -> bool:
        if tool == "furnace":
            return self.inv("stone") >= 5
        uses = crafter.constants.make[tool]["uses"]
        if "furnace" in crafter.constants.make[tool]["nearby"] and (self.furnace is None or self.mat(self.furnace) != "furnace"):
            return False
        return all(self.inv(k) >= v for k, v in uses.items())

    def _craft(self) -> str | None:
        if not self.table_ok():
            return None
        tool = self.next_tool()
        if tool is None or not self.can_make(tool) or "table" in self.cooldown:
            if self.errand == "table":
                self._end("table")
            return None
        self._begin("table")
        self.mode = "crafting"
        if self.errand_steps > 60:
            self._end("table", 60)
            return None
        tx, ty = self.table

        def by_table(c):
            return max(abs(c[0] - tx), abs(c[1] - ty)) <= 1
        if tool == "furnace":
            reserved = self.reserved()
            if self.bfs(by_table, 25) is None:
                self._end("table", 60)
                return None
            spot = self.furnace_spot
            if spot is None or not self.free(spot) or spot in reserved:
                cands = []
                for dx in range(-2, 3):
                    for dy in range(-2, 3):
                        c = (tx + dx, ty + dy)
                        if c not in reserved and self.free(c) and max(abs(dx), abs(dy)) >= 1 \
                                and self.face_free(c, by_table) is not None:
                            cands.append((abs(c[0] - self.pos[0]) + abs(c[1] - self.pos[1]), c))
                if not cands:
                    self._end("table", 60)
                    return None
                spot = self.furnace_spot = min(cands)[1]
            move = self.face_free(spot, by_table)
            if move == "":
                self.intent = {"furnace": spot}
                self.furnace_spot = None
                return "place_furnace"
            if move:
                return move
            self.furnace_spot = None
            return None
        if "furnace" in crafter.constants.make[tool]["nearby"]:
            fx, fy = self.furnace

            def good(c):
                return by_table(c) and max(abs(c[0] - fx), abs(c[1] - fy)) <= 1
        else:
            good = by_table
        if good(self.pos):
            return "make_" + tool
        move = self.step_along(self.bfs(good, 25))
        if move is None:
            self._end("table", 60)
        return move

    def needs(self) -> dict:
        """What it wants to carry for the next tool, the hut and missing markers."""
        tool = self.next_tool()
        needs: dict[str, int] = {}
        if tool and self.table_ok():
            uses = {"stone": 5} if tool == "furnace" else crafter.constants.make[tool]["uses"]
            for k, v in uses.items():
                needs[k] = v
            if tool in ("stone_pickaxe", "wood_pickaxe"):
                needs["wood"] = 2
                if tool == "stone_pickaxe":
                    needs["stone"] = 2
        if self.inv("wood_pickaxe") and self.table_ok() and not (self.hut and self.hut.get("built")):
            needs["stone"] = max(needs.get("stone", 0), 6)
        if self.circuit and self.inv("wood_pickaxe"):
            missing = sum(1 for w in self.circuit if self.mat(w["marker"]) != "stone")
            needs["stone"] = max(needs.get("stone", 0), min(missing, 3) + 1)
        return needs

    def _gather_for_tools(self) -> str | None:
        """Fetch what it needs when it lies close by."""
        needs = self.needs()
        want = None
        if self.errand in ("wood", "stone", "coal", "iron") and self.inv(self.errand) < needs.get(self.errand, 1):
            want = self.errand
        elif self.errand in ("wood", "stone", "coal", "iron"):
            self._end(self.errand)
        if want is None and self.env._step % 300 < 150:
            for item in ("wood", "stone", "coal", "iron"):
                if self.inv(item) < needs.get(item, 0) and item not in self.cooldown:
                    if item in ("stone", "coal") and not self.inv("wood_pickaxe"):
                        continue
                    if item == "iron" and not self.inv("stone_pickaxe"):
                        continue
                    want = item
                    break
        if want is None:
            return None
        material = "tree" if want == "wood" else want
        self._begin(want)
        self.mode = "gathering"
        if self.errand_steps > 45 or self.near("skeleton", 7):
            self._end(want, 80)
            return None
        reserved = self.reserved()
        move, cell = self.go_next_to(lambda c: self.mat(c) == material and c not in reserved, 10 if want != "wood" else 14)
        if cell is not None:
            return self.act_on_blocked(cell, "do")
        if move is None:
            self._end(want, 80)
        return move

    def _sow(self) -> str | None:
        if self.inv("sapling") < 1 or not self.table_ok() or self.sown >= 4:
            return None
        tx, ty = self.table
        cell = self.facing_cell
        if max(abs(self.pos[0] - tx), abs(self.pos[1] - ty)) <= 4 and self.mat(cell) == "grass" \
                and self.obj(cell) is None and cell not in self.reserved():
            self.sown += 1
            self.mode = "patrolling"
            return "place_plant"
        return None

    def pick_up_on_the_way(self) -> str | None:
        wants = []
        if self.inv("wood") < 5:
            wants.append("tree")
        if self.inv("wood_pickaxe"):
            if self.inv("stone") < 7:
                wants.append("stone")
            if self.inv("coal") < 2:
                wants.append("coal")
        if self.inv("stone_pickaxe") and self.inv("iron") < 2:
            wants.append("iron")
        if self.inv("iron_pickaxe"):
            wants.append("diamond")
        reserved = self.reserved()
        for dx, dy in sorted(DIRS.values()):
            cell = (self.pos[0] + dx, self.pos[1] + dy)
            if self.mat(cell) in wants and cell not in reserved:
                return self.act_on_blocked(cell, "do")
        return None

    def chart(self) -> None:
        """Lay out a circuit of 4-6 named waypoints around the table."""
        tx, ty = self.table
        self.hut = None
        reach = {}
        frontier = deque([(self.pos, 0)])
        reach[self.pos] = 0
        while frontier:
            cell, d = frontier.popleft()
            if d >= 40:
                continue
            for dx, dy in DIRS.values():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt not in reach and self.mat(nxt) in WALKABLE:
                    reach[nxt] = d + 1
                    frontier.append((nxt, d + 1))

        def config(c):
            for dx, dy in sorted(DIRS.values()):
                m = (c[0] + dx, c[1] + dy)
                q = (c[0] - dx, c[1] - dy)
                if self.mat(m) in ("grass", "sand") and self.mat(q) in WALKABLE and m != self.table and q != self.table:
                    return m, q
            return None

        n = self.rng.choice((4, 5, 5, 6))
        base = self.rng.uniform(0, 2 * math.pi)
        radius = self.rng.uniform(4.0, 6.5)
        chosen: list[dict] = []
        taken: set = {self.table}
        for lo, hi in ((3, 8), (3, 12)):
            chosen, taken = [], {self.table}
            for k in range(n):
                ang = base + 2 * math.pi * k / n
                ideal = (tx + radius * math.cos(ang), ty + radius * math.sin(ang))
                best = None
                for c in sorted(reach):
                    cheb = max(abs(c[0] - tx), abs(c[1] - ty))
                    if not lo <= cheb <= hi or c in taken:
                        continue
                    if any(abs(c[0] - w["pos"][0]) + abs(c[1] - w["pos"][1]) < 4 for w in chosen):
                        continue
                    cfg = config(c)
                    if cfg is None or cfg[0] in taken or cfg[1] in taken:
                        continue
                    score = (c[0] - ideal[0]) ** 2 + (c[1] - ideal[1]) ** 2
                    if best is None or score < best[0]:
                        best = (score, c, cfg)
                if best is not None:
                    _s, c, (m, q) = best
                    chosen.append({"pos": c, "marker": m, "approach": q})
                    taken |= {c, m, q}
            if len(chosen) >= 4:
                break
        names = [x for x in WAYPOINT_NAMES if x not in self.used_names]
        self.rng.shuffle(names)
        spare = [x for x in WAYPOINT_NAMES if x in self.used_names]
        self.rng.shuffle(spare)
        names += spare
        for w, name in zip(chosen, names):
            w["name"] = name
            self.used_names.add(name)
            self.marked.discard(name)
        self.circuit = chosen
        self.idx = 0
        self.visit = None
        self.lap_seen = set()
        self.pending.append(Event("chart circuit"))

    def _patrol(self) -> str | None:
        if not self.circuit:
            return None
        self.mode = "patrolling"
        wp = self.circuit[self.idx]
        if self.visit == "arrived":
            self.visit_steps += 1
            m = wp["marker"]
            if self.mat(m) != "stone" and self.inv("stone") >= 1 and self.visit_steps < 8 and self.obj(m) is None \
                    and self.mat(m) in WALKABLE:
                move = self.face_free(m, lambda s: s == wp["pos"])
                if move == "":
                    self.intent = {"marker": wp["name"]}
                    return "place_stone"
                if move:
                    return move
            if self.pos == wp["pos"] and self.inv("sapling") == 0 and self.forage_tries < 2 \
                    and self.mat(self.facing_cell) == "grass" and self.obj(self.facing_cell) is None:
                self.forage_tries += 1
                return "do"
            self.visit = None
            self.idx = (self.idx + 1) % len(self.circuit)
            wp = self.circuit[self.idx]
            self.stuck = 0
        grab = self.pick_up_on_the_way()
        if grab:
            return grab
        path = self.bfs(lambda c: c == wp["pos"], 60)
        if path is None:
            self.stuck += 1
            if self.stuck > 12:
                self.stuck = 0
                self.idx = (self.idx + 1) % len(self.circuit)
            return self._wander()
        return self.step_along(path)

    # -- after the step ------------------------------------------------------------------------------
    def arrive(self) -> list[Event]:
        events = []
        if not self.circuit or self.visit == "arrived":
            return events
        wp = self.circuit[self.idx]
        if self.pos == wp["pos"]:
            events.append(Event("reach waypoint", wp["name"]))
            self.visit = "arrived"
            self.visit_steps = 0
            self.forage_tries = 0
            if self.idx == 0 and len(self.lap_seen) == len(self.circuit) - 1:
                self.laps += 1
                events.append(Event("finish lap"))
                self.lap_seen = set()
            elif self.idx == 0:
                self.lap_seen = set()
            else:
                self.lap_seen.add(self.idx)
        return events

    def region(self) -> str:
        x, y = self.pos
        if self.table is None:
            return "open country"
        tx, ty = self.table
        if max(abs(x - tx), abs(y - ty)) <= 2:
            return "home yard"
        if not self.circuit:
            return "open country"
        for w in self.circuit:
            if max(abs(x - w["pos"][0]), abs(y - w["pos"][1])) <= 1:
                return w["name"]
        best = None
        n = len(self.circuit)
        for i in range(n):
            a, b = self.circuit[i]["pos"], self.circuit[(i + 1) % n]["pos"]
            d = _seg_dist((x, y), a, b)
            if d <= 2.0 and (best is None or d < best[0]):
                best = (d, f"{self.circuit[i]['name']} - {self.circuit[(i + 1) % n]['name']} leg")
        if best:
            return best[1]
        poly = [w["pos"] for w in self.circuit]
        if _inside((x, y), poly):
            return "inner ground"
        return "outer margin" if max(abs(x - tx), abs(y - ty)) <= 16 else "far country"


def _seg_dist(p, a, b) -> float:
    ax, ay = a
    bx, by = b
    px, py = p
    vx, vy = bx - ax, by - ay
    length = vx * vx + vy * vy
    u = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * vx + (py - ay) * vy) / length))
    cx, cy = ax + u * vx, ay + u * vy
    return math.hypot(px - cx, py - cy)


def _inside(p, poly) -> bool:
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xc:
                inside = not inside
    return inside


def _cause(agent: _Sorrel, before_near: dict) -> str:
    if before_near["zombie"] or agent.near("zombie", 1):
        return "zombie"
    if before_near["arrow"] or agent.near("skeleton", 6):
        return "arrow"
    return "hardship"


def _describe_facing(agent: _Sorrel) -> str:
    cell = agent.facing_cell
    o = agent.obj(cell)
    if o is not None:
        return _kind_of(o)
    return agent.mat(cell) or "world edge"


def _start_ok(env: _PatrolEnv) -> bool:
    """Whether the walkable area around the start is large and has trees enough for a base."""
    world = env._world
    start = (int(env._player.pos[0]), int(env._player.pos[1]))

    def mat(c):
        if not (0 <= c[0] < world.area[0] and 0 <= c[1] < world.area[1]):
            return None
        return world._mat_names[int(world._mat_map[c[0], c[1]])]
    seen = {start}
    frontier = deque([start])
    trees = set()
    while frontier:
        cell = frontier.popleft()
        for dx, dy in DIRS.values():
            nxt = (cell[0] + dx, cell[1] + dy)
            m = mat(nxt)
            if m == "tree":
                trees.add(nxt)
            elif m in WALKABLE and nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return len(seen) >= 400 and len(trees) >= 12


def _run(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 17)
    env = _PatrolEnv(seed=seed, length=0)
    for _attempt in range(12):     # a start on a tiny island without trees cannot be played: next world
        env.reset()
        if _start_ok(env):
            break
    agent = _Sorrel(env, rng)
    player = env._player
    n_steps = rng.randint(820, 1320)
    episode = _episode_id(seed)
    steps: list[Step] = []
    for t in range(n_steps):
        events: list[Event] = []
        if agent.dead:
            agent.respawn()
            events.append(Event("respawn"))
        ach0 = dict(player.achievements)
        inv0 = dict(player.inventory)
        sleeping0 = player.sleeping
        target = agent.facing_cell
        target_obj = agent.obj(target)
        near0 = {"zombie": bool(agent.near("zombie", 2)), "arrow": bool(agent.near("arrow", 3))}
        agent.pending = []
        action = agent.decide()
        intent = agent.intent
        if action in ("do",) or action.startswith("place_"):
            target = agent.facing_cell
            target_obj = agent.obj(target)
        env.advance(action)
        events.extend(agent.pending)
        gained = {k: player.achievements[k] - ach0[k] for k in ach0 if player.achievements[k] > ach0[k]}
        if gained.get("collect_wood"):
            events.append(Event("chop wood", "tree"))
        for m in ("stone", "coal", "iron", "diamond"):
            if gained.get(f"collect_{m}"):
                owner = next((w["name"] for w in agent.circuit if w["marker"] == target), None)
                if intent.get("dismantle") == target:
                    events.append(Event("dismantle wall"))
                elif owner is not None:
                    events.append(Event("borrow marker", owner))
                    agent.cooldown["borrow"] = 200
                else:
                    events.append(Event("quarry", m))
        if gained.get("collect_drink"):
            events.append(Event("drink", "water"))
        if gained.get("collect_sapling"):
            events.append(Event("forage", "sapling"))
        if gained.get("eat_cow"):
            events.append(Event("eat", "cow"))
        if gained.get("eat_plant"):
            events.append(Event("eat", "plant"))
        for kind in HOSTILE:
            if gained.get(f"defeat_{kind}"):
                events.append(Event("slay", kind))
        if action == "do" and target_obj is not None and _kind_of(target_obj) in ("zombie", "skeleton", "cow") \
                and not any(k in gained for k in ("defeat_zombie", "defeat_skeleton", "eat_cow")):
            events.append(Event("strike", _kind_of(target_obj)))
        if gained.get("place_table"):
            agent.table = target
            agent.rebuild_tries = 0
            events.append(Event("put up table", "table"))
        if gained.get("place_furnace"):
            agent.furnace = target
            events.append(Event("put up furnace", "furnace"))
        if gained.get("place_plant"):
            events.append(Event("sow", "sapling"))
        if gained.get("place_stone"):
            if "marker" in intent:
                name = intent["marker"]
                events.append(Event("replace marker" if name in agent.marked else "set marker", name))
                agent.marked.add(name)
            elif "wall" in intent:
                events.append(Event("raise wall"))
                if intent.get("hut") and agent.hut is not None:
                    agent.hut["built"] = True
                    agent._end("hut")
                    events.append(Event("finish hut"))
                if intent.get("seal") and agent.shelter is not None:
                    agent.shelter["sealed"] = True
                    events.append(Event("seal shelter"))
        for tool in TOOL_ORDER:
            if gained.get(f"make_{tool}"):
                events.append(Event("craft", ITEM_NAMES[tool]))
        if player.sleeping and not sleeping0:
            events.append(Event("bed down"))
            if agent.shelter is not None and agent.shelter.get("sealed"):
                agent.shelter["slept"] = True
        if sleeping0 and not player.sleeping:
            events.append(Event("wake"))
            if agent.shelter is not None:
                agent.shelter["slept"] = True
        if player.health < inv0["health"]:
            events.append(Event("get hurt", _cause(agent, near0), inv0["health"] - player.health))
        if player.health <= 0:
            events.append(Event("perish", _cause(agent, near0)))
            agent.dead = True
        events.extend(agent.arrive())
        for kind in HOSTILE:
            close = bool(agent.near(kind, 4))
            if close and not agent.last_near[kind]:
                events.append(Event("spot", kind))
            agent.last_near[kind] = close
        steps.append(agent.record(t, action, events, episode))
    return steps


def _episode_id(seed: int) -> str:
    return f"crafter-patrol-{seed}"


# ----------------------------------------------------------------------------------------------
# The reference evaluator: structured specs answered by a plain scan over the Step records.
# ----------------------------------------------------------------------------------------------
#
# Anchor  {"a": "step", "t": N}
#         {"a": "occ", "pat": P, "n": 1 | 2 | 3 | -1 | -2, "win": W | None}      n-th / last occurrence
#         {"a": "cond", "cond": C, "which": "first" | "last", "mode": "onset" | "holds", "win": W | None}
#         {"a": "off", "base": Anchor, "k": +-int}                                 k steps after / before
# Pattern {"kind": str, "obj": str | None}     a step matches when one of its events has that kind (and object)
# Cond    {"src": "state" | "item", "key": str, "op": "ge" | "le" | "eq", "v": value}
#         "onset": the steps where the condition holds and did not hold one step earlier; "holds": all steps
# Window  {"lo": Bound | None, "hi": Bound | None}; Bound {"num": N, "incl": bool} or {"anchor": Anchor}
#         (a number bound is inclusive or strict as written; an anchor bound always excludes the anchor step)
# Query   {"q": "slot", "anchor": A, "slot": name, "arg": key | None}
#         {"q": "count", "pat": P, "win": W}          {"q": "list", "kind": str, "win": W}
#         {"q": "exists", "pat": P, "win": W}         {"q": "order", "a": A, "b": B, "la": str, "lb": str}
#         {"q": "distance", "a": A, "b": B}


def _matches(step: Step, pat: dict) -> bool:
    return any(e.kind == pat["kind"] and (pat.get("obj") is None or e.obj == pat["obj"]) for e in step.events)


def _value(step: Step, cond: dict):
    if cond["src"] == "item":
        return step.inventory_dict.get(cond["key"], 0)
    return step.state_dict.get(cond["key"])


def _holds(step: Step, cond: dict) -> bool:
    v = _value(step, cond)
    if cond["op"] == "eq":
        return v == cond["v"]
    if v is None or isinstance(v, str):
        return False
    return v >= cond["v"] if cond["op"] == "ge" else v <= cond["v"]


def _bounds(steps: list[Step], win: dict | None):
    """Inclusive (lo, hi) step range of a window and the anchor steps it names; None if an anchor fails."""
    lo, hi, gold = 0, len(steps) - 1, set()
    if not win:
        return lo, hi, gold
    if win.get("lo") is not None:
        b = win["lo"]
        if "num" in b:
            lo = b["num"] if b["incl"] else b["num"] + 1
        else:
            r = _resolve(steps, b["anchor"])
            if r is None:
                return None
            lo, gold = r[0] + 1, gold | r[1]
    if win.get("hi") is not None:
        b = win["hi"]
        if "num" in b:
            hi = b["num"] if b["incl"] else b["num"] - 1
        else:
            r = _resolve(steps, b["anchor"])
            if r is None:
                return None
            hi, gold = r[0] - 1, gold | r[1]
    return max(lo, 0), min(hi, len(steps) - 1), gold


def _pick(ts: list[int], n: int) -> int | None:
    if n > 0:
        return ts[n - 1] if len(ts) >= n else None
    return ts[n] if len(ts) >= -n else None


def _resolve(steps: list[Step], a: dict):
    """(t, gold) of an anchor; gold holds the anchor's own step when it is an event, plus nested anchors."""
    kind = a["a"]
    if kind == "step":
        return (a["t"], set()) if 0 <= a["t"] < len(steps) else None
    if kind == "off":
        r = _resolve(steps, a["base"])
        if r is None:
            return None
        t = r[0] + a["k"]
        if not 0 <= t < len(steps):
            return None
        gold = set(r[1])
        if a["base"]["a"] != "step":
            gold.add(r[0])
        gold.add(t)
        return t, gold
    b = _bounds(steps, a.get("win"))
    if b is None:
        return None
    lo, hi, gold = b
    if kind == "occ":
        ts = [t for t in range(lo, hi + 1) if _matches(steps[t], a["pat"])]
        t = _pick(ts, a["n"])
    elif kind == "cond":
        cond = a["cond"]
        if a["mode"] == "onset":
            ts = [t for t in range(max(lo, 1), hi + 1) if _holds(steps[t], cond) and not _holds(steps[t - 1], cond)]
        else:
            ts = [t for t in range(lo, hi + 1) if _holds(steps[t], cond)]
        t = _pick(ts, 1 if a["which"] == "first" else -1)
    else:
        raise ValueError(f"unknown anchor {a!r}")
    if t is None:
        return None
    return t, gold | {t}


def _slot_value(step: Step, slot: str, arg) -> str:
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
        return ", ".join(f"{k} {v}" for k, v in sorted(step.inventory) if v > 0) or "empty"
    if slot == "state":
        return str(step.state_dict[arg])
    if slot == "facing":
        return step.relations[0].obj
    if slot == "events":
        return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events) or "none"
    raise ValueError(slot)


def _found(steps: list[Step], ts: list[int]) -> set:
    return set(ts) if len(ts) <= 5 else {ts[-1]}


def evaluate(steps: list[Step], spec: dict):
    """(answer, gold steps) of a question spec, or None when the spec has no answer."""
    q = spec["q"]
    if q == "slot":
        r = _resolve(steps, spec["anchor"])
        if r is None:
            return None
        t, gold = r
        return _slot_value(steps[t], spec["slot"], spec.get("arg")), gold | {t}
    if q in ("count", "exists", "list"):
        b = _bounds(steps, spec.get("win"))
        if b is None:
            return None
        lo, hi, gold = b
        if q == "list":
            ts = [t for t in range(lo, hi + 1) if any(e.kind == spec["kind"] and e.obj for e in steps[t].events)]
            objs = sorted({e.obj for t in ts for e in steps[t].events if e.kind == spec["kind"] and e.obj})
            return (", ".join(objs) or "none"), gold | _found(steps, ts)
        ts = [t for t in range(lo, hi + 1) if _matches(steps[t], spec["pat"])]
        if q == "count":
            return str(len(ts)), gold | _found(steps, ts)
        return ("yes", gold | {ts[0]}) if ts else ("no", gold)
    if q in ("order", "distance"):
        ra, rb = _resolve(steps, spec["a"]), _resolve(steps, spec["b"])
        if ra is None or rb is None or ra[0] == rb[0]:
            return None
        gold = ra[1] | rb[1] | {ra[0], rb[0]}
        if q == "distance":
            return str(abs(rb[0] - ra[0])), gold
        return (spec["la"] if ra[0] < rb[0] else spec["lb"]), gold
    raise ValueError(f"unknown query {spec!r}")


# ----------------------------------------------------------------------------------------------
# Wording: subjects, event phrases (paraphrases and the stored kinds verbatim), slots, windows.
# ----------------------------------------------------------------------------------------------

SUBJECTS = (
    {"sub": "I", "obj": "me", "poss": "my", "own": "my", "be": "was"},
    {"sub": "we", "obj": "us", "poss": "our", "own": "our", "be": "were"},
    {"sub": "you", "obj": "you", "poss": "your", "own": "your", "be": "were"},
    {"sub": "the agent", "obj": "the agent", "poss": "the agent's", "own": "its", "be": "was"},
    {"sub": "Sorrel", "obj": "Sorrel", "poss": "Sorrel's", "own": "its", "be": "was"},
    {"sub": "Sorrel", "obj": "Sorrel", "poss": "Sorrel's", "own": "its", "be": "was"},
    {"sub": "it", "obj": "it", "poss": "its", "own": "its", "be": "was"},
)

#: (base form, simple past, gerund) per event kind and object; "*" is the kind with any object.
#: ``{o}`` is the object as worded in OBJ_WORDS, ``{own}`` the subject's possessive.
PHRASES: dict[str, dict[str, list[tuple[str, str, str]]]] = {
    "chop wood": {"tree": [
        ("chop down a tree", "chopped down a tree", "chopping down a tree"),
        ("fell a tree", "felled a tree", "felling a tree"),
        ("cut wood from a tree", "cut wood from a tree", "cutting wood from a tree")]},
    "quarry": {
        "*": [("mine anything (stone, coal, iron or a diamond)", "mined anything (stone, coal, iron or a diamond)",
               "mining anything")],
        "": [("mine {o}", "mined {o}", "mining {o}"), ("dig out {o}", "dug out {o}", "digging out {o}"),
             ("break out {o} with a pickaxe", "broke out {o} with a pickaxe", "breaking out {o}")]},
    "forage": {"sapling": [
        ("turn up a sapling in the grass", "turned up a sapling in the grass", "turning up a sapling"),
        ("find a sapling while searching the grass", "found a sapling while searching the grass", "finding a sapling")]},
    "drink": {"water": [
        ("sip some water", "sipped some water", "sipping water"),
        ("take a mouthful of water", "took a mouthful of water", "taking a mouthful of water"),
        ("quench {own} thirst at the water", "quenched {own} thirst at the water", "quenching thirst")]},
    "eat": {
        "*": [("have a meal (a cow or a ripe plant)", "had a meal (a cow or a ripe plant)", "having a meal")],
        "cow": [("make a meal of a cow", "made a meal of a cow", "making a meal of a cow"),
                ("feed on a cow", "fed on a cow", "feeding on a cow")],
        "plant": [("feed on a ripe plant", "fed on a ripe plant", "feeding on a ripe plant"),
                  ("harvest a ripe plant for food", "harvested a ripe plant for food", "harvesting a ripe plant")]},
    "strike": {
        "*": [("land a blow that did not kill", "landed a blow that did not kill", "landing a non-fatal blow")],
        "": [("hit {o} without killing it", "hit {o} without killing it", "hitting {o} without killing it"),
             ("land a non-fatal blow on {o}", "landed a non-fatal blow on {o}", "landing a blow on {o}")]},
    "slay": {
        "*": [("kill a monster (a zombie or a skeleton)", "killed a monster (a zombie or a skeleton)", "killing a monster")],
        "": [("kill {o}", "killed {o}", "killing {o}"), ("finish off {o}", "finished off {o}", "finishing off {o}"),
             ("defeat {o}", "defeated {o}", "defeating {o}")]},
    "get hurt": {
        "*": [("lose health", "lost health", "losing health"), ("take damage", "took damage", "taking damage")],
        "zombie": [("take damage from a zombie", "took damage from a zombie", "taking damage from a zombie"),
                   ("get wounded by a zombie", "got wounded by a zombie", "being wounded by a zombie")],
        "arrow": [("get hit by an arrow", "got hit by an arrow", "being hit by an arrow"),
                  ("take an arrow wound", "took an arrow wound", "taking an arrow wound")],
        "hardship": [("lose health to hunger, thirst or fatigue", "lost health to hunger, thirst or fatigue",
                      "losing health to hardship")]},
    "put up table": {"table": [
        ("set up a crafting table", "set up a crafting table", "setting up a crafting table"),
        ("build a workbench (crafting table)", "built a workbench (crafting table)", "building a workbench")]},
    "put up furnace": {"furnace": [
        ("build a furnace", "built a furnace", "building a furnace"),
        ("set a furnace down", "set a furnace down", "setting a furnace down")]},
    "sow": {"sapling": [
        ("plant a sapling", "planted a sapling", "planting a sapling"),
        ("put a sapling in the ground", "put a sapling in the ground", "putting a sapling in the ground")]},
    "craft": {
        "*": [("make a tool", "made a tool", "making a tool")],
        "": [("make {o}", "made {o}", "making {o}"), ("fashion {o}", "fashioned {o}", "fashioning {o}")]},
    "set marker": {
        "*": [("mark a waypoint with its first stone", "marked a waypoint with its first stone", "marking a waypoint")],
        "": [("place the first marker stone at {o}", "placed the first marker stone at {o}", "marking {o}"),
             ("lay the first marker stone at {o}", "laid the first marker stone at {o}", "laying {o}'s first marker")]},
    "replace marker": {
        "*": [("put back a missing marker stone", "put back a missing marker stone", "restoring a marker")],
        "": [("put back the missing marker at {o}", "put back the missing marker at {o}", "restoring the marker at {o}"),
             ("restore the marker stone at {o}", "restored the marker stone at {o}", "restoring {o}'s marker")]},
    "borrow marker": {
        "*": [("pull up one of {own} marker stones", "pulled up one of {own} marker stones", "pulling up a marker")],
        "": [("pull up the marker stone at {o}", "pulled up the marker stone at {o}", "pulling up {o}'s marker"),
             ("take the marker stone from {o}", "took the marker stone from {o}", "taking {o}'s marker")]},
    "reach waypoint": {
        "*": [("arrive at a waypoint (any of them)", "arrived at a waypoint (any of them)", "arriving at a waypoint")],
        "": [("arrive at {o}", "arrived at {o}", "arriving at {o}"), ("get to {o}", "got to {o}", "getting to {o}"),
             ("make it to {o}", "made it to {o}", "making it to {o}")]},
    "finish lap": {"": [
        ("complete a lap of the circuit", "completed a lap of the circuit", "completing a lap"),
        ("go all the way round the circuit", "went all the way round the circuit", "going all the way round")]},
    "chart circuit": {"": [
        ("lay out {own} patrol circuit", "laid out {own} patrol circuit", "laying out the circuit"),
        ("draw up a circuit of waypoints", "drew up a circuit of waypoints", "drawing up the circuit")]},
    "raise wall": {"": [
        ("lay a wall stone (hut or shelter)", "laid a wall stone (hut or shelter)", "laying a wall stone")]},
    "finish hut": {"": [
        ("complete {own} stone hut", "completed {own} stone hut", "completing the hut"),
        ("finish building the hut", "finished building the hut", "finishing the hut")]},
    "seal shelter": {"": [
        ("close the door stone of a shelter", "closed the door stone of a shelter", "closing a shelter door"),
        ("shut the shelter door with a stone", "shut the shelter door with a stone", "shutting the shelter door")]},
    "bed down": {"": [
        ("go to sleep", "went to sleep", "going to sleep"), ("fall asleep", "fell asleep", "falling asleep"),
        ("doze off", "dozed off", "dozing off")]},
    "wake": {"": [("awaken", "woke up", "waking up"), ("come out of sleep", "came out of sleep", "coming out of sleep")]},
    "dismantle wall": {"": [
        ("take down a wall stone", "took down a wall stone", "taking down a wall stone"),
        ("break out a door or wall stone", "broke out a door or wall stone", "breaking out a wall stone")]},
    "perish": {
        "*": [("die", "died", "dying"), ("lose a life", "lost a life", "losing a life")],
        "zombie": [("die at the hands of a zombie", "died at the hands of a zombie", "dying at a zombie's hands")],
        "arrow": [("die from an arrow", "died from an arrow", "dying from an arrow")],
        "hardship": [("die of hardship", "died of hardship", "dying of hardship")]},
    "respawn": {"": [
        ("begin a new life", "began a new life", "beginning a new life"),
        ("come back for another life", "came back for another life", "coming back for another life")]},
    "detour": {
        "*": [("break off for an errand", "broke off for an errand", "breaking off for an errand")],
        "water": [("break off to find water", "broke off to find water", "breaking off to find water")],
        "food": [("break off to find food", "broke off to find food", "breaking off to find food")],
        "wood": [("go off to fetch wood", "went off to fetch wood", "going off for wood")],
        "stone": [("go off to fetch stone", "went off to fetch stone", "going off for stone")],
        "coal": [("go off to fetch coal", "went off to fetch coal", "going off for coal")],
        "iron": [("go off to fetch iron", "went off to fetch iron", "going off for iron")],
        "table": [("head to the table to make something", "headed to the table to make something",
                   "heading to the table")],
        "shelter": [("head off to find shelter", "headed off to find shelter", "heading off for shelter")],
        "hut": [("set to work on the hut", "set to work on the hut", "setting to work on the hut")]},
    "spot": {
        "*": [("notice a monster close by", "noticed a monster close by", "noticing a monster")],
        "": [("notice {o} close by", "noticed {o} close by", "noticing {o}"),
             ("catch sight of {o}", "caught sight of {o}", "catching sight of {o}")]},
}

OBJ_WORDS = {
    "quarry": {"stone": "stone", "coal": "coal", "iron": "iron", "diamond": "a diamond"},
    "strike": {"zombie": "a zombie", "skeleton": "a skeleton", "cow": "a cow"},
    "slay": {"zombie": "a zombie", "skeleton": "a skeleton"},
    "spot": {"zombie": "a zombie", "skeleton": "a skeleton"},
    "craft": {name: f"a {name}" for name in ITEM_NAMES.values()},
}

#: The list question per event kind: (question stem, the names the answer uses).
LIST_WORDS = {
    "quarry": ("which materials did {sub} mine", ""),
    "craft": ("which tools did {sub} make", ""),
    "slay": ("which kinds of monster did {sub} kill", ""),
    "strike": ("which kinds of creature did {sub} hit without killing", ""),
    "reach waypoint": ("which waypoints did {sub} arrive at", ""),
    "set marker": ("at which waypoints did {sub} place a first marker stone", ""),
    "detour": ("for which errands did {sub} break off",
               " (name them as water, food, wood, stone, coal, iron, table, shelter or hut)"),
    "spot": ("which kinds of monster did {sub} notice close by", ""),
    "get hurt": ("what caused {poss} injuries", " (zombie, arrow or hardship)"),
    "eat": ("what did {sub} make meals of", " (cow or plant)"),
}

ORDINALS = {
    1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"),
    -1: ("last", "final"), -2: ("second-to-last", "penultimate"),
}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                10: "ten"}

VITAL_WORDS = {"health": ("health",), "food": ("food level", "food meter"), "hydration": ("hydration", "water meter"),
               "energy": ("energy", "energy level")}
ITEM_WORDS = {
    "wood": "pieces of wood", "stone": "stones", "coal": "lumps of coal", "iron": "pieces of iron",
    "diamond": "diamonds", "sapling": "saplings", "wood pickaxe": "wood pickaxes", "stone pickaxe": "stone pickaxes",
    "iron pickaxe": "iron pickaxes", "wood sword": "wood swords", "stone sword": "stone swords",
    "iron sword": "iron swords",
}
STATE_KEYS = ("health", "food", "hydration", "energy", "heading", "laps", "life", "mode", "markers", "phase")


ITEM_ONE = {"wood": "piece of wood", "coal": "lump of coal", "iron": "piece of iron"}


def _items(n: int, item: str) -> str:
    return f"{n} {ITEM_ONE.get(item, item)}" if n == 1 else f"{n} {ITEM_WORDS[item]}"


def pron(s: dict) -> dict:
    """The subject for a second mention: "it" for the agent, unchanged for I / we / you."""
    if s["sub"] in ("I", "we", "you"):
        return s
    return {"sub": "it", "obj": "it", "poss": "its", "own": "its", "be": "was"}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _label(kind: str, obj: str | None) -> str:
    return f"{kind} {obj}".strip() if obj else kind


def phrase(kind: str, obj: str | None, subj: dict, rng: random.Random, verbatim: bool = False) -> dict:
    """Base form, past and gerund of "an event of this kind (and object)"."""
    if verbatim:
        label = _label(kind, obj)
        tail = "" if obj or kind not in _MULTI else " (any object)"
        art = "an" if label[0] in "aeiou" else "a"
        return {"base": f"have {art} '{label}' event{tail}", "past": f"had {art} '{label}' event{tail}",
                "ger": f"'{label}'", "verbatim": True}
    table = PHRASES[kind]
    if obj is None and "*" in table:
        options = table["*"]
    elif obj is not None and obj in table:
        options = table[obj]
    else:
        options = table.get("", next(iter(table.values())))
    base, past, ger = rng.choice(options)
    word = OBJ_WORDS.get(kind, {}).get(obj, obj or "")
    fill = {"o": word, "own": subj["own"]}
    return {"base": base.format(**fill), "past": past.format(**fill), "ger": ger.format(**fill), "verbatim": False}


_MULTI = {k for k, v in PHRASES.items() if "*" in v}


def slot_question(slot: str, arg, s: dict, rng: random.Random) -> str:
    """A lower-case wh-clause asking for one slot: "what was my health"."""
    sub, poss, be = s["sub"], s["poss"], s["be"]
    if slot == "action":
        return rng.choice((f"what action did {sub} take", f"what did {sub} do", f"which action was recorded for {s['obj']}"))
    if slot == "location":
        return rng.choice((f"which region {be} {sub} in", f"in which part of the patrol ground {be} {sub}",
                           f"what region did {poss} record show"))
    if slot == "position":
        return rng.choice((f"what were {poss} grid coordinates (x,y)", f"at which x,y position {be} {sub} standing"))
    if slot == "item":
        words = ITEM_WORDS[arg]
        return rng.choice((f"how many {words} {be} {sub} carrying", f"how many {words} did {sub} have",
                           f"what count of {arg} did {poss} inventory show"))
    if slot == "inventory":
        return rng.choice((f"what did {sub} carry", f"what was in {poss} inventory", f"what did {poss} pack hold"))
    if slot == "facing":
        return rng.choice((f"what {be} {sub} facing", f"what lay directly in front of {s['obj']}"))
    if slot == "events":
        return rng.choice(("which events were recorded", "what events did the record list"))
    if slot == "state":
        if arg in VITAL_WORDS:
            return f"what was {poss} {rng.choice(VITAL_WORDS[arg])}"
        return {
            "heading": f"which waypoint {be} {sub} heading for",
            "laps": f"how many laps of the circuit had {sub} completed",
            "life": f"which life {be} {sub} on (1 for the first)",
            "mode": f"what mode {be} {sub} in",
            "markers": "how many of the circuit's marker stones were standing",
            "phase": "was it day or night (the recorded phase)",
        }[arg]
    raise ValueError(slot)


# ----------------------------------------------------------------------------------------------
# Question generation: templates and hand-worded one-offs, each a spec answered by ``evaluate``.
# ----------------------------------------------------------------------------------------------

FAMILIES = ("1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence")
SLOTS = ("action", "location", "position", "item", "inventory", "state", "facing", "events")
_NEVER = (  # patterns that may well not happen in an episode: material for true "no" answers
    ("quarry", "diamond"), ("quarry", "iron"), ("craft", "iron pickaxe"), ("craft", "iron sword"),
    ("craft", "stone sword"), ("slay", "skeleton"), ("eat", "plant"), ("perish", None), ("put up furnace", "furnace"),
    ("replace marker", None), ("borrow marker", None), ("finish hut", ""), ("get hurt", "arrow"),
    ("strike", "skeleton"), ("strike", "cow"), ("forage", "sapling"), ("quarry", "coal"), ("detour", "iron"),
    ("perish", "arrow"), ("respawn", ""), ("finish lap", ""), ("sow", "sapling"), ("spot", "skeleton"),
)


def A_step(t: int) -> dict:
    return {"a": "step", "t": t}


def A_occ(kind: str, obj, n: int, win=None) -> dict:
    return {"a": "occ", "pat": {"kind": kind, "obj": obj}, "n": n, "win": win}


def W(lo=None, hi=None) -> dict:
    return {"lo": lo, "hi": hi}


def B_num(n: int, incl: bool) -> dict:
    return {"num": n, "incl": incl}


def B_anchor(a: dict) -> dict:
    return {"anchor": a}


class _Ctx:
    """One episode's records, its occurrence index and wording choices."""

    def __init__(self, steps: list[Step], episode: str, rng: random.Random):
        self.steps = steps
        self.T = len(steps)
        self.episode = episode
        self.rng = rng
        self.occ: dict[tuple, list[int]] = {}
        for s in steps:
            keys = {(e.kind, e.obj) for e in s.events} | {(e.kind, None) for e in s.events}
            for key in keys:
                self.occ.setdefault(key, []).append(s.t)
        self.verbatim_budget = 0.0

    # -- choices -------------------------------------------------------------------------------------
    def subj(self) -> dict:
        return self.rng.choice(SUBJECTS)

    def ordinal(self, n: int) -> str:
        words = ORDINALS[n]
        return words[0] if self.rng.random() < 0.7 else words[1]

    def patterns(self, min_count: int = 1, kinds_only: bool = False) -> list[tuple]:
        keys = []
        for (kind, obj), ts in sorted(self.occ.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            if len(ts) < min_count:
                continue
            if obj is None and kind not in _MULTI:
                continue        # a kind with one object: the object pattern says it
            if kinds_only and obj is not None:
                continue
            keys.append((kind, obj))
        return keys

    def pattern(self, min_count: int = 1, avoid=()) -> tuple | None:
        keys = [k for k in self.patterns(min_count) if k not in avoid]
        if not keys:
            return None
        # thin out the very frequent, low-information kinds
        weights = [0.4 if k[0] in ("drink", "spot", "strike", "get hurt", "detour") else 1.0 for k in keys]
        return self.rng.choices(keys, weights)[0]

    def words(self, kind: str, obj, s: dict, allow_verbatim: bool = True) -> dict:
        verbatim = allow_verbatim and self.rng.random() < 0.32
        return phrase(kind, obj, s, self.rng, verbatim)

    def n_for(self, count: int) -> int | None:
        weights = {1: 1.0, 2: 1.0, 3: 0.8, -1: 2.0, -2: 1.2}
        options = [n for n in (1, 2, 3, -1, -2) if (n > 0 and count >= n) or (n < 0 and count >= -n)]
        if count == 1:
            options = [1]
        if not options:
            return None
        return self.rng.choices(options, [weights[n] for n in options])[0]

    def rand_t(self, lo: int = 0, hi: int | None = None) -> int:
        hi = self.T - 1 if hi is None else hi
        return self.rng.randint(lo, max(lo, hi))

    def rand_slot(self, t: int | None = None, allow_step: bool = True, kind: str | None = None):
        options = list(SLOTS) + (["step"] * 3 if allow_step else [])
        if kind in ("reach waypoint", "set marker", "replace marker", "finish lap"):
            options.remove("location")      # standing at the waypoint: the region is its name
        slot = self.rng.choice(options)
        arg = None
        if slot == "item":
            held = [k for k, v in self.steps[t].inventory if v > 0] if t is not None else []
            pool = held if held and self.rng.random() < 0.75 else list(ITEM_WORDS)
            arg = self.rng.choice(sorted(pool))
        elif slot == "state":
            arg = self.rng.choice(STATE_KEYS)
        return slot, arg

    # -- noun phrases for anchors --------------------------------------------------------------------
    def occ_np(self, kind: str, obj, n: int, s: dict, w: dict | None = None) -> tuple[str, bool]:
        w = w or self.words(kind, obj, s)
        o = self.ordinal(n)
        if n == 1 and self.rng.random() < 0.3:
            return f"the moment {s['sub']} first {w['past']}", w["verbatim"]
        return f"the {o} time {s['sub']} {w['past']}", w["verbatim"]

    def cond_np(self, a: dict, s: dict) -> str:
        c = a["cond"]
        which = a["which"]
        key, v, op = c["key"], c["v"], c["op"]
        if c["src"] == "item":
            if op == "eq" and v == 0:
                return f"the {which} time {s['sub']} ran out of {key} (went from some to none)"
            if a["mode"] == "holds":
                return f"the {which} step at which {s['sub']} carried at least {_items(v, key)}"
            return f"the {which} time {s['sub']} came to hold at least {_items(v, key)}"
        if key in VITAL_WORDS:
            name = self.rng.choice(VITAL_WORDS[key])
            verb = "dropped" if op == "le" else "climbed"
            side = "or below" if op == "le" else "or above"
            return f"the {which} time {s['poss']} {name} {verb} to {v} {side}"
        if key == "mode":
            return f"the {which} time {s['poss']} mode switched to '{v}'"
        if key == "heading":
            return f"the {which} time {s['sub']} set off toward {v}"
        if key == "laps":
            return f"the moment {s['poss']} count of completed laps reached {v}"
        if key == "markers":
            return f"the {which} time the number of standing marker stones reached {v}"
        if key == "life":
            return f"the moment {s['sub']} entered life number {v}"
        raise ValueError(key)

    def cond_clause(self, a: dict, s: dict) -> str:
        """The condition as a clause: "my health first dropped to 4 or below"."""
        c = a["cond"]
        which, key, v, op = a["which"], c["key"], c["v"], c["op"]
        sub, poss = s["sub"], s["poss"]
        if c["src"] == "item":
            if op == "eq" and v == 0:
                return f"{sub} {which} ran out of {key} (went from some to none)"
            if a["mode"] == "holds":
                return f"{sub} held at least {_items(v, key)} for the last time (the last such step)"
            return f"{sub} {which} came to hold at least {_items(v, key)}"
        if key in VITAL_WORDS:
            name = self.rng.choice(VITAL_WORDS[key])
            return f"{poss} {name} {which} dropped to {v} or below"
        if key == "mode":
            return f"{poss} mode {which} switched to '{v}'"
        if key == "heading":
            return f"{sub} {which} set off toward {v}"
        if key == "laps":
            return f"{poss} count of completed laps {which} reached {v}"
        if key == "markers":
            return f"the number of standing marker stones {which} reached {v}"
        if key == "life":
            return f"{sub} {which} entered life number {v}"
        raise ValueError(key)

    @staticmethod
    def cond_label(a: dict) -> str:
        c = a["cond"]
        key, v, op = c["key"], c["v"], c["op"]
        if c["src"] == "item":
            if op == "eq":
                return f"out of {key}"
            return f"{v} {key} held" if a["mode"] == "onset" else f"last held {v} {key}"
        if key in VITAL_WORDS:
            return f"{key} down to {v}"
        return {"mode": f"mode {v}", "heading": f"setting off for {v}", "laps": f"{v} laps done",
                "markers": f"{v} markers standing", "life": f"life {v}"}[key]

    def window_np(self, win: dict, s: dict) -> tuple[str, bool]:
        """The window as a phrase ("between step 100 and step 200") and whether it names a kind verbatim."""
        lo, hi = win.get("lo"), win.get("hi")
        verb = False

        def anchor_np(b):
            nonlocal verb
            a = b["anchor"]
            if a["a"] == "occ":
                text, v = self.occ_np(a["pat"]["kind"], a["pat"]["obj"], a["n"], s)
                verb = verb or v
                return text
            return self.cond_np(a, s)
        if lo and hi and "num" in lo and "num" in hi:
            return f"between step {lo['num']} and step {hi['num']}", verb
        parts = []
        if lo:
            if "num" in lo:
                parts.append(f"from step {lo['num']} onward" if lo["incl"] else f"after step {lo['num']}")
            else:
                parts.append(f"after {anchor_np(lo)}")
        if hi:
            if "num" in hi:
                if not lo and not hi["incl"] and self.rng.random() < 0.5:
                    parts.append(f"in the first {hi['num']} steps")
                else:
                    parts.append(f"up to step {hi['num']}" if hi["incl"] else f"before step {hi['num']}")
            else:
                parts.append(f"before {anchor_np(hi)}")
        return " and ".join(parts), verb

    def rand_window(self, kind: str, obj, need_hit: bool = True) -> dict | None:
        """A number- or event-bounded window that (if ``need_hit``) holds at least one occurrence."""
        ts = self.occ.get((kind, obj), [])
        for _ in range(12):
            style = self.rng.choice(("after", "before", "first", "between", "from", "upto", "after_ev", "before_ev"))
            if style == "after":
                w = W(lo=B_num(self.rand_t(20, self.T - 60), False))
            elif style == "from":
                w = W(lo=B_num(self.rand_t(20, self.T - 60), True))
            elif style == "before":
                w = W(hi=B_num(self.rand_t(60, self.T - 20), False))
            elif style == "upto":
                w = W(hi=B_num(self.rand_t(60, self.T - 20), True))
            elif style == "first":
                w = W(hi=B_num(self.rng.choice(range(100, self.T, 50)), False))
            elif style == "between":
                a = self.rand_t(0, self.T - 120)
                w = W(lo=B_num(a, True), hi=B_num(self.rand_t(a + 60, self.T - 1), True))
            else:
                key = self.pattern(1, avoid={(kind, obj)})
                if key is None:
                    continue
                n = self.n_for(len(self.occ[key]))
                a = A_occ(key[0], key[1], n)
                w = W(lo=B_anchor(a)) if style == "after_ev" else W(hi=B_anchor(a))
            b = _bounds(self.steps, w)
            if b is None or b[0] > b[1]:
                continue
            hits = [t for t in ts if b[0] <= t <= b[1]]
            if need_hit and not hits:
                continue
            return w
        return None

    def ids(self, ts) -> list[str]:
        return [f"{self.episode}:{t}" for t in sorted(set(ts))]


# -- templated questions, family by family ----------------------------------------------------------

def _g_step_index(c: _Ctx):
    t = c.rand_t()
    slot, arg = c.rand_slot(t, allow_step=False)
    s = c.subj()
    q = slot_question(slot, arg, s, c.rng)
    text = c.rng.choice((f"{_cap(q)} at step {t}?", f"At step {t}, {q}?", f"Looking at the record of step {t}, {q}?",
                         f"{_cap(q)} during step {t}?"))
    return {"q": "slot", "anchor": A_step(t), "slot": slot, "arg": arg}, text, False


def _g_nth(c: _Ctx):
    key = c.pattern()
    if key is None:
        return None
    kind, obj = key
    n = c.n_for(len(c.occ[key]))
    s = c.subj()
    w = c.words(kind, obj, s)
    slot, arg = c.rand_slot(c.occ[key][n - 1 if n > 0 else n], kind=kind)
    o = c.ordinal(n)
    spec = {"q": "slot", "anchor": A_occ(kind, obj, n), "slot": slot, "arg": arg}
    if slot == "step":
        if n == 1 and c.rng.random() < 0.5:
            text = f"When did {s['sub']} first {w['base']}?"
        elif n == -1 and c.rng.random() < 0.5:
            text = f"When did {s['sub']} {w['base']} for the last time?"
        else:
            text = c.rng.choice((f"At which step did {s['sub']} {w['base']} for the {o} time?",
                                 f"On what step was the {o} time {s['sub']} {w['past']}?"))
    else:
        if c.rng.random() < 0.5:
            q = slot_question(slot, arg, s, c.rng)
            text = f"{_cap(q)} the {o} time {pron(s)['sub']} {w['past']}?"
        else:
            q = slot_question(slot, arg, pron(s), c.rng)
            text = f"The {o} time {s['sub']} {w['past']}, {q}?"
    return spec, text, w["verbatim"]


def _g_windowed(c: _Ctx):
    key = c.pattern()
    if key is None:
        return None
    kind, obj = key
    win = c.rand_window(kind, obj)
    if win is None:
        return None
    s = c.subj()
    w = c.words(kind, obj, s)
    wtext, wverb = c.window_np(win, s)
    n = c.rng.choice((1, -1, -1, 2))
    spec = {"q": "slot", "anchor": A_occ(kind, obj, n, win), "slot": "step", "arg": None}
    r = _resolve(c.steps, spec["anchor"])
    if r is None:
        return None
    slot, arg = c.rand_slot(r[0], kind=kind)
    spec["slot"], spec["arg"] = slot, arg
    o = c.ordinal(n)
    if slot == "step":
        if n == 1:
            text = c.rng.choice((f"{_cap(wtext)}, when did {s['sub']} first {w['base']}?",
                                 f"When did {s['sub']} first {w['base']}, {wtext}?"))
        elif n == -1:
            text = f"What was the last step {wtext} on which {s['sub']} {w['past']}?"
        else:
            text = f"{_cap(wtext)}, at which step did {s['sub']} {w['base']} for the {o} time?"
    else:
        q = slot_question(slot, arg, s, c.rng)
        p = pron(s)["sub"]
        text = c.rng.choice((f"{_cap(q)} the {o} time {p} {w['past']} {wtext}?",
                             f"{_cap(wtext)}, {q} the {o} time {p} {w['past']}?"))
    return spec, text, w["verbatim"] or wverb


def _conditions(c: _Ctx) -> list[dict]:
    """Condition anchors that resolve in this episode and do not already hold at step 0."""
    out = []
    first = c.steps[0]
    for key in ("health", "food", "hydration", "energy"):
        for k in (2, 3, 4, 5, 6):
            out.append({"src": "state", "key": key, "op": "le", "v": k})
    for item in ("wood", "stone", "sapling", "coal", "iron"):
        for k in (1, 2, 3, 4, 5, 6):
            out.append({"src": "item", "key": item, "op": "ge", "v": k})
        out.append({"src": "item", "key": item, "op": "eq", "v": 0})
    for k in (1, 2, 3, 4):
        out.append({"src": "state", "key": "laps", "op": "ge", "v": k})
        out.append({"src": "state", "key": "markers", "op": "ge", "v": k})
    for mode in sorted({s.state_dict["mode"] for s in c.steps}):
        out.append({"src": "state", "key": "mode", "op": "eq", "v": mode})
    for wp in sorted({s.state_dict["heading"] for s in c.steps} - {"none"}):
        out.append({"src": "state", "key": "heading", "op": "eq", "v": wp})
    out.append({"src": "state", "key": "life", "op": "ge", "v": 2})
    anchors = []
    for cond in out:
        if (cond["op"] != "eq" or cond["key"] not in ("mode", "heading")) and _holds(first, cond) \
                and not (cond["src"] == "item" and cond["op"] == "eq"):
            continue
        for which, mode in (("first", "onset"), ("last", "onset"), ("last", "holds")):
            if which == "last" and mode == "holds" and cond["src"] != "item":
                continue
            if cond["src"] == "item" and cond["op"] == "eq" and mode == "holds":
                continue
            a = {"a": "cond", "cond": cond, "which": which, "mode": mode, "win": None}
            if _resolve(c.steps, a) is not None:
                anchors.append(a)
    return anchors


def _g_condition(c: _Ctx):
    anchors = _conditions(c)
    if not anchors:
        return None
    late = [x for x in anchors if x["which"] == "last"]
    a = c.rng.choice(late if late and c.rng.random() < 0.55 else anchors)
    t = _resolve(c.steps, a)[0]
    s = c.subj()
    slot, arg = c.rand_slot(t)
    if slot == "state" and arg == a["cond"]["key"]:
        slot, arg = "step", None
    np_ = c.cond_np(a, s)
    clause = c.cond_clause(a, s)
    spec = {"q": "slot", "anchor": a, "slot": slot, "arg": arg}
    if slot == "step":
        text = c.rng.choice((f"At which step was {np_}?", f"What step marks {np_}?", f"When was {np_}?"))
    else:
        if c.rng.random() < 0.5:
            q = slot_question(slot, arg, pron(s), c.rng)
            text = f"When {clause}, {q}?"
        else:
            q = slot_question(slot, arg, s, c.rng)
            text = f"{_cap(q)} when {c.cond_clause(a, pron(s))}?"
    return spec, text, False


def _g_offset(c: _Ctx):
    k = c.rng.randint(1, 9) * c.rng.choice((1, -1))
    s = c.subj()
    kk = abs(k)
    amount = NUMBER_WORDS[kk] if c.rng.random() < 0.4 else str(kk)
    unit = "step" if kk == 1 else "steps"
    rel = "after" if k > 0 else "before"
    verb = False
    if c.rng.random() < 0.4:
        t = c.rand_t(10, c.T - 11)
        base = A_step(t)
        where = f"step {t}"
    else:
        key = c.pattern()
        if key is None:
            return None
        n = c.n_for(len(c.occ[key]))
        base = A_occ(key[0], key[1], n)
        where, verb = c.occ_np(key[0], key[1], n, s)
    anchor = {"a": "off", "base": base, "k": k}
    r = _resolve(c.steps, anchor)
    if r is None:
        return None
    slot, arg = c.rand_slot(r[0], allow_step=False)
    if base["a"] == "step" or c.rng.random() < 0.5:
        q = slot_question(slot, arg, pron(s) if base["a"] != "step" else s, c.rng)
        text = f"{_cap(amount)} {unit} {rel} {where}, {q}?"
    else:
        q = slot_question(slot, arg, s, c.rng)
        where = where.replace(f" {s['sub']} ", f" {pron(s)['sub']} ", 1)
        text = f"{_cap(q)} {amount} {unit} {rel} {where}?"
    return {"q": "slot", "anchor": anchor, "slot": slot, "arg": arg}, text, verb


def _g_next_prev(c: _Ctx):
    key = c.pattern(2)
    if key is None:
        return None
    kind, obj = key
    s = c.subj()
    w = c.words(kind, obj, s)
    nxt = c.rng.random() < 0.55
    verb = w["verbatim"]
    if c.rng.random() < 0.5:
        t = c.rand_t(30, c.T - 30)
        win = W(lo=B_num(t, False)) if nxt else W(hi=B_num(t, False))
        where = f"step {t}"
    else:
        other = c.pattern(1, avoid={key})
        if other is None:
            return None
        n = c.n_for(len(c.occ[other]))
        a = A_occ(other[0], other[1], n)
        win = W(lo=B_anchor(a)) if nxt else W(hi=B_anchor(a))
        where, v2 = c.occ_np(other[0], other[1], n, pron(s))
        verb = verb or v2
    anchor = A_occ(kind, obj, 1 if nxt else -1, win)
    r = _resolve(c.steps, anchor)
    if r is None:
        return None
    slot, arg = c.rand_slot(r[0], kind=kind)
    if c.rng.random() < 0.5:
        slot, arg = "step", None
    if slot == "step":
        if nxt:
            text = c.rng.choice((f"After {where}, when did {s['sub']} next {w['base']}?",
                                 f"When was the next time {s['sub']} {w['past']} after {where}?"))
        else:
            text = c.rng.choice((f"Before {where}, when did {s['sub']} most recently {w['base']}?",
                                 f"When did {s['sub']} last {w['base']} before {where}?"))
    else:
        q = slot_question(slot, arg, s, c.rng)
        if nxt:
            text = f"{_cap(q)} the next time {pron(s)['sub']} {w['past']} after {where}?"
        else:
            text = f"{_cap(q)} the previous time {pron(s)['sub']} {w['past']} before {where}?"
    return {"q": "slot", "anchor": anchor, "slot": slot, "arg": arg}, text, verb


def _g_count(c: _Ctx):
    s = c.subj()
    if c.rng.random() < 0.3:
        kinds = sorted({k for k, _o in c.patterns(1)} & set(LIST_WORDS))
        if not kinds:
            return None
        kind = c.rng.choice(kinds)
        win = c.rand_window(kind, None, need_hit=c.rng.random() < 0.85) if c.rng.random() < 0.6 else None
        stem, names = LIST_WORDS[kind]
        stem = stem.format(sub=s["sub"], poss=s["poss"])
        wtext, verb = c.window_np(win, s) if win else ("over the whole episode", False)
        text = c.rng.choice((f"{_cap(stem)} {wtext}{names}?", f"{_cap(wtext)}, {stem}{names}?"))
        return {"q": "list", "kind": kind, "win": win}, text, verb
    key = c.pattern()
    if key is None:
        return None
    kind, obj = key
    w = c.words(kind, obj, s)
    win = c.rand_window(kind, obj, need_hit=c.rng.random() < 0.85) if c.rng.random() < 0.65 else None
    if win:
        wtext, verb = c.window_np(win, s)
        text = c.rng.choice((f"How many times did {s['sub']} {w['base']} {wtext}?",
                             f"{_cap(wtext)}, on how many steps did {s['sub']} {w['base']}?",
                             f"{_cap(wtext)}, how many steps were there at which {s['sub']} {w['past']}?"))
    else:
        verb = False
        text = c.rng.choice((f"How many times did {s['sub']} {w['base']} in the whole episode?",
                             f"Over the entire run, on how many steps did {s['sub']} {w['base']}?"))
    return {"q": "count", "pat": {"kind": kind, "obj": obj}, "win": win}, text, w["verbatim"] or verb


def _two_anchors(c: _Ctx, s: dict):
    """Two event anchors of different patterns (or a condition), with noun phrases and labels."""
    picks = []
    used = set()
    verb = False
    for _ in range(2):
        if picks and c.rng.random() < 0.25:
            anchors = _conditions(c)
            if anchors:
                a = c.rng.choice(anchors)
                picks.append((a, c.cond_np(a, s), c.cond_label(a)))
                continue
        key = c.pattern(1, avoid=used)
        if key is None:
            return None
        used.add(key)
        n = c.n_for(len(c.occ[key]))
        w = c.words(key[0], key[1], s)
        verb = verb or w["verbatim"]
        np_, _v = c.occ_np(key[0], key[1], n, s, w)
        label = w["ger"].strip("'") if not w["verbatim"] else _label(*key)
        picks.append((A_occ(key[0], key[1], n), np_, label))
    if picks[0][2] == picks[1][2]:
        return None
    return picks, verb


def _g_order(c: _Ctx):
    s = c.subj()
    got = _two_anchors(c, s)
    if got is None:
        return None
    (a, npa, la), (b, npb, lb) = got[0]
    text = c.rng.choice((
        f"Which came first: {npa}, or {npb}? Answer '{la}' or '{lb}'.",
        f"Of {npa} and {npb}, which happened earlier? Reply '{la}' or '{lb}'.",
        f"Think of {npa} and of {npb}. Which was earlier: '{la}' or '{lb}'?",
    ))
    return {"q": "order", "a": a, "b": b, "la": la, "lb": lb}, text, got[1]


def _g_distance(c: _Ctx):
    s = c.subj()
    got = _two_anchors(c, s)
    if got is None:
        return None
    (a, npa, _la), (b, npb, _lb) = got[0]
    text = c.rng.choice((
        f"How many steps passed between {npa} and {npb}?",
        f"How far apart, in steps, were {npa} and {npb}?",
        f"Counting in steps, what was the gap between {npa} and {npb}?",
    ))
    return {"q": "distance", "a": a, "b": b}, text, got[1]


def _g_exists(c: _Ctx, want: str):
    s = c.subj()
    if want == "no":
        never = [(k, o) for k, o in _NEVER if not c.occ.get((k, o))]
        if never and c.rng.random() < 0.5:
            kind, obj = c.rng.choice(never)
            win = None
        else:
            key = c.pattern()
            if key is None:
                return None
            kind, obj = key
            win = None
            for _ in range(20):
                cand = c.rand_window(kind, obj, need_hit=False)
                if cand is None:
                    continue
                b = _bounds(c.steps, cand)
                if not any(b[0] <= t <= b[1] for t in c.occ[key]) and b[1] - b[0] >= 15:
                    win = cand
                    break
            if win is None:
                return None
    else:
        key = c.pattern()
        if key is None:
            return None
        kind, obj = key
        win = c.rand_window(kind, obj) if c.rng.random() < 0.7 else None
    if PHRASES.get(kind) is None:
        return None
    w = c.words(kind, obj, s)
    if win:
        wtext, verb = c.window_np(win, s)
        forms = [f"Did {s['sub']} {w['base']} at any point {wtext}?",
                 f"{_cap(wtext)}, was there any step at which {s['sub']} {w['past']}?"]
        if not w["verbatim"]:
            forms.append(f"Is there any record of {s['obj']} {w['ger']} {wtext}?")
        text = c.rng.choice(forms)
    else:
        verb = False
        text = c.rng.choice((f"Did {s['sub']} ever {w['base']}?",
                             f"At any point in the episode, did {s['sub']} {w['base']}?"))
    return {"q": "exists", "pat": {"kind": kind, "obj": obj}, "win": win}, text, w["verbatim"] or verb


TEMPLATES = {
    "1_step_index": _g_step_index, "2_nth_occurrence": _g_nth, "3_windowed_occurrence": _g_windowed,
    "4_condition": _g_condition, "5_offset": _g_offset, "6_next_previous": _g_next_prev, "7_count": _g_count,
    "8_order": _g_order, "9_distance": _g_distance,
}


# -- hand-worded one-off questions: each its own sentence, asked only where its facts hold ----------

def _first(c: _Ctx, kind: str, obj=None) -> int | None:
    ts = c.occ.get((kind, obj))
    return ts[0] if ts else None


def _o1_peek(c: _Ctx):
    t = c.rand_t(c.T // 3, c.T - 1)
    return ({"q": "slot", "anchor": A_step(t), "slot": "facing", "arg": None},
            f"Suppose you could peek over Sorrel's shoulder at step {t}: what would it be looking straight at?")


def _o1_tally(c: _Ctx):
    t = c.rand_t(c.T // 2, c.T - 1)
    return ({"q": "slot", "anchor": A_step(t), "slot": "state", "arg": "laps"},
            f"Sorrel keeps a tally of finished laps. What did that tally read at step {t}?")


def _o1_ground(c: _Ctx):
    t = c.rand_t(0, c.T - 1)
    return ({"q": "slot", "anchor": A_step(t), "slot": "location", "arg": None},
            f"Name the stretch of ground (the recorded region) where the agent stood once step {t} was done.")


def _o1_busy(c: _Ctx):
    t = c.rand_t(c.T // 4, c.T - 1)
    return ({"q": "slot", "anchor": A_step(t), "slot": "state", "arg": "mode"},
            f"What was keeping me busy at step {t}? Give the mode my record shows.")


def _o2_first_kill(c: _Ctx):
    if not c.occ.get(("slay", "zombie")):
        return None
    return ({"q": "slot", "anchor": A_occ("slay", "zombie", 1), "slot": "step", "arg": None},
            "Sorrel's very first zombie kill: on which step did it land the killing blow?")


def _o2_sip(c: _Ctx):
    if len(c.occ.get(("drink", "water"), [])) < 2:
        return None
    return ({"q": "slot", "anchor": A_occ("drink", "water", -2), "slot": "state", "arg": "hydration"},
            ("Think of the second-to-last mouthful of water the agent took. How full was its water meter "
             "(hydration) right after it?"))


def _o2_bench(c: _Ctx):
    if not c.occ.get(("put up table", "table")):
        return None
    return ({"q": "slot", "anchor": A_occ("put up table", "table", 1), "slot": "position", "arg": None},
            "Where was I standing, as x,y, when I set down my first crafting table?")


def _o2_third_tree(c: _Ctx):
    if len(c.occ.get(("chop wood", "tree"), [])) < 3:
        return None
    return ({"q": "slot", "anchor": A_occ("chop wood", "tree", 3), "slot": "inventory", "arg": None},
            "What did the pack hold just as the third tree came down?")


def _o3_hut_door(c: _Ctx):
    if not c.occ.get(("finish hut", None)) and not c.occ.get(("finish hut", "")):
        return None
    a = A_occ("seal shelter", "", 1, W(lo=B_anchor(A_occ("finish hut", "", 1))))
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            "Once its hut stood complete, on which step did Sorrel first shut a shelter door behind it?")


def _o3_span_stone(c: _Ctx):
    ts = c.occ.get(("quarry", "stone"), [])
    if len(ts) < 2:
        return None
    t = c.rng.choice(ts[len(ts) // 3:])
    a, b = max(0, t - c.rng.randint(20, 120)), min(c.T - 1, t + c.rng.randint(0, 60))
    win = W(lo=B_num(a, True), hi=B_num(b, True))
    return ({"q": "slot", "anchor": A_occ("quarry", "stone", -1, win), "slot": "step", "arg": None},
            f"Counting only steps {a} through {b}, when did we last dig out stone?")


def _o3_early_water(c: _Ctx):
    ts = c.occ.get(("drink", "water"), [])
    if not ts:
        return None
    n = ((ts[0] // 50) + 1 + c.rng.randint(0, 3)) * 50
    if n >= c.T:
        return None
    win = W(hi=B_num(n, False))
    return ({"q": "slot", "anchor": A_occ("drink", "water", 1, win), "slot": "location", "arg": None},
            f"Within its first {n} steps, in which region was the agent when it first took a mouthful of water?")


def _o3_late_tree(c: _Ctx):
    ts = c.occ.get(("chop wood", "tree"), [])
    if len(ts) < 3:
        return None
    n = c.rng.choice(range(50, max(51, ts[-1]), 50))
    win = W(lo=B_num(n, True))
    return ({"q": "slot", "anchor": A_occ("chop wood", "tree", 1, win), "slot": "position", "arg": None},
            f"Leaving aside the first {n} steps, where (x,y) did the agent stand when it next cut down a tree?")


def _o4_health(c: _Ctx):
    ks = [k for k in (3, 4, 5, 6) if _resolve(c.steps, {"a": "cond", "cond": {"src": "state", "key": "health",
                                                                         "op": "le", "v": k},
                                                       "which": "first", "mode": "onset", "win": None})]
    if not ks:
        return None
    k = c.rng.choice(ks)
    a = {"a": "cond", "cond": {"src": "state", "key": "health", "op": "le", "v": k}, "which": "first", "mode": "onset",
         "win": None}
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            f"Sorrel starts out at full health. At which step did its health first slip to {k} or lower?")


def _o4_wood(c: _Ctx):
    k = c.rng.choice((3, 4, 5))
    a = {"a": "cond", "cond": {"src": "item", "key": "wood", "op": "ge", "v": k}, "which": "first", "mode": "onset",
         "win": None}
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            f"The agent began with empty hands. On what step was it first carrying {k} or more pieces of wood?")


def _o4_food(c: _Ctx):
    k = c.rng.choice((3, 4, 5))
    a = {"a": "cond", "cond": {"src": "state", "key": "food", "op": "le", "v": k}, "which": "last", "mode": "onset",
         "win": None}
    return ({"q": "slot", "anchor": a, "slot": "action", "arg": None},
            f"When my food meter sank to {k} or below for the last time, what action was I taking?")


def _o4_mode(c: _Ctx):
    mode = c.rng.choice(("drinking", "hunting", "sheltering", "building", "gathering"))
    a = {"a": "cond", "cond": {"src": "state", "key": "mode", "op": "eq", "v": mode}, "which": "first",
         "mode": "onset", "win": None}
    return ({"q": "slot", "anchor": a, "slot": "location", "arg": None},
            f"At the first moment the recorded mode switched to '{mode}', which region was the agent in?")


def _o5_rewind(c: _Ctx):
    if not c.occ.get(("finish lap", "")):
        return None
    k = c.rng.randint(3, 9)
    a = {"a": "off", "base": A_occ("finish lap", "", 1), "k": -k}
    return ({"q": "slot", "anchor": a, "slot": "state", "arg": "heading"},
            f"Rewind {k} steps from the moment Sorrel first completed a lap: which waypoint was it heading for then?")


def _o5_forward(c: _Ctx):
    t = c.rand_t(c.T // 3, c.T - 20)
    k = c.rng.randint(2, 12)
    a = {"a": "off", "base": A_step(t), "k": k}
    return ({"q": "slot", "anchor": a, "slot": "action", "arg": None},
            f"Fast-forward {k} steps past step {t}. What action does the record show there?")


def _o5_after_bench(c: _Ctx):
    if not c.occ.get(("put up table", "table")):
        return None
    n = -1 if len(c.occ[("put up table", "table")]) > 1 and c.rng.random() < 0.5 else 1
    which = "last" if n == -1 else "first"
    a = {"a": "off", "base": A_occ("put up table", "table", n), "k": 2}
    return ({"q": "slot", "anchor": a, "slot": "inventory", "arg": None},
            f"Two steps after I set up the {which} crafting table of the episode, what did I have in my pack?")


def _o6_after_sleep(c: _Ctx):
    if not c.occ.get(("wake", "")):
        return None
    a = A_occ("drink", "water", 1, W(lo=B_anchor(A_occ("wake", "", 1))))
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            "Right after its first sleep ended, when did Sorrel next take a sip of water?")


def _o6_last_meal(c: _Ctx):
    if not c.occ.get(("perish", None)):
        return None
    a = A_occ("eat", None, -1, W(hi=B_anchor(A_occ("perish", None, 1))))
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            "Before its first death, when had Sorrel most recently had a meal (a cow or a ripe plant)?")


def _o6_next_post(c: _Ctx):
    t = c.rand_t(c.T // 4, c.T - 40)
    a = A_occ("reach waypoint", None, 1, W(lo=B_num(t, False)))
    return ({"q": "slot", "anchor": a, "slot": "location", "arg": None},
            f"Following step {t}, which waypoint did Sorrel arrive at next? (Give the region it stood in.)")


def _o6_prev_tree(c: _Ctx):
    ts = c.occ.get(("chop wood", "tree"), [])
    if len(ts) < 2:
        return None
    t = c.rng.randint(ts[1] + 1, c.T - 1)
    a = A_occ("chop wood", "tree", -1, W(hi=B_num(t, False)))
    return ({"q": "slot", "anchor": a, "slot": "step", "arg": None},
            f"Going back from step {t} (not counting it), which was the most recent step at which Sorrel felled a tree?")


def _o7_zombies(c: _Ctx):
    return ({"q": "count", "pat": {"kind": "slay", "obj": "zombie"}, "win": None},
            "Tally up the zombies Sorrel killed over the whole episode: how many were there?")


def _o7_marked(c: _Ctx):
    return ({"q": "list", "kind": "set marker", "win": None},
            "Name every waypoint where Sorrel laid a first marker stone.")


def _o7_stones(c: _Ctx):
    a = c.rand_t(0, c.T - 200)
    b = c.rand_t(a + 100, c.T - 1)
    win = W(lo=B_num(a, True), hi=B_num(b, True))
    return ({"q": "count", "pat": {"kind": "quarry", "obj": "stone"}, "win": win},
            f"From step {a} to step {b}, how many times did the agent dig out stone?")


def _o7_tools(c: _Ctx):
    return ({"q": "list", "kind": "craft", "win": None},
            "What different tools came off the workbench over the whole run?")


def _o8_lap_furnace(c: _Ctx):
    if not c.occ.get(("finish lap", "")) or not c.occ.get(("put up furnace", "furnace")):
        return None
    return ({"q": "order", "a": A_occ("finish lap", "", 1), "b": A_occ("put up furnace", "furnace", 1),
             "la": "lap", "lb": "furnace"},
            ("A race between two milestones: finishing the first lap, or building the first furnace. "
             "Which came first? Answer 'lap' or 'furnace'."))


def _o8_skeleton_hut(c: _Ctx):
    if not c.occ.get(("spot", "skeleton")) or not c.occ.get(("finish hut", "")):
        return None
    return ({"q": "order", "a": A_occ("spot", "skeleton", 1), "b": A_occ("finish hut", "", 1),
             "la": "skeleton", "lb": "hut"},
            ("Sorrel first caught sight of a skeleton, and it also completed its hut. Which of the two happened "
             "sooner? Answer 'skeleton' or 'hut'."))


def _o8_sword_stone(c: _Ctx):
    if not c.occ.get(("craft", "wood sword")) or not c.occ.get(("quarry", "stone")):
        return None
    return ({"q": "order", "a": A_occ("craft", "wood sword", 1), "b": A_occ("quarry", "stone", 1),
             "la": "sword", "lb": "stone"},
            "Was I quicker to make my first wood sword or to mine my first stone? Answer 'sword' or 'stone'.")


def _o8_water_pick(c: _Ctx):
    if not c.occ.get(("drink", "water")) or not c.occ.get(("craft", "wood pickaxe")):
        return None
    return ({"q": "order", "a": A_occ("drink", "water", 1), "b": A_occ("craft", "wood pickaxe", 1),
             "la": "water", "lb": "pickaxe"},
            ("Which did the agent manage first, its first sip of water or its first wood pickaxe? "
             "Answer 'water' or 'pickaxe'."))


def _o9_spot_kill(c: _Ctx):
    if not c.occ.get(("spot", "zombie")) or not c.occ.get(("slay", "zombie")):
        return None
    return ({"q": "distance", "a": A_occ("spot", "zombie", 1), "b": A_occ("slay", "zombie", 1)},
            "How many steps lay between the first zombie Sorrel noticed close by and the first one it killed?")


def _o9_nap(c: _Ctx):
    if not c.occ.get(("bed down", "")):
        return None
    first = A_occ("bed down", "", 1)
    return ({"q": "distance", "a": first, "b": A_occ("wake", "", 1, W(lo=B_anchor(first)))},
            "How long did Sorrel's first sleep last, in steps, from dozing off to waking?")


def _o9_bench_tool(c: _Ctx):
    if not c.occ.get(("put up table", "table")):
        return None
    first = A_occ("put up table", "table", 1)
    return ({"q": "distance", "a": first, "b": A_occ("craft", None, 1, W(lo=B_anchor(first)))},
            "From the first workbench going up to the first tool coming off it, how many steps elapsed?")


def _o9_route(c: _Ctx):
    if not c.occ.get(("chart circuit", "")):
        return None
    first = A_occ("chart circuit", "", 1)
    return ({"q": "distance", "a": first, "b": A_occ("reach waypoint", None, 1, W(lo=B_anchor(first)))},
            "Between laying out its first circuit and arriving at a waypoint of it, how many steps went by?")


def _o10_diamond(c: _Ctx):
    return ({"q": "exists", "pat": {"kind": "quarry", "obj": "diamond"}, "win": None},
            "Was a diamond ever dug up?")


def _o10_skeleton_before_death(c: _Ctx):
    if not c.occ.get(("perish", None)):
        return None
    return ({"q": "exists", "pat": {"kind": "slay", "obj": "skeleton"},
             "win": W(hi=B_anchor(A_occ("perish", None, 1)))},
            "Before the first death, had Sorrel killed any skeleton?")


def _o10_arrows(c: _Ctx):
    n = c.rng.choice((100, 150, 200, 250, 300))
    return ({"q": "exists", "pat": {"kind": "get hurt", "obj": "arrow"}, "win": W(lo=B_num(c.T - n, True))},
            f"In the final {n} steps of the episode (from step {c.T - n} onward), did an arrow ever wound the agent?")


def _o10_restore(c: _Ctx):
    return ({"q": "exists", "pat": {"kind": "replace marker", "obj": None}, "win": None},
            "Did the agent ever put back a marker stone that had gone missing from a waypoint?")


ONE_OFFS = {
    "1_step_index": (_o1_peek, _o1_tally, _o1_ground, _o1_busy),
    "2_nth_occurrence": (_o2_first_kill, _o2_sip, _o2_bench, _o2_third_tree),
    "3_windowed_occurrence": (_o3_hut_door, _o3_span_stone, _o3_early_water, _o3_late_tree),
    "4_condition": (_o4_health, _o4_wood, _o4_food, _o4_mode),
    "5_offset": (_o5_rewind, _o5_forward, _o5_after_bench),
    "6_next_previous": (_o6_after_sleep, _o6_last_meal, _o6_next_post, _o6_prev_tree),
    "7_count": (_o7_zombies, _o7_marked, _o7_stones, _o7_tools),
    "8_order": (_o8_lap_furnace, _o8_skeleton_hut, _o8_sword_stone, _o8_water_pick),
    "9_distance": (_o9_nap, _o9_bench_tool, _o9_route, _o9_spot_kill),
    "10_existence": (_o10_diamond, _o10_skeleton_before_death, _o10_arrows, _o10_restore),
}


def _slot_of(spec: dict) -> str:
    return {"count": "count", "list": "list", "exists": "yes/no", "order": "which-first",
            "distance": "duration"}.get(spec["q"], spec.get("slot"))


def _questions(steps: list[Step], episode: str, seed: int) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed * 104729 + 11)
    c = _Ctx(steps, episode, rng)
    questions: list[dict] = []
    specs: list[dict] = []
    seen_text: set[str] = set()
    seen_spec: set[str] = set()

    def add(family: str, spec: dict, text: str, verbatim: bool) -> bool:
        key = json.dumps(spec, sort_keys=True)
        if text in seen_text or key in seen_spec:
            return False
        res = evaluate(steps, spec)
        if res is None:
            return False
        answer, gold = res
        if not gold and answer not in ("no", "0", "none"):
            return False
        seen_text.add(text)
        seen_spec.add(key)
        questions.append({"episode": episode, "family": family, "slot": _slot_of(spec), "question": text,
                          "answer": answer, "gold": c.ids(gold)})
        specs.append({"spec": spec, "verbatim": verbatim, "one_off": False})
        return True

    for family in FAMILIES:
        start = len(questions)
        pool = list(ONE_OFFS[family])
        rng.shuffle(pool)
        for fn in pool:
            if len(questions) - start >= 2:
                break
            got = fn(c)
            if got is not None and add(family, got[0], got[1], False):
                specs[-1]["one_off"] = True
        tries = 0
        while len(questions) - start < 6 and tries < 400:
            tries += 1
            if family == "10_existence":
                nos = sum(1 for q in questions[start:] if q["answer"] == "no")
                made = len(questions) - start
                want = "no" if nos < 2 and (6 - made) <= (2 - nos) + 2 else "yes"
                if nos >= 2:
                    want = "yes"
                got = _g_exists(c, want)
                if got is not None:
                    res = evaluate(steps, got[0])
                    if res is None or res[0] != want:
                        continue
            else:
                got = TEMPLATES[family](c)
            if got is not None:
                add(family, *got)
    return questions, specs


# ----------------------------------------------------------------------------------------------
# Building a seed, and the self-check.
# ----------------------------------------------------------------------------------------------

def _build(seed: int) -> tuple[dict, list[dict]]:
    steps = _run(seed)
    validate_steps(steps, f"{SUITE} seed {seed}")
    episode = _episode_id(seed)
    questions, specs = _questions(steps, episode, seed)
    return {"episodes": {episode: steps}, "questions": questions}, specs


def build(seed: int) -> dict:
    """One episode of Sorrel's patrol for ``seed`` and its 60 questions."""
    return _build(seed)[0]


def _digest(data: dict) -> str:
    h = hashlib.sha256()
    for episode, steps in sorted(data["episodes"].items()):
        h.update(episode.encode())
        for step in steps:
            h.update(repr(step).encode())
    h.update(json.dumps(data["questions"], sort_keys=True).encode())
    return h.hexdigest()


_KIND_RE = re.compile(r"\b(" + "|".join(sorted((re.escape(k) for k in PHRASES), key=len, reverse=True)) + r")\b",
                      re.IGNORECASE)


def _self_check(seeds: list[int]) -> None:
    for seed in seeds:
        t0 = time.process_time()
        data, specs = _build(seed)
        took = time.process_time() - t0
        (episode, steps), = data["episodes"].items()
        questions = data["questions"]
        validate_steps(steps, f"{SUITE} seed {seed}")
        assert [s.t for s in steps] == list(range(len(steps))), "steps must be numbered 0, 1, 2, ..."
        assert 300 <= len(steps) <= 1500, len(steps)
        again, _ = _build(seed)
        assert again["episodes"] == data["episodes"] and again["questions"] == questions, "rebuild differs"
        assert len(questions) == 60, len(questions)
        for q, sp in zip(questions, specs):
            assert q["episode"] == episode
            ts = [int(g.rsplit(":", 1)[1]) for g in q["gold"]]
            assert all(g.rsplit(":", 1)[0] == episode for g in q["gold"]), q
            assert ts == sorted(set(ts)), q
            answer, gold = evaluate(steps, sp["spec"])
            assert answer == q["answer"] and [f"{episode}:{t}" for t in sorted(gold)] == q["gold"], (q, answer, gold)
            if not q["gold"]:
                assert q["answer"] in ("no", "0", "none"), q
        fam = Counter(q["family"] for q in questions)
        assert all(fam[f] == 6 for f in FAMILIES), fam
        verbatim = sum(1 for q in questions if _KIND_RE.search(q["question"]))
        assert verbatim <= len(questions) // 2, f"{verbatim} questions name an event kind verbatim"
        one_offs = sum(1 for sp in specs if sp["one_off"])
        nos = sum(1 for q in questions if q["family"] == "10_existence" and q["answer"] == "no")
        # the same seed in a fresh process (another hash seed) must give the same records and questions
        env = dict(os.environ, PYTHONHASHSEED=str(seed % 1000 + 7))
        here = os.path.dirname(os.path.abspath(__file__))
        code = (f"import sys; sys.path[:0] = {[here, os.getcwd()]!r}; import importlib; "
                f"m = importlib.import_module({__spec__.name if __spec__ else 'heldout10_crafter'!r}); "
                f"print(m._digest(m.build({seed})))")
        other = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert other.stdout.strip() == _digest(data), "a fresh process built a different episode"
        kinds = Counter(e.kind for s in steps for e in s.events)
        print(f"seed {seed}: {len(steps)} steps, built in {took:.1f}s CPU, {len(kinds)} event kinds, "
              f"{steps[-1].state_dict['laps']} laps, {steps[-1].state_dict['life']} lives; {len(questions)} questions, "
              f"{one_offs} one-offs, {verbatim} naming a kind verbatim, {nos} existence 'no'")
        for family in FAMILIES:
            slots = Counter(q["slot"] for q in questions if q["family"] == family)
            print(f"  {family:24s} {fam[family]}  " + ", ".join(f"{k} {v}" for k, v in sorted(slots.items())))
        rng = random.Random(seed)
        for q in rng.sample(questions, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold {q['gold']}")
    print("self-check passed")


if __name__ == "__main__":
    _self_check([int(a) for a in sys.argv[1:]] or list(SEED_RANGE)[:2])
