"""Held-out trajectory suite: Wick the scavenger in TextWorld houses.

The agent
---------
"Wick" is a treasure-minded scavenger. One episode plays several TextWorld games back to back (each
generated offline with ``textworld.generator.make_game`` from seeds derived from the suite seed, and
played through TextWorld's own logic engine, ``textworld.envs.tw.TextWorldEnv``, on the game object, so
every command is checked against the game's rules). In each house Wick ransacks room after room: it
opens every container it finds (unlocking it when it carries the matching key), takes everything
portable, tastes food, ditches junk when its pack is full or swaps a junk item for a new find by leaving
it on a table, re-reads things it carries, sometimes takes a wrong turn, backtracks through rooms it has
already seen, types commands the game refuses, and, toward the end of each house, follows the game's
own winning policy to complete the house's quest.

The records
-----------
One ``Step`` per command. ``action`` is the command as typed; ``observation`` a short narration;
``location`` the game's room name as region plus grid coordinates derived from the game's compass facts
(relative to the house's starting room, east = +x, north = +y); ``inventory`` what Wick carries after the
step; ``state`` the scalars ``house``, ``score`` (current house), ``total_score``, ``moves`` (commands
the game accepted in this house), ``load`` (items carried), ``rooms_searched``, ``containers_opened``,
``refusals``, ``carrying_key`` and ``mode`` (one of ransacking, roaming, backtracking, lost, questing).
``relations[0]`` names what the step acted on (an item, a container, a door, or the room entered).
Events are derived from the game's fact changes: ``arrive`` (a new house), ``step into``, ``discover``,
``backtrack``, ``wander off``, ``look around``, ``clean out`` (a room fully searched), ``pry open``
(a container), ``push open`` (a door), ``shut``, ``unlock``, ``grab``, ``swap for``, ``stash``,
``ditch``, ``taste``, ``inspect``, ``reread``, ``check pack``, ``get refused`` (the command as object),
``earn points`` and ``win quest``.

The questions
-------------
60 per seed, six of each of ten families (step index, n-th occurrence, windowed occurrence, condition,
offset, next/previous, count/list, order, distance, existence), with canonical answers and gold step
ids computed by the reference evaluator in this module (``evaluate``), a plain scan over the steps.
"""

from __future__ import annotations

import random
import re
import sys
from collections import deque

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout9_textworld"
SEED_RANGE = range(9900, 10000)

AGENT = "Wick"
MIN_STEPS, MAX_STEPS = 300, 800
PORTABLE = ("o", "k", "f")

# --------------------------------------------------------------------------------------------------
# Environment: TextWorld games generated offline and played through the logic engine.
# --------------------------------------------------------------------------------------------------


def _make_env(game_seed: int, rng: random.Random):
    from textworld.core import EnvInfos
    from textworld.envs.tw import TextWorldEnv
    from textworld.generator import make_game
    from textworld.generator.game import GameOptions
    from textworld.generator.inform7 import Inform7Game

    opts = GameOptions()
    opts.seeds = game_seed
    opts.nb_rooms = rng.randint(8, 12)
    opts.nb_objects = rng.randint(24, 34)
    opts.quest_length = rng.randint(3, 5)
    opts.chaining.max_length = opts.quest_length
    game = make_game(opts)
    env = TextWorldEnv(EnvInfos(policy_commands=True, moves=True))
    env._game = game
    env._inform7 = Inform7Game(game)
    env.reset()
    return env, game


class _World:
    """Reads the game's current facts into plain Python structures (names, not ids)."""

    def __init__(self, env, game):
        self.env = env
        self.game = game
        self.names = {k: str(v.name if v.name else k) for k, v in game.infos.items()}
        self.types = {k: str(v.type) for k, v in game.infos.items()}
        self.refresh()
        self.positions = self._layout()

    def name(self, ident: str) -> str:
        return self.names.get(ident, ident)

    def refresh(self) -> None:
        facts = self.env._game_progression.state.facts
        self.room = None
        self.inv: list[str] = []
        self.at: dict[str, list[str]] = {}
        self.inside: dict[str, list[str]] = {}
        self.on: dict[str, list[str]] = {}
        self.opened: set[str] = set()
        self.closed: set[str] = set()
        self.locked: set[str] = set()
        self.links: dict[str, list[tuple[str, str | None, str]]] = {}
        self.dirs: dict[tuple[str, str], str] = {}
        self.match: dict[str, str] = {}
        self.edible: set[str] = set()
        for f in sorted(facts, key=lambda p: (p.name, tuple(a.name for a in p.arguments))):
            n = str(f.name)
            a = [str(x.name) for x in f.arguments]
            if n == "at" and a[0] == "P":
                self.room = a[1]
            elif n == "at":
                self.at.setdefault(a[1], []).append(a[0])
            elif n == "in" and a[1] == "I":
                self.inv.append(a[0])
            elif n == "in":
                self.inside.setdefault(a[1], []).append(a[0])
            elif n == "on":
                self.on.setdefault(a[1], []).append(a[0])
            elif n == "open":
                self.opened.add(a[0])
            elif n == "closed":
                self.closed.add(a[0])
            elif n == "locked":
                self.locked.add(a[0])
            elif n == "match":
                self.match[a[1]] = a[0]
            elif n == "edible":
                self.edible.add(a[0])
            elif n == "link":
                self.links.setdefault(a[0], []).append((a[0], a[1], a[2]))
            elif n == "free":
                self.links.setdefault(a[0], []).append((a[0], None, a[1]))
            elif n in ("north_of", "south_of", "east_of", "west_of"):
                # north_of(A, B): A lies north of B, so from B one goes north to reach A.
                self.dirs[(a[1], a[0])] = n.split("_")[0]

    def _layout(self) -> dict[str, tuple[int, int]]:
        step = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
        pos = {self.room: (0, 0)}
        queue = deque([self.room])
        while queue:
            r = queue.popleft()
            for (src, dst), d in sorted(self.dirs.items()):
                if src == r and dst not in pos:
                    dx, dy = step[d]
                    pos[dst] = (pos[r][0] + dx, pos[r][1] + dy)
                    queue.append(dst)
        return pos

    def neighbours(self, room: str) -> list[tuple[str, str | None, str]]:
        """(direction, door or None, room) for each exit, in a fixed order."""
        out = []
        seen = set()
        for _, door, dst in self.links.get(room, []):
            if dst in seen or (room, dst) not in self.dirs:
                continue
            seen.add(dst)
            out.append((self.dirs[(room, dst)], door, dst))
        return sorted(out, key=lambda e: e[0])

    def containers_here(self) -> list[str]:
        return [x for x in self.at.get(self.room, []) if self.types.get(x) == "c"]

    def supporters_here(self) -> list[str]:
        return [x for x in self.at.get(self.room, []) if self.types.get(x) == "s"]

    def loose_items_here(self) -> list[tuple[str, str | None]]:
        """Portable items reachable in the room: (item, holder or None)."""
        out = [(x, None) for x in self.at.get(self.room, []) if self.types.get(x) in PORTABLE]
        for holder in self.at.get(self.room, []):
            t = self.types.get(holder)
            if t == "s" or (t == "c" and holder in self.opened):
                for x in self.inside.get(holder, []) + self.on.get(holder, []):
                    if self.types.get(x) in PORTABLE:
                        out.append((x, holder))
        return out

    def carried_keys(self) -> list[str]:
        return [x for x in self.inv if self.types.get(x) == "k"]


# --------------------------------------------------------------------------------------------------
# The agent.
# --------------------------------------------------------------------------------------------------

_NONSENSE = ("dance", "dig", "sleep", "sing", "pray", "jump", "xyzzy", "wait")


class _Wick:
    def __init__(self, seed: int):
        self.rng = random.Random(seed * 7919 + 17)
        self.seed = seed
        self.steps: list[Step] = []
        self.total_score = 0
        self.refusals = 0
        self.seen_examined: set[str] = set()

    # ---- running ---------------------------------------------------------------------------------
    def run(self) -> list[Step]:
        target = self.rng.randint(460, 680)
        house = 0
        while len(self.steps) < target and house < 14:
            house += 1
            remaining = MAX_STEPS - len(self.steps)
            if remaining < 40:
                break
            budget = min(self.rng.randint(110, 180), remaining)
            self.play_house(house, budget)
        return self.steps

    def play_house(self, house: int, budget: int) -> None:
        env, game = _make_env(self.seed * 100 + house, self.rng)
        self.env, self.game, self.house = env, game, house
        self.w = _World(env, game)
        self.visited = {self.w.room}
        self.searched: set[str] = set()
        self.left: set[str] = set()
        self.forbidden: set[str] = set()
        self.tried_locked: set[str] = set()
        self.blocked: set[str] = set()
        self.containers_opened = 0
        self.capacity = self.rng.randint(4, 6)
        self.mode = "ransacking"
        self.pending_take: tuple[str, str | None] | None = None
        start = len(self.steps)
        self.record("look", extra_events=[Event("arrive", f"house {house}")], first=True)
        questing = False
        while len(self.steps) - start < budget:
            if env._game_progression.done:
                break
            left_budget = budget - (len(self.steps) - start)
            policy = env.state["policy_commands"] or []
            if not questing and (left_budget <= len(policy) + 4 or self.nothing_left()):
                questing = True
            if questing:
                if not policy:
                    break
                self.mode = "questing"
                self.execute(policy[0], allow_win=True)
                continue
            cmd, meta = self.choose()
            if cmd is None:
                questing = True
                continue
            self.execute(cmd, meta=meta)

    # ---- decisions -------------------------------------------------------------------------------
    def admissible(self) -> list[str]:
        return self.env.state["admissible_commands"]

    def ok(self, cmd: str) -> bool:
        return cmd in self.admissible() and cmd not in self.forbidden

    def nothing_left(self) -> bool:
        return self.next_target() is None and self.room_done()

    def room_done(self) -> bool:
        w = self.w
        for c in w.containers_here():
            if c in w.closed and c not in w.locked and self.ok(f"open {w.name(c)}"):
                return False
            if c in w.locked and self.unlock_cmd(c) and self.ok(self.unlock_cmd(c)):
                return False
        for item, holder in w.loose_items_here():
            if item not in self.left and self.take_cmd(item, holder) in self.admissible() and self.take_cmd(item, holder) not in self.forbidden:
                return False
        return True

    def unlock_cmd(self, thing: str) -> str | None:
        key = self.w.match.get(thing)
        if key and key in self.w.inv:
            return f"unlock {self.w.name(thing)} with {self.w.name(key)}"
        return None

    def take_cmd(self, item: str, holder: str | None) -> str:
        if holder is None:
            return f"take {self.w.name(item)}"
        return f"take {self.w.name(item)} from {self.w.name(holder)}"

    def junk(self) -> list[str]:
        return [x for x in self.w.inv if self.w.types.get(x) == "o"]

    def refusal(self) -> str:
        w = self.w
        here = w.at.get(w.room, [])
        options = [self.rng.choice(_NONSENSE)]
        sups = [x for x in here if w.types.get(x) == "s"]
        if sups:
            s = w.name(self.rng.choice(sups))
            options += [f"climb {s}", f"open {s}", f"take {s}"]
        conts = [x for x in here if w.types.get(x) == "c"]
        if conts:
            options.append(f"kick {w.name(self.rng.choice(conts))}")
        junk = self.junk()
        if junk:
            j = w.name(self.rng.choice(junk))
            options += [f"eat {j}", f"read {j}"]
        exits = {d for d, _, _ in w.neighbours(w.room)}
        walls = [d for d in ("north", "south", "east", "west") if d not in exits]
        if walls:
            options.append(f"go {self.rng.choice(walls)}")
        for cmd in sorted(options, key=lambda c: self.rng.random()):
            if cmd not in self.admissible():
                return cmd
        return "xyzzy"

    def choose(self) -> tuple[str | None, dict]:
        w, rng = self.w, self.rng
        # A swap in progress: pick up the new find now that the junk is down.
        if self.pending_take is not None:
            item, holder = self.pending_take
            self.pending_take = None
            cmd = self.take_cmd(item, holder)
            if self.ok(cmd):
                return cmd, {"swap": True}
        r = rng.random()
        if r < 0.06:
            return self.refusal(), {"refuse": True}
        if r < 0.08:
            return "inventory", {}
        if r < 0.13 and w.inv:
            item = rng.choice(w.inv)
            cmd = f"examine {w.name(item)}"
            if self.ok(cmd):
                return cmd, {"examine": item}
        # Taste carried food.
        foods = [x for x in w.inv if x in w.edible and self.ok(f"eat {w.name(x)}")]
        if foods and rng.random() < 0.45:
            return f"eat {w.name(foods[0])}", {}
        # Containers in the room.
        self.mode = "ransacking"
        for c in w.containers_here():
            if c in w.locked:
                cmd = self.unlock_cmd(c)
                if cmd and self.ok(cmd):
                    return cmd, {}
                if c not in self.tried_locked:
                    self.tried_locked.add(c)
                    return f"open {w.name(c)}", {"refuse": True, "why": "locked"}
            elif c in w.closed and self.ok(f"open {w.name(c)}"):
                return f"open {w.name(c)}", {}
        # Portable items.
        for item, holder in w.loose_items_here():
            if item in self.left:
                continue
            cmd = self.take_cmd(item, holder)
            if not self.ok(cmd):
                continue
            if len(w.inv) >= self.capacity:
                junk = self.junk()
                if not junk:
                    food = [x for x in w.inv if x in w.edible and self.ok(f"eat {w.name(x)}")]
                    if food:
                        return f"eat {w.name(food[0])}", {}
                    self.left.add(item)
                    continue
                j = junk[0]
                sups = w.supporters_here()
                if sups and rng.random() < 0.45:
                    put = f"put {w.name(j)} on {w.name(sups[0])}"
                    if self.ok(put):
                        self.left.add(j)
                        self.pending_take = (item, holder)
                        return put, {"stash": True}
                drop = f"drop {w.name(j)}"
                if self.ok(drop):
                    self.left.add(j)
                    return drop, {}
                self.left.add(item)
                continue
            return cmd, {}
        if w.room not in self.searched:
            self.searched.add(w.room)
            return "look", {"cleaned": True}
        # Move on.
        self.mode = "roaming"
        nxt = self.next_target()
        if nxt is None:
            return None, {}
        direction, door, dst = nxt
        if door is not None and door in w.locked:
            cmd = self.unlock_cmd(door)
            if cmd and self.ok(cmd):
                return cmd, {}
            self.blocked.add(door)
            return f"open {w.name(door)}", {"refuse": True, "why": "locked"}
        if door is not None and door in w.closed:
            cmd = f"open {w.name(door)}"
            if self.ok(cmd):
                return cmd, {}
            self.blocked.add(door)
            return self.choose()
        cmd = f"go {direction}"
        if rng.random() < 0.09:
            others = [c for c in self.admissible() if c.startswith("go ") and c != cmd and c not in self.forbidden]
            if others:
                return rng.choice(others), {"lost": True}
        if dst in self.visited:
            self.mode = "backtracking"
        return cmd, {}

    def passable(self, door: str | None) -> bool:
        w = self.w
        if door is None or door in w.opened:
            return True
        if door in self.blocked:
            return False
        if door in w.locked:
            return self.unlock_cmd(door) is not None or door not in self.blocked
        return True

    def next_target(self):
        """First hop toward the nearest unsearched room (BFS over passable exits)."""
        w = self.w
        start = w.room
        prev: dict[str, tuple] = {start: None}
        queue = deque([start])
        while queue:
            r = queue.popleft()
            if r != start and r not in self.searched:
                hop = prev[r]
                while hop[0] != start:
                    hop = prev[hop[0]]
                return hop[1]
            for direction, door, dst in w.neighbours(r):
                if dst in prev or not self.passable(door):
                    continue
                if f"go {direction}" in self.forbidden and r == start:
                    continue
                prev[dst] = (r, (direction, door, dst))
                queue.append(dst)
        return None

    # ---- acting and recording -------------------------------------------------------------------
    def safe(self, cmd: str, allow_win: bool) -> bool:
        """Look ahead in a copy of the game's progression: never fail the quest, and leave scoring
        for the end of the house."""
        gp = self.env._game_progression
        try:
            idx = self.env.state["_valid_commands"].index(cmd)
        except ValueError:
            return True
        g2 = gp.copy()
        g2.update(gp.valid_actions[idx])
        if g2.failed:
            return False
        if not allow_win and (g2.completed or g2.score > gp.score):
            return False
        return True

    def execute(self, cmd: str, meta: dict | None = None, allow_win: bool = False) -> None:
        meta = meta or {}
        if not allow_win and not self.safe(cmd, allow_win):
            self.forbidden.add(cmd)
            if meta.get("swap"):
                return
            cmd2, meta2 = self.choose()
            if cmd2 is None or not self.safe(cmd2, False):
                if cmd2 is not None:
                    self.forbidden.add(cmd2)
                cmd2, meta2 = "look", {}
            cmd, meta = cmd2, meta2
        self.record(cmd, meta=meta)

    def record(self, cmd: str, meta: dict | None = None, extra_events=None, first: bool = False) -> None:
        meta = meta or {}
        w, env = self.w, self.env
        before_room = w.room
        before_inv = list(w.inv)
        before_open = set(w.opened)
        before_closed = set(w.closed)
        before_locked = set(w.locked)
        before_score = env._game_progression.score
        accepted = cmd in env.state["admissible_commands"]
        env.step(cmd)
        w.refresh()
        events: list[Event] = list(extra_events or [])
        target = w.name(w.room)
        obs: list[str] = []
        if not accepted:
            self.refusals += 1
            events.append(Event("get refused", cmd))
            why = meta.get("why")
            obs.append("It's locked." if why == "locked" else "That's not a verb I recognise, or you can't do that here.")
            words = cmd.split(" ", 1)
            target = words[1].split(" with ")[0] if len(words) > 1 else words[0]
        moved = w.room != before_room
        if moved:
            room = w.name(w.room)
            events.append(Event("step into", room))
            if w.room in self.visited:
                events.append(Event("backtrack", room))
                if self.mode != "lost":
                    self.mode = "backtracking"
            else:
                events.append(Event("discover", room))
                self.mode = "roaming"
            if meta.get("lost"):
                events.append(Event("wander off", room))
                self.mode = "lost"
            self.visited.add(w.room)
            target = room
            exits = ", ".join(d for d, _, _ in w.neighbours(w.room))
            obs.append(f"-= {room.title()} =- Exits: {exits or 'none'}.")
        if accepted and cmd == "look" and not first:
            if meta.get("cleaned"):
                events.append(Event("clean out", w.name(w.room)))
                obs.append(f"Nothing left worth taking in the {w.name(w.room)}.")
            else:
                events.append(Event("look around", w.name(w.room)))
        if first:
            events.append(Event("look around", w.name(w.room)))
            obs.append(f"A new house. You are in the {w.name(w.room)}.")
        if accepted and cmd == "inventory":
            events.append(Event("check pack"))
            target = "pack"
            obs.append("You are carrying: " + (", ".join(w.name(x) for x in w.inv) or "nothing") + ".")
        if accepted and "examine" in meta:
            item = w.name(meta["examine"])
            events.append(Event("reread" if item in self.seen_examined else "inspect", item))
            self.seen_examined.add(item)
            target = item
            obs.append(f"You look the {item} over carefully.")
        for thing in sorted(before_locked - w.locked):
            events.append(Event("unlock", w.name(thing)))
            target = w.name(thing)
            obs.append(f"You unlock the {w.name(thing)}.")
        for thing in sorted(w.opened - before_open):
            kind = "pry open" if w.types.get(thing) == "c" else "push open"
            events.append(Event(kind, w.name(thing)))
            target = w.name(thing)
            if kind == "pry open":
                self.containers_opened += 1
                inside = [w.name(x) for x in w.inside.get(thing, [])]
                obs.append(f"You open the {w.name(thing)}, revealing " + (", ".join(inside) or "nothing") + ".")
            else:
                obs.append(f"You open the {w.name(thing)}.")
        for thing in sorted((w.closed - before_closed) - before_locked):
            if thing not in before_closed:
                events.append(Event("shut", w.name(thing)))
                target = w.name(thing)
                obs.append(f"You close the {w.name(thing)}.")
        gained = [x for x in w.inv if x not in before_inv]
        lost = [x for x in before_inv if x not in w.inv]
        for x in lost:
            name = w.name(x)
            if cmd.startswith("eat "):
                events.append(Event("taste", name))
                obs.append(f"You eat the {name}. Not bad.")
            elif cmd.startswith("put ") or cmd.startswith("insert "):
                events.append(Event("stash", name))
                obs.append(f"You leave the {name} behind.")
            else:
                events.append(Event("ditch", name))
                obs.append(f"You drop the {name}.")
            target = name
        for x in gained:
            name = w.name(x)
            events.append(Event("swap for" if meta.get("swap") else "grab", name))
            obs.append(f"You take the {name}.")
            target = name
        score = env._game_progression.score
        if score > before_score:
            self.total_score += score - before_score
            events.append(Event("earn points", "score", score - before_score))
            obs.append(f"Your score has just gone up by {score - before_score} points.")
        if env._game_progression.completed:
            events.append(Event("win quest", f"house {self.house}"))
            obs.append("*** The End *** You completed the quest.")
        if accepted and not events:
            obs.append("Done.")
        x, y = w.positions.get(w.room, (0, 0))
        inv: dict[str, int] = {}
        for item in w.inv:
            inv[w.name(item)] = inv.get(w.name(item), 0) + 1
        if not accepted and self.mode == "lost":
            pass
        state = {
            "house": self.house,
            "score": score,
            "total_score": self.total_score,
            "moves": int(env._moves),
            "load": len(w.inv),
            "rooms_searched": len(self.searched),
            "containers_opened": self.containers_opened,
            "refusals": self.refusals,
            "carrying_key": bool(w.carried_keys()),
            "mode": self.mode,
        }
        verb = "tried" if not accepted else "acted on"
        if moved:
            verb = "entered"
        self.steps.append(
            Step(
                t=len(self.steps),
                action=cmd,
                summary=f"{AGENT} in the {w.name(w.room)}: {cmd}",
                objects=tuple(sorted({target} | set(inv))),
                events=tuple(events),
                relations=(Relation(AGENT, verb, target),),
                inventory=inv,
                state=state,
                location=Location(position=(x, y), region=w.name(w.room)),
                observation=" ".join(obs) or "Nothing happens.",
            )
        )


def simulate(seed: int) -> list[Step]:
    return _Wick(seed).run()


# --------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the steps.
# --------------------------------------------------------------------------------------------------


def _matches(step: Step, pat) -> bool:
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def _cond_ok(step: Step, cond) -> bool:
    src, key, op, val = cond
    if src == "item":
        cur = step.inventory_dict.get(key, 0)
    else:
        cur = step.state_dict.get(key)
        if cur is None:
            return False
    if op == ">=":
        return cur >= val
    if op == "<=":
        return cur <= val
    if op == ">":
        return cur > val
    if op == "==":
        return cur == val
    raise ValueError(op)


def _window(steps, win):
    """win = (lo, hi); each bound None, ("t", n) inclusive, or ("after"/"before", anchor) exclusive."""
    lo, hi, gold = 0, len(steps) - 1, []
    if win is None:
        return lo, hi, gold
    a, b = win
    for bound, is_lo in ((a, True), (b, False)):
        if bound is None:
            continue
        if bound[0] == "t":
            v = bound[1]
        else:
            r = resolve(steps, bound[1])
            if r is None:
                return None
            v = r[0] + (1 if bound[0] == "after" else -1)
            gold += r[1]
        if is_lo:
            lo = max(lo, v)
        else:
            hi = min(hi, v)
    return lo, hi, gold


def resolve(steps, anchor):
    """An anchor as (t, gold ids' t list) or None."""
    kind = anchor[0]
    if kind == "t":
        return (anchor[1], []) if 0 <= anchor[1] < len(steps) else None
    if kind == "occ":
        _, pat, n, win = anchor
        w = _window(steps, win)
        if w is None:
            return None
        lo, hi, gold = w
        hits = [s.t for s in steps[lo:hi + 1] if _matches(s, pat)] if lo <= hi else []
        if not hits or abs(n) > len(hits) or n == 0:
            return None
        t = hits[n - 1] if n > 0 else hits[n]
        return t, gold + [t]
    if kind == "cond":
        _, cond, which = anchor
        hits = [s.t for s in steps if _cond_ok(s, cond)]
        if not hits:
            return None
        t = hits[0] if which == "first" else hits[-1]
        return t, [t]
    if kind == "off":
        _, base, k = anchor
        r = resolve(steps, base)
        if r is None or not 0 <= r[0] + k < len(steps):
            return None
        return r[0] + k, r[1] + [r[0] + k]
    raise ValueError(anchor)


def _fmt_inv(step: Step) -> str:
    items = [(n, c) for n, c in step.inventory if c > 0]
    return ", ".join(f"{n} {c}" for n, c in sorted(items)) or "empty"


def _fmt_events(step: Step) -> str:
    return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events) or "none"


def slot_value(step: Step, slot: str, arg=None) -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        return f"{step.location.position[0]},{step.location.position[1]}"
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        return _fmt_inv(step)
    if slot == "state":
        return str(step.state_dict[arg])
    if slot == "facing":
        return step.relations[0].obj
    if slot == "events":
        return _fmt_events(step)
    raise ValueError(slot)


def _label(pat) -> str:
    return f"{pat[0]} {pat[1]}" if pat[1] else pat[0]


def evaluate(steps, spec, episode: str):
    """(answer, gold) for a question spec, or None when the spec has no single answer."""
    op = spec["op"]
    ids = lambda ts: [f"{episode}:{t}" for t in sorted(set(ts))]  # noqa: E731
    if op == "slot":
        r = resolve(steps, spec["anchor"])
        if r is None:
            return None
        t, gold = r
        return slot_value(steps[t], spec["slot"], spec.get("arg")), ids(gold + [t])
    if op in ("count", "list", "exists"):
        w = _window(steps, spec.get("win"))
        if w is None:
            return None
        lo, hi, gold = w
        hits = [s for s in steps[lo:hi + 1] if _matches(s, spec["pat"])] if lo <= hi else []
        if op == "count":
            ts = [s.t for s in hits]
            g = ts if len(ts) <= 5 else ts[-1:]
            return str(len(hits)), ids(gold + g)
        if op == "exists":
            return ("yes", ids(gold + [hits[0].t])) if hits else ("no", ids(gold))
        kind = spec["pat"][0]
        objs = sorted({e.obj for s in hits for e in s.events if e.kind == kind and e.obj})
        ts = [s.t for s in hits]
        g = ts if len(ts) <= 5 else ts[-1:]
        return (", ".join(objs) or "none"), ids(gold + g)
    if op == "first":
        ra, rb = resolve(steps, spec["a"]), resolve(steps, spec["b"])
        if ra is None or rb is None or ra[0] == rb[0]:
            return None
        la, lb = spec["labels"]
        return (la if ra[0] < rb[0] else lb), ids(ra[1] + rb[1])
    if op == "dist":
        ra, rb = resolve(steps, spec["a"]), resolve(steps, spec["b"])
        if ra is None or rb is None:
            return None
        return str(abs(rb[0] - ra[0])), ids(ra[1] + rb[1] + ([ra[0]] if spec["a"][0] == "t" and False else []))
    raise ValueError(op)


# --------------------------------------------------------------------------------------------------
# Question writing.
# --------------------------------------------------------------------------------------------------

# kind -> (verbatim past, verbatim base, [(paraphrase past, paraphrase base), ...]); {o} is the object.
PHRASES = {
    "grab": ("grabbed the {o}", "grab the {o}", [("picked up the {o}", "pick up the {o}"), ("took the {o}", "take the {o}"), ("pocketed the {o}", "pocket the {o}")]),
    "taste": ("tasted the {o}", "taste the {o}", [("ate the {o}", "eat the {o}"), ("had a bite of the {o}", "have a bite of the {o}")]),
    "ditch": ("ditched the {o}", "ditch the {o}", [("dropped the {o}", "drop the {o}"), ("got rid of the {o}", "get rid of the {o}")]),
    "stash": ("stashed the {o}", "stash the {o}", [("left the {o} on a table in trade", "leave the {o} behind in trade"), ("set the {o} down to make room", "set the {o} down to make room")]),
    "swap for": ("swapped for the {o}", "swap for the {o}", [("traded some junk for the {o}", "trade some junk for the {o}")]),
    "pry open": ("pried open the {o}", "pry open the {o}", [("opened the {o}", "open the {o}"), ("got the {o} open", "get the {o} open")]),
    "push open": ("pushed open the {o}", "push open the {o}", [("swung the {o} open", "swing the {o} open")]),
    "unlock": ("unlocked the {o}", "unlock the {o}", [("used a key on the {o}", "use a key on the {o}")]),
    "shut": ("shut the {o}", "shut the {o}", [("closed the {o}", "close the {o}")]),
    "step into": ("stepped into the {o}", "step into the {o}", [("walked into the {o}", "walk into the {o}"), ("entered the {o}", "enter the {o}")]),
    "discover": ("discovered the {o}", "discover the {o}", [("came upon the {o} as a new room", "come upon the {o} as a new room"), ("found the {o}", "find the {o}")]),
    "backtrack": ("backtracked to the {o}", "backtrack to the {o}", [("went back to the {o}", "go back to the {o}"), ("doubled back into the {o}", "double back into the {o}")]),
    "wander off": ("wandered off into the {o}", "wander off into the {o}", [("took a wrong turn into the {o}", "take a wrong turn into the {o}"), ("got lost and ended up in the {o}", "get lost and end up in the {o}")]),
    "clean out": ("cleaned out the {o}", "clean out the {o}", [("finished searching the {o}", "finish searching the {o}"), ("was done ransacking the {o}", "finish ransacking the {o}")]),
    "reread": ("reread the {o}", "reread the {o}", [("looked over the {o} again", "look over the {o} again")]),
    "inspect": ("inspected the {o}", "inspect the {o}", [("examined the {o} for the first time", "examine the {o} for the first time")]),
    "get refused": ("got refused on '{o}'", "get refused on '{o}'", [("typed '{o}' and the game would not allow it", "type '{o}' and have the game reject it"), ("had the command '{o}' rejected", "have the command '{o}' rejected")]),
    "arrive": ("arrived at {o}", "arrive at {o}", [("started on {o}", "start on {o}")]),
    "win quest": ("won the quest of {o}", "win the quest of {o}", [("completed the job in {o}", "complete the job in {o}"), ("finished the objective of {o}", "finish the objective of {o}")]),
    "earn points": ("earned points", "earn points", [("scored", "score"), ("got points", "get points")]),
    "check pack": ("checked the pack", "check the pack", [("looked through the inventory", "look through the inventory"), ("took stock of what was carried", "take stock of what was carried")]),
    "look around": ("looked around the {o}", "look around the {o}", [("surveyed the {o}", "survey the {o}")]),
}

# Plural-ish nouns for list questions: kind -> phrase after "which ... did".
LIST_PHRASES = {
    "grab": ("items did {s} grab", "things did {s} pick up"),
    "ditch": ("items did {s} ditch", "things did {s} throw away"),
    "pry open": ("containers did {s} pry open", "containers did {s} open"),
    "discover": ("rooms did {s} discover", "new rooms did {s} find"),
    "backtrack": ("rooms did {s} backtrack to", "rooms did {s} go back to"),
    "taste": ("foods did {s} taste", "foods did {s} eat"),
    "reread": ("things did {s} reread", "things did {s} look over again"),
}

STATE_DESC = {
    "score": ["the score for the current house", "the house score"],
    "total_score": ["the overall score", "the running total of points"],
    "moves": ["the move counter", "the number of accepted moves in this house"],
    "load": ["the load carried", "how many things were in the pack"],
    "rooms_searched": ["the count of rooms searched", "how many rooms had been searched"],
    "containers_opened": ["the count of containers opened", "the number of containers opened so far in the house"],
    "refusals": ["the refusal counter", "the tally of rejected commands"],
    "carrying_key": ["the carrying_key flag", "whether a key was being carried (True/False)"],
    "mode": ["the agent's mode", "the mode (ransacking, roaming, backtracking, lost or questing)"],
    "house": ["the house number", "which house number it was"],
}

SUBJECTS = [("I", "my"), ("we", "our"), ("Wick", "Wick's"), ("the agent", "the agent's"), ("you", "your"), ("it", "its")]
ORD_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}


def _ordinal(n: int, rng) -> str:
    if n == -1:
        return "last"
    if n == -2:
        return "second-to-last"
    if rng.random() < 0.5 and n in ORD_WORDS:
        return ORD_WORDS[n]
    suf = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suf}"


class _Writer:
    def __init__(self, steps, episode, seed):
        self.steps = steps
        self.ep = episode
        self.rng = random.Random(seed * 31 + 5)
        self.out: list[tuple[dict, dict]] = []
        self.seen_q: set[str] = set()
        self.verbatim = 0
        # occurrences per (kind, obj)
        self.occ: dict[tuple[str, str], list[int]] = {}
        self.kind_occ: dict[str, list[int]] = {}
        for s in steps:
            for e in s.events:
                self.occ.setdefault((e.kind, e.obj), [])
                if not self.occ[(e.kind, e.obj)] or self.occ[(e.kind, e.obj)][-1] != s.t:
                    self.occ[(e.kind, e.obj)].append(s.t)
                self.kind_occ.setdefault(e.kind, [])
                if not self.kind_occ[e.kind] or self.kind_occ[e.kind][-1] != s.t:
                    self.kind_occ[e.kind].append(s.t)
        self.items = sorted({n for s in steps for n, _ in s.inventory})

    # -- helpers --
    def subj(self):
        return self.rng.choice(SUBJECTS)

    def vp(self, pat, base=False, allow_verbatim=True):
        kind, obj = pat
        vpast, vbase, paras = PHRASES[kind]
        use_verbatim = allow_verbatim and self.verbatim < 24 and self.rng.random() < 0.35
        if use_verbatim:
            self.verbatim += 1
            text = vbase if base else vpast
        else:
            p = self.rng.choice(paras)
            text = p[1] if base else p[0]
        text = text.format(o=obj or "")
        for generic in ("something", "anything", "a room", "some room"):
            text = text.replace(f"the {generic}", generic)
        return text

    def pats(self, min_n=1, kinds=None, with_obj=True):
        out = []
        for (k, o), ts in sorted(self.occ.items()):
            if k not in PHRASES or (kinds and k not in kinds):
                continue
            if with_obj and not o and k not in ("check pack", "earn points"):
                continue
            if len(ts) >= min_n:
                out.append(((k, o if o and k != "earn points" else None), ts))
        return out

    def add(self, family, slot, question, spec):
        res = evaluate(self.steps, spec, self.ep)
        if res is None or question in self.seen_q:
            return False
        answer, gold = res
        if slot in ("yes/no",) and answer not in ("yes", "no"):
            return False
        if answer and len(answer) < 60 and answer.lower() in question.lower() and slot not in ("yes/no", "which-first", "count", "duration", "step", "item", "state"):
            return False
        self.seen_q.add(question)
        self.out.append(({"episode": self.ep, "family": family, "slot": slot, "question": question,
                          "answer": answer, "gold": gold}, spec))
        return True

    def slot_phrase(self, slot, when, arg=None):
        s, poss = self.subj()
        for cand, cposs in (SUBJECTS[2], SUBJECTS[3], SUBJECTS[1], SUBJECTS[4], SUBJECTS[0], SUBJECTS[5]):
            if re.search(r"\b" + cand + r"\b", when):
                s, poss = cand, cposs
                break
        be = "were" if s in ("we", "you") else "was"
        r = self.rng.random() < 0.5
        if slot == "action":
            return f"What command did {s} type {when}?" if r else f"{when[0].upper() + when[1:]}, what exactly was the command?"
        if slot == "step":
            return f"What step number was it {when}?" if r else f"Give the step index for this moment: {when}."
        if slot == "location":
            return f"Which room {be} {s} in {when}?" if r else f"{when[0].upper() + when[1:]}, where {be} {s}?"
        if slot == "position":
            return f"What were {poss} grid coordinates (x,y) {when}?"
        if slot == "item":
            return f"How many {arg} did {s} have {when}?" if r else f"{when[0].upper() + when[1:]}, how many {arg} were in {poss} pack?"
        if slot == "inventory":
            return f"What {be} {s} carrying {when}?" if r else f"List the contents of {poss} pack {when}."
        if slot == "state":
            desc = self.rng.choice(STATE_DESC[arg])
            return f"What was {desc} {when}?"
        if slot == "facing":
            return f"What did {s} act on or move into {when}?" if r else f"{when[0].upper() + when[1:]}, what was the object of {poss} action?"
        if slot == "events":
            return f"What events were logged {when}?" if r else f"{when[0].upper() + when[1:]}, what happened, event by event?"
        raise ValueError(slot)

    def pick_slot(self, slots):
        slot = self.rng.choice(slots)
        arg = None
        if slot == "item":
            arg = self.rng.choice(self.items) if self.items else None
            if arg is None:
                slot, arg = "location", None
        if slot == "state":
            arg = self.rng.choice(sorted(STATE_DESC))
        return slot, arg

    # -- families --
    def fam1(self):
        n = len(self.steps)
        slots = ["action", "location", "position", "item", "inventory", "state", "facing", "events"]
        tries = 0
        done = 0
        while done < 4 and tries < 60:
            tries += 1
            t = self.rng.randrange(1, n)
            slot, arg = self.pick_slot(slots[done * 2: done * 2 + 2] if done < 4 else slots)
            when = self.rng.choice([f"at step {t}", f"on step {t}", f"at t={t}", f"right after step {t} was taken"])
            if self.add("1_step_index", slot, self.slot_phrase(slot, when, arg), {"op": "slot", "anchor": ("t", t), "slot": slot, "arg": arg}):
                done += 1
        # hand-worded
        t = self.rng.randrange(5, n)
        s, poss = self.subj()
        self.add("1_step_index", "state", f"Was {poss} pack holding a key once step {t} finished? Answer with the carrying_key value.",
                 {"op": "slot", "anchor": ("t", t), "slot": "state", "arg": "carrying_key"})
        t = self.rng.randrange(5, n)
        self.add("1_step_index", "state", f"Step {t}: which mode was Wick in at that point (ransacking, roaming, backtracking, lost or questing)?",
                 {"op": "slot", "anchor": ("t", t), "slot": "state", "arg": "mode"})

    def fam2(self):
        pats = self.pats(2)
        self.rng.shuffle(pats)
        slots = ["step", "location", "inventory", "state", "position", "facing", "action", "events"]
        count = 0
        for pat, ts in pats:
            if count >= 4:
                break
            if pat[0] == "earn points":
                continue
            n = self.rng.choice([k for k in (1, 2, 3, -1, -2) if abs(k) <= len(ts)])
            slot, arg = self.pick_slot([slots[count * 2], slots[count * 2 + 1]])
            s, _ = self.subj()
            when = f"when {s} {self.vp(pat)} for the {_ordinal(n, self.rng)} time" if n > 0 else f"the {_ordinal(n, self.rng)} time {s} {self.vp(pat)}"
            if self.add("2_nth_occurrence", slot, self.slot_phrase(slot, when, arg), {"op": "slot", "anchor": ("occ", pat, n, None), "slot": slot, "arg": arg}):
                count += 1
        # hand-worded
        ts = self.kind_occ.get("get refused", [])
        if len(ts) >= 2:
            n = min(2, len(ts))
            self.add("2_nth_occurrence", "action", f"Think back to the {_ordinal(n, self.rng)} command the game turned down: what had been typed?",
                     {"op": "slot", "anchor": ("occ", ("get refused", None), n, None), "slot": "action"})
        ts = self.kind_occ.get("discover", [])
        if len(ts) >= 3:
            self.add("2_nth_occurrence", "location", "Of all the rooms Wick set foot in for the first time, which one was the third such room?",
                     {"op": "slot", "anchor": ("occ", ("discover", None), 3, None), "slot": "location"})
        self._fill("2_nth_occurrence", 6, self._fill2)

    def _fill2(self):
        pats = self.pats(1)
        pat, ts = self.rng.choice(pats)
        s, _ = self.subj()
        return "step", f"At what step did {s} {self.vp(pat, base=True)} for the last time?" .replace(f"did {s} ", f"did {s} "), {"op": "slot", "anchor": ("occ", pat, -1, None), "slot": "step"}

    def _fill(self, family, want, maker, tries=40):
        while sum(1 for q, _ in self.out if q["family"] == family) < want and tries > 0:
            tries -= 1
            slot, text, spec = maker()
            self.add(family, slot, text, spec)

    def fam3(self):
        n = len(self.steps)
        count = 0
        slots = ["step", "location", "inventory", "facing"]
        for _ in range(40):
            if count >= 4:
                break
            kind = self.rng.choice(["grab", "pry open", "step into", "ditch", "taste", "backtrack", "get refused"])
            a = self.rng.randrange(0, n // 2)
            b = self.rng.randrange(a + 40, min(n, a + 250)) if a + 40 < n else n - 1
            hits = [t for t in self.kind_occ.get(kind, []) if a <= t <= b]
            if len(hits) < 2:
                continue
            m = self.rng.choice([1, 2, -1]) if len(hits) >= 2 else 1
            slot = slots[count]
            s, _ = self.subj()
            o = "something" if kind not in ("step into", "backtrack") else "some room"
            vp = self.vp((kind, o))
            if kind == "get refused":
                vp = self.rng.choice(["had a command rejected", "typed something the game refused"])
            when = f"the {_ordinal(m, self.rng)} time {s} {vp} between steps {a} and {b}"
            spec = {"op": "slot", "anchor": ("occ", (kind, None), m, (("t", a), ("t", b))), "slot": slot}
            if self.add("3_windowed_occurrence", slot, self.slot_phrase(slot, when), spec):
                count += 1
        # after another occurrence (hand-worded)
        ts = self.kind_occ.get("win quest", [])
        if ts:
            self.add("3_windowed_occurrence", "step",
                     "Once the first house's job was done, when did Wick next pick something up?",
                     {"op": "slot", "anchor": ("occ", ("grab", None), 1, (("after", ("occ", ("win quest", None), 1, None)), None)), "slot": "step"})
        first_n = self.rng.randrange(60, 140)
        self.add("3_windowed_occurrence", "location",
                 f"Within the opening {first_n} steps, in what room did the final backtrack happen?",
                 {"op": "slot", "anchor": ("occ", ("backtrack", None), -1, (("t", 0), ("t", first_n - 1))), "slot": "location"})
        self._fill("3_windowed_occurrence", 6, self._fill3)

    def _fill3(self):
        pats = self.pats(1, kinds=["grab", "pry open", "discover", "taste", "ditch"])
        pat, ts = self.rng.choice(pats)
        s, _ = self.subj()
        a = ("occ", ("arrive", None), self.rng.choice([2, 3]), None)
        return "step", f"After {s} reached the next house, at which step did {s} first {self.vp((pat[0], 'anything' if pat[0] != 'discover' else 'a room'), base=True)}?", \
            {"op": "slot", "anchor": ("occ", (pat[0], None), 1, (("after", a), None)), "slot": "step"}

    def fam4(self):
        loads = [s.state_dict["load"] for s in self.steps]
        maxload = max(loads)
        specs = []
        k = max(1, maxload - self.rng.choice([0, 1]))
        s, poss = self.subj()
        specs.append(("step", f"When did {poss} load first reach {k} items or more?", ("cond", ("state", "load", ">=", k), "first"), "step", None))
        rs = max(s.state_dict["rooms_searched"] for s in self.steps)
        k2 = max(1, rs - 1)
        specs.append(("location", f"Where {'were' if s in ('we', 'you') else 'was'} {s} standing the first time the rooms-searched counter hit {k2}?", ("cond", ("state", "rooms_searched", ">=", k2), "first"), "location", None))
        tot = max(s.state_dict["total_score"] for s in self.steps)
        if tot >= 1:
            kk = self.rng.randint(1, tot)
            specs.append(("inventory", f"As soon as the overall score got to {kk}, what did the pack hold?", ("cond", ("state", "total_score", ">=", kk), "first"), "inventory", None))
        specs.append(("step", "At what step was Wick last seen in 'lost' mode?", ("cond", ("state", "mode", "==", "lost"), "last"), "step", None))
        specs.append(("position", "Where on the grid (x,y) was the agent the first time it went into questing mode?", ("cond", ("state", "mode", "==", "questing"), "first"), "position", None))
        specs.append(("action", "What was the command on the first step that left the agent carrying a key?", ("cond", ("state", "carrying_key", "==", True), "first"), "action", None))
        if self.items:
            it = self.rng.choice(self.items)
            specs.append(("state", f"The last time {s} had a {it} in the pack, what house number was it?", ("cond", ("item", it, ">=", 1), "last"), "state", "house"))
        rf = max(s.state_dict["refusals"] for s in self.steps)
        if rf >= 3:
            kr = self.rng.randint(2, rf)
            specs.append(("facing", f"What did the agent try to act on when its refusal count first exceeded {kr - 1}?", ("cond", ("state", "refusals", ">", kr - 1), "first"), "facing", None))
        specs.append(("step", "When did the pack last drop to holding nothing at all?", ("cond", ("state", "load", "<=", 0), "last"), "step", None))
        self.rng.shuffle(specs)
        for slot, text, anchor, sl, arg in specs:
            if sum(1 for q, _ in self.out if q["family"] == "4_condition") >= 6:
                break
            self.add("4_condition", slot, text, {"op": "slot", "anchor": anchor, "slot": sl, "arg": arg})

    def fam5(self):
        n = len(self.steps)
        count = 0
        for _ in range(40):
            if count >= 4:
                break
            k = self.rng.choice([1, 2, 3, 5, -1, -2, -3])
            slot, arg = self.pick_slot(["action", "location", "inventory", "events", "state", "facing"])
            s, _ = self.subj()
            if count % 2 == 0:
                t = self.rng.randrange(5, n - 5)
                base = ("t", t)
                bdesc = f"step {t}"
            else:
                pats = self.pats(1, kinds=["grab", "pry open", "unlock", "discover", "taste", "ditch", "clean out"])
                pat, ts = self.rng.choice(pats)
                nn = self.rng.choice([1, -1]) if len(ts) > 1 else 1
                base = ("occ", pat, nn, None)
                bdesc = f"{s} {'first' if nn == 1 else 'last'} {self.vp(pat)}"
            when = f"{abs(k)} step{'s' if abs(k) > 1 else ''} {'after' if k > 0 else 'before'} {bdesc}"
            if self.add("5_offset", slot, self.slot_phrase(slot, when, arg), {"op": "slot", "anchor": ("off", base, k), "slot": slot, "arg": arg}):
                count += 1
        ts = self.kind_occ.get("win quest", [])
        if ts:
            self.add("5_offset", "action", "Just before the very first quest was wrapped up, what was the command one step earlier?",
                     {"op": "slot", "anchor": ("off", ("occ", ("win quest", None), 1, None), -1), "slot": "action"})
        self.add("5_offset", "inventory", "Right before the agent first crossed into a room it had already seen, what was in its pack?",
                 {"op": "slot", "anchor": ("off", ("occ", ("backtrack", None), 1, None), -1), "slot": "inventory"})
        self._fill("5_offset", 6, lambda: ("location", f"Two steps after step {self.rng.randrange(3, n - 3)}, where was Wick?", None) if False else self._fill5())

    def _fill5(self):
        t = self.rng.randrange(3, len(self.steps) - 3)
        return "location", f"Two steps after step {t}, which room was Wick in?", {"op": "slot", "anchor": ("off", ("t", t), 2), "slot": "location"}

    def fam6(self):
        n = len(self.steps)
        count = 0
        for _ in range(50):
            if count >= 4:
                break
            kind = self.rng.choice(["grab", "pry open", "ditch", "taste", "discover", "backtrack", "get refused", "reread", "unlock"])
            nxt = count % 2 == 0
            slot = ["step", "location", "facing", "inventory"][count]
            s, poss = self.subj()
            if self.rng.random() < 0.5:
                t = self.rng.randrange(10, n - 10)
                anc = ("t", t)
                adesc = f"step {t}"
            else:
                pats = self.pats(1, kinds=["pry open", "unlock", "clean out", "win quest", "wander off"])
                if not pats:
                    continue
                pat, ts = self.rng.choice(pats)
                anc = ("occ", pat, 1, None)
                adesc = f"{s} first {self.vp(pat)}"
            o = "a room" if kind in ("discover", "backtrack") else "something"
            vp = self.vp((kind, o), base=True) if kind != "get refused" else "have a command refused"
            win = (("after", anc), None) if nxt else (None, ("before", anc))
            occ = ("occ", (kind, None), 1 if nxt else -1, win)
            if slot == "step":
                text = (f"After {adesc}, when did {s} next {vp}?" if self.rng.random() < 0.5 else f"When did {s} next {vp} after {adesc}?") if nxt else f"Before {adesc}, when did {s} last {vp}?"
            else:
                rel = "next" if nxt else "most recently"
                when = f"the {'next' if nxt else 'previous'} time {s} {'went to ' if False else ''}{self.vp((kind, o)) if kind != 'get refused' else 'had a command refused'} {'after' if nxt else 'before'} {adesc}"
                text = self.slot_phrase(slot, when)
            if self.add("6_next_previous", slot, text, {"op": "slot", "anchor": occ, "slot": slot}):
                count += 1
        self.add("6_next_previous", "action", "The last time Wick swung a door open before it first opened any container, what command did it use?",
                 {"op": "slot", "anchor": ("occ", ("push open", None), -1, (None, ("before", ("occ", ("pry open", None), 1, None)))), "slot": "action"})
        self.add("6_next_previous", "location", "Following the agent's first wrong turn, which was the next brand-new room it reached?",
                 {"op": "slot", "anchor": ("occ", ("discover", None), 1, (("after", ("occ", ("wander off", None), 1, None)), None)), "slot": "location"})
        self._fill("6_next_previous", 6, self._fill6)

    def _fill6(self):
        t = self.rng.randrange(10, len(self.steps) - 10)
        return "step", f"What step was the next refused command after step {t}?", {"op": "slot", "anchor": ("occ", ("get refused", None), 1, (("t", t + 1), None)), "slot": "step"}

    def fam7(self):
        n = len(self.steps)
        count = 0
        for _ in range(40):
            if count >= 3:
                break
            pats = self.pats(1, kinds=["grab", "pry open", "ditch", "step into", "backtrack", "reread", "taste", "unlock"])
            pat, ts = self.rng.choice(pats)
            s, _ = self.subj()
            if self.rng.random() < 0.5:
                a = self.rng.randrange(0, n // 2)
                b = self.rng.randrange(a + 30, n)
                win = (("t", a), ("t", b))
                text = f"How many times did {s} {self.vp(pat, base=True)} between steps {a} and {b}?"
            else:
                win = None
                text = f"How many times in total did {s} {self.vp(pat, base=True)}?"
            if self.add("7_count", "count", text, {"op": "count", "pat": pat, "win": win}):
                count += 1
        for kind in self.rng.sample(sorted(LIST_PHRASES), len(LIST_PHRASES)):
            if sum(1 for q, _ in self.out if q["family"] == "7_count" and q["slot"] == "list") >= 1:
                break
            if not self.kind_occ.get(kind):
                continue
            h = self.rng.choice([2, 3])
            s, _ = self.subj()
            text = f"Which {self.rng.choice(LIST_PHRASES[kind]).format(s=s)} in house {h}?"
            self.add("7_count", "list", text, {"op": "list", "pat": (kind, None), "win": (("after", ("occ", ("arrive", f"house {h}"), 1, None)), ("before", ("occ", ("arrive", f"house {h + 1}"), 1, None)) if self.occ.get(("arrive", f"house {h + 1}")) else None)})
        self.add("7_count", "count", "How many commands did the game turn down before the first quest was completed?",
                 {"op": "count", "pat": ("get refused", None), "win": (None, ("before", ("occ", ("win quest", None), 1, None)))})
        self.add("7_count", "list", "Name every container Wick forced open in the first 150 steps.",
                 {"op": "list", "pat": ("pry open", None), "win": (("t", 0), ("t", 149))})
        self._fill("7_count", 6, lambda: ("count", "How many houses did the agent start on in this episode?", {"op": "count", "pat": ("arrive", None), "win": None}))

    def fam8(self):
        count = 0
        for _ in range(50):
            if count >= 4:
                break
            pa = self.pats(1, kinds=["grab", "pry open", "taste", "ditch", "unlock", "discover", "reread", "stash"])
            (p1, t1), (p2, t2) = self.rng.sample(pa, 2)
            if p1 == p2:
                continue
            n1 = self.rng.choice([1, -1]) if len(t1) > 1 else 1
            n2 = 1
            s, _ = self.subj()
            d1 = f"{'first' if n1 == 1 else 'last'} {self.vp(p1)}"
            d2 = f"first {self.vp(p2)}"
            if self.rng.random() < 0.5:
                text = f"Which came first: {s} {d1}, or {s} {d2}?"
            else:
                text = f"Of these two, which came sooner: {s} {d2}, or {s} {d1}?"
            spec = {"op": "first", "a": ("occ", p1, n1, None), "b": ("occ", p2, n2, None), "labels": (_label(p1), _label(p2))}
            if self.add("8_order", "which-first", text, spec):
                count += 1
        self.add("8_order", "which-first", "What happened sooner in the run: the agent's first wrong turn or its first rejected command?",
                 {"op": "first", "a": ("occ", ("wander off", None), 1, None), "b": ("occ", ("get refused", None), 1, None), "labels": ("wander off", "get refused")})
        self.add("8_order", "which-first", "Between Wick's first bite of food and the first key it turned in a lock, which occurred earlier?",
                 {"op": "first", "a": ("occ", ("taste", None), 1, None), "b": ("occ", ("unlock", None), 1, None), "labels": ("taste", "unlock")})
        self._fill("8_order", 6, self._fill8)

    def _fill8(self):
        pa = self.pats(1, kinds=["grab", "pry open", "discover"])
        (p1, _), (p2, _) = self.rng.sample(pa, 2)
        return "which-first", f"Which happened first, {self.vp(p1)} or {self.vp(p2)}?", {"op": "first", "a": ("occ", p1, 1, None), "b": ("occ", p2, 1, None), "labels": (_label(p1), _label(p2))}

    def fam9(self):
        count = 0
        for _ in range(50):
            if count >= 4:
                break
            pa = self.pats(1, kinds=["grab", "pry open", "taste", "ditch", "unlock", "discover", "clean out", "win quest"])
            (p1, t1), (p2, t2) = self.rng.sample(pa, 2)
            s, _ = self.subj()
            if self.rng.random() < 0.5:
                text = f"How many steps passed between the first time {s} {self.vp(p1)} and the first time {s} {self.vp(p2)}?"
            else:
                text = f"From when {s} first {self.vp(p1)} to when {s} first {self.vp(p2)}, how many steps was that?"
            if self.add("9_distance", "duration", text, {"op": "dist", "a": ("occ", p1, 1, None), "b": ("occ", p2, 1, None)}):
                count += 1
        self.add("9_distance", "duration", "How long, in steps, did the second house take from arrival until its quest was won?",
                 {"op": "dist", "a": ("occ", ("arrive", "house 2"), 1, None), "b": ("occ", ("win quest", "house 2"), 1, None)})
        t = self.rng.randrange(20, len(self.steps) // 2)
        self.add("9_distance", "duration", f"Counting from step {t}, how many steps until the agent next had a command rejected?",
                 {"op": "dist", "a": ("t", t), "b": ("occ", ("get refused", None), 1, (("t", t + 1), None))})
        self._fill("9_distance", 6, self._fill9)

    def _fill9(self):
        t = self.rng.randrange(5, len(self.steps) - 5)
        return "duration", f"How many steps separate step {t} from the last time a room was finished off?", {"op": "dist", "a": ("t", t), "b": ("occ", ("clean out", None), -1, None)}

    def fam10(self):
        n = len(self.steps)
        yes = 0
        for _ in range(40):
            if yes >= 2:
                break
            pats = self.pats(1, kinds=["grab", "taste", "ditch", "pry open", "reread", "backtrack", "stash"])
            pat, ts = self.rng.choice(pats)
            s, _ = self.subj()
            if yes == 0:
                c = self.rng.choice(ts)
                a = max(0, c - self.rng.randrange(5, 60))
                b = min(n - 1, c + self.rng.randrange(5, 60))
            else:
                a = self.rng.randrange(0, n - 60)
                b = a + self.rng.randrange(30, 120)
            if self.add("10_existence", "yes/no", f"Did {s} {self.vp(pat, base=True)} anywhere between step {a} and step {b}?",
                        {"op": "exists", "pat": pat, "win": (("t", a), ("t", b))}):
                yes += 1
        # plausible but never done / truly no
        never = []
        for item in self.items:
            if not self.occ.get(("taste", item)):
                never.append((("taste", item), f"Did Wick ever eat the {item}?"))
        rooms = sorted({s.location.region for s in self.steps})
        for r in rooms:
            if not self.occ.get(("wander off", r)):
                never.append((("wander off", r), f"Has the agent ever gotten lost and stumbled into the {r}?"))
        self.rng.shuffle(never)
        for pat, text in never[:1]:
            self.add("10_existence", "yes/no", text, {"op": "exists", "pat": pat, "win": None})
        self.add("10_existence", "yes/no", "Did the agent ever burn anything in a fire?", {"op": "exists", "pat": ("burn", None), "win": None})
        self.add("10_existence", "yes/no", "Once it had finished its first quest, did Wick ever again take a wrong turn?",
                 {"op": "exists", "pat": ("wander off", None), "win": (("after", ("occ", ("win quest", None), 1, None)), None)})
        self.add("10_existence", "yes/no", "Before it first pried a container open, had the agent already had any command refused?",
                 {"op": "exists", "pat": ("get refused", None), "win": (None, ("before", ("occ", ("pry open", None), 1, None)))})
        self._fill("10_existence", 6, lambda: ("yes/no", f"Did anyone swap junk for a new find before step {self.rng.randrange(50, n)}?", None) if False else self._fill10())

    def _fill10(self):
        t = self.rng.randrange(50, len(self.steps))
        return "yes/no", f"Was anything traded for a new find before step {t}?", {"op": "exists", "pat": ("swap for", None), "win": (None, ("t", t - 1))}

    def write(self):
        for fam in (self.fam1, self.fam2, self.fam3, self.fam4, self.fam5, self.fam6, self.fam7, self.fam8, self.fam9, self.fam10):
            fam()
        return self.out


FAMILIES = ["1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
            "6_next_previous", "7_count", "8_order", "9_distance", "10_existence"]


def _build_full(seed: int):
    steps = simulate(seed)
    episode = f"{SUITE}:{seed}"
    pairs = _Writer(steps, episode, seed).write()
    by_family: dict[str, list] = {f: [] for f in FAMILIES}
    for q, spec in pairs:
        by_family[q["family"]].append((q, spec))
    chosen = []
    for fam in FAMILIES:
        got = by_family[fam]
        if len(got) < 6:
            raise RuntimeError(f"seed {seed}: family {fam} has only {len(got)} questions")
        chosen.extend(got[:6])
    return {"episodes": {episode: steps}, "questions": [q for q, _ in chosen]}, [s for _, s in chosen]


def build(seed: int) -> dict:
    return _build_full(seed)[0]


# --------------------------------------------------------------------------------------------------
# Self-check.
# --------------------------------------------------------------------------------------------------


def _main(argv) -> int:
    import time
    from collections import Counter

    seeds = [int(a) for a in argv[1:]] or list(SEED_RANGE)[:2]
    ok = True
    for seed in seeds:
        t0 = time.process_time()
        data, specs = _build_full(seed)
        cpu = time.process_time() - t0
        (episode, steps), = data["episodes"].items()
        validate_steps(steps, episode)
        assert [s.t for s in steps] == list(range(len(steps)))
        assert MIN_STEPS <= len(steps) <= MAX_STEPS, len(steps)
        print(f"== seed {seed}: {len(steps)} steps, {len(data['questions'])} questions, {cpu:.1f}s CPU")
        fam = Counter(q["family"] for q in data["questions"])
        print("families:", dict(sorted(fam.items())))
        print("slots:", dict(sorted(Counter(q["slot"] for q in data["questions"]).items())))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(sorted(kinds.items())))
        assert all(fam[f] == 6 for f in FAMILIES), fam
        again = build(seed)
        if again["questions"] != data["questions"] or again["episodes"][episode] != steps:
            print("NOT deterministic")
            ok = False
        for q, spec in zip(data["questions"], specs):
            res = evaluate(steps, spec, episode)
            if res is None or res[0] != q["answer"] or res[1] != q["gold"]:
                print("MISMATCH", q, res)
                ok = False
            for g in q["gold"]:
                ep, _, t = g.rpartition(":")
                if ep != episode or not 0 <= int(t) < len(steps):
                    print("BAD GOLD", q)
                    ok = False
            if not q["gold"] and not (q["answer"] == "no" or q["answer"] == "0"):
                print("EMPTY GOLD", q)
                ok = False
        import re as _re
        kinds_re = [_re.compile(r"\b" + _re.escape(k) + r"\b", _re.I) for k in kinds]
        verbatim = sum(1 for q in data["questions"] if any(r.search(q["question"]) for r in kinds_re))
        print(f"questions naming an event kind verbatim: {verbatim}/60")
        if verbatim > 30:
            print("TOO MANY VERBATIM KINDS")
            ok = False
        rng = random.Random(seed)
        for q in rng.sample(data["questions"], 15):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold={q['gold']}")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
