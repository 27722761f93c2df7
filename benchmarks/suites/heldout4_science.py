"""ScienceWorld lab-session suite: chained physics, biology and electricity tasks in the real simulator.

What it simulates
    One episode per seed is a single long session in the ScienceWorld text simulator (the ``scienceworld``
    package and its bundled Java engine). The session chains four to six tasks, each a fresh ScienceWorld
    world loaded one after the other: building a circuit that lights a bulb (with any or with a renewable
    power source), picking out the longest- and/or shortest-lived animal, focusing on the life stages of
    an animal or a plant in order, and inclined-plane experiments timed with a stopwatch (steepness of two
    ramps, friction of named or unknown surfaces). Each task is solved by the simulator's own gold action
    sequence; the step index runs on across tasks, so a later task's steps follow the earlier ones.

How the agent behaves
    A seeded scripted agent wraps the gold sequence in the habits of a distracted student: before the
    experiment it wanders (walks through doors it opens, sometimes teleports when the world allows it,
    looks around, checks its inventory, examines things, picks up small objects, eats fruit, opens
    cupboards, runs a tap) and comes back to where it started, dropping what it collected; during the
    experiment it interleaves looks, inventory checks, stopwatch readings, short round trips and commands
    the simulator rejects; after the task is solved it roams on for a while. In tasks whose outcome
    depends on the clock (growing animals and plants) it keeps to a few inventory checks, looks and
    rejected commands and never skips a wait. If a detour ever makes a task fail, that task is replayed
    from its start with fewer detours, so every recorded task is one the simulator actually scored as
    solved. Loading the next task replaces the world, and with it the room and the inventory.

Records
    Each simulator command is one ``Step``: the action as typed, the simulator's observation, the room the
    agent is in afterwards (``Location.region``), the visible objects, the whole inventory (parsed from the
    simulator's inventory listing), and the state: ``score`` (the current task's score, 0-100), ``task``
    (the current task's name), ``tasks finished``, ``stopwatch running`` (bool) and ``stopwatch reading``
    (the last number of ticks the agent saw on a stopwatch). Events use this suite's own words, read off
    the simulator's response: "walk to" / "warp to" (room), "open door" / "close door" ("door to <room>"),
    "open container" / "close container", "pick up" / "set down" / "transfer" (object), "wire up" (the
    device a wire was connected to), "bulb glows" (a light bulb coming on), "single out" (the focus
    command, the task's answer), "start timer" / "stop timer" / "read timer" (stopwatch), "inspect"
    (object looked at), "survey room" (room), "check pockets", "pause", "snack on" (food), "switch on" /
    "switch off" (device), "failed attempt" (a command the simulator rejected or could not carry out),
    "begin task" / "finish task" (task name), and "asked which one" when the simulator asks the agent to
    pick among same-named objects (the answer, a number, is the next step's action). ScienceWorld has rooms but no grid and no facing direction,
    so steps carry no position and no facing relation, and no question asks for either.

How answers are computed
    Questions are generated from the records by a reference evaluator in this file: a plain scan over the
    Step list (n-th occurrences, windows, conditions on inventory and state, offsets, counts, order,
    distances, existence and lists), following the conventions of the suite specification ("before"
    excludes, "by"/"until" include, an occurrence without an ordinal is the first, "ran out" means the
    count became 0 after being positive one step earlier). Every answer and its gold step ids come from
    that scan; the wording of a question is chosen afterwards from several templates and synonyms.

Reproducibility
    Every choice is drawn from generators seeded with the seed. The simulator is started with a constant
    JVM identity hash code, so that its world objects come out in the same order in every process.
"""

from __future__ import annotations

import json
import logging
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from graphmem.records import Event, Location, Step, validate_steps

SUITE = "heldout4_science"
SEEDS = range(8100, 8200)

# --------------------------------------------------------------------------------------------------
# Task catalogue
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskSpec:
    """One ScienceWorld task as this suite uses it."""

    name: str  # the simulator's task name
    label: str  # the suite's own short name for it (state "task", events "begin task"/"finish task")
    group: str  # topic, so that an episode mixes topics
    clocked: bool  # the outcome depends on elapsed time: only time-free detours during the task


TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("power-component", "light bulb circuit", "electricity", False),
    TaskSpec("power-component-renewable-vs-nonrenewable-energy", "renewable power circuit", "electricity", False),
    TaskSpec("lifespan-longest-lived", "longest lifespan", "lifespan", True),
    TaskSpec("lifespan-shortest-lived", "shortest lifespan", "lifespan", True),
    TaskSpec("lifespan-longest-lived-then-shortest-lived", "longest then shortest lifespan", "lifespan", True),
    TaskSpec("identify-life-stages-1", "animal life stages", "life stages", True),
    TaskSpec("identify-life-stages-2", "plant life stages", "life stages", True),
    TaskSpec("inclined-plane-determine-angle", "ramp steepness", "inclined plane", False),
    TaskSpec("inclined-plane-friction-named-surfaces", "named surface friction", "inclined plane", False),
    TaskSpec("inclined-plane-friction-unnamed-surfaces", "unknown surface friction", "inclined plane", False),
)
TASK_LABELS: tuple[str, ...] = tuple(t.label for t in TASKS)

ROOMS: tuple[str, ...] = (
    "kitchen", "bathroom", "hallway", "bedroom", "living room", "art studio", "workshop", "greenhouse",
    "outside", "foundry",
)
#: Small objects the agent may pocket during detours (never one the gold sequence mentions).
POCKETABLE: tuple[str, ...] = (
    "thermometer", "lighter", "axe", "stopwatch", "battery", "switch", "shovel", "picture", "painting",
    "drawing", "finger painting", "banana", "red apple", "potato", "white pillow",
)
EDIBLE: tuple[str, ...] = ("orange", "banana", "red apple")
CONTAINERS: tuple[str, ...] = ("fridge", "freezer", "cupboard", "closet", "large cupboard", "drawer")
NONSENSE: tuple[str, ...] = (
    "dance", "jump over the table", "sing a song", "fly to the moon", "take a nap", "climb the wall",
    "whistle", "read the manual",
)
#: Openings of the simulator's refusals.
#: First words of the commands after which the inventory listing is re-read.
INVENTORY_VERBS = frozenset({"pick", "drop", "eat", "move", "put", "pour", "take", "mix", "use", "open", "inventory"})
REJECTED = (
    "no known action matches", "the door is not open", "you can't", "you cannot", "that is not",
    "it is not possible", "there is nothing", "i don't", "you don't", "that can't",
)

# --------------------------------------------------------------------------------------------------
# Simulator access
# --------------------------------------------------------------------------------------------------


#: JVM options. The simulator keeps world objects in hash-based collections keyed by identity hash codes,
#: which the JVM normally draws from per-thread generators whose seeds depend on thread start-up timing;
#: a constant identity hash makes the object order (and so the whole rollout) depend on insertion order
#: only. C1-only compilation keeps the start-up cost low.
JAVA_OPTIONS: tuple[str, ...] = ("-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2", "-XX:TieredStopAtLevel=1")


class _Simulator:
    """The ScienceWorld engine behind a small interface (one JVM per build)."""

    def __init__(self) -> None:
        logging.getLogger("py4j").setLevel(logging.ERROR)
        import scienceworld.scienceworld as sw  # imported here: the module must import without Java

        original = sw.launch_gateway

        def launch(*args: Any, **kwargs: Any) -> Any:
            kwargs["javaopts"] = list(kwargs.get("javaopts") or []) + list(JAVA_OPTIONS)
            return original(*args, **kwargs)

        sw.launch_gateway = launch  # type: ignore[assignment]
        try:
            self.env = sw.ScienceWorldEnv("", envStepLimit=1_000_000)
        finally:
            sw.launch_gateway = original  # type: ignore[assignment]
        self._gold: dict[tuple[str, int, str], list[str]] = {}
        self.loads: list[str] = []
        self._look = ""
        self._inv = ""
        self._fresh = True

    def load(self, task: str, variation: int, simplifications: str) -> list[str]:
        """Load a fresh world; the gold sequence is generated once per (task, variation, options)."""
        key = (task, variation, simplifications)
        cached = key in self._gold
        self.env.load(task, variation, simplifications, generateGoldPath=not cached)
        if not cached:
            self._gold[key] = [str(a) for a in self.env.get_gold_action_sequence()]
        self.loads.append(f"{task}#{variation}")
        self._fresh = True
        self._look = ""
        return list(self._gold[key])

    def max_variations(self, task: str) -> int:
        return int(self.env.get_max_variations(task))

    def step(self, action: str) -> tuple[str, str, str, int, bool]:
        """Send one command; the room description and inventory are re-read only when they can change."""
        server = self.env.server
        obs = str(server.step(action))
        quiet = action == "inventory" or obs.startswith("No known action matches")
        if not quiet or not self._look:
            self._look = str(server.freeActionLook())
        verb = action.split(" ", 1)[0]
        if verb in INVENTORY_VERBS or verb.isdigit() or not self._inv or self._fresh:
            self._inv = str(server.freeActionInventory())
        self._fresh = False
        score = round(100 * float(server.getScore()))
        return obs, self._look, self._inv, score, bool(server.getCompleted())

    def close(self) -> None:
        env = self.env
        try:
            env.close()
        except Exception:  # noqa: BLE001 - the JVM or its connection may already be gone
            logging.getLogger(__name__).debug("simulator already closed")
        proc = getattr(env._gateway, "java_process", None)
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        env.close = lambda: None  # type: ignore[method-assign]  # keep __del__ quiet


# --------------------------------------------------------------------------------------------------
# Parsing the simulator's text
# --------------------------------------------------------------------------------------------------

_ROOM_RE = re.compile(r"is called the ([a-z ]+?)\.")
_DOOR_RE = re.compile(r"A door to the ([a-z ]+?) \(that is (open|closed)\)")
_TICKS_RE = re.compile(r"The time reads (\d+) ticks")
_BULB_ON_RE = re.compile(r"\b([a-z]+ light bulb), which is on\b")


def _strip_article(text: str) -> str:
    text = text.strip()
    for art in ("a substance called ", "an ", "a ", "the "):
        if text.lower().startswith(art):
            return text[len(art):]
    return text


def _short_name(text: str) -> str:
    """'a stopwatch, which is activated. The time...' -> 'stopwatch'."""
    name = _strip_article(text)
    name = re.split(r",|\(|\. |\.$| which | currently |its (?:terminal|anode|cathode)", name, maxsplit=1)[0]
    return " ".join(name.lower().split())


def parse_room(look: str) -> str:
    m = _ROOM_RE.search(look)
    return m.group(1) if m else ""


def parse_doors(look: str) -> list[tuple[str, bool]]:
    return [(m.group(1), m.group(2) == "open") for m in _DOOR_RE.finditer(look)]


def parse_objects(look: str) -> list[str]:
    """Top-level things listed in a room description (not the agent)."""
    out: list[str] = []
    body = look.split("You also see:")[0]
    for line in body.split("\n")[1:]:
        if not line.startswith("\t"):
            continue
        name = _short_name(line)
        if name and name != "agent" and name not in out:
            out.append(name)
    return out[:24]


def parse_inventory(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for line in text.split("\n")[1:]:
        if not line.startswith("\t"):
            continue
        name = _short_name(line)
        if name and name != "nothing":
            counts[name] += 1
    return dict(sorted(counts.items()))


def _rejected(obs: str) -> bool:
    low = " ".join(obs.lower().split())
    return low.startswith(REJECTED)


def _target(action: str, verbs: Sequence[str]) -> str:
    for verb in verbs:
        if action.startswith(verb + " "):
            rest = action[len(verb) + 1:]
            return re.sub(r" in inventory$", "", rest).strip()
    return ""


def _resolve(action_target: str, said: str) -> str:
    """The object's name: the one the agent typed if the simulator's shorter name is its tail."""
    said = said.lower().strip()
    if action_target and (action_target == said or action_target.endswith(" " + said)):
        return action_target
    return said


# --------------------------------------------------------------------------------------------------
# Recorder: simulator commands -> Step records
# --------------------------------------------------------------------------------------------------


@dataclass
class _Snapshot:
    n_steps: int
    tasks_finished: int
    reading: int


class _Recorder:
    def __init__(self, sim: _Simulator) -> None:
        self.sim = sim
        self.steps: list[Step] = []
        self.room = ""
        self.look = ""
        self.inventory: dict[str, int] = {}
        self.tasks_finished = 0
        self.reading = 0
        self.running = False
        self.completed = False
        self.score = 0
        self.label = ""
        self.lit: set[str] = set()
        self.pending_begin = ""
        self.last_obs = ""
        self.asked = ""

    # -- segment control -------------------------------------------------------------------------
    def snapshot(self) -> _Snapshot:
        return _Snapshot(len(self.steps), self.tasks_finished, self.reading)

    def rollback(self, snap: _Snapshot) -> None:
        del self.steps[snap.n_steps:]
        self.tasks_finished = snap.tasks_finished
        self.reading = snap.reading

    def begin(self, spec: TaskSpec, variation: int, simplifications: str) -> list[str]:
        gold = self.sim.load(spec.name, variation, simplifications)
        self.label = spec.label
        self.running = False
        self.completed = False
        self.lit = set()
        self.pending_begin = spec.label
        self.act("look around")
        return gold

    # -- one command -------------------------------------------------------------------------------
    def act(self, action: str) -> str:
        obs, look, inv_text, score, completed = self.sim.step(action)
        t = len(self.steps)
        room = parse_room(look) or self.room
        events: list[Event] = []
        if self.pending_begin:
            events.append(Event("begin task", self.pending_begin))
            self.pending_begin = ""
        typed = self.asked if action.strip().isdigit() and self.asked else action
        self.asked = action if obs.strip().lower().startswith("ambiguous request") else ""
        events.extend(self._events(typed, obs, room))
        for ev in events:
            if ev.kind == "start timer":
                self.running = True
            elif ev.kind == "stop timer":
                self.running = False
        m = _TICKS_RE.search(obs)
        if m:
            self.reading = int(m.group(1))
        for bulb in _BULB_ON_RE.findall(look):
            if bulb not in self.lit:
                self.lit.add(bulb)
                events.append(Event("bulb glows", bulb))
        if completed and not self.completed and score >= 100:
            events.append(Event("finish task", self.label))
            self.tasks_finished += 1
            self.completed = True
        self.room, self.look, self.score = room, look, score
        self.inventory = parse_inventory(inv_text)
        self.last_obs = obs
        first_line = " ".join(obs.strip().split("\n")[0].split())
        step = Step(
            t=t,
            action=action,
            summary=f"In the {room}, '{action}': {first_line}"[:200],
            objects=tuple(parse_objects(look)),
            events=tuple(events),
            inventory=dict(self.inventory),
            state={
                "score": score,
                "task": self.label,
                "tasks finished": self.tasks_finished,
                "stopwatch running": self.running,
                "stopwatch reading": self.reading,
            },
            location=Location(region=room),
            observation=" ".join(obs.split())[:400],
        )
        self.steps.append(step)
        return obs

    def _events(self, action: str, obs: str, room: str) -> list[Event]:
        o = " ".join(obs.strip().split())
        low = o.lower()
        a = action.strip().lower()
        if low.startswith("ambiguous request"):
            return [Event("asked which one")]
        m = re.match(r"You move to the (.+?)\.$", o)
        if m:
            return [Event("walk to", m.group(1))]
        m = re.match(r"You teleport to the (.+?)\.$", o)
        if m:
            return [Event("warp to", m.group(1))]
        if o == "The door is now open." and a.startswith("open door to "):
            return [Event("open door", "door to " + a[len("open door to "):])]
        if o == "The door is now closed." and a.startswith("close door to "):
            return [Event("close door", "door to " + a[len("close door to "):])]
        m = re.match(r"The (.+?) is now (open|closed)\.$", o)
        if m:
            name = _resolve(_target(a, ("open", "close")), m.group(1))
            return [Event("open container" if m.group(2) == "open" else "close container", name)]
        m = re.match(r"You move the (.+?) to the (.+?)\.$", o)
        if m:
            name = _resolve(_target(a, ("pick up", "drop", "move", "put", "0")), m.group(1))
            dest = m.group(2).lower()
            if dest == "inventory":
                return [Event("pick up", name)]
            if dest == room:
                return [Event("set down", name)]
            return [Event("transfer", name)]
        m = re.match(r"(.+?) on (.+?) is now connected to (.+?) on (.+?)$", o)
        if m:
            first, second = m.group(2).lower(), m.group(4).lower()
            device = second if first.endswith("wire") and not second.endswith("wire") else first
            return [Event("wire up", device)]
        m = re.match(r"You focus on the (.+?)\.$", o)
        if m:
            return [Event("single out", m.group(1).lower())]
        if o.startswith("The stopwatch is now activated"):
            return [Event("start timer", "stopwatch")]
        if o.startswith("The stopwatch is now deactivated"):
            return [Event("stop timer", "stopwatch")]
        m = re.match(r"The (.+?) is now (activated|deactivated)\.$", o)
        if m:
            name = _resolve(_target(a, ("activate", "deactivate")), m.group(1))
            return [Event("switch on" if m.group(2) == "activated" else "switch off", name)]
        m = re.match(r"The (.+?) was delicious\.$", o)
        if m:
            return [Event("snack on", _resolve(_target(a, ("eat",)), m.group(1)))]
        if o.startswith("You decide to wait"):
            return [Event("pause")]
        if a == "inventory" and o.startswith("In your inventory"):
            return [Event("check pockets")]
        if a == "look around" and parse_room(o):
            return [Event("survey room", parse_room(o))]
        if _rejected(o):
            return [Event("failed attempt")]
        target = _target(a, ("look at", "examine"))
        if target:
            if "stopwatch" in target and _TICKS_RE.search(o):
                return [Event("read timer", "stopwatch")]
            return [Event("inspect", target)]
        if low.startswith("the door is already open"):
            return []
        return []


# --------------------------------------------------------------------------------------------------
# The scripted agent
# --------------------------------------------------------------------------------------------------


class _Agent:
    """Wraps each task's gold sequence in seeded detours (see the module docstring)."""

    def __init__(self, rec: _Recorder, rng: random.Random) -> None:
        self.rec = rec
        self.rng = rng
        self.gold_text = ""
        self.teleport = False
        self.own_items: set[str] = set()  # items this agent pocketed during the current task

    # -- helpers ---------------------------------------------------------------------------------
    def act(self, action: str) -> str:
        obs = self.rec.act(action)
        if obs.strip().lower().startswith("ambiguous request"):
            obs = self.rec.act("0")
        return obs

    def _free_of_gold(self, name: str) -> bool:
        return bool(name) and name not in self.gold_text and not any(
            w in self.gold_text for w in name.split() if len(w) > 3 and w not in ("light", "bulb", "wire")
        )

    def visible(self) -> list[str]:
        return [o for o in parse_objects(self.rec.look) if o not in ("air", "ground", "agent")]

    def pocketable(self) -> list[str]:
        look = self.rec.look.lower()
        names = [n for n in POCKETABLE if re.search(r"\b(a|an) " + re.escape(n) + r"\b", look)]
        names += sorted(set(re.findall(r"\ba ([a-z]+ wire)\b", look)))
        names += sorted(set(re.findall(r"\ba ([a-z]+ light bulb)\b", look)))
        return [n for n in names if self._free_of_gold(n) and n not in self.rec.inventory]

    # -- detour units ----------------------------------------------------------------------------
    def look_around(self) -> None:
        self.act("look around")

    def check_inventory(self) -> None:
        self.act("inventory")

    def inspect(self) -> None:
        things = [o for o in self.visible() if self._free_of_gold(o) or "inclined plane" in o]
        if things:
            verb = self.rng.choice(("look at", "look at", "examine"))
            self.act(f"{verb} {self.rng.choice(things)}")
        else:
            self.act("look around")

    def fail(self) -> None:
        closed = [d for d, is_open in parse_doors(self.rec.look) if not is_open]
        r = self.rng.random()
        if closed and r < 0.3:
            self.act(f"go to {self.rng.choice(closed)}")
        elif r < 0.55:
            self.act(self.rng.choice(NONSENSE))
        elif r < 0.8:
            elsewhere = [x for x in ROOMS if x not in [d for d, _ in parse_doors(self.rec.look)] and x != self.rec.room]
            self.act(f"open door to {self.rng.choice(elsewhere or ['attic'])}")
        else:
            word = self.rng.choice(("thermometr", "stopwach", "kitchn", "hallwya", "invntory", "lok around"))
            self.act(self.rng.choice(("pick up ", "go to ", "")) + word)

    def pick_up(self) -> bool:
        items = self.pocketable()
        if not items:
            return False
        item = self.rng.choice(items)
        self.act(f"pick up {item}")
        if item in self.rec.inventory:
            self.own_items.add(item)
        return True

    def drop(self, keep_gold: bool = True) -> bool:
        items = [i for i in self.rec.inventory if i in self.own_items or (i == "orange" and not keep_gold)]
        if not items:
            return False
        item = self.rng.choice(sorted(items))
        self.act(f"drop {item}")
        self.own_items.discard(item)
        return True

    def eat(self) -> bool:
        food = [i for i in EDIBLE if i in self.rec.inventory]
        if not food:
            return False
        self.act(f"eat {self.rng.choice(food)}")
        return True

    def container(self) -> bool:
        look = self.rec.look.lower()
        shut = [c for c in CONTAINERS if f"the {c} door is closed" in look and self._free_of_gold(c)]
        if not shut:
            return False
        c = self.rng.choice(shut)
        self.act(f"open {c}")
        if self.rng.random() < 0.5:
            self.act(f"look at {c}")
        if self.rng.random() < 0.7:
            self.act(f"close {c}")
        return True

    def tap(self) -> bool:
        if "a sink, which is turned off" not in self.rec.look or "sink" in self.gold_text:
            return False
        self.act("activate sink")
        if self.rng.random() < 0.5:
            self.act("look at sink")
        self.act("deactivate sink")
        return True

    def read_stopwatch(self) -> bool:
        if "stopwatch" not in self.rec.inventory:
            return False
        self.act(self.rng.choice(("examine stopwatch in inventory", "look at stopwatch in inventory")))
        return True

    def excursion(self, allow_pick: bool) -> None:
        """Walk out through one to three doors and come back to the room it started in."""
        home = self.rec.room
        path = [home]
        opened_here: list[str] = []
        for hop in range(self.rng.randint(1, 3)):
            doors = parse_doors(self.rec.look)
            options = [d for d in doors if d[0] not in path] or doors
            if not options:
                break
            dest, is_open = self.rng.choice(options)
            if not is_open:
                if self.rng.random() < 0.25:
                    self.act(f"go to {dest}")  # forgot the door: rejected
                self.act(f"open door to {dest}")
                if hop == 0:
                    opened_here.append(dest)
            self.act(f"go to {dest}")
            if self.rec.room != dest:
                break
            path.append(dest)
            r = self.rng.random()
            if r < 0.35:
                self.look_around()
            elif r < 0.55:
                self.inspect()
            elif r < 0.7 and allow_pick:
                self.pick_up()
        self.return_to(home, path)
        if opened_here and self.rec.room == home and self.rng.random() < 0.5:
            self.act(f"close door to {opened_here[0]}")

    def return_to(self, home: str, path: list[str]) -> None:
        if self.rec.room == home:
            return
        if self.teleport and self.rng.random() < 0.5:
            self.act(f"teleport to {home}")
        else:
            for room in reversed(path[:-1]):
                self.act(f"go to {room}")
        if self.rec.room != home and self.teleport:
            self.act(f"teleport to {home}")

    def warp_round_trip(self) -> None:
        home = self.rec.room
        dest = self.rng.choice([r for r in ROOMS if r != home])
        self.act(f"teleport to {dest}")
        if self.rng.random() < 0.6:
            self.look_around()
        if self.rec.room != home:
            self.act(f"teleport to {home}")

    def roam(self) -> None:
        """One move that does not return: through a door, or by teleport."""
        if self.teleport and self.rng.random() < 0.4:
            self.act(f"teleport to {self.rng.choice([r for r in ROOMS if r != self.rec.room])}")
            return
        doors = parse_doors(self.rec.look)
        if not doors:
            self.look_around()
            return
        dest, is_open = self.rng.choice(doors)
        if not is_open:
            self.act(f"open door to {dest}")
        self.act(f"go to {dest}")

    # -- phases ----------------------------------------------------------------------------------
    def _unit(self, weights: dict[str, float], allow_pick: bool) -> None:
        names = list(weights)
        choice = self.rng.choices(names, weights=[weights[n] for n in names])[0]
        done = True
        if choice == "look":
            self.look_around()
        elif choice == "inventory":
            self.check_inventory()
        elif choice == "inspect":
            self.inspect()
        elif choice == "fail":
            self.fail()
        elif choice == "pick":
            done = allow_pick and self.pick_up()
        elif choice == "drop":
            done = self.drop()
        elif choice == "eat":
            done = self.eat()
        elif choice == "container":
            done = self.container()
        elif choice == "tap":
            done = self.tap()
        elif choice == "wait":
            self.act(self.rng.choice(("wait1", "wait1", "wait")))
        elif choice == "read":
            done = self.read_stopwatch()
        elif choice == "excursion":
            self.excursion(allow_pick)
        elif choice == "warp":
            if self.teleport:
                self.warp_round_trip()
            else:
                done = False
        elif choice == "roam":
            self.roam()
        if not done:
            self.look_around() if self.rng.random() < 0.5 else self.check_inventory()

    def wander(self, n_steps: int, weights: dict[str, float], allow_pick: bool) -> None:
        target = len(self.rec.steps) + n_steps
        while len(self.rec.steps) < target:
            self._unit(weights, allow_pick)

    PRE: ClassVar[dict[str, float]] = {"look": 3, "inventory": 2, "inspect": 3, "fail": 1.5, "pick": 3, "eat": 0.7, "container": 1.2,
           "tap": 0.6, "excursion": 3, "warp": 1.5, "wait": 0.6}
    MID: ClassVar[dict[str, float]] = {"look": 3, "inventory": 2, "inspect": 2, "fail": 1.5, "read": 1.5, "excursion": 0.8, "warp": 0.5}
    QUIET: ClassVar[dict[str, float]] = {"look": 2, "inventory": 3, "inspect": 2, "fail": 2}
    POST: ClassVar[dict[str, float]] = {"look": 2, "inventory": 1.5, "inspect": 2, "fail": 1, "pick": 3, "drop": 2, "eat": 1, "container": 1,
            "tap": 0.6, "excursion": 1.5, "warp": 1, "wait": 1, "read": 1, "roam": 3}

    def run_task(self, spec: TaskSpec, variation: int, teleport: bool, level: int, post_steps: int) -> None:
        """One task: pre-experiment wandering, the gold sequence with detours, roaming afterwards."""
        rec = self.rec
        self.teleport = teleport
        self.own_items = set()
        gold = rec.begin(spec, variation, "teleportAction" if teleport else "")
        self.gold_text = " ".join(gold).lower()
        home = rec.room
        if level >= 2 and not spec.clocked:
            self.wander(self.rng.randint(12, 40), self.PRE, allow_pick=True)
            self.return_to(home, [home, rec.room])
            while self.drop():
                pass
        elif level >= 1:
            for _ in range(self.rng.randint(1, 4)):
                self._unit(self.QUIET, allow_pick=False)
        for action in gold:
            if level >= 1 and self.rng.random() < (0.12 if spec.clocked else 0.3):
                if spec.clocked:
                    self._unit(self.QUIET, allow_pick=False)
                else:
                    weights = dict(self.MID)
                    if level < 2:
                        weights.pop("excursion")
                        weights.pop("warp")
                    self._unit(weights, allow_pick=False)
            self.act(action)
        self.wander(post_steps, self.POST, allow_pick=True)


# --------------------------------------------------------------------------------------------------
# Episode
# --------------------------------------------------------------------------------------------------


def _plan(seed: int) -> list[tuple[TaskSpec, bool]]:
    rng = random.Random(f"{SUITE}-plan-{seed}")
    n = rng.randint(4, 6)
    pool = list(TASKS)
    rng.shuffle(pool)
    chosen: list[TaskSpec] = []
    per_group: Counter[str] = Counter()
    for spec in pool:
        cap = 1 if spec.group == "inclined plane" else 2
        if len(chosen) < n and per_group[spec.group] < cap:
            chosen.append(spec)
            per_group[spec.group] += 1
    return [(spec, rng.random() < 0.55) for spec in chosen]


#: Diagnostics: the worlds each rollout loaded (a task appears twice when it was replayed).
LAST_LOADS: dict[int, list[str]] = {}


def rollout(seed: int) -> list[Step]:
    """The episode's steps, from the real simulator."""
    rng = random.Random(f"{SUITE}-agent-{seed}")
    sim = _Simulator()
    try:
        rec = _Recorder(sim)
        agent = _Agent(rec, rng)
        plan = _plan(seed)
        for i, (spec, teleport) in enumerate(plan):
            variation = rng.randrange(min(sim.max_variations(spec.name), 200))
            post = rng.randint(12, 40)
            if i == len(plan) - 1:
                post = max(post, 330 - len(rec.steps))
            state = rng.getstate()
            snap = rec.snapshot()
            for level in (2, 1, 0):
                rng.setstate(state)
                rng.random()  # a different but fixed stream per attempt
                rng.seed(f"{SUITE}-agent-{seed}-{i}-{level}")
                rec.rollback(snap)
                agent.run_task(spec, variation, teleport, level, post)
                if rec.completed:
                    break
        LAST_LOADS[seed] = list(sim.loads)
        return rec.steps
    finally:
        sim.close()


# --------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the Step records
# --------------------------------------------------------------------------------------------------

Key = tuple[str, str]  # (event kind, event object); object None-like "" for object-less kinds

#: Kinds that questions never ask about (clarification prompts are plumbing).
UNASKED = frozenset({"asked which one"})
#: Kinds whose action text is the event itself (asking for the action would give nothing away).
ACTION_IMPLIED = frozenset({"walk to", "warp to", "open door", "close door", "survey room", "check pockets",
                            "open container", "close container", "snack on", "switch on", "switch off", "pick up",
                            "set down"})
#: Kinds whose object is the room the agent ends up in (asking "where" about them would be trivial).
ROOM_KINDS = frozenset({"walk to", "warp to", "survey room"})


def ev_text(kind: str, obj: str) -> str:
    return f"{kind} {obj}" if obj else kind


def fmt_inventory(step: Step) -> str:
    items = [(n, c) for n, c in step.inventory if c > 0]
    return ", ".join(f"{n} {c}" for n, c in sorted(items)) if items else "none"


def fmt_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def fmt_events(step: Step) -> str:
    return "; ".join(ev_text(e.kind, e.obj) for e in step.events) or "none"


def first_true(flags: Sequence[bool], last: bool = False) -> int | None:
    """Index of the first (or last) true flag."""
    order = range(len(flags) - 1, -1, -1) if last else range(len(flags))
    for i in order:
        if flags[i]:
            return i
    return None


class Trace:
    """Index over one episode's steps; every query is a linear scan of the records."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.n = len(self.steps)

    def sid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def hits(self, kind: str, obj: str | None = None, lo: int = 0, hi: int | None = None) -> list[int]:
        """Step indices of matching events in [lo, hi] (one entry per matching event, in order)."""
        hi = self.n - 1 if hi is None else hi
        out: list[int] = []
        for step in self.steps[max(lo, 0): hi + 1]:
            for e in step.events:
                if e.kind == kind and (obj is None or e.obj == obj):
                    out.append(step.t)
        return out

    def nth(self, kind: str, obj: str | None, n: int, lo: int = 0, hi: int | None = None) -> int | None:
        h = self.hits(kind, obj, lo, hi)
        if n > 0:
            return h[n - 1] if len(h) >= n else None
        return h[n] if len(h) >= -n else None

    def keys(self) -> list[Key]:
        seen: dict[Key, None] = {}
        for step in self.steps:
            for e in step.events:
                if e.kind not in UNASKED:
                    seen.setdefault((e.kind, e.obj), None)
        return list(seen)

    def objects_of(self, kind: str, lo: int, hi: int) -> tuple[list[str], list[int]]:
        objs: list[str] = []
        ts: list[int] = []
        for step in self.steps[lo: hi + 1]:
            for e in step.events:
                if e.kind == kind:
                    ts.append(step.t)
                    if e.obj not in objs:
                        objs.append(e.obj)
        return objs, ts

    def slot(self, t: int, slot: str, arg: str = "") -> str:
        step = self.steps[t]
        if slot == "action":
            return step.action
        if slot == "step":
            return str(t)
        if slot == "location":
            return step.location.region or (
                f"{step.location.position[0]},{step.location.position[1]}" if step.location.position else ""
            )
        if slot == "item":
            return str(step.inventory_dict.get(arg, 0))
        if slot == "inventory":
            return fmt_inventory(step)
        if slot == "state":
            return fmt_scalar(step.state_dict[arg])
        if slot == "events":
            return fmt_events(step)
        raise ValueError(slot)

    def item(self, t: int, name: str) -> int:
        return self.steps[t].inventory_dict.get(name, 0)

    def state(self, t: int, name: str) -> Any:
        return self.steps[t].state_dict[name]

    def items_seen(self) -> list[str]:
        out: dict[str, None] = {}
        for step in self.steps:
            for name, count in step.inventory:
                if count > 0:
                    out.setdefault(name, None)
        return list(out)

    def objects_seen(self) -> set[str]:
        return {o for step in self.steps for o in step.objects}


# --------------------------------------------------------------------------------------------------
# Wording: the suite's own lexicon
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subject:
    first: str  # "the agent"
    later: str  # "it"
    poss: str  # "its"
    have: str  # "has"
    be: str  # "was"


SUBJECTS: tuple[Subject, ...] = (
    Subject("I", "I", "my", "have", "was"),
    Subject("I", "I", "my", "have", "was"),
    Subject("we", "we", "our", "have", "were"),
    Subject("you", "you", "your", "have", "were"),
    Subject("the agent", "it", "its", "has", "was"),
)

# (past, base, gerund, participle); {o} is the object as shown, {p} the subject's possessive.
Forms = tuple[str, str, str, str]
LEXICON: dict[str, tuple[Forms, ...]] = {
    "walk to": (
        ("walked into the {o}", "walk into the {o}", "walking into the {o}", "walked into the {o}"),
        ("went on foot to the {o}", "go on foot to the {o}", "going on foot to the {o}", "gone on foot to the {o}"),
        ("walked through a doorway into the {o}", "walk through a doorway into the {o}",
         "walking through a doorway into the {o}", "walked through a doorway into the {o}"),
        ("stepped into the {o} on foot", "step into the {o} on foot", "stepping into the {o} on foot",
         "stepped into the {o} on foot"),
    ),
    "warp to": (
        ("teleported to the {o}", "teleport to the {o}", "teleporting to the {o}", "teleported to the {o}"),
        ("warped to the {o}", "warp to the {o}", "warping to the {o}", "warped to the {o}"),
        ("teleported over to the {o}", "teleport over to the {o}", "teleporting over to the {o}",
         "teleported over to the {o}"),
    ),
    "open door": (
        ("opened the {o}", "open the {o}", "opening the {o}", "opened the {o}"),
        ("swung open the {o}", "swing open the {o}", "swinging open the {o}", "swung open the {o}"),
        ("pulled open the {o}", "pull open the {o}", "pulling open the {o}", "pulled open the {o}"),
    ),
    "close door": (
        ("closed the {o}", "close the {o}", "closing the {o}", "closed the {o}"),
        ("shut the {o}", "shut the {o}", "shutting the {o}", "shut the {o}"),
    ),
    "open container": (
        ("opened the {o}", "open the {o}", "opening the {o}", "opened the {o}"),
        ("opened up the {o}", "open up the {o}", "opening up the {o}", "opened up the {o}"),
    ),
    "close container": (
        ("closed the {o}", "close the {o}", "closing the {o}", "closed the {o}"),
        ("shut the {o}", "shut the {o}", "shutting the {o}", "shut the {o}"),
    ),
    "pick up": (
        ("picked up the {o}", "pick up the {o}", "picking up the {o}", "picked up the {o}"),
        ("took the {o}", "take the {o}", "taking the {o}", "taken the {o}"),
        ("grabbed the {o}", "grab the {o}", "grabbing the {o}", "grabbed the {o}"),
        ("pocketed the {o}", "pocket the {o}", "pocketing the {o}", "pocketed the {o}"),
    ),
    "set down": (
        ("dropped the {o}", "drop the {o}", "dropping the {o}", "dropped the {o}"),
        ("put down the {o}", "put down the {o}", "putting down the {o}", "put down the {o}"),
        ("let go of the {o}", "let go of the {o}", "letting go of the {o}", "let go of the {o}"),
    ),
    "transfer": (
        ("moved the {o} onto another object", "move the {o} onto another object",
         "moving the {o} onto another object", "moved the {o} onto another object"),
        ("placed the {o} on something", "place the {o} on something", "placing the {o} on something",
         "placed the {o} on something"),
    ),
    "wire up": (
        ("connected a wire to the {o}", "connect a wire to the {o}", "connecting a wire to the {o}",
         "connected a wire to the {o}"),
        ("wired up the {o}", "wire up the {o}", "wiring up the {o}", "wired up the {o}"),
        ("hooked the {o} up to a wire", "hook the {o} up to a wire", "hooking the {o} up to a wire",
         "hooked the {o} up to a wire"),
    ),
    "single out": (
        ("focused on the {o}", "focus on the {o}", "focusing on the {o}", "focused on the {o}"),
        ("singled out the {o}", "single out the {o}", "singling out the {o}", "singled out the {o}"),
        ("picked the {o} as the answer", "pick the {o} as the answer", "picking the {o} as the answer",
         "picked the {o} as the answer"),
    ),
    "start timer": (
        ("started the stopwatch", "start the stopwatch", "starting the stopwatch", "started the stopwatch"),
        ("set the stopwatch running", "set the stopwatch running", "setting the stopwatch running",
         "set the stopwatch running"),
        ("switched the stopwatch on", "switch the stopwatch on", "switching the stopwatch on",
         "switched the stopwatch on"),
    ),
    "stop timer": (
        ("stopped the stopwatch", "stop the stopwatch", "stopping the stopwatch", "stopped the stopwatch"),
        ("halted the stopwatch", "halt the stopwatch", "halting the stopwatch", "halted the stopwatch"),
        ("switched the stopwatch off", "switch the stopwatch off", "switching the stopwatch off",
         "switched the stopwatch off"),
    ),
    "read timer": (
        ("read the stopwatch", "read the stopwatch", "reading the stopwatch", "read the stopwatch"),
        ("checked the time on the stopwatch", "check the time on the stopwatch",
         "checking the time on the stopwatch", "checked the time on the stopwatch"),
    ),
    "inspect": (
        ("looked at the {o}", "look at the {o}", "looking at the {o}", "looked at the {o}"),
        ("examined the {o}", "examine the {o}", "examining the {o}", "examined the {o}"),
        ("inspected the {o}", "inspect the {o}", "inspecting the {o}", "inspected the {o}"),
        ("took a closer look at the {o}", "take a closer look at the {o}", "taking a closer look at the {o}",
         "taken a closer look at the {o}"),
    ),
    "survey room": (
        ("looked around the {o}", "look around the {o}", "looking around the {o}", "looked around the {o}"),
        ("surveyed the {o}", "survey the {o}", "surveying the {o}", "surveyed the {o}"),
        ("looked around while in the {o}", "look around while in the {o}", "looking around while in the {o}",
         "looked around while in the {o}"),
    ),
    "check pockets": (
        ("checked {p} inventory", "check {p} inventory", "checking {p} inventory", "checked {p} inventory"),
        ("looked through {p} inventory", "look through {p} inventory", "looking through {p} inventory",
         "looked through {p} inventory"),
        ("went through {p} pockets", "go through {p} pockets", "going through {p} pockets",
         "gone through {p} pockets"),
    ),
    "pause": (
        ("waited", "wait", "waiting", "waited"),
        ("paused", "pause", "pausing", "paused"),
        ("stood by and let time pass", "stand by and let time pass", "standing by and letting time pass",
         "stood by and let time pass"),
    ),
    "failed attempt": (
        ("had a command rejected", "have a command rejected", "having a command rejected",
         "had a command rejected"),
        ("tried an action that failed", "try an action that failed", "trying an action that failed",
         "tried an action that failed"),
        ("typed a command that did not work", "type a command that did not work",
         "typing a command that did not work", "typed a command that did not work"),
    ),
    "snack on": (
        ("ate the {o}", "eat the {o}", "eating the {o}", "eaten the {o}"),
        ("snacked on the {o}", "snack on the {o}", "snacking on the {o}", "snacked on the {o}"),
    ),
    "switch on": (
        ("turned on the {o}", "turn on the {o}", "turning on the {o}", "turned on the {o}"),
        ("switched on the {o}", "switch on the {o}", "switching on the {o}", "switched on the {o}"),
    ),
    "switch off": (
        ("turned off the {o}", "turn off the {o}", "turning off the {o}", "turned off the {o}"),
        ("switched off the {o}", "switch off the {o}", "switching off the {o}", "switched off the {o}"),
    ),
    "begin task": (
        ("started the {o} task", "start the {o} task", "starting the {o} task", "started the {o} task"),
        ("began the {o} task", "begin the {o} task", "beginning the {o} task", "begun the {o} task"),
        ("got going on the {o} task", "get going on the {o} task", "getting going on the {o} task",
         "gotten going on the {o} task"),
    ),
    "finish task": (
        ("finished the {o} task", "finish the {o} task", "finishing the {o} task", "finished the {o} task"),
        ("completed the {o} task", "complete the {o} task", "completing the {o} task", "completed the {o} task"),
        ("solved the {o} task", "solve the {o} task", "solving the {o} task", "solved the {o} task"),
    ),
}
#: Events that happen to a thing rather than being done by the agent: verb forms after "the <thing>".
NONAGENT: dict[str, tuple[Forms, ...]] = {
    "bulb glows": (
        ("lit up", "light up", "lighting up", "lit up"),
        ("came on", "come on", "coming on", "come on"),
        ("started to glow", "start to glow", "starting to glow", "started to glow"),
    ),
}
#: Any object of a kind: (past, base, gerund, participle), and the plural noun a list question asks for.
ANY_OBJECT: dict[str, tuple[tuple[Forms, ...], str]] = {
    "walk to": ((("walked into a room", "walk into a room", "walking into a room", "walked into a room"),
                 ("went somewhere on foot", "go somewhere on foot", "going somewhere on foot",
                  "gone somewhere on foot")),
                "rooms did {s} walk into"),
    "warp to": ((("teleported somewhere", "teleport somewhere", "teleporting somewhere", "teleported somewhere"),
                 ("used a teleport", "use a teleport", "using a teleport", "used a teleport")),
                "rooms did {s} teleport to"),
    "open door": ((("opened a door", "open a door", "opening a door", "opened a door"),),
                  "doors did {s} open"),
    "pick up": ((("picked something up", "pick something up", "picking something up", "picked something up"),
                 ("took an object", "take an object", "taking an object", "taken an object")),
                "things did {s} pick up"),
    "set down": ((("dropped something", "drop something", "dropping something", "dropped something"),),
                 "things did {s} drop"),
    "survey room": ((("looked around", "look around", "looking around", "looked around"),),
                    "rooms did {s} look around in"),
    "single out": ((("focused on something", "focus on something", "focusing on something", "focused on something"),),
                   "things did {s} focus on"),
    "wire up": ((("made a wire connection", "make a wire connection", "making a wire connection",
                  "made a wire connection"),),
                "devices did {s} connect wires to"),
    "snack on": ((("ate something", "eat something", "eating something", "eaten something"),),
                 "things did {s} eat"),
    "finish task": ((("finished a task", "finish a task", "finishing a task", "finished a task"),
                     ("completed a task", "complete a task", "completing a task", "completed a task")),
                    "tasks did {s} complete"),
    "open container": ((("opened a container", "open a container", "opening a container", "opened a container"),),
                       "containers did {s} open"),
}
#: Nouns for some events ("my third trip on foot to the kitchen").
EVENT_NOUNS: dict[str, tuple[str, ...]] = {
    "walk to": ("walk into the {o}", "trip on foot to the {o}"),
    "warp to": ("teleport to the {o}", "teleport trip to the {o}"),
    "check pockets": ("inventory check", "look through {p} inventory"),
    "failed attempt": ("failed command", "rejected command"),
    "pause": ("wait", "pause"),
    "survey room": ("look around the {o}",),
    "read timer": ("check of the stopwatch",),
    "pick up": ("pickup of the {o}",),
    "single out": ("focus on the {o}",),
    "open door": ("opening of the {o}",),
    "inspect": ("look at the {o}", "examination of the {o}"),
}
ORDINALS = {1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"),
            5: ("fifth", "5th"), 6: ("sixth", "6th")}
STATE_NOUNS = {
    "score": ("{p} score", "the score", "{p} task score"),
    "task": ("the task {s} {was} working on", "{p} current task", "the active task"),
    "tasks finished": ("the number of tasks {s} had finished", "{p} count of completed tasks",
                       "how many tasks were done"),
    "stopwatch reading": ("the last stopwatch reading {s} had seen", "the most recent stopwatch reading, in ticks",
                          "the last number of ticks {s} had read off a stopwatch"),
    "stopwatch running": ("whether the stopwatch was running (true or false)",
                          "the stopwatch's running state (true/false)"),
}


def _display(kind: str, obj: str) -> str:
    if kind in ("open door", "close door") and obj.startswith("door to "):
        return "door to the " + obj[len("door to "):]
    return obj


def plural(name: str) -> str:
    if " of " in name:
        head, tail = name.split(" of ", 1)
        return f"{plural(head)} of {tail}"
    if name.endswith(("s", "sh", "ch", "x")):
        return name + "es"
    if name.endswith("y") and name[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


class Phrase:
    """How one event (kind, object) or one kind with any object is said, in one chosen paraphrase."""

    def __init__(self, kind: str, obj: str | None, rng: random.Random) -> None:
        self.kind, self.obj = kind, obj
        shown = _display(kind, obj or "")
        self.shown = shown
        self.agentive = kind not in NONAGENT
        if obj is None:
            forms = rng.choice(ANY_OBJECT[kind][0])
            self.forms4 = forms
        elif self.agentive:
            self.forms4 = tuple(f.replace("{o}", shown) for f in rng.choice(LEXICON[kind]))  # type: ignore[assignment]
        else:
            self.forms3 = rng.choice(NONAGENT[kind])

    def _who(self, s: Subject, later: bool, adv: str) -> str:
        who = s.later if later else s.first
        return f"{who} {adv}" if adv else who

    def past(self, s: Subject, later: bool = False, adv: str = "") -> str:
        """'I walked into the kitchen' / 'the red light bulb lit up'; adv goes after the subject."""
        if not self.agentive:
            return " ".join(x for x in (f"the {self.shown}", adv, self.forms3[0]) if x)
        return f"{self._who(s, later, adv)} {self.forms4[0].replace('{p}', s.poss)}"

    def did(self, s: Subject, later: bool = False, adv: str = "") -> str:
        """Clause after 'did': 'I walk into the kitchen' / 'the red light bulb light up'."""
        if not self.agentive:
            return " ".join(x for x in (f"the {self.shown}", adv, self.forms3[1]) if x)
        return f"{self._who(s, later, adv)} {self.forms4[1].replace('{p}', s.poss)}"

    def did_ever(self, s: Subject, later: bool = False) -> str:
        """Clause after 'did' with 'ever': 'I ever walk into the kitchen'."""
        return self.did(s, later, "ever")

    def base(self, s: Subject) -> str:
        """The bare verb phrase 'walk into the kitchen' (agentive kinds)."""
        return self.forms4[1].replace("{p}", s.poss)

    def ger(self, s: Subject) -> str:
        """'walking into the kitchen' / 'the red light bulb lighting up'."""
        if not self.agentive:
            return f"the {self.shown} {self.forms3[2]}"
        return self.forms4[2].replace("{p}", s.poss)

    def perfect(self, s: Subject, later: bool = False) -> str:
        """Question opening: 'have I ever walked into the kitchen' / 'did the red light bulb ever light up'."""
        if not self.agentive:
            return f"did the {self.shown} ever {self.forms3[1]}"
        who = s.later if later else s.first
        return f"{s.have} {who} ever {self.forms4[3].replace('{p}', s.poss)}"

    def had(self, s: Subject, later: bool = False, adv: str = "") -> str:
        """Clause after 'had' in a question: 'I most recently walked into the kitchen' (participle)."""
        if not self.agentive:
            return " ".join(x for x in (f"the {self.shown}", adv, self.forms3[3]) if x)
        return f"{self._who(s, later, adv)} {self.forms4[3].replace('{p}', s.poss)}"

    def nth(self, s: Subject, n: int, rng: random.Random, later: bool = False, adverbial: bool = False) -> str:
        """A noun phrase naming the n-th (n < 0: from the end) occurrence: 'the third time I ...' or 'my third
        inventory check' ('at my third inventory check' where it has to stand alone as a time adverbial)."""
        past = self.past(s, later)
        nouns = EVENT_NOUNS.get(self.kind, ()) if self.obj is not None else ()
        if nouns and rng.random() < 0.3:
            noun = rng.choice(nouns).replace("{o}", self.shown).replace("{p}", s.poss)
            owner = s.poss if later or s.first != "the agent" else "the agent's"
            word = {-1: "last", -2: "second-to-last"}.get(n) or rng.choice(ORDINALS[n])
            return f"{'at ' if adverbial else ''}{owner} {word} {noun}"
        if n == -1:
            return rng.choice((f"the last time {past}", f"the final time {past}", f"the very last time {past}"))
        if n == -2:
            return rng.choice((f"the second-to-last time {past}", f"the next-to-last time {past}",
                               f"the penultimate time {past}"))
        word = rng.choice(ORDINALS[n])
        return f"the {word} time {past}"


def article(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --------------------------------------------------------------------------------------------------
# Question families
# --------------------------------------------------------------------------------------------------

FAMILIES: tuple[str, ...] = (
    "1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
    "6_next_previous", "7_count", "8_order", "9_distance", "10_existence",
)
PER_FAMILY = 6
STATE_NAMES: tuple[str, ...] = ("score", "task", "tasks finished", "stopwatch reading", "stopwatch running")
#: A moment as two time expressions: naming the subject ("the third time the agent looked around") and
#: referring back to it ("the third time it looked around").
When = tuple[str, str]


SLOT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "action": ("What did {S} do {W}?", "Which command did {S} enter {W}?", "Tell me the exact action {S} took {W}.",
               "What was the action {W}?", "{W}, what did {L} do?", "{W}, which command did {L} type?"),
    "location": ("Where {be} {S} {W}?", "Which room {be} {S} in {W}?", "Name the room {S} {be} in {W}.",
                 "{W}, where {be} {L}?", "{W}, which room {be} {L} in?", "In what room {be} {S} {W}?"),
    "inventory": ("What {be} {S} carrying {W}?", "What was in {p} inventory {W}?", "List {p} inventory {W}.",
                  "{W}, what {be} {L} carrying?", "{W}, what did {L} have in {p} inventory?",
                  "Tell me everything {S} had on {o} {W}."),
    "item": ("How many {pl} did {S} have {W}?", "How many {pl} were in {p} inventory {W}?",
             "{W}, how many {pl} {be} {L} carrying?", "Give the number of {pl} in {p} inventory {W}."),
    "events": ("What happened {W}?", "Which events were recorded {W}?", "List the events logged {W}.",
               "{W}, what happened?", "{W}, which events took place?"),
    "state:score": ("What was {p} score {W}?", "How many points did {S} have {W}?", "{W}, what did the score read?",
                    "{W}, what was {p} task score?"),
    "state:task": ("Which task {be} {S} working on {W}?", "What was the current task {W}?",
                   "{W}, which task {be} {L} on?"),
    "state:tasks finished": ("How many tasks had {S} finished {W}?", "How many tasks had been completed {W}?",
                             "{W}, how many tasks had {L} completed?"),
    "state:stopwatch reading": ("What was the last stopwatch reading {S} had seen {W}?",
                                "{W}, what was the last stopwatch reading {L} had seen, in ticks?"),
    "state:stopwatch running": ("True or false: the stopwatch was running {W}.",
                                "Was the stopwatch running {W}? Answer true or false.",
                                "{W}, was the stopwatch running? Answer true or false."),
}
OBJECT_PRONOUN = {"I": "me", "we": "us", "you": "you", "the agent": "it"}


def fill_subject(text: str, s: Subject, later: bool) -> str:
    """Replace {S} (subject) and {p} (possessive): the first mention names the subject unless ``later``."""
    out = []
    named = later
    for part in re.split(r"(\{S\}|\{p\})", text):
        if part == "{S}":
            out.append(s.later if named else s.first)
            named = True
        elif part == "{p}":
            out.append(s.poss if named or s.first != "the agent" else "the agent's")
            named = True
        else:
            out.append(part)
    return "".join(out)


def render(template: str, s: Subject, when: When, item: str = "") -> str:
    """Fill a slot template. The time expression uses a pronoun for the subject only when the subject was
    already named before it; a template that opens with the time expression refers back with a pronoun."""
    if template.startswith("{W}"):
        w = when[0]
        if re.search(r"\b" + re.escape(s.first) + r"\b", w, flags=0 if s.first == "I" else re.IGNORECASE):
            text = template.replace("{W}", _cap(w))
            text = text.replace("{L}", s.later).replace("{S}", s.later).replace("{p}", s.poss)
        else:  # the time expression does not name the subject ("at step 40")
            text = fill_subject(template.replace("{W}", _cap(w)).replace("{L}", "{S}"), s, False)
    else:
        before = template[: template.index("{W}")]
        named = "{S}" in before or "{p}" in before
        text = template.replace("{W}", when[1] if named else when[0])
        if "{p}" in before and "{S}" not in before and s.first == "the agent":
            text = text.replace("{p}", "the agent's", 1)
        text = text.replace("{S}", s.first).replace("{L}", s.later).replace("{p}", s.poss)
    text = text.replace("{be}", s.be).replace("{o}", OBJECT_PRONOUN[s.first])
    if item:
        text = text.replace("{pl}", plural(item)).replace("{item}", item)
    return _cap(text)


class _Maker:
    def __init__(self, trace: Trace, seed: int) -> None:
        self.tr = trace
        self.rng = random.Random(f"{SUITE}-questions-{seed}")
        self.out: list[dict[str, Any]] = []
        self.texts: set[str] = set()
        self.keys = trace.keys()
        self.items = trace.items_seen()
        self.first_read = first_true([bool(_TICKS_RE.search(step.observation)) for step in trace.steps])

    # -- bookkeeping -----------------------------------------------------------------------------
    def add(self, family: str, slot: str, text: str, answer: str, gold: Sequence[int]) -> bool:
        text = " ".join(text.split())
        text = _cap(text)
        if text in self.texts or answer == "":
            return False
        self.texts.add(text)
        self.out.append({
            "episode": self.tr.episode, "family": family, "slot": slot, "question": text, "answer": answer,
            "gold": [self.tr.sid(t) for t in sorted(set(gold))],
        })
        return True

    def subj(self) -> Subject:
        return self.rng.choice(SUBJECTS)

    def pick_key(self, min_hits: int = 1, lo: int = 0, hi: int | None = None,
                 exclude: Sequence[str] = (), only: Sequence[str] = ()) -> Key | None:
        by_kind: dict[str, list[str]] = {}
        for kind, obj in self.keys:
            if kind in exclude or (only and kind not in only):
                continue
            if len(self.tr.hits(kind, obj, lo, hi)) >= min_hits:
                by_kind.setdefault(kind, []).append(obj)
        if not by_kind:
            return None
        kind = self.rng.choice(sorted(by_kind))
        return kind, self.rng.choice(by_kind[kind])

    def phrase(self, key: Key | tuple[str, None]) -> Phrase:
        return Phrase(key[0], key[1], self.rng)

    def pick_n(self, count: int) -> int:
        options = [1] * 3 + [n for n in (2, 3, 4, 5) if n <= count] + ([-1, -1] if count >= 2 else []) + (
            [-2] if count >= 3 else [])
        return self.rng.choice(options)

    # -- asking one slot at a moment -------------------------------------------------------------
    def state_for(self, t: int) -> str:
        names = ["score", "task", "tasks finished", "stopwatch running"]
        if self.first_read is not None and t >= self.first_read:
            names.append("stopwatch reading")
        return self.rng.choice(names)

    def item_for(self, t: int, avoid: str = "") -> str:
        held = [n for n, c in self.tr.steps[t].inventory if c > 0 and n != avoid]
        if held and self.rng.random() < 0.6:
            return self.rng.choice(held)
        others = [n for n in self.items if n != avoid]
        return self.rng.choice(others) if others else ""

    def ask(self, slot: str, t: int, s: Subject, when: When, arg: str = "") -> tuple[str, str] | None:
        """Question text and answer for one slot read at step t, the moment described by ``when``."""
        if slot == "item" and not arg:
            return None
        key = f"state:{arg}" if slot == "state" else slot
        template = self.rng.choice(SLOT_TEMPLATES[key])
        return render(template, s, when, arg), self.tr.slot(t, slot, arg)

    def informative(self, slot: str, t: int, kind: str) -> str:
        """Swap a slot whose answer the event itself gives away (the action of a walk, the lone event)."""
        trivial = (
            (slot == "action" and kind in ACTION_IMPLIED)
            or (slot == "events" and len(self.tr.steps[t].events) < 2)
            or (slot == "location" and kind in ROOM_KINDS)
        )
        if not trivial:
            return slot
        return self.rng.choice(("inventory", "state", "item") if self.items else ("inventory", "state"))

    def arg_for(self, slot: str, t: int, avoid: str = "") -> str:
        """The state or item a slot reads (never ``avoid``, the one the question's condition is about)."""
        if slot == "state":
            for _ in range(8):
                name = self.state_for(t)
                if name != avoid:
                    return name
            return "task"
        return self.item_for(t, avoid) if slot == "item" else ""

    def pick_slot(self, slots: Sequence[str], kind: str = "") -> str:
        choices = [x for x in slots if not (x == "location" and kind in ROOM_KINDS)]
        if not self.items:
            choices = [x for x in choices if x != "item"]
        return self.rng.choice(choices)

    def _slot_cycle(self, slots: Sequence[str]) -> list[str]:
        order = list(slots)
        self.rng.shuffle(order)
        return order

    # -- family 1 --------------------------------------------------------------------------------
    def f1(self) -> None:
        n = self.tr.n
        slots = self._slot_cycle(("action", "location", "inventory", "item", "state", "events"))
        i = 0
        while sum(q["family"] == "1_step_index" for q in self.out) < PER_FAMILY and i < 60:
            slot = slots[i % len(slots)]
            i += 1
            t = self.rng.randrange(1, n)
            if slot == "item" and not self.items:
                continue
            arg = self.state_for(t) if slot == "state" else self.item_for(t) if slot == "item" else ""
            s = self.subj()
            if slot in ("action", "events"):
                word = self.rng.choice(("at step {t}", "at step {t}", "in step {t}"))
            else:
                word = self.rng.choice(("at step {t}", "at step {t}", "as of step {t}", "at the end of step {t}"))
            word = word.format(t=t)
            got = self.ask(slot, t, s, (word, word), arg)
            if got:
                self.add("1_step_index", slot, got[0], got[1], [t])

    # -- family 2 --------------------------------------------------------------------------------
    def f2(self) -> None:
        slots = ("step", "step", "location", "action", "inventory", "state", "item", "events")
        tries = 0
        while self._count("2_nth_occurrence") < PER_FAMILY and tries < 80:
            tries += 1
            key = self.pick_key(exclude=("begin task",))
            if key is None:
                return
            hits = self.tr.hits(*key)
            n = self.pick_n(len(hits))
            t = self.tr.nth(key[0], key[1], n)
            if t is None:
                continue
            ph, s = self.phrase(key), self.subj()
            slot = self.rng.choice(slots)
            if slot == "step":
                text = self._ask_step_nth(ph, s, n)
                self.add("2_nth_occurrence", "step", text, str(t), [t])
                continue
            slot = self.informative(slot, t, key[0])
            moment = (ph.nth(s, n, self.rng, adverbial=True), ph.nth(s, n, self.rng, True, adverbial=True))
            got = self.ask(slot, t, s, moment, self.arg_for(slot, t, key[1]))
            if got:
                self.add("2_nth_occurrence", slot, got[0], got[1], [t])

    def _ask_step_nth(self, ph: Phrase, s: Subject, n: int) -> str:
        r = self.rng
        if n == 1:
            return r.choice((f"When did {ph.did(s, adv='first')}?",
                             f"At which step did {ph.did(s)} for the first time?",
                             f"When did {ph.did(s)}?", f"Give the step at which {ph.past(s, adv='first')}."))
        if n == 2:
            return r.choice((f"When did {ph.did(s)} again?", f"At which step did {ph.did(s)} for the second time?",
                             f"What step was {ph.nth(s, 2, r)}?"))
        if n == -1:
            return r.choice((f"When did {ph.did(s, adv='last')}?", f"What step was {ph.nth(s, -1, r)}?",
                             f"Give the step number of {ph.nth(s, -1, r)}."))
        if n == -2:
            return r.choice((f"What step was {ph.nth(s, -2, r)}?", f"Give the step number of {ph.nth(s, -2, r)}."))
        word = r.choice(ORDINALS[n])
        return r.choice((f"At which step did {ph.did(s)} for the {word} time?", f"What step was {ph.nth(s, n, r)}?",
                         f"When did {ph.did(s)} for the {word} time?"))

    def _count(self, family: str) -> int:
        return sum(q["family"] == family for q in self.out)

    # -- family 3 --------------------------------------------------------------------------------
    def f3(self) -> None:
        fam = "3_windowed_occurrence"
        n = self.tr.n
        shapes = ["after", "before", "between", "after_event", "after_any", "first_n", "before_any", "after"]
        self.rng.shuffle(shapes)
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 120:
            shape = shapes[tries % len(shapes)]
            tries += 1
            s, r = self.subj(), self.rng
            slot = self.pick_slot(("step", "step", "location", "action", "inventory", "state", "events", "item"))
            anchors: list[int] = []
            if shape in ("after", "after_any"):
                cut = r.randrange(n // 6, n - n // 6)
                key: Any = self.pick_key(1, cut + 1, None, exclude=("begin task",))
                if shape == "after_any":
                    kinds = [k for k in ANY_OBJECT if self.tr.hits(k, None, cut + 1) and self.tr.hits(k, None, 0, cut)]
                    if not kinds:
                        continue
                    key = (r.choice(sorted(kinds)), None)
                if key is None or not self.tr.hits(key[0], key[1], 0, cut):
                    continue  # the window must matter
                t = self.tr.hits(key[0], key[1], cut + 1)[0]
                ph = self.phrase(key)
                tail = r.choice((f"after step {cut}", f"once step {cut} had passed"))
                when: When = (f"the first time {ph.past(s)} {tail}", f"the first time {ph.past(s, True)} {tail}")
                step_q = r.choice((f"After step {cut}, when did {ph.did(s, adv='first')}?",
                                   f"What was the first step after step {cut} at which {ph.past(s)}?",
                                   f"When did {ph.did(s, adv='next')} after step {cut}?"))
            elif shape in ("before", "before_any", "first_n"):
                cut = r.randrange(n // 4, n - 1)
                if shape == "first_n":
                    cut = r.choice((100, 150, 200, 250, 300, 400)) if n > 420 else r.choice((100, 150, 200, 250))
                key = self.pick_key(1, 0, cut - 1, exclude=("begin task",))
                if shape == "before_any":
                    kinds = [k for k in ANY_OBJECT if self.tr.hits(k, None, 0, cut - 1) and self.tr.hits(k, None, cut)]
                    if not kinds:
                        continue
                    key = (r.choice(sorted(kinds)), None)
                if key is None or not self.tr.hits(key[0], key[1], cut):
                    continue
                t = self.tr.hits(key[0], key[1], 0, cut - 1)[-1]
                ph = self.phrase(key)
                if shape == "first_n":
                    tail = f"within the first {cut} steps"
                    step_q = r.choice((f"In the first {cut} steps, when did {ph.did(s, adv='last')}?",
                                       f"What was the last step among the first {cut} at which {ph.past(s)}?"))
                else:
                    tail = r.choice((f"before step {cut}", f"prior to step {cut}"))
                    step_q = r.choice((f"Before step {cut}, when did {ph.did(s, adv='last')}?",
                                       f"What was the last step before step {cut} at which {ph.past(s)}?"))
                when = (f"the last time {ph.past(s)} {tail}", f"the last time {ph.past(s, True)} {tail}")
            elif shape == "between":
                a = r.randrange(0, n - 60)
                b = min(n - 1, a + r.randint(40, 160))
                key = self.pick_key(1, a, b, exclude=("begin task",))
                if key is None or not self.tr.hits(key[0], key[1], 0, a - 1):
                    continue
                t = self.tr.hits(key[0], key[1], a, b)[0]
                ph = self.phrase(key)
                tail = f"between step {a} and step {b}"
                when = (f"the first time {ph.past(s)} {tail}", f"the first time {ph.past(s, True)} {tail}")
                step_q = r.choice((f"Between step {a} and step {b}, when did {ph.did(s, adv='first')}?",
                                   f"Within steps {a} to {b}, what was the first step at which {ph.past(s)}?"))
            else:  # after_event: the first X after the first Y
                ykey = self.pick_key(1, exclude=("pause", "check pockets"))
                if ykey is None:
                    continue
                ty = self.tr.hits(*ykey)[0]
                key = self.pick_key(1, ty + 1, None, exclude=("begin task",))
                if key is None or key == ykey or not self.tr.hits(key[0], key[1], 0, ty - 1):
                    continue
                t = self.tr.hits(key[0], key[1], ty + 1)[0]
                anchors = [ty]
                ph, py = self.phrase(key), self.phrase(ykey)
                tail = f"after {py.past(s, True, 'first')}"
                when = (f"the first time {ph.past(s)} {tail}", f"the first time {ph.past(s, True)} {tail}")
                step_q = r.choice((f"After {py.past(s, adv='first')}, when did {ph.did(s, True, 'first')}?",
                                   f"Once {py.past(s, adv='first')}, at which step did {ph.did(s, True, 'next')}?"))
            if slot == "step":
                self.add(fam, "step", step_q, str(t), [t] + anchors)
                continue
            slot = self.informative(slot, t, key[0])
            got = self.ask(slot, t, s, when, self.arg_for(slot, t))
            if got:
                self.add(fam, slot, got[0], got[1], [t] + anchors)

    # -- family 4 --------------------------------------------------------------------------------
    def _conditions(self) -> list[tuple[str, str, int, str]]:
        """(step question, time expression with {S}/{p} placeholders, step, the item or state it is about)
        for the conditions that occur in the episode."""
        tr = self.tr
        span = range(tr.n)
        out: list[tuple[str, str, int, str]] = []
        for item in self.items:
            counts = [tr.item(t, item) for t in span]
            first = first_true([c >= 1 for c in counts])
            gone = first_true([t > 0 and counts[t] == 0 and counts[t - 1] > 0 for t in span])
            last = first_true([c >= 1 for c in counts], last=True)
            if first is not None and first > 0:
                out.append((f"At which step did {{S}} first have {article(item)} in {{p}} inventory?",
                            f"at the first step at which {{S}} had {article(item)} in {{p}} inventory", first, item))
            if gone is not None:
                if item in EDIBLE:
                    out.append((f"When did {{S}} run out of {plural(item)}?",
                                f"at the moment {{S}} ran out of {plural(item)}", gone, item))
                else:
                    out.append((f"When did the {item} first leave {{p}} inventory?",
                                f"at the moment the {item} first left {{p}} inventory", gone, item))
            if last is not None and last < tr.n - 1:
                out.append((f"What was the last step at which {{S}} still had the {item}?",
                            f"at the last step at which {{S}} still had the {item}", last, item))
        score = [int(tr.state(t, "score")) for t in span]
        for x in self.rng.sample(sorted(set(score) - {0}), min(3, len(set(score) - {0}))):
            t = first_true([v >= x for v in score])
            if t is not None:
                out.append((f"When did {{p}} score first reach {x} or more?",
                            f"at the first step where {{p}} score was at least {x}", t, "score"))
        done = [int(tr.state(t, "tasks finished")) for t in span]
        for k in range(2, done[-1] + 1):
            t = first_true([v >= k for v in done])
            if t is not None:
                out.append((f"By which step had {{S}} finished {k} tasks?",
                            f"at the first step by which {{S}} had finished {k} tasks", t, "tasks finished"))
        running = [tr.state(t, "stopwatch running") is True for t in span]
        run_first, run_last = first_true(running), first_true(running, last=True)
        if run_first is not None and run_last is not None:
            out.append(("At which step was the stopwatch running for the first time?",
                        "at the first step at which the stopwatch was running", run_first, "stopwatch running"))
            out.append(("What was the last step at which the stopwatch was still running?",
                        "at the last step at which the stopwatch was still running", run_last, "stopwatch running"))
        reading = [int(tr.state(t, "stopwatch reading")) for t in span]
        if set(reading) - {0}:
            x = self.rng.choice(sorted(set(reading) - {0}))
            t = first_true([v >= x for v in reading])
            if t is not None:
                out.append((f"When did the last stopwatch reading {{S}} had seen first reach {x} ticks or more?",
                            (f"at the first step at which the last stopwatch reading {{S}} had seen was {x} ticks"
                             " or more"), t, "stopwatch reading"))
        tasks = [str(tr.state(t, "task")) for t in span]
        for label in list(dict.fromkeys(tasks))[:-1]:
            t = first_true([v == label for v in tasks], last=True)
            if t is not None:
                out.append((f"What was the last step {{S}} spent on the {label} task?",
                            f"at the last step {{S}} spent on the {label} task", t, "task"))
        return out

    def f4(self) -> None:
        fam = "4_condition"
        conds = self._conditions()
        self.rng.shuffle(conds)
        slots = self._slot_cycle(("step", "location", "action", "inventory", "events", "state", "item", "step"))
        for i, (step_q, expr, t, about) in enumerate(conds):
            if self._count(fam) >= PER_FAMILY:
                break
            s = self.subj()
            slot = slots[i % len(slots)]
            if slot == "step":
                self.add(fam, "step", fill_subject(step_q, s, False), str(t), [t])
                continue
            if slot == "item" and not self.items:
                slot = "location"
            moment = (fill_subject(expr, s, False), fill_subject(expr, s, True))
            got = self.ask(slot, t, s, moment, self.arg_for(slot, t, about))
            if got:
                self.add(fam, slot, got[0], got[1], [t])

    # -- family 5 --------------------------------------------------------------------------------
    def f5(self) -> None:
        fam = "5_offset"
        slots = self._slot_cycle(("action", "location", "inventory", "events", "state", "item", "action"))
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 80:
            tries += 1
            key = self.pick_key(exclude=("pause",))
            if key is None:
                return
            hits = self.tr.hits(*key)
            n = self.pick_n(len(hits))
            ta = self.tr.nth(key[0], key[1], n)
            k = self.rng.randint(1, 6)
            sign = self.rng.choice((1, 1, -1))
            if ta is None or not 0 <= ta + sign * k < self.tr.n:
                continue
            t = ta + sign * k
            ph, s = self.phrase(key), self.subj()
            slot = slots[tries % len(slots)]
            rel = "after" if sign > 0 else "before"
            unit = "step" if k == 1 else "steps"
            when: When = (f"{k} {unit} {rel} {ph.nth(s, n, self.rng)}", f"{k} {unit} {rel} {ph.nth(s, n, self.rng, True)}")
            got = self.ask(slot, t, s, when, self.arg_for(slot, t))
            if got:
                self.add(fam, slot, got[0], got[1], [ta, t])

    # -- family 6 --------------------------------------------------------------------------------
    def f6(self) -> None:
        fam = "6_next_previous"
        slots = ("step", "location", "action", "inventory", "state", "events", "item", "step")
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 120:
            tries += 1
            ykey = self.pick_key(exclude=("pause",))
            if ykey is None:
                return
            yhits = self.tr.hits(*ykey)
            n = self.pick_n(len(yhits))
            ty = self.tr.nth(ykey[0], ykey[1], n)
            if ty is None:
                continue
            forward = self.rng.random() < 0.6
            lo, hi = (ty + 1, None) if forward else (0, ty - 1)
            if hi is not None and hi < 0:
                continue
            key = self.pick_key(1, lo, hi, exclude=("begin task",) if forward else ())
            if key is None or key == ykey:
                continue
            xh = self.tr.hits(key[0], key[1], lo, hi)
            t = xh[0] if forward else xh[-1]
            ph, py, s, r = self.phrase(key), self.phrase(ykey), self.subj(), self.rng
            slot = self.pick_slot(slots, key[0])
            if n == 1 and r.random() < 0.5:
                y_first, y_late = py.past(s, False, "first"), py.past(s, True, "first")
            else:
                y_first, y_late = py.nth(s, n, r), py.nth(s, n, r, True)
            if forward:
                when: When = (f"the next time {ph.past(s)} after {y_late}",
                              f"the next time {ph.past(s, True)} after {y_late}")
                step_q = r.choice((f"After {y_first}, when did {ph.did(s, True, 'next')}?",
                                   f"At which step did {ph.did(s)} next, after {y_late}?",
                                   f"Following {py.nth(s, n, r)}, what was the next step at which {ph.past(s, True)}?"))
            else:
                when = (f"the last time {ph.past(s)} before {y_late}", f"the last time {ph.past(s, True)} before {y_late}")
                step_q = r.choice((f"Before {y_first}, when had {ph.had(s, True, 'most recently')}?",
                                   f"What was the previous step at which {ph.past(s)} before {y_late}?",
                                   f"When did {ph.did(s, adv='last')} before {y_late}?"))
            if slot == "step":
                self.add(fam, "step", step_q, str(t), [ty, t])
                continue
            slot = self.informative(slot, t, key[0])
            got = self.ask(slot, t, s, when, self.arg_for(slot, t))
            if got:
                self.add(fam, slot, got[0], got[1], [ty, t])

    # -- family 7 --------------------------------------------------------------------------------
    def _window(self) -> tuple[str, int, int, list[int], Callable[[Subject, bool], str], Key | None] | None:
        """A window: (shape, lo, hi, anchor steps, wording given the subject and the pronoun flag, anchor key)."""
        r, n = self.rng, self.tr.n
        shape = r.choice(("all", "between", "before", "after", "first_n", "after_event", "before_event"))
        if shape == "all":
            return shape, 0, n - 1, [], lambda s, later: r.choice(
                ("in total", "over the whole session", "altogether")), None
        if shape == "between":
            a = r.randrange(0, n - 50)
            b = min(n - 1, a + r.randint(30, 200))
            return shape, a, b, [], lambda s, later: r.choice(
                (f"between step {a} and step {b}", f"from step {a} to step {b}")), None
        if shape == "before":
            c = r.randrange(n // 5, n)
            return shape, 0, c - 1, [], lambda s, later: f"before step {c}", None
        if shape == "after":
            c = r.randrange(0, n - n // 5)
            return shape, c + 1, n - 1, [], lambda s, later: f"after step {c}", None
        if shape == "first_n":
            c = r.choice((50, 100, 150, 200, 250))
            return shape, 0, min(c, n) - 1, [], lambda s, later: f"in the first {c} steps", None
        ykey = self.pick_key(1, exclude=("pause", "check pockets"))
        if ykey is None:
            return None
        hits = self.tr.hits(*ykey)
        m = self.pick_n(len(hits))
        ty = self.tr.nth(ykey[0], ykey[1], m)
        if ty is None:
            return None
        py = self.phrase(ykey)
        if shape == "after_event":
            return shape, ty + 1, n - 1, [ty], lambda s, later: f"after {py.nth(s, m, r, later)}", ykey
        return shape, 0, ty - 1, [ty], lambda s, later: f"before {py.nth(s, m, r, later)}", ykey

    @staticmethod
    def names_subject(text: str, s: Subject) -> bool:
        return bool(re.search(r"\b" + re.escape(s.first) + r"\b", text, flags=0 if s.first == "I" else re.IGNORECASE))

    def f7(self) -> None:
        fam = "7_count"
        tries = 0
        zero_ok = 1
        while self._count(fam) < PER_FAMILY and tries < 120:
            tries += 1
            win = self._window()
            if win is None:
                continue
            shape, lo, hi, anchors, words, ykey = win
            if hi < lo:
                continue
            r = self.rng
            if r.random() < 0.3:
                kinds = [k for k in ANY_OBJECT if self.tr.hits(k, None)]
                key: Any = (r.choice(sorted(kinds)), None) if kinds else None
            else:
                key = self.pick_key(1)
            if key is None or (ykey is not None and key[0] == ykey[0] and key[1] in (None, ykey[1])):
                continue
            hits = self.tr.hits(key[0], key[1], lo, hi)
            if not hits:
                if zero_ok <= 0 or shape == "all":
                    continue
                zero_ok -= 1
            ph, s = self.phrase(key), self.subj()
            w_first = words(s, False)
            text = r.choice((
                f"How many times did {ph.did(s)} {words(s, True)}?",
                f"{_cap(w_first)}, how many times did {ph.did(s, self.names_subject(w_first, s))}?",
                f"Count the times {ph.past(s)} {words(s, True)}.",
                f"How often did {ph.did(s)} {words(s, True)}?",
            ))
            gold = anchors + ([hits[-1]] if hits else [])
            self.add(fam, "count", text, str(len(hits)), gold)

    # -- family 8 --------------------------------------------------------------------------------
    def f8(self) -> None:
        fam = "8_order"
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 120:
            tries += 1
            a, b = self.pick_key(1), self.pick_key(1)
            if a is None or b is None or a == b:
                continue
            r = self.rng
            na = 1 if r.random() < 0.6 else self.pick_n(len(self.tr.hits(*a)))
            nb = 1 if r.random() < 0.6 else self.pick_n(len(self.tr.hits(*b)))
            ta, tb = self.tr.nth(a[0], a[1], na), self.tr.nth(b[0], b[1], nb)
            if ta is None or tb is None or ta == tb:
                continue
            pa, pb, s = self.phrase(a), self.phrase(b), self.subj()
            if na == 1 and nb == 1:
                text = r.choice((
                    f"Which happened first: {pa.ger(s)} or {pb.ger(s)}?",
                    f"Which came earlier, {pa.ger(s)} or {pb.ger(s)}?",
                    f"Tell me which came first: {pa.past(s)}, or {pb.past(s, True)}.",
                    f"What came first in the session: {pa.ger(s)} or {pb.ger(s)}?",
                ))
            else:
                text = r.choice((
                    f"Which came first: {pa.nth(s, na, r)}, or {pb.nth(s, nb, r, True)}?",
                    f"Which was earlier, {pa.nth(s, na, r)} or {pb.nth(s, nb, r, True)}?",
                ))
            answer = ev_text(*a) if ta < tb else ev_text(*b)
            self.add(fam, "which-first", text, answer, [ta, tb])

    # -- family 9 --------------------------------------------------------------------------------
    def f9(self) -> None:
        fam = "9_distance"
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 120:
            tries += 1
            r = self.rng
            same = r.random() < 0.35
            a = self.pick_key(2 if same else 1)
            b = a if same else self.pick_key(1)
            if a is None or b is None or (not same and a == b):
                continue
            ha, hb = self.tr.hits(*a), self.tr.hits(*b)
            s = self.subj()
            if same:
                na, nb = r.choice(((1, 2), (1, -1), (2, 3), (1, 3), (-2, -1)))
                ta, tb = self.tr.nth(a[0], a[1], na), self.tr.nth(b[0], b[1], nb)
                if ta is None or tb is None or ta == tb or (nb == 3 and len(ha) < 3) or (na == -2 and len(ha) < 3):
                    continue
                ph = self.phrase(a)
                names = {1: "first", 2: "second", 3: "third", -1: "last", -2: "second-to-last"}
                text = r.choice((
                    f"How many steps were there between the {names[na]} and the {names[nb]} time {ph.past(s)}?",
                    f"How many steps separate the {names[na]} time {ph.past(s)} from the {names[nb]} time?",
                ))
            else:
                na = 1 if r.random() < 0.6 else self.pick_n(len(ha))
                nb = 1 if r.random() < 0.6 else self.pick_n(len(hb))
                ta, tb = self.tr.nth(a[0], a[1], na), self.tr.nth(b[0], b[1], nb)
                if ta is None or tb is None or ta == tb:
                    continue
                pa, pb = self.phrase(a), self.phrase(b)
                text = r.choice((
                    f"How many steps passed between {pa.nth(s, na, r)} and {pb.nth(s, nb, r, True)}?",
                    f"How many steps apart were {pa.nth(s, na, r)} and {pb.nth(s, nb, r, True)}?",
                    f"In steps, how far apart were {pa.nth(s, na, r)} and {pb.nth(s, nb, r, True)}?",
                ))
            self.add(fam, "duration", text, str(abs(tb - ta)), [ta, tb])

    # -- family 10 -------------------------------------------------------------------------------
    def _absent_keys(self, lo: int, hi: int) -> list[Key]:
        """Plausible events with no occurrence in [lo, hi]: ones that happen elsewhere, and ones that could."""
        tr = self.tr
        seen = tr.objects_seen()
        pool: list[Key] = [k for k in self.keys if k[0] not in ("begin task",)]
        pool += [("warp to", room) for room in ROOMS] + [("walk to", room) for room in ROOMS]
        pool += [("pick up", i) for i in POCKETABLE if i in seen]
        pool += [("snack on", f) for f in EDIBLE]
        pool += [("finish task", lab) for lab in TASK_LABELS]
        pool += [("open container", c) for c in CONTAINERS if c in seen]
        pool += [("inspect", o) for o in sorted(seen) if o in POCKETABLE]
        out: list[Key] = []
        for key in dict.fromkeys(pool):
            if not tr.hits(key[0], key[1], lo, hi):
                out.append(key)
        return out

    def f10(self) -> None:
        fam = "10_existence"
        r, n = self.rng, self.tr.n
        plan = ["yes", "no", "yes", "no", "list", "list"]
        if r.random() < 0.5:
            plan[r.choice((4, 5))] = r.choice(("yes", "no"))
        r.shuffle(plan)
        tries = 0
        while self._count(fam) < PER_FAMILY and tries < 200:
            want = plan[self._count(fam)]
            tries += 1
            s = self.subj()
            if want == "list":
                kinds = [k for k in ANY_OBJECT if self.tr.hits(k, None)]
                kind = r.choice(sorted(kinds))
                a = r.randrange(0, n - 40)
                b = min(n - 1, a + r.randint(40, 250))
                shape = r.choice(("between", "after", "before"))
                lo, hi, span = {"between": (a, b, f"between step {a} and step {b}"),
                                "after": (a + 1, n - 1, f"after step {a}"),
                                "before": (0, b - 1, f"before step {b}")}[shape]
                objs, ts = self.tr.objects_of(kind, lo, hi)
                if not objs or len(objs) > 6:
                    continue
                noun = ANY_OBJECT[kind][1].replace("{s}", s.first)
                text = r.choice((f"Which {noun} {span}?", f"{_cap(span)}, which {noun}?",
                                 f"List the {noun.split(' did ')[0]} {s.first} {self._list_verb(kind)} {span}."))
                self.add(fam, "list", text, ", ".join(objs), ts)
                continue
            win = self._window()
            if win is None:
                continue
            shape, lo, hi, anchors, words, ykey = win
            if hi < lo:
                continue
            if want == "yes":
                key = self.pick_key(1, lo, hi, exclude=("begin task",))
                if key is None:
                    continue
                hits = self.tr.hits(key[0], key[1], lo, hi)
            else:
                absent = self._absent_keys(lo, hi)
                if not absent:
                    continue
                # prefer events that do happen, just not in this window
                inside = [k for k in absent if k in self.keys]
                key = r.choice(inside) if inside and shape != "all" and r.random() < 0.7 else r.choice(absent)
                hits = []
            if ykey is not None and key == ykey:
                continue
            ph = self.phrase(key)
            if shape == "all":
                text = r.choice((f"Did {ph.did_ever(s)}?", f"{_cap(ph.perfect(s))}?",
                                 f"Was there ever a moment when {ph.past(s)}?"))
            else:
                w_first = words(s, False)
                named = self.names_subject(w_first, s)
                text = r.choice((f"Did {ph.did(s)} {words(s, True)}?",
                                 f"{_cap(w_first)}, did {ph.did(s, named)} at all?",
                                 f"Was there any point {w_first} when {ph.past(s, named)}?"))
            gold = anchors + (hits[:1] if hits else [])
            self.add(fam, "yes/no", text, "yes" if hits else "no", gold)

    @staticmethod
    def _list_verb(kind: str) -> str:
        return {"walk to": "walked into", "warp to": "teleported to", "open door": "opened", "pick up": "picked up",
                "set down": "dropped", "survey room": "looked around in", "single out": "focused on",
                "wire up": "connected wires to", "snack on": "ate", "finish task": "completed",
                "open container": "opened"}[kind]

    def run(self) -> list[dict[str, Any]]:
        for fn in (self.f1, self.f2, self.f3, self.f4, self.f5, self.f6, self.f7, self.f8, self.f9, self.f10):
            fn()
        return self.out


# --------------------------------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------------------------------


def episode_id(seed: int) -> str:
    return f"{SUITE}-{seed}"


def build(seed: int) -> dict[str, Any]:
    """One episode of the real ScienceWorld simulator and 60 questions about it."""
    steps = rollout(seed)
    ep = episode_id(seed)
    validate_steps(steps, ep)
    if not 300 <= len(steps) <= 1500:
        raise RuntimeError(f"{ep}: {len(steps)} steps, outside 300-1500")
    questions = _Maker(Trace(ep, steps), seed).run()
    counts = Counter(q["family"] for q in questions)
    short_of = {f: counts.get(f, 0) for f in FAMILIES if counts.get(f, 0) != PER_FAMILY}
    if short_of:
        raise RuntimeError(f"{ep}: families without exactly {PER_FAMILY} questions: {short_of}")
    questions.sort(key=lambda q: FAMILIES.index(q["family"]))
    return {"episodes": {ep: steps}, "questions": questions}


def to_json(data: dict[str, Any]) -> str:
    """A canonical JSON text of a build (for comparing builds)."""

    def plain(value: Any) -> Any:
        if isinstance(value, Step):
            return {
                "t": value.t, "action": value.action, "summary": value.summary, "objects": list(value.objects),
                "events": [[e.kind, e.obj, e.count] for e in value.events],
                "relations": [[r.subject, r.predicate, r.obj] for r in value.relations],
                "inventory": [list(p) for p in value.inventory], "state": [list(p) for p in value.state],
                "location": [list(value.location.position) if value.location.position else None,
                             value.location.region, value.location.underfoot],
                "observation": value.observation,
            }
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    return json.dumps(plain(data), sort_keys=True)


def _self_check(seeds: Sequence[int]) -> None:
    first: dict[str, Any] | None = None
    for seed in seeds:
        start = time.time()
        data = build(seed)
        took = time.time() - start
        if first is None:
            first = data
        ep = episode_id(seed)
        steps = data["episodes"][ep]
        questions = data["questions"]
        assert len(questions) == len(FAMILIES) * PER_FAMILY, len(questions)
        for q in questions:
            assert q["episode"] == ep, q
            assert all(g.startswith(ep + ":") and 0 <= int(g.rsplit(":", 1)[1]) < len(steps) for g in q["gold"]), q
            assert q["answer"].strip(), q
        by_family = Counter(q["family"] for q in questions)
        by_slot = Counter(q["slot"] for q in questions)
        kinds = Counter(e.kind for s in steps for e in s.events)
        print(f"== {ep}: {len(steps)} steps, {len(questions)} questions, built in {took:.1f}s")
        print("   worlds:", ", ".join(LAST_LOADS.get(seed, [])))
        print("   per family:", dict(sorted(by_family.items(), key=lambda kv: FAMILIES.index(kv[0]))))
        print("   per slot:", dict(sorted(by_slot.items())))
        print("   event kinds:", dict(sorted(kinds.items())))
        rng = random.Random(seed)
        for q in rng.sample(questions, 10):
            print(f"   [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r}  gold={q['gold']}")
    assert first is not None
    again = build(seeds[0])
    same = to_json(again) == to_json(first)
    print(f"second build of seed {seeds[0]} identical: {same}")
    assert same, "build is not deterministic"
    print("self-check passed")


if __name__ == "__main__":
    _self_check([int(a) for a in sys.argv[1:]] or [SEEDS[0], SEEDS[1]])
