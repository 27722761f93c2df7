"""English questions about a trajectory, compiled into the query algebra.

The grammar is the closed class of English time and order, written by hand: ordinals ("third", "3rd",
"again", "last", "second to last"), offsets ("two steps after", "right before", "the step after"),
connectives ("when", "after", "before", "prior to", "following", "since", "until", "by", "between ...
and ..."), windows ("in the first 50 steps", "in the last 20 steps"), question forms ("how many times",
"how long", "which came first", "did I ever") and the slots a question asks ("where", "what was I
holding", "what was my health"). Everything else, the content, is matched against what the memory holds
(:class:`~graphmem.query.lexicon.Lexicon`): its event kinds and objects, items, state names and regions.

>>> from graphmem.query.lexicon import Lexicon
>>> lex = Lexicon(frozenset({("collect", "wood"), ("place", "table")}), frozenset({"wood"}), frozenset({"health"}))
>>> compile_question("What did I do two steps after the third time I collected wood?", lex, 500)
Read(anchor=Shifted(anchor=Occurrence(pattern=EventPattern(kind='collect', obj='wood'), ordinal=3, window=None), steps=2), slot='action', name=None)
>>> compile_question("how many times did we collect wood before step 100", lex, 500)
Count(pattern=EventPattern(kind='collect', obj='wood'), window=Window(start=None, end=StepAt(t=100), include_start=True, include_end=False))
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from graphmem.nlp import verb_words
from graphmem.query.algebra import (
    Anchor,
    Condition,
    Count,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Query,
    QueryError,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
)
from graphmem.query.lexicon import Lexicon, content_words, words

logger = logging.getLogger(__name__)

#: Questions longer than this are cut before parsing (anchors sit in the first sentence or two).
MAX_CHARS = 2000

# --------------------------------------------------------------------------------------------------
# Normalization: numbers to digits, ordinals to ``ord_N`` tokens, step references to ``step N``
# --------------------------------------------------------------------------------------------------

# fmt: off
_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORD_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
              "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
              "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19}
_ORD_TENS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50}
# fmt: on
_UNIT = r"(?:steps?|moves?|turns?|actions?|ticks?|timesteps?)"
_SUBJECT = r"(?:i|we|you|he|she|it|they|the agent|the player|the bot|the robot|the character)"


def _numbers(s: str) -> str:
    tens = "|".join(_TENS)
    units = "|".join(_UNITS)
    s = re.sub(rf"\b({tens})[ -]({'|'.join(k for k in _UNITS if 0 < _UNITS[k] < 10)})\b",
               lambda m: str(_TENS[m.group(1)] + _UNITS[m.group(2)]), s)
    s = re.sub(rf"\b({tens})\b(?![ -](?:{'|'.join(_ORD_UNITS)})\b)", lambda m: str(_TENS[m.group(1)]), s)
    s = re.sub(rf"\b({units})\b(?! (?:of (?:the|my|them|those)|another))", lambda m: str(_UNITS[m.group(1)]), s)
    s = re.sub(r"\b(?:a couple of|a pair of)\b", "2", s)
    s = re.sub(rf"\b(?:an?|single) ({_UNIT})\b", r"1 \1", s)
    s = re.sub(r"\btwice\b", "2 times", s)
    return s


def _ordinals(s: str) -> str:
    s = re.sub(r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)(?:[ -]+(?:to|from))?[ -]+(?:the )?(?:last|latest|final|most recent)\b",
               lambda m: f"ord_m{_ord_value(m.group(1))}", s)
    s = re.sub(r"\b(?:penultimate|next[ -]to[ -]last|one before (?:the )?last)\b", "ord_m2", s)
    s = re.sub(r"\b(?:very )?(?:last|latest|final|most recent(?:ly)?|lastly)\b", "ord_m1", s)
    tens = "|".join(_TENS)
    s = re.sub(rf"\b({tens})[ -]({'|'.join(_ORD_UNITS)})\b", lambda m: f"ord_{_TENS[m.group(1)] + _ORD_UNITS[m.group(2)]}", s)
    s = re.sub(rf"\b({'|'.join(_ORD_TENS)})\b", lambda m: f"ord_{_ORD_TENS[m.group(1)]}", s)
    s = re.sub(rf"\b({'|'.join(_ORD_UNITS)})\b", lambda m: f"ord_{_ORD_UNITS[m.group(1)]}", s)
    s = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"ord_\1", s)
    s = re.sub(r"\b(?:once again|once more|a second time|another time)\b", "ord_2", s)
    return s


def _ord_value(word: str) -> int:
    return _ORD_UNITS.get(word) or int(re.sub(r"\D", "", word))


def normalize(question: str) -> str:
    """Lower case, digits for numbers, ``ord_N`` (``ord_mN``: N-th to last) for ordinals, ``step N`` for every step reference.

    >>> normalize("What did the agent do 2 steps after the third time it collected wood?")
    'what did the agent do 2 steps after the ord_3 time it collected wood'
    >>> normalize("Which came first: the 2nd-to-last table or step #40?")
    'which came first, the ord_m2 table or step 40'
    """
    s = question[:MAX_CHARS].lower()
    s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    s = re.sub(r"[?!\"'`](?![a-z])|(?<![a-z])['`\"]", " ", s)
    s = re.sub(r"\b(?:up to|until|till|through) and including\b", "up to", s)
    s = re.sub(r"\btrue ?/ ?false\b|\byes or no\b", "true or false", s)
    s = re.sub(r"\b(?:during|in|on|at) (?:the )?(?:time )?step (?=#?\d)", "at step ", s)
    s = re.sub(r"[\u2013\u2014]|\s-\s", ", ", s)
    s = re.sub(r"(^|, )(?:please |can you |could you |would you )?(?:tell me|give me|give|say|report|state|show me|let me know|i want to know|i'd like to know)\s+(?:the |my |our |its |your )?", r"\1what was the ", s)
    s = re.sub(r"^(?:name|list) (?:everything|all)\s*[,:]\s*", "", s)
    s = re.sub(rf"^(?:name|list|enumerate) (?:everything|all (?:the )?(?:things|items|objects)|the (?:things|items|objects)|what) (?:that )?({_SUBJECT}) ",
               r"what things did \1 ", s)
    s = re.sub(r"^(?:is it true|is it the case|would it be right to say|can you confirm|confirm|true or not[,:]?|(?:is there )?any chance|by any chance|is it possible) (?:that )?", "did ", s)
    s = re.sub(rf"^did ({_SUBJECT}) (was|were|had) ", r"\2 \1 ", s)
    s = re.sub(r"\b(?:once|after|when) (step \d+) (?:had|has) (?:passed|gone by|elapsed)\b", r"after \1", s)
    s = re.sub(r"^(?:is|was|were) there (?:ever )?(?:any|a|some) (?:step|time|point|moment|occasion)\b(.*?)\s*(?:where|when|at which|in which|on which|that)\s+(.+)$", r"did ever \2 \1", s)
    s = re.sub(r"\(\s*x\s*,\s*y\s*\)", " xy ", s)
    s = re.sub(r"\s*\(([^()]*)\)", lambda m: " " + m.group(1).replace(",", " ") + " ", s)  # an aside: "(cart, tokens)"
    s = re.sub(r"[.,;:]?\s*(?:list them |give them |name them )?(?:in|by) (?:the )?(?:order|sequence)(?: (?:first )?(?:done|seen|they happened|of first appearance|they came))?\s*[.?]?\s*$", " ", s)
    s = re.sub(r"\b(?:leading|that leads|which leads|that led|going|that goes|opening) (in)?to\b", r"\1to", s)  # "the door leading to the kitchen"
    s = re.sub(r"\bthe ((?:first|second|third|last|\d+(?:st|nd|rd|th)) )?time (between (?:step )?\d+ and (?:step )?\d+) (?:that|when|where) (.+)$",
               lambda m: f"the {m.group(1) or ''}time {m.group(3)} {m.group(2)}", s)
    s = re.sub(r"\b(?:over|during|in|across|throughout) the (?:whole|entire) (?:episode|run|game|trajectory|session)\b|\bin total\b|\boverall\b", " ", s)
    s = re.sub(r"\band including\b|\b(?:both )?inclusive(?:ly)?\b|\b(?:both )?ends included\b", "", s)
    s = re.sub(r"\b(?:time[ -]?step|timestep|tick|turn number|move number|step number|step no\.?)\s*#?\s*(?=\d)", "step ", s)
    s = re.sub(r"\bt\s*=\s*(?=\d)", "step ", s)
    s = re.sub(r"\bstep\s*#\s*(?=\d)", "step ", s)
    s = re.sub(r"#\s*(?=\d)", "step ", s)
    s = _numbers(s)
    # A leading step frame: "Step 190: what was ahead of it?", "Back at step 59, what was my health?"
    s = re.sub(r"^(?:(?:back|right|exactly|just|looking|look|considering|regarding|about|as for) )?(?:(?:at|for|in|during|on|as of|around|to) )?(?:the )?step (\d+)\s*[,:]\s*(.+)$",
               r"\2 at step \1", s)
    s = re.sub(r"\bsteps (\d+) ?(and|to|through|until|till|-) ?(\d+)\b", lambda m: f"step {m.group(1)} {'and' if m.group(2) == 'and' else 'to'} step {m.group(3)}", s)
    s = re.sub(r"\bstep (\d+) ?(?:-|to|through) ?(\d+)\b", r"step \1 to step \2", s)
    s = re.sub(r"\b(?:between|from) (\d+) and (\d+)\b", r"between step \1 and step \2", s)
    s = re.sub(r"\bin (?:the )?(?:very )?(?:first|opening|initial) (\d+) " + _UNIT, r"within_first \1", s)
    s = re.sub(r"\b(?:within|during|over|across) (?:the )?(?:very )?(?:first|opening|initial) (\d+) " + _UNIT, r"within_first \1", s)
    s = re.sub(r"\b(?:in|within|during|over|across) (?:the )?(?:last|final|latest|most recent) (\d+) " + _UNIT, r"within_last \1", s)
    s = re.sub(r"\b(?:which|what)(?: one)? (?:came|happened|occurred|was|did \S+(?: \S+)? do|took place|happened) (?:first|earlier|sooner|before the other)\b", "which_first", s)
    m = re.match(r"^(?:of|between) (.+?) and (.+?),? (which_first)\s*$", s)
    if m:
        s = f"which_first, {m.group(1)} or {m.group(2)}"
    if re.search(r"\bor\b", s):
        s = re.sub(r"\b(?:first|earlier|sooner|before the other)\s*$", "which_first", s)
    s = re.sub(r"\b(?:the|its|my|our|their) next (time|occasion|instance)\b", r"the ord_1 \1", s)
    s = re.sub(r"\b(?:the|its|my|our|their) previous (time|occasion|instance)\b", r"the ord_m1 \1", s)
    s = _ordinals(s)
    s = re.sub(rf"\bhow many {_UNIT} (?:separated|separate|lay between|were between)\b", "how many steps between", s)
    s = re.sub(r"\bbetween (?:the |my |our |its )?(ord_m?\d+) and (?:the |my |our |its )?(ord_m?\d+) (time|occasion)s? (.+)$",
               r"between the \1 time \4 and the \2 time \4", s)
    s = re.sub(r"\b(?:for|on) (?:the|a|my|our|its) (ord_m?\d+) (?:time|occasion|instance)\b", r"\1", s)
    s = re.sub(r"\bx ?, ?y\b", "xy", s)
    if re.search(r"\btrue or false\b", s):
        s = re.sub(r"\s*[(,:-]*\s*\btrue or false\b\s*[),:-]*\s*", " ", s).strip()
        s = re.sub(r"^(?:was|were|is|did|had)\b", "true_or_false was", s) if not s.startswith("true_or_false") else s
        if "true_or_false" not in s:
            s = "true_or_false " + s
    s = re.sub(r"^(?:what|which) (?:was|is) the (ord_m?\d+ )?(?:step|time|moment|point) (after|before|since|following) (.+?) (?:at which|in which|on which|where|when|that) (.+)$",
               lambda m: f"when was the {m.group(1) or 'ord_1 '}time {m.group(4)} {m.group(2)} {m.group(3)}", s)
    s = re.sub(r"\bthe (ord_m?\d+ )?(?:step|time|moment|point) (after|before|since|following) (.+?) (?:at which|in which|on which|where|when|that) (.+)$",
               lambda m: f"the {m.group(1) or 'ord_1 '}time {m.group(4)} {m.group(2)} {m.group(3)}", s)
    s = re.sub(r"[,;:]", " , ", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = s.replace(" , ", ", ").rstrip(",. ")
    return s.replace("which_first", "which came first")


# --------------------------------------------------------------------------------------------------
# Slots
# --------------------------------------------------------------------------------------------------

_STEP_CUE = re.compile(
    r"^(?:when\b|(?:what|which) (?:was|is) the (?:ord_m?\d+ )?step\b|(?:what|which) (?:was|is) the step (?:number|index)\b|(?:at|on|in|during) (?:which|what) (?:step|point|time|moment)|(?:which|what) step\b|"
    r"(?:at )?what time\b|how many steps into\b|what was the step\b|(?:the )?step (?:at|on) which\b)|\bstep (?:number|index)\b"
)
_POSITION_CUE = re.compile(r"\b(?:position|coordinates?|coords|xy|x ?, ?y|grid (?:cell|square|spot)|exact spot|(?:x|y) value)\b")
_LOCATION_CUE = re.compile(r"^(?:which|what) (?:[a-z]+ ){1,3}(?:was|were|is|am) (?:\S+ ){1,2}in\b|^in (?:which|what) [a-z]+\b|^where\b|\b(?:which|what) (?:part|section|portion|corner) of\b|\bin (?:which|what) (?:room|area|region|place|part|zone)\b|\b(?:which|what) (?:room|area|region|place|zone)\b|\b(?:location|region|area|room|zone|whereabouts|biome|terrain)\b|\b(?:what|which) place\b|\bwhere (?:was|were|did|am)\b")
_FACING_CUE = re.compile(r"\b(?:facing|faced|in front of|looking at|right ahead|ahead of)\b|\bon (?:my|our|your|its|their|the|the agent's) (?:screen|display|monitor)\b|\b(?:which|what) (?:screen|page|view|window) (?:was|were|is) (?:open|up|showing|shown|displayed|in front)\b|\bwhat did \S+(?: \S+)? face\b")
_OBSERVATION_CUE = re.compile(r"\b(?:observation|observe|observed|see|saw|notice|noticed|message|feedback|description|describe|told|say|said|read out|display)\b")
_INVENTORY_CUE = re.compile(r"\bin (?:my|our|your|its|their|the agent's|his|her) hands?\b|\bwhat (?:items|things|stuff|objects|belongings)\b|^what (?:was|were) in (?:my|our|your|its|their|the agent's|his|her) [a-z]+\b|\b(?:inventory|carry|carrying|carried|holding|hold|held|bag|backpack|pockets?|possess|possession|possessions|own|owned|items? on|have on|had on|stock|supplies)\b|\bwhat did \S+(?: \S+)? have\b|\bwhat (?:was|were) \S+ (?:carrying|holding)\b")
_EVENTS_CUE = re.compile(r"\b(?:list|name|give|show|all|every) (?:the |every |all |of the )?events?\b|\bevents? (?:logged|recorded|registered)\b|\bwhat (?:else )?(?:happened|occurred|went on|took place)\b|\b(?:which|what) events?\b|\bwhat else\b|\b(?:the|all|list) (?:the )?events\b|\bevents? (?:were|was) (?:recorded|logged)\b")
_ACTION_CUE = re.compile(r"\b(?:exact|precise|specific|full|literal) (?:command|action|input|move)\b|\bwhat (?:did|was|were|had) \S+(?: \S+)? (?:do|doing|done)\b|\b(?:which|what) (?:action|move|command)\b|\b(?:action|move|command) (?:did|was|were)\b|\bwhat (?:was|were) (?:my|our|your|its|their|the agent's|the) (?:action|move|command)\b|\bwhat did \S+ (?:do|try)\b|\bdoing\b")
_QUANTITY = re.compile(r"\bhow (?:many|much)\b|\b(?:number|amount|quantity|count) of\b|\bcount\b")
_HAVE = re.compile(r"\b(?:have|has|had|hold|holding|held|carry|carrying|carried|own|owned|possess|in (?:my|our|your|its|their|the) (?:inventory|bag|backpack|pockets?)|left|on (?:me|us|hand))\b")


_EXISTENCE = re.compile(r"\b(?:ever|at all|at any (?:point|time|stage)|even once|any time|anytime|there)\b")


@dataclass(frozen=True)
class _Slot:
    slot: str
    name: str | None = None


def _slot(head: str, lex: Lexicon) -> _Slot | None:
    """The read slot a question's head asks for (None: it names none)."""
    toks = words(head)
    yes_no = re.match(rf"^(?:was|were|is|are) (?:{_SUBJECT}|(?:any|a|the) [a-z]+) (.+)$", head)
    if yes_no and not _EXISTENCE.search(head):
        # "was I signed in", "were we asleep", "was any lamp on": a true/false state, read at the anchor
        named = lex.name(words(yes_no.group(0)), lex.flags or lex.states)
        if named:
            return _Slot("state", named)
    if "true_or_false" in head:
        # "Was the lamp lit at step 104 (true or false)?": the state the question names, read at the anchor.
        named = lex.name([w for w in toks if w != "true_or_false"], lex.states)
        return _Slot("state", named) if named else None
    if _STEP_CUE.search(head):
        return _Slot("step")
    if _POSITION_CUE.search(head):
        return _Slot("position")
    if _FACING_CUE.search(head):
        return _Slot("facing")
    state = lex.name(toks, lex.states, fuzzy=False)
    item = lex.name(toks, lex.items, fuzzy=False)
    if _QUANTITY.search(head) and not (item or state):
        item = lex.name(toks, lex.items) if _HAVE.search(head) else None
        state = None if item else lex.name(toks, lex.states, loose=True)
    if _QUANTITY.search(head) and (item or state):
        if state and (not item or not _HAVE.search(head)):
            return _Slot("state", state)
        return _Slot("item", item)
    if _EVENTS_CUE.search(head):
        return _Slot("events")
    if state and state in lex.flags and head.startswith("what") and _INVENTORY_CUE.search(head):
        return _Slot("inventory")  # "what was it carrying": the items, not the true/false "carrying"
    if state and re.search(r"\b(?:what|how|which|value|level|reading)\b", head):
        return _Slot("state", state)
    if _INVENTORY_CUE.search(head):
        if item and _QUANTITY.search(head):
            return _Slot("item", item)
        return _Slot("inventory")
    if _LOCATION_CUE.search(head):
        return _Slot("location")
    if _OBSERVATION_CUE.search(head):
        return _Slot("observation")
    if _ACTION_CUE.search(head):
        return _Slot("action")
    if _QUANTITY.search(head):
        fuzzy_state = lex.name(toks, lex.states)
        if fuzzy_state:
            return _Slot("state", fuzzy_state)
        fuzzy_item = lex.name(toks, lex.items)
        if fuzzy_item:
            return _Slot("item", fuzzy_item)
    if re.search(r"^what (?:was|were|is) (?:my|our|your|its|their|the)\b", head):
        fuzzy_state = lex.name(toks, lex.states)
        if fuzzy_state:
            return _Slot("state", fuzzy_state)
    return None


# --------------------------------------------------------------------------------------------------
# Conditions on a value ("my stone count reached 4", "I ran out of wood", "health dropped below 3")
# --------------------------------------------------------------------------------------------------

_NUM = r"(-?\d+(?:\.\d+)?)"
def _verbs(*stems: str) -> str:
    """Every tense of the verbs: ``_verbs("drop", "fall/fell")`` matches drop, drops, dropped, dropping,
    fall, falls, fell, falling."""
    out: list[str] = []
    for stem in stems:
        base, *irregular = stem.split("/")
        out += [base, base + "s", base + "es", base + "ed", base + "d", base + "ing", *irregular]
        if base[-1] in "pgtn":
            out += [base + base[-1] + "ed", base + base[-1] + "ing"]
        if base.endswith("e"):
            out += [base[:-1] + "ing"]
        if base.endswith("y"):
            out += [base[:-1] + "ied"]
    return "(?:" + "|".join(sorted(set(out), key=len, reverse=True)) + ")"


_RISE = _verbs("go/went/gone", "rise/rose/risen", "climb", "get/got", "move", "shoot/shot", "jump", "grow/grew/grown", "increase")
_FALL = _verbs("drop", "fall/fell/fallen", "go/went/gone", "dip", "sink/sank/sunk", "get/got", "decrease", "decline", "shrink/shrank", "plunge", "plummet", "slip")
_BE = r"(?:was|were|is|are|be|been|got|became|become|becomes|stood|stayed)"
_CONDITION_VERBS: tuple[tuple[str, str], ...] = (
    (rf"\b(?:{_verbs('exceed', 'surpass', 'top')}|{_RISE} (?:above|over|past|beyond)|(?:{_BE} )?(?:more|greater|higher|bigger) than|{_BE} (?:above|over))\s+{_NUM}", ">"),
    (rf"\b(?:{_FALL} (?:below|under|beneath)|(?:{_BE} )?(?:less|lower|fewer|smaller) than|{_BE} (?:below|under))\s+{_NUM}", "<"),
    (rf"\b(?:at least|no (?:less|fewer) than|{_verbs('reach', 'hit', 'total', 'attain')}|{_RISE} (?:up )?to|{_verbs('build/built')} up to)\s+{_NUM}", ">="),
    (rf"\b(?:at most|no more than|{_FALL} (?:down )?to)\s+{_NUM}", "<="),
    (rf"\b(?:{_BE}|{_verbs('turn', 'equal', 'change', 'read', 'show/shown', 'hit', 'set')}(?: to)?|equal to)\s+(?:exactly |precisely |just |only )?{_NUM}", "=="),
)
_OUT_OF = re.compile(r"\b(?:ran out of|run out of|runs out of|running out of|used up all (?:of )?(?:my |our |the )?|exhausted (?:my |our |the )?)\s*(?:all )?(?:my |our |your |its |their |the )?(.+)")
_NONE_LEFT = re.compile(r"\bno (.+?) (?:left|remaining)\b|\b(.+?) (?:ran out|hit 0|reached 0|dropped to 0|fell to 0|was gone|were gone|ran dry)\b")
_HAVE_N = re.compile(rf"\b(?:have|had|has|hold|held|holding|carry|carried|carrying|own|owned|possess(?:ed)?|amass(?:ed)?)\s+(at least\s+|exactly\s+|only\s+|just\s+|precisely\s+)?{_NUM}\s+(.+)")
_WORD_VALUE = re.compile(r"\b(?:become|became|becomes|becoming|turn|turned|turns|change|changed|changes|switch|switched|switches|set|went|go|goes)\s+(?:to\s+|into\s+)?([a-z]+)$")


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


_STATIC = re.compile(r"^(?:was|were|is|are|be|been|stood|stayed|had|has|have|held|holding|at least|at most|no more|no less|more|greater|higher|bigger|less|lower|fewer|smaller|above|over|below|under|exactly|equal)\b")


@dataclass(frozen=True)
class _Stated:
    """A condition and whether the text states it as a state ("was above 8": the runs during which it
    holds) rather than as a change ("rose above 8": the steps at which it comes to hold)."""

    condition: Condition
    static: bool


def _condition(text: str, lex: Lexicon) -> Condition | None:
    """A condition on an inventory item or state value that the text states, or None."""
    stated = _stated_condition(text, lex)
    return stated.condition if stated else None


def _stated_condition(text: str, lex: Lexicon) -> _Stated | None:
    text = re.sub(r"\s+", " ", _ORD.sub(" ", text))
    # A window on step numbers is not part of the condition, and a step number is never the value compared.
    text = re.sub(r"\s*\b(?:before|after|earlier than|later than|prior to|until|till|by|up to|since|once|from|between|through|within_first|within_last|during|at|on|in)\s+(?:step )?\d+\b.*$", "", text)
    text = re.sub(r"\bstep \d+\b", "step", text)
    toks = words(text)
    m = _VALUE_REF.search(text)
    if m and int(m.group(1)) < len(lex.state_values):
        state_name, text_value = sorted(lex.state_values)[int(m.group(1))]
        return _Stated(Condition("state", state_name, "==", text_value), True)
    m = _OUT_OF.search(text)
    if m:
        item = lex.name(words(m.group(1)), lex.items)
        if item:
            return _Stated(Condition("inventory", item, "==", 0), False)
    m = _NONE_LEFT.search(text)
    if m:
        phrase = m.group(1) or m.group(2) or ""
        item = lex.name(words(phrase), lex.items)
        if item:
            return _Stated(Condition("inventory", item, "==", 0), True)
    m = re.search(r"\b(?:stopped|quit|ceased) (?:carrying|holding|having)\s+(?:the |my |our |a |an )?(.+)$|\b(?:no longer|not|never|didn't|did not) (?:had|have|has|held|hold|carried|carry|possessed|possess)\s+(?:the |my |our |a |an |any )?(.+)$|\b(?:the |my |our )?(.+?) (?:left|leave|leaves|was gone from|dropped out of) (?:my|our|the|its|their|your) (?:inventory|bag|hands?|possession)\b", text)
    if m:
        item = lex.name(words(m.group(1) or m.group(2) or m.group(3) or ""), lex.items)
        if item:
            return _Stated(Condition("inventory", item, "==", 0), False)
    m = _HAVE_N.search(text)
    if m:
        item = lex.name(words(m.group(3)), lex.items)
        if item:
            exact = bool(m.group(1)) and not m.group(1).startswith("at least")
            after = text[m.end(2):]
            cmp = "==" if exact else ">="
            if re.match(r"\s*or (?:fewer|less|lower)\b", after):
                cmp = "<="
            return _Stated(Condition("inventory", item, cmp, _number(m.group(2))), True)  # type: ignore[arg-type]
    m = re.search(r"\b(?:still )?(?:had|have|has|held|holding|carried|carrying|owned|possessed)\s+(?:the |a |an |my |our |any |some )(.+)$|\b(?:the |a |an |my |our )?(.+?) (?:was|were|is) (?:still )?in (?:my|our|the|its|their|your) (?:inventory|bag|hands?|possession)\b", text)
    if m and not re.search(rf"{_NUM}", m.group(0)):
        held = m.group(1) or m.group(2) or ""
        item = lex.name(words(held), lex.items, fuzzy=False)
        if item and not verb_words(held):  # "had the agent dropped the key" is no possession
            return _Stated(Condition("inventory", item, ">=", 1), True)
    for pattern, cmp in _CONDITION_VERBS:
        m = re.search(pattern, text)
        if not m:
            continue
        before = text[: m.start()]
        subject = words(before)[-6:] or toks
        state = lex.name(subject, lex.states, fuzzy=False)
        item = lex.name(subject, lex.items, fuzzy=False)
        if state and item and re.search(r"\b(?:count|number|amount|many|pile|stack)\b", before):
            state = None
        after = text[m.end():]
        if re.match(r"\s*or (?:lower|less|fewer|below|under|smaller)\b", after):
            cmp = "<="
        elif re.match(r"\s*or (?:more|higher|greater|above|over|bigger)\b", after):
            cmp = ">="
        static = bool(_STATIC.match(m.group(0)))
        value = _number(m.group(1))
        if cmp == ">=" and value == 0 and not static:
            cmp = "=="  # "reached 0" / "hit zero" is a fall to nothing, not a rise to at least 0
        if state:
            return _Stated(Condition("state", state, cmp, value), static)  # type: ignore[arg-type]
        if item:
            return _Stated(Condition("inventory", item, cmp, value), static)  # type: ignore[arg-type]
        fuzzy = lex.name(subject, lex.states)
        if fuzzy:
            return _Stated(Condition("state", fuzzy, cmp, value), static)  # type: ignore[arg-type]
    m = re.search(rf"\b(?:was|were|is|had|did) (?:the |my |our |its |their |your )?(.+?) (?:exactly |equal to |precisely |at |just )?{_NUM}(?: or (more|higher|greater|above|over|less|lower|fewer|below|under))?$", text)
    if m:
        state = lex.name(words(m.group(1)), lex.states) or None
        item = None if state else lex.name(words(m.group(1)), lex.items)
        if state or item:
            cmp = "==" if not m.group(3) else (">=" if m.group(3) in ("more", "higher", "greater", "above", "over") else "<=")
            return _Stated(Condition("state" if state else "inventory", state or item or "", cmp, _number(m.group(2))), True)  # type: ignore[arg-type]
    m = re.search(rf"\b(?:was|were|is|are|became|become|got|been) (?:{_SUBJECT} )?(?:still |again |already |now )*(not |no longer |never )?(.+)$", text)
    if m and lex.flags:
        flag_name = lex.name(words(m.group(2)), lex.flags)
        if flag_name:  # "when I was first logged in", "once the lamp was no longer on"
            return _Stated(Condition("state", flag_name, "==", not m.group(1)), True)
    m = re.search(r"\b(?:was|were|is) (?:the |my |our |its |their |your )?(.+?) ([a-z]+)$", text)
    if m and not re.search(r"\b(?:do|doing|happen|happening)\b", text) and not re.match(r"(?:more|less|fewer|higher|lower|above|below|over|under)$", m.group(2)):
        state = lex.name(words(m.group(1)), lex.states, fuzzy=False)
        if state and m.group(2) not in words(state):
            raw = m.group(2)
            flag = {"true": True, "false": False, "on": True, "off": False}.get(raw)
            return _Stated(Condition("state", state, "==", raw if flag is None else flag), True)
    m = _WORD_VALUE.search(text)
    if m:
        before = text[: m.start()]
        raw = m.group(1).strip()
        state = lex.name(words(before)[-4:], lex.states, fuzzy=raw in ("on", "off", "true", "false"))
        if state:
            word_value: int | float | str | bool = {"true": True, "false": False, "on": True, "off": False}.get(raw, raw)
            return _Stated(Condition("state", state, "==", word_value), False)
    return None


def _reached(stated: _Stated, ordinal: int, window: Window | None = None) -> Reached:
    """The anchor a stated condition names: "the last time X was above 8" is the end of the last run
    during which it held; "the last time X rose above 8" (or any other ordinal) the start of a run."""
    at = "end" if stated.static and ordinal < 0 else "start"
    return Reached(stated.condition, ordinal, window, at)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------
# Anchors
# --------------------------------------------------------------------------------------------------

_ORD = re.compile(r"\bord_(m?)(\d+)\b")
_LEAD = re.compile(r"^(?:,\s*)?(?:and |that |then |the |a |an |my |our |your |its |their |when |whenever |as |once |while |upon |at |on |in |of |it |did |was |were |had |have |has )+")
_AFTER = r"(?:after|following|since|later than|past|subsequent to|once)"
_BEFORE = r"(?:before|prior to|preceding|earlier than|ahead of|until|till)"
_STEP_ONLY = re.compile(r"^(?:the )?(?:step|index) (\d+)$|^(\d+)$")


def _strip_lead(text: str) -> str:
    previous = None
    text = text.strip(" ,.")
    while previous != text:
        previous = text
        text = _LEAD.sub("", text).strip(" ,.")
    return text


def _ordinal(text: str) -> int | None:
    found = [-int(n) if minus else int(n) for minus, n in _ORD.findall(text) if int(n) != 0]
    if found:
        return found[0]
    if re.search(r"\bagain\b", text):
        return 2
    if re.search(r"\b(?:next|subsequent)\b", text):
        return 1
    if re.search(r"\b(?:previous|preceding|prior)\b", text):
        return -1
    return None


def _clean_event_text(text: str) -> list[str]:
    text = _ORD.sub(" ", text)
    text = re.sub(r"\b(?:for the|the|a|an)\s+(?:time|occasion|instance)\b", " ", text)
    return words(text)


class _Compiler:
    def __init__(self, lex: Lexicon, last_t: int) -> None:
        self.lex = lex
        self.last_t = last_t

    # ---------------------------------------------------------------- events and anchors
    def pattern(self, text: str) -> EventPattern | None:
        return self.lex.event(_clean_event_text(text))

    def anchor(self, text: str, default_ordinal: int = 1) -> Anchor | None:
        """The step an anchor phrase names ("step 40", "the third time I collected wood", "2 steps after
        I placed the table", "my stone count reached 4", "the next table after step 100")."""
        text = text.strip(" ,.")
        m = _STEP_ONLY.match(_strip_lead(text))
        if m:
            return StepAt(int(m.group(1) or m.group(2)))
        m = re.match(r"^(?:the )?(?:step|index) (\d+)\b", _strip_lead(text))
        if m and not content_words(words(_strip_lead(text)[m.end():])):
            return StepAt(int(m.group(1)))
        m = re.match(rf"^(\d+) {_UNIT} (?:(after|later than|following|past)|(before|earlier than|prior to|ahead of))\s+(.+)$", _strip_lead(text))
        if m:
            base = self.anchor(m.group(4))
            k = int(m.group(1))
            return Shifted(base, k if m.group(2) else -k) if base is not None else None
        m = re.match(rf"^(?:right |just |immediately |directly |straight )?(?:the )?(?:{_UNIT} )?(?:right |just |immediately |directly )(after|following|before|prior to)\s+(.+)$", _strip_lead(text))
        if m:
            base = self.anchor(m.group(2))
            return Shifted(base, 1 if m.group(1) in ("after", "following") else -1) if base is not None else None
        stated = _stated_condition(text, self.lex)
        if stated is not None:
            return _reached(stated, _ordinal(text) or default_ordinal)
        # A window on the occurrence: "the last time I drank in the first 200 steps", "... between step 5 and 9".
        m = re.search(r"\b(?:within_first \d+|within_last \d+|between .+ and .+|from step \d+ to .+)$", text)
        if m and m.start() > 0:
            window, found = self.window(m.group(0))
            pattern = self.pattern(text[: m.start()])
            if found and pattern is not None:
                return Occurrence(pattern, _ordinal(text[: m.start()]) or default_ordinal, window)
        # A nested window: "the next X after Y", "the last X before Y", "the second X since Y".
        m = re.search(rf"\b(?:(right |just |immediately )?{_AFTER}|(right |just |immediately )?{_BEFORE})\s+(.+)$", text)
        if m and self.pattern(text[: m.start()]) is not None:
            head = text[: m.start()]
            after = bool(re.match(rf"(?:right |just |immediately )?{_AFTER}", m.group(0)))
            bound = self.anchor(m.group(3))
            pattern = self.pattern(head)
            if bound is not None and pattern is not None:
                ordinal = _ordinal(head) or (1 if after else -1)
                window = Window(start=bound, include_start=False) if after else Window(end=bound, include_end=False)
                return Occurrence(pattern, ordinal, window)
        pattern = self.pattern(text)
        if pattern is None:
            return None
        return Occurrence(pattern, _ordinal(text) or default_ordinal)

    def window(self, text: str) -> tuple[Window | None, bool]:
        """The window a clause names and whether it named one ("between step 10 and 50", "before I
        slept", "in the first 100 steps", "after I entered the kitchen and before step 300")."""
        text = text.strip(" ,.")
        start: Anchor | None = None
        end: Anchor | None = None
        inc_start, inc_end = True, True
        found = False
        m = re.search(r"\bwithin_first (\d+)\b", text)
        if m:
            end, found = StepAt(max(int(m.group(1)) - 1, 0)), True
        m = re.search(r"\bwithin_last (\d+)\b", text)
        if m:
            start, found = StepAt(max(self.last_t - int(m.group(1)) + 1, 0)), True
        m = re.search(r"\bbetween (.+?) and (.+)$", text) or re.search(r"\bfrom (.+?) (?:to|until|till|through) (.+)$", text)
        if m:
            a, b = self.anchor(m.group(1)), self.anchor(m.group(2))
            if a is not None and b is not None:
                return Window(a, b), True
        m = re.search(rf"\b(?:(since)|{_AFTER})\s+(.+?)(?=\s+(?:and |but )?(?:{_BEFORE}|(?:by|up to|through)(?= (?:the )?(?:step|time)\b))\s|$)", text)
        if m:
            a = self.anchor(m.group(2))
            if a is not None:
                start, found = a, True
                inc_start = bool(m.group(1)) and isinstance(a, StepAt)
        m = re.search(rf"\b(?:({_BEFORE})|(?:by|up to|up until|through|as of|no later than)(?= (?:the )?(?:step|time|moment|point|end)\b))\s+(.+?)(?=\s+(?:and |but )?{_AFTER}\s|$)", text)
        if m:
            b = self.anchor(m.group(2), default_ordinal=1)
            if b is not None:
                end, found = b, True
                inc_end = not m.group(1) or m.group(1) in ("until", "till")
        if not found:
            return None, False
        return Window(start, end, inc_start, inc_end), True

    # ---------------------------------------------------------------- question forms
    def compile(self, s: str) -> Query | None:
        if "true_or_false" in s:
            return self.read(s)
        for form in (self.which_first, self.distance, self.count, self.exists, self.listing, self.read):
            q = form(s)
            if q is not None:
                return q
        return None

    def which_first(self, s: str) -> Query | None:
        if not re.search(r"\bwhich came first\b", s):
            return None
        body = re.sub(r"\bwhich came first\b", " ", s)
        body = re.sub(rf"^\s*(?:,\s*)?(?:did|have|had|was|were|is|do|does)\s+(?:{_SUBJECT}\s+)?", " ", body.strip(" ,"))
        both = self.two_anchors(re.sub(r",\s+or\b", " or", body.strip(" ,")), "or")
        return WhichFirst(*both) if both is not None else None

    def two_anchors(self, text: str, separator: str) -> tuple[Anchor, Anchor] | None:
        """Two anchors joined by ``separator`` ("from A to B", "between A and B"), split at the first
        occurrence of the separator at which both sides read as anchors."""
        for m in re.finditer(rf"\s{separator}\s", text):
            left, right = text[: m.start()], text[m.end():]
            if not left.strip() or not right.strip():
                continue
            a = self.anchor(left)
            if a is None:
                continue
            b = self.anchor(right)
            ordinal = re.fullmatch(r"\s*(?:the |my |our |its |their )?(ord_m?\d+)(?: time| occasion| one)?\s*", right)
            if b is None and ordinal and isinstance(a, Occurrence):
                b = Occurrence(a.pattern, _ordinal(ordinal.group(1)) or 1, a.window)  # "... to the third time"
            if b is not None:
                return a, b
        return None

    def distance(self, s: str) -> Query | None:
        m = re.search(rf"^(?:the )?(.+?) (?:came|happened|occurred|was|took place) how many {_UNIT} (after|before) (.+)$", s)
        if m:
            b, a = self.anchor(m.group(1)), self.anchor(m.group(3))
            return Distance(a, b) if a is not None and b is not None else None
        if re.search(r"\b(?:gap|difference|distance|separation|interval|span)\b.*\bbetween\b", s) and not re.search(r"\bhow many times\b", s):
            m = re.search(r"\bbetween (.+)$", s)
            both = self.two_anchors(m.group(1), "and") if m else None
            if both is not None:
                return Distance(*both)
        if not re.search(rf"\bhow (?:long|many {_UNIT}|much time|far apart|many {_UNIT} apart)\b|\bhow many {_UNIT} (?:passed|elapsed|went by|separate)", s):
            return None
        if re.search(r"\bhow many times\b", s):
            return None
        for cue, separator in ((r"\bbetween ", "and"), (r"\bfrom ", "(?:to|until|till)")):
            found = re.search(cue + r"(.+)$", s)
            both = self.two_anchors(found.group(1), separator) if found else None
            if both is not None and not re.search(r"\b(?:next|following|subsequent)\b", found.group(1) if found else ""):
                return Distance(*both)
        m = re.search(r"\bbetween (.+?) and (.+)$", s) or re.search(r"\bfrom (.+?) (?:to|until|till) (.+)$", s)
        if m:
            a = self.anchor(m.group(1))
            if a is None:
                return None
            if re.search(r"\b(?:next|following|subsequent)\b", m.group(2)):
                pattern = self.pattern(re.sub(r"\b(?:next|following|subsequent)\b", " ", m.group(2)))
                return Distance(a, Occurrence(pattern, 1, Window(start=a, include_start=False))) if pattern else None
            b = self.anchor(m.group(2))
            return Distance(a, b) if b is not None else None
        # "how long was it until I next Y after X"
        m = re.search(rf"\bhow (?:long|many {_UNIT}|much time)(?: (?:was it|did it take|passed|elapsed|went by))?(?: {_SUBJECT})? (?:until|till|before) (.+?) (after|since|following) (.+)$", s)
        if m:
            a = self.anchor(m.group(3))
            pattern = self.pattern(m.group(1))
            if a is None or pattern is None:
                return None
            return Distance(a, Occurrence(pattern, _ordinal(m.group(1)) or 1, Window(start=a, include_start=False)))
        # "how far apart were A and B"
        m = re.search(rf"\bhow (?:far apart|many {_UNIT} apart)\b(?:,? in {_UNIT},?)?(?: (?:were|was|are|is))? (.+?) and (?=(?:the|my|our|its|their|when|step|i|we|you)\b)(.+)$", s)
        if m:
            a, b = self.anchor(m.group(1)), self.anchor(m.group(2))
            return Distance(a, b) if a is not None and b is not None else None
        # "how many steps after A came B"
        m = re.search(rf"\bhow (?:long|many {_UNIT}|much time) (after|before)\s+(.+?)\s+(?:came|was|happened|occurred|did)\s+(?:the |my |our |its )?(ord_m?\d+ (?:time|occasion) .+)$", s)
        if m:
            a, b = self.anchor(m.group(2)), self.anchor(m.group(3))
            if a is not None and b is not None:
                return Distance(a, b)
        # "how long after X did I Y" / "how many steps after X did I Y"
        m = re.search(rf"\bhow (?:long|many {_UNIT}|much time) (after|before)\s+(.+?)\s+(?:did|do|does|was|were|had|would)\s+{_SUBJECT}\s+(.+)$", s)
        if m:
            a = self.anchor(m.group(2))
            pattern = self.pattern(m.group(3))
            if a is None or pattern is None:
                return None
            after = m.group(1) == "after"
            window = Window(start=a, include_start=False) if after else Window(end=a, include_end=False)
            return Distance(a, Occurrence(pattern, _ordinal(m.group(3)) or (1 if after else -1), window))
        # "how long did it take (me) to Y after X" / "... from X to Y"
        m = re.search(rf"\bhow (?:long|many {_UNIT}) did it take\s+(?:{_SUBJECT}\s+)?(?:to\s+)?(.+?)\s+(after|since|following)\s+(.+)$", s)
        if m:
            a = self.anchor(m.group(3))
            pattern = self.pattern(m.group(1))
            if a is None or pattern is None:
                return None
            return Distance(a, Occurrence(pattern, _ordinal(m.group(1)) or 1, Window(start=a, include_start=False)))
        return None

    def _head_and_window(self, s: str, cue: str) -> tuple[str, Window | None] | None:
        m = re.search(cue, s)
        if not m:
            return None
        rest = s[m.end():]
        cut = re.search(rf"\b(?:between|from step|within_first|within_last|{_AFTER}|{_BEFORE}|(?:by|up to|up until|through|as of|no later than|during)(?= (?:the )?(?:step|time|moment|point|end)\b))\b", rest)
        head, tail = (rest[: cut.start()], rest[cut.start():]) if cut else (rest, "")
        window, _ = self.window(tail) if tail else (None, False)
        if tail and window is None:
            return None
        return head, window

    def count(self, s: str) -> Query | None:
        if not re.search(r"\bhow (?:many|often)\b|\bnumber of times\b|\bcount (?:of|the)\b", s):
            return None
        if not re.search(r"\btimes\b|\bhow often\b", s) and re.search(
                r"\bat step \d+$|\b(?:the )?ord_m?\d+ (?:time|occasion)\b|\bwhen\b|\b\d+ steps? (?:after|before)\b|\b(?:right|just|immediately) (?:after|before)\b", s):
            return None  # "how many tests passed the first time I ...": a value at one step, not a count
        hw = self._head_and_window(s, r"\bhow (?:many|often)\b|\bnumber of times\b|\bcount (?:of|the)\b")
        if hw is None:
            return None
        head, window = hw
        # "how many X did I have" reads an inventory count, not a number of events
        if not re.search(r"\btimes\b|\bhow often\b", s) and (
            _HAVE.search(head) or re.search(r"\b(?:in|inside) (?:my|our|the)\b", head)
        ):
            return None
        pattern = self.pattern(re.sub(r"\b(?:times|separate|different|total|in total|altogether|overall)\b", " ", head))
        if pattern is None:
            return None
        return Count(pattern, window)

    def exists(self, s: str) -> Query | None:
        m = re.match(rf"^(?:did|have|had|has|was|were|is|does|do)\s+(?:there\s+)?(?:ever\s+)?(?:{_SUBJECT}\s+)?(?:ever\s+)?", s)
        if not m:
            return None
        if s.startswith(("was ", "were ", "is ", "are ")) and not _EXISTENCE.search(s):
            read = self.read(s)
            if isinstance(read, Read) and read.slot == "state":
                return read
        hw = self._head_and_window(s, r"^")
        if hw is None:
            return None
        head, window = hw
        head = re.sub(r"\b(?:ever|at all|any|once|even)\b", " ", head)
        condition = _condition(head, self.lex)
        if condition is not None:
            return Exists(condition, window)
        pattern = self.pattern(head)
        if pattern is None:
            return None
        return Exists(pattern, window)

    def listing(self, s: str) -> Query | None:
        m = re.match(rf"^(?:(?:what|which)(?: (?:things|items|objects|stuff|(?:kinds?|types?|sorts?) of [a-z]+|all|else|[a-z]+s))?|list(?: everything| all(?: the)?(?: things| items)?)?(?: that)?)\s+(?:did|have|had|has|do|does)\s+{_SUBJECT}\s+(.+)$", s) or re.match(rf"^(?:(?:which|what) (?:things|items|objects|stuff|places|rooms|areas)|list(?: everything| all| the \w+)?(?: that)?)\s+{_SUBJECT}\s+(.+)$", s)
        if not m or re.search(r"\bord_|\bdo\b|\bdoing\b|\bhave\b|\bhad\b|\bhold|\bcarry|\bsee\b|\bface\b|\bfacing\b|\bnotice|\bobserve", m.group(1).split(" between ")[0].split(" after ")[0].split(" before ")[0]):
            return None
        hw = self._head_and_window(s, r"^")
        if hw is None or hw[1] is None:
            return None
        head, window = hw
        verb_words = [w for w in words(head) if w not in ("list", "things", "items", "objects", "everything", "what", "which", "name")]
        pattern = self.lex.event(verb_words)
        if pattern is None or pattern.kind is None:
            return None
        return ListEvents(EventPattern(pattern.kind, None), window)

    def read(self, s: str) -> Query | None:
        s = re.sub(r"\b(?:the|my|our|its|their) ord_m1 (?:step|move|turn)\b(?! (?:at which|in which|on which|where|when|that)\b)", f"step {self.last_t}", s)
        m = re.match(r"^what (?:was|were|is) (?:my|our|its|their|the agent's|your|the) ord_m1 (.+)$", s)
        if m and not re.search(r"\b(?:time|occasion|moment|step|move|turn|point|instance)\b|\b(?:when|where|which|that|after|before)\b", m.group(1)):
            s = f"what was the {m.group(1)} at step {self.last_t}"  # "what was my final health?"
        # A window at the end bounds the question's occurrence: "when did I drink for the 2nd time between
        # step 245 and 421", "where was I the last time I ate in the first 300 steps".
        trailing = re.search(r"\s(?:within_first \d+|within_last \d+|between .+ and .+|from step \d+ to .+|(?:before|earlier than|prior to|until|till|up to|by|after|later than|since|following) step \d+)$", s)
        if trailing:
            window, found = self.window(trailing.group(0))
            inner = self.read(s[: trailing.start()])
            if found and window is not None and isinstance(inner, Read):
                bounded = _bound(inner.anchor, window)
                if bounded is not None:
                    return Read(bounded, inner.slot, inner.name)
        connector = re.search(
            rf"(?:\b(\d+) {_UNIT} (?:(after|later than|following|past)|(before|earlier than|prior to|ahead of))\s)"
            rf"|(?:\b(?:right |just |immediately |directly |straight )(after|following)\s)"
            rf"|(?:\b(?:right |just |immediately |directly |straight )(before|prior to|preceding)\s)"
            rf"|(?:\b(?:the |one )?{_UNIT} (?:right |just |immediately |directly )?(after|following)\s)"
            rf"|(?:\b(?:the |one )?{_UNIT} (?:right |just |immediately |directly )?(before|prior to|preceding)\s)"
            rf"|(?:\b(after|following|once)\s)"
            rf"|(?:\b(before|prior to|preceding)\s)"
            rf"|(?:\b(?:the |my |our |its |their )?(?=ord_m?\d+ (?:time|occasion|instance)\b))"
            rf"|(?:\b(?:(?:at|on|in|during) )?the (?:step|moment|time|point|turn|move) (?:where|when|at which|in which|on which|that)\s)"
            rf"|(?:\b(?:(?:at|on|in|during) )?the (?=ord_m?\d+ (?:step|moment|point|turn|move) (?:where|when|at which|in which|on which|that)\b))"
            rf"|(?:\b(?:when|whenever|as soon as|at the moment|the moment|at the time|while|upon|at the point)\s)"
            rf"|(?:\b(?:at|on|in|during|by|for|as of) (?=step \d+))",
            s[6:] if s.startswith("when ") else s,
        )
        offset_base = 6 if s.startswith("when ") else 0
        head = s if connector is None else s[: connector.start() + offset_base]
        tail = "" if connector is None else s[connector.end() + offset_base:]
        slot = _slot(head, self.lex)
        head_content = head
        if slot is not None and slot.name:
            head_content = re.sub(rf"\b{re.escape(slot.name)}\w*\b", " ", head_content)
        head_stated = _stated_condition(head_content, self.lex) if slot is None or slot.slot == "step" else None
        head_condition = head_stated.condition if head_stated else None
        head_pattern = None
        if head_condition is None:
            cleaned = re.sub(r"^(?:when|what|where|which|how many|how much|at which step|at what step|on which step)\b", " ", head_content)
            cleaned = re.sub(r"\b(?:do|doing|done|happen(?:ed)?|occur(?:red)?|else|action|move|command|inventory|location|position|coordinates|facing|holding|carrying|bag|have|had|see|saw|notice|observe|observed|in front of)\b", " ", cleaned)
            head_pattern = self.pattern(cleaned) if slot is None or slot.slot in ("step",) or not tail else None
        if slot is None and re.match(r"^(?:what|which) (?:was|is)(?: the)?\s*$", head.strip()) and re.match(r"ord_m?\d+ (?:step|time|moment|point)\b", tail):
            slot = _Slot("step")  # "what was the last step at which ..."
        if slot is None:
            slot = _Slot("step") if (head_pattern or head_condition) else _Slot("action")
        anchor: Anchor | None
        if head_stated is not None and slot.slot == "step":
            window = None
            if tail and connector is not None:
                window, _ = self.window(s[connector.start() + offset_base:])
            anchor = _reached(head_stated, _ordinal(head) or 1, window)
        elif head_pattern is not None and (slot.slot == "step" or not tail):
            ordinal = _ordinal(head)
            window = None
            if tail and connector is not None:
                window, _ = self.window(s[connector.start() + offset_base:])
            if window is not None and ordinal is None and window.end is not None and window.start is None and not window.include_end:
                ordinal = -1  # "the X before Y" is the closest one before
            anchor = Occurrence(head_pattern, ordinal or 1, window)
        else:
            if connector is None:
                return None
            anchor = self._connected(connector, tail)
        if anchor is None:
            return None
        try:
            return Read(anchor, slot.slot, slot.name)  # type: ignore[arg-type]
        except QueryError:
            return None

    def _connected(self, connector: re.Match[str], tail: str) -> Anchor | None:
        g = connector.groups()
        text = connector.group(0) + tail
        if g[0] is not None:
            base = self.anchor(tail)
            k = int(g[0])
            return None if base is None else Shifted(base, k if g[1] else -k)
        if g[3] is not None or g[5] is not None:
            base = self.anchor(tail)
            return None if base is None else Shifted(base, 1)
        if g[4] is not None or g[6] is not None:
            base = self.anchor(tail)
            return None if base is None else Shifted(base, -1)
        if g[7] is not None:
            base = self.anchor(tail)
            return None if base is None else Shifted(base, 1)
        if g[8] is not None:
            base = self.anchor(tail)
            return None if base is None else Shifted(base, -1)
        return self.anchor(text)


_CAPITALIZED = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+(?:'s)?\b")


def _names_as_agent(question: str, lex: Lexicon) -> str:
    """A name inside the question that the memory does not hold ("When Ada placed ...") is the agent."""
    held = {w for name in (*(o for _, o in lex.pairs), *lex.items, *lex.states, *lex.regions) for w in words(name)}
    held |= {w for k, _ in lex.pairs for w in words(k)}

    def replace(m: re.Match[str]) -> str:
        word = m.group(0)
        base = word.removesuffix("'s")
        if base.lower() in held:
            return word
        return "the agent's" if word.endswith("'s") else "the agent"

    return _CAPITALIZED.sub(replace, question[:MAX_CHARS])


_QUESTION_START = re.compile(r"^(?:what|where|when|which|who|how|did|was|were|had|have|has|is|are|do|does|count|list|at which|in which|on which|at what|tell me)\b")
_CLAUSE_START = re.compile(rf"^(?:when|whenever|once|as soon as|after|before|prior to|following|right|just|immediately|directly|since|until|till|up to|up until|as of|through|no later than|earlier than|later than|by|between|from|within_first|within_last|in|on|at|during|the|my|our|its|their|(?:\d+|a) {_UNIT}|ord_m?\d+)\b")


def _main_clause_first(s: str) -> str:
    """ "After I slept, what did I do" -> "what did I do after I slept": the main clause first, so the
    connectives read the same in either order."""
    if ", " not in s:
        return s
    head, _, last = s.rpartition(", ")
    asks = re.match(r"^(?:what|where|when|which|how|who)\s+(?:did|was|were|is|are|had|have|has|do|does|many|much|long)\b|^(?:in|at|on) (?:which|what)\b", head)
    if _QUESTION_START.match(last) and _CLAUSE_START.match(head) and not asks:
        return f"{last} {head}"
    return s


def _bound(anchor: Anchor, window: Window) -> Anchor | None:
    """The anchor with its occurrence (or value change) sought within ``window`` (None: it has its own)."""
    if isinstance(anchor, Shifted):
        inner = _bound(anchor.anchor, window)
        return None if inner is None else Shifted(inner, anchor.steps)
    if isinstance(anchor, (Occurrence, Reached)) and anchor.window is None:
        if isinstance(anchor, Occurrence):
            return Occurrence(anchor.pattern, anchor.ordinal, window)
        return Reached(anchor.condition, anchor.ordinal, window, anchor.at)
    return None


_VALUE_VERB = (r"\b(?:was|were|is|are|be|been|read|reads|showed|shows|said|says|became|become|becomes|turned|"
               r"changed|switched|set|equal(?:led|ed|s)?|matched|=)")
_COPULA = r"\b(?:was|were|is|are|been|became|become|becomes|read|reads|showed|shows|said|says|equalled|equaled|equals)"
_VALUE_ADVERB = r"(?:first|last|still|again|exactly|finally|once more|for the first time|for the last time|to|into|as|equal to|set to)"
_VALUE_REF = re.compile(r"\bvalueref(\d+)\b")


def _mark_state_values(question: str, lex: Lexicon) -> str:
    """A stored text value after a copula ("when my goal was 'find water'") becomes one token,
    ``valueref<i>`` (its index in the sorted (state, value) pairs), so that no later rewriting of numbers,
    ordinals or names reads inside it."""
    pairs = sorted(lex.state_values)
    if not pairs:
        return question
    text = question
    for value in sorted({v for _, v in pairs}, key=len, reverse=True):
        quoted = re.compile(rf"({_VALUE_VERB}\s+(?:[\w']+\s+){{0,4}}?(?:{_VALUE_ADVERB}\s+)*)[\"'\u201c\u2018]{re.escape(value)}[\"'\u201d\u2019](?!\w)", re.IGNORECASE)
        bare = re.compile(rf"({_COPULA}\s+(?:{_VALUE_ADVERB}\s+)*){re.escape(value)}(?!\w)", re.IGNORECASE)
        m = quoted.search(text) or bare.search(text)
        if not m:
            continue
        owners = [i for i, (_, v) in enumerate(pairs) if v == value]
        if len(owners) > 1:
            named = lex.name(words(text[: m.start()])[-6:], {pairs[i][0] for i in owners})
            owners = [i for i in owners if pairs[i][0] == named] or owners
        text = text[: m.start()] + m.group(1) + f"valueref{owners[0]}" + text[m.end():]
    return text


def compile_question(question: str, lexicon: Lexicon, last_t: int) -> Query | None:
    """The query a question asks, read against what the memory holds; None when it names no anchor the
    grammar can read (recall then falls back to content search). Never raises on any text."""
    if not isinstance(question, str):
        return None
    try:
        marked = _mark_state_values(question[:MAX_CHARS], lexicon)
        return _Compiler(lexicon, last_t).compile(_main_clause_first(normalize(_names_as_agent(marked, lexicon))))
    except (QueryError, ValueError, IndexError, re.error) as exc:
        logger.debug("could not compile %r: %s", question[:200], exc)
        return None
