"""Crafter forager: a nomadic survivalist in the real Crafter world, with questions about its trajectory.

What it simulates
    One Crafter episode per seed (``crafter.Env(seed=seed)``, 64x64 world, 9x9 view), run for 800-1300
    agent steps. The only change to Crafter is that its creature balancing sorts the candidate creatures
    by position before picking one to despawn (Crafter draws them from a set, whose order follows memory
    addresses), so the rollout is identical in every process. When the forager dies the episode goes on:
    a new Crafter life starts (``env.reset()``: a fresh world, fresh inventory) and step numbers keep
    counting.

How the agent behaves
    A scripted, nomadic forager/hunter. Every step it re-plans with a breadth-first search over walkable
    cells around it and, in priority order: keeps sleeping while asleep; fights zombies and skeletons that
    come close (it flees from skeletons when badly hurt); drinks at lakes when thirsty; hunts cows when
    hungry; goes to sleep when tired, preferably in a two-cell pocket it digs into rock and seals with a
    stone, where it also waits out the night or recovers when badly hurt (otherwise it sleeps in the
    open, maybe behind one stone, and zombies may kill it); drinks, hunts and mines coal, iron and diamond
    opportunistically; forages saplings from grass and plants them; climbs the tool ladder (crafting
    table, wood pickaxe and sword, stone pickaxe and sword, furnace, iron pickaxe and sword), building a
    new table wherever it is when no old one is near; and otherwise roams towards far-away random
    waypoints. It remembers what it has seen (its view is 9x7 cells) and heads back to remembered lakes,
    trees and ores.

Records
    One ``Step`` per action, with Crafter's own action name (``move_left``, ``do``, ``sleep``,
    ``place_table``, ``make_wood_pickaxe``, ...). Events come from changes in Crafter's info dict between
    two steps (achievement counters, inventory, health) and from the semantic map (what the agent was
    facing when it struck): ``chop tree``, ``mine stone/coal/iron/diamond``, ``forage sapling``,
    ``drink water``, ``eat cow``, ``eat plant``, ``strike cow/zombie/skeleton`` (every blow),
    ``slay zombie/skeleton``, ``craft <tool>``, ``build table/furnace``, ``plant sapling``,
    ``place stone``, ``unlock <achievement>`` (first time in a life), ``hurt <cause>`` (the cause read
    off the map and stats after the step: a zombie next to the agent, else "arrow" when a skeleton or an
    arrow is near, else hunger, thirst or exhaustion when that stat is 0), ``heal``, ``fall asleep``,
    ``wake up``, ``die <cause>``, ``respawn`` (first step of a new life) and ``enter <region>``.
    Regions are the cells of a 4x4 grid over the map, "sector A1" (north-west) to "sector D4"
    (south-east): the letter is the column (x // 16), the number the row (y // 16). The inventory holds
    Crafter's items (counts > 0); the state holds health, food, drink, energy, ``sleeping``,
    ``daylight`` (rounded to two decimals) and ``life`` (1 for the first life, 2 after the first
    death, ...). The facing relation names the creature or the material in the
    cell in front of the agent after the step.

How answers are computed
    A reference evaluator scans the Step records only (never the environment): occurrences are events
    matched by kind (and object, or any object for questions like "mined anything" or "took damage"), in
    step order; counts count events; windows follow the spec's conventions ("before step N" excludes N,
    "by step N" and "between A and B" include their ends, "the first N steps" is 0..N-1, "again" is the
    second time); conditions are read from the inventory and state of each step ("ran out" = 0 after a
    positive count the step before); slots read the step's values after its action. Gold ids are the
    steps that decide each answer (target, anchors, the last counted event, every listed event).

Questions
    Sixty per seed, six per family, worded from this suite's own lexicon (several phrasings per event
    type, subjects I / we / you / the agent / the forager, ordinals in words and digits, time clauses
    before or after the main clause).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import crafter
import numpy as np
from crafter import constants as cconst
from crafter import objects as cobj

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout2_crafter"
SEEDS = range(7300, 7400)

AREA = 64
VIEW_HALF_W, VIEW_HALF_H = 4, 3  # Crafter's local view is 9 wide and 7 tall (two rows show the items)
STATS = ("health", "food", "drink", "energy")
DIRS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
MOVES = {(-1, 0): "move_left", (1, 0): "move_right", (0, -1): "move_up", (0, 1): "move_down"}
TIERS = (("wood_pickaxe", "wood_sword"), ("stone_pickaxe", "stone_sword"), ("iron_pickaxe", "iron_sword"))
ORE_TOOL = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe", "diamond": "iron_pickaxe"}
SOURCE = {"wood": "tree", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}

# Achievement counter -> the event this suite records for one increment of it.
ACHIEVEMENT_EVENTS: tuple[tuple[str, str, str], ...] = (
    ("collect_wood", "chop", "tree"),
    ("collect_stone", "mine", "stone"),
    ("collect_coal", "mine", "coal"),
    ("collect_iron", "mine", "iron"),
    ("collect_diamond", "mine", "diamond"),
    ("collect_sapling", "forage", "sapling"),
    ("collect_drink", "drink", "water"),
    ("eat_cow", "eat", "cow"),
    ("eat_plant", "eat", "plant"),
    ("defeat_zombie", "slay", "zombie"),
    ("defeat_skeleton", "slay", "skeleton"),
    ("make_wood_pickaxe", "craft", "wood pickaxe"),
    ("make_stone_pickaxe", "craft", "stone pickaxe"),
    ("make_iron_pickaxe", "craft", "iron pickaxe"),
    ("make_wood_sword", "craft", "wood sword"),
    ("make_stone_sword", "craft", "stone sword"),
    ("make_iron_sword", "craft", "iron sword"),
    ("place_table", "build", "table"),
    ("place_furnace", "build", "furnace"),
    ("place_plant", "plant", "sapling"),
    ("place_stone", "place", "stone"),
)


# ------------------------------------------------------------------------------------------------
# The environment: real Crafter, with a deterministic creature balancing.
# ------------------------------------------------------------------------------------------------


class OrderedCrafterEnv(crafter.Env):
    """``crafter.Env`` whose despawn choice does not depend on set iteration order."""

    def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist,
                        spawn_prob, despawn_prob, ctor, target_fn):  # type: ignore[override]
        xmin, xmax, ymin, ymax = chunk
        rnd = self._world.random
        creatures = sorted((obj for obj in objs if isinstance(obj, cls)),
                           key=lambda obj: (int(obj.pos[0]), int(obj.pos[1])))
        mask = self._world.mask(*chunk, material)
        target_min, target_max = target_fn(len(creatures), mask.sum())
        if len(creatures) < int(target_min) and rnd.uniform() < spawn_prob:
            xs = np.tile(np.arange(xmin, xmax)[:, None], [1, ymax - ymin])
            ys = np.tile(np.arange(ymin, ymax)[None, :], [xmax - xmin, 1])
            xs, ys = xs[mask], ys[mask]
            i = rnd.randint(0, len(xs))
            pos = np.array((xs[i], ys[i]))
            empty = self._world[pos][1] is None
            away = self._player.distance(pos) >= span_dist
            if empty and away:
                self._world.add(ctor(pos))
        elif len(creatures) > int(target_max) and rnd.uniform() < despawn_prob:
            obj = creatures[rnd.randint(0, len(creatures))]
            away = self._player.distance(obj.pos) >= despan_dist
            if away:
                self._world.remove(obj)


@dataclass
class Percept:
    """What the agent knows at a decision point (Crafter's info dict plus its own facing)."""

    grid: list[list[int]]  # semantic id per [x][y]
    sem: np.ndarray
    pos: tuple[int, int]
    facing: tuple[int, int]
    inv: dict[str, int]
    ach: dict[str, int]
    sleeping: bool
    daylight: float


class Names:
    """Semantic ids of one Crafter env, by name and back."""

    def __init__(self, env: crafter.Env) -> None:
        view = env._sem_view
        self.mat: dict[str, int] = {k: v for k, v in view._mat_ids.items() if k is not None}
        classes = {cobj.Player: "player", cobj.Cow: "cow", cobj.Zombie: "zombie", cobj.Skeleton: "skeleton",
                   cobj.Arrow: "arrow", cobj.Plant: "plant"}
        self.obj: dict[str, int] = {classes[c]: i for c, i in view._obj_ids.items()}
        self.name: dict[int, str] = {v: k for k, v in self.mat.items()} | {v: k for k, v in self.obj.items()}
        self.name[0] = "darkness"
        self.walk = frozenset(self.mat[m] for m in ("grass", "sand", "path"))
        self.solid = frozenset(self.mat[m] for m in ("stone", "tree", "coal", "iron", "diamond", "table",
                                                     "furnace", "water", "lava"))

    def of(self, grid: list[list[int]], cell: tuple[int, int]) -> str:
        x, y = cell
        if not (0 <= x < AREA and 0 <= y < AREA):
            return "edge"
        return self.name.get(grid[x][y], "unknown")


def _add(a: tuple[int, int], b: tuple[int, int], k: int = 1) -> tuple[int, int]:
    return (a[0] + k * b[0], a[1] + k * b[1])


def _manhattan(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _inside(c: tuple[int, int]) -> bool:
    return 0 <= c[0] < AREA and 0 <= c[1] < AREA


# ------------------------------------------------------------------------------------------------
# The scripted forager.
# ------------------------------------------------------------------------------------------------


@dataclass
class Shelter:
    """A two-cell pocket dug into rock: stand at ``a``, dig ``a+d`` and ``a+2d``, seal ``a`` behind."""

    a: tuple[int, int]
    d: tuple[int, int]
    started: int
    sealed: bool = False

    @property
    def n1(self) -> tuple[int, int]:
        return _add(self.a, self.d)

    @property
    def n2(self) -> tuple[int, int]:
        return _add(self.a, self.d, 2)


class Forager:
    """Chooses one Crafter action per step from a Percept (see the module docstring)."""

    REACH = 22

    def __init__(self, names: Names, rng: random.Random) -> None:
        self.n = names
        self.rng = rng
        self.seen: np.ndarray = np.zeros((AREA, AREA), bool)
        self.waypoint: tuple[int, int] | None = None
        self.wp_age = 0
        self.drinking = False
        self.hunting = False
        self.forage_budget = 0
        self.planted = 0
        self.shelter: Shelter | None = None
        self.barricaded = False
        self.rest_search = 0
        self.recovering = False
        self.flee: tuple[int, int] | None = None
        self.flee_t = 0
        self.t = 0
        self.blocked: set[tuple[int, int]] = set()
        self.travel_goal: tuple[int, int] | None = None
        self.travel_age = 0
        self.dist: dict[tuple[int, int], int] = {}
        self.dmap: np.ndarray = np.full((AREA, AREA), -1, np.int32)
        self.pc: Percept

    # -- perception helpers ------------------------------------------------------------------------

    def _id(self, cell: tuple[int, int]) -> int:
        x, y = cell
        if not _inside(cell):
            return -1
        return self.pc.grid[x][y]

    def _free(self, cell: tuple[int, int]) -> bool:
        return self._id(cell) in self.n.walk

    def _placeable(self, cell: tuple[int, int], where: Iterable[str]) -> bool:
        return self._id(cell) in {self.n.mat[w] for w in where}

    def _bfs(self) -> None:
        """Breadth-first distances over free walkable cells, up to REACH steps, as a wavefront."""
        start = self.pc.pos
        walk = np.isin(self.pc.sem, list(self.n.walk))
        dmap: np.ndarray = np.full((AREA, AREA), -1, np.int32)
        dmap[start] = 0
        frontier: np.ndarray = np.zeros((AREA, AREA), bool)
        frontier[start] = True
        visited = frontier.copy()
        for k in range(1, self.REACH + 1):
            grown = np.zeros_like(frontier)
            grown[1:, :] |= frontier[:-1, :]
            grown[:-1, :] |= frontier[1:, :]
            grown[:, 1:] |= frontier[:, :-1]
            grown[:, :-1] |= frontier[:, 1:]
            new = grown & walk & ~visited
            if not new.any():
                break
            dmap[new] = k
            visited |= new
            frontier = new
        self.dmap = dmap
        self.dist = {(int(x), int(y)): int(dmap[x, y]) for x, y in np.argwhere(visited)}

    def _first_move(self, goal: tuple[int, int]) -> str:
        """The first move of a shortest path to ``goal`` (traced back through decreasing distances)."""
        c = goal
        k = self.dist.get(c, -1)
        if k <= 0:
            return "noop"
        while k > 1:
            for d in DIRS:
                n = (c[0] + d[0], c[1] + d[1])
                if self.dist.get(n, -1) == k - 1:
                    c, k = n, k - 1
                    break
        return MOVES[(c[0] - self.pc.pos[0], c[1] - self.pc.pos[1])]

    def _known(self, material: str) -> list[tuple[int, int]]:
        mask = (self.pc.sem == self.n.mat[material]) & self.seen
        return [(int(x), int(y)) for x, y in np.argwhere(mask)]

    def _visible(self, kind: str, radius_x: int = VIEW_HALF_W, radius_y: int = VIEW_HALF_H) -> list[tuple[int, int]]:
        px, py = self.pc.pos
        x0, x1 = max(0, px - radius_x), min(AREA, px + radius_x + 1)
        y0, y1 = max(0, py - radius_y), min(AREA, py + radius_y + 1)
        sub = self.pc.sem[x0:x1, y0:y1] == self.n.obj[kind]
        return [(int(x) + x0, int(y) + y0) for x, y in np.argwhere(sub)]

    # -- pose planning -----------------------------------------------------------------------------

    def _pose_do(self, targets: Iterable[tuple[int, int]], act: str = "do") -> tuple[int, str] | None:
        """Reach a cell next to one target, face it (targets are never walkable) and act on it."""
        best: tuple[int, int, int, int, tuple[int, int], tuple[int, int]] | None = None
        p, f = self.pc.pos, self.pc.facing
        for tx, ty in targets:
            if abs(tx - p[0]) + abs(ty - p[1]) > self.REACH + 1:
                continue
            for k, d in enumerate(DIRS):
                c = (tx - d[0], ty - d[1])
                if c not in self.dist or (tx, ty) in self.blocked:
                    continue
                cost = self.dist[c] + (0 if (c == p and f == d) else 1)
                key = (cost, tx, ty, k, c, d)
                if best is None or key < best:
                    best = key
        if best is None:
            return None
        cost, _, _, _, c, d = best
        if c == p:
            return cost, (act if f == d else MOVES[d])
        return cost, self._first_move(c)

    def _pose_place(self, act: str, where: Sequence[str],
                    ok: Callable[[tuple[int, int]], bool] = lambda c: True) -> str | None:
        """Stand on a cell satisfying ``ok``, facing a free cell of a ``where`` material, and place."""
        p, f = self.pc.pos, self.pc.facing
        if ok(p) and self._placeable(_add(p, f), where):
            return act
        best: tuple[int, int, tuple[int, int]] | None = None
        for c, dc in self.dist.items():
            if c == p or not ok(c):
                continue
            for k, d in enumerate(DIRS):
                back = _add(c, d, -1)
                if back in self.dist and self._placeable(_add(c, d), where):
                    key = (self.dist[back] + 1, k, back)
                    if best is None or key < best:
                        best = key
        if best is None:
            return None
        _, k, back = best
        if back == p:
            return MOVES[DIRS[k]]
        return self._first_move(back)

    def _travel(self, goal: tuple[int, int]) -> str | None:
        """One step towards the reachable cell closest to ``goal``; None when no progress is possible."""
        p = self.pc.pos
        best = min(self.dist, key=lambda c: (_manhattan(c, goal), self.dist[c], c))
        if best == p:
            return None
        return self._first_move(best)

    def _explore(self) -> str:
        p = self.pc.pos
        self.wp_age += 1
        if self.waypoint is None or _manhattan(p, self.waypoint) <= 2 or self.wp_age > 140:
            self._new_waypoint()
        assert self.waypoint is not None
        step = self._travel(self.waypoint)
        if step is None:
            self._new_waypoint()
            step = self._travel(self.waypoint)
        if step is None:
            free = [d for d in DIRS if self._free(_add(p, d))]
            return MOVES[self.rng.choice(free)] if free else "noop"
        return step

    def _new_waypoint(self) -> None:
        p = self.pc.pos
        for _ in range(50):
            wp = (self.rng.randint(3, AREA - 4), self.rng.randint(3, AREA - 4))
            if _manhattan(p, wp) >= 22:
                break
        self.waypoint, self.wp_age = wp, 0

    def _go_known(self, cells: list[tuple[int, int]]) -> str | None:
        """Head for the nearest remembered cell of a list (giving up on ones that prove unreachable)."""
        p = self.pc.pos
        cells = [c for c in cells if c not in self.blocked]
        if not cells:
            return None
        goal = min(cells, key=lambda c: (_manhattan(p, c), c))
        if _manhattan(p, goal) > 45:
            return None
        if goal != self.travel_goal:
            self.travel_goal, self.travel_age = goal, 0
        self.travel_age += 1
        step = self._travel(goal)
        if step is None or self.travel_age > 80:
            self.blocked.add(goal)
            return None
        return step

    # -- behaviours --------------------------------------------------------------------------------

    def _in_pocket(self) -> bool:
        s = self.shelter
        return (s is not None and s.sealed and self.pc.pos in (s.n1, s.n2)
                and self._id(s.a) in self.n.solid and self._id(_add(s.a, s.d, 3)) in self.n.solid)

    def _fight(self) -> str | None:
        if self._in_pocket():
            return None
        p, inv = self.pc.pos, self.pc.inv
        if self.flee is not None:  # keep running from skeletons for a while once started
            if self.flee != p and self.flee in self.dist and self.t - self.flee_t <= 10:
                return self._first_move(self.flee)
            self.flee = None
        zombies = [z for z in self._visible("zombie") if _manhattan(p, z) <= 3]
        if zombies:
            got = self._pose_do(zombies)
            if got is not None and got[0] <= 4:
                return got[1]
        skeletons = [s for s in self._visible("skeleton") if _manhattan(p, s) <= 4]
        if skeletons:
            if inv["health"] <= 4:
                self.flee = max(self.dist, key=lambda c: (min(_manhattan(c, s) for s in skeletons), -self.dist[c], c))
                self.flee_t = self.t
                if self.flee != p:
                    return self._first_move(self.flee)
                self.flee = None
            armed = inv["wood_sword"] + inv["stone_sword"] + inv["iron_sword"] > 0
            got = self._pose_do(skeletons)
            if got is not None and got[0] <= (4 if armed and inv["health"] >= 6 else 1):
                return got[1]
        return None

    def _drink(self, urgent: bool) -> str | None:
        got = self._pose_do(self._known("water"))
        if got is not None and (urgent or got[0] <= 5):
            return got[1]
        if urgent:
            return self._go_known(self._known("water")) or self._explore()
        return None

    def _hunt(self, urgent: bool) -> str | None:
        cows = self._visible("cow", 6, 5)
        got = self._pose_do(cows)
        if got is not None and (urgent or got[0] <= 6):
            return got[1]
        if urgent:
            return self._explore()
        return None

    def _plan_shelter(self) -> Shelter | None:
        inv = self.pc.inv
        diggable = {self.n.mat[m] for m, tool in ORE_TOOL.items() if inv[tool] > 0}
        if not diggable:
            return None
        best: tuple[int, tuple[int, int], tuple[int, int]] | None = None
        for a, da in self.dist.items():
            if da > 14:
                continue
            for d in DIRS:
                n1, n2 = _add(a, d), _add(a, d, 2)
                if self._id(n1) not in diggable or self._id(n2) not in diggable:
                    continue
                side = (d[1], d[0])
                walls = [_add(n1, side), _add(n1, side, -1), _add(n2, side), _add(n2, side, -1), _add(n2, d)]
                if all(self._id(w) in self.n.solid for w in walls):
                    key = (da, a, d)
                    if best is None or key < best:
                        best = key
        if best is None:
            return None
        return Shelter(best[1], best[2], self.t)

    def _shelter_step(self) -> str | None:
        s = self.shelter
        assert s is not None
        p, f = self.pc.pos, self.pc.facing
        back = (-s.d[0], -s.d[1])
        if s.sealed:
            return "sleep" if p in (s.n1, s.n2) else None
        if self.t - s.started > 45:
            return None
        if not self._free(s.n1) and p != s.n1:
            got = self._pose_do([s.n1])
            return got[1] if got else None
        if not self._free(s.n2) and p != s.n2:
            if p == s.n1:
                return "do" if f == s.d else MOVES[s.d]
            return self._first_move(s.n1) if s.n1 in self.dist else None
        if p == s.n2:
            return MOVES[back]
        if p == s.n1:
            if f == back:
                if self.pc.inv["stone"] < 1 or not self._placeable(s.a, cconst.place["stone"]["where"]):
                    return None
                s.sealed = True
                return "place_stone"
            return MOVES[s.d]
        return self._first_move(s.n1) if s.n1 in self.dist else None

    def _sleep(self, critical: bool) -> str | None:
        """Sleep in a sealed pocket if one can be dug nearby, else (when it must) in the open."""
        if self.shelter is None and not self.barricaded:
            self.shelter = self._plan_shelter()
        if self.shelter is not None:
            step = self._shelter_step()
            if step is not None:
                return step
            if not self.shelter.sealed:
                self.shelter = None
                self.barricaded = True  # gave up on a pocket: sleep where it stands
        if self._in_pocket():
            return "sleep"
        if self.pc.inv["wood_pickaxe"] > 0 and self.rest_search < 80:
            self.rest_search += 1
            step = self._go_known(self._known("stone"))
            if step is not None:
                return step
        if not critical or self._visible("zombie") or self._visible("skeleton"):
            return None
        f = _add(self.pc.pos, self.pc.facing)
        if not self.barricaded and self.pc.inv["stone"] > 0 and self._free(f):
            self.barricaded = True
            return "place_stone"
        self.barricaded = True
        return "sleep"

    def _gather(self, item: str) -> str:
        tool = ORE_TOOL.get(item)
        if tool is not None and self.pc.inv[tool] == 0:
            return self._explore()
        cells = self._known(SOURCE[item])
        got = self._pose_do(cells)
        if got is not None:
            return got[1]
        return self._go_known(cells) or self._explore()

    def _station_cells(self, needs: Sequence[str]) -> list[tuple[int, int]]:
        """Reachable cells whose 3x3 neighbourhood holds every material of ``needs``."""
        ok = self.dmap >= 0
        for m in needs:
            mask = self.pc.sem == self.n.mat[m]
            near = mask.copy()
            near[1:, :] |= mask[:-1, :]
            near[:-1, :] |= mask[1:, :]
            grown = near.copy()
            grown[:, 1:] |= near[:, :-1]
            grown[:, :-1] |= near[:, 1:]
            ok &= grown
        return [(int(x), int(y)) for x, y in np.argwhere(ok)]

    def _progress(self) -> str | None:
        inv = self.pc.inv
        for tier in TIERS:
            todo = [tool for tool in tier if inv[tool] == 0]
            if todo:
                break
        else:
            diamonds = self._known("diamond")
            got = self._pose_do(diamonds)
            if got is not None:
                return got[1]
            return self._go_known(diamonds)
        iron = tier is TIERS[2]
        need: dict[str, int] = {"wood": 0, "stone": 0, "coal": 0, "iron": 0}
        for tool in (todo[:1] if iron else todo):  # iron is scarce: one iron tool at a time
            for item, k in cconst.make[tool]["uses"].items():
                need[item] += k
        stations = self._station_cells(["table", "furnace"] if iron else ["table"])
        tables = stations if not iron else self._station_cells(["table"])
        need_table = not tables
        need_furnace = iron and not stations
        if need_table:
            need["wood"] += cconst.place["table"]["uses"]["wood"]
        if need_furnace:
            need["stone"] += cconst.place["furnace"]["uses"]["stone"]
        if tier is TIERS[1]:
            need["stone"] += 1  # a spare stone to seal a sleeping pocket
        for item in ("wood", "stone", "coal", "iron"):
            if inv[item] < need[item]:
                return self._gather(item)
        if need_table:
            return self._pose_place("place_table", cconst.place["table"]["where"])
        if need_furnace:
            table = self.n.mat["table"]

            def near_table(c: tuple[int, int]) -> bool:
                return any(self._id((c[0] + i, c[1] + j)) == table for i in (-1, 0, 1) for j in (-1, 0, 1))

            return self._pose_place("place_furnace", cconst.place["furnace"]["where"], near_table)
        p = self.pc.pos
        if p in stations:
            for tool in todo:
                if all(inv[i] >= k for i, k in cconst.make[tool]["uses"].items()):
                    return "make_" + tool
            return None
        goal = min(stations, key=lambda c: (self.dist[c], c))
        return self._first_move(goal)

    def _saplings(self) -> str | None:
        f = _add(self.pc.pos, self.pc.facing)
        if self._id(f) != self.n.mat["grass"]:
            return None
        if self.pc.inv["sapling"] > 0 and self.rng.random() < 0.5:
            self.planted += 1
            return "place_plant"
        if self.pc.inv["sapling"] == 0 and self.forage_budget > 0:
            self.forage_budget -= 1
            return "do"
        return None

    # -- the policy --------------------------------------------------------------------------------

    def act(self, pc: Percept) -> str:
        self.pc = pc
        self.t += 1
        px, py = pc.pos
        self.seen[max(0, px - VIEW_HALF_W): px + VIEW_HALF_W + 1, max(0, py - VIEW_HALF_H): py + VIEW_HALF_H + 1] = True
        self._bfs()
        inv = pc.inv
        if pc.sleeping:
            return "sleep"
        night = pc.daylight < 0.35
        if inv["health"] <= 3 and inv["wood_pickaxe"] > 0:
            self.recovering = True
        elif inv["health"] >= 7:
            self.recovering = False
        if self._in_pocket():
            assert self.shelter is not None
            stay = night or self.recovering or inv["energy"] < 8
            leave = not stay or inv["food"] <= 2 or inv["drink"] <= 2
            if not leave:
                return "sleep" if inv["energy"] < 9 else "noop"
            got = self._pose_do([self.shelter.a])
            if got is not None:
                return got[1]
        if self.shelter is not None and self.shelter.sealed:
            self.shelter = None
        if inv["energy"] >= 8 and not night:
            self.barricaded = False
        action = self._fight()
        if action:
            return action
        if inv["drink"] <= 3 or (self.drinking and inv["drink"] < 9):
            self.drinking = True
            action = self._drink(urgent=True)
            if action:
                return action
        self.drinking = False
        if inv["food"] <= 3 or (self.hunting and inv["food"] < 6):
            self.hunting = True
            action = self._hunt(urgent=True)
            if action:
                return action
        self.hunting = False
        critical = inv["energy"] == 0 or (inv["energy"] <= 2 and inv["health"] >= 5)
        tired = (critical or self.recovering or inv["energy"] <= 3
                 or (night and (inv["wood_pickaxe"] > 0 or inv["energy"] <= 5)))
        if tired or self.shelter is not None:
            action = self._sleep(critical)
            if action:
                return action
        else:
            self.rest_search = 0
        if inv["drink"] <= 6:
            action = self._drink(urgent=False)
            if action:
                self.drinking = True
                return action
        if inv["food"] <= 6:
            action = self._hunt(urgent=False)
            if action:
                self.hunting = True
                return action
        for ore, cap, reach in (("diamond", 9, 12), ("iron", 3, 9), ("coal", 4, 7)):
            if inv[ORE_TOOL[ore]] > 0 and inv[ore] < cap:
                got = self._pose_do(self._known(ore))
                if got is not None and got[0] <= reach:
                    return got[1]
        action = self._saplings()
        if action:
            return action
        if self.planted < 6 and inv["sapling"] == 0 and self.forage_budget == 0 and self.rng.random() < 0.03:
            self.forage_budget = 10
        if self.rng.random() < 0.85:
            action = self._progress()
            if action:
                return action
        return self._explore()


# ------------------------------------------------------------------------------------------------
# Rollout and adapter: Crafter info dicts -> Step records.
# ------------------------------------------------------------------------------------------------


def region_of(pos: tuple[int, int]) -> str:
    """The coarse region: a 4x4 grid of 16x16 sectors, columns A-D west to east, rows 1-4 north to south."""
    return f"sector {'ABCD'[min(3, pos[0] // 16)]}{min(3, pos[1] // 16) + 1}"


def _percept(env: crafter.Env, info: dict, names: Names) -> Percept:
    sem = info["semantic"]
    return Percept(
        grid=sem.tolist(), sem=sem, pos=(int(info["player_pos"][0]), int(info["player_pos"][1])),
        facing=(int(env._player.facing[0]), int(env._player.facing[1])), inv=dict(info["inventory"]),
        ach=dict(info["achievements"]), sleeping=bool(env._player.sleeping), daylight=float(env._world.daylight))


def _fresh_info(env: crafter.Env) -> dict:
    player = env._player
    return {"inventory": player.inventory.copy(), "achievements": player.achievements.copy(),
            "semantic": env._sem_view(), "player_pos": player.pos}


def _cause(after: Percept, names: Names) -> str:
    p = after.pos
    near = {names.of(after.grid, _add(p, d)) for d in DIRS}
    if "zombie" in near:
        return "zombie"
    x0, x1, y0, y1 = max(0, p[0] - 6), p[0] + 7, max(0, p[1] - 6), p[1] + 7
    box = after.sem[x0:x1, y0:y1]
    if (box == names.obj["arrow"]).any() or (box == names.obj["skeleton"]).any():
        return "arrow"
    for stat, cause in (("food", "hunger"), ("drink", "thirst"), ("energy", "exhaustion")):
        if after.inv[stat] <= 0:
            return cause
    if names.of(after.grid, p) == "lava":
        return "lava"
    return ""


def _visible_names(pc: Percept, names: Names) -> tuple[str, ...]:
    px, py = pc.pos
    sub = pc.sem[max(0, px - VIEW_HALF_W): px + VIEW_HALF_W + 1, max(0, py - VIEW_HALF_H): py + VIEW_HALF_H + 1]
    found = {names.name.get(int(i), "unknown") for i in np.unique(sub)}
    found.discard("player")
    return tuple(sorted(found))


def _event_text(ev: Event) -> str:
    return f"{ev.kind} {ev.obj}".strip()


def rollout(seed: int, n_steps: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 17)
    env = OrderedCrafterEnv(seed=seed, length=None)
    env.reset()
    names = Names(env)
    life = 1
    agent = Forager(names, random.Random(rng.randrange(2**31)))
    info = _fresh_info(env)
    before = _percept(env, info, names)
    region = region_of(before.pos)
    respawned = False
    steps: list[Step] = []
    for t in range(n_steps):
        action = agent.act(before)
        facing_before = names.of(before.grid, _add(before.pos, before.facing))
        _, _, done, info = env.step(cconst.actions.index(action))
        after = _percept(env, info, names)
        events: list[Event] = []
        if respawned:
            events.append(Event("respawn"))
            respawned = False
        if action == "do" and facing_before in ("cow", "zombie", "skeleton") and not before.sleeping:
            events.append(Event("strike", facing_before))
        for counter, kind, obj in ACHIEVEMENT_EVENTS:
            for _ in range(after.ach[counter] - before.ach[counter]):
                events.append(Event(kind, obj))
        for counter in cconst.achievements:
            if before.ach[counter] == 0 and after.ach[counter] > 0:
                events.append(Event("unlock", counter.replace("_", " ")))
        dh = after.inv["health"] - before.inv["health"]
        cause = _cause(after, names) if dh < 0 else ""
        if dh < 0:
            events.append(Event("hurt", cause))
        elif dh > 0:
            events.append(Event("heal"))
        if after.sleeping and not before.sleeping:
            events.append(Event("fall asleep"))
        elif before.sleeping and not after.sleeping:
            events.append(Event("wake up"))
        if done:
            events.append(Event("die", cause))
        new_region = region_of(after.pos)
        if new_region != region:
            events.append(Event("enter", new_region))
            region = new_region
        facing_after = names.of(after.grid, _add(after.pos, after.facing))
        inventory = {k: int(v) for k, v in after.inv.items() if k not in STATS and v > 0}
        state: dict[str, int | float | bool | str] = {s: int(after.inv[s]) for s in STATS}
        state.update(sleeping=after.sleeping, daylight=round(after.daylight, 2), life=life)
        visible = _visible_names(after, names)
        text = "; ".join(_event_text(e) for e in events) or "nothing notable"
        summary = f"{action}: {text}"
        seen = ", ".join(v for v in visible if v != facing_after)
        underfoot = str(env._world[after.pos][0])
        observation = (f"At ({after.pos[0]},{after.pos[1]}) in {new_region} on {underfoot}, facing {facing_after}. "
                       f"In view: {seen or 'nothing else'}. Health {state['health']}, food {state['food']}, "
                       f"drink {state['drink']}, energy {state['energy']}; daylight {state['daylight']:g}"
                       f"{'; asleep' if after.sleeping else ''}.")
        steps.append(Step(
            t=t, action=action, summary=summary, objects=visible, events=tuple(events),
            relations=(Relation("agent", "facing", facing_after),), inventory=inventory, state=state,
            location=Location(position=after.pos, region=new_region, underfoot=underfoot),
            observation=observation[:400]))
        if done:
            env.reset()
            life += 1
            agent = Forager(names, random.Random(rng.randrange(2**31)))
            info = _fresh_info(env)
            respawned = True
        before = _percept(env, info, names)
    return steps


# ------------------------------------------------------------------------------------------------
# Lexicon: how people talk about each kind of event.
# ------------------------------------------------------------------------------------------------

EventType = tuple[str, "str | None"]  # (kind, obj); obj None matches any object of the kind


@dataclass(frozen=True)
class Lex:
    """Phrasings of one event type: past tense, base form, past participle, gerund, nouns, counts."""

    past: tuple[str, ...]
    base: tuple[str, ...]
    pp: tuple[str, ...]
    ger: tuple[str, ...]
    noun: tuple[str, ...] = ()
    how_many: tuple[str, ...] = ()


def _an(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _wooden(tool: str) -> str:
    return tool.replace("wood ", "wooden ")


_MINED: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "stone": (("mined stone", "quarried stone", "dug out a stone block"),
              ("mine stone", "quarry stone", "dig out a stone block"),
              ("How many stone blocks did {S} mine", "How many times did {S} quarry stone")),
    "coal": (("mined coal", "dug up coal", "extracted coal"),
             ("mine coal", "dig up coal", "extract coal"),
             ("How many times did {S} mine coal", "How many lumps of coal did {S} dig up")),
    "iron": (("mined iron", "dug out iron ore", "extracted iron"),
             ("mine iron", "dig out iron ore", "extract iron"),
             ("How many times did {S} mine iron", "How many pieces of iron ore did {S} dig out")),
    "diamond": (("mined a diamond", "dug up a diamond", "extracted a diamond"),
                ("mine a diamond", "dig up a diamond", "extract a diamond"),
                ("How many diamonds did {S} mine",)),
}

_HURT_BY: dict[str, tuple[str, ...]] = {
    "zombie": ("got hurt by a zombie", "took damage from a zombie", "got hit by a zombie"),
    "arrow": ("got hit by an arrow", "took damage from an arrow", "got shot by a skeleton's arrow"),
    "hunger": ("lost health to hunger", "took damage from starvation"),
    "thirst": ("lost health to thirst", "took damage from dehydration"),
    "exhaustion": ("lost health to exhaustion", "took damage from lack of energy"),
}


def _hurt_forms(past: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    def base(p: str) -> str:
        return p.replace("got ", "get ", 1).replace("took ", "take ", 1).replace("lost ", "lose ", 1)

    def pp(p: str) -> str:
        return p.replace("got ", "gotten ", 1).replace("took ", "taken ", 1)

    def ger(p: str) -> str:
        return p.replace("got ", "getting ", 1).replace("took ", "taking ", 1).replace("lost ", "losing ", 1)

    return tuple(base(p) for p in past), tuple(pp(p) for p in past), tuple(ger(p) for p in past)


def lex_for(kind: str, obj: str | None) -> Lex | None:
    """The phrasings of an event type, or None when the suite does not ask about it."""
    if kind == "chop":
        return Lex(("chopped a tree", "cut down a tree", "felled a tree", "got wood from a tree"),
                   ("chop a tree", "cut down a tree", "fell a tree", "get wood from a tree"),
                   ("chopped a tree", "cut down a tree", "felled a tree"),
                   ("chopping a tree", "cutting down a tree", "felling a tree"),
                   ("tree chop", "felled tree"),
                   ("How many trees did {S} chop", "How many trees did {S} cut down",
                    "How many times did {S} get wood from a tree"))
    if kind == "mine" and obj in _MINED:
        past, base, how = _MINED[obj]
        return Lex(past, base, past, tuple("mining " + p.split(" ", 1)[1] if p.startswith("mine ")
                                           else p.replace("dig ", "digging ").replace("quarry ", "quarrying ")
                                           .replace("extract ", "extracting ") for p in base),
                   ((obj + " find",) if obj != "stone" else ()), how)
    if kind == "mine" and obj is None:
        return Lex(("mined something", "mined anything with a pickaxe"),
                   ("mine anything", "mine something with a pickaxe"),
                   ("mined anything", "mined something with a pickaxe"),
                   ("mining anything",), (),
                   ("How many times did {S} mine anything (stone, coal, iron or diamond)",
                    "How many blocks of any kind did {S} mine"))
    if kind == "forage":
        return Lex(("found a sapling", "foraged a sapling", "picked up a sapling",
                    "collected a sapling from the grass"),
                   ("find a sapling", "forage a sapling", "pick up a sapling", "collect a sapling from the grass"),
                   ("found a sapling", "foraged a sapling", "picked up a sapling"),
                   ("finding a sapling", "foraging a sapling", "picking up a sapling"),
                   ("sapling find",),
                   ("How many saplings did {S} find", "How many saplings did {S} forage from the grass"))
    if kind == "drink":
        return Lex(("drank water", "had a drink", "drank from a lake", "took a sip of water"),
                   ("drink water", "have a drink", "drink from a lake", "take a sip of water"),
                   ("drunk water", "had a drink", "taken a sip of water"),
                   ("drinking water", "having a drink"),
                   ("drink of water", "sip of water"),
                   ("How many sips of water did {S} take", "How many times did {S} drink water",
                    "How many drinks did {S} have"))
    if kind == "eat" and obj == "cow":
        return Lex(("ate a cow", "ate beef", "killed and ate a cow", "had a cow for a meal"),
                   ("eat a cow", "eat beef", "kill and eat a cow"),
                   ("eaten a cow", "eaten beef"),
                   ("eating a cow", "eating beef"),
                   ("cow meal", "beef meal"),
                   ("How many cows did {S} eat", "How many cow meals did {S} have"))
    if kind == "eat" and obj == "plant":
        return Lex(("ate a ripe plant", "ate from a plant"), ("eat a ripe plant", "eat from a plant"),
                   ("eaten a ripe plant",), ("eating a ripe plant",), ("plant meal",),
                   ("How many ripe plants did {S} eat",))
    if kind == "slay" and obj in ("zombie", "skeleton"):
        return Lex((f"killed a {obj}", f"slew a {obj}", f"defeated a {obj}", f"took down a {obj}"),
                   (f"kill a {obj}", f"slay a {obj}", f"defeat a {obj}", f"take down a {obj}"),
                   (f"killed a {obj}", f"slain a {obj}", f"defeated a {obj}"),
                   (f"killing a {obj}", f"slaying a {obj}", f"defeating a {obj}"),
                   (f"{obj} kill",),
                   (f"How many {obj}s did {{S}} kill", f"How many {obj}s did {{S}} slay"))
    if kind == "slay" and obj is None:
        return Lex(("killed a monster", "killed a zombie or a skeleton"),
                   ("kill a monster", "kill a zombie or a skeleton"),
                   ("killed a monster", "killed a zombie or a skeleton"),
                   ("killing a monster",), ("monster kill",),
                   ("How many monsters (zombies and skeletons together) did {S} kill",))
    if kind == "strike" and obj in ("cow", "zombie", "skeleton"):
        return Lex((f"hit a {obj}", f"struck a {obj}", f"landed a blow on a {obj}", f"attacked a {obj}"),
                   (f"hit a {obj}", f"strike a {obj}", f"land a blow on a {obj}", f"attack a {obj}"),
                   (f"hit a {obj}", f"struck a {obj}", f"attacked a {obj}"),
                   (f"hitting a {obj}", f"striking a {obj}", f"attacking a {obj}"),
                   (f"blow against a {obj}", f"hit on a {obj}"),
                   (f"How many blows did {{S}} land on {obj}s", f"How many times did {{S}} hit a {obj}"))
    if kind == "strike" and obj is None:
        return Lex(("hit a creature", "struck a creature", "attacked a creature"),
                   ("hit a creature", "strike a creature", "attack a creature"),
                   ("hit a creature", "struck a creature"),
                   ("hitting a creature", "attacking a creature"), ("blow",),
                   ("How many blows did {S} strike against any creature",
                    "How many times did {S} hit a creature"))
    if kind == "craft" and obj:
        return Lex((f"crafted {_an(obj)}", f"made {_an(_wooden(obj))}"),
                   (f"craft {_an(obj)}", f"make {_an(_wooden(obj))}"),
                   (f"crafted {_an(obj)}", f"made {_an(_wooden(obj))}"),
                   (f"crafting {_an(obj)}", f"making {_an(_wooden(obj))}"), (),
                   (f"How many {obj}s did {{S}} craft", f"How many {_wooden(obj)}s did {{S}} make"))
    if kind == "craft" and obj is None:
        return Lex(("crafted a tool", "made a tool at a table"), ("craft a tool", "make a tool at a table"),
                   ("crafted a tool", "made a tool at a table"), ("crafting a tool",), ("crafted tool",),
                   ("How many tools did {S} craft", "How many tools (pickaxes and swords) did {S} make"))
    if kind == "build" and obj == "table":
        return Lex(("built a crafting table", "placed a crafting table", "set up a workbench", "put down a table"),
                   ("build a crafting table", "place a crafting table", "set up a workbench", "put down a table"),
                   ("built a crafting table", "placed a crafting table", "set up a workbench"),
                   ("building a crafting table", "setting up a workbench"), (),
                   ("How many crafting tables did {S} build", "How many workbenches did {S} set up"))
    if kind == "build" and obj == "furnace":
        return Lex(("built a furnace", "placed a furnace", "set up a furnace"),
                   ("build a furnace", "place a furnace", "set up a furnace"),
                   ("built a furnace", "placed a furnace", "set up a furnace"),
                   ("building a furnace", "setting up a furnace"), (),
                   ("How many furnaces did {S} build",))
    if kind == "plant":
        return Lex(("planted a sapling", "put a sapling in the ground", "sowed a sapling"),
                   ("plant a sapling", "put a sapling in the ground", "sow a sapling"),
                   ("planted a sapling", "sown a sapling"),
                   ("planting a sapling", "sowing a sapling"), (),
                   ("How many saplings did {S} plant", "How many saplings did {S} put in the ground"))
    if kind == "place":
        return Lex(("placed a stone", "put down a stone block", "laid a stone"),
                   ("place a stone", "put down a stone block", "lay a stone"),
                   ("placed a stone", "put down a stone block", "laid a stone"),
                   ("placing a stone", "laying a stone"), (),
                   ("How many stones did {S} place", "How many stone blocks did {S} put down"))
    if kind == "hurt" and obj is None:
        return Lex(("took damage", "got hurt", "lost health"), ("take damage", "get hurt", "lose health"),
                   ("taken damage", "gotten hurt", "lost health"), ("taking damage", "getting hurt"), (),
                   ("How many times did {S} take damage", "How many times did {S} get hurt"))
    if kind == "hurt" and obj in _HURT_BY:
        past = _HURT_BY[obj]
        base, pp, ger = _hurt_forms(past)
        return Lex(past, base, pp, ger, (), tuple(f"How many times did {{S}} {b}" for b in base))
    if kind == "heal":
        return Lex(("regained health", "healed", "recovered a health point"),
                   ("regain health", "heal", "recover a health point"),
                   ("regained health", "healed", "recovered a health point"),
                   ("regaining health", "healing"), (),
                   ("How many times did {S} regain health", "How many times did {poss} health go up"))
    if kind == "fall asleep":
        return Lex(("fell asleep", "went to sleep", "dozed off", "nodded off"),
                   ("fall asleep", "go to sleep", "doze off"),
                   ("fallen asleep", "gone to sleep", "dozed off"),
                   ("falling asleep", "going to sleep"), ("nap",),
                   ("How many times did {S} fall asleep", "How many naps did {S} take"))
    if kind == "wake up":
        return Lex(("woke up", "awoke"), ("wake up",), ("woken up",), ("waking up",), (),
                   ("How many times did {S} wake up",))
    if kind == "die" and obj is None:
        return Lex(("died", "lost a life", "perished", "got killed"), ("die", "lose a life", "perish", "get killed"),
                   ("died", "lost a life", "perished"), ("dying", "losing a life"), ("death",),
                   ("How many times did {S} die", "How many lives did {S} lose"))
    if kind == "respawn":
        return Lex(("respawned", "started a new life", "came back after dying"),
                   ("respawn", "start a new life", "come back after dying"),
                   ("respawned", "started a new life"), ("respawning", "starting a new life"), ("respawn",),
                   ("How many times did {S} respawn",))
    if kind == "enter" and obj:
        return Lex((f"entered {obj}", f"went into {obj}", f"crossed into {obj}", f"arrived in {obj}"),
                   (f"enter {obj}", f"go into {obj}", f"cross into {obj}"),
                   (f"entered {obj}", f"gone into {obj}"),
                   (f"entering {obj}", f"crossing into {obj}"), (),
                   (f"How many times did {{S}} enter {obj}", f"How many times did {{S}} cross into {obj}"))
    if kind == "enter" and obj is None:
        return Lex(("crossed into another sector", "changed sectors", "moved into a different sector"),
                   ("cross into another sector", "change sectors", "move into a different sector"),
                   ("crossed into another sector", "changed sectors"),
                   ("changing sectors", "crossing a sector border"), ("sector change", "border crossing"),
                   ("How many times did {S} change sectors", "How many sector borders did {S} cross"))
    if kind == "unlock" and obj:
        return Lex((f"unlocked the '{obj}' achievement", f"earned the '{obj}' achievement"),
                   (f"unlock the '{obj}' achievement", f"earn the '{obj}' achievement"),
                   (f"unlocked the '{obj}' achievement", f"earned the '{obj}' achievement"),
                   (f"unlocking the '{obj}' achievement",), (),
                   (f"How many times did {{S}} unlock the '{obj}' achievement",))
    if kind == "unlock" and obj is None:
        return Lex(("unlocked an achievement", "earned an achievement"),
                   ("unlock an achievement", "earn an achievement"),
                   ("unlocked an achievement", "earned an achievement"), ("unlocking an achievement",), (),
                   ("How many achievements did {S} unlock", "How many achievement unlocks did {S} get"))
    return None


#: Kinds asked about as a whole ("how many times did I mine anything").
GROUP_KINDS = ("mine", "strike", "slay", "craft", "hurt", "enter", "die", "heal", "fall asleep", "wake up",
               "respawn")
#: Kinds where one step may hold several events of the kind: never asked about by occurrence number.
MULTI_KINDS = ("unlock",)
#: How interesting an event type is to ask about (frequent bookkeeping events are asked about less).
KIND_WEIGHT = {"chop": 3, "mine": 3, "forage": 2, "drink": 3, "eat": 3, "slay": 3, "strike": 1.5, "craft": 3,
               "build": 3, "plant": 2, "place": 2, "hurt": 2, "heal": 0.7, "fall asleep": 2, "wake up": 1.5,
               "die": 3, "respawn": 2, "enter": 1.2, "unlock": 1}
#: Event types plausible in any Crafter life, used for questions whose true answer is "no".
PLAUSIBLE: tuple[tuple[str, str | None], ...] = (
    ("mine", "diamond"), ("mine", "iron"), ("mine", "coal"), ("craft", "iron pickaxe"), ("craft", "iron sword"),
    ("craft", "stone pickaxe"), ("craft", "stone sword"), ("build", "furnace"), ("build", "table"),
    ("eat", "plant"), ("eat", "cow"), ("slay", "skeleton"), ("slay", "zombie"), ("die", None),
    ("place", "stone"), ("hurt", "thirst"), ("hurt", "hunger"), ("hurt", "arrow"), ("fall asleep", None),
    ("plant", "sapling"), ("drink", "water"), ("chop", "tree"), ("forage", "sapling"), ("respawn", None))

ITEMS = ("sapling", "wood", "stone", "coal", "iron", "diamond", "wood_pickaxe", "stone_pickaxe",
         "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")
ITEM_HOW_MANY = {
    "wood": ("How much wood", "How many pieces of wood", "How many units of wood"),
    "stone": ("How much stone", "How many stones", "How many stone blocks"),
    "coal": ("How much coal", "How many lumps of coal"),
    "iron": ("How much iron", "How many pieces of iron"),
    "diamond": ("How many diamonds",),
    "sapling": ("How many saplings",),
    "wood_pickaxe": ("How many wood pickaxes", "How many wooden pickaxes"),
    "stone_pickaxe": ("How many stone pickaxes",),
    "iron_pickaxe": ("How many iron pickaxes",),
    "wood_sword": ("How many wood swords", "How many wooden swords"),
    "stone_sword": ("How many stone swords",),
    "iron_sword": ("How many iron swords",),
}
ITEM_PLURAL = {"wood": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamonds",
               "sapling": "saplings", "wood_pickaxe": "wood pickaxes", "stone_pickaxe": "stone pickaxes",
               "iron_pickaxe": "iron pickaxes", "wood_sword": "wood swords", "stone_sword": "stone swords",
               "iron_sword": "iron swords"}
STAT_WORDS = {"health": ("health", "HP", "health level"), "food": ("food level", "food bar", "food meter"),
              "drink": ("drink level", "water meter", "drink stat"), "energy": ("energy", "energy level", "energy bar")}

SUBJECTS: tuple[dict[str, str], ...] = (
    {"S": "I", "be": "was", "have": "have", "poss": "my", "objp": "me"},
    {"S": "we", "be": "were", "have": "have", "poss": "our", "objp": "us"},
    {"S": "you", "be": "were", "have": "have", "poss": "your", "objp": "you"},
    {"S": "the agent", "be": "was", "have": "has", "poss": "the agent's", "objp": "the agent"},
    {"S": "the forager", "be": "was", "have": "has", "poss": "the forager's", "objp": "the forager"},
)
SUBJECT_WEIGHTS = (0.4, 0.1, 0.15, 0.25, 0.1)

ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
            "tenth", "eleventh", "twelfth")
NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _digits_ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ------------------------------------------------------------------------------------------------
# The reference evaluator and the question writer.
# ------------------------------------------------------------------------------------------------

FAMILIES = ("1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence")
VALUE_SLOTS = ("action", "location", "position", "item", "inventory", "state", "facing", "events")


@dataclass(frozen=True)
class Occ:
    """One event occurrence: its step and its kind/object."""

    t: int
    kind: str
    obj: str

    @property
    def text(self) -> str:
        return f"{self.kind} {self.obj}".strip()


def _fmt_scalar(value: int | float | bool | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


class Evaluator:
    """Answers computed by scanning Step records only."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.n = len(steps)
        self.occ = [Occ(s.t, e.kind, e.obj) for s in steps for e in s.events]

    def gid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def find(self, typ: EventType, lo: int = 0, hi: int | None = None) -> list[Occ]:
        """Occurrences of an event type with lo <= t <= hi, in order."""
        hi = self.n - 1 if hi is None else hi
        kind, obj = typ
        return [o for o in self.occ if o.kind == kind and (obj is None or o.obj == obj) and lo <= o.t <= hi]

    def nth(self, typ: EventType, n: int, lo: int = 0, hi: int | None = None) -> Occ | None:
        """The n-th occurrence (1-based; -1 the last, -2 the second-to-last) within a window."""
        found = self.find(typ, lo, hi)
        if n > 0:
            return found[n - 1] if len(found) >= n else None
        return found[n] if len(found) >= -n else None

    def value(self, t: int, slot: str, arg: str | None = None) -> str:
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "step":
            return str(t)
        if slot == "location":
            if s.location.region:
                return s.location.region
            slot = "position"
        if slot == "position":
            assert s.location.position is not None
            return f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "item":
            assert arg is not None
            return str(s.inventory_dict.get(arg, 0))
        if slot == "inventory":
            held = [(k, v) for k, v in sorted(s.inventory) if v > 0]
            return ", ".join(f"{k} {v}" for k, v in held) or "none"
        if slot == "state":
            assert arg is not None
            return _fmt_scalar(s.state_dict[arg])
        if slot == "facing":
            return next(r.obj for r in s.relations if r.subject == "agent" and r.predicate == "facing")
        if slot == "events":
            return "; ".join(f"{e.kind} {e.obj}".strip() for e in s.events) or "none"
        raise ValueError(slot)

    def item_series(self, item: str) -> list[int]:
        return [s.inventory_dict.get(item, 0) for s in self.steps]

    def state_series(self, name: str) -> list:
        return [s.state_dict[name] for s in self.steps]


class Writer:
    """Draws 60 questions (6 per family) for one episode and answers them with the Evaluator."""

    def __init__(self, ev: Evaluator, seed: int) -> None:
        self.ev = ev
        self.rng = random.Random(seed * 1009 + 7)
        self.texts: set[str] = set()
        self.keys: set[tuple] = set()
        self.out: list[dict] = []
        self.slot_cycle: list[str] = []
        counts: dict[EventType, int] = {}
        for o in ev.occ:
            counts[(o.kind, o.obj)] = counts.get((o.kind, o.obj), 0) + 1
            if o.kind in GROUP_KINDS:
                counts[(o.kind, None)] = counts.get((o.kind, None), 0) + 1
        self.counts = {k: v for k, v in counts.items() if lex_for(*k) is not None}
        # Kinds whose object is always "" are the same type with or without the object.
        for kind in ("heal", "fall asleep", "wake up", "respawn"):
            self.counts.pop((kind, ""), None)

    # -- wording helpers ----------------------------------------------------------------------------

    def pick(self, seq: Sequence):
        return seq[self.rng.randrange(len(seq))]

    def subject(self) -> dict[str, str]:
        return self.rng.choices(SUBJECTS, SUBJECT_WEIGHTS)[0]

    def ordinal(self, n: int) -> str:
        if n < len(ORDINALS) and self.rng.random() < 0.75:
            return ORDINALS[n]
        return _digits_ordinal(n)

    def number(self, k: int) -> str:
        if k < len(NUMBERS) and self.rng.random() < 0.5:
            return NUMBERS[k]
        return str(k)

    def finish(self, template: str, subj: dict[str, str], **kw: str) -> str:
        text = template
        for _ in range(3):  # clauses may themselves hold placeholders
            text = text.format(**subj, **kw)
        name = subj["S"]
        if name.startswith("the "):
            i = text.find(name)
            if i >= 0:
                head, tail = text[: i + len(name)], text[i + len(name):]
                text = head + tail.replace(name + "'s", "its").replace(name, "it")
        text = " ".join(text.split())
        return text[0].upper() + text[1:]

    @staticmethod
    def front(frame: str, when: str) -> str:
        """Put the time clause first: 'The third time I drank water, where was I?'."""
        rest = frame.replace(" {when}", "")
        if not rest.startswith("{S}") and not rest.startswith("I "):
            rest = rest[0].lower() + rest[1:]
        return when + ", " + rest

    def compose(self, frame: str, when: str, front_p: float = 0.3) -> str:
        if self.rng.random() < front_p:
            return self.front(frame, when)
        return frame.replace("{when}", when)

    def lex(self, typ: EventType) -> Lex:
        lx = lex_for(*typ)
        assert lx is not None
        return lx

    def emit(self, family: str, slot: str, question: str, answer: str, gold: Iterable[int],
             key: tuple | None = None) -> bool:
        """Record a question unless its text, or the thing it asks (``key``), was asked already."""
        if question in self.texts or (key is not None and (family, slot, key) in self.keys):
            return False
        self.texts.add(question)
        if key is not None:
            self.keys.add((family, slot, key))
        ids = [self.ev.gid(t) for t in sorted(set(gold))]
        self.out.append({"episode": self.ev.episode, "family": family, "slot": slot, "question": question,
                         "answer": answer, "gold": ids})
        return True

    # -- choosing things to ask about ---------------------------------------------------------------

    def types(self, min_count: int = 1, specific: bool = False, kinds: Iterable[str] | None = None,
              exclude_multi: bool = True) -> list[EventType]:
        allowed = set(kinds) if kinds is not None else None
        out = []
        for typ, c in self.counts.items():
            if c < min_count or (specific and typ[1] is None):
                continue
            if exclude_multi and typ[0] in MULTI_KINDS:
                continue
            if allowed is not None and typ[0] not in allowed:
                continue
            out.append(typ)
        return sorted(out, key=lambda k: (k[0], k[1] or ""))

    def pick_type(self, candidates: Sequence[EventType]) -> EventType:
        weights = [KIND_WEIGHT.get(k[0], 1.0) * (0.7 if k[1] is None else 1.0) for k in candidates]
        return self.rng.choices(list(candidates), weights)[0]

    def pick_n(self, count: int) -> int:
        options, weights = [1], [3.0]
        if count >= 2:
            options += [2, -1]
            weights += [2.5, 2.0]
        if count >= 3:
            options += list(range(3, min(count, 8) + 1)) + [-2]
            weights += [3.0 / (min(count, 8) - 2)] * (min(count, 8) - 2) + [1.0]
        return self.rng.choices(options, weights)[0]

    def item_for(self, t: int, typ: EventType | None = None) -> str:
        inv = self.ev.steps[t].inventory_dict
        related = {"chop": "wood", "forage": "sapling", "plant": "sapling", "place": "stone"}
        if typ is not None:
            if typ[0] == "mine" and typ[1] in ITEMS and self.rng.random() < 0.5:
                return typ[1]  # type: ignore[return-value]
            if typ[0] == "craft" and typ[1] and self.rng.random() < 0.5:
                return typ[1].replace(" ", "_")
            if typ[0] in related and self.rng.random() < 0.5:
                return related[typ[0]]
        held = [k for k in ITEMS if inv.get(k, 0) > 0]
        if held and self.rng.random() < 0.8:
            return self.pick(held)
        return self.pick(ITEMS)

    def state_for(self, avoid: str | None = None) -> str:
        while True:
            name = self.rng.choices(("health", "food", "drink", "energy", "daylight", "sleeping", "life"),
                                    (3, 2.5, 2.5, 2.5, 0.8, 0.8, 0.8))[0]
            if name != avoid:
                return name

    # -- phrasings of occurrences -------------------------------------------------------------------

    def occ_when(self, typ: EventType, n: int) -> str:
        """A time clause naming the n-th occurrence: 'the third time {S} drank water'."""
        lx = self.lex(typ)
        past = self.pick(lx.past)
        noun = self.pick(lx.noun) if lx.noun else None
        if n == 1:
            opts = ["the first time {S} " + past, "when {S} first " + past, "the moment {S} first " + past]
            if noun:
                opts.append("at {poss} first " + noun)
        elif n == 2:
            opts = ["the second time {S} " + past, "when {S} " + past + " for the second time",
                    "when {S} " + past + " again", "the 2nd time {S} " + past]
            if noun:
                opts.append("at {poss} second " + noun)
        elif n > 2:
            o = self.ordinal(n)
            opts = [f"the {o} time {{S}} " + past, "when {S} " + past + f" for the {o} time"]
            if noun:
                opts.append(f"at {{poss}} {o} " + noun)
        elif n == -1:
            opts = ["the last time {S} " + past, "when {S} " + past + " for the last time",
                    "the final time {S} " + past]
            if noun:
                opts.append("at {poss} last " + noun)
        else:
            opts = ["the second-to-last time {S} " + past, "the next-to-last time {S} " + past,
                    "the penultimate time {S} " + past]
        return self.pick(opts)

    def anchor(self, typ: EventType, n: int) -> str:
        """An occurrence as the object of 'after'/'before': '{S} first built a crafting table'."""
        lx = self.lex(typ)
        past = self.pick(lx.past)
        noun = self.pick(lx.noun) if lx.noun else None
        if n == 1:
            opts = ["{S} first " + past]
        elif n == -1:
            opts = ["{S} " + past + " for the last time"]
        elif n == -2:
            opts = ["{S} " + past + " for the second-to-last time"]
        else:
            opts = ["{S} " + past + f" for the {self.ordinal(n)} time"]
        if noun and n in (1, 2, 3, 4, 5, -1):
            word = "last" if n == -1 else self.ordinal(n)
            opts.append(f"{{poss}} {word} " + noun)
        return self.pick(opts)

    def occ_np(self, typ: EventType, n: int) -> str:
        """An occurrence as a noun phrase: 'the first time {S} chopped a tree' / '{poss} second cow meal'."""
        lx = self.lex(typ)
        if lx.noun and self.rng.random() < 0.4 and n in (1, 2, 3, 4, 5, -1):
            word = "last" if n == -1 else self.ordinal(n)
            return f"{{poss}} {word} " + self.pick(lx.noun)
        past = self.pick(lx.past)
        if n == -1:
            return "the last time {S} " + past
        if n == -2:
            return "the second-to-last time {S} " + past
        return f"the {self.ordinal(n)} time {{S}} " + past

    def step_question(self, typ: EventType, n: int) -> str:
        lx = self.lex(typ)
        base, past = self.pick(lx.base), self.pick(lx.past)
        noun = self.pick(lx.noun) if lx.noun else None
        if n == 1:
            opts = ["At which step did {S} first " + base + "?", "When did {S} first " + base + "?",
                    "Give the step at which {S} " + past + " for the first time."]
            if noun:
                opts.append("What was the step number of {poss} first " + noun + "?")
        elif n == 2:
            opts = ["At which step did {S} " + base + " for the second time?",
                    "When did {S} " + base + " again?", "What step was it when {S} " + past + " for the 2nd time?"]
            if noun:
                opts.append("Tell me the step of {poss} second " + noun + ".")
        elif n > 2:
            o = self.ordinal(n)
            opts = ["At which step did {S} " + base + f" for the {o} time?",
                    "When did {S} " + base + f" for the {o} time?"]
            if noun:
                opts.append(f"Tell me the step of {{poss}} {o} " + noun + ".")
        elif n == -1:
            opts = ["When did {S} last " + base + "?", "At which step did {S} " + base + " for the last time?",
                    "What was the final step at which {S} " + past + "?"]
            if noun:
                opts.append("What was the step of {poss} last " + noun + "?")
        else:
            opts = ["At which step did {S} " + base + " for the second-to-last time?",
                    "When was the penultimate time {S} " + past + "?"]
        return self.pick(opts)

    def slot_frames(self, slot: str, arg: str | None) -> tuple[str, ...]:
        if slot == "action":
            return ("Which action did {S} take {when}?", "What action did {S} choose {when}?",
                    "Which Crafter action did {S} issue {when}?", "Tell me the action {S} performed {when}.")
        if slot == "location":
            return ("Which sector {be} {S} in {when}?", "Where {be} {S} {when}? Name the sector.",
                    "In which sector of the map {be} {S} {when}?", "What region of the map {be} {S} in {when}?")
        if slot == "position":
            return ("What were {poss} coordinates {when}?", "Give {poss} (x, y) position {when}.",
                    "At which grid cell {be} {S} standing {when}?", "What was {poss} exact position {when}?")
        if slot == "item":
            assert arg is not None
            hm = self.pick(ITEM_HOW_MANY[arg])
            name = arg.replace("_", " ")
            return (hm + " did {S} have {when}?", hm + " did {S} carry {when}?",
                    hm + " {be} {S} holding {when}?", "What was {poss} " + name + " count {when}?")
        if slot == "inventory":
            return ("What was in {poss} inventory {when}?", "List everything {S} {be} carrying {when}.",
                    "What did {S} have in {poss} inventory {when}?",
                    "Give the full contents of {poss} inventory {when}.")
        if slot == "state":
            assert arg is not None
            if arg in STAT_WORDS:
                w = self.pick(STAT_WORDS[arg])
                frames = ["What was {poss} " + w + " {when}?", "What did {poss} " + w + " read {when}?"]
                if arg == "health":
                    frames += ["How many health points did {S} have {when}?"]
                if arg == "energy":
                    frames += ["How much energy did {S} have {when}?"]
                return tuple(frames)
            if arg == "daylight":
                return ("What was the daylight level {when}?",
                        "What was the daylight value (0 = dark, 1 = full day) {when}?")
            if arg == "sleeping":
                return ("True or false: {S} {be} asleep {when}.", "{be} {S} asleep {when}? Answer true or false.")
            if arg == "life":
                return ("Which life {be} {S} on {when}?", "What was {poss} life number {when} (1 = the first life)?")
        if slot == "facing":
            return ("What {be} {S} facing {when}?", "What was directly in front of {objp} {when}?",
                    "What did {S} have right in front of {objp} {when}?")
        if slot == "events":
            return ("What events were recorded {when}?", "Which events did the log show {when}?",
                    "List every event logged {when}.")
        raise ValueError(slot)

    def value_question(self, family: str, slot: str, t: int, when: str, typ: EventType | None,
                       gold: Iterable[int], front_p: float = 0.3, key: tuple | None = None,
                       avoid: str | None = None) -> bool:
        """Ask for a value slot at step t, with a time clause (``avoid``: a state or item not to ask)."""
        arg = None
        if slot == "item":
            arg = self.item_for(t, typ)
            if arg == avoid:
                return False
        elif slot == "state":
            arg = self.state_for(avoid)
        subj = self.subject()
        frame = self.pick(self.slot_frames(slot, arg))
        question = self.finish(self.compose(frame, when, front_p), subj)
        return self.emit(family, slot, question, self.ev.value(t, slot, arg), gold,
                         None if key is None else key + (arg,))

    def action_types(self, candidates: Sequence[EventType]) -> list[EventType]:
        varied = [c for c in candidates if c[0] in ("enter", "build", "craft", "plant", "place", "hurt", "heal",
                                                     "fall asleep", "wake up", "die", "respawn")]
        return varied or list(candidates)

    def value_slots(self, k: int) -> list[str]:
        """k distinct value slots, drawn from one shuffled cycle shared by all families (even coverage)."""
        out: list[str] = []
        while len(out) < k:
            if not self.slot_cycle:
                self.slot_cycle = list(VALUE_SLOTS)
                self.rng.shuffle(self.slot_cycle)
            i = next((j for j, s in enumerate(self.slot_cycle) if s not in out), None)
            if i is None:
                fresh = [s for s in VALUE_SLOTS if s not in out]
                self.slot_cycle = fresh + self.slot_cycle
                i = 0
            out.append(self.slot_cycle.pop(i))
        return out

    def slot_plan(self, steps: int) -> list[str]:
        plan = ["step"] * steps + self.value_slots(6 - steps)
        self.rng.shuffle(plan)
        return plan

    def run(self, family: str, plan: Sequence[str], attempt: Callable[[str], bool]) -> None:
        made = 0
        for slot in plan:
            for _ in range(200):
                if attempt(slot):
                    made += 1
                    break
            else:
                raise RuntimeError(f"{self.ev.episode}: could not write a {family} question for slot {slot}")
        assert made == 6

    # -- families -----------------------------------------------------------------------------------

    def f1_step_index(self) -> None:
        fam = FAMILIES[0]
        plan = self.slot_plan(0)

        def attempt(slot: str) -> bool:
            t = self.rng.randrange(3, self.ev.n)
            if slot == "events" and not self.ev.steps[t].events and self.rng.random() < 0.85:
                return False
            when = self.pick(("at step {t}", "at step {t}", "at time step {t}", "at t = {t}")).replace("{t}", str(t))
            return self.value_question(fam, slot, t, when, None, [t], front_p=0.35)

        self.run(fam, plan, attempt)

    def f2_nth(self) -> None:
        fam = FAMILIES[1]
        plan = self.slot_plan(1)

        def attempt(slot: str) -> bool:
            cands = self.types()
            if slot == "action":
                cands = self.action_types(cands)
            if slot == "location":
                cands = [c for c in cands if c[0] != "enter"]
            typ = self.pick_type(cands)
            n = self.pick_n(self.counts[typ])
            o = self.ev.nth(typ, n)
            assert o is not None
            if slot == "step":
                q = self.finish(self.step_question(typ, n), self.subject())
                return self.emit(fam, "step", q, str(o.t), [o.t], (o.t,))
            return self.value_question(fam, slot, o.t, self.occ_when(typ, n), typ, [o.t], key=(o.t,))

        self.run(fam, plan, attempt)

    def _window_occurrence(self, typ: EventType) -> tuple[Occ, str, str, str, list[int]] | None:
        """A windowed occurrence: (occ, when-clause, window prefix for fronting, step question, anchors)."""
        lx = self.lex(typ)
        past, base = self.pick(lx.past), self.pick(lx.base)
        n_all = self.ev.n
        mode = self.rng.choices(("first_after", "last_before", "first_between", "last_between", "second_after",
                                 "first_after_anchor", "last_before_anchor"), (3, 3, 2, 1.5, 1, 1.5, 1.2))[0]
        if mode in ("first_after", "second_after"):
            N = self.rng.randrange(20, n_all - 20)
            o = self.ev.nth(typ, 1 if mode == "first_after" else 2, N + 1)
            if o is None:
                return None
            if mode == "first_after":
                when = self.pick(("the first time {S} " + past + f" after step {N}",
                                  "when {S} first " + past + f" after step {N}"))
                inner = self.pick(("the first time {S} " + past, "when {S} first " + past))
                stepq = self.pick((f"After step {N}, when did {{S}} first " + base + "?",
                                   "At which step did {S} first " + base + f" after step {N}?",
                                   f"What is the first step after step {N} at which {{S}} " + past + "?"))
            else:
                when = "the second time {S} " + past + f" after step {N}"
                inner = "the second time {S} " + past
                stepq = f"After step {N}, at which step did {{S}} " + base + " for the second time?"
            return o, when, f"after step {N}|{inner}", stepq, []
        if mode == "last_before":
            N = self.rng.randrange(40, n_all)
            o = self.ev.nth(typ, -1, 0, N - 1)
            if o is None:
                return None
            when = self.pick(("the last time {S} " + past + f" before step {N}",
                              "when {S} last " + past + f" before step {N}"))
            inner = self.pick(("the last time {S} " + past, "when {S} last " + past))
            stepq = self.pick((f"Before step {N}, when did {{S}} last " + base + "?",
                               "At which step did {S} last " + base + f" before step {N}?"))
            return o, when, f"before step {N}|{inner}", stepq, []
        if mode in ("first_between", "last_between"):
            A = self.rng.randrange(0, n_all - 60)
            B = min(n_all - 1, A + self.rng.randrange(50, 400))
            o = self.ev.nth(typ, 1 if mode == "first_between" else -1, A, B)
            if o is None:
                return None
            word = "first" if mode == "first_between" else "last"
            when = f"the {word} time {{S}} " + past + f" between step {A} and step {B}"
            inner = f"the {word} time {{S}} " + past
            stepq = self.pick((f"Between step {A} and step {B}, when did {{S}} {word} " + base + "?",
                               f"At which step did {{S}} {word} " + base + f" between step {A} and step {B}?"))
            return o, when, f"between step {A} and step {B}|{inner}", stepq, []
        # anchored on another event
        others = [c for c in self.types() if c != typ and c[0] != typ[0]]
        if not others:
            return None
        atyp = self.pick_type(others)
        an = self.rng.choice([1, 1, 2, -1]) if self.counts[atyp] >= 2 else 1
        a = self.ev.nth(atyp, an)
        assert a is not None
        anchor = self.anchor(atyp, an)
        if mode == "first_after_anchor":
            o = self.ev.nth(typ, 1, a.t + 1)
            if o is None:
                return None
            when = "the first time {S} " + past + " after " + anchor
            stepq = self.pick(("When did {S} first " + base + " after " + anchor + "?",
                               "After " + anchor + ", at which step did {S} first " + base + "?"))
            return o, when, "", stepq, [a.t]
        o = self.ev.nth(typ, -1, 0, a.t - 1)
        if o is None:
            return None
        when = "the last time {S} " + past + " before " + anchor
        stepq = "When did {S} last " + base + " before " + anchor + "?"
        return o, when, "", stepq, [a.t]

    def f3_windowed(self) -> None:
        fam = FAMILIES[2]
        plan = self.slot_plan(1)

        def attempt(slot: str) -> bool:
            cands = self.types()
            if slot == "action":
                cands = self.action_types(cands)
            if slot == "location":
                cands = [c for c in cands if c[0] != "enter"]
            typ = self.pick_type(cands)
            got = self._window_occurrence(typ)
            if got is None:
                return False
            o, when, prefix, stepq, anchors = got
            subj = self.subject()
            if slot == "step":
                return self.emit(fam, "step", self.finish(stepq, subj), str(o.t), [o.t, *anchors], (o.t,))
            if prefix and self.rng.random() < 0.35:
                window, inner = prefix.split("|")
                arg = self.item_for(o.t, typ) if slot == "item" else self.state_for() if slot == "state" else None
                frame = self.pick(self.slot_frames(slot, arg))
                q = self.finish(window + ", " + self.front_lower(frame.replace("{when}", inner)), subj)
                return self.emit(fam, slot, q, self.ev.value(o.t, slot, arg), [o.t], (o.t, arg))
            return self.value_question(fam, slot, o.t, when, typ, [o.t, *anchors], key=(o.t,))

        self.run(fam, plan, attempt)

    @staticmethod
    def front_lower(text: str) -> str:
        if text.startswith("{S}") or text.startswith("I "):
            return text
        return text[0].lower() + text[1:]

    def _condition(self) -> tuple[int, str, str, str] | None:
        """A value condition: (target step, step question, time clause, the value it is about)."""
        ev = self.ev
        kind = self.rng.choices(("reach", "ran_out", "at_most", "last_full", "asleep", "dark", "last_at_most"),
                                (3, 2, 3, 1.5, 0.7, 0.6, 1))[0]
        if kind == "reach":
            item = self.pick(ITEMS)
            series = ev.item_series(item)
            top = max(series)
            if top == 0:
                return None
            ipl = ITEM_PLURAL[item]
            if "_" in item:
                t = next(i for i, v in enumerate(series) if v >= 1)
                tool = _an(item.replace("_", " "))
                stepq = self.pick(("When did {S} first own " + tool + "?",
                                   "At which step did {S} first have " + tool + " in {poss} inventory?"))
                when = self.pick(("the first time {S} had " + tool + " in {poss} inventory",
                                  "when {S} first owned " + tool))
                return t, stepq, when, item
            k = self.rng.randint(min(2, top), top)
            t = next(i for i, v in enumerate(series) if v >= k)
            name = item
            stepq = self.pick((f"At which step did {{poss}} {name} count first reach {k}?",
                               f"When did {{S}} first have at least {k} {ipl}?",
                               f"What was the first step at which {{S}} held {k} or more {ipl}?"))
            when = self.pick((f"when {{poss}} {name} count first reached {k}",
                              f"the first time {{S}} had at least {k} {ipl}",
                              f"at the first step where {{S}} held {k} or more {ipl}"))
            return t, stepq, when, item
        if kind == "ran_out":
            item = self.pick(("wood", "stone", "coal", "iron", "sapling"))
            series = ev.item_series(item)
            outs = [i for i in range(1, len(series)) if series[i] == 0 and series[i - 1] > 0]
            if not outs:
                return None
            ipl = ITEM_PLURAL[item]
            if self.rng.random() < 0.7 or len(outs) == 1:
                t = outs[0]
                stepq = self.pick(("When did {S} first run out of " + ipl + "?",
                                   f"At which step did {{poss}} {item} first run out?",
                                   f"At which step did {{poss}} {item} count first drop to zero?"))
                when = self.pick(("when {S} first ran out of " + ipl, f"the first time {{poss}} {item} ran out"))
            else:
                t = outs[-1]
                stepq = self.pick(("When did {S} last run out of " + ipl + "?",
                                   "At which step did {S} run out of " + ipl + " for the last time?"))
                when = "the last time {S} ran out of " + ipl
            return t, stepq, when, item
        if kind in ("at_most", "last_at_most"):
            stat = self.pick(tuple(STAT_WORDS))
            series = ev.state_series(stat)
            low = min(series)
            if low >= 8:
                return None
            k = self.rng.randint(max(low, 1), min(7, max(low, 1) + 4))
            hits = [i for i, v in enumerate(series) if v <= k]
            w = self.pick(STAT_WORDS[stat])
            if kind == "at_most":
                t = hits[0]
                stepq = self.pick((f"At which step did {{poss}} {w} first drop to {k} or below?",
                                   f"When was {{poss}} {w} first at {k} or lower?",
                                   f"What was the first step at which {{poss}} {w} was {k} or less?"))
                when = self.pick((f"when {{poss}} {w} first dropped to {k} or below",
                                  f"the first time {{poss}} {w} fell to {k} or lower",
                                  f"at the first step where {{poss}} {w} was at most {k}"))
            else:
                t = hits[-1]
                stepq = self.pick((f"What was the last step at which {{poss}} {w} was {k} or lower?",
                                   f"When was {{poss}} {w} at {k} or below for the last time?"))
                when = f"at the last step where {{poss}} {w} was {k} or lower"
            return t, stepq, when, stat
        if kind == "last_full":
            stat = self.pick(tuple(STAT_WORDS))
            series = ev.state_series(stat)
            if series[-1] == 9 or 9 not in series:
                return None
            t = max(i for i, v in enumerate(series) if v == 9)
            w = self.pick(STAT_WORDS[stat])
            stepq = self.pick((f"What was the last step at which {{poss}} {w} was full (9)?",
                               f"When was {{poss}} {w} at its maximum of 9 for the last time?"))
            when = f"at the last step where {{poss}} {w} was still full (9)"
            return t, stepq, when, stat
        if kind == "asleep":
            series = ev.state_series("sleeping")
            if True not in series:
                return None
            t = series.index(True)
            stepq = self.pick(("At which step {be} {S} asleep for the first time?",
                               "What was the first step at which {S} {be} sleeping?"))
            when = "at the first step where {S} {be} asleep"
            return t, stepq, when, "sleeping"
        dark = [i for i, v in enumerate(ev.state_series("daylight")) if v < 0.2]
        if not dark:
            return None
        t = dark[0]
        stepq = self.pick(("At which step did the daylight level first drop below 0.2?",
                           "When did it first get dark, with daylight under 0.2?"))
        when = "when the daylight level first fell below 0.2"
        return t, stepq, when, "daylight"

    def f4_condition(self) -> None:
        fam = FAMILIES[3]
        plan = self.slot_plan(3)

        def attempt(slot: str) -> bool:
            got = self._condition()
            if got is None:
                return False
            t, stepq, when, about = got
            if slot == "step":
                return self.emit(fam, "step", self.finish(stepq, self.subject()), str(t), [t], (t,))
            return self.value_question(fam, slot, t, when, None, [t], key=(t,), avoid=about)

        self.run(fam, plan, attempt)

    def f5_offset(self) -> None:
        fam = FAMILIES[4]
        plan = self.slot_plan(0)

        def attempt(slot: str) -> bool:
            typ = self.pick_type(self.types())
            n = self.pick_n(self.counts[typ])
            a = self.ev.nth(typ, n)
            assert a is not None
            k = self.rng.randint(1, 8)
            after = self.rng.random() < 0.6
            t = a.t + k if after else a.t - k
            if not 0 <= t < self.ev.n:
                return False
            ktext = ("one step" if self.rng.random() < 0.5 else "1 step") if k == 1 else f"{self.number(k)} steps"
            when = f"{ktext} {'after' if after else 'before'} " + self.anchor(typ, n)
            return self.value_question(fam, slot, t, when, None, [a.t, t], front_p=0.35, key=(t,))

        self.run(fam, plan, attempt)

    def f6_next_previous(self) -> None:
        fam = FAMILIES[5]
        plan = self.slot_plan(2)

        def attempt(slot: str) -> bool:
            cands = self.types()
            atyp = self.pick_type(cands)
            an = self.pick_n(self.counts[atyp])
            a = self.ev.nth(atyp, an)
            assert a is not None
            xs = [c for c in cands if c[0] != atyp[0]]
            if slot == "action":
                xs = self.action_types(xs)
            if slot == "location":
                xs = [c for c in xs if c[0] != "enter"]
            typ = self.pick_type(xs)
            nxt = self.rng.random() < 0.55
            o = self.ev.nth(typ, 1, a.t + 1) if nxt else self.ev.nth(typ, -1, 0, a.t - 1)
            if o is None:
                return False
            lx = self.lex(typ)
            past, base, pp = self.pick(lx.past), self.pick(lx.base), self.pick(lx.pp)
            anchor = self.anchor(atyp, an)
            if slot == "step":
                if nxt:
                    q = self.pick(("After " + anchor + ", when did {S} next " + base + "?",
                                   "When did {S} next " + base + " after " + anchor + "?",
                                   "At which step did {S} " + base + " next, after " + anchor + "?"))
                else:
                    q = self.pick(("Before " + anchor + ", when had {S} last " + pp + "?",
                                   "When did {S} last " + base + " before " + anchor + "?",
                                   "At which step was the previous time {S} " + past + ", before " + anchor + "?"))
                return self.emit(fam, "step", self.finish(q, self.subject()), str(o.t), [a.t, o.t], (a.t, o.t))
            if nxt:
                when = self.pick(("the next time {S} " + past + " after " + anchor,
                                  "when {S} next " + past + " after " + anchor))
            else:
                when = self.pick(("the last time {S} " + past + " before " + anchor,
                                  "the previous time {S} " + past + " before " + anchor))
            return self.value_question(fam, slot, o.t, when, typ, [a.t, o.t], front_p=0.25, key=(o.t,))

        self.run(fam, plan, attempt)

    def _window(self, whole: Sequence[str] = ("", "in total", "over the whole episode", "during the whole run")
                ) -> tuple[int, int, str, list[int]]:
        """A window of steps: (lo, hi, phrase, anchor steps); lo..hi inclusive."""
        n_all = self.ev.n
        mode = self.rng.choices(("all", "before", "by", "after", "between", "first_n", "before_anchor",
                                 "after_anchor"), (2, 1.5, 1.2, 1.5, 2, 1, 1.2, 1.2))[0]
        if mode == "all":
            return 0, n_all - 1, self.pick(whole), []
        if mode in ("before", "by", "after"):
            N = self.rng.randrange(60, n_all - 60)
            if mode == "before":
                return 0, N - 1, f"before step {N}", []
            if mode == "by":
                return 0, N, self.pick((f"by step {N}", f"up to and including step {N}", f"as of step {N}")), []
            return N + 1, n_all - 1, f"after step {N}", []
        if mode == "between":
            A = self.rng.randrange(0, n_all - 100)
            B = min(n_all - 1, A + self.rng.randrange(80, 500))
            return A, B, f"between step {A} and step {B}", []
        if mode == "first_n":
            N = self.rng.choice((100, 150, 200, 250, 300, 400, 500, 600))
            return 0, N - 1, self.pick((f"in the first {N} steps", f"during the first {N} steps")), []
        atyp = self.pick_type(self.types())
        an = self.pick_n(self.counts[atyp])
        a = self.ev.nth(atyp, an)
        assert a is not None
        anchor = self.anchor(atyp, an)
        if mode == "before_anchor":
            return 0, a.t - 1, "before " + anchor, [a.t]
        return a.t + 1, n_all - 1, "after " + anchor, [a.t]

    def f7_count(self) -> None:
        fam = FAMILIES[6]
        zero_made = [0]
        used: list[EventType] = []

        def attempt(_: str) -> bool:
            typ = self.pick_type(self.types(exclude_multi=False))
            if typ in used:
                return False
            lo, hi, win, anchors = self._window()
            if hi < lo:
                return False
            found = self.ev.find(typ, lo, hi)
            if not found and (zero_made[0] >= 1 or self.rng.random() < 0.6):
                return False
            lx = self.lex(typ)
            hm = self.pick(lx.how_many + ("How many times did {S} " + self.pick(lx.base),))
            if win and self.rng.random() < 0.3:
                q = win + ", " + self.front_lower(hm) + "?"
            elif self.rng.random() < 0.15:
                q = "Count how many times {S} " + self.pick(lx.past) + (" " + win if win else "") + "."
            else:
                q = hm + (" " + win if win else "") + "?"
            gold = anchors + ([found[-1].t] if found else [])
            if self.emit(fam, "count", self.finish(q, self.subject()), str(len(found)), gold, (typ, lo, hi)):
                zero_made[0] += 0 if found else 1
                used.append(typ)
                return True
            return False

        self.run(fam, ["count"] * 6, attempt)

    def f8_order(self) -> None:
        fam = FAMILIES[7]

        def attempt(_: str) -> bool:
            cands = [c for c in self.types() if c[0] != "die" and (c[1] is not None or c[0] in
                                                                   ("heal", "fall asleep", "wake up", "respawn"))]
            a_typ = self.pick_type(cands)
            b_typ = self.pick_type([c for c in cands if c != a_typ])
            an = self.rng.choice((1, 1, 1, 2, 3, -1))
            bn = self.rng.choice((1, 1, 1, 2, 3, -1))
            a, b = self.ev.nth(a_typ, an), self.ev.nth(b_typ, bn)
            if a is None or b is None or a.t == b.t:
                return False
            first = a if a.t < b.t else b
            A, B = self.occ_np(a_typ, an), self.occ_np(b_typ, bn)
            q = self.pick(("Which happened first: " + A + " or " + B + "?",
                           "Which came earlier, " + A + ", or " + B + "?",
                           "Of " + A + " and " + B + ", which was first?",
                           "Tell me which occurred first: " + A + ", or " + B + "."))
            return self.emit(fam, "which-first", self.finish(q, self.subject()), first.text, [a.t, b.t],
                             tuple(sorted((a.t, b.t))))

        self.run(fam, ["which-first"] * 6, attempt)

    def f9_distance(self) -> None:
        fam = FAMILIES[8]

        def attempt(_: str) -> bool:
            cands = self.types()
            subj = self.subject()
            if self.rng.random() < 0.3:
                typ = self.pick_type([c for c in cands if self.counts[c] >= 2])
                k = self.rng.randint(1, min(self.counts[typ], 6) - 1) if self.counts[typ] > 2 else 1
                a, b = self.ev.nth(typ, k), self.ev.nth(typ, k + 1)
                assert a is not None and b is not None
                lx = self.lex(typ)
                o1, o2 = self.ordinal(k), self.ordinal(k + 1)
                opts = [f"How many steps separated the {o1} and the {o2} time {{S}} " + self.pick(lx.past) + "?"]
                if lx.noun:
                    opts.append(f"How many steps were there between {{poss}} {o1} and {o2} " + self.pick(lx.noun) + "?")
                q = self.pick(opts)
                return self.emit(fam, "duration", self.finish(q, subj), str(abs(b.t - a.t)), [a.t, b.t], (a.t, b.t))
            a_typ = self.pick_type(cands)
            b_typ = self.pick_type([c for c in cands if c[0] != a_typ[0]])
            an = self.rng.choice((1, 1, 2, -1))
            bn = self.rng.choice((1, 1, 2, -1))
            a, b = self.ev.nth(a_typ, an), self.ev.nth(b_typ, bn)
            if a is None or b is None or a.t == b.t:
                return False
            A, B = self.occ_np(a_typ, an), self.occ_np(b_typ, bn)
            if a.t > b.t:
                A, B, a, b = B, A, b, a
            q = self.pick(("How many steps passed between " + A + " and " + B + "?",
                           "How many steps were there between " + A + " and " + B + "?",
                           "How long, in steps, was it from " + A + " to " + B + "?",
                           "How many steps after " + A + " came " + B + "?"))
            return self.emit(fam, "duration", self.finish(q, subj), str(b.t - a.t), [a.t, b.t], (a.t, b.t))

        self.run(fam, ["duration"] * 6, attempt)

    LIST_QUESTIONS = {
        "mine": ("What did {S} mine {win}?", "Which materials did {S} dig out with a pickaxe {win}?"),
        "craft": ("Which tools did {S} craft {win}?", "What did {S} make at a crafting table {win}?"),
        "strike": ("Which creatures did {S} hit {win}?", "What kinds of creatures did {S} attack {win}?"),
        "slay": ("Which kinds of monsters did {S} kill {win}?",),
        "enter": ("Which sectors did {S} enter {win}?", "List the sectors {S} crossed into {win}."),
        "build": ("What did {S} build {win}?", "Which structures did {S} put down {win}?"),
        "eat": ("What did {S} eat {win}?",),
        "unlock": ("Which achievements did {S} unlock {win}?",),
    }

    def f10_existence(self) -> None:
        fam = FAMILIES[9]
        plan = ["yes", "yes", "no", "no", "list", "list"]
        self.rng.shuffle(plan)

        used: list[object] = []

        def attempt(slot: str) -> bool:
            lo, hi, win, anchors = self._window(("", "during the whole run", "over the whole episode"))
            if hi < lo:
                return False
            subj = self.subject()
            suffix = (" " + win) if win else ""
            if slot == "list":
                kind = self.pick(sorted(self.LIST_QUESTIONS))
                found = [o for o in self.ev.occ if o.kind == kind and lo <= o.t <= hi and o.obj]
                objs: list[str] = []
                for o in found:
                    if o.obj not in objs:
                        objs.append(o.obj)
                if len(objs) < 2 and (not objs or self.rng.random() < 0.7) or len(found) > 25 or kind in used:
                    return False
                used.append(kind)
                q = self.pick(self.LIST_QUESTIONS[kind]).replace(" {win}", suffix)
                return self.emit(fam, "list", self.finish(q, subj), ", ".join(objs), anchors + [o.t for o in found],
                                 (kind, lo, hi))
            if slot == "yes":
                typ = self.pick_type(self.types())
                found = self.ev.find(typ, lo, hi)
                if not found:
                    return False
                gold = anchors + [found[0].t]
                answer = "yes"
            else:
                absent = [p for p in PLAUSIBLE if lex_for(*p) is not None and not self.ev.find(p, lo, hi)]
                elsewhere = [p for p in absent if self.ev.find(p)]
                pool = elsewhere if elsewhere and self.rng.random() < 0.6 else absent
                if not pool:
                    return False
                typ = self.pick(pool)
                gold = anchors
                answer = "no"
            if typ in used:
                return False
            used.append(typ)
            lx = self.lex(typ)
            q = self.pick(("Did {S} ever " + self.pick(lx.base) + suffix + "?",
                           "{have} {S} ever " + self.pick(lx.pp) + suffix + "?",
                           "Did {S} " + self.pick(lx.base) + " at all" + suffix + "?",
                           "Is there any record of {objp} " + self.pick(lx.ger) + suffix + "?",
                           "Was there a moment" + suffix + " when {S} " + self.pick(lx.past) + "?"))
            return self.emit(fam, "yes/no", self.finish(q, subj), answer, gold, (typ, lo, hi))

        self.run(fam, plan, attempt)

    def write(self) -> list[dict]:
        for family in (self.f1_step_index, self.f2_nth, self.f3_windowed, self.f4_condition, self.f5_offset,
                       self.f6_next_previous, self.f7_count, self.f8_order, self.f9_distance, self.f10_existence):
            family()
        return self.out


# ------------------------------------------------------------------------------------------------
# Module interface.
# ------------------------------------------------------------------------------------------------


def episode_id(seed: int) -> str:
    return f"forager-{seed}"


def build(seed: int) -> dict:
    """One Crafter episode for ``seed`` and its 60 questions."""
    rng = random.Random(seed * 31 + 5)
    n_steps = rng.randint(800, 1300)
    episode = episode_id(seed)
    steps = rollout(seed, n_steps)
    validate_steps(steps, episode)
    questions = Writer(Evaluator(episode, steps), seed).write()
    return {"episodes": {episode: steps}, "questions": questions}


def to_jsonable(result: dict) -> dict:
    """The build output with Step records as plain dicts (for hashing and dumping)."""
    from dataclasses import asdict

    return {"episodes": {k: [asdict(s) for s in v] for k, v in result["episodes"].items()},
            "questions": result["questions"]}


def _self_check(seeds: Sequence[int]) -> None:
    import json
    from collections import Counter

    for seed in seeds:
        result = build(seed)
        again = build(seed)
        same = json.dumps(to_jsonable(result), sort_keys=True) == json.dumps(to_jsonable(again), sort_keys=True)
        assert same, f"seed {seed}: a second build differs"
        (episode, steps), = result["episodes"].items()
        questions = result["questions"]
        assert len(questions) == 60, len(questions)
        per_family = Counter(q["family"] for q in questions)
        assert all(per_family[f] == 6 for f in FAMILIES), per_family
        assert len({q["question"] for q in questions}) == 60, "duplicate question text"
        for q in questions:
            assert q["episode"] == episode
            assert all(g.startswith(episode + ":") and 0 <= int(g.split(":")[1]) < len(steps) for g in q["gold"]), q
            assert q["gold"] or q["answer"] in ("no", "0"), q
        kinds = Counter(e.kind for s in steps for e in s.events)
        print(f"seed {seed}: episode {episode}, {len(steps)} steps, lives {steps[-1].state_dict['life']}")
        print("  per family:", dict(sorted(per_family.items(), key=lambda kv: FAMILIES.index(kv[0]))))
        print("  per slot:", dict(sorted(Counter(q["slot"] for q in questions).items())))
        print("  event kinds:", dict(sorted(kinds.items())))
        print("  second build identical:", same)
        sample = random.Random(seed).sample(questions, 10)
        for q in sample:
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")


if __name__ == "__main__":
    _self_check([SEEDS[0], SEEDS[1]])
