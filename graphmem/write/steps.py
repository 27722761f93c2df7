"""Turn validated ``Step`` records into memory-graph rows (S3Mem's structured writing).

Each step becomes a ``Step`` node chained by ``NEXT``, linked to its ``Location``, its salient objects
(``Entity``) and its ``Event`` nodes. Every event carries its ordinal among the episode's events of the
same kind and object, computed here at write time so that "the third wood collected" is an index hit.
``ENABLES`` links the step that last gained an item to a later step that spent it (consumed, lost or
placed it). A ``Change`` node (``CHANGES`` from its step) records each inventory item and state value
the step changed, with its value before and after, so that "the first step with 3 wood" is an index
range read over one item's changes. Appending to an episode continues ordinals, chains, causal links and
changes from what is stored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.records import Event, Location, Relation, Scalar, Step
from graphmem.store.protocol import EdgeRow, EpisodeRow, EventRow, NodeRow, WriteBatch, node_key
from graphmem.write.captions import change_caption, episode_caption, event_caption, step_caption

#: Event kinds whose object was spent, and so was enabled by an earlier gain of that object.
SPENDING_KINDS = frozenset({"consume", "lose", "place", "use", "eat", "drink"})


def step_uid(episode_id: str, t: int) -> str:
    """The caller-facing source id of a step: ``f"{episode_id}:{t}"``."""
    return f"{episode_id}:{t}"


def step_to_json(step: Step) -> str:
    """The step as canonical JSON (payload and digest): ``dataclasses.asdict``'s document, built by hand
    because ``asdict``'s generic recursion was a third of the client's write time."""
    loc = step.location
    data = {
        "t": step.t,
        "action": step.action,
        "summary": step.summary,
        "objects": list(step.objects),
        "events": [{"kind": e.kind, "obj": e.obj, "count": e.count} for e in step.events],
        "relations": [{"subject": r.subject, "predicate": r.predicate, "obj": r.obj} for r in step.relations],
        "inventory": [list(pair) for pair in step.inventory],
        "state": [list(pair) for pair in step.state],
        "location": {"position": list(loc.position) if loc.position is not None else None,
                     "region": loc.region, "underfoot": loc.underfoot},
        "observation": step.observation,
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def step_from_json(payload: str) -> Step:
    data = json.loads(payload)
    loc = data.get("location") or {}
    pos = loc.get("position")
    return Step(
        t=data["t"],
        action=data["action"],
        summary=data.get("summary", ""),
        objects=tuple(data.get("objects", ())),
        events=tuple(Event(e["kind"], e.get("obj", ""), e.get("count", 1)) for e in data.get("events", ())),
        relations=tuple(Relation(r["subject"], r["predicate"], r["obj"]) for r in data.get("relations", ())),
        inventory=tuple((k, v) for k, v in data.get("inventory", ())),
        state=tuple((k, v) for k, v in data.get("state", ())),
        location=Location(tuple(pos) if pos is not None else None, loc.get("region", ""), loc.get("underfoot", "")),
        observation=data.get("observation", ""),
    )


def step_digest(step: Step) -> str:
    return hashlib.sha256(step_to_json(step).encode("utf-8")).hexdigest()[:32]


def step_search_text(step: Step) -> str:
    """The document full-text and vector search see: action, summary, events, objects, place."""
    parts = [f"step {step.t}: {step.action}"]
    if step.summary:
        parts.append(step.summary)
    if step.events:
        parts.append("; ".join(f"{e.kind} {e.obj}".strip() for e in step.events))
    if step.objects:
        parts.append("near " + ", ".join(step.objects))
    where = step.location.describe()
    if where:
        parts.append(f"at {where}")
    return ". ".join(parts)


@dataclass(frozen=True)
class EpisodeSoFar:
    """What the store already holds of an episode, as far as writing more steps needs."""

    exists: bool
    seq: int
    last_t: int | None
    vocab: dict[str, list[Any]]
    totals: dict[tuple[str, str], int]  # (kind, obj) -> events so far
    last_gain: dict[str, int]  # item -> step index of its latest gain
    # The inventory (items with a non-zero count) and state after the last stored step: what the next
    # step's changes are measured from. Empty for a new episode.
    last_inventory: dict[str, int] = field(default_factory=dict)
    last_state: dict[str, Scalar] = field(default_factory=dict)


def same_value(a: Scalar | None, b: Scalar | None) -> bool:
    """Whether a value is unchanged: equal and of the same kind (None, bool, number, text), so a state that
    goes from 1 to True or from 1 to "1" changed, and one that goes from 1 to 1.0 did not (both stores
    compare numbers numerically).

    >>> same_value(1, 1.0), same_value(1, True), same_value(None, None)
    (True, False, True)
    """
    return _value_kind(a) == _value_kind(b) and a == b


def _value_kind(value: Scalar | None) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "text"


def change_uid(unit_uid: str, source: str, name: str) -> str:
    """The uid of the Change node of one item or state name at one step: ``"run-1:3~inventory:wood"``."""
    return f"{unit_uid}~{source}:{name}"


def step_changes(
    inventory: dict[str, int], state: dict[str, Scalar], step: Step
) -> list[tuple[str, str, Scalar | None, Scalar | None]]:
    """``(source, name, before, after)`` for each inventory item and state name whose value after ``step``
    differs from its value in ``inventory`` / ``state`` (the previous step's), sorted by source and name.
    An absent item counts 0, so an item that appears or vanishes changes from or to 0; an absent state
    name is None (stored as a missing property), so one that appears or vanishes changes from or to None.

    >>> step_changes({"wood": 2}, {"hp": 9}, Step(4, "eat", inventory={"apple": 1}, state={"hp": 9, "mode": "day"}))
    [('inventory', 'apple', 0, 1), ('inventory', 'wood', 2, 0), ('state', 'mode', None, 'day')]
    """
    changes: list[tuple[str, str, Scalar | None, Scalar | None]] = []
    now_inventory = step.inventory_dict
    for name in sorted(inventory.keys() | now_inventory.keys()):
        before, after = inventory.get(name, 0), now_inventory.get(name, 0)
        if before != after:
            changes.append(("inventory", name, before, after))
    now_state = step.state_dict
    for name in sorted(state.keys() | now_state.keys()):
        was, now = state.get(name), now_state.get(name)
        if not same_value(was, now):
            changes.append(("state", name, was, now))
    return changes


#: Text state values kept in the episode's vocabulary for questions to name ("when my goal was X"):
#: short ones only, and a bounded number, so a state that holds free text cannot bloat the Episode node.
MAX_STATE_VALUE_CHARS = 120
MAX_STATE_VALUES = 2000
#: How each event kind was done, as (kind, action words, times) in the episode's vocabulary: at most this
#: many action words per kind (the first ones written) and in all, so that it stays small whatever the
#: agent types.
MAX_ACTIONS_PER_KIND = 8
#: Distinct actions kept in the vocabulary for questions to name ("on how many steps did I choose noop"):
#: the first ones written, short ones only, so an agent that types free text cannot bloat the Episode node.
MAX_ACTIONS = 2000
MAX_ACTION_CHARS = 80
MAX_KIND_ACTIONS = 2000
#: Words of an action that say how it was done: the first few, once the objects' words are gone.
ACTION_TEMPLATE_WORDS = 3

_ACTION_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_ARTICLES = frozenset({"a", "an", "the"})


def empty_vocab() -> dict[str, list[Any]]:
    return {"event_pairs": [], "objects": [], "regions": [], "inventory_items": [], "state_names": [], "state_values": [], "flags": [],
            "actions": [], "kind_actions": [], "pair_effects": [], "state_effects": []}


def count_pair_effect(effects: dict[tuple[str, str], list[int]], pair: tuple[str, str], delta: int) -> None:
    """Count whether an event's step raised or lowered the count of the item it names (an event whose
    object is no item, or whose step left it as it was, counts neither): a question's "got wood" is the
    kind that brought wood, not the one that used it up.

    >>> effects = {}
    >>> count_pair_effect(effects, ("chop", "wood"), 1); count_pair_effect(effects, ("craft", "wood"), -2)
    >>> effects
    {('chop', 'wood'): [1, 0], ('craft', 'wood'): [0, 1]}
    """
    if not pair[1] or delta == 0:
        return
    counts = effects.setdefault(pair, [0, 0])
    counts[0 if delta > 0 else 1] += 1


def count_state_effect(effects: dict[tuple[str, str], list[int]], kind: str, name: str, direction: int) -> None:
    """Count one more step of an event of ``kind`` that raised (``direction`` 1) or lowered (-1) the
    numeric state ``name``, within ``MAX_KIND_ACTIONS`` pairs: "when did I raise my score" is the kind
    whose steps raised it."""
    if (kind, name) not in effects:
        if len(effects) >= MAX_KIND_ACTIONS:
            return
        effects[(kind, name)] = [0, 0]
    effects[(kind, name)][0 if direction > 0 else 1] += 1


def numbers_moved(before: Mapping[str, Scalar], step: Step) -> list[tuple[str, int]]:
    """The numeric state values ``step`` moved from ``before`` (the previous step's), and which way:
    1 up, -1 down.

    >>> numbers_moved({"score": 3, "mode": "run"}, Step(1, "x", state={"score": 5, "mode": "walk", "hp": 2}))
    [('score', 1)]
    """
    moved: list[tuple[str, int]] = []
    for name, value in step.state:
        previous = before.get(name)
        if isinstance(value, bool) or isinstance(previous, bool) or not isinstance(value, (int, float)) or not isinstance(previous, (int, float)):
            continue
        if value != previous:
            moved.append((name, 1 if value > previous else -1))
    return moved


def action_template(action: str, names: Sequence[str]) -> str:
    """The words of an action that say how it was done, without the names it was done to: "put kettle
    on table" with the step's objects kettle and table is "put _ on" (``_`` where a name stood);
    "teleport to kitchen" for an event about the kitchen is "teleport to". Questions name an event by these words when its kind is a word
    of the agent's own ("warp to" for what the environment calls "teleport").

    >>> action_template("insert the brass key into the wooden box", ["brass key", "wooden box"])
    'insert _ into'
    >>> action_template("focus on the red box", ["red box"])
    'focus on'
    >>> action_template("move_left", [])
    'move left'
    """
    named = {w for n in names for w in _ACTION_WORD.findall(n.lower())}
    kept: list[str] = []
    for w in _ACTION_WORD.findall(action.lower().replace("_", " ")):
        if w in _ARTICLES:
            continue
        if w in named:
            if kept and kept[-1] != "_":
                kept.append("_")  # where a name stood: "put _ on" says the thing went on something
            continue
        if sum(1 for k in kept if k != "_") == ACTION_TEMPLATE_WORDS:
            break
        kept.append(w)
    while kept and kept[-1] == "_":
        kept.pop()
    return " ".join(kept)


def count_kind_action(counts: dict[tuple[str, str], int], kind: str, template: str) -> None:
    """Count one more ``kind`` done by an action that reads ``template``, within the bounds (a template
    equal to the kind says nothing new; a new pair past a bound is not kept)."""
    if not template or template == kind:
        return
    if (kind, template) in counts:
        counts[(kind, template)] += 1
    elif len(counts) < MAX_KIND_ACTIONS and sum(1 for k, _ in counts if k == kind) < MAX_ACTIONS_PER_KIND:
        counts[(kind, template)] = 1


def build_step_batch(
    namespace: str,
    episode_id: str,
    steps: Sequence[Step],
    embeddings: np.ndarray,
    so_far: EpisodeSoFar,
) -> WriteBatch:
    """Rows for ``steps`` (validated, strictly increasing, all after ``so_far.last_t``)."""
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    episode_key = node_key("Episode", episode_id)
    totals = dict(so_far.totals)
    last_gain = dict(so_far.last_gain)
    inventory: dict[str, int] = dict(so_far.last_inventory)
    state: dict[str, Scalar] = dict(so_far.last_state)
    vocab = {k: {tuple(v) if isinstance(v, list) else v for v in vals} for k, vals in so_far.vocab.items()}
    previous_key = node_key("Step", step_uid(episode_id, so_far.last_t)) if so_far.last_t is not None else None
    # (kind, action words) -> how many events of the kind an action of those words did
    kind_actions: dict[tuple[str, str], int] = {(str(k), str(a)): int(n) for k, a, n in vocab.pop("kind_actions", set())}
    # (kind, object) -> [times the object's inventory count rose, fell] at that event's step
    pair_effects: dict[tuple[str, str], list[int]] = {(str(k), str(o)): [int(g), int(lo)] for k, o, g, lo in vocab.pop("pair_effects", set())}
    # (kind, state name) -> [times a step of that kind raised the value, lowered it]
    state_effects: dict[tuple[str, str], list[int]] = {(str(k), str(n)): [int(r), int(f)] for k, n, r, f in vocab.pop("state_effects", set())}

    for step, vector in zip(steps, embeddings):
        uid = step_uid(episode_id, step.t)
        key = node_key("Step", uid)
        payload = step_to_json(step)  # computed once: the digest is its hash, as step_digest() does
        props: dict[str, Any] = {
            "episode": episode_id,
            "t": step.t,
            "action": step.action,
            "summary": step.summary,
            "region": step.location.region,
            "text": step_search_text(step),
            "payload": payload,
            "digest": hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32],
            "caption": step_caption(step.t, step.action),
            "embedding": np.asarray(vector, dtype=np.float32).tolist(),
        }
        nodes.append(NodeRow("Step", namespace, uid, props))
        edges.append(EdgeRow("IN_EPISODE", namespace, key, episode_key))
        if previous_key is not None:
            edges.append(EdgeRow("NEXT", namespace, previous_key, key))
        previous_key = key

        if step.location.region:
            nodes.append(NodeRow("Location", namespace, step.location.region, {"name": step.location.region}))
            edges.append(EdgeRow("AT", namespace, key, node_key("Location", step.location.region)))
            vocab["regions"].add(step.location.region)
        for obj in dict.fromkeys(step.objects):
            nodes.append(NodeRow("Entity", namespace, obj, {"name": obj}))
            edges.append(EdgeRow("INVOLVES", namespace, key, node_key("Entity", obj)))
            vocab["objects"].add(obj)
        actions = vocab.setdefault("actions", set())  # an episode written before actions were kept has none
        if len(step.action) <= MAX_ACTION_CHARS and len(actions) < MAX_ACTIONS:
            actions.add(step.action)
        vocab["inventory_items"].update(name for name, _ in step.inventory)
        vocab["state_names"].update(name for name, _ in step.state)
        vocab["flags"].update(name for name, value in step.state if isinstance(value, bool))
        for name, value in step.state:
            # text values ("preparing", "build a furnace") let a question say "when my goal was X"
            if isinstance(value, str) and 0 < len(value) <= MAX_STATE_VALUE_CHARS and len(vocab["state_values"]) < MAX_STATE_VALUES:
                vocab["state_values"].add((name, value))

        enabled_by: dict[int, set[str]] = defaultdict(set)
        moved_numbers = numbers_moved(state, step) if step.events else []
        for i, event in enumerate(step.events):
            pair = (event.kind, event.obj)
            totals[pair] = totals.get(pair, 0) + 1
            vocab["event_pairs"].add(pair)
            count_kind_action(kind_actions, event.kind, action_template(step.action, [event.obj, *step.objects]))
            count_pair_effect(pair_effects, pair, step.inventory_dict.get(event.obj, 0) - inventory.get(event.obj, 0))
            for name, value in moved_numbers:
                count_state_effect(state_effects, event.kind, name, value)
            if event.obj:
                vocab["objects"].add(event.obj)
            event_uid = f"{uid}#{i}"
            nodes.append(
                NodeRow(
                    "Event",
                    namespace,
                    event_uid,
                    {
                        "episode": episode_id,
                        "unit": key,
                        "kind": event.kind,
                        "obj": event.obj,
                        "count": event.count,
                        "ordinal": totals[pair],
                        "t": step.t,
                        "i": i,  # position among the step's events: events order by (t, i)
                        "caption": event_caption(event.kind, event.obj, totals[pair]),
                    },
                )
            )
            edges.append(EdgeRow("HAS_EVENT", namespace, key, node_key("Event", event_uid)))
            if event.kind in SPENDING_KINDS and event.obj in last_gain:
                enabled_by[last_gain[event.obj]].add(event.obj)
        for event in step.events:
            if event.kind == "gain" and event.obj:
                last_gain[event.obj] = step.t
        for source_t, items in sorted(enabled_by.items()):
            if source_t == step.t:
                continue
            edges.append(
                EdgeRow("ENABLES", namespace, node_key("Step", step_uid(episode_id, source_t)), key, {"items": sorted(items)})
            )

        for source, name, before, after in step_changes(inventory, state, step):
            change = change_uid(uid, source, name)
            change_props: dict[str, Any] = {"episode": episode_id, "unit": key, "t": step.t, "source": source, "name": name}
            # None (a state name absent before or after the step) is a missing property, as Neo4j stores
            # a null: both stores then read it back as None.
            if before is not None:
                change_props["before"] = before
            if after is not None:
                change_props["after"] = after
            change_props["caption"] = change_caption(name, before, after)
            nodes.append(NodeRow("Change", namespace, change, change_props))
            edges.append(EdgeRow("CHANGES", namespace, key, node_key("Change", change)))
        inventory = {name: count for name, count in step.inventory if count != 0}
        state = step.state_dict

    vocab["kind_actions"] = {(k, a, n) for (k, a), n in kind_actions.items()}
    vocab["pair_effects"] = {(k, o, g, lo) for (k, o), (g, lo) in pair_effects.items()}
    vocab["state_effects"] = {(k, n, r, f) for (k, n), (r, f) in state_effects.items()}
    episode_props = {
        "kind": "trajectory",
        "caption": episode_caption(episode_id, "trajectory"),
        "seq": so_far.seq,
        "last_t": steps[-1].t,
        "vocab": json.dumps({k: sorted(map(list, v) if k in ("event_pairs", "state_values", "kind_actions", "pair_effects", "state_effects") else v) for k, v in vocab.items()}),
        "totals": json.dumps(sorted([k, o, n] for (k, o), n in totals.items())),
        "last_gain": json.dumps(sorted(last_gain.items())),
        # JSON keeps each value's type (an int, a float, a bool, text), whichever store holds the node.
        "last_inventory": json.dumps(sorted(inventory.items())),
        "last_state": json.dumps(sorted(state.items())),
    }
    return WriteBatch((NodeRow("Episode", namespace, episode_id, episode_props), *nodes), tuple(edges))


def episode_so_far(episode: EpisodeRow | None, seq: int = 0) -> EpisodeSoFar:
    """Rebuild the writing state of an episode from its stored ``Episode`` node (None: a new episode,
    which takes place ``seq`` among its namespace's episodes)."""
    if episode is None:
        return EpisodeSoFar(False, seq, None, empty_vocab(), {}, {})
    totals = {(k, o): int(n) for k, o, n in json.loads(episode.totals or "[]")}
    last_gain = {item: int(t) for item, t in json.loads(episode.last_gain or "[]")}
    vocab = json.loads(episode.vocab or "{}") or empty_vocab()
    inventory = {str(item): int(count) for item, count in json.loads(episode.last_inventory or "[]")}
    state = {str(name): value for name, value in json.loads(episode.last_state or "[]")}
    return EpisodeSoFar(True, episode.seq or 0, episode.last_t, vocab, totals, last_gain, inventory, state)


def event_rows_by_unit(rows: Sequence[EventRow]) -> dict[str, list[EventRow]]:
    grouped: dict[str, list[EventRow]] = defaultdict(list)
    for row in rows:
        grouped[row.unit_key].append(row)
    return grouped
