"""Held-out suite 7 (TextWorld): a cook working through tw-cooking kitchens.

The agent is a "cook": in each generated tw-cooking game it looks for the kitchen, reads the cookbook,
gathers the recipe's ingredients, slices/dices/chops and fries/roasts/grills them, and finally prepares
and eats the meal.  It is a bit sloppy: it wanders, examines things, snacks on food that is not in the
recipe, sometimes tries to prepare the meal too early or to cut something before it has a knife, and
now and then burns an ingredient by cooking it twice (which loses the game, so it starts a new one).
Several games are played back to back to form one episode.

Records: location = the room (and the cook's own grid coordinates within the current game's map),
inventory = carried objects, state = score / moves / game / ready ingredients / stage (text), events
derived from the game's fact changes and the command.  Questions are answered by a plain scan.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections import Counter

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout7_textworld"
SEED_RANGE = range(8900, 9000)

_COOK_TYPES = ("fried", "roasted", "grilled")
_CUT_TYPES = ("sliced", "diced", "chopped")
_CUT_VERB = {"sliced": "slice", "diced": "dice", "chopped": "chop"}
_COOK_VERB = {"fried": "fry", "roasted": "roast", "grilled": "grill"}
_DIRS = {"north_of": (0, 1), "south_of": (0, -1), "east_of": (1, 0), "west_of": (-1, 0)}
_MAX_STEPS = 800
_GAME_CAP = 170


# ------------------------------------------------------------------------------------------------
# Environment helpers
# ------------------------------------------------------------------------------------------------


def _facts(gs) -> set:
    return {(p.name,) + tuple(a.name for a in p.arguments) for p in gs.facts}


def _room_of(facts: set) -> str:
    for f in facts:
        if f[0] == "at" and f[1] == "P":
            return f[2]
    return "unknown"


def _inventory(facts: set) -> dict:
    return {f[1]: 1 for f in facts if f[0] == "in" and len(f) == 3 and f[2] == "I"}


def _visible(facts: set, room: str) -> list:
    seen = {f[1] for f in facts if f[0] == "at" and len(f) == 3 and f[2] == room and f[1] != "P"}
    seen |= {f[2] for f in facts if f[0] == "link" and f[1] == room}
    opened = {f[1] for f in facts if f[0] == "open"}
    changed = True
    while changed:
        changed = False
        for f in facts:
            if len(f) == 3 and f[2] in seen and f[1] not in seen and (f[0] == "on" or (f[0] == "in" and f[2] in opened)):
                seen.add(f[1])
                changed = True
    return sorted(seen)


def _coords(facts: set, start: str) -> dict:
    rel = [(f[1], f[2], _DIRS[f[0]]) for f in facts if f[0] in _DIRS]
    pos = {start: (0, 0)}
    changed = True
    while changed:
        changed = False
        for a, b, (dx, dy) in sorted(rel):
            if b in pos and a not in pos:
                pos[a] = (pos[b][0] + dx, pos[b][1] + dy)
                changed = True
            elif a in pos and b not in pos:
                pos[b] = (pos[a][0] - dx, pos[a][1] - dy)
                changed = True
    return pos


def _recipe(facts: set) -> dict:
    """food -> (cook type or None, cut type or None) from the game's recipe facts."""
    base = {f[2]: f[1] for f in facts if f[0] == "base"}
    out = {}
    for var, food in sorted(base.items()):
        cook = next((c for c in _COOK_TYPES if (c, var) in facts), None)
        cut = next((c for c in _CUT_TYPES if (c, var) in facts), None)
        out[food] = (cook, cut)
    return out


def _ready(facts: set, recipe: dict) -> int:
    n = 0
    for food, (cook, cut) in recipe.items():
        if ("in", food, "I") in facts and (cook is None or (cook, food) in facts) and (cut is None or (cut, food) in facts):
            n += 1
    return n


def _stage(facts: set, recipe: dict, read: bool, won: bool, lost: bool) -> str:
    if lost:
        return "failed"
    if won:
        return "finished"
    if ("in", "meal", "I") in facts:
        return "serving the meal"
    if not read:
        return "reading the recipe" if _room_of(facts) == "kitchen" else "looking for the kitchen"
    if not all(("in", food, "I") in facts for food in recipe):
        return "gathering ingredients"
    if _ready(facts, recipe) < len(recipe):
        return "preparing ingredients"
    return "making the meal"


def _events(cmd: str, before: set, after: set, recipe: dict, prev_score: int, score: int) -> list:
    ev = []
    r0, r1 = _room_of(before), _room_of(after)
    if r0 != r1:
        ev.append(Event("enter", r1))
    added = sorted(after - before)
    removed = sorted(before - after)
    for f in added:
        if f[0] == "open" and len(f) == 2:
            ev.append(Event("open", f[1]))
    for f in added:
        if f[0] == "closed" and len(f) == 2:
            ev.append(Event("close", f[1]))
    consumed = {f[1] for f in added if f[0] == "consumed"}
    for f in added:
        if f[0] == "in" and len(f) == 3 and f[2] == "I" and f[1] != "meal":
            ev.append(Event("pick up", f[1]))
    for f in removed:
        if f[0] == "in" and len(f) == 3 and f[2] == "I" and f[1] not in consumed \
                and (f[1] not in recipe or ("in", "meal", "I") not in after):
            ev.append(Event("put down", f[1]))
    for f in added:
        if f[0] in _CUT_VERB and len(f) == 2 and not f[1].startswith("ingredient"):
            ev.append(Event(_CUT_VERB[f[0]], f[1]))
    for f in added:
        if f[0] in _COOK_VERB and len(f) == 2 and not f[1].startswith("ingredient"):
            ev.append(Event(_COOK_VERB[f[0]], f[1]))
    for f in added:
        if f[0] == "burned" and len(f) == 2:
            ev.append(Event("burn", f[1]))
    if cmd == "examine cookbook":
        ev.append(Event("read", "cookbook"))
    elif cmd.startswith("examine "):
        ev.append(Event("inspect", cmd[len("examine "):]))
    elif cmd == "look":
        ev.append(Event("look"))
    elif cmd == "inventory":
        ev.append(Event("check inventory"))
    for obj in sorted(consumed):
        ev.append(Event("eat", obj) if obj == "meal" else Event("taste", obj))
    if ("in", "meal", "I") in after and ("in", "meal", "I") not in before:
        ev.append(Event("prepare", "meal"))
    if cmd == "prepare meal" and ("in", "meal", "I") not in after:
        ev.append(Event("fail to prepare", "meal"))
    elif cmd.split(" ")[0] in ("slice", "dice", "chop") and not any(f[0] in _CUT_VERB for f in added):
        ev.append(Event("fail to cut", cmd.split(" ", 1)[1].rsplit(" with ", 1)[0]))
    if score > prev_score:
        ev.append(Event("score", "", score - prev_score))
    return ev


def _choose(rng: random.Random, gs, facts: set, recipe: dict, mem: dict) -> str:
    adm = list(gs.admissible_commands or [])
    pol = list(gs.policy_commands or [])
    room = _room_of(facts)
    inv = _inventory(facts)
    if room == "kitchen" and not mem["read"] and rng.random() < 0.8:
        return "examine cookbook"
    # sloppy moves
    if mem["burn"] and not mem["burned"]:
        for food in sorted(inv):
            cooked = any((c, food) in facts for c in _COOK_TYPES)
            cmds = [c for c in adm if c.startswith(f"cook {food} with ")]
            if food in recipe and cooked and cmds and rng.random() < 0.1:
                mem["burned"] = True
                return rng.choice(sorted(cmds))
    if "knife" not in inv and not mem["cut_fail"]:
        for food in sorted(inv):
            cut = recipe.get(food, (None, None))[1]
            if cut and (cut, food) not in facts and rng.random() < 0.5:
                mem["cut_fail"] = True
                return f"{_CUT_VERB[cut]} {food} with knife"
    if room == "kitchen" and mem["read"] and mem["early"] > 0 and any(f in inv for f in recipe) \
            and _ready(facts, recipe) < len(recipe) and rng.random() < 0.12:
        mem["early"] -= 1
        return "prepare meal"
    r = rng.random()
    gos = sorted(c for c in adm if c.startswith("go "))
    exams = sorted(c for c in adm if c.startswith("examine ") and c != "examine cookbook")
    snacks = sorted(c for c in adm if c.startswith("eat ") and c[4:] not in recipe and c != "eat meal")
    takes = sorted(c for c in adm if c.startswith("take ") and c.split(" ")[1] != "knife"
                   and not any(c.startswith(f"take {f} ") for f in recipe) and "cookbook" not in c)
    drops = sorted(c for c in adm if c.startswith("drop ") and c[5:] not in recipe and c[5:] not in ("knife", "meal"))
    toggles = sorted(c for c in adm if c.startswith(("open ", "close ")))
    if r < 0.14 and gos and "meal" not in inv:
        return rng.choice(gos)
    if r < 0.22 and exams:
        return rng.choice(exams)
    if r < 0.25:
        return rng.choice(["look", "inventory"])
    if r < 0.29 and snacks:
        return rng.choice(snacks)
    if r < 0.32 and takes and len(inv) < 6:
        return rng.choice(takes)
    if r < 0.35 and drops:
        return rng.choice(drops)
    if r < 0.37 and toggles:
        return rng.choice(toggles)
    if r < 0.39 and mem["read"] and room == "kitchen":
        return "examine cookbook"
    if pol:
        return pol[0]
    return rng.choice(gos or adm or ["look"])


def _make_game(game_seed: int, rng: random.Random, tmp: str) -> str:
    import textworld
    from textworld import GameOptions
    from textworld.challenges.tw_cooking import cooking

    opts = GameOptions()
    opts.seeds = game_seed
    n = rng.choice([3, 3, 4, 4, 5])
    settings = {"recipe": n, "take": rng.randint(max(1, n - 1), n), "go": rng.choice([9, 12]),
                "open": True, "cook": True, "cut": True, "drop": False, "recipe_seed": game_seed,
                "split": "train"}
    game = cooking.make(settings, opts)
    opts.path = os.path.join(tmp, f"cook_{game_seed}.z8")
    opts.force_recompile = True
    return textworld.generator.compile_game(game, opts)


def _play(seed: int) -> list:
    import textworld
    from textworld import EnvInfos

    rng = random.Random(seed)
    target = rng.randint(380, 650)
    infos = EnvInfos(admissible_commands=True, facts=True, score=True, max_score=True, policy_commands=True,
                     moves=True, won=True, lost=True, feedback=True)
    steps: list = []
    game_no = 0
    with tempfile.TemporaryDirectory(prefix="hw7tw_") as tmp:
        while len(steps) < target:
            game_no += 1
            game_seed = rng.randint(1, 10**6)
            path = _make_game(game_seed, rng, tmp)
            env = textworld.start(path, request_infos=infos)
            try:
                gs = env.reset()
                facts = _facts(gs)
                recipe = _recipe(facts)
                coords = _coords(facts, _room_of(facts))
                mem = {"read": False, "burn": rng.random() < 0.2, "burned": False, "cut_fail": False,
                       "early": rng.choice([0, 1, 1, 2])}
                score = 0
                first = True
                n_here = 0
                while len(steps) < _MAX_STEPS and n_here < _GAME_CAP:
                    cmd = _choose(rng, gs, facts, recipe, mem)
                    gs2, _, done = env.step(cmd)
                    facts2 = _facts(gs2)
                    score2 = int(gs2.score or 0)
                    evs = _events(cmd, facts, facts2, recipe, score, score2)
                    if cmd == "examine cookbook":
                        mem["read"] = True
                    if first:
                        evs.insert(0, Event("start game"))
                        first = False
                    won, lost = bool(gs2.won), bool(gs2.lost)
                    if won:
                        evs.append(Event("win"))
                    if lost:
                        evs.append(Event("lose"))
                    room = _room_of(facts2)
                    pos = coords.get(room, (0, 0))
                    state = {"score": score2, "moves": int(gs2.moves or 0), "game": game_no,
                             "ready ingredients": _ready(facts2, recipe),
                             "stage": _stage(facts2, recipe, mem["read"], won, lost)}
                    rels = [Relation("agent", "in", room)] + [Relation("agent", "holding", o) for o in sorted(_inventory(facts2))]
                    obs = " ".join((gs2.feedback or "").split())[:1500]
                    steps.append(Step(t=len(steps), action=cmd, events=tuple(evs), inventory=_inventory(facts2),
                                      state=state, location=Location(position=pos, region=room),
                                      objects=tuple(_visible(facts2, room)), relations=tuple(rels), observation=obs))
                    gs, facts, score = gs2, facts2, score2
                    n_here += 1
                    if done or won or lost:
                        break
            finally:
                env.close()
            if len(steps) >= _MAX_STEPS:
                break
    return steps


# ------------------------------------------------------------------------------------------------
# Reference evaluator: plain scans over the Step records
# ------------------------------------------------------------------------------------------------

_STATE_WORDS = {"score": ["score", "game score", "points total"], "moves": ["move counter", "number of moves"],
                "game": ["game number", "round number"],
                "ready ingredients": ["number of ready ingredients", "count of fully prepared ingredients"],
                "stage": ["stage", "cooking stage", "current stage of the cooking"]}

# kind -> [(past, base)]; {o} is the object
_PHRASES = {
    "enter": [("entered the {o}", "enter the {o}"), ("walked into the {o}", "walk into the {o}"),
              ("went into the {o}", "go into the {o}")],
    "pick up": [("picked up the {o}", "pick up the {o}"), ("took the {o}", "take the {o}"),
                ("grabbed the {o}", "grab the {o}")],
    "put down": [("put down the {o}", "put down the {o}"), ("dropped the {o}", "drop the {o}"),
                 ("set down the {o}", "set down the {o}")],
    "open": [("opened the {o}", "open the {o}")],
    "close": [("closed the {o}", "close the {o}"), ("shut the {o}", "shut the {o}")],
    "slice": [("sliced the {o}", "slice the {o}"), ("cut the {o} into slices", "cut the {o} into slices")],
    "dice": [("diced the {o}", "dice the {o}"), ("cut the {o} into cubes", "cut the {o} into cubes")],
    "chop": [("chopped the {o}", "chop the {o}"), ("chopped up the {o}", "chop up the {o}")],
    "fry": [("fried the {o}", "fry the {o}"), ("pan-fried the {o}", "pan-fry the {o}")],
    "roast": [("roasted the {o}", "roast the {o}"), ("oven-roasted the {o}", "oven-roast the {o}")],
    "grill": [("grilled the {o}", "grill the {o}"), ("barbecued the {o}", "barbecue the {o}")],
    "burn": [("burned the {o}", "burn the {o}"), ("scorched the {o}", "scorch the {o}"),
             ("charred the {o}", "char the {o}")],
    "read": [("read the {o}", "read the {o}"), ("consulted the {o}", "consult the {o}")],
    "inspect": [("examined the {o}", "examine the {o}"), ("inspected the {o}", "inspect the {o}"),
                ("looked closely at the {o}", "look closely at the {o}")],
    "taste": [("tasted the {o}", "taste the {o}"), ("sampled the {o}", "sample the {o}"),
              ("snacked on the {o}", "snack on the {o}")],
    "prepare": [("prepared the {o}", "prepare the {o}"), ("assembled the {o}", "assemble the {o}")],
    "eat": [("ate the {o}", "eat the {o}"), ("finished off the {o}", "finish off the {o}")],
    "fail to prepare": [("failed to prepare the {o}", "fail to prepare the {o}"),
                        ("tried and failed to put the {o} together", "try and fail to put the {o} together")],
    "fail to cut": [("failed to cut the {o}", "fail to cut the {o}"),
                    ("tried to cut the {o} without success", "try to cut the {o} without success")],
    "start game": [("started a new game", "start a new game"), ("began a fresh game", "begin a fresh game")],
    "win": [("won a game", "win a game"), ("won the game", "win the game")],
    "lose": [("lost a game", "lose a game"), ("lost the game", "lose the game")],
    "look": [("looked around", "look around"), ("took a look around the room", "take a look around the room")],
    "check inventory": [("checked the inventory", "check the inventory"),
                        ("checked what was being carried", "check what was being carried")],
    "score": [("scored points", "score points"), ("earned points", "earn points")],
}
_GENERIC = {
    "enter": [("entered a room", "enter a room"), ("moved into another room", "move into another room")],
    "pick up": [("picked something up", "pick something up"), ("took an item", "take an item")],
    "put down": [("put something down", "put something down"), ("dropped an item", "drop an item")],
    "open": [("opened something", "open something")],
    "close": [("closed something", "close something")],
    "slice": [("sliced an ingredient", "slice an ingredient")],
    "dice": [("diced an ingredient", "dice an ingredient")],
    "chop": [("chopped an ingredient", "chop an ingredient")],
    "fry": [("fried something", "fry something")],
    "roast": [("roasted something", "roast something")],
    "grill": [("grilled something", "grill something")],
    "burn": [("burned an ingredient", "burn an ingredient"), ("scorched some food", "scorch some food")],
    "inspect": [("examined something", "examine something")],
    "taste": [("tasted some food", "taste some food"), ("snacked on something", "snack on something")],
}
_NAME = ["Basil", "Juniper", "Sage", "Remy", "Marjoram"]
_SUBJ = [("I", "my", "was"), ("we", "our", "were"), ("you", "your", "were"), ("the agent", "the agent's", "was"),
         ("the cook", "the cook's", "was")]


def _label(kind: str, obj: str) -> str:
    return f"{kind} {obj}".strip()


class _Ev:
    """Scans over the steps of one episode."""

    def __init__(self, steps: list, ep: str):
        self.steps, self.ep = steps, ep
        self.n = len(steps)

    def gid(self, *ts) -> list:
        out = []
        for t in ts:
            if t is not None and f"{self.ep}:{t}" not in out:
                out.append(f"{self.ep}:{t}")
        return out

    def occ(self, pat, lo: int = 0, hi: int | None = None) -> list:
        """Steps lo..hi (inclusive) holding an event matching pat = (kind, obj or None)."""
        hi = self.n - 1 if hi is None else hi
        kind, obj = pat
        return [s.t for s in self.steps[max(lo, 0):hi + 1]
                if any(e.kind == kind and (obj is None or e.obj == obj) for e in s.events)]

    def slot(self, t: int, slot: str, arg: str = "") -> str:
        s = self.steps[t]
        if slot == "action":
            return s.action
        if slot == "location":
            return s.location.region
        if slot == "position":
            return f"{s.location.position[0]},{s.location.position[1]}"
        if slot == "inventory":
            inv = s.inventory_dict
            return ", ".join(f"{k} {v}" for k, v in sorted(inv.items())) or "none"
        if slot == "item":
            return str(s.inventory_dict.get(arg, 0))
        if slot == "state":
            v = s.state_dict[arg]
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, float):
                return f"{v:g}"
            return str(v)
        if slot == "events":
            return "; ".join(_label(e.kind, e.obj) for e in s.events) or "none"
        raise ValueError(slot)

    def labels(self) -> list:
        c = Counter(_label(e.kind, e.obj) for s in self.steps for e in s.events)
        return sorted(c)


class _Q:
    def __init__(self, steps: list, ep: str, rng: random.Random):
        self.ev = _Ev(steps, ep)
        self.rng = rng
        self.name = rng.choice(_NAME)
        self.subjects = _SUBJ + [(self.name, self.name + "'s", "was")]
        self.out: list = []
        pats = Counter()
        for s in steps:
            for e in s.events:
                if e.kind != "score":
                    pats[(e.kind, e.obj or None)] += 1
                    if e.obj and e.kind in _GENERIC:
                        pats[(e.kind, None)] += 1
        self.pats = sorted(pats, key=lambda p: (p[0], p[1] or ""))
        self.pat_count = pats
        self.items = sorted({k for s in steps for k in s.inventory_dict})

    # ---- wording helpers
    def subj(self):
        return self.rng.choice(self.subjects)

    def past(self, pat) -> str:
        kind, obj = pat
        table = _PHRASES[kind] if obj or kind not in _GENERIC else _GENERIC[kind]
        return self.rng.choice(table)[0].format(o=obj or "")

    def base(self, pat) -> str:
        kind, obj = pat
        table = _PHRASES[kind] if obj or kind not in _GENERIC else _GENERIC[kind]
        return self.rng.choice(table)[1].format(o=obj or "")

    def ordinal(self, n: int) -> str:
        words = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
        digits = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}
        return self.rng.choice([words, words, digits])[n]

    def pick_pat(self, min_n: int = 1, kinds=None, with_obj=None):
        cands = [p for p in self.pats if self.pat_count[p] >= min_n and (kinds is None or p[0] in kinds)
                 and (with_obj is None or (p[1] is not None) == with_obj)]
        return self.rng.choice(cands) if cands else None

    def slot_q(self, t: int, who):
        """A random slot to ask about step t: (slot, phrase, answer)."""
        s, poss, be = who
        choice = self.rng.choice(["step", "step", "location", "position", "inventory", "state", "action", "item"])
        if choice == "step":
            return "step", "at which step", str(t)
        if choice == "location":
            return "location", f"in which room {be} {s}", self.ev.slot(t, "location")
        if choice == "position":
            return "position", f"what were {poss} coordinates", self.ev.slot(t, "position")
        if choice == "inventory":
            return "inventory", f"what {be} {s} carrying", self.ev.slot(t, "inventory")
        if choice == "action":
            return "action", "what exact command was entered", self.ev.slot(t, "action")
        if choice == "item" and self.items:
            it = self.rng.choice(self.items)
            return "item", f"how many {it} {be} {s} holding", self.ev.slot(t, "item", it)
        st = self.rng.choice(sorted(_STATE_WORDS))
        return "state", f"what was the {self.rng.choice(_STATE_WORDS[st])}", self.ev.slot(t, "state", st)

    def add(self, family: str, slot: str, question: str, answer: str, gold: list):
        q = question.strip()
        q = q[0].upper() + q[1:]
        if not q.endswith("?"):
            q += "?"
        self.out.append({"episode": self.ev.ep, "family": family, "slot": slot, "question": q,
                         "answer": str(answer), "gold": list(gold)})

    def rand_t(self, lo: int = 0, hi: int | None = None) -> int:
        hi = self.ev.n - 1 if hi is None else hi
        return self.rng.randint(lo, hi)

    # ---- anchors
    def nth(self, pat):
        """(phrase after 'the ... time', step) of a random n-th / last / second-to-last occurrence."""
        ts = self.ev.occ(pat)
        if not ts:
            return None
        opts = [(self.ordinal(i + 1), ts[i]) for i in range(min(len(ts), 4))]
        opts.append((self.rng.choice(["last", "final", "most recent"]), ts[-1]))
        if len(ts) >= 3:
            opts.append(("second-to-last", ts[-2]))
        return self.rng.choice(opts)

    def cond(self):
        """(phrase, step, slot-free description) of a condition anchor met first (or last) at some step."""
        ev, rng = self.ev, self.rng
        opts = []
        for name in ("score", "ready ingredients", "game"):
            seq = [x.state_dict[name] for x in ev.steps]
            ks = sorted({v for v in seq if v > seq[0]})
            if ks:
                k = rng.choice(ks)
                t = next(i for i, v in enumerate(seq) if v >= k)
                word = rng.choice(_STATE_WORDS[name])
                opts.append((f"the {word} first reached {k}", t))
        seq = [x.state_dict["stage"] for x in ev.steps]
        trans = sorted({seq[i] for i in range(1, len(seq)) if seq[i] != seq[i - 1]})
        if trans:
            v = rng.choice(trans)
            t = next(i for i in range(1, len(seq)) if seq[i] == v and seq[i - 1] != v)
            opts.append((f"the stage first became '{v}'", t))
        for it in self.items:
            seq = [s.inventory_dict.get(it, 0) for s in ev.steps]
            if seq[0] == 0 and any(seq):
                t = next(i for i, v in enumerate(seq) if v >= 1)
                opts.append((f"the {it} first showed up in the inventory", t))
            runs = [i for i in range(1, len(seq)) if seq[i] == 0 and seq[i - 1] > 0]
            if runs:
                opts.append((f"the {it} was first gone from the inventory after having been carried", runs[0]))
        return rng.choice(opts) if opts else None

    def any_target_slot(self, t, who):
        slot, phrase, ans = self.slot_q(t, who)
        return slot, phrase, ans

    # ---- families
    def f1(self, hand: bool):
        ev, rng = self.ev, self.rng
        t = self.rand_t()
        s, poss, be = self.subj()
        if hand:
            k = rng.randrange(5)
            if k == 0:
                return "inventory", f"Quick one: at step {t}, what was in {poss} hands", ev.slot(t, "inventory"), ev.gid(t)
            if k == 1:
                evt = [x.t for x in ev.steps if x.events]
                t = rng.choice(evt)
                return "events", (f"I'm trying to reconstruct step {t}: what did the game log as happening there, "
                                  "event by event"), ev.slot(t, "events"), ev.gid(t)
            if k == 2:
                return "state", f"If you had checked the stage field at step {t}, what would it have said", \
                    ev.slot(t, "state", "stage"), ev.gid(t)
            if k == 3:
                return "position", f"Step {t}. Coordinates", ev.slot(t, "position"), ev.gid(t)
            return "action", f"What did {self.name} type into the parser on step {t}", ev.slot(t, "action"), ev.gid(t)
        slot = rng.choice(["action", "location", "position", "inventory", "item", "state", "events"])
        if slot == "action":
            q = rng.choice([f"What did {s} do at step {t}", f"Which command was issued at step {t}"])
            return slot, q, ev.slot(t, slot), ev.gid(t)
        if slot == "location":
            q = rng.choice([f"Where {be} {s} at step {t}", f"Which room {be} {s} in after step {t}"])
            return slot, q, ev.slot(t, slot), ev.gid(t)
        if slot == "position":
            q = rng.choice([f"What were {poss} coordinates at step {t}", f"At step {t}, what was {poss} x,y position"])
            return slot, q, ev.slot(t, slot), ev.gid(t)
        if slot == "inventory":
            q = rng.choice([f"What {be} {s} carrying after step {t}", f"List {poss} inventory as of step {t}"])
            return slot, q, ev.slot(t, slot), ev.gid(t)
        if slot == "item" and self.items:
            it = rng.choice(self.items)
            return slot, f"How many of the {it} {be} {s} holding at step {t}", ev.slot(t, "item", it), ev.gid(t)
        if slot == "events":
            evt = [x.t for x in ev.steps if x.events]
            t = rng.choice(evt)
            q = rng.choice([f"What happened at step {t}", f"Which events were recorded at step {t}"])
            return slot, q, ev.slot(t, slot), ev.gid(t)
        st = rng.choice(sorted(_STATE_WORDS))
        w = rng.choice(_STATE_WORDS[st])
        q = rng.choice([f"What was the {w} at step {t}", f"At step {t}, what was the {w}"])
        return "state", q, ev.slot(t, "state", st), ev.gid(t)

    def f2(self, hand: bool):
        ev, rng = self.ev, self.rng
        pat = self.pick_pat()
        if pat is None:
            return None
        s, _poss, be = who = self.subj()
        ordw, t = self.nth(pat)
        if hand:
            k = rng.randrange(3)
            if k == 0:
                return "step", f"Think back to the {ordw} time {s} {self.past(pat)}. Which step number was that", str(t), ev.gid(t)
            if k == 1:
                return "state", f"The {ordw} time {self.name} {self.past(pat)}, what did the stage read afterwards", \
                    ev.slot(t, "state", "stage"), ev.gid(t)
            rooms = sorted({e.obj for x in ev.steps for e in x.events if e.kind == "enter"})
            room = rng.choice(rooms)
            ordw, t = self.nth(("enter", room))
            return "position", (f"On the {ordw} occasion {s} walked into the {room}, where exactly on the map "
                                f"{be} {s}, as coordinates"), ev.slot(t, "position"), ev.gid(t)
        slot, phrase, ans = self.slot_q(t, who)
        if slot == "step":
            q = rng.choice([f"At which step did {s} {self.base(pat)} for the {ordw} time",
                            f"When did {s} {self.base(pat)} the {ordw} time"])
        else:
            q = f"{phrase} when {s} {self.past(pat)} for the {ordw} time"
        return slot, q, ans, ev.gid(t)

    def f3(self, hand: bool):
        ev, rng = self.ev, self.rng
        pat = self.pick_pat(2)
        if pat is None:
            return None
        s, _poss, be = who = self.subj()
        ts = ev.occ(pat)
        mode = rng.choice(["after", "before", "between", "first", "after_ev"])
        if hand:
            mode = rng.choice(["h_between", "h_first"])
        anchors = []
        if mode in ("after", "before"):
            n = rng.randint(5, ev.n - 5)
            win = [x for x in ts if (x > n if mode == "after" else x < n)]
            if not win:
                return None
            t = win[0] if mode == "after" else win[-1]
            cue = (f"the first time after step {n} that {s} {self.past(pat)}" if mode == "after"
                   else f"the last time before step {n} that {s} {self.past(pat)}")
        elif mode in ("between", "h_between"):
            a = rng.randint(0, ev.n - 40)
            b = a + rng.randint(20, 200)
            win = [x for x in ts if a <= x <= b]
            if not win:
                return None
            t = win[0]
            if mode == "h_between":
                return "step", (f"Somewhere between step {a} and step {b}, {s} {self.past(pat)}; at which step did that "
                                "happen first"), str(t), ev.gid(t)
            cue = f"the first time between steps {a} and {b} that {s} {self.past(pat)}"
        elif mode in ("first", "h_first"):
            n = rng.randint(30, ev.n)
            win = [x for x in ts if x < n]
            if not win:
                return None
            t = win[-1]
            if mode == "h_first":
                return "location", (f"Counting only the first {n} steps of the episode, in which room {be} {s} the last "
                                    f"time {s} {self.past(pat)}"), ev.slot(t, "location"), ev.gid(t)
            cue = f"the last time {s} {self.past(pat)} in the first {n} steps"
        else:
            pat2 = self.pick_pat()
            a = ev.occ(pat2)[0]
            win = [x for x in ts if x > a]
            if not win or pat2 == pat:
                return None
            t = win[0]
            anchors = [a]
            cue = f"the first time {s} {self.past(pat)} after {s} first {self.past(pat2)}"
        slot, phrase, ans = self.slot_q(t, who)
        if slot == "step":
            q = f"At which step was {cue}"
        else:
            q = f"{phrase} {cue}"
        return slot, q, ans, ev.gid(t, *anchors)

    def f4(self, hand: bool):
        ev, rng = self.ev, self.rng
        _s, _poss, _be = who = self.subj()
        if hand:
            k = rng.randrange(2)
            if k == 0:
                seq = [x.state_dict["score"] for x in ev.steps]
                kk = rng.choice(sorted({v for v in seq if v > seq[0]}))
                t = next(i for i, v in enumerate(seq) if v >= kk)
                return "location", f"The moment the score first hit {kk}, which room was the cook standing in", \
                    ev.slot(t, "location"), ev.gid(t)
            seq = [x.state_dict["stage"] for x in ev.steps]
            v = rng.choice(sorted(set(seq)))
            t = max(i for i, x in enumerate(seq) if x == v)
            return "step", f"Which step was the very last one where the stage still read '{v}'", str(t), ev.gid(t)
        c = self.cond()
        if c is None:
            return None
        phrase0, t = c
        slot, phrase, ans = self.slot_q(t, who)
        if slot == "step":
            q = rng.choice([f"At which step {phrase0.replace(' first ', ' ', 1)} for the first time",
                            f"Which was the first step at which {phrase0.replace(' first ', ' ', 1)}"])
        else:
            q = f"{phrase} at the step where {phrase0}"
        return slot, q, ans, ev.gid(t)

    def f5(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, _be = who = self.subj()
        k = rng.randint(1, 5)
        if hand:
            if rng.random() < 0.5:
                pat = self.pick_pat()
                ordw, a = self.nth(pat)
                t = a - k
                if t < 0:
                    return None
                return "action", (f"Go {k} steps back from the {ordw} time {s} {self.past(pat)}: what was the command "
                                  "there"), ev.slot(t, "action"), ev.gid(a, t)
            pat = self.pick_pat()
            a = ev.occ(pat)[0]
            if a + 1 >= ev.n:
                return None
            return "action", f"Immediately after {self.name} first {self.past(pat)}, what was the next command typed", \
                ev.slot(a + 1, "action"), ev.gid(a, a + 1)
        mode = rng.choice(["occ", "step", "cond"])
        sign = rng.choice([1, -1])
        if mode == "occ":
            pat = self.pick_pat()
            ordw, a = self.nth(pat)
            cue = f"the {ordw} time {s} {self.past(pat)}"
        elif mode == "step":
            a = self.rand_t()
            cue = f"step {a}"
        else:
            c = self.cond()
            if c is None:
                return None
            cue0, a = c
            cue = f"the step where {cue0}"
        t = a + sign * k
        if not 0 <= t < ev.n:
            return None
        rel = "after" if sign > 0 else "before"
        ks = f"{k} step{'s' if k > 1 else ''}" if rng.random() < 0.6 else f"{['one', 'two', 'three', 'four', 'five'][k - 1]} step{'s' if k > 1 else ''}"
        if mode == "step" and k == 1 and sign > 0 and rng.random() < 0.5:
            offs = f"right after step {a}"
        else:
            offs = f"{ks} {rel} {cue}"
        slot, phrase, ans = self.slot_q(t, who)
        if slot == "step":
            slot, phrase, ans = "action", "what command was entered", ev.slot(t, "action")
        q = rng.choice([f"{phrase} {offs}", f"{offs[0].upper() + offs[1:]}, {phrase}"])
        return slot, q, ans, ev.gid(a, t)

    def f6(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, be = who = self.subj()
        pat = self.pick_pat(2)
        if pat is None:
            return None
        ts = ev.occ(pat)
        direction = rng.choice(["next", "previous"])
        if rng.random() < 0.5:
            a = self.rand_t(3, ev.n - 3)
            cue = f"step {a}"
        else:
            pat2 = self.pick_pat()
            if pat2 == pat:
                return None
            ordw, a = self.nth(pat2)
            cue = f"the {ordw} time {s} {self.past(pat2)}"
        win = [x for x in ts if (x > a if direction == "next" else x < a)]
        if not win:
            return None
        t = win[0] if direction == "next" else win[-1]
        if hand:
            if direction == "previous":
                return "location", (f"Looking backwards from {cue}, which room {be} {s} in on the most recent earlier "
                                    f"occasion that {s} {self.past(pat)}"), ev.slot(t, "location"), ev.gid(t, a) if "time" in cue else ev.gid(t)
            return "step", f"Once {cue} was behind {self.name}, how far into the episode (step number) did {s} next {self.base(pat)}", \
                str(t), ev.gid(t, a) if "time" in cue else ev.gid(t)
        gid = ev.gid(t, a) if "time" in cue else ev.gid(t)
        slot, phrase, ans = self.slot_q(t, who)
        word = "next" if direction == "next" else rng.choice(["previous", "most recent"])
        rel = "after" if direction == "next" else "before"
        if slot == "step":
            q = rng.choice([f"{rel.capitalize()} {cue}, when did {s} {word} {self.base(pat)}",
                            f"When was the {word} time {s} {self.past(pat)} {rel} {cue}"])
        else:
            q = f"{phrase} the {word} time {s} {self.past(pat)} {rel} {cue}"
        return slot, q, ans, gid

    def f7(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, _be = self.subj()
        if hand:
            k = rng.randrange(3)
            if k == 0:
                ts = ev.occ(("start game", None))
                return "count", "Over the whole run, how many separate games did the cook start", str(len(ts)), ev.gid(ts[-1])
            if k == 1:
                n = rng.randint(40, ev.n)
                ts = ev.occ(("score", None), 0, n - 1)
                return "count", f"How many point-scoring steps were there before step {n}", str(len(ts)), ev.gid(ts[-1] if ts else None)
            ts = ev.occ(("enter", "kitchen"))
            return "count", f"Count the number of times {self.name} walked into the kitchen", str(len(ts)), ev.gid(ts[-1] if ts else None)
        pat = self.pick_pat()
        mode = rng.choice(["all", "between", "first", "after_ev", "between"])
        anchors = []
        if mode == "all":
            ts = ev.occ(pat)
            q = rng.choice([f"How many times did {s} {self.base(pat)}", f"How often did {s} {self.base(pat)} in total"])
        elif mode == "between":
            a = rng.randint(0, ev.n - 30)
            b = min(ev.n - 1, a + rng.randint(10, 120))
            ts = ev.occ(pat, a, b)
            q = f"How many times did {s} {self.base(pat)} between steps {a} and {b}"
        elif mode == "first":
            n = rng.randint(20, ev.n)
            ts = ev.occ(pat, 0, n - 1)
            q = f"In the first {n} steps, how many times did {s} {self.base(pat)}"
        else:
            pat2 = self.pick_pat()
            if pat2 == pat:
                return None
            a = ev.occ(pat2)[-1]
            ts = ev.occ(pat, a + 1)
            anchors = [a]
            q = f"After the last time {s} {self.past(pat2)}, how many times did {s} {self.base(pat)}"
        return "count", q, str(len(ts)), ev.gid(ts[-1] if ts else None, *anchors)

    def pair(self):
        good = [p for p in self.pats if p[1] is not None or p[0] not in _GENERIC]
        p1, p2 = self.rng.sample(good, 2)
        a, b = self.ev.occ(p1)[0], self.ev.occ(p2)[0]
        if a == b:
            return None
        return p1, p2, a, b

    def f8(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, _be = self.subj()
        pr = self.pair()
        if pr is None:
            return None
        p1, p2, a, b = pr
        first = _label(*p1) if a < b else _label(*p2)
        if hand:
            if rng.random() < 0.5:
                return "which-first", \
                    f"Of these two, which did {self.name} do earlier: {self.base(p1)}, or {self.base(p2)}", first, ev.gid(a, b)
            return "yes/no", f"Is it the case that {s} {self.past(p1)} earlier than {s} first {self.past(p2)}", \
                "yes" if a < b else "no", ev.gid(a, b)
        if rng.random() < 0.5:
            q = rng.choice([f"Which came first: {s} {self.past(p1)} or {s} {self.past(p2)}",
                            f"Which happened earlier, {s} {self.past(p2)} or {s} {self.past(p1)}"])
            return "which-first", q, first, ev.gid(a, b)
        q = rng.choice([f"Did {s} {self.base(p1)} before {s} {self.past(p2)} for the first time",
                        f"Before {s} first {self.past(p2)}, had {s} already done this: {self.base(p1)}"])
        return "yes/no", q, "yes" if a < b else "no", ev.gid(a, b)

    def f9(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, _be = self.subj()
        if hand:
            if rng.random() < 0.5:
                ends = [x.t for x in ev.steps if any(e.kind in ("win", "lose") for e in x.events)]
                starts = ev.occ(("start game", None))
                if not ends or (len(starts) > 1 and starts[1] <= ends[0]):
                    return None
                return "duration", ("How long did the first game last, in steps, counting from its first command to the "
                                    "step where it was won or lost"), str(ends[0] - 0), ev.gid(0, ends[0])
            pat = self.pick_pat()
            ordw, a = self.nth(pat)
            n = self.rand_t()
            return "duration", f"How many steps separated the {ordw} time {s} {self.past(pat)} from step {n}", \
                str(abs(a - n)), ev.gid(a, n)
        if rng.random() < 0.4:
            pat = self.pick_pat(2)
            ts = ev.occ(pat)
            q = rng.choice([f"How many steps passed between the first and second time {s} {self.past(pat)}",
                            f"How long was it from the first time {s} {self.past(pat)} until {s} did it again"])
            return "duration", q, str(ts[1] - ts[0]), ev.gid(ts[0], ts[1])
        pr = self.pair()
        if pr is None:
            return None
        p1, p2, a, b = pr
        q = rng.choice([f"How many steps were there between the first time {s} {self.past(p1)} and the first time {s} {self.past(p2)}",
                        f"From when {s} first {self.past(p1)} to when {s} first {self.past(p2)}, how many steps elapsed"])
        return "duration", q, str(abs(a - b)), ev.gid(a, b)

    def never(self):
        objs = sorted({e.obj for x in self.ev.steps for e in x.events
                       if e.kind in ("pick up", "taste") and e.obj not in ("knife", "cookbook", "")})
        kinds = ["slice", "dice", "chop", "fry", "roast", "grill", "burn", "taste", "put down"]
        cands = [(k, o) for k in kinds for o in objs if not self.ev.occ((k, o))]
        return self.rng.choice(cands) if cands else None

    def f10(self, hand: bool):
        ev, rng = self.ev, self.rng
        s, _poss, _be = self.subj()
        mode = rng.choice(["ever_yes", "never", "after_step", "before_ev", "never"])
        if hand:
            mode = rng.choice(["h_after", "h_first", "h_never"])
        if mode in ("never", "h_never"):
            pat = self.never()
            if pat is None:
                return None
            q = (f"Did the cook ever manage to {self.base(pat)} at all" if mode == "h_never"
                 else rng.choice([f"Did {s} ever {self.base(pat)}", f"At any point, did {s} {self.base(pat)}"]))
            return "yes/no", q, "no", []
        pat = self.pick_pat()
        ts = ev.occ(pat)
        if mode == "ever_yes":
            return "yes/no", rng.choice([f"Did {s} ever {self.base(pat)}", f"Has {s} ever had to {self.base(pat)}"]), "yes", ev.gid(ts[0])
        if mode in ("after_step", "h_after"):
            n = rng.choice([ts[-1] + rng.randint(0, 30), rng.randint(0, ev.n - 1)])
            n = min(n, ev.n - 2)
            win = [x for x in ts if x > n]
            ans = "yes" if win else "no"
            q = (f"Was there any point where {self.name} {self.past(pat)} after step {n}" if mode == "h_after"
                 else f"Did {s} {self.base(pat)} after step {n}")
            return "yes/no", q, ans, ev.gid(win[0]) if win else []
        if mode == "h_first":
            n = rng.choice([max(1, ts[0] - rng.randint(0, 10)), ts[0] + 5])
            win = [x for x in ts if x < n]
            return "yes/no", f"Any chance {s} {self.past(pat)} during the first {n} steps", \
                "yes" if win else "no", ev.gid(win[0]) if win else []
        pat2 = self.pick_pat()
        a = ev.occ(pat2)[0]
        win = [x for x in ts if x < a]
        return "yes/no", f"Before {s} first {self.past(pat2)}, did {s} {self.base(pat)}", "yes" if win else "no", \
            ev.gid(win[0] if win else None, a)


_FAMILIES = ["1_step_index", "2_nth_occurrence", "3_windowed_occurrence", "4_condition", "5_offset",
             "6_next_previous", "7_count", "8_order", "9_distance", "10_existence"]


def _questions(steps: list, ep: str, seed: int) -> list:
    rng = random.Random(seed * 7919 + 7)
    qb = _Q(steps, ep, rng)
    funcs = [qb.f1, qb.f2, qb.f3, qb.f4, qb.f5, qb.f6, qb.f7, qb.f8, qb.f9, qb.f10]
    seen = set()
    for fam, fn in zip(_FAMILIES, funcs):
        hands = [True, True, False, False, False, False]
        made = 0
        tries = 0
        while made < 6 and tries < 400:
            tries += 1
            hand = hands[made]
            res = fn(hand if tries < 300 else False)
            if res is None:
                continue
            slot, q, ans, gold = res
            key = q.lower()
            if key in seen:
                continue
            seen.add(key)
            qb.add(fam, slot, q, ans, gold)
            made += 1
        if made < 6:
            raise RuntimeError(f"could not make 6 questions for {fam}")
    return qb.out


def build(seed: int) -> dict:
    steps = _play(seed)
    ep = f"{SUITE}_{seed}"
    validate_steps(steps, ep)
    return {"episodes": {ep: steps}, "questions": _questions(steps, ep, seed)}


def _main(argv: list) -> None:
    seeds = [int(a) for a in argv] or list(SEED_RANGE)[:2]
    for seed in seeds:
        t0 = time.time()
        b1 = build(seed)
        dt = time.time() - t0
        b2 = build(seed)
        assert b1 == b2, f"seed {seed}: not deterministic"
        (ep, steps), = b1["episodes"].items()
        validate_steps(steps, ep)
        qs = b1["questions"]
        assert len(qs) == 60, len(qs)
        print(f"seed {seed}: {len(steps)} steps, {len(qs)} questions, build {dt:.1f}s")
        print("  families:", dict(Counter(q["family"] for q in qs)))
        print("  slots:", dict(sorted(Counter(q["slot"] for q in qs).items())))
        print("  events:", dict(sorted(Counter(e.kind for s in steps for e in s.events).items())))
        for q in random.Random(seed).sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']} -> {q['answer']} {q['gold']}")


if __name__ == "__main__":
    _main(sys.argv[1:])
