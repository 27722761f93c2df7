"""Held-out suite 7: a ScienceWorld lab agent chaining several task variations in one episode.

The agent ("Ada") runs the real ScienceWorld simulator.  For each task it loads a variation chosen
from the seed, follows the simulator's own gold action sequence and weaves in detours of its own:
zero-time checks (look around, inventory, task) anywhere, one-tick inspections (looking at things,
taking temperatures) only where simulated time does not matter yet (before anything is switched on,
never in the life-stage tasks), and free exploration once a task is completed.  Each task segment is
verified to reach the task's completion; a segment that does not is re-run without timed detours,
and failing that another variation is tried.

Questions are computed by a plain reference scan over the Step records.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout7_science"
SEED_RANGE = range(9400, 9500)

AGENT = "Ada"
JAVA_OPTS = "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2"
FAMILY_TASKS = [
    ["boil", "change-the-state-of-matter-of"],
    ["use-thermometer"],
    ["measure-melting-point-known-substance"],
    ["chemistry-mix"],
    ["identify-life-stages-1", "identify-life-stages-2"],
]
LIFE_TASKS = {"identify-life-stages-1", "identify-life-stages-2"}
FREE_ACTIONS = {"look around", "inventory", "task"}
CONTAINER_WORDS = ("cupboard", "drawer", "fridge", "freezer", "oven", "glass jar", "box", "furnace")
SWITCH_WORDS = ("sink", "stove", "lighter", "bathtub", "toilet")
FIXTURE_WORDS = ("table", "chair", "cupboard", "counter", "bed", "drawer", "sink", "toilet", "bathtub", "stove",
                 "oven", "fridge", "freezer", "shelf", "furnace", "couch", "sofa", "desk", "fountain", "pit",
                 "ground", "box", "bench", "workbench", "wardrobe", "closet", "heater", "cabinet")
MIN_STEPS, MAX_STEPS = 300, 800


# --------------------------------------------------------------------------------------------------
# Simulator
# --------------------------------------------------------------------------------------------------


def _start_env():
    """A fresh simulator whose JVM hashes objects deterministically."""
    from scienceworld import ScienceWorldEnv

    old = os.environ.get("JAVA_TOOL_OPTIONS")
    os.environ["JAVA_TOOL_OPTIONS"] = JAVA_OPTS
    try:
        env = ScienceWorldEnv("", envStepLimit=100000)
    finally:
        if old is None:
            os.environ.pop("JAVA_TOOL_OPTIONS", None)
        else:
            os.environ["JAVA_TOOL_OPTIONS"] = old
    return env


def _article(text: str) -> str:
    for art in ("a ", "an ", "the "):
        if text.lower().startswith(art):
            return text[len(art):]
    return text


def _name(line: str) -> str:
    text = _article(line.strip())
    if text.lower().startswith("substance called "):
        text = text[len("substance called "):]
    cut = len(text)
    for sep in (". ", " (", ", ", "."):
        i = text.find(sep)
        if 0 <= i < cut:
            cut = i
    return text[:cut].strip().lower()


def parse_look(text: str) -> tuple[str, list[str], list[tuple[str, bool]]]:
    """Room, visible top-level objects, doors (room, is_open) from a look-around text."""
    m = re.search(r"called the ([^.]+)\.", text)
    room = m.group(1).strip().lower() if m else ""
    objects: list[str] = []
    doors: list[tuple[str, bool]] = []
    part = "objects"
    for line in text.split("\n"):
        if line.startswith("You also see"):
            part = "doors"
            continue
        if not line.startswith("\t") or line.startswith("\t\t"):
            continue
        if part == "doors":
            dm = re.match(r"\s*A door to the (.+?) \(that is (open|closed)\)", line)
            if dm:
                doors.append((dm.group(1).lower(), dm.group(2) == "open"))
            continue
        name = _name(line)
        if name and name not in ("agent", "air") and name not in objects:
            objects.append(name)
    return room, objects, doors


def parse_inventory(text: str) -> dict[str, int]:
    inv: Counter = Counter()
    for line in text.split("\n"):
        if line.startswith("\t") and not line.startswith("\t\t"):
            name = _name(line)
            if name:
                inv[name] += 1
    return dict(inv)


def _unique_objects(look_text: str) -> list[str]:
    _, objs, _ = parse_look(look_text)
    counts = Counter(_name(line) for line in look_text.split("\n") if line.startswith("\t"))
    return [o for o in objs if counts[o] == 1 and o not in ("ground", "floor")]


class Runner:
    """Steps the simulator and turns each step into a Step record."""

    def __init__(self, env):
        self.env = env
        self.server = env.server
        self.steps: list[Step] = []
        self.room = ""
        self.score = 0
        self.done = False
        self.task = ""
        self.tasks_completed = 0
        self.temperature: float | None = None
        self.focus = ""
        self.new_task = False

    # snapshot / restore so a failed segment can be rolled back
    def snapshot(self):
        return (len(self.steps), self.room, self.score, self.done, self.task, self.tasks_completed,
                self.temperature, self.focus)

    def restore(self, snap) -> None:
        (n, self.room, self.score, self.done, self.task, self.tasks_completed, self.temperature,
         self.focus) = snap
        del self.steps[n:]

    def begin(self, task: str) -> None:
        self.task = task
        self.score = 0
        self.done = False
        self.new_task = True

    def look(self) -> str:
        return str(self.server.freeActionLook())

    def act(self, action: str) -> str:
        obs = str(self.server.step(action))
        events: list[Event] = []
        objects: list[str] = []
        if self.new_task:
            events.append(Event("start task", self.task))
            self.new_task = False
        low = obs.strip()
        a = action.strip()
        if a == "look around":
            events.append(Event("look around"))
            room, objects, _ = parse_look(obs)
            if room:
                self.room = room
        elif a == "inventory":
            events.append(Event("check inventory"))
        elif a == "task":
            events.append(Event("check task"))
        elif a.startswith("wait"):
            if low.startswith("You decide to wait"):
                events.append(Event("wait"))
        elif a.startswith("go to "):
            m = re.match(r"You move to the (.+?)\.", low)
            if m:
                self.room = m.group(1).lower()
                events.append(Event("enter room", self.room))
        elif a.startswith(("open door to ", "close door to ")):
            target = a.split(" door to ", 1)[1].lower()
            if low.startswith("The door is now open"):
                events.append(Event("open door", target))
            elif low.startswith("The door is now closed"):
                events.append(Event("close door", target))
        elif a.startswith(("open ", "close ")):
            m = re.match(r"The (.+?) is now (open|closed)\.", low)
            if m:
                events.append(Event("open" if m.group(2) == "open" else "close", m.group(1).lower()))
        elif a.startswith("pick up "):
            m = re.match(r"You move the (.+?) to the inventory\.", low)
            if m:
                events.append(Event("pick up", m.group(1).lower()))
        elif a.startswith("put down "):
            m = re.match(r"You move the (.+?) to the (.+?)\.", low)
            if m:
                events.append(Event("put down", m.group(1).lower()))
        elif a.startswith("move "):
            m = re.match(r"You move the (.+?) to the (.+?)\.", low)
            if m:
                events.append(Event("move", m.group(1).lower()))
        elif a.startswith("pour "):
            m = re.match(r"You pour the contents of the (.+?) into the (.+?)\.", low)
            if m:
                events.append(Event("pour", m.group(1).lower()))
        elif a.startswith(("activate ", "deactivate ")):
            m = re.match(r"The (.+?) is now (activated|deactivated)\.", low)
            if m:
                kind = "turn on" if m.group(2) == "activated" else "turn off"
                events.append(Event(kind, m.group(1).lower()))
        elif a.startswith("focus on "):
            m = re.match(r"You focus on the (.+?)\.", low)
            if m:
                self.focus = m.group(1).lower()
                events.append(Event("focus on", self.focus))
        elif a.startswith("use thermometer"):
            m = re.search(r"measures a temperature of (-?[\d.]+) degrees", low)
            if m:
                target = a.split(" on ", 1)[1]
                target = target.removesuffix(" in inventory")
                self.temperature = float(m.group(1))
                events.append(Event("measure temperature", target.lower()))
        elif a.startswith(("examine ", "look at ")):
            if not low.startswith("No known action"):
                target = a.split(" ", 1)[1] if a.startswith("examine ") else a[len("look at "):]
                target = target.removesuffix(" in inventory")
                events.append(Event("examine", target.lower()))
        elif a.startswith("read "):
            if not low.startswith("No known action") and "not clear" not in low:
                target = a[len("read "):]
                target = target.removesuffix(" in inventory")
                events.append(Event("read", target.lower()))
        elif a.startswith("mix ") and " mix to produce " in low:
            events.append(Event("mix", a[len("mix "):].lower()))
        if a == "0" and self.steps and self.steps[-1].observation.startswith("Ambiguous request"):
            events.append(Event("pick option"))
        if low.startswith("No known action matches"):
            events.append(Event("unrecognized command"))
        score = round(100 * self.server.getScore())
        done = bool(self.server.getCompleted())
        if score > self.score:
            events.append(Event("score increase"))
        if done and not self.done:
            self.tasks_completed += 1
            events.append(Event("complete task", self.task))
        self.score, self.done = score, done
        inv = parse_inventory(str(self.server.freeActionInventory()))
        state: dict = {
            "score": score,
            "task": self.task,
            "task done": done,
            "tasks completed": self.tasks_completed,
            "moves": int(self.server.getNumMoves()),
        }
        if self.temperature is not None:
            state["last temperature"] = self.temperature
        if self.focus:
            state["focus"] = self.focus
        relations = [Relation("agent", "in", self.room)] if self.room else []
        if self.focus:
            relations.append(Relation("agent", "focused on", self.focus))
        if not objects:
            objects = sorted({e.obj for e in events if e.obj and e.kind not in ("start task", "complete task")})
        step = Step(
            t=len(self.steps),
            action=action,
            objects=tuple(objects),
            events=tuple(events),
            relations=tuple(relations),
            inventory=inv,
            state=state,
            location=Location(region=self.room),
            observation=obs,
        )
        self.steps.append(step)
        if low.startswith("Ambiguous request"):
            return self.act("0")
        return obs


# --------------------------------------------------------------------------------------------------
# The agent
# --------------------------------------------------------------------------------------------------


def _timed_detour(run: Runner, rng: random.Random, n: int, travel: bool) -> None:
    """n small activities of one tick or so that leave the world as the gold sequence expects it."""
    for _ in range(n):
        look = run.look()
        objs = _unique_objects(look)
        room, _, doors = parse_look(look)
        held = run.steps[-1].inventory_dict if run.steps else {}
        choice = rng.random()
        if travel and doors and choice < 0.25:
            dest, is_open = doors[rng.randrange(len(doors))]
            if not is_open:
                run.act(f"open door to {dest}")
            obs = run.act(f"go to {dest}")
            if obs.startswith("You move to"):
                run.act("look around")
                there = _unique_objects(run.look())
                if there:
                    run.act(f"look at {there[rng.randrange(len(there))]}")
                run.act(f"go to {room}")
        elif "thermometer" in held and objs and choice < 0.6:
            run.act(f"use thermometer in inventory on {objs[rng.randrange(len(objs))]}")
        elif objs:
            run.act(f"look at {objs[rng.randrange(len(objs))]}")
        else:
            run.act("look around")


def _free_detour(run: Runner, rng: random.Random, budget: int) -> None:
    """Exploration after a task is done: anything goes."""
    start = len(run.steps)
    carried: list[str] = []
    while len(run.steps) - start < budget:
        look = run.look()
        objs = _unique_objects(look)
        _, _, doors = parse_look(look)
        held = run.steps[-1].inventory_dict
        r = rng.random()
        if r < 0.12:
            run.act("look around")
        elif r < 0.22 and doors:
            dest, is_open = doors[rng.randrange(len(doors))]
            if not is_open:
                run.act(f"open door to {dest}")
            if run.act(f"go to {dest}").startswith("You move to"):
                run.act("look around")
        elif r < 0.36 and "thermometer" in held and objs:
            run.act(f"use thermometer in inventory on {objs[rng.randrange(len(objs))]}")
        elif r < 0.46 and objs:
            small = [o for o in objs if not any(w in o for w in FIXTURE_WORDS)]
            target = small[rng.randrange(len(small))] if small else objs[0]
            if small and run.act(f"pick up {target}").startswith("You move the"):
                carried.append(target)
                run.act("inventory")
        elif r < 0.54 and carried:
            run.act(f"put down {carried.pop(0)}")
        elif r < 0.64:
            boxes = [o for o in objs if any(w in o for w in CONTAINER_WORDS)]
            if boxes:
                box = boxes[rng.randrange(len(boxes))]
                run.act(f"open {box}")
                run.act(f"look at {box}")
                if rng.random() < 0.5:
                    run.act(f"close {box}")
            else:
                run.act("inventory")
        elif r < 0.72:
            switches = [o for o in objs if any(w in o for w in SWITCH_WORDS)]
            if switches:
                sw = switches[rng.randrange(len(switches))]
                run.act(f"activate {sw}")
                run.act("wait1")
                run.act(f"deactivate {sw}")
            else:
                run.act("task")
        elif r < 0.8:
            run.act("wait1")
        elif objs:
            run.act(f"look at {objs[rng.randrange(len(objs))]}")
        else:
            run.act("inventory")


def _run_segment(run: Runner, rng: random.Random, task: str, gold: list[str], timed: bool, post: int) -> bool:
    run.begin(task)
    run.server.reset()
    life = task in LIFE_TASKS
    timed = timed and not life
    first_on = next((i for i, a in enumerate(gold) if a.startswith("activate")), len(gold))
    run.act("look around")
    if rng.random() < 0.7:
        run.act("task")
    if rng.random() < 0.5:
        run.act("inventory")
    if timed:
        _timed_detour(run, rng, rng.randint(2, 5), travel=True)
    for i, action in enumerate(gold):
        run.act(action)
        obs = run.steps[-1].observation
        if run.steps[-1].action.startswith("go to") and obs.startswith("You move to"):
            nxt = gold[i + 1] if i + 1 < len(gold) else ""
            if nxt != "look around" and rng.random() < 0.7:
                run.act("look around")
        elif action.startswith("pick up") and rng.random() < 0.5:
            run.act("inventory")
        elif rng.random() < 0.06:
            run.act("task")
        if timed and i + 1 < first_on and rng.random() < 0.15:
            _timed_detour(run, rng, rng.randint(1, 2), travel=False)
    if not run.done:
        return False
    _free_detour(run, rng, post)
    return True


def _episode(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 17)
    n_tasks = rng.choice([3, 4, 4, 5])
    families = rng.sample(range(len(FAMILY_TASKS)), n_tasks)
    env = _start_env()
    try:
        run = Runner(env)
        for k, fam in enumerate(families):
            names = FAMILY_TASKS[fam]
            task = names[rng.randrange(len(names))]
            remaining = n_tasks - k - 1
            have = len(run.steps)
            post = rng.randint(25, 60)
            if have > MAX_STEPS - 150 - remaining * 60:
                post = 6
            elif remaining == 0 and have + 60 + post < MIN_STEPS:
                post = MIN_STEPS - have - 40
            ok = False
            for attempt in range(4):
                var = rng.randrange(env.get_max_variations(task))
                env.load(task, var, "", generateGoldPath=True)
                gold = [str(a) for a in env.get_gold_action_sequence()]
                for timed in (True, False):
                    snap = run.snapshot()
                    sub = random.Random(rng.random())
                    if _run_segment(run, sub, task, gold, timed, post):
                        ok = True
                        break
                    run.restore(snap)
                if ok:
                    break
            if not ok:
                raise RuntimeError(f"no variation of {task} could be completed (seed {seed})")
        while len(run.steps) < MIN_STEPS:
            _free_detour(run, rng, MIN_STEPS - len(run.steps))
        steps = run.steps[:MAX_STEPS]
    finally:
        env.close()
    return steps


# --------------------------------------------------------------------------------------------------
# Reference evaluator helpers
# --------------------------------------------------------------------------------------------------


def fmt(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def label(kind: str, obj: str) -> str:
    return f"{kind} {obj}".strip()


def events_str(step: Step) -> str:
    return "; ".join(label(e.kind, e.obj) for e in step.events) or "none"


def inv_str(step: Step) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(step.inventory_dict.items())) or "none"


ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"], 5: ["fifth", "5th"]}
SUBJ = ["I", "we", "you", "the agent", AGENT, "it"]

# past / base phrases, {o} = object
PHRASES = {
    "enter room": (["entered the {o}", "went into the {o}", "walked into the {o}"],
                   ["enter the {o}", "go into the {o}", "walk into the {o}"]),
    "open door": (["opened the door to the {o}", "opened the {o} door"], ["open the door to the {o}"]),
    "close door": (["closed the door to the {o}"], ["close the door to the {o}"]),
    "open": (["opened the {o}"], ["open the {o}"]),
    "close": (["closed the {o}", "shut the {o}"], ["close the {o}", "shut the {o}"]),
    "pick up": (["picked up the {o}", "took the {o}", "grabbed the {o}"], ["pick up the {o}", "take the {o}", "grab the {o}"]),
    "put down": (["put down the {o}", "dropped the {o}", "set down the {o}"], ["put down the {o}", "drop the {o}"]),
    "move": (["moved the {o} into something", "transferred the {o}"], ["move the {o} somewhere", "transfer the {o}"]),
    "pour": (["poured out the {o}", "emptied the {o} into something"], ["pour out the {o}", "empty the {o}"]),
    "turn on": (["turned on the {o}", "switched on the {o}", "activated the {o}"], ["turn on the {o}", "switch on the {o}"]),
    "turn off": (["turned off the {o}", "switched off the {o}", "deactivated the {o}"], ["turn off the {o}", "switch off the {o}"]),
    "focus on": (["focused on the {o}", "put the focus on the {o}"], ["focus on the {o}"]),
    "measure temperature": (["measured the temperature of the {o}", "took the temperature of the {o}",
                             "used the thermometer on the {o}"],
                            ["measure the temperature of the {o}", "take the {o}'s temperature"]),
    "examine": (["examined the {o}", "looked at the {o}", "inspected the {o}"], ["examine the {o}", "inspect the {o}"]),
    "read": (["read the {o}"], ["read the {o}"]),
    "mix": (["mixed the {o}", "mixed the contents of the {o}"], ["mix the {o}"]),
    "wait": (["waited", "idled for a tick", "waited a moment"], ["wait", "pause"]),
    "look around": (["looked around", "surveyed the room"], ["look around", "survey the surroundings"]),
    "check inventory": (["checked the inventory", "checked what was being carried"], ["check the inventory"]),
    "check task": (["checked the task description", "reread the task description"], ["check the task description"]),
    "start task": (["started the {o} task", "began the {o} task"], ["start the {o} task", "begin the {o} task"]),
    "complete task": (["completed the {o} task", "finished the {o} task"], ["complete the {o} task", "finish the {o} task"]),
    "score increase": (["saw the score go up", "gained points"], ["gain points"]),
    "unrecognized command": (["issued a command the simulator did not recognize"], ["issue an unrecognized command"]),
    "pick option": (["picked a numbered option"], ["pick a numbered option"]),
}


def past(kind: str, obj: str, rng: random.Random) -> str:
    opts = PHRASES.get(kind, ([kind + " {o}"], [kind + " {o}"]))[0]
    return rng.choice(opts).format(o=obj).strip()


def base(kind: str, obj: str, rng: random.Random) -> str:
    opts = PHRASES.get(kind, ([kind + " {o}"], [kind + " {o}"]))[1]
    return rng.choice(opts).format(o=obj).strip()


class Ref:
    """Plain scans over the records."""

    def __init__(self, ep: str, steps: list[Step]):
        self.ep = ep
        self.steps = steps
        self.n = len(steps)
        self.occ: dict[tuple[str, str], list[int]] = {}
        self.kind_occ: dict[str, list[int]] = {}
        for s in steps:
            for e in s.events:
                self.occ.setdefault((e.kind, e.obj), []).append(s.t)
                self.kind_occ.setdefault(e.kind, []).append(s.t)

    def gid(self, *ts) -> list[str]:
        out = []
        for t in ts:
            g = f"{self.ep}:{t}"
            if g not in out:
                out.append(g)
        return out

    def times(self, key, lo=0, hi=None) -> list[int]:
        """Occurrence steps of (kind, obj) or kind (obj None) within lo..hi inclusive."""
        hi = self.n - 1 if hi is None else hi
        kind, obj = key
        src = self.kind_occ.get(kind, []) if obj is None else self.occ.get((kind, obj), [])
        return [t for t in src if lo <= t <= hi]

    def slot(self, t: int, slot: str, extra: str = "") -> str:
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "location":
            return s.location.region
        if slot == "inventory":
            return inv_str(s)
        if slot == "item":
            return str(s.inventory_dict.get(extra, 0))
        if slot == "state":
            return fmt(s.state_dict[extra])
        if slot == "events":
            return events_str(s)
        if slot == "step":
            return str(t)
        raise ValueError(slot)


# --------------------------------------------------------------------------------------------------
# Question generation
# --------------------------------------------------------------------------------------------------


def _what(slot: str, extra: str, rng: random.Random) -> str:
    """A noun phrase asking for a slot."""
    if slot == "action":
        return rng.choice(["what action did {s} take", "what command did {s} issue", "what did {s} do"])
    if slot == "location":
        return rng.choice(["which room {was} {s} in", "where {was} {s}", "what room {was} {s} in"])
    if slot == "inventory":
        return rng.choice(["what {was} {s} carrying", "what was in {p} inventory", "what did {s} hold"])
    if slot == "item":
        return rng.choice([f"what count of {extra} did {{s}} hold", f"how many of the item '{extra}' were in {{p}} inventory"])
    if slot == "state":
        return {
            "score": rng.choice(["what was the score", "what score did the simulator report"]),
            "last temperature": rng.choice(["what was the last thermometer reading", "what temperature had the thermometer last shown"]),
            "task": rng.choice(["which task {was} {s} working on", "what was the current task"]),
            "task done": rng.choice(["was the current task marked done", "was the task-done flag set"]),
            "tasks completed": rng.choice(["how many tasks had {s} completed", "what was the completed-task tally"]),
            "moves": rng.choice(["what did the simulator's move counter read", "what was the move count"]),
            "focus": rng.choice(["what {was} {s} focused on", "what was the focus target"]),
        }[extra]
    if slot == "events":
        return rng.choice(["what events were recorded", "what happened", "which events occurred"])
    if slot == "step":
        return rng.choice(["at which step", "what step was it"])
    raise ValueError(slot)


POSSESSIVE = {"I": "my", "we": "our", "you": "your", "the agent": "the agent's", AGENT: AGENT + "'s", "it": "its"}


def _fill(text: str, subj: str) -> str:
    out = text.replace("{was}", "were" if subj in ("we", "you") else "was")
    out = out.replace("{s}", subj).replace("{p}", POSSESSIVE[subj])
    return out[0].upper() + out[1:]


class Gen:
    def __init__(self, ep: str, steps: list[Step], rng: random.Random):
        self.ref = Ref(ep, steps)
        self.rng = rng
        self.steps = steps
        self.n = len(steps)
        self.qs: list[dict] = []
        self.seen: set[str] = set()
        # labels (kind, obj) with counts, in deterministic order
        self.labels = sorted(self.ref.occ, key=lambda k: (k[0], k[1]))
        self.interesting = [k for k in self.labels if k[0] not in ("look around", "check inventory", "check task", "score increase", "unrecognized command", "pick option")]

    def add(self, family: str, slot: str, question: str, answer: str, gold: list[str]) -> bool:
        if question in self.seen:
            return False
        self.seen.add(question)
        self.qs.append({"episode": self.ref.ep, "family": family, "slot": slot, "question": question,
                        "answer": answer, "gold": gold})
        return True

    def subj(self) -> str:
        return self.rng.choice(SUBJ)

    def pick_label(self, min_count=1, pool=None):
        pool = pool or self.interesting
        cands = [k for k in pool if len(self.ref.occ[k]) >= min_count]
        return cands[self.rng.randrange(len(cands))] if cands else None

    def rand_slot(self, t: int, allow_item=True):
        """A slot and its extra for step t."""
        s = self.steps[t]
        choices = ["action", "location", "inventory", "state", "events"]
        if allow_item and s.inventory_dict:
            choices.append("item")
        slot = self.rng.choice(choices)
        extra = ""
        if slot == "item":
            extra = self.rng.choice(sorted(s.inventory_dict))
        elif slot == "state":
            extra = self.rng.choice([k for k in ("score", "last temperature", "task", "tasks completed", "focus", "moves", "task done") if k in s.state_dict])
        return slot, extra

    def ask(self, family, slot, extra, t, lead, subj, gold_ts):
        """lead: a clause like 'at step 5' / 'three steps after ...'."""
        what = _what(slot, extra, self.rng)
        if self.rng.random() < 0.5:
            q = f"{what} {lead}?"
        else:
            q = f"{lead[0].upper() + lead[1:]}, {what}?"
        q = _fill(q, subj)
        return self.add(family, slot, q, self.ref.slot(t, slot, extra), self.ref.gid(*gold_ts))

    # ---------------------------------------------------------------- families
    def f1(self):
        fam = "1_step_index"
        rng = self.rng
        # one-offs
        t = rng.randrange(self.n)
        self.add(fam, "action", f"Step {t}: what exactly did {AGENT} type into the simulator?", self.ref.slot(t, "action"), self.ref.gid(t))
        t = rng.randrange(self.n)
        self.add(fam, "inventory", f"Give me the full inventory as it stood once step {t} had finished.", self.ref.slot(t, "inventory"), self.ref.gid(t))
        withtemp = [s.t for s in self.steps if "last temperature" in s.state_dict]
        if withtemp:
            t = rng.choice(withtemp)
            self.add(fam, "state", f"Right after step {t}, which temperature did the thermometer last report?", self.ref.slot(t, "state", "last temperature"), self.ref.gid(t))
        tries = 0
        while sum(q["family"] == fam for q in self.qs) < 6 and tries < 50:
            tries += 1
            t = rng.randrange(self.n)
            slot, extra = self.rand_slot(t)
            lead = rng.choice([f"at step {t}", f"after step {t}", f"as of step {t}", f"on step {t}"])
            self.ask(fam, slot, extra, t, lead, self.subj(), [t])

    def f2(self):
        fam = "2_nth_occurrence"
        rng = self.rng
        key = self.pick_label(3)
        if key:
            ts = self.ref.occ[key]
            self.add(fam, "step", f"Counting from the start, on which step did {AGENT} {base(*key, rng)} for the third time?", str(ts[2]), self.ref.gid(ts[2]))
        key = self.pick_label(2)
        if key:
            ts = self.ref.occ[key]
            self.add(fam, "location", f"Where was I the last time I {past(*key, rng)}?", self.ref.slot(ts[-1], "location"), self.ref.gid(ts[-1]))
        tries = 0
        while sum(q["family"] == fam for q in self.qs) < 6 and tries < 60:
            tries += 1
            key = self.pick_label(2)
            if not key:
                break
            ts = self.ref.occ[key]
            mode = rng.choice(["nth", "nth", "last", "second-to-last"])
            if mode == "nth":
                k = rng.randint(1, min(len(ts), 5))
                t = ts[k - 1]
                which = f"the {rng.choice(ORD[k])} time"
            elif mode == "last":
                t = ts[-1]
                which = rng.choice(["the last time", "the most recent time", "the final time"])
            else:
                t = ts[-2]
                which = "the second-to-last time"
            subj = self.subj()
            if rng.random() < 0.5:
                self.add(fam, "step", _fill(f"At which step did {{s}} {base(*key, rng)} {which}?", subj), str(t), self.ref.gid(t))
            else:
                slot, extra = self.rand_slot(t)
                self.ask(fam, slot, extra, t, f"{which} {{s}} {past(*key, rng)}", subj, [t])

    def f3(self):
        fam = "3_windowed_occurrence"
        rng = self.rng
        tries = 0
        oneoffs = 0
        while sum(q["family"] == fam for q in self.qs) < 6 and tries < 80:
            tries += 1
            key = self.pick_label(2)
            if not key:
                break
            ts = self.ref.occ[key]
            mode = rng.choice(["after", "before", "between", "firstn", "after_event"])
            subj = self.subj()
            if mode == "after":
                n = rng.randrange(0, ts[-1])
                hits = [t for t in ts if t > n]
                t = hits[0]
                if oneoffs < 2:
                    oneoffs += 1
                    self.add(fam, "step", f"Once step {n} was behind us, when did we next manage to {base(*key, rng)}?", str(t), self.ref.gid(t))
                else:
                    self.add(fam, "step", _fill(f"After step {n}, at which step did {{s}} first {base(*key, rng)}?", subj), str(t), self.ref.gid(t))
            elif mode == "before":
                n = rng.randrange(ts[0] + 1, self.n)
                hits = [t for t in ts if t < n]
                t = hits[-1]
                slot, extra = self.rand_slot(t)
                self.ask(fam, slot, extra, t, f"the last time {{s}} {past(*key, rng)} before step {n}", subj, [t])
            elif mode == "between":
                a = rng.randrange(0, self.n - 20)
                b = a + rng.randint(20, 150)
                hits = [t for t in ts if a <= t <= b]
                if not hits:
                    continue
                t = hits[0]
                self.add(fam, "step", _fill(f"Between steps {a} and {b}, when did {{s}} first {base(*key, rng)}?", subj), str(t), self.ref.gid(t))
            elif mode == "firstn":
                n = rng.randrange(ts[0] + 1, self.n)
                hits = [t for t in ts if t < n]
                t = hits[-1]
                self.add(fam, "step", f"In the first {n} steps, what was the last step where {subj} {past(*key, rng)}?", str(t), self.ref.gid(t))
            else:
                akey = self.pick_label(1)
                at = self.ref.occ[akey][0]
                hits = [t for t in ts if t > at]
                if not hits or akey == key:
                    continue
                t = hits[0]
                if oneoffs < 2:
                    oneoffs += 1
                    self.add(fam, "location", f"I {past(*akey, rng)} at some point; where was I the first time I {past(*key, rng)} after that?", self.ref.slot(t, "location"), self.ref.gid(at, t))
                else:
                    slot, extra = self.rand_slot(t)
                    self.ask(fam, slot, extra, t, f"the first time {{s}} {past(*key, rng)} after {{s}} first {past(*akey, rng)}", subj, [at, t])

    def _conditions(self):
        """(description, predicate over step, transition?) candidates."""
        rng = self.rng
        conds = []
        scores = sorted({s.state_dict["score"] for s in self.steps if 0 < s.state_dict["score"] < 100})
        if scores:
            v = rng.choice(scores)
            conds.append((f"the score first reached {v}", lambda s, v=v: s.state_dict["score"] >= v, False))
            conds.append((f"the score was last at least {v}", lambda s, v=v: s.state_dict["score"] >= v, "last"))
        temps = sorted({s.state_dict["last temperature"] for s in self.steps if "last temperature" in s.state_dict})
        if len(temps) >= 2:
            v = rng.choice(temps[:-1])
            conds.append((f"the last thermometer reading first exceeded {fmt(v)} degrees", lambda s, v=v: s.state_dict.get("last temperature", -1e9) > v, False))
        conds.append(("the task-done flag first became true", lambda s: s.state_dict["task done"] is True, True))
        tasks = []
        for s in self.steps:
            if s.state_dict["task"] not in tasks:
                tasks.append(s.state_dict["task"])
        if len(tasks) > 1:
            tk = rng.choice(tasks[1:])
            conds.append((f"the current task became {tk}", lambda s, tk=tk: s.state_dict["task"] == tk, True))
        k = rng.randint(1, max(1, self.steps[-1].state_dict["tasks completed"]))
        conds.append((f"the completed-task tally reached {k}", lambda s, k=k: s.state_dict["tasks completed"] >= k, False))
        items = sorted({name for s in self.steps for name in s.inventory_dict if name != "orange"})
        if items:
            it = rng.choice(items)
            conds.append((f"{{s}} first had the {it} in {{p}} inventory", lambda s, it=it: s.inventory_dict.get(it, 0) >= 1, False))
            conds.append((f"the {it} first disappeared from {{p}} inventory", lambda s, it=it: s.inventory_dict.get(it, 0) == 0, "lost"))
        moves = [s.state_dict["moves"] for s in self.steps]
        v = rng.randint(10, max(11, max(moves) - 1))
        conds.append((f"the simulator's move counter first exceeded {v}", lambda s, v=v: s.state_dict["moves"] > v, False))
        return conds

    def cond_step(self, pred, mode):
        ok = [pred(s) for s in self.steps]
        if mode == "last":
            hits = [i for i, b in enumerate(ok) if b]
            return hits[-1] if hits else None
        if mode in (True, "lost"):
            for i, b in enumerate(ok):
                if b and i > 0 and not ok[i - 1]:
                    return i
            return None
        for i, b in enumerate(ok):
            if b:
                return i
        return None

    def f4(self):
        fam = "4_condition"
        rng = self.rng
        conds = self._conditions()
        rng.shuffle(conds)
        made = 0
        for desc, pred, mode in conds:
            if made >= 6:
                break
            t = self.cond_step(pred, mode)
            if t is None:
                continue
            subj = self.subj()
            d = desc.replace("{s}", subj).replace("{p}", POSSESSIVE[subj])
            if made < 2:
                q = rng.choice([f"Can you tell me the step at which {d}?", f"Which step was it when {d}?"])
                ok = self.add(fam, "step", q, str(t), self.ref.gid(t))
            elif rng.random() < 0.5:
                ok = self.add(fam, "step", f"When {d}, what step was that?", str(t), self.ref.gid(t))
            else:
                slot, extra = self.rand_slot(t)
                ok = self.ask(fam, slot, extra, t, f"at the step where {d}", subj, [t])
            made += bool(ok)

    def f5(self):
        fam = "5_offset"
        rng = self.rng
        tries = 0
        words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
        while sum(q["family"] == fam for q in self.qs) < 6 and tries < 60:
            tries += 1
            k = rng.randint(1, 6)
            kw = rng.choice([words[k], str(k)])
            sign = rng.choice([1, -1])
            mode = rng.choice(["event", "event", "step", "cond"])
            subj = self.subj()
            if mode == "step":
                n = rng.randrange(self.n)
                t = n + sign * k
                if not 0 <= t < self.n:
                    continue
                if k == 1 and sign == 1 and rng.random() < 0.5:
                    lead = f"right after step {n}"
                else:
                    lead = f"{kw} step{'s' if k > 1 else ''} {'after' if sign > 0 else 'before'} step {n}"
                slot, extra = self.rand_slot(t)
                self.ask(fam, slot, extra, t, lead, subj, [t])
            elif mode == "event":
                key = self.pick_label(1)
                at = self.ref.occ[key][0]
                t = at + sign * k
                if not 0 <= t < self.n:
                    continue
                if sum(q["family"] == fam for q in self.qs) < 2:
                    q = f"Take the moment {subj} first {past(*key, rng)} and go {kw} step{'s' if k > 1 else ''} {'forward' if sign > 0 else 'back'}: what was the action there?"
                    q = q[0].upper() + q[1:]
                    self.add(fam, "action", q, self.ref.slot(t, "action"), self.ref.gid(at, t))
                else:
                    slot, extra = self.rand_slot(t)
                    lead = f"{kw} step{'s' if k > 1 else ''} {'after' if sign > 0 else 'before'} {{s}} first {past(*key, rng)}"
                    self.ask(fam, slot, extra, t, lead, subj, [at, t])
            else:
                conds = self._conditions()
                desc, pred, mode2 = conds[rng.randrange(len(conds))]
                at = self.cond_step(pred, mode2)
                if at is None:
                    continue
                t = at + sign * k
                if not 0 <= t < self.n:
                    continue
                d = desc.replace("{s}", subj).replace("{p}", POSSESSIVE[subj])
                slot, extra = self.rand_slot(t)
                lead = f"{kw} step{'s' if k > 1 else ''} {'after' if sign > 0 else 'before'} the step where {d}"
                self.ask(fam, slot, extra, t, lead, subj, [at, t])

    def f6(self):
        fam = "6_next_previous"
        rng = self.rng
        tries = 0
        while sum(q["family"] == fam for q in self.qs) < 6 and tries < 80:
            tries += 1
            key = self.pick_label(1)
            akey = self.pick_label(1)
            if key == akey:
                continue
            ts = self.ref.occ[key]
            direction = rng.choice(["next", "previous"])
            anchor_kind = rng.choice(["event", "step"])
            subj = self.subj()
            if anchor_kind == "event":
                at = self.ref.occ[akey][0] if direction == "next" else self.ref.occ[akey][-1]
                hits = [t for t in ts if t > at] if direction == "next" else [t for t in ts if t < at]
                if not hits:
                    continue
                t = hits[0] if direction == "next" else hits[-1]
                gold = [at, t]
                if direction == "next":
                    anchor = f"{{s}} first {past(*akey, rng)}"
                    lead_q = f"After {anchor}, when did {{s}} next {base(*key, rng)}?"
                else:
                    anchor = f"the last time {{s}} {past(*akey, rng)}"
                    lead_q = f"Looking back from {anchor}, at what step did {{s}} previously {base(*key, rng)}?"
            else:
                at = rng.randrange(self.n)
                hits = [t for t in ts if t > at] if direction == "next" else [t for t in ts if t < at]
                if not hits:
                    continue
                t = hits[0] if direction == "next" else hits[-1]
                gold = [t]
                if direction == "next":
                    lead_q = rng.choice([f"What's the next step after step {at} where {{s}} {past(*key, rng)}?",
                                         f"Following step {at}, when did {{s}} next {base(*key, rng)}?"])
                else:
                    lead_q = rng.choice([f"Before step {at}, when was the previous time {{s}} {past(*key, rng)}?",
                                         f"Prior to step {at}, at which step did {{s}} most recently {base(*key, rng)}?"])
            if rng.random() < 0.35:
                slot, extra = self.rand_slot(t)
                what = _what(slot, extra, rng)
                rel = "next" if direction == "next" else "previous"
                ref = f"step {at}" if anchor_kind == "step" else ("{s} first " + past(*akey, rng) if direction == "next" else "the last time {s} " + past(*akey, rng))
                prep = "after" if direction == "next" else "before"
                q = _fill(f"Thinking of the {rel} time {{s}} {past(*key, rng)} {prep} {ref}: {what}?", subj)
                self.add(fam, slot, q, self.ref.slot(t, slot, extra), self.ref.gid(*gold))
            else:
                self.add(fam, "step", _fill(lead_q, subj), str(t), self.ref.gid(*gold))

    def f7(self):
        fam = "7_count"
        rng = self.rng
        made = 0
        tries = 0
        zero_done = 0
        while made < 6 and tries < 80:
            tries += 1
            subj = self.subj()
            mode = rng.choice(["all", "all", "between", "before", "after_event", "kind", "zero", "never"])
            if zero_done < 2 and made >= 4:
                mode = rng.choice(["zero", "never"])
            if mode in ("all", "between", "before", "after_event", "zero"):
                key = self.pick_label(1)
                ts = self.ref.occ[key]
                if mode == "all":
                    q = rng.choice([f"How many times did {subj} {base(*key, rng)} over the whole episode?",
                                    f"Across the entire run, how often did {subj} {base(*key, rng)}?"])
                    hits, anchors = ts, []
                elif mode == "between":
                    a = rng.randrange(0, self.n - 30)
                    b = a + rng.randint(30, 200)
                    hits, anchors = [t for t in ts if a <= t <= b], []
                    q = f"Between steps {a} and {b}, how many times did {subj} {base(*key, rng)}?"
                elif mode == "before":
                    n = rng.randrange(10, self.n)
                    hits, anchors = [t for t in ts if t < n], []
                    q = f"How many times had {subj} {past(*key, rng)} before step {n}?"
                elif mode == "after_event":
                    akey = self.pick_label(1)
                    if akey == key:
                        continue
                    at = self.ref.occ[akey][0]
                    hits, anchors = [t for t in ts if t > at], [at]
                    q = f"After {subj} first {past(*akey, rng)}, how many times did {subj} {base(*key, rng)}?"
                else:
                    # a window that misses an event which does happen elsewhere
                    gaps = [(ts[i] + 1, ts[i + 1] - 1) for i in range(len(ts) - 1) if ts[i + 1] - ts[i] > 20]
                    if ts[0] > 20:
                        gaps.append((0, ts[0] - 1))
                    if not gaps:
                        continue
                    a, b = gaps[rng.randrange(len(gaps))]
                    hits, anchors = [], []
                    q = f"In the window from step {a} to step {b}, how many times did {subj} {base(*key, rng)}?"
                    zero_done += 1
                gold = self.ref.gid(*(anchors + ([hits[-1]] if hits else [])))
                made += self.add(fam, "count", q[0].upper() + q[1:], str(len(hits)), gold)
            elif mode == "kind":
                kind = rng.choice(sorted(k for k in self.ref.kind_occ if k in ("enter room", "pick up", "examine", "measure temperature", "wait", "focus on", "open")))
                hits = self.ref.kind_occ[kind]
                q = {
                    "enter room": "How many room entries were there in total, counting every room?",
                    "pick up": f"How many things, all told, did {AGENT} pick up (count each pickup)?",
                    "examine": "Counting every object, how many times did the agent examine something?",
                    "measure temperature": "How many thermometer measurements were taken in total?",
                    "wait": "How many times did the agent wait?",
                    "focus on": "How many times did the agent focus on something, whatever it was?",
                    "open": "How many times did we open something other than a door?",
                }[kind]
                made += self.add(fam, "count", q, str(len(hits)), self.ref.gid(hits[-1]))
            else:
                never = [("pick up", "axe"), ("turn on", "lighter"), ("enter room", "bedroom"), ("mix", "bowl"),
                         ("focus on", "picture"), ("read", "book"), ("pour", "glass cup"), ("enter room", "foundry")]
                never = [k for k in never if k not in self.ref.occ]
                if not never:
                    continue
                key = never[rng.randrange(len(never))]
                zero_done += 1
                made += self.add(fam, "count", f"How many times did {subj} {base(*key, rng)}?", "0", [])

    def f8(self):
        fam = "8_order"
        rng = self.rng
        made = 0
        tries = 0
        k1, k2 = self.pick_label(1), self.pick_label(1)
        t1, t2 = self.ref.occ[k1][0], self.ref.occ[k2][0]
        if k1 != k2 and t1 != t2:
            first = label(*k1) if t1 < t2 else label(*k2)
            q = f"Of these two, which did {AGENT} get to first: having {past(*k1, rng)}, or having {past(*k2, rng)}?"
            made += self.add(fam, "which-first", q, first, self.ref.gid(min(t1, t2), max(t1, t2)))
        while made < 6 and tries < 80:
            tries += 1
            k1, k2 = self.pick_label(1), self.pick_label(1)
            if k1 == k2:
                continue
            t1, t2 = self.ref.occ[k1][0], self.ref.occ[k2][0]
            if t1 == t2:
                continue
            subj = self.subj()
            gold = self.ref.gid(min(t1, t2), max(t1, t2))
            if rng.random() < 0.5:
                first = label(*k1) if t1 < t2 else label(*k2)
                q = rng.choice([f"Which came first: {subj} {past(*k1, rng)}, or {subj} {past(*k2, rng)}?",
                                f"Which happened earlier, {label(*k1)} or {label(*k2)}?"])
                made += self.add(fam, "which-first", q[0].upper() + q[1:], first, gold)
            else:
                q = rng.choice([f"Did {subj} {base(*k1, rng)} before {subj} first {past(*k2, rng)}?",
                                f"Was it before {subj} first {past(*k2, rng)} that {subj} {past(*k1, rng)} for the first time?"])
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "yes" if t1 < t2 else "no", gold)

    def f9(self):
        fam = "9_distance"
        rng = self.rng
        made = 0
        tries = 0
        starts = self.ref.kind_occ.get("start task", [])
        if len(starts) >= 3:
            i = rng.randrange(len(starts) - 1)
            a, b = starts[i], starts[i + 1]
            ta, tb = self.steps[a].state_dict["task"], self.steps[b].state_dict["task"]
            q = f"{AGENT} began the {ta} task and, after that, the {tb} task. How many steps apart were those two starts?"
            made += self.add(fam, "duration", q, str(b - a), self.ref.gid(a, b))
        while made < 6 and tries < 80:
            tries += 1
            subj = self.subj()
            mode = rng.choice(["two", "two", "step", "nth"])
            if mode == "two":
                k1, k2 = self.pick_label(1), self.pick_label(1)
                if k1 == k2:
                    continue
                t1, t2 = self.ref.occ[k1][0], self.ref.occ[k2][0]
                q = rng.choice([f"How many steps passed between the first time {subj} {past(*k1, rng)} and the first time {subj} {past(*k2, rng)}?",
                                f"From the moment {subj} first {past(*k1, rng)} to the moment {subj} first {past(*k2, rng)}, how many steps?"])
            elif mode == "step":
                k1 = self.pick_label(1)
                t1 = self.ref.occ[k1][0]
                t2 = rng.randrange(self.n)
                q = f"How far, in steps, was step {t2} from the first time {subj} {past(*k1, rng)}?"
            else:
                k1 = self.pick_label(2)
                if not k1:
                    continue
                t1, t2 = self.ref.occ[k1][0], self.ref.occ[k1][1]
                q = f"How many steps separated the first and second times {subj} {past(*k1, rng)}?"
            made += self.add(fam, "duration", q[0].upper() + q[1:], str(abs(t1 - t2)), self.ref.gid(min(t1, t2), max(t1, t2)))

    def f10(self):
        fam = "10_existence"
        rng = self.rng
        made = 0
        tries = 0
        plan = ["yes", "before_no", "after_yes", "never", "event_no", "yes_before"]
        rng.shuffle(plan)
        done_tasks = [(t, e.obj) for t in self.ref.kind_occ.get("complete task", []) for e in self.steps[t].events
                      if e.kind == "complete task"]
        if done_tasks:
            t, task = done_tasks[rng.randrange(len(done_tasks))]
            q = f"Was the {task} task ever actually brought to completion?"
            made += self.add(fam, "yes/no", q, "yes", self.ref.gid(t))
            plan = plan[1:]
        while made < 6 and tries < 100:
            mode = plan[made % len(plan)] if tries < 60 else rng.choice(["yes", "never"])
            tries += 1
            subj = self.subj()
            key = self.pick_label(1)
            ts = self.ref.occ[key]
            if mode == "yes":
                q = rng.choice([f"Did {subj} ever {base(*key, rng)}?", f"At any point, did {subj} {base(*key, rng)}?"])
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "yes", self.ref.gid(ts[0]))
            elif mode == "yes_before":
                n = rng.randrange(1, self.n)
                hits = [t for t in ts if t < n]
                q = f"Before step {n}, had {subj} {past(*key, rng)}?"
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "yes" if hits else "no", self.ref.gid(hits[0]) if hits else [])
            elif mode == "before_no":
                if ts[0] < 5:
                    continue
                n = rng.randint(1, ts[0])
                q = f"Is there any sign that {subj} {past(*key, rng)} before step {n}?"
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "no", [])
            elif mode == "after_yes":
                n = rng.randrange(0, self.n)
                hits = [t for t in ts if t > n]
                q = f"After step {n}, did {subj} {base(*key, rng)} at all?"
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "yes" if hits else "no", self.ref.gid(hits[0]) if hits else [])
            elif mode == "event_no":
                akey = self.pick_label(1)
                at = self.ref.occ[akey][-1]
                hits = [t for t in ts if t > at]
                if akey == key or hits:
                    continue
                q = f"After the last time {subj} {past(*akey, rng)}, did {subj} {base(*key, rng)} at any point afterwards?"
                made += self.add(fam, "yes/no", q[0].upper() + q[1:], "no", [])
            else:
                never = [("pick up", "axe"), ("turn on", "lighter"), ("enter room", "bedroom"), ("mix", "bowl"),
                         ("focus on", "picture"), ("read", "book"), ("close door", "kitchen"), ("enter room", "foundry"),
                         ("put down", "thermometer"), ("turn off", "stove")]
                never = [k for k in never if k not in self.ref.occ]
                if not never:
                    continue
                key = never[rng.randrange(len(never))]
                made += self.add(fam, "yes/no", f"Did {subj} ever {base(*key, rng)}?", "no", [])


def make_questions(ep: str, steps: list[Step], seed: int) -> list[dict]:
    gen = Gen(ep, steps, random.Random(seed * 31 + 5))
    for f in (gen.f1, gen.f2, gen.f3, gen.f4, gen.f5, gen.f6, gen.f7, gen.f8, gen.f9, gen.f10):
        f()
    return gen.qs


def build(seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="s7sci_") as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)  # anything the simulator writes lands here
        try:
            steps = _episode(seed)
        finally:
            os.chdir(cwd)
    ep = f"{SUITE}_{seed}"
    validate_steps(steps, ep)
    return {"episodes": {ep: steps}, "questions": make_questions(ep, steps, seed)}


# --------------------------------------------------------------------------------------------------
# Self-check
# --------------------------------------------------------------------------------------------------


def _digest(data: dict) -> str:
    parts = []
    for ep, steps in sorted(data["episodes"].items()):
        parts.append(ep)
        parts.extend(repr(s) for s in steps)
    parts.append(json.dumps(data["questions"], sort_keys=True))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _main(argv: list[str]) -> None:
    if argv and argv[0] == "--digest":
        print(_digest(build(int(argv[1]))))
        return
    seeds = [int(a) for a in argv] or list(SEED_RANGE)[:2]
    for seed in seeds:
        t0 = time.time()
        data = build(seed)
        took = time.time() - t0
        digest = _digest(data)
        other = subprocess.run([sys.executable, os.path.abspath(__file__), "--digest", str(seed)],
                               capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        assert other == digest, f"seed {seed}: not deterministic across processes"
        (ep, steps), = data["episodes"].items()
        validate_steps(steps, ep)
        qs = data["questions"]
        print(f"== seed {seed}: {len(steps)} steps, {len(qs)} questions, build {took:.1f}s, deterministic across processes")
        tasks = []
        for s in steps:
            if s.state_dict["task"] not in tasks:
                tasks.append(s.state_dict["task"])
        print("tasks:", ", ".join(tasks))
        fam = Counter(q["family"] for q in qs)
        print("families:", dict(sorted(fam.items(), key=lambda kv: int(kv[0].split("_")[0]))))
        print("slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(sorted(kinds.items())))
        assert len(qs) == 60 and all(v == 6 for v in fam.values()) and len(fam) == 10, fam
        assert 300 <= len(steps) <= 1500
        rng = random.Random(seed)
        for q in rng.sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']}  gold={q['gold']}")


if __name__ == "__main__":
    _main(sys.argv[1:])
