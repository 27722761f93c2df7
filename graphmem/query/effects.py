"""Which kind an event said by its effect is: "got wood", "used up a stone", "raised my score", "lost
health" name the kind whose steps moved that count or state that way, by what the memory saw.

The write path counts, per (kind, object), the steps of that kind's events that raised or lowered the
object's inventory count (``pair_effects``), and per (kind, numeric state) the steps that raised or
lowered the state (``state_effects``); the verbs of getting, losing, raising and lowering are general
English.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.query.wordforms import contiguous, covers, forms, morph_forms, words

if TYPE_CHECKING:
    from graphmem.query.lexicon import Lexicon

__all__ = ["MOVING_SHARE", "kinds_moving", "state_moving"]

#: Verbs of coming to have and of ceasing to have something: which way an event moved the count of
#: what it names.
GETTING = frozenset({"get", "obtain", "gain", "gather", "collect", "find", "receive", "acquire", "earn", "pick", "take",
                     "grab", "fetch", "harvest", "procure", "secure", "win", "loot", "scavenge"})
LOSING = frozenset({"lose", "spend", "use", "consume", "give", "drop", "discard", "sacrifice", "expend", "burn", "waste"})
#: Verbs and particles of a value going up or down.
RAISING = frozenset({"raise", "increase", "boost", "improve", "rise", "up", "grow", "gain", "earn", "lift", "bump", "push", "climb"})
LOWERING = frozenset({"lose", "lower", "decrease", "reduce", "drop", "down", "fall", "shrink", "sink", "dip", "decline", "drain"})
#: A kind says "raised my score" when at least this share of its steps that moved the score raised it.
MOVING_SHARE = 0.8


def _said(tokens: Sequence[str]) -> set[str]:
    return set().union(*(morph_forms(w) for w in tokens)) if tokens else set()


def kinds_moving(lex: Lexicon, obj: str, pool: Sequence[str], tokens: Sequence[str]) -> list[str]:
    """The kinds of ``pool`` whose events mostly raised (a verb of getting: "got", "found") or lowered
    (of losing: "lost", "used up") the count of ``obj``; [] when the words say neither or the memory
    never saw the object's count move."""
    said = _said(tokens)
    direction = 0 if (said & GETTING) and (said & LOSING) else 1 if said & GETTING else -1 if said & LOSING else 0
    if direction == 0:
        return []
    effects = {k: (g, lo) for k, o, g, lo in lex.pair_effects if o == obj and k in pool}
    return sorted(k for k, (g, lo) in effects.items() if (g > lo if direction > 0 else lo > g))


def state_moving(lex: Lexicon, tokens: Sequence[str]) -> str | None:
    """ "raised my score", "lost health", "my energy went down": the kind whose steps (nearly) always
    moved that numeric state that way, when the words name the state, a way and no stored kind."""
    said = _said(tokens)
    up, down = bool(said & RAISING), bool(said & LOWERING)
    if up == down or not lex.state_effects or any(covers(words(k), [forms(w) for w in tokens]) == 1.0 for k in lex.kinds):
        return None
    state = lex.name([w for w in tokens if w not in RAISING | LOWERING], {n for _, n, _, _ in lex.state_effects}, fuzzy=False)
    if state is None or any(o and contiguous(words(o), list(tokens), True) for _, o in lex.pairs):
        return None
    share = {k: (r if up else f) for k, n, r, f in lex.state_effects if n == state}
    moved = sorted(share, key=lambda k: (-share[k], k))
    if not moved or share[moved[0]] == 0:
        return None
    kind_events = {k: r + f for k, n, r, f in lex.state_effects if n == state}
    best = moved[0]
    if share[best] < MOVING_SHARE * kind_events[best] or (len(moved) > 1 and share[moved[1]] >= share[best]):
        return None
    return best
