"""Held-out suite 6 (TextWorld): a courier that moves things between rooms, then solves the quest.

The agent plays several freshly generated TextWorld games back to back (generated offline with
``textworld.generator.make_game``, compiled with the bundled Inform 7 tools, played through
``textworld.start``).  In each game it first reads its quest, then runs a few self-assigned courier
errands ("carry X to room R": fetch the thing, walk it over, drop it or stow it on/in furniture there),
and finally works through the quest with the game's own policy commands.  Along the way it mutters to
itself by examining things, re-reads the quest, looks around, checks its pockets, and sometimes fumbles a
command (a typo, a missing exit, something that is not there or not portable); fumbles are recorded.

Records: location = room name plus the agent's own dead-reckoned map coordinates (east +x, north +y,
origin at the start room of each game); inventory = carried objects; state = score, moves, game,
deliveries, mistakes and the text state ``errand``; events come from the game's fact changes and the
command.  Questions are answered by a plain reference scan over the Step records.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from collections import deque

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout6_textworld"
SEED_RANGE = range(8600, 8700)

DIR_OF = {"north_of": "north", "south_of": "south", "east_of": "east", "west_of": "west"}
DELTA = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
PORTABLE = {"o", "k", "f"}
MAX_STEPS = 900


# ------------------------------------------------------------------------------------------------
# World snapshot from the game's facts
# ------------------------------------------------------------------------------------------------


class Snap:
    def __init__(self, facts):
        self.types: dict[str, str] = {}
        self.room = ""
        self.inv: set[str] = set()
        self.at: dict[str, str] = {}
        self.inside: dict[str, str] = {}
        self.on: dict[str, str] = {}
        self.open: set[str] = set()
        self.closed: set[str] = set()
        self.locked: set[str] = set()
        self.eaten: set[str] = set()
        self.match: dict[str, str] = {}
        self.exits: dict[str, dict[str, str]] = {}
        self.doors: dict[tuple[str, str], str] = {}
        links = []
        rows = []
        for f in facts:
            args = [(str(a.name).lower(), str(a.type)) for a in f.arguments]
            rows.append((str(f.name), tuple(args)))
        rows.sort()
        for name, args in rows:
            for n, t in args:
                if t not in ("P", "I"):
                    self.types[n] = t
            a = [n for n, _ in args]
            if name == "at":
                if args[0][1] == "P":
                    self.room = a[1]
                else:
                    self.at[a[0]] = a[1]
            elif name == "in":
                if args[1][1] == "I":
                    self.inv.add(a[0])
                else:
                    self.inside[a[0]] = a[1]
            elif name == "on":
                self.on[a[0]] = a[1]
            elif name == "open":
                self.open.add(a[0])
            elif name == "closed":
                self.closed.add(a[0])
            elif name == "locked":
                self.locked.add(a[0])
            elif name == "eaten":
                self.eaten.add(a[0])
            elif name == "match":
                self.match[a[0]] = a[1]
            elif name in DIR_OF:
                # north_of(A, B): A lies north of B, so from B one goes north to reach A.
                self.exits.setdefault(a[1], {})[DIR_OF[name]] = a[0]
            elif name == "link":
                links.append(a)
        for r1, d, r2 in links:
            for direction, dest in self.exits.get(r1, {}).items():
                if dest == r2:
                    self.doors[(r1, direction)] = d
        self.rooms = sorted(n for n, t in self.types.items() if t == "r")

    def room_of(self, x: str) -> str | None:
        seen = 0
        while x and seen < 10:
            if x in self.inv:
                return None
            if x in self.at:
                return self.at[x]
            x = self.inside.get(x) or self.on.get(x)
            seen += 1
        return None

    def reachable_here(self, x: str) -> bool:
        """The thing lies in the current room, on the floor, on a supporter or in an open container."""
        if x in self.at:
            return self.at[x] == self.room
        holder = self.inside.get(x)
        if holder is not None:
            return holder in self.open and self.at.get(holder) == self.room
        holder = self.on.get(x)
        if holder is not None:
            return self.at.get(holder) == self.room
        return False

    def visible(self) -> list[str]:
        seen = set()
        for x, r in self.at.items():
            if r == self.room:
                seen.add(x)
        changed = True
        while changed:
            changed = False
            for x, c in list(self.inside.items()) + list(self.on.items()):
                if x in seen:
                    continue
                if c in seen and (self.types.get(c) == "s" or c in self.open):
                    seen.add(x)
                    changed = True
        for (r, _), d in self.doors.items():
            if r == self.room:
                seen.add(d)
        return sorted(seen)


def _coords(snap: Snap) -> dict[str, tuple[int, int]]:
    pos = {snap.room: (0, 0)}
    queue = deque([snap.room])
    while queue:
        r = queue.popleft()
        for d in sorted(snap.exits.get(r, {})):
            nxt = snap.exits[r][d]
            if nxt not in pos:
                dx, dy = DELTA[d]
                pos[nxt] = (pos[r][0] + dx, pos[r][1] + dy)
                queue.append(nxt)
    return pos


def _clean(text: str) -> str:
    text = text or ""
    cut = text.rfind("\n>")
    if cut >= 0:
        text = text[:cut]
    lines = [ln.rstrip() for ln in text.strip().splitlines()]
    out = []
    for ln in lines:
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out).strip()[:4000]


# ------------------------------------------------------------------------------------------------
# The courier agent
# ------------------------------------------------------------------------------------------------


class Courier:
    def __init__(self, seed: int, workdir: str):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        self.workdir = workdir
        self.steps: list[Step] = []
        self.deliveries = 0
        self.mistakes = 0
        self.game_no = 1
        self.errand = "idle"
        self.entities: dict[str, str] = {}  # every entity seen in any game -> type
        self.rooms_all: set[str] = set()

    # -- game set-up -----------------------------------------------------------------------------
    def _new_game(self):
        import textworld
        from textworld import EnvInfos, GameOptions
        from textworld.generator import compile_game, make_game

        rng = self.rng
        opt = GameOptions()
        opt.seeds = rng.randrange(1, 2**31 - 1)
        opt.nb_rooms = rng.randint(7, 12)
        opt.nb_objects = rng.randint(16, 28)
        opt.nb_parallel_quests = rng.randint(2, 3)
        opt.quest_length = rng.randint(2, 4)
        opt.path = os.path.join(self.workdir, f"game{self.game_no}.z8")
        opt.force_recompile = True
        game = make_game(opt)
        path = compile_game(game, opt)
        infos = EnvInfos(admissible_commands=True, facts=True, policy_commands=True, score=True,
                         moves=True, max_score=True, won=True, lost=True)
        env = textworld.start(path, infos)
        st = env.reset()
        return env, st

    # -- recording --------------------------------------------------------------------------------
    def _state(self, st) -> dict:
        return {"score": int(st.score or 0), "moves": int(st.moves or 0), "game": self.game_no,
                "deliveries": self.deliveries, "mistakes": self.mistakes, "errand": self.errand}

    def _do(self, cmd: str, hint=None, first=False):
        """Issue one command, record one Step. ``hint``: (kind, obj) for commands that change no fact."""
        before = self.snap
        prev_score = int(self.st.score or 0)
        st, _, done = self.env.step(cmd)
        self.st, self.done = st, done
        after = Snap(st.facts)
        self.snap = after
        for n, t in after.types.items():
            self.entities.setdefault(n, t)
        events: list[Event] = []
        if first:
            events.append(Event("start game"))
        if hint is not None:
            kind, obj = hint
            if kind == "fumble":
                self.mistakes += 1
            events.append(Event(kind, obj))
        for x in sorted(after.locked - before.locked):
            events.append(Event("lock", x))
        for x in sorted(before.locked - after.locked):
            events.append(Event("unlock", x))
        for x in sorted(after.open - before.open):
            events.append(Event("open", x))
        for x in sorted((after.closed - before.closed) - (after.locked - before.locked)):
            if x in before.open:
                events.append(Event("close", x))
        for x in sorted(after.inv - before.inv):
            events.append(Event("pick up", x))
        delivered = None
        for x in sorted(before.inv - after.inv):
            if x in after.at:
                events.append(Event("drop", x))
            elif x in after.inside or x in after.on:
                events.append(Event("stow", x))
            if self.task and self.task["item"] == x and after.room == self.task["dest"] and x not in after.eaten:
                delivered = x
        for x in sorted(after.eaten - before.eaten):
            events.append(Event("eat", x))
        if delivered is not None:
            self.moved.add(delivered)
            events.append(Event("deliver", delivered))
            self.deliveries += 1
            self.task = None
            self.errand = "idle"
        if after.room != before.room:
            events.append(Event("enter", after.room))
            if after.room in self.coords:
                self.pos = self.coords[after.room]
            else:
                d = cmd.split()[-1]
                dx, dy = DELTA.get(d, (0, 0))
                self.pos = (self.pos[0] + dx, self.pos[1] + dy)
        score = int(st.score or 0)
        if score > prev_score:
            events.append(Event("earn point", "", score - prev_score))
        if st.won and done:
            events.append(Event("win game"))
        self.rooms_all.add(after.room)
        objects = after.visible()
        relations = [Relation("agent", "in", after.room)]
        relations += [Relation("agent", "carrying", x) for x in sorted(after.inv)]
        for x in objects:
            if x in after.inside:
                relations.append(Relation(x, "in", after.inside[x]))
            elif x in after.on:
                relations.append(Relation(x, "on", after.on[x]))
        if self.task is not None:
            relations.append(Relation("agent", "heading to", self.task["dest"]))
        step = Step(
            t=len(self.steps),
            action=cmd,
            objects=tuple(objects),
            events=tuple(events),
            relations=tuple(relations),
            inventory={x: 1 for x in sorted(after.inv)},
            state=self._state(st),
            location=Location(position=tuple(self.pos), region=after.room),
            observation=_clean(st.feedback),
        )
        self.steps.append(step)

    # -- planning helpers -------------------------------------------------------------------------
    def _path(self, src: str, dst: str):
        """Directions from src to dst over exits the agent can pass (doors: open, closable, or keyed)."""
        s = self.snap
        prev = {src: None}
        queue = deque([src])
        while queue:
            r = queue.popleft()
            if r == dst:
                break
            for d in sorted(s.exits.get(r, {})):
                nxt = s.exits[r][d]
                if nxt in prev:
                    continue
                door = s.doors.get((r, d))
                if door and door in s.locked and not self._key_for(door):
                    continue
                prev[nxt] = (r, d)
                queue.append(nxt)
        if dst not in prev:
            return None
        out = []
        r = dst
        while prev[r] is not None:
            r0, d = prev[r]
            out.append((r0, d))
            r = r0
        return list(reversed(out))

    def _key_for(self, target: str):
        for k, t in sorted(self.snap.match.items()):
            if t == target and k in self.snap.inv:
                return k
        return None

    def _nav_cmd(self, dst: str):
        path = self._path(self.snap.room, dst)
        if not path:
            return None
        r, d = path[0]
        door = self.snap.doors.get((r, d))
        if door and door in self.snap.locked:
            return f"unlock {door} with {self._key_for(door)}"
        if door and door not in self.snap.open:
            return f"open {door}"
        return f"go {d}"

    def _pick_task(self):
        s = self.snap
        rng = self.rng
        cands = []
        for x in sorted(n for n, t in s.types.items() if t in PORTABLE):
            if x in s.eaten or x in self.moved:
                continue
            if x in s.inv:
                src = s.room
            else:
                holder = s.inside.get(x)
                if holder is not None and holder in s.locked and not self._key_for(holder):
                    continue
                src = s.room_of(x)
                if src is None or self._path(s.room, src) is None:
                    continue
            cands.append((x, src))
        rng.shuffle(cands)
        for x, src in cands:
            dests = [r for r in s.rooms if r != src and self._path(src, r) is not None]
            if dests:
                return {"item": x, "dest": rng.choice(dests), "tries": 0}
        return None

    def _task_cmd(self):
        s = self.snap
        task = self.task
        x = task["item"]
        if x in s.inv:
            if s.room == task["dest"]:
                holders = [h for h, r in sorted(s.at.items()) if r == s.room and
                           (s.types.get(h) == "s" or (s.types.get(h) == "c" and h in s.open))]
                if holders and self.rng.random() < 0.45:
                    h = self.rng.choice(holders)
                    return f"put {x} on {h}" if s.types[h] == "s" else f"insert {x} into {h}"
                return f"drop {x}"
            return self._nav_cmd(task["dest"])
        holder = s.inside.get(x)
        if holder is not None and holder not in s.open and s.at.get(holder) == s.room:
            if holder in s.locked:
                return f"unlock {holder} with {self._key_for(holder)}"
            return f"open {holder}"
        if s.reachable_here(x):
            if x in s.inside:
                return f"take {x} from {s.inside[x]}"
            if x in s.on:
                return f"take {x} from {s.on[x]}"
            return f"take {x}"
        src = s.room_of(x)
        if src is None:
            return None
        return self._nav_cmd(src)

    # -- side actions -----------------------------------------------------------------------------
    def _fumble(self):
        s = self.snap
        rng = self.rng
        adm = set(self.st.admissible_commands or [])
        options = []
        missing = [d for d in ("north", "south", "east", "west") if d not in s.exits.get(s.room, {})]
        if missing:
            d = rng.choice(missing)
            options.append((f"go {d}", d))
        vis = s.visible()
        away = [x for x, t in sorted(s.types.items()) if t in PORTABLE and x not in vis and x not in s.inv]
        if away:
            x = rng.choice(away)
            options.append((f"take {x}", x))
        fixed = [x for x in vis if s.types.get(x) in ("c", "s")]
        if fixed:
            x = rng.choice(fixed)
            options.append((f"take {x}", x))
        locked = [x for x in vis if x in s.locked and not self._key_for(x)]
        if locked:
            x = rng.choice(locked)
            options.append((f"open {x}", x))
        things = vis + sorted(s.inv)
        if things:
            x = rng.choice(things)
            verb = rng.choice(["tkae", "exmaine", "opne", "pik up", "chek", "tkae"])
            options.append((f"{verb} {x}", x))
        options = [(c, o) for c, o in options if c not in adm]
        if not options:
            return False
        cmd, obj = rng.choice(options)
        self._do(cmd, ("fumble", obj))
        return True

    def _side(self) -> bool:
        rng = self.rng
        s = self.snap
        r = rng.random()
        if r < 0.42:
            things = s.visible() + sorted(s.inv)
            if things:
                x = rng.choice(things)
                self._do(f"examine {x}", ("examine", x))
                return True
            return False
        if r < 0.57:
            self._do("goal", ("review quest", ""))
            return True
        if r < 0.85:
            return self._fumble()
        if r < 0.93:
            self._do("look", ("look around", s.room))
            return True
        self._do("inventory", ("check inventory", ""))
        return True

    # -- one game ---------------------------------------------------------------------------------
    def play_game(self, budget: int):
        self.env, self.st = self._new_game()
        self.done = False
        self.snap = Snap(self.st.facts)
        for n, t in self.snap.types.items():
            self.entities.setdefault(n, t)
        self.coords = _coords(self.snap)
        self.pos = (0, 0)
        self.task = None
        self.moved = set()
        self.errand = "idle"
        start = len(self.steps)
        limit = start + budget
        rng = self.rng
        self._do("goal", ("review quest", ""), first=True)
        n_errands = rng.randint(5, 9)
        done_errands = 0
        fails = 0
        while not self.done and len(self.steps) < limit and done_errands < n_errands and fails < 6:
            if self.task is None:
                self.task = self._pick_task()
                if self.task is None:
                    break
                self.errand = f"carry {self.task['item']} to {self.task['dest']}"
            if rng.random() < 0.24 and self._side():
                continue
            cmd = self._task_cmd()
            adm = set(self.st.admissible_commands or [])
            if cmd is None or cmd not in adm or self.task["tries"] > 40:
                self.task = None
                self.errand = "idle"
                fails += 1
                continue
            self.task["tries"] += 1
            before = self.deliveries
            self._do(cmd)
            if self.deliveries > before:
                done_errands += 1
            elif cmd.startswith("take ") and " from " in cmd and rng.random() < 0.3:
                holder = cmd.split(" from ", 1)[1].lower()
                close = f"close {holder}"
                if holder in self.snap.open and close in set(self.st.admissible_commands or []):
                    self._do(close)
        self.task = None
        self.errand = "solve quest"
        stuck = 0
        while not self.done and len(self.steps) < limit:
            if rng.random() < 0.16 and self._side():
                continue
            policy = list(self.st.policy_commands or [])
            adm = set(self.st.admissible_commands or [])
            if not policy or policy[0] not in adm:
                stuck += 1
                if stuck > 3:
                    break
                self._do("look", ("look around", self.snap.room))
                continue
            self._do(policy[0])
        self.env.close()
        self.game_no += 1

    def run(self) -> list[Step]:
        target = self.rng.randint(380, 720)
        while len(self.steps) < target:
            self.play_game(min(320, MAX_STEPS - len(self.steps)))
            if MAX_STEPS - len(self.steps) < 40:
                break
        return self.steps


# ------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the Step records
# ------------------------------------------------------------------------------------------------

DIRECTIONS = {"north", "south", "east", "west"}
STATE_NAMES = ("score", "moves", "game", "deliveries", "mistakes", "errand")


def the(o: str) -> str:
    return o if o in DIRECTIONS else f"the {o}"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def label(kind: str, obj: str) -> str:
    return f"{kind} {obj}".strip()


def fmt(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class Ctx:
    def __init__(self, steps: list[Step], ep: str, entities: dict[str, str]):
        self.S = steps
        self.n = len(steps)
        self.ep = ep
        self.entities = entities
        self.regions = {st.location.region for st in steps}
        self.occ: dict[tuple[str, str | None], list[int]] = {}
        for st in steps:
            for e in st.events:
                for key in ((e.kind, e.obj), (e.kind, None)):
                    lst = self.occ.setdefault(key, [])
                    if not lst or lst[-1] != st.t:
                        lst.append(st.t)

    def gold(self, *ts) -> list[str]:
        return [f"{self.ep}:{t}" for t in sorted({t for t in ts if t is not None})]

    def hits(self, pat, lo=0, hi=None) -> list[int]:
        hi = self.n - 1 if hi is None else hi
        return [t for t in self.occ.get(pat, []) if lo <= t <= hi]

    def count(self, pat, lo=0, hi=None) -> tuple[int, list[int]]:
        """Number of matching events in [lo, hi] and the steps holding them."""
        hi = self.n - 1 if hi is None else hi
        kind, obj = pat
        total, where = 0, []
        for t in range(lo, hi + 1):
            k = sum(1 for e in self.S[t].events if e.kind == kind and (obj is None or e.obj == obj))
            if k:
                total += k
                where.append(t)
        return total, where

    def slot(self, t: int, slot: str) -> str:
        st = self.S[t]
        if slot == "step":
            return str(t)
        if slot == "action":
            return st.action
        if slot == "location":
            loc = st.location
            return loc.region if loc.region else f"{loc.position[0]},{loc.position[1]}"
        if slot == "position":
            return f"{st.location.position[0]},{st.location.position[1]}"
        if slot == "inventory":
            inv = st.inventory_dict
            return ", ".join(f"{k} {inv[k]}" for k in sorted(inv)) if inv else "none"
        if slot.startswith("item:"):
            return str(st.inventory_dict.get(slot[5:], 0))
        if slot.startswith("state:"):
            return fmt(st.state_dict[slot[6:]])
        if slot == "events":
            return "; ".join(label(e.kind, e.obj) for e in st.events) if st.events else "none"
        raise ValueError(slot)

    def patterns(self, min_count=1, with_any=True, kinds=None):
        out = []
        for key in sorted(self.occ, key=lambda k: (k[0], k[1] is None, k[1] or "")):
            kind, obj = key
            if kind not in PHR:
                continue
            if kinds is not None and kind not in kinds:
                continue
            if obj is None and (not with_any or not PHR[kind][0]):
                continue
            if obj is not None and obj == "" and PHR[kind][0]:
                continue
            if len(self.occ[key]) >= min_count:
                out.append(key)
        return out


# Phrases per event kind: (with-object pairs, any-object/objectless pairs), each pair (past, infinitive).
PHR: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {
    "enter": ([("entered {o}", "enter {o}"), ("walked into {o}", "walk into {o}"), ("arrived in {o}", "arrive in {o}"),
               ("went into {o}", "go into {o}")],
              [("entered a room", "enter a room"), ("walked into a room", "walk into a room"),
               ("stepped into a room", "step into a room")]),
    "pick up": ([("picked up {o}", "pick up {o}"), ("took {o}", "take {o}"), ("grabbed {o}", "grab {o}")],
                [("picked something up", "pick something up"), ("picked up an item", "pick up an item"),
                 ("grabbed an object", "grab an object")]),
    "drop": ([("dropped {o}", "drop {o}"), ("set {o} down on the floor", "set {o} down on the floor")],
             [("dropped something", "drop something"), ("dropped an item on the floor", "drop an item on the floor")]),
    "stow": ([("stowed {o}", "stow {o}"), ("put {o} away on or in a piece of furniture", "put {o} away on or in a piece of furniture")],
             [("stowed something", "stow something"), ("put an item away on or in furniture", "put an item away on or in furniture")]),
    "deliver": ([("delivered {o}", "deliver {o}"), ("brought {o} to its destination", "bring {o} to its destination")],
                [("completed a delivery", "complete a delivery"), ("delivered something", "deliver something"),
                 ("finished a courier errand", "finish a courier errand")]),
    "examine": ([("examined {o}", "examine {o}"), ("looked at {o}", "look at {o}"), ("inspected {o}", "inspect {o}")],
                [("examined something", "examine something"), ("inspected an object", "inspect an object")]),
    "review quest": ([], [("checked the quest", "check the quest"), ("read the quest text", "read the quest text"),
                          ("reviewed the objective", "review the objective"), ("looked up the goal", "look up the goal")]),
    "look around": ([("looked around {o}", "look around {o}"), ("took a look around {o}", "take a look around {o}")],
                    [("looked around", "look around"), ("surveyed the surroundings", "survey the surroundings")]),
    "check inventory": ([], [("checked the inventory", "check the inventory"), ("listed the inventory", "list the inventory"),
                             ("took stock of what was carried", "take stock of what was carried")]),
    "fumble": ([("fumbled a command involving {o}", "fumble a command involving {o}"),
                ("botched a command about {o}", "botch a command about {o}"),
                ("issued a failed command naming {o}", "issue a failed command naming {o}")],
               [("fumbled a command", "fumble a command"), ("issued a command that failed", "issue a command that failed"),
                ("made a command mistake", "make a command mistake")]),
    "open": ([("opened {o}", "open {o}")], [("opened something", "open something")]),
    "close": ([("closed {o}", "close {o}"), ("shut {o}", "shut {o}")], [("closed something", "close something")]),
    "unlock": ([("unlocked {o}", "unlock {o}")], [("unlocked something", "unlock something")]),
    "lock": ([("locked {o}", "lock {o}")], [("locked something", "lock something")]),
    "eat": ([("ate {o}", "eat {o}")], [("ate something", "eat something")]),
    "earn point": ([], [("earned a point", "earn a point"), ("scored a point", "score a point"), ("got a point", "get a point")]),
    "win game": ([], [("won a game", "win a game"), ("beat a game", "beat a game"), ("completed a game", "complete a game")]),
    "start game": ([], [("started a game", "start a game"), ("began a new game", "begin a new game")]),
}


def phrase(pat, rng: random.Random, form: int) -> str:
    """form 0: past tense, 1: infinitive."""
    kind, obj = pat
    with_obj, anyp = PHR[kind]
    if obj and with_obj:
        return rng.choice(with_obj)[form].format(o=the(obj))
    return rng.choice(anyp)[form]


def past(pat, rng):
    return phrase(pat, rng, 0)


def inf(pat, rng):
    return phrase(pat, rng, 1)


SUBJECTS = [
    {"s": "I", "s2": "I", "be": "was", "pos": "my", "have": "had"},
    {"s": "you", "s2": "you", "be": "were", "pos": "your", "have": "had"},
    {"s": "we", "s2": "we", "be": "were", "pos": "our", "have": "had"},
    {"s": "the agent", "s2": "it", "be": "was", "pos": "the agent's", "have": "had"},
    {"s": "Rook", "s2": "Rook", "be": "was", "pos": "Rook's", "have": "had"},
    {"s": "the courier", "s2": "it", "be": "was", "pos": "the courier's", "have": "had"},
]

ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"], 5: ["fifth", "5th"],
       6: ["sixth", "6th"]}

STEP_SLOTS = ["action", "location", "position", "inventory", "item", "state", "events"]


def slot_question(slot: str, sub: dict, when: str, rng: random.Random, item: str = "", state: str = "") -> str:
    """A question about one step's slot; ``when`` names the step ("at step 40", "the second time I ...")."""
    s, be, pos = sub["s"], sub["be"], sub["pos"]
    if slot == "step":
        c = [f"At which step was it {when}?", f"What step was it {when}?", f"Which step number was it {when}?"]
    elif slot == "action":
        c = [f"What command did {s} issue {when}?", f"What did {s} type {when}?",
             f"Which command was entered {when}?"]
    elif slot == "location":
        c = [f"Where {be} {s} {when}?", f"Which room {be} {s} in {when}?", f"What room {be} {s} standing in {when}?"]
    elif slot == "position":
        c = [f"What were {pos} map coordinates {when}?", f"At what x,y position {be} {s} {when}?",
             f"Give {pos} grid position {when}."]
    elif slot == "inventory":
        c = [f"What {be} {s} carrying {when}?", f"What did {pos} inventory hold {when}?",
             f"List everything {s} had on hand {when}."]
    elif slot == "item":
        c = [f"How many of the item '{item}' {be} {s} carrying {when}?", f"How many {item} did {s} have {when}?",
             f"What was {pos} count of {item} {when}?"]
    elif slot == "events":
        c = [f"What happened {when}?", f"Which events were recorded {when}?", f"What events occurred {when}?"]
    elif slot == "state":
        c = {
            "score": [f"What was {pos} score {when}?", f"How many points did {s} have {when}?"],
            "moves": [f"What did the game's move counter read {when}?", f"How many moves had the current game counted {when}?"],
            "game": [f"Which game number {be} {s} playing {when}?", f"What game number was in progress {when}?"],
            "deliveries": [f"How many deliveries had {s} completed {when}?", f"What was {pos} delivery tally {when}?"],
            "mistakes": [f"How many fumbled commands had {s} racked up {when}?", f"What did {pos} mistake counter say {when}?"],
            "errand": [f"What was {pos} current errand {when}?", f"What did the errand state read {when}?"],
        }[state]
    else:
        raise ValueError(slot)
    return rng.choice(c)


def pick_slot(ctx: Ctx, t: int, rng: random.Random, allow_step=True):
    """A random slot for step t: (slot key for ctx.slot, slot name for slot_question, item, state)."""
    choices = (["step"] * 3 if allow_step else []) + STEP_SLOTS
    slot = rng.choice(choices)
    item = state = ""
    if slot == "item":
        inv = sorted(ctx.S[t].inventory_dict)
        others = sorted({x for st in ctx.S[max(0, t - 30):t + 30] for x in st.inventory_dict})
        pool = inv + others
        if not pool:
            slot = "location"
        else:
            item = rng.choice(pool)
            return f"item:{item}", "item", item, ""
    if slot == "state":
        state = rng.choice(STATE_NAMES)
        return f"state:{state}", "state", "", state
    return slot, slot, "", ""


def ask_slot(ctx, t, rng, sub, when, step_q=None):
    """A question about some slot of step t. ``step_q``: the wording to use when the slot is the step."""
    key, slot, item, state = pick_slot(ctx, t, rng, allow_step=step_q is not None)
    if slot == "step":
        return step_q, str(t), key
    return slot_question(slot, sub, when, rng, item, state), ctx.slot(t, key), key


# ------------------------------------------------------------------------------------------------
# Question generators. Each returns (question, answer, gold, slot) or None.
# ------------------------------------------------------------------------------------------------


def rsub(rng):
    return rng.choice(SUBJECTS)


def rpat(ctx: Ctx, rng, min_count=1, kinds=None, with_any=True, exclude=(), specific=False, avoid_zero=False):
    pats = [p for p in ctx.patterns(min_count, with_any, kinds) if p[0] not in exclude]
    if avoid_zero:
        pats = [p for p in pats if ctx.occ[p][0] > 0]
    if specific:
        pats = [p for p in pats if p[1] is not None]
    if not pats:
        return None
    ks = sorted({p[0] for p in pats})
    k = rng.choice(ks)
    return rng.choice([p for p in pats if p[0] == k])


def num(k: int, rng) -> str:
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    return words[k] if k in words and rng.random() < 0.5 else str(k)


def slotname(key: str) -> str:
    return key.split(":")[0]


def first_step(ctx, pred, lo=0):
    for t in range(lo, ctx.n):
        if pred(ctx.S[t]):
            return t
    return None


def transitions(ctx, pred):
    out = []
    for t in range(ctx.n):
        if pred(ctx.S[t]) and (t == 0 or not pred(ctx.S[t - 1])):
            out.append(t)
    return out


def never_patterns(ctx: Ctx) -> list[tuple[str, str]]:
    """Plausible (kind, object) pairs that never occur: things of the right type from the played games."""
    out = []
    for name, typ in sorted(ctx.entities.items()):
        kinds = []
        if typ in PORTABLE:
            kinds += ["pick up", "drop", "deliver", "stow"]
        if typ == "f":
            kinds.append("eat")
        if typ in ("c", "d"):
            kinds += ["open", "unlock", "lock", "close"]
        if typ == "r" and name not in ctx.regions:
            kinds += ["enter"]
        for k in kinds:
            if (k, name) not in ctx.occ:
                out.append((k, name))
    return out


def condition(ctx: Ctx, rng, sub):
    """A state/inventory condition: (when-clause, step question, target step) or None."""
    s, pos, s2, be = sub["s"], sub["pos"], sub["s2"], sub["be"]
    S = ctx.S
    choice = rng.choice(["deliveries", "mistakes", "score", "moves", "errand", "item", "ranout", "lastscore", "game"])
    if choice in ("deliveries", "mistakes", "score"):
        vals = sorted({int(st.state_dict[choice]) for st in S} - {0})
        if not vals:
            return None
        k = rng.choice(vals)
        if choice == "mistakes" and rng.random() < 0.5 and k > 1:
            t = first_step(ctx, lambda st: st.state_dict["mistakes"] > k - 1)
            return (f"when {pos} mistake count first exceeded {k - 1}",
                    f"At which step did {pos} count of fumbled commands first go above {k - 1}?", t)
        t = first_step(ctx, lambda st: st.state_dict[choice] >= k)
        noun = {"deliveries": "delivery count", "mistakes": "mistake count", "score": "score"}[choice]
        return (rng.choice([f"when {pos} {noun} first reached {k}", f"the first step {pos} {noun} hit {k}"]),
                rng.choice([f"At which step did {pos} {noun} first reach {k}?", f"When did {pos} {noun} hit {k} for the first time?"]), t)
    if choice == "moves":
        vals = sorted({int(st.state_dict["moves"]) for st in S})
        m = rng.choice(vals[1:-1] or vals)
        t = first_step(ctx, lambda st: st.state_dict["moves"] > m)
        if t is None:
            return None
        return (f"when the game's move counter first exceeded {m}",
                f"At which step did the move counter first go past {m}?", t)
    if choice == "errand":
        vals = sorted({st.state_dict["errand"] for st in S} - {"idle", "solve quest", S[0].state_dict["errand"]})
        if not vals:
            return None
        x = rng.choice(vals)
        tr = transitions(ctx, lambda st: st.state_dict["errand"] == x)
        if not tr:
            return None
        return (rng.choice([f"when {pos} errand first became '{x}'", f"when the errand first switched to '{x}'"]),
                f"At which step did {pos} errand become '{x}'?", tr[0])
    if choice == "item":
        items = sorted({x for st in S for x in st.inventory_dict})
        if not items:
            return None
        x = rng.choice(items)
        tr = transitions(ctx, lambda st: st.inventory_dict.get(x, 0) >= 1)
        if not tr or tr[0] == 0:
            return None
        return (rng.choice([f"when {s2} first had {the(x)} in hand", f"the first step {s2} {be} carrying {the(x)}"]),
                f"At which step {be} {s} first carrying {the(x)}?", tr[0])
    if choice == "ranout":
        items = sorted({x for st in S for x in st.inventory_dict})
        if not items:
            return None
        x = rng.choice(items)
        tr = transitions(ctx, lambda st: st.inventory_dict.get(x, 0) == 0)
        tr = [t for t in tr if t > 0]
        if not tr:
            return None
        if len(tr) > 1 and rng.random() < 0.4:
            return (f"the last time {s2} stopped carrying {the(x)}",
                    f"At which step did {s} stop carrying {the(x)} for the last time?", tr[-1])
        return (f"when {s2} stopped carrying {the(x)}", f"At which step did {s} stop carrying {the(x)}?", tr[0])
    if choice == "lastscore":
        zero = [t for t in range(ctx.n) if S[t].state_dict["score"] == 0]
        if not zero or zero[-1] == ctx.n - 1:
            return None
        return (f"at the last step where {pos} score was still 0",
                f"What was the last step at which {pos} score was 0?", zero[-1])
    if choice == "game":
        games = sorted({st.state_dict["game"] for st in S} - {S[0].state_dict["game"]})
        if not games:
            return None
        g = rng.choice(games)
        t = first_step(ctx, lambda st: st.state_dict["game"] == g)
        return (f"when the game number first became {g}", f"At which step did the game number become {g}?", t)
    return None


def occurrence_anchor(ctx, rng, sub, min_count=1, kinds=None, exclude=(), noun=False):
    """An occurrence of a pattern: (clause, step, pattern), e.g. ("the second time it dropped the mug", 120, ...).
    ``noun``: always a noun phrase ("the first time ..."), never "it first dropped ..."."""
    pat = rpat(ctx, rng, min_count, kinds, exclude=exclude)
    if pat is None:
        return None
    ts = ctx.occ[pat]
    s2 = sub["s2"]
    r = rng.random()
    if ts[0] == 0 and len(ts) >= 2 and r < 0.5:
        r = 0.5 + r  # the first occurrence is the opening step: anchor on a later one
    if r < 0.5 or len(ts) < 2:
        if noun:
            return f"the first time {s2} {past(pat, rng)}", ts[0], pat
        return rng.choice([f"{s2} first {past(pat, rng)}", f"the first time {s2} {past(pat, rng)}"]), ts[0], pat
    if r < 0.75:
        return f"the last time {s2} {past(pat, rng)}", ts[-1], pat
    n = rng.randint(2, min(5, len(ts)))
    return f"the {rng.choice(ORD[n])} time {s2} {past(pat, rng)}", ts[n - 1], pat


# -- family 1: step index ------------------------------------------------------------------------


def f1_template(ctx, rng):
    t = rng.randrange(ctx.n)
    sub = rsub(rng)
    if rng.random() < 0.35:
        key, slot, item, state = pick_slot(ctx, t, rng, allow_step=False)
        q = slot_question(slot, sub, "", rng, item, state).replace(" ?", "?").replace(" .", ".")
        lead = rng.choice([f"At step {t}, ", f"On step {t}, ", f"Step {t}: "])
        q = lead + q[0].lower() + q[1:]
    else:
        when = rng.choice([f"at step {t}", f"on step {t}", f"during step {t}"])
        q, _, key = ask_slot(ctx, t, rng, sub, when)
    return q, ctx.slot(t, key), ctx.gold(t), slotname(key)


def f1_room(ctx, rng):
    t = rng.randrange(ctx.n)
    return (f"Looking back at step {t}: which room was the courier standing in once that command had been processed?",
            ctx.slot(t, "location"), ctx.gold(t), "location")


def f1_typed(ctx, rng):
    t = rng.randrange(ctx.n)
    return f"Tell me exactly what Rook typed into the parser on step {t}.", ctx.slot(t, "action"), ctx.gold(t), "action"


def f1_tally(ctx, rng):
    t = rng.randrange(ctx.n)
    return (f"Once step {t} was done, how many deliveries did my running tally show?", ctx.slot(t, "state:deliveries"),
            ctx.gold(t), "state")


def f1_pockets(ctx, rng):
    t = rng.randrange(ctx.n)
    return (f"Empty out your pockets as they were right at the end of step {t}: what's in them?",
            ctx.slot(t, "inventory"), ctx.gold(t), "inventory")


def f1_errand(ctx, rng):
    t = rng.randrange(ctx.n)
    return (f"Word for word, which errand was the agent working on at step {t}?", ctx.slot(t, "state:errand"),
            ctx.gold(t), "state")


def f1_coords(ctx, rng):
    t = rng.randrange(ctx.n)
    return (f"On my own hand-drawn map, what coordinates did I stand at in step {t}?", ctx.slot(t, "position"),
            ctx.gold(t), "position")


def f1_events(ctx, rng):
    ts = [st.t for st in ctx.S if len(st.events) >= 2]
    if not ts:
        return None
    t = rng.choice(ts)
    return (f"Step {t} was a busy one for us. Which events got logged in it?", ctx.slot(t, "events"), ctx.gold(t), "events")


# -- family 2: n-th occurrence -------------------------------------------------------------------


def f2_template(ctx, rng):
    pat = rpat(ctx, rng, min_count=2)
    if pat is None:
        return None
    ts = ctx.occ[pat]
    sub = rsub(rng)
    s, s2 = sub["s"], sub["s2"]
    mode = rng.choice(["nth", "nth", "last", "penult", "again"])
    if mode == "nth":
        n = rng.randint(1, min(6, len(ts)))
        o = rng.choice(ORD[n])
        t = ts[n - 1]
        when = f"the {o} time {s2} {past(pat, rng)}"
        step_q = rng.choice([f"At which step did {s} {inf(pat, rng)} for the {o} time?",
                             f"When did {s} {inf(pat, rng)} for the {o} time? Give the step number."])
    elif mode == "last":
        t = ts[-1]
        when = rng.choice([f"the last time {s2} {past(pat, rng)}", f"the final time {s2} {past(pat, rng)}"])
        step_q = rng.choice([f"When did {s} last {inf(pat, rng)}?", f"What was the step of the most recent time {s} {past(pat, rng)}?"])
    elif mode == "penult":
        t = ts[-2]
        w = rng.choice(["second-to-last", "next-to-last", "penultimate"])
        when = f"the {w} time {s2} {past(pat, rng)}"
        step_q = f"At which step did {s} {inf(pat, rng)} for the {w} time?"
    else:
        t = ts[1]
        when = f"when {s2} {past(pat, rng)} again"
        step_q = rng.choice([f"At which step did {s} {inf(pat, rng)} again?", f"When did {s} {inf(pat, rng)} again?"])
    q, ans, key = ask_slot(ctx, t, rng, sub, when, step_q)
    return q, ans, ctx.gold(t), slotname(key)


def f2_penult(ctx, rng):
    pat = rpat(ctx, rng, min_count=3)
    if pat is None:
        return None
    t = ctx.occ[pat][-2]
    return (f"Rook {past(pat, rng)} several times. On the occasion just before the final one, what was the step number?",
            str(t), ctx.gold(t), "step")


def f2_delivery_score(ctx, rng):
    ts = ctx.occ.get(("deliver", None), [])
    if len(ts) < 2:
        return None
    n = rng.randint(2, min(6, len(ts)))
    t = ts[n - 1]
    return (f"Think of the {ORD[n][0]} delivery you completed overall. What was your score right then?",
            ctx.slot(t, "state:score"), ctx.gold(t), "state")


def f2_again_cmd(ctx, rng):
    pat = rpat(ctx, rng, min_count=2, kinds=["fumble", "examine", "pick up", "open", "stow", "drop"])
    if pat is None:
        return None
    t = ctx.occ[pat][1]
    return (f"The agent {past(pat, rng)} a second time at some point - what exactly was the command it gave then?",
            ctx.slot(t, "action"), ctx.gold(t), "action")


def f2_last_room(ctx, rng):
    pat = rpat(ctx, rng, min_count=2, kinds=["review quest", "check inventory", "look around", "fumble", "earn point"])
    if pat is None:
        return None
    t = ctx.occ[pat][-1]
    return (f"Where did we happen to be standing the very last time we {past(pat, rng)}?", ctx.slot(t, "location"),
            ctx.gold(t), "location")


def f2_third_pickup_inv(ctx, rng):
    ts = ctx.occ.get(("pick up", None), [])
    if len(ts) < 3:
        return None
    n = rng.randint(3, min(6, len(ts)))
    t = ts[n - 1]
    return (f"Right after my {ORD[n][1]} pickup of anything at all, what did my inventory look like?",
            ctx.slot(t, "inventory"), ctx.gold(t), "inventory")


# -- family 3: windowed occurrence ---------------------------------------------------------------


def f3_template(ctx, rng):
    sub = rsub(rng)
    s, s2 = sub["s"], sub["s2"]
    mode = rng.choice(["after", "before", "between", "firstn", "after_ev", "before_ev"])
    anchor = None
    if mode in ("after", "before", "between", "firstn"):
        pat = rpat(ctx, rng, min_count=2)
        if pat is None:
            return None
        ts = ctx.occ[pat]
        i = rng.randrange(1, len(ts))
        p = past(pat, rng)
        if mode == "after":
            N = rng.randint(ts[i - 1], ts[i] - 1)
            t = ts[i]
            when = f"the first time {s2} {p} after step {N}"
            step_q = rng.choice([f"After step {N}, when did {s} first {inf(pat, rng)}?",
                                 f"What was the first step after step {N} at which {s} {p}?"])
        elif mode == "before":
            t = ts[i - 1]
            N = rng.randint(t + 1, ts[i])
            when = f"the last time {s2} {p} before step {N}"
            step_q = f"Before step {N}, at which step did {s} last {inf(pat, rng)}?"
        elif mode == "between":
            A = rng.randint(ts[i - 1] + 1, ts[i])
            B = min(ctx.n - 1, ts[i] + rng.randint(0, 60))
            t = ts[i]
            when = f"the first time {s2} {p} between steps {A} and {B}"
            step_q = f"Between steps {A} and {B}, when did {s} first {inf(pat, rng)}?"
        else:
            t = ts[i - 1]
            N = rng.randint(t + 1, ts[i])
            when = f"the last time {s2} {p} in the first {N} steps"
            step_q = f"In the first {N} steps, at which step did {s} {inf(pat, rng)} for the last time?"
    else:
        a_pat = rpat(ctx, rng, min_count=1)
        pat = rpat(ctx, rng, min_count=2)
        if a_pat is None or pat is None or a_pat == pat:
            return None
        anchor = ctx.occ[a_pat][0]
        ap = past(a_pat, rng)
        p = past(pat, rng)
        if mode == "after_ev":
            later = [x for x in ctx.occ[pat] if x > anchor]
            if not later:
                return None
            t = later[0]
            when = f"the first time {s2} {p} after {s2} {ap}"
            step_q = f"After {s} {ap}, at which step did {s2} first {inf(pat, rng)}?"
        else:
            earlier = [x for x in ctx.occ[pat] if x < anchor]
            if not earlier:
                return None
            t = earlier[-1]
            when = f"the last time {s2} {p} before {s2} {ap}"
            step_q = f"Before {s} {ap}, at which step did {s2} last {inf(pat, rng)}?"
    q, ans, key = ask_slot(ctx, t, rng, sub, when, step_q)
    return q, ans, ctx.gold(t, anchor), slotname(key)


def f3_between_any(ctx, rng):
    pat = rpat(ctx, rng, min_count=2, with_any=True, kinds=["fumble", "examine", "pick up", "deliver", "enter", "review quest"])
    if pat is None or pat[1] not in (None, ""):
        return None
    ts = ctx.occ[pat]
    i = rng.randrange(1, len(ts))
    A = rng.randint(ts[i - 1] + 1, ts[i])
    B = min(ctx.n - 1, ts[i] + rng.randint(5, 80))
    t = ts[i]
    return (f"Somewhere between step {A} and step {B} the agent {past(pat, rng)}. At which step did that first happen in that stretch?",
            str(t), ctx.gold(t), "step")


def f3_room_after_event(ctx, rng):
    a_pat = rpat(ctx, rng, kinds=["deliver", "unlock", "win game", "earn point", "open"])
    pat = rpat(ctx, rng, min_count=2, kinds=["fumble", "examine", "pick up", "drop", "stow"])
    if a_pat is None or pat is None:
        return None
    a = ctx.occ[a_pat][0]
    later = [x for x in ctx.occ[pat] if x > a]
    if not later:
        return None
    t = later[0]
    return (f"After I {past(a_pat, rng)} - the first time, that is - where was I when I next {past(pat, rng)}?",
            ctx.slot(t, "location"), ctx.gold(a, t), "location")


def f3_last_fumble_firstn(ctx, rng):
    ts = ctx.occ.get(("fumble", None), [])
    if len(ts) < 2:
        return None
    i = rng.randrange(1, len(ts))
    N = rng.randint(ts[i - 1] + 1, ts[i])
    t = ts[i - 1]
    return (f"Counting only the first {N} steps, what was the last command I fumbled?", ctx.slot(t, "action"),
            ctx.gold(t), "action")


def f3_before_step_pos(ctx, rng):
    pat = rpat(ctx, rng, min_count=2, kinds=["drop", "stow", "deliver", "pick up"])
    if pat is None:
        return None
    ts = ctx.occ[pat]
    i = rng.randrange(1, len(ts))
    N = rng.randint(ts[i - 1] + 1, ts[i])
    t = ts[i - 1]
    return (f"Up until just before step {N}, which grid coordinates marked the most recent place where Rook {past(pat, rng)}?",
            ctx.slot(t, "position"), ctx.gold(t), "position")


# -- family 4: conditions ------------------------------------------------------------------------


def f4_template(ctx, rng):
    sub = rsub(rng)
    c = condition(ctx, rng, sub)
    if c is None or c[2] is None:
        return None
    when, step_q, t = c
    q, ans, key = ask_slot(ctx, t, rng, sub, when, step_q)
    return q, ans, ctx.gold(t), slotname(key)


def f4_mistakes_above(ctx, rng):
    vals = sorted({st.state_dict["mistakes"] for st in ctx.S})
    if len(vals) < 3:
        return None
    k = rng.choice(vals[1:-1])
    t = first_step(ctx, lambda st: st.state_dict["mistakes"] > k)
    return (f"My mistake counter kept creeping up. At which step did it first go above {k}?", str(t), ctx.gold(t), "step")


def f4_errand_room(ctx, rng):
    vals = sorted({st.state_dict["errand"] for st in ctx.S} - {"idle", "solve quest", ctx.S[0].state_dict["errand"]})
    if not vals:
        return None
    x = rng.choice(vals)
    t = transitions(ctx, lambda st: st.state_dict["errand"] == x)[0]
    return (f"The errand field first read '{x}' at some step. Which room was I in at that moment?",
            ctx.slot(t, "location"), ctx.gold(t), "location")


def f4_last_holding(ctx, rng):
    items = sorted({x for st in ctx.S for x in st.inventory_dict})
    items = [x for x in items if ctx.S[-1].inventory_dict.get(x, 0) == 0]
    if not items:
        return None
    x = rng.choice(items)
    t = max(st.t for st in ctx.S if st.inventory_dict.get(x, 0) >= 1)
    return (f"What was the very last step where you still had the {x} on you?", str(t), ctx.gold(t), "step")


def f4_delivery_score(ctx, rng):
    vals = sorted({st.state_dict["deliveries"] for st in ctx.S} - {0})
    if not vals:
        return None
    k = rng.choice(vals)
    t = first_step(ctx, lambda st: st.state_dict["deliveries"] >= k)
    return (f"At the moment Rook's delivery count first reached {k}, how many points did Rook have in the current game?",
            ctx.slot(t, "state:score"), ctx.gold(t), "state")


def f4_game_coords(ctx, rng):
    games = sorted({st.state_dict["game"] for st in ctx.S} - {ctx.S[0].state_dict["game"]})
    if not games:
        return None
    g = rng.choice(games)
    t = first_step(ctx, lambda st: st.state_dict["game"] == g)
    return (f"When the game counter switched over to {g}, what did the agent's inventory contain?",
            ctx.slot(t, "inventory"), ctx.gold(t), "inventory")


# -- family 5: offsets ---------------------------------------------------------------------------


def f5_template(ctx, rng):
    sub = rsub(rng)
    sub["s2"]
    k = rng.randint(1, 6)
    after = rng.random() < 0.5
    r = rng.random()
    anchor_gold = None
    if r < 0.5:
        oc = occurrence_anchor(ctx, rng, sub)
        if oc is None:
            return None
        clause, a, _ = oc
        anchor_gold = a
    elif r < 0.75:
        a = rng.randrange(ctx.n)
        clause = f"step {a}"
    else:
        c = condition(ctx, rng, sub)
        if c is None or c[2] is None:
            return None
        a = c[2]
        clause = c[0]
        for pre in ("when ", "at the last step where "):
            if clause.startswith(pre):
                clause = (("the moment " if pre == "when " else "the last step where ") + clause[len(pre):])
        anchor_gold = a
    t = a + k if after else a - k
    if not 0 <= t < ctx.n:
        return None
    if clause.startswith("step ") and k == 1 and after and rng.random() < 0.5:
        when = f"right after {clause}"
    else:
        steps_word = "step" if k == 1 else "steps"
        when = f"{num(k, rng)} {steps_word} {'after' if after else 'before'} {clause}"
    key, slot, item, state = pick_slot(ctx, t, rng, allow_step=False)
    q = slot_question(slot, sub, when, rng, item, state)
    return q, ctx.slot(t, key), ctx.gold(t, anchor_gold), slotname(key)


def f5_right_after(ctx, rng):
    N = rng.randrange(ctx.n - 1)
    return f"Right after step {N}, what was the command?", ctx.slot(N + 1, "action"), ctx.gold(N + 1), "action"


def f5_two_before_room(ctx, rng):
    pat = rpat(ctx, rng, kinds=["deliver", "unlock", "stow", "win game", "eat", "open", "lock"])
    if pat is None:
        return None
    a = ctx.occ[pat][0]
    if a < 2:
        return None
    return (f"Two steps before I first {past(pat, rng)}, which room was I in?", ctx.slot(a - 2, "location"),
            ctx.gold(a, a - 2), "location")


def f5_score_then_inv(ctx, rng):
    vals = sorted({st.state_dict["score"] for st in ctx.S} - {0})
    if not vals:
        return None
    v = rng.choice(vals)
    a = first_step(ctx, lambda st: st.state_dict["score"] >= v)
    k = rng.randint(2, 5)
    if a + k >= ctx.n:
        return None
    return (f"Go {num(k, rng)} steps past the moment my score first reached {v}. What was I holding then?",
            ctx.slot(a + k, "inventory"), ctx.gold(a, a + k), "inventory")


def f5_before_last_errand(ctx, rng):
    pat = rpat(ctx, rng, min_count=2, kinds=["deliver", "pick up", "drop"])
    if pat is None:
        return None
    a = ctx.occ[pat][-1]
    k = rng.randint(1, 4)
    if a - k < 0:
        return None
    return (f"Count back {num(k, rng)} step{'s' if k > 1 else ''} from the final time the courier {past(pat, rng)}: what did its errand field say there?",
            ctx.slot(a - k, "state:errand"), ctx.gold(a, a - k), "state")


# -- family 6: next / previous -------------------------------------------------------------------


def f6_template(ctx, rng):
    sub = rsub(rng)
    s, s2 = sub["s"], sub["s2"]
    mode = rng.choice(["next_step", "next_ev", "prev_ev", "prev_step"])
    pat = rpat(ctx, rng, min_count=2)
    if pat is None:
        return None
    ts = ctx.occ[pat]
    anchor = None
    if mode == "next_step":
        N = rng.randrange(ctx.n)
        later = [x for x in ts if x > N]
        if not later:
            return None
        t = later[0]
        when = f"the next time {s2} {past(pat, rng)} after step {N}"
        step_q = rng.choice([f"After step {N}, when did {s} next {inf(pat, rng)}?",
                             f"Following step {N}, at what step did {s} next {inf(pat, rng)}?"])
    elif mode == "prev_step":
        N = rng.randrange(ctx.n)
        earlier = [x for x in ts if x < N]
        if not earlier:
            return None
        t = earlier[-1]
        when = f"the previous time {s2} {past(pat, rng)} before step {N}"
        step_q = rng.choice([f"Before step {N}, when had {s} most recently done this: {inf(pat, rng)}?",
                             f"Going backwards from step {N}, at which earlier step did {s} last {inf(pat, rng)}?"])
    else:
        oc = occurrence_anchor(ctx, rng, sub)
        if oc is None or oc[2] == pat:
            return None
        clause, anchor, _ = oc
        if mode == "next_ev":
            later = [x for x in ts if x > anchor]
            if not later:
                return None
            t = later[0]
            when = f"the next time {s2} {past(pat, rng)} after {clause}"
            step_q = f"After {clause}, when did {s2} next {inf(pat, rng)}?"
        else:
            earlier = [x for x in ts if x < anchor]
            if not earlier:
                return None
            t = earlier[-1]
            when = f"the previous time {s2} {past(pat, rng)} before {clause}"
            step_q = f"Before {clause}, at which step did {s2} most recently {inf(pat, rng)}?"
    q, ans, key = ask_slot(ctx, t, rng, sub, when, step_q)
    return q, ans, ctx.gold(t, anchor), slotname(key)


def f6_next_room(ctx, rng):
    ts = ctx.occ.get(("enter", None), [])
    N = rng.randrange(ctx.n)
    later = [x for x in ts if x > N]
    if not later:
        return None
    t = later[0]
    return f"Which room did I walk into next, after step {N}?", ctx.slot(t, "location"), ctx.gold(t), "location"


def f6_prev_quest(ctx, rng):
    ts = ctx.occ.get(("review quest", ""), [])
    N = rng.randrange(ctx.n)
    earlier = [x for x in ts if x < N]
    if not earlier:
        return None
    t = earlier[-1]
    return f"Just before step {N}, when had you last checked the quest?", str(t), ctx.gold(t), "step"


def f6_prev_fumble_cmd(ctx, rng):
    pat = rpat(ctx, rng, kinds=["deliver", "earn point", "win game", "unlock", "stow"])
    fs = ctx.occ.get(("fumble", None), [])
    if pat is None or not fs:
        return None
    a = ctx.occ[pat][0]
    earlier = [x for x in fs if x < a]
    if not earlier:
        return None
    t = earlier[-1]
    return (f"The first time Rook {past(pat, rng)}, what was the most recent failed command before that?",
            ctx.slot(t, "action"), ctx.gold(a, t), "action")


def f6_next_grab(ctx, rng):
    ts = ctx.occ.get(("pick up", None), [])
    N = rng.randrange(ctx.n)
    later = [x for x in ts if x > N]
    if not later:
        return None
    t = later[0]
    return (f"Once step {N} was over, at which step did we next get our hands on something?", str(t), ctx.gold(t), "step")


# -- family 7: counts ----------------------------------------------------------------------------


def count_window(ctx, rng, sub):
    """(phrase, lo, hi, anchor step or None) for a counting/existence window."""
    sub["s2"]
    r = rng.random()
    n = ctx.n
    if r < 0.2:
        return rng.choice(["in the whole episode", "over the entire run", "overall", "across all the games"]), 0, n - 1, None
    if r < 0.4:
        A = rng.randrange(n - 20)
        B = rng.randint(A + 10, min(n - 1, A + 200))
        return rng.choice([f"between steps {A} and {B}", f"from step {A} to step {B}"]), A, B, None
    if r < 0.55:
        N = rng.randint(30, n - 1)
        return f"in the first {N} steps", 0, N - 1, None
    if r < 0.7:
        N = rng.randrange(n - 30)
        return f"after step {N}", N + 1, n - 1, None
    if r < 0.8:
        N = rng.randint(20, n - 1)
        return f"by step {N}", 0, N, None
    oc = occurrence_anchor(ctx, rng, sub, kinds=["deliver", "win game", "unlock", "open", "stow", "earn point", "eat"])
    if oc is None:
        return None
    clause, a, _ = oc
    if rng.random() < 0.5:
        return f"before {clause}", 0, a - 1, a
    return f"after {clause}", a + 1, n - 1, a


def f7_template(ctx, rng):
    sub = rsub(rng)
    s = sub["s"]
    w = count_window(ctx, rng, sub)
    if w is None:
        return None
    wtext, lo, hi, anchor = w
    if lo > hi:
        return None
    if rng.random() < 0.15:
        nev = never_patterns(ctx)
        if not nev:
            return None
        pat = rng.choice(nev)
    else:
        pat = rpat(ctx, rng, exclude=("earn point",))
        if pat is None:
            return None
    c, where = ctx.count(pat, lo, hi)
    q = rng.choice([f"How many times did {s} {inf(pat, rng)} {wtext}?", f"How often did {s} {inf(pat, rng)} {wtext}?",
                    f"{cap(wtext)}, how many times did {s} {inf(pat, rng)}?", f"Count the times {s} {past(pat, rng)} {wtext}."])
    return q, str(c), ctx.gold(where[-1] if where else None, anchor), "count"


def f7_deliveries(ctx, rng):
    c, where = ctx.count(("deliver", None))
    return ("How many separate deliveries did I finish over the whole run?", str(c),
            ctx.gold(where[-1] if where else None), "count")


def f7_fumbles_between(ctx, rng):
    A = rng.randrange(ctx.n - 40)
    B = rng.randint(A + 20, min(ctx.n - 1, A + 250))
    c, where = ctx.count(("fumble", None), A, B)
    return (f"Tally up the failed commands from step {A} through step {B}.", str(c),
            ctx.gold(where[-1] if where else None), "count")


def f7_looks_before(ctx, rng):
    a_pat = rpat(ctx, rng, kinds=["deliver", "win game", "stow", "unlock"])
    pat = rpat(ctx, rng, kinds=["examine"], specific=True)
    if a_pat is None or pat is None:
        return None
    a = ctx.occ[a_pat][0]
    c, where = ctx.count(pat, 0, a - 1)
    return (f"How many times did Rook look at the {pat[1]} before it first {past(a_pat, rng)}?", str(c),
            ctx.gold(where[-1] if where else None, a), "count")


def f7_room_firstn(ctx, rng):
    pat = rpat(ctx, rng, kinds=["enter"], specific=True)
    if pat is None:
        return None
    N = rng.randint(40, ctx.n - 1)
    c, where = ctx.count(pat, 0, N - 1)
    return (f"In the first {N} steps, how often did we enter the {pat[1]}?", str(c),
            ctx.gold(where[-1] if where else None), "count")


# -- family 8: order -----------------------------------------------------------------------------


def f8_template(ctx, rng):
    sub = rsub(rng)
    s, s2 = sub["s"], sub["s2"]
    which = rng.random() < 0.5
    pa = rpat(ctx, rng, specific=which, avoid_zero=True)
    pb = rpat(ctx, rng, specific=which, avoid_zero=rng.random() < 0.8)
    if pa is None or pb is None or pa[0] == pb[0] and pa[1] == pb[1]:
        return None
    a, b = ctx.occ[pa][0], ctx.occ[pb][0]
    if a == b:
        return None
    if which:
        first = pa if a < b else pb
        q = rng.choice([f"Which happened first: {s} {past(pa, rng)}, or {s2} {past(pb, rng)}?",
                        f"Which came earlier - {s} {past(pa, rng)} or {s2} {past(pb, rng)}?",
                        f"Did {s} {inf(pa, rng)} first or {inf(pb, rng)} first?"])
        return q, label(*first), ctx.gold(a, b), "which-first"
    if rng.random() < 0.5:
        q = rng.choice([f"Did {s} {inf(pa, rng)} before {s2} {past(pb, rng)}?",
                        f"Before {s} {past(pb, rng)}, had {s2} already managed to {inf(pa, rng)}?"])
        return q, "yes" if a < b else "no", ctx.gold(a, b), "yes/no"
    q = f"Did {s} {inf(pa, rng)} for the first time after {s2} first {past(pb, rng)}?"
    return q, "yes" if a > b else "no", ctx.gold(a, b), "yes/no"


def f8_fumble_vs_delivery(ctx, rng):
    fa = ctx.occ.get(("fumble", None), [])
    de = ctx.occ.get(("deliver", None), [])
    if not fa or not de or fa[0] == de[0]:
        return None
    return ("Was my first fumbled command earlier than my first completed delivery?", "yes" if fa[0] < de[0] else "no",
            ctx.gold(fa[0], de[0]), "yes/no")


def f8_won_already(ctx, rng):
    wins = ctx.occ.get(("win game", ""), [])
    pat = rpat(ctx, rng, specific=True, exclude=("win game", "start game", "review quest"))
    if not wins or pat is None:
        return None
    a = ctx.occ[pat][0]
    if a == wins[0]:
        return None
    return (f"Had Rook already won a game by the time it first {past(pat, rng)}?", "yes" if wins[0] < a else "no",
            ctx.gold(wins[0], a), "yes/no")


def f8_rooms(ctx, rng):
    r1 = rpat(ctx, rng, kinds=["enter"], specific=True)
    r2 = rpat(ctx, rng, kinds=["enter"], specific=True)
    if r1 is None or r2 is None or r1 == r2:
        return None
    a, b = ctx.occ[r1][0], ctx.occ[r2][0]
    first = r1 if a < b else r2
    return (f"Which room did you reach first, the {r1[1]} or the {r2[1]}? Answer with the event.", label(*first),
            ctx.gold(a, b), "which-first")


def f8_pick_vs_look(ctx, rng):
    pa = rpat(ctx, rng, kinds=["pick up"], specific=True)
    if pa is None:
        return None
    pb = ("examine", pa[1])
    if pb not in ctx.occ:
        pb = rpat(ctx, rng, kinds=["examine"], specific=True)
    if pb is None:
        return None
    a, b = ctx.occ[pa][0], ctx.occ[pb][0]
    if a == b:
        return None
    return (f"Was the {pa[1]} picked up before the {pb[1]} was ever examined?", "yes" if a < b else "no",
            ctx.gold(a, b), "yes/no")


# -- family 9: distance --------------------------------------------------------------------------


def anchor_any(ctx, rng, sub):
    if rng.random() < 0.7:
        oc = occurrence_anchor(ctx, rng, sub, noun=True)
        return None if oc is None else (oc[0], oc[1])
    c = condition(ctx, rng, sub)
    if c is None or c[2] is None:
        return None
    clause = c[0]
    if clause.startswith("when "):
        clause = "the moment " + clause[5:]
    elif clause.startswith("at the last step where "):
        clause = "the last step where " + clause[len("at the last step where "):]
    return clause, c[2]


def f9_template(ctx, rng):
    sub = rsub(rng)
    x = anchor_any(ctx, rng, dict(sub, s2=sub["s"]))  # the first mention names the subject
    y = anchor_any(ctx, rng, sub)
    if x is None or y is None or x[1] == y[1]:
        return None
    q = rng.choice([f"How many steps passed between {x[0]} and {y[0]}?",
                    f"How far apart, in steps, were {x[0]} and {y[0]}?",
                    f"What is the distance in steps from {x[0]} to {y[0]}?"])
    return q, str(abs(x[1] - y[1])), ctx.gold(x[1], y[1]), "duration"


def f9_errand_span(ctx, rng):
    vals = sorted({st.state_dict["errand"] for st in ctx.S if st.state_dict["errand"].startswith("carry ")})
    rng.shuffle(vals)
    for x in vals:
        a = transitions(ctx, lambda st, x=x: st.state_dict["errand"] == x)[0]
        item = x[len("carry "):].rsplit(" to ", 1)[0]
        later = [t for t in ctx.occ.get(("deliver", item), []) if t >= a]
        if later and later[0] > a:
            return (f"How many steps passed from when the errand first read '{x}' until the {item} was delivered?",
                    str(later[0] - a), ctx.gold(a, later[0]), "duration")
    return None


def f9_fumble_span(ctx, rng):
    fs = ctx.occ.get(("fumble", None), [])
    if len(fs) < 2:
        return None
    return ("How many steps separate my very first fumbled command from my very last one?", str(fs[-1] - fs[0]),
            ctx.gold(fs[0], fs[-1]), "duration")


def f9_game_span(ctx, rng):
    starts = ctx.occ.get(("start game", ""), [])
    wins = ctx.occ.get(("win game", ""), [])
    pairs = []
    for i, a in enumerate(starts):
        g = ctx.S[a].state_dict["game"]
        w = [t for t in wins if t > a and ctx.S[t].state_dict["game"] == g]
        if w:
            pairs.append((g, a, w[0]))
    if not pairs:
        return None
    g, a, b = rng.choice(pairs)
    return (f"From the moment game {g} started to the moment I won it, how many steps went by?", str(b - a),
            ctx.gold(a, b), "duration")


def f9_pick_drop(ctx, rng):
    cands = [p for p in ctx.patterns(kinds=["pick up"]) if p[1] and ("drop", p[1]) in ctx.occ]
    cands = [p for p in cands if any(t > ctx.occ[p][0] for t in ctx.occ[("drop", p[1])])]
    if not cands:
        return None
    p = rng.choice(cands)
    a = ctx.occ[p][0]
    b = ctx.occ[("drop", p[1])][0]
    return (f"How far apart in steps were the first time the agent picked up the {p[1]} and the first time it dropped it?",
            str(abs(b - a)), ctx.gold(a, b), "duration")


# -- family 10: existence ------------------------------------------------------------------------


def f10_template(ctx, rng):
    sub = rsub(rng)
    s, _s2 = sub["s"], sub["s2"]
    r = rng.random()
    if r < 0.2:
        nev = never_patterns(ctx)
        if not nev:
            return None
        pat = rng.choice(nev)
        q = rng.choice([f"Did {s} ever {inf(pat, rng)}?", f"Was there any point where {s} {past(pat, rng)}?"])
        return q, "no", [], "yes/no", "never"
    pat = rpat(ctx, rng)
    if pat is None:
        return None
    ts = ctx.occ[pat]
    n = ctx.n
    anchor = None
    mode = rng.choice(["ever", "after", "before", "between", "after_ev", "before_ev", "no_after", "no_before"])
    if (mode == "no_after" and ts[-1] > n - 2) or (mode == "no_before" and ts[0] < 1):
        return None
    if mode == "ever":
        lo, hi, wtext = 0, n - 1, "ever"
    elif mode in ("after", "no_after"):
        N = rng.randrange(n - 1) if mode == "after" else rng.randint(ts[-1], n - 2)
        lo, hi, wtext = N + 1, n - 1, f"after step {N}"
    elif mode in ("before", "no_before"):
        N = rng.randint(1, n - 1) if mode == "before" else rng.randint(1, ts[0])
        lo, hi, wtext = 0, N - 1, f"before step {N}"
    elif mode == "between":
        A = rng.randrange(n - 20)
        B = rng.randint(A + 5, min(n - 1, A + 80))
        lo, hi, wtext = A, B, f"between steps {A} and {B}"
    else:
        oc = occurrence_anchor(ctx, rng, sub)
        if oc is None or oc[2] == pat:
            return None
        clause, anchor, _ = oc
        if mode == "after_ev":
            lo, hi, wtext = anchor + 1, n - 1, f"after {clause}"
        else:
            lo, hi, wtext = 0, anchor - 1, f"before {clause}"
    h = ctx.hits(pat, lo, hi)
    if wtext == "ever":
        q = rng.choice([f"Did {s} ever {inf(pat, rng)}?", f"At any point, did {s} {inf(pat, rng)}?"])
    else:
        q = rng.choice([f"Did {s} {inf(pat, rng)} {wtext}?", f"{cap(wtext)}, did {s} {inf(pat, rng)} at all?",
                        f"Was there any step {wtext} where {s} {past(pat, rng)}?"])
    if h:
        return q, "yes", ctx.gold(h[0], anchor), "yes/no", "yes"
    return q, "no", ctx.gold(anchor), "yes/no", "window_no"


def f10_eat(ctx, rng):
    h = ctx.occ.get(("eat", None), [])
    return ("Did I ever manage to eat anything?", "yes" if h else "no", ctx.gold(h[0]) if h else [], "yes/no")


def f10_unlocked(ctx, rng):
    cands = sorted(n for n, t in ctx.entities.items() if t in ("c", "d"))
    if not cands:
        return None
    x = rng.choice(cands)
    h = ctx.occ.get(("unlock", x), [])
    return (f"Was the {x} ever unlocked by the courier?", "yes" if h else "no", ctx.gold(h[0]) if h else [], "yes/no")


def f10_fumble_after(ctx, rng):
    fs = ctx.occ.get(("fumble", None), [])
    if not fs:
        return None
    N = rng.randint(max(0, fs[-1] - 80), ctx.n - 2)
    h = [t for t in fs if t > N]
    return (f"At any point after step {N}, did Rook fumble a command?", "yes" if h else "no",
            ctx.gold(h[0]) if h else [], "yes/no")


def f10_room_visit(ctx, rng):
    rooms = sorted(n for n, t in ctx.entities.items() if t == "r" and ((("enter", n) in ctx.occ) or n not in ctx.regions))
    x = rng.choice(rooms)
    h = ctx.occ.get(("enter", x), [])
    return (f"Did you ever set foot in the {x}?", "yes" if h else "no", ctx.gold(h[0]) if h else [], "yes/no")


def f10_stow_before_win(ctx, rng):
    wins = ctx.occ.get(("win game", ""), [])
    if not wins:
        return None
    a = wins[0]
    h = [t for t in ctx.occ.get(("stow", None), []) if t < a]
    return ("Before the first game was won, did we ever stow anything on or in furniture?", "yes" if h else "no",
            ctx.gold(h[0] if h else None, a), "yes/no")


FAMILIES = {
    "1_step_index": (f1_template, [f1_room, f1_typed, f1_tally, f1_pockets, f1_errand, f1_coords, f1_events]),
    "2_nth_occurrence": (f2_template, [f2_penult, f2_delivery_score, f2_again_cmd, f2_last_room, f2_third_pickup_inv]),
    "3_windowed_occurrence": (f3_template, [f3_between_any, f3_room_after_event, f3_last_fumble_firstn, f3_before_step_pos]),
    "4_condition": (f4_template, [f4_mistakes_above, f4_errand_room, f4_last_holding, f4_delivery_score, f4_game_coords]),
    "5_offset": (f5_template, [f5_right_after, f5_two_before_room, f5_score_then_inv, f5_before_last_errand]),
    "6_next_previous": (f6_template, [f6_next_room, f6_prev_quest, f6_prev_fumble_cmd, f6_next_grab]),
    "7_count": (f7_template, [f7_deliveries, f7_fumbles_between, f7_looks_before, f7_room_firstn]),
    "8_order": (f8_template, [f8_fumble_vs_delivery, f8_won_already, f8_rooms, f8_pick_vs_look]),
    "9_distance": (f9_template, [f9_errand_span, f9_fumble_span, f9_game_span, f9_pick_drop]),
    "10_existence": (f10_template, [f10_eat, f10_unlocked, f10_fumble_after, f10_room_visit, f10_stow_before_win]),
}


NEEDS = {"7_count": ["zero"], "10_existence": ["never", "window_no"]}


def _tag(r) -> str:
    if len(r) > 4:
        return r[4]
    return "zero" if r[1] == "0" else ""


def make_questions(ctx: Ctx, rng: random.Random) -> list[dict]:
    out = []
    seen = set()
    for fam, (template, oneoffs) in FAMILIES.items():
        got = []
        picks = list(oneoffs)
        rng.shuffle(picks)
        n_one = 0
        for fn in picks:
            if n_one >= 2:
                break
            for _ in range(8):
                r = fn(ctx, rng)
                if r is not None and r[0] not in seen:
                    got.append(r)
                    seen.add(r[0])
                    n_one += 1
                    break
        tries = 0
        slots_used: dict[str, int] = {}
        while len(got) < 6 and tries < 400:
            tries += 1
            r = template(ctx, rng)
            if r is None or r[0] in seen:
                continue
            missing = [n for n in NEEDS.get(fam, []) if n not in [_tag(g) for g in got]]
            if 6 - len(got) <= len(missing) and tries < 350 and _tag(r) not in missing:
                continue
            if slots_used.get(r[3], 0) >= 2 and tries < 200:
                continue
            if fam == "10_existence" and tries < 200:
                yes = sum(1 for g in got if g[1] == "yes")
                if (r[1] == "yes" and yes >= 3) or (r[1] == "no" and len(got) - yes >= 3):
                    continue
            if fam == "7_count" and tries < 200 and r[1] == "0" and any(g[1] == "0" for g in got):
                continue
            slots_used[r[3]] = slots_used.get(r[3], 0) + 1
            got.append(r)
            seen.add(r[0])
        if len(got) < 6:
            raise RuntimeError(f"{fam}: only {len(got)} questions")
        for q, a, g, slot, *_ in got:
            out.append({"episode": ctx.ep, "family": fam, "slot": slot, "question": q, "answer": a, "gold": g})
    return out


# ------------------------------------------------------------------------------------------------
# Suite interface
# ------------------------------------------------------------------------------------------------


def build(seed: int) -> dict:
    workdir = tempfile.mkdtemp(prefix=f"{SUITE}-{seed}-")
    try:
        courier = Courier(seed, workdir)
        steps = courier.run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    ep = f"{SUITE}-{seed}"
    validate_steps(steps, ep)
    ctx = Ctx(steps, ep, courier.entities)
    questions = make_questions(ctx, random.Random(seed * 31 + 5))
    return {"episodes": {ep: steps}, "questions": questions}


def _self_check(seeds):
    from collections import Counter

    for seed in seeds:
        t0 = time.time()
        a = build(seed)
        t1 = time.time()
        b = build(seed)
        assert a == b, f"seed {seed}: build is not deterministic"
        (ep, steps), = a["episodes"].items()
        validate_steps(steps, ep)
        assert 300 <= len(steps) <= 1500 and all(st.t == i for i, st in enumerate(steps))
        qs = a["questions"]
        fams = Counter(q["family"] for q in qs)
        assert len(qs) == 60 and all(v == 6 for v in fams.values()) and len(fams) == 10, fams
        print(f"seed {seed}: {len(steps)} steps, {len(qs)} questions, build {t1 - t0:.1f}s, games "
              f"{steps[-1].state_dict['game']}")
        print("  families:", dict(sorted(fams.items(), key=lambda kv: int(kv[0].split('_')[0]))))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  family/slot:", dict(sorted(Counter(f"{q['family'].split('_')[0]}/{q['slot']}" for q in qs).items())))
        print("  event kinds:", dict(Counter(e.kind for st in steps for e in st.events).most_common()))
        rng = random.Random(seed)
        for q in rng.sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")


if __name__ == "__main__":
    args = [int(x) for x in sys.argv[1:]]
    _self_check(args or [SEED_RANGE[0], SEED_RANGE[1]])
