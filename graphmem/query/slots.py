"""The slot a question's head asks for: a step, a place, what was faced, the inventory, one item's count,
a state's value, the events, the action or what was observed ("what was I holding", "where was I",
"what did the points read")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.query.lexicon import Lexicon
from graphmem.query.normalize import SUBJECT
from graphmem.query.wordforms import singular, words

_STEP_CUE = re.compile(
    r"^(?:when\b|(?:what|which) (?:was|is) the (?:ord_m?\d+ )?step\b|(?:what|which) (?:was|is) the step (?:number|index)\b|(?:at|on|in|during) (?:which|what) (?:step|point|time|moment)|(?:which|what) step\b|"
    r"(?:at )?what time\b|how many steps into\b|what was the step\b|(?:the )?step (?:at|on) which\b)|\bstep (?:number|index)\b"
)
_POSITION_CUE = re.compile(r"\b(?:position|coordinates?|coords|xy|x ?, ?y|grid (?:cell|square|spot)|exact spot|(?:x|y) value)\b")
_LOCATION_CUE = re.compile(r"^(?:which|what) (?:[a-z]+ ){1,3}(?:was|were|is|am) (?:\S+ ){1,2}in\b|^in (?:which|what) [a-z]+\b|^where\b|\b(?:which|what) (?:part|section|portion|corner) of\b|\bin (?:which|what) (?:room|area|region|place|part|zone)\b|\b(?:which|what) (?:room|area|region|place|zone)\b|\b(?:location|region|area|room|zone|whereabouts|biome|terrain)\b|\b(?:what|which) place\b|\bwhere (?:was|were|did|am)\b")
_FACING_CUE = re.compile(r"\b(?:facing|faced|in front of|looking at|right ahead|ahead of|handle|handled|handling|manipulate|manipulated)\b|\b(?:act|acts|acted|acting) (?:on|upon)\b|\b(?:target|object) of (?:my|our|your|its|his|her|their|the|the agent's|\S+'s) (?:command|action|move)\b|\b(?:what|which) (?:object|thing|item) (?:was|were) \S+(?: \S+)? (?:busy with|handling|dealing with|working on|working with)\b|\b(?:what|which)(?: [a-z]+)? (?:was|were) \S+(?: \S+)? (?:busy with|dealing with)\b|\bon (?:my|our|your|its|their|the|the agent's) (?:screen|display|monitor)\b|\b(?:which|what) (?:screen|page|view|window) (?:was|were|is) (?:open|up|showing|shown|displayed|in front)\b|\b(?:what|which)(?: [a-z]+)? did \S+(?: \S+)? (?:face|have in front)\b")
_OBSERVATION_CUE = re.compile(r"\b(?:observation|observe|observed|see|saw|notice|noticed|message|feedback|description|describe|told|say|said|read out|display)\b")
_INVENTORY_CUE = re.compile(r"\bin (?:my|our|your|its|their|the agent's|his|her) hands?\b|\bwhat (?:items|things|stuff|objects|belongings)\b|^what (?:was|were) in (?:my|our|your|its|their|the agent's|his|her) [a-z]+\b|\b(?:inventory|carry|carrying|carried|holding|hold|held|bag|backpack|pockets?|possess|possession|possessions|own|owned|items? on|have on|had on|stock|supplies)\b|\bwhat did \S+(?: \S+)? have\b|\bwhat (?:was|were) \S+ (?:carrying|holding)\b"
                            r"|\b(?:contents?|content) of (?:my|our|your|its|their|the agent's|his|her|the|\S+'s) [a-z]+\b|\b(?:pack|knapsack|rucksack|satchel|kit|load|haul)\b(?! (?:of|size)\b)|\b(?:lug|lugs|lugged|lugging|haul|hauled|hauling|tote|toted|toting|bear|bore|bearing) (?:around|about|along|with)\b|\b(?:lugging|toting|hauling)\b")
_EVENTS_CUE = re.compile(r"\b(?:list|name|give|show|all|every) (?:the |every |all |of the )?events?\b|\bevents? (?:logged|recorded|registered)\b|\bwhat (?:else )?(?:happened|occurred|went on|took place)\b|\b(?:which|what) events?\b|\bwhat else\b|\b(?:the|all|list) (?:the )?events\b|\bevents? (?:were|was) (?:recorded|logged)\b|\b(?:recorded|logged|registered|noted) as (?:happening|having happened|occurring)\b|\bwhat (?:was|got|were) (?:recorded|logged|registered)\b"
                         r"|\b(?:got|were|was|been) (?:logged|recorded|registered|noted) as events?\b|\b(?:log|logged|record|recorded|register|registered|note|noted) as (?:happening|having happened|occurring|events?)\b")
_ACTION_CUE = re.compile(r"\bwhat (?:exactly |precisely )?(?:did|do|does|had) \S+(?: \S+)? (?:type|input|enter|issue|press|send|execute|choose|submit|key in)\b|\b(?:which|what) (?:button|key|input|text)\b|\b(?:exact|precise|specific|full|literal) (?:command|action|input|move)\b|\bwhat (?:did|was|were|had) \S+(?: \S+)? (?:do|doing|done)\b|\b(?:which|what) (?:action|move|command)\b|\b(?:action|move|command) (?:did|was|were)\b|\bwhat (?:was|were) (?:my|our|your|its|their|the agent's|the) (?:action|move|command)\b|\bwhat did \S+ (?:do|try)\b|\bdoing\b|\bwhat (?:had been|was|were|got|has been) (?:typed|entered|input|issued|sent|keyed in|submitted)\b")
QUANTITY = re.compile(r"\bhow (?:many|much|high|low|full|empty|big|large|strong)\b|\b(?:number|amount|quantity|count) of\b|\bcount\b")
HAVE = re.compile(r"\b(?:have|has|had|hold|holding|held|carry|carrying|carried|own|owned|possess|in (?:my|our|your|its|their|the) (?:inventory|bag|backpack|pockets?)|left|on (?:me|us|hand))\b")


EXISTENCE = re.compile(r"\b(?:ever|at all|at any (?:point|time|stage)|even once|any time|anytime|there)\b")


@dataclass(frozen=True)
class Slot:
    slot: str
    name: str | None = None


def _asked_amount(head: str) -> str | None:
    """The thing a "how many X did I have" question counts, as a singular name ("iron pickaxes" ->
    "iron pickaxe"), or None when it counts no thing ("how many times")."""
    m = re.match(r"^how (?:many|much) ((?:[a-z]+ ){0,3}?[a-z]+) (?:did|do|does|was|were|had|have|has|is|are|could|would)\b", head)
    if not m or re.search(r"\b(?:times|steps|moves|turns|items|things|of)\b", m.group(1)):
        return None
    *first, last = m.group(1).split()
    return " ".join([*first, singular(last)])


def slot_of(head: str, lex: Lexicon) -> Slot | None:
    """The read slot a question's head asks for (None: it names none)."""
    toks = [w for w in words(head) if w not in ("agent", "agent's", "true", "or", "false")]
    yes_no = re.match(rf"^(?:was|were|is|are) (?:{SUBJECT}|(?:any|a|the) [a-z]+) (.+)$", head)
    if yes_no and not EXISTENCE.search(head):
        # "was I signed in", "were we asleep", "was any lamp on": a true/false state, read at the anchor
        named = lex.name(words(yes_no.group(0)), lex.flags or lex.states)
        if named:
            return Slot("state", named)
    if re.search(r"\bflag\b", head) and lex.flags:
        flag_name = lex.name(toks, lex.flags, fuzzy=False)
        if flag_name:  # "the task-complete flag": of the names, a true/false one
            return Slot("state", flag_name)
    if "true_or_false" in head:
        # "Was the lamp lit at step 104 (true or false)?": the state the question names, read at the anchor.
        named = lex.name(toks, lex.states)
        return Slot("state", named) if named else None
    if _STEP_CUE.search(head):
        return Slot("step")
    if _POSITION_CUE.search(head):
        return Slot("position")
    if _FACING_CUE.search(head):
        return Slot("facing")
    state = lex.name(toks, lex.states, fuzzy=False)
    if state and QUANTITY.search(head) and state not in lex.numeric_states:
        # "how many tasks had I completed" asks a number: "tasks finished", not the text state "task"
        state = lex.name(toks, lex.numeric_states, loose=True) or state
    item = lex.name(toks, lex.items, fuzzy=False)
    if QUANTITY.search(head) and not (item or state):
        item = lex.name(toks, lex.items) if HAVE.search(head) else None
        asked = _asked_amount(head) if HAVE.search(head) else None
        if asked and (item is None or (set(words(item)) & set(words(asked)) and item != asked)):
            return Slot("item", asked)  # "how many iron pickaxes did I have" when I never had one: none
        state = None if item else lex.name(toks, lex.states, loose=True)
    if QUANTITY.search(head) and (item or state):
        if state and (not item or not HAVE.search(head)):
            return Slot("state", state)
        return Slot("item", item)
    if _EVENTS_CUE.search(head):
        return Slot("events")
    if state and head.startswith("what") and _INVENTORY_CUE.search(head) and not QUANTITY.search(head) and (
            state in lex.flags or re.match(r"^what (?:was|were|is|did) \S+(?: \S+)? (?:carrying|holding|carry|hold|have)\b", head)):
        return Slot("inventory")  # "what was it carrying": the items, not the true/false "carrying"
    if state and re.search(r"\b(?:what|how|which|value|level|reading)\b", head):
        return Slot("state", state)
    if _INVENTORY_CUE.search(head):
        if item and QUANTITY.search(head):
            return Slot("item", item)
        return Slot("inventory")
    if _LOCATION_CUE.search(head):
        return Slot("location")
    if _OBSERVATION_CUE.search(head):
        return Slot("observation")
    if _ACTION_CUE.search(head):
        return Slot("action")
    if QUANTITY.search(head):
        fuzzy_state = lex.name(toks, lex.states)
        if fuzzy_state:
            return Slot("state", fuzzy_state)
        fuzzy_item = lex.name(toks, lex.items)
        if fuzzy_item:
            return Slot("item", fuzzy_item)
    if re.search(r"^what (?:was|were|is) (?:my|our|your|its|their|the)\b", head):
        fuzzy_state = lex.name(toks, lex.states)
        if fuzzy_state:
            return Slot("state", fuzzy_state)
    return None
