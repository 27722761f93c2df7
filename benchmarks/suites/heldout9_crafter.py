"""Held-out Crafter suite: "Moss", a night-shift hunter and hoarder.

The agent
---------
Moss lives in a real Crafter world (``crafter.Env``, frames are never rendered; the adapter reads the
world and the player straight from the engine). By day it gathers: wood from trees, saplings from grass,
stone and coal with a pickaxe, iron once it owns a stone pickaxe. It sets down a crafting table (its home
base), crafts wooden and then stone tools, later a furnace and iron tools when it can. It drinks at water
and butchers cows when hungry. It keeps a stockpile target for one material at a time and switches to the
next material on its list when the quota is reached. At dusk it arms up and goes hunting zombies and
skeletons; when badly hurt it falls back, and late in the night it digs a two-cell burrow into rock,
walls the entrance with stone and sleeps until rested, then breaks out again. When it dies a new life
starts in a fresh world; the step counter keeps running.

The records
-----------
One episode per seed (``crafter-moss-<seed>``), one ``Step`` per environment step:

* ``action``: the Crafter command issued (``move_left``, ``do``, ``place_stone``, ``make_wood_sword``...).
* ``location``: position ``(x, y)``, a region named relative to the current home base (``hearth``,
  ``north yard``, ``east fields``, ``south frontier``...) and the material underfoot.
* ``inventory``: materials and tools held (vitals are not items).
* ``state``: ``health``, ``food``, ``drink``, ``energy``, ``phase`` (morning, midday, dusk, night,
  predawn), ``day``, ``target`` (material being hoarded), ``kills``, ``mode`` (gather, forage food,
  water run, craft, hunt, fall back, burrow, asleep, break out, explore), ``sealed``, ``asleep``, ``life``.
* ``relations``: first ``Moss faces <thing>`` (material or creature ahead), then ``Moss strikes <thing>``
  when it acted on a creature.
* ``events``: chop wood, forage sapling, quarry stone, dig coal/iron/diamond, sip water, butcher cow,
  craft <tool>, set up table/furnace, plant sapling, lay stone, wall off stone, spend <material>,
  strike/slay zombie or skeleton, take hit <cause>, start hunt, fall back <threat>, seal in, doze off,
  wake up, break out, hit quota <material>, switch target <material>, enter <region>, unlock
  <achievement>, perish <cause>, respawn.

The questions
-------------
Sixty per seed, six in each of ten families (step index, n-th occurrence, windowed occurrence,
condition, offset, next/previous, count/list, order, distance, existence). Each question carries a
structured spec; the reference evaluator below resolves it with a plain scan over the steps and yields
the canonical answer and the gold step ids.
"""

from __future__ import annotations

import random
import sys
from collections import deque

import numpy as np

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout9_crafter"
SEED_RANGE = range(9800, 9900)
AGENT = "Moss"

# ----------------------------------------------------------------------------------------------------
# Environment
# ----------------------------------------------------------------------------------------------------

_DIRS = {"move_left": (-1, 0), "move_right": (1, 0), "move_up": (0, -1), "move_down": (0, 1)}
_DIR_ACTION = {v: k for k, v in _DIRS.items()}
_WALKABLE = ("grass", "sand", "path")
_BLOCKING = ("stone", "coal", "iron", "diamond", "tree", "water", "table", "furnace")
_VITALS = ("health", "food", "drink", "energy")
_MATERIAL_EVENT = {
    "wood": "chop", "sapling": "forage", "stone": "quarry", "coal": "dig", "iron": "dig", "diamond": "dig",
}
_SOURCE = {"wood": "tree", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond"}
_NEEDS = {"stone": "wood_pickaxe", "coal": "wood_pickaxe", "iron": "stone_pickaxe", "diamond": "iron_pickaxe"}
_HOARD_PLAN = (
    ("wood", 5), ("sapling", 2), ("stone", 5), ("coal", 2), ("wood", 7), ("iron", 1), ("stone", 8),
    ("coal", 4), ("wood", 9), ("sapling", 4), ("stone", 9),
)


def _make_env(seed: int):
    import crafter

    class QuietEnv(crafter.Env):
        """Crafter without frame rendering and with a deterministic despawn choice."""

        def _obs(self):
            return None

        def render(self, size=None):
            return None

        def _balance_object(self, chunk, objs, cls, material, span_dist, despan_dist,
                            spawn_prob, despawn_prob, ctor, target_fn):
            xmin, xmax, ymin, ymax = chunk
            rnd = self._world.random
            creatures = sorted((o for o in objs if isinstance(o, cls)), key=lambda o: (int(o.pos[0]), int(o.pos[1])))
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
                if self._player.distance(obj.pos) >= despan_dist:
                    self._world.remove(obj)

    env = QuietEnv(seed=seed, length=100000)
    env._sem_view = lambda: None
    return env


def _phase(step: int) -> str:
    s = step % 300
    progress = s / 300 + 0.3
    light = 1 - abs(np.cos(np.pi * progress)) ** 3
    rising = s >= 210 or s < 60
    if light < 0.2:
        return "night"
    if light < 0.6:
        return "predawn" if rising else "dusk"
    return "morning" if rising else "midday"


def _region(pos, home) -> str:
    dx, dy = int(pos[0]) - home[0], int(pos[1]) - home[1]
    dist = max(abs(dx), abs(dy))
    if dist <= 3:
        return "hearth"
    if abs(dy) >= abs(dx):
        side = "north" if dy < 0 else "south"
    else:
        side = "west" if dx < 0 else "east"
    if dist <= 9:
        return f"{side} yard"
    if dist <= 18:
        return f"{side} fields"
    return f"{side} frontier"


class _Moss:
    """The scripted policy plus the adapter that turns each env step into a Step record."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        self.env = _make_env(seed)
        self.env.reset()
        from crafter import constants, objects

        self.objects = objects
        self.actions = list(constants.actions)
        self.life = 1
        self.kills = 0
        self.plan_i = 0
        self.mode = "gather"
        self.home = tuple(int(v) for v in self.env._player.pos)
        self.table = None
        self.furnace = None
        self.burrow = None  # (entry, direction, stage)
        self.exit_cell = None
        self.sealed = False
        self.wander = None
        self.wander_left = 0
        self.hunted_tonight = False
        self.region = _region(self.env._player.pos, self.home)
        self.unlocked: set[str] = set()
        self.pending_respawn = False

    # -- world helpers ------------------------------------------------------------------------------
    @property
    def world(self):
        return self.env._world

    @property
    def player(self):
        return self.env._player

    def mat(self, pos):
        return self.world[np.array(pos)][0]

    def obj_at(self, pos):
        return self.world[np.array(pos)][1]

    def ppos(self):
        return (int(self.player.pos[0]), int(self.player.pos[1]))

    def free(self, pos):
        m, o = self.world[np.array(pos)]
        return m in _WALKABLE and o is None

    def facing_cell(self):
        p, f = self.ppos(), self.player.facing
        return (p[0] + int(f[0]), p[1] + int(f[1]))

    def facing_name(self):
        m, o = self.world[np.array(self.facing_cell())]
        if o is not None:
            return type(o).__name__.lower()
        return m or "edge"

    def creatures(self, kinds, radius):
        p = self.ppos()
        out = []
        for o in self.world.objects:
            if isinstance(o, kinds) and not o.removed:
                d = abs(int(o.pos[0]) - p[0]) + abs(int(o.pos[1]) - p[1])
                if d <= radius:
                    out.append((d, int(o.pos[0]), int(o.pos[1]), o))
        out.sort(key=lambda r: r[:3])
        return out

    def bfs(self, goal, limit=1600):
        """Shortest walk to a free cell adjacent to (or equal to, for kind 'cell') a goal cell.

        goal(cell) -> True for target cells; returns (first_move_action or None, target_cell) or None.
        """
        start = self.ppos()
        area = self.world.area
        mats = self.world._mat_map
        objs = self.world._obj_map
        walk_ids = [self.world._mat_ids[m] for m in _WALKABLE if m in self.world._mat_ids]
        freegrid = np.isin(mats, walk_ids) & (objs == 0)
        prev = {start: None}
        queue = deque([start])
        n = 0
        while queue and n < limit:
            cell = queue.popleft()
            n += 1
            for d in ((0, -1), (1, 0), (0, 1), (-1, 0)):
                nb = (cell[0] + d[0], cell[1] + d[1])
                if not (0 <= nb[0] < area[0] and 0 <= nb[1] < area[1]):
                    continue
                if goal(nb) and nb not in prev:
                    # walk to `cell`, then face nb
                    path = []
                    c = cell
                    while prev[c] is not None:
                        path.append(c)
                        c = prev[c]
                    if not path:
                        return _DIR_ACTION[d], nb, 0
                    first = path[-1]
                    step_d = (first[0] - start[0], first[1] - start[1])
                    return _DIR_ACTION[step_d], nb, len(path)
                if nb not in prev and freegrid[nb]:
                    prev[nb] = cell
                    queue.append(nb)
        return None

    def approach(self, goal, limit=1600):
        """Action that moves toward / faces the nearest goal cell, or 'do' when already facing one."""
        if goal(self.facing_cell()):
            return "do", self.facing_cell()
        found = self.bfs(goal, limit)
        if found is None:
            return None, None
        return found[0], found[1]

    def walk_to(self, target, limit=2500):
        """Move one step toward standing on the free cell `target`."""
        if self.ppos() == target:
            return None
        found = self.bfs(lambda c: c == target and self.free(c), limit)
        if found is None:
            return None
        return found[0]

    # -- decisions ----------------------------------------------------------------------------------
    def inv(self, name):
        return int(self.player.inventory.get(name, 0))

    def near(self, material):
        mats, _ = self.world.nearby(self.player.pos, 1)
        return material in mats

    def target(self):
        return _HOARD_PLAN[self.plan_i % len(_HOARD_PLAN)]

    def craft_wish(self):
        """The next tool Moss wants and can afford (materials only), or None."""
        w, s, c, i = self.inv("wood"), self.inv("stone"), self.inv("coal"), self.inv("iron")
        if not self.inv("wood_pickaxe") and w >= 1:
            return "make_wood_pickaxe"
        if not self.inv("wood_sword") and w >= 1:
            return "make_wood_sword"
        if not self.inv("stone_pickaxe") and w >= 1 and s >= 1:
            return "make_stone_pickaxe"
        if not self.inv("stone_sword") and w >= 1 and s >= 1:
            return "make_stone_sword"
        if w >= 1 and c >= 1 and i >= 1 and self.furnace is not None:
            if not self.inv("iron_pickaxe"):
                return "make_iron_pickaxe"
            if not self.inv("iron_sword"):
                return "make_iron_sword"
        if self.inv("stone_pickaxe") and self.furnace is None and s >= 5 and self.table is not None:
            return "place_furnace"
        return None

    def dist_to(self, cell):
        p = self.ppos()
        return abs(p[0] - cell[0]) + abs(p[1] - cell[1])

    def place_somewhere(self, action):
        """Place in front if possible, else turn toward a free neighbour."""
        fc = self.facing_cell()
        if self.free(fc) and self.mat(fc) in ("grass", "sand", "path"):
            return action
        p = self.ppos()
        for d in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            nb = (p[0] + d[0], p[1] + d[1])
            if self.free(nb):
                return _DIR_ACTION[d]
        return "noop"

    def find_burrow(self):
        """A free cell B and a direction d with two diggable cells behind it walled on every other side."""
        def ok(cell):
            for d in ((0, -1), (1, 0), (0, 1), (-1, 0)):
                s1 = (cell[0] + d[0], cell[1] + d[1])
                s2 = (cell[0] + 2 * d[0], cell[1] + 2 * d[1])
                s3 = (cell[0] + 3 * d[0], cell[1] + 3 * d[1])
                if self.mat(s1) not in ("stone", "coal") or self.mat(s2) not in ("stone", "coal"):
                    continue
                side = [(s[0] + e[0], s[1] + e[1]) for s in (s1, s2) for e in ((d[1], d[0]), (-d[1], -d[0]))]
                if all(self.mat(c) in _BLOCKING and self.obj_at(c) is None for c in side + [s3]):
                    return d
            return None

        start = self.ppos()
        if ok(start):
            return start, ok(start)
        found = self.bfs(lambda c: self.free(c) and ok(c) is not None, 2500)
        if found is None:
            return None
        return found[1], ok(found[1])

    def enclosed(self):
        start = self.ppos()
        seen = {start}
        queue = deque([start])
        while queue:
            c = queue.popleft()
            for d in ((0, -1), (1, 0), (0, 1), (-1, 0)):
                nb = (c[0] + d[0], c[1] + d[1])
                if nb in seen:
                    continue
                if self.mat(nb) in _WALKABLE or self.mat(nb) == "lava":
                    seen.add(nb)
                    queue.append(nb)
                    if len(seen) > 6:
                        return False
        return True

    def burrow_action(self):
        entry, d, stage = self.burrow
        s1 = (entry[0] + d[0], entry[1] + d[1])
        s2 = (entry[0] + 2 * d[0], entry[1] + 2 * d[1])
        p = self.ppos()
        face = tuple(int(v) for v in self.player.facing)
        if stage == 0:
            if p != entry:
                a = self.walk_to(entry)
                if a is None:
                    self.burrow = None
                    return None
                return a
            self.burrow = (entry, d, 1)
            stage = 1
        if stage == 1:  # face and dig the first cell
            if p != entry:
                self.burrow = (entry, d, 0)
                return self.burrow_action()
            if self.mat(s1) in _WALKABLE:
                if self.obj_at(s1) is not None:
                    return "do" if face == d else _DIR_ACTION[d]
                self.burrow = (entry, d, 2)
                return _DIR_ACTION[d]
            return "do" if face == d else _DIR_ACTION[d]
        if stage == 2:  # inside s1, dig s2 and step in
            if p != s1:
                self.burrow = None
                return None
            if self.mat(s2) in _WALKABLE:
                if self.obj_at(s2) is not None:
                    return "do" if face == d else _DIR_ACTION[d]
                self.burrow = (entry, d, 3)
                return _DIR_ACTION[d]
            return "do" if face == d else _DIR_ACTION[d]
        if stage == 3:  # in s2, step back to face the entry
            if p == s2:
                return _DIR_ACTION[(-d[0], -d[1])]
            if p == s1 and face == (-d[0], -d[1]):
                self.burrow = (entry, d, 4)
                stage = 4
            else:
                self.burrow = None
                return None
        if stage == 4:
            if self.obj_at(entry) is not None:
                return "do"
            if self.mat(entry) in _WALKABLE:
                if self.inv("stone") < 1:
                    self.burrow = None
                    return None
                return "place_stone"
            self.burrow = None
            self.exit_cell = entry
            return None
        return None

    def decide(self) -> str:
        pl = self.player
        phase = _phase(self.env._step)
        hp, food, drink, energy = (self.inv(v) for v in _VITALS)
        if pl.sleeping:
            self.mode = "asleep"
            return "sleep"
        if self.sealed:
            late = phase in ("night", "predawn") or (phase == "dusk" and energy < 6)
            if energy < 9 and late and food > 1 and drink > 1:
                self.mode = "asleep"
                return "sleep"
            self.mode = "break out"
            if self.exit_cell is not None:
                p = self.ppos()
                d = (self.exit_cell[0] - p[0], self.exit_cell[1] - p[1])
                if abs(d[0]) + abs(d[1]) == 1:
                    face = tuple(int(v) for v in pl.facing)
                    return "do" if face == d else _DIR_ACTION[d]
            fc = self.facing_cell()
            if self.mat(fc) in ("stone", "coal"):
                return "do"
            return self.rng.choice(list(_DIRS))
        hostiles = self.creatures((self.objects.Zombie, self.objects.Skeleton), 6)
        # Badly hurt with a threat close by: fall back toward home.
        if hp <= 4 and hostiles:
            self.mode = "fall back"
            best, best_score = "noop", None
            p = self.ppos()
            for name, d in _DIRS.items():
                nb = (p[0] + d[0], p[1] + d[1])
                if not self.free(nb):
                    continue
                score = sum(abs(nb[0] - h[1]) + abs(nb[1] - h[2]) for h in hostiles) * 4
                score -= abs(nb[0] - self.home[0]) + abs(nb[1] - self.home[1])
                if best_score is None or score > best_score:
                    best, best_score = name, score
            if best == "noop" and hostiles[0][0] <= 1:
                h = hostiles[0]
                d = (h[1] - p[0], h[2] - p[1])
                face = tuple(int(v) for v in pl.facing)
                return "do" if face == d else _DIR_ACTION.get(d, "noop")
            return best
        # Burrow and sleep late at night or when exhausted.
        sleepy = energy <= 2 or (phase == "night" and (self.env._step % 300) >= 205) or (phase == "predawn" and energy < 7)
        if self.burrow is not None:
            self.mode = "burrow"
            a = self.burrow_action()
            if a is not None:
                return a
            if self.exit_cell is not None and self.enclosed():
                self.sealed = True
                return "sleep"
        if sleepy and self.inv("wood_pickaxe") and self.burrow is None and not self.sealed:
            site = self.find_burrow()
            if site is not None:
                self.burrow = (site[0], site[1], 0)
                self.mode = "burrow"
                a = self.burrow_action()
                if a is not None:
                    return a
        if energy <= 1 and not hostiles:
            self.mode = "asleep"
            return "sleep"
        # Vital needs.
        if drink <= 4 or (drink <= 6 and self.mode == "water run"):
            a, _ = self.approach(lambda c: self.mat(c) == "water", 2500)
            if a is not None:
                self.mode = "water run"
                return a
        if food <= 4 or (food <= 7 and self.mode == "forage food"):
            found = self.creatures((self.objects.Cow,), 30)
            if found:
                cows = {(r[1], r[2]) for r in found}
                a, _ = self.approach(lambda c: c in cows, 2500)
                if a is not None:
                    self.mode = "forage food"
                    return a
        # Dusk and night: arm up, then hunt.
        if phase in ("dusk", "night") and hp >= 6:
            prey = self.creatures((self.objects.Zombie, self.objects.Skeleton), 10)
            if prey:
                spots = {(r[1], r[2]) for r in prey}
                a, _ = self.approach(lambda c: c in spots, 600)
                if a is not None:
                    self.mode = "hunt"
                    return a
        # Crafting.
        wish = self.craft_wish()
        if wish is not None:
            a = self.craft_action(wish)
            if a is not None:
                self.mode = "craft"
                return a
        # Hoarding.
        self.mode = "gather"
        material, _quota = self.target()
        need = _NEEDS.get(material)
        if need and not self.inv(need):
            material = "wood" if self.inv("wood") < 2 else ("stone" if need == "stone_pickaxe" and self.inv("wood_pickaxe") else "wood")
        if material == "sapling":
            fc = self.facing_cell()
            if self.free(fc) and self.mat(fc) == "grass":
                return "do"
            a, _ = self.approach(lambda c: self.mat(c) == "grass" and self.obj_at(c) is None, 400)
            if a is not None and a != "do":
                return a
            return self.explore()
        src = _SOURCE[material]
        a, _ = self.approach(lambda c: self.mat(c) == src, 2500)
        if a is not None:
            return a
        return self.explore()

    def craft_action(self, wish):
        if wish.startswith("make_") or wish == "place_furnace":
            if self.table is None or self.mat(self.table) != "table" or self.dist_to(self.table) > 24:
                if self.inv("wood") >= 3 or (self.inv("wood") >= 2 and not self.inv("wood_pickaxe")):
                    return self.place_somewhere("place_table")
                return None
            if wish == "place_furnace":
                if self.near("table"):
                    return self.place_somewhere("place_furnace")
            elif wish.startswith("make_iron"):
                if self.near("table") and self.near("furnace"):
                    return wish
                if self.furnace is not None and self.mat(self.furnace) == "furnace":
                    a = self.walk_to_adjacent(self.furnace)
                    if a is not None:
                        return a
                return None
            elif self.near("table"):
                return wish
            table = self.table
            a, _ = self.approach(lambda c: c == table, 2500)
            if a == "do":
                return wish
            return a
        return None

    def walk_to_adjacent(self, cell):
        found = self.bfs(lambda c: c == cell, 2500)
        if found is None:
            return None
        if found[2] == 0:
            return "noop" if not self.near("table") else None
        return found[0]

    def explore(self):
        self.mode = "explore"
        area = self.world.area
        if self.wander is None or self.wander_left <= 0 or self.ppos() == self.wander:
            for _ in range(20):
                cand = (self.rng.randrange(2, area[0] - 2), self.rng.randrange(2, area[1] - 2))
                if self.free(cand):
                    self.wander, self.wander_left = cand, 40
                    break
        self.wander_left -= 1
        if self.wander is not None:
            a = self.walk_to(self.wander, 3000)
            if a is not None:
                return a
            self.wander = None
        return self.rng.choice(list(_DIRS))

    # -- adapter ------------------------------------------------------------------------------------
    def snapshot(self):
        pl = self.player
        return {
            "inv": dict(pl.inventory),
            "ach": dict(pl.achievements),
            "pos": self.ppos(),
            "sleeping": bool(pl.sleeping),
            "front": self.facing_name(),
            "front_obj": self.obj_at(self.facing_cell()),
            "near_zombie": bool(self.creatures((self.objects.Zombie,), 1)),
            "near_arrow": bool(self.creatures((self.objects.Arrow,), 2)),
            "near_skeleton": bool(self.creatures((self.objects.Skeleton,), 4)),
            "mode": self.mode,
            "sealed": self.sealed,
        }

    def run(self, n_steps: int, episode: str) -> list[Step]:
        steps: list[Step] = []
        for t in range(n_steps):
            events: list[Event] = []
            if self.pending_respawn:
                events.append(Event("respawn", f"life {self.life}"))
                self.pending_respawn = False
            before = self.snapshot()
            prev_mode = before["mode"]
            action = self.decide()
            mode = self.mode
            front_obj = self.obj_at(self.facing_cell()) if action == "do" else None
            front_hp = front_obj.health if front_obj is not None else None
            was_sealed = before["sealed"]
            _, _, done, _ = self.env.step(self.actions.index(action))
            pl = self.player
            inv = dict(pl.inventory)
            ach = dict(pl.achievements)
            relations = [Relation(AGENT, "faces", self.facing_name())]
            # Gathering.
            for item, kind in _MATERIAL_EVENT.items():
                if inv[item] > before["inv"][item] and action == "do":
                    events.append(Event(kind, item))
            if ach["collect_drink"] > before["ach"]["collect_drink"]:
                events.append(Event("sip", "water"))
            if ach["eat_cow"] > before["ach"]["eat_cow"]:
                events.append(Event("butcher", "cow"))
            if ach["eat_plant"] > before["ach"]["eat_plant"]:
                events.append(Event("pluck", "ripe plant"))
            # Fights.
            if front_obj is not None and not isinstance(front_obj, (self.objects.Plant,)):
                name = type(front_obj).__name__.lower()
                relations.append(Relation(AGENT, "strikes", name))
                killed = front_obj.health <= 0
                if name in ("zombie", "skeleton"):
                    if killed:
                        self.kills += 1
                        events.append(Event("slay", name))
                    elif front_obj.health < front_hp:
                        events.append(Event("strike", name))
                elif name == "cow" and not killed and front_obj.health < front_hp:
                    events.append(Event("strike", name))
            # Crafting and placing.
            for tool in ("wood_pickaxe", "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword"):
                if ach[f"make_{tool}"] > before["ach"][f"make_{tool}"]:
                    events.append(Event("craft", tool))
            if ach["place_table"] > before["ach"]["place_table"]:
                events.append(Event("set up", "table"))
                self.table = self.facing_cell()
                self.home = self.table
                self.furnace = None
            if ach["place_furnace"] > before["ach"]["place_furnace"]:
                events.append(Event("set up", "furnace"))
                self.furnace = self.facing_cell()
            if ach["place_plant"] > before["ach"]["place_plant"]:
                events.append(Event("plant", "sapling"))
            if ach["place_stone"] > before["ach"]["place_stone"]:
                events.append(Event("wall off" if mode == "burrow" else "lay", "stone"))
            if action.startswith(("make_", "place_")):
                for item in ("wood", "stone", "coal", "iron", "sapling"):
                    if inv[item] < before["inv"][item]:
                        events.append(Event("spend", item))
            # Burrow bookkeeping.
            if mode == "burrow" and self.burrow is None and self.exit_cell is not None and self.enclosed() and not self.sealed:
                self.sealed = True
            if self.sealed and not was_sealed:
                events.append(Event("seal in"))
            if was_sealed and self.exit_cell is not None and self.mat(self.exit_cell) in _WALKABLE:
                self.sealed = False
                self.exit_cell = None
                events.append(Event("break out"))
            # Sleep.
            if pl.sleeping and not before["sleeping"]:
                events.append(Event("doze off"))
            if before["sleeping"] and not pl.sleeping:
                events.append(Event("wake up", "rested" if inv["energy"] >= 9 else "disturbed"))
            # Health.
            if inv["health"] < before["inv"]["health"]:
                if before["near_zombie"] or self.creatures((self.objects.Zombie,), 1):
                    cause = "zombie"
                elif before["near_arrow"] or before["near_skeleton"]:
                    cause = "arrow"
                elif inv["food"] == 0:
                    cause = "hunger"
                elif inv["drink"] == 0:
                    cause = "thirst"
                elif inv["energy"] == 0:
                    cause = "fatigue"
                elif self.mat(self.ppos()) == "lava":
                    cause = "lava"
                else:
                    cause = "hunger" if inv["food"] <= inv["drink"] else "thirst"
                events.append(Event("take hit", cause))
            # Modes.
            if mode == "hunt" and prev_mode != "hunt":
                events.append(Event("start hunt"))
            if mode == "fall back" and prev_mode != "fall back":
                threat = self.creatures((self.objects.Zombie, self.objects.Skeleton), 8)
                events.append(Event("fall back", type(threat[0][3]).__name__.lower() if threat else "danger"))
            # Hoarding quota.
            material, quota = self.target()
            if inv[material] >= quota:
                events.append(Event("hit quota", material))
                self.plan_i += 1
                events.append(Event("switch target", self.target()[0]))
            # Achievements.
            for name in sorted(ach):
                if ach[name] > 0 and name not in self.unlocked:
                    self.unlocked.add(name)
                    events.append(Event("unlock", name.replace("_", " ")))
            # Region.
            pos = self.ppos()
            region = _region(pos, self.home)
            if region != self.region:
                events.append(Event("enter", region))
                self.region = region
            died = done or inv["health"] <= 0
            if died:
                cause = "zombie" if before["near_zombie"] else ("arrow" if before["near_arrow"] or before["near_skeleton"] else "exhaustion")
                if self.mat(pos) == "lava":
                    cause = "lava"
                events.append(Event("perish", cause))
            items = {k: int(v) for k, v in inv.items() if k not in _VITALS and v > 0}
            phase = _phase(self.env._step)
            state = {
                "health": int(inv["health"]), "food": int(inv["food"]), "drink": int(inv["drink"]),
                "energy": int(inv["energy"]), "phase": phase, "day": self.env._step // 300 + 1,
                "target": self.target()[0], "kills": self.kills, "mode": mode, "sealed": self.sealed,
                "asleep": bool(pl.sleeping), "life": self.life,
            }
            underfoot = self.mat(pos) or "edge"
            obs = f"{phase}; facing {relations[0].obj}; standing on {underfoot}"
            threats = self.creatures((self.objects.Zombie, self.objects.Skeleton), 5)
            if threats:
                obs += f"; {type(threats[0][3]).__name__.lower()} {threats[0][0]} tiles away"
            if events:
                obs += "; " + ", ".join(f"{e.kind} {e.obj}".strip() for e in events[:3])
            steps.append(Step(
                t=t, action=action, events=tuple(events), relations=tuple(relations), inventory=items,
                state=state, location=Location(position=pos, region=region, underfoot=underfoot),
                observation=obs,
            ))
            if died:
                self.new_life()
        return steps

    def new_life(self):
        self.env.reset()
        self.life += 1
        self.mode = "gather"
        self.home = self.ppos()
        self.table = self.furnace = self.burrow = self.exit_cell = None
        self.sealed = False
        self.wander = None
        self.region = _region(self.ppos(), self.home)
        self.unlocked = set()
        self.pending_respawn = True


def _episode_len(seed: int) -> int:
    return 700 + (seed * 37) % 7 * 50


def simulate(seed: int) -> tuple[str, list[Step]]:
    episode = f"crafter-moss-{seed}"
    agent = _Moss(seed)
    return episode, agent.run(_episode_len(seed), episode)


# ----------------------------------------------------------------------------------------------------
# Reference evaluator: a plain scan over the Step records
# ----------------------------------------------------------------------------------------------------


def _label(kind: str, obj: str | None) -> str:
    return f"{kind} {obj}".strip() if obj else kind


def _matches(step: Step, pat) -> bool:
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def _cond_true(step: Step, cond) -> bool:
    src, key, op, val = cond["src"], cond["key"], cond["op"], cond["val"]
    have = step.state_dict.get(key) if src == "state" else step.inventory_dict.get(key, 0)
    if have is None:
        return False
    if op == "==":
        return have == val
    if isinstance(have, bool) or isinstance(have, str):
        return False
    return {">=": have >= val, "<=": have <= val, ">": have > val, "<": have < val}[op]


def slot_value(step: Step, slot: str, key: str | None = None) -> str:
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
        return str(step.inventory_dict.get(key, 0))
    if slot == "inventory":
        return ", ".join(f"{k} {v}" for k, v in sorted(step.inventory)) or "empty"
    if slot == "state":
        return str(step.state_dict[key])
    if slot == "facing":
        return step.relations[0].obj if step.relations else "none"
    if slot == "events":
        return "; ".join(_label(e.kind, e.obj) for e in step.events) or "none"
    raise ValueError(slot)


class Evaluator:
    """Resolves a question spec against the steps of one episode."""

    def __init__(self, episode: str, steps: list[Step]):
        self.episode = episode
        self.steps = steps

    def gid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def window(self, win):
        lo, hi, gold = 0, len(self.steps) - 1, set()
        if not win:
            return lo, hi, gold
        if "lo" in win:
            b = win["lo"]
            if "t" in b:
                lo = b["t"]
            else:
                r = self.resolve(b["sel"])
                if r is None:
                    return None
                lo, gold = r[0] + 1, gold | r[1] | {r[0]}
        if "hi" in win:
            b = win["hi"]
            if "t" in b:
                hi = b["t"]
            else:
                r = self.resolve(b["sel"])
                if r is None:
                    return None
                hi, gold = r[0] - 1, gold | r[1] | {r[0]}
        return lo, hi, gold

    def resolve(self, sel):
        """(t, anchor gold) of a selector; gold holds every step located by an event or condition."""
        if "at" in sel:
            t = sel["at"]
            return (t, set()) if 0 <= t < len(self.steps) else None
        if "off" in sel:
            r = self.resolve(sel["base"])
            if r is None:
                return None
            t = r[0] + sel["off"]
            if not 0 <= t < len(self.steps):
                return None
            base_gold = r[1] if "at" in sel["base"] else r[1] | {r[0]}
            return t, base_gold
        w = self.window(sel.get("win"))
        if w is None:
            return None
        lo, hi, gold = w
        if "nth" in sel:
            hits = [s.t for s in self.steps[lo:hi + 1] if _matches(s, sel["pat"])]
            n = sel["nth"]
            if (n > 0 and len(hits) < n) or (n < 0 and len(hits) < -n):
                return None
            t = hits[n - 1] if n > 0 else hits[n]
            return t, gold | {t}
        if "cond" in sel:
            cond = sel["cond"]
            hits = []
            for s in self.steps[lo:hi + 1]:
                if not _cond_true(s, cond):
                    continue
                if cond.get("becomes") and (s.t == 0 or _cond_true(self.steps[s.t - 1], cond)):
                    continue
                hits.append(s.t)
            if not hits:
                return None
            t = hits[0] if sel["which"] == "first" else hits[-1]
            return t, gold | {t}
        raise ValueError(sel)

    def _count_gold(self, hits):
        return set(hits) if len(hits) <= 5 else {hits[-1]}

    def answer(self, spec):
        """(answer, sorted gold ids) or None when the spec has no single answer."""
        q = spec["q"]
        if q == "slot":
            r = self.resolve(spec["sel"])
            if r is None:
                return None
            t, gold = r
            return slot_value(self.steps[t], spec["slot"], spec.get("key")), self._ids(gold | {t})
        if q in ("count", "list", "exist"):
            w = self.window(spec.get("win"))
            if w is None:
                return None
            lo, hi, gold = w
            if lo > hi:
                return None
            if q == "list":
                hits = [s.t for s in self.steps[lo:hi + 1] if any(e.kind == spec["kind"] for e in s.events)]
                objs = sorted({e.obj for t in hits for e in self.steps[t].events if e.kind == spec["kind"] and e.obj})
                return (", ".join(objs) or "none"), self._ids(gold | self._count_gold(hits))
            hits = [s.t for s in self.steps[lo:hi + 1] if _matches(s, spec["pat"])]
            if q == "count":
                return str(len(hits)), self._ids(gold | self._count_gold(hits))
            return ("yes" if hits else "no"), self._ids(gold | ({hits[0]} if hits else set()))
        if q in ("order", "dist"):
            ra, rb = self.resolve(spec["a"]), self.resolve(spec["b"])
            if ra is None or rb is None or ra[0] == rb[0]:
                return None
            gold = ra[1] | rb[1] | {ra[0], rb[0]}
            for side, r in (("a", ra), ("b", rb)):
                if "at" in spec[side]:
                    gold.discard(r[0])
            if q == "dist":
                return str(abs(rb[0] - ra[0])), self._ids(gold)
            return (spec["la"] if ra[0] < rb[0] else spec["lb"]), self._ids(gold)
        raise ValueError(q)

    def _ids(self, ts):
        return [self.gid(t) for t in sorted(ts)]


# ----------------------------------------------------------------------------------------------------
# Wording
# ----------------------------------------------------------------------------------------------------

_SUBJECTS = (
    # subject, was/were, possessive, reflexive, object
    ("I", "was", "my", "myself", "me"),
    ("we", "were", "our", "ourselves", "us"),
    ("you", "were", "your", "yourself", "you"),
    ("the agent", "was", "the agent's", "itself", "it"),
    ("Moss", "was", "Moss's", "itself", "it"),
    ("it", "was", "its", "itself", "it"),
)

_ITEM_WORDS = {
    "wood": "wood", "sapling": "saplings", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamonds",
    "wood_pickaxe": "wooden pickaxes", "stone_pickaxe": "stone pickaxes", "iron_pickaxe": "iron pickaxes",
    "wood_sword": "wooden swords", "stone_sword": "stone swords", "iron_sword": "iron swords",
}
_TOOL_WORDS = {
    "wood_pickaxe": "wooden pickaxe", "stone_pickaxe": "stone pickaxe", "iron_pickaxe": "iron pickaxe",
    "wood_sword": "wooden sword", "stone_sword": "stone sword", "iron_sword": "iron sword",
}
_STATE_WORDS = {
    "health": ("health", "hit points"), "food": ("food level", "hunger bar"), "drink": ("water level", "thirst meter"),
    "energy": ("energy", "stamina"), "phase": ("time of day", "phase of the day"),
    "target": ("stockpile target", "hoarding target"), "kills": ("kill count", "tally of kills"),
    "mode": ("activity mode", "current activity"), "day": ("day number", "day count"),
}


def _phrases(kind: str, obj: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(verbatim, paraphrase) lists of (base, past) verb phrases for an event; {pos}/{refl} are filled later."""
    o = obj.replace("_", " ")
    tool = _TOOL_WORDS.get(obj, o)
    art = "an" if o[:1] in "aeiou" else "a"
    tart = "an" if tool[:1] in "aeiou" else "a"
    v: list[tuple[str, str]] = [(f"{kind} {o}".strip(), f"had a '{_label(kind, obj)}' event")]
    table = {
        "chop": [("cut down a tree for wood", "cut down a tree for wood"), ("get wood from a tree", "got wood from a tree")],
        "forage": [("pick up a sapling", "picked up a sapling"), ("find a sapling in the grass", "found a sapling in the grass")],
        "quarry": [("mine stone", "mined stone"), ("break off a stone block", "broke off a stone block")],
        "dig": [(f"mine {o}", f"mined {o}"), (f"get {o} out of the rock", f"got {o} out of the rock")],
        "sip": [("drink water", "drank water"), ("take a drink", "took a drink")],
        "butcher": [("eat a cow", "ate a cow"), ("kill a cow for food", "killed a cow for food")],
        "pluck": [("eat a ripe plant", "ate a ripe plant")],
        "craft": [(f"make {tart} {tool}", f"made {tart} {tool}"), (f"build {tart} {tool}", f"built {tart} {tool}")],
        "set up": [(f"place {art} {o}", f"placed {art} {o}"), (f"put down {art} {o}", f"put down {art} {o}")],
        "plant": [("put a sapling in the ground", "put a sapling in the ground"), ("sow a sapling", "sowed a sapling")],
        "lay": [("put down a stone block", "put down a stone block")],
        "wall off": [("block the burrow entrance with stone", "blocked the burrow entrance with stone")],
        "spend": [(f"use up {o}", f"used up {o}"), (f"use {o} as material", f"used {o} as material")],
        "slay": [(f"kill {art} {o}", f"killed {art} {o}"), (f"take down {art} {o}", f"took down {art} {o}")],
        "strike": [(f"land a blow on {art} {o} without killing it", f"landed a blow on {art} {o} without killing it")],
        "take hit": [(f"get hurt by {art} {o}" if o in ("zombie", "arrow") else f"lose health to {o}",
                      f"got hurt by {art} {o}" if o in ("zombie", "arrow") else f"lost health to {o}")],
        "start hunt": [("go out after monsters", "went out after monsters"), ("begin chasing monsters", "began chasing monsters")],
        "fall back": [(f"retreat from {art} {o}", f"retreated from {art} {o}"), (f"run away from {art} {o}", f"ran away from {art} {o}")],
        "seal in": [("shut {refl} inside the rock", "shut {refl} inside the rock"), ("close {refl} into a burrow", "closed {refl} into a burrow")],
        "doze off": [("fall asleep", "fell asleep"), ("go to sleep", "went to sleep")],
        "wake up": [("get up from sleep", "got up from sleep"), ("stop sleeping", "stopped sleeping")],
        "break out": [("dig out of the shelter", "dug out of the shelter"), ("leave the stone shelter", "left the stone shelter")],
        "hit quota": [(f"reach the stockpile goal for {o}", f"reached the stockpile goal for {o}"),
                      (f"have enough {o} stockpiled", f"had enough {o} stockpiled")],
        "switch target": [(f"turn {{pos}} hoarding toward {o}", f"turned {{pos}} hoarding toward {o}"),
                          (f"start stockpiling {o}", f"started stockpiling {o}")],
        "enter": [(f"arrive in the {o}", f"arrived in the {o}"), (f"cross into the {o}", f"crossed into the {o}")],
        "unlock": [(f"earn the '{o}' achievement", f"earned the '{o}' achievement")],
        "perish": [("die", "died"), ("lose a life", "lost a life")],
        "respawn": [("come back in a new life", "came back in a new life")],
    }
    if kind == "enter":
        v = [(f"enter the {o}", f"had an 'enter {o}' event")]
    if kind in ("slay", "strike"):
        v = [(f"{kind} {art} {o}", f"{'slew' if kind == 'slay' else 'struck'} {art} {o}")]
        if kind == "strike":
            v = [(f"strike {art} {o}", f"had a 'strike {o}' event")]
    return v, table.get(kind, [(f"{kind} {o}".strip(), f"had a '{_label(kind, obj)}' event")])


_ORD = {1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"), 5: ("fifth", "5th"),
        6: ("sixth", "6th"), 7: ("seventh", "7th"), 8: ("eighth", "8th")}


class _Writer:
    """Builds the questions of one seed; every question is a (text, spec) pair checked by the evaluator."""

    def __init__(self, seed, episode, steps):
        self.rng = random.Random(seed * 104729 + 3)
        self.ev = Evaluator(episode, steps)
        self.steps = steps
        self.n = len(steps)
        self.occ: dict = {}
        for s in steps:
            for e in s.events:
                self.occ.setdefault((e.kind, e.obj), [])
                if not self.occ[(e.kind, e.obj)] or self.occ[(e.kind, e.obj)][-1] != s.t:
                    self.occ[(e.kind, e.obj)].append(s.t)
        self.verbatim = 0
        self.texts: set[str] = set()

    # -- helpers ------------------------------------------------------------------------------------
    def subj(self):
        return self.rng.choice(_SUBJECTS)

    def pats(self, lo=1, hi=10**9, exclude=()):
        out = [p for p, ts in sorted(self.occ.items()) if lo <= len(ts) <= hi and p[0] not in exclude]
        return out

    def pick(self, seq):
        return self.rng.choice(seq) if seq else None

    def verb(self, pat, subj, form):
        """A base or past verb phrase for a pattern; at most ~40% verbatim kinds."""
        v, p = _phrases(pat[0], pat[1] or "")
        use_v = self.verbatim < 24 and self.rng.random() < 0.35
        if use_v:
            self.verbatim_used = True
        text = self.rng.choice(v if use_v else p)[0 if form == "base" else 1]
        return text.replace("{pos}", "its" if subj[0] == "Moss" else subj[2]).replace("{refl}", subj[3])

    def ordinal(self, n):
        if n == -1:
            return self.rng.choice(["last", "final", "most recent"])
        if n == -2:
            return self.rng.choice(["second-to-last", "next-to-last", "penultimate"])
        return self.rng.choice(_ORD[n])

    def state_word(self, key):
        return self.rng.choice(_STATE_WORDS[key])

    def slot_ask(self, slot, subj, when, key=None):
        S, was, pos = subj[0], subj[1], subj[2]
        opts = {
            "action": [f"What action did {S} take {when}?", f"Which command was issued {when}?"],
            "location": [f"Which region {was} {S} in {when}?", f"What zone of the map {was} {S} in {when}?"],
            "position": [f"What were {pos} x,y coordinates {when}?", f"Give the grid position {S} occupied {when}."],
            "item": [f"How many {_ITEM_WORDS.get(key, key)} did {S} hold {when}?",
                     f"{when[0].upper() + when[1:]}, how much {_ITEM_WORDS.get(key, key)} was in {pos} inventory?"],
            "inventory": [f"What was in {pos} inventory {when}?", f"List everything {S} carried {when}."],
            "state": [f"What was {pos} {self.state_word(key)} {when}?",
                      f"{when[0].upper() + when[1:]}, what was {pos} {self.state_word(key)}?"],
            "facing": [f"What {was} {S} facing {when}?", f"What was directly in front of {subj[4]} {when}?"],
            "events": [f"What happened {when}?", f"Which events were logged {when}?"],
            "step": [f"At which step was that: {when}?"],
        }
        return self.rng.choice(opts[slot])

    def slot_for(self, step_t, slots=("action", "location", "position", "item", "inventory", "state", "facing", "events")):
        slot = self.rng.choice(slots)
        s = self.steps[step_t]
        key = None
        if slot == "item":
            inv = [k for k, _ in s.inventory]
            if not inv:
                slot = "location"
            else:
                key = self.rng.choice(inv)
        if slot == "state":
            key = self.rng.choice(["health", "food", "drink", "energy", "phase", "target", "kills", "mode"])
        return slot, key

    def add(self, out, family, slot, text, spec, oneoff=False):
        res = self.ev.answer(spec)
        if res is None or text in self.texts:
            return False
        ans, gold = res
        if ans.strip() == "" or (ans not in ("yes", "no") and len(ans) > 2 and ans.lower() in text.lower()
                                  and slot not in ("which-first", "yes/no")):
            return False
        self.texts.add(text)
        out.append({"family": family, "slot": slot, "question": text, "answer": ans, "gold": gold,
                    "_spec": spec, "_oneoff": oneoff})
        return True

    # -- anchors --------------------------------------------------------------------------------------
    def occ_anchor(self, subj, min_count=1, exclude=("unlock", "enter", "spend")):
        """A random n-th occurrence selector and its when-clause."""
        pat = self.pick(self.pats(min_count, exclude=exclude))
        if pat is None:
            return None
        cnt = len(self.occ[pat])
        choices = [n for n in (1, 2, 3, 4, -1, -2) if (n > 0 and n <= cnt) or (n < 0 and -n <= cnt)]
        if cnt == 1:
            choices = [1]
        n = self.rng.choice(choices)
        ordw = self.ordinal(n)
        past = self.verb(pat, subj, "past")
        when = f"the {ordw} time {subj[0]} {past}"
        return {"nth": n, "pat": pat}, when, pat, n

    def window_phrase(self, subj):
        r = self.rng.random()
        if r < 0.35:
            a = self.rng.randrange(0, self.n // 2)
            b = self.rng.randrange(a + 80, min(self.n, a + 400))
            return {"lo": {"t": a}, "hi": {"t": b}}, f"between steps {a} and {b}"
        if r < 0.55:
            k = self.rng.choice([150, 200, 250, 300, 400])
            return {"hi": {"t": k - 1}}, self.rng.choice([f"in the first {k} steps", f"during the opening {k} steps"])
        pat = self.pick(self.pats(1, exclude=("unlock", "enter", "spend")))
        if pat is None:
            return None
        past = self.verb(pat, subj, "past")
        if r < 0.8:
            return {"lo": {"sel": {"nth": 1, "pat": pat}}}, f"after {subj[0]} first {past}"
        return {"hi": {"sel": {"nth": 1, "pat": pat}}}, f"before {subj[0]} first {past}"

    def cond_anchor(self, subj):
        """A condition selector with a when-clause."""
        r = self.rng.random()
        pos = subj[2]
        if r < 0.45:
            key = self.rng.choice(["health", "food", "drink", "energy"])
            k = self.rng.choice([2, 3, 4, 5])
            word = self.state_word(key)
            which = self.rng.choice(["first", "last"])
            if which == "first":
                cond = {"src": "state", "key": key, "op": "<=", "val": k}
                return ({"cond": cond, "which": "first"}, f"the first time {pos} {word} dropped to {k} or below")
            cond = {"src": "state", "key": key, "op": "<=", "val": k, "becomes": True}
            return ({"cond": cond, "which": "last"}, f"the last time {pos} {word} fell to {k} or lower")
        if r < 0.7:
            item = self.rng.choice(["wood", "stone", "coal", "sapling"])
            k = self.rng.choice([2, 3, 4, 5, 6])
            cond = {"src": "item", "key": item, "op": ">=", "val": k}
            return ({"cond": cond, "which": "first"},
                    self.rng.choice([f"the first time {subj[0]} had at least {k} {_ITEM_WORDS[item]}",
                                     f"as soon as {pos} {_ITEM_WORDS[item]} reached {k}"]))
        if r < 0.85:
            mode = self.rng.choice(["hunt", "fall back", "water run", "forage food", "craft", "explore", "asleep"])
            cond = {"src": "state", "key": "mode", "op": "==", "val": mode}
            return ({"cond": cond, "which": "first"}, f"the first step {pos} activity mode was '{mode}'")
        k = self.rng.choice([1, 2, 3, 4, 5])
        cond = {"src": "state", "key": "kills", "op": ">=", "val": k}
        return ({"cond": cond, "which": "first"}, f"the moment {pos} kill count reached {k}")

    # -- templated questions --------------------------------------------------------------------------
    def t1(self, out):
        subj = self.subj()
        t = self.rng.randrange(1, self.n)
        slot, key = self.slot_for(t)
        when = self.rng.choice([f"at step {t}", f"on step {t}", f"at t={t}", f"right after step {t} was taken"
                                if False else f"at step number {t}"])
        return self.add(out, "1_step_index", slot, self.slot_ask(slot, subj, when, key), {"q": "slot", "sel": {"at": t}, "slot": slot, "key": key})

    def t2(self, out):
        subj = self.subj()
        a = self.occ_anchor(subj, 2)
        if a is None:
            return False
        sel, when, pat, n = a
        if self.rng.random() < 0.3:
            text = f"At which step did {subj[0]} {self.verb(pat, subj, 'base')} for the {self.ordinal(n)} time?"
            return self.add(out, "2_nth_occurrence", "step", text, {"q": "slot", "sel": sel, "slot": "step"})
        t = self.ev.resolve(sel)[0]
        slot, key = self.slot_for(t, ("location", "position", "item", "inventory", "state", "action", "facing"))
        if pat[0] == "enter" and slot == "location":
            slot = "position"
        return self.add(out, "2_nth_occurrence", slot, self.slot_ask(slot, subj, when, key), {"q": "slot", "sel": sel, "slot": slot, "key": key})

    def t3(self, out):
        subj = self.subj()
        w = self.window_phrase(subj)
        if w is None:
            return False
        win, wtext = w
        pat = self.pick(self.pats(2, exclude=("unlock", "spend")))
        n = self.rng.choice([1, 2, -1])
        sel = {"nth": n, "pat": pat, "win": win}
        base = self.verb(pat, subj, "base")
        if self.rng.random() < 0.3:
            text = self.rng.choice([
                f"{wtext[0].upper() + wtext[1:]}, at which step did {subj[0]} {base} for the {self.ordinal(n)} time?",
                f"At which step did {subj[0]} {base} for the {self.ordinal(n)} time {wtext}?"])
            return self.add(out, "3_windowed_occurrence", "step", text, {"q": "slot", "sel": sel, "slot": "step"})
        r = self.ev.resolve(sel)
        if r is None:
            return False
        slot, key = self.slot_for(r[0], ("location", "position", "item", "state", "inventory"))
        if pat[0] == "enter" and slot == "location":
            slot = "position"
        when = f"the {self.ordinal(n)} time {subj[0]} {self.verb(pat, subj, 'past')} {wtext}"
        return self.add(out, "3_windowed_occurrence", slot, self.slot_ask(slot, subj, when, key), {"q": "slot", "sel": sel, "slot": slot, "key": key})

    def t4(self, out):
        subj = self.subj()
        sel, when = self.cond_anchor(subj)
        if self.rng.random() < 0.35:
            text = f"At which step did this happen: {when}?" if self.rng.random() < 0.5 else f"Give the step number for {when}."
            return self.add(out, "4_condition", "step", text, {"q": "slot", "sel": sel, "slot": "step"})
        r = self.ev.resolve(sel)
        if r is None:
            return False
        slot, key = self.slot_for(r[0], ("location", "position", "inventory", "state", "action", "facing", "events"))
        if slot == "state" and key == sel["cond"]["key"]:
            key = "phase"
        return self.add(out, "4_condition", slot, self.slot_ask(slot, subj, when, key), {"q": "slot", "sel": sel, "slot": slot, "key": key})

    def t5(self, out):
        subj = self.subj()
        k = self.rng.choice([1, 2, 3, 5, 10, 20])
        sign = self.rng.choice([1, -1])
        if self.rng.random() < 0.4:
            t = self.rng.randrange(25, self.n - 25)
            base, btext = {"at": t}, f"step {t}"
        else:
            a = self.occ_anchor(subj, 1)
            if a is None:
                return False
            base, btext = a[0], a[1]
        sel = {"off": sign * k, "base": base}
        r = self.ev.resolve(sel)
        if r is None:
            return False
        slot, key = self.slot_for(r[0], ("action", "location", "position", "item", "state", "facing", "events", "inventory"))
        rel = f"{k} step{'s' if k > 1 else ''} {'after' if sign > 0 else 'before'} {btext}"
        text = self.slot_ask(slot, subj, rel, key)
        return self.add(out, "5_offset", slot, text, {"q": "slot", "sel": sel, "slot": slot, "key": key})

    def t6(self, out):
        subj = self.subj()
        a = self.occ_anchor(subj, 1)
        if a is None:
            return False
        asel, atext, apat, _ = a
        pat = self.pick([p for p in self.pats(2, exclude=("unlock", "spend")) if p != apat])
        if pat is None:
            return False
        nxt = self.rng.random() < 0.6
        win = {"lo": {"sel": asel}} if nxt else {"hi": {"sel": asel}}
        sel = {"nth": 1 if nxt else -1, "pat": pat, "win": win}
        base = self.verb(pat, subj, "base")
        if self.rng.random() < 0.3:
            if nxt:
                text = self.rng.choice([f"After {atext}, when did {subj[0]} next {base}? Give the step.",
                                        f"When did {subj[0]} next {base} after {atext}?"])
            else:
                text = self.rng.choice([f"Before {atext}, at which step did {subj[0]} last {base}?",
                                        f"When did {subj[0]} previously {base}, before {atext}?"])
            return self.add(out, "6_next_previous", "step", text, {"q": "slot", "sel": sel, "slot": "step"})
        r = self.ev.resolve(sel)
        if r is None:
            return False
        slot, key = self.slot_for(r[0], ("location", "position", "item", "state", "inventory"))
        if pat[0] == "enter" and slot == "location":
            slot = "position"
        word = "next" if nxt else "previous"
        when = f"the {word} time {subj[0]} {self.verb(pat, subj, 'past')} {'after' if nxt else 'before'} {atext}"
        return self.add(out, "6_next_previous", slot, self.slot_ask(slot, subj, when, key), {"q": "slot", "sel": sel, "slot": slot, "key": key})

    def t7(self, out):
        subj = self.subj()
        w = self.window_phrase(subj) if self.rng.random() < 0.7 else ({}, "over the whole run")
        if w is None:
            return False
        win, wtext = w
        if self.rng.random() < 0.35:
            kind = self.rng.choice(["chop", "dig", "slay", "craft", "enter", "take hit", "spend", "sip", "quarry"])
            noun = {"chop": "materials from trees", "dig": "ores it mined", "slay": "creatures it killed",
                    "craft": "tools it made", "enter": "regions it entered", "take hit": "sources of damage",
                    "spend": "materials it used up", "sip": "things it drank", "quarry": "materials it quarried"}[kind]
            text = f"List the {noun.replace('it ', subj[0] + ' ')} {wtext}."
            return self.add(out, "7_count", "list", text, {"q": "list", "kind": kind, "win": win})
        pat = self.pick(self.pats(1, exclude=("unlock",)))
        base = self.verb(pat, subj, "base")
        text = self.rng.choice([f"How many times did {subj[0]} {base} {wtext}?", f"{wtext[0].upper() + wtext[1:]}, how often did {subj[0]} {base}?"])
        return self.add(out, "7_count", "count", text, {"q": "count", "pat": pat, "win": win})

    def t8(self, out):
        subj = self.subj()
        a = self.occ_anchor(subj, 1)
        b = self.occ_anchor(subj, 1) if self.rng.random() < 0.6 else None
        if a is None:
            return False
        if b is None:
            bs, bt = self.cond_anchor(subj)
            lb = "condition"
            b = (bs, bt, None, None)
        if a[2] == b[2]:
            return False
        la = _label(*a[2])
        lb = _label(*b[2]) if b[2] else bt
        spec = {"q": "order", "a": a[0], "b": b[0], "la": la, "lb": lb}
        if b[2] is None:
            text = f"Which happened earlier: {a[1]}, or {b[1]}? Answer '{la}' or 'condition'."
            spec["lb"] = "condition"
        else:
            text = self.rng.choice([f"Which came first, {a[1]} or {b[1]}?", f"Did {b[1]} come before {a[1]}, or after? Say which came first."])
        return self.add(out, "8_order", "which-first", text, spec)

    def t9(self, out):
        subj = self.subj()
        a = self.occ_anchor(subj, 1)
        if a is None:
            return False
        if self.rng.random() < 0.5:
            bs, bt = self.cond_anchor(subj)
        else:
            b = self.occ_anchor(subj, 1)
            if b is None or b[2] == a[2]:
                return False
            bs, bt = b[0], b[1]
        text = self.rng.choice([f"How many steps apart were {a[1]} and {bt}?", f"How many steps separate {bt} from {a[1]}?"])
        return self.add(out, "9_distance", "duration", text, {"q": "dist", "a": a[0], "b": bs})

    def t10(self, out, want_no=False):
        subj = self.subj()
        if want_no:
            fake = [("butcher", "zombie"), ("craft", "diamond_sword"), ("dig", "diamond"), ("slay", "cow"), ("set up", "furnace"),
                    ("craft", "iron_pickaxe"), ("plant", "sapling"), ("perish", "lava"), ("pluck", "ripe plant"), ("seal in", ""),
                    ("craft", "iron_sword"), ("enter", "west frontier"), ("enter", "east frontier")]
            cand = [p for p in fake if (p[0], p[1]) not in self.occ]
            pat = self.pick(cand)
            if pat is None:
                return False
            pat = (pat[0], pat[1] or None) if pat[1] else (pat[0], None)
            if pat[1] is None and any(k == pat[0] for k, _ in self.occ):
                return False
            win, wtext = {}, self.rng.choice(["at any point", "ever", "during the run"])
        else:
            w = self.window_phrase(subj)
            if w is None:
                return False
            win, wtext = w
            pat = self.pick(self.pats(1, exclude=("unlock",)))
        base = self.verb(pat, subj, "base")
        text = self.rng.choice([f"Did {subj[0]} {base} {wtext}?", f"{wtext[0].upper() + wtext[1:]}, did {subj[0]} {base}?"]) \
            if wtext not in ("ever", "at any point", "during the run") else f"Did {subj[0]} {wtext} {base}?"
        if wtext == "during the run":
            text = f"Did {subj[0]} {base} during the run?"
        return self.add(out, "10_existence", "yes/no", text, {"q": "exist", "pat": pat, "win": win})

    # -- hand-worded one-offs -------------------------------------------------------------------------
    def first(self, kind, obj=None):
        pats = [p for p in self.occ if p[0] == kind and (obj is None or p[1] == obj)]
        return min((self.occ[p][0] for p in pats), default=None)

    def o1a(self, out):
        t = self.rng.randrange(100, self.n - 10)
        return self.add(out, "1_step_index", "inventory", f"Tell me what Moss was lugging around at step {t}.",
                        {"q": "slot", "sel": {"at": t}, "slot": "inventory"}, True)

    def o1b(self, out):
        t = self.rng.randrange(50, self.n - 10)
        return self.add(out, "1_step_index", "facing", f"Picture step {t}: what was in front of my nose?",
                        {"q": "slot", "sel": {"at": t}, "slot": "facing"}, True)

    def o1c(self, out):
        t = self.rng.randrange(10, self.n - 10)
        return self.add(out, "1_step_index", "state", f"How much fight did the agent have left at step {t} (its health)?",
                        {"q": "slot", "sel": {"at": t}, "slot": "state", "key": "health"}, True)

    def o2a(self, out):
        if len(self.occ.get(("slay", "zombie"), [])) < 2:
            return False
        return self.add(out, "2_nth_occurrence", "location", "Where on the map was the second zombie put down?",
                        {"q": "slot", "sel": {"nth": 2, "pat": ("slay", "zombie")}, "slot": "location"}, True)

    def o2b(self, out):
        if len(self.occ.get(("sip", "water"), [])) < 2:
            return False
        return self.add(out, "2_nth_occurrence", "state", "The last time I drank, how full was my stomach?",
                        {"q": "slot", "sel": {"nth": -1, "pat": ("sip", "water")}, "slot": "state", "key": "food"}, True)

    def o2c(self, out):
        if len(self.occ.get(("chop", "wood"), [])) < 3:
            return False
        return self.add(out, "2_nth_occurrence", "step", "Our third log came off a tree at what step?",
                        {"q": "slot", "sel": {"nth": 3, "pat": ("chop", "wood")}, "slot": "step"}, True)

    def o3a(self, out):
        if self.first("doze off") is None:
            return False
        return self.add(out, "3_windowed_occurrence", "step", "Before its first nap, when did Moss last grab a drink?",
                        {"q": "slot", "sel": {"nth": -1, "pat": ("sip", "water"), "win": {"hi": {"sel": {"nth": 1, "pat": ("doze off", None)}}}},
                         "slot": "step"}, True)

    def o3b(self, out):
        return self.add(out, "3_windowed_occurrence", "position", "Within the opening 250 steps, where exactly (x,y) was the last stone mined?",
                        {"q": "slot", "sel": {"nth": -1, "pat": ("quarry", "stone"), "win": {"hi": {"t": 249}}}, "slot": "position"}, True)

    def o3c(self, out):
        return self.add(out, "3_windowed_occurrence", "step", "Once the first table was down, at which step did I make my first tool?",
                        {"q": "slot", "sel": {"nth": 1, "pat": ("craft", None),
                                              "win": {"lo": {"sel": {"nth": 1, "pat": ("set up", "table")}}}}, "slot": "step"}, True)

    def o4a(self, out):
        cond = {"src": "state", "key": "phase", "op": "==", "val": "night"}
        return self.add(out, "4_condition", "inventory", "What was in my pack when night first fell?",
                        {"q": "slot", "sel": {"cond": cond, "which": "first"}, "slot": "inventory"}, True)

    def o4b(self, out):
        cond = {"src": "state", "key": "drink", "op": "<=", "val": 3}
        return self.add(out, "4_condition", "location", "Where was the agent when it first got really thirsty (water level 3 or under)?",
                        {"q": "slot", "sel": {"cond": cond, "which": "first"}, "slot": "location"}, True)

    def o4c(self, out):
        cond = {"src": "item", "key": "stone", "op": ">=", "val": 5}
        return self.add(out, "4_condition", "step", "When did the stone pile first grow to five or more?",
                        {"q": "slot", "sel": {"cond": cond, "which": "first"}, "slot": "step"}, True)

    def o5a(self, out):
        return self.add(out, "5_offset", "location", "Three steps after the first cow went down, which part of the map was Moss in?",
                        {"q": "slot", "sel": {"off": 3, "base": {"nth": 1, "pat": ("butcher", "cow")}}, "slot": "location"}, True)

    def o5b(self, out):
        return self.add(out, "5_offset", "action", "Just one step before you set down your very first table, what did you do?",
                        {"q": "slot", "sel": {"off": -1, "base": {"nth": 1, "pat": ("set up", "table")}}, "slot": "action"}, True)

    def o5c(self, out):
        return self.add(out, "5_offset", "state", "Ten steps after the first time Moss got hurt, what was its health?",
                        {"q": "slot", "sel": {"off": 10, "base": {"nth": 1, "pat": ("take hit", None)}}, "slot": "state", "key": "health"}, True)

    def o6a(self, out):
        return self.add(out, "6_next_previous", "step", "Having killed its first monster, when did the agent next take damage?",
                        {"q": "slot", "sel": {"nth": 1, "pat": ("take hit", None),
                                              "win": {"lo": {"sel": {"cond": {"src": "state", "key": "kills", "op": ">=", "val": 1}, "which": "first"}}}},
                         "slot": "step"}, True)

    def o6b(self, out):
        return self.add(out, "6_next_previous", "inventory", "What did I have on me the previous time I chopped wood before making my first wooden sword?",
                        {"q": "slot", "sel": {"nth": -1, "pat": ("chop", "wood"),
                                              "win": {"hi": {"sel": {"nth": 1, "pat": ("craft", "wood_sword")}}}},
                         "slot": "inventory"}, True)

    def o6c(self, out):
        return self.add(out, "6_next_previous", "location", "After that first hunting trip began, where was the next kill made?",
                        {"q": "slot", "sel": {"nth": 1, "pat": ("slay", None), "win": {"lo": {"sel": {"nth": 1, "pat": ("start hunt", None)}}}},
                         "slot": "location"}, True)

    def o7a(self, out):
        return self.add(out, "7_count", "count", "Across the whole run, how many zombies did we kill?",
                        {"q": "count", "pat": ("slay", "zombie")}, True)

    def o7b(self, out):
        return self.add(out, "7_count", "list", "Name every kind of tool Moss managed to make.",
                        {"q": "list", "kind": "craft"}, True)

    def o7c(self, out):
        return self.add(out, "7_count", "count", "Up to step 300, how many sips of water had the agent taken?",
                        {"q": "count", "pat": ("sip", "water"), "win": {"hi": {"t": 300}}}, True)

    def o8a(self, out):
        return self.add(out, "8_order", "which-first", "Which did Moss manage sooner: its first kill, or its first stone block? "
                        "Answer 'slay' or 'quarry stone'.",
                        {"q": "order", "a": {"nth": 1, "pat": ("slay", None)}, "b": {"nth": 1, "pat": ("quarry", "stone")},
                         "la": "slay", "lb": "quarry stone"}, True)

    def o8b(self, out):
        return self.add(out, "8_order", "which-first", "Was I hurt for the first time before or after I first drank? "
                        "Answer with the one that happened first ('take hit' or 'sip water').",
                        {"q": "order", "a": {"nth": 1, "pat": ("take hit", None)}, "b": {"nth": 1, "pat": ("sip", "water")},
                         "la": "take hit", "lb": "sip water"}, True)

    def o8c(self, out):
        return self.add(out, "8_order", "which-first", "Which came first for the agent, a stone pickaxe or a wooden sword? "
                        "Reply 'craft stone_pickaxe' or 'craft wood_sword'.",
                        {"q": "order", "a": {"nth": 1, "pat": ("craft", "stone_pickaxe")}, "b": {"nth": 1, "pat": ("craft", "wood_sword")},
                         "la": "craft stone_pickaxe", "lb": "craft wood_sword"}, True)

    def o9a(self, out):
        return self.add(out, "9_distance", "duration", "How long did it take, in steps, to go from the first piece of wood to the first table?",
                        {"q": "dist", "a": {"nth": 1, "pat": ("chop", "wood")}, "b": {"nth": 1, "pat": ("set up", "table")}}, True)

    def o9b(self, out):
        return self.add(out, "9_distance", "duration", "Moss dozed off for the first time; how many steps later did it get up again?",
                        {"q": "dist", "a": {"nth": 1, "pat": ("doze off", None)}, "b": {"nth": 1, "pat": ("wake up", None)}}, True)

    def o9c(self, out):
        return self.add(out, "9_distance", "duration", "How many steps passed between the first and the last time we got hurt?",
                        {"q": "dist", "a": {"nth": 1, "pat": ("take hit", None)}, "b": {"nth": -1, "pat": ("take hit", None)}}, True)

    def o10a(self, out):
        return self.add(out, "10_existence", "yes/no", "Did Moss ever dig up a diamond?",
                        {"q": "exist", "pat": ("dig", "diamond")}, True)

    def o10b(self, out):
        return self.add(out, "10_existence", "yes/no", "Once the first stone pickaxe existed, did I ever pull iron out of the rock?",
                        {"q": "exist", "pat": ("dig", "iron"), "win": {"lo": {"sel": {"nth": 1, "pat": ("craft", "stone_pickaxe")}}}}, True)

    def o10c(self, out):
        return self.add(out, "10_existence", "yes/no", "Was the agent ever killed before the 400th step?",
                        {"q": "exist", "pat": ("perish", None), "win": {"hi": {"t": 399}}}, True)

    def o10d(self, out):
        return self.add(out, "10_existence", "yes/no", "In the whole episode, did you ever eat a ripe plant?",
                        {"q": "exist", "pat": ("pluck", "ripe plant")}, True)

    # -- assembly -------------------------------------------------------------------------------------
    def write(self):
        fams = ["1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset", "6_next_previous",
                "7_count", "8_order", "9_distance", "10_existence"]
        templ = [self.t1, self.t2, self.t3, self.t4, self.t5, self.t6, self.t7, self.t8, self.t9, self.t10]
        oneoffs = {
            0: [self.o1a, self.o1b, self.o1c], 1: [self.o2a, self.o2b, self.o2c], 2: [self.o3a, self.o3b, self.o3c],
            3: [self.o4a, self.o4b, self.o4c], 4: [self.o5a, self.o5b, self.o5c], 5: [self.o6a, self.o6b, self.o6c],
            6: [self.o7a, self.o7b, self.o7c], 7: [self.o8a, self.o8b, self.o8c], 8: [self.o9a, self.o9b, self.o9c],
            9: [self.o10a, self.o10b, self.o10c, self.o10d],
        }
        out: list[dict] = []
        for i, fam in enumerate(fams):
            mine: list[dict] = []
            gens = list(oneoffs[i])
            self.rng.shuffle(gens)
            for g in gens:
                if sum(q["_oneoff"] for q in mine) >= 2:
                    break
                self._try(g, mine)
            tries = 0
            while len(mine) < 6 and tries < 400:
                tries += 1
                if i == 9:
                    yes = sum(q["answer"] == "yes" for q in mine)
                    no = len(mine) - yes
                    self._try(lambda o: templ[i](o, want_no=(no < 2 or (yes >= 3))), mine)
                else:
                    self._try(templ[i], mine)
            if len(mine) != 6:
                raise RuntimeError(f"could not write six {fam} questions")
            out.extend(mine)
        return out

    def _try(self, gen, mine):
        self.verbatim_used = False
        before = len(mine)
        try:
            gen(mine)
        except (IndexError, ValueError, TypeError, KeyError):
            del mine[before:]
            return
        if len(mine) > before and self.verbatim_used:
            self.verbatim += 1


def _build(seed: int):
    episode, steps = simulate(seed)
    validate_steps(steps, episode)
    writer = _Writer(seed, episode, steps)
    qs = writer.write()
    questions, specs = [], []
    for q in qs:
        specs.append(q.pop("_spec"))
        q.pop("_oneoff")
        questions.append({"episode": episode, **q})
    return {"episodes": {episode: steps}, "questions": questions}, specs


def build(seed: int) -> dict:
    return _build(seed)[0]


def _main(argv: list[str]) -> int:
    from collections import Counter

    seeds = [int(a) for a in argv] or [SEED_RANGE[0], SEED_RANGE[1]]
    ok = True
    for seed in seeds:
        data, specs = _build(seed)
        (episode, steps), = data["episodes"].items()
        validate_steps(steps, episode)
        again = build(seed)
        same = again["questions"] == data["questions"] and again["episodes"][episode] == steps
        print(f"seed {seed}: episode {episode}, {len(steps)} steps, {len(data['questions'])} questions, rebuild identical: {same}")
        ok &= same and 300 <= len(steps) <= 1500 and [s.t for s in steps] == list(range(len(steps)))
        fam = Counter(q["family"] for q in data["questions"])
        slots = Counter(q["slot"] for q in data["questions"])
        print("  families:", dict(sorted(fam.items())))
        print("  slots:", dict(sorted(slots.items())))
        ok &= len(fam) == 10 and all(v == 6 for v in fam.values())
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", dict(sorted(kinds.items())))
        ev = Evaluator(episode, steps)
        for q, spec in zip(data["questions"], specs):
            res = ev.answer(spec)
            if res is None or res[0] != q["answer"] or res[1] != q["gold"]:
                print("  MISMATCH:", q, res)
                ok = False
            if any(not g.startswith(episode + ":") for g in q["gold"]):
                print("  BAD GOLD:", q)
                ok = False
            if not q["gold"] and q["answer"] not in ("no", "0", "none"):
                print("  EMPTY GOLD:", q)
                ok = False
        rng = random.Random(seed)
        for q in rng.sample(data["questions"], 15):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']}  gold={q['gold']}")
    print("self-check", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
