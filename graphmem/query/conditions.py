"""Conditions on a value a question states ("my stone count reached 4", "I ran out of wood", "health
dropped below 3", "the task-done flag was true", "the current task was 'boil'"), and the anchor they
name: the step at which a condition comes to hold, or the end of a run during which it held."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.nlp import verb_words
from graphmem.query.algebra import Condition, Reached, Window
from graphmem.query.lexicon import Lexicon
from graphmem.query.normalize import ORDINAL_TOKEN, SUBJECT, VALUE_REF
from graphmem.query.wordforms import words

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
    (rf"\b(?:at or (?:below|under|beneath)|equal to or (?:less|lower|fewer|smaller) than)\s+{_NUM}", "<="),
    (rf"\b(?:at or (?:above|over)|equal to or (?:more|greater|higher|bigger) than)\s+{_NUM}", ">="),
    (rf"\b(?:at least|no (?:less|fewer) than|{_verbs('reach', 'hit', 'total', 'attain')}|{_RISE} (?:up )?to|{_verbs('build/built')} up to)\s+{_NUM}", ">="),
    (rf"\b(?:at most|no more than|{_FALL} (?:down )?to|{_BE} (?:down|back) to)\s+{_NUM}", "<="),
    (rf"\b(?:{_BE}|{_verbs('turn', 'equal', 'change', 'read', 'show/shown', 'hit', 'set')}(?: to)?|equal to)\s+(?:(?:exactly|precisely|just|only|at) )?{_NUM}", "=="),
)
_OUT_OF = re.compile(r"\b(?:ran out of|run out of|runs out of|running out of|(?:use|used|uses|using) up all (?:of )?(?:my |our |the )?|exhausted (?:my |our |the )?)\s*(?:all )?(?:my |our |your |its |their |the )?(.+)")
_NONE_LEFT = re.compile(r"\bno (.+?) (?:left|remaining)\b|\b(.+?) (?:ran out|hit 0|reached 0|dropped to 0|fell to 0|was gone|were gone|ran dry)\b")
_STOPPED_HAVING = re.compile(r"\b(?:stopped|stop|stops|quit|ceased) (?:carrying|holding|having)\s+(?:the |my |our |a |an )?(.+)$|\b(?:no longer|not|never|didn't|did not) (?:had|have|has|held|hold|carried|carry|possessed|possess)\s+(?:the |my |our |a |an |any )?(.+)$|\b(?:the |my |our )?(.+?) (?:left|leave|leaves|was gone from|dropped out of) (?:my|our|the|its|their|your) (?:inventory|bag|hands?|possession)\b")
_CAME_TO_HAVE = re.compile(r"\b(?:the |a |an |my |our |some )?(.+?) (?:showed up|appeared|turned up|ended up|landed|arrived|got|was added|were added|entered) (?:in|into|to) (?:my|our|the|its|their|your) (?:inventory|bag|hands?|possession)\b")
#: Clauses about holding an item at all, the condition each states, and whether as a state (see ``Stated``):
#: "ran out of wood", "no wood left", "stopped carrying the key", "the key showed up in my inventory".
_HOLDINGS: tuple[tuple[re.Pattern[str], str, int, bool], ...] = (
    (_OUT_OF, "==", 0, False), (_NONE_LEFT, "==", 0, True), (_STOPPED_HAVING, "==", 0, False), (_CAME_TO_HAVE, ">=", 1, False),
)
_HAVE_N = re.compile(rf"\b(?:have|had|has|hold|held|holding|carry|carried|carrying|own|owned|possess(?:ed)?|amass(?:ed)?)\s+(at least\s+|exactly\s+|only\s+|just\s+|precisely\s+)?{_NUM}\s+(.+)")
#: "had finished 3 tasks", "had been in 5 different rooms": a number the agent had come to, a count it keeps
_HAD_DONE_N = re.compile(rf"\b(?:had|have|has)\s+(?:{SUBJECT}\s+)?((?:been|gone|got|gotten)\s+(?:in|into|to|through)\s+|[a-z]+ed\s+|[a-z]+en\s+)(at least\s+|exactly\s+|only\s+|just\s+)?{_NUM}\s+((?:[a-z]+ ?){{1,3}})")
_WORD_VALUE = re.compile(r"\b(?:become|became|becomes|becoming|turn|turned|turns|change|changed|changes|switch|switched|switches|set|went|go|goes)\s+(?:to\s+|into\s+)?([a-z]+)$")


#: words that say a count of what is carried: "my pack held 4 things", "5 items in the bag"
_HELD_THINGS = re.compile(r"^(?:or (?:more|fewer|less) )?(?:things|items|objects|belongings|pieces|articles)\b")
_CARRY_WORDS = frozenset({"pack", "bag", "backpack", "knapsack", "inventory", "load", "items", "carried", "carrying", "held", "things", "pocket", "pockets", "hands"})


def held_count_state(said: list[str], lex: Lexicon) -> str | None:
    """The numeric state that counts what the agent carries, named by the words said with the count
    ("my pack" -> ``pack_size``) or, failing that, by a carrying word in its own name (``load``,
    ``items_carried``); None unless exactly one state fits."""
    named = [n for n in sorted(lex.numeric_states) if set(words(n)) & set(said) & _CARRY_WORDS]
    if len(named) == 1:
        return named[0]
    carrying = [n for n in sorted(lex.numeric_states) if set(words(n)) & _CARRY_WORDS]
    return carrying[0] if len(carrying) == 1 and not named else None


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


_STATIC = re.compile(r"^(?:was|were|is|are|be|been|stood|stayed|had|has|have|held|holding|at least|at most|no more|no less|more|greater|higher|bigger|less|lower|fewer|smaller|above|over|below|under|exactly|equal)\b")


@dataclass(frozen=True)
class Stated:
    """A condition and whether the text states it as a state ("was above 8": the runs during which it
    holds) rather than as a change ("rose above 8": the steps at which it comes to hold)."""

    condition: Condition
    static: bool


def condition_of(text: str, lex: Lexicon) -> Condition | None:
    """A condition on an inventory item or state value that the text states, or None."""
    stated = stated_condition(text, lex)
    return stated.condition if stated else None


def stated_condition(text: str, lex: Lexicon) -> Stated | None:
    text = re.sub(r"\s+", " ", ORDINAL_TOKEN.sub(" ", text))
    # A window on step numbers is not part of the condition, and a step number is never the value compared.
    text = re.sub(r"\s*\b(?:(?:before|after|earlier than|later than|prior to|until|till|by|up to|since|once|from|between|through|within_first|within_last)\s+(?:step )?\d+|(?:during|at|on|in)\s+step \d+)\b.*$", "", text)
    text = re.sub(r"\bstep \d+\b", "step", text)
    toks = words(text)
    m = VALUE_REF.search(text)
    if m and int(m.group(1)) < len(lex.state_values):
        state_name, text_value = sorted(lex.state_values)[int(m.group(1))]
        changed = re.search(r"\b(?:became|become|becomes|becoming|turned|turns|switched|switches|changed|changes|went|got set|was set|set to)\b", text[: m.start()])
        return Stated(Condition("state", state_name, "==", text_value), not changed)
    for clause, held_cmp, amount, as_state in _HOLDINGS:
        m = clause.search(text)
        item = lex.name(words(next((g for g in m.groups() if g), "")), lex.items) if m else None
        if item:
            return Stated(Condition("inventory", item, held_cmp, amount), as_state)  # type: ignore[arg-type]
    m = _HAVE_N.search(text)
    if m:
        item = lex.name(words(m.group(3)), lex.items)
        if item:
            exact = bool(m.group(1)) and not m.group(1).startswith("at least")
            after = text[m.end(2):]
            cmp = "==" if exact else ">="
            if re.match(r"\s*or (?:fewer|less|lower)\b", after):
                cmp = "<="
            return Stated(Condition("inventory", item, cmp, _number(m.group(2))), True)  # type: ignore[arg-type]
        held = held_count_state(words(text[: m.start()])[-4:] + words(m.group(3))[:5], lex) if _HELD_THINGS.match(m.group(3)) else None
        if held:  # "the first time my pack held four or more things": the count the agent keeps of them
            at_least = not m.group(1) or m.group(1).startswith("at least") or bool(re.match(r"or more\b", m.group(3)))
            return Stated(Condition("state", held, ">=" if at_least else "==", _number(m.group(2))), True)
        state = lex.name(words(m.group(3))[:3], lex.numeric_states, fuzzy=False)
        if state:  # "when did I last have 9 health": a level the agent had, not a count of things held
            at_least = bool(m.group(1)) and m.group(1).startswith("at least")
            return Stated(Condition("state", state, ">=" if at_least else "==", _number(m.group(2))), True)
    m = _HAD_DONE_N.search(text)
    if m and lex.numeric_states:
        state = lex.name(words(f"{m.group(4)} {m.group(1)}"), lex.numeric_states, loose=True)
        if state:
            exact = bool(m.group(2)) and not m.group(2).startswith("at least")
            return Stated(Condition("state", state, "==" if exact else ">=", _number(m.group(3))), True)
    m = re.search(r"\bwith (?:the |a |an |my |our |its |their |your )?(.+?) (?:still )?(?:in|on) (?:my|our|your|its|their|the agent's|the) (?:inventory|bag|backpack|hands?|pockets?|possession)\b", text)
    held_item = lex.name(words(m.group(1)), lex.items, fuzzy=False) if m else None
    if held_item:  # "the final step with the keycard in my inventory"
        return Stated(Condition("inventory", held_item, ">=", 1), True)
    m = re.search(r"\b(?:still )?(?:had|have|has|held|holding|carried|carrying|owned|possessed)\s+(?:the |a |an |my |our |any |some )(.+)$|\b(?:the |a |an |my |our )?(.+?) (?:was|were|is) (?:still )?in (?:my|our|the|its|their|your) (?:inventory|bag|hands?|possession)\b", text)
    if m and not re.search(rf"{_NUM}", m.group(0)):
        held = m.group(1) or m.group(2) or ""
        item = lex.name(words(held), lex.items, fuzzy=False)
        if item and not verb_words(held) - set(words(item)):  # "had the agent dropped the key" is no possession
            return Stated(Condition("inventory", item, ">=", 1), True)
    for pattern, cmp in _CONDITION_VERBS:
        m = re.search(pattern, text)
        if not m:
            continue
        before = text[: m.start()]
        subject = words(before)[-6:] or toks
        # a number is compared with a number: "the number of finished tasks became 2" is no text state "task"
        state = lex.name(subject, lex.numeric_states, fuzzy=False) or lex.name(subject, lex.states, fuzzy=False)
        if state is None and _HELD_THINGS.match(text[m.end():].strip()):
            state = held_count_state(subject, lex)  # "my pack first reached three items"
        item = lex.name(subject, lex.items, fuzzy=False)
        if state and item and re.search(r"\b(?:count|number|amount|many|pile|stack)\b", before):
            state = None
        after = text[m.end():]
        if re.match(r"\s*(?:[a-z]+ )?or (?:lower|less|fewer|below|under|smaller|down)\b", after):
            cmp = "<="
        elif re.match(r"\s*(?:[a-z]+ )?or (?:more|higher|greater|above|over|bigger|up)\b", after):
            cmp = ">="
        static = bool(_STATIC.match(m.group(0)))
        value = _number(m.group(1))
        if cmp == ">=" and value == 0 and not static:
            cmp = "=="  # "reached 0" / "hit zero" is a fall to nothing, not a rise to at least 0
        if state:
            return Stated(Condition("state", state, cmp, value), static)  # type: ignore[arg-type]
        if item:
            return Stated(Condition("inventory", item, cmp, value), static)  # type: ignore[arg-type]
        fuzzy = lex.name(subject, lex.states)
        if fuzzy:
            return Stated(Condition("state", fuzzy, cmp, value), static)  # type: ignore[arg-type]
    m = re.search(rf"\b(?:was|were|is|had|did) (?:the |my |our |its |their |your )?(.+?) (?:(above|over|beyond|more than|greater than|higher than|below|under|beneath|less than|lower than|fewer than) )?(?:exactly |equal to |precisely |at |just )?{_NUM}(?: or (more|higher|greater|above|over|less|lower|fewer|below|under))?$", text)
    if m:
        state = lex.name(words(m.group(1)), lex.states) or None
        item = None if state else lex.name(words(m.group(1)), lex.items)
        if state or item:
            # "was my health below 3": the comparison said after the name, with no verb of its own
            rising = ("more", "higher", "greater", "above", "over", "beyond")
            if m.group(2):
                cmp = ">" if m.group(2).split()[0] in rising else "<"
            else:
                cmp = "==" if not m.group(4) else (">=" if m.group(4) in rising else "<=")
            return Stated(Condition("state" if state else "inventory", state or item or "", cmp, _number(m.group(3))), True)  # type: ignore[arg-type]
    m = re.search(r"^(.+?)\s+(?:flag |value |state |setting )?(?:was|were|is|became|turned|got|was set|got set)\s+(?:to |into )?(?:still |again |already |now |first |finally )*(true|false|yes|no|on|off)$", text)
    if m and lex.flags:
        flag_name = lex.name(words(m.group(1))[-6:], lex.flags, fuzzy=False) or lex.name(words(m.group(1))[-6:], lex.flags)
        if flag_name:  # "the task-done flag was true", "the door flag turned off"
            return Stated(Condition("state", flag_name, "==", m.group(2) in ("true", "yes", "on")), not re.search(r"\b(?:became|turned|got)\b", m.group(0)))
    m = re.search(rf"\b(?:was|were|is|are|became|become|got|been) (?:{SUBJECT} )?(?:still |again |already |now )*(not |no longer |never )?(.+)$", text)
    if m and lex.flags:
        flag_name = lex.name(words(m.group(2)), lex.flags)
        if flag_name:  # "when I was first logged in", "once the lamp was no longer on"
            return Stated(Condition("state", flag_name, "==", not m.group(1)), True)
    m = re.search(r"\b(?:was|were|is) (?:the |my |our |its |their |your )?(.+?) ([a-z]+)$", text)
    if m and not re.search(r"\b(?:do|doing|happen|happening)\b", text) and not re.match(r"(?:more|less|fewer|higher|lower|above|below|over|under)$", m.group(2)):
        state = lex.name(words(m.group(1)), lex.states, fuzzy=False)
        if state and m.group(2) not in words(state):
            raw = m.group(2)
            flag = {"true": True, "false": False, "on": True, "off": False}.get(raw)
            return Stated(Condition("state", state, "==", raw if flag is None else flag), True)
    m = _WORD_VALUE.search(text)
    if m:
        before = text[: m.start()]
        raw = m.group(1).strip()
        state = lex.name(words(before)[-4:], lex.states, fuzzy=raw in ("on", "off", "true", "false"))
        if state:
            word_value: int | float | str | bool = {"true": True, "false": False, "on": True, "off": False}.get(raw, raw)
            return Stated(Condition("state", state, "==", word_value), False)
    return None


def reached(stated: Stated, ordinal: int, window: Window | None = None) -> Reached:
    """The anchor a stated condition names: "the last time X was above 8" is the end of the last run
    during which it held; "the last time X rose above 8" (or any other ordinal) the start of a run."""
    at = "end" if stated.static and ordinal < 0 else "start"
    return Reached(stated.condition, ordinal, window, at)  # type: ignore[arg-type]
