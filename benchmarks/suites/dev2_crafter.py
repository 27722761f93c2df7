"""Blind question suite on real Crafter rollouts (seeds 9000-9099).

A scripted survival agent of its own (path finding on the world map, a tech-tree plan, thirst, hunger,
sleep and fights) plays ``crafter.Env(seed=seed)``; an adapter turns every environment step into a
``graphmem.records.Step``:

* action text: ``move north/south/east/west``, ``interact``, ``sleep``, ``wait``, ``place table``,
  ``plant sapling``, ``craft wood pickaxe``, ...;
* region: a chess-like grid zone of 8x8 cells, columns A-H from west to east, rows 1-8 from north to
  south (``"C4"``); position ``(x, y)``; underfoot the ground material;
* events: collect/drink/eat/defeat/place/make from achievement counters, ``consume`` for spent
  materials, ``achievement`` for first unlocks, ``visit`` on crossing into a zone (not for the
  starting zone: the agent did not enter it), ``damage`` with a cause when it is clear,
  ``sleep``/``wake``, ``die``;
* state: health, food, drink, energy (ints), asleep (bool), daylight (float), daytime (text);
* relation ``(agent, facing, X)`` with the creature or material in front.

>>> data = build(9000)  # doctest: +SKIP
>>> len(data["questions"])  # doctest: +SKIP
60
"""

from __future__ import annotations

import copy
import random
from collections import deque
from dataclasses import dataclass

import numpy as np

from benchmarks.suites._dev2_core import (
    ItemWords,
    Match,
    StateCond,
    StateWords,
    Vocab,
    Writer,
    self_check,
    vp,
)
from graphmem.records import Event, Location, Relation, Scalar, Step

SUITE = "dev2_crafter"
SEEDS = range(9000, 9100)
PER_FAMILY = 6

_NAMES = ("Rowan", "Mira", "Tobias", "Ada", "Kestrel", "Juniper", "Otto", "Selma", "Bram", "Ines")
_DIRS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
_COMPASS = {"left": "west", "right": "east", "up": "north", "down": "south"}
_OPPOSITE = {"left": "right", "right": "left", "up": "down", "down": "up"}
_MINEABLE = ("stone", "coal")
_WALK = ("grass", "sand", "path")
_RESOURCES = ("sapling", "wood", "stone", "coal", "iron", "diamond")
_TOOLS = ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")
_VITALS = ("health", "food", "drink", "energy")


def zone(x: int, y: int) -> str:
    """Grid zone of a cell: ``zone(17, 30)`` -> ``'C4'``."""
    return f"{'ABCDEFGH'[x // 8]}{y // 8 + 1}"


def _name(item: str) -> str:
    return item.replace("_", " ")


# ------------------------------------------------------------------------------------------------
# The scripted agent
# ------------------------------------------------------------------------------------------------


@dataclass
class Task:
    """One goal of the agent: what to do and when it gives up."""

    kind: str  # collect | place | make | wander | sapling | plant | rest
    what: str = ""
    amount: int = 0
    deadline: int = 0


class Agent:
    """A survival-and-tech-tree agent that reads the world map (it is scripted, not learned)."""

    def __init__(self, env: object, rng: random.Random) -> None:
        import crafter.constants as C  # type: ignore[import-untyped]
        import crafter.objects as O  # type: ignore[import-untyped]

        self.env = env
        self.rng = rng
        self.C = C
        self.O = O
        self.plan: list[Task] = [
            Task("collect", "wood", 5),
            Task("place", "table"),
            Task("make", "wood_pickaxe"),
            Task("make", "wood_sword"),
            Task("collect", "wood", 3),
            Task("collect", "stone", 3),
            Task("make", "stone_pickaxe"),
            Task("make", "stone_sword"),
            Task("collect", "stone", 6),
            Task("place", "furnace"),
            Task("collect", "coal", 2),
            Task("collect", "wood", 3),
            Task("collect", "iron", 1),
            Task("make", "iron_pickaxe"),
        ]
        self.task: Task | None = None
        self.suspended: Task | None = None
        # Night shelter: a two-cell pocket dug into rock, sealed with a stone (door cell, direction).
        self.shelter: tuple[tuple[int, int], str] | None = None
        self.leaving = False
        self.no_site_until = 0
        self._creatures: dict[str, np.ndarray] = {}
        self.wander_dir = "left"
        self.t = 0

    # -- world access ------------------------------------------------------------------------
    @property
    def player(self) -> object:
        return self.env._player  # type: ignore[attr-defined]

    @property
    def world(self) -> object:
        return self.env._world  # type: ignore[attr-defined]

    def grids(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        w = self.world
        ids = w._mat_ids  # type: ignore[attr-defined]
        mat = w._mat_map  # type: ignore[attr-defined]
        obj = w._obj_map  # type: ignore[attr-defined]
        free = np.isin(mat, [ids[m] for m in _WALK]) & (obj == 0)
        named = {m: mat == ids[m] for m in ("tree", "water", "stone", "coal", "iron", "diamond", "grass", "table", "furnace", "lava") if m in ids}
        return free, named

    def scan_creatures(self) -> None:
        """Masks of nearby cows and zombies, computed once per step."""
        area = self.world.area  # type: ignore[attr-defined]
        self._creatures = {"Cow": np.zeros(area, bool), "Zombie": np.zeros(area, bool)}
        px, py = self.player.pos  # type: ignore[attr-defined]
        for o in self.world.objects:  # type: ignore[attr-defined]
            name = type(o).__name__
            if name in self._creatures and abs(o.pos[0] - px) + abs(o.pos[1] - py) < 30:
                self._creatures[name][o.pos[0], o.pos[1]] = True

    def creatures(self, cls_name: str) -> np.ndarray:
        return self._creatures[cls_name]

    def bfs(self, free: np.ndarray, stand_goal: np.ndarray | None = None, face_goal: np.ndarray | None = None, limit: int = 1800) -> tuple[str, str | None, tuple[int, int]] | None:
        """First move toward the nearest cell that is a stand goal or that has a face goal next to it.

        Returns (first move or "", facing direction for face goals, goal cell) or None if nothing is
        reachable within ``limit`` explored cells.
        """
        W, H = free.shape
        sx, sy = (int(v) for v in self.player.pos)  # type: ignore[attr-defined]
        start = (sx, sy)
        prev: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
        queue = deque([start])
        n = 0
        while queue and n < limit:
            cell = queue.popleft()
            n += 1
            hit_dir: str | None = None
            if stand_goal is not None and stand_goal[cell]:
                hit_dir = ""
            elif face_goal is not None:
                for name, (dx, dy) in _DIRS.items():
                    nx, ny = cell[0] + dx, cell[1] + dy
                    if 0 <= nx < W and 0 <= ny < H and face_goal[nx, ny]:
                        hit_dir = name
                        break
            if hit_dir is not None:
                first = ""
                c = cell
                while prev[c] is not None:
                    p, d = prev[c]  # type: ignore[misc]
                    first = d
                    c = p
                return first, (hit_dir or None), cell
            for name, (dx, dy) in _DIRS.items():
                nx, ny = cell[0] + dx, cell[1] + dy
                if 0 <= nx < W and 0 <= ny < H and (nx, ny) not in prev and free[nx, ny]:
                    prev[(nx, ny)] = (cell, name)
                    queue.append((nx, ny))
        return None

    def facing_cell(self) -> tuple[int, int]:
        p, f = self.player.pos, self.player.facing  # type: ignore[attr-defined]
        return int(p[0] + f[0]), int(p[1] + f[1])

    def go_and_do(self, free: np.ndarray, target: np.ndarray) -> str | None:
        """Walk next to a target cell, turn to it and interact."""
        route = self.bfs(free, face_goal=target)
        if route is None:
            return None
        move, face, _ = route
        if move:
            return f"move_{move}"
        assert face is not None
        if tuple(self.player.facing) != _DIRS[face]:  # type: ignore[attr-defined]
            return f"move_{face}"  # the target blocks the way, so this only turns the player
        return "do"

    def nearby(self, named: dict[str, np.ndarray], what: tuple[str, ...]) -> bool:
        px, py = (int(v) for v in self.player.pos)  # type: ignore[attr-defined]
        return all(named[m][max(0, px - 1): px + 2, max(0, py - 1): py + 2].any() for m in what)

    def placeable(self, cell: tuple[int, int], where: list[str]) -> bool:
        mat, obj = self.world[cell]  # type: ignore[index]
        return obj is None and mat in where

    def step_toward_place(self, free: np.ndarray, name: str) -> str:
        """Place ``name`` in front if possible, else step somewhere so that the front cell changes."""
        where = self.C.place[name]["where"]
        if self.placeable(self.facing_cell(), where):
            return f"place_{name}"
        px, py = (int(v) for v in self.player.pos)  # type: ignore[attr-defined]
        dirs = list(_DIRS.items())
        self.rng.shuffle(dirs)
        for d, (dx, dy) in dirs:
            if free[px + dx, py + dy] and self.world[(px + dx, py + dy)][0] != "lava":  # type: ignore[index]
                return f"move_{d}"
        return f"move_{dirs[0][0]}"

    def wander(self, free: np.ndarray, named: dict[str, np.ndarray]) -> str:
        px, py = (int(v) for v in self.player.pos)  # type: ignore[attr-defined]
        if self.rng.random() < 0.15:
            self.wander_dir = self.rng.choice(list(_DIRS))
        for _ in range(4):
            dx, dy = _DIRS[self.wander_dir]
            nx, ny = px + dx, py + dy
            if 0 <= nx < free.shape[0] and 0 <= ny < free.shape[1] and free[nx, ny]:
                return f"move_{self.wander_dir}"
            self.wander_dir = self.rng.choice(list(_DIRS))
        return "noop"

    # -- policy --------------------------------------------------------------------------------
    def act(self) -> str:
        self.t += 1
        p = self.player
        inv = p.inventory  # type: ignore[attr-defined]
        if p.sleeping:  # type: ignore[attr-defined]
            return "sleep"
        free, named = self.grids()
        self.scan_creatures()
        # Fight a zombie that is right next to us.
        zombies = self.creatures("Zombie")
        px, py = (int(v) for v in p.pos)  # type: ignore[attr-defined]
        W, H = zombies.shape
        for d, (dx, dy) in _DIRS.items():
            if 0 <= px + dx < W and 0 <= py + dy < H and zombies[px + dx, py + dy]:
                return "do" if tuple(p.facing) == (dx, dy) else f"move_{d}"  # type: ignore[attr-defined]
        # Evenings (and bad health) send the agent into a rock shelter; it leaves in the morning.
        clock = self.env._step % 300  # type: ignore[attr-defined]
        evening = 145 <= clock < 270
        wants_shelter = evening or inv["health"] <= 4
        can_dig = inv["wood_pickaxe"] > 0 and self.t >= self.no_site_until
        if self.shelter is None and wants_shelter and can_dig and inv["drink"] >= 5 and inv["food"] >= 4:
            self.find_shelter(free, named)
        if self.shelter is not None:
            a = self.shelter_action(inv, free, evening)
            if a is not None:
                return a
        # Needs first: they interrupt the current task, which resumes afterwards.
        if self.task is not None and self.task.kind in ("drink", "hunt"):
            a = self.serve_need(self.task, inv, free)
            if a is not None:
                return a
            self.task, self.suspended = self.suspended, None
        elif inv["drink"] <= 4 or inv["food"] <= 4:
            need = Task("drink", deadline=self.t + 60) if inv["drink"] <= inv["food"] else Task("hunt", amount=inv["food"], deadline=self.t + 80)
            a = self.serve_need(need, inv, free)
            if a is not None:
                self.suspended, self.task = self.task, need
                return a
        # Out in the open only sleep when exhausted: zombies hit sleepers hard.
        if inv["energy"] <= 1:
            return "sleep"
        if self.task is None or self.t > self.task.deadline:
            self.task = self.next_task(inv)
        a = self.do_task(self.task, inv, free, named)
        if a is None:
            self.task = None
            return self.wander(free, named)
        return a

    def find_shelter(self, free: np.ndarray, named: dict[str, np.ndarray]) -> None:
        def at(mask: np.ndarray, dx: int, dy: int) -> np.ndarray:
            out = np.zeros_like(mask)
            W, H = mask.shape
            xs = slice(max(0, -dx), min(W, W - dx))
            ys = slice(max(0, -dy), min(H, H - dy))
            xt = slice(max(0, dx), min(W, W + dx))
            yt = slice(max(0, dy), min(H, H + dy))
            out[xs, ys] = mask[xt, yt]
            return out

        mineable = named["stone"] | named["coal"]
        walk_or_lava = free | named["lava"] | ~np.isin(self.world._mat_map, [self.world._mat_ids[m] for m in ("water", "stone", "coal", "iron", "diamond", "tree", "table", "furnace")])  # type: ignore[attr-defined]
        solid = ~walk_or_lava
        sites: dict[str, np.ndarray] = {}
        for d, (dx, dy) in _DIRS.items():
            px, py = dy, dx  # perpendicular
            ok = free & at(mineable, dx, dy) & at(mineable, 2 * dx, 2 * dy) & at(solid, 3 * dx, 3 * dy)
            for k in (1, 2):
                ok &= at(solid, k * dx + px, k * dy + py) & at(solid, k * dx - px, k * dy - py)
            sites[d] = ok
        union = sites["left"] | sites["right"] | sites["up"] | sites["down"]
        route = self.bfs(free, stand_goal=union, limit=2500)
        if route is None:
            self.no_site_until = self.t + 40
            return
        cell = route[2]
        d = next(d for d, m in sites.items() if m[cell])
        self.shelter, self.leaving = (cell, d), False

    def shelter_action(self, inv: dict[str, int], free: np.ndarray, evening: bool) -> str | None:
        """Dig in, seal the door with a stone, sleep; in the morning mine the door and walk out."""
        assert self.shelter is not None
        (cx, cy), d = self.shelter
        dx, dy = _DIRS[d]
        back = _OPPOSITE[d]
        s1, s2 = (cx + dx, cy + dy), (cx + 2 * dx, cy + 2 * dy)
        pos = tuple(int(v) for v in self.player.pos)  # type: ignore[attr-defined]
        facing = tuple(self.player.facing)  # type: ignore[attr-defined]
        def mat(c: tuple[int, int]) -> str:
            return self.world[c][0]  # type: ignore[index, no-any-return]
        sealed = mat((cx, cy)) == "stone"
        if self.leaving:
            if pos in (s1, s2):
                return f"move_{back}"
            self.shelter, self.leaving = None, False
            return None
        if pos == (cx, cy):
            if mat(s1) in _MINEABLE:
                return "do" if facing == (dx, dy) else f"move_{d}"
            return f"move_{d}"
        if pos == s1:
            if sealed:
                parched = inv["drink"] <= 2 or inv["food"] <= 2
                if (not evening and inv["energy"] >= 6 and inv["health"] >= 6) or parched:
                    if facing == (-dx, -dy):
                        self.leaving = True
                        return "do"
                    return f"move_{back}"  # the door is stone, so this only turns
                return "sleep" if inv["energy"] < 9 else "noop"
            if mat(s2) in _MINEABLE:
                return "do" if facing == (dx, dy) else f"move_{d}"
            if facing == (-dx, -dy):
                if self.world[(cx, cy)][1] is not None:  # type: ignore[index]
                    return "do"  # something stands in the doorway
                if inv["stone"] >= 1 and mat((cx, cy)) in _WALK:
                    return "place_stone"
                self.shelter = None
                return None
            return f"move_{d}"  # walk to the far end so that coming back faces the door
        if pos == s2:
            return f"move_{back}"
        if not evening and inv["health"] > 4:
            self.shelter = None
            return None
        goal = np.zeros_like(free)
        goal[cx, cy] = True
        route = self.bfs(free, stand_goal=goal)
        if route is None or not route[0]:
            self.shelter = None
            self.no_site_until = self.t + 30
            return None
        return f"move_{route[0]}"

    def serve_need(self, need: Task, inv: dict[str, int], free: np.ndarray) -> str | None:
        """The next action of a drink/hunt need, or None once it is met (or hopeless)."""
        if self.t > need.deadline:
            return None
        if need.kind == "drink":
            if inv["drink"] >= 9:
                return None
            return self.go_and_do(free, self.grids()[1]["water"])
        if inv["food"] > need.amount:
            return None
        return self.go_and_do(free, self.creatures("Cow"))

    def next_task(self, inv: dict[str, int]) -> Task:
        while self.plan:
            task = self.plan.pop(0)
            if task.kind == "collect" and inv[task.what] >= task.amount:
                continue
            task.deadline = self.t + 150
            return task
        r = self.rng.random()
        if r < 0.2:
            return Task("wander", amount=self.rng.randint(6, 25), deadline=self.t + 30)
        if r < 0.35:
            return Task("sapling", deadline=self.t + 40)
        if r < 0.45 and inv["sapling"] > 0:
            return Task("plant", deadline=self.t + 15)
        if r < 0.55 and inv["stone"] > 0:
            return Task("place", "stone", deadline=self.t + 10)
        if r < 0.62:
            return Task("rest", amount=self.rng.randint(2, 6), deadline=self.t + 8)
        if r < 0.72 and inv["wood"] >= 1 and inv["stone"] >= 1 and self.rng.random() < 0.5:
            return Task("make", self.rng.choice(["stone_sword", "stone_pickaxe", "wood_sword", "wood_pickaxe"]), deadline=self.t + 60)
        what = self.rng.choice(["wood", "wood", "stone", "coal", "iron", "diamond"])
        return Task("collect", what, min(9, inv[what] + self.rng.randint(1, 3)), deadline=self.t + 90)

    def do_task(self, task: Task, inv: dict[str, int], free: np.ndarray, named: dict[str, np.ndarray]) -> str | None:
        C = self.C
        if task.kind == "collect":
            if inv[task.what] >= task.amount:
                return None
            need = C.collect["tree" if task.what == "wood" else task.what]["require"]
            if any(inv[k] < v for k, v in need.items()):
                return None
            return self.go_and_do(free, named["tree" if task.what == "wood" else task.what])
        if task.kind == "place":
            uses = C.place[task.what]["uses"]
            if any(inv[k] < v for k, v in uses.items()):
                if task.what == "table":
                    return self.go_and_do(free, named["tree"])
                return None
            if task.what == "furnace" and not self.nearby(named, ("table",)):
                route = self.bfs(free, stand_goal=self.near_mask(named, "table"))
                if route and route[0]:
                    return f"move_{route[0]}"
            action = self.step_toward_place(free, task.what)
            if action.startswith("place_"):
                self.task = None
            return action
        if task.kind == "make":
            info = C.make[task.what]
            if any(inv[k] < v for k, v in info["uses"].items()):
                missing = [k for k, v in info["uses"].items() if inv[k] < v]
                k = missing[0]
                if k in ("wood", "stone", "coal", "iron") and all(inv[r] >= v for r, v in C.collect[k if k != "wood" else "tree"]["require"].items()):
                    return self.go_and_do(free, named["tree" if k == "wood" else k])
                return None
            if self.nearby(named, tuple(info["nearby"])):
                self.task = None
                return f"make_{task.what}"
            goal = self.near_mask(named, *info["nearby"])
            route = self.bfs(free, stand_goal=goal)
            if route is not None and route[0]:
                return f"move_{route[0]}"
            # No workshop within reach: build one here.
            if "table" in info["nearby"] and not self.nearby(named, ("table",)):
                if inv["wood"] >= C.place["table"]["uses"]["wood"] + info["uses"].get("wood", 0):
                    return self.step_toward_place(free, "table")
                return self.go_and_do(free, named["tree"])
            if "furnace" in info["nearby"] and inv["stone"] >= C.place["furnace"]["uses"]["stone"]:
                return self.step_toward_place(free, "furnace")
            return None
        if task.kind == "wander":
            if task.amount <= 0:
                return None
            task.amount -= 1
            return self.wander(free, named)
        if task.kind == "rest":
            if task.amount <= 0:
                return None
            task.amount -= 1
            return "noop"
        if task.kind == "sapling":
            if inv["sapling"] > 0 and self.rng.random() < 0.5:
                return None
            grass = named["grass"] & (self.world._obj_map == 0)  # type: ignore[attr-defined]
            return self.go_and_do(free, grass)
        if task.kind == "plant":
            if inv["sapling"] <= 0:
                return None
            action = self.step_toward_place(free, "plant")
            if action == "place_plant":
                self.task = None
            return action
        return None

    def near_mask(self, named: dict[str, np.ndarray], *what: str) -> np.ndarray:
        """Cells whose 3x3 neighbourhood holds every material in ``what``."""
        out = np.ones_like(named["grass"])
        for m in what:
            g = named[m]
            pad = np.pad(g, 1)
            acc = np.zeros_like(g)
            for dx in (0, 1, 2):
                for dy in (0, 1, 2):
                    acc |= pad[dx: dx + g.shape[0], dy: dy + g.shape[1]]
            out &= acc
        return out


# ------------------------------------------------------------------------------------------------
# The adapter: environment step -> Step record
# ------------------------------------------------------------------------------------------------

_ACTION_TEXT = {
    "noop": "wait",
    "do": "interact",
    "sleep": "sleep",
    "place_plant": "plant sapling",
}


def action_text(name: str) -> str:
    if name in _ACTION_TEXT:
        return _ACTION_TEXT[name]
    if name.startswith("move_"):
        return "move " + _COMPASS[name[5:]]
    if name.startswith("make_"):
        return "craft " + _name(name[5:])
    return _name(name)  # place_table -> "place table"


def _achievement_events(name: str) -> list[Event]:
    verb, _, what = name.partition("_")
    if name == "collect_drink":
        return [Event("drink", "water")]
    if verb == "collect":
        return [Event("collect", what)]
    if verb == "place":
        return [Event("place", "sapling" if what == "plant" else what)]
    if verb == "make":
        return [Event("make", _name(what))]
    if verb == "eat":
        return [Event("eat", what)]
    if verb == "defeat":
        return [Event("defeat", what)]
    if name == "wake_up":
        return [Event("wake")]
    return []


def _front(env: object) -> str:
    player = env._player  # type: ignore[attr-defined]
    target = (player.pos[0] + player.facing[0], player.pos[1] + player.facing[1])
    material, obj = env._world[target]  # type: ignore[attr-defined]
    if obj is not None:
        return type(obj).__name__.lower()
    return material or "edge of the world"


def _seen(env: object) -> tuple[str, ...]:
    player, world = env._player, env._world  # type: ignore[attr-defined]
    px, py = (int(v) for v in player.pos)
    names: set[str] = set()
    for x in range(px - 4, px + 5):
        for y in range(py - 3, py + 4):
            material, obj = world[(x, y)]
            if material and material not in ("grass",):
                names.add(material)
            if obj is not None and obj is not player:
                names.add(type(obj).__name__.lower())
    return tuple(sorted(names))


def _stable_object_hashes() -> None:
    """Give Crafter's objects hashes that do not depend on memory addresses.

    Crafter keeps each chunk's creatures in a ``set`` and despawns ``list(set)[random index]``; with
    the default identity hash that choice differs between processes, and so would the episode.
    Numbering objects per world in creation order makes a seed replay exactly.
    """
    import crafter.objects as O  # type: ignore[import-untyped]

    if getattr(O.Object, "_stable_hash", False):
        return
    original = O.Object.__init__

    def __init__(self: object, world: object, pos: object) -> None:
        original(self, world, pos)
        serial = getattr(world, "_next_serial", 0) + 1
        world._next_serial = serial  # type: ignore[attr-defined]
        self._serial = serial  # type: ignore[attr-defined]

    O.Object.__init__ = __init__
    O.Object.__hash__ = lambda self: self._serial
    O.Object._stable_hash = True


def rollout(seed: int) -> list[Step]:
    """Play one Crafter episode with the scripted agent and adapt it; retries if it dies too early."""
    import crafter  # type: ignore[import-untyped]

    _stable_object_hashes()

    fresh = crafter.Env(seed=seed)
    fresh._obs = lambda: None  # images are not needed: skip rendering
    fresh.reset()
    for attempt in range(6):
        # World generation is the slow part; a retry replays the same world from a copy.
        env = copy.deepcopy(fresh)
        rng = random.Random(seed * 31 + attempt)
        agent = Agent(env, rng)
        length = rng.randint(550, 1000)
        steps = _play(env, agent, length)
        if len(steps) >= 300:
            return steps
    raise RuntimeError(f"crafter seed {seed}: the agent kept dying before step 300")


def _play(env: object, agent: Agent, length: int) -> list[Step]:
    import crafter.constants as C  # type: ignore[import-untyped]
    import crafter.objects as O  # type: ignore[import-untyped]

    player = env._player  # type: ignore[attr-defined]
    steps: list[Step] = []
    prev_inv = dict(player.inventory)
    prev_ach = dict(player.achievements)
    prev_sleep = False
    x0, y0 = (int(v) for v in player.pos)
    prev_zone = zone(x0, y0)
    unlocked: set[str] = set()
    for t in range(length):
        name = agent.act()
        _, _, done, info = env.step(C.actions.index(name))  # type: ignore[attr-defined]
        inv, ach = info["inventory"], info["achievements"]
        x, y = (int(v) for v in info["player_pos"])
        events: list[Event] = []
        for a in C.achievements:
            if ach[a] > prev_ach.get(a, 0):
                events += _achievement_events(a)
        if name.startswith(("place_", "make_")):
            for item in _RESOURCES:
                if inv[item] < prev_inv[item]:
                    events.append(Event("consume", item, prev_inv[item] - inv[item]))
        for a in C.achievements:
            if ach[a] > 0 and a not in unlocked:
                unlocked.add(a)
                events.append(Event("achievement", _name(a)))
        here = zone(x, y)
        if here != prev_zone:
            events.append(Event("visit", here))
        if inv["health"] < prev_inv["health"]:
            events.append(Event("damage", _damage_cause(env, inv, O)))
        if player.sleeping and not prev_sleep:
            events.append(Event("sleep"))
        if inv["health"] <= 0:
            events.append(Event("die"))
        daylight = round(float(env._world.daylight), 2)  # type: ignore[attr-defined]
        front = _front(env)
        state: dict[str, Scalar] = {k: int(inv[k]) for k in _VITALS}
        state.update(asleep=bool(player.sleeping), daylight=daylight, daytime="night" if daylight < 0.35 else "day")
        inventory = tuple(sorted((_name(k), int(inv[k])) for k in (*_RESOURCES, *_TOOLS) if inv[k] > 0))
        underfoot = env._world[(x, y)][0] or ""  # type: ignore[attr-defined]
        seen = _seen(env)
        summary = "; ".join(f"{e.kind} {e.obj}".strip() for e in events) or action_text(name)
        steps.append(Step(
            t=t,
            action=action_text(name),
            summary=summary,
            objects=seen,
            events=tuple(events),
            relations=(Relation("agent", "facing", front),),
            inventory=inventory,
            state=tuple(sorted(state.items())),
            location=Location(position=(x, y), region=here, underfoot=underfoot),
            observation=f"In zone {here} on {underfoot}; facing {front}; nearby: {', '.join(seen) or 'grass only'}.",
        ))
        prev_inv, prev_ach, prev_sleep, prev_zone = dict(inv), dict(ach), bool(player.sleeping), here
        if done:
            break
    return steps


def _damage_cause(env: object, inv: dict[str, int], O: object) -> str:
    player = env._player  # type: ignore[attr-defined]
    near = [o for o in env._world.objects if o is not player and player.distance(o) <= 1]  # type: ignore[attr-defined]
    if any(isinstance(o, O.Zombie) for o in near):  # type: ignore[attr-defined]
        return "zombie"
    if any(isinstance(o, O.Arrow) for o in near):  # type: ignore[attr-defined]
        return "arrow"
    if inv["food"] <= 0:
        return "hunger"
    if inv["drink"] <= 0:
        return "thirst"
    if inv["energy"] <= 0:
        return "exhaustion"
    return ""


# ------------------------------------------------------------------------------------------------
# How a user talks about it
# ------------------------------------------------------------------------------------------------


def vocab(steps: list[Step], name: str) -> Vocab:
    ev: dict[Match, list] = {
        Match("collect", "wood"): [vp("collect wood", "wood collection"), vp("chop wood", "wood chop"), vp("gather wood"), vp("cut down a tree"), vp("chop a tree"), vp("harvest wood"), vp("get wood")],
        Match("collect", "stone"): [vp("mine stone"), vp("quarry stone"), vp("collect stone"), vp("dig up stone"), vp("get a piece of stone"), vp("break a stone block")],
        Match("collect", "coal"): [vp("mine coal"), vp("collect coal"), vp("dig up coal"), vp("get coal")],
        Match("collect", "iron"): [vp("mine iron"), vp("collect iron"), vp("dig up iron ore"), vp("get iron")],
        Match("collect", "diamond"): [vp("mine a diamond"), vp("find a diamond"), vp("collect a diamond")],
        Match("collect", "sapling"): [vp("collect a sapling"), vp("pick up a sapling"), vp("grab a sapling"), vp("find a sapling"), vp("get a sapling")],
        Match("drink", "water"): [vp("drink water", "drink of water"), vp("drink"), vp("take a sip of water"), vp("have a drink"), vp("drink from the water")],
        Match("eat", "cow"): [vp("eat a cow", "cow meal"), vp("eat beef"), vp("have beef"), vp("eat meat"), vp("kill and eat a cow")],
        Match("eat", "plant"): [vp("eat a plant"), vp("eat a ripe plant"), vp("harvest and eat a plant")],
        Match("defeat", "zombie"): [vp("defeat a zombie"), vp("kill a zombie"), vp("slay a zombie"), vp("beat a zombie")],
        Match("defeat", "skeleton"): [vp("defeat a skeleton"), vp("kill a skeleton"), vp("destroy a skeleton")],
        Match("place", "table"): [vp("place a table", "table placement"), vp("put down a crafting table"), vp("set up a workbench"), vp("build a table"), vp("place a crafting table")],
        Match("place", "furnace"): [vp("place a furnace", "furnace placement"), vp("build a furnace"), vp("set up a furnace")],
        Match("place", "stone"): [vp("place a stone", "stone placement"), vp("put down a stone block"), vp("lay a stone"), vp("place a stone block")],
        Match("place", "sapling"): [vp("plant a sapling", "planting"), vp("place a sapling"), vp("put a sapling in the ground"), vp("sow a sapling")],
        Match("make", "wood pickaxe"): [vp("make a wood pickaxe"), vp("craft a wooden pickaxe"), vp("build a wood pickaxe"), vp("make a wooden pick")],
        Match("make", "stone pickaxe"): [vp("make a stone pickaxe"), vp("craft a stone pickaxe"), vp("build a stone pick")],
        Match("make", "iron pickaxe"): [vp("make an iron pickaxe"), vp("craft an iron pickaxe"), vp("forge an iron pickaxe")],
        Match("make", "wood sword"): [vp("make a wood sword"), vp("craft a wooden sword"), vp("build a wood sword")],
        Match("make", "stone sword"): [vp("make a stone sword"), vp("craft a stone sword")],
        Match("make", "iron sword"): [vp("make an iron sword"), vp("craft an iron sword"), vp("forge an iron sword")],
        Match("sleep"): [vp("go to sleep"), vp("fall asleep"), vp("go to bed"), vp("sleep"), vp("doze off")],
        Match("wake"): [vp("wake up"), vp("get up after sleeping"), vp("wake")],
        Match("damage"): [vp("take damage"), vp("get hurt"), vp("lose health"), vp("get injured")],
        Match("damage", "zombie"): [vp("get hit by a zombie"), vp("get attacked by a zombie"), vp("take damage from a zombie")],
        Match("damage", "arrow"): [vp("get hit by an arrow"), vp("get shot by a skeleton")],
        Match("damage", "hunger"): [vp("take damage from hunger"), vp("starve a little")],
        Match("die"): [vp("die"), vp("get killed")],
        Match("consume", "wood"): [vp("use up wood"), vp("spend wood"), vp("spend a piece of wood")],
        Match("consume", "stone"): [vp("use up stone"), vp("spend stone")],
        Match("consume", "sapling"): [vp("use up a sapling"), vp("spend a sapling")],
        Match("place"): [vp("place something"), vp("put something down"), vp("place any block or item")],
        Match("make"): [vp("craft something"), vp("make a tool"), vp("craft an item")],
        Match("collect"): [vp("collect something"), vp("pick something up"), vp("gather a resource")],
        Match("eat"): [vp("eat something"), vp("eat"), vp("have a meal")],
        Match("defeat"): [vp("defeat an enemy"), vp("kill a monster"), vp("defeat a monster")],
        Match("visit"): [vp("cross into another zone"), vp("change zones"), vp("enter a zone")],
        Match("achievement"): [vp("unlock an achievement"), vp("earn an achievement"), vp("get an achievement")],
        Match("achievement", "collect diamond"): [vp("unlock the collect-diamond achievement")],
        Match("achievement", "eat cow"): [vp("unlock the eat-cow achievement"), vp("earn the 'eat cow' achievement")],
        Match("achievement", "place table"): [vp("unlock the place-table achievement"), vp("earn the 'place table' achievement")],
        Match("achievement", "wake up"): [vp("unlock the wake-up achievement")],
    }
    zones = sorted({e.obj for s in steps for e in s.events if e.kind == "visit"})
    neighbours = sorted({f"{c}{r}" for c in "ABCDEFGH" for r in range(1, 9)} - set(zones))
    rng = random.Random(len(steps))
    for z in zones + rng.sample(neighbours, min(4, len(neighbours))):
        ev[Match("visit", z)] = [
            vp(f"enter zone {z}", f"arrival in zone {z}"), vp(f"cross into zone {z}"), vp(f"reach area {z}"),
            vp(f"arrive in sector {z}"), vp(f"walk into zone {z}"), vp(f"come to grid square {z}"),
        ]
    items = {
        "sapling": ItemWords(("saplings",), ("how many saplings",)),
        "wood": ItemWords(("wood", "pieces of wood", "wood logs"), ("how much wood", "how many pieces of wood", "how many wood")),
        "stone": ItemWords(("stone", "stones", "pieces of stone"), ("how much stone", "how many stones", "how many pieces of stone")),
        "coal": ItemWords(("coal", "lumps of coal"), ("how much coal", "how many lumps of coal")),
        "iron": ItemWords(("iron", "pieces of iron"), ("how much iron", "how many pieces of iron")),
        "diamond": ItemWords(("diamonds",), ("how many diamonds",)),
        "wood pickaxe": ItemWords(("wood pickaxes", "wooden pickaxes"), ("how many wood pickaxes", "how many wooden pickaxes")),
        "stone pickaxe": ItemWords(("stone pickaxes",), ("how many stone pickaxes",)),
        "iron pickaxe": ItemWords(("iron pickaxes",), ("how many iron pickaxes",)),
        "wood sword": ItemWords(("wood swords", "wooden swords"), ("how many wooden swords", "how many wood swords")),
        "stone sword": ItemWords(("stone swords",), ("how many stone swords",)),
        "iron sword": ItemWords(("iron swords",), ("how many iron swords",)),
    }
    states = {
        "health": StateWords(("{P} health", "{P} hit points", "{P} HP", "{P} health points")),
        "food": StateWords(("{P} food level", "{P} hunger bar", "{P} food meter", "{P} food")),
        "drink": StateWords(("{P} drink level", "{P} hydration", "{P} water meter", "{P} water level")),
        "energy": StateWords(("{P} energy", "{P} energy level", "{P} rest meter", "{P} stamina")),
        "daylight": StateWords(("the daylight level", "the amount of daylight", "the daylight value")),
        "daytime": StateWords(("the time of day", "the day/night phase")),
        "asleep": StateWords(("{P} asleep flag (true/false)", "the value of the asleep flag (true or false)")),
    }
    conds = [
        StateCond("daytime", "night", "first", ("When did night first fall?", "At which step did it first become night?", "When did the first night begin?"), ("when night first fell", "when it first became night")),
        StateCond("asleep", True, "first", ("When was {S} asleep for the first time?", "At which step {BE} {S} first asleep?"), ("when {S} {BE} first asleep",)),
        StateCond("asleep", True, "last", ("What was the last step at which {S} {BE} asleep?", "When {BE} {S} last asleep?"), ("the last time {S} {BE} asleep",)),
        StateCond("daytime", "night", "last", ("What was the last step of night in the episode?", "When was it night for the last time?"), ("the last time it was night",)),
    ]
    lists = {
        "make": ["what did {S} craft", "which items did {S} make", "what tools did {S} craft"],
        "place": ["what did {S} place", "which things did {S} put down"],
        "collect": ["what did {S} collect", "which resources did {S} gather", "what did {S} pick up"],
        "eat": ["what did {S} eat"],
        "visit": ["which zones did {S} enter", "which areas did {S} cross into", "what zones did {S} visit"],
        "defeat": ["which creatures did {S} defeat"],
        "achievement": ["which achievements did {S} unlock", "what achievements did {S} earn"],
    }
    return Vocab(
        name=name,
        region_nouns=("zone", "area", "grid zone", "sector"),
        events=ev,
        lists=lists,
        items=items,
        states=states,
        state_conds=conds,
        slots=("action", "location", "position", "inventory", "item", "state", "facing", "events"),
    )


def build(seed: int) -> dict:
    """One Crafter episode for ``seed`` and its questions (see the module docstring)."""
    steps = rollout(seed)
    episode_id = f"{SUITE}-{seed}"
    name = _NAMES[seed % len(_NAMES)]
    writer = Writer(episode_id, steps, vocab(steps, name), seed)
    return {"episodes": {episode_id: steps}, "questions": writer.write(PER_FAMILY)}


if __name__ == "__main__":
    self_check(build, (9000, 9001))
