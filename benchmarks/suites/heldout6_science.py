"""Held-out suite 6 (ScienceWorld): genetics and find-a-thing tasks played back to back.

The agent ("Ada") plays one long ScienceWorld episode per seed in the real Java simulator: it chains a
Mendelian-genetics task on a known plant, one on an unknown plant and three find-a-thing tasks
(animal / plant / living thing / non-living thing), in a seeded order and with seeded variations.  The
actions of each task come from the simulator's own gold action sequence, interleaved with detours of the
agent's own: looking around, checking the inventory, examining things, teleporting to another room and
back, picking up a spare tool and dropping it again, and commands the simulator refuses (recorded as
failures).  The adapter turns every command and its observation into a ``Step``; 60 questions per seed
are answered by a plain scan over those steps.

Determinism: one fresh JVM per build, started with ``-XX:hashCode=2`` so that object hashes (and the
simulator's hash-ordered collections) are identical in every process.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import random
import re
import sys
import time
from collections import Counter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout6_science"
SEED_RANGE = range(8700, 8800)
AGENT = "Ada"

JAVA_OPTS = ["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2"]

GENETICS = ["mendelian-genetics-known-plant", "mendelian-genetics-unknown-plant"]
FINDERS = ["find-animal", "find-plant", "find-living-thing", "find-non-living-thing"]
TASK_LABEL = {
    "mendelian-genetics-known-plant": "known-plant genetics",
    "mendelian-genetics-unknown-plant": "unknown-plant genetics",
    "find-animal": "find-an-animal",
    "find-plant": "find-a-plant",
    "find-living-thing": "find-a-living-thing",
    "find-non-living-thing": "find-a-non-living-thing",
}

#: Our own map of the house (ScienceWorld has no coordinates).
ROOM_XY = {
    "hallway": (0, 0), "kitchen": (1, 0), "bathroom": (2, 0), "living room": (-1, 0),
    "bedroom": (0, -1), "art studio": (-1, -1), "greenhouse": (0, 1), "outside": (1, 1),
    "workshop": (-1, 1), "foundry": (2, 1),
}
ROOMS = sorted(ROOM_XY)
SPARE_TOOLS = ["axe", "shovel", "thermometer", "ceramic cup", "glass cup", "lighter", "bowl", "book",
               "metal pot", "tin cup", "glass jar", "wood cup", "paper", "key"]
BAD_COMMANDS = ["eat the sky", "xyzzy", "climb the wall", "go to the moon", "dance with the agent",
                "sing loudly", "take a nap on the ceiling", "fly to the roof", "throw the house", "jump"]


# ------------------------------------------------------------------------------------------------
# Simulator
# ------------------------------------------------------------------------------------------------

def _start_env():
    import scienceworld.scienceworld as sw

    original = sw.launch_gateway
    sw.launch_gateway = functools.partial(original, javaopts=list(JAVA_OPTS))
    try:
        env = sw.ScienceWorldEnv("", envStepLimit=10**7)
    finally:
        sw.launch_gateway = original
    return env


_ARTICLE = re.compile(r"^(?:a|an|the)\s+")


def _clean_name(text: str) -> str:
    text = text.strip()
    text = re.sub(r"^substance called ", "", _ARTICLE.sub("", text.lower()))
    text = _ARTICLE.sub("", text)
    text = re.sub(r"^substance called ", "", text)
    text = re.split(r" \(|\. |, which ", text)[0]
    return " ".join(text.rstrip(".").split())


def _room_of(look: str) -> str:
    m = re.search(r"called the ([a-z ]+?)\.", look)
    return m.group(1) if m else ""


def _look_objects(look: str) -> list[str]:
    out: list[str] = []
    section_doors = False
    for line in look.split("\n"):
        if line.startswith("You also see"):
            section_doors = True
            continue
        if not line.startswith("\t"):
            continue
        raw = line.strip()
        if section_doors:
            m = re.match(r"A door to the ([a-z ]+?) \(", raw)
            if m:
                out.append("door to " + m.group(1))
            continue
        name = _clean_name(raw)
        if name and name not in ("agent", "air") and name not in out:
            out.append(name)
    return out


def _inventory(inv_text: str) -> dict[str, int]:
    items: Counter = Counter()
    for line in inv_text.split("\n"):
        if not line.startswith("\t"):
            continue
        raw = line.strip()
        name = _clean_name(raw)
        if not name:
            continue
        items[name] += 1
        if name == "seed jar":
            m = re.search(r"\(containing (.*)\)\s*$", raw)
            if m and m.group(1) != "nothing":
                for part in m.group(1).split(", "):
                    seed = _clean_name(part)
                    if seed.endswith("seed"):
                        items[seed] += 1
    return dict(sorted(items.items()))


def _bees(look: str) -> int:
    return len(re.findall(r"\ta adult bee\n", look))


def _plants(look: str) -> int:
    return len(re.findall(r"\(containing [^\n]*?(?<!dead )(?:plant|tree) in the [a-z]+ stage", look))


_POT_STAGE = re.compile(r"flower pot (\d+) \(containing [^\n]*? in the ([a-z]+) stage")


class Player:
    """Runs the tasks and writes one Step per command."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 13)
        self.env = _start_env()
        self.steps: list[Step] = []
        self.task = ""
        self.task_done = False
        self.tasks_completed = 0
        self.last_score = 0
        self.pending_start = False
        self.bees_prev = 0
        self.sown: set[str] = set()
        self.pot_stage: dict[str, str] = {}

    # -- one command ------------------------------------------------------------------------------
    def do(self, action: str) -> str:
        server = self.env.server
        before_room = _room_of(server.freeActionLook())
        obs = str(server.step(action))
        score = round(100 * float(server.getScore()))
        completed = bool(server.getCompleted())
        look = str(server.freeActionLook())
        inv_text = str(server.freeActionInventory())
        room = _room_of(look)
        inv = _inventory(inv_text)
        events = self._events(action, obs, before_room, room, look)
        if score > self.last_score:
            events.append(Event("gain points", self.task, score - self.last_score))
        if score < 0 <= self.last_score:
            events.append(Event("fail task", self.task))
        self.last_score = score
        if completed and not self.task_done:
            self.task_done = True
            self.tasks_completed += 1
            events.append(Event("complete task", self.task))
        bees = _bees(look)
        state = {
            "score": score,
            "task": self.task,
            "task done": self.task_done,
            "tasks completed": self.tasks_completed,
            "bees in room": bees,
            "plants in room": _plants(look),
        }
        objects = tuple(_look_objects(look)[:30])
        relations = [Relation("agent", "in", room or "unknown")]
        for name in inv:
            if not name.endswith(" seed"):
                relations.append(Relation("agent", "holding", name))
        m = re.match(r"You focus on the (.+?)\.", obs)
        if m:
            relations.append(Relation("agent", "focused on", _clean_name(m.group(1))))
        pos = ROOM_XY.get(room)
        step = Step(
            t=len(self.steps),
            action=action,
            summary=f"{AGENT} ({TASK_LABEL.get(self.task, self.task)}): {action}",
            objects=objects,
            events=tuple(events),
            relations=tuple(relations),
            inventory=inv,
            state=state,
            location=Location(position=pos, region=room),
            observation=obs.strip(),
        )
        self.steps.append(step)
        return obs

    def _events(self, action: str, obs: str, before_room: str, room: str, look: str) -> list[Event]:
        ev: list[Event] = []
        if self.pending_start:
            ev.append(Event("start task", self.task))
            self.pending_start = False
        o = obs.strip()
        a = action.strip().lower()
        if o.startswith("Ambiguous request"):
            ev.append(Event("ambiguous command"))
            return ev
        if o.startswith(("No known action matches", "Unknown action")):
            ev.append(Event("action failed", a.split()[0] if a.split() else ""))
            return ev
        if a.isdigit():
            ev.append(Event("choose option", a))
        m = re.match(r"You move to the ([a-z ]+)\.", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("walk to", m.group(1)))
        m = re.match(r"You teleport to the ([a-z ]+)\.", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("teleport to", m.group(1)))
        m = re.match(r"The (door|[a-z ]+?) is now (open|closed)\.", o.lower(), re.IGNORECASE)
        if m:
            thing = m.group(1)
            if thing == "door":
                dm = re.match(r"(?:open|close) door to ([a-z ]+)", a)
                thing = "door to " + dm.group(1) if dm else "door"
            ev.append(Event("open" if m.group(2) == "open" else "close", thing))
        m = re.match(r"The (door|[a-z ]+?) is already (open|closed)\.", o.lower(), re.IGNORECASE)
        if m:
            thing = m.group(1)
            if thing == "door":
                dm = re.match(r"(?:open|close) door to ([a-z ]+)", a)
                thing = "door to " + dm.group(1) if dm else "door"
            ev.append(Event("already " + m.group(2), thing))
        m = re.match(r"The ([a-z ]+?) is now (activated|deactivated)\.", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("turn on" if m.group(2) == "activated" else "turn off", m.group(1)))
        m = re.match(r"You move the ([a-z0-9 ]+?) to the ([a-z0-9 ]+?)\.", o.lower(), re.IGNORECASE)
        if m:
            what, where = m.group(1), m.group(2)
            if where == "inventory":
                ev.append(Event("pick up", what))
            elif a.startswith("drop"):
                ev.append(Event("drop", what))
            elif where.startswith("flower pot") and what.endswith("seed"):
                ev.append(Event("plant seed", where))
                self.sown.add(where)
            elif what == "jug" and where == "sink":
                ev.append(Event("fill", "jug"))
            elif where == "seed jar":
                ev.append(Event("harvest seed", what))
            elif where.endswith(" box"):
                ev.append(Event("put in box", where))
            else:
                ev.append(Event("move", what))
        m = re.match(r"You pour the contents of the jug into the ([a-z0-9 ]+?)\.", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("water", m.group(1)))
        m = re.match(r"You decide to wait for (\d+) iteration", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("wait", "", int(m.group(1))))
        m = re.match(r"You focus on the ([a-z0-9 ]+?)\.", o.lower(), re.IGNORECASE)
        if m:
            ev.append(Event("focus on", m.group(1)))
        if o.startswith("In your inventory"):
            ev.append(Event("check inventory"))
        if a == "look around" and (o.startswith(("This room is called", "This outside"))):
            ev.append(Event("look around", room))
            for pot, stage in _POT_STAGE.findall(o):
                pot = "flower pot " + pot
                if pot not in self.sown:
                    continue
                if pot not in self.pot_stage:
                    ev.append(Event("sprout", pot))
                elif self.pot_stage[pot] != stage:
                    ev.append(Event("plant grows", pot))
                self.pot_stage[pot] = stage
            bees = _bees(o)
            if bees and not self.bees_prev:
                ev.append(Event("see bees"))
            self.bees_prev = bees
        if a.startswith("look at ") and not o.startswith("This room") and not ev:
            ev.append(Event("examine", _clean_name(a[len("look at "):])))
        if a == "task" and o.startswith("Task description"):
            ev.append(Event("read task"))
        return ev

    # -- detours ------------------------------------------------------------------------------------
    # Looking around, the inventory, the task text and refused commands take no simulated time; every
    # other command advances the world by one tick and "wait1" by two.  The gold sequences are timed
    # (plants must be watered, bees must pollinate), so detours that take time only ever stand in for
    # a gold "wait1" with exactly its two ticks, or come after the task is finished.
    def _resolve(self, obs: str) -> str:
        if obs.strip().startswith("Ambiguous request"):
            return self.do("0")
        return obs

    def _moves(self) -> int:
        return int(self.env.server.getNumMoves())

    def _here(self):
        look = str(self.env.server.freeActionLook())
        return _room_of(look), [o for o in _look_objects(look) if not o.startswith("door to")]

    def free_detour(self) -> None:
        roll = self.rng.random()
        if roll < 0.45:
            self.do("look around")
        elif roll < 0.75:
            self.do("inventory")
        elif roll < 0.85:
            self.do("task")
        else:
            self.do(self.rng.choice(BAD_COMMANDS))

    def timed_detour(self, remaining_gold: list[str]) -> None:
        """Stand in for one "wait1": spend exactly two ticks on something else."""
        rng = self.rng
        start = self._moves()
        room, objs = self._here()
        mentioned = " ".join(remaining_gold).lower()
        tools = [o for o in objs if o in SPARE_TOOLS and o not in mentioned]
        roll = rng.random()
        if roll < 0.45:
            dest = rng.choice([r for r in ROOMS if r != room])
            obs = self.do("teleport to " + dest)
            if obs.strip().startswith("You teleport"):
                if rng.random() < 0.5:
                    self.do("look around")
                self.do("teleport to " + room)
        elif roll < 0.75 and tools:
            tool = rng.choice(tools)
            obs = self._resolve(self.do("pick up " + tool))
            if "to the inventory" in obs:
                if rng.random() < 0.4:
                    self.do("inventory")
                self._resolve(self.do("drop " + tool))
        else:
            for _ in range(2):
                if objs and self._moves() - start < 2:
                    self._resolve(self.do("look at " + rng.choice(objs)))
        guard = 0
        while self._moves() - start < 2 and guard < 4:
            guard += 1
            if self._moves() - start == 0:
                self.do("wait1")
            elif objs:
                self._resolve(self.do("look at " + rng.choice(objs)))

    def lap(self) -> None:
        """After a task is over: wander a little (anything goes now)."""
        rng = self.rng
        for _ in range(rng.randint(1, 4)):
            room, objs = self._here()
            roll = rng.random()
            if roll < 0.35:
                obs = self.do("teleport to " + rng.choice([r for r in ROOMS if r != room]))
                if obs.strip().startswith("You teleport") and rng.random() < 0.6:
                    self.do("look around")
            elif roll < 0.55:
                tools = [o for o in objs if o in SPARE_TOOLS]
                if tools:
                    tool = rng.choice(tools)
                    if "to the inventory" in self._resolve(self.do("pick up " + tool)) and rng.random() < 0.7:
                        self._resolve(self.do("drop " + tool))
                else:
                    self.do(rng.choice(BAD_COMMANDS))
            elif roll < 0.75 and objs:
                self._resolve(self.do("look at " + rng.choice(objs)))
            elif roll < 0.85:
                self.do("wait1")
            else:
                self.free_detour()

    # -- tasks --------------------------------------------------------------------------------------
    def play(self, task: str, variation: int) -> None:
        self.env.load(task, variation, "teleportAction", generateGoldPath=True)
        gold = [str(g) for g in self.env.get_gold_action_sequence()]
        self.task = task
        self.task_done = False
        self.last_score = 0
        self.pending_start = True
        self.bees_prev = 0
        self.sown = set()
        self.pot_stage = {}
        genetics = task in GENETICS
        rate = 0.10 if genetics else 0.35
        self.do("look around")
        last_obs = ""
        for i, action in enumerate(gold):
            if action == "wait1" and genetics and self.rng.random() < 0.3:
                self.timed_detour(gold[i + 1:])
                last_obs = ""
                continue
            if (not action.strip().isdigit() and not last_obs.strip().startswith("Ambiguous request")
                    and self.rng.random() < rate):
                self.free_detour()
            last_obs = self.do(action)
        if self.rng.random() < 0.85:
            self.lap()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the simulator may already be gone
            self.env.close()


def run_episode(seed: int) -> list[Step]:
    rng = random.Random(seed)
    genetics = [(t, rng.randrange(120 if "known-plant" in t and "unknown" not in t else 480)) for t in GENETICS]
    finders = rng.sample(FINDERS, 3)
    plan = [(t, rng.randrange(300)) for t in finders] + genetics
    rng.shuffle(plan)
    player = Player(seed)
    try:
        for task, variation in plan:
            player.play(task, variation)
    finally:
        player.close()
    return player.steps


# ------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the steps
# ------------------------------------------------------------------------------------------------

def label(kind: str, obj: str) -> str:
    return f"{kind} {obj}" if obj else kind


def fmt_scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def fmt_inventory(step: Step) -> str:
    inv = step.inventory_dict
    if not inv:
        return "none"
    return ", ".join(f"{k} {v}" for k, v in sorted(inv.items()))


def fmt_events(step: Step) -> str:
    if not step.events:
        return "none"
    return "; ".join(label(e.kind, e.obj) for e in step.events)


def slot_value(step: Step, slot: str, arg: str = "") -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region or (f"{step.location.position[0]},{step.location.position[1]}")
    if slot == "position":
        p = step.location.position
        return f"{p[0]},{p[1]}"
    if slot == "inventory":
        return fmt_inventory(step)
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "state":
        return fmt_scalar(step.state_dict[arg])
    if slot == "events":
        return fmt_events(step)
    raise ValueError(slot)


def matches(ev: Event, kind: str, obj: str | None) -> bool:
    return ev.kind == kind and (obj is None or ev.obj == obj)


def occurrences(steps: list[Step], kind: str, obj: str | None, lo: int = 0, hi: int | None = None) -> list[int]:
    hi = len(steps) - 1 if hi is None else hi
    return [s.t for s in steps if lo <= s.t <= hi and any(matches(e, kind, obj) for e in s.events)]


def count_events(steps: list[Step], kind: str, obj: str | None, lo: int = 0, hi: int | None = None) -> tuple[int, list[int]]:
    hi = len(steps) - 1 if hi is None else hi
    n, ts = 0, []
    for s in steps:
        if lo <= s.t <= hi:
            k = sum(1 for e in s.events if matches(e, kind, obj))
            if k:
                n += k
                ts.append(s.t)
    return n, ts


def value_of(step: Step, what: tuple[str, str]):
    src, name = what
    if src == "item":
        return step.inventory_dict.get(name, 0)
    return step.state_dict[name]


def first_meeting(steps, what, pred, transition=False, last=False):
    hits = []
    for s in steps:
        ok = pred(value_of(s, what))
        if transition:
            ok = ok and s.t > 0 and not pred(value_of(steps[s.t - 1], what))
        if ok:
            hits.append(s.t)
    if not hits:
        return None
    return hits[-1] if last else hits[0]


# ------------------------------------------------------------------------------------------------
# Wording
# ------------------------------------------------------------------------------------------------

def disp(kind: str, obj: str) -> str:
    if not obj:
        return ""
    if obj.startswith("door to "):
        return f"the {obj[8:]} door"
    if obj.startswith("flower pot"):
        return obj
    if obj in TASK_LABEL:
        return f"the {TASK_LABEL[obj]} task"
    return "the " + obj


#: (base form, past form) phrasings per event kind; "{o}" is the displayed object.
PHRASES = {
    "water": [("water {o}", "watered {o}"), ("pour water into {o}", "poured water into {o}")],
    "plant seed": [("plant a seed in {o}", "planted a seed in {o}"), ("sow a seed in {o}", "sowed a seed in {o}")],
    "fill": [("fill the jug at the sink", "filled the jug at the sink"), ("refill the jug", "refilled the jug")],
    "turn on": [("turn on {o}", "turned on {o}"), ("switch {o} on", "switched {o} on")],
    "turn off": [("turn off {o}", "turned off {o}"), ("switch {o} off", "switched {o} off")],
    "walk to": [("walk into {o}", "walked into {o}"), ("walk over to {o}", "walked over to {o}")],
    "teleport to": [("teleport to {o}", "teleported to {o}"), ("beam over to {o}", "beamed over to {o}")],
    "pick up": [("pick up {o}", "picked up {o}"), ("grab {o}", "grabbed {o}")],
    "drop": [("drop {o}", "dropped {o}"), ("put down {o}", "put down {o}")],
    "examine": [("examine {o}", "examined {o}"), ("inspect {o}", "inspected {o}")],
    "look around": [("look around {o}", "looked around {o}"), ("survey {o}", "surveyed {o}")],
    "check inventory": [("check the inventory", "checked the inventory"),
                        ("go through the inventory", "went through the inventory")],
    "open": [("open {o}", "opened {o}")],
    "close": [("close {o}", "closed {o}"), ("shut {o}", "shut {o}")],
    "already open": [("try to open {o} while it was already open", "tried to open {o} while it was already open")],
    "already closed": [("try to close {o} while it was already shut", "tried to close {o} while it was already shut")],
    "focus on": [("focus on {o}", "focused on {o}"), ("zero in on {o}", "zeroed in on {o}")],
    "put in box": [("put something into {o}", "put something into {o}"),
                   ("deposit something in {o}", "deposited something in {o}")],
    "harvest seed": [("harvest {o}", "harvested {o}"), ("gather {o} into the seed jar", "gathered {o} into the seed jar")],
    "wait": [("wait", "waited"), ("let time pass", "let time pass")],
    "action failed": [("have a command rejected", "had a command rejected"),
                      ("issue a command the simulator could not parse", "issued a command the simulator could not parse")],
    "ambiguous command": [("get an ambiguous-request prompt", "got an ambiguous-request prompt"),
                          ("get asked to disambiguate a command", "got asked to disambiguate a command")],
    "choose option": [("pick a numbered option from a disambiguation list", "picked a numbered option from a disambiguation list")],
    "start task": [("start {o}", "started {o}"), ("begin {o}", "began {o}")],
    "complete task": [("complete {o}", "completed {o}"), ("finish {o}", "finished {o}")],
    "fail task": [("fail {o}", "failed {o}"), ("blow {o}", "blew {o}")],
    "gain points": [("gain points in {o}", "gained points in {o}"), ("raise the score in {o}", "raised the score in {o}")],
    "see bees": [("see bees appear", "saw bees appear"), ("spot bees buzzing around", "spotted bees buzzing around")],
    "sprout": [("see a plant come up in {o}", "saw a plant come up in {o}")],
    "plant grows": [("see the plant in {o} reach a new life stage", "saw the plant in {o} reach a new life stage")],
    "read task": [("reread the task description", "reread the task description")],
    "move": [("move {o} somewhere", "moved {o} somewhere")],
}
#: Kinds for which a phrase without object is allowed (pattern obj None).
ANY_OBJ = {"water": "a flower pot", "plant seed": "a flower pot", "walk to": "a room", "teleport to": "a room",
           "pick up": "something", "drop": "something", "examine": "something", "focus on": "something",
           "put in box": "a box", "open": "something", "look around": "a room", "harvest seed": "a seed",
           "action failed": "", "wait": "", "fill": "", "check inventory": "", "ambiguous command": "",
           "choose option": "", "see bees": "", "read task": "", "gain points": "a task",
           "complete task": "a task", "start task": "a task", "sprout": "a flower pot", "close": "something"}
OBJLESS = {"action failed", "wait", "fill", "check inventory", "ambiguous command", "choose option",
           "see bees", "read task"}

SUBJECTS = [("I", "my"), ("we", "our"), ("you", "your"), ("the agent", "its"), ("it", "its"), (AGENT, "her")]
ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"], 5: ["fifth", "5th"],
       6: ["sixth", "6th"]}


class Words:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def phrase(self, kind: str, obj: str | None, form: int) -> str:
        base, past = self.pick(PHRASES[kind])
        text = base if form == 0 else past
        if obj is None:
            o = ANY_OBJ.get(kind, "something")
        else:
            o = disp(kind, obj)
        return " ".join(text.replace("{o}", o).split())

    def subj(self):
        return self.pick(SUBJECTS)

    def ordinal(self, n: int) -> str:
        return self.pick(ORD[n])


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


SLOT_ASK = {
    "action": ["what command was issued", "which action was taken", "what was the action"],
    "location": ["which room was the agent in", "where was the agent", "what room were we in"],
    "position": ["what were the agent's map coordinates", "what x,y position did the agent have"],
    "inventory": ["what did the inventory hold", "what was being carried"],
    "events": ["what events were logged", "which events were recorded"],
}
STATE_WORDS = {"score": "the task score", "task": "the current task name", "task done": "the task-finished flag",
               "tasks completed": "the number of tasks completed so far", "bees in room": "the number of bees in the room",
               "plants in room": "the count of living plants in the room"}


def ask_slot(w: Words, slot: str, arg: str = "") -> str:
    if slot == "item":
        return w.pick([f"how many of the item '{arg}' were in the inventory", f"what was the inventory count of '{arg}'"])
    if slot == "state":
        return w.pick([f"what was {STATE_WORDS[arg]}", f"what value did {STATE_WORDS[arg]} have"])
    if slot == "step":
        return "at which step"
    return w.pick(SLOT_ASK[slot])


# ------------------------------------------------------------------------------------------------
# Question generation
# ------------------------------------------------------------------------------------------------

class Gen:
    def __init__(self, steps: list[Step], episode: str, seed: int):
        self.steps = steps
        self.ep = episode
        self.n = len(steps)
        self.rng = random.Random(seed * 31 + 5)
        self.w = Words(self.rng)
        self.qs: list[dict] = []
        self.keys: set = set()
        kinds = Counter()
        for s in steps:
            for e in s.events:
                kinds[(e.kind, e.obj)] += 1
        self.pairs = kinds
        by_kind = Counter()
        for (k, o), c in kinds.items():
            by_kind[k] += c
        self.by_kind = by_kind
        self.items = sorted({k for s in steps for k in s.inventory_dict})

    def gid(self, *ts) -> list[str]:
        out = []
        for t in ts:
            if t is None:
                continue
            g = f"{self.ep}:{t}"
            if g not in out:
                out.append(g)
        return out

    def fresh(self, key) -> bool:
        """True the first time ``key`` is seen (so that one episode is not asked the same thing twice)."""
        if key in self.keys:
            return False
        self.keys.add(key)
        return True

    def add(self, family, slot, question, answer, gold):
        self.qs.append({"episode": self.ep, "family": family, "slot": slot, "question": question,
                        "answer": str(answer), "gold": list(gold)})

    # pattern helpers --------------------------------------------------------------------------------
    def patterns(self, min_count=1, max_count=10**9, allow_any=True):
        out = []
        for (k, o), c in sorted(self.pairs.items()):
            if k in ("move",):
                continue
            if k in OBJLESS:
                if o and k != "action failed" and k != "choose option":
                    continue
                pat = (k, None)
                c = self.by_kind[k]
            else:
                if not o:
                    continue
                pat = (k, o)
            if min_count <= c <= max_count and pat not in out:
                out.append(pat)
        if allow_any:
            for k, c in sorted(self.by_kind.items()):
                if (k in ANY_OBJ and k not in OBJLESS and min_count <= c <= max_count and (k, None) not in out
                        and len({o for (kk, o) in self.pairs if kk == k}) > 1):
                    out.append((k, None))
        return out

    def rand_pat(self, min_count=1, max_count=10**9, allow_any=True, exclude=()):
        pats = [p for p in self.patterns(min_count, max_count, allow_any) if p not in exclude]
        return self.w.pick(pats) if pats else None

    def occ(self, pat, lo=0, hi=None):
        return occurrences(self.steps, pat[0], pat[1], lo, hi)

    def ph(self, pat, form):
        return self.w.phrase(pat[0], pat[1], form)

    def pat_label(self, pat) -> str:
        t = self.occ(pat)[0]
        ev = next(e for e in self.steps[t].events if matches(e, *pat))
        return label(ev.kind, ev.obj)

    def rand_step(self, lo=1, hi=None):
        hi = self.n - 2 if hi is None else hi
        return self.rng.randint(lo, hi)

    def rand_slot(self, allow=("action", "location", "position", "inventory", "item", "state", "events")):
        slot = self.w.pick(list(allow))
        arg = ""
        if slot == "item":
            arg = self.w.pick(self.items) if self.items else "orange"
        if slot == "state":
            arg = self.w.pick(["score", "task", "task done", "tasks completed", "bees in room", "plants in room"])
        return slot, arg

    def _one_offs(self, f, fns, k=2):
        """Hand-worded questions: try them in order until ``k`` could be asked of this episode."""
        got = 0
        for fn in fns:
            if got >= k:
                break
            before = len(self.qs)
            try:
                fn(f)
            except (IndexError, StopIteration, TypeError, KeyError, ValueError):
                del self.qs[before:]
                continue
            if len(self.qs) > before:
                got += 1
        return got

    # 1 ----------------------------------------------------------------------------------------------
    def fam1(self):
        f = "1_step_index"
        one_offs = [self._f1_a, self._f1_b, self._f1_c, self._f1_d]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        slots = ["action", "location", "position", "inventory", "item", "state"]
        self.rng.shuffle(slots)
        for i in range(need):
            slot = slots[i]
            t = self.rand_step(0, self.n - 1)
            _, arg = self.rand_slot()
            if slot == "item":
                arg = self.w.pick(self.items)
            if slot == "state":
                arg = self.w.pick(["score", "task", "task done", "tasks completed", "bees in room", "plants in room"])
            forms = [f"At step {t}, {ask_slot(self.w, slot, arg)}?",
                     f"{_cap(ask_slot(self.w, slot, arg))} in step {t}?"]
            if t > 0:
                forms.append(f"{_cap(ask_slot(self.w, slot, arg))} right after step {t - 1}?")
            if slot not in ("action", "events"):
                forms.append(f"{_cap(ask_slot(self.w, slot, arg))} once step {t} was done?")
            q = self.w.pick(forms)
            self.add(f, slot, q, slot_value(self.steps[t], slot, arg), self.gid(t))
        # hand-worded one-offs

    def _f1_a(self, f):
        t = self.rand_step()
        self.add(f, "events", f"Walk me through what the log says happened on move number {t} - just the events, please.",
                 slot_value(self.steps[t], "events"), self.gid(t))

    def _f1_b(self, f):
        t = self.rand_step()
        self.add(f, "inventory", f"Suppose you froze the run just after step {t}: what would {AGENT} have been carrying, with counts?",
                 slot_value(self.steps[t], "inventory"), self.gid(t))

    def _f1_c(self, f):
        t = self.rand_step()
        self.add(f, "state", f"Which ScienceWorld task was the agent working on when it issued its command at step {t}?",
                 slot_value(self.steps[t], "state", "task"), self.gid(t))

    def _f1_d(self, f):
        cands = [s.t for s in self.steps if s.events and s.events[0].kind in ("water", "teleport to", "pick up")]
        t = self.w.pick(cands) if cands else self.rand_step()
        self.add(f, "action", f"Step {t} - I need the literal command string that was typed there.",
                 self.steps[t].action, self.gid(t))

    # 2 ----------------------------------------------------------------------------------------------
    def fam2(self):
        f = "2_nth_occurrence"
        one_offs = [self._f2_a, self._f2_b, self._f2_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        used = []
        for i in range(need):
            pat = self.rand_pat(min_count=3, exclude=used)
            used.append(pat)
            ts = self.occ(pat)
            mode = self.w.pick(["nth", "last", "nth_last", "again"])
            s, _poss = self.w.subj()
            if mode == "nth":
                k = self.rng.randint(1, min(5, len(ts)))
                t = ts[k - 1]
                desc = f"the {self.w.ordinal(k)} time {s} {self.ph(pat, 1)}"
            elif mode == "again":
                t = ts[1]
                desc = None
            elif mode == "last":
                t = ts[-1]
                desc = f"the {self.w.pick(['last', 'final', 'most recent'])} time {s} {self.ph(pat, 1)}"
            else:
                k = self.rng.randint(2, min(3, len(ts)))
                t = ts[-k]
                desc = f"the {'second' if k == 2 else 'third'}-to-last time {s} {self.ph(pat, 1)}"
            slot, arg = self.rand_slot(("step", "step", "location", "action", "state", "inventory"))
            if slot == "state":
                arg = self.w.pick(["score", "task", "bees in room"])
            if mode == "again":
                q = f"When {s} {self.ph(pat, 1)} again, {ask_slot(self.w, slot, arg)}?" if slot != "step" else \
                    f"At which step did {s} {self.ph(pat, 0)} again?"
            elif slot == "step":
                q = self.w.pick([f"At which step was {desc}?", f"{_cap(desc)} - what step was that?"])
            else:
                q = f"For {desc}, {ask_slot(self.w, slot, arg)}?"
            self.add(f, slot, q, slot_value(self.steps[t], slot, arg), self.gid(t))

    def _f2_a(self, f):
        ts = self.occ(("walk to", None))
        k = min(3, len(ts))
        t = ts[k - 1]
        self.add(f, "location", f"Counting only walks through doorways, where did the agent end up on its {self.w.ordinal(k)} one?",
                 slot_value(self.steps[t], "location"), self.gid(t))

    def _f2_b(self, f):
        ts = self.occ(("water", None))
        t = ts[-1]
        self.add(f, "step", "Ada kept pouring water into flower pots; when was the very last pour?",
                 str(t), self.gid(t))

    def _f2_c(self, f):
        ts = self.occ(("plant seed", None))
        k = min(4, len(ts))
        t = ts[k - 1]
        self.add(f, "action", f"Seed number {k} that went into a pot - what exact command put it there?",
                 self.steps[t].action, self.gid(t))

    # 3 ----------------------------------------------------------------------------------------------
    def fam3(self):
        f = "3_windowed_occurrence"
        one_offs = [self._f3_a, self._f3_b, self._f3_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        while made < need and tries < 1000:
            tries += 1
            pat = self.rand_pat(min_count=2)
            ts = self.occ(pat)
            mode = self.w.pick(["after", "before", "between", "firstN", "after_event"])
            s, _poss = self.w.subj()
            slot, arg = self.rand_slot(("step", "step", "location", "action", "state"))
            if slot == "state":
                arg = self.w.pick(["score", "task", "tasks completed"])
            gold_extra = []
            if mode == "after":
                n = self.rand_step(5, self.n - 20)
                hits = [t for t in ts if t > n]
                if not hits:
                    continue
                t = hits[0]
                cond = self.w.pick([f"the first time after step {n} that {s} {self.ph(pat, 1)}",
                                    f"the earliest step after step {n} where {s} {self.ph(pat, 1)}"])
            elif mode == "before":
                n = self.rand_step(20, self.n - 2)
                hits = [t for t in ts if t < n]
                if not hits:
                    continue
                t = hits[-1]
                cond = f"the last time before step {n} that {s} {self.ph(pat, 1)}"
            elif mode == "between":
                a = self.rand_step(1, self.n - 60)
                b = a + self.rng.randint(30, 150)
                hits = [t for t in ts if a <= t <= b]
                if not hits:
                    continue
                t = hits[0]
                cond = f"the first time between steps {a} and {b} that {s} {self.ph(pat, 1)}"
            elif mode == "firstN":
                n = self.rng.randint(40, self.n - 1)
                hits = [t for t in ts if t < n]
                if len(hits) < 1:
                    continue
                t = hits[-1]
                cond = f"the last time {s} {self.ph(pat, 1)} within the first {n} steps"
            else:
                apat = self.rand_pat(min_count=1, max_count=3, allow_any=False, exclude=[pat])
                if apat is None:
                    continue
                at = self.occ(apat)[0]
                hits = [t for t in ts if t > at]
                if not hits:
                    continue
                t = hits[0]
                gold_extra = [at]
                cond = f"the first time {s} {self.ph(pat, 1)} after {s} first {self.ph(apat, 1)}"
            if slot == "step":
                q = f"What step was {cond}?"
            else:
                q = f"Consider {cond}: {ask_slot(self.w, slot, arg)}?"
            self.add(f, slot, q, slot_value(self.steps[t], slot, arg), self.gid(t, *gold_extra))
            made += 1

    def _f3_a(self, f):
        # first teleport after the first completed task
        at = self.occ(("complete task", None))[0]
        hits = [t for t in self.occ(("teleport to", None)) if t > at]
        if hits:
            t = hits[0]
            self.add(f, "location", "Once the first task of the run had been wrapped up, where did the agent's next teleport take it?",
                     slot_value(self.steps[t], "location"), self.gid(t, at))
        else:
            self.add(f, "step", "Once the first task of the run had been wrapped up, at what step did the agent next teleport anywhere? Answer 'none' if never.",
                     "none", self.gid(at))

    def _f3_b(self, f):
        n = self.rng.randint(60, self.n // 2)
        hits = self.occ(("check inventory", None), 0, n - 1)
        if hits:
            t = hits[-1]
            self.add(f, "step", f"Looking only at the opening {n} steps, when did we most recently peek at our inventory?",
                     str(t), self.gid(t))
        else:
            self.add(f, "step", f"Looking only at the opening {n} steps, when did we first peek at our inventory? Answer 'none' if never.",
                     "none", [])

    def _f3_c(self, f):
        ts = self.occ(("gain points", None))
        a = self.rand_step(1, self.n - 100)
        b = a + 80
        hits = [t for t in ts if a <= t <= b]
        if hits:
            t = hits[-1]
            self.add(f, "state", f"Between steps {a} and {b}, the last time the score went up, what did it go up to?",
                     slot_value(self.steps[t], "state", "score"), self.gid(t))
        else:
            self.add(f, "step", f"Between steps {a} and {b}, when did the score last go up? Answer 'none' if it never did.",
                     "none", [])

    # 4 ----------------------------------------------------------------------------------------------
    def conditions(self):
        """(description, what, predicate, transition, last) candidates that are met at least once."""
        out = []
        _s, _poss = self.w.subj()
        for item in self.items:
            series = [s_.inventory_dict.get(item, 0) for s_ in self.steps]
            mx = max(series)
            if item.endswith(" seed") and mx >= 2:
                k = self.rng.randint(2, mx)
                out.append((f"the first step at which the inventory held {k} or more of the item '{item}'", ("item", item), (lambda v, k=k: v >= k), False, False))
            if mx >= 1:
                out.append((f"the first step at which {item} showed up in the inventory", ("item", item), (lambda v: v >= 1), False, False))
                if series[-1] == 0 or series.count(0) > 1:
                    out.append((f"the first time {item} ran out (dropped back to zero in the inventory)", ("item", item), (lambda v: v == 0), True, False))
                    out.append((f"the last time the inventory went from having {item} to having none", ("item", item), (lambda v: v == 0), True, True))
        scores = [s_.state_dict["score"] for s_ in self.steps]
        for k in sorted(set(scores)):
            if 10 < k < 100 and self.rng.random() < 0.3:
                out.append((f"the first step where the task score was above {k - 1}", ("state", "score"), (lambda v, k=k: v > k - 1), False, False))
        out.append(("the first step where the task score was 100", ("state", "score"), (lambda v: v == 100), False, False))
        out.append(("the last step where the task score hit 100", ("state", "score"), (lambda v: v == 100), True, True))
        out.append(("the first step where the task-finished flag became true", ("state", "task done"), (lambda v: v is True), True, False))
        nt = max(s_.state_dict["tasks completed"] for s_ in self.steps)
        for k in range(2, nt + 1):
            out.append((f"the first step at which the tasks-completed counter reached {k}", ("state", "tasks completed"), (lambda v, k=k: v >= k), False, False))
        bees = max(s_.state_dict["bees in room"] for s_ in self.steps)
        if bees >= 2:
            k = self.rng.randint(2, bees)
            out.append((f"the first step with at least {k} bees in the agent's room", ("state", "bees in room"), (lambda v, k=k: v >= k), False, False))
        tasks = []
        for s_ in self.steps:
            if s_.state_dict["task"] not in tasks:
                tasks.append(s_.state_dict["task"])
        for tk in tasks[1:]:
            out.append((f"the step when the current task became {tk}", ("state", "task"), (lambda v, tk=tk: v == tk), True, False))
        plants = max(s_.state_dict["plants in room"] for s_ in self.steps)
        if plants >= 3:
            k = self.rng.randint(3, plants)
            out.append((f"the first step where the room held {k} or more living plants", ("state", "plants in room"), (lambda v, k=k: v >= k), False, False))
        res = []
        for c in out:
            t = first_meeting(self.steps, c[1], c[2], c[3], c[4])
            if t is not None:
                res.append((c, t))
        return res

    def fam4(self):
        f = "4_condition"
        one_offs = [self._f4_a, self._f4_b, self._f4_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        conds = self.conditions()
        self.rng.shuffle(conds)
        chosen, seen_what = [], set()
        for c in conds:
            if c[0][1] not in seen_what:
                chosen.append(c)
                seen_what.add(c[0][1])
        chosen += [c for c in conds if c not in chosen]
        for (desc, what, pred, trans, last), t in chosen[:need]:
            slot, arg = self.rand_slot(("step", "step", "location", "action", "inventory"))
            if slot == "step":
                q = self.w.pick([f"What was {desc}?", f"Tell me {desc}."])
            else:
                q = f"At {desc}, {ask_slot(self.w, slot, arg)}?"
            self.add(f, slot, q, slot_value(self.steps[t], slot, arg), self.gid(t))

    def _f4_a(self, f):
        t = first_meeting(self.steps, ("item", "seed jar"), lambda v: v >= 1)
        if t is None:
            t = first_meeting(self.steps, ("state", "score"), lambda v: v >= 50)
            self.add(f, "location", "Where was Ada standing the first time her score climbed to 50 or beyond?",
                     slot_value(self.steps[t], "location"), self.gid(t))
            return
        self.add(f, "location", "The seed jar first landed in the inventory in which room?",
                 slot_value(self.steps[t], "location"), self.gid(t))

    def _f4_b(self, f):
        t = first_meeting(self.steps, ("state", "tasks completed"), lambda v: v >= 3)
        self.add(f, "state", "By the time three tasks were done, which task had just been finished (i.e. what was the current task at that step)?",
                 slot_value(self.steps[t], "state", "task"), self.gid(t))

    def _f4_c(self, f):
        t = first_meeting(self.steps, ("state", "bees in room"), lambda v: v >= 1)
        if t is None:
            t = first_meeting(self.steps, ("state", "plants in room"), lambda v: v >= 1)
            self.add(f, "step", "When did a living plant first show up in the agent's surroundings?", str(t), self.gid(t))
            return
        self.add(f, "step", "Bees: at what step did at least one first share a room with the agent?", str(t), self.gid(t))

    # 5 ----------------------------------------------------------------------------------------------
    def fam5(self):
        f = "5_offset"
        one_offs = [self._f5_a, self._f5_b, self._f5_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        while made < need and tries < 1000:
            tries += 1
            mode = self.w.pick(["occ", "step", "cond", "occ"])
            k = self.rng.randint(1, 6)
            sign = self.w.pick([1, -1])
            s, poss = self.w.subj()
            if mode == "occ":
                pat = self.rand_pat(min_count=1)
                ts = self.occ(pat)
                which = self.w.pick(["first", "last"])
                at = ts[0] if which == "first" else ts[-1]
                anchor = f"{poss} {which} time {s} {self.ph(pat, 1)}" if which == "last" else f"the first time {s} {self.ph(pat, 1)}"
                anchor = f"the {which} time {s} {self.ph(pat, 1)}"
            elif mode == "step":
                at = self.rand_step(10, self.n - 10)
                anchor = f"step {at}"
            else:
                conds = self.conditions()
                if not conds:
                    continue
                (desc, *_), at = self.w.pick(conds)
                anchor = desc
            t = at + sign * k
            if not 0 <= t < self.n:
                continue
            slot, arg = self.rand_slot(("action", "location", "events", "inventory", "state", "action"))
            if slot == "state":
                arg = self.w.pick(["score", "task", "bees in room"])
            rel = "after" if sign > 0 else "before"
            kw = self.w.pick([str(k), ["one", "two", "three", "four", "five", "six"][k - 1]])
            unit = "step" if k == 1 else "steps"
            q = self.w.pick([f"{kw} {unit} {rel} {anchor}, {ask_slot(self.w, slot, arg)}?",
                             f"{_cap(ask_slot(self.w, slot, arg))} {kw} {unit} {rel} {anchor}?"])
            self.add(f, slot, _cap(q), slot_value(self.steps[t], slot, arg), self.gid(t, at))
            made += 1

    def _f5_a(self, f):
        at = self.occ(("complete task", None))[-1]
        t = at - 2
        self.add(f, "action", "Two moves before the final task was wrapped up, what did the agent type?",
                 self.steps[t].action, self.gid(t, at))

    def _f5_b(self, f):
        at = self.occ(("turn on", None))[0] if self.occ(("turn on", None)) else self.occ(("open", None))[0]
        what = "the sink was first switched on" if self.occ(("turn on", None)) else "something was first opened"
        t = at + 1
        self.add(f, "action", f"Right after {what}, what was the very next command?",
                 self.steps[t].action, self.gid(t, at))

    def _f5_c(self, f):
        ts = self.occ(("start task", None))
        at = ts[min(2, len(ts) - 1)]
        t = at + 3
        self.add(f, "location", "Third task kicks off at some step; three steps later, which room are we in?",
                 slot_value(self.steps[t], "location"), self.gid(t, at))

    # 6 ----------------------------------------------------------------------------------------------
    def fam6(self):
        f = "6_next_previous"
        one_offs = [self._f6_a, self._f6_b, self._f6_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        while made < need and tries < 1000:
            tries += 1
            pat = self.rand_pat(min_count=2)
            ts = self.occ(pat)
            direction = self.w.pick(["next", "previous"])
            s, _poss = self.w.subj()
            anchor_kind = self.w.pick(["step", "event"])
            if anchor_kind == "step":
                at = self.rand_step(5, self.n - 5)
                anchor = f"step {at}"
                extra = []
            else:
                apat = self.rand_pat(min_count=1, exclude=[pat])
                ats = self.occ(apat)
                which = self.w.pick(["first", "last"])
                at = ats[0] if which == "first" else ats[-1]
                anchor = f"the {which} time {s} {self.ph(apat, 1)}"
                extra = [at]
            hits = [t for t in ts if (t > at if direction == "next" else t < at)]
            if not hits:
                continue
            t = hits[0] if direction == "next" else hits[-1]
            slot, arg = self.rand_slot(("step", "step", "location", "action"))
            prep = "after" if direction == "next" else "before"
            adv = "next" if direction == "next" else self.w.pick(["last", "most recently"])
            if slot == "step":
                q = self.w.pick([f"When did {s} {adv} {self.ph(pat, 0)} {prep} {anchor}?",
                                 f"{_cap(prep)} {anchor}, at what step did {s} {adv} {self.ph(pat, 0)}?"])
            else:
                q = f"The {direction} time {s} {self.ph(pat, 1)} {prep} {anchor}: {ask_slot(self.w, slot, arg)}?"
            self.add(f, slot, q, slot_value(self.steps[t], slot, arg), self.gid(t, *extra))
            made += 1

    def _f6_a(self, f):
        fails = self.occ(("action failed", None))
        at = self.rand_step(20, self.n - 20)
        prev = [t for t in fails if t < at]
        if prev:
            t = prev[-1]
            self.add(f, "action", f"Going backwards from step {at}, which command was the most recent one the simulator refused?",
                     self.steps[t].action, self.gid(t))
        else:
            self.add(f, "step", f"Going backwards from step {at}, when was a command last refused? Say 'none' if there was none.",
                     "none", [])

    def _f6_b(self, f):
        ats = self.occ(("see bees", None))
        if ats:
            at = ats[0]
            nxt = [t for t in self.occ(("water", None)) if t > at]
            t = nxt[0]
            self.add(f, "step", "The bees had just come into view for the first time; when was a flower pot next watered after that?",
                     str(t), self.gid(t, at))
        else:
            at = self.occ(("start task", None))[-1]
            nxt = [t for t in range(at + 1, self.n) if self.steps[t].events]
            t = nxt[0]
            self.add(f, "action", "After the last task began, what was the next command that produced any recorded event?",
                     self.steps[t].action, self.gid(t, at))

    def _f6_c(self, f):
        at = self.occ(("complete task", None))[-1]
        prev = [t for t in self.occ(("focus on", None)) if t < at]
        t = prev[-1]
        self.add(f, "step", "Before the run's final task completion, when had the agent most recently focused on something?",
                 str(t), self.gid(t, at))

    # 7 ----------------------------------------------------------------------------------------------
    def fam7(self):
        f = "7_count"
        one_offs = [self._f7_a, self._f7_b, self._f7_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        want_zero = 2
        while made < need and tries < 1000:
            tries += 1
            pat = self.rand_pat(min_count=1)
            mode = self.w.pick(["all", "before", "after", "between", "after_event"])
            s, _poss = self.w.subj()
            extra = []
            if mode == "all":
                lo, hi = 0, self.n - 1
                where = self.w.pick(["in the whole episode", "over the entire run", ""])
            elif mode == "before":
                n = self.rand_step(20, self.n - 1)
                lo, hi = 0, n - 1
                where = f"before step {n}"
            elif mode == "after":
                n = self.rand_step(1, self.n - 20)
                lo, hi = n + 1, self.n - 1
                where = f"after step {n}"
            elif mode == "between":
                a = self.rand_step(1, self.n - 60)
                b = a + self.rng.randint(20, 120)
                lo, hi = a, min(b, self.n - 1)
                where = f"between steps {a} and {hi}"
            else:
                apat = self.rand_pat(min_count=1, max_count=1, allow_any=False, exclude=[pat])
                if apat is None:
                    continue
                at = self.occ(apat)[0]
                lo, hi = at + 1, self.n - 1
                where = f"after {s} {self.ph(apat, 1)}"
                extra = [at]
            c, ts = count_events(self.steps, pat[0], pat[1], lo, hi)
            if c == 0 and want_zero <= 0:
                continue
            if not self.fresh(("count", pat, lo, hi)):
                continue
            if c == 0:
                want_zero -= 1
            gold = self.gid(ts[-1] if ts else None, *extra)
            q = self.w.pick([f"How many times did {s} {self.ph(pat, 0)} {where}?",
                             f"{_cap(where)}, how many times did {s} {self.ph(pat, 0)}?" if where else
                             f"Count the times {s} {self.ph(pat, 1)}."])
            self.add(f, "count", " ".join(q.split()), str(c), gold)
            made += 1

    def _f7_a(self, f):
        c, ts = count_events(self.steps, "teleport to", "bathroom")
        self.add(f, "count", "Tally up every teleport whose destination was the bathroom.", str(c), self.gid(ts[-1] if ts else None))

    def _f7_b(self, f):
        c, ts = count_events(self.steps, "drop", "seed jar")
        self.add(f, "count", "How often did the seed jar get dropped on the floor during the run?", str(c),
                 self.gid(ts[-1] if ts else None))

    def _f7_c(self, f):
        ts = self.occ(("start task", None))
        lo, hi = ts[0], (ts[1] - 1 if len(ts) > 1 else self.n - 1)
        c, hs = count_events(self.steps, "action failed", None, lo, hi)
        self.add(f, "count", "During the opening task (from its start until the next task began), how many commands bounced off the parser?",
                 str(c), self.gid(hs[-1] if hs else None, ts[0], *( [ts[1]] if len(ts) > 1 else [])))

    # 8 ----------------------------------------------------------------------------------------------
    def fam8(self):
        f = "8_order"
        one_offs = [self._f8_a, self._f8_b, self._f8_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        while made < need and tries < 1000:
            tries += 1
            p1 = self.rand_pat(min_count=1, allow_any=False)
            p2 = self.rand_pat(min_count=1, allow_any=False, exclude=[p1])
            if p2 is None:
                continue
            t1, t2 = self.occ(p1)[0], self.occ(p2)[0]
            if t1 == t2 or not self.fresh(("order", min(t1, t2), max(t1, t2))):
                continue
            s, _poss = self.w.subj()
            if self.rng.random() < 0.5:
                ans = self.pat_label(p1) if t1 < t2 else self.pat_label(p2)
                q = self.w.pick([f"Which came first: {s} {self.ph(p1, 1)}, or {s} {self.ph(p2, 1)}?",
                                 f"Did {s} {self.ph(p1, 0)} first, or {self.ph(p2, 0)} first?"])
                self.add(f, "which-first", q, ans, self.gid(t1, t2))
            else:
                ans = "yes" if t1 < t2 else "no"
                q = self.w.pick([f"Did {s} {self.ph(p1, 0)} before {s} {self.ph(p2, 1)}?",
                                 f"Was it before {s} first {self.ph(p2, 1)} that {s} first {self.ph(p1, 1)}?"])
                self.add(f, "yes/no", q, ans, self.gid(t1, t2))
            made += 1

    def _f8_a(self, f):
        ta = self.occ(("complete task", None))
        tb = self.occ(("see bees", None)) or self.occ(("harvest seed", None))
        a, b = ta[0], tb[0]
        pb = self.steps[b].events
        lb = next(label(e.kind, e.obj) for e in pb if e.kind in ("see bees", "harvest seed"))
        la = label("complete task", self.steps[a].events[-1].obj if self.steps[a].events[-1].kind == "complete task" else
                   next(e.obj for e in self.steps[a].events if e.kind == "complete task"))
        ans = la if a < b else lb
        what = "the bees appeared" if lb == "see bees" else "the first seed was harvested"
        self.add(f, "which-first", f"Two milestones: the first task being completed, and the first moment {what}. Which one happened earlier?",
                 ans, self.gid(a, b))

    def _f8_b(self, f):
        tp = self.occ(("pick up", None))
        tt = self.occ(("teleport to", None))
        if tp and tt:
            ans = "yes" if tp[0] < tt[0] else "no"
            self.add(f, "yes/no", "Had Ada already picked something up by the time she first teleported?", ans,
                     self.gid(tp[0], tt[0]))
        else:
            a, b = self.occ(("look around", None))[0], self.occ(("walk to", None))[0]
            self.add(f, "yes/no", "Did the first look around happen before the first walk through a door?",
                     "yes" if a < b else "no", self.gid(a, b))

    def _f8_c(self, f):
        tk = self.occ(("start task", "mendelian-genetics-known-plant"))[0]
        tu = self.occ(("start task", "mendelian-genetics-unknown-plant"))[0]
        ans = label("start task", "mendelian-genetics-known-plant") if tk < tu else label("start task", "mendelian-genetics-unknown-plant")
        self.add(f, "which-first", "Of the two genetics experiments - the known pea plant one and the unknown plant one - which got started first?",
                 ans, self.gid(tk, tu))

    # 9 ----------------------------------------------------------------------------------------------
    def fam9(self):
        f = "9_distance"
        one_offs = [self._f9_a, self._f9_b, self._f9_c]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        while made < need and tries < 1000:
            tries += 1
            mode = self.w.pick(["two_events", "step_event", "first_last"])
            s, _poss = self.w.subj()
            if mode == "two_events":
                p1 = self.rand_pat(min_count=1)
                p2 = self.rand_pat(min_count=1, exclude=[p1])
                a, b = self.occ(p1)[0], self.occ(p2)[0]
                if a == b:
                    continue
                q = self.w.pick([f"How many steps passed between the first time {s} {self.ph(p1, 1)} and the first time {s} {self.ph(p2, 1)}?",
                                 f"From when {s} first {self.ph(p1, 1)} to when {s} first {self.ph(p2, 1)}: how many steps?"])
            elif mode == "step_event":
                p1 = self.rand_pat(min_count=1)
                a = self.rand_step(0, self.n - 1)
                b = self.occ(p1)[-1]
                q = f"How far apart, in steps, are step {a} and the last time {s} {self.ph(p1, 1)}?"
            else:
                p1 = self.rand_pat(min_count=2)
                ts = self.occ(p1)
                a, b = ts[0], ts[-1]
                q = f"How many steps separate the first and the last time {s} {self.ph(p1, 1)}?"
            if a == b or not self.fresh(("distance", min(a, b), max(a, b))):
                continue
            self.add(f, "duration", q, str(abs(a - b)), self.gid(a, b))
            made += 1

    def _f9_a(self, f):
        ts = self.occ(("start task", None))
        cs = self.occ(("complete task", None))
        a = ts[0]
        b = cs[0]
        self.add(f, "duration", "The opening task: how many steps did it take from its start to the first task completion of the run?",
                 str(abs(b - a)), self.gid(a, b))

    def _f9_b(self, f):
        a = first_meeting(self.steps, ("state", "tasks completed"), lambda v: v >= 2)
        b = first_meeting(self.steps, ("state", "tasks completed"), lambda v: v >= 4)
        if a is None or b is None:
            a = self.occ(("start task", None))[0]
            b = self.occ(("start task", None))[-1]
        self.add(f, "duration", "Steps elapsed from the moment the completed-task counter first read 2 to the moment it first read 4?"
                 if a is not None and self.steps[a].state_dict["tasks completed"] == 2 else
                 "How many steps lie between the first and the last task start?",
                 str(abs(b - a)), self.gid(a, b))

    def _f9_c(self, f):
        ts = self.occ(("plant seed", None))
        ws = self.occ(("water", None))
        a = ts[0]
        b = next(t for t in ws if t > a)
        self.add(f, "duration", "Once the very first seed went into soil, how long - in steps - until a pot first got water after that?",
                 str(b - a), self.gid(a, b))

    # 10 ---------------------------------------------------------------------------------------------
    def fam10(self):
        f = "10_existence"
        one_offs = [self._f10_a, self._f10_b, self._f10_c, self._f10_d]
        self.rng.shuffle(one_offs)
        need = 6 - self._one_offs(f, one_offs)
        made = 0
        tries = 0
        want_no = 2
        want_yes = 2
        while made < need and tries < 1000:
            tries += 1
            pat = self.rand_pat(min_count=1)
            mode = self.w.pick(["ever", "before", "after", "after_event"])
            s, _poss = self.w.subj()
            extra = []
            if mode == "ever":
                lo, hi, where = 0, self.n - 1, self.w.pick(["ever", "at any point"])
            elif mode == "before":
                ts = self.occ(pat)
                if want_no > 0 and ts[0] > 30:
                    n = self.rng.randint(15, ts[0])
                else:
                    n = min(self.n - 1, ts[0] + self.rng.randint(1, 60))
                lo, hi, where = 0, n - 1, f"before step {n}"
            elif mode == "after":
                ts = self.occ(pat)
                if want_no > 0 and ts[-1] < self.n - 30:
                    n = self.rng.randint(ts[-1], self.n - 15)
                else:
                    n = max(0, ts[-1] - self.rng.randint(1, 60))
                lo, hi, where = n + 1, self.n - 1, f"after step {n}"
            else:
                apat = self.rand_pat(min_count=1, allow_any=False, exclude=[pat])
                at = self.occ(apat)[-1]
                lo, hi, where = at + 1, self.n - 1, f"after the last time {s} {self.ph(apat, 1)}"
                extra = [at]
            hits = self.occ(pat, lo, hi)
            if hits and want_yes <= 0 or not hits and want_no <= 0:
                continue
            if not self.fresh(("exists", pat, lo, hi)):
                continue
            if mode == "ever" and not hits:
                continue
            if hits:
                want_yes -= 1
                gold = self.gid(hits[0], *extra)
                ans = "yes"
            else:
                want_no -= 1
                gold = []
                ans = "no"
            if mode == "ever":
                q = f"Did {s} {where} {self.ph(pat, 0)}?"
            else:
                q = self.w.pick([f"Did {s} {self.ph(pat, 0)} {where}?", f"{_cap(where)}, did {s} {self.ph(pat, 0)}?"])
            self.add(f, "yes/no", q, ans, gold)
            made += 1

    def _f10_a(self, f):
        ts = self.occ(("focus on", "blue box"))
        self.add(f, "yes/no", "Was the blue box ever the thing the agent chose to focus on?", "yes" if ts else "no",
                 self.gid(ts[0]) if ts else [])

    def _f10_b(self, f):
        ts = self.occ(("drop", "orange"))
        self.add(f, "yes/no", "Did Ada ever get rid of the orange she started out carrying?", "yes" if ts else "no",
                 self.gid(ts[0]) if ts else [])

    def _f10_c(self, f):
        ts = self.occ(("teleport to", "foundry"))
        self.add(f, "yes/no", "Any trip by teleport to the foundry?", "yes" if ts else "no", self.gid(ts[0]) if ts else [])

    def _f10_d(self, f):
        at = self.occ(("complete task", None))[-1]
        hits = self.occ(("plant seed", None), at + 1)
        self.add(f, "yes/no", "After the last task was marked complete, did anyone plant another seed?", "yes" if hits else "no",
                 self.gid(hits[0], at) if hits else [])

    def all(self):
        for fam in (self.fam1, self.fam2, self.fam3, self.fam4, self.fam5, self.fam6, self.fam7, self.fam8,
                    self.fam9, self.fam10):
            fam()
        return self.qs


# ------------------------------------------------------------------------------------------------
# Entry points
# ------------------------------------------------------------------------------------------------

def build(seed: int) -> dict:
    episode = f"{SUITE}-{seed}"
    steps = run_episode(seed)
    validate_steps(steps, episode)
    questions = Gen(steps, episode, seed).all()
    return {"episodes": {episode: steps}, "questions": questions}


def _digest(built: dict) -> str:
    h = hashlib.sha256()
    for ep, steps in sorted(built["episodes"].items()):
        h.update(ep.encode())
        for s in steps:
            h.update(repr(s).encode())
    for q in built["questions"]:
        h.update(repr(sorted(q.items())).encode())
    return h.hexdigest()


def _self_check(seeds: list[int]) -> None:
    for seed in seeds:
        t0 = time.time()
        a = build(seed)
        t1 = time.time()
        b = build(seed)
        t2 = time.time()
        same = _digest(a) == _digest(b)
        (ep, steps), = a["episodes"].items()
        validate_steps(steps, ep)
        qs = a["questions"]
        print(f"seed {seed}: {len(steps)} steps, {len(qs)} questions, deterministic={same}, digest={_digest(a)[:16]}, "
              f"build {t1 - t0:.1f}s / {t2 - t1:.1f}s")
        assert same, "build is not deterministic"
        assert 300 <= len(steps) <= 1500 and all(s.t == i for i, s in enumerate(steps))
        assert len(qs) == 60
        fam = Counter(q["family"] for q in qs)
        print("  families:", dict(sorted(fam.items(), key=lambda kv: int(kv[0].split("_")[0]))))
        assert all(v == 6 for v in fam.values()) and len(fam) == 10
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  per family/slot:", dict(sorted(Counter(f"{q['family']}/{q['slot']}" for q in qs).items())))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", dict(sorted(kinds.items())))
        done = [s.t for s in steps if any(e.kind == "complete task" for e in s.events)]
        print("  tasks completed at steps:", done)
        rng = random.Random(seed)
        for q in rng.sample(qs, 12):
            print(f"   [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args or [SEED_RANGE[0], SEED_RANGE[1]])
