"""heldout2_science: a lab assistant working through ScienceWorld tasks, one after another.

What it simulates
    The real ScienceWorld text simulator (the ``scienceworld`` package, its bundled Java server).
    Each episode chains several task variations picked from the seed -- boiling, melting and freezing
    water, measuring temperatures and melting points, testing electrical conductivity, powering a
    light bulb, finding living / non-living things, growing a plant, mixing a chemical -- each loaded
    in turn into one running simulator, with step numbers running on across task switches.

How the agent behaves
    For every task the agent asks the simulator's built-in solver for a reference plan, then works
    through it in three phases: a warm-up wander (open doors, walk or teleport between rooms, look
    around, examine things, pick objects up and set them down in other rooms, switch appliances on
    and off, wait, take temperature readings) that never touches anything the plan needs and ends
    back where it started (kept very short in the search tasks, whose creatures grow up meanwhile,
    so a plan can still fail); the plan itself, interleaved with harmless side actions (looking around,
    examining things, checking the inventory, extra thermometer readings, short waits); and a free
    wander once the task is over. An ambiguous command is answered with option ``0``. All choices
    come from ``random.Random(seed)``. Each build starts its own Java server (the server memoizes
    search paths across task loads) with constant identity hash codes, so that the simulator's own
    iteration orders, and hence its output, are the same in every process.

The adapter
    ``action`` is the command sent to the simulator. Events are derived from the command and the
    text that came back (only effects the simulator confirmed): ``start task`` / ``complete task``
    (task name), ``look around`` (room), ``go to`` / ``teleport to`` (room entered), ``open`` /
    ``close`` (door or container), ``pick up`` / ``put down`` / ``move`` / ``pour`` (item),
    ``activate`` / ``deactivate`` (device), ``focus on``, ``measure`` (what the thermometer was used
    on), ``examine``, ``look in``, ``read``, ``eat``, ``mix``, ``connect`` (first terminal named),
    ``wait``, ``check inventory``, and ``score gain`` / ``score loss`` (count = points). Inventory
    holds item counts parsed from the simulator's inventory text; state holds ``score``, ``task``,
    ``task solved`` and, once one has been taken, ``thermometer reading`` (the last measured
    temperature in degrees Celsius, a float); ``location.region`` is the current room and
    ``objects`` are the top-level things listed in it.

How answers are computed
    A reference evaluator below scans the Step records only (events, inventory, state, location):
    "before"/"after" step N are strict, "by"/"as of" step N and "between" A and B are inclusive,
    "the first N steps" are steps 0..N-1, an occurrence without an ordinal is the first, "again" is
    the second, "next"/"previous" are strictly after/before the anchor, counts count steps with a
    matching event, and a condition names the first (or last) step whose values after the action
    meet it ("ran out" = count 0 now, above 0 one step earlier). Ten question families, six each,
    are drawn from the records with a seeded generator and worded through a small lexicon of
    paraphrases (several verbs per event kind, subjects I / we / you / the agent, ordinals in
    words and digits, clauses in either order), so every answer is computed, never typed.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout2_science"
SEEDS = range(7500, 7600)
QUESTIONS_PER_FAMILY = 6
FAMILIES = (
    "1_step_index",
    "2_nth_occurrence",
    "3_windowed_occurrence",
    "4_condition",
    "5_offset",
    "6_next_previous",
    "7_count",
    "8_order",
    "9_distance",
    "10_existence",
)

# --------------------------------------------------------------------------------------------------
# The simulator: one Java server per process, reused by every build.
# --------------------------------------------------------------------------------------------------

#: Constant identity hash codes make the simulator's hash-set iteration orders (and so its output and
#: its reference plans) identical in every JVM; the serial collector keeps the server light.
_JAVA_OPTS = ["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2", "-XX:+UseSerialGC"]
_ENV: Any = None


def _fresh_simulator() -> Any:
    """A newly started ScienceWorld environment, one per build: the server keeps caches across task
    loads (its solver memoizes search paths), so a build must not inherit another build's server."""
    global _ENV
    if _ENV is not None:
        old, _ENV = _ENV, None
        try:
            old.close()
        except Exception:  # the old server may already be gone
            pass
    import scienceworld.scienceworld as sw_module

    original = sw_module.launch_gateway
    sw_module.launch_gateway = functools.partial(original, javaopts=list(_JAVA_OPTS))
    try:
        _ENV = sw_module.ScienceWorldEnv("", envStepLimit=10**7)
    finally:
        sw_module.launch_gateway = original
    return _ENV


# --------------------------------------------------------------------------------------------------
# Parsing the simulator's text.
# --------------------------------------------------------------------------------------------------

_ROOM_RE = re.compile(r"called the (.+?)\.")
_DOOR_RE = re.compile(r"A door to the (.+?) \(that is (open|closed)\)")
_TEMP_RE = re.compile(r"measures a temperature of (-?\d+(?:\.\d+)?) degrees")
_MOVE_RE = re.compile(r"You move the (.+?) to the (.+?)\.")
_FOCUS_RE = re.compile(r"You focus on the (.+?)\.")
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)

#: Room furniture, fixtures and bulk substances the wandering agent does not try to pick up.
_FIXED_WORDS = frozenset(
    {
        "agent", "air", "chair", "table", "counter", "cupboard", "large cupboard", "freezer", "fridge",
        "oven", "stove", "sink", "bathtub", "toilet", "bed", "couch", "closet", "book shelf", "bee hive",
        "fire pit", "fountain", "ground", "wood", "blast furnace", "soil", "water",
        "ultra low temperature freezer", "mattress", "drawer", "red box", "green box", "blue box",
        "orange box", "yellow box", "purple box", "violet box", "white box", "black box",
    }
)
_HOUSE_ROOMS = (
    "art studio", "bathroom", "bedroom", "foundry", "greenhouse", "hallway", "kitchen", "living room",
    "outside", "workshop",
)


def _thing_name(line: str) -> str:
    """A listed thing's short name: 'a sink, which is turned off. In ...' -> 'sink'."""
    text = line.strip()
    text = _ARTICLE_RE.sub("", text)
    if text.lower().startswith("substance called "):
        text = text[len("substance called "):]
    for cut in (" (", ", which", ". ", " titled ", ", currently"):
        pos = text.find(cut)
        if pos > 0:
            text = text[:pos]
    text = text.rstrip(". ").strip()
    text = _ARTICLE_RE.sub("", text).lower()
    for art in ("finger painting", "drawing", "painting", "picture"):
        if text.startswith(art + " of "):
            return art
    return text


@dataclass
class RoomView:
    """What a 'look around' text says about the current room."""

    room: str = ""
    things: list[str] = field(default_factory=list)
    devices_off: list[str] = field(default_factory=list)
    devices_on: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    doors: dict[str, bool] = field(default_factory=dict)  # room behind the door -> open?


def _parse_look(text: str) -> RoomView:
    view = RoomView()
    match = _ROOM_RE.search(text)
    if match:
        view.room = match.group(1).strip().lower()
    section = "head"
    for raw in text.split("\n"):
        if raw.startswith("You also see"):
            section = "doors"
            continue
        if not raw.startswith("\t"):
            if "you see" in raw.lower():
                section = "things"
            continue
        line = raw.strip()
        if section == "doors":
            door = _DOOR_RE.search(line)
            if door:
                view.doors[door.group(1).lower()] = door.group(2) == "open"
            continue
        if section != "things":
            continue
        name = _thing_name(line)
        if not name or name == "agent":
            continue
        view.things.append(name)
        low = line.lower()
        if ", which is turned off" in low or ", which is deactivated" in low:
            view.devices_off.append(name)
        elif ", which is turned on" in low or ", which is activated" in low:
            view.devices_on.append(name)
        if " door is closed" in low:
            view.closed.append(name)
        elif " door is open" in low:
            view.opened.append(name)
    return view


def _parse_inventory(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for raw in text.split("\n"):
        if not raw.startswith("\t"):
            continue
        name = _thing_name(raw)
        if name and name != "nothing":
            counts[name] += 1
    return dict(counts)


def _clean_ref(text: str) -> str:
    """An object as named in a command, without 'in inventory' or a contents description."""
    text = re.sub(r"\s*\([^)]*\)", "", text.strip().lower())
    pos = text.find(" containing ")
    if pos > 0:
        text = text[:pos]
    text = re.sub(r"\s+in inventory$", "", text)
    return _ARTICLE_RE.sub("", text).strip()


def _clean_item(text: str) -> str:
    """An item as named in a command, also without where it lies ('orange in bowl' -> 'orange')."""
    text = _clean_ref(text)
    pos = text.find(" in ")
    if pos > 0:
        text = text[:pos]
    return text


def _resolve_option(options_text: str, choice: str) -> str:
    """The command an answer to an 'Ambiguous request' prompt selects, without the location notes."""
    for raw in options_text.split("\n"):
        head, _, rest = raw.partition(":")
        if head.strip() == choice and rest.strip():
            return re.sub(r"\s*\([^)]*\)", "", rest.strip()).strip()
    return ""


# --------------------------------------------------------------------------------------------------
# The agent and the adapter.
# --------------------------------------------------------------------------------------------------

#: Tasks the agent works on (simulator task name, weight).
_TASKS: tuple[tuple[str, float], ...] = (
    ("boil", 2.0),
    ("melt", 2.0),
    ("freeze", 2.0),
    ("change-the-state-of-matter-of", 1.0),
    ("use-thermometer", 2.0),
    ("measure-melting-point-known-substance", 1.0),
    ("power-component", 1.0),
    ("test-conductivity", 2.0),
    ("find-living-thing", 1.5),
    ("find-non-living-thing", 1.0),
    ("find-plant", 1.0),
    ("find-animal", 1.0),
    ("grow-plant", 0.8),
    ("chemistry-mix", 1.0),
)
_SIMPLIFICATIONS: tuple[tuple[str, float], ...] = (("", 0.6), ("openDoors", 0.2), ("teleportAction", 0.2))
_FAILED_PREFIXES = ("No known action", "Unknown action", "It's not clear", "That can't be", "You can't")


def _weighted(rng: random.Random, pairs: Sequence[tuple[Any, float]]) -> Any:
    total = sum(w for _, w in pairs)
    x = rng.random() * total
    for value, weight in pairs:
        x -= weight
        if x < 0:
            return value
    return pairs[-1][0]


class _Agent:
    """Drives the simulator and turns every command into a Step."""

    def __init__(self, seed: int, episode: str) -> None:
        self.env = _fresh_simulator()
        self.rng = random.Random(seed)
        self.episode = episode
        self.steps: list[Step] = []
        self.task = ""
        self.score = 0
        self.solved = False
        self.reading: float | None = None
        self.view = RoomView()
        self.inventory: dict[str, int] = {}
        self.pending_options = ""  # text of an unanswered 'Ambiguous request'
        self.starting = False
        self.teleport = False
        self.protected = ""  # text of the current reference plan

    # ---- one command -----------------------------------------------------------------------------
    def act(self, action: str) -> str:
        server = self.env.server
        before_room = self.view.room
        before_score = self.score
        obs = str(server.step(action))
        score = int(round(100 * float(server.getScore())))
        look = str(self.env.look())
        inv_text = str(self.env.inventory())
        self.view = _parse_look(look)
        self.inventory = _parse_inventory(inv_text)
        resolved = action
        if self.pending_options and action.strip().isdigit():
            resolved = _resolve_option(self.pending_options, action.strip()) or action
        self.pending_options = obs if obs.startswith("Ambiguous request") else ""
        events: list[Event] = []
        relations: list[Relation] = []
        if self.starting:
            events.append(Event("start task", self.task))
        events.extend(self._events(resolved, obs, before_room, relations))
        if not self.starting:
            if score > before_score:
                events.append(Event("score gain", "", score - before_score))
            elif score < before_score:
                events.append(Event("score loss", "", before_score - score))
        self.score = score
        if score >= 100 and not self.solved:
            self.solved = True
            events.append(Event("complete task", self.task))
        self.starting = False
        state: dict[str, int | float | bool | str] = {
            "score": score,
            "task": self.task,
            "task solved": self.solved,
        }
        if self.reading is not None:
            state["thermometer reading"] = self.reading
        first_line = obs.strip().split("\n")[0][:120]
        step = Step(
            t=len(self.steps),
            action=action,
            summary=f"[{self.task}] {action} -> {first_line}",
            objects=tuple(dict.fromkeys(self.view.things))[:16],
            events=tuple(events),
            relations=tuple(relations),
            inventory=dict(self.inventory),
            state=state,
            location=Location(region=self.view.room),
            observation=" ".join(obs.split())[:400],
        )
        self.steps.append(step)
        return obs

    def _events(self, action: str, obs: str, before_room: str, relations: list[Relation]) -> list[Event]:
        a = action.strip().lower()
        room = self.view.room
        if obs.startswith(_FAILED_PREFIXES) or obs.startswith("Ambiguous request"):
            return []
        if a == "look around":
            return [Event("look around", room)]
        if a.startswith("go to "):
            return [Event("go to", room)] if room != before_room else []
        if a.startswith("teleport to "):
            return [Event("teleport to", room)] if room != before_room else []
        if a.startswith("open "):
            return [Event("open", _clean_ref(a[5:]))] if "now open" in obs else []
        if a.startswith("close "):
            return [Event("close", _clean_ref(a[6:]))] if "now closed" in obs else []
        if a.startswith("activate "):
            return [Event("activate", _clean_ref(a[9:]))] if "now activated" in obs or "now on" in obs else []
        if a.startswith("deactivate "):
            ok = "now deactivated" in obs or "now off" in obs
            return [Event("deactivate", _clean_ref(a[11:]))] if ok else []
        if a.startswith("focus on "):
            m = _FOCUS_RE.search(obs)
            return [Event("focus on", _clean_ref(m.group(1)))] if m else []
        if a.startswith("use thermometer") and " on " in a:
            m = _TEMP_RE.search(obs)
            if not m:
                return []
            self.reading = float(m.group(1))
            return [Event("measure", _clean_ref(a.split(" on ", 1)[1]))]
        if a.startswith(("pick up ", "put down ", "drop ", "move ")):
            m = _MOVE_RE.search(obs)
            if not m:
                return []
            item, dest = _clean_item(m.group(1)), m.group(2).strip().lower()
            if dest == "inventory":
                return [Event("pick up", item)]
            if dest == room or a.startswith(("put down ", "drop ")):
                return [Event("put down", item)]
            relations.append(Relation(item, "in", dest))
            return [Event("move", item)]
        if a.startswith("pour "):
            return [Event("pour", _clean_item(a[5:].split(" into ")[0]))] if "You pour" in obs else []
        if a.startswith(("look at ", "examine ")):
            return [Event("examine", _clean_ref(a.split(" ", 1)[1].removeprefix("at ")))]
        if a.startswith("look in "):
            return [Event("look in", _clean_ref(a[8:]))]
        if a.startswith("read "):
            return [Event("read", _clean_item(a[5:]))] if "reads" in obs else []
        if a.startswith("eat "):
            return [Event("eat", _clean_item(a[4:]))] if "delicious" in obs or "You eat" in obs else []
        if a.startswith("mix "):
            return [Event("mix", _clean_ref(a[4:]))] if "produce" in obs else []
        if a.startswith("connect ") and " to " in a:
            return [Event("connect", _clean_ref(a[8:].split(" to ")[0]))] if "now connected" in obs else []
        if a == "inventory":
            return [Event("check inventory")]
        if a in ("wait", "wait1"):
            return [Event("wait")]
        return []

    def answer_prompt(self) -> None:
        """Answer a pending ambiguity prompt with the first option."""
        if self.pending_options:
            self.act("0")

    # ---- task segments ---------------------------------------------------------------------------
    def start_task(self, task: str, variation: int, simplification: str) -> list[str]:
        self.env.load(task, variation, simplification, generateGoldPath=True)
        plan = [str(a) for a in self.env.get_gold_action_sequence()]
        if plan and plan[0].startswith("ERROR"):
            plan = []
        # a fresh load is already the task's initial state (a reset would regenerate the plan)
        self.task = task
        self.score = 0
        self.solved = False
        self.pending_options = ""
        self.teleport = "teleportAction" in simplification
        self.protected = " ".join(plan).lower()
        self.starting = True
        self.act("look around")
        return plan

    def _is_protected(self, name: str) -> bool:
        return bool(name) and (name in self.protected or any(w in self.protected for w in name.split() if len(w) > 3))

    # ---- exploration -----------------------------------------------------------------------------
    def wander(self, budget: int, careful: bool, limit: int) -> None:
        """Explore for ``budget`` commands; a careful wander leaves the plan's things alone and ends
        back in the room where it began, having put down whatever it picked up."""
        rng = self.rng
        home = self.view.room
        had = set(self.inventory)
        trail: list[str] = []
        switched_on: list[tuple[str, int]] = []  # (device, commands left before switching off)
        done = 0
        while done < budget and len(self.steps) < limit:
            self.answer_prompt()
            view = self.view
            inv = self.inventory
            for i, (device, left) in enumerate(switched_on):
                switched_on[i] = (device, left - 1)
            due = [d for d, left in switched_on if left <= 0 and d in view.things]
            if due:
                switched_on = [(d, left) for d, left in switched_on if d != due[0]]
                self.act(f"deactivate {due[0]}")
                done += 1
                continue
            options: list[tuple[str, float]] = [("look around", 1.0), ("inventory", 0.3), ("wait1", 0.3)]
            if not careful:
                options.append(("wait", 0.25))
            things = [t for t in view.things if t not in ("air",)]
            for name in things:
                options.append((f"look at {name}", 1.2 / max(1, len(things))))
            for room, is_open in sorted(view.doors.items()):
                if not is_open:
                    options.append((f"open door to {room}", 0.9))
                else:
                    options.append((f"go to {room}", 1.3 if room not in trail[-1:] else 0.3))
                    if not careful:
                        options.append((f"close door to {room}", 0.1))
            if self.teleport:
                for room in _HOUSE_ROOMS:
                    if room != view.room:
                        options.append((f"teleport to {room}", 0.08))
            movable = [
                t for t in things
                if t not in _FIXED_WORDS and not t.endswith(" box") and not (careful and self._is_protected(t))
            ]
            for name in movable:
                options.append((f"pick up {name}", 1.0 / max(1, len(movable))))
            held = [n for n in sorted(inv) if not careful or n not in had]
            for name in held:
                options.append((f"put down {name}", 0.5 / max(1, len(held))))
            if not careful and "orange" in inv:
                options.append(("eat orange", 0.05))
            for device in view.devices_off:
                if not (careful and self._is_protected(device)):
                    options.append((f"activate {device}", 0.35))
            for box in view.closed:
                if not (careful and self._is_protected(box)):
                    options.append((f"open {box}", 0.4))
            if not careful:
                for box in view.opened:
                    options.append((f"close {box}", 0.2))
            if "thermometer" in inv:
                for name in things:
                    if not name.startswith("door"):
                        options.append((f"use thermometer in inventory on {name}", 0.6 / max(1, len(things))))
            action = _weighted(rng, options)
            room_before = view.room
            self.act(action)
            done += 1
            if action.startswith("activate ") and any(e.kind == "activate" for e in self.steps[-1].events):
                switched_on.append((action[9:], rng.randint(1, 4)))
            elif action.startswith(("go to ", "teleport to ")) and self.view.room != room_before:
                trail.append(room_before)
        # tidy up: switch off what was switched on here, then (careful) drop things and walk back
        for device, _ in switched_on:
            if len(self.steps) >= limit:
                return
            self.answer_prompt()
            if device in self.view.things:
                self.act(f"deactivate {device}")
        if not careful:
            return
        for name in sorted(set(self.inventory) - had):
            if len(self.steps) >= limit:
                return
            self.answer_prompt()
            if name in self.inventory:
                self.act(f"put down {name}")
        guard = 0
        while self.view.room != home and len(self.steps) < limit and guard < 12:
            guard += 1
            self.answer_prompt()
            if self.teleport:
                self.act(f"teleport to {home}")
                continue
            if not trail:
                break
            back = trail.pop()
            if not self.view.doors.get(back, False) and back in self.view.doors:
                self.act(f"open door to {back}")
            self.act(f"go to {back}")

    def side_action(self) -> None:
        """A harmless extra command while following the plan."""
        rng = self.rng
        view = self.view
        things = [t for t in view.things if t != "air"]
        options: list[tuple[str, float]] = [("look around", 1.0), ("inventory", 0.5), ("wait1", 0.4)]
        for name in things:
            options.append((f"look at {name}", 1.5 / max(1, len(things))))
        if "thermometer" in self.inventory:
            for name in things:
                options.append((f"use thermometer in inventory on {name}", 1.2 / max(1, len(things))))
        self.act(_weighted(rng, options))

    def follow(self, plan: list[str], limit: int) -> None:
        for action in plan:
            if len(self.steps) >= limit or self.score < 0:
                return
            if self.pending_options and not action.strip().isdigit():
                self.act("0")
            elif not self.pending_options and action.strip().isdigit():
                continue
            self.act(action)
            if self.solved:
                return
            if not self.pending_options and self.rng.random() < 0.3 and len(self.steps) < limit:
                self.side_action()


def _rollout(seed: int, episode: str) -> list[Step]:
    agent = _Agent(seed, episode)
    rng = agent.rng
    target = rng.randint(380, 900)
    previous = ""
    while len(agent.steps) < target:
        task = _weighted(rng, [(t, w) for t, w in _TASKS if t != previous])
        previous = task
        variation = rng.randrange(int(agent.env.get_max_variations(task)))
        simplification = _weighted(rng, _SIMPLIFICATIONS)
        if task in ("power-component", "test-conductivity") and simplification == "teleportAction":
            simplification = ""
        plan = agent.start_task(task, variation, simplification)
        # creatures grow up while the agent dawdles, so the search tasks get only a short warm-up
        warm_up = rng.randint(0, 4) if task in ("find-living-thing", "find-animal") else rng.randint(10, 45)
        agent.wander(warm_up, careful=True, limit=target)
        agent.follow(plan, limit=target)
        agent.wander(rng.randint(20, 80), careful=False, limit=target)
    return agent.steps


# --------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the Step records.
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pat:
    """An event pattern: a kind and one object, or any object when ``obj`` is None."""

    kind: str
    obj: str | None = None

    def hit(self, step: Step) -> bool:
        return any(e.kind == self.kind and (self.obj is None or e.obj == self.obj) for e in step.events)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def _event_text(kind: str, obj: str) -> str:
    return f"{kind} {obj}".strip()


class Evaluator:
    """Answers computed from the records alone."""

    def __init__(self, episode: str, steps: Sequence[Step]) -> None:
        self.episode = episode
        self.steps = list(steps)
        self.last = len(self.steps) - 1

    def sid(self, t: int) -> str:
        return f"{self.episode}:{t}"

    def times(self, pat: Pat, lo: int = 0, hi: int | None = None) -> list[int]:
        """Steps in [lo, hi] (inclusive) with a matching event."""
        hi = self.last if hi is None else hi
        return [s.t for s in self.steps[max(lo, 0): hi + 1] if pat.hit(s)]

    def nth(self, pat: Pat, n: int, lo: int = 0, hi: int | None = None) -> int | None:
        ts = self.times(pat, lo, hi)
        if n > 0:
            return ts[n - 1] if len(ts) >= n else None
        return ts[n] if len(ts) >= -n else None

    def text_at(self, pat: Pat, t: int) -> str:
        for e in self.steps[t].events:
            if e.kind == pat.kind and (pat.obj is None or e.obj == pat.obj):
                return _event_text(e.kind, e.obj)
        raise KeyError((pat, t))

    def objs(self, pat: Pat, lo: int, hi: int) -> list[str]:
        """Distinct objects of matching events in [lo, hi], in first-seen order."""
        seen: dict[str, None] = {}
        for s in self.steps[lo: hi + 1]:
            for e in s.events:
                if e.kind == pat.kind and (pat.obj is None or e.obj == pat.obj) and e.obj:
                    seen.setdefault(e.obj, None)
        return list(seen)

    def state(self, t: int, key: str) -> Any:
        return self.steps[t].state_dict.get(key)

    def item(self, t: int, name: str) -> int:
        return self.steps[t].inventory_dict.get(name, 0)

    def first_where(self, cond: Callable[[int], bool], last: bool = False) -> int | None:
        ts = range(self.last, -1, -1) if last else range(0, self.last + 1)
        for t in ts:
            if cond(t):
                return t
        return None

    def slot(self, slot: str, t: int, arg: str = "") -> str:
        step = self.steps[t]
        if slot == "action":
            return step.action
        if slot == "step":
            return str(t)
        if slot == "location":
            if step.location.region:
                return step.location.region
            pos = step.location.position
            return f"{pos[0]},{pos[1]}" if pos else ""
        if slot == "item":
            return str(self.item(t, arg))
        if slot == "inventory":
            inv = sorted((k, v) for k, v in step.inventory if v > 0)
            return ", ".join(f"{k} {v}" for k, v in inv) if inv else "none"
        if slot == "state":
            return _fmt(step.state_dict[arg])
        if slot == "events":
            return "; ".join(_event_text(e.kind, e.obj) for e in step.events) if step.events else "none"
        raise ValueError(slot)


# --------------------------------------------------------------------------------------------------
# Wording.
# --------------------------------------------------------------------------------------------------

_SUBJECTS: tuple[dict[str, str], ...] = (
    {"S": "I", "s": "I", "P": "my", "was": "was", "have": "have"},
    {"S": "we", "s": "we", "P": "our", "was": "were", "have": "have"},
    {"S": "you", "s": "you", "P": "your", "was": "were", "have": "have"},
    {"S": "the agent", "s": "it", "P": "its", "was": "was", "have": "has"},
)

Forms = tuple[str, str, str, str]  # base, past, past participle, gerund

#: Verb phrases per event kind, "{o}" standing for the object's noun phrase, "{p}" for a possessive.
_LEX: dict[str, tuple[Forms, ...]] = {
    "go to": (
        ("walk to {o}", "walked to {o}", "walked to {o}", "walking to {o}"),
        ("go into {o}", "went into {o}", "gone into {o}", "going into {o}"),
        ("head over to {o}", "headed over to {o}", "headed over to {o}", "heading over to {o}"),
        ("step through a door into {o}", "stepped through a door into {o}", "stepped through a door into {o}",
         "stepping through a door into {o}"),
    ),
    "teleport to": (
        ("teleport to {o}", "teleported to {o}", "teleported to {o}", "teleporting to {o}"),
        ("jump by teleport to {o}", "jumped by teleport to {o}", "jumped by teleport to {o}", "jumping by teleport to {o}"),
    ),
    "open": (
        ("open {o}", "opened {o}", "opened {o}", "opening {o}"),
    ),
    "close": (
        ("close {o}", "closed {o}", "closed {o}", "closing {o}"),
        ("shut {o}", "shut {o}", "shut {o}", "shutting {o}"),
    ),
    "pick up": (
        ("pick up {o}", "picked up {o}", "picked up {o}", "picking up {o}"),
        ("take {o}", "took {o}", "taken {o}", "taking {o}"),
        ("grab {o}", "grabbed {o}", "grabbed {o}", "grabbing {o}"),
    ),
    "put down": (
        ("put down {o}", "put down {o}", "put down {o}", "putting down {o}"),
        ("drop {o}", "dropped {o}", "dropped {o}", "dropping {o}"),
        ("set down {o}", "set down {o}", "set down {o}", "setting down {o}"),
    ),
    "move": (
        ("place {o} in or on something", "placed {o} in or on something", "placed {o} in or on something",
         "placing {o} in or on something"),
        ("transfer {o} into something", "transferred {o} into something", "transferred {o} into something",
         "transferring {o} into something"),
    ),
    "pour": (
        ("pour out {o}", "poured out {o}", "poured out {o}", "pouring out {o}"),
        ("empty {o} into something", "emptied {o} into something", "emptied {o} into something",
         "emptying {o} into something"),
    ),
    "activate": (
        ("turn on {o}", "turned on {o}", "turned on {o}", "turning on {o}"),
        ("switch on {o}", "switched on {o}", "switched on {o}", "switching on {o}"),
        ("activate {o}", "activated {o}", "activated {o}", "activating {o}"),
    ),
    "deactivate": (
        ("turn off {o}", "turned off {o}", "turned off {o}", "turning off {o}"),
        ("switch off {o}", "switched off {o}", "switched off {o}", "switching off {o}"),
        ("deactivate {o}", "deactivated {o}", "deactivated {o}", "deactivating {o}"),
    ),
    "focus on": (
        ("focus on {o}", "focused on {o}", "focused on {o}", "focusing on {o}"),
        ("put the focus on {o}", "put the focus on {o}", "put the focus on {o}", "putting the focus on {o}"),
    ),
    "measure": (
        ("measure the temperature of {o}", "measured the temperature of {o}", "measured the temperature of {o}",
         "measuring the temperature of {o}"),
        ("take the temperature of {o}", "took the temperature of {o}", "taken the temperature of {o}",
         "taking the temperature of {o}"),
        ("use the thermometer on {o}", "used the thermometer on {o}", "used the thermometer on {o}",
         "using the thermometer on {o}"),
    ),
    "examine": (
        ("examine {o}", "examined {o}", "examined {o}", "examining {o}"),
        ("look at {o}", "looked at {o}", "looked at {o}", "looking at {o}"),
        ("inspect {o}", "inspected {o}", "inspected {o}", "inspecting {o}"),
    ),
    "look around": (
        ("look around {o}", "looked around {o}", "looked around {o}", "looking around {o}"),
        ("survey {o}", "surveyed {o}", "surveyed {o}", "surveying {o}"),
    ),
    "start task": (
        ("start the {o} task", "started the {o} task", "started the {o} task", "starting the {o} task"),
        ("begin the {o} task", "began the {o} task", "begun the {o} task", "beginning the {o} task"),
        ("load the {o} task", "loaded the {o} task", "loaded the {o} task", "loading the {o} task"),
    ),
    "complete task": (
        ("finish the {o} task", "finished the {o} task", "finished the {o} task", "finishing the {o} task"),
        ("complete the {o} task", "completed the {o} task", "completed the {o} task", "completing the {o} task"),
        ("solve the {o} task", "solved the {o} task", "solved the {o} task", "solving the {o} task"),
    ),
    "eat": (("eat {o}", "ate {o}", "eaten {o}", "eating {o}"),),
    "read": (("read {o}", "read {o}", "read {o}", "reading {o}"),),
    "mix": (("mix {o}", "mixed {o}", "mixed {o}", "mixing {o}"), ("stir {o}", "stirred {o}", "stirred {o}", "stirring {o}")),
    "connect": (
        ("connect {o} to something", "connected {o} to something", "connected {o} to something",
         "connecting {o} to something"),
        ("wire up {o}", "wired up {o}", "wired up {o}", "wiring up {o}"),
    ),
    "look in": (("look inside {o}", "looked inside {o}", "looked inside {o}", "looking inside {o}"),),
}

#: Verb phrases for "any object" patterns and for kinds without an object.
_LEX_ANY: dict[str, tuple[Forms, ...]] = {
    "go to": (
        ("walk into another room", "walked into another room", "walked into another room", "walking into another room"),
        ("go through a door into a room", "went through a door into a room", "gone through a door into a room",
         "going through a door into a room"),
    ),
    "teleport to": (
        ("teleport", "teleported", "teleported", "teleporting"),
        ("teleport somewhere", "teleported somewhere", "teleported somewhere", "teleporting somewhere"),
    ),
    "pick up": (
        ("pick something up", "picked something up", "picked something up", "picking something up"),
        ("take an item", "took an item", "taken an item", "taking an item"),
    ),
    "put down": (
        ("put something down", "put something down", "put something down", "putting something down"),
        ("drop an item", "dropped an item", "dropped an item", "dropping an item"),
    ),
    "open": (("open something", "opened something", "opened something", "opening something"),),
    "close": (("close something", "closed something", "closed something", "closing something"),),
    "activate": (
        ("switch on a device", "switched on a device", "switched on a device", "switching on a device"),
        ("turn an appliance on", "turned an appliance on", "turned an appliance on", "turning an appliance on"),
    ),
    "deactivate": (
        ("switch off a device", "switched off a device", "switched off a device", "switching off a device"),
        ("turn an appliance off", "turned an appliance off", "turned an appliance off", "turning an appliance off"),
    ),
    "measure": (
        ("take a temperature reading", "took a temperature reading", "taken a temperature reading",
         "taking a temperature reading"),
        ("use the thermometer on something", "used the thermometer on something", "used the thermometer on something",
         "using the thermometer on something"),
    ),
    "examine": (
        ("examine something", "examined something", "examined something", "examining something"),
        ("look closely at something", "looked closely at something", "looked closely at something",
         "looking closely at something"),
    ),
    "look around": (
        ("look around", "looked around", "looked around", "looking around"),
        ("survey the room", "surveyed the room", "surveyed the room", "surveying the room"),
    ),
    "focus on": (("focus on something", "focused on something", "focused on something", "focusing on something"),),
    "move": (
        ("place an item in or on something", "placed an item in or on something", "placed an item in or on something",
         "placing an item in or on something"),
    ),
    "start task": (
        ("start a new task", "started a new task", "started a new task", "starting a new task"),
        ("switch to a new task", "switched to a new task", "switched to a new task", "switching to a new task"),
    ),
    "complete task": (
        ("finish a task", "finished a task", "finished a task", "finishing a task"),
        ("solve a task", "solved a task", "solved a task", "solving a task"),
    ),
    "wait": (
        ("wait", "waited", "waited", "waiting"),
        ("let time pass", "let time pass", "let time pass", "letting time pass"),
    ),
    "check inventory": (
        ("check {p} inventory", "checked {p} inventory", "checked {p} inventory", "checking {p} inventory"),
        ("look through {p} inventory", "looked through {p} inventory", "looked through {p} inventory",
         "looking through {p} inventory"),
    ),
    "score gain": (
        ("score points", "scored points", "scored points", "scoring points"),
        ("gain points", "gained points", "gained points", "gaining points"),
        ("earn some score", "earned some score", "earned some score", "earning some score"),
    ),
}

_TASK_WORDS: dict[str, tuple[str, ...]] = {
    "boil": ("boil", "'boil'", "boiling"),
    "melt": ("melt", "'melt'", "melting"),
    "freeze": ("freeze", "'freeze'", "freezing"),
    "change-the-state-of-matter-of": ("change-the-state-of-matter-of", "'change the state of matter'", "state-change"),
    "use-thermometer": ("use-thermometer", "'use a thermometer'", "thermometer-use"),
    "measure-melting-point-known-substance": (
        "measure-melting-point-known-substance", "melting-point measurement", "'measure the melting point'"),
    "power-component": ("power-component", "'power a component'", "light-bulb powering"),
    "test-conductivity": ("test-conductivity", "conductivity-testing", "'test conductivity'"),
    "find-living-thing": ("find-living-thing", "'find a living thing'", "living-thing search"),
    "find-non-living-thing": ("find-non-living-thing", "'find a non-living thing'", "non-living-thing search"),
    "find-plant": ("find-plant", "'find a plant'", "plant-finding"),
    "find-animal": ("find-animal", "'find an animal'", "animal-finding"),
    "grow-plant": ("grow-plant", "'grow a plant'", "plant-growing"),
    "chemistry-mix": ("chemistry-mix", "'chemistry mix'", "chemistry-mixing"),
}

_ROOM_KINDS = ("go to", "teleport to", "look around")
_OBJECTLESS = ("wait", "check inventory", "score gain")
_NUM_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
              10: "ten", 12: "twelve", 15: "fifteen", 20: "twenty"}
_ORD_WORDS = {1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"), 5: ("fifth", "5th")}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _room_np(room: str) -> str:
    return "the outside area" if room == "outside" else f"the {room}"


def _obj_np(kind: str, obj: str, rng: random.Random) -> str:
    if kind in _ROOM_KINDS:
        return _room_np(obj)
    if kind in ("start task", "complete task"):
        return rng.choice(_TASK_WORDS.get(obj, (obj,)))
    if obj.startswith("door to "):
        room = obj[len("door to "):]
        return rng.choice((f"the door to {_room_np(room)}", f"the door leading to {_room_np(room)}"))
    return f"the {obj}"


def _plural(name: str) -> str | None:
    if re.search(r"(\d|\b[a-z])$", name):
        return None
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    if name.endswith("y") and name[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


class Phraser:
    """Renders patterns as verb phrases for one question (fixed subject, consistent object names)."""

    def __init__(self, rng: random.Random, subject: dict[str, str]) -> None:
        self.rng = rng
        self.subj = subject

    def forms(self, pat: Pat) -> Forms:
        rng = self.rng
        if pat.kind in _OBJECTLESS or pat.obj is None or pat.obj == "":
            options = _LEX_ANY[pat.kind]
            chosen = rng.choice(options)
            return tuple(f.replace("{p}", self.subj["P"]) for f in chosen)  # type: ignore[return-value]
        chosen = rng.choice(_LEX[pat.kind])
        np = _obj_np(pat.kind, pat.obj, rng)
        return tuple(f.replace("{o}", np).replace("{p}", self.subj["P"]) for f in chosen)  # type: ignore[return-value]


def _ord_word(n: int, rng: random.Random) -> str:
    return rng.choice(_ORD_WORDS[n]) if n in _ORD_WORDS else f"{n}th"


def _adverbial(n: int, rng: random.Random) -> str:
    """' for the second time' / ' for the last time' / '' (first)."""
    if n == 1:
        return rng.choice(("", " for the first time"))
    if n == -1:
        return " for the last time"
    if n == -2:
        return rng.choice((" for the second-to-last time", " for the penultimate time"))
    return f" for the {_ord_word(n, rng)} time"


def _occ_np(n: int, s: str, past: str, rng: random.Random) -> str:
    """'the second time I picked up the axe' style noun phrase for the n-th occurrence."""
    if n == -1:
        return f"the last time {s} {past}"
    if n == -2:
        return rng.choice((f"the second-to-last time {s} {past}", f"the penultimate time {s} {past}"))
    return f"the {_ord_word(n, rng)} time {s} {past}"


def _occ_when(n: int, s: str, past: str, rng: random.Random) -> str:
    """'when I picked up the axe for the second time' style clause for the n-th occurrence."""
    if n == 1:
        return rng.choice((f"when {s} first {past}", f"when {s} {past} for the first time"))
    if n == 2 and rng.random() < 0.4:
        return f"when {s} {past} again"
    if n == -1:
        return rng.choice((f"when {s} last {past}", f"when {s} {past} for the last time"))
    return f"when {s} {past}{_adverbial(n, rng)}"


def _k_words(k: int, rng: random.Random) -> str:
    word = _NUM_WORDS.get(k) if rng.random() < 0.5 else None
    num = word or str(k)
    return f"{num} step" if k == 1 else f"{num} steps"


def _decap(text: str) -> str:
    return text if text.startswith(("I ", "I'")) else text[:1].lower() + text[1:]


def _join(head: str, ref: str) -> str:
    return f"{head} {ref}?" if ref else f"{head}?"


def _ask(slot: str, subj: dict[str, str], ref: str, arg: str, rng: random.Random) -> str:
    """A question for one slot at the step that ``ref`` names (``ref`` may be empty when fronted)."""
    S, P, was = subj["S"], subj["P"], subj["was"]
    if slot == "location":
        heads = (f"Where {was} {S}", f"Which room {was} {S} in", f"What room {was} {S} in", f"In which room {was} {S}")
        return _cap(_join(rng.choice(heads), ref))
    if slot == "action":
        heads = (f"What did {S} do", f"Which action did {S} take", f"What command did {S} issue",
                 f"What exact action did {S} perform")
        return _cap(_join(rng.choice(heads), ref))
    if slot == "inventory":
        heads = (f"What {was} {S} carrying", f"What was in {P} inventory", f"What did {S} have in {P} inventory",
                 f"What did {P} inventory hold")
        q = _cap(_join(rng.choice(heads), ref))
        return q if rng.random() < 0.7 else q[:-1] + " (items with counts)?"
    if slot == "item":
        plural = _plural(arg)
        heads = [f"What was the count of {arg} in {P} inventory", f"How many of the item '{arg}' did {S} hold"]
        if plural:
            heads += [f"How many {plural} {was} {S} carrying", f"How many {plural} did {S} have"]
        return _cap(_join(rng.choice(heads), ref))
    if slot == "state":
        if arg == "score":
            heads = (f"What was {P} score", f"How many points did {S} have", "What did the score stand at")
        elif arg == "task":
            heads = (f"Which task {was} {S} working on", "What task was active", f"Which task {was} {S} doing")
        elif arg == "thermometer reading":
            heads = ("What was the latest thermometer reading", f"What temperature had {S} most recently measured",
                     f"What did {P} last temperature reading say")
        else:  # task solved
            head = rng.choice(("Was the current task already solved", "Did the active task count as solved"))
            return _cap(_join(head, ref))[:-1] + "? Answer true or false."
        return _cap(_join(rng.choice(heads), ref))
    if slot == "events":
        heads = ("What events were recorded", "Which events happened", "What events were logged")
        return _cap(_join(rng.choice(heads), ref))
    raise ValueError(slot)


_AGENT_REF = re.compile(r"\b(the agent's|the agent|its|it)\b")


def _name_the_agent(question: str) -> str:
    """Make the first mention of the agent a name, not a pronoun ('its score ...' -> "the agent's score ...")."""
    m = _AGENT_REF.search(question)
    if not m or m.group(1).startswith("the agent"):
        return question
    name = "the agent's" if m.group(1) == "its" else "the agent"
    if m.start() == 0:
        name = _cap(name)
    return question[: m.start()] + name + question[m.end():]


def _front(prefix: str, slot: str, subj: dict[str, str], ref: str, arg: str, rng: random.Random) -> str:
    """'After step 40, where was I the first time I ...?'"""
    return f"{prefix}, {_decap(_ask(slot, subj, ref, arg, rng))}"


def _pronoun(subj: dict[str, str]) -> dict[str, str]:
    """The subject as a pronoun, for a main clause that follows a clause naming it."""
    return dict(subj, S=subj["s"])


_STATE_KEYS = ("score", "task", "thermometer reading", "task solved")


class QuestionMaker:
    """Builds the 60 questions of one episode."""

    def __init__(self, seed: int, episode: str, steps: Sequence[Step]) -> None:
        self.E = Evaluator(episode, steps)
        self.rng = random.Random(seed * 1009 + 17)
        self.episode = episode
        self.used: set[str] = set()
        self.key: Any = None
        self.keys: set[Any] = set()
        E = self.E
        spec: Counter[tuple[str, str]] = Counter()
        anyk: Counter[str] = Counter()
        for s in E.steps:
            for e in s.events:
                if e.kind in _OBJECTLESS:
                    anyk[e.kind] += 1
                    continue
                if e.kind in _LEX and e.obj:
                    spec[(e.kind, e.obj)] += 1
                if e.kind in _LEX_ANY:
                    anyk[e.kind] += 1
        self.spec = spec
        self.anyk = anyk
        self.items = sorted({k for s in E.steps for k, _ in s.inventory})
        self.seen_things = sorted({o for s in E.steps for o in s.objects})
        self.rooms_seen = sorted({s.location.region for s in E.steps if s.location.region})

    # ---- helpers -------------------------------------------------------------------------------
    def subject(self) -> dict[str, str]:
        return self.rng.choice(_SUBJECTS)

    def pattern(self, min_count: int = 1, specific: bool | None = None, exclude: Sequence[Pat] = ()) -> Pat | None:
        """A random pattern with at least ``min_count`` occurrences (kind chosen first, then object)."""
        rng = self.rng
        pool: list[Pat] = []
        if specific is not False:
            pool += [Pat(k, o) for (k, o), c in sorted(self.spec.items()) if c >= min_count]
        if specific is not True:
            pool += [Pat(k, None) for k, c in sorted(self.anyk.items()) if c >= min_count and k != "start task"]
        pool = [p for p in pool if p not in exclude]
        if not pool:
            return None
        kinds = sorted({p.kind for p in pool})
        kind = rng.choice(kinds)
        chosen = rng.choice([p for p in pool if p.kind == kind])
        self.key = chosen if self.key is None else (self.key, chosen)
        return chosen

    def add(self, out: list[dict[str, Any]], family: str, slot: str, question: str, answer: str,
            gold: Sequence[int]) -> bool:
        question = _name_the_agent(question)
        if question in self.used:
            return False
        self.used.add(question)
        ids = [self.E.sid(t) for t in dict.fromkeys(gold)]
        out.append({"episode": self.episode, "family": family, "slot": slot, "question": question,
                    "answer": answer, "gold": ids})
        return True

    @staticmethod
    def trivial_location(slot: str, pat: Pat) -> bool:
        """Whether the question would name its own answer ('Where was I when I walked to the kitchen?',
        'What command did I give when I opened the fridge?')."""
        if slot in ("action", "events") and pat.kind in ("check inventory", "wait", "look around"):
            return True
        if pat.obj is None:
            return False
        if slot in ("location", "events") and pat.kind in _ROOM_KINDS:
            return True
        return slot == "action" and pat.kind not in ("move", "pour", "measure", "connect", "focus on", "examine")

    def state_key(self, t: int) -> str:
        keys = [k for k in _STATE_KEYS if self.E.state(t, k) is not None]
        weights = {"score": 3.0, "task": 2.0, "thermometer reading": 2.5, "task solved": 1.0}
        return _weighted(self.rng, [(k, weights[k]) for k in keys])

    def item_arg(self, t: int) -> str:
        held = [k for k, v in self.E.steps[t].inventory if v > 0]
        if held and self.rng.random() < 0.7:
            return self.rng.choice(held)
        return self.rng.choice(self.items) if self.items else "orange"

    def slot_question(self, slot: str, subj: dict[str, str], ref: str, t: int) -> tuple[str, str]:
        """A question and its answer for a non-step slot read at step ``t``."""
        arg = ""
        if slot == "state":
            arg = self.state_key(t)
        elif slot == "item":
            arg = self.item_arg(t)
        return _ask(slot, subj, ref, arg, self.rng), self.E.slot(slot, t, arg)

    def fronted_question(self, prefix: str, slot: str, subj: dict[str, str], ref: str, t: int) -> tuple[str, str]:
        arg = ""
        if slot == "state":
            arg = self.state_key(t)
        elif slot == "item":
            arg = self.item_arg(t)
        return _front(prefix, slot, subj, ref, arg, self.rng), self.E.slot(slot, t, arg)

    def run(self, family: str, slots: list[str], make: Callable[[str], tuple[str, str, list[int]] | None],
            out: list[dict[str, Any]]) -> None:
        count = 0
        tries = 0
        self.keys: set[Any] = set()
        while count < QUESTIONS_PER_FAMILY:
            slot = slots[count % len(slots)]
            tries += 1
            if tries > 4000:
                raise RuntimeError(f"{self.episode}: could not build {family} questions")
            self.key = None
            made = make(slot)
            if made is None:
                continue
            question, answer, gold = made
            key = self.key
            if key is not None and key in self.keys and tries < 3000:
                continue
            real_slot = "yes/no" if slot in ("yes", "no") else slot
            if self.add(out, family, real_slot, question, answer, gold):
                count += 1
                self.keys.add(key)

    # ---- family 1 -------------------------------------------------------------------------------
    def f1(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        t = rng.randint(1, E.last)
        if slot == "events" and not E.steps[t].events and rng.random() < 0.8:
            return None
        self.key = t
        subj = self.subject()
        ref = rng.choice((f"at step {t}", f"as of step {t}")) if slot in ("state", "inventory", "item") else f"at step {t}"
        if slot == "action" and rng.random() < 0.3:
            q = rng.choice((f"Tell me the action taken at step {t}.", f"Step {t}: which command was entered?"))
            return q, E.slot("action", t), [t]
        if rng.random() < 0.35:
            q, a = self.fronted_question(_cap(ref), slot, subj, "", t)
        else:
            q, a = self.slot_question(slot, subj, ref, t)
        return q, a, [t]

    # ---- family 2 -------------------------------------------------------------------------------
    def f2(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        n = rng.choice((1, 2, 2, 3, 3, 4, -1, -1, -2))
        specific = False if slot == "action" else None
        pat = self.pattern(min_count=max(2, abs(n) + (1 if n < 0 else 0)), specific=specific)
        if pat is None:
            return None
        t = E.nth(pat, n)
        if t is None or self.trivial_location(slot, pat):
            return None
        subj = self.subject()
        ph = Phraser(rng, subj)
        base, past, _, _ = ph.forms(pat)
        s = subj["s"]
        if slot == "step":
            if n == 2 and rng.random() < 0.35:
                q = f"When did {subj['S']} {base} again?"
            else:
                q = rng.choice((
                    f"When did {subj['S']} {base}{_adverbial(n, rng)}?",
                    f"At which step did {subj['S']} {base}{_adverbial(n, rng)}?",
                    f"What step was {_occ_np(n, subj['S'], past, rng)}?",
                    f"Give the step number of {_occ_np(n, subj['S'], past, rng)}.",
                ))
            return _cap(q), str(t), [t]
        ref = _occ_np(n, s, past, rng) if rng.random() < 0.5 else _occ_when(n, s, past, rng)
        q, a = self.slot_question(slot, subj, ref, t)
        return q, a, [t]

    # ---- family 3 -------------------------------------------------------------------------------
    def f3(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        kind = rng.choice(("after", "after", "before", "before", "between", "after-event", "before-event",
                           "first-n", "by"))
        subj = self.subject()
        S, s = subj["S"], subj["s"]
        ph = Phraser(rng, subj)
        if kind in ("after-event", "before-event"):
            x = self.pattern(min_count=2)
            y = self.pattern(min_count=1, specific=True, exclude=[x] if x else [])
            if x is None or y is None or x.kind == y.kind or self.trivial_location(slot, x):
                return None
            ty = E.nth(y, 1)
            assert ty is not None
            if kind == "after-event":
                hits = E.times(x, ty + 1)
                if not hits or not E.times(x, 0, ty - 1):
                    return None  # make the anchor matter
                t = hits[0]
            else:
                hits = E.times(x, 0, ty - 1)
                if not hits or len(hits) == len(E.times(x)):
                    return None
                t = hits[-1]
            bx, px, _, _ = ph.forms(x)
            _, py, party, _ = ph.forms(y)
            gold = [t, ty]
            if kind == "after-event":
                if slot == "step":
                    q = rng.choice((f"When did {S} first {bx} after {s} had first {party}?",
                                    f"After {S} first {py}, at which step did {s} first {bx}?"))
                    return _cap(q), str(t), gold
                if rng.random() < 0.4:
                    q, a = self.fronted_question(f"After {S} first {py}", slot, _pronoun(subj), f"the first time {s} {px}", t)
                else:
                    q, a = self.slot_question(slot, subj, f"the first time {s} {px} after {s} first {py}", t)
                return q, a, gold
            if slot == "step":
                q = rng.choice((f"Before {S} first {py}, when did {s} last {bx}?",
                                f"What was the last step at which {S} {px} before {s} first {py}?"))
                return _cap(q), str(t), gold
            if rng.random() < 0.4:
                q, a = self.fronted_question(f"Before {S} first {py}", slot, _pronoun(subj), f"the last time {s} {px}", t)
            else:
                q, a = self.slot_question(slot, subj, f"the last time {s} {px} before {s} first {py}", t)
            return q, a, gold
        pat = self.pattern(min_count=2)
        if pat is None or self.trivial_location(slot, pat):
            return None
        occ = E.times(pat)
        bx, px, partx, _ = ph.forms(pat)
        if kind == "after":
            i = rng.randrange(1, len(occ))
            n = occ[i - 1] if rng.random() < 0.3 else rng.randint(occ[i - 1], occ[i] - 1)
            t = occ[i]
            if slot == "step":
                q = rng.choice((f"After step {n}, when did {S} first {bx}?",
                                f"What was the first step after step {n} at which {S} {px}?",
                                f"When did {S} next {bx} after step {n}?"))
                return _cap(q), str(t), [t]
            if rng.random() < 0.4:
                q, a = self.fronted_question(f"After step {n}", slot, subj, f"the first time {s} {px}", t)
            else:
                ref = rng.choice((f"the first time after step {n} that {s} {px}", f"when {s} first {px} after step {n}"))
                q, a = self.slot_question(slot, subj, ref, t)
            return q, a, [t]
        if kind == "before":
            i = rng.randrange(0, len(occ) - 1)
            n = occ[i + 1] if rng.random() < 0.3 else rng.randint(occ[i] + 1, occ[i + 1])
            t = occ[i]
            if slot == "step":
                q = rng.choice((f"Before step {n}, when did {S} last {bx}?",
                                f"What was the last step before step {n} at which {S} {px}?"))
                return _cap(q), str(t), [t]
            if rng.random() < 0.4:
                q, a = self.fronted_question(f"Before step {n}", slot, subj, f"the last time {s} {px}", t)
            else:
                ref = rng.choice((f"the last time before step {n} that {s} {px}", f"when {s} last {px} before step {n}"))
                q, a = self.slot_question(slot, subj, ref, t)
            return q, a, [t]
        if kind == "between":
            i = rng.randrange(0, len(occ))
            lo = (occ[i - 1] + 1) if i > 0 else 0
            a_ = rng.randint(lo, occ[i])
            b_ = min(E.last, occ[i] + rng.randint(0, 60))
            t = occ[i]
            if slot == "step":
                q = f"Between step {a_} and step {b_}, at which step did {S} first {bx}?"
                return q, str(t), [t]
            q, a = self.slot_question(slot, subj, f"the first time between step {a_} and step {b_} that {s} {px}", t)
            return q, a, [t]
        if kind == "first-n":
            i = rng.randrange(0, len(occ) - 1)
            n = rng.randint(occ[i] + 1, occ[i + 1])  # t in [0, n-1]
            t = occ[i]
            if slot == "step":
                q = f"Within the first {n} steps, when did {S} last {bx}?"
                return _cap(q), str(t), [t]
            q, a = self.slot_question(slot, subj, f"the last time {s} {px} within the first {n} steps", t)
            return q, a, [t]
        # "by": the last occurrence up to and including step n
        i = rng.randrange(0, len(occ) - 1)
        n = occ[i] if rng.random() < 0.4 else rng.randint(occ[i], occ[i + 1] - 1)
        t = occ[i]
        if slot == "step":
            q = f"By step {n}, when had {S} last {partx}?"
            return _cap(q), str(t), [t]
        q, a = self.slot_question(slot, subj, f"the last time {s} had {partx} by step {n}", t)
        return q, a, [t]

    # ---- family 4 -------------------------------------------------------------------------------
    def conditions(self, subj: dict[str, str]) -> list[tuple[str, int, str, list[str]]]:
        """Candidate conditions: (name, step, reference phrase, step questions)."""
        rng, E = self.rng, self.E
        S, s, P, was = subj["S"], subj["s"], subj["P"], subj["was"]
        was_s = "was" if s in ("I", "it") else "were"
        out: list[tuple[str, int, str, list[str]]] = []
        scores = sorted({int(E.state(t, "score")) for t in range(E.last + 1)} - {0})
        scores = [v for v in scores if v > 0]
        if scores:
            v = rng.choice(scores)
            t = E.first_where(lambda u: int(E.state(u, "score")) >= v)
            if t is not None:
                out.append(("score-first", t, f"at the first step where {P} score was {v} or higher",
                            [f"When did {P} score first reach {v} or more?",
                             f"At which step did {S} first have at least {v} points?"]))
            t = E.first_where(lambda u: int(E.state(u, "score")) >= v, last=True)
            if t is not None:
                out.append(("score-last", t, f"at the last step where {P} score was at least {v}",
                            [f"What was the last step at which {P} score stood at {v} or above?"]))
        if self.items:
            name = rng.choice(self.items)
            have = lambda u: E.item(u, name) > 0  # noqa: E731
            t = E.first_where(have)
            if t is not None and t > 0 and not have(0):
                out.append(("item-first", t, f"at the first step where {s} had the {name} in {P} inventory",
                            [f"When did {S} first have the {name} in {P} inventory?",
                             f"At which step did the {name} first show up in {P} inventory?"]))
            t = E.first_where(have, last=True)
            if t is not None and t < E.last:
                out.append(("item-last", t, f"at the last step where {s} {was_s} still carrying the {name}",
                            [f"What was the last step at which {S} {was} carrying the {name}?"]))
            gone = lambda u: u > 0 and E.item(u, name) == 0 and E.item(u - 1, name) > 0  # noqa: E731
            for last in (False, True):
                t = E.first_where(gone, last=last)
                if t is None:
                    continue
                plural = _plural(name)
                which = "last" if last else "first"
                if plural and name in ("orange", "apple", "banana", "potato") or (plural and rng.random() < 0.3):
                    out.append((f"ranout-{which}", t, f"when {s} {which} ran out of {plural}",
                                [f"When did {S} {which} run out of {plural}?",
                                 f"At which step did {S} run out of {plural} for the {which} time?"]))
                else:
                    out.append((f"gone-{which}", t, f"at the {which} step where the {name} had just left {P} inventory",
                                [f"At which step did the {name} {which} disappear from {P} inventory "
                                 f"(held one step earlier, gone now)?"]))
            counts = [(k, max(E.item(u, k) for u in range(E.last + 1))) for k in self.items]
            multi = [k for k, c in counts if c >= 2 and _plural(k)]
            if multi:
                name = rng.choice(multi)
                pl = _plural(name)
                t = E.first_where(lambda u: E.item(u, name) >= 2)
                if t is not None:
                    out.append(("two", t, f"at the first step where {s} held at least two {pl}",
                                [f"When did {S} first have two or more {pl} at once?"]))
        read_steps = [u for u in range(E.last + 1) if E.state(u, "thermometer reading") is not None]
        if read_steps:
            r0 = float(E.state(read_steps[0], "thermometer reading"))
            readings = sorted({float(E.state(u, "thermometer reading")) for u in read_steps})
            hot = [r for r in readings if r > r0]
            cold = [r for r in readings if r < r0]
            reading = lambda u: E.state(u, "thermometer reading")  # noqa: E731
            if hot and (rng.random() < 0.6 or not cold):
                r = rng.choice(hot)
                thr = math.floor(r)
                thr_txt = _fmt(float(thr))
                t = E.first_where(lambda u: reading(u) is not None and float(reading(u)) >= thr)
                if t is not None:
                    out.append(("hot", t, f"when {s} first measured a temperature of at least {thr_txt} degrees",
                                [f"When did {S} first record a temperature of {thr_txt} degrees Celsius or higher?",
                                 f"At which step did the latest thermometer reading first reach {thr_txt} degrees or more?"]))
            elif cold:
                r = rng.choice(cold)
                thr = math.ceil(r)
                thr_txt = _fmt(float(thr))
                t = E.first_where(lambda u: reading(u) is not None and float(reading(u)) <= thr)
                if t is not None:
                    out.append(("cold", t, f"when {s} first measured a temperature of {thr_txt} degrees or below",
                                [f"When did {S} first record a temperature at or below {thr_txt} degrees Celsius?",
                                 f"At which step was a thermometer reading of {thr_txt} degrees or less first taken?"]))
        tasks = sorted({str(E.state(u, "task")) for u in range(E.last + 1)})
        task = rng.choice(tasks)
        t = E.first_where(lambda u: E.state(u, "task") == task)
        if t is not None and t > 0:
            tw = rng.choice(_TASK_WORDS.get(task, (task,)))
            out.append(("task", t, f"at the first step where the active task was the {tw} one",
                        [f"At which step did the {tw} task first become the active one?"]))
        t = E.first_where(lambda u: bool(E.state(u, "task solved")))
        if t is not None:
            out.append(("solved", t, "at the first step where a task was marked solved",
                        [f"When did {S} first have a task marked as solved?"]))
        return out

    def f4(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng = self.rng
        subj = self.subject()
        conds = self.conditions(subj)
        if not conds:
            return None
        name, t, ref, step_qs = rng.choice(conds)
        self.key = name
        if slot == "step":
            return _cap(rng.choice(step_qs)), str(t), [t]
        q, a = self.slot_question(slot, subj, ref, t)
        return q, a, [t]

    # ---- family 5 -------------------------------------------------------------------------------
    def f5(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        n = rng.choice((1, 1, 2, 3, -1))
        pat = self.pattern(min_count=max(1, abs(n)))
        if pat is None:
            return None
        ta = E.nth(pat, n)
        if ta is None:
            return None
        k = rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8, 10, 12))
        sign = 1 if rng.random() < 0.65 else -1
        t = ta + sign * k
        if not 0 <= t <= E.last:
            return None
        subj = self.subject()
        ph = Phraser(rng, subj)
        _, past, _, _ = ph.forms(pat)
        rel = "after" if sign > 0 else "before"
        K = _k_words(k, rng)
        if n == 1:
            anchor = rng.choice((f"first {past}", f"{past} for the first time"))
        elif n == -1:
            anchor = f"last {past}"
        else:
            anchor = f"{past}{_adverbial(n, rng)}"
        if rng.random() < 0.35:
            q, a = self.fronted_question(_cap(f"{K} {rel} {subj['S']} {anchor}"), slot, _pronoun(subj), "", t)
        else:
            q, a = self.slot_question(slot, subj, f"{K} {rel} {subj['s']} {anchor}", t)
        return q, a, [ta, t]

    # ---- family 6 -------------------------------------------------------------------------------
    def f6(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        y = self.pattern(min_count=1, specific=True)
        x = self.pattern(min_count=2, exclude=[y] if y else [])
        if x is None or y is None or x.kind == y.kind or self.trivial_location(slot, x):
            return None
        ny = rng.choice((1, 1, 2, -1))
        ty = E.nth(y, ny)
        if ty is None:
            return None
        direction = "next" if rng.random() < 0.55 else "previous"
        if direction == "next":
            hits = E.times(x, ty + 1)
            if not hits:
                return None
            t = hits[0]
        else:
            hits = E.times(x, 0, ty - 1)
            if not hits:
                return None
            t = hits[-1]
        subj = self.subject()
        S, s = subj["S"], subj["s"]
        ph = Phraser(rng, subj)
        bx, px, partx, _ = ph.forms(x)
        _, py, _, _ = ph.forms(y)
        adv = _adverbial(ny, rng)
        gold = [ty, t]
        if direction == "next":
            if slot == "step":
                q = rng.choice((f"After {S} {py}{adv}, when did {s} next {bx}?",
                                f"When was the next time {S} {px} after {s} {py}{adv}?"))
                return _cap(q), str(t), gold
            if rng.random() < 0.45:
                q, a = self.fronted_question(_cap(f"after {S} {py}{adv}"), slot, _pronoun(subj),
                                             f"the next time {s} {px}", t)
            else:
                q, a = self.slot_question(slot, subj, f"the next time {s} {px} after {s} {py}{adv}", t)
            return q, a, gold
        if slot == "step":
            q = rng.choice((f"Before {S} {py}{adv}, when had {s} last {partx}?",
                            f"When was the previous time {S} {px} before {s} {py}{adv}?"))
            return _cap(q), str(t), gold
        if rng.random() < 0.45:
            q, a = self.fronted_question(_cap(f"before {S} {py}{adv}"), slot, _pronoun(subj),
                                         f"the previous time {s} {px}", t)
        else:
            q, a = self.slot_question(slot, subj, f"the last time {s} {px} before {s} {py}{adv}", t)
        return q, a, gold

    # ---- family 7 -------------------------------------------------------------------------------
    def f7(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        pat = self.pattern(min_count=2)
        if pat is None:
            return None
        subj = self.subject()
        S, s = subj["S"], subj["s"]
        ph = Phraser(rng, subj)
        base, past, part, _ = ph.forms(pat)
        kind = rng.choice(("all", "between", "before", "by", "after", "first-n", "before-event", "after-event"))
        anchors: list[int] = []
        if kind == "all":
            lo, hi = 0, E.last
            q = rng.choice((f"How many times did {S} {base}?", f"How often did {S} {base} over the whole episode?",
                            f"Count the times {S} {past}."))
        elif kind == "between":
            a_ = rng.randint(0, E.last - 20)
            b_ = min(E.last, a_ + rng.randint(20, 300))
            lo, hi = a_, b_
            q = rng.choice((f"How many times did {S} {base} between step {a_} and step {b_}?",
                            f"Between step {a_} and step {b_}, how often did {S} {base}?"))
        elif kind in ("before", "by", "after", "first-n"):
            n = rng.randint(30, E.last - 10)
            if kind == "before":
                lo, hi = 0, n - 1
                q = f"How many times did {S} {base} before step {n}?"
            elif kind == "by":
                occ = E.times(pat)
                if rng.random() < 0.4:
                    n = rng.choice(occ)
                lo, hi = 0, n
                q = f"By step {n}, how many times had {S} {part}?"
            elif kind == "after":
                lo, hi = n + 1, E.last
                q = rng.choice((f"After step {n}, how many times did {S} {base}?",
                                f"How many times did {S} {base} after step {n}?"))
            else:
                lo, hi = 0, n - 1
                q = f"In the first {n} steps, how many times did {S} {base}?"
        else:
            y = self.pattern(min_count=1, specific=True, exclude=[pat])
            if y is None or y.kind == pat.kind:
                return None
            _, py, _, _ = ph.forms(y)
            if kind == "before-event":
                ty = E.nth(y, 1)
                assert ty is not None
                lo, hi = 0, ty - 1
                q = f"How many times did {S} {base} before {s} first {py}?"
            else:
                ty = E.nth(y, -1)
                assert ty is not None
                lo, hi = ty + 1, E.last
                q = rng.choice((f"How many times did {S} {base} after {s} last {py}?",
                                f"After {S} last {py}, how many times did {s} {base}?"))
            anchors = [ty]
        hits = E.times(pat, lo, hi) if hi >= lo else []
        gold = anchors + ([hits[-1]] if hits else [])
        return _cap(q), str(len(hits)), gold

    # ---- family 8 -------------------------------------------------------------------------------
    def _gerund(self, ph: Phraser, pat: Pat, n: int) -> str:
        ger = ph.forms(pat)[3]
        return f"{ger}{_adverbial(n, self.rng)}"

    def f8(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        x = self.pattern(min_count=1, specific=True)
        y = self.pattern(min_count=1, specific=True, exclude=[x] if x else [])
        if x is None or y is None:
            return None
        nx = rng.choice((1, 1, 1, 2, -1))
        ny = rng.choice((1, 1, 1, 2, -1))
        tx, ty = E.nth(x, nx), E.nth(y, ny)
        if tx is None or ty is None or tx == ty:
            return None
        if nx == -1 and len(E.times(x)) == 1:
            nx = 1
        if ny == -1 and len(E.times(y)) == 1:
            ny = 1
        subj = self.subject()
        ph = Phraser(rng, subj)
        gx, gy = self._gerund(ph, x, nx), self._gerund(ph, y, ny)
        if gx == gy:
            return None
        q = rng.choice((f"Which came first: {gx} or {gy}?", f"Which happened earlier, {gx} or {gy}?",
                        f"Of {gx} and {gy}, which did {subj['S']} do first?",
                        f"Tell me which was first: {gx}, or {gy}."))
        first_pat, first_t = (x, tx) if tx < ty else (y, ty)
        return _cap(q), E.text_at(first_pat, first_t), [tx, ty]

    # ---- family 9 -------------------------------------------------------------------------------
    def f9(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        subj = self.subject()
        S, s = subj["S"], subj["s"]
        ph = Phraser(rng, subj)
        if rng.random() < 0.3:
            pat = self.pattern(min_count=2)
            if pat is None:
                return None
            occ = E.times(pat)
            pairs = [(1, 2), (1, -1), (2, 3)] if len(occ) >= 3 else [(1, 2)]
            n1, n2 = rng.choice(pairs)
            t1, t2 = E.nth(pat, n1), E.nth(pat, n2)
            if t1 is None or t2 is None or t1 == t2:
                return None
            _, past, _, _ = ph.forms(pat)
            w1 = _ORD_WORDS[n1][0]
            w2 = "last" if n2 == -1 else _ORD_WORDS[n2][0]
            q = rng.choice((f"How many steps were there between the {w1} and the {w2} time {S} {past}?",
                            f"How many steps passed from the {w1} time {S} {past} to the {w2} time?"))
            return q, str(abs(t2 - t1)), [t1, t2]
        x = self.pattern(min_count=1)
        y = self.pattern(min_count=1, exclude=[x] if x else [])
        if x is None or y is None:
            return None
        nx, ny = rng.choice((1, 1, -1, 2)), rng.choice((1, 1, -1, 2))
        tx, ty = E.nth(x, nx), E.nth(y, ny)
        if tx is None or ty is None or tx == ty:
            return None
        bx, px, _, gx = ph.forms(x)
        by, py, _, gy = ph.forms(y)
        ax, ay = _adverbial(nx, rng), _adverbial(ny, rng)
        if gx + ax == gy + ay:
            return None
        if ty > tx and rng.random() < 0.5:
            q = f"How many steps after {S} {px}{ax} did {s} {by}{ay}?"
        else:
            q = rng.choice((f"How many steps passed between {gx}{ax} and {gy}{ay}?",
                            f"How many steps separate {_occ_np(nx, S, px, rng)} and {_occ_np(ny, s, py, rng)}?",
                            f"What is the distance in steps between {gx}{ax} and {gy}{ay}?"))
        return _cap(q), str(abs(ty - tx)), [tx, ty]

    # ---- family 10 ------------------------------------------------------------------------------
    def never_patterns(self) -> list[Pat]:
        """Plausible events that never happened in the episode."""
        E = self.E
        cands: list[Pat] = []
        entered = {s.location.region for s in E.steps}
        for room in _HOUSE_ROOMS:
            if room not in entered:
                cands += [Pat("go to", room), Pat("teleport to", room)]
            elif not E.times(Pat("teleport to", room)):
                cands.append(Pat("teleport to", room))
        for thing in self.seen_things:
            if thing in _FIXED_WORDS or thing.startswith("door"):
                continue
            words = {w for w in thing.split() if len(w) > 3}
            for kind in ("pick up", "measure", "focus on"):
                done = [o for (k, o) in self.spec if k == kind]
                if any(o in thing or thing in o or words & set(o.split()) for o in done):
                    continue  # a differently named version of it was acted on
                cands.append(Pat(kind, thing))
        for dev in ("stove", "oven", "sink", "bathtub", "stopwatch", "blast furnace", "freezer", "fridge"):
            if dev in self.seen_things:
                kind = "activate" if dev not in ("freezer", "fridge") else "open"
                if not E.times(Pat(kind, dev)):
                    cands.append(Pat(kind, dev))
        if not E.times(Pat("eat", "orange")):
            cands.append(Pat("eat", "orange"))
        return cands

    def f10(self, slot: str) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        subj = self.subject()
        S, s, have = subj["S"], subj["s"], subj["have"]
        ph = Phraser(rng, subj)
        if slot == "list":
            return self.f10_list(subj, ph)
        want_yes = slot == "yes"
        kind = rng.choice(("ever", "before", "after", "between", "before-event", "after-event"))
        if kind == "ever":
            if want_yes:
                pat = self.pattern(min_count=1, specific=True)
            else:
                never = self.never_patterns()
                pat = rng.choice(never) if never else None
            if pat is None:
                return None
            base, past, part, _ = ph.forms(pat)
            hits = E.times(pat)
            q = rng.choice((f"Did {S} ever {base}?", f"{_cap(have)} {S} ever {part}?",
                            f"Was there ever a moment when {S} {past}?"))
            return _cap(q), "yes" if hits else "no", hits[:1]
        pat = self.pattern(min_count=1)
        if pat is None:
            return None
        occ = E.times(pat)
        base, past, part, _ = ph.forms(pat)
        anchors: list[int] = []
        if kind == "before":
            n = rng.randint(occ[0] + 1, min(E.last, occ[0] + 150)) if want_yes else rng.randint(10, max(10, occ[0]))
            if not want_yes and n > occ[0]:
                return None
            lo, hi = 0, n - 1
            q = rng.choice((f"Did {S} {base} before step {n}?", f"Before step {n}, did {S} ever {base}?"))
        elif kind == "after":
            if want_yes:
                n = rng.randint(max(0, occ[-1] - 150), occ[-1] - 1) if occ[-1] > 0 else -1
            else:
                n = rng.randint(occ[-1], E.last - 1) if occ[-1] < E.last else -1
            if n < 0:
                return None
            lo, hi = n + 1, E.last
            q = rng.choice((f"After step {n}, did {S} {base} at all?",
                            f"Was there any time after step {n} when {S} {past}?"))
        elif kind == "between":
            if want_yes:
                t0 = rng.choice(occ)
                a_, b_ = max(0, t0 - rng.randint(0, 40)), min(E.last, t0 + rng.randint(0, 40))
            else:
                gaps = [(p + 1, q_ - 1) for p, q_ in zip([-1] + occ, occ + [E.last + 1]) if q_ - p > 12]
                if not gaps:
                    return None
                g0, g1 = rng.choice(gaps)
                a_ = rng.randint(g0, g1 - 10)
                b_ = rng.randint(a_ + 5, g1)
            lo, hi = a_, b_
            q = rng.choice((f"Did {S} {base} between step {a_} and step {b_}?",
                            f"Between step {a_} and step {b_}, did {S} {base}?"))
        else:
            y = self.pattern(min_count=1, specific=True, exclude=[pat])
            if y is None or y.kind == pat.kind:
                return None
            _, py, _, _ = ph.forms(y)
            if kind == "before-event":
                ty = E.nth(y, 1)
                assert ty is not None
                lo, hi = 0, ty - 1
                q = rng.choice((f"Did {S} {base} before {s} first {py}?",
                                f"Before {S} first {py}, {have} {s} already {part}?"))
            else:
                ty = E.nth(y, -1)
                assert ty is not None
                lo, hi = ty + 1, E.last
                q = rng.choice((f"Did {S} {base} after {s} last {py}?", f"After {S} last {py}, did {s} ever {base}?"))
            anchors = [ty]
        hits = E.times(pat, lo, hi) if hi >= lo else []
        if bool(hits) != want_yes:
            return None
        if "already" in q:
            q = q.replace(f", {have} {s} already", f", had {s} already")
        return _cap(q), "yes" if hits else "no", anchors + hits[:1]

    def f10_list(self, subj: dict[str, str], ph: Phraser) -> tuple[str, str, list[int]] | None:
        rng, E = self.rng, self.E
        S = subj["S"]
        kinds = [k for k in ("pick up", "go to", "measure", "examine", "activate", "open", "put down", "look around")
                 if self.anyk.get(k, 0) >= 3]
        if not kinds:
            return None
        kind = rng.choice(kinds)
        pat = Pat(kind, None)
        self.key = ("list", kind)
        occ = E.times(pat)
        i = rng.randrange(0, len(occ))
        j = min(len(occ) - 1, i + rng.randint(1, 5))
        shape = rng.choice(("between", "between", "after", "before"))
        if shape == "between":
            lo = rng.randint((occ[i - 1] + 1) if i > 0 else 0, occ[i])
            hi = rng.randint(occ[j], (occ[j + 1] - 1) if j + 1 < len(occ) else E.last)
            window = f"between step {lo} and step {hi}"
        elif shape == "after":
            lo = occ[max(0, len(occ) - 1 - rng.randint(1, 5))]
            hi = E.last
            window = f"after step {lo}"
            lo += 1
        else:
            hi = occ[min(len(occ) - 1, rng.randint(1, 5))]
            window = f"before step {hi}"
            lo = 0
            hi -= 1
        names = E.objs(pat, lo, hi)
        if not 2 <= len(names) <= 7:
            return None
        hits = E.times(pat, lo, hi)
        lead = {
            "pick up": (f"What did {S} pick up {window}?", f"Which items did {S} take {window}?"),
            "go to": (f"Which rooms did {S} walk into {window}?", f"List the rooms {S} entered on foot {window}."),
            "measure": (f"What did {S} take the temperature of {window}?",
                        f"Which things did {S} measure with the thermometer {window}?"),
            "examine": (f"What did {S} examine {window}?", f"Which things did {S} look at closely {window}?"),
            "activate": (f"Which devices did {S} switch on {window}?", f"What did {S} turn on {window}?"),
            "open": (f"What did {S} open {window}?", f"Which doors or containers did {S} open {window}?"),
            "put down": (f"What did {S} put down {window}?", f"Which items did {S} drop {window}?"),
            "look around": (f"In which rooms did {S} look around {window}?",
                            f"Which rooms did {S} survey {window}?"),
        }[kind]
        q = rng.choice(lead)
        if rng.random() < 0.3:
            q = q[:-1] + " (in the order first seen)" + q[-1]
        return _cap(q), ", ".join(names), hits

    # ---- all ------------------------------------------------------------------------------------
    def build(self) -> list[dict[str, Any]]:
        rng = self.rng
        out: list[dict[str, Any]] = []

        def slots(options: list[str]) -> list[str]:
            chosen = list(options)
            rng.shuffle(chosen)
            return chosen

        self.run("1_step_index", slots(["action", "location", "inventory", "item", "state", "events"]), self.f1, out)
        self.run("2_nth_occurrence", slots(["step", "location", "inventory", "state", "item", "action", "events"])[:6],
                 self.f2, out)
        self.run("3_windowed_occurrence", slots(["step", "step", "location", "action", "state", "inventory", "item"])[:6],
                 self.f3, out)
        self.run("4_condition", slots(["step", "step", "location", "action", "inventory", "state", "item"])[:6],
                 self.f4, out)
        self.run("5_offset", slots(["action", "action", "location", "inventory", "state", "events", "item"])[:6],
                 self.f5, out)
        self.run("6_next_previous", slots(["step", "step", "location", "action", "state", "inventory", "events"])[:6],
                 self.f6, out)
        self.run("7_count", ["count"], self.f7, out)
        self.run("8_order", ["which-first"], self.f8, out)
        self.run("9_distance", ["duration"], self.f9, out)
        self.run("10_existence", slots(["yes", "no", "yes", "no", "list", "list"]), self.f10, out)
        return out


# --------------------------------------------------------------------------------------------------
# Module interface.
# --------------------------------------------------------------------------------------------------


def build(seed: int) -> dict[str, Any]:
    episode = f"sw-{seed}"
    steps = _rollout(seed, episode)
    validate_steps(steps, episode)
    questions = QuestionMaker(seed, episode, steps).build()
    return {"episodes": {episode: steps}, "questions": questions}


def _self_check(seeds: Sequence[int]) -> None:
    import json
    from dataclasses import asdict

    def dump(result: dict[str, Any]) -> str:
        eps = {k: [asdict(s) for s in v] for k, v in result["episodes"].items()}
        return json.dumps({"episodes": eps, "questions": result["questions"]}, sort_keys=True, default=str)

    for seed in seeds:
        first = build(seed)
        second = build(seed)
        assert dump(first) == dump(second), f"seed {seed}: second build differs"
        (episode, steps), = first["episodes"].items()
        assert 300 <= len(steps) <= 1500, f"seed {seed}: {len(steps)} steps"
        qs = first["questions"]
        assert len(qs) == 60, len(qs)
        per_family = Counter(q["family"] for q in qs)
        assert all(per_family[f] == QUESTIONS_PER_FAMILY for f in FAMILIES), per_family
        for q in qs:
            assert q["episode"] == episode
            for gid in q["gold"]:
                ep, _, t = gid.rpartition(":")
                assert ep == episode and 0 <= int(t) < len(steps), gid
            assert q["gold"] or q["answer"] in ("no", "0"), q
        print(f"seed {seed}: {len(steps)} steps, {len(qs)} questions")
        print("  per family:", dict(sorted(per_family.items())))
        print("  per slot:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("  event kinds:", dict(sorted(kinds.items())))
        rng = random.Random(seed)
        for q in rng.sample(qs, 10):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold={q['gold']}")


if __name__ == "__main__":
    _self_check([SEEDS[0], SEEDS[1]])
