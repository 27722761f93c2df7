"""heldout8_science: an absent-minded student working through chained ScienceWorld tasks.

What the agent does
-------------------
One episode per seed runs the real ScienceWorld simulator (its Java process, one per build, started
with a fixed identity-hash mode so that a build is deterministic). The student "Mira" works through 3-5
task variations in a row, drawn per seed from freeze, grow-plant, power-component, test-conductivity,
inclined-plane-determine-angle, lifespan-longest-lived and find-animal. Each task is solved by the
simulator's own gold action sequence, interleaved with the detours of an absent-minded student: looking
around, checking the inventory, reading the task again, typing commands the simulator refuses or does
not know, examining things, trying closed doors and walking to a neighbouring room and back. Detours
that let simulated time pass are kept out of the timing-sensitive stretches of a task (a growing plant
that must be watered, a stopwatch run, a cooling substance, animals that age); a task whose plan does
not finish is re-run with fewer detours. After each task the student explores freely for a while
(walking through doors, examining, picking things up and putting them down).

What the records hold
---------------------
One ``Step`` per command: ``action`` is the command typed; ``location`` the room (region) and a grid
cell of this suite's own map of the house; ``inventory`` the simulator's inventory listing as item
name -> count; ``state`` holds ``score`` (the current task's score), ``task`` (short task name),
``tasks_done``, ``moves`` (simulator moves summed over the episode), ``last_reading`` (the latest
thermometer or stopwatch reading, "none" before any) and ``focus`` (what the current task's focus is
on, "nothing" before a focus). The first relation is what the command acted on or looked at. Events
are this suite's own words, derived from the command, the simulator's reply and the changes in the
observation, score, inventory and task: "start task", "finish task", "score up", "relocate", "enter",
"open", "shut", "no effect", "take", "release", "move", "pour", "focus", "wire up", "disconnect",
"switch on", "switch off", "measure", "read off", "inspect", "look about", "check pockets",
"reread task", "idle", "refused", "prompted", "turn into", "reach stage", "power up", "power down".
"""

from __future__ import annotations

import bisect
import collections
import hashlib
import os
import random
import re
import sys
import time

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout8_science"
SEED_RANGE = range(9700, 9800)
EPISODE_PREFIX = "sci8"
AGENT_NAME = "Mira"

_JVM_OPTS = "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2"

TASK_POOL = (
    "freeze",
    "grow-plant",
    "power-component",
    "test-conductivity",
    "inclined-plane-determine-angle",
    "lifespan-longest-lived",
    "find-animal",
)
TASK_SHORT = {
    "freeze": "freeze",
    "grow-plant": "grow plant",
    "power-component": "power component",
    "test-conductivity": "test conductivity",
    "inclined-plane-determine-angle": "inclined plane",
    "lifespan-longest-lived": "longest lifespan",
    "find-animal": "find animal",
}
#: How a question names each task (the stored name is TASK_SHORT).
TASK_WORDS = {
    "freeze": ["freeze", "freezing"],
    "grow plant": ["grow plant", "plant-growing"],
    "power component": ["power component", "circuit-building (power component)"],
    "test conductivity": ["test conductivity", "conductivity-testing"],
    "inclined plane": ["inclined plane", "inclined-plane angle"],
    "longest lifespan": ["longest lifespan", "longest-lived animal"],
    "find animal": ["find animal", "find-an-animal"],
}

#: This suite's own map of the house: one grid cell per room.
ROOM_GRID = {
    "bathroom": (0, 2),
    "kitchen": (1, 2),
    "hallway": (2, 2),
    "workshop": (3, 2),
    "bedroom": (1, 3),
    "art studio": (2, 3),
    "living room": (3, 3),
    "foundry": (0, 1),
    "outside": (1, 1),
    "greenhouse": (2, 1),
}

_GIBBERISH = (
    "dance", "sing a song", "where am i", "hmm", "what was i doing", "take a nap", "jump",
    "think about lunch", "call mom", "drink air", "smell the roses", "whistle", "undo",
)
_PORTABLE = {
    "thermometer", "stopwatch", "glass cup", "lighter", "axe", "tin cup", "ceramic cup", "jug",
    "drawing", "finger painting", "glass jar", "seed jar", "metal pot", "wood cup", "plastic cup",
}
_GOLD_MAX = 120


# ---------------------------------------------------------------------------------------------------
# The simulator
# ---------------------------------------------------------------------------------------------------


class _Sim:
    """One ScienceWorld Java process, started in the deterministic identity-hash mode."""

    def __init__(self) -> None:
        old = os.environ.get("JAVA_TOOL_OPTIONS")
        os.environ["JAVA_TOOL_OPTIONS"] = _JVM_OPTS
        try:
            from scienceworld import ScienceWorldEnv

            self.env = ScienceWorldEnv("", envStepLimit=10**7)
        finally:
            if old is None:
                os.environ.pop("JAVA_TOOL_OPTIONS", None)
            else:
                os.environ["JAVA_TOOL_OPTIONS"] = old
        self.srv = self.env.server

    def load(self, task: str, variation: int) -> list[str]:
        self.env.load(task, variation, "", generateGoldPath=True)
        return [str(a) for a in self.env.get_gold_action_sequence()]

    def max_variations(self, task: str) -> int:
        return int(self.env.get_max_variations(task))

    def step(self, cmd: str) -> dict:
        obs = str(self.srv.step(cmd))
        return {
            "cmd": cmd,
            "obs": obs,
            "score": int(round(100 * float(self.srv.getScore()))),
            "done": bool(self.srv.getCompleted()),
            "moves": int(self.srv.getNumMoves()),
            "look": str(self.srv.freeActionLook()),
            "inv": str(self.srv.freeActionInventory()),
        }

    def close(self) -> None:
        env = self.env
        try:
            env._gateway.shutdown()
            proc = env._gateway.java_process
            if proc is not None and proc.poll() is None:
                try:
                    proc.stdin.write(b"\n")
                    proc.stdin.flush()
                except Exception:
                    pass
                try:
                    proc.wait(timeout=10)
                except Exception:
                    proc.kill()
        except Exception:
            pass
        env.close = lambda: None  # the wrapper's __del__ would shut the gateway down a second time


# ---------------------------------------------------------------------------------------------------
# Reading the simulator's text
# ---------------------------------------------------------------------------------------------------

_ROOM_RE = re.compile(r"is called the ([a-z ]+?)\.")
_DOOR_RE = re.compile(r"A door to the ([a-z ]+?) \(that is (open|closed)\)")
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+", re.I)


def _room_of(look: str) -> str:
    m = _ROOM_RE.search(look)
    return m.group(1) if m else "unknown"


def _doors_of(look: str) -> list[tuple[str, bool]]:
    return [(m.group(1), m.group(2) == "open") for m in _DOOR_RE.finditer(look)]


def _thing_name(text: str) -> str:
    """A listed thing as a short name: 'a metal pot (containing water)' -> 'metal pot'."""
    text = text.strip()
    text = _ARTICLE_RE.sub("", text)
    if text.lower().startswith("substance called "):
        text = text[len("substance called "):]
    for cut in (" (", ",", ".", " which is"):
        i = text.find(cut)
        if i > 0:
            text = text[:i]
    return text.strip().lower()


def _room_things(look: str) -> list[str]:
    """Names of the things listed at the top level of a room description."""
    names = []
    body = look.split("You also see:")[0]
    for line in body.splitlines()[1:]:
        if not line.startswith("\t"):
            continue
        name = _thing_name(line)
        if name and name not in ("agent", "air"):
            names.append(name)
    return names


def _parse_inventory(inv: str) -> dict[str, int]:
    items: collections.Counter = collections.Counter()
    for line in inv.splitlines()[1:]:
        if line.strip():
            name = _thing_name(line)
            if name and name != "nothing":
                items[name] += 1
    return dict(sorted(items.items()))


# ---------------------------------------------------------------------------------------------------
# The absent-minded student
# ---------------------------------------------------------------------------------------------------


def _critical_mask(task: str, gold: list[str]) -> list[bool]:
    """Gold positions before which no detour may let simulated time pass."""
    n = len(gold)
    mask = [False] * n
    if task in ("lifespan-longest-lived", "find-animal"):
        return [True] * n  # animals age and eggs hatch while time passes
    if task in ("grow-plant", "freeze"):
        first = next((i for i, a in enumerate(gold) if a.startswith("focus on")), n)
        for i in range(first, n):
            mask[i] = True
    if task == "inclined-plane-determine-angle":
        starts = [i for i, a in enumerate(gold) if a.startswith("move block") or a.startswith("move ") and "inclined plane" in a]
        ends = [i for i, a in enumerate(gold) if a.startswith("deactivate stopwatch")]
        if starts and ends:
            for i in range(starts[0], ends[-1] + 1):
                mask[i] = True
    return mask


class _Runner:
    """Drives the simulator through one episode and keeps the raw replies of every command."""

    def __init__(self, sim: _Sim, rng: random.Random) -> None:
        self.sim = sim
        self.rng = rng
        self.look = ""
        self.inv = ""

    # one command, recorded
    def do(self, cmd: str, phase: str, out: list[dict], task: str, start: bool = False) -> dict:
        rec = self.sim.step(cmd)
        rec["phase"] = phase
        rec["task"] = task
        rec["start"] = start
        out.append(rec)
        self.look, self.inv = rec["look"], rec["inv"]
        if rec["obs"].startswith("Ambiguous request") and phase != "gold":
            follow = self.sim.step("0")
            follow.update(phase=phase, task=task, start=False)
            out.append(follow)
            self.look, self.inv = follow["look"], follow["inv"]
        return rec

    def _free_detour(self) -> list[str]:
        rng = self.rng
        r = rng.random()
        if r < 0.28:
            return ["look around"]
        if r < 0.5:
            return ["inventory"]
        if r < 0.7:
            return ["task"]
        if r < 0.82:
            here = _room_of(self.look)
            near = {d for d, _ in _doors_of(self.look)}
            far = sorted(set(ROOM_GRID) - near - {here})
            if far:
                return [f"go to {rng.choice(far)}"]
        return [rng.choice(_GIBBERISH)]

    def _timed_detour(self) -> list[str]:
        rng = self.rng
        r = rng.random()
        here = _room_of(self.look)
        doors = _doors_of(self.look)
        things = [t for t in _room_things(self.look) if _room_things(self.look).count(t) == 1]
        if r < 0.3 and things:
            verb = rng.choice(["examine", "examine", "look at"])
            return [f"{verb} {rng.choice(things)}"]
        if r < 0.5:
            return [rng.choice(["eat air", "read air", "open air", "pick up air", "pick up agent"])]
        if r < 0.65:
            closed = [d for d, o in doors if not o]
            if closed:
                return [f"go to {rng.choice(closed)}"]
        if r < 0.9:
            open_ = [d for d, o in doors if o]
            if open_:
                there = rng.choice(open_)
                mid = ["look around"] if rng.random() < 0.5 else []
                return [f"go to {there}"] + mid + [f"go to {here}"]
        return self._free_detour()

    def _explore_one(self, out: list[dict], task: str) -> None:
        rng = self.rng
        doors = _doors_of(self.look)
        things = [t for t in _room_things(self.look) if _room_things(self.look).count(t) == 1]
        held = list(_parse_inventory(self.inv))
        r = rng.random()
        if r < 0.3 and doors:
            room, is_open = rng.choice(doors)
            if not is_open:
                self.do(f"open door to {room}", "explore", out, task)
                if len(out) and "is now open" not in out[-1]["obs"]:
                    return
            self.do(f"go to {room}", "explore", out, task)
            return
        if r < 0.48 and things:
            self.do(f"{rng.choice(['examine', 'look at'])} {rng.choice(things)}", "explore", out, task)
            return
        if r < 0.6:
            self.do("look around", "explore", out, task)
            return
        if r < 0.68:
            portable = [t for t in things if t in _PORTABLE]
            if portable:
                self.do(f"pick up {rng.choice(portable)}", "explore", out, task)
                return
        if r < 0.74 and held:
            self.do(f"drop {rng.choice(held)}", "explore", out, task)
            return
        if r < 0.84:
            self.do(rng.choice(["eat air", "read air", "pick up air", "open air"] + list(_GIBBERISH[:4])), "explore", out, task)
            return
        if r < 0.9:
            self.do("inventory", "explore", out, task)
            return
        self.do("wait1", "explore", out, task)

    def attempt(self, task: str, gold: list[str], mode: str, share: float, explore_n: int) -> list[dict] | None:
        rng = self.rng
        out: list[dict] = []
        name = TASK_SHORT[task]
        self.do("look around", "start", out, name, start=True)
        if rng.random() < 0.6:
            self.do("task", "detour", out, name)
        crit = _critical_mask(task, gold)
        budget = max(0.0, share - len(gold) - explore_n - 2)
        p = 0.0 if mode == "gold" else min(0.9, budget / (max(1, len(gold)) * 1.7))
        for i, action in enumerate(gold):
            if action.strip().isdigit() or not action.strip():
                self.do(action, "gold", out, name)
                continue
            if rng.random() < p:
                for _ in range(rng.choice([1, 1, 2, 2, 3])):
                    cmds = self._free_detour() if (crit[i] or mode == "free") else self._timed_detour()
                    for cmd in cmds:
                        self.do(cmd, "detour", out, name)
            self.do(action, "gold", out, name)
        last = out[-1]
        if not last["done"] or last["score"] < 100:
            return None
        for _ in range(explore_n):
            self._explore_one(out, name)
        return out

    def run_task(self, task: str, share: float) -> list[dict]:
        rng = self.rng
        maxv = self.sim.max_variations(task)
        explore_n = rng.randint(6, 18)
        for _pick in range(8):
            var = rng.randrange(maxv)
            gold = self.sim.load(task, var)
            if not gold or gold[0].startswith("ERROR") or len(gold) > _GOLD_MAX:
                continue
            for k, mode in enumerate(("mixed", "free", "gold")):
                if k:
                    self.sim.load(task, var)
                recs = self.attempt(task, gold, mode, share, explore_n)
                if recs is not None:
                    for r in recs:
                        r["variation"] = var
                        r["mode"] = mode
                    return recs
        raise RuntimeError(f"no variation of {task} could be solved")


def _run_episode(seed: int) -> list[dict]:
    rng = random.Random(seed * 7919 + 104729)
    sim = _Sim()
    try:
        runner = _Runner(sim, rng)
        n_tasks = rng.choice([3, 4, 4, 5])
        tasks = rng.sample(TASK_POOL, n_tasks)
        target = rng.randint(380, 620)
        raw: list[dict] = []
        for i, task in enumerate(tasks):
            share = (target - len(raw)) / (n_tasks - i)
            raw.extend(runner.run_task(task, share))
            # a short task leaves time over: the student wanders about a little longer
            due = target * (i + 1) / n_tasks - 10
            extra = 0
            while len(raw) < due and extra < 40:
                runner._explore_one(raw, raw[-1]["task"])
                extra += 1
        goal = max(300 + rng.randint(5, 40), len(raw))
        name = raw[-1]["task"]
        while len(raw) < goal:
            runner._explore_one(raw, name)
        return raw
    finally:
        sim.close()


# ---------------------------------------------------------------------------------------------------
# Adapter: raw replies -> Step records
# ---------------------------------------------------------------------------------------------------

_REFUSALS = (
    "No known action matches",
    "is not edible",
    "not clear how",
    "is not openable",
    "can't pick up",
    "is not moveable",
    "The door is not open",
    "appears broken",
    "can't be",
    "cannot",
    "You can't",
    "is not a container",
    "There is nothing",
    "That container is empty",
)
_ALREADY_RE = re.compile(r"is already (open|closed|activated|deactivated|on|off)")
_MOVE_RE = re.compile(r"You move the ([a-z0-9 ]+?) to the ([a-z0-9 ]+?)\.", re.I)
_POUR_RE = re.compile(r"You pour the contents of the ([a-z0-9 ]+?) into the ([a-z0-9 ]+?)\.", re.I)
_FOCUS_RE = re.compile(r"You focus on the ([a-z0-9 ]+?)\.", re.I)
_CONNECT_RE = re.compile(r"([a-z0-9 ]+?) on ([a-z0-9 ]+?) is now connected to ([a-z0-9 ]+?) on ([a-z0-9 ]+)", re.I)
_ACTIVE_RE = re.compile(r"The ([a-z0-9 ]+?) is now (activated|deactivated)\.", re.I)
_OPEN_RE = re.compile(r"The ([a-z0-9 ]+?) is now (open|closed)\.", re.I)
_TEMP_RE = re.compile(r"measures a temperature of (-?\d+(?:\.\d+)?) degrees (celsius|fahrenheit|kelvin)")
_TICKS_RE = re.compile(r"The time reads (\d+) ticks")
_DISCONNECT_RE = re.compile(r"^\(disconnecting ([a-z0-9 ]+?)\)", re.I)
_SUBST_RE = re.compile(r"\b(?:a|an|the) ((?:[a-z0-9]+ ){0,3}?[a-z0-9]+) \(containing a substance called ([a-z ]+?)[,)]")
_CONTAINER_RE = re.compile(r"\b(?:a|an|the) ((?:[a-z0-9]+ ){0,3}?[a-z0-9]+) \(containing ")
_POT_RE = re.compile(r"(flower pot \d+) \(containing ([^()]*?)\)")
_STAGE_RE = re.compile(r"([a-z ]+?) in the ([a-z]+) stage")
_DEVICE_RE = re.compile(r"\b(?:a|an|the) ([a-z ]*?(?:light bulb|buzzer|motor|bell|generator)), which is (on|off)")


def _target_of(cmd: str) -> str:
    """What a command names as its object, from the command text alone."""
    c = cmd.strip().lower()
    for prefix in ("open door to ", "close door to "):
        if c.startswith(prefix):
            return "door to " + c[len(prefix):]
    m = re.match(r"use thermometer(?: in inventory)? on (.+)$", c)
    if m:
        return m.group(1).replace(" in inventory", "")
    for verb in ("pick up ", "put down ", "drop ", "focus on ", "activate ", "deactivate ", "examine ",
                 "look at ", "open ", "close ", "go to ", "eat ", "read ", "look in ", "mix "):
        if c.startswith(verb):
            return c[len(verb):].replace(" in inventory", "").strip()
    m = re.match(r"(?:move|pour|connect|put) (.+?) (?:to|into|in) (.+)$", c)
    if m:
        return m.group(1).replace(" in inventory", "").strip()
    return ""


class _Tracker:
    """Turns the raw replies into Steps, remembering what was seen before."""

    def __init__(self, episode: str) -> None:
        self.episode = episode
        self.steps: list[Step] = []
        self.room = ""
        self.score = 0
        self.done = False
        self.inv: dict[str, int] = {}
        self.task = ""
        self.tasks_done = 0
        self.moves_base = 0
        self.task_moves = 0
        self.last_reading = "none"
        self.focus = "nothing"
        self.subst: dict[str, str | None] = {}
        self.stage: dict[str, str | None] = {}
        self.device: dict[str, str] = {}

    def _observe(self, text: str, events: list[tuple[str, str]]) -> None:
        seen_sub: dict[str, str | None] = {}
        for m in _CONTAINER_RE.finditer(text):
            seen_sub.setdefault(m.group(1), None)
        for m in _SUBST_RE.finditer(text):
            seen_sub[m.group(1)] = m.group(2).strip()
        for name, sub in seen_sub.items():
            before = self.subst.get(name)
            if sub is not None and before is not None and sub != before:
                events.append(("turn into", sub))
            self.subst[name] = sub
        for m in _POT_RE.finditer(text):
            pot, inside = m.group(1), m.group(2)
            sm = _STAGE_RE.search(inside)
            stage = sm.group(2) if sm else None
            known = pot in self.stage
            if known and stage is not None and stage != self.stage[pot]:
                events.append(("reach stage", stage))
            self.stage[pot] = stage
        for m in _DEVICE_RE.finditer(text):
            name, st = m.group(1).strip(), m.group(2)
            before = self.device.get(name)
            if before is not None and before != st:
                events.append(("power up" if st == "on" else "power down", name))
            self.device[name] = st

    def add(self, rec: dict) -> None:
        t = len(self.steps)
        cmd = rec["cmd"]
        c = cmd.strip().lower()
        obs = rec["obs"].strip()
        room = _room_of(rec["look"])
        inv = _parse_inventory(rec["inv"])
        events: list[tuple[str, str]] = []
        start = rec["start"]
        target = _target_of(cmd)
        second = ""
        if start:
            self.moves_base += self.task_moves
            self.task = rec["task"]
            self.score, self.done, self.focus = 0, False, "nothing"
            self.subst, self.stage, self.device = {}, {}, {}
            events.append(("start task", self.task))
            if room != self.room:
                events.append(("relocate", room))
        self.task_moves = rec["moves"]

        refused = any(p in obs for p in _REFUSALS)
        if c == "look around":
            events.append(("look about", ""))
            target = room
        elif c == "inventory":
            events.append(("check pockets", ""))
            target = "inventory"
        elif c == "task":
            events.append(("reread task", ""))
            target = "task description"
        elif c in ("wait", "wait1"):
            events.append(("idle", ""))
            target = room
        elif obs.startswith("Ambiguous request"):
            events.append(("prompted", ""))
        elif refused:
            events.append(("refused", ""))
        elif _ALREADY_RE.search(obs):
            events.append(("no effect", target or "nothing"))
        else:
            m = _DISCONNECT_RE.search(obs)
            if m:
                events.append(("disconnect", m.group(1)))
            m = _MOVE_RE.search(obs)
            if m:
                target, second = m.group(1), m.group(2)
                if second != "inventory" and not c.startswith(("drop", "put down")) and second != room:
                    events.append(("move", target))
            m = _POUR_RE.search(obs)
            if m:
                target, second = m.group(1), m.group(2)
                events.append(("pour", target))
            m = _FOCUS_RE.search(obs)
            if m:
                target = m.group(1).lower()
                self.focus = target
                events.append(("focus", target))
            m = _CONNECT_RE.search(obs)
            if m:
                target, second = m.group(2).strip(), m.group(4).strip()
                events.append(("wire up", target))
            m = _ACTIVE_RE.search(obs)
            if m:
                target = m.group(1)
                events.append(("switch on" if m.group(2) == "activated" else "switch off", target))
            m = _OPEN_RE.search(obs)
            if m:
                events.append(("open" if m.group(2) == "open" else "shut", target or m.group(1)))
            m = _TEMP_RE.search(obs)
            if m:
                self.last_reading = f"{m.group(1)} degrees {m.group(2)}"
                events.append(("measure", target or "something"))
            if c.startswith(("examine", "look at")):
                events.append(("inspect", target or "something"))
                m = _TICKS_RE.search(obs)
                if m and "stopwatch" in target:
                    self.last_reading = f"{m.group(1)} ticks"
                    events.append(("read off", "stopwatch"))
        if room != self.room and not start:
            events.append(("enter", room))
        if not start:
            for name in sorted(set(inv) | set(self.inv)):
                diff = inv.get(name, 0) - self.inv.get(name, 0)
                if diff > 0:
                    events.append(("take", name))
                elif diff < 0:
                    events.append(("release", name))
        self._observe(rec["look"] + "\n" + rec["inv"], events)
        if not start and rec["score"] > self.score:
            events.append(("score up", ""))
        if rec["done"] and not self.done:
            self.tasks_done += 1
            events.append(("finish task", self.task))
        self.score, self.done = rec["score"], rec["done"]
        self.room, self.inv = room, inv

        uniq: list[Event] = []
        seen = set()
        for kind, obj in events:
            key = (kind, obj.lower())
            if key not in seen:
                seen.add(key)
                uniq.append(Event(kind, obj.lower()))
        facing = (target or "nothing").lower()
        relations = [Relation("agent", "acts on", facing)]
        if second and second != facing:
            relations.append(Relation("agent", "aims at", second.lower()))
        observation = " ".join(obs.split())
        if len(observation) > 320:
            observation = observation[:317] + "..."
        state = {
            "score": self.score,
            "task": self.task,
            "tasks_done": self.tasks_done,
            "moves": self.moves_base + self.task_moves,
            "last_reading": self.last_reading,
            "focus": self.focus,
        }
        pos = ROOM_GRID.get(room, (9, 9))
        self.steps.append(
            Step(
                t=t,
                action=cmd,
                summary=f"{cmd} -> {observation[:80]}",
                objects=tuple(sorted({facing} | ({second.lower()} if second else set()))),
                events=tuple(uniq),
                relations=tuple(relations),
                inventory=inv,
                state=state,
                location=Location(position=pos, region=room),
                observation=observation,
            )
        )


def _steps_from_raw(raw: list[dict], episode: str) -> list[Step]:
    tracker = _Tracker(episode)
    for rec in raw:
        tracker.add(rec)
    return tracker.steps


# ---------------------------------------------------------------------------------------------------
# Wording
# ---------------------------------------------------------------------------------------------------

#: Who the question is about: (subject, possessive, object pronoun, reflexive).
_SUBJECTS = (
    ("I", "my", "me", "myself"),
    ("the agent", "the agent's", "the agent", "itself"),
    ("you", "your", "you", "yourself"),
    ("we", "our", "us", "ourselves"),
    (AGENT_NAME, AGENT_NAME + "'s", "her", "herself"),
    ("the student", "the student's", "the student", "herself"),
)

#: Per stored kind: phrases (past tense, base form) for a given object ("obj") and for any object ("any").
_PHRASES: dict[str, dict[str, list[tuple[str, str]]]] = {
    "take": {
        "obj": [("{S} picked up the {o}", "{S} pick up the {o}"), ("{S} grabbed the {o}", "{S} grab the {o}"),
                ("the {o} went into {P} inventory", "the {o} go into {P} inventory"),
                ("{S} got hold of the {o}", "{S} get hold of the {o}"), ("{S} took the {o}", "{S} take the {o}")],
        "any": [("{S} picked something up", "{S} pick something up"),
                ("something new landed in {P} inventory", "something new land in {P} inventory")],
    },
    "release": {
        "obj": [("the {o} left {P} inventory", "the {o} leave {P} inventory"),
                ("{S} stopped carrying the {o}", "{S} stop carrying the {o}"),
                ("{S} let go of the {o}", "{S} let go of the {o}"), ("{S} released the {o}", "{S} release the {o}")],
        "any": [("something left {P} inventory", "something leave {P} inventory"),
                ("{S} gave up an item {S} had been carrying", "{S} give up an item {S} had been carrying")],
    },
    "move": {
        "obj": [("{S} relocated the {o}", "{S} relocate the {o}"), ("{S} shifted the {o} somewhere else", "{S} shift the {o} somewhere else"),
                ("{S} transferred the {o} onto or into something", "{S} transfer the {o} onto or into something"),
                ("{S} moved the {o}", "{S} move the {o}")],
        "any": [("{S} transferred an object somewhere", "{S} transfer an object somewhere"),
                ("{S} shifted something to a new spot", "{S} shift something to a new spot")],
    },
    "pour": {
        "obj": [("{S} emptied the {o} into something", "{S} empty the {o} into something"),
                ("{S} tipped out the contents of the {o}", "{S} tip out the contents of the {o}"),
                ("{S} poured out the {o}", "{S} pour out the {o}")],
        "any": [("{S} tipped the contents of a container out", "{S} tip the contents of a container out")],
    },
    "focus": {
        "obj": [("{S} fixed {P} attention on the {o}", "{S} fix {P} attention on the {o}"),
                ("{S} singled out the {o} for the task", "{S} single out the {o} for the task"),
                ("{S} declared the {o} the object of the task", "{S} declare the {o} the object of the task"),
                ("{S} focused on the {o}", "{S} focus on the {o}")],
        "any": [("{S} singled out an object for a task", "{S} single out an object for a task"),
                ("{S} fixed {P} attention on something", "{S} fix {P} attention on something")],
    },
    "wire up": {
        "obj": [("{S} hooked the {o} into the circuit", "{S} hook the {o} into the circuit"),
                ("{S} connected a terminal of the {o}", "{S} connect a terminal of the {o}"),
                ("{S} attached a lead to the {o}", "{S} attach a lead to the {o}"),
                ("{S} wired up the {o}", "{S} wire up the {o}")],
        "any": [("{S} made an electrical connection", "{S} make an electrical connection"),
                ("{S} joined two terminals together", "{S} join two terminals together")],
    },
    "disconnect": {
        "obj": [("the {o} got unhooked from its wires", "the {o} get unhooked from its wires"),
                ("the {o} came off the circuit", "the {o} come off the circuit")],
        "any": [("something got unhooked from the circuit", "something get unhooked from the circuit")],
    },
    "switch on": {
        "obj": [("{S} turned on the {o}", "{S} turn on the {o}"), ("{S} activated the {o}", "{S} activate the {o}"),
                ("{S} started up the {o}", "{S} start up the {o}"), ("{S} switched the {o} on", "{S} switch the {o} on")],
        "any": [("{S} activated a device", "{S} activate a device"), ("{S} turned something on", "{S} turn something on")],
    },
    "switch off": {
        "obj": [("{S} turned off the {o}", "{S} turn off the {o}"), ("{S} deactivated the {o}", "{S} deactivate the {o}"),
                ("{S} shut the {o} off", "{S} shut the {o} off"), ("{S} switched the {o} off", "{S} switch the {o} off")],
        "any": [("{S} deactivated a device", "{S} deactivate a device"), ("{S} turned something off", "{S} turn something off")],
    },
    "measure": {
        "obj": [("{S} took the temperature of the {o}", "{S} take the temperature of the {o}"),
                ("{S} used the thermometer on the {o}", "{S} use the thermometer on the {o}"),
                ("{S} checked how warm the {o} was", "{S} check how warm the {o} was"),
                ("{S} measured the {o}", "{S} measure the {o}")],
        "any": [("{S} took a temperature reading", "{S} take a temperature reading"),
                ("{S} used the thermometer on something", "{S} use the thermometer on something")],
    },
    "read off": {
        "obj": [("{S} checked the elapsed time on the {o}", "{S} check the elapsed time on the {o}"),
                ("{S} noted the time shown by the {o}", "{S} note the time shown by the {o}"),
                ("{S} read off the time on the {o}", "{S} read off the time on the {o}")],
        "any": [("{S} noted a stopwatch time", "{S} note a stopwatch time")],
    },
    "inspect": {
        "obj": [("{S} examined the {o}", "{S} examine the {o}"), ("{S} looked closely at the {o}", "{S} look closely at the {o}"),
                ("{S} studied the {o}", "{S} study the {o}"), ("{S} inspected the {o}", "{S} inspect the {o}")],
        "any": [("{S} examined something", "{S} examine something"),
                ("{S} took a close look at an object", "{S} take a close look at an object")],
    },
    "look about": {
        "obj": [("{S} looked around", "{S} look around"), ("{S} surveyed the room", "{S} survey the room"),
                ("{S} scanned {P} surroundings", "{S} scan {P} surroundings"), ("{S} had a look about", "{S} have a look about")],
    },
    "check pockets": {
        "obj": [("{S} checked {P} inventory", "{S} check {P} inventory"), ("{S} went through {P} pockets", "{S} go through {P} pockets"),
                ("{S} reviewed {P} belongings", "{S} review {P} belongings")],
    },
    "reread task": {
        "obj": [("{S} read the task again", "{S} read the task again"),
                ("{S} reviewed the task description", "{S} review the task description"),
                ("{S} looked at the assignment once more", "{S} look at the assignment once more")],
    },
    "idle": {
        "obj": [("{S} waited", "{S} wait"), ("{S} let time pass", "{S} let time pass"),
                ("{S} paused and did nothing", "{S} pause and do nothing"), ("{S} idled", "{S} idle")],
    },
    "refused": {
        "obj": [("one of {P} commands was rejected", "one of {P} commands get rejected"),
                ("the simulator turned down {P} command", "the simulator turn down {P} command"),
                ("{S} typed something that did not work", "{S} type something that did not work"),
                ("{S} got refused", "{S} get refused")],
    },
    "prompted": {
        "obj": [("the simulator asked {M} to clarify an ambiguous command", "the simulator ask {M} to clarify an ambiguous command"),
                ("{S} had to choose between identical-looking options", "{S} have to choose between identical-looking options")],
    },
    "no effect": {
        "obj": [("{S} repeated an action on the {o} that had already been done", "{S} repeat an action on the {o} that had already been done")],
        "any": [("{P} action turned out to be already done", "{P} action turn out to be already done")],
    },
    "open": {
        "obj": [("{S} swung open the {o}", "{S} swing open the {o}"), ("{S} pulled open the {o}", "{S} pull open the {o}"),
                ("{S} opened the {o}", "{S} open the {o}")],
        "any": [("{S} opened a door or container", "{S} open a door or container"), ("{S} pulled something open", "{S} pull something open")],
    },
    "shut": {
        "obj": [("{S} closed the {o}", "{S} close the {o}")],
        "any": [("{S} closed something", "{S} close something")],
    },
    "enter": {
        "obj": [("{S} walked into the {o}", "{S} walk into the {o}"), ("{S} stepped into the {o}", "{S} step into the {o}"),
                ("{S} went into the {o}", "{S} go into the {o}"), ("{S} entered the {o}", "{S} enter the {o}")],
        "any": [("{S} walked into a room", "{S} walk into a room"), ("{S} went through a door into another room", "{S} go through a door into another room")],
    },
    "relocate": {
        "obj": [("a new task placed {M} in the {o}", "a new task place {M} in the {o}"),
                ("{S} found {R} in the {o} as a task began", "{S} find {R} in the {o} as a task began")],
        "any": [("a new task put {M} in a different room", "a new task put {M} in a different room")],
    },
    "start task": {
        "obj": [("{S} began the {o} task", "{S} begin the {o} task"), ("the {o} task started", "the {o} task start"),
                ("{S} took on the {o} assignment", "{S} take on the {o} assignment")],
        "any": [("a new task began", "a new task begin"), ("{S} took on a new assignment", "{S} take on a new assignment")],
    },
    "finish task": {
        "obj": [("{S} completed the {o} task", "{S} complete the {o} task"), ("the {o} task got done", "the {o} task get done"),
                ("{S} wrapped up the {o} task", "{S} wrap up the {o} task")],
        "any": [("{S} completed a task", "{S} complete a task"), ("an assignment got done", "an assignment get done")],
    },
    "score up": {
        "obj": [("the score went up", "the score go up"), ("{S} earned points", "{S} earn points"),
                ("{P} score increased", "{P} score increase"), ("{S} gained score", "{S} gain score")],
    },
    "turn into": {
        "obj": [("something turned into {o}", "something turn into {o}"), ("a substance became {o}", "a substance become {o}"),
                ("{o} formed from another state of matter", "{o} form from another state of matter")],
        "any": [("a substance changed its state", "a substance change its state")],
    },
    "reach stage": {
        "obj": [("a plant reached the {o} stage", "a plant reach the {o} stage"),
                ("the plant grew into its {o} stage", "the plant grow into its {o} stage")],
        "any": [("a plant moved on to a new life stage", "a plant move on to a new life stage")],
    },
    "power up": {
        "obj": [("the {o} came on", "the {o} come on"), ("the {o} started working", "the {o} start working")],
        "any": [("a device came on", "a device come on")],
    },
    "power down": {
        "obj": [("the {o} went off", "the {o} go off"), ("the {o} stopped working", "the {o} stop working")],
        "any": [("a device went off", "a device go off")],
    },
}

_ORD_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def _ordinal(n: int, rng: random.Random) -> str:
    if n == -1:
        return rng.choice(["last", "final", "most recent"])
    if n == -2:
        return rng.choice(["second-to-last", "penultimate", "next-to-last"])
    if n <= 10 and rng.random() < 0.7:
        return _ORD_WORDS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _plural(name: str) -> str:
    if " of " in name:
        head, tail = name.split(" of ", 1)
        return _plural(head) + " of " + tail
    if name.endswith(("s", "sh", "ch", "x")):
        return name + "es"
    if name.endswith("y") and not name.endswith(("ay", "ey", "oy")):
        return name[:-1] + "ies"
    return name + "s"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class _Voice:
    """One question's subject, used for every clause of that question."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.s, self.p, self.m, self.r = rng.choice(_SUBJECTS)
        self.be = "were" if self.s in ("you", "we") else "was"

    def fill(self, template: str, obj: str = "") -> str:
        return template.format(S=self.s, P=self.p, M=self.m, R=self.r, o=obj, be=self.be)

    def clause(self, pat: tuple[str, str | None], form: str = "past") -> str:
        kind, obj = pat
        table = _PHRASES[kind]
        options = table["any"] if obj is None else table["obj"]
        plain = [o for o in options if kind not in o[0].lower()]
        pick = self.rng.choice(plain if plain and self.rng.random() < 0.75 else options)
        text = pick[0] if form == "past" else pick[1]
        shown = obj or ""
        if kind in ("start task", "finish task") and obj:
            shown = self.rng.choice(TASK_WORDS.get(obj, [obj]))
        return self.fill(text, shown)


def _slot_phrase(slot: str, arg: str, v: _Voice) -> str:
    rng = v.rng
    if slot == "action":
        t = rng.choice(["what command did {S} enter", "which action did {S} take", "what did {S} type into the simulator",
                        "what was {P} command"])
    elif slot == "location":
        t = rng.choice(["which room {be} {S} in", "where {be} {S}", "in which room did {S} stand"])
    elif slot == "position":
        t = rng.choice(["what were {P} grid coordinates (x,y)", "at which x,y grid position {be} {S}",
                        "what map cell (x,y) {be} {S} on"])
    elif slot == "inventory":
        t = rng.choice(["what {be} {S} carrying", "what did {P} inventory contain", "what items did {S} hold"])
    elif slot == "item":
        t = rng.choice([f"how many {_plural(arg)} did {{S}} have", f"how many {_plural(arg)} were in {{P}} inventory",
                        f"what was {{P}} count of {_plural(arg)}"])
    elif slot == "facing":
        t = rng.choice(["what {be} {S} facing", "what object did {S} act on or look at", "what {be} {S} dealing with"])
    elif slot == "events":
        t = rng.choice(["what events were recorded", "what events were logged", "which events did the log note"])
    elif slot == "state":
        t = rng.choice({
            "score": ["what was the score", "what score did the current task show", "what was {P} task score"],
            "task": ["which task {be} {S} working on", "what was the active task"],
            "tasks_done": ["how many tasks had {S} completed", "what was the tally of finished tasks"],
            "moves": ["what did the total move counter read", "how many simulator moves had {S} used in total"],
            "last_reading": ["what was {P} most recent instrument reading", "what was the latest reading {S} had taken"],
            "focus": ["what was the task's focus on", "what was in {P} focus"],
        }[arg])
    else:
        raise ValueError(slot)
    return v.fill(t)


def _window_text(win: dict, v: _Voice, anchors: dict) -> str:
    rng = v.rng
    typ = win["type"]
    if typ == "all":
        return rng.choice(["over the whole episode", "in the entire run", "at any point in the episode"])
    if typ == "steps":
        return rng.choice(["between step {a} and step {b}", "from step {a} to step {b}",
                           "in the stretch from step {a} through step {b}"]).format(a=win["lo"], b=win["hi"])
    if typ == "first":
        return rng.choice(["in the first {n} steps", "during the opening {n} steps",
                           "within the first {n} steps of the episode"]).format(n=win["n"])
    if typ == "after_step":
        return rng.choice(["after step {a}", "once step {a} had passed", "later than step {a}"]).format(a=win["t"])
    if typ == "before_step":
        return rng.choice(["before step {b}", "prior to step {b}", "earlier than step {b}"]).format(b=win["t"])
    if typ == "between":
        return f"between {anchors['a']} and {anchors['b']}"
    if typ == "after":
        return rng.choice(["after {a}", "following {a}", "later than {a}"]).format(a=anchors["a"])
    if typ == "before":
        return rng.choice(["before {b}", "prior to {b}", "up until {b}"]).format(b=anchors["b"])
    raise ValueError(typ)


def _anchor_np(anchor: dict, v: _Voice) -> str:
    if anchor["kind"] == "step":
        return f"step {anchor['t']}"
    n = anchor["n"]
    return f"the {_ordinal(n, v.rng)} time {v.clause(anchor['pat'])}"


# ---------------------------------------------------------------------------------------------------
# Reference evaluator: a plain scan over the steps
# ---------------------------------------------------------------------------------------------------


def _label(kind: str, obj: str | None) -> str:
    return f"{kind} {obj}" if obj else kind


def _step_has(step: Step, pat) -> bool:
    kind, obj = pat
    for e in step.events:
        if e.kind == kind and (obj is None or e.obj == obj):
            return True
    return False


def _slot_value(step: Step, slot: str, arg: str = "") -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "inventory":
        held = [(name, count) for name, count in step.inventory if count > 0]
        return ", ".join(f"{name} {count}" for name, count in sorted(held)) or "none"
    if slot == "item":
        return str(dict(step.inventory).get(arg, 0))
    if slot == "state":
        value = dict(step.state)[arg]
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    if slot == "facing":
        return step.relations[0].obj if step.relations else "nothing"
    if slot == "events":
        return "; ".join(_label(e.kind, e.obj) for e in step.events) or "none"
    raise ValueError(slot)


def _scan_anchor(steps: list[Step], anchor: dict) -> int | None:
    if anchor["kind"] == "step":
        return anchor["t"]
    hits = [s.t for s in steps if _step_has(s, anchor["pat"])]
    n = anchor["n"]
    if n > 0:
        return hits[n - 1] if len(hits) >= n else None
    return hits[n] if len(hits) >= -n else None


def _scan_window(steps: list[Step], win: dict) -> tuple[int, int, list[int]]:
    """Exclusive bounds (lo, hi) of a window and the event-anchor steps that define it."""
    typ = win["type"]
    big = len(steps) + 10
    if typ == "all":
        return -1, big, []
    if typ == "steps":
        return win["lo"], win["hi"], []
    if typ == "first":
        return -1, win["n"], []
    if typ == "after_step":
        return win["t"], big, []
    if typ == "before_step":
        return -1, win["t"], []
    anchors = []
    lo, hi = -1, big
    if "a" in win:
        lo = _scan_anchor(steps, win["a"])
        if win["a"]["kind"] == "event":
            anchors.append(lo)
    if "b" in win:
        hi = _scan_anchor(steps, win["b"])
        if win["b"]["kind"] == "event":
            anchors.append(hi)
    return lo, hi, anchors


def _count_gold(ts: list[int]) -> list[int]:
    return list(ts) if len(ts) <= 5 else [ts[-1]]


def evaluate(steps: list[Step], spec: dict) -> tuple[str, list[int]]:
    """The answer and the gold step indices of one question, by scanning the steps."""
    op = spec["op"]
    slot, arg = spec.get("slot"), spec.get("arg", "")
    if op == "at":
        t = spec["t"]
        return _slot_value(steps[t], slot, arg), [t]
    if op in ("nth", "win_nth"):
        lo, hi, anchors = _scan_window(steps, spec.get("win", {"type": "all"}))
        hits = [s.t for s in steps if lo < s.t < hi and _step_has(s, spec["pat"])]
        n = spec["n"]
        t = hits[n - 1] if n > 0 else hits[n]
        return _slot_value(steps[t], slot, arg), sorted(set(anchors + [t]))
    if op == "cond":
        var, test, which = spec["var"], spec["test"], spec["which"]
        found = []
        had = False
        for s in steps:
            if var[0] == "state":
                value = dict(s.state)[var[1]]
            else:
                value = dict(s.inventory).get(var[1], 0)
            name = test[0]
            if name == "ge":
                ok = value >= test[1]
            elif name == "gt":
                ok = value > test[1]
            elif name == "eq":
                ok = value == test[1]
            elif name == "pos":
                ok = value > 0
            elif name == "out":
                ok = had and value == 0
            else:
                raise ValueError(name)
            if var[0] == "item" and value > 0:
                had = True
            if ok:
                found.append(s.t)
        t = found[0] if which == "first" else found[-1]
        return _slot_value(steps[t], slot, arg), [t]
    if op == "offset":
        a = _scan_anchor(steps, spec["anchor"])
        t = a + spec["k"]
        gold = [t] + ([a] if spec["anchor"]["kind"] == "event" else [])
        return _slot_value(steps[t], slot, arg), sorted(set(gold))
    if op == "nextprev":
        a = _scan_anchor(steps, spec["anchor"])
        if spec["dir"] == "next":
            t = next(s.t for s in steps if s.t > a and _step_has(s, spec["pat"]))
        else:
            t = [s.t for s in steps if s.t < a and _step_has(s, spec["pat"])][-1]
        gold = [t] + ([a] if spec["anchor"]["kind"] == "event" else [])
        return _slot_value(steps[t], slot, arg), sorted(set(gold))
    if op == "count":
        lo, hi, anchors = _scan_window(steps, spec["win"])
        hits = [s.t for s in steps if lo < s.t < hi and _step_has(s, spec["pat"])]
        return str(len(hits)), sorted(set(anchors + _count_gold(hits)))
    if op == "list":
        lo, hi, anchors = _scan_window(steps, spec["win"])
        names, hits = set(), []
        for s in steps:
            if lo < s.t < hi:
                got = [e.obj for e in s.events if e.kind == spec["kind"] and e.obj]
                if got:
                    names.update(got)
                    hits.append(s.t)
        return ", ".join(sorted(names)), sorted(set(anchors + _count_gold(hits)))
    if op == "order":
        ta = _scan_anchor(steps, spec["a"])
        tb = _scan_anchor(steps, spec["b"])
        first = spec["a"] if ta < tb else spec["b"]
        return _label(*first["pat"]), sorted({ta, tb})
    if op == "distance":
        ta = _scan_anchor(steps, spec["a"])
        tb = _scan_anchor(steps, spec["b"])
        gold = [t for t, an in ((ta, spec["a"]), (tb, spec["b"])) if an["kind"] == "event"]
        return str(abs(ta - tb)), sorted(set(gold))
    if op == "exists":
        lo, hi, anchors = _scan_window(steps, spec["win"])
        hits = [s.t for s in steps if lo < s.t < hi and _step_has(s, spec["pat"])]
        return ("yes" if hits else "no"), sorted(set(anchors + hits[:1]))
    raise ValueError(op)


# ---------------------------------------------------------------------------------------------------
# The generator's own index of an episode
# ---------------------------------------------------------------------------------------------------

_STATE_KEYS = ("score", "task", "tasks_done", "moves", "last_reading", "focus")
_ROOM_KINDS = ("enter", "relocate")

#: Plausible events for "did it ever happen" questions; those that never occur in an episode serve as "no".
_NEVER_POOL = (
    ("take", "axe"), ("take", "lighter"), ("take", "thermometer"), ("take", "stopwatch"), ("take", "glass cup"),
    ("enter", "foundry"), ("enter", "bedroom"), ("enter", "art studio"), ("enter", "bathroom"),
    ("focus", "bee hive"), ("switch on", "stove"), ("switch on", "blast furnace"), ("switch on", "sink"),
    ("wire up", "switch"), ("wire up", "battery"), ("measure", "ice"), ("pour", "glass cup"), ("open", "freezer"),
    ("open", "door to foundry"), ("inspect", "painting"), ("turn into", "steam"), ("turn into", "ice"),
    ("reach stage", "adult"), ("power up", "electric motor"), ("power up", "red light bulb"),
    ("disconnect", "metal fork"), ("release", "thermometer"), ("move", "wood block"), ("read off", "stopwatch"),
    ("shut", "door to kitchen"), ("move", "jug"), ("focus", "red light bulb"), ("open", "fridge"),
)


class _Index:
    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.n = len(steps)
        occ: dict = collections.defaultdict(list)
        objs: dict = collections.defaultdict(set)
        for s in steps:
            kinds = set()
            for e in s.events:
                occ[(e.kind, e.obj)].append(s.t)
                objs[e.kind].add(e.obj)
                if e.kind not in kinds:
                    kinds.add(e.kind)
                    occ[(e.kind, None)].append(s.t)
        self.occ = dict(occ)
        # "any object" patterns only for kinds that never occur twice in one step, so counts of steps and of
        # occurrences agree
        crowded = {e.kind for s in steps for e in s.events if sum(1 for f in s.events if f.kind == e.kind) > 1}
        pats = [p for p in occ if p[1] is not None]
        pats += [p for p in occ if p[1] is None and "any" in _PHRASES.get(p[0], {}) and len(objs[p[0]]) >= 2
                 and p[0] not in crowded]
        self.patterns = sorted((p for p in pats if p[0] in _PHRASES), key=lambda p: (p[0], p[1] or ""))
        self.items = sorted({name for s in steps for name, c in s.inventory if c > 0})
        self.state = {k: [dict(s.state)[k] for s in steps] for k in _STATE_KEYS}
        self.held = {it: [dict(s.inventory).get(it, 0) for s in steps] for it in self.items}

    def hits(self, pat, lo: int = -1, hi: int | None = None) -> list[int]:
        ts = self.occ.get(pat, [])
        hi = self.n + 10 if hi is None else hi
        return ts[bisect.bisect_right(ts, lo):bisect.bisect_left(ts, hi)]

    def has(self, pat, t: int) -> bool:
        ts = self.occ.get(pat, [])
        i = bisect.bisect_left(ts, t)
        return i < len(ts) and ts[i] == t

    def anchor_t(self, anchor: dict) -> int | None:
        if anchor["kind"] == "step":
            return anchor["t"]
        ts = self.occ.get(anchor["pat"], [])
        n = anchor["n"]
        if n > 0:
            return ts[n - 1] if len(ts) >= n else None
        return ts[n] if len(ts) >= -n else None


def _weighted_pattern(ix: _Index, rng: random.Random, ok=lambda p: True):
    cands = [p for p in ix.patterns if ok(p)]
    if not cands:
        return None
    weights = []
    for p in cands:
        c = len(ix.occ[p])
        w = 1.0 / (1.0 + abs(c - 4) * 0.15)
        if p[0] in ("look about", "refused", "check pockets", "idle", "inspect"):
            w *= 0.5
        weights.append(w)
    return rng.choices(cands, weights=weights, k=1)[0]


def _article(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


# ---------------------------------------------------------------------------------------------------
# Question builders. Each returns (spec, pieces, expected answer, expected gold) or None.
# ---------------------------------------------------------------------------------------------------


class _Ctx:
    def __init__(self, episode: str, steps: list[Step], rng: random.Random) -> None:
        self.episode = episode
        self.steps = steps
        self.ix = _Index(steps)
        self.rng = rng
        self.n = len(steps)


def _pick_arg(ctx: _Ctx, slot: str, t: int | None, pat=None) -> str | None:
    rng = ctx.rng
    if slot == "item":
        if not ctx.ix.items:
            return None
        held = [n for n, c in ctx.steps[t].inventory if c > 0] if t is not None else []
        if held and rng.random() < 0.7:
            return rng.choice(sorted(held))
        return rng.choice(ctx.ix.items)
    if slot == "state":
        keys = list(_STATE_KEYS)
        if t is not None and ctx.steps[t].state_dict["last_reading"] == "none":
            keys.remove("last_reading")
        if t is not None and ctx.steps[t].state_dict["focus"] == "nothing":
            keys.remove("focus")
        return rng.choice(keys)
    return ""


def _base_pieces(v: _Voice, slot: str, arg: str) -> dict:
    sq = _slot_phrase(slot, arg, v) if slot != "step" else ""
    return {"S": v.s, "P": v.p, "M": v.m, "sq": sq, "Sq": _cap(sq), "name": AGENT_NAME, "item": arg, "items": _plural(arg) if arg else ""}


def _trivial(slot: str, pat) -> bool:
    return slot == "location" and pat[0] in _ROOM_KINDS


def _b1(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    t = ctx.rng.randrange(1, ctx.n)
    arg = _pick_arg(ctx, slot, t)
    if arg is None:
        return None
    spec = {"op": "at", "t": t, "slot": slot, "arg": arg}
    pieces = _base_pieces(v, slot, arg) | {"t": t}
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), [t]


def _b2(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    pat = _weighted_pattern(ix, rng, lambda p: len(ix.occ[p]) >= 2 and not _trivial(slot, p))
    if pat is None:
        return None
    ts = ix.occ[pat]
    choices = list(range(1, min(len(ts), 6) + 1)) + [-1] + ([-2] if len(ts) >= 3 else [])
    n = params.get("n") or rng.choice(choices)
    if n == -2 and len(ts) < 3 or n > len(ts):
        return None
    t = ts[n - 1] if n > 0 else ts[n]
    arg = _pick_arg(ctx, slot, t)
    if arg is None:
        return None
    spec = {"op": "nth", "pat": pat, "n": n, "slot": slot, "arg": arg}
    pieces = _base_pieces(v, slot, arg) | {"ord": _ordinal(n, rng), "past": v.clause(pat), "base": v.clause(pat, "base")}
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), [t]


def _make_window(ctx: _Ctx, v: _Voice, typ: str):
    """A window of the given type: (win spec, lo, hi, anchor steps, anchor texts)."""
    rng, ix, n = ctx.rng, ctx.ix, ctx.n
    if typ == "all":
        return {"type": "all"}, -1, n + 10, [], {}
    if typ == "steps":
        a = rng.randrange(5, max(6, n - 80))
        b = min(n - 2, a + rng.randint(40, 160))
        return {"type": "steps", "lo": a, "hi": b}, a, b, [], {}
    if typ == "first":
        k = rng.randrange(60, max(61, n - 60))
        k -= k % 10 if rng.random() < 0.6 else 0
        return {"type": "first", "n": k}, -1, k, [], {}
    if typ == "after_step":
        a = rng.randrange(n // 5, 4 * n // 5)
        return {"type": "after_step", "t": a}, a, n + 10, [], {}
    if typ == "before_step":
        b = rng.randrange(n // 5, 4 * n // 5)
        return {"type": "before_step", "t": b}, -1, b, [], {}
    def event_anchor(first_only: bool = False):
        pat = _weighted_pattern(ix, rng, lambda p: p[0] not in ("look about", "check pockets", "idle", "refused"))
        if pat is None:
            return None
        ts = ix.occ[pat]
        k = 1 if first_only or len(ts) == 1 else rng.choice([1, 1, 2, -1] if len(ts) >= 2 else [1])
        return {"kind": "event", "pat": pat, "n": k}
    if typ in ("between", "after", "before"):
        a = event_anchor() if typ in ("between", "after") else None
        b = event_anchor() if typ in ("between", "before") else None
        ta = ix.anchor_t(a) if a else -1
        tb = ix.anchor_t(b) if b else n + 10
        if ta is None or tb is None or tb - ta < 12:
            return None
        win = {"type": typ}
        texts = {}
        anchors = []
        if a:
            win["a"] = a
            texts["a"] = _anchor_np(a, v)
            anchors.append(ta)
        if b:
            win["b"] = b
            texts["b"] = _anchor_np(b, v)
            anchors.append(tb)
        return win, ta, tb, anchors, texts
    raise ValueError(typ)


def _window_ok(ix: _Index, pat, lo: int, hi: int, win: dict) -> bool:
    """No occurrence of pat on a window's edges, so inclusive and exclusive readings agree."""
    edges = []
    typ = win["type"]
    if typ == "steps":
        edges = [lo, hi]
    elif typ == "first":
        edges = [hi - 1, hi]
    elif typ == "after_step":
        edges = [lo]
    elif typ == "before_step":
        edges = [hi]
    elif typ in ("between", "after", "before"):
        edges = [x for x in (lo, hi) if 0 <= x < ix.n]
    return not any(ix.has(pat, e) for e in edges)


def _b3(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    typ = params.get("win") or rng.choice(["steps", "first", "after_step", "between", "after", "before", "before_step"])
    made = _make_window(ctx, v, typ)
    if made is None:
        return None
    win, lo, hi, anchors, texts = made
    pat = _weighted_pattern(ix, rng, lambda p: bool(ix.hits(p, lo, hi)) and _window_ok(ix, p, lo, hi, win)
                            and not _trivial(slot, p) and p not in [w.get("pat") for w in (win.get("a", {}), win.get("b", {}))])
    if pat is None:
        return None
    ts = ix.hits(pat, lo, hi)
    n = params.get("n") or rng.choice([1, 1, 2, -1] if len(ts) >= 2 else [1])
    if n > len(ts):
        return None
    t = ts[n - 1] if n > 0 else ts[n]
    arg = _pick_arg(ctx, slot, t)
    if arg is None:
        return None
    spec = {"op": "win_nth", "pat": pat, "win": win, "n": n, "slot": slot, "arg": arg}
    wtext = _window_text(win, v, texts)
    pieces = _base_pieces(v, slot, arg) | {"ord": _ordinal(n, rng), "past": v.clause(pat), "base": v.clause(pat, "base"),
                                           "win": wtext, "Win": _cap(wtext)}
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), sorted(set(anchors + [t]))


def _conditions(ctx: _Ctx, v: _Voice):
    """Candidate conditions: (var, test, which, when, when_base, np, expected step)."""
    ix, rng = ctx.ix, ctx.rng
    out = []
    scores = ix.state["score"]
    vals = sorted({s for s in scores if s > 0})
    if vals:
        V = rng.choice(vals)
        t = next(i for i, s in enumerate(scores) if s >= V)
        out.append((("state", "score"), ("ge", V), "first", f"the score first reached {V} or more",
                    f"the score first reach {V} or more", f"the first step at which the score was {V} or higher", t))
        V2 = rng.choice(vals)
        t2 = next(i for i, s in enumerate(scores) if s == V2)
        out.append((("state", "score"), ("eq", V2), "first", f"the score first stood at exactly {V2}",
                    f"the score first stand at exactly {V2}", f"the first step with a score of exactly {V2}", t2))
        V3 = rng.choice([x for x in range(10, 100, 10)])
        t3 = next((i for i, s in enumerate(scores) if s > V3), None)
        if t3 is not None:
            out.append((("state", "score"), ("gt", V3), "first", f"the score first went above {V3}",
                        f"the score first go above {V3}", f"the first step with a score above {V3}", t3))
    done = ix.state["tasks_done"]
    k = rng.randint(1, max(done))
    out.append((("state", "tasks_done"), ("ge", k), "first", f"the count of finished tasks first reached {k}",
                f"the count of finished tasks first reach {k}", f"the first step by which {k} tasks had been completed",
                done.index(k)))
    moves = ix.state["moves"]
    M = rng.randrange(20, max(21, moves[-1] - 10))
    M -= M % 5
    tm = next((i for i, m in enumerate(moves) if m > M), None)
    if tm is not None:
        out.append((("state", "moves"), ("gt", M), "first", f"the total move counter first went past {M}",
                    f"the total move counter first go past {M}", f"the first step at which the move counter exceeded {M}", tm))
    for item in rng.sample(ix.items, min(3, len(ix.items))):
        held = ix.held[item]
        first = next(i for i, c in enumerate(held) if c > 0)
        a = _article(item)
        if first > 0:
            out.append((("item", item), ("pos",), "first", f"{v.s} first had {a}", f"{v.s} first have {a}",
                        f"the first step at which {v.s} carried {a}", first))
        last = max(i for i, c in enumerate(held) if c > 0)
        if last < ix.n - 1:
            out.append((("item", item), ("pos",), "last", f"{v.s} held {a} for the last time",
                        f"{v.s} hold {a} for the last time", f"the last step at which {v.s} still carried {a}", last))
        gone = next((i for i in range(first + 1, ix.n) if held[i] == 0), None)
        if gone is not None:
            pl = _plural(item)
            out.append((("item", item), ("out",), "first", f"{v.s} first ran out of {pl}", f"{v.s} first run out of {pl}",
                        f"the first step at which {v.s} no longer had any {pl} after having had one", gone))
    focus = [f for f in ix.state["focus"] if f != "nothing"]
    if focus:
        F = rng.choice(sorted(set(focus)))
        tf = ix.state["focus"].index(F)
        out.append((("state", "focus"), ("eq", F), "first", f"the focus first became the {F}",
                    f"the focus first become the {F}", f"the first step at which the focus was the {F}", tf))
    readings = [r for r in ix.state["last_reading"] if r != "none"]
    if readings:
        R = rng.choice(sorted(set(readings)))
        tr = ix.state["last_reading"].index(R)
        out.append((("state", "last_reading"), ("eq", R), "first", f"the latest reading first showed {R}",
                    f"the latest reading first show {R}", f"the first step at which the most recent reading was {R}", tr))
    return out


def _b4(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng = ctx.rng
    conds = _conditions(ctx, v)
    want = params.get("var")
    if want:
        conds = [c for c in conds if c[0][0] == want[0] and (want[1] is None or c[0][1] == want[1]) and
                 (params.get("test") is None or c[1][0] == params["test"]) and (params.get("which") is None or c[2] == params["which"])]
    if not conds:
        return None
    var, test, which, when, when_base, np_, t = rng.choice(conds)
    arg = _pick_arg(ctx, slot, t)
    if arg is None or (slot == "state" and var == ("state", arg)):
        return None
    spec = {"op": "cond", "var": var, "test": test, "which": which, "slot": slot, "arg": arg}
    pieces = _base_pieces(v, slot, arg) | {"when": when, "when_base": when_base, "np": np_, "Np": _cap(np_), "x": var[1],
                                           "thing": _article(var[1]) if var[0] == "item" else var[1]}
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), [t]


_NUM_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _event_anchor(ctx: _Ctx, ok=lambda p: True):
    ix, rng = ctx.ix, ctx.rng
    pat = _weighted_pattern(ix, rng, lambda p: p[0] not in ("look about", "check pockets", "refused") and ok(p))
    if pat is None:
        return None
    ts = ix.occ[pat]
    n = rng.choice([1, 1, 2, 3, -1]) if len(ts) >= 3 else rng.choice([1, -1]) if len(ts) == 2 else 1
    return {"kind": "event", "pat": pat, "n": n}


def _b5(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    use_event = params.get("anchor", rng.choice(["step", "event", "event"])) == "event"
    anchor = _event_anchor(ctx) if use_event else {"kind": "step", "t": rng.randrange(10, ctx.n - 10)}
    if anchor is None:
        return None
    a = ix.anchor_t(anchor)
    k = rng.randint(1, 8) * (1 if params.get("dir", rng.choice(["after", "before"])) == "after" else -1)
    t = a + k
    if not 0 <= t < ctx.n:
        return None
    arg = _pick_arg(ctx, slot, t)
    if arg is None:
        return None
    spec = {"op": "offset", "anchor": anchor, "k": k, "slot": slot, "arg": arg}
    kk = abs(k)
    kw = (_NUM_WORDS[kk] if rng.random() < 0.5 else str(kk)) + (" step" if kk == 1 else " steps")
    anc = _anchor_np(anchor, v)
    pieces = _base_pieces(v, slot, arg) | {"k": kw, "Kc": _cap(kw), "anc": anc, "Anc": _cap(anc),
                                           "dir": "after" if k > 0 else "before", "later": "later" if k > 0 else "earlier"}
    gold = sorted({t} | ({a} if use_event else set()))
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), gold


def _b6(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    direction = params.get("dir") or rng.choice(["next", "prev"])
    use_event = params.get("anchor", rng.choice(["step", "event", "event"])) == "event"
    anchor = _event_anchor(ctx) if use_event else {"kind": "step", "t": rng.randrange(20, ctx.n - 20)}
    if anchor is None:
        return None
    a = ix.anchor_t(anchor)
    def ok(p):
        if ix.has(p, a) or _trivial(slot, p) or p == anchor.get("pat"):
            return False
        return bool(ix.hits(p, a, None)) if direction == "next" else bool(ix.hits(p, -1, a))
    pat = _weighted_pattern(ix, rng, ok)
    if pat is None:
        return None
    t = ix.hits(pat, a, None)[0] if direction == "next" else ix.hits(pat, -1, a)[-1]
    arg = _pick_arg(ctx, slot, t)
    if arg is None:
        return None
    spec = {"op": "nextprev", "pat": pat, "dir": direction, "anchor": anchor, "slot": slot, "arg": arg}
    anc = _anchor_np(anchor, v)
    pieces = _base_pieces(v, slot, arg) | {"anc": anc, "Anc": _cap(anc), "pastB": v.clause(pat), "baseB": v.clause(pat, "base")}
    gold = sorted({t} | ({a} if use_event else set()))
    return spec, pieces, _slot_value(ctx.steps[t], slot, arg), gold


def _b7(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    typ = params.get("win") or rng.choice(["all", "steps", "first", "after_step", "before_step", "between", "after", "before"])
    made = _make_window(ctx, v, typ)
    if made is None:
        return None
    win, lo, hi, anchors, texts = made
    zero = params.get("zero", False)
    not_anchor = lambda p: p not in [w.get("pat") for w in (win.get("a", {}), win.get("b", {}))]
    if slot == "list":
        kind = params.get("kind") or rng.choice(["enter", "take", "inspect", "open"])
        hits = [t for t in ix.hits((kind, None), lo, hi)]
        edge_ok = _window_ok(ix, (kind, None), lo, hi, win)
        if not hits or not edge_ok or not not_anchor((kind, None)):
            return None
        names = sorted({e.obj for t in hits for e in ctx.steps[t].events if e.kind == kind and e.obj})
        if not 2 <= len(names) <= 6:
            return None
        spec = {"op": "list", "kind": kind, "win": win}
        wtext = _window_text(win, v, texts)
        pieces = {"S": v.s, "P": v.p, "win": wtext, "Win": _cap(wtext), "kind": kind}
        return spec, pieces, ", ".join(names), sorted(set(anchors + _count_gold(hits)))
    if zero:
        pat = _weighted_pattern(ix, rng, lambda p: not ix.hits(p, lo, hi) and not_anchor(p))
        if pat is None:
            return None
        hits = []
    else:
        pat = _weighted_pattern(ix, rng, lambda p: bool(ix.hits(p, lo, hi)) and _window_ok(ix, p, lo, hi, win) and not_anchor(p))
        if pat is None:
            return None
        hits = ix.hits(pat, lo, hi)
    spec = {"op": "count", "pat": pat, "win": win}
    wtext = _window_text(win, v, texts)
    pieces = {"S": v.s, "P": v.p, "win": wtext, "Win": _cap(wtext), "past": v.clause(pat), "base": v.clause(pat, "base")}
    return spec, pieces, str(len(hits)), sorted(set(anchors + _count_gold(hits)))


def _b8(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    nth = params.get("nth", False)
    a = _event_anchor(ctx) if nth else None
    pa = a["pat"] if a else _weighted_pattern(ix, rng, lambda p: p[0] not in ("look about", "check pockets"))
    if pa is None:
        return None
    if not a:
        a = {"kind": "event", "pat": pa, "n": 1}
    ta = ix.anchor_t(a)
    def ok(p):
        if p[0] == pa[0] and (p[1] is None or pa[1] is None):
            return False
        first = ix.occ[p][0]
        return p != pa and first != ta and abs(first - ta) >= 3
    pb = _weighted_pattern(ix, rng, ok)
    if pb is None:
        return None
    b = {"kind": "event", "pat": pb, "n": 1}
    if nth and len(ix.occ[pb]) >= 2 and rng.random() < 0.5:
        b["n"] = rng.choice([2, -1])
    tb = ix.anchor_t(b)
    if tb == ta or abs(tb - ta) < 3:
        return None
    if rng.random() < 0.5:
        a, b, ta, tb = b, a, tb, ta
    spec = {"op": "order", "a": a, "b": b}
    first = a if ta < tb else b
    pieces = {"S": v.s, "P": v.p, "pastA": v.clause(a["pat"]), "pastB": v.clause(b["pat"]),
              "baseA": v.clause(a["pat"], "base"), "baseB": v.clause(b["pat"], "base"),
              "npA": _anchor_np(a, v), "npB": _anchor_np(b, v)}
    return spec, pieces, _label(*first["pat"]), sorted({ta, tb})


def _b9(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    kinds = params.get("anchors") or rng.choice([("event", "event"), ("event", "event"), ("step", "event")])
    made = []
    for kind in kinds:
        if kind == "step":
            made.append({"kind": "step", "t": rng.randrange(5, ctx.n - 5)})
        else:
            an = _event_anchor(ctx)
            if an is None:
                return None
            if params.get("first") and an["n"] != 1:
                an["n"] = 1
            if params.get("last"):
                an["n"] = -1
            made.append(an)
    a, b = made
    ta, tb = ix.anchor_t(a), ix.anchor_t(b)
    if ta is None or tb is None or ta == tb or a.get("pat", 0) == b.get("pat", 1):
        return None
    if params.get("ordered") and ta > tb:
        a, b, ta, tb = b, a, tb, ta
    spec = {"op": "distance", "a": a, "b": b}
    pieces = {"S": v.s, "P": v.p, "npA": _anchor_np(a, v), "npB": _anchor_np(b, v),
              "pastA": v.clause(a["pat"]) if "pat" in a else "", "pastB": v.clause(b["pat"]) if "pat" in b else ""}
    pieces["NpA"] = _cap(pieces["npA"])
    gold = sorted({t for t, an in ((ta, a), (tb, b)) if an["kind"] == "event"})
    return spec, pieces, str(abs(ta - tb)), gold


def _b10(ctx: _Ctx, v: _Voice, slot: str, params: dict):
    rng, ix = ctx.rng, ctx.ix
    typ = params.get("win") or rng.choice(["all", "steps", "first", "after_step", "before_step", "between", "after", "before"])
    made = _make_window(ctx, v, typ)
    if made is None:
        return None
    win, lo, hi, anchors, texts = made
    want_yes = params["yes"]
    anchor_pats = [w.get("pat") for w in (win.get("a", {}), win.get("b", {}))]
    if want_yes:
        pat = _weighted_pattern(ix, rng, lambda p: bool(ix.hits(p, lo, hi)) and _window_ok(ix, p, lo, hi, win)
                                and p not in anchor_pats)
        if pat is None:
            return None
        first = ix.hits(pat, lo, hi)[:1]
    else:
        if params.get("never"):
            pool = [p for p in _NEVER_POOL if p not in ix.occ]
            tasks_seen = set(ix.state["task"])
            pool += [("start task", TASK_SHORT[x]) for x in TASK_POOL if TASK_SHORT[x] not in tasks_seen]
            pool += [("finish task", TASK_SHORT[x]) for x in TASK_POOL if TASK_SHORT[x] not in tasks_seen]
            pool = [p for p in pool if p[1] != ""]
            if not pool:
                return None
            pat = rng.choice(sorted(pool))
        else:
            pat = _weighted_pattern(ix, rng, lambda p: not ix.hits(p, lo, hi) and p not in anchor_pats)
            if pat is None:
                return None
        first = []
    spec = {"op": "exists", "pat": pat, "win": win}
    wtext = _window_text(win, v, texts)
    pieces = {"S": v.s, "P": v.p, "win": wtext, "Win": _cap(wtext), "past": v.clause(pat), "base": v.clause(pat, "base")}
    return spec, pieces, ("yes" if want_yes else "no"), sorted(set(anchors + first))


# ---------------------------------------------------------------------------------------------------
# Templates (shared wording) and one-offs (hand-worded single sentences)
# ---------------------------------------------------------------------------------------------------

_FAMILIES = {
    "1_step_index": _b1, "2_nth_occurrence": _b2, "3_windowed_occurrence": _b3, "4_condition": _b4, "5_offset": _b5,
    "6_next_previous": _b6, "7_count": _b7, "8_order": _b8, "9_distance": _b9, "10_existence": _b10,
}

_TEMPLATES = {
    "1_step_index": {
        "*": ["At step {t}, {sq}?", "{Sq} at step {t}?", "As of step {t}, {sq}?", "Looking at step {t}: {sq}?",
              "{Sq} once step {t} had been carried out?"],
    },
    "2_nth_occurrence": {
        "*": ["{Sq} the {ord} time {past}?", "Think of the {ord} time {past}: {sq}?", "On the {ord} occasion that {past}, {sq}?"],
        "step": ["At which step was the {ord} time {past}?", "Which step number marks the {ord} time {past}?",
                 "What step was it, the {ord} time {past}?"],
    },
    "3_windowed_occurrence": {
        "*": ["{Win}, {sq} the {ord} time {past}?", "{Sq} the {ord} time {past} {win}?",
              "Counting only what happened {win}: {sq} the {ord} time {past}?"],
        "step": ["{Win}, at which step was the {ord} time {past}?", "Which step was the {ord} time {past} {win}?"],
    },
    "4_condition": {
        "*": ["{Sq} when {when}?", "At {np}, {sq}?", "Consider {np}. {Sq}?"],
        "step": ["At which step did {when_base}?", "What is {np}?", "Which step was {np}?"],
    },
    "5_offset": {
        "*": ["{Kc} {dir} {anc}, {sq}?", "{Sq} {k} {dir} {anc}?", "Exactly {k} {dir} {anc}, {sq}?",
              "Go {k} {later} than {anc}: {sq}?"],
    },
    "6_next_previous": {
        "next": ["{Sq} the next time {pastB} after {anc}?", "After {anc}, {sq} the next time {pastB}?",
                 "Following {anc}, {sq} when {pastB} next?"],
        "prev": ["{Sq} the previous time {pastB} before {anc}?", "Before {anc}, {sq} the most recent time {pastB}?",
                 "Prior to {anc}, {sq} the last time {pastB}?"],
        "next_step": ["After {anc}, at which step was the next time {pastB}?", "Following {anc}, which step was the first one on which {pastB}?"],
        "prev_step": ["Before {anc}, which step was the last time {pastB}?", "Prior to {anc}, at which step had the most recent occasion come when {pastB}?"],
    },
    "7_count": {
        "*": ["How many times did {base} {win}?", "{Win}, how many times did {base}?", "How often did {base} {win}?",
              "Count the steps on which {past} {win}."],
        "list": ["Which {what} {win}? List them all.", "{Win}, which {what}?"],
    },
    "8_order": {
        "*": ["Which happened first: {pastA}, or {pastB}?", "Which came earlier: {npA} or {npB}?",
              "Which occurred first, {npA} or {npB}?"],
    },
    "9_distance": {
        "*": ["How many steps passed between {npA} and {npB}?", "How far apart, in steps, were {npA} and {npB}?",
              "What is the step gap between {npA} and {npB}?"],
    },
    "10_existence": {
        "*": ["Did {base} {win}?", "{Win}, did {base} at all?", "Was there any step {win} on which {past}?",
              "Is there a record that {past} {win}?"],
    },
}

_LIST_WHAT = {"enter": "rooms did {S} walk into", "take": "items did {S} pick up", "inspect": "things did {S} examine",
              "open": "things did {S} open"}

#: Hand-worded one-offs: (family, slot, builder params, sentence). Each seed draws two per family.
_ONE_OFFS = [
    ("1_step_index", "location", {}, "Suppose the log were rewound to step {t}; in which room would you find {M}?"),
    ("1_step_index", "action", {}, "Reading only the entry for step {t}, what exact command was typed?"),
    ("1_step_index", "inventory", {}, "Once step {t} was over, what did {P} inventory hold?"),
    ("1_step_index", "position", {}, "Which grid cell, written as x,y, does the record give for step {t}?"),
    ("1_step_index", "facing", {}, "What object {be} {S} busy with when step {t} happened?"),
    ("1_step_index", "events", {}, "List whatever events the log attaches to step {t}."),
    ("1_step_index", "item", {}, "Right after step {t}, how many {items} were in {P} possession?"),
    ("1_step_index", "state", {}, "Had someone checked the status panel just after step {t}: {sq}?"),
    ("2_nth_occurrence", "location", {}, "Recall the {ord} time {past}. Which room did that happen in?"),
    ("2_nth_occurrence", "action", {}, "The {ord} time {past}, what had {S} just typed?"),
    ("2_nth_occurrence", "inventory", {"n": -1}, "What did {S} have on hand on the final occasion that {past}?"),
    ("2_nth_occurrence", "step", {}, "Give the step number of the {ord} time {past}."),
    ("2_nth_occurrence", "state", {"n": -2}, "On the second-to-last occasion when {past}, {sq}?"),
    ("2_nth_occurrence", "facing", {"n": -1}, "Which object did {S} act on the last time {past}?"),
    ("2_nth_occurrence", "position", {}, "At what x,y position did the log place {S} the {ord} time {past}?"),
    ("2_nth_occurrence", "events", {"n": 2}, "Everything recorded at the second time {past} — what was it?"),
    ("3_windowed_occurrence", "location", {"win": "after_step", "n": 1}, "Ignoring everything up to step {t0}, where {be} {S} the first time {past} after that?"),
    ("3_windowed_occurrence", "step", {"win": "first", "n": -1}, "{Win}, what was the final step at which {past}?"),
    ("3_windowed_occurrence", "action", {"win": "between"}, "Looking only {win}, what command was entered the {ord} time {past}?"),
    ("3_windowed_occurrence", "inventory", {"win": "after"}, "{Win}, what {be} {S} carrying the {ord} time {past}?"),
    ("3_windowed_occurrence", "step", {"win": "before_step", "n": -1}, "{Win}, at which step did {base} for the last time?"),
    ("3_windowed_occurrence", "events", {"win": "steps"}, "{Win}, what events did the log show the {ord} time {past}?"),
    ("3_windowed_occurrence", "state", {"win": "before", "n": -1}, "{Win}, {sq} the last time {past}?"),
    ("4_condition", "step", {"var": ("item", None), "test": "pos", "which": "first"}, "Give the step at which {when}."),
    ("4_condition", "location", {"var": ("state", "score"), "test": "ge"}, "Once {when}, which room {be} {S} standing in?"),
    ("4_condition", "step", {"var": ("state", "tasks_done")}, "The moment {when}: what step number was that?"),
    ("4_condition", "step", {"var": ("item", None), "which": "last"}, "What was {np}?"),
    ("4_condition", "action", {"var": ("state", "moves")}, "When {when}, what command had just been typed?"),
    ("4_condition", "step", {"var": ("item", None), "test": "out"}, "{S} carried {thing} for a while; at which step did {S} first have none left?"),
    ("4_condition", "state", {"var": ("state", "score"), "test": "eq"}, "Right when {when}, {sq}?"),
    ("4_condition", "position", {"var": ("state", "moves")}, "Where on the grid (x,y) {be} {S} when {when}?"),
    ("5_offset", "action", {"anchor": "step", "dir": "after"}, "Skip ahead {k} from {anc}: what command was entered there?"),
    ("5_offset", "location", {"anchor": "event", "dir": "before"}, "Go back {k} from {anc}; which room {be} {S} in at that point?"),
    ("5_offset", "inventory", {"anchor": "event", "dir": "after"}, "What did {P} inventory look like {k} after {anc}?"),
    ("5_offset", "events", {"anchor": "step", "dir": "before"}, "Exactly {k} before {anc}, what did the log record as events?"),
    ("5_offset", "state", {"anchor": "event", "dir": "before"}, "Rewind {k} from {anc}. {Sq}?"),
    ("5_offset", "item", {"anchor": "event", "dir": "after"}, "{Kc} on from {anc}, how many {items} did {S} hold?"),
    ("5_offset", "facing", {"anchor": "step", "dir": "before"}, "What thing {be} {S} facing {k} prior to {anc}?"),
    ("6_next_previous", "step", {"dir": "next", "anchor": "event"}, "Right after {anc}, when was the next time {pastB}? Give the step."),
    ("6_next_previous", "location", {"dir": "prev", "anchor": "event"}, "Just before {anc}, where had {S} been the previous time {pastB}?"),
    ("6_next_previous", "action", {"dir": "next", "anchor": "step"}, "Following {anc}, what command was typed the next time {pastB}?"),
    ("6_next_previous", "state", {"dir": "prev", "anchor": "step"}, "Looking backwards from {anc}, {sq} at the most recent step where {pastB}?"),
    ("6_next_previous", "inventory", {"dir": "next", "anchor": "event"}, "After {anc}, what {be} {S} carrying the next time {pastB}?"),
    ("6_next_previous", "facing", {"dir": "prev", "anchor": "event"}, "Which object {be} {S} dealing with the previous time {pastB}, before {anc}?"),
    ("7_count", "count", {"win": "all"}, "Over the whole run, on how many separate steps did {base}?"),
    ("7_count", "count", {"win": "first"}, "Tally up how often {past} {win}."),
    ("7_count", "count", {"win": "between"}, "{Win}, how many times did {base}? Count every occurrence."),
    ("7_count", "count", {"win": "after_step"}, "How many different steps {win} show that {past}?"),
    ("7_count", "count", {"win": "before"}, "{Win}, on how many steps did {base}?"),
    ("7_count", "list", {"win": "steps", "kind": "enter"}, "Which rooms did {S} walk into {win}?"),
    ("7_count", "list", {"win": "after", "kind": "take"}, "Name every item that went into {P} inventory {win}."),
    ("7_count", "count", {"win": "before_step", "zero": True}, "Up to step {t0}, how many times had it happened that {past}?"),
    ("8_order", "which-first", {}, "Did {baseA} before {pastB}, or the other way round? Name whichever came first."),
    ("8_order", "which-first", {}, "Of these two, which occurred earlier in the episode: {pastA}; {pastB}?"),
    ("8_order", "which-first", {}, "Think about {npA} and {npB} — which of the two came first?"),
    ("8_order", "which-first", {"nth": True}, "Which was earlier, {npA} or {npB}?"),
    ("8_order", "which-first", {}, "Put these in order and tell me the earlier one: {pastA} / {pastB}."),
    ("9_distance", "duration", {"anchors": ("step", "event")}, "How many steps separate {npA} from {npB}?"),
    ("9_distance", "duration", {"ordered": True}, "Measured in steps, how long was it from {npA} until {npB}?"),
    ("9_distance", "duration", {"last": True}, "What is the gap, in steps, between {npA} and {npB}?"),
    ("9_distance", "duration", {"first": True}, "How far apart were {npA} and {npB}?"),
    ("9_distance", "duration", {"ordered": True}, "{NpA} — how many steps after that did {npB} come?"),
    ("10_existence", "yes/no", {"win": "all", "yes": True}, "Was there ever a moment when {past}?"),
    ("10_existence", "yes/no", {"win": "steps", "yes": False}, "{Win}, did {base} even once?"),
    ("10_existence", "yes/no", {"win": "after", "yes": True}, "{Win}, is there any record that {past}?"),
    ("10_existence", "yes/no", {"win": "first", "yes": False}, "Did {base} {win}?"),
    ("10_existence", "yes/no", {"win": "before", "yes": False}, "{Win}, had there been any step on which {past}?"),
    ("10_existence", "yes/no", {"win": "after_step", "yes": True}, "Is there any sign in the log that {past} at some point {win}?"),
    ("10_existence", "yes/no", {"win": "all", "yes": False, "never": True}, "At any point in the whole episode, did {base}?"),
    ("10_existence", "yes/no", {"win": "between", "yes": True}, "Did it happen at least once {win} that {past}?"),
    ("10_existence", "yes/no", {"win": "before_step", "yes": True}, "Up to step {t0}, had it already happened that {past}?"),
    ("10_existence", "yes/no", {"win": "all", "yes": False, "never": True}, "Does the log show, anywhere, that {past}?"),
    ("1_step_index", "state", {}, "Freeze the episode at step {t} — {sq}?"),
    ("1_step_index", "action", {}, "Which command stands in the log at step {t}?"),
    ("2_nth_occurrence", "item", {}, "Picture the {ord} time {past}; how many {items} {be} {S} carrying at that moment?"),
    ("2_nth_occurrence", "step", {"n": -1}, "When was the very last time {past}? Answer with the step."),
    ("3_windowed_occurrence", "facing", {"win": "first", "n": 1}, "Sticking to what happened {win}, which object {be} {S} handling the first time {past}?"),
    ("3_windowed_occurrence", "position", {"win": "between", "n": -1}, "Restricting attention to the span {win}, where on the grid (x,y) {be} {S} the last time {past}?"),
    ("3_windowed_occurrence", "item", {"win": "after_step"}, "Of all the times {past} {win}, take the {ord}: how many {items} did {S} have then?"),
    ("4_condition", "inventory", {"var": ("state", "tasks_done")}, "As soon as {when}, what did {P} inventory hold?"),
    ("4_condition", "facing", {"var": ("state", "focus")}, "What {be} {S} acting on at the moment {when}?"),
    ("5_offset", "position", {"anchor": "event", "dir": "after"}, "Where on the map (x,y) had {S} got to {k} after {anc}?"),
    ("5_offset", "action", {"anchor": "event", "dir": "before"}, "{Kc} earlier than {anc}, which command did {S} issue?"),
    ("5_offset", "state", {"anchor": "step", "dir": "after"}, "Fast-forward {k} past {anc} and read the status: {sq}?"),
    ("6_next_previous", "position", {"dir": "next", "anchor": "step"}, "Starting the clock at {anc}, where on the grid (x,y) {be} {S} when {pastB} for the first time after that?"),
    ("6_next_previous", "events", {"dir": "prev", "anchor": "event"}, "Looking back from {anc} to the latest earlier step on which {pastB}: what events did that step record?"),
    ("6_next_previous", "item", {"dir": "next", "anchor": "event"}, "After {anc}, the next time {pastB}, how many {items} {be} {S} holding?"),
    ("6_next_previous", "step", {"dir": "prev", "anchor": "step"}, "Counting back from {anc}, which was the latest earlier step on which {pastB}?"),
    ("7_count", "count", {"win": "steps"}, "In the span {win}, how many steps recorded that {past}?"),
    ("7_count", "list", {"win": "before", "kind": "inspect"}, "What things did {S} examine {win}? Name them."),
    ("8_order", "which-first", {}, "Ordering by first occurrence, what comes first: the moment {pastA}, or the moment {pastB}?"),
    ("8_order", "which-first", {"nth": True}, "Going by step number, did {npA} come before {npB}, or after it? Name the one that came first."),
    ("8_order", "which-first", {}, "Two things happened at some point: {pastA}, and {pastB}. Which of them happened sooner?"),
    ("8_order", "which-first", {}, "Earlier in the log — {pastA}, or {pastB}? Give the earlier one."),
    ("9_distance", "duration", {"anchors": ("step", "event")}, "Starting from {npA}, how many steps away was {npB}?"),
    ("9_distance", "duration", {"first": True}, "By how many steps do {npA} and {npB} differ?"),
    ("9_distance", "duration", {"ordered": True}, "How long did {S} take to get from {npA} to {npB}, counted in steps?"),
]

_STEP_SLOTS = ["action", "location", "position", "inventory", "item", "state", "facing", "events", "step"]


def _render(template: str, pieces: dict) -> str:
    class _Keep(dict):
        def __missing__(self, key):  # a piece the template does not use stays unfilled, and is caught below
            return "{" + key + "}"

    text = template.format_map(_Keep(pieces))
    text = re.sub(r"\s+([?.,:;])", r"\1", " ".join(text.split()))
    text = text.replace(", ?", "?").replace(",?", "?")
    if "{" in text:
        raise AssertionError(f"unfilled template: {text}")
    return _cap(text)


def _t0_piece(spec: dict) -> dict:
    win = spec.get("win", {})
    return {"t0": win.get("t", "")}


def _question(ctx: _Ctx, family: str, slot: str, params: dict, template: str | None):
    """One question of a family, or None if this draw does not fit the episode."""
    v = _Voice(ctx.rng)
    built = _FAMILIES[family](ctx, v, slot, params)
    if built is None:
        return None
    spec, pieces, answer, gold = built
    pieces = dict(pieces) | _t0_piece(spec)
    pieces.setdefault("be", v.be)
    if template is None:
        table = _TEMPLATES[family]
        if family == "8_order" and (spec["a"]["n"] != 1 or spec["b"]["n"] != 1):
            table = {"*": [x for x in table["*"] if "{npA}" in x]}
        if family == "6_next_previous":
            key = spec["dir"] + ("_step" if slot == "step" else "")
        elif family == "7_count" and slot == "list":
            key = "list"
        else:
            key = slot if slot in table else "*"
        template = ctx.rng.choice(table[key])
    if family == "7_count" and slot == "list":
        pieces["what"] = v.fill(_LIST_WHAT[spec["kind"]])
    if family == "9_distance" and "npA" in pieces and "NpA" not in pieces:
        pieces["NpA"] = _cap(pieces["npA"])
    text = _render(template, pieces)
    got_answer, got_gold = evaluate(ctx.steps, spec)
    assert got_answer == answer and got_gold == gold, (family, text, spec, answer, gold, got_answer, got_gold)
    return {
        "episode": ctx.episode,
        "family": family,
        "slot": slot,
        "question": text,
        "answer": answer,
        "gold": [f"{ctx.episode}:{t}" for t in gold],
        "_spec": spec,
        "_params": params,
    }


def _family_questions(ctx: _Ctx, family: str, oneoff_pool: list) -> list[dict]:
    rng = ctx.rng
    out: list[dict] = []
    seen: set[str] = set()

    def accept(q) -> bool:
        if q is None or q["question"] in seen or not q["answer"].strip():
            return False
        seen.add(q["question"])
        out.append(q)
        return True

    # Two hand-worded one-offs.
    pool = [o for o in oneoff_pool if o[0] == family]
    rng.shuffle(pool)
    used_slots = []
    for _fam, slot, params, sentence in pool:
        if len(out) >= 2:
            break
        for _try in range(25):
            q = _question(ctx, family, slot, dict(params), sentence)
            if accept(q):
                used_slots.append(slot)
                break
    # Templated ones.
    if family in ("7_count", "8_order", "9_distance", "10_existence"):
        plans = {
            "7_count": [("count", {"zero": True}), ("count", {}), ("count", {}), ("count", {}), ("count", {"win": "all"}), ("list", {})],
            "8_order": [("which-first", {}), ("which-first", {}), ("which-first", {"nth": True}), ("which-first", {})],
            "9_distance": [("duration", {}), ("duration", {"anchors": ("step", "event")}), ("duration", {}), ("duration", {"first": True})],
            "10_existence": None,
        }[family]
        if family == "10_existence":
            yes = sum(1 for q in out if q["answer"] == "yes")
            no = len(out) - yes
            never = any(q["_params"].get("never") for q in out)
            plans = [("yes/no", {"yes": True})] * (3 - yes) + [("yes/no", {"yes": False})] * (3 - no)
            if not never and no < 3:
                plans[-1] = ("yes/no", {"yes": False, "never": True})
        if family == "7_count":
            has_list = any(q["slot"] == "list" for q in out)
            has_zero = any(q["answer"] == "0" for q in out)
            plans = [p for p in plans if not (has_list and p[0] == "list")]
            if has_zero:
                plans = [p for p in plans if not p[1].get("zero")]
            rng.shuffle(plans)
            if not has_zero:
                plans.sort(key=lambda p: 0 if p[1].get("zero") else 1)
    else:
        options = [s for s in _STEP_SLOTS if s not in used_slots]
        if family in ("1_step_index", "5_offset"):
            options = [s for s in options if s != "step"]
        rng.shuffle(options)
        if family in ("2_nth_occurrence", "3_windowed_occurrence", "4_condition", "6_next_previous") and "step" in options:
            options.remove("step")
            options.insert(0, "step")
        plans = [(s, {}) for s in options]
    i = 0
    while len(out) < 6:
        slot, params = plans[i % len(plans)]
        i += 1
        for _try in range(30):
            if accept(_question(ctx, family, slot, dict(params), None)):
                break
        if i > 60:
            raise RuntimeError(f"could not fill family {family}")
    return out[:6]


def _questions(episode: str, steps: list[Step], seed: int) -> list[dict]:
    rng = random.Random(seed * 31 + 7)
    ctx = _Ctx(episode, steps, rng)
    questions: list[dict] = []
    for family in _FAMILIES:
        questions.extend(_family_questions(ctx, family, _ONE_OFFS))
    for q in questions:
        answer, gold = evaluate(steps, q.pop("_spec"))
        q.pop("_params")
        assert answer == q["answer"] and [f"{episode}:{t}" for t in gold] == q["gold"], q
    return questions


# ---------------------------------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------------------------------


def build(seed: int) -> dict:
    """One episode of chained ScienceWorld tasks and its 60 questions."""
    episode = f"{EPISODE_PREFIX}-{seed}"
    raw = _run_episode(seed)
    steps = _steps_from_raw(raw, episode)
    validate_steps(steps, episode)
    return {"episodes": {episode: steps}, "questions": _questions(episode, steps, seed)}


def _fingerprint(data: dict) -> str:
    h = hashlib.sha256()
    for eid, steps in sorted(data["episodes"].items()):
        h.update(eid.encode())
        for s in steps:
            h.update(repr(s).encode())
    for q in data["questions"]:
        h.update(repr(sorted(q.items())).encode())
    return h.hexdigest()[:16]


def _self_check(seeds: list[int]) -> None:
    kinds_verbatim = sorted({k for k in _PHRASES}, key=len, reverse=True)
    for seed in seeds:
        t0, c0 = time.time(), time.process_time()
        data = build(seed)
        wall = time.time() - t0
        (eid, steps), = data["episodes"].items()
        qs = data["questions"]
        print(f"== seed {seed}: episode {eid}, {len(steps)} steps, {len(qs)} questions, build {wall:.1f}s wall "
              f"({time.process_time() - c0:.1f}s python cpu)")
        assert 300 <= len(steps) <= 1500, len(steps)
        assert [s.t for s in steps] == list(range(len(steps)))
        validate_steps(steps, eid)
        assert len(qs) == 60, len(qs)
        fam = collections.Counter(q["family"] for q in qs)
        assert all(c == 6 for c in fam.values()) and len(fam) == 10, fam
        print("families:", dict(fam))
        print("family/slot:", dict(sorted(collections.Counter(f"{q['family']}/{q['slot']}" for q in qs).items())))
        ev = collections.Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(ev.most_common()))
        tasks = []
        for s in steps:
            for e in s.events:
                if e.kind == "start task":
                    tasks.append(e.obj)
        print("tasks:", tasks)
        for q in qs:
            for g in q["gold"]:
                assert g.startswith(eid + ":"), g
                assert 0 <= int(g.split(":")[1]) < len(steps)
            assert q["gold"] == sorted(q["gold"], key=lambda g: int(g.split(":")[1]))
        yes = sum(q["answer"] == "yes" for q in qs if q["family"] == "10_existence")
        zero = sum(q["answer"] == "0" for q in qs if q["family"] == "7_count")
        verb = sum(any(re.search(r"\b" + re.escape(k) + r"\b", q["question"].lower()) for k in kinds_verbatim) for q in qs)
        print(f"existence yes={yes} no={6 - yes}; zero counts={zero}; questions naming a stored kind verbatim: {verb}/60")
        assert yes == 3, yes
        assert zero >= 1, zero
        rng = random.Random(seed)
        for q in rng.sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")
        again = build(seed)
        same = _fingerprint(again) == _fingerprint(data)
        print(f"second build identical: {same}  fingerprint={_fingerprint(data)}")
        assert same, "a second build differs"
    print("self-check passed")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args or [SEED_RANGE[0], SEED_RANGE[1]])
