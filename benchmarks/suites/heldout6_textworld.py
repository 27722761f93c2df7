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
SCRATCH = "/tmp/h6_textworld"

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
            verb = rng.choice(["tkae", "exmaine", "opne", "grab the", "pik up", "chek"])
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
