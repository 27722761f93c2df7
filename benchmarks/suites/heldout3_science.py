"""heldout3_science: a lab assistant working through ScienceWorld tasks.

Environment
    The real ScienceWorld text simulator (package ``scienceworld``), driven through its Java server.
    One fresh server is started per build with a fixed identity-hash mode so that object order, and
    therefore every observation, is the same in every process. Each episode loads 3-6 tasks in a row
    (thermometer use, melting/boiling, finding a plant/animal/living thing, growing a plant, life stages,
    inclined planes, chemistry mixing, powering a light, conductivity), one variation each, all chosen
    from the seed. The step index runs on across task loads.

Agent
    A scripted lab assistant. For every task it first takes a short look at the start room and may make
    a quick round trip through a door; it then follows the simulator's gold action sequence, dropping in
    harmless side actions (examining things, looking at objects, taking temperatures once it carries a
    thermometer). After the task is finished it wanders: opens doors, walks between rooms, looks around,
    picks things up and puts them down, takes temperatures, waits, checks its inventory. Ambiguity
    prompts from the parser are answered with "0".

Adapter
    ``action`` is the command string sent to the simulator. ``location.region`` is the current room,
    ``objects`` the things listed in the room, ``inventory`` the parsed inventory (item names without
    articles, counted), ``state`` holds ``points`` (task score 0-100), ``current task`` (simulator task
    name), ``last reading`` (last thermometer reading in degrees Celsius, 0 before any reading),
    ``task done`` (the simulator reports the task complete) and ``tasks finished`` (tasks completed so
    far). Events are derived from the action and the observation / score change: begin task, finish
    task, score points, enter, open door, open, close, take, put down, transfer, pour, focus on,
    measure temperature, look around, examine, look at, wait, switch on, switch off, connect, mix, read,
    check inventory.

Answers
    A reference evaluator scans the Step records only (events, inventory, state, region, action) and
    applies the conventions of the suite specification (inclusive/exclusive windows, first occurrence
    by default, "again" = second, condition = first/last step meeting it).
"""

from __future__ import annotations

import random
import re
from typing import Any, Callable

from graphmem.records import Event, Location, Step, validate_steps

SUITE = "heldout3_science"
SEEDS = range(7800, 7900)

TASK_POOL: tuple[str, ...] = (
    "use-thermometer",
    "measure-melting-point-known-substance",
    "boil",
    "find-plant",
    "find-animal",
    "find-living-thing",
    "grow-plant",
    "identify-life-stages-1",
    "inclined-plane-determine-angle",
    "chemistry-mix",
    "power-component",
    "test-conductivity",
)
THERMO_TASKS: tuple[str, ...] = ("use-thermometer", "measure-melting-point-known-substance", "boil")

# --------------------------------------------------------------------------------------------------
# Simulator access
# --------------------------------------------------------------------------------------------------


class _Sim:
    """A fresh ScienceWorld Java server with deterministic identity hashes."""

    def __init__(self) -> None:
        from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
        from scienceworld.constants import BASEPATH, JAR_PATH

        port, proc = launch_gateway(
            classpath=JAR_PATH,
            die_on_exit=True,
            cwd=BASEPATH,
            return_proc=True,
            javaopts=["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2", "-Xss8m"],
        )
        self.gateway = JavaGateway(gateway_parameters=GatewayParameters(auto_field=True, port=port), java_process=proc)
        self.server = self.gateway.jvm.scienceworld.runtime.pythonapi.PythonInterface()

    def max_variations(self, task: str) -> int:
        return int(self.server.getTaskMaxVariations(task))

    def load(self, task: str, variation: int) -> list[str]:
        self.server.load(task, variation, "", True)
        self.server.reset()
        return [str(a) for a in self.server.getGoldActionSequence()]

    def step(self, action: str) -> tuple[str, int, bool]:
        obs = str(self.server.step(action))
        score = int(round(100 * float(self.server.getScore())))
        return obs, score, bool(self.server.getCompleted())

    def look(self) -> str:
        return str(self.server.freeActionLook())

    def inventory(self) -> str:
        return str(self.server.freeActionInventory())

    def close(self) -> None:
        try:
            proc = self.gateway.java_process
            self.gateway.shutdown()
            if proc is not None and proc.poll() is None:
                proc.stdin.write(b"\n")
                proc.stdin.flush()
                proc.wait(timeout=10)
        except Exception:  # pragma: no cover - best effort shutdown
            pass


# --------------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------------

_ARTICLES = ("a substance called ", "an ", "a ", "the ")
_ROOM_RE = re.compile(r"This room is called the ([^.]+)\.")
_DOOR_RE = re.compile(r"A door to the (.+?) \(that is (open|closed)\)")
_TEMP_RE = re.compile(r"measures a temperature of (-?\d+(?:\.\d+)?) degrees")


def _clean_name(text: str) -> str:
    name = text.strip()
    low = name.lower()
    for art in _ARTICLES:
        if low.startswith(art):
            name = name[len(art):]
            break
    for cut in (". ", " (", ",", ":"):
        i = name.find(cut)
        if i > 0:
            name = name[:i]
    name = name.strip().rstrip(".").strip().lower()
    return " ".join(name.split())[:80]


def _room(look: str) -> str:
    m = _ROOM_RE.search(look)
    return m.group(1).strip().lower() if m else ""


def _room_lines(look: str) -> list[str]:
    body = look.split("In it, you see:", 1)[-1]
    body = body.split("You also see:", 1)[0]
    return [ln.strip() for ln in body.split("\n") if ln.startswith("\t") and ln.strip()]


def _room_objects(look: str) -> list[str]:
    out: list[str] = []
    for ln in _room_lines(look):
        name = _clean_name(ln)
        if name and name != "agent" and name not in out:
            out.append(name)
    for m in _DOOR_RE.finditer(look):
        name = f"door to {m.group(1).lower()}"
        if name not in out:
            out.append(name)
    return out[:20]


def _portable(look: str) -> list[str]:
    """Room objects that look like loose items (not furniture, containers with contents, or air)."""
    out: list[str] = []
    for ln in _room_lines(look):
        low = ln.lower()
        if "on the" in low or "door" in low or "containing" in low or "called" in low:
            continue
        name = _clean_name(ln)
        if name and name != "agent" and len(name.split()) <= 3 and name not in out:
            out.append(name)
    return out


def _doors(look: str) -> list[tuple[str, bool]]:
    return [(m.group(1).lower(), m.group(2) == "open") for m in _DOOR_RE.finditer(look)]


def _inventory(text: str) -> dict[str, int]:
    inv: dict[str, int] = {}
    body = text.split("you see:", 1)[-1]
    for ln in body.split("\n"):
        if not ln.startswith("\t"):
            continue
        name = _clean_name(ln)
        if not name or name == "nothing":
            continue
        inv[name] = inv.get(name, 0) + 1
    return inv


def _strip_inv(text: str) -> str:
    text = text.strip()
    for suffix in (" in inventory",):
        text = text.replace(suffix, "")
    return _clean_name(text) if text else ""


# --------------------------------------------------------------------------------------------------
# Rollout
# --------------------------------------------------------------------------------------------------


class _Recorder:
    """Runs actions on the simulator and turns each into a Step."""

    def __init__(self, sim: _Sim) -> None:
        self.sim = sim
        self.steps: list[Step] = []
        self.task = ""
        self.points = 0
        self.reading = 0.0
        self.finished = 0
        self.done = False
        self.fresh_task = False
        self.look = ""
        self.inv: dict[str, int] = {}
        self.pending_ambiguous = False

    def start_task(self, task: str, variation: int) -> list[str]:
        gold = self.sim.load(task, variation)
        self.task = task
        self.points = 0
        self.done = False
        self.fresh_task = True
        self.look = self.sim.look()
        self.inv = _inventory(self.sim.inventory())
        return gold

    def act(self, action: str) -> str:
        obs, score, completed = self.sim.step(action)
        look = self.sim.look()
        inv = _inventory(self.sim.inventory())
        events: list[Event] = []
        if self.fresh_task:
            events.append(Event("begin task", self.task))
            self.fresh_task = False
        events.extend(self._events(action, obs, self.look, look))
        if score > self.points:
            events.append(Event("score points"))
        if completed and not self.done:
            events.append(Event("finish task", self.task))
            self.finished += 1
        self.points = score
        self.done = completed
        m = _TEMP_RE.search(obs)
        if m and action.startswith("use thermometer"):
            self.reading = float(m.group(1))
        region = _room(look) or (self.steps[-1].location.region if self.steps else "")
        summary = f"{action} -> {obs.strip().splitlines()[0][:120] if obs.strip() else ''}"
        self.steps.append(
            Step(
                t=len(self.steps),
                action=action,
                summary=summary,
                objects=tuple(_room_objects(look)),
                events=tuple(events),
                inventory=inv,
                state={
                    "points": score,
                    "current task": self.task,
                    "last reading": self.reading,
                    "task done": completed,
                    "tasks finished": self.finished,
                },
                location=Location(region=region),
                observation=" ".join(obs.split())[:390],
            )
        )
        self.look = look
        self.inv = inv
        self.pending_ambiguous = obs.startswith("Ambiguous request")
        return obs

    def _events(self, action: str, obs: str, before: str, after: str) -> list[Event]:
        a = action.strip()
        o = obs.strip()
        low = o.lower()
        failed = low.startswith(("no known action", "unknown action", "ambiguous request", "it's not clear", "you can't"))
        ev: list[Event] = []
        if failed:
            return ev
        if a.startswith("go to ") and o.startswith("You move to the"):
            ev.append(Event("enter", _room(after)))
        elif a.startswith("open door to ") and "now open" in low:
            ev.append(Event("open door", a[len("open door to "):].lower()))
        elif a.startswith("open ") and "now open" in low:
            ev.append(Event("open", _strip_inv(a[5:])))
        elif a.startswith("close ") and "now closed" in low:
            ev.append(Event("close", _strip_inv(a[6:])))
        elif a.startswith("pick up ") and "to the inventory" in low:
            ev.append(Event("take", _strip_inv(a[8:])))
        elif a.startswith(("put down ", "drop ")) and o.startswith("You move the"):
            ev.append(Event("put down", _strip_inv(a.split(" ", 2)[-1] if a.startswith("put") else a[5:])))
        elif a.startswith("move ") and o.startswith("You move the"):
            ev.append(Event("transfer", _strip_inv(a[5:].split(" to ", 1)[0])))
        elif a.startswith("pour ") and not failed:
            ev.append(Event("pour", _strip_inv(a[5:].split(" into ", 1)[0].split(" in ", 1)[0])))
        elif a.startswith("focus on ") and o.startswith("You focus on"):
            ev.append(Event("focus on", _strip_inv(a[9:].split(" in ", 1)[0])))
        elif a.startswith("use thermometer") and _TEMP_RE.search(o):
            target = a.split(" on ", 1)[-1]
            ev.append(Event("measure temperature", _strip_inv(target)))
        elif a == "look around":
            ev.append(Event("look around"))
        elif a.startswith("examine "):
            ev.append(Event("examine", _strip_inv(a[8:])))
        elif a.startswith("look at "):
            ev.append(Event("look at", _strip_inv(a[8:])))
        elif a.startswith("wait"):
            ev.append(Event("wait"))
        elif a.startswith("activate ") and "activated" in low:
            ev.append(Event("switch on", _strip_inv(a[9:])))
        elif a.startswith("deactivate ") and "deactivated" in low:
            ev.append(Event("switch off", _strip_inv(a[11:])))
        elif a.startswith("connect ") and "connected" in low:
            ev.append(Event("connect", _strip_inv(a[8:].split(" to ", 1)[0])))
        elif a.startswith("mix ") and "produce" in low:
            ev.append(Event("mix", _strip_inv(a[4:])))
        elif a.startswith("read ") and "reads" in low:
            ev.append(Event("read", _strip_inv(a[5:])))
        elif a == "inventory":
            ev.append(Event("check inventory"))
        return [e for e in ev if e.kind in ("look around", "wait", "check inventory") or e.obj]


class _Agent:
    def __init__(self, rec: _Recorder, rng: random.Random) -> None:
        self.rec = rec
        self.rng = rng

    def do(self, action: str) -> str:
        obs = self.rec.act(action)
        if self.rec.pending_ambiguous:
            obs = self.rec.act("0")
        return obs

    def has_thermometer(self) -> bool:
        return any(k.startswith("thermometer") for k in self.rec.inv)

    def side_action(self) -> None:
        """A harmless action in place: examine, look at or take a temperature."""
        objs = [o for o in _room_objects(self.rec.look) if not o.startswith("door to")]
        if not objs:
            self.do("look around")
            return
        target = self.rng.choice(objs)
        r = self.rng.random()
        if self.has_thermometer() and r < 0.4:
            self.do(f"use thermometer in inventory on {target}")
        elif r < 0.7:
            self.do(f"examine {target}")
        else:
            self.do(f"look at {target}")

    def round_trip(self) -> None:
        here = _room(self.rec.look)
        doors = _doors(self.rec.look)
        if not doors or not here:
            return
        dest, is_open = self.rng.choice(doors)
        if not is_open:
            self.do(f"open door to {dest}")
        self.do(f"go to {dest}")
        if _room(self.rec.look) != dest:
            return
        self.do("look around")
        if self.rng.random() < 0.5:
            self.side_action()
        self.do(f"go to {here}")

    def wander(self, budget: int) -> None:
        start = len(self.rec.steps)
        while len(self.rec.steps) - start < budget:
            r = self.rng.random()
            look = self.rec.look
            carried = sorted(k for k in self.rec.inv if not k.startswith("thermometer"))
            if r < 0.28:
                doors = _doors(look)
                if doors:
                    dest, is_open = self.rng.choice(doors)
                    if not is_open:
                        self.do(f"open door to {dest}")
                    self.do(f"go to {dest}")
                    if self.rng.random() < 0.6:
                        self.do("look around")
                    continue
            if r < 0.42:
                items = _portable(look)
                if items and len(carried) < 4:
                    self.do(f"pick up {self.rng.choice(items)}")
                    continue
            if r < 0.52 and carried:
                self.do(f"put down {self.rng.choice(carried)}")
                continue
            if r < 0.80:
                self.side_action()
                continue
            if r < 0.88:
                self.do("wait1")
                continue
            if r < 0.94:
                self.do("inventory")
                continue
            self.do("look around")

    def run_task(self, task: str, variation: int, wander_budget: int) -> None:
        gold = self.rec.start_task(task, variation)
        self.do("look around")
        if self.rng.random() < 0.7:
            self.round_trip()
        calm = task not in ("inclined-plane-determine-angle", "identify-life-stages-1", "grow-plant")
        for i, action in enumerate(gold):
            self.do(action)
            if self.rec.done:
                break
            if calm and (action == "look around" or action.startswith("go to")) and self.rng.random() < 0.45:
                for _ in range(self.rng.randint(1, 3)):
                    self.side_action()
        self.wander(wander_budget)


def _rollout(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 13)
    sim = _Sim()
    try:
        rec = _Recorder(sim)
        agent = _Agent(rec, rng)
        n_tasks = rng.randint(3, 5)
        others = [t for t in TASK_POOL if t not in THERMO_TASKS]
        tasks = [rng.choice(THERMO_TASKS)] + rng.sample(others, n_tasks - 1)
        rng.shuffle(tasks)
        target = rng.randint(420, 720)
        for i, task in enumerate(tasks):
            variation = rng.randrange(min(sim.max_variations(task), 60))
            remaining = max(0, target - len(rec.steps))
            budget = max(25, remaining // (len(tasks) - i) - 40)
            agent.run_task(task, variation, budget)
        return rec.steps
    finally:
        sim.close()


# --------------------------------------------------------------------------------------------------
# Reference evaluator
# --------------------------------------------------------------------------------------------------


def ev_text(e: Event) -> str:
    return f"{e.kind} {e.obj}" if e.obj else e.kind


def occurrences(steps: list[Step], kind: str, obj: str | None = None, lo: int = 0, hi: int | None = None) -> list[int]:
    hi = len(steps) - 1 if hi is None else hi
    out: list[int] = []
    for s in steps:
        if s.t < lo or s.t > hi:
            continue
        for e in s.events:
            if e.kind == kind and (obj is None or e.obj == obj):
                out.append(s.t)
                break
    return out


def count_events(steps: list[Step], kind: str, obj: str | None, lo: int, hi: int) -> tuple[int, list[int]]:
    n = 0
    last: list[int] = []
    for s in steps:
        if lo <= s.t <= hi:
            for e in s.events:
                if e.kind == kind and (obj is None or e.obj == obj):
                    n += 1
                    last = [s.t]
    return n, last


def fmt_state(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format(v, "g")
    return str(v)


def slot_value(step: Step, slot: str, arg: str = "") -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        inv = sorted((k, v) for k, v in step.inventory if v > 0)
        return ", ".join(f"{k} {v}" for k, v in inv) if inv else "none"
    if slot == "state":
        return fmt_state(step.state_dict[arg])
    if slot == "events":
        return "; ".join(ev_text(e) for e in step.events) if step.events else "none"
    raise ValueError(slot)


# --------------------------------------------------------------------------------------------------
# Wording
# --------------------------------------------------------------------------------------------------

# kind -> (past-tense phrases, gerund phrases); {o} is the object.
LEX: dict[str, tuple[list[str], list[str]]] = {
    "take": (["picked up the {o}", "took the {o}", "grabbed the {o}", "collected the {o}"],
             ["picking up the {o}", "taking the {o}", "grabbing the {o}"]),
    "put down": (["put down the {o}", "dropped the {o}", "set the {o} down"],
                 ["putting down the {o}", "dropping the {o}", "setting down the {o}"]),
    "transfer": (["moved the {o} into a container", "transferred the {o}", "placed the {o} into something"],
                 ["transferring the {o}", "moving the {o} into a container"]),
    "enter": (["went into the {o}", "entered the {o}", "walked into the {o}", "arrived in the {o}"],
              ["entering the {o}", "going into the {o}", "walking into the {o}"]),
    "open door": (["opened the door to the {o}", "opened the {o} door", "unshut the door leading to the {o}"],
                  ["opening the door to the {o}", "opening the {o} door"]),
    "open": (["opened the {o}"], ["opening the {o}"]),
    "close": (["closed the {o}", "shut the {o}"], ["closing the {o}", "shutting the {o}"]),
    "focus on": (["focused on the {o}", "put the focus on the {o}", "selected the {o} as the focus"],
                 ["focusing on the {o}", "selecting the {o} as the focus"]),
    "measure temperature": (["measured the temperature of the {o}", "took the {o}'s temperature", "used the thermometer on the {o}"],
                            ["measuring the temperature of the {o}", "taking the {o}'s temperature"]),
    "look around": (["looked around", "surveyed the room", "took a look around"], ["looking around", "surveying the room"]),
    "examine": (["examined the {o}", "inspected the {o}"], ["examining the {o}", "inspecting the {o}"]),
    "look at": (["looked at the {o}", "had a look at the {o}"], ["looking at the {o}"]),
    "wait": (["waited", "let time pass", "paused to wait"], ["waiting", "letting time pass"]),
    "switch on": (["switched on the {o}", "activated the {o}", "turned on the {o}"], ["switching on the {o}", "turning on the {o}"]),
    "switch off": (["switched off the {o}", "deactivated the {o}", "turned off the {o}"], ["switching off the {o}", "turning off the {o}"]),
    "connect": (["connected the {o}", "wired up the {o}", "hooked up the {o}"], ["connecting the {o}", "wiring up the {o}"]),
    "mix": (["mixed the {o}", "stirred the contents of the {o}"], ["mixing the {o}"]),
    "read": (["read the {o}"], ["reading the {o}"]),
    "pour": (["poured the {o}", "poured out the {o}"], ["pouring the {o}"]),
    "score points": (["scored points", "earned points", "got points"], ["scoring points", "earning points"]),
    "finish task": (["finished the {o} task", "completed the {o} task", "wrapped up the {o} task"],
                    ["finishing the {o} task", "completing the {o} task"]),
    "begin task": (["started the {o} task", "began the {o} task", "kicked off the {o} task"],
                   ["starting the {o} task", "beginning the {o} task"]),
    "check inventory": (["checked the inventory", "looked through the inventory"], ["checking the inventory"]),
}
# kind -> phrases for "any object" (past, gerund)
ANY: dict[str, tuple[list[str], list[str], str]] = {
    "take": (["picked something up", "took an item"], ["picking things up", "taking items"], "pick up"),
    "enter": (["entered a room", "walked into a room"], ["entering rooms", "walking into rooms"], "room entry"),
    "examine": (["examined something", "inspected an object"], ["examining things", "inspecting objects"], "inspection"),
    "measure temperature": (["took a temperature", "used the thermometer"], ["taking temperatures", "using the thermometer"], "temperature measurement"),
    "open door": (["opened a door"], ["opening doors"], "door opening"),
    "put down": (["put something down", "dropped an item"], ["putting things down", "dropping items"], "drop"),
    "transfer": (["moved something into a container"], ["moving things into containers"], "transfer"),
}
# subject, possessive, do-aux
SUBJECTS: list[tuple[str, str]] = [("I", "my"), ("we", "our"), ("you", "your"), ("the agent", "its"), ("the assistant", "its")]
ORD = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"], 5: ["fifth", "5th"], 6: ["sixth", "6th"]}
STATE_NAMES: dict[str, list[str]] = {
    "points": ["points", "score", "task score"],
    "current task": ["current task", "task being worked on"],
    "last reading": ["last reading", "latest thermometer reading", "last temperature reading"],
    "task done": ["task done flag", "task-complete flag"],
    "tasks finished": ["tasks finished count", "number of tasks finished"],
}


class Words:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def subj(self) -> tuple[str, str]:
        return self.rng.choice(SUBJECTS)

    def past(self, kind: str, obj: str | None) -> str:
        if obj is None:
            return self.rng.choice(ANY[kind][0])
        fmt = self.rng.choice(LEX[kind][0])
        return fmt.format(o=obj)

    def ger(self, kind: str, obj: str | None) -> str:
        if obj is None:
            return self.rng.choice(ANY[kind][1])
        return self.rng.choice(LEX[kind][1]).format(o=obj)

    def ordinal(self, n: int) -> str:
        return self.rng.choice(ORD[n])

    def state(self, key: str) -> str:
        return self.rng.choice(STATE_NAMES[key])

    def slot_phrase(self, slot: str, arg: str, poss: str, subj: str) -> str:
        """A question head asking for a slot, e.g. 'where was I'."""
        be = "were" if subj in ("we", "you") else ("was" if subj == "I" else "was")
        do = "did"
        r = self.rng.choice
        if slot == "action":
            return r([f"what action {do} {subj} take", f"what command {do} {subj} issue", f"what {do} {subj} do"])
        if slot == "step":
            return r(["at which step", "what step was it", "give the step number"])
        if slot == "location":
            return r([f"where {be} {subj}", f"which room {be} {subj} in", f"in what room {be} {subj}"])
        if slot == "item":
            return r([f"how many {arg} {do} {subj} have", f"how many {arg} were in {poss} inventory", f"what was {poss} count of {arg}"])
        if slot == "inventory":
            return r([f"what {do} {subj} carry", f"what was in {poss} inventory", f"what {be} {subj} holding"])
        if slot == "state":
            return r([f"what was {poss} {self.state(arg)}", f"what did the {self.state(arg)} read", f"what value did the {self.state(arg)} have"])
        if slot == "events":
            return r(["what happened", "which events were recorded", "what events took place"])
        raise ValueError(slot)


# --------------------------------------------------------------------------------------------------
# Question generation
# --------------------------------------------------------------------------------------------------

BASE_FORMS: dict[str, str] = {
    "picked": "pick", "took": "take", "grabbed": "grab", "collected": "collect", "put": "put", "dropped": "drop",
    "set": "set", "moved": "move", "transferred": "transfer", "placed": "place", "went": "go", "entered": "enter",
    "walked": "walk", "arrived": "arrive", "opened": "open", "unshut": "unshut", "closed": "close", "shut": "shut",
    "focused": "focus", "selected": "select", "measured": "measure", "used": "use", "looked": "look",
    "surveyed": "survey", "examined": "examine", "inspected": "inspect", "had": "have", "waited": "wait",
    "let": "let", "paused": "pause", "switched": "switch", "activated": "activate", "turned": "turn",
    "deactivated": "deactivate", "connected": "connect", "wired": "wire", "hooked": "hook", "mixed": "mix",
    "stirred": "stir", "read": "read", "poured": "pour", "scored": "score", "earned": "earn", "got": "get",
    "finished": "finish", "completed": "complete", "wrapped": "wrap", "started": "start", "began": "begin",
    "kicked": "kick", "checked": "check", "entered": "enter",
}

LIST_VERBS: dict[str, list[str]] = {
    "take": ["picked up", "took", "grabbed"],
    "examine": ["examined", "inspected"],
    "put down": ["put down", "dropped"],
}

SLOT_CYCLE = ["action", "location", "inventory", "state", "item", "events", "step"]


class Gen:
    def __init__(self, steps: list[Step], ep: str, rng: random.Random) -> None:
        self.steps = steps
        self.ep = ep
        self.rng = rng
        self.w = Words(rng)
        self.n = len(steps)
        self.qs: list[dict[str, Any]] = []
        self.seen: set[str] = set()
        # event catalogue: (kind, obj) -> list of steps
        self.cat: dict[tuple[str, str], list[int]] = {}
        for s in steps:
            for e in s.events:
                lst = self.cat.setdefault((e.kind, e.obj), [])
                if not lst or lst[-1] != s.t:
                    lst.append(s.t)
        self.keys = sorted(k for k in self.cat if k[0] in LEX)
        items: set[str] = set()
        for s in steps:
            items.update(k for k, v in s.inventory if v > 0)
        self.items = sorted(items)
        self.first_reading = next((s.t for s in steps if any(e.kind == "measure temperature" for e in s.events)), None)

    def g(self, *ts: int) -> list[str]:
        return [f"{self.ep}:{t}" for t in sorted(set(ts))]

    def add(self, family: str, slot: str, question: str, answer: str, gold: list[str]) -> bool:
        q = question.strip()
        q = q[0].upper() + q[1:]
        if not q.endswith("?") and not q.endswith("."):
            q += "?"
        if q.lower() in self.seen:
            return False
        self.seen.add(q.lower())
        self.qs.append({"episode": self.ep, "family": family, "slot": slot, "question": q, "answer": answer, "gold": gold})
        return True

    def pick_slot(self, i: int, t: int) -> tuple[str, str]:
        slot = SLOT_CYCLE[(i + self.rng.randrange(len(SLOT_CYCLE))) % len(SLOT_CYCLE)]
        arg = ""
        if slot == "item":
            arg = self.rng.choice(self.items) if self.items else ""
            if not arg:
                slot = "action"
        if slot == "state":
            choices = ["points", "current task", "tasks finished", "task done"]
            if self.first_reading is not None and t >= self.first_reading:
                choices.append("last reading")
            arg = self.rng.choice(choices)
        return slot, arg

    def key_with(self, min_n: int = 1, kinds: tuple[str, ...] | None = None) -> tuple[str, str] | None:
        cands = [k for k in self.keys if len(self.cat[k]) >= min_n and (kinds is None or k[0] in kinds)]
        return self.rng.choice(cands) if cands else None

    def obj_of(self, key: tuple[str, str]) -> str:
        return key[1]

    # ---- family 1
    def fam1(self, i: int) -> bool:
        t = self.rng.randrange(self.n)
        slot, arg = self.pick_slot(i, t)
        if slot == "step":
            slot = "action"
        subj, poss = self.w.subj()
        head = self.w.slot_phrase(slot, arg, poss, subj)
        forms = [f"{head} at step {t}", f"at step {t}, {head}", f"right after step {t}, {head}",
                 f"tell me: {head} at step {t}", f"{head} once step {t} was done"]
        if slot == "action":
            forms = [f"what action was taken at step {t}", f"which command was issued at step {t}", f"at step {t}, {head}", f"tell me the action of step {t}"]
        if slot == "events":
            forms = [f"what happened at step {t}", f"which events were logged at step {t}", f"list the events of step {t}"]
        q = self.rng.choice(forms)
        return self.add("1_step_index", slot, q, slot_value(self.steps[t], slot, arg), self.g(t))

    # ---- family 2
    def fam2(self, i: int) -> bool:
        key = self.key_with(1)
        if key is None:
            return False
        ts = self.cat[key]
        mode = self.rng.choice(["nth", "nth", "last", "again", "tolast", "first"])
        if mode == "nth" and len(ts) >= 3:
            n = self.rng.randint(2, min(len(ts), 6)); idx = n - 1
            when = self.rng.choice([f"the {self.w.ordinal(n)} time {{s}} {{p}}", f"when {{s}} {{p}} for the {self.w.ordinal(n)} time"])
        elif mode == "again" and len(ts) >= 2:
            idx = 1; when = "when {s} {p} again"
        elif mode == "last" and len(ts) >= 2:
            idx = len(ts) - 1; when = self.rng.choice(["the last time {s} {p}", "when {s} last {p}"])
        elif mode == "tolast" and len(ts) >= 3:
            idx = len(ts) - 2; when = "the second-to-last time {s} {p}"
        else:
            idx = 0; when = self.rng.choice(["the first time {s} {p}", "when {s} {p}", "the moment {s} first {p}"])
        t = ts[idx]
        slot, arg = self.pick_slot(i, t)
        subj, poss = self.w.subj()
        p = self.w.past(key[0], self.obj_of(key))
        whenc = when.format(s=subj, p=p)
        if slot == "step":
            stepc = "the time " + whenc[5:] if whenc.startswith("when ") else whenc
            q = self.rng.choice([f"at which step was {stepc}", f"give the step of {stepc}", f"which step number was {stepc}"])
        else:
            head = self.w.slot_phrase(slot, arg, poss, subj)
            q = self.rng.choice([f"{head} {whenc}", f"{whenc}, {head}"])
        return self.add("2_nth_occurrence", slot, q, slot_value(self.steps[t], slot, arg), self.g(t))

    # ---- family 3
    def fam3(self, i: int) -> bool:
        key = self.key_with(2)
        if key is None:
            return False
        ts = self.cat[key]
        subj, poss = self.w.subj()
        p = self.w.past(key[0], self.obj_of(key))
        mode = self.rng.choice(["after_n", "before_n", "between", "after_ev"])
        if mode == "after_n":
            n = self.rng.randrange(0, self.n - 5)
            cand = [t for t in ts if t > n]
            if not cand:
                return False
            t = cand[0]
            gold = self.g(t)
            cond = self.rng.choice([f"the first time after step {n} that {subj} {p}", f"after step {n}, the first time {subj} {p}"])
        elif mode == "before_n":
            n = self.rng.randrange(5, self.n)
            cand = [t for t in ts if t < n]
            if not cand:
                return False
            t = cand[-1]
            gold = self.g(t)
            cond = self.rng.choice([f"the last time before step {n} that {subj} {p}", f"before step {n}, the most recent time {subj} {p}"])
        elif mode == "between":
            a = self.rng.randrange(0, self.n - 20)
            b = min(self.n - 1, a + self.rng.randint(40, 250))
            cand = [t for t in ts if a <= t <= b]
            if not cand:
                return False
            t = cand[0]
            gold = self.g(t)
            cond = f"the first time between step {a} and step {b} that {subj} {p}"
        else:
            akey = self.key_with(1)
            if akey is None or akey == key:
                return False
            ta = self.cat[akey][0]
            cand = [t for t in ts if t > ta]
            if not cand:
                return False
            t = cand[0]
            gold = self.g(ta, t)
            cond = self.rng.choice([f"the first time {subj} {p} after {self.w.ger(akey[0], self.obj_of(akey))} for the first time",
                                    f"the first time {subj} {p} after {subj} first {self.w.past(akey[0], self.obj_of(akey))}"])
        slot, arg = self.pick_slot(i, t)
        if slot == "step":
            q = self.rng.choice([f"at which step was {cond}", f"give the step number of {cond}"])
        else:
            head = self.w.slot_phrase(slot, arg, poss, subj)
            q = self.rng.choice([f"{head} {cond}", f"considering {cond}: {head}"])
        return self.add("3_windowed_occurrence", slot, q, slot_value(self.steps[t], slot, arg), gold)

    # ---- family 4
    def fam4(self, i: int) -> bool:
        subj, poss = self.w.subj()
        mode = self.rng.choice(["item_have", "item_out", "points", "finished", "reading", "task_last", "done"])
        steps = self.steps
        t: int | None = None
        cond = ""
        if mode == "item_have" and self.items:
            item = self.rng.choice(self.items)
            lvl = self.rng.choice([1, 1, 2])
            hits = [s.t for s in steps if s.inventory_dict.get(item, 0) >= lvl]
            if not hits:
                return False
            t = hits[0]
            cond = (f"the first step {subj} had a {item}" if lvl == 1 else f"the first step {poss} {item} count reached {lvl}")
            if lvl == 1 and self.rng.random() < 0.5:
                cond = f"the first step at which {poss} inventory held at least one {item}"
        elif mode == "item_out" and self.items:
            item = self.rng.choice(self.items)
            hits = [s.t for s in steps[1:] if s.inventory_dict.get(item, 0) == 0 and steps[s.t - 1].inventory_dict.get(item, 0) > 0]
            if not hits:
                return False
            last = self.rng.random() < 0.4 and len(hits) > 1
            t = hits[-1] if last else hits[0]
            cond = (f"the last time {subj} ran out of {item}" if last else self.rng.choice([f"when {subj} first ran out of {item}", f"the first step {subj} no longer had any {item} after having some"]))
        elif mode == "points":
            lvl = self.rng.choice([30, 50, 75, 100])
            hits = [s.t for s in steps if int(s.state_dict["points"]) >= lvl]
            if not hits:
                return False
            t = hits[0]
            cond = self.rng.choice([f"the first step {poss} score reached {lvl} points or more", f"the first time the points were at least {lvl}"])
        elif mode == "finished":
            lvl = self.rng.randint(1, max(1, int(steps[-1].state_dict["tasks finished"])))
            hits = [s.t for s in steps if int(s.state_dict["tasks finished"]) >= lvl]
            if not hits:
                return False
            t = hits[0]
            cond = f"the first step the number of tasks finished reached {lvl}"
        elif mode == "reading" and self.first_reading is not None:
            vals = sorted({float(s.state_dict["last reading"]) for s in steps if s.t >= self.first_reading})
            pos = [v for v in vals if v > 0]
            if not pos:
                return False
            v = self.rng.choice(pos)
            above = self.rng.random() < 0.6
            if above:
                hits = [s.t for s in steps if float(s.state_dict["last reading"]) >= v]
                cond = f"the first step the last thermometer reading was {format(v, 'g')} degrees or higher"
            else:
                hits = [s.t for s in steps if s.t >= self.first_reading and float(s.state_dict["last reading"]) <= v]
                hits = hits[-1:]
                cond = f"the last step at which the latest temperature reading was at most {format(v, 'g')} degrees"
            if not hits:
                return False
            t = hits[0]
        elif mode == "task_last":
            tasks = sorted({str(s.state_dict["current task"]) for s in steps})
            task = self.rng.choice(tasks)
            hits = [s.t for s in steps if s.state_dict["current task"] == task]
            t = hits[-1]
            cond = self.rng.choice([f"the last step while the current task was {task}", f"the final step spent on the {task} task"])
        elif mode == "done":
            hits = [s.t for s in steps if s.state_dict["task done"] is True]
            if not hits:
                return False
            t = hits[0]
            cond = "the first step at which the task-done flag was true"
        if t is None:
            return False
        slot, arg = self.pick_slot(i, t)
        if slot == "step":
            q = self.rng.choice([f"at which step was {cond}", f"what step was {cond}", f"give the step: {cond}"])
        else:
            head = self.w.slot_phrase(slot, arg, poss, subj)
            q = self.rng.choice([f"{head} at {cond}", f"at {cond}, {head}"])
        return self.add("4_condition", slot, q, slot_value(self.steps[t], slot, arg), self.g(t))

    # ---- family 5
    def fam5(self, i: int) -> bool:
        key = self.key_with(1)
        if key is None:
            return False
        ts = self.cat[key]
        n = 1 if len(ts) < 2 or self.rng.random() < 0.6 else 2
        ta = ts[n - 1]
        k = self.rng.randint(1, 6)
        after = self.rng.random() < 0.6
        t = ta + k if after else ta - k
        if not 0 <= t < self.n:
            return False
        subj, poss = self.w.subj()
        p = self.w.past(key[0], self.obj_of(key))
        occ = (f"{subj} first {p}" if n == 1 else f"{subj} {p} again")
        rel = f"{k} step{'s' if k > 1 else ''} {'after' if after else 'before'}"
        slot, arg = self.pick_slot(i, t)
        if slot == "step":
            slot = "action"
        head = self.w.slot_phrase(slot, arg, poss, subj)
        q = self.rng.choice([f"{head} {rel} {occ}", f"{rel} {occ}, {head}"])
        return self.add("5_offset", slot, q, slot_value(self.steps[t], slot, arg), self.g(ta, t))

    # ---- family 6
    def fam6(self, i: int) -> bool:
        key = self.key_with(2)
        akey = self.key_with(1)
        if key is None or akey is None or akey == key:
            return False
        subj, poss = self.w.subj()
        an = 1 if self.rng.random() < 0.7 or len(self.cat[akey]) < 2 else 2
        ta = self.cat[akey][an - 1]
        nxt = self.rng.random() < 0.6
        ts = self.cat[key]
        cand = [t for t in ts if t > ta] if nxt else [t for t in ts if t < ta]
        if not cand:
            return False
        t = cand[0] if nxt else cand[-1]
        p = self.w.past(key[0], self.obj_of(key))
        ap = self.w.past(akey[0], self.obj_of(akey))
        anchor = f"{subj} first {ap}" if an == 1 else f"{subj} {ap} for the second time"
        if nxt:
            cond = self.rng.choice([f"the next time {subj} {p} after {anchor}", f"after {anchor}, the next time {subj} {p}"])
        else:
            cond = self.rng.choice([f"the previous time {subj} {p} before {anchor}", f"the last time {subj} {p} before {anchor}"])
        slot, arg = self.pick_slot(i, t)
        if slot == "step":
            q = self.rng.choice([f"at which step was {cond}", f"give the step number for {cond}"])
        else:
            head = self.w.slot_phrase(slot, arg, poss, subj)
            q = self.rng.choice([f"{head} {cond}", f"{cond}: {head}"])
        return self.add("6_next_previous", slot, q, slot_value(self.steps[t], slot, arg), self.g(ta, t))

    # ---- family 7
    def fam7(self, i: int) -> bool:
        subj, poss = self.w.subj()
        any_obj = self.rng.random() < 0.35
        if any_obj:
            kind = self.rng.choice(sorted(k for k in ANY if any(kk[0] == k for kk in self.cat)))
            obj: str | None = None
            noun = ANY[kind][2]
        else:
            key = self.key_with(1)
            if key is None:
                return False
            kind, obj = key[0], self.obj_of(key)
            noun = ""
        p = self.w.past(kind, obj)
        mode = self.rng.choice(["all", "window", "before", "after", "first_n", "anchor"])
        lo, hi = 0, self.n - 1
        extra: list[int] = []
        if mode == "all":
            scope = self.rng.choice(["", " in the whole episode", " over the entire run", " in total"])
        elif mode == "window":
            lo = self.rng.randrange(0, self.n - 30); hi = min(self.n - 1, lo + self.rng.randint(30, 300))
            scope = self.rng.choice([f" between step {lo} and step {hi}", f" from step {lo} to step {hi}"])
        elif mode == "before":
            hi = self.rng.randrange(20, self.n) - 1
            scope = f" before step {hi + 1}"
        elif mode == "after":
            lo = self.rng.randrange(0, self.n - 20) + 1
            scope = f" after step {lo - 1}"
        elif mode == "first_n":
            nn = self.rng.randrange(50, self.n)
            hi = nn - 1
            scope = f" in the first {nn} steps"
        else:
            akey = self.key_with(1, kinds=("begin task", "finish task", "focus on"))
            if akey is None:
                return False
            ta = self.cat[akey][0]
            lo = ta + 1
            scope = f" after {self.w.ger(akey[0], self.obj_of(akey))}"
            extra = [ta]
        c, last = count_events(self.steps, kind, obj, lo, hi)
        if any_obj and self.rng.random() < 0.5:
            q = f"how many times did {subj} {self._base(p)}{scope}"
        else:
            q = self.rng.choice([f"how many times did {subj} {self._base(p)}{scope}", f"count the times {subj} {p}{scope}",
                                 f"how often did {subj} {self._base(p)}{scope}", f"tell me how many times {subj} {p}{scope}"])
        if noun and self.rng.random() < 0.5:
            q = f"how many {noun}s were there{scope}" if not noun.endswith("s") else f"how many {noun} events were there{scope}"
        return self.add("7_count", "count", q, str(c), self.g(*(last + extra)))

    @staticmethod
    def _base(past: str) -> str:
        """Turn a past-tense phrase into its base form for 'did ... <base>'."""
        first, _, rest = past.partition(" ")
        base = BASE_FORMS.get(first, first)
        return f"{base} {rest}".strip()

    # ---- family 8
    def fam8(self, i: int) -> bool:
        k1 = self.key_with(1)
        k2 = self.key_with(1)
        if k1 is None or k2 is None or k1 == k2:
            return False
        t1, t2 = self.cat[k1][0], self.cat[k2][0]
        if t1 == t2:
            return False
        subj, _ = self.w.subj()
        g1, g2 = self.w.ger(k1[0], self.obj_of(k1)), self.w.ger(k2[0], self.obj_of(k2))
        p1, p2 = self.w.past(k1[0], self.obj_of(k1)), self.w.past(k2[0], self.obj_of(k2))
        q = self.rng.choice([f"which happened first: {g1} or {g2}", f"which came first, {subj} {p1} or {subj} {p2}",
                             f"which did {subj} do earlier: {g1} or {g2}",
                             f"which was earlier: {g1} or {g2}"])
        first = k1 if t1 < t2 else k2
        ans = f"{first[0]} {first[1]}" if first[1] else first[0]
        return self.add("8_order", "which-first", q, ans, self.g(t1, t2))

    # ---- family 9
    def fam9(self, i: int) -> bool:
        k1 = self.key_with(1)
        k2 = self.key_with(1)
        if k1 is None or k2 is None:
            return False
        subj, _ = self.w.subj()
        if k1 == k2:
            ts = self.cat[k1]
            if len(ts) < 2:
                return False
            ta, tb = ts[0], ts[1]
            p = self.w.past(k1[0], self.obj_of(k1))
            q = self.rng.choice([f"how many steps passed between the first and second time {subj} {p}",
                                 f"how many steps after first {self.w.ger(k1[0], self.obj_of(k1))} did {subj} {self._base(p)} again"])
        else:
            ta, tb = self.cat[k1][0], self.cat[k2][0]
            if ta == tb:
                return False
            g1, g2 = self.w.ger(k1[0], self.obj_of(k1)), self.w.ger(k2[0], self.obj_of(k2))
            q = self.rng.choice([f"how many steps were there between first {g1} and first {g2}",
                                 f"how many steps apart were the moment {subj} first {self.w.past(k1[0], self.obj_of(k1))} and the moment {subj} first {self.w.past(k2[0], self.obj_of(k2))}",
                                 f"what is the step distance between the first {g1} and the first {g2}"])
        return self.add("9_distance", "duration", q, str(abs(tb - ta)), self.g(ta, tb))

    # ---- family 10
    def fam10(self, i: int) -> bool:
        subj, poss = self.w.subj()
        if i % 3 == 2:
            kind = self.rng.choice([k for k in ("take", "enter", "examine", "open door", "put down") if any(kk[0] == k for kk in self.cat)])
            lo = self.rng.randrange(0, self.n - 40)
            hi = min(self.n - 1, lo + self.rng.randint(40, 200))
            objs: list[str] = []
            gold: list[int] = []
            for s in self.steps[lo:hi + 1]:
                for e in s.events:
                    if e.kind == kind and e.obj:
                        if e.obj not in objs:
                            objs.append(e.obj)
                        gold.append(s.t)
            if not objs:
                return False
            what = {"take": "pick up", "enter": "walk into", "examine": "examine", "open door": "open doors to", "put down": "put down"}[kind]
            q = self.rng.choice([f"what did {subj} {what} between step {lo} and step {hi}", f"between step {lo} and step {hi}, list everything {subj} {self.rng.choice(LIST_VERBS.get(kind, [what]))}"])
            if kind == "open door":
                q = f"which rooms did {subj} open doors to between step {lo} and step {hi}"
            elif kind == "enter":
                q = self.rng.choice([f"which rooms did {subj} walk into between step {lo} and step {hi}", f"list the rooms {subj} entered from step {lo} to step {hi}"])
            return self.add("10_existence", "list", q, ", ".join(objs), self.g(*gold))
        key = self.key_with(1)
        if key is None:
            return False
        ts = self.cat[key]
        p = self.w.past(key[0], self.obj_of(key))
        mode = self.rng.choice(["before", "after", "between", "ever_anchor"])
        if mode == "before":
            n = self.rng.choice([ts[0], ts[0] + self.rng.randint(1, 40)]) if self.rng.random() < 0.6 else self.rng.randrange(1, self.n)
            cand = [t for t in ts if t < n]
            scope = f"before step {n}"
        elif mode == "after":
            n = self.rng.choice([ts[-1], max(0, ts[-1] - self.rng.randint(1, 40))]) if self.rng.random() < 0.6 else self.rng.randrange(0, self.n - 1)
            cand = [t for t in ts if t > n]
            scope = f"after step {n}"
        elif mode == "between":
            a = self.rng.randrange(0, self.n - 30); b = min(self.n - 1, a + self.rng.randint(20, 120))
            cand = [t for t in ts if a <= t <= b]
            scope = f"between step {a} and step {b}"
        else:
            akey = self.key_with(1, kinds=("begin task", "finish task"))
            if akey is None:
                return False
            ta = self.cat[akey][0]
            before = self.rng.random() < 0.5
            cand = [t for t in ts if t < ta] if before else [t for t in ts if t > ta]
            scope = f"{'before' if before else 'after'} {self.w.ger(akey[0], self.obj_of(akey))}"
            q = self.rng.choice([f"did {subj} {self._base(p)} {scope}", f"was there any {self.w.ger(key[0], self.obj_of(key))} {scope}"])
            gold = self.g(ta, cand[0]) if cand and before else (self.g(ta, cand[0]) if cand else self.g(ta))
            return self.add("10_existence", "yes/no", q, "yes" if cand else "no", gold)
        q = self.rng.choice([f"did {subj} {self._base(p)} {scope}", f"{scope}, did {subj} ever {self._base(p)}",
                             f"was there any {self.w.ger(key[0], self.obj_of(key))} {scope}",
                             f"is it true that {subj} {p} {scope}"])
        return self.add("10_existence", "yes/no", q, "yes" if cand else "no", self.g(cand[0]) if cand else [])

    def build(self) -> list[dict[str, Any]]:
        fams: list[Callable[[int], bool]] = [self.fam1, self.fam2, self.fam3, self.fam4, self.fam5,
                                            self.fam6, self.fam7, self.fam8, self.fam9, self.fam10]
        for f in fams:
            made = 0
            tries = 0
            while made < 6:
                tries += 1
                if tries > 5000:
                    raise RuntimeError(f"could not make questions for {f.__name__}")
                if f(made):
                    made += 1
        return self.qs


def build(seed: int) -> dict:
    ep = f"lab-run-{seed}"
    steps = _rollout(seed)
    validate_steps(steps, ep)
    rng = random.Random(seed * 31 + 5)
    qs = Gen(steps, ep, rng).build()
    return {"episodes": {ep: steps}, "questions": qs}


def _digest(data: dict) -> str:
    import hashlib
    import json
    from dataclasses import asdict

    blob = json.dumps({"episodes": {k: [asdict(s) for s in v] for k, v in data["episodes"].items()}, "questions": data["questions"]},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


if __name__ == "__main__":
    from collections import Counter

    for sd in (SEEDS[0], SEEDS[1]):
        data = build(sd)
        ep = f"lab-run-{sd}"
        steps = data["episodes"][ep]
        qs = data["questions"]
        assert len(qs) == 60, len(qs)
        fam = Counter(q["family"] for q in qs)
        assert all(v == 6 for v in fam.values()) and len(fam) == 10, fam
        for q in qs:
            assert q["episode"] == ep
            assert all(g.startswith(ep + ":") for g in q["gold"]), q
        again = build(sd)
        assert _digest(again) == _digest(data), "second build differs"
        print(f"seed {sd}: {len(steps)} steps")
        print("  families:", dict(sorted(fam.items())))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  event kinds:", sorted({e.kind for s in steps for e in s.events}))
        for q in qs[::6]:
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']}  {q['gold']}")
    print("self-check ok")
