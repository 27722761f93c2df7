"""Vesper, a cartographer-miner in Crafter: a trajectory question suite (seeds 10700-10799).

The agent
---------
Vesper plays real Crafter (``crafter.Env(seed=seed)``, 64x64 world, upstream rules and rendering; the only
change is that the despawn step of ``_balance_object`` picks from creatures sorted by position, so a seed
replays identically in every process). An episode runs 700-1300 steps (drawn from the seed). Vesper:

* surveys the map in an expanding square spiral around its base camp (the spawn tile): ring ``k`` visits
  the corners NE, NW, SW, SE and NE again at Chebyshev distance ``5k`` from camp; reaching the last corner
  closes the ring, and Vesper then plants a marker (a table if it has the wood, else a stone) next to it;
* mines ore in view whenever it holds the pickaxe it needs (coal, iron, diamond), quarries stone for
  walls and tools, fells trees for wood, pitches a workbench and forges its tools in order (wood pickaxe,
  wood sword, stone pickaxe, stone sword, then a furnace and the iron pickaxe and iron sword);
* drinks at known water, hunts cows in view when hungry, fights zombies and skeletons that stand next to
  it, falls back to camp when its health or food runs low and rests there;
* at night (or when exhausted) builds a two-tile nook walled with stone on every side and sleeps in it
  (or in the open when it lacks stone or no nook can be built), digging its way out after waking;
* when it dies it comes back to life at camp with full vitals and its inventory (a new life).

Records (``graphmem.records.Step``), episode id ``vesper-<seed>``, source ids ``vesper-<seed>:<t>``
-----------------------------------------------------------------------------------------------------
* ``t``: 0, 1, 2, ... one per Crafter step.
* ``action``: the Crafter action as issued (``noop``, ``move_left``, ``move_right``, ``move_up``,
  ``move_down``, ``do``, ``sleep``, ``place_stone``, ``place_table``, ``place_furnace``, ``make_wood_pickaxe``,
  ... ``make_iron_sword``).
* ``summary``: one line: task, action, sector and the events logged.
* ``observation``: the logbook line: time of day, sector, position, what is faced, creatures and terrain in
  the 9x7 view, vitals and task.
* ``objects``: creature kinds in view (cow, zombie, skeleton, arrow, ...) and notable materials in view
  (water, tree, coal, iron, diamond, lava, table, furnace).
* ``relations``: first ``(Vesper, "acts on", X)`` for ``do``/``place_*`` steps, X being what was in front
  before the step (tree, stone, water, zombie, cow, grass, ...), else ``(Vesper, "faces", X)`` with X in
  front after the step; then ``(Vesper, "sees", creature)`` for each creature kind in view.
* ``inventory``: the Crafter items held after the step, zero counts left out, names with spaces
  (``wood``, ``stone``, ``coal``, ``iron``, ``diamond``, ``sapling``, ``wood pickaxe``, ``stone sword``, ...).
* ``location``: ``position`` (x, y) in Crafter coordinates (y grows southward), ``region`` the sector,
  ``underfoot`` the material stood on.
* ``state`` (after the step): vitals ``vigor`` (health), ``satiety`` (food), ``hydration`` (drink),
  ``stamina`` (energy), each 0-9; counters ``sectors charted``, ``rings closed``, ``markers set``,
  ``ore hauled`` (coal, iron and diamond mined), ``foes slain``, ``lives`` (1 + deaths so far),
  ``survey ring`` (the ring being surveyed); texts ``task`` (surveying, felling, quarrying, mining ore,
  drinking, hunting, fighting, falling back, recuperating, foraging, crafting, heading to workbench,
  pitching workbench, heading to forge, raising furnace, setting marker, walling nook, sleeping,
  wandering, idling) and ``sky`` (day, dusk, night, dawn); bool ``asleep``.

Sectors: the tiles within Chebyshev distance 2 of camp are ``camp square``; otherwise
``"<heading> circuit <k>"`` with ``k = (d + 2) // 5`` for Chebyshev distance ``d`` from camp and heading one
of north, northeast, east, southeast, south, southwest, west, northwest (east/west when ``|dx| > 2|dy|``,
north/south when ``|dy| > 2|dx|``, else the diagonal).

Event kinds (``Event(kind, obj)``), derived from Crafter's inventory and achievement changes, health
changes, the faced target and placements:
``chart`` sector (first entry into a sector), ``cross into`` sector (entry into an already charted one),
``hew`` wood, ``quarry`` stone, ``unearth`` coal/iron/diamond, ``glean`` sapling, ``gulp`` water,
``feast`` cow/plant, ``hack at`` cow/zombie/skeleton (a blow that did not kill), ``slay`` zombie/skeleton,
``forge`` tool (e.g. ``wood pickaxe``), ``pitch workbench`` table, ``raise furnace`` furnace,
``set marker`` table/stone, ``wall up`` stone (a nook wall), ``lay stone`` stone (any other stone placed),
``sow`` sapling, ``close ring`` ``ring k``, ``bed down`` nook/open ground, ``rouse``, ``wounded`` cause
(zombie, arrow, hunger, thirst, exhaustion, lava; count = health lost), ``mend`` (count = health gained),
``perish`` cause, ``revive`` camp square (first event of the step after a death), ``fall back`` camp square
(a retreat begins), ``reach camp`` camp square (a retreat ends), ``spy`` iron/diamond (ore seen on a new tile).

Questions
---------
60 per seed, six of each family: ``1_step_index``, ``2_nth_occurrence``, ``3_windowed_occurrence``,
``4_condition``, ``5_offset``, ``6_next_previous``, ``7_count``, ``8_order``, ``9_distance``,
``10_existence``; slots ``action``, ``step``, ``location``, ``position``, ``item``, ``inventory``, ``state``,
``facing``, ``events``, ``count``, ``yes/no``, ``which-first``, ``duration``. They name Vesper as I / we /
you / Vesper / the agent / it and use synonyms of the event kinds ("chopped a tree" for ``hew``, "got hurt by
a zombie" for ``wounded zombie``, "woke up" for ``rouse``). Every question carries a structured query that
:class:`Evaluator` answers by scanning the Step records; the builder checks that answer and its gold steps
against its own index of the run. Step windows never start or end on a matching step and event anchors
never coincide with the asked event, so inclusive and exclusive readings agree; occurrences are counted per
step. ``python -m benchmarks.suites.heldout12_crafter [seed ...]`` runs the self-check.
"""

from __future__ import annotations

import hashlib
import heapq
import random
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import crafter
import numpy as np
from crafter import constants as _cc
from crafter import objects as _co

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout12_crafter"
SEEDS: tuple[int, ...] = tuple(range(10700, 10800))
DEFAULT_SEEDS: tuple[int, ...] = (10700, 10701)
AGENT = "Vesper"
CAMP = "camp square"

Scalar = int | float | str | bool

# --------------------------------------------------------------------------------------------------
# The environment: upstream Crafter with deterministic creature despawning.
# --------------------------------------------------------------------------------------------------


class _SteadyCrafter(crafter.Env):
    """Crafter whose despawn step picks from creatures sorted by position.

    Upstream ``_balance_object`` indexes into a list built from a ``set`` of objects, whose order
    follows memory addresses; sorting by position first makes a seed replay identically in every process.
    Everything else (world generation, rules, rendering) is upstream Crafter.
    """

    def _balance_object(
        self, chunk, objs, cls, material, span_dist, despan_dist, spawn_prob, despawn_prob, ctor, target_fn
    ):  # type: ignore[no-untyped-def]
        xmin, xmax, ymin, ymax = chunk
        rand = self._world.random
        creatures = sorted(
            (obj for obj in objs if isinstance(obj, cls)), key=lambda obj: (int(obj.pos[0]), int(obj.pos[1]))
        )
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and rand.uniform() < spawn_prob:
            xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
            ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
            xs, ys = xs[mask], ys[mask]
            i = rand.randint(0, len(xs))
            pos = np.array((xs[i], ys[i]))
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and rand.uniform() < despawn_prob:
            obj = creatures[rand.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)


# --------------------------------------------------------------------------------------------------
# Constants of the agent.
# --------------------------------------------------------------------------------------------------

Pos = tuple[int, int]

_WALK = frozenset(("grass", "sand", "path"))
_DIRS: tuple[tuple[str, Pos], ...] = (("left", (-1, 0)), ("right", (1, 0)), ("up", (0, -1)), ("down", (0, 1)))
_DVEC: dict[str, Pos] = dict(_DIRS)
_DNAME: dict[Pos, str] = {vec: name for name, vec in _DIRS}
_ACTION_INDEX: dict[str, int] = {name: i for i, name in enumerate(_cc.actions)}
_SIZE = 64
_VIEW_X, _VIEW_Y = 4, 3
_TOOLS: tuple[str, ...] = ("wood_pickaxe", "wood_sword", "stone_pickaxe", "stone_sword", "iron_pickaxe", "iron_sword")
_NEEDS: dict[str, str] = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe", "diamond": "iron_pickaxe"}
_ORES: tuple[str, ...] = ("coal", "iron", "diamond")
_VITALS: dict[str, str] = {"health": "vigor", "food": "satiety", "drink": "hydration", "energy": "stamina"}
_MAXV = 9
_RING_STEP = 5
_MAX_RING = 6
_TABLE_WOOD = int(_cc.place["table"]["uses"]["wood"])
_FURNACE_STONE = int(_cc.place["furnace"]["uses"]["stone"])
_CREATURES: dict[type, str] = {
    _co.Cow: "cow",
    _co.Zombie: "zombie",
    _co.Skeleton: "skeleton",
    _co.Arrow: "arrow",
    _co.Plant: "sapling plant",
    _co.Fence: "fence",
}


def _add(a: Pos, b: Pos) -> Pos:
    return (a[0] + b[0], a[1] + b[1])


def _cheb(a: Pos, b: Pos) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _manh(a: Pos, b: Pos) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _inside(p: Pos) -> bool:
    return 0 <= p[0] < _SIZE and 0 <= p[1] < _SIZE


def sector_of(base: Pos, pos: Pos) -> str:
    """The logbook's sector name of ``pos``: compass direction from base camp plus circuit number.

    Circuit ``k`` holds the tiles whose Chebyshev distance from camp is ``5k-2 .. 5k+2``; the inner
    square (distance 0-2) is ``camp square``. North is toward smaller y (Crafter's "up").
    """
    dx, dy = pos[0] - base[0], pos[1] - base[1]
    ring = (max(abs(dx), abs(dy)) + 2) // _RING_STEP
    if ring == 0:
        return CAMP
    ax, ay = abs(dx), abs(dy)
    if ax > 2 * ay:
        heading = "east" if dx > 0 else "west"
    elif ay > 2 * ax:
        heading = "north" if dy < 0 else "south"
    else:
        heading = ("north" if dy < 0 else "south") + ("east" if dx > 0 else "west")
    return f"{heading} circuit {ring}"


def _item_name(name: str) -> str:
    return name.replace("_", " ")


# --------------------------------------------------------------------------------------------------
# The builder's own index of the run (kept while simulating, independent of the Step records).
# --------------------------------------------------------------------------------------------------


@dataclass
class _Trace:
    actions: list[str] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)
    positions: list[Pos] = field(default_factory=list)
    inventories: list[dict[str, int]] = field(default_factory=list)
    states: list[dict[str, Scalar]] = field(default_factory=list)
    facing: list[tuple[str, str]] = field(default_factory=list)
    events: list[list[tuple[str, str]]] = field(default_factory=list)
    by_event: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    by_action: dict[str, list[int]] = field(default_factory=dict)
    by_region: dict[str, list[int]] = field(default_factory=dict)

    def add(self, t: int, action: str, region: str, pos: Pos, inv: dict[str, int], state: dict[str, Scalar],
            facing: tuple[str, str], events: list[tuple[str, str]]) -> None:
        self.actions.append(action)
        self.regions.append(region)
        self.positions.append(pos)
        self.inventories.append(dict(inv))
        self.states.append(dict(state))
        self.facing.append(facing)
        self.events.append(list(events))
        self.by_action.setdefault(action, []).append(t)
        self.by_region.setdefault(region, []).append(t)
        for kind, obj in events:
            for table, key in ((self.by_event, (kind, obj)), (self.by_kind, kind)):
                seen = table.setdefault(key, [])  # type: ignore[attr-defined]
                if not seen or seen[-1] != t:
                    seen.append(t)


# --------------------------------------------------------------------------------------------------
# Vesper, the cartographer-miner.
# --------------------------------------------------------------------------------------------------


@dataclass
class _Nook:
    a: Pos
    b: Pos
    door: Pos
    f: str
    outer: tuple[Pos, ...]


class _Vesper:
    """A scripted Crafter agent: spiral survey, mining, crafting, foraging and sleeping in walled nooks."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(f"vesper-walk-{seed}")
        self.length = random.Random(f"vesper-length-{seed}").randint(700, 1300)
        self.env = _SteadyCrafter(seed=seed)
        self.env.reset()
        self.world = self.env._world
        self.player = self.env._player
        self.base: Pos = self.pos()
        self.known: list[list[str | None]] = [[None] * _SIZE for _ in range(_SIZE)]
        self.tables: set[Pos] = set()
        self.furnaces: set[Pos] = set()
        self.waters: set[Pos] = set()
        self.t = 0
        self.path: list[Pos] = []
        self.path_key: Any = None
        self.path_age = 0
        self.avoid: dict[Pos, int] = {}
        self.banned: dict[Pos, int] = {}
        self.commit: dict[str, tuple[Pos, int]] = {}
        self.waypoints = self._make_waypoints()
        self.wp_i = 0
        self.wp_radius = 1
        self.wp_steps = 0
        self.wp_budget = self._budget()
        self.marker_ring: int | None = None
        self.marker_steps = 0
        self.bedding = False
        self.nook: _Nook | None = None
        self.failed_nooks: set[tuple[Pos, str]] = set()
        self.nook_waits = 0
        self.nook_steps = 0
        self.drinking = False
        self.drink_retry = -1
        self.hunting = False
        self.retreating = False
        self.recuperating = False
        self.recup_steps = 0
        self.wander_target: Pos | None = None
        self.pending_revive = False
        self.pending: list[Event] = []
        self.charted: set[str] = set()
        self.region: str | None = None
        self.rings = 0
        self.markers = 0
        self.ore = 0
        self.slain = 0
        self.lives = 1
        self.survey_ring = 1
        self.observe()

    # ---- world access ------------------------------------------------------------------------
    def pos(self) -> Pos:
        return (int(self.player.pos[0]), int(self.player.pos[1]))

    def facing(self) -> Pos:
        return (int(self.player.facing[0]), int(self.player.facing[1]))

    def mat(self, p: Pos) -> str | None:
        return self.world[p][0]

    def obj(self, p: Pos) -> Any:
        return self.world[p][1]

    def inv(self, name: str) -> int:
        return int(self.player.inventory[name])

    def open_tile(self, p: Pos) -> bool:
        mat, obj = self.world[p]
        return mat in _WALK and (obj is None or obj is self.player)

    def thing(self, p: Pos) -> str:
        mat, obj = self.world[p]
        if obj is not None and obj is not self.player:
            return _CREATURES.get(type(obj), "creature")
        return mat if mat is not None else "edge of the world"

    def view_tiles(self) -> Iterable[Pos]:
        x, y = self.pos()
        for dx in range(-_VIEW_X, _VIEW_X + 1):
            for dy in range(-_VIEW_Y, _VIEW_Y + 1):
                q = (x + dx, y + dy)
                if _inside(q):
                    yield q

    def visible(self, kind: type) -> list[Pos]:
        here = self.pos()
        found = []
        for q in self.view_tiles():
            obj = self.obj(q)
            if isinstance(obj, kind):
                found.append(q)
        return sorted(found, key=lambda q: (_manh(here, q), q))

    def observe(self) -> set[str]:
        """Copy the view window into memory; return the ore kinds seen for the first time on some tile."""
        spotted: set[str] = set()
        for q in self.view_tiles():
            mat = self.mat(q)
            old = self.known[q[0]][q[1]]
            if mat == old:
                continue
            if mat in ("iron", "diamond") and old is None:
                spotted.add(mat)
            self.known[q[0]][q[1]] = mat
            for name, bag in (("table", self.tables), ("furnace", self.furnaces), ("water", self.waters)):
                if mat == name:
                    bag.add(q)
                else:
                    bag.discard(q)
        return spotted

    def daylight(self) -> float:
        return float(self.world.daylight)

    def sky(self) -> str:
        light = self.daylight()
        phase = self.env._step % 300
        if light < 0.3:
            return "night"
        if light < 0.7:
            return "dusk" if 60 <= phase < 210 else "dawn"
        return "day"

    # ---- survey plan -------------------------------------------------------------------------
    def _make_waypoints(self) -> list[tuple[Pos, int, bool]]:
        bx, by = self.base
        out: list[tuple[Pos, int, bool]] = []
        for ring in range(1, _MAX_RING + 1):
            r = _RING_STEP * ring
            corners = ((r, -r), (-r, -r), (-r, r), (r, r), (r, -r))
            for i, (dx, dy) in enumerate(corners):
                point = (min(max(bx + dx, 1), _SIZE - 2), min(max(by + dy, 1), _SIZE - 2))
                out.append((point, ring, i == len(corners) - 1))
        return out

    def _budget(self) -> int:
        if self.wp_i >= len(self.waypoints):
            return 0
        return 60 + 4 * _manh(self.pos(), self.waypoints[self.wp_i][0])

    def advance_waypoint(self) -> None:
        _, ring, final = self.waypoints[self.wp_i]
        if final:
            self.rings += 1
            self.pending.append(Event("close ring", f"ring {ring}"))
            self.marker_ring = ring
            self.marker_steps = 0
        self.wp_i += 1
        self.wp_radius = 1
        self.wp_steps = 0
        self.wp_budget = self._budget()
        if self.wp_i < len(self.waypoints):
            self.survey_ring = self.waypoints[self.wp_i][1]

    # ---- navigation --------------------------------------------------------------------------
    def breakable(self, mat: str | None) -> bool:
        if mat == "tree":
            return True
        need = _NEEDS.get(mat or "")
        return need is not None and self.inv(need) > 0

    def enter_cost(self, q: Pos) -> int | None:
        if self.avoid.get(q, -1) >= self.t:
            return None
        mat = self.known[q[0]][q[1]]
        if mat is None:
            return 2
        if mat in _WALK:
            return 1
        if mat == "tree" or (mat in ("stone", "coal") and self.inv("wood_pickaxe") > 0):
            return 4
        if (mat == "iron" and self.inv("stone_pickaxe") > 0) or (mat == "diamond" and self.inv("iron_pickaxe") > 0):
            return 5
        return None

    def dijkstra(self, goal: Callable[[Pos], bool], cutoff: int | None = None) -> list[Pos] | None:
        start = self.pos()
        if goal(start):
            return []
        dist: dict[Pos, int] = {start: 0}
        prev: dict[Pos, Pos] = {}
        heap: list[tuple[int, Pos]] = [(0, start)]
        while heap:
            d, cur = heapq.heappop(heap)
            if d > dist.get(cur, 1 << 30):
                continue
            if cur != start and goal(cur):
                path = [cur]
                while prev[path[-1]] != start:
                    path.append(prev[path[-1]])
                return path[::-1]
            if cutoff is not None and d > cutoff:
                break
            for _, vec in _DIRS:
                nxt = _add(cur, vec)
                if not _inside(nxt):
                    continue
                cost = self.enter_cost(nxt)
                if cost is None:
                    continue
                nd = d + cost
                if nd < dist.get(nxt, 1 << 30):
                    dist[nxt] = nd
                    prev[nxt] = cur
                    heapq.heappush(heap, (nd, nxt))
        return None

    def face_do(self, dname: str) -> str:
        return "do" if self.facing() == _DVEC[dname] else f"move_{dname}"

    def follow(self, nxt: Pos) -> str | None:
        here = self.pos()
        vec = (nxt[0] - here[0], nxt[1] - here[1])
        dname = _DNAME.get(vec)
        if dname is None:
            return None
        mat, obj = self.world[nxt]
        if obj is not None:
            if isinstance(obj, (_co.Zombie, _co.Skeleton)) or (isinstance(obj, _co.Cow) and self.hunting):
                return self.face_do(dname)
            self.avoid[nxt] = self.t + 6
            return None
        if mat in _WALK:
            return f"move_{dname}"
        if self.breakable(mat):
            return self.face_do(dname)
        return None

    def path_valid(self) -> bool:
        if not self.path or _manh(self.path[0], self.pos()) != 1:
            return False
        return all(self.enter_cost(q) is not None for q in self.path)

    def go(self, goal: Callable[[Pos], bool], key: Any, cutoff: int | None = None) -> str | None:
        """The next action toward the nearest goal tile; ``""`` if already there, None if unreachable."""
        here = self.pos()
        if goal(here):
            self.path = []
            return ""
        while self.path and self.path[0] == here:
            self.path.pop(0)
        for attempt in range(2):
            fresh = attempt > 0 or self.path_key != key or self.path_age >= 12 or not self.path_valid()
            if fresh:
                found = self.dijkstra(goal, cutoff)
                if found is None:
                    self.path = []
                    self.path_key = None
                    return None
                if not found:
                    return ""
                self.path, self.path_key, self.path_age = found, key, 0
            act = self.follow(self.path[0])
            if act is not None:
                self.path_age += 1
                return act
            self.path_key = None
        return None

    def go_adjacent(self, target: Pos, key: Any, cutoff: int | None = None) -> str | None:
        """Step toward ``target`` and strike/use it once orthogonally adjacent."""
        here = self.pos()
        if _manh(here, target) == 1:
            return self.face_do(_DNAME[(target[0] - here[0], target[1] - here[1])])
        act = self.go(lambda q: _manh(q, target) == 1, key, cutoff)
        return act or None

    def stance(self, goal: Callable[[Pos, str], bool], center: Pos, radius: int) -> list[str] | None:
        """Breadth-first search over (tile, facing) for a stance meeting ``goal``; the moves to get there."""
        start = (self.pos(), _DNAME.get(self.facing(), "down"))
        if goal(*start):
            return []
        seen = {start}
        queue: deque[tuple[tuple[Pos, str], list[str]]] = deque([(start, [])])
        while queue:
            (p, _), moves = queue.popleft()
            for dname, vec in _DIRS:
                nxt = _add(p, vec)
                moved = self.open_tile(nxt) and _cheb(nxt, center) <= radius
                state = (nxt if moved else p, dname)
                if state in seen:
                    continue
                seen.add(state)
                plan = moves + [f"move_{dname}"]
                if goal(*state):
                    return plan
                queue.append((state, plan))
        return None

    # ---- decisions ---------------------------------------------------------------------------
    def decide(self) -> tuple[str, str]:
        if self.player.sleeping:
            return "sleep", "sleeping"
        for option in (
            self.try_fight, self.try_drink, self.try_hunt, self.try_retreat, self.try_bed, self.try_recuperate,
            self.try_craft, self.try_furnace, self.try_workbench, self.try_ore, self.try_stone, self.try_wood,
            self.try_marker, self.try_survey, self.try_wander,
        ):
            choice = option()
            if choice is not None:
                return choice
        return "noop", "idling"

    def try_fight(self) -> tuple[str, str] | None:
        here, ahead = self.pos(), self.facing()
        order = sorted(_DIRS, key=lambda item: item[1] != ahead)
        for dname, vec in order:
            if isinstance(self.obj(_add(here, vec)), (_co.Zombie, _co.Skeleton)):
                return self.face_do(dname), "fighting"
        return None

    def try_drink(self) -> tuple[str, str] | None:
        drink = self.inv("drink")
        if not self.drinking and self.waters and self.t >= self.drink_retry and (drink <= 3 or (drink <= 5 and not self.bedding)):
            self.drinking = True
        if not self.drinking:
            return None
        if drink >= _MAXV:
            self.drinking = False
            return None
        here = self.pos()
        for dname, vec in _DIRS:
            if self.mat(_add(here, vec)) == "water":
                return self.face_do(dname), "drinking"
        waters = self.waters
        act = self.go(lambda q: any(_add(q, vec) in waters for _, vec in _DIRS), "water", None if drink <= 3 else 40)
        if act:
            return act, "drinking"
        self.drinking = False
        self.drink_retry = self.t + 15
        return None

    def try_hunt(self) -> tuple[str, str] | None:
        food = self.inv("food")
        cows = self.visible(_co.Cow)
        if not self.hunting and cows and food <= 5:
            self.hunting = True
        if not self.hunting:
            return None
        if food >= 8 or not cows:
            self.hunting = False
            return None
        act = self.go_adjacent(cows[0], ("cow", cows[0]), 30)
        if act:
            return act, "hunting"
        self.hunting = False
        return None

    def try_retreat(self) -> tuple[str, str] | None:
        at_camp = _cheb(self.pos(), self.base) <= 1
        low = self.inv("health") <= 3 or self.inv("food") <= 2
        if low and not self.retreating and not self.recuperating:
            if at_camp:
                self.recuperating, self.recup_steps = True, 0
            else:
                self.retreating = True
                self.pending.append(Event("fall back", CAMP))
        if not self.retreating:
            return None
        base = self.base
        act = self.go(lambda q: _cheb(q, base) <= 1, "camp")
        if act:
            return act, "falling back"
        self.retreating = False
        return None

    def try_recuperate(self) -> tuple[str, str] | None:
        if not self.recuperating:
            return None
        self.recup_steps += 1
        if (self.inv("health") >= 6 and self.inv("food") >= 4) or self.recup_steps > 80:
            self.recuperating = False
            return None
        if self.inv("food") <= 3 or self.inv("drink") == 0:
            act = self.wander(self.base, 7)
            if act:
                return act, "foraging"
        return "noop", "recuperating"

    def try_bed(self) -> tuple[str, str] | None:
        energy = self.inv("energy")
        if not self.bedding:
            if energy >= _MAXV or not ((self.daylight() < 0.35 and energy <= 7) or energy <= 2):
                return None
            self.bedding = True
            self.nook_steps = 0
            self.failed_nooks = set()
            self.nook_waits = 0
            self.nook = self.choose_nook()
        if energy >= _MAXV:
            self.bedding = False
            self.nook = None
            return None
        self.nook_steps += 1
        while self.nook is not None and self.nook_steps <= 60:
            act = self.nook_step(self.nook)
            if act is not None:
                return act, ("sleeping" if act == "sleep" else "walling nook")
            self.failed_nooks.add((self.nook.a, self.nook.f))
            self.nook_waits = 0
            self.nook = self.choose_nook() if len(self.failed_nooks) < 4 else None
        self.nook = None
        return "sleep", "sleeping"

    def choose_nook(self) -> _Nook | None:
        here = self.pos()
        stones = self.inv("stone")
        best: tuple[Any, ...] | None = None
        for dx in range(-3, 4):
            for dy in range(-3, 4):
                a = (here[0] + dx, here[1] + dy)
                if not self.open_tile(a):
                    continue
                for fi, (fname, f) in enumerate(_DIRS):
                    if (a, fname) in self.failed_nooks:
                        continue
                    b, door = _add(a, f), (a[0] - f[0], a[1] - f[1])
                    if not (self.open_tile(b) and self.open_tile(door)):
                        continue
                    side = (f[1], f[0])
                    outer = (_add(a, side), (a[0] - side[0], a[1] - side[1]), _add(b, side),
                             (b[0] - side[0], b[1] - side[1]), _add(b, f))
                    need = 1 + sum(1 for q in outer if self.mat(q) in _WALK)
                    if need > stones:
                        continue
                    key = (need, _manh(here, a), a, fi)
                    if best is None or key < best[0]:
                        best = (key, _Nook(a, b, door, fname, outer))
        return None if best is None else best[1]

    def nook_sealed(self, nook: _Nook) -> bool:
        return all(self.mat(q) not in _WALK for q in nook.outer + (nook.door,))

    def nook_step(self, nook: _Nook) -> str | None:
        pending = [q for q in nook.outer if self.mat(q) in _WALK]
        door_open = self.mat(nook.door) in _WALK
        if len(pending) + int(door_open) > self.inv("stone"):
            return None
        blocked = False
        for target in pending:
            if self.obj(target) not in (None, self.player):
                blocked = True
                continue
            plan = self.stance(lambda p, d, x=target: _add(p, _DVEC[d]) == x, nook.a, 5)
            if plan is None:
                continue
            return plan[0] if plan else "place_stone"
        if pending:
            return self.nook_wait() if blocked else None
        if door_open:
            if self.obj(nook.door) not in (None, self.player):
                return self.nook_wait()
            back = _DNAME[(nook.door[0] - nook.a[0], nook.door[1] - nook.a[1])]
            plan = self.stance(lambda p, d: p == nook.a and d == back, nook.a, 5)
            if plan is None:
                return None
            return plan[0] if plan else "place_stone"
        return "sleep" if self.pos() in (nook.a, nook.b) else None

    def nook_wait(self) -> str | None:
        """Wait a few steps for a creature to leave a tile the nook needs; then give the nook up."""
        self.nook_waits += 1
        return "noop" if self.nook_waits <= 6 else None

    def try_craft(self) -> tuple[str, str] | None:
        near = set(self.world.nearby(self.player.pos, 1)[0])
        for tool in _TOOLS:
            if self.inv(tool) > 0:
                continue
            info = _cc.make[tool]
            if all(n in near for n in info["nearby"]) and all(self.inv(k) >= v for k, v in info["uses"].items()):
                return f"make_{tool}", "crafting"
        return None

    def iron_ready(self) -> bool:
        missing = self.inv("iron_pickaxe") == 0 or self.inv("iron_sword") == 0
        return missing and self.inv("iron") >= 1 and self.inv("coal") >= 1 and self.inv("wood") >= 1

    def try_furnace(self) -> tuple[str, str] | None:
        if not self.iron_ready() or not self.tables:
            return None
        tables, furnaces = self.tables, self.furnaces
        if furnaces:
            act = self.go(
                lambda q: any(_cheb(q, x) <= 1 for x in tables) and any(_cheb(q, x) <= 1 for x in furnaces), "forge", 40
            )
            if act:
                return act, "heading to forge"
        if self.inv("stone") < _FURNACE_STONE:
            return None
        here = self.pos()
        if any(_cheb(here, x) <= 1 for x in tables):
            def spot(p: Pos, d: str) -> bool:
                q = _add(p, _DVEC[d])
                return any(_cheb(p, x) <= 1 for x in tables) and self.mat(q) in _WALK and self.obj(q) is None
            plan = self.stance(spot, here, 2)
            if plan is not None:
                return (plan[0] if plan else "place_furnace"), "raising furnace"
            return None
        act = self.go(lambda q: any(_cheb(q, x) <= 1 for x in tables), "table", 40)
        return (act, "heading to workbench") if act else None

    def wanted_tool(self) -> str | None:
        for tool in _TOOLS:
            if self.inv(tool) > 0:
                continue
            uses = _cc.make[tool]["uses"]
            if not all(self.inv(k) >= v for k, v in uses.items()):
                continue
            if tool.startswith("iron") and self.tables:
                continue
            return tool
        return None

    def try_workbench(self) -> tuple[str, str] | None:
        tool = self.wanted_tool()
        if tool is None or "table" in set(self.world.nearby(self.player.pos, 1)[0]):
            return None
        tables = self.tables
        if tables:
            act = self.go(lambda q: any(_cheb(q, x) <= 1 for x in tables), "table", 20)
            if act:
                return act, "heading to workbench"
        if self.inv("wood") >= _TABLE_WOOD + int(_cc.make[tool]["uses"].get("wood", 0)):
            plan = self.stance(lambda p, d: self.open_tile(_add(p, _DVEC[d])) and self.obj(_add(p, _DVEC[d])) is None,
                               self.pos(), 2)
            if plan is not None:
                return (plan[0] if plan else "place_table"), "pitching workbench"
        return None

    def harvest(self, kind: str, wanted: Callable[[str | None], bool], cutoff: int, task: str) -> tuple[str, str] | None:
        """Walk to and strike one tile of a wanted material, staying with the chosen tile until it is taken."""
        here = self.pos()
        held = self.commit.get(kind)
        if held is not None:
            tile, since = held
            if wanted(self.known[tile[0]][tile[1]]) and self.t - since <= 30:
                act = self.go_adjacent(tile, (kind, tile), cutoff)
                if act:
                    return act, task
                self.banned[tile] = self.t + 150
            del self.commit[kind]
        found = sorted(
            (_manh(here, q), q) for q in self.view_tiles()
            if wanted(self.known[q[0]][q[1]]) and self.banned.get(q, -1) < self.t
        )
        for _, tile in found[:2]:
            act = self.go_adjacent(tile, (kind, tile), cutoff)
            if act:
                self.commit[kind] = (tile, self.t)
                return act, task
            self.banned[tile] = self.t + 150
        return None

    def try_ore(self) -> tuple[str, str] | None:
        return self.harvest(
            "ore", lambda m: m in _ORES and self.inv(_NEEDS[m]) > 0 and self.inv(m) < _MAXV, 20, "mining ore"
        )

    def try_stone(self) -> tuple[str, str] | None:
        if self.inv("wood_pickaxe") == 0:
            return None
        dusk = self.sky() in ("dusk", "night")
        target = 7 if (dusk or self.iron_ready()) else 4
        if self.inv("stone") >= target:
            self.commit.pop("stone", None)
            return None
        return self.harvest("stone", lambda m: m == "stone", 12, "quarrying")

    def wood_goal(self) -> int:
        missing = sum(1 for tool in _TOOLS if self.inv(tool) == 0)
        return min(_MAXV, missing + (0 if self.tables else _TABLE_WOOD) + 2)

    def try_wood(self) -> tuple[str, str] | None:
        if self.inv("wood") >= self.wood_goal():
            self.commit.pop("tree", None)
            return None
        chopped = self.harvest("tree", lambda m: m == "tree", 15, "felling")
        if chopped is not None:
            return chopped
        if self.inv("wood_pickaxe") == 0 and self.inv("wood") < _TABLE_WOOD + 1:
            known = self.known
            act = self.go(lambda q: any(
                _inside(_add(q, v)) and known[q[0] + v[0]][q[1] + v[1]] == "tree" for _, v in _DIRS), "any tree", 80)
            if act:
                return act, "felling"
        return None

    def try_marker(self) -> tuple[str, str] | None:
        if self.marker_ring is None:
            return None
        self.marker_steps += 1
        kind = "table" if self.inv("wood") >= _TABLE_WOOD else ("stone" if self.inv("stone") >= 1 else None)
        if kind is None or self.marker_steps > 25:
            self.marker_ring = None
            return None
        plan = self.stance(lambda p, d: self.open_tile(_add(p, _DVEC[d])) and self.obj(_add(p, _DVEC[d])) is None,
                           self.pos(), 2)
        if plan is None:
            self.marker_ring = None
            return None
        return (plan[0] if plan else f"place_{kind}"), "setting marker"

    def try_survey(self) -> tuple[str, str] | None:
        while self.wp_i < len(self.waypoints):
            point = self.waypoints[self.wp_i][0]
            self.wp_steps += 1
            if self.wp_steps > self.wp_budget:
                self.advance_waypoint()
                continue
            radius = self.wp_radius
            act = self.go(lambda q, c=point, r=radius: _cheb(q, c) <= r, ("wp", self.wp_i, radius))
            if act:
                return act, "surveying"
            if act == "":
                self.advance_waypoint()
                continue
            if self.wp_radius < 4:
                self.wp_radius += 1
            else:
                self.advance_waypoint()
        return None

    def wander(self, center: Pos, radius: int) -> str | None:
        for _ in range(4):
            if self.wander_target is None or _cheb(self.wander_target, center) > radius:
                self.wander_target = (
                    min(max(center[0] + self.rng.randint(-radius, radius), 1), _SIZE - 2),
                    min(max(center[1] + self.rng.randint(-radius, radius), 1), _SIZE - 2),
                )
            target = self.wander_target
            act = self.go(lambda q, c=target: _cheb(q, c) <= 1, ("wander", target), 60)
            if act:
                return act
            self.wander_target = None
        return None

    def try_wander(self) -> tuple[str, str] | None:
        act = self.wander(self.pos(), 10)
        return (act, "wandering") if act else None

    # ---- the run -----------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        p = self.player
        ahead = _add(self.pos(), self.facing())
        near_arrow = any(
            isinstance(self.obj(q), _co.Arrow) for q in self.view_tiles() if _manh(q, self.pos()) <= 2
        )
        return {
            "inv": dict(p.inventory),
            "ach": dict(p.achievements),
            "sleeping": bool(p.sleeping),
            "target": self.thing(ahead),
            "target_obj": self.obj(ahead),
            "arrow": near_arrow,
        }

    def cause(self, pre: dict[str, Any]) -> str:
        here = self.pos()
        if self.mat(here) == "lava":
            return "lava"
        if any(isinstance(self.obj(_add(here, v)), _co.Zombie) for _, v in _DIRS):
            return "zombie"
        if pre["arrow"]:
            return "arrow"
        for name, label in (("food", "hunger"), ("drink", "thirst"), ("energy", "exhaustion")):
            if self.inv(name) == 0:
                return label
        return ""

    def derive_events(self, pre: dict[str, Any], action: str, task: str) -> list[Event]:
        p = self.player
        events: list[Event] = []
        if self.pending_revive:
            events.append(Event("revive", CAMP))
            self.pending_revive = False
        region = sector_of(self.base, self.pos())
        if region not in self.charted:
            self.charted.add(region)
            events.append(Event("chart", region))
        elif region != self.region:
            events.append(Event("cross into", region))
        self.region = region

        def gained(name: str) -> int:
            return int(p.achievements[name] - pre["ach"][name])

        if gained("collect_wood"):
            events.append(Event("hew", "wood"))
        if gained("collect_stone"):
            events.append(Event("quarry", "stone"))
        for ore in _ORES:
            if gained(f"collect_{ore}"):
                events.append(Event("unearth", ore))
                self.ore += 1
        if gained("collect_sapling"):
            events.append(Event("glean", "sapling"))
        if gained("collect_drink"):
            events.append(Event("gulp", "water"))
        ate = False
        if gained("eat_cow"):
            events.append(Event("feast", "cow"))
            ate = True
        if gained("eat_plant"):
            events.append(Event("feast", "plant"))
            ate = True
        killed = False
        for foe in ("zombie", "skeleton"):
            if gained(f"defeat_{foe}"):
                events.append(Event("slay", foe))
                self.slain += 1
                killed = True
        target_obj = pre["target_obj"]
        if action == "do" and not killed and not ate and isinstance(target_obj, (_co.Cow, _co.Zombie, _co.Skeleton)):
            events.append(Event("hack at", _CREATURES[type(target_obj)]))
        for tool in _TOOLS:
            if gained(f"make_{tool}"):
                events.append(Event("forge", _item_name(tool)))
        if gained("place_table"):
            if task == "setting marker":
                events.append(Event("set marker", "table"))
            else:
                events.append(Event("pitch workbench", "table"))
        if gained("place_furnace"):
            events.append(Event("raise furnace", "furnace"))
        if gained("place_stone"):
            if task == "setting marker":
                events.append(Event("set marker", "stone"))
            elif task == "walling nook":
                events.append(Event("wall up", "stone"))
            else:
                events.append(Event("lay stone", "stone"))
        if gained("place_plant"):
            events.append(Event("sow", "sapling"))
        if task == "setting marker" and (gained("place_table") or gained("place_stone")):
            self.markers += 1
            self.marker_ring = None
        if p.sleeping and not pre["sleeping"]:
            walled = self.nook is not None and self.pos() in (self.nook.a, self.nook.b) and self.nook_sealed(self.nook)
            events.append(Event("bed down", "nook" if walled else "open ground"))
        if pre["sleeping"] and not p.sleeping:
            events.append(Event("rouse"))
            nook = self.nook
            walled = nook is not None and self.pos() in (nook.a, nook.b) and self.nook_sealed(nook)
            if self.inv("energy") >= _MAXV or not walled:
                self.bedding = False
                self.nook = None
        before, after = int(pre["inv"]["health"]), self.inv("health")
        if after < before:
            events.append(Event("wounded", self.cause(pre), before - after))
        elif after > before:
            events.append(Event("mend", "", after - before))
        if after <= 0:
            events.append(Event("perish", self.cause(pre)))
        events.extend(self.pending)
        self.pending = []
        if self.wp_i < len(self.waypoints) and _cheb(self.pos(), self.waypoints[self.wp_i][0]) <= self.wp_radius:
            self.advance_waypoint()
            events.extend(self.pending)
            self.pending = []
        if self.retreating and _cheb(self.pos(), self.base) <= 1:
            events.append(Event("reach camp", CAMP))
            self.retreating = False
            self.recuperating, self.recup_steps = True, 0
        for ore in sorted(self.observe()):
            events.append(Event("spy", ore))
        return events

    def state(self, task: str) -> dict[str, Scalar]:
        return {
            "vigor": self.inv("health"),
            "satiety": self.inv("food"),
            "hydration": self.inv("drink"),
            "stamina": self.inv("energy"),
            "sectors charted": len(self.charted),
            "rings closed": self.rings,
            "markers set": self.markers,
            "ore hauled": self.ore,
            "foes slain": self.slain,
            "lives": self.lives,
            "task": task,
            "sky": self.sky(),
            "asleep": bool(self.player.sleeping),
            "survey ring": self.survey_ring,
        }

    def revive(self) -> None:
        p = self.player
        for name in _VITALS:
            p.inventory[name] = _MAXV
        p._hunger = p._thirst = p._fatigue = p._recover = 0
        p.sleeping = False
        p._last_health = p.health
        self.env._last_health = p.health
        spots = sorted(
            ((_manh(self.base, (x, y)), (x, y)) for x in range(self.base[0] - 6, self.base[0] + 7)
             for y in range(self.base[1] - 6, self.base[1] + 7) if _inside((x, y))),
        )
        for _, spot in spots:
            if spot == self.pos() or (self.mat(spot) in _WALK and self.obj(spot) is None):
                if spot != self.pos():
                    self.world.move(p, spot)
                break
        self.path, self.path_key = [], None
        self.bedding, self.nook = False, None
        self.drinking = self.hunting = self.retreating = self.recuperating = False
        self.lives += 1
        self.pending_revive = True
        self.observe()

    def run(self, episode: str) -> tuple[list[Step], _Trace]:
        steps: list[Step] = []
        trace = _Trace()
        for t in range(self.length):
            self.t = t
            pre = self.snapshot()
            action, task = self.decide()
            self.env.step(_ACTION_INDEX[action])
            events = self.derive_events(pre, action, task)
            steps.append(self.record(t, action, task, pre, events, trace))
            if self.player.health <= 0:
                self.revive()
        return steps, trace

    def record(self, t: int, action: str, task: str, pre: dict[str, Any], events: list[Event], trace: _Trace) -> Step:
        here = self.pos()
        region = sector_of(self.base, here)
        if action == "do" or action.startswith("place_"):
            predicate, faced = "acts on", str(pre["target"])
        else:
            predicate, faced = "faces", self.thing(_add(here, self.facing()))
        creatures = sorted({_CREATURES.get(type(o), "creature") for q in self.view_tiles()
                            if (o := self.obj(q)) is not None and o is not self.player})
        terrain = Counter(self.mat(q) for q in self.view_tiles())
        notable = sorted(m for m in terrain if m in ("water", "tree", "coal", "iron", "diamond", "lava", "table", "furnace"))
        relations = [Relation(AGENT, predicate, faced)] + [Relation(AGENT, "sees", c) for c in creatures]
        inventory = {_item_name(k): int(v) for k, v in self.player.inventory.items() if k not in _VITALS and v > 0}
        state = self.state(task)
        underfoot = self.mat(here) or ""
        sights = ", ".join(creatures) if creatures else "no creatures"
        land = ", ".join(f"{m} {terrain[m]}" for m in sorted(terrain, key=lambda m: (-terrain[m], m)) if m)
        observation = (
            f"Step {t}, {state['sky']}. {AGENT} is in {region} at ({here[0]}, {here[1]}) on {underfoot}, "
            f"{predicate} {faced}. In sight: {sights}. Terrain in view: {land}. "
            f"Vigor {state['vigor']}/9, satiety {state['satiety']}/9, hydration {state['hydration']}/9, "
            f"stamina {state['stamina']}/9. Logbook task: {task}."
        )
        summary = f"{AGENT} ({task}) issued {action} in {region}."
        if events:
            summary += " Logged: " + "; ".join(f"{e.kind} {e.obj}".strip() for e in events) + "."
        trace.add(t, action, region, here, inventory, state, (predicate, faced), [(e.kind, e.obj) for e in events])
        return Step(
            t=t,
            action=action,
            summary=summary,
            objects=tuple(creatures + [m for m in notable if m not in creatures]),
            events=tuple(events),
            relations=tuple(relations),
            inventory=inventory,
            state=state,
            location=Location(position=here, region=region, underfoot=underfoot),
            observation=observation,
        )


def simulate(seed: int) -> tuple[str, list[Step], _Trace]:
    """Run Vesper on the Crafter world of ``seed``: the episode id, its steps and the builder's index."""
    episode = f"vesper-{seed}"
    agent = _Vesper(seed)
    steps, trace = agent.run(episode)
    return episode, steps, trace


# --------------------------------------------------------------------------------------------------
# Reference evaluator: structured queries answered by a plain scan over the Step records.
# --------------------------------------------------------------------------------------------------

Match = tuple[Any, ...]
"""``("ev", kind, obj|None)``, ``("act", action)``, ``("reg", region)``, ``("st", name, op, value)`` or
``("inv", item, op, value)`` with ``op`` one of ``==``, ``<=``, ``>=``."""
Spec = tuple[Any, ...]
"""An anchor step: ``("t", n)``, ``("occ", match, n)`` (n-th match, 1-based; -1 the last),
``("next", match, spec)`` (first match strictly after another anchor) or ``("cond", match, which, mode)``
(``which`` first/last; ``mode`` ``holds``: steps where the match holds, ``becomes``: steps where it starts to hold)."""


def _compare(value: Any, op: str, ref: Any) -> bool:
    if value is None:
        return False
    if op == "==":
        return bool(value == ref)
    if op == "<=":
        return bool(value <= ref)
    if op == ">=":
        return bool(value >= ref)
    raise ValueError(f"unknown comparison {op!r}")


def canonical_inventory(pairs: Iterable[tuple[str, int]]) -> str:
    items = sorted((name, count) for name, count in pairs if count > 0)
    return ", ".join(f"{name}:{count}" for name, count in items) if items else "empty"


def _scalar_text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Evaluator:
    """Answers the suite's structured queries from the Step records alone."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self.n = len(self.steps)

    def holds(self, t: int, m: Match) -> bool:
        step = self.steps[t]
        tag = m[0]
        if tag == "ev":
            return any(e.kind == m[1] and (m[2] is None or e.obj == m[2]) for e in step.events)
        if tag == "act":
            return step.action == m[1]
        if tag == "reg":
            return step.location.region == m[1]
        if tag == "st":
            return _compare(step.state_dict.get(m[1]), m[2], m[3])
        if tag == "inv":
            return _compare(step.inventory_dict.get(m[1], 0), m[2], m[3])
        raise ValueError(f"unknown match {m!r}")

    def matches(self, m: Match, lo: int = 0, hi: int | None = None) -> list[int]:
        top = self.n - 1 if hi is None else min(hi, self.n - 1)
        return [t for t in range(max(lo, 0), top + 1) if self.holds(t, m)]

    def starts(self, m: Match) -> list[int]:
        return [t for t in range(1, self.n) if self.holds(t, m) and not self.holds(t - 1, m)]

    def anchor(self, spec: Spec) -> tuple[int, list[int]]:
        tag = spec[0]
        if tag == "t":
            return int(spec[1]), []
        if tag == "occ":
            found = self.matches(spec[1])
            t = found[spec[2] - 1] if spec[2] > 0 else found[spec[2]]
            return t, [t]
        if tag == "next":
            a, gold = self.anchor(spec[2])
            t = self.matches(spec[1], a + 1)[0]
            return t, gold + [t]
        if tag == "cond":
            found = self.matches(spec[1]) if spec[3] == "holds" else self.starts(spec[1])
            t = found[0] if spec[2] == "first" else found[-1]
            return t, [t]
        raise ValueError(f"unknown anchor {spec!r}")

    def window(self, win: tuple[Spec | None, Spec | None]) -> tuple[int, int, list[int]]:
        lo_spec, hi_spec = win
        lo, hi, gold = 0, self.n - 1, []
        if lo_spec is not None:
            if lo_spec[0] == "t":
                lo = int(lo_spec[1])
            else:
                a, g = self.anchor(lo_spec[1])
                lo, gold = a + 1, gold + g
        if hi_spec is not None:
            if hi_spec[0] == "t":
                hi = int(hi_spec[1])
            else:
                a, g = self.anchor(hi_spec[1])
                hi, gold = a - 1, gold + g
        return lo, hi, gold

    def slot(self, t: int, slot: str, arg: Any) -> str:
        step = self.steps[t]
        if slot == "step":
            return str(t)
        if slot == "action":
            return step.action
        if slot == "location":
            return step.location.region
        if slot == "position":
            x, y = step.location.position  # type: ignore[misc]
            return f"{x},{y}"
        if slot == "item":
            return str(step.inventory_dict.get(arg, 0))
        if slot == "inventory":
            return canonical_inventory(step.inventory)
        if slot == "state":
            return _scalar_text(step.state_dict[arg])
        if slot == "facing":
            return step.relations[0].obj
        if slot == "events":
            return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events)
        raise ValueError(f"unknown slot {slot!r}")

    def answer(self, q: dict[str, Any]) -> tuple[str, list[int]]:
        op = q["op"]
        slot, arg = q.get("slot"), q.get("arg")
        if op == "at":
            return self.slot(q["t"], slot, arg), [q["t"]]
        if op == "nth":
            t, gold = self.anchor(("occ", q["m"], q["n"]))
            return self.slot(t, slot, arg), gold
        if op in ("first", "last"):
            lo, hi, gold = self.window(q["win"])
            found = self.matches(q["m"], lo, hi)
            t = found[0] if op == "first" else found[-1]
            return self.slot(t, slot, arg), gold + [t]
        if op == "cond":
            t, gold = self.anchor(("cond", q["m"], q["which"], q["mode"]))
            return self.slot(t, slot, arg), gold
        if op == "offset":
            a, gold = self.anchor(q["anchor"])
            t = a + q["k"]
            return self.slot(t, slot, arg), gold + [t]
        if op in ("next", "prev"):
            a, gold = self.anchor(q["anchor"])
            found = self.matches(q["m"], a + 1) if op == "next" else self.matches(q["m"], 0, a - 1)
            t = found[0] if op == "next" else found[-1]
            return self.slot(t, slot, arg), gold + [t]
        if op == "count":
            lo, hi, gold = self.window(q["win"])
            found = self.matches(q["m"], lo, hi)
            return str(len(found)), gold + (found if len(found) <= 5 else found[-1:])
        if op in ("which_first", "before"):
            ta, tb = self.matches(q["a"])[0], self.matches(q["b"])[0]
            if op == "before":
                return ("yes" if ta < tb else "no"), [ta, tb]
            return (q["labels"][0] if ta < tb else q["labels"][1]), [ta, tb]
        if op == "gap":
            a, ga = self.anchor(q["a"])
            b, gb = self.anchor(q["b"])
            return str(abs(b - a)), ga + gb + [a, b]
        if op == "run":
            runs: list[tuple[int, int]] = []
            start: int | None = None
            for t in range(self.n):
                if self.holds(t, q["m"]):
                    start = t if start is None else start
                elif start is not None:
                    runs.append((start, t - 1))
                    start = None
            if start is not None:
                runs.append((start, self.n - 1))
            first, last = runs[q["k"] - 1]
            return str(last - first + 1), [first, last]
        if op == "exists":
            lo, hi, gold = self.window(q["win"])
            found = self.matches(q["m"], lo, hi)
            return ("yes", gold + found[:1]) if found else ("no", gold)
        raise ValueError(f"unknown query {op!r}")


# --------------------------------------------------------------------------------------------------
# Wording: subjects, event phrases, state and item words.
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Who:
    s: str  # subject
    p: str  # possessive
    be: str  # past of "to be"
    o: str  # object form
    lead: str = ""  # a lead-in naming the agent when the subject is a pronoun alone


_WHO: tuple[_Who, ...] = (
    _Who("I", "my", "was", "me"),
    _Who("we", "our", "were", "us"),
    _Who("you", "your", "were", "you"),
    _Who(AGENT, f"{AGENT}'s", "was", AGENT),
    _Who("the agent", "the agent's", "was", "the agent"),
    _Who("it", "its", "was", "it", lead=f"About {AGENT}'s survey: "),
)
_WHO_WEIGHTS = (4, 1, 2, 4, 2, 1)

Phrase = tuple[str, str, str]  # base, past, gerund

_FIXED_PHRASES: dict[tuple[str, str | None], list[Phrase]] = {
    ("hew", "wood"): [("chop a tree", "chopped a tree", "chopping a tree"),
                      ("fell a tree", "felled a tree", "felling a tree"),
                      ("hew wood", "hewed wood", "hewing wood")],
    ("quarry", "stone"): [("mine stone", "mined stone", "mining stone"),
                          ("quarry a block of stone", "quarried a block of stone", "quarrying a block of stone")],
    ("unearth", "coal"): [("mine coal", "mined coal", "mining coal"), ("dig up coal", "dug up coal", "digging up coal")],
    ("unearth", "iron"): [("mine iron", "mined iron", "mining iron"),
                          ("dig up iron ore", "dug up iron ore", "digging up iron ore")],
    ("unearth", "diamond"): [("mine a diamond", "mined a diamond", "mining a diamond"),
                             ("unearth a diamond", "unearthed a diamond", "unearthing a diamond")],
    ("unearth", None): [("dig up some ore", "dug up some ore", "digging up some ore"),
                        ("mine ore (coal, iron or diamond)", "mined ore (coal, iron or diamond)",
                         "mining ore (coal, iron or diamond)")],
    ("glean", "sapling"): [("pick up a sapling", "picked up a sapling", "picking up a sapling")],
    ("gulp", "water"): [("drink water", "drank water", "drinking water"), ("take a drink", "took a drink", "taking a drink"),
                        ("gulp down some water", "gulped down some water", "gulping down some water")],
    ("feast", "cow"): [("eat a cow", "ate a cow", "eating a cow"), ("feast on beef", "feasted on beef", "feasting on beef")],
    ("feast", None): [("eat", "ate", "eating"), ("have a meal", "had a meal", "having a meal")],
    ("hack at", "zombie"): [("hit a zombie without killing it", "hit a zombie without killing it",
                             "hitting a zombie without killing it"),
                            ("land a non-lethal blow on a zombie", "landed a non-lethal blow on a zombie",
                             "landing a non-lethal blow on a zombie")],
    ("hack at", "cow"): [("hit a cow without killing it", "hit a cow without killing it", "hitting a cow without killing it")],
    ("hack at", "skeleton"): [("hit a skeleton without killing it", "hit a skeleton without killing it",
                               "hitting a skeleton without killing it")],
    ("slay", "zombie"): [("kill a zombie", "killed a zombie", "killing a zombie"),
                         ("slay a zombie", "slew a zombie", "slaying a zombie")],
    ("slay", "skeleton"): [("kill a skeleton", "killed a skeleton", "killing a skeleton"),
                           ("destroy a skeleton", "destroyed a skeleton", "destroying a skeleton")],
    ("slay", None): [("kill a monster", "killed a monster", "killing a monster"), ("win a fight", "won a fight", "winning a fight")],
    ("forge", None): [("craft a tool", "crafted a tool", "crafting a tool"),
                      ("make a tool or weapon", "made a tool or weapon", "making a tool or weapon")],
    ("pitch workbench", "table"): [("set up a workbench", "set up a workbench", "setting up a workbench"),
                                   ("pitch a workbench", "pitched a workbench", "pitching a workbench")],
    ("raise furnace", "furnace"): [("build a furnace", "built a furnace", "building a furnace")],
    ("set marker", None): [("plant a ring marker", "planted a ring marker", "planting a ring marker"),
                           ("set a survey marker", "set a survey marker", "setting a survey marker")],
    ("set marker", "table"): [("mark a ring corner with a table", "marked a ring corner with a table",
                               "marking a ring corner with a table")],
    ("set marker", "stone"): [("mark a ring corner with a stone", "marked a ring corner with a stone",
                               "marking a ring corner with a stone")],
    ("wall up", "stone"): [("lay a wall stone for a sleeping nook", "laid a wall stone for a sleeping nook",
                            "laying a wall stone for a sleeping nook"),
                           ("wall up part of a nook", "walled up part of a nook", "walling up part of a nook")],
    ("close ring", None): [("finish a survey ring", "finished a survey ring", "finishing a survey ring"),
                           ("close a ring of the spiral", "closed a ring of the spiral", "closing a ring of the spiral")],
    ("bed down", None): [("go to sleep", "went to sleep", "going to sleep"), ("bed down", "bedded down", "bedding down")],
    ("bed down", "nook"): [("sleep in a walled nook", "slept in a walled nook", "sleeping in a walled nook"),
                           ("bed down inside a sealed nook", "bedded down inside a sealed nook",
                            "bedding down inside a sealed nook")],
    ("bed down", "open ground"): [("sleep out in the open", "slept out in the open", "sleeping out in the open"),
                                  ("bed down without any walls", "bedded down without any walls",
                                   "bedding down without any walls")],
    ("rouse", None): [("wake up", "woke up", "waking up"), ("rouse from sleep", "roused from sleep", "rousing from sleep")],
    ("wounded", None): [("get hurt", "got hurt", "getting hurt"), ("take damage", "took damage", "taking damage"),
                        ("lose health", "lost health", "losing health")],
    ("wounded", "zombie"): [("get hurt by a zombie", "got hurt by a zombie", "getting hurt by a zombie"),
                            ("take a blow from a zombie", "took a blow from a zombie", "taking a blow from a zombie")],
    ("wounded", "arrow"): [("get hit by an arrow", "got hit by an arrow", "getting hit by an arrow")],
    ("wounded", "hunger"): [("lose health to hunger", "lost health to hunger", "losing health to hunger")],
    ("wounded", "thirst"): [("lose health to thirst", "lost health to thirst", "losing health to thirst")],
    ("wounded", "exhaustion"): [("lose health to exhaustion", "lost health to exhaustion", "losing health to exhaustion")],
    ("mend", None): [("regain health", "regained health", "regaining health"),
                     ("heal a little", "healed a little", "healing a little")],
    ("perish", None): [("die", "died", "dying"), ("perish", "perished", "perishing"), ("lose a life", "lost a life", "losing a life")],
    ("perish", "zombie"): [("get killed by a zombie", "got killed by a zombie", "getting killed by a zombie")],
    ("perish", "arrow"): [("get killed by an arrow", "got killed by an arrow", "getting killed by an arrow")],
    ("revive", None): [("come back to life", "came back to life", "coming back to life"),
                       ("respawn at camp", "respawned at camp", "respawning at camp")],
    ("fall back", None): [("start retreating to base camp", "started retreating to base camp", "starting a retreat to base camp"),
                          ("fall back toward camp", "fell back toward camp", "falling back toward camp")],
    ("reach camp", None): [("make it back to camp from a retreat", "made it back to camp from a retreat",
                            "making it back to camp from a retreat")],
    ("spy", "iron"): [("spot iron", "spotted iron", "spotting iron"),
                      ("catch sight of iron ore", "caught sight of iron ore", "catching sight of iron ore")],
    ("spy", "diamond"): [("spot a diamond", "spotted a diamond", "spotting a diamond"),
                         ("catch sight of a diamond", "caught sight of a diamond", "catching sight of a diamond")],
    ("chart", None): [("chart a new sector", "charted a new sector", "charting a new sector"),
                      ("enter a sector never visited before", "entered a sector never visited before",
                       "entering a sector never visited before")],
    ("cross into", None): [("cross back into an already charted sector", "crossed back into an already charted sector",
                            "crossing back into an already charted sector")],
}

#: Kinds whose events with an object are named through the bare kind (the object names a sector/ring/tool).
_SINGLE_OBJ_KINDS = ("chart", "cross into", "close ring", "forge")


def event_phrases(kind: str, obj: str | None) -> list[Phrase]:
    """Ways to say an event in a question (the stored kind, synonyms); empty if it has no wording."""
    if (kind, obj) in _FIXED_PHRASES:
        return _FIXED_PHRASES[(kind, obj)]
    if obj is None:
        return []
    if kind == "chart":
        return [(f"chart {obj}", f"charted {obj}", f"charting {obj}"),
                (f"map out {obj}", f"mapped out {obj}", f"mapping out {obj}")]
    if kind == "cross into":
        return [(f"re-enter {obj}", f"re-entered {obj}", f"re-entering {obj}"),
                (f"cross back into {obj}", f"crossed back into {obj}", f"crossing back into {obj}")]
    if kind == "close ring":
        k = obj.split()[-1]
        return [(f"finish survey ring {k}", f"finished survey ring {k}", f"finishing survey ring {k}"),
                (f"close ring {k} of the spiral", f"closed ring {k} of the spiral", f"closing ring {k} of the spiral")]
    if kind == "forge":
        material, tool = obj.split()
        adjectives = ["wooden", "wood"] if material == "wood" else [material]
        out: list[Phrase] = []
        for adj in adjectives:
            art = "an" if adj[0] in "aeiou" else "a"
            out.append((f"craft {art} {adj} {tool}", f"crafted {art} {adj} {tool}", f"crafting {art} {adj} {tool}"))
            out.append((f"make {art} {adj} {tool}", f"made {art} {adj} {tool}", f"making {art} {adj} {tool}"))
        return out
    return []


_STATE_PHRASES: dict[str, list[str]] = {
    "vigor": ["{P} vigor", "{P} health"],
    "satiety": ["{P} satiety", "{P} food level"],
    "hydration": ["{P} hydration", "{P} water level"],
    "stamina": ["{P} stamina", "{P} energy level"],
    "sectors charted": ["{P} count of sectors charted", "the logbook's tally of charted sectors"],
    "rings closed": ["{P} count of closed survey rings", "the number of rings the logbook listed as closed"],
    "markers set": ["{P} marker tally", "the number of markers in {P} logbook"],
    "ore hauled": ["{P} ore-hauled counter", "the logbook's count of ore hauled"],
    "foes slain": ["{P} count of foes slain", "the logbook's kill tally"],
    "lives": ["{P} lives counter", "the logbook's count of lives"],
    "task": ["the task written in {P} logbook", "{P} logged task"],
    "sky": ["the sky reading in the logbook", "the logged time of day"],
    "survey ring": ["the survey ring {S} {BE} working on", "{P} current survey ring in the logbook"],
    "asleep": ["the logbook's asleep flag (true or false)"],
}
_STATE_WEIGHTS: dict[str, int] = {
    "vigor": 3, "satiety": 3, "hydration": 3, "stamina": 3, "sectors charted": 2, "rings closed": 1,
    "markers set": 1, "ore hauled": 1, "foes slain": 1, "lives": 1, "task": 3, "sky": 1, "survey ring": 1, "asleep": 1,
}
_VITAL_WORDS: dict[str, list[str]] = {
    "vigor": ["vigor", "health"], "satiety": ["satiety", "food level"],
    "hydration": ["hydration", "water level"], "stamina": ["stamina", "energy"],
}
_COUNTER_WORDS: dict[str, list[str]] = {
    "sectors charted": ["count of charted sectors", "sectors-charted tally"],
    "ore hauled": ["ore tally", "count of ore hauled"],
    "foes slain": ["count of foes slain", "kill tally"],
    "markers set": ["marker count"],
    "rings closed": ["count of closed rings"],
    "lives": ["lives counter"],
}
#: item -> (mass noun or None, count noun)
_ITEM_WORDS: dict[str, tuple[str | None, str]] = {
    "wood": ("wood", "pieces of wood"), "stone": ("stone", "blocks of stone"), "coal": ("coal", "lumps of coal"),
    "iron": ("iron", "pieces of iron"), "diamond": (None, "diamonds"), "sapling": (None, "saplings"),
    "wood pickaxe": (None, "wooden pickaxes"), "stone pickaxe": (None, "stone pickaxes"),
    "iron pickaxe": (None, "iron pickaxes"), "wood sword": (None, "wooden swords"),
    "stone sword": (None, "stone swords"), "iron sword": (None, "iron swords"),
}
_ORD_WORDS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
              "tenth", "eleventh", "twelfth")
_NUM_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_FAMILIES = ("1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
             "6_next_previous", "7_count", "8_order", "9_distance", "10_existence")
#: Events that could plausibly happen in any run; those that did not are the "no" answers of existence questions.
_PLAUSIBLE: tuple[tuple[str, str | None], ...] = (
    ("unearth", "coal"), ("unearth", "iron"), ("unearth", "diamond"), ("forge", "wood pickaxe"),
    ("forge", "stone pickaxe"), ("forge", "iron pickaxe"), ("forge", "wood sword"), ("forge", "stone sword"),
    ("forge", "iron sword"), ("raise furnace", "furnace"), ("slay", "zombie"), ("slay", "skeleton"),
    ("perish", None), ("revive", None), ("wounded", "arrow"), ("wounded", "zombie"), ("wounded", "hunger"),
    ("wounded", "thirst"), ("bed down", "nook"), ("bed down", "open ground"), ("spy", "iron"), ("spy", "diamond"),
    ("glean", "sapling"), ("fall back", None), ("set marker", "table"), ("set marker", "stone"),
    ("pitch workbench", "table"), ("hack at", "skeleton"), ("hack at", "cow"), ("feast", "cow"),
    ("close ring", "ring 1"), ("close ring", "ring 2"), ("close ring", "ring 3"), ("close ring", "ring 4"),
    ("wall up", "stone"), ("reach camp", None),
)


@dataclass
class _Cand:
    family: str
    slot: str
    text: str
    query: dict[str, Any]
    answer: str
    gold: list[int]
    group: str


# --------------------------------------------------------------------------------------------------
# Question builder: picks question parameters from its own index of the run, words them, and checks
# every answer against the reference evaluator.
# --------------------------------------------------------------------------------------------------


class _Asker:
    def __init__(self, episode: str, steps: list[Step], trace: _Trace, seed: int) -> None:
        self.ep = episode
        self.steps = steps
        self.tr = trace
        self.T = len(steps)
        self.rng = random.Random(f"vesper-questions-{seed}")
        self.evaluator = Evaluator(steps)
        self.matchers = self._event_matchers()

    # ---- the builder's index -----------------------------------------------------------------
    def _event_matchers(self) -> list[Match]:
        out: list[Match] = []
        for kind in sorted(self.tr.by_kind):
            if event_phrases(kind, None):
                out.append(("ev", kind, None))
        for kind, obj in sorted(self.tr.by_event):
            if obj and event_phrases(kind, obj):
                out.append(("ev", kind, obj))
        return out

    def mpick(self, exclude: Sequence[str] = (), min_count: int = 1) -> Match | None:
        """An event match: a kind drawn uniformly, then one of its matches (so sector names do not crowd out)."""
        pool = [m for m in self.matchers if m[1] not in exclude and len(self.occ(m)) >= min_count]
        kinds = sorted({m[1] for m in pool})
        if not kinds:
            return None
        kind = self.rng.choice(kinds)
        return self.rng.choice([m for m in pool if m[1] == kind])

    def anchor_n(self, ts: Sequence[int]) -> int:
        """Which occurrence to anchor on: mostly the first, sometimes the last or an early one."""
        if len(ts) < 2:
            return 1
        return self.rng.choice([1, 1, -1] + ([2, 3] if len(ts) >= 3 else [2]))

    def occ(self, m: Match) -> list[int]:
        tag = m[0]
        if tag == "ev":
            table = self.tr.by_kind.get(m[1], []) if m[2] is None else self.tr.by_event.get((m[1], m[2]), [])
            return list(table)
        if tag == "act":
            return list(self.tr.by_action.get(m[1], []))
        if tag == "reg":
            return list(self.tr.by_region.get(m[1], []))
        if tag == "st":
            return [t for t, st in enumerate(self.tr.states) if _compare(st.get(m[1]), m[2], m[3])]
        if tag == "inv":
            return [t for t, inv in enumerate(self.tr.inventories) if _compare(inv.get(m[1], 0), m[2], m[3])]
        raise ValueError(m)

    def starts(self, m: Match) -> list[int]:
        hits = set(self.occ(m))
        return [t for t in range(1, self.T) if t in hits and t - 1 not in hits]

    def bslot(self, t: int, slot: str, arg: Any) -> str:
        tr = self.tr
        if slot == "step":
            return str(t)
        if slot == "action":
            return tr.actions[t]
        if slot == "location":
            return tr.regions[t]
        if slot == "position":
            return f"{tr.positions[t][0]},{tr.positions[t][1]}"
        if slot == "item":
            return str(tr.inventories[t].get(arg, 0))
        if slot == "inventory":
            return canonical_inventory(tr.inventories[t].items())
        if slot == "state":
            return _scalar_text(tr.states[t][arg])
        if slot == "facing":
            return tr.facing[t][1]
        if slot == "events":
            return "; ".join(f"{k} {o}".strip() for k, o in tr.events[t])
        raise ValueError(slot)

    # ---- wording helpers ---------------------------------------------------------------------
    def who(self) -> _Who:
        return self.rng.choices(_WHO, weights=_WHO_WEIGHTS)[0]

    def say(self, text: str, who: _Who) -> str:
        for key, value in (("{S}", who.s), ("{P}", who.p), ("{BE}", who.be), ("{O}", who.o)):
            text = text.replace(key, value)
        text = " ".join(text.split())
        text = text[0].upper() + text[1:]
        return who.lead + text

    def compose(self, when: str, ask: str) -> str:
        if self.rng.random() < 0.5:
            return f"{when}, {ask}?"
        return f"{ask} {when}?"

    def phrase(self, m: Match) -> Phrase:
        return self.rng.choice(event_phrases(m[1], m[2]))

    def ordinal(self, n: int) -> str:
        if n < len(_ORD_WORDS) and self.rng.random() < 0.6:
            return _ORD_WORDS[n]
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"

    def number(self, k: int) -> str:
        return _NUM_WORDS[k] if k < len(_NUM_WORDS) and self.rng.random() < 0.5 else str(k)

    def occ_clause(self, m: Match, n: int, the_form: bool = False) -> str:
        """A clause naming the n-th occurrence: "I first chopped a tree", "the third time I chopped a tree"."""
        past = self.phrase(m)[1]
        if n == 1:
            return f"the first time {{S}} {past}" if the_form or self.rng.random() < 0.5 else f"{{S}} first {past}"
        if n == -1:
            return self.rng.choice([f"the last time {{S}} {past}", f"the final time {{S}} {past}"])
        if n == -2:
            return self.rng.choice([f"the second-to-last time {{S}} {past}", f"the next-to-last time {{S}} {past}"])
        return f"the {self.ordinal(n)} time {{S}} {past}"

    def state_name(self) -> str:
        names = list(_STATE_WEIGHTS)
        return self.rng.choices(names, weights=[_STATE_WEIGHTS[n] for n in names])[0]

    def slot_q(self, slot: str, arg: Any, t: int) -> str:
        r = self.rng
        if slot == "action":
            return r.choice(["what command did {S} issue", "which action did {S} take", "what did {S} do"])
        if slot == "location":
            return r.choice(["which sector {BE} {S} in", "what sector of the map {BE} {S} in",
                             "in which of the logbook's sectors {BE} {S}"])
        if slot == "position":
            return r.choice(["what were {P} x,y coordinates", "at which grid tile (x,y) {BE} {S} standing",
                             "what was {P} position on the grid"])
        if slot == "inventory":
            return r.choice(["what was in {P} inventory", "what {BE} {S} carrying in all",
                             "what did {P} pack hold"])
        if slot == "item":
            mass, count = _ITEM_WORDS.get(arg, (None, arg))
            options = [f"how many {count} did {{S}} have", f"how many {count} {{BE}} {{S}} carrying"]
            if mass:
                options.append(f"how much {mass} did {{S}} have")
            return r.choice(options)
        if slot == "state":
            return "what was " + r.choice(_STATE_PHRASES[arg])
        if slot == "facing":
            if self.tr.facing[t][0] == "acts on":
                return r.choice(["what did {S} act on", "what {BE} {S} working on with that action"])
            return r.choice(["what {BE} {S} facing", "what lay directly in front of {O}"])
        if slot == "events":
            return r.choice(["which events did the logbook record", "what events were logged for {O}",
                             "what did the logbook note down"])
        raise ValueError(slot)

    def pick_arg(self, slot: str, t: int) -> Any:
        if slot == "state":
            return self.state_name()
        if slot == "item":
            held = sorted(self.tr.inventories[t])
            if held and self.rng.random() < 0.75:
                return self.rng.choice(held)
            ever = sorted({name for inv in self.tr.inventories for name in inv}) or ["wood"]
            return self.rng.choice(ever)
        return None

    def cand(self, family: str, slot: str, text: str, query: dict[str, Any], answer: str, gold: Iterable[int],
             group: str | None = None) -> _Cand:
        expected_gold = sorted(set(gold))
        got, got_gold = self.evaluator.answer(query)
        if got != answer or sorted(set(got_gold)) != expected_gold:
            raise AssertionError(
                f"{self.ep}: evaluator and index disagree on {text!r}: {got!r} {sorted(set(got_gold))} "
                f"vs {answer!r} {expected_gold}"
            )
        return _Cand(family, slot, text, query, answer, expected_gold, group or slot)

    def at_slot(self, family: str, slot: str, t: int, when: str, step_q: str, who: _Who, query: dict[str, Any],
                gold: Iterable[int], group: str | None = None) -> _Cand:
        """A question about one step: its step number (``step_q``) or another slot at it (``when`` clause)."""
        arg = self.pick_arg(slot, t)
        query = dict(query, slot=slot, arg=arg)
        if slot == "step":
            text = self.say(step_q, who)
        else:
            text = self.say(self.compose(when, self.slot_q(slot, arg, t)), who)
        return self.cand(family, slot, text, query, self.bslot(t, slot, arg), gold, group)

    def free_step(self, hits: set[int], lo: int, hi: int) -> int | None:
        lo, hi = max(lo, 1), min(hi, self.T - 2)
        if lo > hi:
            return None
        for _ in range(25):
            t = self.rng.randint(lo, hi)
            if t not in hits:
                return t
        return None

    # ---- families ----------------------------------------------------------------------------
    def fam_step_index(self) -> list[_Cand]:
        family, out, r = "1_step_index", [], self.rng
        with_events = [t for t in range(self.T) if self.tr.events[t]]
        for slot in ("action", "location", "position", "inventory", "state", "facing", "events", "item"):
            for _ in range(3):
                t = r.choice(with_events) if slot == "events" and with_events else r.randint(2, self.T - 3)
                arg = self.pick_arg(slot, t)
                if slot in ("action", "events", "facing"):
                    when = r.choice([f"at step {t}", f"on step {t}", f"during step {t}", f"at time step {t}"])
                else:
                    when = r.choice([f"at step {t}", f"as of step {t}", f"at the end of step {t}", f"on step {t}"])
                who = self.who()
                text = self.say(self.compose(when, self.slot_q(slot, arg, t)), who)
                query = {"op": "at", "t": t, "slot": slot, "arg": arg}
                out.append(self.cand(family, slot, text, query, self.bslot(t, slot, arg), [t]))
        return out

    def fam_nth(self) -> list[_Cand]:
        family, out, r = "2_nth_occurrence", [], self.rng
        slots = ("step", "location", "position", "item", "state", "inventory", "facing", "events", "action")
        for _ in range(30):
            m = self.mpick()
            ts = self.occ(m)
            c = len(ts)
            options = [1] if c == 1 else sorted({1, 2, min(3, c), c // 2 + 1}) + [-1] + ([-2] if c >= 4 else [])
            for n in r.sample(options, min(2, len(options))):
                if n == c and c > 1:
                    n = -1
                t = ts[n - 1] if n > 0 else ts[n]
                base, past, _ = self.phrase(m)
                if n > 0:
                    o = self.ordinal(n)
                    when = r.choice([f"the {o} time {{S}} {past}", f"when {{S}} {past} for the {o} time"])
                    step_q = r.choice([f"When did {{S}} {base} for the {o} time?",
                                       f"At which step did {{S}} {base} for the {o} time?"])
                elif n == -1:
                    when = r.choice([f"the last time {{S}} {past}", f"when {{S}} {past} for the final time"])
                    step_q = r.choice([f"When did {{S}} last {base}?", f"At which step did {{S}} {base} for the final time?"])
                else:
                    when = r.choice([f"the second-to-last time {{S}} {past}", f"the next-to-last time {{S}} {past}"])
                    step_q = f"At which step did {{S}} {base} for the second-to-last time?"
                slot = r.choice(slots)
                out.append(self.at_slot(family, slot, t, when, step_q, self.who(), {"op": "nth", "m": m, "n": n}, [t]))
        return out

    def fam_window(self) -> list[_Cand]:
        family, out, r = "3_windowed_occurrence", [], self.rng
        slots = ("step", "location", "position", "item", "state", "facing")
        for _ in range(30):
            m = self.mpick(min_count=2)
            if m is None:
                break
            ts = self.occ(m)
            hits = set(ts)
            base, past, _ = self.phrase(m)
            for variant in r.sample(["between", "first_n", "after_step", "before_step", "after_event", "before_event"], 3):
                slot = r.choice(slots)
                gold_extra: list[int] = []
                if variant == "between":
                    centre = r.choice(ts)
                    a, b = centre - r.randint(5, 90), centre + r.randint(5, 150)
                    a, b = max(a, 1), min(b, self.T - 2)
                    if a in hits or b in hits or a >= b:
                        continue
                    inside = [t for t in ts if a <= t <= b]
                    op = r.choice(["first", "last"])
                    t = inside[0] if op == "first" else inside[-1]
                    win: tuple[Any, Any] = (("t", a), ("t", b))
                    word = "first" if op == "first" else "last"
                    when = r.choice([f"the {word} time {{S}} {past} between step {a} and step {b}",
                                     f"the {word} time between steps {a} and {b} that {{S}} {past}"])
                    step_q = r.choice([f"Between step {a} and step {b}, when did {{S}} {word} {base}?",
                                       f"What was the {word} step between {a} and {b} at which {{S}} {past}?"])
                elif variant == "first_n":
                    choices = [n for n in (100, 150, 200, 250, 300, 400, 500) if n < self.T and n - 1 not in hits
                               and n not in hits and any(t < n for t in ts)]
                    if not choices:
                        continue
                    n = r.choice(choices)
                    inside = [t for t in ts if t < n]
                    op, t, win = "last", inside[-1], (None, ("t", n - 1))
                    when = r.choice([f"the last time {{S}} {past} within the first {n} steps",
                                     f"the final time {{S}} {past} in {{P}} first {n} steps"])
                    step_q = r.choice([f"Within the first {n} steps, when did {{S}} last {base}?",
                                       f"In {{P}} first {n} steps, what was the last step at which {{S}} {past}?"])
                elif variant in ("after_step", "before_step"):
                    n = self.free_step(hits, ts[0] + 1, ts[-1] - 1)
                    if n is None:
                        continue
                    if variant == "after_step":
                        op, t, win = "first", next(x for x in ts if x > n), (("t", n + 1), None)
                        when = f"the first time {{S}} {past} after step {n}"
                        step_q = r.choice([f"After step {n}, when did {{S}} first {base}?",
                                           f"What was the first step after step {n} at which {{S}} {past}?"])
                    else:
                        op, t, win = "last", [x for x in ts if x < n][-1], (None, ("t", n - 1))
                        when = f"the last time {{S}} {past} before step {n}"
                        step_q = r.choice([f"Before step {n}, when did {{S}} last {base}?",
                                           f"Up to step {n}, what was the last step at which {{S}} {past}?"])
                else:
                    y = self.mpick(exclude=(m[1],))
                    if y is None:
                        continue
                    ys = self.occ(y)
                    ny = self.anchor_n(ys)
                    ty = ys[ny - 1] if ny > 0 else ys[ny]
                    if ty in hits:
                        continue
                    clause = self.occ_clause(y, ny)
                    if variant == "after_event":
                        later = [x for x in ts if x > ty]
                        if not later:
                            continue
                        op, t, win = "first", later[0], (("after", ("occ", y, ny)), None)
                        when = f"the first time {{S}} {past} after {clause}"
                        step_q = f"After {clause}, when did {{S}} first {base}?"
                    else:
                        earlier = [x for x in ts if x < ty]
                        if not earlier:
                            continue
                        op, t, win = "last", earlier[-1], (None, ("before", ("occ", y, ny)))
                        when = f"the last time {{S}} {past} before {clause}"
                        step_q = f"Before {clause}, when did {{S}} last {base}?"
                    gold_extra = [ty]
                query = {"op": op, "m": m, "win": win}
                out.append(self.at_slot(family, slot, t, when, step_q, self.who(), query, [t] + gold_extra))
        return out

    def conditions(self) -> list[tuple[Match, str, str, int, str, str]]:
        """(match, which, mode, step, when-clause, step question) for the condition family."""
        r = self.rng
        out: list[tuple[Match, str, str, int, str, str]] = []
        first_state = self.tr.states[0]
        for name, words in _VITAL_WORDS.items():
            for v in range(1, 8):
                m: Match = ("st", name, "<=", v)
                starts = self.starts(m)
                if not starts or _compare(first_state[name], "<=", v):
                    continue
                w = r.choice(words)
                out.append((m, "first", "becomes", starts[0],
                            r.choice([f"the first time {{P}} {w} fell to {v} or below",
                                      f"when {{P}} {w} first dropped below {v + 1}"]),
                            r.choice([f"When did {{P}} {w} first fall to {v} or below?",
                                      f"At which step did {{P}} {w} first drop below {v + 1}?"])))
                if len(starts) >= 2:
                    out.append((m, "last", "becomes", starts[-1],
                                f"the last time {{P}} {w} dropped to {v} or below",
                                f"When did {{P}} {w} last sink to {v} or lower?"))
        for name, words in _COUNTER_WORDS.items():
            top = max(int(st[name]) for st in self.tr.states)
            for v in range(max(2, int(first_state[name]) + 1), top + 1):
                m = ("st", name, ">=", v)
                t = self.occ(m)[0]
                w = r.choice(words)
                out.append((m, "first", "holds", t, f"when {{P}} {w} first reached {v}",
                            f"When did {{P}} {w} first reach {v}?"))
        for item in ("wood", "stone", "coal", "iron", "diamond", "sapling"):
            mass, count = _ITEM_WORDS[item]
            top = max(inv.get(item, 0) for inv in self.tr.inventories)
            for v in range(1 if item in ("diamond", "sapling") else 2, top + 1):
                m = ("inv", item, ">=", v)
                if _compare(self.tr.inventories[0].get(item, 0), ">=", v):
                    continue
                t = self.occ(m)[0]
                out.append((m, "first", "holds", t,
                            r.choice([f"the first time {{S}} held at least {v} {count}",
                                      f"when {{S}} first had {v} or more {count}"]),
                            f"When did {{S}} first hold at least {v} {count}?"))
            if mass:
                m = ("inv", item, "==", 0)
                starts = self.starts(m)
                if starts:
                    out.append((m, "first", "becomes", starts[0], f"the first time {{S}} ran out of {mass}",
                                f"When did {{S}} first run out of {mass}?"))
                if len(starts) >= 2:
                    out.append((m, "last", "becomes", starts[-1], f"the last time {{S}} ran out of {mass}",
                                f"When did {{S}} last run out of {mass}?"))
        tasks = sorted({str(st["task"]) for st in self.tr.states} - {str(first_state["task"])})
        for task in tasks:
            m = ("st", "task", "==", task)
            t = self.occ(m)[0]
            out.append((m, "first", "holds", t,
                        r.choice([f"the first time {{P}} logbook task read '{task}'",
                                  f"when the logbook first listed {{P}} task as '{task}'"]),
                        f"When did the logbook first show {{P}} task as '{task}'?"))
            starts = self.starts(m)
            if len(starts) >= 2:
                out.append((m, "last", "becomes", starts[-1], f"the last time {{P}} logged task switched to '{task}'",
                            f"When did {{P}} logged task last switch to '{task}'?"))
        for sky in ("night", "dawn", "dusk"):
            m = ("st", "sky", "==", sky)
            hits = self.occ(m)
            if not hits or str(first_state["sky"]) == sky:
                continue
            out.append((m, "first", "holds", hits[0], f"the first step the logbook's sky read '{sky}'",
                        f"When did the logbook's sky first read '{sky}'?"))
            starts = self.starts(m)
            if len(starts) >= 2:
                out.append((m, "last", "becomes", starts[-1], f"the last time the logged sky turned to '{sky}'",
                            f"When did the logged sky last turn to '{sky}'?"))
        return out

    def fam_condition(self) -> list[_Cand]:
        family, out, r = "4_condition", [], self.rng
        slots = ("step", "location", "position", "state", "item", "action", "facing")
        conds = self.conditions()
        for m, which, mode, t, when, step_q in r.sample(conds, min(40, len(conds))):
            slot = r.choice(slots)
            query = {"op": "cond", "m": m, "which": which, "mode": mode}
            cand = self.at_slot(family, slot, t, when, step_q, self.who(), query, [t])
            if slot == "state" and cand.query["arg"] == m[1]:
                continue
            out.append(cand)
        return out

    def fam_offset(self) -> list[_Cand]:
        family, out, r = "5_offset", [], self.rng
        slots = ("action", "location", "position", "state", "item", "facing", "events", "inventory")
        for _ in range(40):
            k = r.randint(1, 12)
            sign = r.choice([1, -1])
            slot = r.choice(slots)
            if r.random() < 0.3:
                a = r.randint(20, self.T - 20)
                spec: Spec = ("t", a)
                anchor_gold: list[int] = []
                anchor_text = f"step {a}"
            else:
                m = self.mpick()
                ts = self.occ(m)
                n = self.anchor_n(ts)
                a = ts[n - 1] if n > 0 else ts[n]
                spec, anchor_gold = ("occ", m, n), [a]
                anchor_text = self.occ_clause(m, n)
            t = a + sign * k
            if not 0 <= t < self.T or (slot == "events" and not self.tr.events[t]):
                continue
            amount = self.number(k)
            unit = "step" if k == 1 else "steps"
            when = f"{amount} {unit} {'after' if sign > 0 else 'before'} {anchor_text}"
            query = {"op": "offset", "anchor": spec, "k": sign * k}
            out.append(self.at_slot(family, slot, t, when, "", self.who(), query, anchor_gold + [t]))
        return out

    def fam_next_prev(self) -> list[_Cand]:
        family, out, r = "6_next_previous", [], self.rng
        slots = ("step", "location", "item", "state", "position", "facing", "action")
        for _ in range(60):
            m = self.mpick()
            ts = self.occ(m)
            hits = set(ts)
            base, past, _ = self.phrase(m)
            forward = r.random() < 0.55
            if r.random() < 0.3:
                a = self.free_step(hits, ts[0] + 1, ts[-1] - 1) if len(ts) >= 2 else None
                if a is None:
                    continue
                spec: Spec = ("t", a)
                anchor_gold: list[int] = []
                clause = clause_the = f"step {a}"
            else:
                y = self.mpick(exclude=(m[1],))
                if y is None:
                    continue
                ys = self.occ(y)
                ny = self.anchor_n(ys)
                a = ys[ny - 1] if ny > 0 else ys[ny]
                if a in hits:
                    continue
                spec, anchor_gold = ("occ", y, ny), [a]
                clause = self.occ_clause(y, ny)
                clause_the = self.occ_clause(y, ny, the_form=True)
            if forward:
                found = [x for x in ts if x > a]
                if not found:
                    continue
                t = found[0]
                when = r.choice([f"the next time {{S}} {past} after {clause}", f"the first time {{S}} {past} following {clause_the}"])
                step_q = r.choice([f"After {clause}, when did {{S}} next {base}?",
                                   f"Following {clause_the}, at which step did {{S}} next {base}?"])
            else:
                found = [x for x in ts if x < a]
                if not found:
                    continue
                t = found[-1]
                when = r.choice([f"the most recent time {{S}} {past} before {clause}",
                                 f"the last time {{S}} {past} prior to {clause_the}"])
                step_q = r.choice([f"Before {clause}, when did {{S}} last {base}?",
                                   f"Counting back from {clause_the}, at which step did {{S}} previously {base}?"])
            query = {"op": "next" if forward else "prev", "m": m, "anchor": spec}
            slot = r.choice(slots)
            out.append(self.at_slot(family, slot, t, when, step_q, self.who(), query, anchor_gold + [t]))
        return out

    def fam_count(self) -> list[_Cand]:
        family, out, r = "7_count", [], self.rng
        subs = ["all", "window", "before_step", "after_step", "after_event", "before_event", "between_events",
                "action", "region"]
        for _ in range(70):
            sub = r.choice(subs)
            if sub in ("action", "region"):
                if sub == "action":
                    name = r.choice(sorted(self.tr.by_action))
                    m: Match = ("act", name)
                else:
                    name = r.choice(sorted(self.tr.by_region))
                    m = ("reg", name)
                ts = self.occ(m)
                hits = set(ts)
                win: tuple[Any, Any] = (None, None)
                limit = ""
                if r.random() < 0.4:
                    n = self.free_step(hits, 100, self.T - 50)
                    if n is None or 0 in hits:
                        continue
                    win, limit = (None, ("t", n - 1)), f" in the first {n} steps"
                if sub == "action":
                    text = r.choice([f"How many times did {{S}} issue the {name} command{limit}?",
                                     f"On how many steps did {{S}} choose the action {name}{limit}?"])
                else:
                    text = r.choice([f"How many steps did {{S}} spend in {name}{limit}?",
                                     f"For how many steps {{BE}} {{S}} in {name}{limit}?"])
                inside = [t for t in ts if win[1] is None or t <= win[1][1]]
                gold = inside if len(inside) <= 5 else inside[-1:]
                query = {"op": "count", "m": m, "win": win}
                out.append(self.cand(family, "count", self.say(text, self.who()), query, str(len(inside)), gold, sub))
                continue
            m = self.mpick()
            ts = self.occ(m)
            hits = set(ts)
            base = self.phrase(m)[0]
            anchors: list[int] = []
            if sub == "all":
                lo, hi, win = 0, self.T - 1, (None, None)
                text = r.choice([f"How many times did {{S}} {base}?", f"In total, how many times did {{S}} {base}?",
                                 f"Over the whole run, how often did {{S}} {base}?"])
            elif sub == "window":
                a = self.free_step(hits, 1, self.T - 60)
                b = None if a is None else self.free_step(hits, a + 40, min(self.T - 2, a + 400))
                if a is None or b is None:
                    continue
                lo, hi, win = a, b, (("t", a), ("t", b))
                text = r.choice([f"How many times did {{S}} {base} between step {a} and step {b}?",
                                 f"Between steps {a} and {b}, how many times did {{S}} {base}?"])
            elif sub in ("before_step", "after_step"):
                n = self.free_step(hits, 50, self.T - 50)
                if n is None:
                    continue
                if sub == "before_step":
                    lo, hi, win = 0, n - 1, (None, ("t", n - 1))
                    text = f"How many times did {{S}} {base} before step {n}?"
                else:
                    lo, hi, win = n + 1, self.T - 1, (("t", n + 1), None)
                    text = f"After step {n}, how many times did {{S}} {base}?"
            else:
                y = self.mpick(exclude=(m[1],))
                if y is None:
                    continue
                ys = self.occ(y)
                ny = self.anchor_n(ys)
                ty = ys[ny - 1] if ny > 0 else ys[ny]
                if ty in hits:
                    continue
                if sub == "after_event":
                    clause = self.occ_clause(y, ny)
                    lo, hi, win = ty + 1, self.T - 1, (("after", ("occ", y, ny)), None)
                    text = f"After {clause}, how many times did {{S}} {base}?"
                    anchors = [ty]
                elif sub == "before_event":
                    clause = self.occ_clause(y, ny)
                    lo, hi, win = 0, ty - 1, (None, ("before", ("occ", y, ny)))
                    text = r.choice([f"Before {clause}, how many times did {{S}} {base}?",
                                     f"How many times did {{S}} {base} before {clause}?"])
                    anchors = [ty]
                else:
                    z = self.mpick(exclude=(m[1], y[1]))
                    if z is None:
                        continue
                    tz = self.occ(z)[0]
                    if tz in hits or tz <= ty + 1:
                        continue
                    c1, c2 = self.occ_clause(y, ny, the_form=True), self.occ_clause(z, 1, the_form=True)
                    lo, hi, win = ty + 1, tz - 1, (("after", ("occ", y, ny)), ("before", ("occ", z, 1)))
                    text = f"How many times did {{S}} {base} between {c1} and {c2}?"
                    anchors = [ty, tz]
            inside = [t for t in ts if lo <= t <= hi]
            gold = anchors + (inside if len(inside) <= 5 else inside[-1:])
            query = {"op": "count", "m": m, "win": win}
            out.append(self.cand(family, "count", self.say(text, self.who()), query, str(len(inside)), gold, sub))
        return out

    def fam_order(self) -> list[_Cand]:
        family, out, r = "8_order", [], self.rng
        for _ in range(40):
            x = self.mpick()
            y = self.mpick(exclude=(x[1],))
            if y is None:
                continue
            tx, ty = self.occ(x)[0], self.occ(y)[0]
            if tx == ty:
                continue
            who = self.who()
            px, py = self.phrase(x), self.phrase(y)
            if r.random() < 0.5:
                if r.random() < 0.6:
                    o1, o2 = px[2], py[2]
                    text = r.choice([f"Which came first: {o1} or {o2}?",
                                     f"Which happened earlier in the run, {o1} or {o2}?",
                                     f"{o1} or {o2}: which did {{S}} do first?"])
                else:
                    o1, o2 = px[0], py[0]
                    text = f"What did {{S}} do first: {o1}, or {o2}?"
                labels = [o1.lower(), o2.lower()]
                query = {"op": "which_first", "a": x, "b": y, "labels": labels}
                answer = labels[0] if tx < ty else labels[1]
                out.append(self.cand(family, "which-first", self.say(text, who), query, answer, [tx, ty], "which-first"))
            else:
                text = r.choice([f"Did {{S}} {px[0]} before {{S}} first {py[1]}?",
                                 f"Was it before {{S}} first {py[1]} that {{S}} first {px[1]}?",
                                 f"Is it true that {{S}} {px[1]} before the first time {{S}} {py[1]}?"])
                answer = "yes" if tx < ty else "no"
                query = {"op": "before", "a": x, "b": y}
                out.append(self.cand(family, "yes/no", self.say(text, who), query, answer, [tx, ty], answer))
        return out

    def runs(self, m: Match) -> list[tuple[int, int]]:
        hits = set(self.occ(m))
        out: list[tuple[int, int]] = []
        start: int | None = None
        for t in range(self.T):
            if t in hits:
                start = t if start is None else start
            elif start is not None:
                out.append((start, t - 1))
                start = None
        if start is not None:
            out.append((start, self.T - 1))
        return out

    def fam_distance(self) -> list[_Cand]:
        family, out, r = "9_distance", [], self.rng
        falls, reaches = self.occ(("ev", "fall back", None)), self.occ(("ev", "reach camp", None))
        for _ in range(50):
            sub = r.choice(["gap", "until", "until", "sleep", "vital", "task", "retreat", "from_step"])
            who = self.who()
            if sub == "gap":
                x = self.mpick()
                y = self.mpick(exclude=(x[1],))
                if y is None:
                    continue
                tx, ty = self.occ(x)[0], self.occ(y)[0]
                if tx == ty:
                    continue
                px, py = self.phrase(x)[1], self.phrase(y)[1]
                text = r.choice([f"How many steps passed between the first time {{S}} {px} and the first time {{S}} {py}?",
                                 f"How far apart, in steps, were the first time {{S}} {px} and the first time {{S}} {py}?"])
                query = {"op": "gap", "a": ("occ", x, 1), "b": ("occ", y, 1)}
                out.append(self.cand(family, "duration", self.say(text, who), query, str(abs(ty - tx)), [tx, ty], sub))
            elif sub in ("until", "from_step"):
                y = self.mpick()
                ys = self.occ(y)
                if sub == "until":
                    x = self.mpick(exclude=(y[1],))
                    if x is None:
                        continue
                    xs = self.occ(x)
                    n = self.anchor_n(xs)
                    a = xs[n - 1] if n > 0 else xs[n]
                    spec: Spec = ("occ", x, n)
                    clause = self.occ_clause(x, n)
                else:
                    a = self.free_step(set(ys), 20, ys[-1] - 1)
                    if a is None:
                        continue
                    spec, clause = ("t", a), f"step {a}"
                later = [t for t in ys if t > a]
                if a in set(ys) or not later:
                    continue
                by, py = self.phrase(y)[0], self.phrase(y)[1]
                if sub == "until":
                    text = r.choice([f"How long after {clause} did {{S}} next {by}?",
                                     f"After {clause}, how many steps went by before {{S}} next {by}?"])
                else:
                    text = r.choice([f"How many steps after step {a} did {{S}} next {by}?",
                                     f"Starting from step {a}, how many steps did it take until {{S}} {py}?"])
                query = {"op": "gap", "a": spec, "b": ("next", y, spec)}
                out.append(self.cand(family, "duration", self.say(text, who), query, str(later[0] - a), [a, later[0]], sub))
            elif sub in ("sleep", "vital", "task"):
                if sub == "sleep":
                    m: Match = ("st", "asleep", "==", True)
                elif sub == "vital":
                    name = r.choice(sorted(_VITAL_WORDS))
                    m = ("st", name, "<=", r.randint(2, 6))
                else:
                    task = r.choice(sorted({str(st["task"]) for st in self.tr.states}))
                    m = ("st", "task", "==", task)
                spans = self.runs(m)
                k = r.randint(1, len(spans)) if sub == "sleep" and spans else 1
                if not spans or spans[k - 1][0] == 0 or spans[k - 1][1] == self.T - 1:
                    continue
                first, last = spans[k - 1]
                if sub == "task" and last - first < 2:
                    continue
                if sub == "sleep":
                    o = self.ordinal(k)
                    text = r.choice([f"How many steps did {{P}} {o} sleep last?",
                                     f"For how many steps {{BE}} {{S}} asleep during {{P}} {o} stretch of sleep?"])
                elif sub == "vital":
                    w = r.choice(_VITAL_WORDS[m[1]])
                    text = (f"Once {{P}} {w} first fell to {m[3]} or below, for how many steps did it stay at "
                            f"{m[3]} or below?")
                else:
                    text = r.choice([f"The first time {{P}} logbook task read '{m[3]}', for how many consecutive steps did it stay that way?",
                                     f"How many steps in a row did the first '{m[3]}' stretch in {{P}} logbook last?"])
                query = {"op": "run", "m": m, "k": k}
                out.append(self.cand(family, "duration", self.say(text, who), query, str(last - first + 1),
                                     [first, last], sub))
            else:
                if not falls:
                    continue
                n = r.randint(1, len(falls))
                a = falls[n - 1]
                nxt = [t for t in reaches if t > a]
                again = [t for t in falls if t > a]
                if not nxt or (again and again[0] < nxt[0]):
                    continue
                o = self.ordinal(n)
                text = r.choice([f"How long did {{P}} {o} retreat to camp take, from falling back to reaching camp?",
                                 f"After {{S}} fell back toward camp for the {o} time, how many steps did it take to get back there?"])
                spec = ("occ", ("ev", "fall back", None), n)
                query = {"op": "gap", "a": spec, "b": ("next", ("ev", "reach camp", None), spec)}
                out.append(self.cand(family, "duration", self.say(text, who), query, str(nxt[0] - a), [a, nxt[0]], sub))
        return out

    def fam_existence(self) -> list[_Cand]:
        family, out, r = "10_existence", [], self.rng
        absent = [("ev", k, o) for k, o in _PLAUSIBLE if not self.occ(("ev", k, o)) and event_phrases(k, o)]
        visited = sorted(self.tr.by_region)
        top_ring = max(int(reg.split()[-1]) for reg in visited if reg != CAMP)
        headings = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")
        unvisited = [f"{h} circuit {k}" for k in range(1, top_ring + 2) for h in headings
                     if f"{h} circuit {k}" not in self.tr.by_region]
        for _ in range(60):
            sub = r.choice(["ever", "ever", "never", "window", "after_step", "first_n", "after_event", "before_event",
                            "region"])
            who = self.who()
            win: tuple[Any, Any] = (None, None)
            anchors: list[int] = []
            if sub == "region":
                if r.random() < 0.5 or not unvisited:
                    name = r.choice(visited)
                else:
                    name = r.choice(unvisited)
                m: Match = ("reg", name)
                text = r.choice([f"{{BE}} {{S}} ever in {name}?", f"Did {{S}} ever set foot in {name}?"])
                lo, hi = 0, self.T - 1
            else:
                if sub == "never":
                    if not absent:
                        continue
                    m = r.choice(absent)
                else:
                    m = self.mpick()
                ts = self.occ(m)
                hits = set(ts)
                base = self.phrase(m)[0]
                lo, hi = 0, self.T - 1
                if sub in ("ever", "never"):
                    text = r.choice([f"Did {{S}} ever {base}?", f"At any point in the run, did {{S}} {base}?",
                                     f"Was there ever a step at which {{S}} {self.phrase(m)[1]}?"])
                elif sub == "window":
                    a = self.free_step(hits, 1, self.T - 60)
                    b = None if a is None else self.free_step(hits, a + 20, min(self.T - 2, a + 200))
                    if a is None or b is None:
                        continue
                    lo, hi, win = a, b, (("t", a), ("t", b))
                    text = r.choice([f"Did {{S}} {base} between step {a} and step {b}?",
                                     f"Between steps {a} and {b}, did {{S}} {base} at all?"])
                elif sub == "after_step":
                    n = self.free_step(hits, 100, self.T - 30)
                    if n is None:
                        continue
                    lo, win = n + 1, (("t", n + 1), None)
                    text = f"After step {n}, did {{S}} ever {base}?"
                elif sub == "first_n":
                    n = self.free_step(hits, 80, self.T - 100)
                    if n is None or 0 in hits:
                        continue
                    hi, win = n - 1, (None, ("t", n - 1))
                    text = r.choice([f"Within the first {n} steps, did {{S}} {base}?",
                                     f"Did {{S}} {base} at all during the first {n} steps?"])
                else:
                    y = self.mpick(exclude=(m[1],))
                    if y is None:
                        continue
                    ys = self.occ(y)
                    ny = self.anchor_n(ys)
                    ty = ys[ny - 1] if ny > 0 else ys[ny]
                    if ty in hits:
                        continue
                    clause = self.occ_clause(y, ny)
                    anchors = [ty]
                    if sub == "after_event":
                        lo, win = ty + 1, (("after", ("occ", y, ny)), None)
                        text = f"After {clause}, did {{S}} ever {base}?"
                    else:
                        hi, win = ty - 1, (None, ("before", ("occ", y, ny)))
                        text = r.choice([f"Before {clause}, did {{S}} {base} at all?", f"Did {{S}} {base} before {clause}?"])
            inside = [t for t in self.occ(m) if lo <= t <= hi]
            answer = "yes" if inside else "no"
            query = {"op": "exists", "m": m, "win": win}
            out.append(self.cand(family, "yes/no", self.say(text, who), query, answer, anchors + inside[:1], answer))
        return out

    # ---- assembly ----------------------------------------------------------------------------
    def pick(self, cands: list[_Cand], k: int = 6) -> list[_Cand]:
        self.rng.shuffle(cands)
        groups: dict[str, list[_Cand]] = {}
        for c in cands:
            groups.setdefault(c.group, []).append(c)
        chosen: list[_Cand] = []
        texts: set[str] = set()
        queries: set[str] = set()
        while len(chosen) < k and any(groups.values()):
            for name in list(groups):
                while groups[name]:
                    c = groups[name].pop(0)
                    key = repr(sorted(c.query.items()))
                    if c.text in texts or key in queries:
                        continue
                    texts.add(c.text)
                    queries.add(key)
                    chosen.append(c)
                    break
                if len(chosen) >= k:
                    break
        if len(chosen) < k:
            raise RuntimeError(f"{self.ep}: only {len(chosen)} questions for {cands[0].family if cands else '?'}")
        return chosen

    def questions(self) -> list[dict[str, Any]]:
        makers: dict[str, Callable[[], list[_Cand]]] = {
            "1_step_index": self.fam_step_index, "2_nth_occurrence": self.fam_nth,
            "3_windowed_occurrence": self.fam_window, "4_condition": self.fam_condition, "5_offset": self.fam_offset,
            "6_next_previous": self.fam_next_prev, "7_count": self.fam_count, "8_order": self.fam_order,
            "9_distance": self.fam_distance, "10_existence": self.fam_existence,
        }
        out: list[dict[str, Any]] = []
        for family in _FAMILIES:
            for c in self.pick(makers[family]()):
                out.append({
                    "episode": self.ep,
                    "family": c.family,
                    "slot": c.slot,
                    "question": c.text,
                    "answer": c.answer,
                    "gold": [f"{self.ep}:{t}" for t in c.gold],
                })
        return out


def build(seed: int) -> dict[str, Any]:
    """One Crafter episode of Vesper for ``seed`` and its 60 questions."""
    episode, steps, trace = simulate(seed)
    asker = _Asker(episode, steps, trace, seed)
    return {"episodes": {episode: steps}, "questions": asker.questions()}


def _digest(built: dict[str, Any]) -> str:
    return hashlib.sha256(repr((built["episodes"], built["questions"])).encode()).hexdigest()


def _self_check(seeds: Sequence[int]) -> None:
    for seed in seeds:
        started = time.process_time()
        built = build(seed)
        elapsed = time.process_time() - started
        for episode, steps in built["episodes"].items():
            validate_steps(steps, episode)
        again = build(seed)
        assert again == built, f"seed {seed}: a second build differs"
        questions = built["questions"]
        assert len(questions) == 60, len(questions)
        for q in questions:
            n_steps = len(built["episodes"][q["episode"]])
            for gid in q["gold"]:
                ep, _, t = gid.rpartition(":")
                assert ep == q["episode"] and 0 <= int(t) < n_steps, (gid, q)
        families = Counter(q["family"] for q in questions)
        assert all(families[f] == 6 for f in _FAMILIES), families
        slots = Counter(q["slot"] for q in questions)
        kinds = Counter(e.kind for steps in built["episodes"].values() for s in steps for e in s.events)
        n_steps = sum(len(s) for s in built["episodes"].values())
        print(f"== {SUITE} seed {seed}: {n_steps} steps, {len(questions)} questions, "
              f"build {elapsed:.1f}s CPU, digest {_digest(built)[:16]}")
        print("families:", dict(sorted(families.items(), key=lambda kv: _FAMILIES.index(kv[0]))))
        print("slots:", dict(sorted(slots.items())))
        print("event kinds:", dict(kinds.most_common()))
        sample = random.Random(f"sample-{seed}").sample(questions, 10)
        for q in sample:
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")


if __name__ == "__main__":
    _self_check([int(a) for a in sys.argv[1:]] or list(DEFAULT_SEEDS))
