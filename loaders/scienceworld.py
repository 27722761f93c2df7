"""ScienceWorld episodes (Java simulator, offline) as graphmem ``Step`` records.

``run_scienceworld(task, variation)`` plays the task's gold action sequence and then explores with
seeded random actions (look around, go to, open/close, pick up/put down, move, (de)activate,
examine, wait), and converts each step. The simulator's own reports are the ground truth:

* location: the room from ``env.look()`` ("This room is called the kitchen.")
* inventory: ``env.inventory()`` ("In your inventory, you see: an orange, a thermometer, ...")
* relations: what the room listing says is on/in what, open/closed doors and containers,
  devices turned on/off or (de)activated, thermometer readings
* events: visit (room changed; step 0 visits the start room), collect + gain / lose (inventory changed), move (an object
  moved out of the inventory into a container), open / close / use (activate, deactivate, use
  X on Y) when the simulator confirms it ("The sink is now activated."), observe (focus on,
  examine, a measurement), eat, achievement ("task completed") when the task is completed.

Names are ScienceWorld's object names without articles ("metal pot", "water", "red apple",
"door to kitchen"); a "substance called water" is "water".
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.records import Event, Location, Relation, Step, validate_steps

logger = logging.getLogger(__name__)

#: Verbs of the random exploration (focus is left out: focusing on a wrong object fails the task).
EXPLORE_VERBS: tuple[str, ...] = (
    "look around",
    "go to",
    "open",
    "close",
    "pick up",
    "put down",
    "move",
    "activate",
    "deactivate",
    "examine",
    "wait1",
)
_ROOM = re.compile(r"This [a-z ]*?(?:room|location) is called the (?P<room>[^.]+)\.")
_HOLDER = re.compile(r"(?P<prep>On|In) the (?P<holder>[^:]+?) is: ?(?P<items>.*?)\.?\s*$")
_NOW = re.compile(r"^The (?P<obj>.+?) is now (?P<state>open|closed|activated|deactivated)\.", re.IGNORECASE)
_FOCUS = re.compile(r"^You focus on the (?P<obj>.+?)\.", re.IGNORECASE)
_MEASURE = re.compile(r"^the (?P<tool>.+?) measures a temperature of (?P<value>-?\d+(?:\.\d+)? degrees \w+)", re.IGNORECASE)
_MOVED = re.compile(r"^You move the (?P<obj>.+?) to the (?P<target>.+?)\.", re.IGNORECASE)
_ATE = re.compile(r"^You eat the (?P<obj>.+?)\.", re.IGNORECASE)


def _require_scienceworld() -> Any:
    try:
        from scienceworld import ScienceWorldEnv
    except ImportError as exc:
        raise ImportError(
            "graphmem.loaders.scienceworld needs the 'scienceworld' package and Java 11+: "
            f"pip install scienceworld ({exc})"
        ) from exc
    return ScienceWorldEnv


def _split_top(text: str) -> list[str]:
    """Split ``"a bowl (containing a, b), a drawer"`` on the commas outside parentheses."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def clean_name(text: str) -> str:
    """``"a substance called water"`` -> ``"water"``; ``"an orange"`` -> ``"orange"``."""
    name = " ".join(text.strip().lower().split())
    name = re.sub(r"^(?:a|an|the)\s+", "", name)
    name = re.sub(r"^substance called\s+", "", name)
    return name.strip(" .")


def _parse_item(text: str, relations: list[Relation]) -> str:
    """Name of one listed item; adds what the listing says about it to ``relations``."""
    text = text.strip()
    head = re.split(r"\.\s|,\s|\s\(|\.$", text, maxsplit=1)[0]
    name = clean_name(head)
    if not name:
        return ""
    rest = text[len(head):]
    contained = re.match(r"\s*\(containing (?P<items>.*)\)", rest)
    if contained and contained.group("items").strip() != "nothing":
        for part in _split_top(contained.group("items")):
            inner = _parse_item(part, relations)
            if inner:
                relations.append(Relation(inner, "in", name))
    if m := re.search(r"which is turned (on|off)", rest):
        relations.append(Relation(name, "is", m.group(1)))
    if m := re.search(r"which is (activated|deactivated)", rest):
        relations.append(Relation(name, "is", m.group(1)))
    if m := re.search(r"\bis (open|closed)\b", rest):
        relations.append(Relation(name, "is", m.group(1)))
    if m := re.search(r"currently reading a temperature of (-?\d+(?:\.\d+)? degrees \w+)", rest):
        relations.append(Relation(name, "reads", m.group(1)))
    for sentence in re.split(r"(?<=\.)\s+", rest):
        if m := _HOLDER.search(sentence.strip()):
            holder = clean_name(m.group("holder"))
            predicate = m.group("prep").lower()
            for part in _split_top(m.group("items")):
                if part.strip().lower().startswith("nothing"):
                    continue
                inner = _parse_item(part, relations)
                if inner:
                    relations.append(Relation(inner, predicate, holder))
    return name


@dataclass
class _Look:
    room: str = ""
    objects: list[str] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


def parse_look(text: str) -> _Look:
    """Room, listed objects and relations of a ``look around`` text.

    >>> parse_look("This room is called the kitchen. In it, you see: \\n\\ta sink, which is turned off.").room
    'kitchen'
    """
    look = _Look()
    if m := _ROOM.search(text):
        look.room = clean_name(m.group("room"))
    doors = False
    top = ""
    for line in text.splitlines()[1:]:
        if not line.strip():
            continue
        if line.strip().startswith("You also see"):
            doors = True
            continue
        depth = len(line) - len(line.lstrip("\t"))
        content = line.strip()
        if doors:
            m = re.match(r"A door to the (?P<room>.+?) \(that is (?P<state>open|closed)\)", content)
            if m:
                door = f"door to {clean_name(m.group('room'))}"
                look.objects.append(door)
                look.relations.append(Relation(door, "is", m.group("state")))
            continue
        name = _parse_item(content, look.relations)
        if not name or name == "agent":
            continue
        if depth >= 2 and top:  # nested listing of an open container
            look.relations.append(Relation(name, "in", top))
        else:
            top = name
        look.objects.append(name)
    look.objects = list(dict.fromkeys(look.objects))
    return look


def parse_inventory(text: str) -> tuple[dict[str, int], list[Relation]]:
    """Items (name -> count) and their contents from an ``inventory`` text."""
    items: dict[str, int] = {}
    relations: list[Relation] = []
    holder, predicate = "", "in"  # a carried holder whose contents follow on their own lines
    for line in text.splitlines()[1:]:
        if not line.strip():
            holder = ""  # a blank line ends such a listing
            continue
        content = line.strip()
        name = _parse_item(content, relations)
        if not name:
            continue
        if holder:
            relations.append(Relation(name, predicate, holder))
            continue
        items[name] = items.get(name, 0) + 1
        if m := re.search(r"(On|In) the [^:]+ is:$", content):
            holder, predicate = name, m.group(1).lower()
    return items, relations


def _explore_action(env: Any, rng: np.random.RandomState) -> str:
    valid = [a for a in env.get_valid_action_object_combinations() if a.startswith(EXPLORE_VERBS)]
    # "move X to Y" is by far the most frequent template: keep it, but not more than 1 in 4.
    moves = [a for a in valid if a.startswith("move ")]
    others = [a for a in valid if not a.startswith("move ")]
    pool = moves if moves and (not others or rng.uniform() < 0.25) else others
    return str(pool[rng.randint(len(pool))]) if pool else "look around"


def _events(action: str, reply: str, before: tuple[str, dict[str, int]], after: tuple[str, dict[str, int]]) -> tuple[list[Event], list[str], list[Relation]]:
    room, inv = before
    new_room, new_inv = after
    events: list[Event] = []
    phrases: list[str] = []
    relations: list[Relation] = []
    first = reply.strip().split("\n")[0]
    if new_room != room:
        events.append(Event("visit", new_room))
        phrases.append(f"went to the {new_room}")
    moved = _MOVED.match(first)
    for x in sorted(set(new_inv) | set(inv)):
        delta = new_inv.get(x, 0) - inv.get(x, 0)
        if delta > 0:
            events += [Event("collect", x, delta), Event("gain", x, delta)]
            phrases.append(f"picked up the {x}")
        elif delta < 0:
            events.append(Event("lose", x, -delta))
            if m := _ATE.match(first):
                events.append(Event("eat", clean_name(m.group("obj"))))
                phrases.append(f"ate the {x}")
            elif moved and clean_name(moved.group("obj")) == x:
                target = clean_name(moved.group("target"))
                if target != new_room:
                    events.append(Event("move", x, -delta))
                    relations.append(Relation(x, "in", target))
                    phrases.append(f"moved the {x} to the {target}")
                else:
                    phrases.append(f"put down the {x} in the {new_room}")
            else:
                phrases.append(f"no longer has the {x}")
    if moved and not any(e.kind in ("collect", "lose") for e in events):
        obj, target = clean_name(moved.group("obj")), clean_name(moved.group("target"))
        if target not in ("inventory", new_room):  # moved something between containers
            events.append(Event("move", obj))
            relations.append(Relation(obj, "in", target))
            phrases.append(f"moved the {obj} to the {target}")
    if m := _NOW.match(first):
        obj, state = clean_name(m.group("obj")), m.group("state").lower()
        kind = {"open": "open", "closed": "close"}.get(state, "use")
        target = obj
        if obj == "door" and action.lower().startswith(("open ", "close ")):
            target = clean_name(action.split(" ", 1)[1])  # "open door to kitchen" -> "door to kitchen"
        events.append(Event(kind, target))
        relations.append(Relation(target, "is", state))
        phrases.append(f"{'opened' if state == 'open' else 'closed' if state == 'closed' else state} the {target}")
    if m := _FOCUS.match(first):
        obj = clean_name(m.group("obj"))
        events.append(Event("observe", obj))
        phrases.append(f"focused on the {obj}")
    if m := _MEASURE.match(first):
        tool = clean_name(m.group("tool"))
        target = action.lower().split(" on ", 1)[1].strip() if " on " in action.lower() else ""
        events.append(Event("use", tool))
        if target:
            events.append(Event("observe", clean_name(target)))
            relations.append(Relation(clean_name(target), "measured at", m.group("value")))
        phrases.append(f"measured {clean_name(target) or 'it'} with the {tool}: {m.group('value')}")
    if action.lower().startswith("examine ") and not first.lower().startswith(("no known action", "unknown action")):
        target = clean_name(action[len("examine "):])
        events.append(Event("observe", target))
        if not phrases:
            phrases.append(f"examined the {target}: {first[:100]}")
    return events, phrases, relations


class _Session:
    """One ScienceWorld env, stepped through the simulator directly.

    ``ScienceWorldEnv.step`` also lists every valid action after each step (~0.4 s); the loader
    only needs the reply, the look and the inventory, so it calls the simulator server for those.
    """

    def __init__(self, env: Any) -> None:
        self.env = env

    def step(self, action: str) -> str:
        reply = str(self.env.server.step(action))
        if reply.startswith("Ambiguous request"):
            # The simulator waits for a choice: take the first reading, as the gold agent would.
            reply = str(self.env.server.step("0"))
        return reply

    def look(self) -> str:
        return str(self.env.look())

    def inventory(self) -> str:
        return str(self.env.inventory())

    def score(self) -> int:
        return round(100 * self.env.server.getScore())

    def completed(self) -> bool:
        return bool(self.env.server.getCompleted())


def run_scienceworld(task: str = "boil", variation: int = 0, steps: int = 100, seed: int = 0) -> list[Step]:
    """Play a ScienceWorld task (gold path, then seeded exploration) and return its Steps.

    Needs Java 11+ (the simulator is a jar started through py4j); nothing is downloaded.

    >>> steps = run_scienceworld("boil", variation=0, steps=60)  # doctest: +SKIP
    >>> steps[1].location.region  # doctest: +SKIP
    'kitchen'
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    ScienceWorldEnv = _require_scienceworld()
    env = ScienceWorldEnv("", envStepLimit=steps + 10)
    try:
        names = env.get_task_names()
        if task not in names:
            raise ValueError(f"unknown ScienceWorld task {task!r}; known tasks: {names}")
        env.load(task, variation, "", generateGoldPath=True)
        env.reset()
        gold = list(env.get_gold_action_sequence())
        task_text = " ".join(str(env.get_task_description()).split())
        return _play(_Session(env), env, gold, task_text, steps, seed, f"scienceworld {task}#{variation}")
    finally:
        env.close()


def _play(session: _Session, env: Any, gold: list[str], task_text: str, steps: int, seed: int, where: str) -> list[Step]:
    rng = np.random.RandomState(seed)
    look = parse_look(session.look())
    look.room = ""  # so that step 0 "visits" the start room, as in the other loaders
    inv, _ = parse_inventory(session.inventory())
    completed = False
    out: list[Step] = []
    for t in range(steps):
        action = gold[t] if t < len(gold) else _explore_action(env, rng)
        reply = session.step(action)
        new_look = parse_look(session.look())
        new_inv, inv_relations = parse_inventory(session.inventory())
        score, new_completed = session.score(), session.completed()
        events, phrases, relations = _events(action, reply, (look.room, inv), (new_look.room, new_inv))
        if new_completed and not completed:
            events.append(Event("achievement", "task completed"))
            phrases.append("completed the task")
        if not phrases:
            phrases.append(reply.strip().split("\n")[0][:160] or f"{action}: no reply")
        relations = [Relation("agent", "in", new_look.room)] + [Relation("agent", "carrying", x) for x in new_inv] + relations
        relations += inv_relations + new_look.relations
        touched = [e.obj for e in events if e.obj and e.kind not in ("visit", "achievement")]
        state: dict[str, Any] = {"score": score, "completed": new_completed}
        if t == 0:
            state["task"] = task_text
        out.append(
            Step(
                t=t,
                action=" ".join(action.split()),
                summary="; ".join(phrases),
                objects=tuple(dict.fromkeys([*touched, *new_inv, *new_look.objects])),
                events=tuple(events),
                relations=tuple(dict.fromkeys(r for r in relations if r.subject and r.obj)),
                inventory=new_inv,
                state=state,
                location=Location(region=new_look.room),
                observation=reply.strip(),
            )
        )
        look, inv, completed = new_look, new_inv, new_completed
    validate_steps(out, where)
    return out
