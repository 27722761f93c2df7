"""One entry point for every trajectory source: ``load_trajectory("crafter", seed=0)``.

Each loader is imported only when asked for, so that a missing optional package (textworld,
scienceworld, jericho) only matters to the caller who needs it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from graphmem.errors import InvalidRecordError
from graphmem.records import Step

logger = logging.getLogger(__name__)


def _crafter(**kwargs: Any) -> list[Step]:
    from graphmem.loaders.crafter import run_crafter

    return run_crafter(**kwargs)


def _textworld(**kwargs: Any) -> list[Step]:
    from graphmem.loaders.textworld import run_textworld

    return run_textworld(**kwargs)


def _scienceworld(**kwargs: Any) -> list[Step]:
    from graphmem.loaders.scienceworld import run_scienceworld

    return run_scienceworld(**kwargs)


def _alfworld(
    path: str | os.PathLike[str] | None = None, records: Iterable[Mapping[str, Any]] | None = None
) -> list[Step]:
    from graphmem.loaders.alfworld import read_alfworld_jsonl, steps_from_alfworld_log

    if (path is None) == (records is None):
        raise TypeError("alfworld needs exactly one of path= (a JSONL log) or records= (a list of records)")
    return read_alfworld_jsonl(path) if path is not None else steps_from_alfworld_log(records or [])


def _jsonl(path: str | os.PathLike[str]) -> list[Step]:
    from graphmem.loaders.jsonl_steps import read_steps_jsonl

    return read_steps_jsonl(path)


def _jericho(game_file: str | os.PathLike[str], actions: Sequence[str], seed: int = 0) -> list[Step]:
    from graphmem.loaders.jericho import steps_from_jericho

    return steps_from_jericho(game_file, actions, seed=seed)


#: Environment name -> loader. Keyword arguments go to the loader unchanged.
LOADERS: dict[str, Callable[..., list[Step]]] = {
    "crafter": _crafter,  # seed, steps=2000, policy="scripted"
    "textworld": _textworld,  # seed, steps=200, workdir=None
    "scienceworld": _scienceworld,  # task="boil", variation=0, steps=100, seed=0
    "alfworld": _alfworld,  # path=... or records=[...]
    "jsonl": _jsonl,  # path=...
    "jericho": _jericho,  # game_file, actions, seed=0
}


def load_trajectory(env: str, **kwargs: Any) -> list[Step]:
    """Steps of one trajectory from the named environment.

    >>> steps = load_trajectory("crafter", seed=0, steps=300)
    >>> steps = load_trajectory("jsonl", path="run.jsonl")  # doctest: +SKIP

    Raises InvalidRecordError (a ValueError) for an unknown environment name, listing the known ones.
    """
    name = env.strip().lower() if isinstance(env, str) else env
    loader = LOADERS.get(name) if isinstance(name, str) else None
    if loader is None:
        raise InvalidRecordError("load_trajectory", "env", f"unknown environment {env!r}; known: {sorted(LOADERS)}")
    logger.debug("loading a %s trajectory with %s", name, kwargs)
    return loader(**kwargs)
