"""Held-out trajectory suite: Mote the tidy-minded locksmith in real TextWorld games.

What the agent does
-------------------
Every seed builds one episode made of several TextWorld games played back to back (350-800 steps).
Each game is generated offline with ``textworld.GameMaker`` (rooms on a grid joined by passages, some
behind locked or closed doors; locked and unlocked containers, supporters, keys and portable tools) and
played through TextWorld's own logic engine (``textworld.envs.tw.TextWorldEnv`` on the saved game file),
so every command is checked against the game's rules and the world facts it changes are the game's own.
Keys are placed so that every game is solvable; each game has two or three placement quests (put an
item into / onto a given container or supporter, sometimes also lock the container afterwards).

Mote, the agent, explores room by room, opens containers, tries the keys it carries on locked doors and
containers (sometimes the wrong key first, which the game refuses), unlocks and opens them, takes what
it finds, and tidies: each portable item gets a place Mote deems right (a container or supporter of some
room) and is carried there. Now and then Mote changes its mind and moves a tidied item again, locks a
door behind itself or a container it has emptied, checks its inventory, looks around and examines
things. It completes quests as it goes but saves the game's last quest until everything else is done
(score rises, the game is won), then moves on to the next game.

What the records hold
---------------------
One ``Step`` per command: ``action`` is the TextWorld command, ``location`` the room (``region``; names
are drawn without replacement, so a room name never repeats across the games of an episode) and
grid coordinates derived from the game's map (start room of each game at 0,0; east is +x, north +y),
``inventory`` the carried things (name -> 1), ``state`` holds score (this game), total_score, moves (the
game's move counter), game (number), keys_held, rooms_seen (this game), tidied (items put into / onto
something so far), fails (refused attempts so far) and quests_left. ``relations[0]`` names what the
command acted on (the room entered for a move). Events are the suite's own words, derived from the
fact changes and the command: arrive (moved into a room), discover (first time in a room; also the start
room of a game), unlock / open / shut / lock (a door or container changed state), key fails (the game
refused an unlock with a wrong key), find locked (refused: tried to open a locked thing), bump into
(refused: walked at a closed door), pick up (a non-key item taken, also when taken back), pocket key,
take back (an item Mote had put away is taken again), stow / shelve (put into a container / onto a
supporter), rehome (a second placement of an item), inspect, check pockets, look around, earn point (a
quest completed; object: its item), start game and win game (object: "game N").

Questions (60 per seed, 6 per family) are computed from these records by the reference evaluator in
this module and checked against the generator's own index of the episode.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from collections import Counter, defaultdict

from graphmem.records import Event, Location, Relation, Step, validate_steps

SUITE = "heldout8_textworld"
SEED_RANGE = range(9600, 9700)
AGENT = "Mote"
SHORT = "tw8"

# --------------------------------------------------------------------------------------------------
# Name pools
# --------------------------------------------------------------------------------------------------

ROOM_POOL = [
    "workshop", "vault", "attic", "cellar", "pantry", "scullery", "foyer", "study", "library", "gallery",
    "armory", "boiler room", "cloakroom", "counting house", "forge", "garret", "greenhouse", "guardroom",
    "larder", "laundry", "lumber room", "map room", "mudroom", "music room", "office", "parlor",
    "potting shed", "print shop", "records room", "sewing room", "smithy", "solarium", "stable",
    "stockroom", "storeroom", "strongroom", "tack room", "tea room", "tool room", "trophy room",
    "wash house", "wine cellar", "archive", "bell tower", "chapel", "clock room", "coach house", "dairy",
    "drying loft", "engine room", "ferry office", "hat shop", "ice house", "lamp room", "mail room",
    "nursery", "observatory", "pump room", "reading room", "sail loft", "signal box", "still room",
    "vestibule", "watch room", "chart room", "bakehouse", "brewhouse", "buttery", "candle shop", "carpentry",
    "cistern", "conservatory", "cooperage", "crypt", "dovecote", "east wing", "gatehouse", "glazier's room",
    "granary", "gun room", "hayloft", "herb room", "infirmary", "kiln room", "linen room", "loom room",
    "mill room", "oriel", "pantheon", "pavilion", "pewter room", "pigeon loft", "porch", "powder room",
    "refectory", "rope walk", "saddlery", "salon", "sculpture hall", "servery", "spice room", "stairwell",
    "strong cellar", "summer kitchen", "tannery", "tapestry room", "turret", "undercroft", "west wing",
    "wheelhouse", "winter garden", "wood store",
]
DOOR_ADJ = ["oak", "iron", "pine", "cedar", "birch", "red", "green", "blue", "grey", "heavy", "narrow",
            "arched", "studded", "painted", "barred", "carved", "plain", "tall", "low", "elm"]
DOOR_NOUN = ["door", "gate", "hatch"]
CONT_ADJ = ["walnut", "tin", "steel", "cherry", "ebony", "lacquered", "dented", "riveted", "leather",
            "wicker", "maple", "zinc", "battered", "teak", "iron-banded", "velvet-lined"]
CONT_NOUN = ["chest", "locker", "cabinet", "strongbox", "trunk", "coffer", "crate", "safe"]
SUP_ADJ = ["pine", "oak", "steel", "marble", "slate", "long", "low", "scrubbed", "cluttered", "sturdy",
           "beech", "tiled"]
SUP_NOUN = ["shelf", "workbench", "table", "counter", "rack", "sideboard", "desk", "ledge"]
KEY_SHAPE = ["notched", "tiny", "long", "bent", "square", "hollow", "flat", "twisted", "worn", "ornate",
             "stubby", "toothed"]
KEY_METAL = ["brass", "iron", "copper", "silver", "steel", "bronze", "tin", "pewter", "nickel", "gilded"]
ITEM_POOL = [
    "lock pick", "tension wrench", "padlock", "hinge pin", "oil can", "screwdriver", "ledger", "lantern",
    "spring coil", "tin of rivets", "tumbler set", "latch plate", "hasp", "brass cylinder", "deadbolt",
    "rasp", "magnifier", "pliers", "wax tablet", "stick of chalk", "tape measure", "hand drill", "mallet",
    "feeler gauge", "pin tray", "ball of twine", "glue pot", "sandpaper", "polishing cloth", "spare spring",
    "shim stack", "notebook", "pencil stub", "candle", "rag", "brush", "whetstone", "vise grip",
    "wire spool", "bolt cutter", "spirit level", "jar of grease", "box of screws", "tweezers", "pin vise",
    "ward file", "impression foil", "combination dial", "door knob", "strike plate", "escutcheon",
    "lever set", "cam lock", "mortise case", "oilstone", "caliper", "thimble", "scribe", "awl",
    "hacksaw", "tin snips", "center punch", "countersink", "drill bit case", "jeweler's loupe", "bench brush",
    "hex driver", "pin punch", "plug follower", "pinning kit", "coil of wire", "sheet of brass", "bottle of oil",
    "graphite tube", "cutting board", "leather apron", "work gloves", "safety goggles",
    "clamp", "chisel", "gimlet", "sharpening steel", "spoke shave", "rivet gun", "soldering iron",
    "flux jar", "ingot", "cotter pins", "lock washer", "ring of wards", "dial indicator", "pocket scale",
    "bradawl", "file card", "hand vise", "cabinet scraper", "spring hook", "tumbler tray", "inkwell",
    "order book", "receipt pad", "price tag", "brass tag", "hook pick", "rake pick", "plug spinner",
]

BLOCKED = ("", {})  # a container Mote cannot get open yet
DIRS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
DIR_ORDER = ["north", "east", "south", "west"]
OPP = {"north": "south", "south": "north", "east": "west", "west": "east"}


class _Names:
    """Draws names without replacement for one episode, so that names never repeat across its games."""

    def __init__(self, rng: random.Random) -> None:
        self.pools = {
            "room": list(ROOM_POOL),
            "door": [f"{a} {n}" for a in DOOR_ADJ for n in DOOR_NOUN],
            "container": [f"{a} {n}" for a in CONT_ADJ for n in CONT_NOUN],
            "supporter": [f"{a} {n}" for a in SUP_ADJ for n in SUP_NOUN],
            "key": [f"{a} {m} key" for a in KEY_SHAPE for m in KEY_METAL],
            "item": list(ITEM_POOL),
        }
        for pool in self.pools.values():
            rng.shuffle(pool)
        self.used: dict[str, list[str]] = {k: [] for k in self.pools}

    def take(self, kind: str, n: int = 1) -> list[str]:
        out = []
        pool = self.pools[kind]
        while len(out) < n:
            name = pool.pop()
            out.append(name)
            self.used[kind].append(name)
        return out

    def room_for_a_game(self) -> bool:
        need = {"room": 9, "door": 8, "container": 5, "supporter": 4, "key": 8, "item": 10}
        return all(len(self.pools[k]) >= n + 6 for k, n in need.items())

    def unused(self, kind: str) -> list[str]:
        return list(self.pools[kind])


# --------------------------------------------------------------------------------------------------
# Game design (pure data) and construction with GameMaker
# --------------------------------------------------------------------------------------------------


def _design(rng: random.Random, names: _Names) -> dict:
    """A solvable world: a tree of rooms on a grid, doors, containers, supporters, keys, items, quests."""
    n_rooms = rng.randint(7, 9)
    cells = [(0, 0)]
    taken = {(0, 0)}
    edges = []  # (room a, direction from a, room b)
    while len(cells) < n_rooms:
        base = rng.randrange(len(cells))
        bx, by = cells[base]
        free = [d for d in DIR_ORDER if (bx + DIRS[d][0], by + DIRS[d][1]) not in taken]
        if not free:
            continue
        d = rng.choice(free)
        nb = (bx + DIRS[d][0], by + DIRS[d][1])
        cells.append(nb)
        taken.add(nb)
        edges.append((base, d, len(cells) - 1))
    rooms = names.take("room", n_rooms)

    order = list(range(len(edges)))
    rng.shuffle(order)
    n_locked = min(len(edges), rng.choice([2, 2, 3]))
    n_closed = min(len(edges) - n_locked, rng.choice([1, 2]))
    door_state = {}
    for i, e in enumerate(order):
        if i < n_locked:
            door_state[e] = "locked"
        elif i < n_locked + n_closed:
            door_state[e] = "closed"
        elif rng.random() < 0.4:
            door_state[e] = "open"
    door_names = dict(zip(sorted(door_state), names.take("door", len(door_state))))

    n_c = rng.randint(3, 5)
    n_lc = rng.choice([1, 2, 2])
    cont_names = names.take("container", n_c)
    containers = []
    for i, nm in enumerate(cont_names):
        containers.append({"name": nm, "room": rng.randrange(n_rooms), "locked": i < n_lc})
    n_s = rng.randint(2, 4)
    supporters = [{"name": nm, "room": rng.randrange(n_rooms)} for nm in names.take("supporter", n_s)]

    # Keys: unlock the world step by step from the start room, so every key is reachable before it is needed.
    locks = [("d", e) for e in sorted(door_state) if door_state[e] == "locked"]
    locks += [("c", i) for i, c in enumerate(containers) if c["locked"]]
    unlocked: set = set()

    def reach() -> set:
        seen = {0}
        todo = [0]
        while todo:
            r = todo.pop()
            for ei, (a, _, b) in enumerate(edges):
                if r not in (a, b):
                    continue
                if door_state.get(ei) == "locked" and ("d", ei) not in unlocked:
                    continue
                o = b if r == a else a
                if o not in seen:
                    seen.add(o)
                    todo.append(o)
        return seen

    def holders() -> list:
        rr = reach()
        hs = [("room", r) for r in sorted(rr)]
        hs += [("on", i) for i, s in enumerate(supporters) if s["room"] in rr]
        hs += [("in", i) for i, c in enumerate(containers)
               if c["room"] in rr and (not c["locked"] or ("c", i) in unlocked)]
        return hs

    key_names = names.take("key", len(locks))
    keys = []
    remaining = list(locks)
    prev_holders: set = set(holders())
    while remaining:
        rr = reach()
        frontier = [L for L in remaining
                    if (L[0] == "d" and (edges[L[1]][0] in rr or edges[L[1]][2] in rr))
                    or (L[0] == "c" and containers[L[1]]["room"] in rr)]
        L = rng.choice(frontier)
        hs = holders()
        weights = [3.0 if h not in prev_holders else 1.0 for h in hs]
        prev_holders = set(hs)
        h = rng.choices(hs, weights=weights)[0]
        keys.append({"name": key_names[len(keys)], "holder": h, "match": L})
        unlocked.add(L)
        remaining.remove(L)
    if rng.random() < 0.5:  # a spare key that fits nothing
        keys.append({"name": names.take("key")[0], "holder": rng.choice(holders()), "match": None})

    all_holders = [("room", r) for r in range(n_rooms)]
    all_holders += [("on", i) for i in range(len(supporters))] + [("in", i) for i in range(len(containers))]
    weights = [1.0 if h[0] == "room" else 1.6 for h in all_holders]
    items = [{"name": nm, "holder": rng.choices(all_holders, weights=weights)[0]}
             for nm in names.take("item", rng.randint(7, 10))]

    def holder_room(h):
        if h[0] == "room":
            return h[1]
        return (supporters if h[0] == "on" else containers)[h[1]]["room"]

    targets = [("on", i) for i in range(len(supporters))] + [("in", i) for i in range(len(containers))]
    quests = []
    for it in rng.sample(range(len(items)), rng.choice([2, 2, 3])):
        cands = [t for t in targets if t != items[it]["holder"]
                 and holder_room(t) != holder_room(items[it]["holder"])] or [t for t in targets if t != items[it]["holder"]]
        t = rng.choice(cands)
        need_lock = t[0] == "in" and containers[t[1]]["locked"] and rng.random() < 0.6
        quests.append({"item": it, "target": t, "lock": need_lock})
    return {"rooms": rooms, "cells": cells, "edges": edges, "door_state": door_state, "door_names": door_names,
            "containers": containers, "supporters": supporters, "keys": keys, "items": items, "quests": quests}


_KB = None


def _build_game(design: dict, seed: int):
    """Build the TextWorld game of a design with GameMaker (no compilation: played by the logic engine)."""
    global _KB
    import textworld
    from textworld import GameMaker
    from textworld.generator.data import KnowledgeBase
    from textworld.generator.game import Event as TwEvent
    from textworld.generator.game import Quest

    if _KB is None:
        _KB = KnowledgeBase.default()
    opts = textworld.GameOptions()
    opts.seeds = seed
    opts.kb = _KB
    M = GameMaker(opts)
    rooms = [M.new_room(name) for name in design["rooms"]]
    doors = {}
    for ei, (a, d, b) in enumerate(design["edges"]):
        path = M.connect(rooms[a].exits[d], rooms[b].exits[OPP[d]])
        if ei in design["door_state"]:
            door = M.new_door(path, design["door_names"][ei])
            door.add_property(design["door_state"][ei])
            doors[ei] = door
    conts = []
    for c in design["containers"]:
        e = M.new("c", c["name"])
        e.add_property("locked" if c["locked"] else "closed")
        rooms[c["room"]].add(e)
        conts.append(e)
    sups = []
    for s in design["supporters"]:
        e = M.new("s", s["name"])
        rooms[s["room"]].add(e)
        sups.append(e)

    def holder(h):
        return rooms[h[1]] if h[0] == "room" else (sups[h[1]] if h[0] == "on" else conts[h[1]])

    for k in design["keys"]:
        e = M.new("k", k["name"])
        holder(k["holder"]).add(e)
        if k["match"] is not None:
            kind, idx = k["match"]
            M.add_fact("match", e, doors[idx] if kind == "d" else conts[idx])
    items = []
    for it in design["items"]:
        e = M.new("o", it["name"])
        holder(it["holder"]).add(e)
        items.append(e)
    M.set_player(rooms[0])
    quests = []
    for q in design["quests"]:
        tgt = holder(q["target"])
        conds = [M.new_fact("in" if q["target"][0] == "in" else "on", items[q["item"]], tgt)]
        if q["lock"]:
            conds.append(M.new_fact("locked", tgt))
        quests.append(Quest(win_events=[TwEvent(conditions=conds)]))
    M.quests = quests
    return M.build()


# --------------------------------------------------------------------------------------------------
# Playing one game
# --------------------------------------------------------------------------------------------------


class _Game:
    """One TextWorld game, played through ``TextWorldEnv`` from its saved file; facts parsed into views."""

    def __init__(self, game, path: str, design: dict, number: int) -> None:
        from textworld import EnvInfos
        from textworld.envs.tw import TextWorldEnv

        game.save(path)
        self.env = TextWorldEnv(EnvInfos(moves=True, score=True, won=True, max_score=True))
        self.env.load(path)
        self.number = number
        self.design = design
        self.names = {vid: info.name for vid, info in self.env._game.infos.items()}
        self.state = self.env.reset()
        facts = self.state["_facts"]
        self.view = self._view(facts)
        self.pos = self._positions(facts)
        d = design
        self.exits: dict[str, dict[str, tuple[str, str | None]]] = {r: {} for r in d["rooms"]}
        for ei, (a, dr, b) in enumerate(d["edges"]):
            door = d["door_names"].get(ei)
            self.exits[d["rooms"][a]][dr] = (d["rooms"][b], door)
            self.exits[d["rooms"][b]][OPP[dr]] = (d["rooms"][a], door)
        self.cont_room = {c["name"]: d["rooms"][c["room"]] for c in d["containers"]}
        self.sup_room = {s["name"]: d["rooms"][s["room"]] for s in d["supporters"]}
        self.keys = {k["name"] for k in d["keys"]}
        self.items = {it["name"] for it in d["items"]}
        self.match: dict[str, str] = {}
        for k in d["keys"]:
            if k["match"] is not None:
                kind, idx = k["match"]
                lock = d["door_names"][idx] if kind == "d" else d["containers"][idx]["name"]
                self.match[lock] = k["name"]
        self.orig_locked = set(self.match)
        self.quests = []
        for q in d["quests"]:
            kind, idx = q["target"]
            tgt = (d["containers"] if kind == "in" else d["supporters"])[idx]["name"]
            self.quests.append({"item": d["items"][q["item"]]["name"], "holder": tgt, "pred": kind, "lock": q["lock"]})
        self.score = 0
        self.moves = 0

    def _view(self, facts) -> dict:
        nm = self.names
        v = {"room": None, "loc": {}, "status": {}}
        for p in facts:
            a = [x.name for x in p.arguments]
            if p.name == "at":
                if a[0] == "P":
                    v["room"] = nm[a[1]]
                else:
                    v["loc"][nm[a[0]]] = ("room", nm[a[1]])
            elif p.name == "in":
                v["loc"][nm[a[0]]] = ("inv", "") if a[1] == "I" else ("in", nm[a[1]])
            elif p.name == "on":
                v["loc"][nm[a[0]]] = ("on", nm[a[1]])
            elif p.name in ("open", "closed", "locked"):
                v["status"][nm[a[0]]] = p.name
        return v

    def _positions(self, facts) -> dict:
        """Grid coordinates of each room from the map facts, the start room at (0, 0)."""
        nm = self.names
        rel = defaultdict(list)
        for p in facts:
            if p.name in ("north_of", "west_of"):
                a, b = (nm[x.name] for x in p.arguments)  # a is north/west of b
                dx, dy = (0, 1) if p.name == "north_of" else (-1, 0)
                rel[b].append((a, dx, dy))
                rel[a].append((b, -dx, -dy))
        start = self.view["room"]
        pos = {start: (0, 0)}
        todo = [start]
        while todo:
            r = todo.pop()
            for o, dx, dy in sorted(rel[r]):
                if o not in pos:
                    pos[o] = (pos[r][0] + dx, pos[r][1] + dy)
                    todo.append(o)
        return pos

    def completed(self) -> list[bool]:
        return [qp.completed for qp in self.env._game_progression.quest_progressions]

    def step(self, cmd: str) -> tuple[bool, bool]:
        before = self.state
        self.state, score, done = self.env.step(cmd)
        valid = self.state.feedback != "Invalid command."
        if valid:
            assert cmd in before["admissible_commands"], cmd
        else:
            assert cmd not in before["admissible_commands"], cmd
        self.score = int(score)
        self.moves = int(self.state["moves"])
        self.view = self._view(self.state["_facts"])
        return valid, bool(self.state["won"])


class _Mote:
    """The locksmith's policy for one game: explore, unlock, loot, tidy, second thoughts, quests last."""

    def __init__(self, rng: random.Random, game: _Game) -> None:
        self.rng = rng
        self.g = game
        self.visited: set[str] = set()
        self.seen: set[str] = set()
        self.opened_once: set[str] = set()
        self.failed: dict[str, set[str]] = defaultdict(set)
        self.known_key: dict[str, str] = {}
        self.tried_open: set[str] = set()
        self.bumped: set[str] = set()
        self.placed: dict[str, str] = {}
        self.place_count: Counter = Counter()
        self.home: dict[str, str] = {}
        self.lock_behind: tuple[str, str] | None = None
        self.change_mind = False
        self.secure_plan: list[tuple[str, bool]] | None = None
        self.last_cmd = ""
        self.quest_items = {q["item"] for q in game.quests}
        self.quest_holder = {q["item"]: q["holder"] for q in game.quests}

    # ---- helpers over the current view ----
    @property
    def v(self):
        return self.g.view

    def room(self) -> str:
        return self.v["room"]

    def carried(self) -> list[str]:
        return sorted(x for x, loc in self.v["loc"].items() if loc[0] == "inv")

    def portable(self) -> list[str]:
        return sorted(x for x in self.v["loc"] if x in self.g.keys or x in self.g.items)

    def keys(self) -> list[str]:
        return [x for x in self.carried() if x in self.g.keys]

    def status(self, x: str) -> str:
        return self.v["status"].get(x, "open")

    def holder_room(self, h: str) -> str:
        return self.g.cont_room.get(h) or self.g.sup_room[h]

    def containers_in(self, r: str) -> list[str]:
        return sorted(c for c, rr in self.g.cont_room.items() if rr == r)

    def supporters_in(self, r: str) -> list[str]:
        return sorted(s for s, rr in self.g.sup_room.items() if rr == r)

    def can_unlock(self, lock: str) -> bool:
        keys = self.keys()
        if self.known_key.get(lock) in keys:
            return True
        return any(k not in self.failed[lock] for k in keys)

    def reachable_holder(self, h: str) -> bool:
        return h in self.g.sup_room or self.status(h) != "locked" or self.can_unlock(h)

    def usable(self, h: str) -> bool:
        if h in self.g.sup_room:
            return True
        return self.status(h) != "locked" or self.known_key.get(h) in self.keys()

    def accessible(self, x: str, r: str) -> str | None:
        """The holder x can be taken from in room r ('' for the floor), or None."""
        loc = self.v["loc"].get(x)
        if loc is None:
            return None
        if loc == ("room", r):
            return ""
        if loc[0] == "on" and self.g.sup_room.get(loc[1]) == r:
            return loc[1]
        if loc[0] == "in" and self.g.cont_room.get(loc[1]) == r and self.status(loc[1]) == "open":
            return loc[1]
        return None

    def loose(self, x: str) -> bool:
        """Not yet dealt with: a key not carried, or an item neither carried nor where Mote put it."""
        loc = self.v["loc"][x]
        if loc[0] == "inv":
            return False
        if x in self.g.keys:
            return True
        if x in self.quest_items:
            return loc[1] != self.quest_holder[x]
        return self.placed.get(x) != loc[1]

    def quest_done(self, item: str) -> bool:
        for q, done in zip(self.g.quests, self.g.completed()):
            if q["item"] == item:
                return done
        return False

    def open_quests(self) -> list[dict]:
        return [q for q, done in zip(self.g.quests, self.g.completed()) if not done]

    def all_done(self) -> bool:
        if len(self.visited) < len(self.g.design["rooms"]):
            return False
        if any(self.loose(x) for x in self.portable()):
            return False
        if any(c not in self.opened_once for c in self.g.cont_room):
            return False
        if any(x not in self.g.keys and x not in self.quest_items for x in self.carried()):
            return False
        return self.lock_behind is None

    # ---- key handling ----
    def unlock_cmd(self, lock: str):
        keys = self.keys()
        if self.known_key.get(lock) in keys:
            k = self.known_key[lock]
            return f"unlock {lock} with {k}", {"t": "unlock", "lock": lock, "key": k, "ok": True}
        cands = [k for k in keys if k not in self.failed[lock]]
        if not cands:
            return None
        if lock not in self.tried_open:
            self.tried_open.add(lock)
            if self.rng.random() < 0.3:
                return f"open {lock}", {"t": "find locked", "lock": lock, "ok": False}
        right = self.g.match.get(lock)
        wrong = [k for k in cands if k != right]
        if right in cands and (not wrong or self.rng.random() < 0.55):
            k = right
        else:
            k = self.rng.choice(wrong)
        return f"unlock {lock} with {k}", {"t": "unlock", "lock": lock, "key": k, "ok": k == right}

    def reach_cmd(self, h: str):
        """The command that gets container h open (unlock / open); None when it is open, BLOCKED when Mote
        holds no key it has not tried on it yet."""
        st = self.status(h)
        if st == "locked":
            return self.unlock_cmd(h) or BLOCKED
        if st == "closed":
            return f"open {h}", {"t": "open", "ok": True}
        return None

    def choose_home(self, item: str, exclude: str | None = None) -> str | None:
        r = self.room()
        rooms = sorted(rr for rr in self.visited if any(
            self.usable(h) and h != exclude for h in self.containers_in(rr) + self.supporters_in(rr)))
        if not rooms:
            return None
        here = [h for h in self.containers_in(r) + self.supporters_in(r) if self.usable(h) and h != exclude]
        if here and self.rng.random() < 0.45:
            return self.rng.choice(here)
        rr = self.rng.choice(rooms)
        return self.rng.choice([h for h in self.containers_in(rr) + self.supporters_in(rr)
                                if self.usable(h) and h != exclude])

    def place_cmd(self, item: str, h: str):
        if h in self.g.cont_room:
            step = self.reach_cmd(h)
            if step is not None:
                return step  # may be BLOCKED
            return f"insert {item} into {h}", {"t": "place", "ok": True}
        return f"put {item} on {h}", {"t": "place", "ok": True}

    # ---- decision ----
    def decide(self):
        r = self.room()
        rng = self.rng
        carried = self.carried()
        keys = self.keys()

        if self.lock_behind is not None:
            door, k = self.lock_behind
            adjacent = any(dd == door for _, dd in self.g.exits[r].values())
            if adjacent and self.status(door) == "open":
                return f"close {door}", {"t": "close", "ok": True}
            self.lock_behind = None
            if adjacent and self.status(door) == "closed" and k in keys:
                return f"lock {door} with {k}", {"t": "lock", "lock": door, "key": k, "ok": True}

        if self.last_cmd not in ("inventory", "look"):
            roll = rng.random()
            if roll < 0.03:
                return "inventory", {"t": "inventory", "ok": True}
            if roll < 0.045:
                return "look", {"t": "look", "ok": True}

        finishing = self.all_done()
        oq = self.open_quests()
        for i, q in enumerate(oq):
            if i == len(oq) - 1 and not finishing:
                continue
            h = q["holder"]
            if self.holder_room(h) != r:
                continue
            if q["item"] in carried:
                step = self.place_cmd(q["item"], h)
                if step is not BLOCKED:
                    return step
                continue
            if q["lock"] and self.v["loc"].get(q["item"]) == ("in", h):
                if self.status(h) == "open":
                    return f"close {h}", {"t": "close", "ok": True}
                k = self.known_key.get(h)
                if self.status(h) == "closed" and k in keys:
                    return f"lock {h} with {k}", {"t": "lock", "lock": h, "key": k, "ok": True}

        for it in carried:
            if it in self.g.keys or it in self.quest_items:
                continue
            h = self.home.get(it)
            if h is None or not self.usable(h):
                h = self.home[it] = self.choose_home(it)
            if h is not None and self.holder_room(h) == r:
                step = self.place_cmd(it, h)
                if step is not BLOCKED:
                    return step
                self.home[it] = self.choose_home(it, exclude=h)

        if self.change_mind:
            self.change_mind = False
            cands = [it for it, h in sorted(self.placed.items())
                     if self.holder_room(h) == r and it not in self.quest_items and self.place_count[it] < 2
                     and self.accessible(it, r) == h]
            if cands:
                it = rng.choice(cands)
                old = self.placed[it]
                new = self.choose_home(it, exclude=old)
                if new is not None:
                    others = [h for h in self.containers_in(r) + self.supporters_in(r) if h != old and self.usable(h)]
                    if others and rng.random() < 0.55:
                        new = rng.choice(others)
                    self.home[it] = new
                    return f"take {it} from {old}", {"t": "take", "ok": True}

        for x in sorted(self.portable(), key=lambda n: (n not in self.g.keys, n)):
            if x in carried or not self.loose(x):
                continue
            src = self.accessible(x, r)
            if src is None:
                continue
            if x not in self.g.keys and x not in self.quest_items:
                self.home.pop(x, None)
            return (f"take {x}" if src == "" else f"take {x} from {src}"), {"t": "take", "ok": True}

        here = self.containers_in(r) + self.supporters_in(r) + sorted(
            {dd for _, dd in self.g.exits[r].values() if dd is not None})
        for x in here:
            if x not in self.seen:
                self.seen.add(x)
                if rng.random() < 0.3:
                    return f"examine {x}", {"t": "examine", "ok": True}
        if carried and rng.random() < 0.025:
            return f"examine {rng.choice(carried)}", {"t": "examine", "ok": True}

        for c in self.containers_in(r):
            if c in self.opened_once and not any(
                    self.v["loc"][x] == ("in", c) and self.loose(x) for x in self.portable()):
                continue
            if self.status(c) == "open":
                self.opened_once.add(c)
                continue
            step = self.reach_cmd(c)
            if step is not None and step is not BLOCKED:
                return step

        if self.secure_plan is None:
            plan = []
            pending = {self.home.get(it) for it in carried} | {q["holder"] for q in oq}
            for c in self.containers_in(r):
                if self.status(c) != "open" or c in pending or c not in self.opened_once:
                    continue
                if c in self.g.orig_locked and self.known_key.get(c) in keys and rng.random() < 0.45:
                    plan.append((c, True))
                elif rng.random() < 0.25:
                    plan.append((c, False))
            self.secure_plan = plan
        while self.secure_plan:
            c, lock = self.secure_plan[0]
            if self.status(c) == "open":
                return f"close {c}", {"t": "close", "ok": True}
            self.secure_plan.pop(0)
            k = self.known_key.get(c)
            if lock and self.status(c) == "closed" and k in keys:
                return f"lock {c} with {k}", {"t": "lock", "lock": c, "key": k, "ok": True}

        return self.move(finishing, oq)

    def goals(self, finishing: bool, oq: list[dict]) -> list[set[str]]:
        tidy = set()
        for it in self.carried():
            h = self.home.get(it)
            if h is not None and it not in self.quest_items and it not in self.g.keys and self.reachable_holder(h):
                tidy.add(self.holder_room(h))
        for i, q in enumerate(oq):
            if i == len(oq) - 1 or not self.reachable_holder(q["holder"]):
                continue
            if q["item"] in self.carried() or (q["lock"] and self.v["loc"].get(q["item"]) == ("in", q["holder"])):
                tidy.add(self.holder_room(q["holder"]))
        explore = set()
        for r in self.visited:
            for r2, _ in self.g.exits[r].values():
                if r2 not in self.visited:
                    explore.add(r2)
        for c, rr in self.g.cont_room.items():
            if c not in self.opened_once and (self.status(c) != "locked" or self.can_unlock(c)) and rr in self.visited:
                explore.add(rr)
        for x in self.portable():
            if self.loose(x):
                loc = self.v["loc"][x]
                if loc[0] == "room":
                    rr = loc[1]
                else:
                    rr = self.holder_room(loc[1])
                    if loc[0] == "in" and self.status(loc[1]) == "locked" and not self.can_unlock(loc[1]):
                        continue
                if rr in self.visited:
                    explore.add(rr)
        final = set()
        if finishing and oq:
            final.add(self.holder_room(oq[-1]["holder"]))
        return [tidy | explore, final]

    def passable(self, door: str | None) -> bool:
        return door is None or self.status(door) != "locked" or self.can_unlock(door)

    def move(self, finishing: bool, oq: list[dict]):
        r = self.room()
        for targets in self.goals(finishing, oq):
            targets = targets - {r}
            if not targets:
                continue
            prev = {r: None}
            frontier = [r]
            found = None
            while frontier and found is None:
                nxt = []
                for a in frontier:
                    if a not in self.visited:
                        continue
                    for d in DIR_ORDER:
                        if d not in self.g.exits[a]:
                            continue
                        b, door = self.g.exits[a][d]
                        if b in prev or not self.passable(door):
                            continue
                        prev[b] = (a, d, door)
                        nxt.append(b)
                hits = sorted(b for b in nxt if b in targets)
                if hits:
                    found = hits[0]
                frontier = nxt
            if found is None:
                continue
            node = found
            while prev[node][0] != r:
                node = prev[node][0]
            _, d, door = prev[node]
            if door is not None:
                st = self.status(door)
                if st == "locked":
                    return self.unlock_cmd(door)
                if st == "closed":
                    if door not in self.bumped and self.rng.random() < 0.25:
                        self.bumped.add(door)
                        return f"go {d}", {"t": "bump", "door": door, "ok": False}
                    return f"open {door}", {"t": "open", "ok": True}
            return f"go {d}", {"t": "go", "door": door, "ok": True}
        return None

    def after(self, cmd: str, intent: dict, valid: bool, before: dict) -> None:
        """Update Mote's knowledge after a command."""
        self.last_cmd = cmd
        t = intent["t"]
        if t in ("unlock", "lock"):
            if valid:
                self.known_key[intent["lock"]] = intent["key"]
            else:
                self.failed[intent["lock"]].add(intent["key"])
        if t == "open" and valid:
            for c in self.g.cont_room:
                if before["status"].get(c) != "open" and self.status(c) == "open":
                    self.opened_once.add(c)
        for x, loc in self.v["loc"].items():
            old = before["loc"].get(x)
            if old != loc and old is not None and old[0] == "inv" and loc[0] in ("in", "on"):
                self.placed[x] = loc[1]
                self.place_count[x] += 1
        if before["room"] != self.room():
            self.secure_plan = None
            self.change_mind = any(self.holder_room(h) == self.room() for h in self.placed.values()) \
                and self.rng.random() < 0.3
            door = intent.get("door")
            if door in self.g.orig_locked and self.known_key.get(door) in self.keys() and self.rng.random() < 0.3:
                self.lock_behind = (door, self.known_key[door])
        self.visited.add(self.room())


# --------------------------------------------------------------------------------------------------
# Episode: games back to back, turned into Step records
# --------------------------------------------------------------------------------------------------

_SENT = {
    "arrive": "{A} walks into the {o}.",
    "discover": "{A} has not been in the {o} before.",
    "unlock": "{A} unlocks the {o}.",
    "open": "{A} opens the {o}.",
    "shut": "{A} closes the {o}.",
    "lock": "{A} locks the {o}.",
    "key fails": "The key does not fit the {o}.",
    "find locked": "The {o} is locked.",
    "bump into": "The {o} is closed; {A} cannot walk through it.",
    "pick up": "{A} takes the {o}.",
    "pocket key": "{A} pockets the {o}.",
    "take back": "{A} has second thoughts about where the {o} belongs.",
    "stow": "{A} puts the {o} away inside.",
    "shelve": "{A} sets the {o} down on top.",
    "rehome": "The {o} has a new place now.",
    "inspect": "{A} examines the {o} closely.",
    "check pockets": "{A} checks the inventory.",
    "look around": "{A} looks around the {o}.",
    "earn point": "A quest is done: the score goes up.",
    "start game": "A new game begins: {o}.",
    "win game": "{A} has won {o}.",
}


def _play_episode(seed: int) -> tuple[list[Step], dict]:
    rng = random.Random(seed * 7919 + 17)
    names = _Names(random.Random(seed * 31 + 5))
    target = rng.randint(360, 560)
    steps: list[Step] = []
    totals = {"total_score": 0, "tidied": 0, "fails": 0}
    with tempfile.TemporaryDirectory(prefix="tw8_") as tmp:
        g = 0
        while (len(steps) < target or g < 3) and names.room_for_a_game():
            g += 1
            design = _design(random.Random(seed * 1000 + g), names)
            game = _build_game(design, seed * 100 + g)
            tg = _Game(game, os.path.join(tmp, f"game{g}.json"), design, g)
            mote = _Mote(random.Random(seed * 613 + g * 97), tg)
            _play_game(tg, mote, steps, totals)
        unused = {k: names.unused(k) for k in names.pools}
    assert 350 <= len(steps) <= 800, len(steps)
    return steps, unused


def _play_game(tg: _Game, mote: _Mote, steps: list[Step], totals: dict) -> None:
    g = tg.number
    gname = f"game {g}"
    first = True
    budget = 0
    stuck = 0
    while True:
        before = tg.view
        comp_before = tg.completed()
        if first:
            cmd, intent = "look", {"t": "look", "ok": True}
        else:
            choice = mote.decide()
            if choice is None:
                stuck += 1
                assert stuck < 3, "agent stuck"
                cmd, intent = "look", {"t": "look", "ok": True}
            else:
                cmd, intent = choice
        valid, won = tg.step(cmd)
        assert valid == intent["ok"], (cmd, intent, valid)
        after = tg.view
        room = after["room"]
        events: list[Event] = []
        focus = None
        rels: list[Relation] = []
        t = intent["t"]
        words = cmd.split()
        if first:
            events += [Event("start game", gname), Event("discover", room), Event("look around", room)]
            focus = room
        elif not valid:
            totals["fails"] += 1
            if t == "unlock":
                events.append(Event("key fails", intent["lock"]))
                focus = intent["lock"]
                rels.append(Relation(AGENT, "tried key", intent["key"]))
            elif t == "find locked":
                events.append(Event("find locked", intent["lock"]))
                focus = intent["lock"]
            elif t == "bump":
                events.append(Event("bump into", intent["door"]))
                focus = intent["door"]
        else:
            if cmd == "inventory":
                events.append(Event("check pockets"))
                focus = "inventory"
            elif cmd == "look":
                events.append(Event("look around", room))
                focus = room
            elif words[0] == "examine":
                x = cmd[len("examine "):]
                events.append(Event("inspect", x))
                focus = x
            if before["room"] != room:
                events.append(Event("arrive", room))
                if room not in mote.visited:
                    events.append(Event("discover", room))
                focus = room
            for x in sorted(after["loc"]):
                old, new = before["loc"].get(x), after["loc"][x]
                if old == new:
                    continue
                focus = focus or x
                if new[0] == "inv":
                    if x in tg.keys:
                        events.append(Event("pocket key", x))
                    else:
                        events.append(Event("pick up", x))
                        if mote.placed.get(x) == old[1]:
                            events.append(Event("take back", x))
                    if old[0] != "room":
                        rels.append(Relation(x, "taken from", old[1]))
                elif old[0] == "inv":
                    events.append(Event("stow" if new[0] == "in" else "shelve", x))
                    rels.append(Relation(x, "in" if new[0] == "in" else "on", new[1]))
                    totals["tidied"] += 1
                    if mote.place_count[x] >= 1:
                        events.append(Event("rehome", x))
            for x in sorted(set(before["status"]) | set(after["status"])):
                old, new = before["status"].get(x), after["status"].get(x)
                if old == new:
                    continue
                focus = focus or x
                kind = {("locked", "closed"): "unlock", ("closed", "open"): "open",
                        ("open", "closed"): "shut", ("closed", "locked"): "lock"}[(old, new)]
                events.append(Event(kind, x))
                if kind in ("unlock", "lock"):
                    rels.append(Relation(AGENT, "used key", intent["key"]))
            comp_after = tg.completed()
            for q, b, a in zip(tg.quests, comp_before, comp_after):
                if a and not b:
                    events.append(Event("earn point", q["item"]))
            if won:
                events.append(Event("win game", gname))
        assert events and focus, (cmd, intent)
        mote.after(cmd, intent, valid, before)
        totals["total_score"] += tg.score - (steps[-1].state_dict["score"] if steps and not first else 0)
        inv = {x: 1 for x in sorted(x for x, loc in after["loc"].items() if loc[0] == "inv")}
        keys_held = sum(1 for x in inv if x in tg.keys)
        state = {
            "score": tg.score, "total_score": totals["total_score"], "moves": tg.moves, "game": g,
            "keys_held": keys_held, "rooms_seen": len(mote.visited), "tidied": totals["tidied"],
            "fails": totals["fails"], "quests_left": sum(1 for c in tg.completed() if not c),
        }
        obs = " ".join(_SENT[e.kind].format(A=AGENT, o=e.obj) for e in events)
        if not valid:
            obs = "The game refuses: " + obs
        x, y = tg.pos[room]
        steps.append(Step(
            t=len(steps), action=cmd, summary="", objects=tuple(dict.fromkeys(
                [e.obj for e in events if e.obj and not e.obj.startswith("game ")])),
            events=tuple(events), relations=tuple([Relation(AGENT, "acts on", focus)] + rels),
            inventory=inv, state=state, location=Location(position=(x, y), region=room), observation=obs))
        first = False
        budget += 1
        assert budget < 320, "game did not finish"
        if won:
            return


# --------------------------------------------------------------------------------------------------
# Reference evaluator: a plain scan over the steps
# --------------------------------------------------------------------------------------------------


def _label(kind: str, obj: str | None) -> str:
    return f"{kind} {obj}" if obj else kind


def _matches(step: Step, pat: tuple) -> bool:
    kind, obj = pat
    return any(e.kind == kind and (obj is None or e.obj == obj) for e in step.events)


def _slot_value(step: Step, slot: str, param: str | None = None) -> str:
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        return step.location.region
    if slot == "position":
        x, y = step.location.position
        return f"{x},{y}"
    if slot == "inventory":
        items = [f"{n} {c}" for n, c in sorted(step.inventory) if c > 0]
        return ", ".join(items) if items else "none"
    if slot == "item":
        return str(step.inventory_dict.get(param, 0))
    if slot == "state":
        value = step.state_dict[param]
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    if slot == "facing":
        return step.relations[0].obj
    if slot == "events":
        return "; ".join(_label(e.kind, e.obj) for e in step.events) if step.events else "none"
    raise ValueError(slot)


def _resolve(steps: list[Step], anchor: dict) -> tuple[int, bool]:
    """(step index, whether an event located it) of an anchor {"step": t} or {"pat": p, "n": n}."""
    if "step" in anchor:
        return anchor["step"], False
    ts = [s.t for s in steps if _matches(s, anchor["pat"])]
    n = anchor["n"]
    return (ts[n - 1] if n > 0 else ts[n]), True


def _window(steps: list[Step], w: dict):
    """A predicate over step indices and the event-located anchor steps of a window."""
    kind = w["w"]
    if kind == "all":
        return (lambda t: True), []
    if kind == "steps":
        return (lambda t: w["lo"] < t < w["hi"]), []
    if kind == "first":
        return (lambda t: t < w["n"]), []
    if kind == "after":
        return (lambda t: t > w["t"]), []
    if kind == "before":
        return (lambda t: t < w["t"]), []
    if kind == "events":
        ta, _ = _resolve(steps, w["a"])
        tb, _ = _resolve(steps, w["b"])
        return (lambda t: ta < t < tb), [ta, tb]
    if kind == "game":
        ts = [s.t for s in steps if s.state_dict["game"] == w["g"]]
        inside = set(ts)
        return (lambda t: t in inside), [ts[0], ts[-1]]
    raise ValueError(kind)


def _cond_value(step: Step, cond: dict):
    return step.inventory_dict.get(cond["item"], 0) if "item" in cond else step.state_dict[cond["var"]]


def _cond_hits(steps: list[Step], cond: dict) -> list[int]:
    c = cond["c"]
    hits = []
    prev = None
    for s in steps:
        v = _cond_value(s, cond)
        if c == "ge" and v >= cond["v"]:
            hits.append(s.t)
        elif c == "gt" and v > cond["v"]:
            hits.append(s.t)
        elif c == "eq" and v == cond["v"]:
            hits.append(s.t)
        elif c == "has" and v > 0:
            hits.append(s.t)
        elif c == "drop_zero" and v == 0 and prev is not None and prev > 0:
            hits.append(s.t)
        prev = v
    return hits


def _gold(ep: str, ts) -> list[str]:
    return [f"{ep}:{t}" for t in sorted(set(ts))]


def evaluate(ep: str, steps: list[Step], q: dict) -> tuple[str, list[str]]:
    """The answer and gold source ids of a structured question, by scanning the episode's steps."""
    op = q["op"]
    slot, param = q.get("slot"), q.get("param")
    if op == "at":
        t = q["t"]
        return _slot_value(steps[t], slot, param), _gold(ep, [t])
    if op in ("nth", "nth_in"):
        pred, anchors = _window(steps, q.get("window", {"w": "all"}))
        ts = [s.t for s in steps if pred(s.t) and _matches(s, q["pat"])]
        n = q["n"]
        t = ts[n - 1] if n > 0 else ts[n]
        return _slot_value(steps[t], slot, param), _gold(ep, anchors + [t])
    if op == "cond":
        hits = _cond_hits(steps, q["cond"])
        t = hits[0] if q["which"] == "first" else hits[-1]
        return _slot_value(steps[t], slot, param), _gold(ep, [t])
    if op == "offset":
        t0, located = _resolve(steps, q["anchor"])
        t = t0 + q["k"]
        return _slot_value(steps[t], slot, param), _gold(ep, ([t0] if located else []) + [t])
    if op == "nextprev":
        t0, located = _resolve(steps, q["anchor"])
        if q["dir"] == "next":
            t = next(s.t for s in steps if s.t > t0 and _matches(s, q["pat"]))
        else:
            t = [s.t for s in steps if s.t < t0 and _matches(s, q["pat"])][-1]
        return _slot_value(steps[t], slot, param), _gold(ep, ([t0] if located else []) + [t])
    if op in ("count", "list", "exists"):
        pred, anchors = _window(steps, q["window"])
        ts = [s.t for s in steps if pred(s.t) and _matches(s, q["pat"])]
        if op == "count":
            return str(len(ts)), _gold(ep, anchors + (ts if len(ts) <= 5 else ts[-1:]))
        if op == "list":
            kind, _ = q["pat"]
            names = sorted({e.obj for t in ts for e in steps[t].events if e.kind == kind})
            return ", ".join(names) if names else "none", _gold(ep, anchors + (ts if len(ts) <= 5 else ts[-1:]))
        return ("yes", _gold(ep, anchors + ts[:1])) if ts else ("no", _gold(ep, anchors))
    if op == "order":
        ta, _ = _resolve(steps, q["a"])
        tb, _ = _resolve(steps, q["b"])
        first = q["a"] if ta < tb else q["b"]
        return _label(*first["pat"]), _gold(ep, [ta, tb])
    if op == "dist":
        ta, la = _resolve(steps, q["a"])
        tb, lb = _resolve(steps, q["b"])
        return str(abs(ta - tb)), _gold(ep, ([ta] if la else []) + ([tb] if lb else []))
    raise ValueError(op)


# --------------------------------------------------------------------------------------------------
# Wording
# --------------------------------------------------------------------------------------------------

# kind -> (phrases with a named object, phrases for any object); each phrase is (base form, past form).
PHRASES = {
    "arrive": ([("enter the {o}", "entered the {o}"), ("walk into the {o}", "walked into the {o}"),
                ("step into the {o}", "stepped into the {o}"), ("arrive in the {o}", "arrived in the {o}"),
                ("go into the {o}", "went into the {o}")],
               [("enter a room", "entered a room"), ("walk into a room", "walked into a room"),
                ("move into another room", "moved into another room")]),
    "discover": ([("discover the {o}", "discovered the {o}"), ("come upon the {o}", "came upon the {o}"),
                  ("find the {o}", "found the {o}")],
                 [("discover a new room", "discovered a new room"), ("find a previously unseen room", "found a previously unseen room"),
                  ("come upon an unseen room", "came upon an unseen room")]),
    "unlock": ([("unlock the {o}", "unlocked the {o}"), ("undo the lock of the {o}", "undid the lock of the {o}"),
                ("get a key to turn in the {o}", "got a key to turn in the {o}")],
               [("unlock something", "unlocked something"), ("undo a lock", "undid a lock"),
                ("get a key to turn in a lock", "got a key to turn in a lock")]),
    "open": ([("open the {o}", "opened the {o}"), ("swing the {o} wide", "swung the {o} wide")],
             [("open something", "opened something"), ("swing a door or lid wide", "swung a door or lid wide")]),
    "shut": ([("close the {o}", "closed the {o}"), ("shut the {o}", "shut the {o}"), ("pull the {o} to", "pulled the {o} to")],
             [("close a door or lid", "closed a door or lid"), ("shut something", "shut something")]),
    "lock": ([("lock the {o}", "locked the {o}"), ("secure the {o} with its key", "secured the {o} with its key"),
              ("lock up the {o}", "locked up the {o}")],
             [("lock something", "locked something"), ("secure something with its key", "secured something with its key")]),
    "key fails": ([("try a wrong key on the {o}", "tried a wrong key on the {o}"),
                   ("have a key refused by the {o}", "had a key refused by the {o}"),
                   ("fail to unlock the {o} with the wrong key", "failed to unlock the {o} with the wrong key")],
                  [("try an ill-fitting key", "tried an ill-fitting key"), ("use the wrong key", "used the wrong key"),
                   ("fumble with a wrong key", "fumbled with a wrong key")]),
    "find locked": ([("find the {o} still locked", "found the {o} still locked"),
                     ("try to open the locked {o}", "tried to open the locked {o}")],
                    [("try to open a locked door or lid", "tried to open a locked door or lid"),
                     ("run into a locked door or lid", "ran into a locked door or lid")]),
    "bump into": ([("walk into the closed {o}", "walked into the closed {o}"),
                   ("try to walk through the shut {o}", "tried to walk through the shut {o}")],
                  [("walk into a closed door", "walked into a closed door"),
                   ("try to go through a shut door", "tried to go through a shut door")]),
    "pick up": ([("pick up the {o}", "picked up the {o}"), ("take the {o}", "took the {o}"), ("grab the {o}", "grabbed the {o}"),
                 ("collect the {o}", "collected the {o}")],
                [("pick up something other than a key", "picked up something other than a key"),
                 ("take a non-key item", "took a non-key item")]),
    "pocket key": ([("pocket the {o}", "pocketed the {o}"), ("pick up the {o}", "picked up the {o}"), ("take the {o}", "took the {o}")],
                   [("pocket a key", "pocketed a key"), ("pick up a key", "picked up a key"), ("collect a key", "collected a key")]),
    "take back": ([("take the {o} back", "took the {o} back"), ("reclaim the {o}", "reclaimed the {o}"),
                   ("retrieve the already tidied {o}", "retrieved the already tidied {o}")],
                  [("take back something already put away", "took back something already put away"),
                   ("retrieve an already tidied item", "retrieved an already tidied item")]),
    "stow": ([("put the {o} into a container", "put the {o} into a container"), ("stow the {o}", "stowed the {o}"),
              ("place the {o} inside something", "placed the {o} inside something")],
             [("put something into a container", "put something into a container"),
              ("place an item inside a container", "placed an item inside a container")]),
    "shelve": ([("set the {o} on a surface", "set the {o} on a surface"), ("put the {o} on top of something", "put the {o} on top of something"),
                ("shelve the {o}", "shelved the {o}")],
               [("set something down on a surface", "set something down on a surface"),
                ("put an item on top of a supporter", "put an item on top of a supporter")]),
    "rehome": ([("move the {o} to a new spot", "moved the {o} to a new spot"), ("find a new place for the {o}", "found a new place for the {o}"),
                ("rehome the {o}", "rehomed the {o}")],
               [("move an already tidied item to a new spot", "moved an already tidied item to a new spot"),
                ("give a tidied item a new place", "gave a tidied item a new place")]),
    "check pockets": ([], [("check the inventory", "checked the inventory"), ("take stock of what was carried", "took stock of what was carried"),
                           ("take inventory", "took inventory")]),
    "look around": ([("look around the {o}", "looked around the {o}"), ("survey the {o}", "surveyed the {o}")],
                    [("look around", "looked around"), ("survey the surroundings", "surveyed the surroundings")]),
    "inspect": ([("examine the {o}", "examined the {o}"), ("take a close look at the {o}", "took a close look at the {o}"),
                 ("inspect the {o}", "inspected the {o}")],
                [("examine something", "examined something"), ("take a close look at something", "took a close look at something")]),
    "earn point": ([("earn the point for the {o}", "earned the point for the {o}"), ("get credit for the {o}", "got credit for the {o}")],
                   [("score a point", "scored a point"), ("earn a point", "earned a point"), ("see the score go up", "saw the score go up")]),
    "start game": ([("start {o}", "started {o}"), ("begin {o}", "began {o}")],
                   [("begin a game", "began a game"), ("start a game", "started a game")]),
    "win game": ([("win {o}", "won {o}"), ("finish {o}", "finished {o}"), ("complete {o}", "completed {o}")],
                 [("win a game", "won a game"), ("finish a game", "finished a game")]),
    # kinds that never occur in these episodes (for truthful "no" answers)
    "drop": ([("drop the {o}", "dropped the {o}")], [("drop anything on the floor", "dropped anything on the floor")]),
    "eat": ([("eat the {o}", "ate the {o}")], [("eat anything", "ate anything")]),
    "break": ([("break the {o} open", "broke the {o} open")], [("break a lock open", "broke a lock open")]),
    "give": ([("give away the {o}", "gave away the {o}")], [("give an item away", "gave an item away")]),
}
NEVER_KINDS = ["drop", "eat", "break", "give"]

SUBJECTS = [("I", "was", "my"), ("we", "were", "our"), ("you", "were", "your"), (AGENT, "was", f"{AGENT}'s"),
            ("the agent", "was", "the agent's"), ("the locksmith", "was", "the locksmith's")]

STATE_PHRASES = {
    "score": ["score in the current game", "game score"],
    "total_score": ["overall score", "running total of points across games"],
    "moves": ["move counter for the current game", "number of moves made in the current game"],
    "game": ["game number"],
    "keys_held": ["number of keys carried", "key count"],
    "rooms_seen": ["count of rooms seen so far in the current game", "number of rooms visited in this game"],
    "tidied": ["running tally of items put away", "tidied-item count"],
    "fails": ["count of failed attempts so far", "number of refused attempts so far"],
    "quests_left": ["number of quests still open", "count of unfinished quests"],
}

ORD_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
NUM_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def _ord_digits(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class _Wording:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def subj(self) -> dict:
        s, be, poss = self.rng.choice(SUBJECTS)
        return {"s": s, "be": be, "poss": poss}

    def ordinal(self, n: int) -> str:
        if n == -1:
            return self.rng.choice(["last", "final"])
        if n == -2:
            return self.rng.choice(["second-to-last", "next-to-last", "penultimate"])
        if n <= len(ORD_WORDS) and self.rng.random() < 0.6:
            return ORD_WORDS[n - 1]
        return _ord_digits(n)

    def num(self, k: int) -> str:
        return NUM_WORDS[k] if k < len(NUM_WORDS) and self.rng.random() < 0.5 else str(k)

    def ev(self, pat: tuple) -> tuple[str, str]:
        kind, obj = pat
        named, anyobj = PHRASES[kind]
        pool = named if obj else anyobj
        plain = [p for p in pool if kind not in p[0] and kind not in p[1]]
        base, past = self.rng.choice(plain if plain and self.rng.random() < 0.7 else pool)
        return base.format(o=obj or ""), past.format(o=obj or "")

    def state(self, name: str) -> str:
        return self.rng.choice(STATE_PHRASES[name])

    def slot_q(self, slot: str, S: dict, param: str | None = None) -> str:
        s, be, poss = S["s"], S["be"], S["poss"]
        r = self.rng
        if slot == "action":
            return r.choice([f"what command did {s} issue", f"which command did {s} type", f"what action did {s} take",
                             f"what was the command {s} entered"])
        if slot == "location":
            return r.choice([f"where {be} {s}", f"which room {be} {s} in", f"in which room {be} {s}"])
        if slot == "position":
            return r.choice([f"what were {poss} grid coordinates", f"at which grid position {be} {s}",
                             f"which x,y cell {be} {s} standing in"])
        if slot == "inventory":
            return r.choice([f"what {be} {s} carrying", f"what did {s} have on hand", f"what was in {poss} inventory"])
        if slot == "item":
            return r.choice([f"how many of the {param} did {s} have", f"what was {poss} inventory count for the {param}",
                             f"how many of the {param} {be} {s} holding"])
        if slot == "state":
            if param == "game":
                return r.choice([f"which game {be} {s} playing", f"what was {poss} game number"])
            sp = self.state(param)
            return r.choice([f"what was {poss} {sp}", f"what value did {poss} {sp} have", f"what did {poss} {sp} stand at"])
        if slot == "facing":
            return r.choice([f"what {be} {s} acting on", f"what object did {s} deal with", f"what was the target of {poss} command"])
        if slot == "events":
            return r.choice(["what events were recorded", "which events were logged", "what got recorded as happening"])
        raise ValueError(slot)

    def window(self, w: dict, S: dict, ctx) -> str:
        r = self.rng
        kind = w["w"]
        if kind == "steps":
            return r.choice([f"between step {w['lo']} and step {w['hi']}", f"from step {w['lo']} to step {w['hi']}"])
        if kind == "first":
            return r.choice([f"in the first {w['n']} steps", f"within the first {w['n']} steps"])
        if kind == "after":
            return r.choice([f"after step {w['t']}", f"following step {w['t']}", f"once step {w['t']} was over"])
        if kind == "before":
            return r.choice([f"before step {w['t']}", f"prior to step {w['t']}", f"up to step {w['t']}"])
        if kind == "game":
            return r.choice([f"during game {w['g']}", f"in game {w['g']}", f"while playing game {w['g']}"])
        if kind == "events":
            a = self.ev(w["a"]["pat"])[1]
            b = self.ev(w["b"]["pat"])[1]
            s = S["s"]
            return r.choice([f"between the time {s} {a} and the time {s} {b}", f"after {s} {a} but before {s} {b}"])
        raise ValueError(kind)

    def anchor_np(self, a: dict, S: dict, ctx) -> str:
        """A noun phrase for an anchor: "step 40", "the moment I unlocked the oak door", "the 2nd time ..."."""
        if "step" in a:
            return f"step {a['step']}"
        past = self.ev(a["pat"])[1]
        if ctx.idx.count(a["pat"]) == 1:
            return self.rng.choice([f"the moment {S['s']} {past}", f"the time {S['s']} {past}"])
        return f"the {self.ordinal(a['n'])} time {S['s']} {past}"


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


# --------------------------------------------------------------------------------------------------
# The generator's own index of an episode
# --------------------------------------------------------------------------------------------------

OBJ_VERBS = {"open", "close", "lock", "unlock", "take", "insert", "put", "examine"}


class _Index:
    def __init__(self, steps: list[Step]) -> None:
        self.T = len(steps)
        self.occ: dict[tuple, list[int]] = defaultdict(list)
        for s in steps:
            keys: list[tuple] = []
            for e in s.events:
                for key in ((e.kind, e.obj or None), (e.kind, None)):
                    if key not in keys:
                        keys.append(key)
            for key in keys:
                self.occ[key].append(s.t)
        self.occ_set = {k: set(v) for k, v in self.occ.items()}
        self.series = {name: [s.state_dict[name] for s in steps] for name in steps[0].state_dict}
        self.inv = [dict(s.inventory) for s in steps]
        self.events = [[(e.kind, e.obj) for e in s.events] for s in steps]
        self.actions = [s.action for s in steps]
        self.regions = [s.location.region for s in steps]
        self.positions = [s.location.position for s in steps]
        self.facing = [s.relations[0].obj for s in steps]
        self.games = sorted(set(self.series["game"]))
        self.game_ts = {g: [t for t, v in enumerate(self.series["game"]) if v == g] for g in self.games}
        self.items_ever = sorted({n for inv in self.inv for n in inv})

    def ts(self, pat: tuple) -> list[int]:
        return self.occ.get(pat, [])

    def count(self, pat: tuple) -> int:
        return len(self.occ.get(pat, []))

    def hit(self, pat: tuple, t: int) -> bool:
        return t in self.occ_set.get(pat, ())

    def value(self, t: int, slot: str, param: str | None = None) -> str:
        if slot == "action":
            return self.actions[t]
        if slot == "step":
            return str(t)
        if slot == "location":
            return self.regions[t]
        if slot == "position":
            return "%d,%d" % self.positions[t]
        if slot == "inventory":
            inv = self.inv[t]
            return ", ".join(f"{n} {inv[n]}" for n in sorted(inv) if inv[n] > 0) or "none"
        if slot == "item":
            return str(self.inv[t].get(param, 0))
        if slot == "state":
            v = self.series[param][t]
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        if slot == "facing":
            return self.facing[t]
        if slot == "events":
            return "; ".join(_label(k, o) for k, o in self.events[t]) or "none"
        raise ValueError(slot)

    def in_window(self, w: dict) -> tuple[list[int], list[int]]:
        """All step indices of a window, and its event-located anchors."""
        kind = w["w"]
        T = self.T
        if kind == "all":
            return list(range(T)), []
        if kind == "steps":
            return list(range(w["lo"] + 1, w["hi"])), []
        if kind == "first":
            return list(range(0, w["n"])), []
        if kind == "after":
            return list(range(w["t"] + 1, T)), []
        if kind == "before":
            return list(range(0, w["t"])), []
        if kind == "events":
            ta, tb = self.anchor_t(w["a"]), self.anchor_t(w["b"])
            return list(range(ta + 1, tb)), [ta, tb]
        if kind == "game":
            ts = self.game_ts[w["g"]]
            return ts, [ts[0], ts[-1]]
        raise ValueError(kind)

    def anchor_t(self, a: dict) -> int:
        if "step" in a:
            return a["step"]
        ts = self.ts(a["pat"])
        return ts[a["n"] - 1] if a["n"] > 0 else ts[a["n"]]

    def hits_in(self, pat: tuple, w: dict) -> tuple[list[int], list[int]]:
        span, anchors = self.in_window(w)
        inside = set(span)
        return [t for t in self.ts(pat) if t in inside], anchors


# --------------------------------------------------------------------------------------------------
# Question generation
# --------------------------------------------------------------------------------------------------

STATE_NAMES = ["score", "total_score", "moves", "game", "keys_held", "rooms_seen", "tidied", "fails", "quests_left"]
COUNTERS = ["total_score", "tidied", "fails", "rooms_seen", "keys_held", "moves"]
NO_NTH = {"discover", "start game", "win game"}  # kinds whose named occurrences happen once: no ordinals


class _Ctx:
    def __init__(self, ep: str, steps: list[Step], unused: dict, rng: random.Random) -> None:
        self.ep = ep
        self.steps = steps
        self.unused = unused
        self.rng = rng
        self.idx = _Index(steps)
        self.W = _Wording(rng)
        self.kind_use: Counter = Counter()
        self.texts: set[str] = set()
        self.keys_used: set = set()
        self.out: list[dict] = []
        self.start_rooms = {steps[t].location.region for t in self.idx.ts(("start game", None))}

    # ---- picking ----
    def pats(self, min_count: int = 1, named: bool | None = None, exclude=(), kinds=None) -> list[tuple]:
        out = []
        for pat, ts in sorted(self.idx.occ.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            kind, obj = pat
            if kind in exclude or (kinds is not None and kind not in kinds) or len(ts) < min_count:
                continue
            if kind == "check pockets" and obj is not None:
                continue
            if kind == "arrive" and obj in self.start_rooms:
                continue  # Mote starts a game in this room without walking in: keep "entered the X" unambiguous
            if named is True and obj is None and kind != "check pockets":
                continue
            if named is False and obj is not None:
                continue
            out.append(pat)
        return out

    def choose(self, cands: list):
        if not cands:
            return None
        weights = [1.0 / (1 + self.kind_use[c[0]]) ** 2 for c in cands]
        pick = self.rng.choices(cands, weights=weights)[0]
        return pick

    def use(self, *pats) -> None:
        for p in pats:
            self.kind_use[p[0]] += 1

    def rand_t(self, lo: int = 0, hi: int | None = None) -> int:
        hi = self.idx.T - 1 if hi is None else hi
        return self.rng.randint(lo, hi)

    def facing_ok(self, t: int) -> bool:
        return self.idx.actions[t].split()[0] in OBJ_VERBS

    def param(self, slot: str, t: int, forced: str | None = None) -> str | None:
        if forced is not None:
            return forced
        if slot == "state":
            return self.rng.choice(STATE_NAMES)
        if slot == "item":
            have = sorted(n for n, c in self.idx.inv[t].items() if c > 0)
            if have and self.rng.random() < 0.6:
                return self.rng.choice(have)
            return self.rng.choice(self.idx.items_ever)
        return None

    def slot_fits(self, slot: str, t: int, pat: tuple | None = None) -> bool:
        if pat is not None and pat[1] is not None:
            # the answer would just repeat the question's own object
            if slot == "location" and pat[0] in ("arrive", "discover", "look around"):
                return False
            if slot == "facing":
                return False
        if slot == "facing":
            return self.facing_ok(t)
        if slot == "inventory":
            return self.idx.value(t, "inventory") != "none" or self.rng.random() < 0.2
        return True

    # ---- recording ----
    def add(self, family: str, slot: str, text: str, q: dict, answer: str, gold_ts: list[int], key=None) -> bool:
        if text in self.texts or (key is not None and key in self.keys_used):
            return False
        got_answer, got_gold = evaluate(self.ep, self.steps, q)
        want_gold = _gold(self.ep, gold_ts)
        assert got_answer == answer and got_gold == want_gold, (text, q, got_answer, answer, got_gold, want_gold)
        self.texts.add(text)
        if key is not None:
            self.keys_used.add(key)
        self.out.append({"episode": self.ep, "family": family, "slot": slot, "question": text,
                         "answer": answer, "gold": got_gold, "spec": q})
        return True


def _fmt(text: str, **fields) -> str:
    return _cap(text.format(**fields))


def _subject(name: str | None, W: _Wording) -> dict:
    if name is None:
        return W.subj()
    for s, be, poss in SUBJECTS:
        if s == name:
            return {"s": s, "be": be, "poss": poss}
    raise ValueError(name)


# ---- one-off pools: single sentences with their own structure, each used rarely ----

F1_ONE = [
    {"slot": "action", "text": "Which exact command is logged for step {t}?"},
    {"slot": "location", "subj": AGENT, "text": "Name the room {s} occupied once step {t} had been carried out."},
    {"slot": "inventory", "subj": "the agent", "text": "List everything {s} had on hand right after step {t}."},
    {"slot": "position", "subj": "we", "text": "On the map grid, which cell did {s} stand in at step {t}?"},
    {"slot": "events", "text": "Step {t} logged which events?"},
    {"slot": "state", "param": "keys_held", "subj": "I", "text": "How many keys did {s} have jangling in {poss} pockets at step {t}?"},
    {"slot": "state", "param": "total_score", "text": "What had the overall score climbed to by step {t}?"},
    {"slot": "facing", "text": "Which thing was the locksmith busy with at step {t}?"},
    {"slot": "item", "text": "Counting only the {item}, how many did the agent carry at step {t}?"},
    {"slot": "state", "param": "game", "text": "Which game of the run was underway at step {t}?"},
    {"slot": "state", "param": "fails", "text": "By step {t}, how many refused attempts had piled up in total?"},
]
F2_ONE = [
    {"slot": "location", "subj": AGENT, "text": "Which room was Mote standing in on the {ord} occasion it {past}?"},
    {"slot": "action", "subj": "the agent", "text": "Give the command that marked the {ord} time the agent {past}."},
    {"slot": "inventory", "subj": "I", "text": "What was in my pack at the moment I {past} for the {ord} time?"},
    {"slot": "state", "param": "total_score", "subj": "I", "text": "My overall score stood at what when I {past} for the {ord} time?"},
    {"slot": "step", "subj": "we", "text": "Of all the times we {past}, the {ord} one happened at which step?"},
    {"slot": "state", "param": "keys_held", "subj": "the locksmith",
     "text": "How many keys did the locksmith carry right when it {past} for the {ord} time?"},
    {"slot": "position", "subj": "you", "text": "Give the x,y cell where you were on the {ord} occasion you {past}."},
    {"slot": "events", "subj": "I", "text": "List every event recorded on the step where I {past} for the {ord} time."},
]
F3_ONE = [
    {"slot": "location", "subj": "I", "text": "Counting only {window}, which room was I in on the {ord} occasion I {past}?"},
    {"slot": "action", "subj": "the agent",
     "text": "Restricting attention to the part of the run {window}, what command did the agent type the {ord} time it {past}?"},
    {"slot": "step", "subj": AGENT, "text": "Looking only at the stretch {window}: on which step did Mote {base} for the {ord} time?"},
    {"slot": "state", "param": "tidied", "subj": AGENT,
     "text": "How many items had been tidied away in total when, {window}, Mote {past} for the {ord} time?"},
    {"slot": "position", "subj": "you", "text": "{window}, the {ord} time you {past}, what were your coordinates?"},
    {"slot": "inventory", "subj": "we", "text": "Taking only the part of the run {window}, what did we have with us when we {past} for the {ord} time?"},
]
F4_ONE = [
    {"slot": "step", "cond": "has", "subj": "I", "text": "How far into the run (which step) was I when I first held the {item}?"},
    {"slot": "location", "cond": ("gt", "fails"),
     "text": "Where did the locksmith stand when its tally of failed attempts first topped {v}?"},
    {"slot": "step", "cond": ("drop_zero", "keys_held"),
     "text": "Which step saw Mote's key count fall to zero for the first time after having had keys?"},
    {"slot": "action", "cond": ("ge", "rooms_seen"),
     "text": "What command pushed the number of rooms seen within a single game to {v} for the first time?"},
    {"slot": "inventory", "cond": ("ge", "total_score"),
     "text": "What was in the agent's hands at the first step its overall score hit {v}?"},
    {"slot": "step", "cond": "lose_last", "text": "When did the {item} leave my inventory for the very last time? Give the step."},
    {"slot": "state", "param": "game", "cond": ("ge", "tidied"),
     "text": "Which game was being played when the tidied-item tally first reached {v}?"},
]
F5_ONE = [
    {"slot": "location", "anchor": "event", "sign": 1, "subj": "I", "text": "Exactly {k} steps on from {anc}, which room was I in?"},
    {"slot": "action", "anchor": "step", "sign": -1, "text": "Rewind {k} steps from step {t0}: what command had Mote issued there?"},
    {"slot": "inventory", "anchor": "event", "sign": 1, "subj": "the agent", "text": "What was the agent holding {k} steps after {anc}?"},
    {"slot": "events", "anchor": "step", "sign": 1, "text": "Look {k} steps past step {t0}; which events does that step record?"},
    {"slot": "state", "param": "keys_held", "anchor": "event", "sign": -1, "subj": "we",
     "text": "{K} steps before {anc}, how many keys did we have?"},
    {"slot": "facing", "anchor": "step", "sign": 1, "text": "What was Mote handling {k} steps after step {t0}?"},
]
F6_ONE = [
    {"slot": "action", "dir": "next", "anchor": "step", "subj": "I",
     "text": "Following step {t0}, which command did I use the next time I {pastB}?"},
    {"slot": "step", "dir": "prev", "anchor": "event", "subj": AGENT,
     "text": "Going backwards from {anc}, what is the closest earlier step where Mote {pastB}?"},
    {"slot": "location", "dir": "next", "anchor": "step", "subj": "the agent",
     "text": "Where was the agent when it next {pastB} after step {t0}?"},
    {"slot": "step", "dir": "next", "anchor": "event", "subj": "you", "again": True,
     "text": "After {anc}, at which step did you {baseB} again?"},
    {"slot": "inventory", "dir": "prev", "anchor": "step", "subj": "I",
     "text": "What did I carry the most recent time I {pastB} prior to step {t0}?"},
    {"slot": "position", "dir": "next", "anchor": "event", "subj": "we",
     "text": "Once {anc} had passed, where on the grid were we the next time we {pastB}?"},
]
F7_ONE = [
    {"pat": ("key fails", "obj"), "window": "all", "text": "Tally the wrong-key attempts on the {o}: how many were there?"},
    {"pat": ("pocket key", None), "window": "game", "text": "How many keys ended up in my pocket over game {g}?"},
    {"pat": ("check pockets", None), "window": "before", "text": "How often did the agent check its inventory before step {tb}?"},
    {"pat": ("shelve", None), "window": "all",
     "text": "Across the entire run, how many times was something set down on top of a surface?"},
    {"pat": ("arrive", None), "window": "steps", "text": "Between step {lo} and step {hi}, on how many steps did Mote walk into a room?"},
    {"pat": ("discover", None), "window": "after", "text": "How many rooms did we see for the first time after step {ta}?"},
    {"pat": ("open", "obj"), "window": "all", "text": "How many times, all told, did I get the {o} open?"},
]
F8_ONE = [
    {"subj": "the locksmith", "text": "Think back: did the locksmith first {baseA}, or first {baseB}? Name the earlier one."},
    {"subj": AGENT, "text": "Mote {pastA}, and Mote {pastB}: which of those two did it do earlier?"},
    {"subj": "you", "text": "Put these in order and name the earlier: you {pastA}; you {pastB}."},
    {"subj": "I", "text": "Was it the step where I {pastA} or the step where I {pastB} that came sooner?"},
]
F9_ONE = [
    {"kind": "game", "text": "Measured in steps, how far apart were the start of game {g} and its win?"},
    {"kind": "discover", "subj": "I", "text": "How long was it from the moment I discovered the {room} until I first {pastB}?"},
    {"kind": "step", "subj": AGENT, "text": "Step {t0} and {ancB}: how far apart are they?"},
    {"kind": "pair", "subj": "we", "text": "How many steps did it take to get from the first time we {pastA} to the first time we {pastB}?"},
]
F10_ONE = [
    {"pat": ("bump into", None), "window": "game", "text": "At any point during game {g}, did I walk into a shut door?"},
    {"pat": ("drop", None), "window": "all", "text": "Did the locksmith ever drop anything on the floor?"},
    {"pat": ("unlock", "obj"), "window": "after", "text": "Was the {o} ever unlocked after step {ta}?"},
    {"pat": ("unlock", "unused"), "window": "all", "text": "Did we ever get the {o} unlocked?"},
    {"pat": ("pocket key", "obj"), "window": "before", "text": "Before step {tb}, had you already pocketed the {o}?"},
    {"pat": ("eat", None), "window": "all", "text": "Did Mote eat anything at all during the run?"},
]


def _pick_n(rng: random.Random, count: int) -> int:
    opts = list(range(1, min(count, 5) + 1))
    if count >= 2:
        opts += [-1, -1]
    if count >= 3:
        opts.append(-2)
    return rng.choice(opts)


def _nth(ts: list[int], n: int) -> int:
    return ts[n - 1] if n > 0 else ts[n]


def _unique_anchor_pats(ctx: _Ctx) -> list[tuple]:
    return [p for p in ctx.pats(named=True) if ctx.idx.count(p) == 1 and p[1] is not None]


def _rand_window(ctx: _Ctx, pat: tuple | None, allow=("steps", "first", "after", "before", "events", "game")):
    """A window whose step-number or event boundaries never coincide with an occurrence of pat."""
    rng, idx = ctx.rng, ctx.idx
    T = idx.T
    kind = rng.choice(allow)

    def bad(*ts):
        return pat is not None and any(idx.hit(pat, t) for t in ts)

    if kind == "all":
        return {"w": "all"}
    if kind == "steps":
        lo = rng.randint(5, T - 80)
        hi = rng.randint(lo + 40, min(T - 2, lo + 260))
        return None if bad(lo, hi) else {"w": "steps", "lo": lo, "hi": hi}
    if kind == "first":
        n = rng.randint(60, T - 60)
        return None if bad(0, n - 1, n) else {"w": "first", "n": n}
    if kind == "after":
        a = rng.randint(40, T - 40)
        return None if bad(a) else {"w": "after", "t": a}
    if kind == "before":
        b = rng.randint(40, T - 40)
        return None if bad(b) else {"w": "before", "t": b}
    if kind == "events":
        cands = [p for p in _unique_anchor_pats(ctx) if p != pat]
        if len(cands) < 2:
            return None
        a, b = rng.sample(cands, 2)
        ta, tb = idx.ts(a)[0], idx.ts(b)[0]
        if ta > tb:
            a, b, ta, tb = b, a, tb, ta
        if tb - ta < 25 or bad(ta, tb):
            return None
        return {"w": "events", "a": {"pat": a, "n": 1}, "b": {"pat": b, "n": 1}}
    if kind == "game":
        return {"w": "game", "g": rng.choice(idx.games)}
    raise ValueError(kind)


def _nth_pats(ctx: _Ctx) -> list[tuple]:
    return [p for p in ctx.pats() if not (p[0] in NO_NTH and p[1] is not None)]


# ---- families 1-6: a step slot ----

def _gen_f1(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    t = ctx.rand_t()
    if not ctx.slot_fits(slot, t):
        return False
    param = ctx.param(slot, t, (one or {}).get("param"))
    S = _subject((one or {}).get("subj"), W)
    if one:
        text = _fmt(one["text"], t=t, item=param, **S)
    else:
        sq = W.slot_q(slot, S, param)
        text = _cap(rng.choice([f"At step {t}, {sq}?", f"{_cap(sq)} at step {t}?", f"As of step {t}, {sq}?",
                                f"Looking at step {t}: {sq}?"]))
    q = {"op": "at", "t": t, "slot": slot, "param": param}
    return ctx.add("1_step_index", slot, text, q, idx.value(t, slot, param), [t], key=("f1", t, slot))


def _gen_f2(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    pat = ctx.choose(_nth_pats(ctx))
    ts = idx.ts(pat)
    n = _pick_n(rng, len(ts))
    t = _nth(ts, n)
    if not ctx.slot_fits(slot, t, pat):
        return False
    param = ctx.param(slot, t, (one or {}).get("param"))
    S = _subject((one or {}).get("subj"), W)
    base, past = W.ev(pat)
    ordp = W.ordinal(n)
    s = S["s"]
    if one:
        text = _fmt(one["text"], ord=ordp, past=past, base=base, item=param, **S)
    elif slot == "step":
        text = rng.choice([f"At which step did {s} {base} for the {ordp} time?", f"Which step was the {ordp} time {s} {past}?",
                           f"On what step did {s} {base} for the {ordp} time?"])
    else:
        sq = W.slot_q(slot, S, param)
        text = rng.choice([f"The {ordp} time {s} {past}, {sq}?", f"{_cap(sq)} the {ordp} time {s} {past}?",
                           f"At the moment {s} {past} for the {ordp} time, {sq}?"])
    q = {"op": "nth", "pat": pat, "n": n, "slot": slot, "param": param}
    if ctx.add("2_nth_occurrence", slot, _cap(text), q, idx.value(t, slot, param), [t], key=("f2", pat, n)):
        ctx.use(pat)
        return True
    return False


def _gen_f3(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    pat = ctx.choose(_nth_pats(ctx))
    w = _rand_window(ctx, pat)
    if w is None:
        return False
    if w["w"] == "game" and pat[0] in ("start game", "win game"):
        return False
    hits, anchors = idx.hits_in(pat, w)
    if not hits or (hits == idx.ts(pat) and rng.random() < 0.8):
        return False
    n = rng.choice(list(range(1, min(len(hits), 3) + 1)) + ([-1] if len(hits) >= 2 else []))
    t = _nth(hits, n)
    if not ctx.slot_fits(slot, t, pat):
        return False
    param = ctx.param(slot, t, (one or {}).get("param"))
    S = _subject((one or {}).get("subj"), W)
    base, past = W.ev(pat)
    ordp = W.ordinal(n)
    wt = W.window(w, S, ctx)
    s = S["s"]
    if one:
        text = _fmt(one["text"], ord=ordp, past=past, base=base, item=param, window=wt, **S)
    elif slot == "step":
        text = rng.choice([f"{_cap(wt)}, at which step did {s} {base} for the {ordp} time?",
                           f"Counting only {wt}, at which step did {s} {base} for the {ordp} time?"])
    else:
        sq = W.slot_q(slot, S, param)
        text = rng.choice([f"{_cap(wt)}, {sq} the {ordp} time {s} {past}?",
                           f"Considering only what happened {wt}, {sq} the {ordp} time {s} {past}?"])
    q = {"op": "nth_in", "pat": pat, "n": n, "window": w, "slot": slot, "param": param}
    if ctx.add("3_windowed_occurrence", slot, _cap(text), q, idx.value(t, slot, param), anchors + [t], key=("f3", pat, n, t)):
        ctx.use(pat)
        return True
    return False


def _cond_cands(ctx: _Ctx) -> list[dict]:
    idx = ctx.idx
    out = []
    for var in COUNTERS:
        ser = idx.series[var]
        for v in sorted(set(ser)):
            if v < 1 or (v < 2 and var != "total_score") or (var == "moves" and v < 20):
                continue
            t = next(i for i, x in enumerate(ser) if x >= v)
            if t > 0 and ser[t] == v and ser[t - 1] < v:
                out.append({"type": "ge", "var": var, "v": v, "t": t})
            above = [i for i, x in enumerate(ser) if x > v]
            if above and above[0] > 0:
                out.append({"type": "gt", "var": var, "v": v, "t": above[0]})
    for it in idx.items_ever:
        held = [t for t in range(idx.T) if idx.inv[t].get(it, 0) > 0]
        if held and held[0] > 0:
            out.append({"type": "has", "item": it, "t": held[0]})
        lost = [t for t in range(1, idx.T) if idx.inv[t].get(it, 0) == 0 and idx.inv[t - 1].get(it, 0) > 0]
        if lost and any(o == it and k in ("stow", "shelve") for k, o in idx.events[lost[-1]]):
            out.append({"type": "lose_last", "item": it, "t": lost[-1]})
    for var in ("keys_held", "quests_left"):
        ser = idx.series[var]
        z = [t for t in range(1, idx.T) if ser[t] == 0 and ser[t - 1] > 0]
        if z:
            out.append({"type": "drop_zero", "var": var, "t": z[0]})
    for var in ("quests_left", "score"):
        ser = idx.series[var]
        for v in sorted(set(ser)):
            last = [t for t in range(idx.T) if ser[t] == v][-1]
            if last < idx.T - 1:
                out.append({"type": "eq_last", "var": var, "v": v, "t": last})
    for g in idx.games[1:]:
        out.append({"type": "eq_first", "var": "game", "v": g, "t": idx.game_ts[g][0]})
    return out


def _cond_spec(c: dict) -> tuple[dict, str]:
    ty = c["type"]
    if ty in ("ge", "gt"):
        return {"c": ty, "var": c["var"], "v": c["v"]}, "first"
    if ty == "has":
        return {"c": "has", "item": c["item"]}, "first"
    if ty == "lose_last":
        return {"c": "drop_zero", "item": c["item"]}, "last"
    if ty == "drop_zero":
        return {"c": "drop_zero", "var": c["var"]}, "first"
    if ty == "eq_last":
        return {"c": "eq", "var": c["var"], "v": c["v"]}, "last"
    return {"c": "eq", "var": "game", "v": c["v"]}, "first"


def _cond_words(W: _Wording, c: dict, S: dict) -> tuple[str, str]:
    """(clause usable after "when", the question asking for its step)."""
    r = W.rng
    s, poss = S["s"], S["poss"]
    ty = c["type"]
    if ty == "ge":
        sp = W.state(c["var"])
        return f"{poss} {sp} first reached {c['v']}", f"at which step did {poss} {sp} first reach {c['v']}"
    if ty == "gt":
        sp = W.state(c["var"])
        verb = r.choice([("went above", "go above"), ("exceeded", "exceed"), ("rose past", "rise past")])
        return f"{poss} {sp} first {verb[0]} {c['v']}", f"at which step did {poss} {sp} first {verb[1]} {c['v']}"
    if ty == "has":
        it = c["item"]
        return r.choice([(f"{s} first had the {it}", f"at which step did {s} first have the {it}"),
                         (f"the {it} first showed up in {poss} inventory", f"at which step did the {it} first show up in {poss} inventory")])
    if ty == "lose_last":
        it = c["item"]
        return r.choice([(f"{s} stopped carrying the {it} for the last time", f"at which step did {s} stop carrying the {it} for the last time"),
                         (f"the {it} left {poss} inventory for the final time", f"at which step did the {it} leave {poss} inventory for the final time")])
    if ty == "drop_zero":
        sp = W.state(c["var"])
        return f"{poss} {sp} first dropped to zero", f"at which step did {poss} {sp} first drop to zero"
    if ty == "eq_last":
        sp = W.state(c["var"])
        return f"{poss} {sp} was {c['v']} for the last time", f"what was the last step at which {poss} {sp} was {c['v']}"
    return f"the game number first became {c['v']}", "at which step did the game number first become %d" % c["v"]


def _gen_f4(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    cands = _cond_cands(ctx)
    if one:
        want = one["cond"]
        if isinstance(want, tuple):
            cands = [c for c in cands if c["type"] == want[0] and c.get("var") == want[1]]
        else:
            cands = [c for c in cands if c["type"] == want]
    if not cands:
        return False
    used = Counter(o["spec"]["cond"]["c"] for o in ctx.out if o["family"] == "4_condition")
    weights = [1.0 / (1 + used[_cond_spec(c)[0]["c"]]) for c in cands]
    c = rng.choices(cands, weights=weights)[0]
    t = c["t"]
    if not ctx.slot_fits(slot, t):
        return False
    param = ctx.param(slot, t, (one or {}).get("param"))
    if slot == "state" and param == c.get("var"):
        return False
    S = _subject((one or {}).get("subj"), W)
    cond, which = _cond_spec(c)
    if one:
        text = _fmt(one["text"], item=c.get("item"), v=c.get("v"), **S)
    else:
        clause, stepq = _cond_words(W, c, S)
        if slot == "step":
            text = f"{stepq}?"
        else:
            sq = W.slot_q(slot, S, param)
            if c["type"] == "eq_last":
                sp = W.state(c["var"])
                text = f"At the last step where {S['poss']} {sp} was {c['v']}, {sq}?"
            else:
                text = rng.choice([f"When {clause}, {sq}?", f"{_cap(sq)} when {clause}?", f"At the step where {clause}, {sq}?"])
    q = {"op": "cond", "cond": cond, "which": which, "slot": slot, "param": param}
    return ctx.add("4_condition", slot, _cap(text), q, idx.value(t, slot, param), [t], key=("f4", str(cond), which))


def _gen_f5(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    kind = (one or {}).get("anchor") or ("event" if rng.random() < 0.7 else "step")
    if kind == "event":
        pat = ctx.choose(_nth_pats(ctx))
        n = _pick_n(rng, idx.count(pat))
        a = {"pat": pat, "n": n}
    else:
        pat = None
        a = {"step": ctx.rand_t(10, idx.T - 10)}
    t0 = idx.anchor_t(a)
    sign = (one or {}).get("sign") or rng.choice([1, 1, -1])
    k = sign * rng.randint(2 if one else 1, 6)
    t = t0 + k
    if not 0 <= t < idx.T or not ctx.slot_fits(slot, t):
        return False
    param = ctx.param(slot, t, (one or {}).get("param"))
    S = _subject((one or {}).get("subj"), W)
    anc = W.anchor_np(a, S, ctx)
    ak = abs(k)
    kw = W.num(ak)
    if one:
        text = _fmt(one["text"], k=kw, K=_cap(kw), anc=anc, t0=t0, item=param, **S)
    else:
        sq = W.slot_q(slot, S, param)
        if k == 1:
            text = rng.choice([f"On the step right after {anc}, {sq}?", f"Right after {anc}, on the very next step, {sq}?"])
        elif k == -1:
            text = rng.choice([f"One step before {anc}, {sq}?", f"{_cap(sq)} on the step just before {anc}?"])
        elif k > 0:
            text = rng.choice([f"{_cap(kw)} steps after {anc}, {sq}?", f"{_cap(sq)} {kw} steps after {anc}?",
                               f"Following {anc}, {kw} steps later, {sq}?"])
        else:
            text = rng.choice([f"{_cap(kw)} steps before {anc}, {sq}?", f"{_cap(sq)} {kw} steps prior to {anc}?"])
    q = {"op": "offset", "anchor": a, "k": k, "slot": slot, "param": param}
    gold = ([t0] if pat else []) + [t]
    if ctx.add("5_offset", slot, _cap(text), q, idx.value(t, slot, param), gold, key=("f5", t)):
        if pat:
            ctx.use(pat)
        return True
    return False


def _gen_f6(ctx: _Ctx, slot: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    kind = (one or {}).get("anchor") or ("event" if rng.random() < 0.7 else "step")
    d = (one or {}).get("dir") or rng.choice(["next", "next", "prev"])
    if kind == "event":
        apat = ctx.choose(_nth_pats(ctx))
        a = {"pat": apat, "n": _pick_n(rng, idx.count(apat))}
    else:
        apat = None
        a = {"step": ctx.rand_t(30, idx.T - 30)}
    t0 = idx.anchor_t(a)
    cands = []
    for p in ctx.pats():
        if p == apat or idx.hit(p, t0) or (p[0] in NO_NTH and p[1] is not None):
            continue
        later = [t for t in idx.ts(p) if t > t0]
        earlier = [t for t in idx.ts(p) if t < t0]
        if d == "next" and later and (not (one or {}).get("again") or earlier):
            cands.append(p)
        if d == "prev" and earlier:
            cands.append(p)
    b = ctx.choose(cands)
    if b is None:
        return False
    tb = [t for t in idx.ts(b) if t > t0][0] if d == "next" else [t for t in idx.ts(b) if t < t0][-1]
    if abs(tb - t0) > 150 or not ctx.slot_fits(slot, tb, b):
        return False
    param = ctx.param(slot, tb, (one or {}).get("param"))
    S = _subject((one or {}).get("subj"), W)
    anc = W.anchor_np(a, S, ctx)
    baseB, pastB = W.ev(b)
    s = S["s"]
    if one:
        text = _fmt(one["text"], anc=anc, t0=t0, baseB=baseB, pastB=pastB, item=param, **S)
    elif d == "next":
        if slot == "step":
            text = rng.choice([f"After {anc}, at which step did {s} next {baseB}?",
                               f"Following {anc}, when (at which step) did {s} {baseB} next?"])
        else:
            sq = W.slot_q(slot, S, param)
            text = rng.choice([f"After {anc}, {sq} the next time {s} {pastB}?", f"{_cap(sq)} the next time {s} {pastB} following {anc}?"])
    else:
        if slot == "step":
            text = rng.choice([f"Before {anc}, at which step did {s} most recently {baseB}?",
                               f"Prior to {anc}, what was the last step at which {s} {pastB}?"])
        else:
            sq = W.slot_q(slot, S, param)
            text = rng.choice([f"{_cap(sq)} the most recent time {s} {pastB} before {anc}?",
                               f"Prior to {anc}, {sq} the last time {s} {pastB}?"])
    q = {"op": "nextprev", "anchor": a, "dir": d, "pat": b, "slot": slot, "param": param}
    gold = ([t0] if apat else []) + [tb]
    if ctx.add("6_next_previous", slot, _cap(text), q, idx.value(tb, slot, param), gold, key=("f6", t0, b)):
        ctx.use(b, *([apat] if apat else []))
        return True
    return False


# ---- families 7-10: counts, existence, order, distance ----

LIST_PHRASES = {
    "pocket key": ["which keys did {s} pick up", "which keys did {s} pocket"],
    "discover": ["which rooms did {s} discover", "which rooms did {s} see for the first time"],
    "unlock": ["which doors or containers did {s} unlock"],
    "pick up": ["which non-key items did {s} pick up"],
    "stow": ["which items did {s} put into containers"],
    "shelve": ["which items did {s} set on top of surfaces"],
    "lock": ["which doors or containers did {s} lock"],
    "inspect": ["which things did {s} examine"],
}


def _count_gold(hits: list[int], anchors: list[int]) -> list[int]:
    return anchors + (hits if len(hits) <= 5 else hits[-1:])


def _gen_f7(ctx: _Ctx, mode: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    S = _subject((one or {}).get("subj"), W)
    s = S["s"]
    if one:
        kind, obj = one["pat"]
        if obj == "obj":
            cands = [p for p in ctx.pats(named=True, kinds={kind}) if p[1]]
            pat = ctx.choose(cands)
            if pat is None:
                return False
        else:
            pat = (kind, None)
        wk = one["window"]
        w = {"w": "all"} if wk == "all" else _rand_window(ctx, pat, allow=(wk,))
        if w is None:
            return False
        hits, anchors = idx.hits_in(pat, w)
        fields = {"o": pat[1], "g": w.get("g"), "tb": w.get("t"), "ta": w.get("t"), "lo": w.get("lo"), "hi": w.get("hi")}
        text = _fmt(one["text"], **fields)
        q = {"op": "count", "pat": pat, "window": w}
        slot = "count"
        answer = str(len(hits))
    elif mode == "list":
        kind = rng.choice(sorted(LIST_PHRASES))
        pat = (kind, None)
        w = _rand_window(ctx, pat, allow=("all", "game", "game", "steps", "after", "before"))
        if w is None:
            return False
        hits, anchors = idx.hits_in(pat, w)
        names = sorted({o for t in hits for k, o in idx.events[t] if k == kind})
        if len(names) < 2 or len(names) > 8:
            return False
        phrase = rng.choice(LIST_PHRASES[kind]).format(s=s)
        wt = "over the whole episode" if w["w"] == "all" else W.window(w, S, ctx)
        text = f"{_cap(phrase)} {wt}?" if rng.random() < 0.6 or w["w"] == "all" else f"{_cap(wt)}, {phrase}?"
        q = {"op": "list", "pat": pat, "window": w}
        slot = "list"
        answer = ", ".join(names)
    else:
        zero = mode == "zero"
        cands = ctx.pats(named=rng.random() < 0.5)
        pat = ctx.choose(cands)
        w = _rand_window(ctx, pat, allow=("game", "steps", "after", "before", "events", "first") if zero else
                         ("all", "game", "steps", "after", "before", "events", "first"))
        if w is None or (w["w"] == "game" and pat[0] in ("start game", "win game")):
            return False
        hits, anchors = idx.hits_in(pat, w)
        if zero != (not hits):
            return False
        base, past = W.ev(pat)
        if w["w"] == "all":
            text = rng.choice([f"In the whole episode, how many times did {s} {base}?", f"How many times in total did {s} {base}?",
                               f"Over the entire run, how often did {s} {base}?"])
        else:
            wt = W.window(w, S, ctx)
            forms = [f"{_cap(wt)}, how often did {s} {base}?", f"{_cap(wt)}, how many times did {s} {base}?"]
            if " that " not in base and " not " not in base:
                forms += [f"How many times did {s} {base} {wt}?", f"What is the number of times {s} {past} {wt}?"]
            text = rng.choice(forms)
        q = {"op": "count", "pat": pat, "window": w}
        slot = "count"
        answer = str(len(hits))
    if ctx.add("7_count", slot, _cap(text), q, answer, _count_gold(hits, anchors), key=("f7", pat, str(w))):
        ctx.use(pat)
        return True
    return False


def _gen_f8(ctx: _Ctx, mode: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    cands = [p for p in ctx.pats(named=True) if p[0] != "start game"]
    A = ctx.choose(cands)
    B = ctx.choose([p for p in cands if p != A])
    if A is None or B is None:
        return False
    ta_all, tb_all = idx.ts(A), idx.ts(B)
    S = _subject((one or {}).get("subj"), W)
    s = S["s"]
    nA = 1
    if not one and mode == "nth" and len(ta_all) >= 2 and A[0] not in NO_NTH:
        nA = rng.choice([2, -1] if len(ta_all) >= 3 else [2])
        ta = _nth(ta_all, nA)
        tb = tb_all[0]
        if ta == tb or abs(ta - tb) > 200:
            return False
    else:
        if not (ta_all[-1] < tb_all[0] or tb_all[-1] < ta_all[0]):
            return False  # interleaved occurrences: keep to pairs whose order is unambiguous
        ta, tb = ta_all[0], tb_all[0]
        if abs(ta - tb) > 250:
            return False
    baseA, pastA = W.ev(A)
    baseB, pastB = W.ev(B)
    if one:
        text = _fmt(one["text"], baseA=baseA, pastA=pastA, baseB=baseB, pastB=pastB, **S)
    elif nA != 1:
        ordp = W.ordinal(nA)
        text = rng.choice([f"Which was earlier: the {ordp} time {s} {pastA}, or the first time {s} {pastB}?",
                           f"Which came first, the first time {s} {pastB} or the {ordp} time {s} {pastA}?"])
    else:
        text = rng.choice([f"Which happened first: {s} {pastA}, or {s} {pastB}?",
                           f"Which came earlier, {s} {pastA} or {s} {pastB}?",
                           f"Of these two, which occurred sooner: {s} {pastA}, or {s} {pastB}?",
                           f"Did {s} {baseA} before {s} {pastB}, or the other way round? Name the one that came first."])
    q = {"op": "order", "a": {"pat": A, "n": nA}, "b": {"pat": B, "n": 1}}
    answer = _label(*A) if ta < tb else _label(*B)
    if ctx.add("8_order", "which-first", _cap(text), q, answer, [ta, tb], key=("f8", frozenset((A, B)))):
        ctx.use(A, B)
        return True
    return False


def _gen_f9(ctx: _Ctx, mode: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    S = _subject((one or {}).get("subj"), W)
    s = S["s"]
    kind = (one or {}).get("kind") or mode
    named = [p for p in ctx.pats(named=True)]
    if kind == "game":
        g = rng.choice(idx.games)
        a = {"pat": ("start game", f"game {g}"), "n": 1}
        b = {"pat": ("win game", f"game {g}"), "n": 1}
        text = _fmt(one["text"], g=g) if one else _cap(rng.choice([
            f"How many steps passed between the moment {s} started game {g} and the moment {s} won it?",
            f"How many steps after starting game {g} did {s} win it?"]))
    elif kind == "discover":
        A = ctx.choose([p for p in named if p[0] == "discover"])
        ta = idx.ts(A)[0]
        B = ctx.choose([p for p in ctx.pats() if p[0] not in ("discover", "arrive", "look around", "start game")
                        and idx.ts(p)[0] > ta and idx.ts(p)[0] - ta < 120])
        if B is None:
            return False
        a, b = {"pat": A, "n": 1}, {"pat": B, "n": 1}
        text = _fmt(one["text"], room=A[1], pastB=W.ev(B)[1], **S)
    elif kind == "step":
        B = ctx.choose(named)
        nb = _pick_n(rng, idx.count(B)) if B[0] not in NO_NTH else 1
        b = {"pat": B, "n": nb}
        tb = idx.anchor_t(b)
        t0 = tb + rng.choice([-1, 1]) * rng.randint(5, 90)
        if not 0 <= t0 < idx.T:
            return False
        a = {"step": t0}
        ancB = W.anchor_np(b, S, ctx)
        text = _fmt(one["text"], t0=t0, ancB=ancB, **S) if one else _cap(rng.choice([
            f"How many steps apart were step {t0} and {ancB}?", f"How far apart were step {t0} and {ancB}?"]))
    else:
        A = ctx.choose(named)
        B = ctx.choose([p for p in named if p != A])
        if A is None or B is None:
            return False
        a = {"pat": A, "n": 1 if A[0] in NO_NTH else _pick_n(rng, idx.count(A))}
        b = {"pat": B, "n": 1}
        ta, tb = idx.anchor_t(a), idx.anchor_t(b)
        if ta == tb or abs(ta - tb) > 200:
            return False
        if one:
            if a["n"] != 1 or idx.count(A) == 1 and False:
                return False
            text = _fmt(one["text"], pastA=W.ev(A)[1], pastB=W.ev(B)[1], **S)
        else:
            ancA, ancB = W.anchor_np(a, S, ctx), W.anchor_np(b, S, ctx)
            forms = [f"How many steps passed between {ancA} and {ancB}?", f"How far apart were {ancA} and {ancB}, in steps?",
                     f"How many steps separate {ancA} from {ancB}?"]
            if tb > ta and idx.ts(B)[0] == tb:
                forms.append(f"How long after {ancA} did {s} first {W.ev(B)[0]}?")
            text = _cap(rng.choice(forms))
    ta, tb = idx.anchor_t(a), idx.anchor_t(b)
    gold = ([ta] if "pat" in a else []) + ([tb] if "pat" in b else [])
    q = {"op": "dist", "a": a, "b": b}
    if ctx.add("9_distance", "duration", text, q, str(abs(ta - tb)), gold, key=("f9", str(a), str(b))):
        ctx.use(*[x["pat"] for x in (a, b) if "pat" in x])
        return True
    return False


def _gen_f10(ctx: _Ctx, want: str, one: dict | None) -> bool:
    W, idx, rng = ctx.W, ctx.idx, ctx.rng
    S = _subject((one or {}).get("subj"), W)
    s = S["s"]
    fields: dict = {}
    if one:
        kind, obj = one["pat"]
        if obj == "obj":
            pat = ctx.choose([p for p in ctx.pats(named=True, kinds={kind}) if p[1]])
            if pat is None:
                return False
        elif obj == "unused":
            pool = {"unlock": "door", "pocket key": "key", "arrive": "room"}[kind]
            pat = (kind, rng.choice(sorted(ctx.unused[pool])))
        else:
            pat = (kind, None)
        wk = one["window"]
        w = {"w": "all"} if wk == "all" else _rand_window(ctx, pat, allow=(wk,))
        if w is None:
            return False
        fields = {"o": pat[1], "g": w.get("g"), "ta": w.get("t"), "tb": w.get("t")}
        hits, anchors = idx.hits_in(pat, w)
        if (want == "yes") != bool(hits):
            return False
        text = _fmt(one["text"], **fields)
    else:
        if want == "yes":
            pat = ctx.choose(ctx.pats(named=rng.random() < 0.6))
            w = _rand_window(ctx, pat, allow=("all", "game", "steps", "after", "before", "events", "first"))
        else:
            style = rng.choice(["never", "unused", "window", "window"])
            if style == "never":
                kind = rng.choice(NEVER_KINDS)
                obj = rng.choice(idx.items_ever) if rng.random() < 0.4 else None
                pat = (kind, obj)
                w = {"w": "all"} if rng.random() < 0.6 else _rand_window(ctx, pat, allow=("game", "after", "before"))
            elif style == "unused":
                kind, pool = rng.choice([("pocket key", "key"), ("arrive", "room"), ("unlock", "door"), ("pick up", "item")])
                pat = (kind, rng.choice(sorted(ctx.unused[pool])))
                w = {"w": "all"}
            else:
                pat = ctx.choose(ctx.pats(named=True))
                w = _rand_window(ctx, pat, allow=("game", "steps", "after", "before", "events", "first"))
        if w is None:
            return False
        hits, anchors = idx.hits_in(pat, w)
        if (want == "yes") != bool(hits):
            return False
        base, past = W.ev(pat)
        if w["w"] == "all":
            text = rng.choice([f"Did {s} ever {base}?", f"At any point, did {s} {base}?", f"Was there ever a time {s} {past}?"])
        else:
            wt = W.window(w, S, ctx)
            forms = [f"{_cap(wt)}, did {s} {base} at all?", f"Was there any moment {wt} when {s} {past}?"]
            if " that " not in base and " not " not in base:
                forms.append(f"Did {s} {base} {wt}?")
            text = rng.choice(forms)
    q = {"op": "exists", "pat": pat, "window": w}
    gold = anchors + hits[:1]
    if ctx.add("10_existence", "yes/no", _cap(text), q, "yes" if hits else "no", gold, key=("f10", pat, str(w))):
        if hits:
            ctx.use(pat)
        return True
    return False


# ---- assembling 60 questions ----

F_SLOTS = {
    1: ["action", "location", "position", "inventory", "item", "state", "facing", "events"],
    2: ["step", "location", "action", "inventory", "state", "position", "facing", "item", "events"],
    3: ["step", "location", "action", "inventory", "state", "position", "events"],
    4: ["step", "step", "location", "action", "inventory", "state", "position"],
    5: ["action", "location", "position", "inventory", "item", "state", "facing", "events"],
    6: ["step", "step", "location", "action", "inventory", "state", "position", "facing"],
}
STEP_GENS = {1: (_gen_f1, F1_ONE), 2: (_gen_f2, F2_ONE), 3: (_gen_f3, F3_ONE), 4: (_gen_f4, F4_ONE),
             5: (_gen_f5, F5_ONE), 6: (_gen_f6, F6_ONE)}
FAMILY_NAMES = {1: "1_step_index", 2: "2_nth_occurrence", 3: "3_windowed_occurrence", 4: "4_condition", 5: "5_offset",
                6: "6_next_previous", 7: "7_count", 8: "8_order", 9: "9_distance", 10: "10_existence"}
N_ONE_OFF = 2


def _attempt(fn, ctx: _Ctx, mode, one, tries: int = 400) -> bool:
    for _ in range(tries):
        if fn(ctx, mode, one):
            ctx.out[-1]["one_off"] = one is not None
            return True
    return False


def _questions(ep: str, steps: list[Step], unused: dict, seed: int) -> list[dict]:
    rng = random.Random(seed * 4243 + 11)
    ctx = _Ctx(ep, steps, unused, rng)
    for fam in range(1, 7):
        gen, pool = STEP_GENS[fam]
        ones = rng.sample(pool, N_ONE_OFF)
        slots = [o["slot"] for o in ones]
        rest = [x for x in F_SLOTS[fam] if x not in slots] or list(F_SLOTS[fam])
        rng.shuffle(rest)
        if fam in (2, 3, 4, 6) and "step" not in slots and "step" in rest:
            rest.remove("step")
            rest.insert(0, "step")
        while len(rest) < 4:
            rest.append(rng.choice(F_SLOTS[fam]))
        plan = [(o["slot"], o) for o in ones] + [(x, None) for x in rest[:4]]
        for slot, one in plan:
            if not _attempt(gen, ctx, slot, one):
                assert _attempt(gen, ctx, slot, None), (fam, slot)
    # 7: counts (one or two zero counts, maybe one list)
    ones = rng.sample(F7_ONE, N_ONE_OFF)
    modes = ["zero", "count", "count", "count"]
    if rng.random() < 0.6:
        modes[-1] = "list"
    if rng.random() < 0.4:
        modes[-2] = "zero"
    for one in ones:
        if not _attempt(_gen_f7, ctx, "count", one):
            assert _attempt(_gen_f7, ctx, "count", None)
    for mode in modes:
        assert _attempt(_gen_f7, ctx, mode, None), mode
    # 8: order
    for one in rng.sample(F8_ONE, N_ONE_OFF):
        assert _attempt(_gen_f8, ctx, "first", one)
    for mode in ["first", "first", "nth", rng.choice(["first", "nth"])]:
        assert _attempt(_gen_f8, ctx, mode, None), mode
    # 9: distance
    for one in rng.sample(F9_ONE, N_ONE_OFF):
        if not _attempt(_gen_f9, ctx, one["kind"], one):
            assert _attempt(_gen_f9, ctx, "pair", None)
    for mode in ["pair", "pair", "step", rng.choice(["pair", "game"])]:
        assert _attempt(_gen_f9, ctx, mode, None), mode
    # 10: existence, three "yes" and three "no"
    wants = ["yes", "yes", "yes", "no", "no", "no"]
    done = []
    for one in rng.sample(F10_ONE, N_ONE_OFF):
        for want in rng.sample(sorted(set(wants)), 2):
            if want in wants and _attempt(_gen_f10, ctx, want, one, tries=150):
                wants.remove(want)
                done.append(one)
                break
    for want in wants[: 6 - len(done)]:
        assert _attempt(_gen_f10, ctx, want, None), want
    fam_order = {v: k for k, v in FAMILY_NAMES.items()}
    out = sorted(ctx.out, key=lambda o: fam_order[o["family"]])
    assert len(out) == 60 and sum(o["one_off"] for o in out) >= 18, len(out)
    for o in out:
        o.pop("spec", None)
        o.pop("one_off", None)
    return out


def build(seed: int) -> dict:
    """The episode of a seed (several TextWorld games played by Mote) and its 60 questions."""
    ep = f"{SHORT}-{seed}"
    steps, unused = _play_episode(seed)
    validate_steps(steps, ep)
    questions = _questions(ep, steps, unused, seed)
    return {"episodes": {ep: steps}, "questions": questions}


def _self_check(argv: list[str]) -> None:
    import re
    import time

    seeds = [int(a) for a in argv] or list(SEED_RANGE)[:2]
    for seed in seeds:
        t0 = time.process_time()
        built = build(seed)
        cpu = time.process_time() - t0
        (ep, steps), = built["episodes"].items()
        validate_steps(steps, ep)
        qs = built["questions"]
        games = Counter(s.state_dict["game"] for s in steps)
        print(f"== {SUITE} seed {seed}: episode {ep}, {len(steps)} steps, {len(games)} games, {len(qs)} questions, "
              f"build {cpu:.1f}s CPU")
        assert 300 <= len(steps) <= 1500 and [s.t for s in steps] == list(range(len(steps)))
        fam = Counter(q["family"] for q in qs)
        assert len(qs) == 60 and sorted(fam.values()) == [6] * 10 and set(fam) == set(FAMILY_NAMES.values()), fam
        print("families/slots:")
        for f in FAMILY_NAMES.values():
            slots = Counter(q["slot"] for q in qs if q["family"] == f)
            print(f"  {f:24s} {dict(sorted(slots.items()))}")
        kinds = Counter(e.kind for s in steps for e in s.events)
        print("event kinds:", dict(sorted(kinds.items())))
        for q in qs:
            assert q["episode"] == ep and isinstance(q["answer"], str) and q["answer"].strip(), q
            assert q["gold"] == sorted(set(q["gold"]), key=lambda g: int(g.rsplit(":", 1)[1])), q
            for g in q["gold"]:
                e, t = g.rsplit(":", 1)
                assert e == ep and 0 <= int(t) < len(steps), (q, g)
            if not q["gold"]:
                assert q["answer"] in ("no", "0"), q
        yn = Counter(q["answer"] for q in qs if q["family"] == "10_existence")
        assert yn == Counter({"yes": 3, "no": 3}), yn
        zeros = sum(1 for q in qs if q["family"] == "7_count" and q["answer"] == "0")
        assert zeros >= 1
        texts = [q["question"] for q in qs]
        assert len(set(texts)) == len(texts)
        all_kinds = set(kinds) | set(NEVER_KINDS)
        verbatim = sum(1 for q in qs if any(re.search(rf"\b{k}", q["question"].lower()) for k in all_kinds))
        print(f"questions naming a stored kind verbatim (word or inflection of any kind, e.g. 'unlocked'): {verbatim}/60; zero counts: {zeros}")
        again = build(seed)
        assert again == built, "second build differs"
        print("second build identical: yes")
        rng = random.Random(seed)
        print("samples:")
        for q in rng.sample(qs, 12):
            print(f"  [{q['family']}/{q['slot']}] {q['question']}\n      -> {q['answer']}   gold={q['gold']}")
    print("self-check passed")


if __name__ == "__main__":
    _self_check(sys.argv[1:])
