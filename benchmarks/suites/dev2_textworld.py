"""Blind question suite on real TextWorld games (seeds 9100-9199).

For each seed a game is generated offline with ``textworld.generator`` (5-8 rooms, doors, keys,
containers, supporters, food, one quest) and compiled once into a cache folder. A curious scripted
player of its own explores it through the admissible commands for a few hundred steps (walks, opens,
unlocks, takes, puts, drops, examines, eats) while keeping the quest winnable, then follows the
walkthrough to win. An adapter turns each command into a ``graphmem.records.Step`` from the diff of
the game's facts:

* action: the command verbatim (``take passkey from box``); region: the room;
* events: ``collect X`` (into the inventory), ``place X`` (onto a supporter), ``move X`` (into a
  container), ``lose X`` (dropped on the floor), ``eat X``, ``open X``, ``close X``, ``use K``
  (lock/unlock with a key), ``observe X`` (examine), ``visit R`` (entered a room),
  ``achievement score point`` / ``achievement quest complete``; object names are lower-cased
  (the action keeps the command's own spelling);
* relations: ``(X, on, S)``, ``(X, in, C)``, ``(K, unlocked, C)``, ``(K, locked, C)``;
* state: score, rooms_explored, items_carried (ints), won (bool), last_examined (text).
"""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Iterable

from benchmarks.suites._dev2_core import (
    ItemWords,
    Match,
    StateCond,
    StateWords,
    Vocab,
    Writer,
    self_check,
    vp,
)
from graphmem.records import Event, Location, Relation, Step

SUITE = "dev2_textworld"
SEEDS = range(9100, 9200)
PER_FAMILY = 6

_NAMES = ("Wren", "Basil", "Odile", "Casimir", "Lark", "Imogen", "Pavel", "Tamsin", "Hugo", "Nell")
_CACHE = os.path.join(tempfile.gettempdir(), "graphmem_dev2_textworld")


def game_file(seed: int) -> str:
    """Generate (once) and return the compiled game of ``seed``."""
    from textworld import GameOptions  # type: ignore[import-untyped]
    from textworld.generator import compile_game, make_game  # type: ignore[import-untyped]

    path = os.path.join(_CACHE, f"dev2_{seed}.z8")
    if os.path.isfile(path) and os.path.isfile(path[:-3] + ".json"):
        return path
    rng = random.Random(seed)
    options = GameOptions()
    options.seeds = seed
    options.nb_rooms = rng.randint(5, 8)
    options.nb_objects = rng.randint(13, 20)
    options.quest_length = rng.randint(4, 7)
    options.path = path
    options.force_recompile = True
    game = make_game(options)
    return compile_game(game, options)


# ------------------------------------------------------------------------------------------------
# Facts of the game state
# ------------------------------------------------------------------------------------------------


class Facts:
    """The parts of TextWorld's fact list the adapter and the player need."""

    def __init__(self, facts: Iterable[object]) -> None:
        self.room = ""
        self.inventory: set[str] = set()
        self.where: dict[str, tuple[str, str]] = {}  # object -> (relation, holder)
        self.open: set[str] = set()
        self.closed: set[str] = set()
        self.locked: set[str] = set()
        self.types: dict[str, str] = {}
        self.links: dict[str, set[str]] = {}
        for p in facts:
            args = [(v.name.lower(), v.type) for v in p.arguments]  # type: ignore[attr-defined]
            for name, typ in args:
                self.types[name] = typ
            name = p.name  # type: ignore[attr-defined]
            if name == "at" and args[0][1] == "P":
                self.room = args[1][0]
            elif name == "at":
                self.where[args[0][0]] = ("at", args[1][0])
            elif name == "in" and args[1][1] == "I":
                self.inventory.add(args[0][0])
            elif name == "in":
                self.where[args[0][0]] = ("in", args[1][0])
            elif name == "on":
                self.where[args[0][0]] = ("on", args[1][0])
            elif name == "open":
                self.open.add(args[0][0])
            elif name == "closed":
                self.closed.add(args[0][0])
            elif name == "locked":
                self.locked.add(args[0][0])
            elif name == "link":
                self.links.setdefault(args[0][0], set()).add(args[2][0])

    def in_room(self) -> list[str]:
        """Things in the current room, including what lies on/in them when reachable."""
        here = [o for o, (rel, holder) in self.where.items() if rel == "at" and holder == self.room]
        inside = [o for o, (rel, holder) in self.where.items() if rel in ("on", "in") and holder in here and (rel == "on" or holder in self.open)]
        return sorted(set(here + inside))


# ------------------------------------------------------------------------------------------------
# The player
# ------------------------------------------------------------------------------------------------

_WEIGHTS = {
    "go": 1.2, "open": 2.0, "close": 0.3, "unlock": 2.2, "lock": 0.1, "take": 1.6, "put": 0.5,
    "insert": 0.5, "drop": 0.35, "eat": 0.3, "examine": 0.9, "look": 0.2, "inventory": 0.2,
}  # fmt: skip


class Player:
    """Explores curiously, never eats quest objects and never plays the winning move early."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.visited: set[str] = set()
        self.tried: dict[tuple[str, str], int] = {}
        self.recent: list[str] = []

    def choose(self, commands: list[str], policy: list[str] | None, room: str) -> str:
        self.visited.add(room)
        protected = " ".join(policy or []).lower()
        final = policy[-1] if policy and len(policy) == 1 else None
        by_verb: dict[str, list[str]] = {}
        for c in commands:
            verb = c.split(" ", 1)[0]
            if verb not in _WEIGHTS or c == final:
                continue
            if verb == "eat" and c[4:].lower() in protected.lower():
                continue
            by_verb.setdefault(verb, []).append(c)
        if not by_verb:
            return "look"
        verbs = list(by_verb)
        weights = []
        for v in verbs:
            w = _WEIGHTS[v]
            fresh = [c for c in by_verb[v] if self.tried.get((room, c), 0) == 0]
            if v == "go" and fresh:
                w *= 2.5
            elif not fresh:
                w *= 0.3
            weights.append(w)
        verb = self.rng.choices(verbs, weights=weights)[0]
        options = by_verb[verb]
        fresh = [c for c in options if self.tried.get((room, c), 0) == 0 and c not in self.recent]
        command = self.rng.choice(fresh or options)
        self.tried[(room, command)] = self.tried.get((room, command), 0) + 1
        self.recent = (self.recent + [command])[-4:]
        return command


# ------------------------------------------------------------------------------------------------
# The adapter
# ------------------------------------------------------------------------------------------------


def _events(command: str, before: Facts, after: Facts, score_gain: int, won: bool) -> tuple[list[Event], list[Relation]]:
    events: list[Event] = []
    relations: list[Relation] = []
    verb = command.split(" ", 1)[0]
    command = command.lower()
    for o in sorted(after.inventory - before.inventory):
        events.append(Event("collect", o))
    for o in sorted(before.inventory - after.inventory):
        rel, holder = after.where.get(o, ("", ""))
        if rel == "on":
            events.append(Event("place", o))
            relations.append(Relation(o, "on", holder))
        elif rel == "in":
            events.append(Event("move", o))
            relations.append(Relation(o, "in", holder))
        elif rel == "at":
            events.append(Event("lose", o))
        elif verb == "eat":
            events.append(Event("eat", o))
        else:
            events.append(Event("lose", o))
    for x in sorted(after.open - before.open):
        events.append(Event("open", x))
    for x in sorted((after.closed - before.closed) - (after.locked - before.locked)):
        events.append(Event("close", x))
    if verb in ("unlock", "lock") and " with " in command:
        target, key = command[len(verb) + 1:].split(" with ", 1)
        changed = (before.locked - after.locked) if verb == "unlock" else (after.locked - before.locked)
        if changed:
            events.append(Event("use", key))
            relations.append(Relation(key, "unlocked" if verb == "unlock" else "locked", target))
    if verb == "examine":
        events.append(Event("observe", command[len("examine "):]))
    if after.room != before.room:
        events.append(Event("visit", after.room))
    if score_gain > 0:
        events.append(Event("achievement", "score point", score_gain))
    if won:
        events.append(Event("achievement", "quest complete"))
    return events, relations


def rollout(seed: int) -> tuple[list[Step], Facts]:
    """Play the game of ``seed``; returns the steps and the facts at the start (for the vocabulary)."""
    import textworld  # type: ignore[import-untyped]
    from textworld import EnvInfos  # type: ignore[import-untyped]

    infos = EnvInfos(admissible_commands=True, facts=True, policy_commands=True, score=True, won=True, lost=True)
    env = textworld.start(game_file(seed), request_infos=infos)
    try:
        gs = env.reset()
        rng = random.Random(seed * 13 + 5)
        player = Player(rng)
        length = rng.randint(310, 520)
        facts = Facts(gs.facts)
        start = facts
        steps: list[Step] = []
        explored = {facts.room}
        last_examined = "nothing"
        score = int(gs.score or 0)
        walkthrough: list[str] | None = None
        t = 0
        while t < 1400:
            policy = list(gs.policy_commands or [])
            if walkthrough is None and policy and t >= length - len(policy):
                walkthrough = policy
            if walkthrough:
                command = walkthrough.pop(0)
            else:
                command = player.choose(list(gs.admissible_commands or []), policy, facts.room)
            gs, new_score, done = env.step(command)
            after = Facts(gs.facts)
            won = bool(gs.won)
            events, relations = _events(command, facts, after, int(new_score) - score, won)
            score = int(new_score)
            explored.add(after.room)
            if command.startswith("examine "):
                last_examined = command[len("examine "):].lower()
            feedback = " ".join(str(gs.feedback).split())
            summary = "; ".join(f"{e.kind} {e.obj}".strip() for e in events) or command
            steps.append(Step(
                t=t,
                action=command,
                summary=summary,
                objects=tuple(after.in_room()),
                events=tuple(events),
                relations=tuple(relations),
                inventory=tuple((o, 1) for o in sorted(after.inventory)),
                state=(
                    ("items_carried", len(after.inventory)),
                    ("last_examined", last_examined),
                    ("rooms_explored", len(explored)),
                    ("score", score),
                    ("won", won),
                ),
                location=Location(region=after.room),
                observation=feedback[:400],
            ))
            facts = after
            t += 1
            if done:
                break
            if walkthrough is not None and not walkthrough and t >= length + 40:
                break
        return steps, start
    finally:
        env.close()


# ------------------------------------------------------------------------------------------------
# How a user talks about it
# ------------------------------------------------------------------------------------------------


def vocab(steps: list[Step], start: Facts, name: str) -> Vocab:
    ev: dict[Match, list] = {}
    seen = {(e.kind, e.obj) for s in steps for e in s.events}
    portable = {n for n, typ in start.types.items() if typ in ("o", "f", "k")}
    food = {n for n, typ in start.types.items() if typ == "f"}
    openable = {n for n, typ in start.types.items() if typ in ("c", "d")}
    rooms = {n for n, typ in start.types.items() if typ == "r"}
    keys = {n for n, typ in start.types.items() if typ == "k"}

    def the(x: str) -> str:
        return f"the {x}"

    for x in sorted(portable | {o for k, o in seen if k == "collect"}):
        ev[Match("collect", x)] = [vp(f"take {the(x)}"), vp(f"pick up {the(x)}"), vp(f"grab {the(x)}"), vp(f"get {the(x)}"), vp(f"collect {the(x)}")]
    for x in sorted({o for k, o in seen if k == "place"}):
        ev[Match("place", x)] = [vp(f"put {the(x)} on a surface"), vp(f"set {the(x)} down on something"), vp(f"place {the(x)} on top of something")]
    for x in sorted({o for k, o in seen if k == "move"}):
        ev[Match("move", x)] = [vp(f"put {the(x)} into a container"), vp(f"insert {the(x)} into something"), vp(f"stow {the(x)} inside a container")]
    for x in sorted({o for k, o in seen if k == "lose"}):
        ev[Match("lose", x)] = [vp(f"drop {the(x)}"), vp(f"drop {the(x)} on the floor"), vp(f"discard {the(x)}")]
    for x in sorted(food | {o for k, o in seen if k == "eat"}):
        ev[Match("eat", x)] = [vp(f"eat {the(x)}"), vp(f"devour {the(x)}"), vp(f"snack on {the(x)}")]
    for x in sorted(openable):
        ev[Match("open", x)] = [vp(f"open {the(x)}"), vp(f"get {the(x)} open"), vp(f"swing open {the(x)}")]
        if ("close", x) in seen:
            ev[Match("close", x)] = [vp(f"close {the(x)}"), vp(f"shut {the(x)}")]
        ev[Match("observe", x)] = [vp(f"examine {the(x)}"), vp(f"look at {the(x)}"), vp(f"inspect {the(x)}")]
    for x in sorted(keys):
        ev[Match("use", x)] = [vp(f"use {the(x)}"), vp(f"use {the(x)} on a lock"), vp(f"turn {the(x)} in a lock")]
    for x in sorted({o for k, o in seen if k == "observe"}):
        ev[Match("observe", x)] = [vp(f"examine {the(x)}"), vp(f"look at {the(x)}"), vp(f"inspect {the(x)}"), vp(f"check out {the(x)}")]
    for r in sorted(rooms):
        ev[Match("visit", r)] = [vp(f"enter the {r}", f"arrival in the {r}"), vp(f"go into the {r}"), vp(f"arrive in the {r}"), vp(f"walk into the {r}"), vp(f"reach the {r}")]
    ev[Match("collect")] = [vp("pick something up"), vp("take an item"), vp("grab something")]
    ev[Match("eat")] = [vp("eat something"), vp("eat anything"), vp("have something to eat")]
    ev[Match("open")] = [vp("open something"), vp("open a door or container")]
    ev[Match("visit")] = [vp("move to another room"), vp("change rooms"), vp("walk into a room")]
    ev[Match("observe")] = [vp("examine something"), vp("inspect an object")]
    ev[Match("use")] = [vp("use a key"), vp("turn a key in a lock")]
    ev[Match("lose")] = [vp("drop something"), vp("drop an item")]
    ev[Match("achievement", "score point")] = [vp("score a point"), vp("earn a point"), vp("gain a point")]
    ev[Match("achievement", "quest complete")] = [vp("complete the quest"), vp("win the game"), vp("finish the quest")]
    # Objects are unique in TextWorld, so "how many" of one is 0 or 1: asked as a count of copies.
    items = {x: ItemWords((the(x),), (f"how many copies of {the(x)}",), unique=True) for x in portable}
    states = {
        "score": StateWords(("{P} score", "the game score", "{P} points total")),
        "rooms_explored": StateWords(("the number of rooms {S} had explored", "{P} count of explored rooms", "the number of rooms {S} had discovered")),
        "items_carried": StateWords(("the number of items {S} carried", "{P} item count", "the number of things {S} had on {O}")),
        "won": StateWords(("the won flag (true/false)", "{P} victory flag (true or false)")),
        "last_examined": StateWords(("the last thing {S} had examined", "the most recently examined object")),
    }
    conds = [
        StateCond("won", True, "first", ("When did {S} win the game?", "At which step was the game won?"), ("when {S} won the game",)),
    ]
    lists = {
        "collect": ["what did {S} pick up", "which items did {S} take", "what did {S} grab"],
        "eat": ["what did {S} eat"],
        "visit": ["which rooms did {S} enter", "which rooms did {S} go into", "what rooms did {S} walk into"],
        "open": ["what did {S} open", "which doors and containers did {S} open"],
        "observe": ["what did {S} examine", "which things did {S} inspect"],
        "lose": ["what did {S} drop"],
        "place": ["what did {S} put on surfaces"],
        "move": ["what did {S} put into containers"],
    }
    return Vocab(
        name=name,
        region_nouns=("room", "place", "location"),
        events=ev,
        lists=lists,
        items=items,
        states=states,
        state_conds=conds,
        slots=("action", "location", "inventory", "item", "state", "events"),
    )


def build(seed: int) -> dict:
    """One TextWorld episode for ``seed`` and its questions (see the module docstring)."""
    steps, start = rollout(seed)
    episode_id = f"{SUITE}-{seed}"
    name = _NAMES[seed % len(_NAMES)]
    writer = Writer(episode_id, steps, vocab(steps, start, name), seed)
    return {"episodes": {episode_id: steps}, "questions": writer.write(PER_FAMILY)}


if __name__ == "__main__":
    self_check(build, (9100, 9101))
