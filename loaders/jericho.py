"""Jericho (Z-machine interactive fiction) playthroughs as graphmem ``Step`` records.

Jericho ships no game files; bring your own (e.g. ``zork1.z5``) and the actions to play::

    steps = steps_from_jericho("roms/zork1.z5", ["open mailbox", "take leaflet", "north"])

Ground truth comes from Jericho's API, not from the prose: the room is
``env.get_player_location()``, the inventory ``env.get_inventory()``, the world state hash
``env.get_world_state_hash()``, plus the score and game-over flags. Events:

* visit (room) when the player's location object changes (and at step 0)
* collect + gain (x) when an object enters the inventory, lose (x) when it leaves
* achievement ("points", count = points gained) when the score goes up
* die when the game is over without a victory; achievement ("victory") on a victory

Games Jericho does not fully support (e.g. TextWorld's ``.z8`` files) have no known player
object: then the room comes from the ``-= Room =-`` header TextWorld prints (else it stays as it
was), the inventory is not tracked (``state["inventory_tracked"] = False``), and a warning is
logged once.

Names are Jericho's object names in lower case ("brass lantern", "west of house").
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Sequence
from typing import Any

from graphmem.records import Event, Location, Relation, Step, validate_steps

logger = logging.getLogger(__name__)

INSTALL_HINT = (
    "graphmem.loaders.jericho needs the 'jericho' package, which compiles the Frotz Z-machine "
    "interpreter: install a C compiler and make (e.g. apt-get install build-essential), then "
    "`pip install jericho`; game files are not included (see https://github.com/BYU-PCCL/z-machine-games)."
)
_ROOM_HEADER = re.compile(r"-=\s*(?P<room>[^=]+?)\s*=-")


def _require_jericho() -> Any:
    try:
        import jericho
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} (import failed: {exc})") from exc
    return jericho


def _clean(name: Any) -> str:
    return " ".join(str(name).split()).lower()


class _Tracker:
    """Reads location/inventory from a Jericho env, degrading gracefully on unsupported games."""

    def __init__(self, env: Any, where: str) -> None:
        self.env = env
        self.where = where
        self.supported = True

    def location(self, observation: str, previous: tuple[int, str]) -> tuple[int, str]:
        if self.supported:
            try:
                room = self.env.get_player_location()
                return int(room.num), _clean(room.name)
            except (AttributeError, TypeError, ValueError):
                self._unsupported()
        match = _ROOM_HEADER.search(observation)
        return (-1, _clean(match.group("room"))) if match else previous

    def inventory(self) -> list[str] | None:
        if not self.supported:
            return None
        try:
            return sorted(_clean(obj.name) for obj in self.env.get_inventory())
        except (AttributeError, TypeError, ValueError):
            self._unsupported()
            return None

    def _unsupported(self) -> None:
        self.supported = False
        logger.warning(
            "%s: Jericho cannot find the player object in this game; rooms come from the text's "
            "room headers and the inventory is not tracked",
            self.where,
        )


def _events(
    room: str, new_room: str, inventory: list[str] | None, new_inventory: list[str] | None, score: int, new_score: int
) -> tuple[list[Event], list[str]]:
    events: list[Event] = []
    phrases: list[str] = []
    if new_room and new_room != room:
        events.append(Event("visit", new_room))
        phrases.append(f"went to {new_room}")
    if inventory is not None and new_inventory is not None:
        for x in sorted(set(new_inventory) - set(inventory)):
            events += [Event("collect", x), Event("gain", x, new_inventory.count(x) - inventory.count(x))]
            phrases.append(f"took {x}")
        for x in sorted(set(inventory) - set(new_inventory)):
            events.append(Event("lose", x, inventory.count(x) - new_inventory.count(x)))
            phrases.append(f"no longer has {x}")
    if new_score > score:
        events.append(Event("achievement", "points", new_score - score))
        phrases.append(f"scored {new_score - score} point(s) (score {new_score})")
    return events, phrases


def steps_from_jericho_env(env: Any, actions: Sequence[str], where: str = "jericho game") -> list[Step]:
    """Play ``actions`` in an already created Jericho env (``FrotzEnv`` or anything with its API).

    >>> import jericho  # doctest: +SKIP
    >>> steps_from_jericho_env(jericho.FrotzEnv("zork1.z5"), ["north"])  # doctest: +SKIP
    """
    if isinstance(actions, str) or not isinstance(actions, Sequence):
        raise TypeError("actions must be a list of command strings")
    tracker = _Tracker(env, where)
    observation, info = env.reset()
    room_id, room = tracker.location(observation, (-1, ""))
    inventory = tracker.inventory()
    score = int(info.get("score", 0) or 0)
    out: list[Step] = []
    for t, action in enumerate(actions):
        if not isinstance(action, str) or not action.strip():
            raise ValueError(f"{where}: action #{t} must be a non-empty string, got {action!r}")
        observation, _, done, info = env.step(action)
        new_room_id, new_room = tracker.location(observation, (room_id, room))
        new_inventory = tracker.inventory()
        new_score = int(info.get("score", score) or 0)
        # Step 0 "visits" the room it ends in, as in the other loaders.
        events, phrases = _events(room if t else "", new_room, inventory, new_inventory, score, new_score)
        if done:
            won = bool(_call(env, "victory", False))
            events.append(Event("achievement", "victory") if won else Event("die", ""))
            phrases.append("won the game" if won else "the game ended (died)")
        if not phrases:
            phrases.append(_first_line(observation) or f"{action}: no reply")
        held = new_inventory or []
        relations = [Relation("agent", "in", new_room)] if new_room else []
        relations += [Relation("agent", "carrying", x) for x in held]
        state: dict[str, Any] = {
            "score": new_score,
            "moves": int(info.get("moves", t + 1) or 0),
            "inventory_tracked": new_inventory is not None,
        }
        if tracker.supported:  # unsupported games return a constant hash: change detection is off
            state["world_state_hash"] = str(_call(env, "get_world_state_hash", ""))
        touched = [e.obj for e in events if e.obj and e.kind in ("collect", "lose")]
        out.append(
            Step(
                t=t,
                action=" ".join(action.lower().split()),
                summary="; ".join(phrases),
                objects=tuple(dict.fromkeys([*touched, *held])),
                events=tuple(events),
                relations=tuple(relations),
                inventory={x: held.count(x) for x in held},
                state=state,
                location=Location(region=new_room),
                observation=observation.strip(),
            )
        )
        room_id, room, inventory, score = new_room_id, new_room, new_inventory, new_score
        if done:
            break
    validate_steps(out, where)
    return out


def _first_line(text: str) -> str:
    """The first line of the game's reply that is not blank, a prompt or a status line."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line and not line.startswith(">"):
            return line[:160]
    return ""


def _call(env: Any, method: str, default: Any) -> Any:
    try:
        return getattr(env, method)()
    except Exception:  # noqa: BLE001 - optional extras of the API; a missing one is not fatal
        return default


def steps_from_jericho(game_file: str | os.PathLike[str], actions: Sequence[str], seed: int = 0) -> list[Step]:
    """Play ``actions`` in a Jericho game file and return the Steps.

    Raises ImportError with installation instructions when Jericho is missing and
    FileNotFoundError when the game file does not exist.

    >>> steps = steps_from_jericho("zork1.z5", ["open mailbox", "read leaflet"])  # doctest: +SKIP
    >>> steps[0].location.region  # doctest: +SKIP
    'west of house'
    """
    jericho = _require_jericho()
    path = os.fspath(game_file)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Jericho game file not found: {path} (Jericho ships no games)")
    with warnings.catch_warnings():
        # Jericho warns about games it does not fully support; the tracker logs that once instead.
        warnings.simplefilter("ignore", category=getattr(jericho, "UnsupportedGameWarning", Warning))
        env = jericho.FrotzEnv(path, seed=seed)
        try:
            return steps_from_jericho_env(env, actions, where=os.path.basename(path))
        finally:
            env.close()
