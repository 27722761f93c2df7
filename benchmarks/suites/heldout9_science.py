"""Held-out trajectory questions over a ScienceWorld shift worked by "Fern".

The agent
---------
Fern is a hurried lab technician working through a checklist in the real ScienceWorld simulator. Each
seed picks 3-5 task variations from the simulator's own task list and runs them back to back (one
episode). Every task is solved from the simulator's gold action sequence, interleaved with Fern's
habits: she looks around, checks her pack, examines things in the room, types commands the simulator
turns down, calls things by the wrong name and then corrects herself, double-checks her instrument
readings and wanders through open doors and back. Between tasks she explores freely and tends to
carry too many things. If her detours spoil a task, the task is re-run from a fresh load with fewer
detours (the discarded attempt is not recorded), so every recorded task reaches its goal whenever the
gold plan itself does.

The records
-----------
One ``Step`` per command sent to the simulator, ``t`` = 0, 1, 2, ...:

* ``action``: the command exactly as sent; ``observation``: the simulator's reply, shortened;
* ``location.region``: the simulator's room name after the step (no grid positions);
* ``inventory``: the simulator's own inventory listing, top-level items with counts;
* ``state``: ``task`` (simulator task name), ``score`` (0-100 for the current task), ``checklist_ticks``
  (score increases in the current task), ``tasks_done``, ``last_reading`` (the last instrument reading,
  "none" before any), ``focus`` (what the current task is focused on, "nothing" before), ``pack_size``
  (items carried), ``overloaded`` (pack_size >= 4) and ``mode`` ("checklist", "detour", "wandering");
* ``relations``: ``Relation("Fern", "handles", <object of the command>)`` when the command names one;
* ``events``: derived from what the simulator did: ``start task``, ``finish task``, ``tick off``
  (score rose), ``walk into`` (room changed), ``pocket`` / ``unpack`` (inventory gained / lost an item),
  ``put``, ``sow``, ``pour into``, ``mix``, ``switch on``, ``switch off``, ``open``, ``close``, ``wire up``,
  ``focus on``, ``take reading``, ``double-check``, ``inspect``, ``scan room``, ``check pack``, ``wait``,
  ``get refused``, ``mislabel``, ``fix label``, ``face choice``, ``pick option``, ``eat``, ``get overloaded``.

The questions
-------------
Sixty per seed, six for each of ten families (step index, n-th occurrence, windowed occurrence,
condition, offset, next/previous, count/list, order, distance, existence). Answers and gold step ids come
from the reference evaluator :func:`evaluate`, a plain scan over the Step records.
"""

from __future__ import annotations

import os
import random
import re
import sys
from collections import Counter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout9_science"
SEED_RANGE = range(10000, 10100)

AGENT = "Fern"
MIN_STEPS, MAX_STEPS = 300, 900

#: Tasks Fern may be handed (gold plans of moderate length; the slow genetics tasks are left out).
TASK_POOL = (
    "boil", "change-the-state-of-matter-of", "chemistry-mix", "chemistry-mix-paint-secondary-color",
    "chemistry-mix-paint-tertiary-color", "find-animal", "find-living-thing", "find-non-living-thing",
    "find-plant", "freeze", "grow-fruit", "grow-plant", "identify-life-stages-1", "identify-life-stages-2",
    "inclined-plane-determine-angle", "inclined-plane-friction-named-surfaces", "lifespan-longest-lived",
    "lifespan-longest-lived-then-shortest-lived", "lifespan-shortest-lived",
    "measure-melting-point-known-substance", "measure-melting-point-unknown-substance", "melt",
    "power-component", "power-component-renewable-vs-nonrenewable-energy", "test-conductivity",
    "test-conductivity-of-unknown-substances", "use-thermometer",
)

#: Commands Fern types that the simulator has no action for (her checklist habits).
REFUSED_COMMANDS = (
    "tick checklist", "label sample", "write note", "tidy bench", "ask supervisor", "check clipboard",
    "stamp form", "sign logbook", "call lab manager", "read checklist",
)
#: Names Fern wrongly calls things by before correcting herself.
WRONG_NAMES = (
    "beaker", "test tube", "flask", "petri dish", "burette", "pipette", "crucible", "graduated cylinder",
)

#: Furniture and fittings Fern does not try to carry off.
FIXTURES = (
    "counter", "desk", "table", "fountain", "ground", "fire pit", "bed", "sink", "stove", "oven", "fridge", "freezer",
    "cupboard", "closet", "chair", "furnace", "bathtub", "toilet", "shelf", "sofa", "couch", "hive", "door", "wall",
    "workbench", "glass window", "picture", "painting", "drawing", "mattress", "pillow", "air", "water", "soil",
    "wood", "pond", "tree",
)

REFUSAL_MARKERS = (
    "no known action matches", "it's not clear how to", "that can't be", "you can't", "can't be moved",
    "is not a", "unknown", "is already", "there is nothing", "not possible", "nothing happens",
)


# ------------------------------------------------------------------------------------------------
# Parsing the simulator's text
# ------------------------------------------------------------------------------------------------

def _base_name(line: str) -> str:
    text = line.strip()
    text = re.sub(r"^(a|an|the)\s+", "", text)
    text = re.sub(r"^substance called\s+", "", text)
    for cut in (" (", ". ", ", ", ":"):
        i = text.find(cut)
        if i > 0:
            text = text[:i]
    text = text.rstrip(". ").strip()
    return re.sub(r"\s+", " ", text)


def parse_room(look: str) -> str:
    m = re.search(r"called the ([^.\n]+)\.", look)
    return m.group(1).strip() if m else "unknown room"


def parse_room_objects(look: str) -> list[str]:
    body = look.split("You also see:")[0]
    names = []
    for line in body.split("\n")[1:]:
        if not line.startswith("\t"):
            continue
        name = _base_name(line)
        if name and name not in ("agent", "air") and len(name) < 40:
            names.append(name)
    return names


def parse_doors(look: str) -> list[tuple[str, bool]]:
    out = []
    for m in re.finditer(r"A door to the ([^(\n]+?) \(that is (open|closed)\)", look):
        out.append((m.group(1).strip(), m.group(2) == "open"))
    return out


def parse_inventory(text: str) -> dict[str, int]:
    inv: Counter = Counter()
    for line in text.split("\n")[1:]:
        if line.startswith("\t"):
            name = _base_name(line)
            if name and name != "nothing":
                inv[name] += 1
    return dict(sorted(inv.items()))


def command_object(action: str, room: str) -> str:
    a = action.strip()
    if a == "look around":
        return room
    if a in ("inventory",) or a.startswith("wait") or a.isdigit():
        return ""
    for verb in ("go to ", "pick up ", "focus on ", "look at ", "examine ", "open ", "close ", "move ", "pour ",
                 "mix ", "activate ", "deactivate ", "connect ", "use ", "drop ", "eat ", "read ", "dunk "):
        if a.startswith(verb):
            rest = a[len(verb):]
            for sep in (" in inventory", " to ", " into ", " on ", " in "):
                i = rest.find(sep)
                if i > 0 and not (verb == "open " or verb == "close ") and not (verb == "go to "):
                    rest = rest[:i]
            return rest.strip()
    return ""


# ------------------------------------------------------------------------------------------------
# Running the simulator
# ------------------------------------------------------------------------------------------------

class _Sim:
    """A thin wrapper around one ScienceWorld JVM, stepping without the costly valid-action listing."""

    def __init__(self):
        os.environ["JAVA_TOOL_OPTIONS"] = "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2"
        from scienceworld import ScienceWorldEnv

        self.env = ScienceWorldEnv("", envStepLimit=100000)

    def load(self, task: str, variation: int) -> list[str]:
        self.env.load(task, variation, "", generateGoldPath=True)
        return [str(a) for a in self.env.get_gold_action_sequence()]

    def max_variations(self, task: str) -> int:
        return int(self.env.get_max_variations(task))

    def step(self, action: str) -> tuple[str, int, bool, str, str]:
        server = self.env.server
        obs = str(server.step(action))
        score = int(round(100 * float(server.getScore())))
        done = bool(server.getCompleted())
        inv = str(server.freeActionInventory())
        look = str(server.freeActionLook())
        return obs, score, done, inv, look

    def close(self):
        try:
            self.env.close()
        except Exception:
            pass


class _Recorder:
    """Turns simulator replies into Step records and keeps Fern's own running state."""

    def __init__(self):
        self.steps: list[Step] = []
        self.tasks_done = 0
        self.task = "none"
        self.score = 0
        self.ticks = 0
        self.last_reading = "none"
        self.focus = "nothing"
        self.inv: dict[str, int] = {}
        self.room = ""
        self.overloaded = False
        self.last_reading_action = ""

    def snapshot(self):
        return (len(self.steps), self.tasks_done, self.task, self.score, self.ticks, self.last_reading,
                self.focus, dict(self.inv), self.room, self.overloaded, self.last_reading_action)

    def restore(self, snap):
        (n, self.tasks_done, self.task, self.score, self.ticks, self.last_reading, self.focus, inv, self.room,
         self.overloaded, self.last_reading_action) = snap
        self.inv = dict(inv)
        del self.steps[n:]

    def record(self, action: str, obs: str, score: int, done: bool, inv_text: str, look: str, mode: str,
               intent: str = "", start_task: str = "") -> Step:
        t = len(self.steps)
        events: list[Event] = []
        low = obs.lower().strip()
        room = parse_room(look)
        inv = parse_inventory(inv_text)
        refused = any(low.startswith(m) or m in low[:60] for m in REFUSAL_MARKERS) and not low.startswith("you move")
        if start_task:
            self.task, self.score, self.ticks, self.focus, self.last_reading = start_task, 0, 0, "nothing", "none"
            events.append(Event("start task", start_task))
        # what the command did, read from the reply
        if low.startswith("ambiguous request"):
            events.append(Event("face choice", command_object(action, room) or "command"))
        elif action.isdigit() and not refused:
            events.append(Event("pick option", action))
        if refused:
            events.append(Event("get refused", action.split()[0] if action.split() else "command"))
        if intent.startswith("mislabel:") and refused:
            events.append(Event("mislabel", intent.split(":", 1)[1]))
        m = re.search(r"measures? (?:a|the)? ?([^.\n]*?(?:degrees celsius|degrees|celsius|[0-9][^.\n]*))", obs)
        if m and ("thermometer" in low or "measure" in low):
            value = m.group(1).strip()
            value = re.sub(r"^(temperature|reading) of ", "", value)
            value = re.sub(r"^a temperature of ", "", value)
            instrument = command_object(action, room) or "instrument"
            if intent == "recheck":
                events.append(Event("double-check", instrument))
            events.append(Event("take reading", instrument))
            self.last_reading = value[:60]
            self.last_reading_action = action
        m = re.match(r"you focus on the (.+?)\.?$", low)
        if m:
            self.focus = m.group(1).strip()
            events.append(Event("focus on", self.focus))
        m = re.search(r"mix(?:es)? to produce (?:a |an )?(.+?)\.", low)
        if m:
            events.append(Event("mix", m.group(1).strip()))
        elif action.startswith("mix ") and not refused:
            events.append(Event("mix", command_object(action, room) or "container"))
        m = re.match(r"the (.+?) is now (activated|deactivated|open|closed|on|off)\.?", low)
        if m:
            thing = m.group(1).strip()
            if thing == "door" and action.startswith(("open ", "close ")):
                thing = command_object(action, room) or thing
            word = m.group(2)
            kind = {"activated": "switch on", "on": "switch on", "deactivated": "switch off", "off": "switch off",
                    "open": "open", "closed": "close"}[word]
            events.append(Event(kind, thing))
        if " is now connected to " in low:
            parts = low.split(" is now connected to ")
            target = parts[1].split(" on ")[-1].strip(" .")
            events.append(Event("wire up", target))
        m = re.match(r"you pour the contents of the (.+?) into the (.+?)\.?$", low)
        if m:
            events.append(Event("pour into", m.group(2).strip()))
        m = re.match(r"you move the (.+?) to the (.+?)\.?$", low)
        lost = [k for k in self.inv if inv.get(k, 0) < self.inv[k]]
        if start_task:
            self.inv = dict(inv)
        if m and m.group(2).strip() != "inventory":
            thing, dest = m.group(1).strip(), m.group(2).strip()
            if lost:
                pass
            elif "seed" in thing and ("pot" in dest or "soil" in dest):
                events.append(Event("sow", thing))
            else:
                events.append(Event("put", thing))
        if low.startswith("the ") and "was delicious" in low:
            events.append(Event("eat", command_object(action, room) or "food"))
        if action.startswith("examine ") or action.startswith("look at "):
            if not refused and not low.startswith("ambiguous"):
                events.append(Event("inspect", command_object(action, room)))
                if intent == "fix":
                    events.append(Event("fix label", command_object(action, room)))
        if action == "look around" and not refused:
            events.append(Event("scan room", room))
        if action == "inventory":
            events.append(Event("check pack"))
        if action.startswith("wait") and low.startswith("you decide to wait"):
            events.append(Event("wait"))
        # inventory deltas, in name order
        for name in sorted(set(inv) | set(self.inv)):
            before, after = self.inv.get(name, 0), inv.get(name, 0)
            if after > before:
                events.append(Event("pocket", name, after - before))
            elif after < before:
                events.append(Event("unpack", name, before - after))
        # room and score changes
        if self.room and room != self.room and not start_task:
            events.append(Event("walk into", room))
        if score > self.score:
            self.ticks += 1
            events.append(Event("tick off", self.task, score - self.score))
        self.score = score
        if done and not any(e.kind == "finish task" for e in events) and self._not_finished():
            self.tasks_done += 1
            events.append(Event("finish task", self.task))
        pack = sum(inv.values())
        if pack >= 4 and not self.overloaded:
            events.append(Event("get overloaded"))
        self.overloaded = pack >= 4
        self.inv, self.room = inv, room
        target = command_object(action, room)
        rels = (Relation(AGENT, "handles", target),) if target else ()
        text = " ".join(obs.split())
        step = Step(
            t=t, action=action, observation=text[:300], location=Location(region=room), inventory=inv,
            state={"task": self.task, "score": self.score, "checklist_ticks": self.ticks, "tasks_done": self.tasks_done,
                   "last_reading": self.last_reading, "focus": self.focus, "pack_size": pack,
                   "overloaded": self.overloaded, "mode": mode},
            events=tuple(events), relations=rels, summary=f"{AGENT} ({mode}) in the {room}: {action}",
        )
        self.steps.append(step)
        return step

    def _not_finished(self) -> bool:
        for step in reversed(self.steps):
            for ev in step.events:
                if ev.kind == "finish task" and ev.obj == self.task:
                    return False
                if ev.kind == "start task":
                    return True
        return True


def _detour(sim: _Sim, rec: _Recorder, rng: random.Random, look: str, mode: str) -> tuple[bool, str]:
    """One habit of Fern's (possibly several commands). Returns (ok, look)."""

    def do(action, intent=""):
        nonlocal look
        obs, score, done, inv, look = sim.step(action)
        rec.record(action, obs, score, done, inv, look, mode, intent=intent)
        if obs.lower().startswith("ambiguous request"):
            obs, score, done, inv, look = sim.step("0")
            rec.record("0", obs, score, done, inv, look, mode)
        return obs

    objects = parse_room_objects(look)
    roll = rng.random()
    if roll < 0.16:
        do("look around")
    elif roll < 0.28:
        do("inventory")
    elif roll < 0.45 and objects:
        do("examine " + rng.choice(objects))
    elif roll < 0.58:
        do(rng.choice(REFUSED_COMMANDS))
    elif roll < 0.70 and objects:
        right = rng.choice(objects)
        do("examine " + rng.choice(WRONG_NAMES), intent="mislabel:" + right)
        do("examine " + right, intent="fix")
    elif roll < 0.80 and rec.last_reading_action and rec.steps and rec.steps[-1].action == rec.last_reading_action:
        do(rec.last_reading_action, intent="recheck")
    else:
        here = parse_room(look)
        doors = [d for d, is_open in parse_doors(look) if is_open]
        if not doors:
            do("look around")
        else:
            there = rng.choice(doors)
            obs = do("go to " + there)
            if parse_room(look) != here:
                if rng.random() < 0.5:
                    do("look around")
                do("go to " + here)
                if parse_room(look) != here:
                    return False, look
    return True, look


def _explore(sim: _Sim, rec: _Recorder, rng: random.Random, look: str, n: int) -> str:
    """Free exploration after a task: wandering, picking things up (too many), dropping some."""
    mode = "wandering"
    count = 0
    while count < n and len(rec.steps) < MAX_STEPS - 2:
        before = len(rec.steps)
        roll = rng.random()
        objects = parse_room_objects(look)
        if roll < 0.30:
            doors = parse_doors(look)
            if doors:
                door, is_open = rng.choice(doors)
                action = ("go to " if is_open else "open door to ") + door
            else:
                action = "look around"
        elif roll < 0.50 and [o for o in objects if not any(f in o for f in FIXTURES)]:
            action = "pick up " + rng.choice([o for o in objects if not any(f in o for f in FIXTURES)])
        elif roll < 0.58 and rec.inv:
            action = "drop " + rng.choice(sorted(rec.inv))
        elif roll < 0.66 and "orange" in rec.inv and rng.random() < 0.3:
            action = "eat orange"
        elif roll < 0.76:
            action = "look around"
        elif roll < 0.84 and objects:
            action = "examine " + rng.choice(objects)
        elif roll < 0.92:
            action = rng.choice(REFUSED_COMMANDS)
        else:
            action = "inventory"
        obs, score, done, inv, look = sim.step(action)
        rec.record(action, obs, score, done, inv, look, mode)
        if obs.lower().startswith("ambiguous request"):
            obs, score, done, inv, look = sim.step("0")
            rec.record("0", obs, score, done, inv, look, mode)
        count += len(rec.steps) - before
    return look


def _run_task(sim: _Sim, rec: _Recorder, rng: random.Random, task: str, variation: int) -> str:
    snap = rec.snapshot()
    look = ""
    for density in (0.35, 0.15, 0.0):
        rec.restore(snap)
        gold = sim.load(task, variation)
        obs, score, done, inv, look = sim.step("look around")
        rec.record("look around", obs, score, done, inv, look, "checklist", start_task=task)
        prev_obs = obs
        ok = True
        for action in gold:
            if len(rec.steps) >= MAX_STEPS - 5:
                break
            if done:
                break
            if (not action.isdigit() and not prev_obs.lower().startswith("ambiguous")
                    and rng.random() < density):
                ok, look = _detour(sim, rec, rng, look, "detour")
                if not ok:
                    break
            obs, score, done, inv, look = sim.step(action)
            rec.record(action, obs, score, done, inv, look, "checklist")
            prev_obs = obs
            if score < 0:
                ok = False
                break
        if ok and done and score >= 100:
            return look
    return look


def simulate(seed: int) -> list[Step]:
    rng = random.Random(seed * 7919 + 17)
    sim = _Sim()
    try:
        rec = _Recorder()
        n_tasks = rng.choice((3, 4, 4, 5))
        pool = list(TASK_POOL)
        rng.shuffle(pool)
        tasks = pool[:n_tasks]
        for i, task in enumerate(tasks):
            if len(rec.steps) > MAX_STEPS - 120:
                break
            variation = rng.randrange(max(1, min(sim.max_variations(task), 40)))
            look = _run_task(sim, rec, rng, task, variation)
            n = rng.randint(10, 30)
            if i == len(tasks) - 1:
                n = max(n, MIN_STEPS - len(rec.steps) + rng.randint(5, 20))
            look = _explore(sim, rec, rng, look, n)
        while len(rec.steps) < MIN_STEPS:
            look = _explore(sim, rec, rng, look, MIN_STEPS - len(rec.steps) + 5)
        return rec.steps[:MAX_STEPS]
    finally:
        sim.close()


# ------------------------------------------------------------------------------------------------
# Reference evaluator: a plain scan over the steps
# ------------------------------------------------------------------------------------------------

def matches(step: Step, pat) -> bool:
    kind, obj = pat
    return any(ev.kind == kind and (obj is None or ev.obj == obj) for ev in step.events)


def _in_window(t: int, lo, hi) -> bool:
    if lo is not None:
        lt, strict = lo
        if t < lt or (strict and t == lt):
            return False
    if hi is not None:
        ht, strict = hi
        if t > ht or (strict and t == ht):
            return False
    return True


def _bound(steps, a):
    """A window bound: (t, strict, gold). Step numbers are inclusive, located anchors exclusive."""
    if a is None:
        return None, []
    r = resolve(steps, a)
    if r is None:
        raise LookupError("anchor")
    t, gold = r
    return (t, a["a"] != "t"), gold


def _cond_ok(step: Step, a) -> bool:
    if a["src"] == "item":
        v = step.inventory_dict.get(a["key"], 0)
    else:
        v = step.state_dict.get(a["key"])
    op, ref = a["op"], a["v"]
    if op == ">=":
        return v >= ref
    if op == "<=":
        return v <= ref
    if op == ">":
        return v > ref
    if op == "==":
        return v == ref
    if op == "is true":
        return v is True
    raise ValueError(op)


def resolve(steps, a):
    """An anchor to (t, gold ids as ints)."""
    if a["a"] == "t":
        return (a["t"], []) if 0 <= a["t"] < len(steps) else None
    if a["a"] == "occ":
        lo, glo = _bound(steps, a.get("lo"))
        hi, ghi = _bound(steps, a.get("hi"))
        hits = [s.t for s in steps if _in_window(s.t, lo, hi) and matches(s, a["pat"])]
        n = a["n"]
        if n > 0 and len(hits) >= n:
            return hits[n - 1], sorted(set(glo + ghi + [hits[n - 1]]))
        if n < 0 and len(hits) >= -n:
            return hits[n], sorted(set(glo + ghi + [hits[n]]))
        return None
    if a["a"] == "cond":
        hits = [s.t for s in steps if _cond_ok(s, a)]
        if not hits:
            return None
        t = hits[0] if a["which"] == "first" else hits[-1]
        return t, [t]
    raise ValueError(a)


def fmt_inventory(step: Step) -> str:
    items = [f"{k} {v}" for k, v in sorted(step.inventory) if v > 0]
    return ", ".join(items) if items else "empty"


def fmt_events(step: Step) -> str:
    if not step.events:
        return "none"
    return "; ".join(f"{e.kind} {e.obj}".strip() for e in step.events)


def slot_value(step: Step, slot: str, key: str | None = None) -> str | None:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region or None
    if slot == "item":
        return str(step.inventory_dict.get(key, 0))
    if slot == "inventory":
        return fmt_inventory(step)
    if slot == "state":
        v = step.state_dict.get(key)
        return None if v is None else str(v)
    if slot == "facing":
        return step.relations[0].obj if step.relations else None
    if slot == "events":
        return fmt_events(step)
    raise ValueError(slot)


def label(pat) -> str:
    return f"{pat[0]} {pat[1]}".strip() if pat[1] else pat[0]


def evaluate(steps: list[Step], spec: dict, episode: str) -> tuple[str, list[str]] | None:
    """The canonical answer and gold source ids of one question spec, or None if it has no answer."""
    try:
        q = spec["q"]
        if q == "slot":
            r = resolve(steps, spec["at"])
            if r is None:
                return None
            t, gold = r
            t += spec.get("off", 0)
            if not 0 <= t < len(steps):
                return None
            value = slot_value(steps[t], spec["slot"], spec.get("key"))
            if value is None:
                return None
            gold = sorted(set(gold + [t]))
        elif q in ("count", "list", "exists"):
            lo, glo = _bound(steps, spec.get("lo"))
            hi, ghi = _bound(steps, spec.get("hi"))
            if q == "list":
                hits = [s for s in steps if _in_window(s.t, lo, hi) and any(e.kind == spec["kind"] for e in s.events)]
                objs = sorted({e.obj for s in hits for e in s.events if e.kind == spec["kind"] and e.obj})
                value = ", ".join(objs) if objs else "none"
            else:
                hits = [s for s in steps if _in_window(s.t, lo, hi) and matches(s, spec["pat"])]
                value = str(len(hits)) if q == "count" else ("yes" if hits else "no")
            if q == "exists":
                mine = [hits[0].t] if hits else []
            else:
                mine = [s.t for s in hits] if len(hits) <= 5 else [hits[-1].t]
            gold = sorted(set(glo + ghi + mine))
        elif q in ("order", "dist"):
            ra, rb = resolve(steps, spec["A"]), resolve(steps, spec["B"])
            if ra is None or rb is None or ra[0] == rb[0]:
                return None
            gold = sorted(set(ra[1] + rb[1]))
            if q == "order":
                value = spec["la"] if ra[0] < rb[0] else spec["lb"]
            else:
                value = str(abs(rb[0] - ra[0]))
        else:
            raise ValueError(q)
    except LookupError:
        return None
    return value, [f"{episode}:{t}" for t in gold]


# ------------------------------------------------------------------------------------------------
# Wording
# ------------------------------------------------------------------------------------------------

#: Everyday phrasings per event kind: (with a named object, without one). Past tense, no subject.
PHRASES = {
    "start task": (["began the {o} task", "started on the {o} assignment", "took on the {o} job"],
                   ["began a new task", "started a fresh assignment"]),
    "finish task": (["completed the {o} task", "wrapped up the {o} assignment", "got the {o} job done"],
                    ["completed a task", "wrapped up an assignment"]),
    "tick off": (["ticked off a checklist item on {o}", "earned points on the {o} task"],
                 ["checked off an item on the checklist", "gained score", "made progress on the checklist"]),
    "walk into": (["went into the {o}", "entered the {o}", "arrived in the {o}"],
                  ["moved to another room", "changed rooms", "stepped into a different room"]),
    "pocket": (["picked up the {o}", "grabbed the {o}", "took the {o} into the pack"],
               ["picked something up", "added something to the pack", "grabbed an item"]),
    "unpack": (["let go of the {o}", "stopped carrying the {o}", "parted with the {o}"],
               ["let go of something carried", "emptied something out of the pack"]),
    "put": (["moved the {o} somewhere", "set the {o} into place"], ["moved an object into something"]),
    "sow": (["planted the {o}", "put the {o} into soil"], ["planted a seed", "sowed a seed"]),
    "pour into": (["poured something into the {o}", "emptied a container into the {o}"],
                  ["poured something", "emptied one container into another"]),
    "mix": (["produced {o} by mixing", "stirred up {o}"], ["mixed something", "combined ingredients"]),
    "switch on": (["turned on the {o}", "activated the {o}", "fired up the {o}"],
                  ["turned a device on", "activated an appliance"]),
    "switch off": (["turned off the {o}", "shut off the {o}", "deactivated the {o}"],
                   ["turned a device off", "shut an appliance off"]),
    "open": (["opened the {o}", "got the {o} open"], ["opened something", "opened a door or container"]),
    "close": (["closed the {o}", "shut the {o}"], ["closed something"]),
    "wire up": (["hooked a wire up to the {o}", "connected the circuit to the {o}"],
                ["connected a wire", "made an electrical connection"]),
    "focus on": (["focused on the {o}", "declared the {o} as the focus"], ["declared a task focus", "focused on something"]),
    "take reading": (["read a measurement off the {o}", "measured something with the {o}"],
                     ["took a measurement", "read an instrument", "measured a temperature"]),
    "double-check": (["re-checked a reading with the {o}", "verified a measurement again with the {o}"],
                     ["repeated a measurement to be sure", "re-checked a reading"]),
    "inspect": (["examined the {o}", "looked closely at the {o}"], ["examined something", "took a close look at an object"]),
    "scan room": (["looked around the {o}", "surveyed the {o}"], ["looked around the room", "surveyed the surroundings"]),
    "check pack": ([], ["checked the inventory", "looked through the pack", "checked what was being carried"]),
    "wait": ([], ["waited", "let time pass", "paused to wait"]),
    "get refused": (["had a '{o}' command rejected", "typed a '{o}' command the simulator didn't understand"],
                    ["had a command rejected", "typed something the simulator didn't accept"]),
    "mislabel": (["called something by the wrong name when it was really the {o}"],
                 ["used the wrong name for something", "mislabeled an object"]),
    "fix label": (["corrected the name and examined the {o}"], ["corrected a wrong name", "fixed a mislabeling"]),
    "face choice": (["got an ambiguous prompt about the {o}"], ["got an ambiguous-request prompt", "was asked to pick between identical options"]),
    "pick option": (["chose option {o} from a prompt"], ["picked a numbered option", "answered a which-one prompt"]),
    "eat": (["ate the {o}"], ["ate something", "had a snack"]),
    "get overloaded": ([], ["ended up carrying four or more things", "got the pack overloaded"]),
}

#: Plausible things Fern never does in these runs (checked against the records before use).
NEVER = [
    (("break", None), "broke a piece of glassware"), (("spill", None), "spilled a sample"),
    (("sleep", None), "took a nap"), (("teleport", None), "teleported"), (("eat", "apple"), "ate an apple"),
    (("fix label", "stove"), "corrected a name and looked at the stove"), (("wire up", "blue light bulb"), "wired up the blue light bulb"),
    (("switch on", "blast furnace"), "turned on the blast furnace"), (("walk into", "foundry"), "went into the foundry"),
    (("sow", "apple seed"), "planted an apple seed"), (("mix", "green paint"), "made green paint by mixing"),
    (("walk into", "art studio"), "entered the art studio"), (("pocket", "axe"), "picked up the axe"),
]

SUBJECTS_PAST = ["I", "we", "Fern", "you", "the agent", "she", "our technician"]
STATE_NAMES = {
    "score": "the task score", "checklist_ticks": "the number of checklist ticks for the current task",
    "tasks_done": "the count of finished tasks", "last_reading": "the last instrument reading on record",
    "focus": "the current focus", "pack_size": "the number of things carried", "task": "the task being worked on",
    "mode": "the working mode (checklist, detour or wandering)", "overloaded": "the overloaded flag",
}
SLOT_ASK = {
    "step": ["what was the step number", "which step was it", "at what step did that happen"],
    "location": ["which room was Fern in", "where was the agent", "what room were we in"],
    "action": ["what command was issued", "what exact command got typed"],
    "inventory": ["what was in the pack", "what was being carried"],
    "events": ["what events were logged", "what happened"],
    "facing": ["what object was handled", "which thing was acted on"],
}


def ordinal(n: int, rng: random.Random) -> str:
    words = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}
    if n == -1:
        return rng.choice(["last", "final", "most recent"])
    if n == -2:
        return rng.choice(["second-to-last", "penultimate", "next-to-last"])
    if rng.random() < 0.5 and n in words:
        return words[n]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def phrase(pat, rng: random.Random, verbatim: bool) -> str:
    kind, obj = pat
    if verbatim:
        return f"had a '{label(pat)}' event" if rng.random() < 0.5 else f"logged '{label(pat)}'"
    with_obj, without = PHRASES.get(kind, ([], [kind]))
    if obj is not None and with_obj:
        return rng.choice(with_obj).format(o=obj)
    if obj is not None:
        return f"did '{kind}' with the {obj}"
    return rng.choice(without)


def slot_phrase(slot: str, key, rng: random.Random) -> str:
    if slot == "item":
        return f"how many {key} {rng.choice(['were carried', 'were in the pack', 'did the inventory hold'])}"
    if slot == "state":
        return f"what was {STATE_NAMES.get(key, key)}"
    return rng.choice(SLOT_ASK[slot])


# ------------------------------------------------------------------------------------------------
# Question generation
# ------------------------------------------------------------------------------------------------

class _Ctx:
    def __init__(self, steps, episode, rng):
        self.steps, self.episode, self.rng = steps, episode, rng
        self.n = len(steps)
        self.hits: dict = {}
        for s in steps:
            for e in s.events:
                for pat in ((e.kind, e.obj or None), (e.kind, None)):
                    lst = self.hits.setdefault(pat, [])
                    if not lst or lst[-1] != s.t:
                        lst.append(s.t)
        self.pats = sorted(self.hits, key=lambda p: (p[0], p[1] or ""))
        self.items = sorted({k for s in steps for k, _ in s.inventory})

    def pat(self, min_hits=1, max_hits=10**9, kinds=None, with_obj=None):
        cands = [p for p in self.pats if min_hits <= len(self.hits[p]) <= max_hits
                 and (kinds is None or p[0] in kinds) and (with_obj is None or (p[1] is not None) == with_obj)
                 and p[0] not in ("start task",) or (kinds and p[0] in kinds and min_hits <= len(self.hits[p]) <= max_hits)]
        return self.rng.choice(cands) if cands else None

    def t(self, lo=0, hi=None):
        hi = self.n - 1 if hi is None else hi
        return self.rng.randint(lo, hi)

    def key_for(self, slot):
        if slot == "item":
            return self.rng.choice(self.items) if self.items else None
        if slot == "state":
            return self.rng.choice(["score", "checklist_ticks", "tasks_done", "last_reading", "focus", "pack_size",
                                    "task", "mode"])
        return None


def occ(pat, n, lo=None, hi=None):
    a = {"a": "occ", "pat": list(pat), "n": n}
    if lo is not None:
        a["lo"] = lo
    if hi is not None:
        a["hi"] = hi
    return a


def T(t):
    return {"a": "t", "t": t}


def subj(rng):
    return rng.choice(SUBJECTS_PAST)


def _slot_for_pat(rng, pat, slots):
    bad = set()
    if pat[0] in ("walk into", "scan room"):
        bad.add("location")
    if pat[1] is not None:
        bad.add("facing")
        bad.add("action")
    choices = [s for s in slots if s not in bad]
    return rng.choice(choices)


def _sq(ctx, pat_text, slot, key, when):
    """A templated question asking a slot at an occurrence described by ``when``."""
    rng = ctx.rng
    ask = slot_phrase(slot, key, rng)
    style = rng.randrange(3)
    if style == 0:
        return f"{ask[0].upper() + ask[1:]} {when}?"
    if style == 1:
        return f"{when[0].upper() + when[1:]}, {ask}?"
    noun = {"step": "the step number", "location": "the room", "action": "the exact command typed",
            "inventory": "the contents of the pack", "events": "the events logged", "facing": "the object handled",
            "state": f"the value of {STATE_NAMES.get(key, key)}", "item": f"the number of {key} carried"}[slot]
    return f"Give me {noun} for {when}."


# ---- templated generators: each returns (question, spec, slot) or None ----

SLOTS_TARGET = ["step", "location", "inventory", "state", "item", "facing", "events", "action"]


def g1_template(ctx):
    rng = ctx.rng
    slot = rng.choice(["action", "location", "inventory", "state", "item", "facing", "events"])
    t = ctx.t()
    key = ctx.key_for(slot)
    if slot == "item" and key is None:
        return None
    s = subj(rng)
    ask = slot_phrase(slot, key, rng)
    q = rng.choice([f"At step {t}, {ask}?", f"Right after step {t}, {ask}?", f"{ask[0].upper() + ask[1:]} at step {t}?"])
    if slot == "facing":
        q = rng.choice([f"At step {t}, what did {s} handle?", f"Which object was {s} working on at step {t}?"])
    return q, {"q": "slot", "at": T(t), "slot": slot, "key": key}, slot


def g2_template(ctx):
    rng = ctx.rng
    pat = ctx.pat(min_hits=2)
    if pat is None:
        return None
    hits = ctx.hits[pat]
    n = rng.choice([k for k in (1, 2, 3, -1, -2) if (k > 0 and k <= len(hits)) or (k < 0 and -k <= len(hits))])
    slot = _slot_for_pat(rng, pat, ["step", "location", "inventory", "state", "item", "facing"])
    key = ctx.key_for(slot)
    if slot == "item" and key is None:
        return None
    verb = rng.random() < 0.3
    when = f"the {ordinal(n, rng)} time {subj(rng)} {phrase(pat, rng, verb)}"
    return _sq(ctx, None, slot, key, when), {"q": "slot", "at": occ(pat, n), "slot": slot, "key": key}, slot


def g3_template(ctx):
    rng = ctx.rng
    pat = ctx.pat(min_hits=3)
    if pat is None:
        return None
    hits = ctx.hits[pat]
    style = rng.randrange(3)
    verb = rng.random() < 0.3
    slot = _slot_for_pat(rng, pat, ["step", "location", "state", "inventory", "item"])
    key = ctx.key_for(slot)
    if slot == "item" and key is None:
        return None
    s = subj(rng)
    if style == 0:
        a, b = sorted(rng.sample(range(ctx.n), 2))
        if b - a < 20 or a in hits or b in hits:
            return None
        n = rng.choice([1, -1, 2])
        spec = {"q": "slot", "at": occ(pat, n, T(a), T(b)), "slot": slot, "key": key}
        when = f"the {ordinal(n, rng)} time {s} {phrase(pat, rng, verb)} between steps {a} and {b}"
    elif style == 1:
        N = rng.randint(ctx.n // 4, ctx.n - 1)
        if N in hits or (N - 1) in hits:
            return None
        n = rng.choice([1, -1, 2])
        spec = {"q": "slot", "at": occ(pat, n, None, T(N)), "slot": slot, "key": key}
        when = f"the {ordinal(n, rng)} time {s} {phrase(pat, rng, verb)} within the first {N} steps"
    else:
        other = ctx.pat(min_hits=1, max_hits=4)
        if other is None or other[0] == pat[0]:
            return None
        n = rng.choice([1, 2, -1])
        spec = {"q": "slot", "at": occ(pat, n, occ(other, 1)), "slot": slot, "key": key}
        when = (f"the {ordinal(n, rng)} time {s} {phrase(pat, rng, verb)} after first having "
                f"{phrase(other, rng, False)}")
    return _sq(ctx, None, slot, key, when), spec, slot


CONDS = [
    ("state", "score", ">=", [25, 50, 75, 100], "the task score first reached at least {v}"),
    ("state", "pack_size", ">=", [2, 3, 4, 5], "{s} first had at least {v} things in the pack"),
    ("state", "tasks_done", "==", [1, 2, 3], "the number of finished tasks first became {v}"),
    ("state", "checklist_ticks", ">=", [2, 3, 4], "at least {v} checklist items had been ticked in the current task"),
    ("state", "overloaded", "is true", [True], "{s} was first overloaded"),
    ("state", "mode", "==", ["wandering"], "{s} first went wandering"),
]


def g4_template(ctx):
    rng = ctx.rng
    src, key0, op, vals, text = rng.choice(CONDS)
    v = rng.choice(vals)
    which = "first"
    anchor = {"a": "cond", "src": src, "key": key0, "op": op, "v": v, "which": which}
    if rng.random() < 0.3 and key0 == "pack_size":
        anchor["which"] = "last"
        text = "the last step at which {s} still had at least {v} things in the pack"
    slot = rng.choice(["step", "location", "action", "inventory", "state", "facing"])
    key = ctx.key_for(slot)
    if slot == "state" and key == key0:
        return None
    when = "when " + text.format(s=subj(rng), v=v) if not text.startswith("the last") else "at " + text.format(s=subj(rng), v=v)
    return _sq(ctx, None, slot, key, when), {"q": "slot", "at": anchor, "slot": slot, "key": key}, slot


def g5_template(ctx):
    rng = ctx.rng
    k = rng.choice([1, 2, 3, 5, -1, -2, -3, -4])
    slot = rng.choice(["action", "location", "inventory", "state", "events", "facing", "item"])
    key = ctx.key_for(slot)
    if slot == "item" and key is None:
        return None
    rel = f"{abs(k)} step{'s' if abs(k) > 1 else ''} {'after' if k > 0 else 'before'}"
    if rng.random() < 0.4:
        t = ctx.t(5, ctx.n - 6)
        anchor, when = T(t), f"{rel} step {t}"
    else:
        pat = ctx.pat(min_hits=1)
        n = rng.choice([1, -1])
        anchor = occ(pat, n)
        when = f"{rel} the {ordinal(n, rng)} time {subj(rng)} {phrase(pat, rng, rng.random() < 0.3)}"
    return _sq(ctx, None, slot, key, when), {"q": "slot", "at": anchor, "slot": slot, "key": key, "off": k}, slot


def g6_template(ctx):
    rng = ctx.rng
    pat = ctx.pat(min_hits=2)
    other = ctx.pat(min_hits=1)
    if pat is None or other is None or other == pat:
        return None
    slot = _slot_for_pat(rng, pat, ["step", "location", "state", "inventory", "facing"])
    key = ctx.key_for(slot)
    s = subj(rng)
    n = rng.choice([1, -1])
    anchor = occ(other, n)
    ap = phrase(other, rng, False)
    xp = phrase(pat, rng, rng.random() < 0.3)
    ask = slot_phrase(slot, key, rng)
    if rng.random() < 0.5:
        spec = {"q": "slot", "at": occ(pat, 1, lo=anchor), "slot": slot, "key": key}
        q = rng.choice([
            f"After the {ordinal(n, rng)} time {s} {ap}, {ask} when {s} next {xp}?",
            f"{ask[0].upper() + ask[1:]} when {s} next {xp} after the {ordinal(n, rng)} time {s} {ap}?",
        ])
    else:
        spec = {"q": "slot", "at": occ(pat, -1, hi=anchor), "slot": slot, "key": key}
        q = rng.choice([
            f"Before the {ordinal(n, rng)} time {s} {ap}, {ask} the previous time {s} {xp}?",
            f"{ask[0].upper() + ask[1:]} the last time {s} {xp} before the {ordinal(n, rng)} time {s} {ap}?",
        ])
    return q, spec, slot


def g7_template(ctx):
    rng = ctx.rng
    s = subj(rng)
    if rng.random() < 0.3:
        kind = rng.choice(["pocket", "walk into", "inspect", "switch on", "unpack", "take reading", "open"])
        a, b = sorted(rng.sample(range(ctx.n), 2))
        if b - a < 30:
            return None
        hits = ctx.hits.get((kind, None), [])
        if a in hits or b in hits:
            return None
        noun = {"pocket": "things did {s} pick up", "walk into": "rooms did {s} enter", "inspect": "objects did {s} examine",
                "switch on": "devices did {s} turn on", "unpack": "items did {s} stop carrying",
                "take reading": "instruments did {s} read", "open": "things did {s} open"}[kind].format(s=s)
        q = rng.choice([f"Which {noun} between step {a} and step {b}?", f"Between steps {a} and {b}, which {noun}?"])
        return q, {"q": "list", "kind": kind, "lo": T(a), "hi": T(b)}, "list"
    pat = ctx.pat(min_hits=1)
    verb = rng.random() < 0.3
    if rng.random() < 0.5:
        q = rng.choice([f"How many times did {s} {_inf(phrase(pat, rng, verb))} in total?",
                        f"Over the whole run, how many steps had {s} {_pp(phrase(pat, rng, verb))}?"])
        return q, {"q": "count", "pat": list(pat)}, "count"
    a, b = sorted(rng.sample(range(ctx.n), 2))
    hits = ctx.hits[pat]
    if a in hits or b in hits or b - a < 25:
        return None
    q = f"Between step {a} and step {b}, how many times did {s} {_inf(phrase(pat, rng, verb))}?"
    return q, {"q": "count", "pat": list(pat), "lo": T(a), "hi": T(b)}, "count"


_IRREG = {"began": "begin", "took": "take", "went": "go", "got": "get", "ate": "eat", "made": "make", "had": "have",
          "shut": "shut", "put": "put", "set": "set", "let": "let", "read": "read", "ended": "end", "stepped": "step",
          "was": "be", "stopped": "stop", "fired": "fire", "typed": "type", "sowed": "sow", "chose": "choose",
          "produced": "produce", "stirred": "stir", "emptied": "empty", "used": "use", "corrected": "correct",
          "repeated": "repeat", "verified": "verify", "re-checked": "re-check", "declared": "declare", "gained": "gain",
          "combined": "combine", "answered": "answer", "picked": "pick", "grabbed": "grab", "moved": "move",
          "changed": "change", "arrived": "arrive", "entered": "enter", "added": "add", "parted": "part",
          "planted": "plant", "poured": "pour", "mixed": "mix", "turned": "turn", "activated": "activate",
          "deactivated": "deactivate", "opened": "open", "closed": "close", "hooked": "hook", "connected": "connect",
          "focused": "focus", "measured": "measure", "examined": "examine", "looked": "look", "surveyed": "survey",
          "checked": "check", "waited": "wait", "paused": "pause", "mislabeled": "mislabel", "fixed": "fix",
          "ticked": "tick", "earned": "earn", "completed": "complete", "wrapped": "wrap", "started": "start",
          "logged": "log", "broke": "break", "spilled": "spill", "teleported": "teleport", "wired": "wire",
          "called": "call", "did": "do", "made": "make", "stepped": "step", "took": "take"}
_PP = {"began": "begun", "took": "taken", "went": "gone", "ate": "eaten", "broke": "broken", "chose": "chosen",
       "did": "done", "was": "been", "got": "gotten"}


def _inf(past: str) -> str:
    head, _, rest = past.partition(" ")
    return (_IRREG.get(head, head) + (" " + rest if rest else "")).strip()


def _pp(past: str) -> str:
    head, _, rest = past.partition(" ")
    return (_PP.get(head, head) + (" " + rest if rest else "")).strip()


def _anchor_desc(ctx, rng):
    """A located anchor and its words: an n-th occurrence or a condition."""
    if rng.random() < 0.75:
        pat = ctx.pat(min_hits=1)
        hits = ctx.hits[pat]
        n = rng.choice([k for k in (1, 2, -1) if abs(k) <= len(hits)])
        return occ(pat, n), pat, f"the {ordinal(n, rng)} time {subj(rng)} {phrase(pat, rng, rng.random() < 0.3)}"
    src, key0, op, vals, text = rng.choice(CONDS)
    v = rng.choice(vals)
    a = {"a": "cond", "src": src, "key": key0, "op": op, "v": v, "which": "first"}
    return a, None, "the moment " + text.format(s=subj(rng), v=v)


def g8_template(ctx):
    rng = ctx.rng
    pa = ctx.pat(min_hits=1)
    pb = ctx.pat(min_hits=1)
    if pa is None or pb is None or pa[0] == pb[0]:
        return None
    na = rng.choice([1, -1])
    nb = rng.choice([1, -1])
    va, vb = rng.random() < 0.3, rng.random() < 0.3
    s = subj(rng)
    da = f"the {ordinal(na, rng)} time {s} {phrase(pa, rng, va)}"
    db = f"the {ordinal(nb, rng)} time {s} {phrase(pb, rng, vb)}"
    q = rng.choice([f"Which came first: {da}, or {db}?", f"Did {da} happen before {db}, or the other way round? "
                    f"Answer with the event."])
    return q, {"q": "order", "A": occ(pa, na), "B": occ(pb, nb), "la": label(pa), "lb": label(pb)}, "which-first"


def g9_template(ctx):
    rng = ctx.rng
    a1, _, d1 = _anchor_desc(ctx, rng)
    if rng.random() < 0.3:
        t = ctx.t()
        a2, d2 = T(t), f"step {t}"
    else:
        a2, _, d2 = _anchor_desc(ctx, rng)
    q = rng.choice([f"How many steps were there between {d1} and {d2}?",
                    f"How far apart, in steps, were {d1} and {d2}?"])
    return q, {"q": "dist", "A": a1, "B": a2}, "duration"


def g10_template(ctx):
    rng = ctx.rng
    s = subj(rng)
    roll = rng.random()
    if roll < 0.35:
        cands = [(p, txt) for p, txt in NEVER if p not in ctx.hits]
        if not cands:
            return None
        pat, txt = rng.choice(cands)
        q = rng.choice([f"Did {s} ever {_inf(txt)}?", f"At any point in the run, did {s} {_inf(txt)}?"])
        return q, {"q": "exists", "pat": list(pat)}, "yes/no"
    pat = ctx.pat(min_hits=1)
    anchor, _, desc = _anchor_desc(ctx, rng)
    verb = rng.random() < 0.3
    if rng.random() < 0.5:
        q = f"After {desc}, did {s} ever {_inf(phrase(pat, rng, verb))}?"
        return q, {"q": "exists", "pat": list(pat), "lo": anchor}, "yes/no"
    q = f"Before {desc}, had {s} {_pp(phrase(pat, rng, verb))} at all?"
    return q, {"q": "exists", "pat": list(pat), "hi": anchor}, "yes/no"


# ---- hand-worded one-off questions: each has its own sentence, used at most once per seed ----

def _first_task(ctx, k=0):
    tasks = [ctx.steps[t].events[0].obj for t in ctx.hits.get(("start task", None), [])]
    return tasks[k] if len(tasks) > k else None


def o1a(ctx):
    t = ctx.t(10, ctx.n - 1)
    return (f"Once step {t} was over, what did {AGENT} have on her?", {"q": "slot", "at": T(t), "slot": "inventory"}, "inventory")


def o1b(ctx):
    t = ctx.t(10, ctx.n - 1)
    return (f"What did the simulator record as happening at step {t}?", {"q": "slot", "at": T(t), "slot": "events"}, "events")


def o1c(ctx):
    t = ctx.t(1, ctx.n - 1)
    return (f"Which room was I in when step {t} finished?", {"q": "slot", "at": T(t), "slot": "location"}, "location")


def o2a(ctx):
    if len(ctx.hits.get(("tick off", None), [])) < 3:
        return None
    return ("On which step did Fern earn her third checklist tick of the whole shift?",
            {"q": "slot", "at": occ(("tick off", None), 3), "slot": "step"}, "step")


def o2b(ctx):
    if len(ctx.hits.get(("get refused", None), [])) < 2:
        return None
    return ("The second time the simulator turned one of my commands down, where was I standing?",
            {"q": "slot", "at": occ(("get refused", None), 2), "slot": "location"}, "location")


def o2c(ctx):
    if not ctx.hits.get(("take reading", None)):
        return None
    return ("What number did the very last instrument reading show? Give the reading as noted.",
            {"q": "slot", "at": occ(("take reading", None), -1), "slot": "state", "key": "last_reading"}, "state")


def o3a(ctx):
    hits = ctx.hits.get(("walk into", None), [])
    if len(hits) < 4:
        return None
    a, b = sorted(ctx.rng.sample(range(ctx.n), 2))
    if a in hits or b in hits or b - a < 40:
        return None
    return (f"Between steps {a} and {b}, what was the last room our technician stepped into?",
            {"q": "slot", "at": occ(("walk into", None), -1, T(a), T(b)), "slot": "location"}, "location")


def o3b(ctx):
    task = _first_task(ctx, 1)
    if task is None:
        return None
    return (f"Once the {task} task had begun, what was the first thing Fern picked up, going by the item?",
            {"q": "slot", "at": occ(("pocket", None), 1, occ(("start task", task), 1)), "slot": "facing"}, "facing")


def o3c(ctx):
    if len(ctx.hits.get(("finish task", None), [])) < 2:
        return None
    return ("In the stretch between finishing the first task and finishing the second, at which step did I last look around?",
            {"q": "slot", "at": occ(("scan room", None), -1, occ(("finish task", None), 1), occ(("finish task", None), 2)),
             "slot": "step"}, "step")


def o4a(ctx):
    return ("The first time my pack held four or more things, which room was I in?",
            {"q": "slot", "at": {"a": "cond", "src": "state", "key": "pack_size", "op": ">=", "v": 4, "which": "first"},
             "slot": "location"}, "location")


def o4b(ctx):
    return ("When did the score of a task first hit a full 100? I want the step number.",
            {"q": "slot", "at": {"a": "cond", "src": "state", "key": "score", "op": ">=", "v": 100, "which": "first"},
             "slot": "step"}, "step")


def o4c(ctx):
    return ("What was Fern carrying at the last moment her pack was still overloaded?",
            {"q": "slot", "at": {"a": "cond", "src": "state", "key": "overloaded", "op": "is true", "v": True, "which": "last"},
             "slot": "inventory"}, "inventory")


def o5a(ctx):
    if not ctx.hits.get(("switch on", None)):
        return None
    return ("Three steps after Fern first switched something on, what command did she type?",
            {"q": "slot", "at": occ(("switch on", None), 1), "slot": "action", "off": 3}, "action")


def o5b(ctx):
    if not ctx.hits.get(("focus on", None)):
        return None
    return ("Just before the agent's first declared focus, what room was it in?",
            {"q": "slot", "at": occ(("focus on", None), 1), "slot": "location", "off": -1}, "location")


def o5c(ctx):
    if not ctx.hits.get(("mislabel", None)):
        return None
    return ("Two steps ahead of my final mix-up over an object's name, what had I just typed?",
            {"q": "slot", "at": occ(("mislabel", None), -1), "slot": "action", "off": -2}, "action")


def o6a(ctx):
    task = _first_task(ctx, 0)
    if task is None:
        return None
    return (f"After wrapping up {task}, which room did Fern walk into next?",
            {"q": "slot", "at": occ(("walk into", None), 1, occ(("finish task", task), 1)), "slot": "location"}, "location")


def o6b(ctx):
    if not ctx.hits.get(("finish task", None)):
        return None
    return ("What was the last command I had rejected before my first task was complete?",
            {"q": "slot", "at": occ(("get refused", None), -1, None, occ(("finish task", None), 1)), "slot": "action"}, "action")


def o6c(ctx):
    if len(ctx.hits.get(("inspect", None), [])) < 2:
        return None
    return ("Following her first check of the pack, what did the technician examine next?",
            {"q": "slot", "at": occ(("inspect", None), 1, occ(("check pack", None), 1)), "slot": "facing"}, "facing")


def o7a(ctx):
    return ("Across the whole shift, how often did the simulator say it had no idea what I meant?",
            {"q": "count", "pat": ["get refused", None]}, "count")


def o7b(ctx):
    task = _first_task(ctx, 1)
    if task is None:
        return None
    return (f"Which rooms did Fern walk into while working on {task}, up to its completion?",
            {"q": "list", "kind": "walk into", "lo": occ(("start task", task), 1), "hi": occ(("finish task", task), 1)}, "list")


def o7c(ctx):
    return ("How many separate times did Fern stop to re-check a reading she had already taken?",
            {"q": "count", "pat": ["double-check", None]}, "count")


def o8a(ctx):
    if not ctx.hits.get(("mislabel", None)) or not ctx.hits.get(("switch on", None)):
        return None
    return ("Which happened earlier in the run: the first mislabeling, or the first time anything got switched on?",
            {"q": "order", "A": occ(("mislabel", None), 1), "B": occ(("switch on", None), 1),
             "la": "mislabel", "lb": "switch on"}, "which-first")


def o8b(ctx):
    return ("Did my pack first reach three items before or after I first had a command refused? Name whichever came first.",
            {"q": "order", "A": {"a": "cond", "src": "state", "key": "pack_size", "op": ">=", "v": 3, "which": "first"},
             "B": occ(("get refused", None), 1), "la": "pack size 3", "lb": "get refused"}, "which-first")


def o8c(ctx):
    if not ctx.hits.get(("open", None)) or not ctx.hits.get(("check pack", None)):
        return None
    return ("Which did Fern get to first on this shift: opening her first door or container, or her first look through the pack?",
            {"q": "order", "A": occ(("open", None), 1), "B": occ(("check pack", None), 1),
             "la": "open", "lb": "check pack"}, "which-first")


def o9c(ctx):
    return ("How many steps passed between the agent's very first checklist tick and its first finished task?",
            {"q": "dist", "A": occ(("tick off", None), 1), "B": occ(("finish task", None), 1)}, "duration")


def o9a(ctx):
    task = _first_task(ctx, ctx.rng.randrange(2))
    if task is None:
        return None
    return (f"From its start to its completion, how many steps did the {task} assignment take?",
            {"q": "dist", "A": occ(("start task", task), 1), "B": occ(("finish task", task), 1)}, "duration")


def o9b(ctx):
    return ("How long was the gap between the agent's first and last trip into a new room?",
            {"q": "dist", "A": occ(("walk into", None), 1), "B": occ(("walk into", None), -1)}, "duration")


def o10a(ctx):
    return ("Did Fern ever knock over and break a thermometer?", {"q": "exists", "pat": ["break", "thermometer"]}, "yes/no")


def o10b(ctx):
    if len(ctx.hits.get(("finish task", None), [])) < 2:
        return None
    return ("Once her second job was done, did Fern ever type something the simulator refused?",
            {"q": "exists", "pat": ["get refused", None], "lo": occ(("finish task", None), 2)}, "yes/no")


def o10c(ctx):
    return ("Was anything ever eaten on this shift?", {"q": "exists", "pat": ["eat", None]}, "yes/no")


FAMILIES = [
    ("1_step_index", g1_template, [o1a, o1b, o1c]),
    ("2_nth_occurrence", g2_template, [o2a, o2b, o2c]),
    ("3_windowed_occurrence", g3_template, [o3a, o3b, o3c]),
    ("4_condition", g4_template, [o4a, o4b, o4c]),
    ("5_offset", g5_template, [o5a, o5b, o5c]),
    ("6_next_previous", g6_template, [o6a, o6b, o6c]),
    ("7_count", g7_template, [o7a, o7b, o7c]),
    ("8_order", g8_template, [o8a, o8b, o8c]),
    ("9_distance", g9_template, [o9a, o9b, o9c]),
    ("10_existence", g10_template, [o10a, o10b, o10c]),
]


def _leaks(question: str, answer: str, slot: str) -> bool:
    if slot in ("which-first", "yes/no", "count", "duration", "step", "item"):
        return False
    a = answer.lower().strip()
    if len(a) < 3 or a in ("none", "empty"):
        return False
    return re.search(r"\b" + re.escape(a) + r"\b", question.lower()) is not None


def _both_window_ways(steps, spec, episode):
    """Numeric window bounds must not change the answer whether taken inclusively or not."""
    res = evaluate(steps, spec, episode)
    if res is None:
        return None
    text = repr(spec)
    if "'a': 't'" not in text or spec["q"] in ("order", "dist") or (spec["q"] == "slot" and spec["at"]["a"] == "t"):
        return res
    import copy

    alt = copy.deepcopy(spec)

    def shrink(node):
        if isinstance(node, dict):
            for k in ("lo", "hi"):
                if isinstance(node.get(k), dict) and node[k].get("a") == "t":
                    node[k] = {"a": "t", "t": node[k]["t"] + (1 if k == "lo" else -1)}
            for v in node.values():
                shrink(v)

    shrink(alt)
    other = evaluate(steps, alt, episode)
    if other is None or other[0] != res[0]:
        return None
    return res


def make_questions(steps, episode, seed):
    rng = random.Random(seed * 31 + 5)
    ctx = _Ctx(steps, episode, rng)
    questions, specs, seen = [], [], set()
    kinds = {k for k in PHRASES} | {"break", "spill", "sleep", "teleport"}
    for family, templ, oneoffs in FAMILIES:
        chosen = []
        offs = list(oneoffs)
        rng.shuffle(offs)
        want_off = 2
        for fn in offs:
            if sum(1 for c in chosen if c[3]) >= want_off:
                break
            for _ in range(6):
                got = fn(ctx)
                if got is None:
                    break
                q, spec, slot = got
                res = _both_window_ways(steps, spec, episode)
                if res is None or q in seen or _leaks(q, res[0], slot):
                    continue
                if slot == "count" and res[0] == "0" and spec["pat"][0] not in [p[0] for p in ctx.pats]:
                    pass
                spec = dict(spec, oneoff=True)
                chosen.append((q, spec, slot, True, res))
                seen.add(q)
                break
        slot_counts: Counter = Counter()
        tries = 0
        while len(chosen) < 6 and tries < 400:
            tries += 1
            got = templ(ctx)
            if got is None:
                continue
            q, spec, slot = got
            if slot_counts[slot] >= 2 and tries < 300:
                continue
            res = _both_window_ways(steps, spec, episode)
            if res is None or q in seen or _leaks(q, res[0], slot):
                continue
            if family == "10_existence":
                n_yes = sum(1 for c in chosen if c[4][0] == "yes")
                if res[0] == "yes" and n_yes >= 4 or res[0] == "no" and len(chosen) - n_yes >= 3:
                    continue
            if family == "7_count" and res[0] in ("0", "none") and tries < 300:
                continue
            chosen.append((q, spec, slot, False, res))
            slot_counts[slot] += 1
            seen.add(q)
        if len(chosen) != 6:
            raise RuntimeError(f"{SUITE}: could not make six {family} questions for seed {seed}")
        for q, spec, slot, _, (answer, gold) in chosen:
            questions.append({"episode": episode, "family": family, "slot": slot, "question": q,
                              "answer": answer, "gold": gold})
            specs.append(spec)
    del kinds
    return questions, specs


def _build(seed: int):
    episode = f"science-{seed}"
    steps = simulate(seed)
    validate_steps(steps, episode)
    questions, specs = make_questions(steps, episode, seed)
    return {"episodes": {episode: steps}, "questions": questions}, specs


def build(seed: int) -> dict:
    return _build(seed)[0]


# ------------------------------------------------------------------------------------------------
# Self-check
# ------------------------------------------------------------------------------------------------

def _self_check(seeds):
    ok = True
    for seed in seeds:
        data, specs = _build(seed)
        (episode, steps), = data["episodes"].items()
        print(f"== seed {seed}: episode {episode}, {len(steps)} steps")
        validate_steps(steps, episode)
        fam = Counter(q["family"] for q in data["questions"])
        slots = Counter(q["slot"] for q in data["questions"])
        print("families:", dict(sorted(fam.items())))
        print("slots:", dict(sorted(slots.items())))
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(sorted(kinds.items())))
        tasks = [e.obj for s in steps for e in s.events if e.kind == "start task"]
        done = [e.obj for s in steps for e in s.events if e.kind == "finish task"]
        print("tasks:", tasks, "finished:", done)
        verbatim = sum(1 for q in data["questions"] if any(re.search(r"\b" + re.escape(k) + r"\b", q["question"].lower())
                                                           for k in kinds if " " in k or k in ("pocket", "unpack", "mislabel")))
        print("hand-worded one-offs:", sum(1 for sp in specs if sp.get("oneoff")))
        allk = sorted(kinds, key=len, reverse=True)
        verbatim = sum(1 for q in data["questions"]
                       if any(re.search(r"\b" + re.escape(k) + r"\b", q["question"].lower()) for k in allk))
        print("questions naming a stored event kind verbatim:", verbatim)
        if verbatim > 30:
            print("FAIL: too many verbatim event kinds"); ok = False
        if len(data["questions"]) != 60 or any(v != 6 for v in fam.values()) or len(fam) != 10:
            print("FAIL: family counts"); ok = False
        if not (MIN_STEPS <= len(steps) <= 1500) or [s.t for s in steps] != list(range(len(steps))):
            print("FAIL: step count or numbering"); ok = False
        again, _ = _build(seed)
        if again != data:
            print("FAIL: second build differs"); ok = False
        for q, spec in zip(data["questions"], specs):
            if any(not g.startswith(episode + ":") for g in q["gold"]):
                print("FAIL: gold names another episode", q); ok = False
            res = evaluate(steps, spec, episode)
            if res is None or res[0] != q["answer"] or res[1] != q["gold"]:
                print("FAIL: evaluator disagrees", q, res); ok = False
            if not q["gold"] and q["answer"] not in ("no", "0", "none"):
                print("FAIL: empty gold", q); ok = False
        rng = random.Random(seed)
        for q in rng.sample(data["questions"], 15):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']!r} gold={q['gold']}")
    print("SELF-CHECK", "PASSED" if ok else "FAILED")
    return ok


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]] or list(SEED_RANGE[:2])
    sys.exit(0 if _self_check(args) else 1)
