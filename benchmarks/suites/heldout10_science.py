"""Held-out trajectory questions on ScienceWorld: the field notes of Juniper, a cautious researcher.

The agent
---------
Juniper is a cautious field researcher working in the real ScienceWorld simulator. One episode chains
3 to 6 ScienceWorld tasks (boiling or freezing a substance, reading a thermometer, wiring a light bulb,
finding an animal, growing a plant, timing a brick on an inclined plane, ...), each in a variation chosen
from the seed. Juniper opens every task by looking around and reading the task card ("task"), then
follows the simulator's gold action sequence, but it never hurries: between gold actions it looks around, checks its inventory,
re-reads the task, examines things, types commands the simulator refuses, walks to a neighbouring room
through an open door and straight back, or picks up a harmless object and drops it again. Detours that
take simulator time are only made while nothing in the task is running (before the first heating,
cooling, waiting, wiring or planting of the gold plan, and never in tasks with living things); after that
only the time-free ones (look around, inventory, task, refused commands). Now and then Juniper writes a
note (a step of its own that is not sent to the simulator; its action reads "note: ..."). Steps are
numbered on across the tasks: when a task ends, the next one is loaded in a fresh world.

The records (one ``Step`` per agent step)
-----------------------------------------
* ``action``: the command exactly as typed ("open door to kitchen", "look around", "0" to answer a
  disambiguation prompt, "note: ..." for a note). ``observation``: the simulator's reply.
* ``location.region``: the room Juniper is in after the step (kitchen, hallway, outside, ...);
  ``position`` is always (0, 0) (ScienceWorld has no grid).
* ``inventory``: what Juniper carries after the step, parsed from the simulator's inventory, one count per
  top-level item name as the simulator words it, without article or trailing description ("thermometer",
  "metal pot", "orange wire"); the contents of containers are not counted.
* ``relations[0]`` = (Juniper, acted on, X): what the action acted on. X is the object the simulator
  reports it moved, focused on, poured from or wired, otherwise the command's object as typed (lower case,
  a trailing "in inventory" dropped; for "use A on B" it is B, for "go to R" the room R). Without an
  object: "look around" acts on the room, "inventory" on "inventory", "task" on "task description",
  waiting on "clock", a note on "notebook", a refused nonsense command on "nothing"; a number typed to
  answer a disambiguation prompt acts on what the simulator then reports it moved or focused on, else on
  "option N".
* ``state`` (after the step): ``score`` (the current task's score, 0-100; it starts again at 0 with every
  task), ``task`` (the ScienceWorld task name being worked on), ``tasks done`` (tasks completed so far),
  ``notes written`` (notes so far), ``last temperature`` (the latest thermometer reading in degrees
  Celsius; absent until the first reading), ``mode`` ("plan" for a gold action, "detour" for a detour,
  "note" for a note), ``rooms visited`` (distinct rooms Juniper has been in so far, over the episode),
  ``side trips`` (walks to a neighbouring room and back so far).
* ``events``: what the step did, in Juniper's own words (``Event(kind, obj)``):
  ``begin task`` (task name; the first step of every task), ``complete task`` (task name; the step at which
  the simulator declared the task completed), ``review task`` (read the task card), ``walk into`` (room;
  moving through a door), ``scan room`` (room; "look around"), ``check bag`` (the "inventory" command),
  ``open up`` / ``shut`` (the thing opened or closed, as typed: "door to kitchen", "freezer"), ``grab``
  (an object moved into the inventory), ``set down`` (an object moved out of the inventory or between
  places: dropped, put into a pot, a box, a sink...), ``declare focus`` (the object focused on),
  ``power on`` / ``power off`` (a device activated / deactivated: stove, sink, stopwatch...),
  ``take temperature`` (what the thermometer was used on), ``pour out`` (the container poured from),
  ``stir`` (the container mixed), ``hook up`` (the device one of whose terminals was wired), ``idle``
  (waiting), ``inspect`` (looked at / examined object), ``consult`` (read a document), ``dig`` (used a
  shovel on the ground), ``jot note`` (a note; its topic: plan, room, temperature, progress, result,
  observation), ``earn points`` (the task score went up; ``count`` = points gained), ``lose points``,
  ``meet ambiguity`` (the simulator asked which of several objects was meant), ``pick option`` (a number
  typed to answer that prompt), ``get refused`` (the simulator refused or could not carry out the command).

The questions
-------------
60 per seed, 6 in each of 10 families (step index, n-th occurrence, windowed occurrence, condition,
offset, next/previous, count/list, order, distance, existence). Every question is a structured spec
evaluated by a plain scan of the steps (``evaluate``); its wording uses everyday paraphrases ("picked up"
for ``grab``, "entered" for ``walk into``, "switched on" for ``power on``, "waited" for ``idle``) or the
kinds themselves ("the second 'scan room' event for the greenhouse"). "The n-th time X happened" counts
steps with such an event; "the moment Juniper started / finished a task" is that task's ``begin task`` /
``complete task`` step. Step numbers in questions are inclusive bounds ("between step 100 and 200" includes
both; "before step 300" is t < 300; "in the first 250 steps" is t < 250; "up to step 300" is t <= 300);
a window bounded by an event excludes that event's step. "After step N" means later than step N.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout10_science"
SEED_RANGE = range(10300, 10400)
AGENT = "Juniper"
JAVA_OPTIONS = "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2"

FAMILIES = (
    "1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
    "6_next_previous", "7_count", "8_order", "9_distance", "10_existence",
)

# Tasks Juniper may be given (the two Mendelian genetics tasks are left out: their gold plans take the
# simulator too long to generate).
TASK_POOL = (
    "boil", "change-the-state-of-matter-of", "chemistry-mix", "chemistry-mix-paint-secondary-color",
    "chemistry-mix-paint-tertiary-color", "find-animal", "find-living-thing", "find-non-living-thing",
    "find-plant", "freeze", "grow-fruit", "grow-plant", "identify-life-stages-1", "identify-life-stages-2",
    "inclined-plane-determine-angle", "inclined-plane-friction-named-surfaces",
    "inclined-plane-friction-unnamed-surfaces", "lifespan-longest-lived",
    "lifespan-longest-lived-then-shortest-lived", "lifespan-shortest-lived",
    "measure-melting-point-known-substance", "measure-melting-point-unknown-substance", "melt",
    "power-component", "power-component-renewable-vs-nonrenewable-energy", "test-conductivity",
    "test-conductivity-of-unknown-substances", "use-thermometer",
)
# Tasks with living things: the world changes with every tick, so only time-free detours are made.
LIVING_TASKS = frozenset({
    "find-animal", "find-living-thing", "find-plant", "grow-fruit", "grow-plant", "identify-life-stages-1",
    "identify-life-stages-2", "lifespan-longest-lived", "lifespan-longest-lived-then-shortest-lived",
    "lifespan-shortest-lived",
})
# A gold action that starts something running (heating, cooling, waiting, timing, wiring, growing).
PROCESS_START = re.compile(
    r"^(activate|deactivate|wait|connect|use shovel|mix|pour|"
    r"move .* to (stove|oven|freezer|fridge|blast furnace|fire pit|ultra low temperature freezer|flower pot|sink|inclined))"
)
ROOMS = (
    "kitchen", "bathroom", "hallway", "bedroom", "living room", "art studio", "workshop", "greenhouse",
    "foundry", "outside",
)
NONSENSE = (
    "whistle", "hum a tune", "xyzzy", "sing a song", "meditate", "fly to the roof", "call home", "dance",
    "ask for help", "summon an assistant", "jump around", "check the weather",
)
# Things never picked up on a detour (fixed appliances, living things, substances).
NO_FIDGET = re.compile(
    r"\b(agent|air|door|ground|sink|bathtub|toilet|stove|oven|freezer|fridge|furnace|fire pit|fountain|"
    r"counter|cupboard|bed|closet|couch|desk|book shelf|bee hive|hive|table|wall|substance|water|soil|"
    r"seed|plant|tree|egg|baby|juvenile|adult|bee|butterfly|moth|frog|turtle|mouse|wolf|rabbit|"
    r"beaver|bird|jay|crocodile|elephant|dragonfly|parrot|giraffe|hedgehog|chameleon|wire|battery|bulb|"
    r"generator|box|foil|inclined plane|brick|block|solar|wind|switch|buzzer|motor|lighter|thermometer|"
    r"stopwatch|jar|pot|cup|bowl|jug|shovel|axe|wood|unknown)\b"
)


# ----------------------------------------------------------------------------------------------------
# Parsing the simulator's text
# ----------------------------------------------------------------------------------------------------


def _clean_name(text: str) -> str:
    """'a thermometer, currently reading ...' -> 'thermometer'; 'a substance called air' -> 'air'."""
    s = text.strip()
    s = re.sub(r"^(a|an|the)\s+", "", s, flags=re.IGNORECASE)
    s = re.sub(r"^substance called\s+", "", s, flags=re.IGNORECASE)
    s = re.split(r"its (?:terminal|anode|cathode)", s)[0]
    for cut in (" (", ", ", ". ", " titled ", " on ", " of a ", " of an ", " which "):
        i = s.find(cut)
        if i > 0:
            s = s[:i]
    return s.strip().rstrip(".").strip().lower()


def _parse_inventory(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for line in text.split("\n")[1:]:
        if line.startswith("\t") and not line.startswith("\t\t") and line.strip():
            name = _clean_name(line)
            if name:
                counts[name] += 1
    return dict(sorted(counts.items()))


def _room_of(look: str) -> str | None:
    m = re.search(r"(?:room|location) is called the ([^.\n]+)\.", look)
    return m.group(1).strip().lower() if m else None


def _look_parts(look: str) -> tuple[list[str], list[str], list[str]]:
    """(top-level object lines, names of rooms behind open doors, names behind any door)."""
    body = look.split("You also see:")[0]
    lines = [ln for ln in body.split("\n")[1:] if ln.startswith("\t") and not ln.startswith("\t\t")]
    open_doors = [m.strip().lower() for m in re.findall(r"A door to the ([^(\n]+?) \(that is open\)", look)]
    any_doors = [m.strip().lower() for m in re.findall(r"A door to the ([^(\n]+?) \(", look)]
    return lines, open_doors, any_doors


def _target(action: str) -> str:
    """The object a command names, lower case, a trailing 'in inventory' dropped."""
    a = action.strip().lower()
    pats = (
        r"^pick up (.+)$", r"^drop (.+)$", r"^move (.+?) to (.+)$", r"^pour (.+?) (?:into|in) (.+)$",
        r"^focus on (.+)$", r"^open (.+)$", r"^close (.+)$", r"^activate (.+)$", r"^deactivate (.+)$",
        r"^look at (.+)$", r"^look in (.+)$", r"^examine (.+)$", r"^read (.+)$", r"^mix (.+)$",
        r"^connect (.+?) to (.+)$", r"^go to (.+)$", r"^eat (.+)$", r"^put (.+?) in (.+)$",
    )
    m = re.match(r"^use (.+?) on (.+)$", a)
    if m:
        obj = m.group(2)
    else:
        obj = ""
        for p in pats:
            m = re.match(p, a)
            if m:
                obj = m.group(1)
                break
    obj = re.sub(r"\s+in inventory$", "", obj).strip()
    obj = re.sub(r"^the\s+", "", obj)
    return obj


REFUSAL = re.compile(
    r"(No known action|Unknown action|It's not clear|can't|cannot|is not openable|isn't|is already|"
    r"appears broken|is not open|not possible|doesn't|does not|nothing happens|You are not|"
    r"not a container|is closed)",
    re.IGNORECASE,
)


# ----------------------------------------------------------------------------------------------------
# The episode: Juniper works through its tasks
# ----------------------------------------------------------------------------------------------------


class _Recorder:
    """Holds the running episode state and turns each command and reply into a raw step."""

    def __init__(self) -> None:
        self.steps: list[dict] = []
        self.region = ""
        self.inventory: dict[str, int] = {}
        self.score = 0
        self.done = False
        self.task = ""
        self.tasks_done = 0
        self.notes = 0
        self.last_temp: int | None = None
        self.rooms: set[str] = set()
        self.side_trips = 0

    def snapshot(self) -> dict:
        return {
            "n": len(self.steps), "region": self.region, "inventory": dict(self.inventory),
            "score": self.score, "done": self.done, "task": self.task, "tasks_done": self.tasks_done,
            "notes": self.notes, "last_temp": self.last_temp, "rooms": set(self.rooms),
            "side_trips": self.side_trips,
        }

    def restore(self, snap: dict) -> None:
        del self.steps[snap["n"]:]
        self.region, self.inventory = snap["region"], dict(snap["inventory"])
        self.score, self.done, self.task = snap["score"], snap["done"], snap["task"]
        self.tasks_done, self.notes, self.last_temp = snap["tasks_done"], snap["notes"], snap["last_temp"]
        self.rooms, self.side_trips = set(snap["rooms"]), snap["side_trips"]

    def record(self, action: str, obs: str, mode: str, score: int, done: bool, inv: dict[str, int],
               extra: list[Event] | None = None, facing: str | None = None, note_topic: str = "",
               side_trip: bool = False) -> dict:
        events: list[Event] = list(extra or [])
        rels: list[Relation] = []
        a = action.strip().lower()
        target = _target(action)
        fac = facing
        obs_s = obs.strip()
        ambiguous = obs_s.startswith("Ambiguous request")
        if mode == "note":
            self.notes += 1
            events.append(Event("jot note", note_topic))
            fac = "notebook"
        else:
            if re.fullmatch(r"\d+", a):
                events.append(Event("pick option", ""))
            if ambiguous:
                events.append(Event("meet ambiguity", ""))
            m = re.search(r"You move to the ([^.\n]+)\.", obs_s)
            if m:
                self.region = m.group(1).strip().lower()
                events.append(Event("walk into", self.region))
            if a == "look around":
                room = _room_of(obs_s)
                if room:
                    self.region = room
                events.append(Event("scan room", self.region))
                fac = self.region
            elif a == "inventory":
                events.append(Event("check bag", ""))
                fac = "inventory"
            elif a == "task":
                events.append(Event("review task", ""))
                fac = "task description"
            for m in re.finditer(r"You move the ([^\n]+?) to the ([^\n]+?)\.", obs_s):
                thing, where = m.group(1).strip().lower(), m.group(2).strip().lower()
                if where == "inventory":
                    events.append(Event("grab", thing))
                else:
                    events.append(Event("set down", thing))
                rels.append(Relation(thing, "moved to", where))
                fac = fac or thing
            if re.search(r"is now open\.", obs_s):
                events.append(Event("open up", target))
            if re.search(r"is now closed\.", obs_s):
                events.append(Event("shut", target))
            if re.search(r"is now activated\.", obs_s):
                events.append(Event("power on", target))
            if re.search(r"is now deactivated\.", obs_s):
                events.append(Event("power off", target))
            m = re.search(r"You focus on the ([^\n]+?)\.", obs_s)
            if m:
                thing = m.group(1).strip().lower()
                events.append(Event("declare focus", thing))
                fac = thing
            m = re.search(r"measures a temperature of (-?\d+(?:\.\d+)?) degrees", obs_s)
            if m:
                self.last_temp = round(float(m.group(1)))
                events.append(Event("take temperature", target))
            m = re.search(r"You pour the contents of the ([^\n]+?) into the ([^\n]+?)\.", obs_s)
            if m:
                src = m.group(1).strip().lower()
                events.append(Event("pour out", src))
                rels.append(Relation(src, "poured into", m.group(2).strip().lower()))
                fac = src
            if a.startswith("mix ") and re.search(r"\bmix\b|produce", obs_s, re.IGNORECASE) and not REFUSAL.search(obs_s):
                events.append(Event("stir", target))
            m = re.search(r"^\w+(?: \d+)? on ([^\n]+?) is now connected to \w+(?: \d+)? on ([^\n]+)$", obs_s)
            if m:
                dev = m.group(1).strip().lower()
                events.append(Event("hook up", dev))
                rels.append(Relation(dev, "wired to", m.group(2).strip().lower().rstrip(".")))
                fac = dev
            if obs_s.startswith("You decide to wait"):
                events.append(Event("idle", ""))
                fac = "clock"
            if re.match(r"^(look at|examine) ", a) and not re.match(r"(No known action|Unknown action|It's not clear)", obs_s) \
                    and not ambiguous:
                events.append(Event("inspect", target))
            if obs_s.startswith("You dig"):
                events.append(Event("dig", "ground"))
            if a.startswith("read ") and not REFUSAL.search(obs_s) and not ambiguous:
                events.append(Event("consult", target))
            acted = {"walk into", "grab", "set down", "open up", "shut", "power on", "power off", "declare focus",
                     "take temperature", "pour out", "stir", "hook up", "idle", "inspect", "dig", "consult",
                     "scan room", "check bag", "review task", "pick option"}
            refused = REFUSAL.search(obs_s) or a in NONSENSE
            if refused and not ambiguous and not any(e.kind in acted for e in events):
                events.append(Event("get refused", ""))
            if fac is None and re.fullmatch(r"\d+", a):
                fac = f"option {a}"
            if fac is None:
                fac = target or ("nothing" if a in NONSENSE else self.region)
            delta = score - self.score
            if delta > 0:
                events.append(Event("earn points", "", delta))
            elif delta < 0:
                events.append(Event("lose points", "", -delta))
            self.score = score
            if done and not self.done:
                events.append(Event("complete task", self.task))
                self.tasks_done += 1
            self.done = done
            self.inventory = dict(inv)
        if side_trip:
            self.side_trips += 1
        if self.region:
            self.rooms.add(self.region)
        seen: set[tuple[str, str]] = set()
        uniq: list[Event] = []
        for e in events:
            if (e.kind, e.obj) not in seen:
                seen.add((e.kind, e.obj))
                uniq.append(e)
        state: dict = {
            "score": self.score, "task": self.task, "tasks done": self.tasks_done, "notes written": self.notes,
            "mode": mode, "rooms visited": len(self.rooms), "side trips": self.side_trips,
        }
        if self.last_temp is not None:
            state["last temperature"] = self.last_temp
        raw = {
            "action": action, "obs": obs_s, "events": uniq,
            "relations": [Relation(AGENT, "acted on", fac or "nothing")] + rels,
            "region": self.region, "inventory": dict(self.inventory), "state": state, "mode": mode,
        }
        self.steps.append(raw)
        return raw


class _Runner:
    def __init__(self, env, rng: random.Random) -> None:
        self.env = env
        self.S = env.server
        self.rng = rng
        self.rec = _Recorder()
        self.used: set[str] = set()

    def sim(self, cmd: str, mode: str, **kw) -> dict:
        obs = self.S.step(cmd)
        score = round(100 * self.S.getScore())
        done = bool(self.S.getCompleted())
        inv = _parse_inventory(self.S.freeActionInventory())
        return self.rec.record(cmd, obs, mode, score, done, inv, **kw)

    def note(self, topic: str, text: str) -> None:
        self.rec.record(f"note: {text}", f"Noted in the field notebook: {text}", "note", self.rec.score,
                        self.rec.done, self.rec.inventory, note_topic=topic)

    def look(self) -> str:
        return self.S.freeActionLook()

    # -- detours ------------------------------------------------------------------------------------
    def _resolve_prompt(self, raw: dict) -> None:
        if raw["obs"].startswith("Ambiguous request"):
            self.sim("0", "detour")

    def detour(self, calm: bool, avoid: set[str]) -> None:
        rng = self.rng
        kinds = ["look", "inv", "task", "nonsense", "note"]
        weights = [3, 3, 1, 2, 1]
        if calm:
            kinds += ["examine", "walk", "fidget", "far"]
            weights += [3, 2, 1, 1]
        kind = rng.choices(kinds, weights)[0]
        if kind == "look":
            self.sim("look around", "detour")
        elif kind == "inv":
            self.sim("inventory", "detour")
        elif kind == "task":
            self.sim("task", "detour")
        elif kind == "nonsense":
            self.sim(rng.choice(NONSENSE), "detour")
        elif kind == "note":
            self._random_note()
        else:
            look = self.look()
            lines, open_doors, any_doors = _look_parts(look)
            names = [_clean_name(ln) for ln in lines]
            here = Counter(names)
            inv = set(self.rec.inventory)
            if kind == "far":
                far = [r for r in ROOMS if r not in any_doors and r != self.rec.region and r not in look.lower()]
                if far:
                    self.sim(f"go to {rng.choice(far)}", "detour")
                else:
                    self.sim(rng.choice(NONSENSE), "detour")
            elif kind == "examine":
                cands = sorted(n for n in here if here[n] == 1 and n not in inv and n not in ("agent", "air")
                               and n not in avoid and look.lower().count(n) == 1)
                fresh = [c for c in cands if c not in self.used]
                if cands:
                    thing = rng.choice(fresh or cands)
                    self.used.add(thing)
                    raw = self.sim(f"look at {thing}", "detour")
                    self._resolve_prompt(raw)
                else:
                    self.sim("look around", "detour")
            elif kind == "walk":
                back = self.rec.region
                if open_doors and back and self.rec.steps[-1]["mode"] != "detour":
                    dest = rng.choice(sorted(open_doors))
                    raw = self.sim(f"go to {dest}", "detour", side_trip=True)
                    if raw["region"] != back:
                        self.sim(f"go to {back}", "detour")
                else:
                    self.sim("inventory", "detour")
            elif kind == "fidget":
                cands = []
                for ln, n in zip(lines, names):
                    if here[n] != 1 or n in inv or n in avoid or NO_FIDGET.search(ln.lower()) or look.lower().count(n) != 1:
                        continue
                    if "(containing" in ln and "(containing nothing)" not in ln:
                        continue
                    if " is: " in ln and " is: nothing" not in ln:
                        continue
                    cands.append(n)
                cands = sorted(set(cands))
                fresh = [c for c in cands if c not in self.used]
                if cands:
                    thing = rng.choice(fresh or cands)
                    self.used.add(thing)
                    raw = self.sim(f"pick up {thing}", "detour")
                    self._resolve_prompt(raw)
                    if any(e.kind == "grab" for e in self.rec.steps[-1]["events"]):
                        raw = self.sim(f"drop {thing}", "detour")
                        self._resolve_prompt(raw)
                else:
                    self.sim("task", "detour")

    def _random_note(self) -> None:
        rng, rec = self.rng, self.rec
        choice = rng.randrange(3)
        if choice == 0:
            carried = ", ".join(f"{k}" for k in sorted(rec.inventory)) or "nothing"
            self.note("observation", f"in the {rec.region or 'room'}, carrying {carried}")
        elif choice == 1:
            self.note("progress", f"score on {rec.task} is {rec.score}")
        else:
            self.note("plan", f"stay careful, keep following the procedure for {rec.task}")

    # -- one task ---------------------------------------------------------------------------------
    def run_task(self, task: str, variation: int, n_detours: int, free_only: bool, loaded: bool) -> tuple[bool, int]:
        env, rng, rec = self.env, self.rng, self.rec
        if not loaded:
            env.load(task, variation, "", generateGoldPath=True)
        gold = [str(g) for g in env.get_gold_action_sequence()]
        rec.task, rec.score, rec.done = task, 0, False
        self.used = set()
        rec.region = _room_of(self.look()) or rec.region
        rec.inventory = _parse_inventory(self.S.freeActionInventory())
        avoid_text = (" ".join(gold) + " " + self.S.freeActionTaskDesc()).lower()
        avoid = set(re.findall(r"[a-z]+", avoid_text))
        avoid_names = {w for w in avoid if len(w) > 2}
        start = len(gold)
        for i, g in enumerate(gold):
            if PROCESS_START.match(g.lower()):
                start = i
                break
        if task in LIVING_TASKS or free_only:
            start = -1
        # Right after a load the simulator still reports the score of its gold-path check until a command
        # is evaluated ("look around" is, and takes no time): Juniper looks around first, then reads the card.
        obs = self.S.step("look around")
        rec.score = round(100 * self.S.getScore())
        rec.done = bool(self.S.getCompleted())
        rec.record("look around", obs, "plan", rec.score, rec.done, _parse_inventory(self.S.freeActionInventory()),
                   extra=[Event("begin task", task)])
        self.sim("task", "plan")
        if rng.random() < 0.7:
            self.note("plan", f"{task}: {len(gold)} planned actions, starting in the {rec.region}")
        slots = Counter(rng.randrange(len(gold) + 1) for _ in range(max(0, n_detours)))
        prev_ambiguous = False
        seen_rooms = set(rec.rooms)
        for i in range(len(gold) + 1):
            if not prev_ambiguous:
                for _ in range(slots.get(i, 0)):
                    self.detour(calm=i <= start, avoid=avoid_names)
            if i == len(gold):
                break
            raw = self.sim(gold[i], "plan")
            prev_ambiguous = raw["obs"].startswith("Ambiguous request")
            if prev_ambiguous:
                continue
            kinds = {e.kind for e in raw["events"]}
            if "take temperature" in kinds and rng.random() < 0.5:
                self.note("temperature", f"{raw['events'][0].obj if raw['events'] else 'sample'} read {rec.last_temp} C")
            elif rec.region not in seen_rooms and "walk into" in kinds and rng.random() < 0.35:
                seen_rooms.add(rec.region)
                self.note("room", f"first look at the {rec.region} during {task}")
            elif "earn points" in kinds and rng.random() < 0.2:
                self.note("progress", f"{task} score now {rec.score}")
            if "complete task" in kinds:
                self.note("result", f"{task} done with score {rec.score}")
        return rec.done, len(gold)


def _episode_steps(seed: int) -> tuple[list[dict], list[dict]]:
    """Run Juniper's episode for ``seed``: (raw steps, task log)."""
    os.environ["JAVA_TOOL_OPTIONS"] = JAVA_OPTIONS
    from scienceworld import ScienceWorldEnv

    rng = random.Random(seed * 7919 + 17)
    env = ScienceWorldEnv("", envStepLimit=10**9)
    try:
        runner = _Runner(env, rng)
        pool = list(TASK_POOL)
        rng.shuffle(pool)
        n_tasks = rng.randint(3, 6)
        target = rng.randint(450, 850)
        log: list[dict] = []
        for task in pool:
            done_steps = len(runner.rec.steps)
            if len(log) >= 6 or (len(log) >= n_tasks and done_steps >= 400) or (len(log) >= 3 and done_steps >= target):
                break
            variation = rng.randrange(env.get_max_variations(task))
            env.load(task, variation, "", generateGoldPath=True)
            gold_len = len(env.get_gold_action_sequence())
            if gold_len == 0 or done_steps + gold_len * 1.2 + 10 > 980:
                continue
            tasks_left = max(1, n_tasks - len(log))
            share = max(0, target - done_steps) / tasks_left
            cap = int(1.2 * gold_len + 15)
            if len(log) == 5:
                cap = max(cap, int(430 - done_steps - gold_len * 1.2))
            n_det = int(share - gold_len * 1.15 - 3)
            n_det = max(int(0.3 * gold_len) + 3, min(n_det, cap))
            n_det = min(n_det, max(0, int((960 - done_steps - gold_len * 1.15) / 1.4)))
            snap = runner.rec.snapshot()
            ok, _ = runner.run_task(task, variation, n_det, free_only=False, loaded=True)
            mode = "full"
            if not ok:
                runner.rec.restore(snap)
                ok, _ = runner.run_task(task, variation, n_det, free_only=True, loaded=False)
                mode = "time-free"
            log.append({"task": task, "variation": variation, "gold": gold_len, "detours": n_det,
                        "completed": ok, "mode": mode, "end": len(runner.rec.steps)})
        return runner.rec.steps, log
    finally:
        env.close()


def _to_steps(raw: list[dict]) -> list[Step]:
    steps = []
    for t, r in enumerate(raw):
        objs = []
        for e in r["events"]:
            if e.obj and e.obj not in objs:
                objs.append(e.obj)
        for rel in r["relations"]:
            if rel.obj not in objs and rel.obj not in ("nothing",):
                objs.append(rel.obj)
        kinds = ", ".join(f"{e.kind} {e.obj}".strip() for e in r["events"]) or "no event"
        summary = f"{AGENT} ({r['mode']}) in the {r['region']}: {r['action']} -> {kinds}"
        steps.append(Step(
            t=t, action=r["action"], summary=summary, objects=tuple(objs), events=tuple(r["events"]),
            relations=tuple(r["relations"]), inventory=r["inventory"], state=r["state"],
            location=Location(position=(0, 0), region=r["region"], underfoot=""), observation=r["obs"],
        ))
    return steps


# ----------------------------------------------------------------------------------------------------
# Reference evaluator: a spec is answered by a plain scan over the Step records
# ----------------------------------------------------------------------------------------------------
#
# pattern  {"kind": K, "obj": O or None}
# window   {"lo": bound or None, "hi": bound or None}; bound {"t": N, "incl": bool} or {"anchor": A}
#          (a step-number bound is inclusive when "incl", an anchor bound always excludes its step)
# anchors  {"a": "step", "t": N}
#          {"a": "occ", "pat": P, "n": n, "win": W}      n = 1, 2, ... or -1 (last), -2 (second-to-last)
#          {"a": "cond", "var": {"state": key} | {"item": name}, "op": "ge"|"le"|"eq"|"zero", "value": v,
#           "which": "first"|"last", "win": W}             "zero": 0 now and more than 0 the step before
#          {"a": "offset", "base": A, "k": k}             k steps after (k > 0) or before (k < 0)
#          {"a": "next", "pat": P, "base": A}             first match after the base step
#          {"a": "prev", "pat": P, "base": A}             last match before the base step
# queries  {"q": "slot", "target": A, "slot": S, "arg": name}   S: action step location item inventory state
#                                                               facing events
#          {"q": "count", "pat": P, "win": W}   {"q": "list", "kind": K, "win": W}
#          {"q": "exists", "pat": P, "win": W}  {"q": "order", "a": A, "b": B, "labels": [la, lb]}
#          {"q": "distance", "a": A, "b": B}


def _match(step: Step, pat: dict) -> bool:
    kind, obj = pat["kind"], pat.get("obj")
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def _window(steps: list[Step], win: dict | None) -> tuple[int, int, set[int]] | None:
    lo, hi, gold = 0, len(steps) - 1, set()
    if not win:
        return lo, hi, gold
    for side in ("lo", "hi"):
        b = win.get(side)
        if b is None:
            continue
        if "anchor" in b:
            r = _resolve(steps, b["anchor"])
            if r is None:
                return None
            t, g = r
            gold |= g
            if side == "lo":
                lo = max(lo, t + 1)
            else:
                hi = min(hi, t - 1)
        else:
            n = int(b["t"])
            if side == "lo":
                lo = max(lo, n if b["incl"] else n + 1)
            else:
                hi = min(hi, n if b["incl"] else n - 1)
    if lo > hi:
        return None
    return lo, hi, gold


def _value(step: Step, var: dict):
    if "state" in var:
        return step.state_dict.get(var["state"])
    return step.inventory_dict.get(var["item"], 0)


def _holds(steps: list[Step], t: int, var: dict, op: str, value) -> bool:
    v = _value(steps[t], var)
    if op == "zero":
        if t == 0:
            return False
        before = _value(steps[t - 1], var)
        return (v or 0) == 0 and isinstance(before, (int, float)) and before > 0
    if v is None:
        return False
    if op == "eq":
        return str(v) == str(value)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    return v >= value if op == "ge" else v <= value


def _resolve(steps: list[Step], a: dict) -> tuple[int, set[int]] | None:
    """An anchor's step and the gold steps it brings (its own step unless it is a bare step number)."""
    kind = a["a"]
    T = len(steps)
    if kind == "step":
        t = int(a["t"])
        return (t, set()) if 0 <= t < T else None
    if kind == "occ":
        w = _window(steps, a.get("win"))
        if w is None:
            return None
        lo, hi, g = w
        ts = [t for t in range(lo, hi + 1) if _match(steps[t], a["pat"])]
        n = int(a["n"])
        if n > 0 and len(ts) >= n:
            t = ts[n - 1]
        elif n < 0 and len(ts) >= -n:
            t = ts[n]
        else:
            return None
        return t, g | {t}
    if kind == "cond":
        w = _window(steps, a.get("win"))
        if w is None:
            return None
        lo, hi, g = w
        ts = [t for t in range(lo, hi + 1) if _holds(steps, t, a["var"], a["op"], a["value"])]
        if not ts:
            return None
        t = ts[0] if a["which"] == "first" else ts[-1]
        return t, g | {t}
    if kind == "offset":
        r = _resolve(steps, a["base"])
        if r is None:
            return None
        t = r[0] + int(a["k"])
        return (t, r[1] | {t}) if 0 <= t < T else None
    if kind in ("next", "prev"):
        r = _resolve(steps, a["base"])
        if r is None:
            return None
        tb = r[0]
        rng_ = range(tb + 1, T) if kind == "next" else range(tb - 1, -1, -1)
        for t in rng_:
            if _match(steps[t], a["pat"]):
                return t, r[1] | {t}
        return None
    raise ValueError(f"unknown anchor {kind!r}")


def _slot_value(step: Step, slot: str, arg: str | None) -> str | None:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region or None
    if slot == "item":
        return str(step.inventory_dict.get(arg, 0))
    if slot == "inventory":
        return ", ".join(f"{k} {v}" for k, v in sorted(step.inventory) if v > 0) or "empty"
    if slot == "state":
        v = step.state_dict.get(arg)
        return None if v is None else str(v)
    if slot == "facing":
        return step.relations[0].obj if step.relations else None
    if slot == "events":
        return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events) or "none"
    raise ValueError(f"unknown slot {slot!r}")


def evaluate(spec: dict, steps: list[Step], episode: str) -> tuple[str, list[str]] | None:
    """(answer, gold source ids) of a question spec, or None when the spec has no answer."""
    q = spec["q"]
    gold: set[int]
    if q == "slot":
        r = _resolve(steps, spec["target"])
        if r is None:
            return None
        t, g = r
        ans = _slot_value(steps[t], spec["slot"], spec.get("arg"))
        if ans is None:
            return None
        gold = g | {t}
    elif q in ("count", "list", "exists"):
        w = _window(steps, spec.get("win"))
        if w is None:
            return None
        lo, hi, g = w
        if q == "list":
            ts = [t for t in range(lo, hi + 1) if any(e.kind == spec["kind"] and e.obj for e in steps[t].events)]
            objs = sorted({e.obj for t in ts for e in steps[t].events if e.kind == spec["kind"] and e.obj})
            ans = ", ".join(objs) or "none"
        else:
            ts = [t for t in range(lo, hi + 1) if _match(steps[t], spec["pat"])]
            ans = str(len(ts)) if q == "count" else ("yes" if ts else "no")
        if q == "exists":
            gold = g | set(ts[:1])
        else:
            gold = g | (set(ts) if len(ts) <= 5 else {ts[-1]})
    elif q in ("order", "distance"):
        ra, rb = _resolve(steps, spec["a"]), _resolve(steps, spec["b"])
        if ra is None or rb is None or ra[0] == rb[0]:
            return None
        gold = ra[1] | rb[1]
        if q == "order":
            ans = spec["labels"][0] if ra[0] < rb[0] else spec["labels"][1]
        else:
            ans = str(abs(ra[0] - rb[0]))
    else:
        raise ValueError(f"unknown query {q!r}")
    return ans, [f"{episode}:{t}" for t in sorted(gold)]


def _slot_name(spec: dict) -> str:
    return {"slot": spec.get("slot", ""), "count": "count", "list": "list", "exists": "yes/no",
            "order": "which-first", "distance": "duration"}[spec["q"]]


# ----------------------------------------------------------------------------------------------------
# Wording
# ----------------------------------------------------------------------------------------------------

KINDS = (
    "begin task", "complete task", "review task", "walk into", "scan room", "check bag", "open up", "shut",
    "grab", "set down", "declare focus", "power on", "power off", "take temperature", "pour out", "stir",
    "hook up", "idle", "inspect", "consult", "dig", "jot note", "earn points", "lose points",
    "meet ambiguity", "pick option", "get refused",
)
_KIND_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)

# kind -> verbatim base form with an object ("v") and without ("vn"); paraphrases as (base, past, gerund)
# with an object ("p") and without ("n"). {O} is the object with its article.
PHRASES: dict[str, dict] = {
    "walk into": {"v": "walk into {O}", "vn": "walk into a room",
                  "p": [("enter {O}", "entered {O}", "entering {O}"), ("go into {O}", "went into {O}", "going into {O}"),
                        ("arrive in {O}", "arrived in {O}", "arriving in {O}")],
                  "n": [("enter a room", "entered a room", "entering a room"),
                        ("move into another room", "moved into another room", "moving into another room")]},
    "scan room": {"p": [("look around {O}", "looked around {O}", "looking around {O}"),
                        ("survey {O}", "surveyed {O}", "surveying {O}")],
                  "n": [("look around", "looked around", "looking around"),
                        ("survey the room", "surveyed the room", "surveying the room")]},
    "check bag": {"n": [("check the inventory", "checked the inventory", "checking the inventory"),
                        ("go through the inventory", "went through the inventory", "going through the inventory")]},
    "review task": {"n": [("re-read the task description", "re-read the task description", "re-reading the task description"),
                          ("look at the task card again", "looked at the task card again", "looking at the task card again")]},
    "open up": {"v": "open up {O}", "vn": "open up something",
                "p": [("open {O}", "opened {O}", "opening {O}")],
                "n": [("open something", "opened something", "opening something")]},
    "shut": {"v": "shut {O}", "vn": "shut something",
             "p": [("close {O}", "closed {O}", "closing {O}")],
             "n": [("close something", "closed something", "closing something")]},
    "grab": {"v": "grab {O}", "vn": "grab something",
             "p": [("pick up {O}", "picked up {O}", "picking up {O}"),
                   ("take {O} into the inventory", "took {O} into the inventory", "taking {O} into the inventory")],
             "n": [("pick something up", "picked something up", "picking something up"),
                   ("take an object into the inventory", "took an object into the inventory", "taking an object into the inventory")]},
    "set down": {"v": "set down {O}", "vn": "set down an object",
                 "p": [("put {O} somewhere outside the inventory", "put {O} somewhere outside the inventory",
                        "putting {O} somewhere outside the inventory"),
                       ("place {O} somewhere", "placed {O} somewhere", "placing {O} somewhere")],
                 "n": [("put an object down or into a container", "put an object down or into a container",
                        "putting an object down or into a container"),
                       ("place an object somewhere", "placed an object somewhere", "placing an object somewhere")]},
    "declare focus": {"v": "declare focus on {O}",
                      "p": [("focus on {O}", "focused on {O}", "focusing on {O}"),
                            ("single out {O} as the focus", "singled out {O} as the focus", "singling out {O} as the focus")],
                      "n": [("focus on something", "focused on something", "focusing on something")]},
    "power on": {"v": "power on {O}", "vn": "power on a device",
                 "p": [("switch on {O}", "switched on {O}", "switching on {O}"), ("turn on {O}", "turned on {O}", "turning on {O}")],
                 "n": [("switch a device on", "switched a device on", "switching a device on")]},
    "power off": {"v": "power off {O}", "vn": "power off a device",
                  "p": [("switch off {O}", "switched off {O}", "switching off {O}"), ("turn off {O}", "turned off {O}", "turning off {O}")],
                  "n": [("switch a device off", "switched a device off", "switching a device off")]},
    "take temperature": {"v": "take temperature readings of {O}", "vn": "take temperature readings",
                         "p": [("measure the temperature of {O}", "measured the temperature of {O}", "measuring the temperature of {O}"),
                               ("use the thermometer on {O}", "used the thermometer on {O}", "using the thermometer on {O}")],
                         "n": [("measure a temperature", "measured a temperature", "measuring a temperature"),
                               ("use the thermometer on something", "used the thermometer on something", "using the thermometer on something")]},
    "pour out": {"v": "pour out {O}", "vn": "pour out a container",
                 "p": [("pour from {O}", "poured from {O}", "pouring from {O}"),
                       ("empty {O} into something", "emptied {O} into something", "emptying {O} into something")],
                 "n": [("pour something", "poured something", "pouring something")]},
    "stir": {"v": "stir {O}", "vn": "stir anything",
             "p": [("mix the contents of {O}", "mixed the contents of {O}", "mixing the contents of {O}")],
             "n": [("mix anything", "mixed something", "mixing something")]},
    "hook up": {"v": "hook up {O}", "vn": "hook up anything",
                "p": [("wire a terminal of {O}", "wired a terminal of {O}", "wiring a terminal of {O}"),
                      ("connect {O} into the circuit", "connected {O} into the circuit", "connecting {O} into the circuit")],
                "n": [("make an electrical connection", "made an electrical connection", "making an electrical connection")]},
    "idle": {"vn": "idle", "n": [("wait", "waited", "waiting"), ("let time pass", "let time pass", "letting time pass")]},
    "inspect": {"v": "inspect {O}", "vn": "inspect anything",
                "p": [("examine {O}", "examined {O}", "examining {O}"), ("look closely at {O}", "looked closely at {O}", "looking closely at {O}")],
                "n": [("examine something", "examined something", "examining something")]},
    "consult": {"v": "consult {O}", "p": [("read {O}", "read {O}", "reading {O}")],
                "n": [("read a document", "read a document", "reading a document")]},
    "dig": {"vn": "dig", "n": [("use the shovel on the ground", "used the shovel on the ground", "using the shovel on the ground")]},
    "jot note": {"p": [("write a {O} note", "wrote a {O} note", "writing a {O} note")],
                 "n": [("write a note", "wrote a note", "writing a note"),
                       ("add an entry to the notebook", "added an entry to the notebook", "adding an entry to the notebook")]},
    "earn points": {"vn": "earn points", "n": [("gain score", "gained score", "gaining score"),
                                              ("see the score go up", "saw the score go up", "seeing the score go up")]},
    "lose points": {"vn": "lose points", "n": [("see the score drop", "saw the score drop", "seeing the score drop")]},
    "get refused": {"vn": "get refused", "n": [("have a command refused", "had a command refused", "having a command refused"),
                                              ("get a command rejected by the simulator", "got a command rejected by the simulator",
                                               "getting a command rejected by the simulator")]},
    "meet ambiguity": {"vn": "meet ambiguity", "n": [("get an ambiguous-command prompt", "got an ambiguous-command prompt",
                                                     "getting an ambiguous-command prompt")]},
    "pick option": {"n": [("answer a disambiguation prompt with a number", "answered a disambiguation prompt with a number",
                           "answering a disambiguation prompt with a number")]},
    "begin task": {"p": [("start {O}", "started {O}", "starting {O}"), ("take up {O}", "took up {O}", "taking up {O}")]},
    "complete task": {"p": [("finish {O}", "finished {O}", "finishing {O}"), ("get {O} done", "got {O} done", "getting {O} done")]},
}
OBJ_KINDS = ("walk into", "scan room", "open up", "shut", "grab", "set down", "declare focus", "power on", "power off",
             "take temperature", "pour out", "stir", "hook up", "inspect", "consult", "begin task", "complete task", "jot note")
NOOBJ_KINDS = tuple(k for k in PHRASES if PHRASES[k].get("n"))
# Kinds that dominate the log; drawn less often so the questions cover more of it.
COMMON = {"scan room": 0.5, "check bag": 0.5, "get refused": 0.6, "inspect": 0.6, "earn points": 0.7}
SUBJECTS = (
    {"s": "I", "did": "did I", "was": "was I", "poss": "my"},
    {"s": "we", "did": "did we", "was": "were we", "poss": "our"},
    {"s": "you", "did": "did you", "was": "were you", "poss": "your"},
    {"s": "the agent", "did": "did the agent", "was": "was the agent", "poss": "the agent's"},
    {"s": "Juniper", "did": "did Juniper", "was": "was Juniper", "poss": "Juniper's"},
)
ORDINALS = {1: ("first", "1st"), 2: ("second", "2nd"), 3: ("third", "3rd"), 4: ("fourth", "4th"),
            -1: ("last", "final"), -2: ("second-to-last", "next-to-last")}
STATE_WORDS = {
    "score": ("the score", "the task score", "the current task's score"),
    "notes written": ("the number of notes written so far", "the notes count"),
    "tasks done": ("the number of finished tasks", "the tasks-done count"),
    "last temperature": ("the last thermometer reading (degrees Celsius)", "the latest measured temperature in Celsius"),
    "rooms visited": ("the number of distinct rooms visited so far", "the rooms-visited count"),
    "side trips": ("the number of side trips so far", "the side-trip count"),
    "mode": ("the recorded mode (plan, detour or note)",),
    "task": ("the task being worked on", "the current ScienceWorld task"),
}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def P(kind: str, obj: str | None = None) -> dict:
    return {"kind": kind, "obj": obj}


def _tb(n: int, incl: bool) -> dict:
    return {"t": n, "incl": incl}


def _ab(anchor: dict) -> dict:
    return {"anchor": anchor}


def W(lo: dict | None = None, hi: dict | None = None) -> dict:
    return {"lo": lo, "hi": hi}


def OCC(pat: dict, n: int, win: dict | None = None) -> dict:
    return {"a": "occ", "pat": pat, "n": n, "win": win}


def COND(var: dict, op: str, value, which: str = "first", win: dict | None = None) -> dict:
    return {"a": "cond", "var": var, "op": op, "value": value, "which": which, "win": win}


def STEP(t: int) -> dict:
    return {"a": "step", "t": t}


def OFF(base: dict, k: int) -> dict:
    return {"a": "offset", "base": base, "k": k}


def NEXT(pat: dict, base: dict) -> dict:
    return {"a": "next", "pat": pat, "base": base}


def PREV(pat: dict, base: dict) -> dict:
    return {"a": "prev", "pat": pat, "base": base}


def SLOT(target: dict, slot: str, arg: str | None = None) -> dict:
    return {"q": "slot", "target": target, "slot": slot, "arg": arg}


def _ordinal_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


LIST_VERBS = {
    "grab": ("pick up", "picked up"), "inspect": ("examine", "examined"), "open up": ("open", "opened"),
    "set down": ("put down or place somewhere", "put down or placed somewhere"), "declare focus": ("focus on", "focused on"),
    "take temperature": ("measure the temperature of", "measured the temperature of"), "power on": ("switch on", "switched on"),
    "power off": ("switch off", "switched off"), "pour out": ("pour from", "poured from"), "shut": ("close", "closed"),
    "hook up": ("wire into a circuit", "wired into a circuit"), "walk into": ("enter", "entered"),
}


class _Gen:
    """Draws question specs from one episode and words them."""

    def __init__(self, steps: list[Step], episode: str, seed: int) -> None:
        self.steps, self.ep, self.T = steps, episode, len(steps)
        self.rng = random.Random(seed * 104729 + 3)
        self.pat_ts: dict[tuple[str, str | None], list[int]] = {}
        for s in steps:
            for e in s.events:
                if e.kind in PHRASES:
                    if e.obj and e.kind in OBJ_KINDS:
                        self.pat_ts.setdefault((e.kind, e.obj), []).append(s.t)
                    if e.kind in NOOBJ_KINDS:
                        lst = self.pat_ts.setdefault((e.kind, None), [])
                        if not lst or lst[-1] != s.t:
                            lst.append(s.t)
        self.tasks = [(e.obj, s.t) for s in steps for e in s.events if e.kind == "begin task"]
        self.completed = {e.obj: s.t for s in steps for e in s.events if e.kind == "complete task"}
        seen: set[str] = set()
        for s in steps:
            if s.action == "look around":
                for ln in s.observation.split("You also see:")[0].split("\n")[1:]:
                    if ln.startswith("\t") and not ln.startswith("\t\t"):
                        n = _clean_name(ln)
                        if n and n not in ("agent", "air") and len(n) < 30:
                            seen.add(n)
        self.seen_objects = sorted(seen)
        self.items = sorted({k for s in steps for k, v in s.inventory if v > 0})
        self.kind_use: Counter[str] = Counter()
        self.allow_verb = False
        self.verbatim = 0
        self.texts: set[str] = set()
        self.want: str | None = None
        self._conds: list[tuple[dict, int]] | None = None

    # -- small utilities ----------------------------------------------------------------------------
    def band(self, j: int) -> tuple[int, int]:
        return j * self.T // 6, max(j * self.T // 6, (j + 1) * self.T // 6 - 1)

    def subj(self) -> dict:
        return self.rng.choice(SUBJECTS)

    def fmt(self, kind: str, obj: str) -> str:
        if kind in ("begin task", "complete task"):
            return f"the '{obj}' task"
        if kind == "jot note":
            return f"'{obj}'"
        return f"the {obj}"

    def ph(self, pat: dict, form: str) -> str:
        kind, obj = pat["kind"], pat.get("obj")
        entry = PHRASES[kind]
        opts, verb = (entry.get("n"), entry.get("vn")) if obj is None else (entry.get("p"), entry.get("v"))
        i = {"base": 0, "past": 1, "ger": 2}[form]
        if form == "base" and verb and self.allow_verb and self.rng.random() < 0.75:
            text = verb
        else:
            text = self.rng.choice(opts)[i]
        return text.replace("{O}", self.fmt(kind, obj)) if obj is not None else text

    def ordw(self, n: int) -> str:
        return self.rng.choice(ORDINALS[n])

    def weight(self, kind: str) -> float:
        return COMMON.get(kind, 1.0) / (1 + self.kind_use[kind]) ** 2

    def pick(self, items: list, kind_of) -> object | None:
        if not items:
            return None
        ws = [self.weight(kind_of(x)) for x in items]
        return self.rng.choices(items, ws)[0]

    def pats(self, obj: bool | None = None, kinds=None, min_count: int = 1) -> list[tuple[dict, list[int]]]:
        out = []
        for (k, o), ts in sorted(self.pat_ts.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            if kinds is not None and k not in kinds:
                continue
            if obj is True and o is None or obj is False and o is not None:
                continue
            if len(ts) >= min_count:
                out.append((P(k, o), ts))
        return out

    def occ_pick(self, lo: int, hi: int, win: dict | None = None, obj: bool | None = None, kinds=None,
                 ns=(1, 2, 3, -1, -2)) -> tuple[dict, int, int] | None:
        """A (pattern, n, t): the n-th occurrence (inside ``win``) at t, in [lo, hi] when one is."""
        w = _window(self.steps, win)
        if w is None:
            return None
        wlo, whi, _ = w
        cands = []
        for pat, ts in self.pats(obj, kinds):
            inside = [t for t in ts if wlo <= t <= whi]
            for n in ns:
                if n > 0 and len(inside) >= n:
                    t = inside[n - 1]
                elif n < 0 and len(inside) >= -n and len(inside) >= 2:
                    t = inside[n]
                else:
                    continue
                if n == -1 and len(inside) == 1:
                    continue
                cands.append((pat, n, t))
        if not cands:
            return None
        inband = [c for c in cands if lo <= c[2] <= hi]
        return self.pick(inband or cands, lambda c: c[0]["kind"])

    def near(self, j: int) -> int:
        lo, hi = self.band(j)
        return self.rng.randint(lo, hi)

    # -- phrases for anchors and windows ------------------------------------------------------------
    def var_words(self, var: dict, S: dict) -> str:
        if "state" in var:
            return self.rng.choice(STATE_WORDS[var["state"]])
        item = var["item"]
        return self.rng.choice((f"the number of '{item}' in {S['poss']} inventory", f"{S['poss']} '{item}' count"))

    def cond_text(self, a: dict, S: dict) -> str:
        """'the score was 50 or more' style predicate (without first/last)."""
        V, v, op = self.var_words(a["var"], S), a["value"], a["op"]
        if op == "ge":
            return self.rng.choice((f"{V} was {v} or more", f"{V} was at least {v}"))
        if op == "le":
            return self.rng.choice((f"{V} was {v} or less", f"{V} was at most {v}"))
        if op == "eq":
            return f"{V} was '{v}'" if isinstance(v, str) else f"{V} was exactly {v}"
        return f"{V} dropped to zero"

    def np(self, a: dict, S: dict) -> str:
        kind = a["a"]
        if kind == "step":
            return f"step {a['t']}"
        if kind == "occ":
            past = self.ph(a["pat"], "past")
            n = a["n"]
            if n == 1 and a["pat"]["kind"] in ("begin task", "complete task"):
                return f"the moment {S['s']} {past}{self.win_text(a.get('win'), S)}"
            return f"the {self.ordw(n)} time {S['s']} {past}{self.win_text(a.get('win'), S)}"
        if kind == "cond":
            which = a["which"]
            return f"the {which} step at which {self.cond_text(a, S)}{self.win_text(a.get('win'), S)}"
        if kind == "offset":
            k = a["k"]
            word = "after" if k > 0 else "before"
            return f"{abs(k)} step{'s' if abs(k) != 1 else ''} {word} {self.np(a['base'], S)}"
        if kind == "next":
            return f"the next time {S['s']} {self.ph(a['pat'], 'past')} after {self.np(a['base'], S)}"
        if kind == "prev":
            return f"the last time {S['s']} {self.ph(a['pat'], 'past')} before {self.np(a['base'], S)}"
        raise ValueError(kind)

    def adv(self, a: dict, S: dict) -> str:
        if a["a"] == "step":
            return self.rng.choice((f"at step {a['t']}", f"right after step {a['t']}"))
        if a["a"] == "cond":
            return "at " + self.np(a, S)
        if a["a"] == "occ" and a["n"] == 1 and self.rng.random() < 0.5:
            return f"when {S['s']} first {self.ph(a['pat'], 'past')}{self.win_text(a.get('win'), S)}"
        return self.np(a, S)

    def win_text(self, win: dict | None, S: dict) -> str:
        if not win:
            return ""
        lo, hi = win.get("lo"), win.get("hi")
        parts: list[str] = []
        if lo is not None and hi is not None and "t" in lo and "t" in hi and lo["incl"] and hi["incl"]:
            return f" between step {lo['t']} and step {hi['t']}"
        if lo is not None:
            if "anchor" in lo:
                parts.append(f" after {self.np(lo['anchor'], S)}")
            elif lo["incl"]:
                parts.append(f" from step {lo['t']} onward")
            else:
                parts.append(f" after step {lo['t']}")
        if hi is not None:
            if "anchor" in hi:
                parts.append(f" before {self.np(hi['anchor'], S)}")
            elif hi["incl"]:
                parts.append(f" up to step {hi['t']}")
            elif lo is None and self.rng.random() < 0.5:
                parts.append(f" in the first {hi['t']} steps")
            else:
                parts.append(f" before step {hi['t']}")
        if len(parts) == 2:
            return parts[0] + " but" + parts[1]
        return parts[0] if parts else ""

    def number_window(self, j: int) -> dict:
        """A window bounded by step numbers around band j."""
        lo, hi = self.band(j)
        r = self.rng.random()
        T = self.T
        if r < 0.25:
            return W(lo=_tb(max(0, lo - self.rng.randint(0, 40)), False))
        if r < 0.5:
            return W(hi=_tb(min(T - 1, hi + self.rng.randint(1, 60)), False))
        if r < 0.6:
            return W(hi=_tb(min(T - 1, hi + self.rng.randint(1, 60)), True))
        a = max(0, lo - self.rng.randint(0, 30))
        b = min(T - 1, hi + self.rng.randint(0, 60))
        return W(lo=_tb(a, True), hi=_tb(b, True))

    def event_anchor(self, lo: int, hi: int, ns=(1, 2, -1)) -> dict | None:
        c = self.occ_pick(lo, hi, obj=True, ns=ns,
                          kinds=("walk into", "open up", "grab", "declare focus", "power on", "begin task",
                                 "complete task", "take temperature", "set down", "shut", "power off", "pour out"))
        if c is None:
            return None
        pat, n, _ = c
        return OCC(pat, n)

    def task_window(self, i: int) -> dict:
        task, _ = self.tasks[i]
        lo = _ab(OCC(P("begin task", task), 1))
        hi = _ab(OCC(P("begin task", self.tasks[i + 1][0]), 1)) if i + 1 < len(self.tasks) else None
        return W(lo=lo, hi=hi)

    def cond_candidates(self, j: int | None = None) -> list[dict]:
        """Condition anchors that hold somewhere in the episode, preferring those resolving in band j."""
        if self._conds is None:
            self._conds = self._all_conds()
        good = list(self._conds)
        if j is None:
            return [a for a, _ in good]
        lo, hi = self.band(j)
        mode = COND({"state": "mode"}, "eq", self.rng.choice(("note", "detour")), "first", W(lo=_tb(lo, False)))
        r = _resolve(self.steps, mode)
        if r is not None:
            good.append((mode, r[0]))
        inband = [a for a, t in good if lo <= t <= hi]
        return inband or [a for a, _ in good]

    def _all_conds(self) -> list[tuple[dict, int]]:
        steps, out = self.steps, []
        for i, (task, t0) in enumerate(self.tasks):
            end = self.tasks[i + 1][1] if i + 1 < len(self.tasks) else self.T
            scores = [steps[t].state_dict["score"] for t in range(t0, end)]
            top = max(scores) if scores else 0
            for k in sorted({v for v in scores if v > 0})[:: max(1, len(set(scores)) // 3)]:
                if 0 < k <= top:
                    out.append(COND({"state": "score"}, "ge", k, "first", W(lo=_ab(OCC(P("begin task", task), 1)))))
        final = steps[-1].state_dict
        for key in ("notes written", "tasks done", "rooms visited", "side trips"):
            top = int(final.get(key, 0))
            for k in range(2, top + 1, max(1, top // 4)):
                out.append(COND({"state": key}, "ge", k, "first"))
        temps = [s.state_dict["last temperature"] for s in steps if "last temperature" in s.state_dict]
        if temps:
            for k in sorted(set(temps))[:: max(1, len(set(temps)) // 3)]:
                out.append(COND({"state": "last temperature"}, "ge", k, "first"))
                out.append(COND({"state": "last temperature"}, "ge", k, "last"))
                out.append(COND({"state": "last temperature"}, "le", k, "first"))
        for item in self.items:
            if item == "orange":
                continue
            out.append(COND({"item": item}, "ge", 1, "first"))
            out.append(COND({"item": item}, "zero", 0, "first"))
            out.append(COND({"item": item}, "zero", 0, "last"))
        good = []
        for a in out:
            r = _resolve(steps, a)
            if r is not None:
                good.append((a, r[0]))
        return good

    def kinds_in(self, spec) -> list[str]:
        found = []
        if isinstance(spec, dict):
            if "kind" in spec and isinstance(spec["kind"], str):
                found.append(spec["kind"])
            for v in spec.values():
                found += self.kinds_in(v)
        elif isinstance(spec, list):
            for v in spec:
                found += self.kinds_in(v)
        return found


class _Questions(_Gen):
    """The ten families: templates (several wordings each) and one-off questions."""

    # -- 1 step index -------------------------------------------------------------------------------
    def f1_a(self, j):
        S, N = self.subj(), self.near(j)
        slot = self.rng.choice(("action", "location", "facing", "events"))
        A = self.adv(STEP(N), S)
        text = self.rng.choice({
            "action": (f"What {S['did']} do {A}?", f"Which command {S['did']} type {A}?", f"{_cap(A)}, what was {S['poss']} action?"),
            "location": (f"Where {S['was']} {A}?", f"Which room {S['was']} in {A}?", f"{_cap(A)}, which room {S['was']} in?"),
            "facing": (f"What {S['did']} act on {A}?", f"{_cap(A)}, what was the object of {S['poss']} action?"),
            "events": (f"Which events were recorded {A}?", f"{_cap(A)}, what events did the log hold?"),
        }[slot])
        return SLOT(STEP(N), slot), text

    def f1_b(self, j):
        S, N = self.subj(), self.near(j)
        held = [k for k, v in self.steps[N].inventory if v > 0 and k != "orange"]
        item = self.rng.choice(held) if held and self.rng.random() < 0.8 else self.rng.choice(self.items)
        A = self.adv(STEP(N), S)
        text = self.rng.choice((f"How many '{item}' {S['was']} carrying {A}?",
                                f"{_cap(A)}, how many '{item}' were in {S['poss']} inventory?"))
        return SLOT(STEP(N), "item", item), text

    def f1_c(self, j):
        S, N = self.subj(), self.near(j)
        keys = [k for k in ("score", "notes written", "tasks done", "rooms visited", "side trips", "last temperature")
                if k in self.steps[N].state_dict]
        key = self.rng.choice(keys)
        A = self.adv(STEP(N), S)
        V = self.rng.choice(STATE_WORDS[key])
        text = self.rng.choice((f"What was {V} {A}?", f"{_cap(A)}, what did {V} stand at?"))
        return SLOT(STEP(N), "state", key), text

    def f1_d(self, j):
        S, N = self.subj(), self.near(j)
        A = self.adv(STEP(N), S)
        text = self.rng.choice((f"What {S['was']} carrying {A}?", f"{_cap(A)}, what was in {S['poss']} inventory?",
                                f"List {S['poss']} inventory {A}."))
        return SLOT(STEP(N), "inventory"), text

    def f1_o1(self, j):
        N = self.near(j)
        return SLOT(STEP(N), "action"), f"Juniper's step {N}: write out, word for word, the command it entered."

    def f1_o2(self, j):
        N = self.near(j)
        return SLOT(STEP(N), "state", "task"), f"Right after step {N}, which ScienceWorld task was on Juniper's plate?"

    def f1_o3(self, j):
        N = self.near(j)
        return (SLOT(STEP(N), "state", "mode"),
                f"Was step {N} a move from the gold plan, a detour, or a note? Give the mode recorded for it.")

    def f1_o4(self, j):
        N = self.near(j)
        return SLOT(STEP(N), "facing"), f"At step {N}, Juniper's command was aimed at something. What was it?"

    def f1_o5(self, j):
        N = self.near(j)
        return SLOT(STEP(N), "state", "notes written"), f"Once step {N} was over, how many notes sat in Juniper's notebook?"

    # -- 2 n-th occurrence --------------------------------------------------------------------------
    def f2_a(self, j):
        S = self.subj()
        c = self.occ_pick(*self.band(j))
        if c is None:
            return None
        pat, n, _ = c
        base, o = self.ph(pat, "base"), self.ordw(n)
        text = self.rng.choice((f"When {S['did']} {base} for the {o} time?",
                                f"At which step {S['did']} {base} for the {o} time?",
                                f"For the {o} time, {S['s']} {self.ph(pat, 'past')}: at which step was that?"))
        return SLOT(OCC(pat, n), "step"), text

    def f2_b(self, j):
        S = self.subj()
        c = self.occ_pick(*self.band(j), kinds=tuple(k for k in PHRASES if k not in ("walk into", "scan room")))
        if c is None:
            return None
        pat, n, _ = c
        a = OCC(pat, n)
        A = self.adv(a, S)
        text = self.rng.choice((f"Where {S['was']} {A}?", f"{_cap(A)}, which room {S['was']} in?"))
        return SLOT(a, "location"), text

    def f2_c(self, j):
        S = self.subj()
        c = self.occ_pick(*self.band(j))
        if c is None:
            return None
        pat, n, _ = c
        a = OCC(pat, n)
        key = self.rng.choice(("score", "notes written", "rooms visited"))
        V = self.rng.choice(STATE_WORDS[key])
        A = self.adv(a, S)
        text = self.rng.choice((f"What was {V} {A}?", f"{_cap(A)}, what was {V}?"))
        return SLOT(a, "state", key), text

    def f2_d(self, j):
        S = self.subj()
        c = self.occ_pick(*self.band(j), obj=False,
                          kinds=("grab", "set down", "inspect", "open up", "power on", "declare focus", "walk into",
                                 "take temperature", "pour out", "shut", "hook up"))
        if c is None:
            return None
        pat, n, _ = c
        a = OCC(pat, n)
        A = self.adv(a, S)
        if self.rng.random() < 0.5:
            return SLOT(a, "facing"), self.rng.choice((f"What {S['did']} act on {A}?", f"{_cap(A)}, what was acted on?"))
        return SLOT(a, "action"), f"{_cap(A)}, what command had {S['s']} typed?"

    def f2_e(self, j):
        c = self.occ_pick(*self.band(j))
        if c is None:
            return None
        pat, n, _ = c
        what = f"'{pat['kind']}' event" + (f" for {self.fmt(pat['kind'], pat['obj'])}" if pat["obj"] else "")
        return SLOT(OCC(pat, n), "step"), f"At which step was the {self.ordw(n)} {what} logged?"

    def f2_o1(self, j):
        c = self.occ_pick(*self.band(j), obj=False, kinds=("jot note",), ns=(2, 3, 4, -1, -2))
        if c is None:
            return None
        pat, n, _ = c
        return SLOT(OCC(pat, n), "step"), f"Counting from the start, at which step did Juniper write its {self.ordw(n)} note?"

    def f2_o2(self, j):
        c = self.occ_pick(*self.band(j), obj=False, kinds=("get refused",))
        if c is None:
            return None
        pat, n, _ = c
        return (SLOT(OCC(pat, n), "action"),
                f"The {self.ordw(n)} time the simulator turned one of Juniper's commands down, what had it typed?")

    def f2_o3(self, j):
        c = self.occ_pick(*self.band(j), obj=False, kinds=("earn points",))
        if c is None:
            return None
        pat, n, _ = c
        return (SLOT(OCC(pat, n), "state", "score"),
                f"Think of the {self.ordw(n)} time the task score went up: where did the score stand right then?")

    def f2_o4(self, j):
        c = self.occ_pick(*self.band(j), obj=False, kinds=("check bag",))
        if c is None:
            return None
        pat, n, _ = c
        return SLOT(OCC(pat, n), "location"), f"In which room did the agent go through its inventory for the {self.ordw(n)} time?"

    # -- 3 windowed occurrence ----------------------------------------------------------------------
    def f3_a(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        N = max(0, lo - self.rng.randint(1, 30))
        win = W(lo=_tb(N, False))
        c = self.occ_pick(lo, hi, win=win, ns=(1,))
        if c is None:
            return None
        pat, _, _ = c
        base = self.ph(pat, "base")
        text = self.rng.choice((f"After step {N}, when {S['did']} first {base}?",
                                f"When {S['did']} first {base} after step {N}?"))
        return SLOT(OCC(pat, 1, win), "step"), text

    def f3_b(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(max(0, lo - 80), lo)
        if anc is None:
            return None
        win = W(lo=_ab(anc))
        c = self.occ_pick(lo, hi, win=win, ns=(1,))
        if c is None:
            return None
        pat, _, _ = c
        base = self.ph(pat, "base")
        wt = self.win_text(win, S).strip()
        slot = self.rng.choice(("step", "location"))
        if slot == "step":
            text = self.rng.choice((f"{_cap(wt)}, when {S['did']} first {base}?", f"When {S['did']} first {base}, {wt}?"))
        else:
            text = self.rng.choice((f"{_cap(wt)}, where {S['was']} the first time {S['s']} {self.ph(pat, 'past')}?",
                                    f"Where {S['was']} when {S['s']} first {self.ph(pat, 'past')} {wt}?"))
        return SLOT(OCC(pat, 1, win), slot), text

    def f3_c(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        a, b = max(0, lo - self.rng.randint(0, 40)), min(self.T - 1, hi + self.rng.randint(0, 40))
        win = W(lo=_tb(a, True), hi=_tb(b, True))
        c = self.occ_pick(lo, hi, win=win, ns=(-1,), kinds=tuple(k for k in PHRASES if k != "walk into"))
        if c is None:
            return None
        pat, _, _ = c
        text = self.rng.choice((
            f"Between step {a} and step {b}, where {S['was']} the last time {S['s']} {self.ph(pat, 'past')}?",
            f"Where {S['was']} the last time {S['s']} {self.ph(pat, 'past')} between step {a} and step {b}?"))
        return SLOT(OCC(pat, -1, win), "location"), text

    def f3_d(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        N = min(self.T - 1, hi + self.rng.randint(1, 50))
        win = W(hi=_tb(N, False))
        c = self.occ_pick(lo, hi, win=win, ns=(2, 3, -1), obj=False,
                          kinds=("grab", "set down", "inspect", "open up", "power on", "declare focus", "walk into",
                                 "take temperature", "pour out", "shut"))
        if c is None:
            return None
        pat, n, _ = c
        wt = self.win_text(win, S).strip()
        text = f"What {S['did']} act on the {self.ordw(n)} time {S['s']} {self.ph(pat, 'past')} {wt}?"
        return SLOT(OCC(pat, n, win), "facing"), text

    def f3_e(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(hi, min(self.T - 1, hi + 80))
        if anc is None:
            return None
        win = W(hi=_ab(anc))
        c = self.occ_pick(lo, hi, win=win, ns=(-1,))
        if c is None:
            return None
        pat, _, _ = c
        wt = self.win_text(win, S).strip()
        text = self.rng.choice((f"{_cap(wt)}, what command {S['did']} type the last time {S['s']} {self.ph(pat, 'past')}?",
                                f"What did {S['s']} type the last time {S['s']} {self.ph(pat, 'past')} {wt}?"))
        return SLOT(OCC(pat, -1, win), "action"), text

    def f3_o1(self, j):
        lo, hi = self.band(j)
        N = min(self.T - 1, hi + self.rng.randint(0, 30))
        win = W(hi=_tb(N, True))
        c = self.occ_pick(lo, hi, win=win, ns=(-1,))
        if c is None:
            return None
        pat, _, _ = c
        self.allow_verb = False
        return (SLOT(OCC(pat, -1, win), "step"),
                f"Up to and including step {N}, what is the step number of the final time Juniper {self.ph(pat, 'past')}?")

    def f3_o2(self, j):
        lo, hi = self.band(j)
        anc = self.event_anchor(max(0, lo - 60), lo, ns=(1,))
        if anc is None or anc["pat"]["kind"] in ("begin task", "complete task"):
            return None
        win = W(lo=_ab(anc))
        c = self.occ_pick(lo, hi, win=win, ns=(1,))
        if c is None:
            return None
        pat, _, _ = c
        return (SLOT(OCC(pat, 1, win), "step"),
                (f"Once Juniper {self.ph(anc['pat'], 'past')} for the first time, when did it first go on to "
                f"{self.ph(pat, 'base')} after that? Give the step number."))

    def f3_o4(self, j):
        _, hi = self.band(j)
        N = min(self.T, hi + self.rng.randint(1, 40))
        win = W(hi=_tb(N, False))
        return (SLOT(OCC(P("grab"), -1, win), "location"),
                f"Within the first {N} steps, in which room did Juniper pick something up for the last time?")

    def f3_o3(self, j):
        lo, hi = self.band(j)
        a, b = lo, min(self.T - 1, hi + 40)
        win = W(lo=_tb(a, True), hi=_tb(b, True))
        return (SLOT(OCC(P("walk into"), 1, win), "location"),
                f"Between step {a} and step {b}, which was the first room the agent entered through a door?")

    # -- 4 condition --------------------------------------------------------------------------------
    def f4_a(self, j):
        S = self.subj()
        cands = [a for a in self.cond_candidates(j) if a["which"] == "first"]
        a = self.rng.choice(cands) if cands else None
        if a is None:
            return None
        text = self.rng.choice((f"At which step was it first true that {self.cond_text(a, S)}{self.win_text(a.get('win'), S)}?",
                                f"When was {self.np(a, S)}? Give the step number."))
        return SLOT(a, "step"), text

    def f4_b(self, j):
        S = self.subj()
        cands = self.cond_candidates(j)
        if not cands:
            return None
        a = self.rng.choice(cands)
        A = self.adv(a, S)
        slot = self.rng.choice(("location", "action"))
        if slot == "location":
            text = self.rng.choice((f"Where {S['was']} {A}?", f"{_cap(A)}, which room {S['was']} in?"))
        else:
            text = self.rng.choice((f"What {S['did']} do {A}?", f"{_cap(A)}, which command had {S['s']} just typed?"))
        return SLOT(a, slot), text

    def f4_c(self, j):
        S = self.subj()
        cands = [a for a in self.cond_candidates(j) if "item" in a["var"]]
        if not cands:
            return None
        a = self.rng.choice(cands)
        item = a["var"]["item"]
        wt = self.win_text(a.get("win"), S)
        if a["op"] == "ge":
            text = self.rng.choice((f"When did the '{item}' first turn up in {S['poss']} inventory{wt}? Give the step.",
                                    f"At which step {S['did']} first carry the '{item}'{wt}?"))
        else:
            text = (f"At which step {S['did']} {a['which']} stop carrying the '{item}' (its count dropping from "
                    f"above zero to zero){wt}?")
        return SLOT(a, "step"), text

    def f4_d(self, j):
        S = self.subj()
        cands = [a for a in self.cond_candidates(j) if "state" in a["var"]]
        if not cands:
            return None
        a = self.rng.choice(cands)
        key = self.rng.choice([k for k in ("score", "notes written", "tasks done", "side trips") if k != a["var"]["state"]])
        V = self.rng.choice(STATE_WORDS[key])
        A = self.adv(a, S)
        return SLOT(a, "state", key), self.rng.choice((f"What was {V} {A}?", f"{_cap(A)}, what was {V}?"))

    def f4_o1(self, j):
        top = int(self.steps[-1].state_dict["notes written"])
        lo, hi = self.band(j)
        ks = [k for k in range(2, top + 1)
              if lo <= (_resolve(self.steps, COND({"state": "notes written"}, "ge", k)) or (-1,))[0] <= hi]
        k = self.rng.choice(ks or list(range(2, top + 1)) or [1])
        return (SLOT(COND({"state": "notes written"}, "ge", k), "location"),
                f"The moment Juniper's notebook held its {_ordinal_digits(k)} note, which room was Juniper in?")

    def f4_o2(self, j):
        items = [i for i in self.items if i != "orange"]
        if not items:
            return None
        item = self.rng.choice(items)
        return SLOT(COND({"item": item}, "ge", 1), "step"), f"Which step first saw the '{item}' in Juniper's inventory?"

    def f4_o3(self, j):
        i = self.rng.randrange(len(self.tasks))
        task = self.tasks[i][0]
        cands = [a for a in self.cond_candidates() if a["var"] == {"state": "score"}
                 and a["win"]["lo"]["anchor"]["pat"]["obj"] == task]
        if not cands:
            return None
        a = self.rng.choice(cands)
        return (SLOT(a, "step"),
                f"After the '{task}' task began, at which step did the score first climb to {a['value']} or higher?")

    def f4_o4(self, j):
        top = int(self.steps[-1].state_dict["tasks done"])
        if top < 2:
            return None
        k = self.rng.randint(2, top)
        return (SLOT(COND({"state": "tasks done"}, "ge", k), "action"),
                f"When the count of finished tasks first reached {k}, what had Juniper just done?")

    # -- 5 offset -----------------------------------------------------------------------------------
    def f5_a(self, j):
        S, N = self.subj(), self.near(j)
        k = self.rng.choice((1, 2, 3, 4, 5, 7, 10, -1, -2, -3, -5, -8))
        a = OFF(STEP(N), k)
        slot = self.rng.choice(("action", "location", "facing"))
        A = self.np(a, S)
        text = {"action": f"What {S['did']} do {A}?", "location": f"Where {S['was']} {A}?",
                "facing": f"What {S['did']} act on {A}?"}[slot]
        return SLOT(a, slot), text

    def f5_b(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        k = self.rng.choice((1, 2, 3, 4, 6, 9))
        c = self.occ_pick(lo + k, hi + k)
        if c is None:
            return None
        a = OFF(OCC(c[0], c[1]), -k)
        return SLOT(a, "location"), self.rng.choice((f"{_cap(self.np(a, S))}, where {S['was']}?",
                                                     f"Where {S['was']} {self.np(a, S)}?"))

    def f5_c(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        k = self.rng.choice((1, 2, 3, 5, 8))
        c = self.occ_pick(lo - k, hi - k, obj=True)
        if c is None:
            return None
        a = OFF(OCC(c[0], c[1]), k)
        slot = self.rng.choice(("inventory", "action"))
        if slot == "inventory":
            text = self.rng.choice((f"What {S['was']} carrying {self.np(a, S)}?", f"{_cap(self.np(a, S))}, what was in {S['poss']} inventory?"))
        else:
            text = f"{_cap(self.np(a, S))}, what did {S['s']} do?"
        return SLOT(a, slot), text

    def f5_d(self, j):
        S = self.subj()
        cands = self.cond_candidates(j)
        if not cands:
            return None
        k = self.rng.choice((-1, -2, -3, 2, 3))
        a = OFF(self.rng.choice(cands), k)
        slot = self.rng.choice(("facing", "events"))
        A = self.np(a, S)
        text = f"What {S['did']} act on {A}?" if slot == "facing" else f"Which events were logged {A}?"
        return SLOT(a, slot), text

    def f5_o1(self, j):
        lo, hi = self.band(j)
        k = self.rng.choice((2, 3, 4, 5))
        c = self.occ_pick(lo + k, hi + k, obj=True)
        if c is None:
            return None
        a = OFF(OCC(c[0], c[1]), -k)
        return (SLOT(a, "state", "score"),
                f"Count {k} steps back from the {self.ordw(c[1])} time Juniper {self.ph(c[0], 'past')}. What was the score there?")

    def f5_o2(self, j):
        N, k = self.near(j), self.rng.choice((3, 4, 6, 12, 15))
        return SLOT(OFF(STEP(N), k), "events"), f"Skip ahead {k} steps from step {N}: which events does that step hold?"

    def f5_o3(self, j):
        done = sorted(self.completed.items(), key=lambda kv: kv[1])
        if not done:
            return None
        lo, hi = self.band(j)
        near = [d for d in done if lo - 20 <= d[1] <= hi + 20] or done
        task, _ = self.rng.choice(near)
        k = self.rng.choice((2, 3, 4))
        words = {2: "Two", 3: "Three", 4: "Four"}[k]
        return (SLOT(OFF(OCC(P("complete task", task), 1), k), "action"),
                f"{words} steps after the simulator declared the '{task}' task complete, what was Juniper typing?")

    # -- 6 next / previous --------------------------------------------------------------------------
    def f6_a(self, j):
        S, N = self.subj(), self.near(j)
        c = self.occ_pick(N + 1, min(self.T - 1, N + 60), win=W(lo=_tb(N, False)), ns=(1,))
        if c is None:
            return None
        pat = c[0]
        base = self.ph(pat, "base")
        text = self.rng.choice((f"After step {N}, when {S['did']} next {base}?", f"When {S['did']} next {base} after step {N}?"))
        return SLOT(NEXT(pat, STEP(N)), "step"), text

    def f6_b(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        t0 = _resolve(self.steps, anc)[0]
        c = self.occ_pick(t0 + 1, min(self.T - 1, t0 + 80), win=W(lo=_tb(t0, False)), ns=(1,))
        if c is None:
            return None
        a = NEXT(c[0], anc)
        if self.rng.random() < 0.5:
            return SLOT(a, "step"), f"When {S['did']} next {self.ph(c[0], 'base')} after {self.np(anc, S)}?"
        return SLOT(a, "location"), f"Where {S['was']} {self.np(a, S)}?"

    def f6_c(self, j):
        S, N = self.subj(), self.near(j)
        c = self.occ_pick(max(0, N - 80), N - 1, win=W(hi=_tb(N, False)), ns=(-1,))
        if c is None:
            return None
        a = PREV(c[0], STEP(N))
        slot = self.rng.choice(("location", "step"))
        if slot == "location":
            text = f"Before step {N}, where {S['was']} the last time {S['s']} {self.ph(c[0], 'past')}?"
        else:
            text = f"When, before step {N}, {S['did']} last {self.ph(c[0], 'base')}?"
        return SLOT(a, slot), text

    def f6_d(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        t0 = _resolve(self.steps, anc)[0]
        c = self.occ_pick(max(0, t0 - 80), t0 - 1, win=W(hi=_tb(t0, False)), ns=(-1,), obj=False,
                          kinds=("grab", "set down", "inspect", "open up", "power on", "declare focus", "walk into",
                                 "take temperature", "pour out", "shut", "hook up", "power off"))
        if c is None:
            return None
        a = PREV(c[0], anc)
        return SLOT(a, "facing"), f"What {S['did']} act on the last time {S['s']} {self.ph(c[0], 'past')} before {self.np(anc, S)}?"

    def f6_o1(self, j):
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None or anc["pat"]["kind"] in ("walk into", "begin task", "complete task"):
            return None
        return (SLOT(NEXT(P("walk into"), anc), "location"),
                f"After Juniper {self.ph(anc['pat'], 'past')} for the {self.ordw(anc['n'])} time, which room did it move into next?")

    def f6_o2(self, j):
        N = self.near(j)
        c = self.occ_pick(max(0, N - 60), N - 1, win=W(hi=_tb(N, False)), ns=(-1,))
        if c is None:
            return None
        self.allow_verb = False
        return (SLOT(PREV(c[0], STEP(N)), "step"),
                f"Going backwards from step {N}, which is the nearest earlier step where Juniper {self.ph(c[0], 'past')}?")

    def f6_o3(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        return (SLOT(NEXT(P("jot note"), anc), "action"),
                f"Following {self.np(anc, S)}, what did the next note in the notebook say?")

    # -- 7 count / list -----------------------------------------------------------------------------
    def f7_a(self, j):
        S = self.subj()
        win = self.number_window(j) if self.rng.random() < 0.8 else None
        cands = self.pats(min_count=1)
        c = self.pick(cands, lambda x: x[0]["kind"])
        if c is None:
            return None
        pat = c[0]
        base = self.ph(pat, "base")
        wt = self.win_text(win, S)
        if wt and self.rng.random() < 0.5:
            text = f"{_cap(wt.strip())}, how often {S['did']} {base}?"
        else:
            text = f"How many times {S['did']} {base}{wt}?"
        return {"q": "count", "pat": pat, "win": win}, text

    def f7_b(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(max(0, lo - 100), lo)
        if anc is None:
            return None
        win = W(lo=_ab(anc)) if self.rng.random() < 0.5 else W(lo=_ab(anc), hi=_tb(min(self.T - 1, hi + 50), True))
        c = self.pick(self.pats(min_count=2), lambda x: x[0]["kind"])
        if c is None:
            return None
        pat = c[0]
        wt = self.win_text(win, S).strip()
        text = self.rng.choice((f"{_cap(wt)}, how many times {S['did']} {self.ph(pat, 'base')}?",
                                f"How many times {S['did']} {self.ph(pat, 'base')} {wt}?"))
        return {"q": "count", "pat": pat, "win": win}, text

    def f7_c(self, j):
        S = self.subj()
        win = self.number_window(j)
        wt = self.win_text(win, S)
        verb = "walk into" if self.allow_verb and self.rng.random() < 0.5 else self.rng.choice(("enter", "go into"))
        text = self.rng.choice((f"Which rooms {S['did']} {verb}{wt}?", f"List the rooms {S['s']} entered through a door{wt}."))
        return {"q": "list", "kind": "walk into", "win": win}, text

    def f7_d(self, j):
        S = self.subj()
        kinds = [k for k in LIST_VERBS if k != "walk into" and (k, None) in self.pat_ts]
        kind = self.pick(kinds, lambda k: k)
        if kind is None:
            return None
        win = self.number_window(j) if self.rng.random() < 0.8 else None
        wt = self.win_text(win, S)
        base, past = LIST_VERBS[kind]
        text = self.rng.choice((f"Which distinct objects {S['did']} {base}{wt}?", f"Name every different thing {S['s']} {past}{wt}."))
        return {"q": "list", "kind": kind, "win": win}, text

    def f7_e(self, j):
        S = self.subj()
        win = self.number_window(j) if self.rng.random() < 0.8 else None
        c = self.pick(self.pats(min_count=1), lambda x: x[0]["kind"])
        if c is None:
            return None
        pat = c[0]
        what = f"'{pat['kind']}' events" + (f" for {self.fmt(pat['kind'], pat['obj'])}" if pat["obj"] else "")
        return {"q": "count", "pat": pat, "win": win}, f"How many {what} were logged{self.win_text(win, S)}?"

    def f7_o1(self, j):
        i = min(len(self.tasks) - 1, j * len(self.tasks) // 6)
        task = self.tasks[i][0]
        return ({"q": "count", "pat": P("jot note"), "win": self.task_window(i)},
                (f"How many notes did Juniper write while it was working on the '{task}' task (after starting it and "
                f"before starting the next one)?"))

    def f7_o2(self, j):
        return ({"q": "count", "pat": P("complete task"), "win": None},
                "Across the whole episode, how many tasks did Juniper see through to completion?")

    def f7_o3(self, j):
        lo, hi = self.band(j)
        a, b = lo, min(self.T - 1, hi + self.rng.randint(20, 80))
        return ({"q": "count", "pat": P("get refused"), "win": W(lo=_tb(a, True), hi=_tb(b, True))},
                f"Tally the commands the simulator refused between step {a} and step {b}.")

    def f7_o4(self, j):
        win = self.number_window(j) if self.rng.random() < 0.5 else None
        return ({"q": "list", "kind": "take temperature", "win": win},
                f"What did Juniper point its thermometer at{self.win_text(win, self.subj())}? List each thing once.")

    # -- 8 order ------------------------------------------------------------------------------------
    def label(self, a: dict) -> str:
        if a["a"] == "occ":
            g = self.ph(a["pat"], "ger")
            return g if a["n"] == 1 else f"{g} ({self.ordw(a['n'])} time)"
        if a["a"] == "cond":
            var, v, op = a["var"], a["value"], a["op"]
            V = f"the {var['item']} count" if "item" in var else self.rng.choice(STATE_WORDS[var["state"]])
            if op == "zero":
                return f"{V} dropping to zero"
            if op == "eq":
                return f"{V} being {v}"
            return f"{V} reaching {v}" if op == "ge" else f"{V} at {v} or less"
        return self.np(a, SUBJECTS[4])

    def two_anchors(self, j, cond: bool = False):
        lo, hi = self.band(j)
        c1 = self.occ_pick(lo, hi)
        if c1 is None:
            return None
        a = OCC(c1[0], c1[1])
        if cond:
            cands = self.cond_candidates(j)
            if not cands:
                return None
            b = self.rng.choice(cands)
        else:
            c2 = self.occ_pick(max(0, lo - 60), min(self.T - 1, hi + 60))
            if c2 is None or c2[0] == c1[0]:
                return None
            b = OCC(c2[0], c2[1])
        return (a, b) if self.rng.random() < 0.5 else (b, a)

    def f8_a(self, j):
        S = self.subj()
        ab = self.two_anchors(j)
        if ab is None:
            return None
        a, b = ab
        la, lb = self.label(a), self.label(b)
        if la == lb:
            return None
        text = self.rng.choice((f"Which happened first: {self.np(a, S)}, or {self.np(b, S)}? Answer '{la}' or '{lb}'.",
                                (f"Of these two moments, which came earlier: {self.np(a, S)} or {self.np(b, S)}? "
                                f"Reply '{la}' or '{lb}'.")))
        return {"q": "order", "a": a, "b": b, "labels": [la, lb]}, text

    def f8_b(self, j):
        S = self.subj()
        ab = self.two_anchors(j, cond=True)
        if ab is None:
            return None
        a, b = ab
        la, lb = self.label(a), self.label(b)
        if la == lb:
            return None
        return ({"q": "order", "a": a, "b": b, "labels": [la, lb]},
                f"{_cap(self.np(a, S))}, or {self.np(b, S)}: which came first? Answer '{la}' or '{lb}'.")

    def f8_c(self, j):
        S = self.subj()
        ab = self.two_anchors(j)
        if ab is None:
            return None
        a, b = ab
        return ({"q": "order", "a": a, "b": b, "labels": ["before", "after"]},
                f"Was {self.np(a, S)} before or after {self.np(b, S)}? Answer 'before' or 'after'.")

    def f8_d(self, j):
        S, N = self.subj(), self.near(j)
        lo, hi = self.band(j)
        c = self.occ_pick(lo, hi)
        if c is None:
            return None
        b = OCC(c[0], c[1])
        lb = self.label(b)
        a = STEP(N)
        return ({"q": "order", "a": a, "b": b, "labels": [f"step {N}", lb]},
                f"Which is earlier: step {N}, or {self.np(b, S)}? Answer 'step {N}' or '{lb}'.")

    def f8_o1(self, j):
        lo, hi = self.band(j)
        c1 = self.occ_pick(lo, hi, obj=False, kinds=("jot note",), ns=(1, 2, 3))
        c2 = self.occ_pick(max(0, lo - 50), min(self.T - 1, hi + 50), obj=True,
                           kinds=("take temperature", "grab", "open up", "power on", "declare focus", "walk into"))
        if c1 is None or c2 is None:
            return None
        b = OCC(c2[0], c2[1])
        lb = self.label(b)
        return ({"q": "order", "a": OCC(c1[0], c1[1]), "b": b, "labels": ["the note", lb]},
                (f"Which came first for Juniper, its {self.ordw(c1[1])} note or the {self.ordw(c2[1])} time it "
                f"{self.ph(c2[0], 'past')}? Answer 'the note' or '{lb}'."))

    def f8_o2(self, j):
        done = sorted(self.completed.items(), key=lambda kv: kv[1])
        if len(done) < 2:
            return None
        (t1, _), (t2, _) = self.rng.sample(done, 2)
        return ({"q": "order", "a": OCC(P("complete task", t1), 1), "b": OCC(P("complete task", t2), 1), "labels": [t1, t2]},
                f"Two of Juniper's tasks, '{t1}' and '{t2}': which one did it finish first? Answer '{t1}' or '{t2}'.")

    def f8_o3(self, j):
        i = self.rng.randrange(len(self.tasks))
        task = self.tasks[i][0]
        win = self.task_window(i)
        scores = [a for a in self.cond_candidates() if a["var"] == {"state": "score"}
                  and a["win"]["lo"]["anchor"]["pat"]["obj"] == task]
        if not scores:
            return None
        a = dict(self.rng.choice(scores))
        a["win"] = win
        w = _window(self.steps, win)
        if w is None:
            return None
        cands = [(pat, ts) for pat, ts in self.pats(obj=True, kinds=("grab", "open up", "walk into", "inspect", "power on",
                                                                       "declare focus", "set down"))
                 if any(w[0] <= t <= w[1] for t in ts)]
        c = self.pick(cands, lambda x: x[0]["kind"])
        if c is None:
            return None
        b = OCC(c[0], 1, win)
        return ({"q": "order", "a": a, "b": b, "labels": ["before", "after"]},
                (f"In the '{task}' task, did the score reach {a['value']} before or after Juniper first "
                f"{self.ph(c[0], 'past')}? Answer 'before' or 'after'."))

    # -- 9 distance ---------------------------------------------------------------------------------
    def f9_a(self, j):
        S = self.subj()
        ab = self.two_anchors(j, cond=self.rng.random() < 0.3)
        if ab is None:
            return None
        a, b = ab
        text = self.rng.choice((f"How many steps passed between {self.np(a, S)} and {self.np(b, S)}?",
                                f"How far apart, in steps, were {self.np(a, S)} and {self.np(b, S)}?"))
        return {"q": "distance", "a": a, "b": b}, text

    def f9_b(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        t0 = _resolve(self.steps, anc)[0]
        c = self.occ_pick(t0 + 1, min(self.T - 1, t0 + 120), win=W(lo=_tb(t0, False)), ns=(1,))
        if c is None:
            return None
        return ({"q": "distance", "a": anc, "b": NEXT(c[0], anc)},
                f"How many steps after {self.np(anc, S)} {S['did']} next {self.ph(c[0], 'base')}?")

    def f9_c(self, j):
        S, N = self.subj(), self.near(j)
        lo, hi = self.band(j)
        c = self.occ_pick(max(0, lo - 40), min(self.T - 1, hi + 40))
        if c is None:
            return None
        b = OCC(c[0], c[1])
        return ({"q": "distance", "a": STEP(N), "b": b},
                self.rng.choice((f"How many steps lie between step {N} and {self.np(b, S)}?",
                                 f"Counting in steps, how far was step {N} from {self.np(b, S)}?")))

    def f9_d(self, j):
        S = self.subj()
        cands = self.cond_candidates(j)
        c = self.occ_pick(*self.band(j), obj=True)
        if not cands or c is None:
            return None
        a, b = self.rng.choice(cands), OCC(c[0], c[1])
        return ({"q": "distance", "a": a, "b": b},
                f"Between {self.np(a, S)} and {self.np(b, S)}, how many steps went by?")

    def f9_o1(self, j):
        if len(self.tasks) < 2:
            return None
        i = self.rng.randrange(len(self.tasks) - 1)
        k = self.rng.randrange(i + 1, len(self.tasks))
        t1, t2 = self.tasks[i][0], self.tasks[k][0]
        return ({"q": "distance", "a": OCC(P("begin task", t1), 1), "b": OCC(P("begin task", t2), 1)},
                f"Juniper started the '{t1}' task and, later, the '{t2}' task. How many steps separate those two starts?")

    def f9_o2(self, j):
        done = [t for t, _ in self.tasks if t in self.completed]
        if not done:
            return None
        task = self.rng.choice(done)
        return ({"q": "distance", "a": OCC(P("begin task", task), 1), "b": OCC(P("complete task", task), 1)},
                (f"From its first step to the step where the simulator declared it complete, how many steps did the "
                f"'{task}' task take?"))

    def f9_o3(self, j):
        i = self.rng.randrange(len(self.tasks))
        task = self.tasks[i][0]
        cands = [a for a in self.cond_candidates() if a["var"] == {"state": "score"}
                 and a["win"]["lo"]["anchor"]["pat"]["obj"] == task]
        if not cands:
            return None
        a = self.rng.choice(cands)
        return ({"q": "distance", "a": OCC(P("begin task", task), 1), "b": a},
                f"How many steps after starting the '{task}' task did its score first reach {a['value']} or more?")

    # -- 10 existence -------------------------------------------------------------------------------
    def absent_pattern(self) -> dict | None:
        entered = {o for (k, o) in self.pat_ts if k == "walk into" and o}
        grabbed = {o for (k, o) in self.pat_ts if k == "grab" and o}
        opts = [P("walk into", r) for r in ROOMS if r not in entered]
        opts += [P("grab", o) for o in self.seen_objects if o not in grabbed and not NO_FIDGET.search(o)][:8]
        opts += [P(k) for k in ("dig", "stir", "pour out", "hook up", "take temperature", "consult", "meet ambiguity",
                                "lose points", "shut", "power off") if (k, None) not in self.pat_ts]
        return self.rng.choice(opts) if opts else None

    def exist_pick(self, j: int, S: dict) -> tuple[dict, dict | None] | None:
        """A (pattern, window) with the wanted answer."""
        lo, hi = self.band(j)
        if self.want == "no" and self.rng.random() < 0.4:
            pat = self.absent_pattern()
            if pat is not None:
                return pat, (self.number_window(j) if self.rng.random() < 0.5 else None)
        for _ in range(12):
            c = self.pick(self.pats(), lambda x: x[0]["kind"])
            if c is None:
                return None
            pat, ts = c
            if self.want == "no":
                gaps = [(a + 1, b - 1) for a, b in zip([-1] + ts, ts + [self.T]) if b - a > 12]
                if not gaps:
                    continue
                ga, gb = min(gaps, key=lambda g: abs((g[0] + g[1]) / 2 - (lo + hi) / 2))
                if ga == 0:
                    win = W(hi=_tb(gb + 1, False))
                elif gb == self.T - 1:
                    win = W(lo=_tb(ga - 1, False))
                else:
                    win = W(lo=_tb(ga, True), hi=_tb(gb, True))
                return pat, win
            win = self.number_window(j)
            w = _window(self.steps, win)
            if w and any(w[0] <= t <= w[1] for t in ts):
                return pat, win
        return None

    def f10_a(self, j):
        S = self.subj()
        if self.want == "no":
            pat = self.absent_pattern()
        else:
            c = self.pick(self.pats(), lambda x: x[0]["kind"])
            pat = c[0] if c else None
        if pat is None:
            return None
        return {"q": "exists", "pat": pat, "win": None}, f"{_cap(S['did'])} ever {self.ph(pat, 'base')}?"

    def f10_b(self, j):
        S = self.subj()
        r = self.exist_pick(j, S)
        if r is None:
            return None
        pat, win = r
        wt = self.win_text(win, S)
        text = self.rng.choice((f"{_cap(S['did'])} {self.ph(pat, 'base')}{wt}?",
                                f"{_cap(wt.strip())}, {S['did']} {self.ph(pat, 'base')} at all?" if wt else
                                f"{_cap(S['did'])} {self.ph(pat, 'base')} at any point?"))
        return {"q": "exists", "pat": pat, "win": win}, text

    def f10_c(self, j):
        S = self.subj()
        r = self.exist_pick(j, S)
        if r is None:
            return None
        pat, win = r
        return {"q": "exists", "pat": pat, "win": win}, f"Was there any step{self.win_text(win, S)} where {S['s']} {self.ph(pat, 'past')}?"

    def f10_d(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        side = self.rng.choice(("lo", "hi"))
        win = W(lo=_ab(anc)) if side == "lo" else W(hi=_ab(anc))
        pat = self.absent_pattern() if self.want == "no" and self.rng.random() < 0.5 else None
        if pat is None:
            c = self.pick(self.pats(), lambda x: x[0]["kind"])
            pat = c[0] if c else None
        if pat is None:
            return None
        return {"q": "exists", "pat": pat, "win": win}, f"{_cap(S['did'])} {self.ph(pat, 'base')}{self.win_text(win, S)}?"

    def f10_e(self, j):
        S = self.subj()
        r = self.exist_pick(j, S)
        if r is None:
            return None
        pat, win = r
        what = f"'{pat['kind']}' event" + (f" for {self.fmt(pat['kind'], pat['obj'])}" if pat["obj"] else "")
        return {"q": "exists", "pat": pat, "win": win}, f"Does the log hold any {what}{self.win_text(win, S)}?"

    def f10_o1(self, j):
        N = self.near(j)
        return ({"q": "exists", "pat": P("meet ambiguity"), "win": W(hi=_tb(N, False))},
                f"Before step {N}, was Juniper ever asked by the simulator which of several objects it meant?")

    def f10_o2(self, j):
        S = self.subj()
        lo, hi = self.band(j)
        anc = self.event_anchor(lo, hi)
        if anc is None:
            return None
        pat = self.absent_pattern() if self.want == "no" else None
        if pat is None:
            c = self.pick(self.pats(obj=True), lambda x: x[0]["kind"])
            pat = c[0] if c else None
        if pat is None:
            return None
        return ({"q": "exists", "pat": pat, "win": W(lo=_ab(anc))},
                f"Is there any point after {self.np(anc, S)} at which {S['s']} {self.ph(pat, 'past')}?")

    def f10_o3(self, j):
        kind = self.rng.choice(("dig", "stir", "pour out", "hook up", "consult", "power off"))
        words = {"dig": "dig into the ground with a shovel", "stir": "mix the contents of a container",
                 "pour out": "pour the contents of one container into another", "hook up": "wire up an electrical terminal",
                 "consult": "read a document such as a recipe", "power off": "switch a device off"}[kind]
        return {"q": "exists", "pat": P(kind), "win": None}, f"During the whole run, did Juniper ever {words}?"

    def f10_o4(self, j):
        room = self.rng.choice(ROOMS)
        return ({"q": "exists", "pat": P("walk into", room), "win": None},
                f"Did the agent ever set foot in the {room} by walking in through a door?")

    # -- driver -------------------------------------------------------------------------------------
    def make(self, fam: str, fn, j: int, want: str | None) -> dict | None:
        for _ in range(25):
            self.want = want
            self.allow_verb = self.verbatim < 26 and self.rng.random() < 0.55
            r = fn(j)
            if r is None:
                continue
            spec, text = r
            res = evaluate(spec, self.steps, self.ep)
            if res is None:
                continue
            answer, gold = res
            if want is not None and answer != want:
                continue
            if answer in ("0", "none") and fam == "7_count" and self.rng.random() < 0.7:
                continue
            if text in self.texts or not gold and answer not in ("no", "0", "none"):
                continue
            verbatim = bool(_KIND_RE.search(text))
            if verbatim and self.verbatim >= 28:
                continue
            self.verbatim += verbatim
            self.texts.add(text)
            for k in self.kinds_in(spec):
                self.kind_use[k] += 1
            return {"episode": self.ep, "family": fam, "slot": _slot_name(spec), "question": text,
                    "answer": answer, "gold": gold, "spec": spec}
        return None

    def wanted(self, fi: int, got: list[dict]) -> str | None:
        """The answer the next question of family ``fi`` should have: two of six existence answers are "no"."""
        if fi != 10:
            return None
        need, left = 2 - sum(q["answer"] == "no" for q in got), 6 - len(got)
        return "no" if need > 0 and self.rng.random() < need / left else "yes"

    def generate(self) -> list[dict]:
        out: list[dict] = []
        for fi, fam in enumerate(FAMILIES, 1):
            templates = sorted(n for n in dir(self) if re.fullmatch(rf"f{fi}_[a-z]", n))
            oneoffs = sorted(n for n in dir(self) if re.fullmatch(rf"f{fi}_o\d", n))
            self.rng.shuffle(oneoffs)
            bands = list(range(6))
            self.rng.shuffle(bands)
            got: list[dict] = []
            for name in oneoffs:
                if len(got) == 2:
                    break
                q = self.make(fam, getattr(self, name), bands[len(got)], self.wanted(fi, got))
                if q is not None:
                    got.append(q)
            order = templates[:]
            self.rng.shuffle(order)
            k = 0
            while len(got) < 6 and k < 8 * len(order):
                q = self.make(fam, getattr(self, order[k % len(order)]), bands[len(got)], self.wanted(fi, got))
                k += 1
                if q is not None:
                    got.append(q)
            out += got
        return out


def build(seed: int) -> dict:
    """One episode of Juniper's ScienceWorld work for ``seed`` and its 60 questions."""
    raw, _log = _episode_steps(seed)
    steps = _to_steps(raw)
    episode = f"juniper-{seed}"
    validate_steps(steps, episode)
    questions = _Questions(steps, episode, seed).generate()
    return {"episodes": {episode: steps}, "questions": questions}


# ----------------------------------------------------------------------------------------------------
# Self-check
# ----------------------------------------------------------------------------------------------------


def _digest(data: dict) -> str:
    blob = repr(sorted((k, [repr(s) for s in v]) for k, v in data["episodes"].items()))
    blob += json.dumps(data["questions"], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _self_check(seeds: list[int]) -> None:
    for seed in seeds:
        t0 = time.time()
        data = build(seed)
        took = time.time() - t0
        (episode, steps), = data["episodes"].items()
        qs = data["questions"]
        print(f"== seed {seed}: episode {episode}, {len(steps)} steps, {len(qs)} questions, built in {took:.1f} s")
        validate_steps(steps, episode)
        assert 400 <= len(steps) <= 1000, len(steps)
        assert [s.t for s in steps] == list(range(len(steps)))
        tasks = [e.obj for s in steps for e in s.events if e.kind == "begin task"]
        assert 3 <= len(tasks) <= 6, tasks
        kinds = {e.kind for s in steps for e in s.events}
        keys = {k for s in steps for k, _ in s.state}
        done = steps[-1].state_dict["tasks done"]
        print(f"   tasks: {', '.join(tasks)} ({done} completed); {len(kinds)} event kinds, {len(keys)} state keys")
        assert len(kinds) >= 18 and len(keys) >= 5
        fam = Counter(q["family"] for q in qs)
        print("   per family:", ", ".join(f"{f} {fam[f]}" for f in FAMILIES))
        assert len(qs) == 60 and all(fam[f] == 6 for f in FAMILIES), fam
        for f in FAMILIES:
            slots = Counter(q["slot"] for q in qs if q["family"] == f)
            print(f"     {f:24s} " + ", ".join(f"{s} {n}" for s, n in sorted(slots.items())))
        verbatim = sum(bool(_KIND_RE.search(q["question"])) for q in qs)
        nos = sum(q["answer"] == "no" for q in qs if q["family"] == "10_existence")
        print(f"   questions naming a stored kind verbatim: {verbatim}/60; existence 'no': {nos}/6")
        assert verbatim <= 30
        assert len({q["question"] for q in qs}) == len(qs)
        for q in qs:
            assert all(g.startswith(episode + ":") for g in q["gold"]), q
            ts = [int(g.rsplit(":", 1)[1]) for g in q["gold"]]
            assert ts == sorted(set(ts)) and all(0 <= t < len(steps) for t in ts), q
            res = evaluate(q["spec"], steps, episode)
            assert res is not None and res == (q["answer"], q["gold"]), (q, res)
            assert q["gold"] or q["answer"] in ("no", "0", "none"), q
        rng = random.Random(seed)
        print("   samples:")
        for q in rng.sample(qs, 10):
            print(f"     [{q['family']}/{q['slot']}] {q['question']}\n        -> {q['answer']!r}  gold {q['gold']}")
        again = build(seed)
        assert _digest(again) == _digest(data), "second build differs"
        print(f"   second build identical (digest {_digest(data)[:16]})")
    print("self-check passed")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    _self_check(args[:2] if args else list(SEED_RANGE)[:2])
