"""TextWorld adventures played back to back, with questions about the whole run.

What it simulates
    Real TextWorld games (the ``textworld`` package), generated offline from the seed with the built-in
    challenge generators and compiled into a temporary directory: a cooking game (fetch ingredients,
    open containers and doors, fry/roast/grill and slice/dice/chop them, prepare and eat the meal), a
    treasure hunt (find and pick up one named object, picking up the wrong one loses), and a coin hunt
    (walk a long route to a coin). Several games are played one after another; the step counter runs on
    across games, so one episode holds 300-900 steps.

How the agent behaves
    A scripted, seeded agent chooses among the game's admissible commands with weights per verb (it
    prefers exits it has used least, taking, opening, cooking and cutting; it rarely looks around or
    eats). Now and then it follows the game's own walkthrough for a move, repeats its last command, or
    types a command that the game refuses (a wall, an absent object). A game ends when it is won, lost or
    its step budget runs out; the next game then starts.

Adapter
    Each command and its feedback become one ``Step``: ``action`` is the command as typed; events are
    this adapter's own words ("walk" north, "enter" a room, "pick up", "put down", "stow", "open",
    "close", "unlock", "lock", "eat", "fry"/"roast"/"grill", "slice"/"dice"/"chop", "prepare" meal,
    "inspect", "look around", "check inventory", "gain points", "win game", "lose game", "begin game",
    "fail"); the inventory counts what the player carries (from the game's facts); the state holds the
    current game's ``score`` and ``moves``, the ``quest`` text, ``won``, the game number ``game`` and
    ``carrying`` (items carried); the region is the room; objects are the things visible in the room.

How answers are computed
    A reference evaluator scans the Step records only (events, inventories, states, regions) with the
    conventions of the suite specification (windows, ordinals, "ran out", gold ids).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from collections import Counter
from typing import Any, Callable, Optional

from graphmem.records import Event, Location, Step, validate_steps

SUITE = "heldout3_textworld"
SEEDS = range(7700, 7800)

# --------------------------------------------------------------------------------------------------
# Playing the games
# --------------------------------------------------------------------------------------------------

_APPLIANCE_VERB = {"stove": "fry", "oven": "roast", "bbq": "grill"}
_DIRECTIONS = ("north", "south", "east", "west")


def _clean_feedback(text: str) -> str:
    """The feedback without the status line and prompt the interpreter appends."""
    text = text.replace("\r", "")
    cut = text.find("\n>")
    if cut < 0:
        cut = text.find(">  ")
    if cut >= 0:
        text = text[:cut]
    text = re.sub(r"\s+", " ", text).strip()
    return text[:380]


class _World:
    """What the facts of one game state say: room, inventory, visible things, flags."""

    def __init__(self, facts: Any) -> None:
        self.room = ""
        self.inventory: Counter[str] = Counter()
        at: dict[str, list[str]] = {}
        on: dict[str, list[str]] = {}
        inside: dict[str, list[str]] = {}
        self.open: set[str] = set()
        doors: dict[str, list[str]] = {}
        for fact in facts:
            args = [a.name for a in fact.arguments]
            types = [a.type for a in fact.arguments]
            if fact.name == "at" and len(args) == 2:
                if types[0] == "P":
                    self.room = args[1]
                else:
                    at.setdefault(args[1], []).append(args[0])
            elif fact.name == "in" and len(args) == 2:
                if types[1] == "I":
                    self.inventory[args[0]] += 1
                else:
                    inside.setdefault(args[1], []).append(args[0])
            elif fact.name == "on" and len(args) == 2:
                on.setdefault(args[1], []).append(args[0])
            elif fact.name == "open" and args:
                self.open.add(args[0])
            elif fact.name == "link" and len(args) == 3:
                doors.setdefault(args[0], []).append(args[1])
        seen: list[str] = []
        todo = list(at.get(self.room, [])) + list(doors.get(self.room, []))
        while todo:
            thing = todo.pop(0)
            if thing in seen:
                continue
            seen.append(thing)
            todo.extend(on.get(thing, []))
            if thing in self.open:
                todo.extend(inside.get(thing, []))
        self.visible = tuple(sorted(set(seen)))


def _target(command: str) -> str:
    """The object a command is about: ``take carrot from fridge`` -> ``carrot``."""
    words = command.split(" ", 1)
    rest = words[1] if len(words) > 1 else ""
    for sep in (" from ", " with ", " into ", " on "):
        if sep in rest:
            rest = rest.split(sep, 1)[0]
    return rest.strip()


class _Agent:
    """A seeded weighted chooser over admissible commands."""

    WEIGHTS = {
        "go": 3.0, "take": 4.0, "open": 3.0, "close": 0.5, "unlock": 3.0, "lock": 0.15, "drop": 0.9,
        "put": 0.6, "insert": 0.6, "eat": 0.15, "drink": 0.4, "cook": 2.0, "slice": 1.6, "dice": 1.2,
        "chop": 1.2, "prepare": 4.0, "examine": 0.9, "look": 0.25, "inventory": 0.25,
    }

    def __init__(self, rng: random.Random, walkthrough: list[str], cautious: bool = False) -> None:
        self.rng = rng
        self.cautious = cautious
        self.done: set[str] = set()
        self.walkthrough = list(walkthrough)
        self.ptr = 0
        self.exit_uses: Counter[tuple[str, str]] = Counter()
        self.last = "look"
        self.names_seen: list[str] = []

    def choose(self, admissible: list[str], room: str, carrying: int) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.035:
            return self.last
        if roll < 0.075:
            return self._bad_command(admissible)
        if self.ptr < len(self.walkthrough) and self.walkthrough[self.ptr] in admissible and rng.random() < 0.3:
            return self.walkthrough[self.ptr]
        weights = []
        for cmd in admissible:
            verb = cmd.split(" ", 1)[0]
            w = self.WEIGHTS.get(verb, 0.3)
            if verb in ("cook", "slice", "dice", "chop"):
                # The agent has read the recipe: it prepares ingredients the recipe's way, once each,
                # and only very rarely gets it wrong.
                w = w if cmd in self.walkthrough and cmd not in self.done else 0.01
            elif verb == "take" and self.cautious:
                w = 1.0
            elif verb == "go":
                w = 5.0 / (1 + self.exit_uses[(room, cmd)])
            elif verb == "drop" and carrying >= 3:
                w *= 2.5
            elif verb == "eat" and _target(cmd) == "meal":
                w = 3.0
            weights.append(w)
        return rng.choices(admissible, weights=weights, k=1)[0]

    def _bad_command(self, admissible: list[str]) -> str:
        rng = self.rng
        blocked = [d for d in _DIRECTIONS if f"go {d}" not in admissible]
        absent = [n for n in self.names_seen if f"examine {n}" not in admissible]
        if absent and rng.random() < 0.5:
            return f"take {rng.choice(absent)}"
        if blocked:
            return f"go {rng.choice(blocked)}"
        return "take sword"

    def played(self, command: str, admissible: list[str], room: str) -> None:
        if command.startswith("go "):
            self.exit_uses[(room, command)] += 1
        if self.ptr < len(self.walkthrough) and command == self.walkthrough[self.ptr]:
            self.ptr += 1
        self.last = command
        self.done.add(command)
        for cmd in admissible:
            if cmd.startswith("examine "):
                name = cmd[len("examine "):]
                if name not in self.names_seen:
                    self.names_seen.append(name)


def _make_game(kind: str, game_seed: int, rng: random.Random, path: str) -> Any:
    import textworld

    options = textworld.GameOptions()
    options.seeds = game_seed
    options.path = path
    options.force_recompile = True
    if kind == "cooking":
        from textworld.challenges.tw_cooking import cooking

        settings = {
            "recipe": rng.choice([2, 3]), "take": 2, "go": rng.choice([6, 9]), "open": True, "cook": True,
            "cut": True, "drop": False, "recipe_seed": game_seed % 997, "split": "train",
        }
        settings["take"] = rng.randint(1, settings["recipe"])
        return cooking.make(settings, options)
    if kind == "treasure hunt":
        from textworld.challenges.tw_treasure_hunter import treasure_hunter

        return treasure_hunter.make({"level": rng.randint(11, 20)}, options)
    from textworld.challenges.tw_coin_collector import coin_collector

    return coin_collector.make({"level": rng.randint(8, 25)}, options)


def _quest_text(kind: str, walkthrough: list[str]) -> str:
    if kind == "cooking":
        return "cook and eat the recipe meal"
    last = walkthrough[-1] if walkthrough else ""
    if last.startswith("take "):
        return f"retrieve the {_target(last)}"
    return "retrieve the coin" if kind == "coin hunt" else "retrieve the treasure"


def _events_for(command: str, ok: bool, before: _World, after: _World, score_gain: int) -> list[Event]:
    if not ok:
        return [Event("fail")]
    verb = command.split(" ", 1)[0]
    obj = _target(command)
    events: list[Event] = []
    if verb == "go":
        events.append(Event("walk", obj))
        if after.room != before.room:
            events.append(Event("enter", after.room))
    elif verb == "take":
        events.append(Event("pick up", obj))
    elif verb == "drop":
        events.append(Event("put down", obj))
    elif verb in ("put", "insert"):
        events.append(Event("stow", obj))
    elif verb in ("open", "close", "unlock", "lock", "eat", "drink", "slice", "dice", "chop"):
        events.append(Event(verb, obj))
    elif verb == "cook":
        appliance = command.rsplit(" with ", 1)[-1].strip().lower()
        events.append(Event(_APPLIANCE_VERB.get(appliance, "heat"), obj))
    elif verb == "prepare":
        events.append(Event("prepare", "meal"))
    elif verb == "examine":
        events.append(Event("inspect", obj))
    elif verb == "look":
        events.append(Event("look around"))
    elif verb == "inventory":
        events.append(Event("check inventory"))
    else:
        events.append(Event(verb, obj))
    if score_gain > 0:
        events.append(Event("gain points", "", score_gain))
    return events


def play(seed: int) -> list[Step]:
    """Generate and play the seed's games; one Step per command, steps counted across games."""
    import textworld
    from textworld import EnvInfos

    rng = random.Random(seed * 7919 + 13)
    target = rng.randint(380, 860)
    order = ["cooking", "treasure hunt", "cooking", "coin hunt", "cooking"]
    budgets = {"cooking": 330, "treasure hunt": 200, "coin hunt": 900}
    infos = EnvInfos(admissible_commands=True, facts=True, feedback=True, score=True, moves=True,
                     won=True, lost=True, max_score=True)
    steps: list[Step] = []
    workdir = tempfile.mkdtemp(prefix="tw_suite_")
    try:
        for number, kind in enumerate(order, start=1):
            if len(steps) >= target or (number > 3 and len(steps) >= 300):
                break
            budget = min(budgets[kind], target - len(steps))
            game = _make_game(kind, seed * 100 + number, rng, os.path.join(workdir, f"game{number}.z8"))
            walkthrough = list(game.walkthrough or [])
            quest = _quest_text(kind, walkthrough)
            gamefile = textworld.generator.compile_game(game, game_options_for(game, workdir, number))
            env = textworld.start(gamefile, infos)
            try:
                state = env.reset()
                agent = _Agent(random.Random(rng.randint(0, 2**31)), walkthrough, kind == "treasure hunt")
                world = _World(state["facts"])
                score = int(state["score"] or 0)
                won = False
                for i in range(budget):
                    admissible = sorted(set(state["admissible_commands"] or []))
                    command = agent.choose(admissible, world.room, sum(world.inventory.values()))
                    ok = command in admissible
                    state, _, done = env.step(command)
                    new_world = _World(state["facts"])
                    new_score = int(state["score"] or 0)
                    events = _events_for(command, ok, world, new_world, new_score - score)
                    if i == 0:
                        events.insert(0, Event("begin game", kind))
                    if state["won"] and not won:
                        events.append(Event("win game"))
                    if state["lost"]:
                        events.append(Event("lose game"))
                    won = won or bool(state["won"])
                    agent.played(command, admissible, world.room)
                    feedback = _clean_feedback(state.feedback or "")
                    first = re.split(r"(?<=[.!?])\s", feedback, maxsplit=1)[0] if feedback else ""
                    steps.append(Step(
                        t=len(steps),
                        action=command,
                        summary=f"{command}: {first}"[:200],
                        objects=new_world.visible,
                        events=tuple(events),
                        inventory=dict(new_world.inventory),
                        state={"score": new_score, "moves": int(state["moves"] or 0), "quest": quest,
                               "won": won, "game": number, "carrying": sum(new_world.inventory.values())},
                        location=Location(region=new_world.room),
                        observation=feedback,
                    ))
                    world, score = new_world, new_score
                    if done or len(steps) >= target:
                        break
            finally:
                env.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return steps


def game_options_for(game: Any, workdir: str, number: int) -> Any:
    import textworld

    options = textworld.GameOptions()
    options.path = os.path.join(workdir, f"game{number}.z8")
    options.force_recompile = True
    return options


# --------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the Step records
# --------------------------------------------------------------------------------------------------

Key = tuple[str, Optional[str]]  # (kind, obj); obj None = any object


def _ev_text(kind: str, obj: str) -> str:
    return f"{kind} {obj}" if obj else kind


def _matches(ev: Event, key: Key) -> bool:
    return ev.kind == key[0] and (key[1] is None or ev.obj == key[1])


def occurrences(steps: list[Step], key: Key, lo: int = 0, hi: Optional[int] = None) -> list[int]:
    """Steps (in [lo, hi]) holding an event matching ``key``; one entry per matching event."""
    out = []
    for st in steps:
        if st.t < lo or (hi is not None and st.t > hi):
            continue
        for ev in st.events:
            if _matches(ev, key):
                out.append(st.t)
    return out


def slot_value(step: Step, slot: str, name: str = "") -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "item":
        return str(step.inventory_dict.get(name, 0))
    if slot == "inventory":
        items = [f"{n} {c}" for n, c in sorted(step.inventory) if c > 0]
        return ", ".join(items) if items else "none"
    if slot == "state":
        v = step.state_dict[name]
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return format(v, "g")
        return str(v)
    if slot == "events":
        return "; ".join(_ev_text(e.kind, e.obj) for e in step.events) or "none"
    raise ValueError(slot)


# --------------------------------------------------------------------------------------------------
# Wording
# --------------------------------------------------------------------------------------------------

# Subjects: (full mention, later pronoun, past of "be", "have"/"has", possessive)
SUBJECTS = [
    ("I", "I", "was", "have", "my"),
    ("we", "we", "were", "have", "our"),
    ("you", "you", "were", "have", "your"),
    ("the agent", "it", "was", "has", "its"),
    ("the player", "they", "were", "have", "their"),
    ("the adventurer", "they", "were", "have", "their"),
]

# For each event kind: phrasings (past, participle, gerund); {o} is the object.
LEX: dict[str, list[tuple[str, str, str]]] = {
    "pick up": [("picked up the {o}", "picked up the {o}", "picking up the {o}"),
                ("took the {o}", "taken the {o}", "taking the {o}"),
                ("grabbed the {o}", "grabbed the {o}", "grabbing the {o}")],
    "put down": [("dropped the {o}", "dropped the {o}", "dropping the {o}"),
                 ("put down the {o}", "put down the {o}", "putting down the {o}"),
                 ("set the {o} down on the floor", "set the {o} down on the floor", "setting the {o} down on the floor")],
    "stow": [("stowed the {o} in or on something", "stowed the {o} in or on something", "stowing the {o} in or on something"),
             ("put the {o} into or onto a piece of furniture", "put the {o} into or onto a piece of furniture",
              "putting the {o} into or onto a piece of furniture")],
    "open": [("opened the {o}", "opened the {o}", "opening the {o}"),
             ("pulled the {o} open", "pulled the {o} open", "pulling the {o} open")],
    "close": [("closed the {o}", "closed the {o}", "closing the {o}"),
              ("shut the {o}", "shut the {o}", "shutting the {o}")],
    "unlock": [("unlocked the {o}", "unlocked the {o}", "unlocking the {o}")],
    "lock": [("locked the {o}", "locked the {o}", "locking the {o}")],
    "eat": [("ate the {o}", "eaten the {o}", "eating the {o}"),
            ("consumed the {o}", "consumed the {o}", "consuming the {o}")],
    "drink": [("drank the {o}", "drunk the {o}", "drinking the {o}")],
    "fry": [("fried the {o}", "fried the {o}", "frying the {o}"),
            ("cooked the {o} on the stove", "cooked the {o} on the stove", "cooking the {o} on the stove")],
    "roast": [("roasted the {o}", "roasted the {o}", "roasting the {o}"),
              ("cooked the {o} in the oven", "cooked the {o} in the oven", "cooking the {o} in the oven")],
    "grill": [("grilled the {o}", "grilled the {o}", "grilling the {o}"),
              ("cooked the {o} on the BBQ", "cooked the {o} on the BBQ", "cooking the {o} on the BBQ")],
    "slice": [("sliced the {o}", "sliced the {o}", "slicing the {o}"),
              ("cut the {o} into slices", "cut the {o} into slices", "cutting the {o} into slices")],
    "dice": [("diced the {o}", "diced the {o}", "dicing the {o}"),
             ("cut the {o} into cubes", "cut the {o} into cubes", "cutting the {o} into cubes")],
    "chop": [("chopped the {o}", "chopped the {o}", "chopping the {o}"),
             ("chopped up the {o}", "chopped up the {o}", "chopping up the {o}")],
    "prepare": [("prepared the meal", "prepared the meal", "preparing the meal"),
                ("put the meal together", "put the meal together", "putting the meal together")],
    "inspect": [("examined the {o}", "examined the {o}", "examining the {o}"),
                ("inspected the {o}", "inspected the {o}", "inspecting the {o}"),
                ("looked closely at the {o}", "looked closely at the {o}", "looking closely at the {o}")],
    "look around": [("looked around the room", "looked around the room", "looking around the room"),
                    ("surveyed the surroundings", "surveyed the surroundings", "surveying the surroundings")],
    "check inventory": [("checked the inventory", "checked the inventory", "checking the inventory"),
                        ("took stock of what was being carried", "taken stock of what was being carried",
                         "taking stock of what was being carried")],
    "walk": [("went {o}", "gone {o}", "going {o}"), ("headed {o}", "headed {o}", "heading {o}"),
             ("moved {o}", "moved {o}", "moving {o}")],
    "enter": [("entered the {o}", "entered the {o}", "entering the {o}"),
              ("walked into the {o}", "walked into the {o}", "walking into the {o}"),
              ("arrived in the {o}", "arrived in the {o}", "arriving in the {o}")],
    "gain points": [("earned points", "earned points", "earning points"),
                    ("increased the score", "increased the score", "increasing the score")],
    "win game": [("won a game", "won a game", "winning a game"), ("beat a game", "beaten a game", "beating a game")],
    "lose game": [("lost a game", "lost a game", "losing a game"),
                  ("failed a game for good", "failed a game for good", "failing a game for good")],
    "begin game": [("started a {o} game", "started a {o} game", "starting a {o} game"),
                   ("began a new {o} game", "begun a new {o} game", "beginning a new {o} game")],
    "fail": [("typed a command that failed", "typed a command that failed", "typing a command that failed"),
             ("issued a command the game refused", "issued a command the game refused",
              "issuing a command the game refused")],
}

# Phrasings for "any object" of a kind.
LEX_ANY: dict[str, list[tuple[str, str, str]]] = {
    "pick up": [("picked something up", "picked something up", "picking something up"),
                ("took an item", "taken an item", "taking an item")],
    "put down": [("dropped something", "dropped something", "dropping something"),
                 ("put an item down", "put an item down", "putting an item down")],
    "open": [("opened something", "opened something", "opening something"),
             ("opened a door or container", "opened a door or container", "opening a door or container")],
    "inspect": [("examined something", "examined something", "examining something"),
                ("inspected anything", "inspected anything", "inspecting anything")],
    "enter": [("entered a room", "entered a room", "entering a room"),
              ("walked into a room", "walked into a room", "walking into a room")],
    "walk": [("moved in some direction", "moved in some direction", "moving in some direction"),
             ("went through an exit", "gone through an exit", "going through an exit")],
    "stow": [("stowed an item", "stowed an item", "stowing an item"),
             ("put something into or onto furniture", "put something into or onto furniture",
              "putting something into or onto furniture")],
    "close": [("closed something", "closed something", "closing something")],
}

# Nouns for events (for order/distance questions): "{noun}"
NOUN: dict[str, list[str]] = {
    "pick up": ["the pickup of the {o}", "taking the {o}"],
    "put down": ["dropping the {o}", "the drop of the {o}"],
    "open": ["opening the {o}"],
    "close": ["closing the {o}"],
    "inspect": ["the examination of the {o}", "examining the {o}"],
    "enter": ["the arrival in the {o}", "entering the {o}"],
    "walk": ["the move {o}", "heading {o}"],
    "eat": ["eating the {o}"],
    "fry": ["frying the {o}"], "roast": ["roasting the {o}"], "grill": ["grilling the {o}"],
    "slice": ["slicing the {o}"], "dice": ["dicing the {o}"], "chop": ["chopping the {o}"],
    "prepare": ["preparing the meal"], "stow": ["stowing the {o}"],
    "win game": ["the first victory", "winning a game"], "lose game": ["the first defeat", "losing a game"],
    "gain points": ["the first points earned"], "fail": ["the first failed command"],
    "check inventory": ["checking the inventory"], "look around": ["looking around the room"],
    "begin game": ["the start of a {o} game"],
}

ORD_WORDS = {1: ["first", "1st"], 2: ["second", "2nd"], 3: ["third", "3rd"], 4: ["fourth", "4th"],
             5: ["fifth", "5th"], 6: ["sixth", "6th"]}

STATE_WORDS = {
    "score": ["the score", "the current game's score", "the point total"],
    "moves": ["the move counter", "the game's move count"],
    "quest": ["the current quest", "the objective of the current game"],
    "won": ["the flag saying whether the current game was won", "the 'won' state"],
    "game": ["the game number", "which game (by number) was being played"],
    "carrying": ["the number of items carried", "the count of things being carried"],
}


class Wording:
    """Seeded choices of phrasing."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: list[Any]) -> Any:
        return self.rng.choice(options)

    def subject(self) -> tuple[str, str, str, str, str]:
        return self.pick(SUBJECTS)

    def verb(self, key: Key, form: int) -> str:
        kind, obj = key
        table = LEX_ANY[kind] if obj is None else LEX[kind]
        return self.pick(table)[form].format(o=obj or "")

    def noun(self, key: Key) -> str:
        kind, obj = key
        return self.pick(NOUN[kind]).format(o=obj or "")

    def ordinal(self, n: int) -> str:
        return self.pick(ORD_WORDS[n])

    def occurrence(self, key: Key, n: int, total: int, who: str) -> str:
        """'the third time I picked up the knife' (n: 1-based, or -1 / -2 for last / second-to-last)."""
        past = self.verb(key, 0)
        if n == 1:
            return self.pick([f"the first time {who} {past}", f"when {who} first {past}", f"the 1st time {who} {past}"])
        if n == 2 and self.rng.random() < 0.35:
            return f"when {who} {past} again"
        if n == -1:
            return self.pick([f"the last time {who} {past}", f"the final time {who} {past}", f"when {who} last {past}"])
        if n == -2:
            return self.pick([f"the second-to-last time {who} {past}", f"the next-to-last time {who} {past}",
                              f"the penultimate time {who} {past}"])
        o = self.ordinal(n)
        return self.pick([f"the {o} time {who} {past}", f"when {who} {past} for the {o} time"])


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def slot_question(w: Wording, slot: str, name: str, subj: tuple[str, str, str, str, str], when: Callable[[str], str]) -> str:
    """A question asking ``slot`` at the moment described by ``when(mention)``."""
    full, pron, be, have, poss = subj
    first = w.rng.random() < 0.35  # clause order: the time clause first
    if slot == "location":
        body = w.pick([("Where {be} {s}", "where {be} {s}"), ("Which room {be} {s} in", "which room {be} {s} in"),
                       ("In what room {be} {s}", "in what room {be} {s}")])
    elif slot == "step":
        body = w.pick([("At which step", "at which step did that happen"), ("What step number was it", "what step number was it"),
                       ("Give the step index", "give the step index")])
    elif slot == "action":
        body = w.pick([("What command did {s} enter", "what command did {s} enter"),
                       ("What exactly did {s} type", "what exactly did {s} type"),
                       ("Which action was taken", "which action was taken")])
    elif slot == "inventory":
        body = w.pick([("What {be} {s} carrying", "what {be} {s} carrying"), ("What was in {p} inventory", "what was in {p} inventory"),
                       ("List everything {s} held", "list everything {s} held")])
    elif slot == "item":
        body = w.pick([(f"How many of the item '{name}' {{be}} {{s}} holding", f"how many of the item '{name}' {{be}} {{s}} holding"),
                       (f"What was {{p}} inventory count of {name}", f"what was {{p}} inventory count of {name}"),
                       (f"How many of the {name} did {{s}} have", f"how many of the {name} did {{s}} have")])
    elif slot == "state":
        sw = w.pick(STATE_WORDS[name])
        body = w.pick([(f"What was {sw}", f"what was {sw}"), (f"Tell me {sw}", f"tell me {sw}")])
    elif slot == "events":
        body = w.pick([("What happened", "what happened"), ("Which events were recorded", "which events were recorded"),
                       ("What events took place", "what events took place")])
    else:
        raise ValueError(slot)
    be_full = be if full in ("I", "we", "you") else "was"
    if first:
        clause = when(full)
        tail = body[1].format(be=be, s=pron, p=poss if pron == full else _poss_of(pron))
        if slot == "step":
            tail = w.pick(["at which step was that", "what step number was it", "give the step index"])
        return f"{_cap(clause)}, {tail}?"
    head = body[0].format(be=be_full, s=full, p=poss)
    if slot == "step":
        return w.pick([f"Give the step index for {when(full)}.", f"What step number was it {when(full)}?",
                       f"Tell me the step: {when(full)}."])
    return f"{head} {when(pron if ('{s}' in body[0] or '{p}' in body[0]) else full)}?"


def _poss_of(pron: str) -> str:
    return {"I": "my", "we": "our", "you": "your", "it": "its", "they": "their"}.get(pron, "their")

# --------------------------------------------------------------------------------------------------
# Question families
# --------------------------------------------------------------------------------------------------

STATE_NAMES = ["score", "moves", "quest", "won", "game", "carrying"]
ASKABLE_SLOTS = ["action", "location", "inventory", "state", "events", "item", "step"]


class Builder:
    def __init__(self, episode: str, steps: list[Step], seed: int) -> None:
        self.ep = episode
        self.steps = steps
        self.n = len(steps)
        self.rng = random.Random(seed * 31 + 5)
        self.w = Wording(random.Random(seed * 17 + 3))
        self.questions: list[dict[str, Any]] = []
        self.seen_q: set[str] = set()
        keys: dict[Key, list[int]] = {}
        for st in steps:
            for ev in st.events:
                keys.setdefault((ev.kind, ev.obj), []).append(st.t)
        self.keys = keys
        # Keys with a wording, in a fixed order.
        self.key_list: list[Key] = sorted(k for k in keys if k[0] in LEX and k[0] != "begin game")
        self.any_list: list[Key] = sorted((k, None) for k in {kk[0] for kk in keys} if k in LEX_ANY)
        self.items: list[str] = sorted({n for st in steps for n, _ in st.inventory})

    def gid(self, *ts: int) -> list[str]:
        out: list[str] = []
        for t in ts:
            g = f"{self.ep}:{t}"
            if g not in out:
                out.append(g)
        return out

    def add(self, family: str, slot: str, question: str, answer: str, gold: list[str]) -> bool:
        if question in self.seen_q:
            return False
        self.seen_q.add(question)
        self.questions.append({"episode": self.ep, "family": family, "slot": slot, "question": question,
                               "answer": answer, "gold": gold})
        return True

    def slot_for(self, allow_step: bool = True) -> tuple[str, str]:
        slots = ASKABLE_SLOTS if allow_step else [s for s in ASKABLE_SLOTS if s != "step"]
        slot = self.rng.choice(slots)
        name = ""
        if slot == "state":
            name = self.rng.choice(STATE_NAMES)
        if slot == "item":
            if not self.items:
                return "location", ""
            name = self.rng.choice(self.items)
        return slot, name

    def pick_key(self, min_count: int = 1, pool: Optional[list[Key]] = None) -> Optional[Key]:
        pool = pool if pool is not None else self.key_list
        cands = [k for k in pool if len(occurrences(self.steps, k)) >= min_count]
        if not cands:
            return None
        # Favour less frequent keys so "walk"/"enter" do not dominate.
        weights = [1.0 / (1 + len(occurrences(self.steps, k)) ** 0.5) for k in cands]
        return self.rng.choices(cands, weights=weights, k=1)[0]

    @staticmethod
    def nth(ts: list[int], n: int) -> int:
        return ts[n - 1] if n > 0 else ts[n]

    def choose_n(self, count: int) -> int:
        options = [1] + ([2] if count >= 2 else []) + ([3] if count >= 3 else []) + [-1] + ([-2] if count >= 2 else [])
        return self.rng.choice(options)

    # ---------------------------------------------------------------- families
    def fam1(self) -> None:
        plan = ["action", "location", "inventory", "state", "events", "item"]
        self.rng.shuffle(plan)
        for slot in plan:
            for _ in range(20):
                t = self.rng.randrange(self.n)
                name = ""
                if slot == "state":
                    name = self.rng.choice(STATE_NAMES)
                if slot == "item":
                    if not self.items:
                        slot = "location"
                    else:
                        name = self.rng.choice(self.items)
                subj = self.w.subject()
                at = self.w.pick([f"at step {t}", f"on step {t}", f"as of step {t}", f"right after step {t}'s action"])
                q = slot_question(self.w, slot, name, subj, lambda m, at=at: at)
                if slot == "step":
                    continue
                if self.add("1_step_index", slot, q, slot_value(self.steps[t], slot, name), self.gid(t)):
                    break

    def fam2(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 200:
            tries += 1
            key = self.pick_key()
            if key is None:
                break
            ts = occurrences(self.steps, key)
            n = self.choose_n(len(ts))
            t = self.nth(ts, n)
            slot, name = self.slot_for()
            subj = self.w.subject()
            q = slot_question(self.w, slot, name, subj, lambda m: self.w.occurrence(key, n, len(ts), m))
            if self.add("2_nth_occurrence", slot, q, slot_value(self.steps[t], slot, name), self.gid(t)):
                made += 1

    def fam3(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 300:
            tries += 1
            any_obj = self.any_list and self.rng.random() < 0.5
            key = self.pick_key(pool=self.any_list) if any_obj else self.pick_key()
            if key is None:
                continue
            ts = occurrences(self.steps, key)
            mode = self.rng.choice(["after step", "before step", "after anchor", "between"])
            subj = self.w.subject()
            slot, name = self.slot_for()
            anchors: list[int] = []
            if mode == "after step":
                b = self.rng.randrange(10, self.n - 10)
                later = [t for t in ts if t > b]
                if not later:
                    continue
                t = later[0]
                when = lambda m, b=b: self.w.pick([f"the first time {m} {self.w.verb(key, 0)} after step {b}",
                                                     f"when {m} next {self.w.verb(key, 0)} after step {b}"])
            elif mode == "before step":
                b = self.rng.randrange(10, self.n)
                earlier = [t for t in ts if t < b]
                if not earlier:
                    continue
                t = earlier[-1]
                when = lambda m, b=b: self.w.pick([f"the last time {m} {self.w.verb(key, 0)} before step {b}",
                                                     f"when {m} most recently {self.w.verb(key, 0)} before step {b}"])
            elif mode == "between":
                a = self.rng.randrange(0, self.n - 20)
                b = self.rng.randrange(a + 10, min(self.n, a + 200))
                inside = [t for t in ts if a <= t <= b]
                if not inside:
                    continue
                t = inside[0]
                when = lambda m, a=a, b=b: f"the first time between step {a} and step {b} that {m} {self.w.verb(key, 0)}"
            else:
                akey = self.pick_key()
                if akey is None or akey[0] == key[0]:
                    continue
                at = occurrences(self.steps, akey)[0]
                later = [t for t in ts if t > at]
                if not later:
                    continue
                t = later[0]
                anchors = [at]
                when = lambda m, akey=akey: (f"the first time {m} {self.w.verb(key, 0)} after {m if m != 'I' else 'I'} "
                                             f"first {self.w.verb(akey, 0)}")
            q = slot_question(self.w, slot, name, subj, when)
            if self.add("3_windowed_occurrence", slot, q, slot_value(self.steps[t], slot, name), self.gid(*anchors, t)):
                made += 1

    def _condition_cases(self) -> list[tuple[int, Callable[[str], str]]]:
        """(step, when-clause) pairs for conditions on inventory and state values."""
        steps = self.steps
        cases: list[tuple[int, Callable[[str], str]]] = []
        carry = [st.state_dict["carrying"] for st in steps]
        for k in sorted(set(carry)):
            if k < 2:
                continue
            first = next(t for t, c in enumerate(carry) if c >= k)
            last = max(t for t, c in enumerate(carry) if c >= k)
            cases.append((first, lambda m, k=k: self.w.pick([
                f"the first step at which {m} carried {k} or more items",
                f"when {_poss_of(m) if m in ('I', 'we', 'you', 'it', 'they') else m + chr(39) + 's'} item count first reached {k}"])))
            cases.append((last, lambda m, k=k: f"the last step at which {m} held at least {k} items"))
        for item in self.items:
            counts = [st.inventory_dict.get(item, 0) for st in steps]
            if any(c > 0 for c in counts):
                first = next(t for t, c in enumerate(counts) if c > 0)
                if first > 0:
                    cases.append((first, lambda m, item=item: self.w.pick([
                        f"the first step at which {m} had the {item} in the inventory",
                        f"when the {item} first showed up in the inventory"])))
                ran = [t for t in range(1, len(counts)) if counts[t] == 0 and counts[t - 1] > 0]
                if ran:
                    cases.append((ran[0], lambda m, item=item: self.w.pick([
                        f"when {m} first ran out of the {item}", f"the first time the {item} left the inventory"])))
                    cases.append((ran[-1], lambda m, item=item: f"the last time {m} stopped having the {item}"))
        scores = [st.state_dict["score"] for st in steps]
        for k in sorted(set(scores)):
            if k >= 1:
                first = next(t for t, c in enumerate(scores) if c >= k)
                cases.append((first, lambda m, k=k: self.w.pick([
                    f"the first step where the score reached {k}", f"when the score first got to {k} or more"])))
        wons = [t for t, st in enumerate(steps) if st.state_dict["won"]]
        if wons:
            cases.append((wons[0], lambda m: "the first step at which the 'won' flag was true"))
        games = [st.state_dict["game"] for st in steps]
        for g in sorted(set(games)):
            if g >= 2:
                first = next(t for t, c in enumerate(games) if c == g)
                cases.append((first, lambda m, g=g: f"the first step at which the game number was {g}"))
        return cases

    def fam4(self) -> None:
        cases = self._condition_cases()
        self.rng.shuffle(cases)
        made = 0
        for t, when in cases:
            if made >= 6:
                break
            slot, name = self.slot_for()
            if slot == "state" and name in ("carrying", "score", "won", "game"):
                name = "moves"
            q = slot_question(self.w, slot, name, self.w.subject(), when)
            if self.add("4_condition", slot, q, slot_value(self.steps[t], slot, name), self.gid(t)):
                made += 1

    def fam5(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 200:
            tries += 1
            key = self.pick_key()
            if key is None:
                break
            ts = occurrences(self.steps, key)
            n = self.choose_n(len(ts)) if self.rng.random() < 0.5 else 1
            base = self.nth(ts, n)
            k = self.rng.randint(1, 6)
            sign = self.rng.choice([1, -1])
            t = base + sign * k
            if not 0 <= t < self.n:
                continue
            slot, name = self.slot_for(allow_step=False)
            rel = "after" if sign > 0 else "before"
            stepword = "step" if k == 1 else "steps"
            when = lambda m: f"{k} {stepword} {rel} {self.w.occurrence(key, n, len(ts), m)}"
            q = slot_question(self.w, slot, name, self.w.subject(), when)
            if self.add("5_offset", slot, q, slot_value(self.steps[t], slot, name), self.gid(base, t)):
                made += 1

    def fam6(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 300:
            tries += 1
            ykey = self.pick_key()
            xkey = self.pick_key(pool=self.any_list) if (self.any_list and self.rng.random() < 0.4) else self.pick_key()
            if ykey is None or xkey is None or xkey[0] == ykey[0]:
                continue
            yts = occurrences(self.steps, ykey)
            n = self.choose_n(len(yts))
            y = self.nth(yts, n)
            xts = occurrences(self.steps, xkey)
            nxt = self.rng.random() < 0.6
            cand = [t for t in xts if t > y] if nxt else [t for t in xts if t < y]
            if not cand:
                continue
            t = cand[0] if nxt else cand[-1]
            slot, name = self.slot_for()

            def when(m: str, nxt: bool = nxt, n: int = n) -> str:
                occ = self.w.occurrence(ykey, n, len(yts), m)
                verb = self.w.verb(xkey, 0)
                if nxt:
                    return self.w.pick([f"the next time {m} {verb} after {occ}", f"when {m} {verb} next, following {occ}"])
                return self.w.pick([f"the last time {m} {verb} before {occ}", f"the previous time {m} {verb} before {occ}"])
            q = slot_question(self.w, slot, name, self.w.subject(), when)
            if self.add("6_next_previous", slot, q, slot_value(self.steps[t], slot, name), self.gid(y, t)):
                made += 1

    def fam7(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 300:
            tries += 1
            pool = [k for k in self.key_list if k[0] != "gain points"] + [k for k in self.any_list]
            key = self.pick_key(pool=pool)
            if key is None:
                break
            full, pron, be, have, poss = self.w.subject()
            ger = self.w.verb(key, 2)
            past = self.w.verb(key, 0)
            mode = self.rng.choice(["whole", "window", "before", "first n", "after anchor"])
            anchors: list[int] = []
            if mode == "whole":
                lo, hi = 0, self.n - 1
                q = self.w.pick([f"How many times did {full} end up {ger} over the whole run?",
                                 f"Count how often {full} {past} in the episode.",
                                 f"In total, how many times {have} {full} {self.w.verb(key, 1)}?"])
            elif mode == "window":
                lo = self.rng.randrange(0, self.n - 30)
                hi = self.rng.randrange(lo + 20, min(self.n, lo + 250))
                q = self.w.pick([f"Between step {lo} and step {hi}, how many times did {full} end up {ger}?",
                                 f"How many times {be} {full} seen {ger} from step {lo} to step {hi} inclusive?",
                                 f"Count the times {full} {past} between step {lo} and step {hi}."])
            elif mode == "before":
                lo, hi = 0, self.rng.randrange(30, self.n) - 1
                q = self.w.pick([f"Before step {hi + 1}, how many times had {full} {self.w.verb(key, 1)}?",
                                 f"How many times {be} there a case of {full} {ger} before step {hi + 1}?"])
            elif mode == "first n":
                lo, hi = 0, self.rng.choice([50, 100, 150, 200]) - 1
                if hi >= self.n:
                    continue
                q = f"In the first {hi + 1} steps, how many times did {full} wind up {ger}?"
            else:
                akey = self.pick_key()
                if akey is None or akey == key:
                    continue
                at = occurrences(self.steps, akey)[0]
                lo, hi = at + 1, self.n - 1
                anchors = [at]
                q = self.w.pick([f"After {full} first {self.w.verb(akey, 0)}, how many times did {pron} end up {ger}?",
                                 f"How many times did {full} keep {ger} after the first time {pron} {self.w.verb(akey, 0)}?"])
            ts = occurrences(self.steps, key, lo, hi)
            if not ts and not anchors and self.rng.random() < 0.7:
                continue
            gold = self.gid(*anchors, *( [ts[-1]] if ts else []))
            if self.add("7_count", "count", q, str(len(ts)), gold):
                made += 1

    def fam8(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 300:
            tries += 1
            a, b = self.pick_key(), self.pick_key()
            if a is None or b is None or a == b:
                continue
            ats, bts = occurrences(self.steps, a), occurrences(self.steps, b)
            na = 1 if self.rng.random() < 0.7 else -1
            nb = 1 if self.rng.random() < 0.7 else -1
            ta, tb = self.nth(ats, na), self.nth(bts, nb)
            if ta == tb:
                continue
            first = a if ta < tb else b
            full, pron = self.w.subject()[:2]

            def desc(key: Key, n: int) -> str:
                if self.rng.random() < 0.5 and key[0] in NOUN and n == 1:
                    return self.w.noun(key)
                return self.w.occurrence(key, n, 0, full)
            da, db = desc(a, na), desc(b, nb)
            q = self.w.pick([f"Which happened first: {da}, or {db}?", f"Which came earlier, {da} or {db}?",
                             f"Of {da} and {db}, which one happened first?"])
            if self.add("8_order", "which-first", q, _ev_text(first[0], first[1] or ""), self.gid(min(ta, tb), max(ta, tb))):
                made += 1

    def fam9(self) -> None:
        made = 0
        tries = 0
        while made < 6 and tries < 300:
            tries += 1
            full, pron = self.w.subject()[:2]
            if self.rng.random() < 0.4:
                key = self.pick_key(min_count=2)
                if key is None:
                    continue
                ts = occurrences(self.steps, key)
                i, j = 1, self.rng.choice([2, -1] if len(ts) > 2 else [2])
                ta, tb = ts[0], self.nth(ts, j)
                later = "again" if j == 2 else "for the last time"
                q = self.w.pick([f"How many steps passed between the first time {full} {self.w.verb(key, 0)} and when {pron} did it {later}?",
                                 f"How long, in steps, was it from {full} first {self.w.verb(key, 2)} to {pron} doing it {later}?"])
            else:
                a, b = self.pick_key(), self.pick_key()
                if a is None or b is None or a == b:
                    continue
                ta, tb = occurrences(self.steps, a)[0], occurrences(self.steps, b)[0]
                if ta == tb:
                    continue
                q = self.w.pick([f"How many steps separate the first time {full} {self.w.verb(a, 0)} and the first time {pron} {self.w.verb(b, 0)}?",
                                 f"How many steps were there between {full} first {self.w.verb(a, 2)} and {pron} first {self.w.verb(b, 2)}?",
                                 f"What is the step distance between {self.w.noun(a) if a[0] in NOUN else self.w.verb(a, 2)} and "
                                 f"{self.w.noun(b) if b[0] in NOUN else self.w.verb(b, 2)} (first occurrence of each)?"])
            if self.add("9_distance", "duration", q, str(abs(tb - ta)), self.gid(min(ta, tb), max(ta, tb))):
                made += 1

    def fam10(self) -> None:
        plan = ["yes", "no", "yes", "no", "list", "list"]
        self.rng.shuffle(plan)
        for kind in plan:
            for _ in range(200):
                if self._fam10_one(kind):
                    break

    def _fam10_one(self, want: str) -> bool:
        full, pron, be, have, poss = self.w.subject()
        if want == "list":
            lkind = self.rng.choice([k for k in ("pick up", "enter", "put down", "inspect", "open") if (k, None) in self.any_list] or ["enter"])
            lo = self.rng.randrange(0, self.n - 40)
            hi = self.rng.randrange(lo + 30, min(self.n, lo + 200))
            ts = occurrences(self.steps, (lkind, None), lo, hi)
            if not ts:
                return False
            objs: list[str] = []
            for st in self.steps[lo:hi + 1]:
                for ev in st.events:
                    if ev.kind == lkind and ev.obj not in objs:
                        objs.append(ev.obj)
            noun = {"pick up": "items", "enter": "rooms", "put down": "items", "inspect": "things", "open": "things"}[lkind]
            verb = self.w.verb((lkind, None), 0)
            q = self.w.pick([f"Which distinct {noun} did {full} deal with between step {lo} and step {hi}, where {pron} {verb}? List them.",
                             f"List the {noun} {full} {self._list_verb(lkind)} between step {lo} and step {hi}.",
                             f"From step {lo} to step {hi}, what {noun} {have} {full} {self._list_verb_pp(lkind)}?"])
            return self.add("10_existence", "list", q, ", ".join(objs), self.gid(*ts))
        key = self.pick_key()
        if key is None:
            return False
        ts = occurrences(self.steps, key)
        mode = self.rng.choice(["before", "after", "between"])
        if mode == "before":
            b = self.rng.randrange(5, self.n)
            hit = [t for t in ts if t < b]
            win = f"before step {b}"
        elif mode == "after":
            b = self.rng.randrange(0, self.n - 5)
            hit = [t for t in ts if t > b]
            win = f"after step {b}"
        else:
            a = self.rng.randrange(0, self.n - 30)
            b = self.rng.randrange(a + 10, min(self.n, a + 150))
            hit = [t for t in ts if a <= t <= b]
            win = f"between step {a} and step {b}"
        if (want == "yes") != bool(hit):
            return False
        q = self.w.pick([f"Did {full} ever end up {self.w.verb(key, 2)} {win}?",
                         f"{_cap(win)}, {have} {full} {self.w.verb(key, 1)} at all?",
                         f"Was there any step {win} where {full} {self.w.verb(key, 0)}?",
                         f"Is there a record of {full} {self.w.verb(key, 2)} {win}?"])
        return self.add("10_existence", "yes/no", q, "yes" if hit else "no", self.gid(hit[0]) if hit else [])

    @staticmethod
    def _list_verb(kind: str) -> str:
        return {"pick up": "picked up", "enter": "entered", "put down": "dropped", "inspect": "examined", "open": "opened"}[kind]

    @staticmethod
    def _list_verb_pp(kind: str) -> str:
        return {"pick up": "picked up", "enter": "entered", "put down": "dropped", "inspect": "examined", "open": "opened"}[kind]


def build(seed: int) -> dict:
    episode = f"adventure-{seed}"
    steps = play(seed)
    validate_steps(steps, episode)
    b = Builder(episode, steps, seed)
    for fam in (b.fam1, b.fam2, b.fam3, b.fam4, b.fam5, b.fam6, b.fam7, b.fam8, b.fam9, b.fam10):
        before = len(b.questions)
        fam()
        got = len(b.questions) - before
        if got != 6:
            raise RuntimeError(f"{episode}: {fam.__name__} made {got} questions, not 6")
    return {"episodes": {episode: steps}, "questions": b.questions}


def _main() -> None:
    import json

    for seed in (SEEDS[0], SEEDS[1]):
        data = build(seed)
        again = build(seed)
        assert repr(data) == repr(again), "second build differs"
        episode, steps = next(iter(data["episodes"].items()))
        qs = data["questions"]
        assert len(qs) == 60
        per_fam = Counter(q["family"] for q in qs)
        assert all(v == 6 for v in per_fam.values()) and len(per_fam) == 10, per_fam
        for q in qs:
            assert q["episode"] == episode
            assert all(g.startswith(episode + ":") for g in q["gold"]), q
        print(f"seed {seed}: {len(steps)} steps")
        print("  families:", dict(sorted(per_fam.items())))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  event kinds:", sorted({e.kind for st in steps for e in st.events}))
        for q in qs[::6]:
            print("   ", json.dumps({k: q[k] for k in ("family", "question", "answer", "gold")}))


if __name__ == "__main__":
    _main()
