"""A deterministic answerer over packed evidence: anchors in, a canonical answer string (or None) out.

The executor reads ONLY the :class:`EvidenceBundle` it is given. It locates the anchor step, applies the
offset and reads one slot; whenever the decisive step is not in the evidence it returns ``None`` rather
than guessing, so its accuracy measures what the packed evidence supports.

Canonical answer formats (the one place they are defined; compare answers with :func:`normalize_answer`):

=========== ======================================================= ==========================
slot        answer                                                  example
=========== ======================================================= ==========================
action      the step's ``action`` text, verbatim                    ``"collect wood"``
step        the step index ``t`` in decimal                         ``"412"``
location    the region; the position ``"x,y"`` if there is none     ``"forest"``
position    ``"x,y"``                                               ``"32,17"``
inventory   the item's count after the step; ``"0"`` if absent      ``"3"``
state       the state value: ints in decimal, floats ``%g``,        ``"7"``
            booleans ``"true"``/``"false"``, text verbatim
facing      the object of the relation (agent, facing, X)           ``"tree"``
count       the number of (kind, obj) events so far, in decimal     ``"5"``
events      ``"kind obj"`` per event in step order, joined by "; "   ``"collect wood; gain wood"``
            (``"none"`` for a step without events)
=========== ======================================================= ==========================

Ordinals: an event's ordinal is 1 + the number of earlier events with the same (kind, obj) in the episode,
counting events (not their ``count``) and, inside one step, in the step's event order
(:func:`bundle_from_steps` is the reference).

>>> from graphmem.records import Event
>>> steps = [Step(t, "noop") for t in range(3)] + [Step(3, "collect wood", events=(Event("collect", "wood"),))]
>>> bundle = bundle_from_steps("ep1", steps)
>>> execute(Anchors(target_step=3, slot="action"), bundle)
'collect wood'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphmem.recall.anchors import Anchors
from graphmem.records import Scalar, Step

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvidenceStep:
    """One packed step with the episode-wide ordinals of its events.

    >>> from graphmem.records import Event
    >>> step = Step(7, "collect wood", events=(Event("collect", "wood"),))
    >>> ev_step = EvidenceStep("ep1:7", "ep1", 7, step, (("collect", "wood", 2),))  # the episode's 2nd wood
    >>> ev_step.source_id, ev_step.event_ordinals
    ('ep1:7', (('collect', 'wood', 2),))
    """

    source_id: str
    episode_id: str
    t: int
    step: Step
    event_ordinals: tuple[tuple[str, str, int], ...]  # (kind, obj, ordinal within the episode) per event


@dataclass(frozen=True)
class EvidenceBundle:
    """What the packer hands to the answerer: steps plus per-episode event totals (for "last" ordinals).

    >>> from graphmem.records import Event
    >>> ev_step = EvidenceStep("ep1:7", "ep1", 7, Step(7, "collect wood", events=(Event("collect", "wood"),)),
    ...                        (("collect", "wood", 2),))
    >>> bundle = EvidenceBundle(steps=(ev_step,), event_totals=(("collect", "wood", 12),))
    >>> [s.source_id for s in bundle.steps], bundle.event_totals
    (['ep1:7'], (('collect', 'wood', 12),))
    """

    steps: tuple[EvidenceStep, ...]
    event_totals: tuple[tuple[str, str, int], ...] = ()  # (kind, obj, total occurrences in the episode)


def event_ordinals(steps: Sequence[Step]) -> tuple[list[tuple[tuple[str, str, int], ...]], dict[tuple[str, str], int]]:
    """Per step, the (kind, obj, ordinal) of each of its events; and the episode totals per (kind, obj).

    >>> from graphmem.records import Event
    >>> wood, sapling = Event("collect", "wood"), Event("collect", "sapling")
    >>> steps = [Step(0, "collect wood", events=(wood,)), Step(1, "noop"), Step(2, "collect", events=(wood, sapling))]
    >>> ords, totals = event_ordinals(steps)
    >>> ords
    [(('collect', 'wood', 1),), (), (('collect', 'wood', 2), ('collect', 'sapling', 1))]
    >>> totals
    {('collect', 'wood'): 2, ('collect', 'sapling'): 1}
    """
    seen: dict[tuple[str, str], int] = {}
    per_step: list[tuple[tuple[str, str, int], ...]] = []
    for step in steps:
        row = []
        for ev in step.events:
            key = (ev.kind, ev.obj)
            seen[key] = seen.get(key, 0) + 1
            row.append((ev.kind, ev.obj, seen[key]))
        per_step.append(tuple(row))
    return per_step, seen


def bundle_from_steps(episode_id: str, steps: Sequence[Step], keep: Iterable[int] | None = None) -> EvidenceBundle:
    """Evidence over ground-truth steps (ordinals counted over ALL ``steps``); ``keep`` restricts to those t.

    Used for full-evidence upper bounds and in tests; the real packer builds bundles from the store.

    >>> from graphmem.records import Event
    >>> steps = [Step(t, "collect wood", events=(Event("collect", "wood"),)) for t in range(5)]
    >>> bundle = bundle_from_steps("ep1", steps, keep={3, 4})
    >>> [(s.source_id, s.event_ordinals) for s in bundle.steps]
    [('ep1:3', (('collect', 'wood', 4),)), ('ep1:4', (('collect', 'wood', 5),))]
    >>> bundle.event_totals
    (('collect', 'wood', 5),)
    """
    ordered = sorted(steps, key=lambda s: s.t)
    per_step, totals = event_ordinals(ordered)
    wanted = None if keep is None else set(keep)
    packed = tuple(
        EvidenceStep(f"{episode_id}:{s.t}", episode_id, s.t, s, ords)
        for s, ords in zip(ordered, per_step)
        if wanted is None or s.t in wanted
    )
    return EvidenceBundle(packed, tuple((k, o, n) for (k, o), n in sorted(totals.items())))


# --------------------------------------------------------------------------------------------------
# Answer formatting
# --------------------------------------------------------------------------------------------------


def format_scalar(value: Scalar) -> str:
    """Canonical text of a state value: ``7 -> "7"``, ``7.0 -> "7"``, ``0.25 -> "0.25"``, ``True -> "true"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, "g")
    return str(value)


def format_position(position: tuple[int, int]) -> str:
    return f"{position[0]},{position[1]}"


def read_slot(step: Step, slot: str, slot_arg: str | None = None) -> str | None:
    """The canonical answer for ``slot`` read off one step (``None`` when the step does not hold it).

    ``count`` is not a per-step slot and returns ``None`` here.

    >>> read_slot(Step(3, "collect wood", inventory={"wood": 2}), "inventory", "wood")
    '2'
    """
    if slot == "action":
        return step.action
    if slot == "step":
        return str(step.t)
    if slot == "location":
        if step.location.region:
            return step.location.region
        return format_position(step.location.position) if step.location.position is not None else None
    if slot == "position":
        return format_position(step.location.position) if step.location.position is not None else None
    if slot == "inventory":
        if slot_arg is None:
            return None
        return str(step.inventory_dict.get(slot_arg, 0))
    if slot == "state":
        if slot_arg is None or slot_arg not in step.state_dict:
            return None
        return format_scalar(step.state_dict[slot_arg])
    if slot == "facing":
        for rel in step.relations:
            if rel.subject == "agent" and rel.predicate == "facing":
                return rel.obj
        return None
    if slot == "events":
        if not step.events:
            return "none"
        return "; ".join(f"{ev.kind} {ev.obj}".strip() for ev in step.events)
    return None


_ARTICLES = re.compile(r"^(?:the|a|an)\s+")
_STEP_PREFIX = re.compile(r"^(?:at\s+)?(?:time\s*step|timestep|step|t\s*=|t)\s*#?\s*(?=\d)")


def normalize_answer(answer: str | None) -> str:
    """Comparable form of an answer: lower case, single spaces, no surrounding punctuation or leading
    article, "step 412"/"t=412" -> "412", "(3, 4)" -> "3,4", "7.0" -> "7", "wood_pickaxe" -> "wood pickaxe".

    >>> normalize_answer(" Step 412. ") == normalize_answer("412")
    True
    """
    if answer is None:
        return ""
    s = str(answer).strip().lower().replace("_", " ")
    s = re.sub(r"\s+", " ", s)
    s = s.strip(" \t\n\"'`.!?;:")
    s = _ARTICLES.sub("", s)
    s = _STEP_PREFIX.sub("", s)
    pos = re.fullmatch(r"\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?", s)
    if pos:
        return f"{pos.group(1)},{pos.group(2)}"
    num = re.fullmatch(r"-?\d+\.0+", s)
    if num:
        return s.split(".")[0]
    return s


# --------------------------------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------------------------------


def execute(anchors: Anchors, evidence: EvidenceBundle) -> str | None:
    """Answer from the evidence alone, or ``None`` if the decisive step is missing or the anchors are incomplete.

    >>> from graphmem.recall.anchors import Occurrence
    >>> from graphmem.records import Event
    >>> wood = (Event("collect", "wood"),)
    >>> steps = [Step(t, "collect wood", events=wood) if t in (3, 8, 12) else Step(t, "noop") for t in range(14)]
    >>> bundle = bundle_from_steps("ep1", steps)
    >>> execute(Anchors(occurrence=Occurrence("collect", "wood", -1), slot="step"), bundle)
    '12'
    >>> execute(Anchors(occurrence=Occurrence("collect", "wood", 2), offset=1, slot="action"), bundle)
    'noop'
    >>> execute(Anchors(target_step=12, slot="action"), bundle_from_steps("ep1", steps, keep={3, 8})) is None
    True
    """
    if anchors.slot == "count":
        return _execute_count(anchors, evidence)
    anchor = _anchor_step(anchors, evidence)
    if anchor is None:
        return None
    episode_id, anchor_t = anchor
    target = _find_step(evidence, episode_id, anchor_t + anchors.offset)
    if target is None:
        logger.debug("target step %s+%s not in evidence", anchor_t, anchors.offset)
        return None
    return read_slot(target.step, anchors.slot, anchors.slot_arg)


def _totals(evidence: EvidenceBundle) -> dict[tuple[str, str], int]:
    return {(k, o): n for k, o, n in evidence.event_totals}


def _resolve_ordinal(kind: str, obj: str, ordinal: int, evidence: EvidenceBundle) -> int | None:
    if ordinal > 0:
        return ordinal
    if ordinal == 0:
        return None
    total = _totals(evidence).get((kind, obj))
    if total is None:
        return None  # "last" cannot be checked without the episode total
    n = total + 1 + ordinal
    return n if n >= 1 else None


def _anchor_step(anchors: Anchors, evidence: EvidenceBundle) -> tuple[str | None, int] | None:
    """(episode id, t) of the anchor; the episode is None for a bare target step."""
    occ = anchors.occurrence
    if occ is not None:
        n = _resolve_ordinal(occ.kind, occ.obj, occ.ordinal, evidence)
        if n is None:
            return None
        hits = {(s.episode_id, s.t) for s in evidence.steps if (occ.kind, occ.obj, n) in s.event_ordinals}
        if len(hits) != 1:
            if len(hits) > 1:
                logger.debug("occurrence %s found in several episodes; not answering", occ)
            return None
        return next(iter(hits))
    if anchors.target_step is not None:
        return None, anchors.target_step
    return None


def _find_step(evidence: EvidenceBundle, episode_id: str | None, t: int) -> EvidenceStep | None:
    matches = [s for s in evidence.steps if s.t == t and (episode_id is None or s.episode_id == episode_id)]
    if len({s.episode_id for s in matches}) != 1:
        return None  # missing, or ambiguous across episodes
    return matches[0]


def _execute_count(anchors: Anchors, evidence: EvidenceBundle) -> str | None:
    """The ordinal of the latest (kind, obj) event at or before the bound that the evidence holds.

    Without a bound the episode total answers. With evidence missing later events the count can only be
    as good as the evidence: it is the latest ordinal the evidence proves.
    """
    if anchors.count_pair is None:
        return None
    kind, obj = anchors.count_pair
    episode_id: str | None = None
    bound = anchors.count_until
    if bound is None and (anchors.occurrence is not None or anchors.target_step is not None):
        anchor = _anchor_step(anchors, evidence)
        if anchor is None:
            return None
        episode_id, anchor_t = anchor
        bound = anchor_t + anchors.offset
    if bound is None:
        total = _totals(evidence).get((kind, obj))
        return None if total is None else str(total)
    if episode_id is None:
        episodes = {s.episode_id for s in evidence.steps if any((k, o) == (kind, obj) for k, o, _ in s.event_ordinals)}
        if len(episodes) > 1:
            return None  # a bare step bound does not say which episode is meant
    best: int | None = None
    first_after = False
    for s in evidence.steps:
        if episode_id is not None and s.episode_id != episode_id:
            continue
        for k, o, n in s.event_ordinals:
            if (k, o) != (kind, obj):
                continue
            if s.t <= bound:
                best = n if best is None else max(best, n)
            elif n == 1:
                first_after = True  # the first occurrence is after the bound: provably zero
    if best is not None:
        return str(best)
    return "0" if first_after else None
