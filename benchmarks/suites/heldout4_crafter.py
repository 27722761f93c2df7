"""Held-out suite ``heldout4_crafter``: Magpie, a phase-by-phase hoarder living in real Crafter.

What it simulates
-----------------
Each seed (7900-7999) is one episode of the real Crafter game (``crafter.Env`` with a 64x64 world,
seeded with the suite seed), planned at 900-1400 agent steps (it ends sooner if the agent loses its
last life).  The pixel observation is never rendered
(the renderer's night-time noise would only draw from the world's random stream); everything else
is Crafter's own simulation: terrain, cows, zombies, skeletons and arrows, hunger, thirst, fatigue,
day and night.  (One detail is pinned down: Crafter hands each chunk's creatures to its spawn/despawn
balancer as a set ordered by memory address; the suite hands them over sorted by position, so that a
rollout is the same in every process.)  When the agent dies, the same ``Env`` is reset into a fresh
world and the episode goes on as a new *life*: step indices keep counting and the state value
``life`` goes up by one.  Magpie has three lives: the third death ends the episode (unless fewer than
400 steps have passed, in which case it starts yet another life).

How the agent behaves
---------------------
The agent, called Magpie, is a hoarder.  It stockpiles one resource at a time, in a fixed cycle of
phases, each with a step budget: hoard wood, set up a camp (a new table unless one is close, then a
wood pickaxe and a wood sword), hoard saplings and sow them, hoard stone, set up a forge (a table and
a furnace side by side, a stone pickaxe and a stone sword), hoard coal, hoard iron, smith iron tools,
and finally roam to a far-off spot before starting the cycle again with fresh stockpile targets.
Survival interrupts the phases: it fights zombies and skeletons that stand next to it (unless it is
unarmed and down to 2 health), backs away from nearby zombies while its health is 4 or less, fetches
water when its drink level is 3 or less, hunts cows when its food is 3 or less, and lies down to sleep
wherever it stands when tired (energy 3 or less by day with no zombie in sight, energy 1 with none
close, or energy 0 in any case).  Night-time zombies often get the better of it.  Paths are
breadth-first searches over grass, sand and path tiles; Magpie never steps on lava.

Records
-------
One ``Step`` per action.  ``action`` is the Crafter action name (``move_left``, ``do``, ``sleep``,
``place_table``, ``make_wood_pickaxe``, ...).  ``inventory`` holds the Crafter items with a count
above zero, with spaces for underscores ("wood pickaxe").  ``state`` holds ``health``, ``food``,
``drink``, ``energy`` (ints 0-9), ``life`` (int), ``asleep`` (bool) and ``activity`` (text: the
mode the agent acted in, such as "hoarding stone" or "fetching water").  ``location`` has the grid
position, the tile underfoot and a region named by the terrain in the 9x9 window around the agent:
"caverns" (standing on a path tile among mostly rock), "crags" (mostly rock), "shore" (water and
sand), "thicket" (many trees) or "meadow"; a new region is taken once the terrain has read that way
for 3 steps in a row.  The one relation is ``("agent", "facing", X)`` with X the
creature or tile in front of the agent after the step.

Event vocabulary (kind, object), in this order within a step:
``start new life`` (first step of lives after the first), ``hit`` cow/zombie/skeleton (every blow,
killing blows included), ``fell`` tree, ``gather`` sapling, ``quarry`` stone/coal/iron/diamond,
``drink`` water, ``eat`` cow/plant, ``defeat`` zombie/skeleton, ``place`` table/furnace/stone,
``sow`` sapling, ``craft`` <tool>, ``damage`` <cause> (at most one per step, naming the cause that took
the most health: zombie, arrow, lava, or hunger / thirst / exhaustion for the first empty need, food
before drink before energy), ``die``, ``sleep``
(fell asleep), ``wake``, ``enter`` <region> (the region changed during a life).

How answers are computed
------------------------
A reference evaluator scans the Step records only.  Occurrences are events matching a kind and an
object (or any object); counts count matching events; windows follow the specification's
conventions ("before" and "after" exclude the bound, "between A and B" and "by N" include it,
an occurrence without ordinal is the first).  Condition questions name the first (or last) step
whose value after the action meets the condition; "ran out" is a count of 0 after a count above 0
one step earlier.  Every question is worded from this module's own lexicon and templates.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

import crafter
from crafter import constants as _cc
from crafter import objects as _co

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout4_crafter"
SEEDS = range(7900, 8000)
AGENT_NAME = "Magpie"

FAMILIES = (
    "1_step_index",
    "2_nth_occurrence",
    "3_windowed_occurrence",
    "4_condition",
    "5_offset",
    "6_next_previous",
    "7_count",
    "8_order",
    "9_distance",
    "10_existence",
)
PER_FAMILY = 6

# ------------------------------------------------------------------------------------------------
# Simulation: Crafter world helpers
# ------------------------------------------------------------------------------------------------

_WALK = ("grass", "sand", "path")
_DIRS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
_MOVE = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
_ACTIONS: list[str] = list(_cc.actions)
_VITALS = ("health", "food", "drink", "energy")
_ROCK = ("stone", "path", "coal", "iron", "diamond", "lava")
_CREATURES = (_co.Cow, _co.Zombie, _co.Skeleton)

Pos = tuple[int, int]


def _cost(kind: str, name: str) -> dict[str, int]:
    table = _cc.place if kind == "place" else _cc.make
    return dict(table[name]["uses"])


def _dilate4(mask: np.ndarray) -> np.ndarray:
    """Cells with a 4-neighbour in ``mask``."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _dilate9(mask: np.ndarray) -> np.ndarray:
    """Cells whose 3x3 neighbourhood (themselves included) touches ``mask``."""
    rows = mask.copy()
    rows[1:, :] |= mask[:-1, :]
    rows[:-1, :] |= mask[1:, :]
    out = rows.copy()
    out[:, 1:] |= rows[:, :-1]
    out[:, :-1] |= rows[:, 1:]
    return out


class _Grid:
    """A snapshot of the world for one decision: walkable free tiles and material masks."""

    def __init__(self, world: Any, player: Any) -> None:
        self.world = world
        self.ids: dict[Any, int] = world._mat_ids
        self.mat: np.ndarray = world._mat_map
        self.w, self.h = self.mat.shape
        occupied = world._obj_map != 0
        walk = np.isin(self.mat, [self.ids[m] for m in _WALK]) & ~occupied
        self.walk_np = walk
        self.walk: list[list[bool]] = walk.tolist()
        self.pos: Pos = (int(player.pos[0]), int(player.pos[1]))

    def mask(self, material: str) -> np.ndarray:
        return self.mat == self.ids[material]

    def inside(self, p: Pos) -> bool:
        return 0 <= p[0] < self.w and 0 <= p[1] < self.h

    def material(self, p: Pos) -> Optional[str]:
        if not self.inside(p):
            return None
        return self.world[p][0]

    def obj(self, p: Pos) -> Any:
        if not self.inside(p):
            return None
        return self.world[p][1]

    def goal(self, mask: np.ndarray) -> list[list[bool]]:
        """A goal grid: free walkable cells of ``mask``, plus the agent's own cell if in ``mask``."""
        g = mask & self.walk_np
        g[self.pos] = bool(mask[self.pos])
        return g.tolist()

    def bfs(self, goal: list[list[bool]], max_dist: int = 10**6) -> Optional[tuple[Optional[Pos], int]]:
        """First move towards the nearest goal cell and its distance; (None, 0) if already there."""
        sx, sy = self.pos
        if goal[sx][sy]:
            return None, 0
        seen = [[False] * self.h for _ in range(self.w)]
        seen[sx][sy] = True
        queue: deque[tuple[int, int, Optional[Pos], int]] = deque([(sx, sy, None, 0)])
        walk = self.walk
        while queue:
            x, y, first, d = queue.popleft()
            if d >= max_dist:
                continue
            for dx, dy in _DIRS:
                nx, ny = x + dx, y + dy
                if 0 <= nx < self.w and 0 <= ny < self.h and not seen[nx][ny] and walk[nx][ny]:
                    seen[nx][ny] = True
                    step = first if first is not None else (dx, dy)
                    if goal[nx][ny]:
                        return step, d + 1
                    queue.append((nx, ny, step, d + 1))
        return None

    def distances(self, max_dist: int) -> dict[Pos, int]:
        sx, sy = self.pos
        dist: dict[Pos, int] = {(sx, sy): 0}
        queue: deque[Pos] = deque([(sx, sy)])
        while queue:
            x, y = queue.popleft()
            d = dist[(x, y)]
            if d >= max_dist:
                continue
            for dx, dy in _DIRS:
                n = (x + dx, y + dy)
                if self.inside(n) and n not in dist and self.walk[n[0]][n[1]]:
                    dist[n] = d + 1
                    queue.append(n)
        return dist


def _region(world: Any, pos: Pos) -> tuple[str, str]:
    """(region, underfoot) for a position: named after the terrain of the 9x9 window around it."""
    mat = world._mat_map
    w, h = mat.shape
    x, y = pos
    window = mat[max(0, x - 4): min(w, x + 5), max(0, y - 4): min(h, y + 5)]
    ids = world._mat_ids
    total = float(window.size)

    def share(names: Sequence[str]) -> float:
        return float(np.isin(window, [ids[n] for n in names]).sum()) / total

    underfoot = world[pos][0] or "nothing"
    rock = share(_ROCK)
    if underfoot == "path" and rock >= 0.45:
        return "caverns", underfoot
    if rock >= 0.35:
        return "crags", underfoot
    if share(("water", "sand")) >= 0.3:
        return "shore", underfoot
    if share(("tree",)) >= 0.12:
        return "thicket", underfoot
    return "meadow", underfoot


def _thing_name(material: Optional[str], obj: Any) -> str:
    if obj is not None:
        if isinstance(obj, _co.Plant):
            return "ripe plant" if obj.ripe else "plant"
        return type(obj).__name__.lower()
    if material is None:
        return "world edge"
    return str(material)


# ------------------------------------------------------------------------------------------------
# The agent
# ------------------------------------------------------------------------------------------------

_PHASES = (
    "hoard_wood",
    "camp",
    "hoard_sapling",
    "sow",
    "hoard_stone",
    "forge",
    "hoard_coal",
    "hoard_iron",
    "smith",
    "roam",
)


class _Magpie:
    """The scripted hoarder. ``act`` returns (Crafter action name, activity label)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.new_life()

    def new_life(self) -> None:
        self.phase_i = 0
        self.phase_steps = 0
        self.need: Optional[str] = None
        self.need_steps = 0
        self.sleep_block = 0
        self.roam_goal: Optional[Pos] = None
        self.last_dir: Pos = (0, 1)
        self._reroll()

    def _reroll(self) -> None:
        r = self.rng
        self.targets = {
            "wood": r.randint(6, 9),
            "sapling": r.randint(1, 3),
            "stone": r.randint(5, 9),
            "coal": r.randint(2, 5),
            "iron": r.randint(1, 2),
        }

    # -- movement primitives ------------------------------------------------------------------

    def _wander(self, g: _Grid) -> str:
        options = [d for d in _DIRS if g.inside((g.pos[0] + d[0], g.pos[1] + d[1]))
                   and g.walk[g.pos[0] + d[0]][g.pos[1] + d[1]]]
        if not options:
            return "noop"
        if self.last_dir in options and self.rng.random() < 0.6:
            d = self.last_dir
        else:
            d = self.rng.choice(options)
        self.last_dir = d
        return _MOVE[d]

    def _step_to(self, g: _Grid, goal: list[list[bool]], max_dist: int = 10**6) -> Optional[str]:
        found = g.bfs(goal, max_dist)
        if found is None:
            return None
        first, _ = found
        if first is None:
            return ""  # already at the goal
        self.last_dir = first
        return _MOVE[first]

    def _face_and(self, player: Any, g: _Grid, is_target: Callable[[Pos], bool], action: str) -> Optional[str]:
        """If a target is 4-adjacent: turn to it (a blocked move) or, when facing it, do ``action``."""
        fx, fy = int(player.facing[0]), int(player.facing[1])
        if is_target((g.pos[0] + fx, g.pos[1] + fy)):
            return action
        for d in _DIRS:
            if is_target((g.pos[0] + d[0], g.pos[1] + d[1])):
                return _MOVE[d]
        return None

    def _work_material(self, player: Any, g: _Grid, material: str) -> tuple[str, bool]:
        """Walk to the nearest tile of ``material`` and strike it; (action, reachable)."""
        here = self._face_and(player, g, lambda p: g.material(p) == material and g.obj(p) is None, "do")
        if here is not None:
            return here, True
        move = self._step_to(g, g.goal(_dilate4(g.mask(material))))
        if move:
            return move, True
        return self._wander(g), False

    def _placeable(self, g: _Grid, p: Pos, where: Sequence[str]) -> bool:
        return g.inside(p) and g.material(p) in where and g.obj(p) is None

    def _place(self, player: Any, g: _Grid, name: str, keep_near: Optional[np.ndarray] = None) -> str:
        """Place ``name`` on the faced tile if possible, else shuffle to a cell (inside ``keep_near``)."""
        where = _cc.place[name]["where"]
        front = (g.pos[0] + int(player.facing[0]), g.pos[1] + int(player.facing[1]))
        if self._placeable(g, front, where) and (keep_near is None or keep_near[g.pos]):
            return "place_" + name
        options = []
        for d in _DIRS:
            n = (g.pos[0] + d[0], g.pos[1] + d[1])
            if g.inside(n) and g.walk[n[0]][n[1]] and (keep_near is None or keep_near[n]):
                options.append(d)
        if not options:
            return self._wander(g)
        d = self.rng.choice(options)
        self.last_dir = d
        return _MOVE[d]

    # -- survival -------------------------------------------------------------------------------

    def _threat(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        foes = []
        for d in _DIRS:
            o = g.obj((g.pos[0] + d[0], g.pos[1] + d[1]))
            if isinstance(o, (_co.Zombie, _co.Skeleton)) and o.health > 0:
                foes.append((d, o))
        if not foes:
            return None
        d, foe = foes[0]
        armed = player.inventory["wood_sword"] + player.inventory["stone_sword"] + player.inventory["iron_sword"]
        if player.inventory["health"] >= 3 or armed:
            fx, fy = int(player.facing[0]), int(player.facing[1])
            return ("do" if (fx, fy) == d else _MOVE[d]), "fighting"
        best, best_dist = None, -1
        for e in _DIRS:
            n = (g.pos[0] + e[0], g.pos[1] + e[1])
            if g.inside(n) and g.walk[n[0]][n[1]]:
                dist = abs(n[0] - int(foe.pos[0])) + abs(n[1] - int(foe.pos[1]))
                if dist > best_dist:
                    best, best_dist = e, dist
        if best is None:
            fx, fy = int(player.facing[0]), int(player.facing[1])
            return ("do" if (fx, fy) == d else _MOVE[d]), "fighting"
        self.last_dir = best
        return _MOVE[best], "fleeing"

    def _keep_away(self, player: Any, g: _Grid) -> Optional[str]:
        """A step that increases the distance to the nearest zombie within 5 tiles, if any."""
        near = [o for o in g.world.objects if isinstance(o, _co.Zombie) and player.distance(o) <= 5]
        if not near:
            return None
        foe = min(near, key=lambda o: (player.distance(o), int(o.pos[0]), int(o.pos[1])))
        fx, fy = int(foe.pos[0]), int(foe.pos[1])
        here = abs(g.pos[0] - fx) + abs(g.pos[1] - fy)
        best, best_dist = None, here
        for e in _DIRS:
            n = (g.pos[0] + e[0], g.pos[1] + e[1])
            if g.inside(n) and g.walk[n[0]][n[1]]:
                dist = abs(n[0] - fx) + abs(n[1] - fy)
                if dist > best_dist:
                    best, best_dist = e, dist
        if best is None:
            return None
        self.last_dir = best
        return _MOVE[best]

    def _hunt(self, player: Any, g: _Grid) -> str:
        def is_cow(p: Pos) -> bool:
            return isinstance(g.obj(p), _co.Cow)

        here = self._face_and(player, g, is_cow, "do")
        if here is not None:
            return here
        cows = np.zeros_like(g.walk_np)
        for o in g.world.objects:
            if isinstance(o, _co.Cow):
                cows[int(o.pos[0]), int(o.pos[1])] = True
        move = self._step_to(g, g.goal(_dilate4(cows)), 40)
        return move if move else self._wander(g)

    def _wants_rest(self, player: Any, world: Any) -> bool:
        energy = player.inventory["energy"]
        if energy == 0:
            return True
        if energy <= 1:
            return not self._zombie_within(player, world, 4)
        return energy <= 3 and world.daylight >= 0.45 and not self._zombie_within(player, world, 6)

    def _zombie_within(self, player: Any, world: Any, radius: int) -> bool:
        for o in world.objects:
            if isinstance(o, _co.Zombie) and player.distance(o) <= radius:
                return True
        return False

    # -- phases ---------------------------------------------------------------------------------

    def _near(self, g: _Grid, material: str) -> bool:
        return bool(_dilate9(g.mask(material))[g.pos])

    def _craft_at(self, g: _Grid, tool: str, near_mask: np.ndarray, max_dist: int) -> Optional[str]:
        if near_mask[g.pos]:
            return "make_" + tool
        return self._step_to(g, g.goal(near_mask), max_dist) or None

    def _can_make(self, inv: dict[str, int], tool: str) -> bool:
        return all(inv[k] >= v for k, v in _cost("make", tool).items())

    def _ph_hoard_wood(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        if player.inventory["wood"] >= self.targets["wood"] or self.phase_steps > 170:
            return None
        return self._work_material(player, g, "tree")[0], "hoarding wood"

    def _ph_camp(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        inv = player.inventory
        if self.phase_steps > 60:
            return None
        table_near = _dilate9(g.mask("table"))
        found = g.bfs(g.goal(table_near), 6)
        if found is None:
            if all(inv[k] >= v for k, v in _cost("place", "table").items()):
                return self._place(player, g, "table"), "setting up camp"
            return None
        for tool in ("wood_pickaxe", "wood_sword"):
            if inv[tool] == 0 and self._can_make(inv, tool):
                act = self._craft_at(g, tool, table_near, 8)
                if act:
                    return act, "setting up camp"
        return None

    def _ph_hoard_sapling(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        if player.inventory["sapling"] >= self.targets["sapling"] or self.phase_steps > 50:
            return None
        front = (g.pos[0] + int(player.facing[0]), g.pos[1] + int(player.facing[1]))
        if g.material(front) == "grass" and g.obj(front) is None:
            return "do", "hoarding saplings"
        return self._wander(g), "hoarding saplings"

    def _ph_sow(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        if player.inventory["sapling"] == 0 or self.phase_steps > 30:
            return None
        front = (g.pos[0] + int(player.facing[0]), g.pos[1] + int(player.facing[1]))
        if g.material(front) == "grass" and g.obj(front) is None:
            return "place_plant", "sowing saplings"
        return self._wander(g), "sowing saplings"

    def _hoard_rock(self, player: Any, g: _Grid, item: str, tool: str, budget: int) -> Optional[tuple[str, str]]:
        inv = player.inventory
        if inv[tool] == 0 or inv[item] >= self.targets[item] or self.phase_steps > budget:
            return None
        return self._work_material(player, g, item)[0], "hoarding " + item

    def _ph_hoard_stone(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        return self._hoard_rock(player, g, "stone", "wood_pickaxe", 220)

    def _ph_hoard_coal(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        return self._hoard_rock(player, g, "coal", "wood_pickaxe", 160)

    def _ph_hoard_iron(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        return self._hoard_rock(player, g, "iron", "stone_pickaxe", 200)

    def _build_forge(self, player: Any, g: _Grid, label: str) -> Optional[tuple[str, str]]:
        """Walk to a table+furnace pair, or put one down; None when at a forge (or hopeless)."""
        inv = player.inventory
        forge = _dilate9(g.mask("table")) & _dilate9(g.mask("furnace"))
        if forge[g.pos]:
            return None
        move = self._step_to(g, g.goal(forge), 10)
        if move:
            return move, label
        table_near = _dilate9(g.mask("table"))
        if table_near[g.pos]:
            if all(inv[k] >= v for k, v in _cost("place", "furnace").items()):
                return self._place(player, g, "furnace", keep_near=table_near), label
            return None
        if all(inv[k] >= v for k, v in _cost("place", "table").items()):
            return self._place(player, g, "table"), label
        if self.phase_steps < 40:
            return self._work_material(player, g, "tree")[0], "hoarding wood"
        return None

    def _ph_forge(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        inv = player.inventory
        if inv["wood_pickaxe"] == 0 or self.phase_steps > 90:
            return None
        wants = [t for t in ("stone_pickaxe", "stone_sword") if inv[t] == 0]
        if not self._near(g, "furnace") or not self._near(g, "table"):
            built = self._build_forge(player, g, "setting up a forge")
            if built is not None:
                return built
        for tool in wants:
            if self._can_make(inv, tool) and self._near(g, "table"):
                return "make_" + tool, "setting up a forge"
        return None

    def _ph_smith(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        inv = player.inventory
        wants = [t for t in ("iron_pickaxe", "iron_sword") if inv[t] == 0 and self._can_make(inv, t)]
        if not wants or self.phase_steps > 90:
            return None
        if not (self._near(g, "furnace") and self._near(g, "table")):
            built = self._build_forge(player, g, "smithing")
            if built is not None:
                return built
            if not (self._near(g, "furnace") and self._near(g, "table")):
                return None
        return "make_" + wants[0], "smithing"

    def _ph_roam(self, player: Any, g: _Grid) -> Optional[tuple[str, str]]:
        if self.phase_steps > 70:
            return None
        if self.roam_goal is None:
            dist = g.distances(36)
            far = sorted(p for p, d in dist.items() if d >= 16)
            if not far:
                return None
            self.roam_goal = self.rng.choice(far)
        if g.pos == self.roam_goal:
            return None
        mask = np.zeros_like(g.walk_np)
        mask[self.roam_goal] = True
        move = self._step_to(g, g.goal(mask), 60)
        if not move:
            return None
        return move, "roaming"

    def _advance(self) -> None:
        self.phase_i += 1
        self.phase_steps = 0
        if self.phase_i >= len(_PHASES):
            self.phase_i = 0
            self.roam_goal = None
            self._reroll()

    # -- the policy -----------------------------------------------------------------------------

    def act(self, world: Any, player: Any) -> tuple[str, str]:
        inv = player.inventory
        if player.sleeping:
            return "sleep", "sleeping"
        if self.sleep_block:
            self.sleep_block -= 1
        g = _Grid(world, player)
        threat = self._threat(player, g)
        if threat is not None:
            return threat
        if inv["health"] <= 4:
            escape = self._keep_away(player, g)
            if escape is not None:
                return escape, "fleeing"
        # Opportunistic snacks and gems.
        if inv["food"] <= 7:
            snack = self._face_and(player, g, lambda p: isinstance(g.obj(p), _co.Plant) and g.obj(p).ripe, "do")
            if snack is not None:
                return snack, "snacking"
        if inv["iron_pickaxe"] > 0:
            gem = self._face_and(player, g, lambda p: g.material(p) == "diamond", "do")
            if gem is not None:
                return gem, "prospecting"
        if self.need is None:
            self.need_steps = 0
            if inv["drink"] <= 3:
                self.need = "water"
            elif inv["food"] <= 3:
                self.need = "food"
            elif not self.sleep_block and self._wants_rest(player, world):
                self.need = "rest"
        if self.need == "water":
            if inv["drink"] >= 8 or self.need_steps > 160:
                self.need = None
            else:
                self.need_steps += 1
                return self._work_material(player, g, "water")[0], "fetching water"
        if self.need == "food":
            if inv["food"] >= 7 or self.need_steps > 200:
                self.need = None
            else:
                self.need_steps += 1
                return self._hunt(player, g), "hunting"
        if self.need == "rest":
            self.need = None
            self.sleep_block = 30
            return "sleep", "sleeping"
        for _ in range(len(_PHASES) + 1):
            method = getattr(self, "_ph_" + _PHASES[self.phase_i])
            result = method(player, g)
            if result is not None:
                self.phase_steps += 1
                return result
            self._advance()
        return self._wander(g), "roaming"


# ------------------------------------------------------------------------------------------------
# Rollout and adapter
# ------------------------------------------------------------------------------------------------

_ACHIEVEMENT_EVENTS: tuple[tuple[str, str, str], ...] = (
    ("collect_wood", "fell", "tree"),
    ("collect_sapling", "gather", "sapling"),
    ("collect_stone", "quarry", "stone"),
    ("collect_coal", "quarry", "coal"),
    ("collect_iron", "quarry", "iron"),
    ("collect_diamond", "quarry", "diamond"),
    ("collect_drink", "drink", "water"),
    ("eat_cow", "eat", "cow"),
    ("eat_plant", "eat", "plant"),
    ("defeat_zombie", "defeat", "zombie"),
    ("defeat_skeleton", "defeat", "skeleton"),
    ("place_table", "place", "table"),
    ("place_furnace", "place", "furnace"),
    ("place_stone", "place", "stone"),
    ("place_plant", "sow", "sapling"),
    ("make_wood_pickaxe", "craft", "wood pickaxe"),
    ("make_stone_pickaxe", "craft", "stone pickaxe"),
    ("make_iron_pickaxe", "craft", "iron pickaxe"),
    ("make_wood_sword", "craft", "wood sword"),
    ("make_stone_sword", "craft", "stone sword"),
    ("make_iron_sword", "craft", "iron sword"),
)

_EVENT_WORDS = {
    "start new life": "began a new life",
    "hit": "hit a {obj}",
    "fell": "felled a tree",
    "gather": "gathered a sapling",
    "quarry": "quarried {obj}",
    "drink": "drank water",
    "eat": "ate a {obj}",
    "defeat": "defeated a {obj}",
    "place": "placed a {obj}",
    "sow": "sowed a sapling",
    "craft": "crafted a {obj}",
    "damage": "took damage ({obj})",
    "die": "died",
    "sleep": "fell asleep",
    "wake": "woke up",
    "enter": "entered the {obj}",
}


class _DamageLog:
    """Collects (cause, amount) health losses during one env step, from wrapped update methods."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, int]] = []


def _wrap_player(player: Any, world: Any, log: _DamageLog) -> None:
    original = player.update

    def update() -> None:
        before = player.health
        original()
        lost = before - player.health
        if lost > 0:
            inv = player.inventory
            if world[player.pos][0] == "lava":
                cause = "lava"
            elif inv["food"] <= 0:
                cause = "hunger"
            elif inv["drink"] <= 0:
                cause = "thirst"
            else:
                cause = "exhaustion"
            log.entries.append((cause, lost))

    player.update = update


def _wrap_attackers(world: Any, player: Any, log: _DamageLog) -> None:
    for obj in world.objects:
        if isinstance(obj, (_co.Zombie, _co.Arrow)) and not getattr(obj, "_magpie_watch", False):
            original = obj.update
            cause = "zombie" if isinstance(obj, _co.Zombie) else "arrow"

            def update(original: Callable[[], None] = original, cause: str = cause) -> None:
                before = player.health
                original()
                lost = before - player.health
                if lost > 0:
                    log.entries.append((cause, lost))

            obj.update = update
            obj._magpie_watch = True


def _visible(world: Any, pos: Pos) -> tuple[str, ...]:
    mat = world._mat_map
    w, h = mat.shape
    x, y = pos
    window = mat[max(0, x - 4): min(w, x + 5), max(0, y - 3): min(h, y + 4)]
    names = {world._mat_names[int(i)] for i in np.unique(window)}
    for obj in world.objects:
        ox, oy = int(obj.pos[0]), int(obj.pos[1])
        if abs(ox - x) <= 4 and abs(oy - y) <= 3 and not isinstance(obj, _co.Player):
            names.add(_thing_name(None, obj))
    return tuple(sorted(n for n in names if n))


def _make_balance_deterministic(env: Any) -> None:
    """Crafter hands each chunk's creatures to its spawn/despawn balancer as a set, whose order follows
    memory addresses; the despawn victim is drawn by index from it. Handing them over sorted by position
    (one object per tile) makes a rollout identical in every process."""
    original = env._balance_chunk

    def balance(chunk: Any, objs: Any) -> None:
        original(chunk, sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1]))))

    env._balance_chunk = balance


_MAX_LIVES = 3
_REGION_DEBOUNCE = 3
_MIN_STEPS = 400


def _simulate(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 3)
    n_steps = rng.randint(900, 1400)
    env = crafter.Env(seed=seed, length=None)
    env._obs = lambda: None  # no pixels needed; keeps the rollout cheap
    _make_balance_deterministic(env)
    env.reset()
    agent = _Magpie(random.Random(seed * 31 + 5))
    log = _DamageLog()
    _wrap_player(env._player, env._world, log)
    life = 1
    fresh_life = False
    prev_region: Optional[str] = None
    pending, streak = "", 0
    steps: list[Step] = []
    for t in range(n_steps):
        world, player = env._world, env._player
        action, activity = agent.act(world, player)
        front = (int(player.pos[0] + player.facing[0]), int(player.pos[1] + player.facing[1]))
        target_obj = world[front][1]
        ach_before = dict(player.achievements)
        asleep_before = bool(player.sleeping)
        _wrap_attackers(world, player, log)
        log.entries = []
        env.step(_ACTIONS.index(action))

        events: list[Event] = []
        if fresh_life:
            events.append(Event("start new life"))
            fresh_life = False
        if action == "do" and isinstance(target_obj, _CREATURES) and not asleep_before:
            events.append(Event("hit", type(target_obj).__name__.lower()))
        for name, kind, obj in _ACHIEVEMENT_EVENTS:
            if player.achievements[name] > ach_before[name]:
                events.append(Event(kind, obj))
        if log.entries:
            totals: dict[str, int] = {}
            for cause, lost in log.entries:
                totals[cause] = totals.get(cause, 0) + lost
            main = max(totals, key=lambda c: (totals[c], -list(totals).index(c)))
            events.append(Event("damage", main))
        dead = player.health <= 0
        if dead:
            events.append(Event("die"))
        if not asleep_before and player.sleeping:
            events.append(Event("sleep"))
        if asleep_before and not player.sleeping:
            events.append(Event("wake"))
        pos = (int(player.pos[0]), int(player.pos[1]))
        raw, underfoot = _region(world, pos)
        if prev_region is None:
            region, streak = raw, 0
        else:
            streak = streak + 1 if raw == pending else 1
            pending = raw
            region = prev_region
            if raw != prev_region and streak >= _REGION_DEBOUNCE:
                region = raw
                events.append(Event("enter", region))
        pending = raw
        prev_region = region

        inv = {k.replace("_", " "): int(v) for k, v in player.inventory.items() if k not in _VITALS and v > 0}
        state: dict[str, Any] = {k: int(player.inventory[k]) for k in _VITALS}
        state["life"] = life
        state["asleep"] = bool(player.sleeping)
        state["activity"] = activity
        front_after = (pos[0] + int(player.facing[0]), pos[1] + int(player.facing[1]))
        material, obj = world[front_after]
        facing = _thing_name(material, obj)
        objects = _visible(world, pos)
        daypart = "night" if world.daylight < 0.3 else "day"
        said = [
            _EVENT_WORDS[e.kind].format(obj=e.obj) for e in events
        ]
        summary = f"{AGENT_NAME} ({activity}) chose {action}" + ("; " + "; ".join(said) if said else "")
        observation = (
            f"{daypart.capitalize()}, {region} ({underfoot}). Facing {facing}. "
            f"In view: {', '.join(objects)}. Health {state['health']}, food {state['food']}, "
            f"drink {state['drink']}, energy {state['energy']}."
        )[:400]
        steps.append(Step(
            t=t,
            action=action,
            summary=summary,
            objects=objects,
            events=tuple(events),
            relations=(Relation("agent", "facing", facing),),
            inventory=inv,
            state=state,
            location=Location(position=pos, region=region, underfoot=underfoot),
            observation=observation,
        ))
        if dead and life >= _MAX_LIVES and t + 1 >= _MIN_STEPS:
            break  # the last life is over: the episode ends with this death
        if dead and t < n_steps - 1:
            env.reset()
            life += 1
            fresh_life = True
            prev_region = None
            agent.new_life()
            _wrap_player(env._player, env._world, log)
    return steps


# ------------------------------------------------------------------------------------------------
# Lexicon: how people talk about the events
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Act:
    """An event type as questions name it: kind plus object (None: any object of that kind)."""

    key: str
    kind: str
    obj: Optional[str]
    base: tuple[str, ...]  # "cut down a tree" (after did / to)
    past: tuple[str, ...]  # "cut down a tree" (I ...)
    pp: tuple[str, ...]  # "cut down a tree" (have I ever ...)
    ger: tuple[str, ...]  # "cutting down a tree"
    noun: tuple[str, ...] = ()  # "zombie kill" (my third ...)
    howmany: tuple[str, ...] = ()  # "how many trees did {s} cut down"
    weight: float = 1.0

    def matches(self, ev: Event) -> bool:
        return ev.kind == self.kind and (self.obj is None or ev.obj == self.obj)


def _a(key: str, kind: str, obj: Optional[str], base: Sequence[str], past: Sequence[str], pp: Sequence[str],
       ger: Sequence[str], noun: Sequence[str] = (), howmany: Sequence[str] = (), weight: float = 1.0) -> _Act:
    return _Act(key, kind, obj, tuple(base), tuple(past), tuple(pp), tuple(ger), tuple(noun), tuple(howmany), weight)


def _tool_act(tool: str, adjective: str) -> _Act:
    kind_word = tool.split()[1]
    a = "an" if tool[0] in "aeiou" else "a"
    b = "an" if adjective[0] in "aeiou" else "a"
    return _a(
        "craft " + tool, "craft", tool,
        [f"craft {a} {tool}", f"make {b} {adjective} {kind_word}", f"build {a} {tool}"],
        [f"crafted {a} {tool}", f"made {b} {adjective} {kind_word}", f"built {a} {tool}"],
        [f"crafted {a} {tool}", f"made {b} {adjective} {kind_word}", f"built {a} {tool}"],
        [f"crafting {a} {tool}", f"making {b} {adjective} {kind_word}"],
        howmany=[f"how many {tool}s did {{s}} craft", f"how many {adjective} {kind_word}s did {{s}} make"],
        weight=0.6,
    )


def _region_act(region: str) -> _Act:
    place = f"the {region}"
    return _a(
        "enter " + region, "enter", region,
        [f"enter {place}", f"walk into {place}", f"arrive in {place}"],
        [f"entered {place}", f"walked into {place}", f"arrived in {place}"],
        [f"entered {place}", f"walked into {place}", f"arrived in {place}"],
        [f"entering {place}", f"arriving in {place}", f"walking into {place}"],
        noun=[f"arrival in {place}"],
        howmany=[f"how many times did {{s}} enter {place}", f"how often did {{s}} walk into {place}"],
        weight=0.35,
    )


_ACTS: tuple[_Act, ...] = (
    _a("fell tree", "fell", "tree",
       ["cut down a tree", "fell a tree", "chop down a tree", "get wood from a tree"],
       ["cut down a tree", "felled a tree", "chopped down a tree", "got wood from a tree"],
       ["cut down a tree", "felled a tree", "chopped down a tree", "gotten wood from a tree"],
       ["cutting down a tree", "felling a tree", "chopping down a tree", "getting wood from a tree"],
       howmany=["how many trees did {s} cut down", "how many trees did {s} fell",
                "how many trees did {s} chop down"]),
    _a("gather sapling", "gather", "sapling",
       ["pick up a sapling", "gather a sapling", "find a sapling in the grass"],
       ["picked up a sapling", "gathered a sapling", "found a sapling in the grass"],
       ["picked up a sapling", "gathered a sapling", "found a sapling in the grass"],
       ["picking up a sapling", "gathering a sapling", "finding a sapling in the grass"],
       howmany=["how many saplings did {s} gather", "how many saplings did {s} pick up"]),
    _a("quarry stone", "quarry", "stone",
       ["quarry stone", "mine a block of stone", "dig out a stone block", "break a stone block"],
       ["quarried stone", "mined a block of stone", "dug out a stone block", "broke a stone block"],
       ["quarried stone", "mined a block of stone", "dug out a stone block", "broken a stone block"],
       ["quarrying stone", "mining a block of stone", "digging out a stone block"],
       howmany=["how many blocks of stone did {s} quarry", "how many stone blocks did {s} mine"]),
    _a("quarry coal", "quarry", "coal",
       ["mine coal", "quarry coal", "dig up a lump of coal"],
       ["mined coal", "quarried coal", "dug up a lump of coal"],
       ["mined coal", "quarried coal", "dug up a lump of coal"],
       ["mining coal", "quarrying coal", "digging up coal"],
       howmany=["how many lumps of coal did {s} mine", "how many pieces of coal did {s} dig up"]),
    _a("quarry iron", "quarry", "iron",
       ["mine iron", "quarry iron ore", "dig out some iron"],
       ["mined iron", "quarried iron ore", "dug out some iron"],
       ["mined iron", "quarried iron ore", "dug out some iron"],
       ["mining iron", "quarrying iron ore", "digging out iron"],
       howmany=["how many pieces of iron did {s} mine", "how many iron ores did {s} quarry"]),
    _a("quarry diamond", "quarry", "diamond",
       ["mine a diamond", "dig up a diamond", "quarry a diamond"],
       ["mined a diamond", "dug up a diamond", "quarried a diamond"],
       ["mined a diamond", "dug up a diamond", "quarried a diamond"],
       ["mining a diamond", "digging up a diamond"],
       howmany=["how many diamonds did {s} mine"], weight=0.3),
    _a("quarry any", "quarry", None,
       ["quarry anything", "mine any material", "dig out any block"],
       ["quarried something", "mined some material", "dug out a block of any kind"],
       ["quarried anything", "mined any material", "dug out any block"],
       ["quarrying anything", "mining any material"],
       howmany=["how many blocks of any material did {s} quarry", "how many mining strikes yielded something for {o}"],
       weight=0.6),
    _a("drink water", "drink", "water",
       ["drink water", "take a drink of water", "have a sip of water", "drink from the water"],
       ["drank water", "took a drink of water", "had a sip of water", "drank from the water"],
       ["drunk water", "taken a drink of water", "had a sip of water", "drunk from the water"],
       ["drinking water", "taking a drink of water", "sipping water"],
       noun=["drink of water", "sip of water"],
       howmany=["how many sips of water did {s} take", "how many drinks of water did {s} have"]),
    _a("eat cow", "eat", "cow",
       ["eat a cow", "kill and eat a cow", "slaughter a cow for food"],
       ["ate a cow", "killed and ate a cow", "slaughtered a cow for food"],
       ["eaten a cow", "killed and eaten a cow", "slaughtered a cow for food"],
       ["eating a cow", "slaughtering a cow for food"],
       noun=["beef meal", "cow meal"],
       howmany=["how many cows did {s} eat", "how many cows did {s} slaughter for food"]),
    _a("eat plant", "eat", "plant",
       ["eat a ripe plant", "eat from a plant"],
       ["ate a ripe plant", "ate from a plant"],
       ["eaten a ripe plant", "eaten from a plant"],
       ["eating a ripe plant", "eating from a plant"],
       howmany=["how many ripe plants did {s} eat"], weight=0.4),
    _a("eat any", "eat", None,
       ["eat", "have a meal", "eat something"],
       ["ate", "had a meal", "ate something"],
       ["eaten", "had a meal", "eaten something"],
       ["eating", "having a meal"],
       noun=["meal"],
       howmany=["how many meals did {s} have", "how many times did {s} eat"], weight=0.6),
    _a("hit cow", "hit", "cow",
       ["hit a cow", "strike a cow", "land a blow on a cow"],
       ["hit a cow", "struck a cow", "landed a blow on a cow"],
       ["hit a cow", "struck a cow", "landed a blow on a cow"],
       ["hitting a cow", "striking a cow", "landing a blow on a cow"],
       howmany=["how many blows did {s} land on cows", "how many times did {s} strike a cow"], weight=0.7),
    _a("hit zombie", "hit", "zombie",
       ["hit a zombie", "strike a zombie", "land a blow on a zombie"],
       ["hit a zombie", "struck a zombie", "landed a blow on a zombie"],
       ["hit a zombie", "struck a zombie", "landed a blow on a zombie"],
       ["hitting a zombie", "striking a zombie", "landing a blow on a zombie"],
       howmany=["how many blows did {s} land on zombies", "how many times did {s} strike a zombie"],
       weight=0.7),
    _a("hit skeleton", "hit", "skeleton",
       ["hit a skeleton", "strike a skeleton"],
       ["hit a skeleton", "struck a skeleton"],
       ["hit a skeleton", "struck a skeleton"],
       ["hitting a skeleton", "striking a skeleton"],
       howmany=["how many times did {s} strike a skeleton"], weight=0.5),
    _a("defeat zombie", "defeat", "zombie",
       ["defeat a zombie", "kill a zombie", "slay a zombie"],
       ["defeated a zombie", "killed a zombie", "slew a zombie"],
       ["defeated a zombie", "killed a zombie", "slain a zombie"],
       ["defeating a zombie", "killing a zombie", "slaying a zombie"],
       noun=["zombie kill"],
       howmany=["how many zombies did {s} kill", "how many zombies did {s} defeat"]),
    _a("defeat skeleton", "defeat", "skeleton",
       ["defeat a skeleton", "kill a skeleton", "destroy a skeleton"],
       ["defeated a skeleton", "killed a skeleton", "destroyed a skeleton"],
       ["defeated a skeleton", "killed a skeleton", "destroyed a skeleton"],
       ["defeating a skeleton", "killing a skeleton"],
       noun=["skeleton kill"],
       howmany=["how many skeletons did {s} kill", "how many skeletons did {s} defeat"], weight=0.6),
    _a("defeat any", "defeat", None,
       ["defeat a monster", "kill a monster", "beat a monster"],
       ["defeated a monster", "killed a monster", "beat a monster"],
       ["defeated a monster", "killed a monster", "beaten a monster"],
       ["defeating a monster", "killing a monster"],
       noun=["monster kill"],
       howmany=["how many monsters did {s} kill", "how many monsters did {s} defeat"], weight=0.6),
    _a("place table", "place", "table",
       ["place a table", "build a crafting table", "put down a workbench", "set up a table"],
       ["placed a table", "built a crafting table", "put down a workbench", "set up a table"],
       ["placed a table", "built a crafting table", "put down a workbench", "set up a table"],
       ["placing a table", "building a crafting table", "putting down a workbench"],
       noun=["table placement"],
       howmany=["how many tables did {s} place", "how many crafting tables did {s} build"]),
    _a("place furnace", "place", "furnace",
       ["place a furnace", "build a furnace", "set up a furnace", "put down a furnace"],
       ["placed a furnace", "built a furnace", "set up a furnace", "put down a furnace"],
       ["placed a furnace", "built a furnace", "set up a furnace", "put down a furnace"],
       ["placing a furnace", "building a furnace", "setting up a furnace"],
       noun=["furnace placement"],
       howmany=["how many furnaces did {s} place", "how many furnaces did {s} build"]),
    _a("place stone", "place", "stone",
       ["place a stone block", "put a stone block down", "lay down a stone"],
       ["placed a stone block", "put a stone block down", "laid down a stone"],
       ["placed a stone block", "put a stone block down", "laid down a stone"],
       ["placing a stone block", "laying down a stone"],
       howmany=["how many stone blocks did {s} place"], weight=0.4),
    _a("sow sapling", "sow", "sapling",
       ["plant a sapling", "sow a sapling", "put a sapling in the ground"],
       ["planted a sapling", "sowed a sapling", "put a sapling in the ground"],
       ["planted a sapling", "sown a sapling", "put a sapling in the ground"],
       ["planting a sapling", "sowing a sapling"],
       howmany=["how many saplings did {s} plant", "how many saplings did {s} sow"]),
    _tool_act("wood pickaxe", "wooden"),
    _tool_act("stone pickaxe", "stone"),
    _tool_act("iron pickaxe", "iron"),
    _tool_act("wood sword", "wooden"),
    _tool_act("stone sword", "stone"),
    _tool_act("iron sword", "iron"),
    _a("craft any", "craft", None,
       ["craft a tool or weapon", "make a tool or weapon", "craft something"],
       ["crafted a tool or weapon", "made a tool or weapon", "crafted something"],
       ["crafted a tool or weapon", "made a tool or weapon", "crafted anything"],
       ["crafting a tool or weapon", "crafting something"],
       howmany=["how many tools and weapons did {s} craft", "how many items did {s} craft"], weight=0.6),
    _a("damage any", "damage", None,
       ["take damage", "get hurt", "lose health"],
       ["took damage", "got hurt", "lost health"],
       ["taken damage", "gotten hurt", "lost health"],
       ["taking damage", "getting hurt", "losing health"],
       noun=["injury"],
       howmany=["how many times did {s} take damage", "how many times did {s} get hurt"]),
    _a("damage zombie", "damage", "zombie",
       ["get hurt by a zombie", "take damage from a zombie", "get hit by a zombie"],
       ["got hurt by a zombie", "took damage from a zombie", "got hit by a zombie"],
       ["gotten hurt by a zombie", "taken damage from a zombie", "been hit by a zombie"],
       ["getting hurt by a zombie", "taking damage from a zombie", "getting hit by a zombie"],
       howmany=["how many times did a zombie hurt {o}", "how many times did {s} take damage from a zombie"]),
    _a("damage arrow", "damage", "arrow",
       ["get hit by an arrow", "take damage from an arrow", "get shot by an arrow"],
       ["got hit by an arrow", "took damage from an arrow", "got shot by an arrow"],
       ["been hit by an arrow", "taken damage from an arrow", "been shot by an arrow"],
       ["getting hit by an arrow", "taking damage from an arrow", "getting shot by an arrow"],
       howmany=["how many arrows hit {o}", "how many times did {s} take damage from an arrow"]),
    _a("damage thirst", "damage", "thirst",
       ["lose health from thirst", "suffer thirst damage"],
       ["lost health from thirst", "suffered thirst damage"],
       ["lost health from thirst", "suffered thirst damage"],
       ["losing health from thirst", "suffering thirst damage"],
       howmany=["how many times did {s} lose health from thirst"], weight=0.4),
    _a("damage hunger", "damage", "hunger",
       ["lose health from hunger", "suffer starvation damage"],
       ["lost health from hunger", "suffered starvation damage"],
       ["lost health from hunger", "suffered starvation damage"],
       ["losing health from hunger", "suffering starvation damage"],
       howmany=["how many times did {s} lose health from hunger"], weight=0.4),
    _a("damage exhaustion", "damage", "exhaustion",
       ["lose health from exhaustion", "suffer exhaustion damage"],
       ["lost health from exhaustion", "suffered exhaustion damage"],
       ["lost health from exhaustion", "suffered exhaustion damage"],
       ["losing health from exhaustion", "suffering exhaustion damage"],
       howmany=["how many times did {s} lose health from exhaustion"], weight=0.4),
    _a("die", "die", "",
       ["die", "lose a life", "get killed"],
       ["died", "lost a life", "got killed"],
       ["died", "lost a life", "been killed"],
       ["dying", "losing a life", "getting killed"],
       noun=["death"],
       howmany=["how many times did {s} die", "how many lives did {s} lose"]),
    _a("start new life", "start new life", "",
       ["start a new life", "respawn", "begin a fresh life"],
       ["started a new life", "respawned", "began a fresh life"],
       ["started a new life", "respawned", "begun a fresh life"],
       ["starting a new life", "respawning", "beginning a fresh life"],
       noun=["respawn", "fresh start"],
       howmany=["how many times did {s} respawn", "how many new lives did {s} start"]),
    _a("sleep", "sleep", "",
       ["fall asleep", "go to sleep", "doze off"],
       ["fell asleep", "went to sleep", "dozed off"],
       ["fallen asleep", "gone to sleep", "dozed off"],
       ["falling asleep", "going to sleep", "dozing off"],
       noun=["nap"],
       howmany=["how many times did {s} fall asleep", "how many naps did {s} take"]),
    _a("wake", "wake", "",
       ["wake up", "wake"],
       ["woke up", "awoke"],
       ["woken up", "awoken"],
       ["waking up"],
       noun=["awakening"],
       howmany=["how many times did {s} wake up"]),
    _region_act("caverns"),
    _region_act("crags"),
    _region_act("shore"),
    _region_act("thicket"),
    _region_act("meadow"),
    _a("enter any", "enter", None,
       ["move into a different region", "cross into another region", "change regions"],
       ["moved into a different region", "crossed into another region", "changed regions"],
       ["moved into a different region", "crossed into another region", "changed regions"],
       ["moving into a different region", "crossing into another region", "changing regions"],
       howmany=["how many times did {s} change regions", "how many region changes did {s} make"],
       weight=0.4),
)
_ACT_BY_KEY = {a.key: a for a in _ACTS}
_SPECIFIC = tuple(a for a in _ACTS if a.obj is not None)

# Lists: (kind, templates) for "which objects" questions; every object of the kind counts.
_LIST_KINDS: dict[str, tuple[str, ...]] = {
    "quarry": ("What did {s} quarry {w}?", "Which materials did {s} mine {w}?", "List what {s} dug out {w}."),
    "craft": ("Which tools or weapons did {s} craft {w}?", "What did {s} craft {w}?",
              "Name every item {s} crafted {w}."),
    "place": ("Which structures did {s} place {w}?", "What did {s} put down as structures {w}?",
              "List the structures {s} placed {w}."),
    "enter": ("Which regions did {s} enter {w}?", "What areas did {s} move into {w}?",
              "List the regions {s} walked into {w}."),
    "eat": ("What did {s} eat {w}?", "List everything {s} ate {w}."),
    "defeat": ("Which kinds of monsters did {s} kill {w}?", "What monsters did {s} defeat {w}?"),
    "hit": ("Which creatures did {s} hit {w}?", "What kinds of creatures did {s} strike {w}?"),
}


@dataclass(frozen=True)
class _Who:
    s: str  # subject
    o: str  # object form
    p: str  # possessive
    be: str  # past of "to be"
    have: str  # present of "to have"


_WHOS: tuple[tuple[_Who, float], ...] = (
    (_Who("I", "me", "my", "was", "have"), 4.0),
    (_Who("we", "us", "our", "were", "have"), 1.0),
    (_Who("you", "you", "your", "were", "have"), 1.5),
    (_Who("the agent", "the agent", "the agent's", "was", "has"), 1.5),
    (_Who(AGENT_NAME, AGENT_NAME, AGENT_NAME + "'s", "was", "has"), 1.5),
)

_ORD_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh",
              8: "eighth", 9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth"}
_NUM_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
              9: "nine", 10: "ten"}

_ITEM_NP: dict[str, tuple[str, ...]] = {
    "wood": ("pieces of wood", "units of wood", "wood logs"),
    "sapling": ("saplings",),
    "stone": ("stones", "pieces of stone", "stone blocks"),
    "coal": ("lumps of coal", "pieces of coal"),
    "iron": ("pieces of iron", "units of iron"),
    "diamond": ("diamonds",),
    "wood pickaxe": ("wood pickaxes", "wooden pickaxes"),
    "stone pickaxe": ("stone pickaxes",),
    "iron pickaxe": ("iron pickaxes",),
    "wood sword": ("wood swords", "wooden swords"),
    "stone sword": ("stone swords",),
    "iron sword": ("iron swords",),
}
_STOCK_ITEMS = ("wood", "sapling", "stone", "coal", "iron")
_STATE_WORDS: dict[str, tuple[str, ...]] = {
    "health": ("health", "HP", "health points"),
    "food": ("food level", "food", "food meter"),
    "drink": ("drink level", "water level", "hydration"),
    "energy": ("energy", "energy level", "stamina"),
}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _ord_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ------------------------------------------------------------------------------------------------
# Reference evaluator
# ------------------------------------------------------------------------------------------------


def _event_text(ev: Event) -> str:
    return f"{ev.kind} {ev.obj}" if ev.obj else ev.kind


def _slot_value(step: Step, slot: str, arg: str = "") -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        if step.location.region:
            return step.location.region
        x, y = step.location.position  # type: ignore[misc]
        return f"{x},{y}"
    if slot == "position":
        x, y = step.location.position  # type: ignore[misc]
        return f"{x},{y}"
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        parts = [f"{n} {c}" for n, c in sorted(step.inventory) if c > 0]
        return ", ".join(parts) if parts else "none"
    if slot == "state":
        value = step.state_dict[arg]
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return format(value, "g")
        return str(value)
    if slot == "facing":
        for rel in step.relations:
            if rel.subject == "agent" and rel.predicate == "facing":
                return rel.obj
        return ""
    if slot == "events":
        return "; ".join(_event_text(e) for e in step.events) if step.events else "none"
    raise ValueError(slot)


class _Trace:
    """Plain scans over one episode's steps."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.T = len(steps)
        self._series: dict[tuple[str, str], list[Any]] = {}
        self._hits: dict[str, list[int]] = {}
        for act in _ACTS:
            self._hits[act.key] = [s.t for s in self.steps for e in s.events if act.matches(e)]

    def sid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def hits(self, act: _Act, lo: int = 0, hi: Optional[int] = None) -> list[int]:
        hi = self.T - 1 if hi is None else hi
        return [t for t in self._hits[act.key] if lo <= t <= hi]

    def nth(self, act: _Act, n: int, lo: int = 0, hi: Optional[int] = None) -> Optional[int]:
        found = self.hits(act, lo, hi)
        if n > 0:
            return found[n - 1] if len(found) >= n else None
        return found[n] if len(found) >= -n else None

    def event_text_at(self, act: _Act, t: int) -> str:
        for e in self.steps[t].events:
            if act.matches(e):
                return _event_text(e)
        raise ValueError((act.key, t))

    def list_objects(self, kind: str, lo: int, hi: int) -> tuple[list[str], list[int]]:
        objs: list[str] = []
        ts: list[int] = []
        for s in self.steps[lo: hi + 1]:
            for e in s.events:
                if e.kind == kind and e.obj:
                    if e.obj not in objs:
                        objs.append(e.obj)
                    if s.t not in ts:
                        ts.append(s.t)
        return objs, ts

    def value_series(self, source: str, name: str) -> list[Any]:
        key = (source, name)
        if key not in self._series:
            if source == "inv":
                self._series[key] = [s.inventory_dict.get(name, 0) for s in self.steps]
            else:
                self._series[key] = [s.state_dict[name] for s in self.steps]
        return self._series[key]


# ------------------------------------------------------------------------------------------------
# Phrasing
# ------------------------------------------------------------------------------------------------


@dataclass
class _Q:
    slot: str
    question: str
    answer: str
    gold: list[int]


@dataclass(frozen=True)
class _Win:
    lo: int
    hi: int
    text: str  # "between step 10 and step 80", "after I first drank water", "" (whole episode)
    anchors: tuple[int, ...] = ()
    whole: bool = False


class _Writer:
    """Random choices of wording, all drawn from one seeded generator."""

    def __init__(self, rng: random.Random, tr: _Trace) -> None:
        self.rng = rng
        self.tr = tr

    # -- small helpers ----------------------------------------------------------------------------

    def pick(self, options: Sequence[str]) -> str:
        return self.rng.choice(list(options))

    def who(self) -> _Who:
        people = [w for w, _ in _WHOS]
        weights = [x for _, x in _WHOS]
        return self.rng.choices(people, weights)[0]

    def ordinal(self, n: int) -> str:
        if n > 0:
            if n in _ORD_WORDS and self.rng.random() < 0.65:
                return _ORD_WORDS[n]
            return _ord_digits(n)
        if n == -1:
            return "last"
        if n == -2:
            return self.pick(("second-to-last", "next-to-last", "penultimate"))
        return "third-to-last"

    def number(self, k: int) -> str:
        if k in _NUM_WORDS and self.rng.random() < 0.5:
            return _NUM_WORDS[k]
        return str(k)

    def fill(self, text: str, w: _Who) -> str:
        for key, value in (("{s}", w.s), ("{o}", w.o), ("{p}", w.p), ("{be}", w.be), ("{have}", w.have)):
            text = text.replace(key, value)
        return text

    def act(self, pred: Callable[[_Act], bool], pool: Sequence[_Act] = _ACTS) -> Optional[_Act]:
        acts = [a for a in pool if pred(a)]
        if not acts:
            return None
        return self.rng.choices(acts, [a.weight for a in acts])[0]

    def choose_n(self, count: int, limit: int = 6) -> int:
        options = [1, 1, 1]
        options += list(range(2, min(count, limit) + 1))
        if count >= 2:
            options += [-1, -1]
        if count >= 3:
            options.append(-2)
        return self.rng.choice(options)

    # -- occurrences --------------------------------------------------------------------------------

    def occ_when(self, act: _Act, n: int, w: _Who) -> str:
        """'the third time I drank water': a time phrase naming one occurrence."""
        o, past = self.ordinal(n), self.pick(act.past)
        forms = [f"the {o} time {w.s} {past}"]
        if n == 1:
            forms += [f"when {w.s} first {past}", f"the first time {w.s} {past}"]
        elif n == 2:
            forms += [f"when {w.s} {past} again", f"when {w.s} {past} for the {o} time"]
        elif n == -1:
            forms += [f"when {w.s} last {past}"]
        else:
            forms += [f"when {w.s} {past} for the {o} time"]
        if act.noun:
            forms.append(f"at {w.p} {o} {self.pick(act.noun)}")
        return self.pick(forms)

    def occ_anchor(self, act: _Act, n: int, w: _Who) -> str:
        """A phrase that can follow 'after' or 'before': 'I first drank water', 'my second zombie kill'."""
        o, past = self.ordinal(n), self.pick(act.past)
        if n == 1:
            forms = [f"{w.s} first {past}", f"the first time {w.s} {past}"]
        elif n == 2:
            forms = [f"{w.s} {past} again", f"the {o} time {w.s} {past}", f"{w.s} {past} for the {o} time"]
        elif n == -1:
            forms = [f"{w.s} last {past}", f"the last time {w.s} {past}"]
        else:
            forms = [f"the {o} time {w.s} {past}", f"{w.s} {past} for the {o} time"]
        if act.noun:
            forms.append(f"{w.p} {o} {self.pick(act.noun)}")
        return self.pick(forms)

    def occ_np(self, act: _Act, n: int, w: _Who) -> str:
        """A noun phrase for one occurrence: 'felling a tree for the third time', 'my first nap'."""
        o, past, ger = self.ordinal(n), self.pick(act.past), self.pick(act.ger)
        forms = [f"{ger} for the {o} time", f"the {o} time {w.s} {past}"]
        if n == 1:
            forms.append(ger)
        if n == 2:
            forms.append(f"{ger} again")
        if act.noun:
            forms.append(f"{w.p} {o} {self.pick(act.noun)}")
        return self.pick(forms)

    def occ_step_question(self, act: _Act, n: int, w: _Who) -> str:
        o, base, past = self.ordinal(n), self.pick(act.base), self.pick(act.past)
        if n == 1:
            forms = [f"When did {w.s} first {base}?", f"At which step did {w.s} {base} for the first time?",
                     f"Give the step at which {w.s} first {past}."]
        elif n == -1:
            forms = [f"When did {w.s} last {base}?", f"At which step did {w.s} {base} for the last time?",
                     f"Give the step of the last time {w.s} {past}."]
        else:
            forms = [f"When did {w.s} {base} for the {o} time?", f"At which step did {w.s} {base} for the {o} time?",
                     f"Give the step where {w.s} {past} for the {o} time."]
            if n == 2:
                forms.append(f"When did {w.s} {base} again?")
        if act.noun:
            forms.append(f"What was the step of {w.p} {o} {self.pick(act.noun)}?")
        return _cap(self.pick(forms))

    def at_step(self, t: int) -> str:
        return self.pick((f"at step {t}", f"on step {t}", f"at t={t}", f"at time step {t}", f"in step {t}"))

    # -- slot heads ---------------------------------------------------------------------------------

    def head(self, slot: str, arg: str, w: _Who) -> tuple[str, str]:
        """(question head, embedded form for 'Tell me ...') for a slot."""
        if slot == "action":
            forms = [("what action did {s} take", "which action {s} took"),
                     ("which action did {s} choose", "which action {s} chose"),
                     ("what was {p} action", "what {p} action was"),
                     ("which Crafter action did {s} perform", "which Crafter action {s} performed")]
        elif slot == "location":
            forms = [("where {be} {s}", "where {s} {be}"),
                     ("which region {be} {s} in", "which region {s} {be} in"),
                     ("what area {be} {s} in", "what area {s} {be} in")]
        elif slot == "position":
            forms = [("what were {p} coordinates", "{p} coordinates"),
                     ("what was {p} x,y position", "{p} x,y position"),
                     ("which grid cell {be} {s} standing on", "which grid cell {s} {be} standing on"),
                     ("what was {p} position on the grid", "{p} grid position")]
        elif slot == "item":
            np_ = self.pick(_ITEM_NP[arg])
            forms = [(f"how many {np_} did {{s}} have", f"how many {np_} {{s}} had"),
                     (f"how many {np_} {{be}} {{s}} carrying", f"how many {np_} {{s}} {{be}} carrying"),
                     (f"what was {{p}} {arg} count", f"{{p}} {arg} count"),
                     (f"how many {np_} were in {{p}} inventory", f"how many {np_} were in {{p}} inventory")]
        elif slot == "inventory":
            forms = [("what was in {p} inventory", "what was in {p} inventory"),
                     ("what {be} {s} carrying", "what {s} {be} carrying"),
                     ("what did {p} inventory contain", "what {p} inventory contained"),
                     ("which items did {s} hold", "which items {s} held")]
        elif slot == "state":
            if arg in _STATE_WORDS:
                word = self.pick(_STATE_WORDS[arg])
                forms = [(f"what was {{p}} {word}", f"{{p}} {word}"),
                         (f"what did {{p}} {word} read", f"what {{p}} {word} read")]
                if arg == "health":
                    forms.append(("how many hit points did {s} have", "how many hit points {s} had"))
                if arg == "energy":
                    forms.append(("how much energy did {s} have", "how much energy {s} had"))
            elif arg == "activity":
                forms = [("what activity {be} {s} engaged in", "what activity {s} {be} engaged in"),
                         ("what was {p} recorded activity", "{p} recorded activity"),
                         ("what was {p} activity status", "{p} activity status")]
            elif arg == "life":
                forms = [("which life {be} {s} on", "which life {s} {be} on"),
                         ("what life number {be} {s} on", "what life number {s} {be} on")]
            else:  # asleep
                forms = [("was {p} asleep flag true or false", "whether {p} asleep flag was true or false"),
                         ("was the asleep state true or false", "whether the asleep state was true or false")]
        elif slot == "facing":
            forms = [("what {be} {s} facing", "what {s} {be} facing"),
                     ("what was in front of {o}", "what was in front of {o}"),
                     ("what was directly ahead of {o}", "what was directly ahead of {o}"),
                     ("which tile or creature {be} {s} facing", "which tile or creature {s} {be} facing")]
        elif slot == "events":
            forms = [("what happened", "what happened"),
                     ("which events were recorded", "which events were recorded"),
                     ("what events took place", "what events took place"),
                     ("what events were logged", "which events were logged")]
        else:
            raise ValueError(slot)
        h, e = self.rng.choice(forms)
        return self.fill(h, w), self.fill(e, w)

    def compose(self, head: tuple[str, str], when: str) -> str:
        """A slot question about the moment ``when`` (a time phrase): head first, time first, or 'Tell me'."""
        h, e = head
        if h.endswith(" in") and when.startswith("in "):
            when = "at " + when[3:]
        roll = self.rng.random()
        if roll < 0.45:
            return f"{_cap(h)} {when}?"
        if roll < 0.8:
            return f"{_cap(when)}, {h}?"
        return f"Tell me {e} {when}."

    def arg_for(self, slot: str, step: Step) -> str:
        if slot == "item":
            held = [n for n, c in step.inventory if c > 0 and n in _ITEM_NP]
            if held and self.rng.random() < 0.7:
                return self.rng.choice(held)
            return self.rng.choice(list(_STOCK_ITEMS) + ["wood pickaxe", "stone pickaxe", "wood sword"])
        if slot == "state":
            names = ["health", "health", "health", "food", "food", "drink", "drink", "energy", "energy",
                     "activity", "activity", "asleep"]
            if self.tr.steps[-1].state_dict["life"] > 1:
                names.append("life")
            return self.rng.choice(names)
        return ""

    # -- windows ------------------------------------------------------------------------------------

    def window(self, kind: str, w: _Who, avoid: Optional[_Act] = None, whole_blank: bool = False) -> Optional[_Win]:
        T, rng = self.tr.T, self.rng
        if kind == "whole":
            if whole_blank:
                return _Win(0, T - 1, "", whole=True)
            return _Win(0, T - 1, self.pick(("in total", "over the whole episode", "altogether",
                                              "during the entire run")), whole=True)
        if kind == "between":
            a = rng.randrange(0, max(1, T - 60))
            b = min(T - 1, a + rng.randint(40, max(41, T // 2)))
            text = self.pick((f"between step {a} and step {b}", f"between steps {a} and {b}",
                              f"from step {a} through step {b}"))
            return _Win(a, b, text)
        if kind == "before":
            n = rng.randint(T // 5, T - 1)
            return _Win(0, n - 1, f"before step {n}")
        if kind == "after":
            n = rng.randint(T // 6, (T * 4) // 5)
            return _Win(n + 1, T - 1, f"after step {n}")
        if kind == "by":
            n = rng.randint(T // 5, T - 2)
            return _Win(0, n, self.pick((f"by step {n}", f"up to and including step {n}", f"until step {n}")))
        if kind == "first_n":
            n = 50 * rng.randint(max(2, T // 300), max(3, (T * 2) // 150))
            if n >= T:
                return None
            return _Win(0, n - 1, self.pick((f"in the first {n} steps", f"during the first {n} steps",
                                             f"within the first {n} steps")))
        if kind in ("after_event", "before_event"):
            anchor = self.act(lambda a: a is not avoid and a.kind != getattr(avoid, "kind", None)
                              and len(self.tr.hits(a)) >= 1 and a.obj is not None)
            if anchor is None:
                return None
            count = len(self.tr.hits(anchor))
            n = self.rng.choice([1, 1, 2, -1]) if count >= 2 else 1
            ta = self.tr.nth(anchor, n)
            assert ta is not None
            phrase = self.occ_anchor(anchor, n, w)
            if kind == "after_event":
                if ta >= T - 1:
                    return None
                return _Win(ta + 1, T - 1, f"after {phrase}", (ta,))
            if ta == 0:
                return None
            return _Win(0, ta - 1, f"before {phrase}", (ta,))
        raise ValueError(kind)


# ------------------------------------------------------------------------------------------------
# The ten families
# ------------------------------------------------------------------------------------------------


def _run(make: Callable[[str], Optional[_Q]], slots: Sequence[str], spare: Sequence[str], rng: random.Random,
         tries: int = 80) -> list[_Q]:
    """Six questions: one per slot in ``slots`` (falling back on ``spare`` slots), no repeated text."""
    out: list[_Q] = []
    seen: set[str] = set()
    queue = list(slots) + [rng.choice(list(spare)) for _ in range(40)]
    for slot in queue:
        if len(out) == PER_FAMILY:
            break
        for _ in range(tries):
            q = make(slot)
            if q is not None and q.question not in seen:
                seen.add(q.question)
                out.append(q)
                break
    if len(out) != PER_FAMILY:
        raise RuntimeError(f"could only write {len(out)} questions")
    return out


def _f1_step_index(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng
    with_events = [s.t for s in tr.steps if s.events]

    def make(slot: str) -> Optional[_Q]:
        if slot == "events" and with_events and rng.random() < 0.8:
            t = rng.choice(with_events)
        else:
            t = rng.randrange(tr.T)
        step = tr.steps[t]
        w = wr.who()
        arg = wr.arg_for(slot, step)
        q = wr.compose(wr.head(slot, arg, w), wr.at_step(t))
        return _Q(slot, q, _slot_value(step, slot, arg), [t])

    slots = rng.sample(["action", "location", "position", "item", "inventory", "state", "facing", "events"], 6)
    return _run(make, slots, ["state", "item", "facing", "location"], rng)


def _f2_nth(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng

    def make(slot: str) -> Optional[_Q]:
        act = wr.act(lambda a: len(tr.hits(a)) >= 1 and not (slot == "location" and a.kind == "enter"))
        if act is None:
            return None
        count = len(tr.hits(act))
        n = wr.choose_n(count, 4 if act.kind == "enter" else 7)
        t = tr.nth(act, n)
        if t is None:
            return None
        w = wr.who()
        if slot == "step":
            return _Q(slot, wr.occ_step_question(act, n, w), str(t), [t])
        arg = wr.arg_for(slot, tr.steps[t])
        q = wr.compose(wr.head(slot, arg, w), wr.occ_when(act, n, w))
        return _Q(slot, q, _slot_value(tr.steps[t], slot, arg), [t])

    slots = ["step", "step"] + rng.sample(["location", "position", "item", "state", "facing", "action",
                                           "inventory", "events"], 4)
    return _run(make, slots, ["step", "state", "location", "item"], rng)


def _f3_windowed(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng
    T = tr.T

    def make(slot: str) -> Optional[_Q]:
        form = rng.choice(["after_n", "after_n", "before_n", "between_nth", "after_event", "first_n_last"])
        w = wr.who()
        act = wr.act(lambda a: len(tr.hits(a)) >= 2)
        if act is None:
            return None
        base, past = wr.pick(act.base), wr.pick(act.past)
        anchors: list[int] = []
        if form == "after_n":
            n = rng.randint(T // 10, (T * 3) // 4)
            found = tr.hits(act, n + 1)
            if not found:
                return None
            t = found[0]
            when, front = f"the first time {w.s} {past} after step {n}", f"after step {n}"
            tail = f"the first time {w.s} {past}"
            step_qs = [f"What was the first step after step {n} at which {w.s} {past}?",
                       f"After step {n}, when did {w.s} first {base}?",
                       f"When did {w.s} next {base} after step {n}?"]
        elif form == "before_n":
            n = rng.randint(T // 4, T - 1)
            found = tr.hits(act, 0, n - 1)
            if not found:
                return None
            t = found[-1]
            when, front = f"the last time {w.s} {past} before step {n}", f"before step {n}"
            tail = f"the last time {w.s} {past}"
            step_qs = [f"Before step {n}, when did {w.s} last {base}?",
                       f"What was the last step before step {n} at which {w.s} {past}?",
                       f"When did {w.s} {base} for the last time before step {n}?"]
        elif form == "between_nth":
            win = wr.window("between", w)
            assert win is not None
            found = tr.hits(act, win.lo, win.hi)
            if not found:
                return None
            k = rng.choice([1, 1, 2, -1]) if len(found) >= 2 else 1
            t = found[k - 1] if k > 0 else found[k]
            o = wr.ordinal(k)
            when, front = f"the {o} time {w.s} {past} {win.text}", win.text
            tail = f"the {o} time {w.s} {past}"
            step_qs = [f"{_cap(win.text)}, when did {w.s} {base} for the {o} time?",
                       f"Which step was the {o} time {w.s} {past} {win.text}?"]
        elif form == "after_event":
            other = wr.act(lambda a: a.key != act.key and a.kind != act.kind and len(tr.hits(a)) >= 1
                           and a.obj is not None)
            if other is None:
                return None
            ta = tr.nth(other, 1)
            assert ta is not None
            found = tr.hits(act, ta + 1)
            if not found:
                return None
            t = found[0]
            anchors = [ta]
            anchor = wr.occ_anchor(other, 1, w)
            when, front = f"the first time {w.s} {past} after {anchor}", f"after {anchor}"
            tail = f"the first time {w.s} {past}"
            step_qs = [f"When did {w.s} first {base} after {anchor}?",
                       f"After {anchor}, at which step did {w.s} first {base}?"]
        else:  # first_n_last
            win = wr.window("first_n", w)
            if win is None:
                return None
            found = tr.hits(act, win.lo, win.hi)
            if not found:
                return None
            t = found[-1]
            when, front = f"the last time {w.s} {past} {win.text}", win.text
            tail = f"the last time {w.s} {past}"
            step_qs = [f"{_cap(win.text)}, when did {w.s} last {base}?",
                       f"What was the last step {win.text} at which {w.s} {past}?"]
        if slot == "step":
            return _Q(slot, wr.pick(step_qs), str(t), [t] + anchors)
        step = tr.steps[t]
        arg = wr.arg_for(slot, step)
        h, e = wr.head(slot, arg, w)
        roll = rng.random()
        if roll < 0.45:
            q = f"{_cap(h)} {when}?"
        elif roll < 0.8:
            q = f"{_cap(front)}, {h} {tail}?"
        else:
            q = f"Tell me {e} {when}."
        return _Q(slot, q, _slot_value(step, slot, arg), [t] + anchors)

    slots = rng.sample(["step", "step", "location", "item", "state", "facing", "events", "position", "action",
                        "inventory"], 6)
    return _run(make, slots, ["step", "state", "item"], rng)


@dataclass(frozen=True)
class _Cond:
    key: str
    t: int
    when: tuple[str, ...]  # time phrases
    step_qs: tuple[str, ...]  # full step questions
    source: str  # "inv" / "state"
    name: str


def _conditions(wr: _Writer, w: _Who) -> list[_Cond]:
    tr, rng = wr.tr, wr.rng
    out: list[_Cond] = []
    ran_out_word = {"wood": "wood", "sapling": "saplings", "stone": "stone", "coal": "coal", "iron": "iron"}
    for item in _STOCK_ITEMS:
        series = tr.value_series("inv", item)
        top = max(series)
        if top >= 2:
            k = rng.randint(2, top)
            t = next(i for i, v in enumerate(series) if v >= k)
            np_ = wr.pick(_ITEM_NP[item])
            out.append(_Cond(
                f"reach {item}", t,
                (f"when {w.p} {item} count first reached {k}", f"the first time {w.s} had at least {k} {np_}",
                 f"when {w.s} first held {k} or more {np_}"),
                (f"When did {w.p} {item} count first reach {k}?",
                 f"At which step did {w.s} first have at least {k} {np_}?",
                 f"Give the first step at which {w.s} held {k} or more {np_}."),
                "inv", item))
        outs = [i for i in range(1, tr.T) if series[i] == 0 and series[i - 1] > 0]
        if outs:
            x = ran_out_word[item]
            out.append(_Cond(
                f"out {item}", outs[0],
                (f"when {w.s} first ran out of {x}", f"the first time {w.s} ran out of {x}"),
                (f"When did {w.s} first run out of {x}?", f"At which step did {w.s} run out of {x} for the first time?"),
                "inv", item))
            if len(outs) >= 2:
                out.append(_Cond(
                    f"lastout {item}", outs[-1],
                    (f"the last time {w.s} ran out of {x}",),
                    (f"When did {w.s} run out of {x} for the last time?",
                     f"Give the last step at which {w.s} ran out of {x}."),
                    "inv", item))
    for name in _VITALS:
        series = tr.value_series("state", name)
        low = min(series)
        if low <= 7:
            k = rng.randint(low, min(7, low + 3))
            t = next(i for i, v in enumerate(series) if v <= k)
            word = wr.pick(_STATE_WORDS[name])
            out.append(_Cond(
                f"drop {name}", t,
                (f"the first time {w.p} {word} dropped to {k} or below", f"when {w.p} {word} first fell to {k} or lower"),
                (f"At which step did {w.p} {word} first drop to {k} or below?",
                 f"When did {w.p} {word} first fall to {k} or less?",
                 f"What is the first step at which {w.p} {word} was at most {k}?"),
                "state", name))
        k = rng.randint(7, 9)
        highs = [i for i, v in enumerate(series) if v >= k]
        if highs and highs[-1] < tr.T - 1:
            word = wr.pick(_STATE_WORDS[name])
            level = "full (9)" if k == 9 else f"{k} or higher"
            out.append(_Cond(
                f"high {name}", highs[-1],
                (f"the last step at which {w.p} {word} was {level}",),
                (f"What was the last step at which {w.p} {word} was {level}?",
                 f"When was {w.p} {word} {level} for the last time?"),
                "state", name))
    asleep = [t for t, v in enumerate(tr.value_series("state", "asleep")) if v]
    if asleep:
        out.append(_Cond("asleep first", asleep[0], (f"the first step at which {w.s} {w.be} asleep",),
                         (f"What was the first step at which {w.s} {w.be} asleep?",), "state", "asleep"))
        if asleep[-1] < tr.T - 1:
            out.append(_Cond("asleep last", asleep[-1], (f"the last step at which {w.s} {w.be} asleep",),
                             (f"When {w.be} {w.s} last asleep?", f"What was the last step at which {w.s} {w.be} asleep?"),
                             "state", "asleep"))
    series = tr.value_series("state", "activity")
    activities: list[str] = []
    for value in series:
        if value not in activities:
            activities.append(value)
    for value in activities[1:]:
        ts = [t for t, v in enumerate(series) if v == value]
        out.append(_Cond(f"activity {value}", ts[0], (f"the first step at which {w.p} activity was \"{value}\"",),
                         (f"At which step was {w.p} activity first \"{value}\"?",
                          f"When was {w.p} activity \"{value}\" for the first time?"), "state", "activity"))
        if ts[-1] != ts[0] and ts[-1] < tr.T - 1:
            out.append(_Cond(f"lastactivity {value}", ts[-1],
                             (f"the last step at which {w.p} activity was \"{value}\"",),
                             (f"When was {w.p} activity \"{value}\" for the last time?",
                              f"What was the last step at which {w.p} activity was \"{value}\"?"),
                             "state", "activity"))
    lives = tr.value_series("state", "life")
    for k in range(2, max(lives) + 1):
        t = lives.index(k)
        o = wr.ordinal(k)
        out.append(_Cond(f"life {k}", t, (f"when {w.p} {o} life began",),
                         (f"When did {w.p} {o} life begin?", f"At which step did {w.s} start life number {k}?"),
                         "state", "life"))
    return out


def _f4_condition(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng
    used: set[str] = set()

    def make(slot: str) -> Optional[_Q]:
        w = wr.who()
        conds = [c for c in _conditions(wr, w) if c.key not in used]
        if not conds:
            return None
        # Activities are many; keep them from crowding out the numeric conditions.
        weights = [0.3 if c.name in ("activity", "life") else 1.0 for c in conds]
        c = rng.choices(conds, weights)[0]
        if slot == "step":
            used.add(c.key)
            return _Q(slot, _cap(wr.pick(c.step_qs)), str(c.t), [c.t])
        step = tr.steps[c.t]
        arg = wr.arg_for(slot, step)
        if (slot in ("item", "state")) and arg == c.name:
            return None
        used.add(c.key)
        q = wr.compose(wr.head(slot, arg, w), wr.pick(c.when))
        return _Q(slot, q, _slot_value(step, slot, arg), [c.t])

    slots = ["step", "step", "step"] + rng.sample(["location", "position", "facing", "item", "state", "action",
                                                   "inventory"], 3)
    return _run(make, slots, ["step", "location", "facing", "state"], rng)


def _f5_offset(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng

    def make(slot: str) -> Optional[_Q]:
        act = wr.act(lambda a: len(tr.hits(a)) >= 1)
        if act is None:
            return None
        count = len(tr.hits(act))
        n = rng.choice([1, 1, 1, 2, -1, 3]) if count >= 3 else 1
        ta = tr.nth(act, n)
        assert ta is not None
        k = rng.randint(1, 6)
        after = rng.random() < 0.6
        t = ta + k if after else ta - k
        if not 0 <= t < tr.T:
            return None
        w = wr.who()
        unit = "step" if k == 1 else "steps"
        when = f"{wr.number(k)} {unit} {'after' if after else 'before'} {wr.occ_anchor(act, n, w)}"
        step = tr.steps[t]
        arg = wr.arg_for(slot, step)
        q = wr.compose(wr.head(slot, arg, w), when)
        return _Q(slot, q, _slot_value(step, slot, arg), [t, ta])

    slots = rng.sample(["action", "action", "events", "position", "location", "state", "facing", "item",
                        "inventory"], 6)
    return _run(make, slots, ["action", "events", "state"], rng)


def _f6_next_prev(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng

    def make(slot: str) -> Optional[_Q]:
        y = wr.act(lambda a: len(tr.hits(a)) >= 1 and a.obj is not None)
        if y is None:
            return None
        count = len(tr.hits(y))
        n = wr.choose_n(count, 4)
        ty = tr.nth(y, n)
        assert ty is not None
        x = wr.act(lambda a: a.key != y.key and a.kind != y.kind and len(tr.hits(a)) >= 1)
        if x is None:
            return None
        forward = rng.random() < 0.6
        found = tr.hits(x, ty + 1) if forward else tr.hits(x, 0, ty - 1)
        if not found:
            return None
        t = found[0] if forward else found[-1]
        w = wr.who()
        anchor = wr.occ_anchor(y, n, w)
        base, past = wr.pick(x.base), wr.pick(x.past)
        if forward:
            step_qs = [f"After {anchor}, when did {w.s} next {base}?", f"When did {w.s} next {base} after {anchor}?",
                       f"At which step did {w.s} {base} next, after {anchor}?"]
            when = f"the next time {w.s} {past} after {anchor}"
            front, tail = f"after {anchor}", f"the next time {w.s} {past}"
        else:
            step_qs = [f"Before {anchor}, when did {w.s} last {base}?", f"When did {w.s} last {base} before {anchor}?",
                       f"What was the step of the previous time {w.s} {past} before {anchor}?"]
            when = wr.pick((f"the last time {w.s} {past} before {anchor}",
                            f"the previous time {w.s} {past} before {anchor}"))
            front, tail = f"before {anchor}", f"the last time {w.s} {past}"
        if slot == "step":
            return _Q(slot, wr.pick(step_qs), str(t), [t, ty])
        step = tr.steps[t]
        arg = wr.arg_for(slot, step)
        h, e = wr.head(slot, arg, w)
        roll = rng.random()
        if roll < 0.45:
            q = f"{_cap(h)} {when}?"
        elif roll < 0.8:
            q = f"{_cap(front)}, {h} {tail}?"
        else:
            q = f"Tell me {e} {when}."
        return _Q(slot, q, _slot_value(step, slot, arg), [t, ty])

    slots = ["step", "step"] + rng.sample(["location", "item", "state", "facing", "position", "inventory",
                                           "action"], 4)
    return _run(make, slots, ["step", "state", "location"], rng)


def _f7_count(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng
    kinds = ["whole", "between", "before", "after", "first_n", "by", "after_event", "before_event"]

    def make(slot: str) -> Optional[_Q]:
        act = wr.act(lambda a: len(tr.hits(a)) >= 1 or rng.random() < 0.1)
        if act is None:
            return None
        w = wr.who()
        win = wr.window(rng.choice(kinds), w, avoid=act)
        if win is None:
            return None
        found = tr.hits(act, win.lo, win.hi)
        base, past = wr.pick(act.base), wr.pick(act.past)
        forms = [f"How many times did {w.s} {base} {win.text}?",
                 f"Count the times {w.s} {past} {win.text}.",
                 f"What is the number of times {w.s} {past} {win.text}?"]
        if act.howmany:
            hm = wr.fill(wr.pick(act.howmany), w)
            forms += [f"{_cap(hm)} {win.text}?"] * 2
            if not win.whole:
                forms.append(f"{_cap(win.text)}, {hm}?")
        if not win.whole:
            forms.append(f"{_cap(win.text)}, how many times did {w.s} {base}?")
        gold = ([found[-1]] if found else []) + list(win.anchors)
        return _Q("count", wr.pick(forms), str(len(found)), gold)

    return _run(make, ["count"] * 6, ["count"], rng)


def _pair(wr: _Writer) -> Optional[tuple[_Act, int, int, _Act, int, int]]:
    tr = wr.tr
    a = wr.act(lambda x: len(tr.hits(x)) >= 1, _SPECIFIC)
    b = wr.act(lambda x: len(tr.hits(x)) >= 1 and a is not None and x.key != a.key, _SPECIFIC)
    if a is None or b is None:
        return None
    na = wr.rng.choice([1, 1, 2, -1, 3]) if len(tr.hits(a)) >= 3 else 1
    nb = wr.rng.choice([1, 1, 2, -1, 3]) if len(tr.hits(b)) >= 3 else 1
    ta, tb = tr.nth(a, na), tr.nth(b, nb)
    if ta is None or tb is None or ta == tb:
        return None
    return a, na, ta, b, nb, tb


def _f8_order(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng

    def make(slot: str) -> Optional[_Q]:
        pair = _pair(wr)
        if pair is None:
            return None
        a, na, ta, b, nb, tb = pair
        text_a, text_b = tr.event_text_at(a, ta), tr.event_text_at(b, tb)
        if text_a == text_b:
            return None
        w = wr.who()
        pa, pb = wr.occ_np(a, na, w), wr.occ_np(b, nb, w)
        forms = [f"Which came first: {pa} or {pb}?", f"What happened earlier, {pa} or {pb}?",
                 f"Which occurred first — {pa}, or {pb}?", f"Of {pa} and {pb}, which happened first?",
                 f"Tell me which was earlier: {pa} or {pb}."]
        answer = text_a if ta < tb else text_b
        return _Q("which-first", wr.pick(forms), answer, sorted([ta, tb]))

    return _run(make, ["which-first"] * 6, ["which-first"], rng)


def _f9_distance(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng

    def make(slot: str) -> Optional[_Q]:
        pair = _pair(wr)
        if pair is None:
            return None
        a, na, ta, b, nb, tb = pair
        w = wr.who()
        pa, pb = wr.occ_np(a, na, w), wr.occ_np(b, nb, w)
        forms = [f"How many steps passed between {pa} and {pb}?", f"How many steps lay between {pa} and {pb}?",
                 f"What was the gap, in steps, between {pa} and {pb}?",
                 f"How far apart, in steps, were {pa} and {pb}?"]
        if nb == 1 and tb > ta:
            anchor = wr.occ_anchor(a, na, w)
            base = wr.pick(b.base)
            forms += [f"How many steps after {anchor} did {w.s} first {base}?",
                      f"How long after {anchor} did {w.s} first {base}, in steps?"]
        return _Q("duration", wr.pick(forms), str(abs(tb - ta)), sorted([ta, tb]))

    return _run(make, ["duration"] * 6, ["duration"], rng)


def _f10_existence(wr: _Writer) -> list[_Q]:
    tr, rng = wr.tr, wr.rng
    kinds = ["whole", "between", "before", "after", "first_n", "by", "after_event", "before_event"]

    def yes_no(want_yes: bool) -> Optional[_Q]:
        w = wr.who()
        kind = rng.choice(kinds)
        win = wr.window(kind, w, whole_blank=True)
        if win is None:
            return None
        if want_yes:
            act = wr.act(lambda a: len(tr.hits(a, win.lo, win.hi)) >= 1, _SPECIFIC)
        else:
            elsewhere = [a for a in _SPECIFIC if not tr.hits(a, win.lo, win.hi) and tr.hits(a)]
            pool = elsewhere if elsewhere and rng.random() < 0.75 else \
                [a for a in _SPECIFIC if not tr.hits(a, win.lo, win.hi)]
            act = wr.act(lambda a: True, pool) if pool else None
        if act is None:
            return None
        found = tr.hits(act, win.lo, win.hi)
        if bool(found) != want_yes:
            return None
        base, pp, past, ger = wr.pick(act.base), wr.pick(act.pp), wr.pick(act.past), wr.pick(act.ger)
        tail = f" {win.text}" if win.text else ""
        forms = [f"Did {w.s} ever {base}{tail}?", f"{_cap(w.have)} {w.s} ever {pp}{tail}?",
                 f"Was there any point{tail} at which {w.s} {past}?", f"Is there any record of {w.o} {ger}{tail}?"]
        if win.text:
            forms.append(f"{_cap(win.text)}, did {w.s} {base} at all?")
        gold = ([found[0]] if found else []) + list(win.anchors)
        return _Q("yes/no", wr.pick(forms), "yes" if found else "no", gold)

    def listing() -> Optional[_Q]:
        w = wr.who()
        win = wr.window(rng.choice(["between", "before", "after", "first_n", "after_event", "by"]), w)
        if win is None:
            return None
        kind = rng.choice(sorted(_LIST_KINDS))
        objs, ts = tr.list_objects(kind, win.lo, win.hi)
        if not objs or (len(objs) == 1 and rng.random() < 0.6):
            return None
        q = wr.fill(wr.pick(_LIST_KINDS[kind]), w).replace("{w}", win.text)
        return _Q("list", q, ", ".join(objs), ts + list(win.anchors))

    plan = ["yes", "yes", "no", "no", "list", "list"]
    rng.shuffle(plan)
    out: list[_Q] = []
    seen: set[str] = set()
    for what in plan + ["yes", "no"] * 10:
        if len(out) == PER_FAMILY:
            break
        for _ in range(120):
            q = listing() if what == "list" else yes_no(what == "yes")
            if q is not None and q.question not in seen:
                seen.add(q.question)
                out.append(q)
                break
    if len(out) != PER_FAMILY:
        raise RuntimeError("existence family incomplete")
    return out


_GENERATORS: tuple[Callable[[_Writer], list[_Q]], ...] = (
    _f1_step_index, _f2_nth, _f3_windowed, _f4_condition, _f5_offset,
    _f6_next_prev, _f7_count, _f8_order, _f9_distance, _f10_existence,
)


def build(seed: int) -> dict:
    """One Crafter episode of Magpie the hoarder, and 60 questions about it."""
    episode = f"{SUITE}_{seed}"
    steps = _simulate(seed)
    validate_steps(steps, episode)
    tr = _Trace(episode, steps)
    questions: list[dict] = []
    for family, generate in zip(FAMILIES, _GENERATORS):
        wr = _Writer(random.Random(f"{SUITE}/{seed}/{family}"), tr)
        for q in generate(wr):
            gold = sorted(set(q.gold))
            questions.append({
                "episode": episode,
                "family": family,
                "slot": q.slot,
                "question": q.question,
                "answer": q.answer,
                "gold": [tr.sid(t) for t in gold],
            })
    return {"episodes": {episode: steps}, "questions": questions}


def _fingerprint(data: dict) -> str:
    def plain(o: Any) -> Any:
        if hasattr(o, "__dataclass_fields__"):
            return {k: plain(getattr(o, k)) for k in o.__dataclass_fields__}
        if isinstance(o, (list, tuple)):
            return [plain(x) for x in o]
        if isinstance(o, dict):
            return {str(k): plain(v) for k, v in o.items()}
        return o

    return hashlib.sha256(json.dumps(plain(data), sort_keys=True).encode()).hexdigest()


def _self_check(seeds: Sequence[int]) -> None:
    from collections import Counter

    for seed in seeds:
        data = build(seed)
        again = build(seed)
        assert _fingerprint(data) == _fingerprint(again), f"seed {seed}: a second build differs"
        (episode, steps), = data["episodes"].items()
        assert 300 <= len(steps) <= 1500, len(steps)
        qs = data["questions"]
        assert len(qs) == 60, len(qs)
        fam = Counter(q["family"] for q in qs)
        assert all(fam[f] == PER_FAMILY for f in FAMILIES), fam
        for q in qs:
            assert q["episode"] == episode
            for g in q["gold"]:
                ep, _, t = g.rpartition(":")
                assert ep == episode and 0 <= int(t) < len(steps), g
            if q["slot"] not in ("yes/no", "count"):
                assert q["gold"], q
            assert q["answer"].strip(), q
        kinds = Counter(e.kind for s in steps for e in s.events)
        print(f"seed {seed}: {len(steps)} steps, {steps[-1].state_dict['life']} lives, fingerprint "
              f"{_fingerprint(data)[:16]}")
        print("  per family:", dict(sorted(fam.items(), key=lambda kv: FAMILIES.index(kv[0]))))
        print("  per slot:  ", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  event kinds:", dict(sorted(kinds.items())))
        rng = random.Random(seed)
        for q in rng.sample(qs, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")
    print("self-check passed")


if __name__ == "__main__":
    _self_check([7900, 7901])
