"""TextWorld games (generated offline) played and converted into graphmem ``Step`` records.

``run_textworld(seed)`` generates a game the way ``tw-make custom --world-size 5 --nb-objects 10
--quest-length 5 --seed S`` does (TextWorld's own generator, with Inform 7 bundled in the wheel, so
no network), plays it with a seeded policy (random admissible commands, then the walkthrough so
that the quest is completed by the last step), and converts each step.

Everything is derived from TextWorld's *facts* (the game's ground-truth state), never from the
prose: the room comes from ``at(P, room)``, the inventory from ``in(x, I)``, relations from
``in``/``on``/``at`` and ``open``/``closed``/``locked`` facts, and events from how the facts changed:

* visit (room) when ``at(P, room)`` changes (and at step 0 for the start room)
* collect + gain (x) when ``in(x, I)`` appears; lose (x) when it disappears
* move (x) when x left the inventory for a container or supporter (put/insert); eat (x) when it
  was eaten; a plain drop is just lose
* open / close (container or door); use (key) when a lock was locked or unlocked with it
* achievement ("quest completed") when the game is won

Names are TextWorld's entity names in lower case ("type d locker", "spare room").
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.records import Event, Location, Relation, Step, validate_steps

logger = logging.getLogger(__name__)

#: Verbs the random part of the policy avoids: they change nothing (look, inventory, examine).
IDLE_VERBS: tuple[str, ...] = ("look", "inventory", "examine")
#: Share of idle commands still allowed, so that the log has some of them too.
IDLE_SHARE = 0.1
DIRECTION_PREDICATES: dict[str, str] = {
    "north_of": "north of",
    "south_of": "south of",
    "east_of": "east of",
    "west_of": "west of",
}


def _require_textworld() -> Any:
    try:
        import textworld
        import textworld.generator  # imported for make/compile
    except ImportError as exc:
        raise ImportError(
            f"graphmem.loaders.textworld needs the 'textworld' package: pip install textworld ({exc})"
        ) from exc
    return textworld


def make_game(seed: int, directory: str | os.PathLike[str], world_size: int = 5, nb_objects: int = 10, quest_length: int = 5) -> Path:
    """Generate and compile a TextWorld game, like ``tw-make custom``; returns the ``.z8`` path.

    Reuses a game already compiled in ``directory`` for the same settings.

    >>> make_game(1, "/tmp/tw")  # doctest: +SKIP
    PosixPath('/tmp/tw/tw_custom_s1_w5_o10_q5.z8')
    """
    textworld = _require_textworld()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"tw_custom_s{seed}_w{world_size}_o{nb_objects}_q{quest_length}.z8"
    if path.exists() and path.with_suffix(".json").exists():
        return path
    options = textworld.GameOptions()
    options.seeds = seed
    options.path = str(path)
    options.file_ext = ".z8"
    # The settings of `tw-make custom` with its argparse defaults.
    options.nb_rooms = world_size
    options.nb_objects = nb_objects
    options.nb_parallel_quests = 1
    options.chaining.min_breadth = 1
    options.chaining.max_breadth = 5
    options.chaining.min_depth = 1
    options.chaining.min_length = quest_length
    options.chaining.max_length = quest_length
    options.chaining.max_depth = quest_length
    options.grammar.theme = "house"
    game_file, _ = textworld.make(options)
    logger.info("generated TextWorld game %s (seed %d)", game_file, seed)
    return Path(game_file)


# --------------------------------------------------------------------------------------------------
# Facts -> world view
# --------------------------------------------------------------------------------------------------


def _name(variable: Any) -> str:
    return str(variable.name).strip().lower()


@dataclass
class _View:
    """The ground truth of one game state, from its facts."""

    room: str = ""
    inventory: list[str] = field(default_factory=list)
    place: dict[str, tuple[str, str]] = field(default_factory=dict)  # x -> ("in"|"on", holder)
    state: dict[str, str] = field(default_factory=dict)  # container/door -> open|closed|locked
    exits: list[Relation] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # lockable -> key that matches it
    eaten: set[str] = field(default_factory=set)


def _view(facts: Iterable[Any]) -> _View:
    view = _View()
    directions: list[tuple[str, str, str]] = []
    for fact in facts:
        args = [_name(a) for a in fact.arguments]
        kinds = [a.type for a in fact.arguments]
        name = fact.name
        if name == "at" and kinds[0] == "P":
            view.room = args[1]
        elif name == "at":
            view.place[args[0]] = ("in", args[1])
        elif name == "in" and kinds[1] == "I":
            view.inventory.append(args[0])
        elif name in ("in", "on"):
            view.place[args[0]] = (name, args[1])
        elif name in ("open", "closed", "locked"):
            view.state[args[0]] = name
        elif name == "match":
            view.keys[args[1]] = args[0]
        elif name == "eaten":
            view.eaten.add(args[0])
        elif name in DIRECTION_PREDICATES:
            directions.append((args[0], DIRECTION_PREDICATES[name], args[1]))
    view.exits = [Relation(a, p, b) for a, p, b in directions if b == view.room]
    view.inventory.sort()
    return view


def _visible(view: _View) -> list[str]:
    """Things in the player's room, with what is on supporters and in open containers."""
    seen = [x for x, (_, holder) in view.place.items() if holder == view.room]
    frontier = list(seen)
    while frontier:
        holder = frontier.pop()
        if view.state.get(holder) in ("closed", "locked"):
            continue
        for x, (_, h) in view.place.items():
            if h == holder and x not in seen:
                seen.append(x)
                frontier.append(x)
    return sorted(seen)


def _events(before: _View, after: _View, won: bool, was_won: bool) -> tuple[list[Event], list[str]]:
    events: list[Event] = []
    phrases: list[str] = []
    if after.room != before.room:
        events.append(Event("visit", after.room))
        phrases.append(f"went to the {after.room}")
    for x in sorted(set(after.inventory) - set(before.inventory)):
        source = before.place.get(x)
        events.append(Event("collect", x))
        events.append(Event("gain", x))
        phrases.append(f"took the {x}" + (f" from the {source[1]}" if source and source[1] != before.room else ""))
    for x in sorted(set(before.inventory) - set(after.inventory)):
        events.append(Event("lose", x))
        target = after.place.get(x)
        if x in after.eaten or (x not in after.place and x not in after.inventory):
            events.append(Event("eat", x))
            phrases.append(f"ate the {x}")
        elif target and target[1] != after.room:
            events.append(Event("move", x))
            phrases.append(f"put the {x} {target[0]} the {target[1]}")
        else:
            phrases.append(f"dropped the {x} in the {after.room}")
    for thing in sorted(set(before.state) | set(after.state)):
        old, new = before.state.get(thing), after.state.get(thing)
        if old == new or old is None or new is None:
            continue
        if new == "open":
            events.append(Event("open", thing))
            phrases.append(f"opened the {thing}")
        elif new == "closed" and old == "open":
            events.append(Event("close", thing))
            phrases.append(f"closed the {thing}")
        elif {old, new} == {"closed", "locked"}:
            key = after.keys.get(thing, "")
            if key:
                events.append(Event("use", key))
            verb = "unlocked" if new == "closed" else "locked"
            phrases.append(f"{verb} the {thing}" + (f" with the {key}" if key else ""))
    if won and not was_won:
        events.append(Event("achievement", "quest completed"))
        phrases.append("completed the quest")
    return events, phrases


def _relations(view: _View, visible: list[str]) -> list[Relation]:
    relations = [Relation("agent", "in", view.room)]
    relations += [Relation("agent", "carrying", x) for x in view.inventory]
    for x in visible:
        predicate, holder = view.place[x]
        relations.append(Relation(x, predicate, holder))
    for x in visible:
        if x in view.state:
            relations.append(Relation(x, "is", view.state[x]))
    relations += view.exits
    return relations


def _feedback(text: str) -> str:
    """The game's reply without its banner art and prompt."""
    lines = [line.rstrip() for line in text.splitlines()]
    kept = [
        line
        for line in lines
        if line.strip() and not line.lstrip().startswith(">") and not set(line.strip()) <= set("_|\\/$ ")
    ]
    return "\n".join(kept).strip()


# --------------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------------


def _choose(state: Any, rng: np.random.RandomState, steps_left: int) -> str:
    """Random admissible commands, then the walkthrough once it just fits in the steps left."""
    walkthrough = list(state.get("policy_commands") or [])
    if walkthrough and steps_left <= len(walkthrough) + 2:
        # One random step can lengthen the walkthrough by one (walking away): start 2 steps early
        # and wait with a harmless command until the walkthrough exactly fills the steps left.
        return walkthrough[0] if steps_left <= len(walkthrough) else "look"
    quest_words = " ".join(walkthrough).lower()
    options = []
    for command in state["admissible_commands"]:
        verb = command.split()[0]
        if verb == "eat" and command[4:].lower() in quest_words:
            continue  # eating a quest item would make the quest impossible
        if len(walkthrough) == 1 and command == walkthrough[0]:
            continue  # finishing the quest ends the game: keep it for the end
        options.append(command)
    if not options:
        options = list(state["admissible_commands"])
    active = [c for c in options if c.split()[0] not in IDLE_VERBS]
    pool = active if active and rng.uniform() >= IDLE_SHARE else options
    return str(pool[rng.randint(len(pool))])


def run_textworld(seed: int, steps: int = 200, workdir: str | os.PathLike[str] | None = None) -> list[Step]:
    """Generate a TextWorld game for ``seed``, play ``steps`` steps and return them as Steps.

    The game is kept in ``workdir`` (reused on the next call) or in a temporary directory that
    is removed afterwards. The episode stops early if the game ends.

    >>> steps = run_textworld(seed=1, steps=50)  # doctest: +SKIP
    >>> steps[0].location.region  # doctest: +SKIP
    'spare room'
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    textworld = _require_textworld()
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="graphmem-tw-") as tmp:
            return _play(textworld, make_game(seed, tmp), seed, steps)
    return _play(textworld, make_game(seed, workdir), seed, steps)


def _play(textworld: Any, game_file: Path, seed: int, steps: int) -> list[Step]:
    infos = textworld.EnvInfos(
        admissible_commands=True, policy_commands=True, facts=True, inventory=True, score=True, max_score=True, won=True, lost=True, objective=True
    )
    with warnings.catch_warnings():
        # TextWorld runs its games through Jericho, which warns that they are "not fully supported".
        warnings.simplefilter("ignore")
        env = textworld.start(str(game_file), request_infos=infos)
    rng = np.random.RandomState(seed)
    out: list[Step] = []
    try:
        state = env.reset()
        objective = " ".join(str(state["objective"]).split())
        view = _view(state["facts"])
        view.room = ""  # so that step 0 "visits" the start room, as in the other loaders
        won = bool(state["won"])
        for t in range(steps):
            command = _choose(state, rng, steps - t)
            state, _, done = env.step(command)
            new_view = _view(state["facts"])
            new_won = bool(state["won"])
            events, phrases = _events(view, new_view, new_won, won)
            feedback = _feedback(state["feedback"])
            visible = _visible(new_view)
            touched = [e.obj for e in events if e.obj and e.kind not in ("visit", "achievement")]
            objects = list(dict.fromkeys([*touched, *visible, *new_view.inventory]))
            if not phrases:
                first = feedback.split("\n")[0] if feedback else ""
                phrases.append(first[:160] or f"{command}: nothing changed")
            out.append(
                Step(
                    t=t,
                    action=" ".join(command.lower().split()),
                    summary="; ".join(phrases),
                    objects=tuple(objects),
                    events=tuple(events),
                    relations=tuple(dict.fromkeys(_relations(new_view, visible))),
                    inventory={x: new_view.inventory.count(x) for x in new_view.inventory},
                    state={
                        "score": int(state["score"]),
                        "max_score": int(state["max_score"]),
                        "won": new_won,
                        **({"objective": objective} if t == 0 else {}),  # the quest, said once
                    },
                    location=Location(region=new_view.room),
                    observation=feedback,
                )
            )
            view, won = new_view, new_won
            if done:
                logger.info("textworld seed %d: the game ended at step %d (won=%s)", seed, t, new_won)
                break
    finally:
        env.close()
    validate_steps(out, f"textworld seed {seed}")
    return out
