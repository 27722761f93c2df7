"""Crafter rollouts as graphmem ``Step`` records.

``run_crafter`` plays one Crafter episode (64x64 world) with a scripted survival policy and turns
every environment step into a :class:`~graphmem.records.Step`. All events are derived from ground
truth, never from text: inventory deltas (``gain``/``lose``/``consume``), achievement counters
(``collect``/``make``/``place``/``eat``/``drink``/``defeat``/``wake`` and first-time
``achievement`` unlocks), the health counter (``damage``/``die``), the player's sleeping flag
(``sleep``/``wake``) and the terrain around the player (``visit`` when the region changes, and
at step 0 for the start region).

Vocabulary (all lower-case words, never environment ids such as ``wood_pickaxe``):

* items: wood, stone, coal, iron, diamond, sapling, wood pickaxe, stone pickaxe, iron pickaxe,
  wood sword, stone sword, iron sword
* materials: water, grass, stone, path, sand, tree, lava, coal, iron, diamond, table, furnace
* creatures/objects: cow, zombie, skeleton, arrow, plant
* regions: grassland, forest, beach, lake, mountain, cave
* damage sources: zombie, arrow, lava, hunger, thirst, fatigue (``Event("damage", source, amount)``)

Crafter itself is not reproducible across processes for a fixed seed: it picks creatures to
despawn from a ``set`` of objects, whose order follows memory addresses. ``run_crafter`` uses a
subclass that orders those creatures by position, so the same seed gives the same steps.
"""

from __future__ import annotations

import heapq
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.records import Event, Location, Relation, Step, validate_steps

logger = logging.getLogger(__name__)

try:  # crafter is an optional dependency (extra "envs")
    import crafter
    from crafter import constants as _c
    from crafter import objects as _objects
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    crafter = None  # type: ignore[assignment]
    _IMPORT_ERROR: ImportError | None = exc
else:
    _IMPORT_ERROR = None

Cell = tuple[int, int]

VITALS: tuple[str, ...] = ("health", "food", "drink", "energy")
DIRECTIONS: dict[str, Cell] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
_DIR_NAME: dict[Cell, str] = {v: k for k, v in DIRECTIONS.items()}
WALKABLE: frozenset[str] = frozenset({"grass", "sand", "path"})
#: Cells an arrow flies through: a shelter wall must not be one of them.
ARROW_WALKABLE: frozenset[str] = frozenset({"grass", "sand", "path", "water", "lava"})
#: Materials from which "do" gathers an item (material -> item received).
SOURCES: dict[str, str] = {"tree": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}
#: Region names for the terrain categories of the 5x5 window around the player.
REGION_OF: dict[str, str] = {
    "grass": "grassland",
    "tree": "forest",
    "sand": "beach",
    "water": "lake",
    "stone": "mountain",
    "coal": "mountain",
    "iron": "mountain",
    "diamond": "mountain",
    "lava": "mountain",
    "path": "cave",
}
#: Tie-break order of regions (fixed so that the region is deterministic).
REGION_ORDER: tuple[str, ...] = ("grassland", "forest", "beach", "lake", "mountain", "cave")
#: A 5x5 window with at least this many trees is a forest even if grass dominates: trees are sparse.
FOREST_TREES = 6
TOOLS: tuple[str, ...] = ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword", "iron_pickaxe", "iron_sword")


def _require_crafter() -> None:
    if crafter is None:
        raise ImportError(
            "graphmem.loaders.crafter needs the 'crafter' package: pip install 'crafter>=1.8' "
            f"(or pip install 'graphmem[envs]'); import failed with: {_IMPORT_ERROR}"
        )


def words(name: str) -> str:
    """Canonical human name of an environment id: ``"wood_pickaxe"`` -> ``"wood pickaxe"``."""
    return name.replace("_", " ").strip().lower()


def action_words(action: str) -> str:
    """Crafter action id in words: ``"move_left"`` -> ``"move left"``, ``"do"`` -> ``"do"``."""
    return words(action)


if crafter is not None:

    class DeterministicEnv(crafter.Env):  # type: ignore[misc,name-defined]
        """``crafter.Env`` whose creature despawning does not depend on memory addresses."""

        def _balance_object(self, chunk: Any, objs: Any, cls: Any, *args: Any) -> Any:
            # Crafter draws a random index into a list built from a set of objects; a set of plain
            # objects iterates in address order, so runs diverged. Sorting by position fixes it.
            ordered = sorted(objs, key=lambda o: (int(o.pos[0]), int(o.pos[1])))
            return super()._balance_object(chunk, ordered, cls, *args)


# --------------------------------------------------------------------------------------------------
# World view helpers
# --------------------------------------------------------------------------------------------------


def _creature_name(obj: Any) -> str:
    return type(obj).__name__.lower() if obj is not None else ""


class _Grid:
    """A per-step snapshot of the map as Python lists (fast cell lookups for path search)."""

    def __init__(self, world: Any) -> None:
        names = world._mat_names
        self._ids_array = world._mat_map
        self._mat_ids = world._mat_ids
        self._near_cache: dict[str, list[list[bool]]] = {}
        ids = world._mat_map.tolist()
        self.w, self.h = world.area
        self.mat: list[list[str]] = [[names[i] or "" for i in col] for col in ids]
        self.objmap: list[list[int]] = world._obj_map.tolist()
        self.objects = world._objects

    def inside(self, c: Cell) -> bool:
        return 0 <= c[0] < self.w and 0 <= c[1] < self.h

    def material(self, c: Cell) -> str:
        return self.mat[c[0]][c[1]] if self.inside(c) else ""

    def obj(self, c: Cell) -> Any:
        if not self.inside(c):
            return None
        index = self.objmap[c[0]][c[1]]
        return self.objects[index] if index else None

    def free(self, c: Cell) -> bool:
        """Walkable for the player and not occupied by a creature or plant (lava excluded on purpose)."""
        return self.inside(c) and self.mat[c[0]][c[1]] in WALKABLE and not self.objmap[c[0]][c[1]]

    def blocked(self, c: Cell) -> bool:
        """A move towards ``c`` only turns the player (never true for lava: moving there kills)."""
        if not self.inside(c):
            return True
        if self.objmap[c[0]][c[1]]:
            return True
        return self.mat[c[0]][c[1]] not in WALKABLE and self.mat[c[0]][c[1]] != "lava"

    def near(self, c: Cell, material: str) -> bool:
        """Is ``material`` in the 3x3 square around ``c``? That is what Crafter's ``make`` checks.

        Answered from a cached dilated map (the planner asks often). Crafter slices
        ``map[x - 1: x + 2, y - 1: y + 2]``, which is empty for x == 0 or y == 0 (a negative start
        wraps around), so nothing can be made on the first row or column: mirror that.
        """
        if c[0] < 1 or c[1] < 1:
            return False
        if material not in self._near_cache:
            hit = self._ids_array == self._mat_ids.get(material, -1)
            grown = hit.copy()
            grown[1:, :] |= hit[:-1, :]
            grown[:-1, :] |= hit[1:, :]
            ring = grown.copy()
            ring[:, 1:] |= grown[:, :-1]
            ring[:, :-1] |= grown[:, 1:]
            self._near_cache[material] = ring.tolist()
        return self.inside(c) and self._near_cache[material][c[0]][c[1]]


def _add(a: Cell, b: Cell) -> Cell:
    return (a[0] + b[0], a[1] + b[1])


def _sub(a: Cell, b: Cell) -> Cell:
    return (a[0] - b[0], a[1] - b[1])


def _region_counts(grid: _Grid, pos: Cell) -> Counter[str]:
    counts: Counter[str] = Counter()
    for dx in range(-2, 3):
        for dy in range(-2, 3):
            region = REGION_OF.get(grid.material((pos[0] + dx, pos[1] + dy)))
            if region:  # tables, furnaces and the map border do not vote
                counts[region] += 1
    return counts


def region_at(grid: _Grid, pos: Cell, previous: str = "") -> str:
    """Region of a cell from the terrain of the 5x5 window around it.

    The majority terrain wins (ties in ``REGION_ORDER``); a window with >= 6 trees is a forest even
    though grass dominates it. With ``previous`` (the region one step earlier) the region is sticky:
    it stays while it still covers 10 of the 25 cells (forest: 4 trees), so that walking along a
    border does not emit a visit event at every step.
    """
    counts = _region_counts(grid, pos)
    if previous == "forest" and counts["forest"] >= FOREST_TREES - 2:
        return "forest"
    if counts["forest"] >= FOREST_TREES:
        return "forest"
    if previous and previous != "forest" and counts[previous] >= 10:
        return previous
    if not counts:
        return previous or "grassland"
    best = max(counts.values())
    return next(r for r in REGION_ORDER if counts[r] == best)


# --------------------------------------------------------------------------------------------------
# Scripted policy
# --------------------------------------------------------------------------------------------------

Pred = Callable[[Cell, Cell], bool]
_DANGER_OFFSETS: tuple[Cell, ...] = tuple(
    (dx, dy) for dx in range(-6, 7) for dy in range(-6, 7) if abs(dx) + abs(dy) <= 6
)


class ScriptedPolicy:
    """A survival-first scripted Crafter player that plans on the true map.

    Priorities, first match wins:

    1. fight a zombie or skeleton standing next to the player;
    2. hide in a sealed 2x2 room (walled with stone, or dug into rock) from dusk to dawn while
       zombies spawn, when exhausted, or to heal; sleep there, drink from a water wall;
    3. a random action with probability ``random_rate`` when it is safe (day, healthy, fed, no
       zombie near): about 5% of all steps, as half of them are spent in the shelter;
    4. drink or eat when low (committing to one need until it is met), topping up at dusk;
       fight a zombie within 3 steps;
    5. progress: wood -> table -> pickaxes and swords -> stone -> furnace -> iron tools ->
       diamonds, saplings and plants; else explore.

    Random actions never step into lava. Planning is a Dijkstra search over walkable cells
    (digging through rock costs more, cells in a skeleton's range cost more), so the policy is
    deterministic for a given seed.
    """

    DIG_COST = 3
    #: Extra cost of a cell within 6 steps of a skeleton (arrows fly straight and hurt 2).
    DANGER_COST = 8
    NIGHT_DAYLIGHT = 0.6
    DAWN_DAYLIGHT = 0.85

    def __init__(self, env: Any, seed: int, random_rate: float = 0.12) -> None:
        self.env = env
        self.rng = np.random.RandomState(seed + 7919)  # own stream: the world's RNG stays untouched
        self.random_rate = random_rate
        self.t = 0
        self.grid: _Grid | None = None
        self.danger: set[Cell] = set()
        self.blocked_until: dict[str, int] = {}
        self.explore_target: Cell | None = None
        self.explore_since = 0
        self.shelter: tuple[Cell, ...] | None = None
        self.shelter_since = 0
        self.resting = False
        self.need: str | None = None
        self.plants_placed = 0

    # -- small helpers -----------------------------------------------------------------------------
    @property
    def player(self) -> Any:
        return self.env._player

    @property
    def pos(self) -> Cell:
        return (int(self.player.pos[0]), int(self.player.pos[1]))

    @property
    def facing(self) -> Cell:
        return (int(self.player.facing[0]), int(self.player.facing[1]))

    def inv(self, name: str) -> int:
        return int(self.player.inventory.get(name, 0))

    def _skip(self, goal: str) -> bool:
        return self.blocked_until.get(goal, -1) > self.t

    def _block(self, goal: str, steps: int = 150) -> None:
        self.blocked_until[goal] = self.t + steps

    def _can_dig(self, material: str) -> bool:
        if material not in ("stone", "coal", "iron", "diamond"):
            return False
        need = _c.collect[material]["require"]
        return all(self.inv(k) >= v for k, v in need.items())

    # -- planning ----------------------------------------------------------------------------------
    def _plan(self, pred: Pred, max_cost: int = 400, dig: bool = True) -> list[str] | None:
        """Actions that bring the player to a cell facing a direction where ``pred(cell, dir)``.

        Goals are reached either by *turning* towards a blocked cell (moving into a blocked cell
        only turns the player) or by *arriving* in a cell with a move, which leaves the player
        facing the move direction. Returns [] when the player already stands facing the goal.
        """
        grid = self.grid
        assert grid is not None
        start, facing = self.pos, self.facing
        if pred(start, facing):
            return []
        counter = 0
        frontier: list[tuple[int, int, Cell]] = [(0, counter, start)]
        parent: dict[Cell, tuple[Cell, str] | None] = {start: None}
        cost: dict[Cell, int] = {start: 0}
        done: set[Cell] = set()

        def path_to(cell: Cell) -> list[str]:
            steps: list[str] = []
            node = cell
            while parent[node] is not None:
                prev, action = parent[node]  # type: ignore[misc]
                steps.append(action)
                node = prev
            return steps[::-1]

        while frontier:
            d, _, cell = heapq.heappop(frontier)
            if cell in done:
                continue
            done.add(cell)
            if d > max_cost:
                break
            for name, delta in DIRECTIONS.items():
                nxt = _add(cell, delta)
                if pred(cell, delta) and grid.blocked(nxt):
                    return path_to(cell) + [f"move_{name}"]
            for name, delta in DIRECTIONS.items():
                nxt = _add(cell, delta)
                if nxt in done or not grid.inside(nxt):
                    continue
                material = grid.material(nxt)
                if grid.free(nxt):
                    step_cost = 1
                elif dig and not grid.objmap[nxt[0]][nxt[1]] and self._can_dig(material):
                    step_cost = self.DIG_COST
                else:
                    continue
                if nxt in self.danger:
                    step_cost += self.DANGER_COST
                nd = d + step_cost
                if nd < cost.get(nxt, 1 << 30):
                    cost[nxt] = nd
                    parent[nxt] = (cell, f"move_{name}")
                    if grid.free(nxt) and pred(nxt, delta):
                        return path_to(nxt)
                    counter += 1
                    heapq.heappush(frontier, (nd, counter, nxt))
        return None

    def _follow(self, plan: list[str]) -> str:
        """First action of a plan; digs when the next cell is minable rather than walkable."""
        grid = self.grid
        assert grid is not None
        action = plan[0]
        delta = DIRECTIONS[action[len("move_"):]]
        nxt = _add(self.pos, delta)
        if not grid.free(nxt) and self._can_dig(grid.material(nxt)) and self.facing == delta:
            return "do"
        return action

    def _go(self, pred: Pred, goal: str, final: str, max_cost: int = 400) -> str | None:
        """Head for a ``pred`` goal and do ``final`` there; None (and skip the goal a while) if unreachable."""
        plan = self._plan(pred, max_cost=max_cost)
        if plan is None:
            # Food and water matter most and cows move: look again soon.
            self._block(goal, 30 if goal in ("eat", "drink") else 150)
            return None
        return final if not plan else self._follow(plan)

    # -- predicates --------------------------------------------------------------------------------
    def _facing_material(self, material: str) -> Pred:
        grid = self.grid
        assert grid is not None
        return lambda cell, d: grid.material(_add(cell, d)) == material and grid.obj(_add(cell, d)) is None

    def _facing_creature(self, *names: str) -> Pred:
        grid = self.grid
        assert grid is not None

        def pred(cell: Cell, d: Cell) -> bool:
            obj = grid.obj(_add(cell, d))
            if obj is None or obj is self.player or _creature_name(obj) not in names:
                return False
            return not (isinstance(obj, _objects.Plant) and not obj.ripe)

        return pred

    def _facing_placeable(self, name: str, near: str = "") -> Pred:
        grid = self.grid
        assert grid is not None
        where = set(_c.place[name]["where"])

        def pred(cell: Cell, d: Cell) -> bool:
            target = _add(cell, d)
            if grid.material(target) not in where or grid.obj(target) is not None:
                return False
            if grid.material(target) == "lava":
                return False
            return not near or grid.near(cell, near)

        return pred

    # -- behaviours --------------------------------------------------------------------------------
    def _fight_adjacent(self) -> str | None:
        grid = self.grid
        assert grid is not None
        for name, delta in DIRECTIONS.items():
            obj = grid.obj(_add(self.pos, delta))
            if obj is not None and _creature_name(obj) in ("zombie", "skeleton"):
                return "do" if self.facing == delta else f"move_{name}"
        return None

    def _collect(self, item: str) -> str | None:
        material = {v: k for k, v in SOURCES.items()}[item]
        if not all(self.inv(k) >= v for k, v in _c.collect[material]["require"].items()):
            return None
        if self._skip(f"collect {item}"):
            return None
        return self._go(self._facing_material(material), f"collect {item}", "do")

    def _drink(self) -> str | None:
        return None if self._skip("drink") else self._go(self._facing_material("water"), "drink", "do")

    def _eat(self) -> str | None:
        if self._skip("eat"):
            return None
        return self._go(self._facing_creature("cow", "plant"), "eat", "do", max_cost=600)

    def _place(self, name: str, near: str = "") -> str | None:
        if self._skip(f"place {name}"):
            return None
        return self._go(self._facing_placeable(name, near), f"place {name}", f"place_{name}", max_cost=60)

    def _make(self, tool: str) -> str | None:
        """Gather what ``tool`` needs, reach (or build) its stations, then make it."""
        info = _c.make[tool]
        for item, amount in info["uses"].items():
            if self.inv(item) < amount:
                return self._collect(item) if item in SOURCES.values() else None
        stations = set(info["nearby"])
        grid = self.grid
        assert grid is not None
        ready = self._plan(lambda cell, d: all(grid.near(cell, m) for m in stations), max_cost=25, dig=False)
        if ready is not None:
            return f"make_{tool}" if not ready else self._follow(ready)
        has_table = self._plan(lambda cell, d: grid.near(cell, "table"), max_cost=25, dig=False)
        if has_table is None:
            need = _c.place["table"]["uses"]
            for item, amount in need.items():
                if self.inv(item) < amount + info["uses"].get(item, 0):
                    return self._collect(item)
            return self._place("table")
        if "furnace" in stations:
            for item, amount in _c.place["furnace"]["uses"].items():
                if self.inv(item) < amount:
                    return self._collect(item)
            return self._place("furnace", near="table")
        return None

    def _random(self) -> str:
        grid = self.grid
        assert grid is not None
        options = ["noop", "do"]
        for name, delta in DIRECTIONS.items():
            if grid.material(_add(self.pos, delta)) != "lava":
                options.append(f"move_{name}")
        return options[self.rng.randint(len(options))]

    def _explore(self) -> str:
        grid = self.grid
        assert grid is not None
        if self.explore_target is None or self.pos == self.explore_target or self.t - self.explore_since > 80:
            self.explore_target = None
            for _ in range(20):
                cand = (int(self.rng.randint(grid.w)), int(self.rng.randint(grid.h)))
                if grid.free(cand) and abs(cand[0] - self.pos[0]) + abs(cand[1] - self.pos[1]) > 8:
                    self.explore_target = cand
                    self.explore_since = self.t
                    break
        if self.explore_target is not None:
            target = self.explore_target
            plan = self._plan(lambda cell, d: cell == target, max_cost=300)
            if plan:
                return self._follow(plan)
            self.explore_target = None
        return self._random()

    # -- shelter -----------------------------------------------------------------------------------
    def _skeleton_near(self, room: tuple[Cell, ...], radius: int = 9) -> bool:
        for obj in self.env._world.objects:
            if _creature_name(obj) == "skeleton":
                x, y = int(obj.pos[0]), int(obj.pos[1])
                if any(abs(x - c[0]) + abs(y - c[1]) <= radius for c in room):
                    return True
        return False

    def _room_walls(self, room: tuple[Cell, ...]) -> list[tuple[Cell, Cell]]:
        """(inner cell, outward direction) pairs of the room's walls that are still open.

        Water stops zombies but not arrows: water walls are left open (to drink from inside)
        unless a skeleton comes near, then they are sealed with stone too.
        """
        grid = self.grid
        assert grid is not None
        open_materials = ARROW_WALKABLE if self._skeleton_near(room) else ARROW_WALKABLE - {"water"}
        walls = []
        for cell in room:
            for delta in DIRECTIONS.values():
                out = _add(cell, delta)
                if out not in room and grid.material(out) in open_materials:
                    walls.append((cell, delta))
        return walls

    def _find_room(self) -> tuple[Cell, ...] | None:
        """The cheapest reachable 2x2 room to wall in: free cells or rock to dig out.

        Cost = distance + 2 per wall to build + 1 per cell to dig; natural walls (stone, trees,
        tables) are free, water walls are kept to drink from. Rooms next to lava are never used.
        """
        grid = self.grid
        assert grid is not None
        best: tuple[int, tuple[Cell, ...]] | None = None
        dist: dict[Cell, int] = {self.pos: 0}
        queue = [self.pos]
        for cell in queue:
            if dist[cell] > 12:
                break
            for delta in DIRECTIONS.values():
                nxt = _add(cell, delta)
                if nxt not in dist and grid.free(nxt):
                    dist[nxt] = dist[cell] + 1
                    queue.append(nxt)
            for ox, oy in ((0, 0), (-1, 0), (0, -1), (-1, -1)):
                corner = (cell[0] + ox, cell[1] + oy)
                room = (corner, (corner[0] + 1, corner[1]), (corner[0], corner[1] + 1), (corner[0] + 1, corner[1] + 1))
                # Room cells are free, or rock to dig out: a room carved into a mountain has
                # natural walls and pays for its own stone.
                if not all(grid.inside(c) for c in room):
                    continue
                to_dig = [c for c in room if c != self.pos and not grid.free(c)]
                if any(grid.objmap[c[0]][c[1]] or not self._can_dig(grid.material(c)) for c in to_dig):
                    continue
                # Only the 8 edge neighbours matter: a zombie on a diagonal cannot reach the player.
                ring = {_add(c, d) for c in room for d in DIRECTIONS.values()} - set(room)
                if any(grid.material(r) == "lava" or isinstance(grid.obj(r), _objects.Plant) for r in ring):
                    continue
                needed = sum(1 for r in ring if grid.material(r) in WALKABLE)
                water = sum(1 for r in ring if grid.material(r) == "water")
                stone = min(9, self.inv("stone") + sum(1 for c in to_dig if grid.material(c) == "stone"))
                if needed + water > stone or (needed < 1 and not to_dig):
                    continue  # enough stone to seal the water too, should a skeleton come
                # A room by the water lets the player drink without leaving it.
                score = dist[cell] + 2 * needed + len(to_dig) - (6 if water and dist[cell] <= 6 else 0)
                if any(c in self.danger for c in room):
                    score += 20  # a skeleton in range shoots while the walls go up
                if best is None or score < best[0]:
                    best = (score, room)
        return best[1] if best else None

    def _shelter_action(self) -> str | None:
        """Walk into the chosen room, seal every open wall with stone, then sleep."""
        grid = self.grid
        assert grid is not None
        room = self.shelter
        assert room is not None
        walls = self._room_walls(room)
        if not walls:
            if self.pos not in room:
                return self._go(lambda c, d: c in room, "shelter", "noop")
            return self._inside_shelter()
        if self.pos in room and all(grid.material(_add(c, d)) == "water" for c, d in walls):
            if self.inv("stone") < 1:
                return self._inside_shelter()  # water stops zombies; only arrows get through
        elif self.inv("stone") < 1 or self.t - self.shelter_since > 80:
            self.shelter = None
            return None
        if self.pos not in room:
            plan = self._plan(lambda c, d: c in room, max_cost=60)
            if not plan:
                self.shelter = None
                return None
            return self._follow(plan)
        # Dig out the rest of the room first (a diagonal cell through a side cell).
        rock = [c for c in room if c != self.pos and not grid.free(c) and not grid.objmap[c[0]][c[1]]]
        for cell in sorted(rock, key=lambda c: abs(c[0] - self.pos[0]) + abs(c[1] - self.pos[1])):
            step = _sub(cell, self.pos)
            if abs(step[0]) + abs(step[1]) == 1:
                return "do" if self.facing == step else f"move_{_DIR_NAME[step]}"
            side = next((s for s in ((step[0], 0), (0, step[1])) if grid.free(_add(self.pos, s))), None)
            if side is not None:
                return f"move_{_DIR_NAME[side]}"
        # Pick the wall that needs the fewest moves: face it by arriving from the opposite room cell.
        options = []
        for cell, delta in walls:
            if cell == self.pos and delta == self.facing:
                options.append((0, cell, delta))
            else:
                back = _sub(cell, delta)
                if back in room:
                    moves = 1 + abs(back[0] - self.pos[0]) + abs(back[1] - self.pos[1])
                    options.append((moves, cell, delta))
        if not options:
            self.shelter = None
            return None
        options.sort(key=lambda o: (o[0], o[1], o[2]))
        moves, cell, delta = options[0]
        if moves == 0:
            return "do" if grid.obj(_add(cell, delta)) is not None else "place_stone"
        back = _sub(cell, delta)
        if self.pos == back:
            return f"move_{_DIR_NAME[delta]}"
        # One step inside the room towards ``back`` (the room is 2x2, so one axis at a time).
        dx, dy = back[0] - self.pos[0], back[1] - self.pos[1]
        step = (int(np.sign(dx)), 0) if dx else (0, int(np.sign(dy)))
        if grid.obj(_add(self.pos, step)) is not None:
            return "do" if self.facing == step else f"move_{_DIR_NAME[step]}"
        return f"move_{_DIR_NAME[step]}"

    # -- main --------------------------------------------------------------------------------------
    def act(self, grid: _Grid | None = None) -> str:
        """The next action id (e.g. ``"move_left"``) for the current state of ``env``.

        ``grid`` may pass a snapshot of the current map that the caller already took.
        """
        self.t += 1
        self.grid = grid or _Grid(self.env._world)
        self.danger = set()
        px, py = self.pos
        for obj in self.env._world.objects:
            if _creature_name(obj) == "skeleton":
                sx, sy = int(obj.pos[0]), int(obj.pos[1])
                if abs(sx - px) + abs(sy - py) <= 30:  # farther ones do not matter for the next plan
                    self.danger.update(_add((sx, sy), offset) for offset in _DANGER_OFFSETS)
        if self.player.sleeping:
            return "sleep"  # Crafter ignores other actions while the player sleeps
        for behaviour in (
            self._fight_adjacent,
            self._take_shelter,  # gives way when food or drink run out
            self._maybe_random,
            self._satisfy_needs,
            lambda: self._drink() if self._dusk() and self.inv("drink") < 8 else None,
            lambda: self._eat() if self._dusk() and self.inv("food") < 8 else None,
            lambda: self._collect("stone") if self._dusk() and self.inv("stone") < 6 else None,  # walls
            self._hunt_nearby_monster,
            self._progress,
        ):
            action = behaviour()
            if action is not None:
                return action
        return self._explore()

    def _maybe_random(self) -> str | None:
        """A random action with probability ``random_rate``, but only when it is safe to dawdle:
        daytime, healthy, fed, and no zombie close by."""
        if self.rng.uniform() >= self.random_rate:
            return None
        if self._zombie_time() or self.inv("health") < 5:
            return None
        if min(self.inv("food"), self.inv("drink")) < 2 or self._zombies_within((self.pos,), 4):
            return None
        return self._random()

    def act_random(self, grid: _Grid | None = None) -> str:
        """A uniformly random action among noop, do and the four moves (never into lava)."""
        self.t += 1
        self.grid = grid or _Grid(self.env._world)
        return self._random()

    def _inside_shelter(self) -> str:
        """In a sealed room: drink from a water wall if thirsty, else sleep or wait for the day."""
        grid = self.grid
        assert grid is not None
        room = self.shelter or ()
        if self.inv("drink") < 9:
            for name, delta in DIRECTIONS.items():
                if grid.material(_add(self.pos, delta)) == "water":
                    return "do" if self.facing == delta else f"move_{name}"
            for cell in room:
                if cell != self.pos and any(grid.material(_add(cell, d)) == "water" for d in DIRECTIONS.values()):
                    step = _sub(cell, self.pos)
                    if abs(step[0]) + abs(step[1]) == 2:  # diagonal: go through a side cell
                        step = (step[0], 0) if grid.free(_add(self.pos, (step[0], 0))) else (0, step[1])
                    if grid.free(_add(self.pos, step)):
                        return f"move_{_DIR_NAME[step]}"
        return "sleep" if self.inv("energy") < 9 else "noop"

    def _room_has_water(self) -> bool:
        grid = self.grid
        assert grid is not None
        room = self.shelter or ()
        return any(grid.material(_add(c, d)) == "water" for c in room for d in DIRECTIONS.values())

    def _satisfy_needs(self) -> str | None:
        """Drink or eat, committing to one need until it is met (switching back and forth
        between far-apart water and cows would starve the player)."""
        drink, food = self.inv("drink"), self.inv("food")
        if self.need == "drink" and (drink >= 9 or food <= 1 < drink):
            self.need = None
        if self.need == "food" and (food >= 8 or drink <= 1 < food):
            self.need = None
        if self.need is None:
            if drink <= 5 and (drink <= food or food > 6):
                self.need = "drink"
            elif food <= 6:
                self.need = "food"
        if self.need == "drink":
            action = self._drink()
        elif self.need == "food":
            action = self._eat()
        else:
            return None
        if action is None:
            self.need = None
        return action

    def _take_shelter(self) -> str | None:
        """Hide in a sealed room while zombies roam (dusk to dawn), when tired, and to heal."""
        energy, health = self.inv("energy"), self.inv("health")
        if health <= 6:
            self.resting = True
        elif health >= 8:
            self.resting = False
        if not (energy <= 2 or self.resting or self._zombie_time()):
            self.shelter = None
            return None
        # Leave (or do not enter) the shelter to eat/drink only when really needed: going hungry
        # costs 1 health per ~16 steps, a zombie hit costs 2 (7 when asleep).
        food, drink = self.inv("food"), self.inv("drink")
        thirsty = not self._room_has_water()
        empty = food == 0 or (drink == 0 and thirsty)
        step = self.env._step
        evening = self._daylight(step) >= 0.35 and self._daylight(step + 1) < self._daylight(step)
        if self._zombie_time() and evening:
            # Early evening: a night in the shelter lasts ~165 steps, so top up now.
            starving = food <= 5 or (drink <= 6 and thirsty)
        elif self._zombie_time():
            # At night only an empty stomach justifies zombies (2 damage a hit).
            starving = empty and health >= 5
        else:
            starving = food <= 3 or (drink <= 3 and thirsty)
        if energy > 1 and starving:
            self.shelter = None
            return None
        if self.shelter is None and not self._skip("shelter"):
            self.shelter = self._find_room()
            self.shelter_since = self.t
            if self.shelter is None:
                self._block("shelter", 20)
        if self.shelter is not None:
            action = self._shelter_action()
            if action is not None:
                return action
            self._block("shelter", 20)
        if self.inv("wood_pickaxe") and self.inv("stone") < 9 and not self._skip("collect stone"):
            action = self._collect("stone")  # stone walls make sleeping safe
            if action is not None:
                return action
        return "sleep" if energy <= 1 else None

    def _daylight(self, step: int) -> float:
        # Crafter's day cycle (env._update_time): 300 steps, darkest at step 210 of each cycle.
        progress = (step / 300) % 1 + 0.3
        return float(1 - np.abs(np.cos(np.pi * progress)) ** 3)

    def _zombie_time(self) -> bool:
        """Zombies spawn on grass whenever daylight < ~0.83 (Crafter's ``_balance_chunk``).

        Hide once it drops below 0.6 and stay hidden until it is back above 0.85, when zombies
        stop spawning and start to despawn.
        """
        light = self._daylight(self.env._step)
        if light < self.NIGHT_DAYLIGHT:
            return True
        if self.shelter is None:
            return False
        if light < self.DAWN_DAYLIGHT:
            return True
        # Morning: zombies that waited outside the walls despawn within a few dozen steps.
        return light < 0.97 and self._zombies_within(self.shelter, 5)

    def _zombies_within(self, cells: tuple[Cell, ...], radius: int) -> bool:
        for obj in self.env._world.objects:
            if _creature_name(obj) == "zombie":
                x, y = int(obj.pos[0]), int(obj.pos[1])
                if any(abs(x - c[0]) + abs(y - c[1]) <= radius for c in cells):
                    return True
        return False

    def _dusk(self) -> bool:
        """Evening: it is getting darker and the shelter time is near (top up food and water now)."""
        now, later = self._daylight(self.env._step), self._daylight(self.env._step + 80)
        return later < now and later < self.NIGHT_DAYLIGHT + 0.1

    def _hunt_nearby_monster(self) -> str | None:
        if self.inv("health") < 5:
            return None
        x, y = self.pos
        for obj in self.env._world.objects:
            if _creature_name(obj) == "zombie" and abs(int(obj.pos[0]) - x) + abs(int(obj.pos[1]) - y) <= 3:
                return self._go(self._facing_creature("zombie"), "hunt", "do", max_cost=6)
        return None

    def _progress(self) -> str | None:
        for tool in TOOLS:
            if self.inv(tool) == 0 and not self._skip(f"make {tool}"):
                action = self._make(tool)
                if action is not None:
                    return action
                self._block(f"make {tool}")
        if self.inv("wood_pickaxe") and self.inv("stone") < 9:
            action = self._collect("stone")
            if action is not None:
                return action
        if self.inv("wood") < 5:
            action = self._collect("wood")
            if action is not None:
                return action
        if self.inv("sapling") > 0:
            action = self._place("plant")
            if action is not None:
                return action
        if self.inv("food") <= 7 and not self._skip("eat plant"):
            action = self._go(self._facing_creature("plant"), "eat plant", "do", max_cost=40)
            if action is not None:
                return action
        for item, keep in (("diamond", 9), ("iron", 2), ("coal", 2)):
            if self.inv(item) < keep:
                action = self._collect(item)
                if action is not None:
                    return action
        if self.inv("sapling") == 0 and self.plants_placed < 4 and self.rng.uniform() < 0.5:
            grid = self.grid
            assert grid is not None
            if grid.material(_add(self.pos, self.facing)) == "grass" and grid.obj(_add(self.pos, self.facing)) is None:
                return "do"  # grass gives a sapling with probability 0.1
        return None


# --------------------------------------------------------------------------------------------------
# Step construction from ground truth
# --------------------------------------------------------------------------------------------------


@dataclass
class _Snapshot:
    inventory: dict[str, int]
    vitals: dict[str, int]
    achievements: dict[str, int]
    sleeping: bool
    pos: Cell
    facing_material: str
    facing_object: str
    region: str
    recover: float


def _snapshot(env: Any, grid: _Grid, region: str) -> _Snapshot:
    player = env._player
    pos = (int(player.pos[0]), int(player.pos[1]))
    front = _add(pos, (int(player.facing[0]), int(player.facing[1])))
    inv = {k: int(v) for k, v in player.inventory.items()}
    return _Snapshot(
        inventory={k: v for k, v in inv.items() if k not in VITALS},
        vitals={k: inv[k] for k in VITALS},
        achievements={k: int(v) for k, v in player.achievements.items()},
        sleeping=bool(player.sleeping),
        pos=pos,
        facing_material=grid.material(front),
        facing_object=_creature_name(grid.obj(front)),
        region=region,
        recover=float(player._recover),  # Crafter's health regeneration/degeneration counter
    )


def _damage_sources(env: Any, grid: _Grid, before: _Snapshot, after: _Snapshot) -> list[tuple[str, int]]:
    """Split this step's health loss by cause, from Crafter's own counters.

    Hunger/thirst/fatigue take 1 health when the player's ``_recover`` counter wraps from below
    -15 to 0; a zombie that just hit has ``cooldown == 5`` and hits 2 (7 on a sleeper); lava
    kills; whatever is left came from an arrow.
    """
    lost = before.vitals["health"] - after.vitals["health"]
    if lost <= 0:
        return []
    x, y = after.pos
    if grid.material((x, y)) == "lava":
        return [("lava", lost)]
    sources: list[tuple[str, int]] = []
    for obj in env._world.objects:
        if _creature_name(obj) == "zombie" and obj.cooldown == 5 and abs(int(obj.pos[0]) - x) + abs(int(obj.pos[1]) - y) <= 1:
            sources.append(("zombie", min(lost, 7 if before.sleeping else 2)))
            break
    if before.recover < 0 and after.recover == 0:
        for vital, name in (("food", "hunger"), ("drink", "thirst"), ("energy", "fatigue")):
            if after.vitals[vital] <= 0:
                sources.append((name, 1))
                break
    rest = lost - sum(n for _, n in sources)
    if rest > 0:
        sources.append(("arrow", rest))
    elif rest < 0:  # clamped at 0 health: trim the last cause
        name, n = sources[-1]
        sources[-1] = (name, n + rest)
    return [(name, n) for name, n in sources if n > 0]


def _with_count(name: str, inventory: dict[str, int]) -> str:
    return f"{words(name)} {inventory.get(name, 0)}"


def _describe_do(before: _Snapshot, achieved: dict[str, int]) -> str:
    """What a "do" hit, from the achievement counters and the cell faced before acting."""
    target = before.facing_object or before.facing_material
    for name in achieved:
        if name == "collect_drink":
            return "drink water"
        if name.startswith("collect_"):
            item = words(name[len("collect_"):])
            return f"collect {item}" if item == target else f"collect {item} from {target}"
        if name in ("eat_cow", "eat_plant", "defeat_zombie", "defeat_skeleton"):
            return words(name)
    if before.facing_object in ("zombie", "skeleton", "cow"):
        return f"attack {before.facing_object}"
    if before.facing_object == "plant":
        return "hit unripe plant"
    return f"hit {target}" if target else "hit nothing"


def build_step(
    t: int,
    action: str,
    before: _Snapshot,
    after: _Snapshot,
    env: Any,
    grid: _Grid,
) -> Step:
    """Turn one transition (snapshots before/after ``action``) into a ``Step``."""
    events: list[Event] = []
    achieved = {k: after.achievements[k] - before.achievements.get(k, 0) for k in after.achievements}
    achieved = {k: v for k, v in achieved.items() if v > 0}
    gained = {k: after.inventory.get(k, 0) - before.inventory.get(k, 0) for k in after.inventory}
    losses = {k: -v for k, v in gained.items() if v < 0}
    gained = {k: v for k, v in gained.items() if v > 0}

    phrases: list[str] = []
    objects: list[str] = []
    relations: list[Relation] = []
    acted_on = before.facing_object or before.facing_material

    for name, n in sorted(achieved.items()):
        if name == "collect_drink":
            events.append(Event("drink", "water", n))
            phrases.append(f"drank water (drink {after.vitals['drink']})")
            objects.append("water")
        elif name.startswith("collect_"):
            item = name[len("collect_"):]
            events.append(Event("collect", words(item), n))
            source = {"wood": " from a tree", "sapling": " from the grass"}.get(item, "")
            phrases.append(f"collected {words(item)}{source} ({_with_count(item, after.inventory)})")
            objects.append(words(item))
        elif name.startswith("place_"):
            item = name[len("place_"):]
            events.append(Event("place", words(item), n))
            phrases.append(f"placed a {words(item)} on {before.facing_material}")
            objects.append(words(item))
            if item == "plant":
                relations.append(Relation("plant", "on", before.facing_material))
        elif name.startswith("make_"):
            item = name[len("make_"):]
            events.append(Event("make", words(item), n))
            phrases.append(f"made a {words(item)}")
            objects.append(words(item))
        elif name in ("eat_cow", "eat_plant"):
            food = name[len("eat_"):]
            events.append(Event("eat", food, n))
            if food == "cow":
                events.append(Event("defeat", "cow", n))
            phrases.append(f"ate a {food} (food {after.vitals['food']})")
            objects.append(food)
        elif name.startswith("defeat_"):
            creature = name[len("defeat_"):]
            events.append(Event("defeat", creature, n))
            phrases.append(f"defeated a {creature}")
            objects.append(creature)
        if before.achievements.get(name, 0) == 0:
            events.append(Event("achievement", words(name), 1))
            phrases.append(f"unlocked achievement '{words(name)}'")

    spent = bool(losses) and any(k.startswith(("place_", "make_")) for k in achieved)
    for item, n in sorted(losses.items()):
        if spent:
            events.append(Event("consume", words(item), n))
    for item, n in sorted(gained.items()):
        events.append(Event("gain", words(item), n))
    for item, n in sorted(losses.items()):
        events.append(Event("lose", words(item), n))

    damage = _damage_sources(env, grid, before, after)
    for source, amount in damage:
        events.append(Event("damage", source, amount))
        phrases.append(f"took {amount} damage from {source} (health {after.vitals['health']})")
        if source in ("zombie", "arrow", "lava"):
            objects.append(source)
    if after.vitals["health"] <= 0:
        events.append(Event("die", damage[0][0] if damage else "", 1))
        phrases.append("died")
    if after.sleeping and not before.sleeping:
        events.append(Event("sleep", "", 1))
        phrases.append(f"fell asleep (energy {after.vitals['energy']})")
    if before.sleeping and not after.sleeping:
        events.append(Event("wake", "", 1))
        phrases.append(f"woke up (energy {after.vitals['energy']})")
    if after.region != before.region:
        events.append(Event("visit", after.region, 1))
        phrases.append(f"entered the {after.region}")

    # Action in words; a "do" says what it hit.
    if action == "do":
        action_text = f"do ({_describe_do(before, achieved)})"
        relations.append(Relation("agent", "acted on", acted_on or "nothing"))
        if acted_on:
            objects.append(acted_on)
    else:
        action_text = action_words(action)
        if action.startswith("place_"):
            relations.append(Relation("agent", "acted on", acted_on or "nothing"))

    if not phrases:
        if action.startswith("move_"):
            direction = action[len("move_"):]
            if after.pos != before.pos:
                phrases.append(f"moved {direction} to ({after.pos[0]},{after.pos[1]}) in the {after.region}")
            else:
                front = after.facing_object or after.facing_material or "the edge of the world"
                phrases.append(f"turned {direction} to face {front}")
        elif action == "do":
            phrases.append(_describe_do(before, achieved).replace("hit ", "hit the ", 1))
        elif action == "sleep":
            phrases.append(f"slept (energy {after.vitals['energy']})")
        elif action == "noop":
            phrases.append(f"waited in the {after.region}")
        else:
            phrases.append(f"tried to {action_words(action)} but nothing happened")

    # Relations and salient objects around the player after the step.
    facing = after.facing_object or after.facing_material
    if facing:
        relations.append(Relation("agent", "facing", facing))
        if after.facing_object or facing not in WALKABLE:
            objects.append(facing)
    near: list[str] = []
    x, y = after.pos
    for obj in env._world.objects:
        name = _creature_name(obj)
        if obj is env._player or name in near:
            continue
        if abs(int(obj.pos[0]) - x) + abs(int(obj.pos[1]) - y) <= 3:
            near.append(name)
    for name in sorted(near):
        relations.append(Relation("agent", "near", name))
        objects.append(name)
    relations.append(Relation("agent", "in", after.region))

    underfoot = grid.material(after.pos)
    state: dict[str, Any] = dict(after.vitals)
    state["sleeping"] = after.sleeping
    state["daylight"] = round(float(env._world.daylight), 2)
    return Step(
        t=t,
        action=action_text,
        summary="; ".join(phrases),
        objects=tuple(dict.fromkeys(o for o in objects if o)),
        events=tuple(events),
        relations=tuple(dict.fromkeys(relations)),
        inventory={words(k): v for k, v in after.inventory.items() if v > 0},
        state=state,
        location=Location(position=after.pos, region=after.region, underfoot=underfoot),
        observation=_observation(grid, after, facing),
    )


def _observation(grid: _Grid, after: _Snapshot, facing: str) -> str:
    """A compact text view of the 9x7 local window (what the agent's camera shows)."""
    counts: Counter[str] = Counter()
    x, y = after.pos
    for dx in range(-4, 5):
        for dy in range(-3, 4):
            cell = (x + dx, y + dy)
            obj = grid.obj(cell)
            if obj is not None and (dx or dy):
                counts[_creature_name(obj)] += 1
            material = grid.material(cell)
            if material and material not in ("grass", "path", "sand"):
                counts[material] += 1
    seen = ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))
    return f"facing {facing or 'nothing'}; in view: {seen or 'open ground'}"


# --------------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------------


def run_crafter(seed: int, steps: int = 2000, policy: str = "scripted", random_rate: float = 0.12) -> list[Step]:
    """Play one Crafter episode and return its steps (``t`` = 0, 1, ...).

    ``policy="scripted"`` is :class:`ScriptedPolicy` (about ``random_rate`` of its free choices are
    random); ``policy="random"`` moves and acts at random and usually dies within a few hundred
    steps. The episode ends after ``steps`` steps or when the player dies (the last step then carries a
    ``die`` event and a warning is logged). Deterministic for a given seed.

    >>> steps = run_crafter(seed=0, steps=300)
    >>> steps[0].location.region
    'grassland'
    """
    _require_crafter()
    if policy not in ("scripted", "random"):
        raise ValueError(f"unknown crafter policy {policy!r}; use 'scripted' or 'random'")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    env = DeterministicEnv(area=(64, 64), reward=True, length=max(10000, steps + 1), seed=seed)
    env.reset()
    player_policy = ScriptedPolicy(env, seed, random_rate=random_rate)
    choose = player_policy.act if policy == "scripted" else player_policy.act_random
    action_ids = {name: i for i, name in enumerate(_c.actions)}
    grid = _Grid(env._world)
    region = region_at(grid, (int(env._player.pos[0]), int(env._player.pos[1])))
    out: list[Step] = []
    for t in range(steps):
        # The first step "visits" the start region: before it the agent was nowhere.
        before = _snapshot(env, grid, region if t else "")
        action = choose(grid)
        _, _, done, info = env.step(action_ids[action])
        grid = _Grid(env._world)
        pos = (int(info["player_pos"][0]), int(info["player_pos"][1]))
        region = region_at(grid, pos, previous=region)
        after = _snapshot(env, grid, region)
        if action == "place_plant" and after.achievements["place_plant"] > before.achievements["place_plant"]:
            player_policy.plants_placed += 1
        out.append(build_step(t, action, before, after, env, grid))
        if done:
            if env._player.health <= 0:
                logger.warning("crafter seed %d: the agent died at step %d of %d", seed, t, steps)
            break
    validate_steps(out, f"crafter seed {seed}")
    return out
