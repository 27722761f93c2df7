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
from dataclasses import replace

from graphmem.query.algebra import (
    Anchor,
    Condition,
    Count,
    CountSteps,
    Distance,
    EventPattern,
    Exists,
    ListEvents,
    Occurrence,
    Precedes,
    Query,
    QueryError,
    Reached,
    Read,
    Shifted,
    StepAt,
    WhichFirst,
    Window,
    held_span,
)
from graphmem.query.conditions import condition_of, reached, stated_condition
from graphmem.query.discourse import one_question
from graphmem.query.lexicon import Lexicon
from graphmem.query.normalize import (
    MAX_CHARS,
    ORDINAL_TOKEN,
    SUBJECT,
    UNIT,
    idioms,
    main_clause_first,
    mark_state_values,
    names_as_agent,
    normalize,
    unheld_subjects,
)
from graphmem.query.slots import EXISTENCE, HAVE, Slot, slot_of
from graphmem.query.step_counts import NOT_A_STEP_COUNT, STEP_COUNT_CUE, step_test
from graphmem.query.wordforms import content_words, longest_name, singular, words

__all__ = ["MAX_CHARS", "compile_question"]

logger = logging.getLogger(__name__)


#: "doing it again", "when it did it for the last time": the other anchor's event once more
_ANAPHORA = re.compile(r"^(?:(?:i|we|you|he|she|it|they|the agent|the player) )?(?:doing|did|does|do|done|repeating|repeated|repeat)(?: (?:it|that|this|so|the same(?: thing)?))?(?: (?:again|once more|ord_m?\d+))+(?: time)?$|^(?:(?:i|we|you|he|she|it|they|the agent|the player) )?(?:doing|did|does|do|done) (?:it|that|this|so|the same(?: thing)?)$")
_LEAD = re.compile(r"^(?:,\s*)?(?:and |that |then |the |a |an |my |our |your |its |their |when |whenever |as |once |while |upon |at |on |in |of |it |did |was |were |had |have |has )+")
_AFTER = r"(?:after|following|since|later than|past|subsequent to|once)"
_BEFORE = r"(?:before|prior to|preceding|earlier than|ahead of|until|till)"
#: "it"/"them" as an object: after a verb, at the end or before a particle or preposition.
_OBJECT_PRONOUN = re.compile(r"(\b[a-z]+ )(?:it|them)\b(?= *$| *[,.;]| (?:on|in|into|onto|down|up|off|out|again|for|to|at|with|from|back|away|over)\b)")
_STEP_ONLY = re.compile(r"^(?:the )?(?:step|index) (\d+)$|^(\d+)$")
#: "what did I pick up", "what was the first thing it examined": the object of the event asked about
_ASKS_OBJECT = re.compile(rf"^what (?:did|had|has|have|does|do|would) {SUBJECT} (?!do\b|doing\b|done\b|happen)[a-z]+\b"
                          rf"|^what (?:was|is|were) the (?:ord_m?\d+ )?(?:thing|item|object|one)s? (?:that |which )?{SUBJECT} [a-z]+ed\b")


#: "the 5th 'inspect' event", "a 'quiz class' event with object 'lab safety'": a kind named as an event
_NAMED_EVENT = re.compile(r"\b((?:[a-z'-]+ ){0,3}[a-z'-]+) events?\b(?: (?:with|whose|of|for) (?:the )?(?:object|obj|target|argument)(?: (?:being|of|was|is))? (.+)|(?=\s*(?:$|(?:logged|recorded|happened|occurred|took place|was|were)\b)))")
#: "an event involving X", "did something with X", "dealt with X": whatever was done, about X
_INVOLVING = re.compile(r"\b(?:(?:events?|something|anything|a thing|things|stuff) (?:involving|concerning|regarding|about|with|to do with|related to|that involved|around)"
                        r"|(?:dealt|deal|deals|dealing|interacted|interact|interacts|interacting|engaged|engage|engaging|busied (?:myself|ourselves|yourself|itself|themselves)) with"
                        r"|(?:moment|time|occasion|point) (?=.+ came up\b))\s+(.+?)(?: came up\b.*)?$")
#: nouns that say what sort of thing a name is: "the find-animal task" is the object "find-animal"
_CLASS_NOUNS = frozenset({"task", "room", "item", "object", "thing", "place", "area", "game", "job", "topic", "subject", "level"})


def _strip_lead(text: str) -> str:
    previous = None
    text = text.strip(" ,.")
    while previous != text:
        previous = text
        text = _LEAD.sub("", text).strip(" ,.")
    return text


def _ordinal(text: str) -> int | None:
    found = [-int(n) if minus else int(n) for minus, n in ORDINAL_TOKEN.findall(text) if int(n) != 0]
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
    text = ORDINAL_TOKEN.sub(" ", text)
    # "struck a cow without killing it": what was not done is no part of the event
    text = re.sub(r"\bwithout [a-z]+ing\b(?: (?:it|them|him|her|one|(?:the|a|an|any) [a-z]+))?", " ", text)
    text = re.sub(r"\bthereafter\b", " ", text)
    text = re.sub(r"\b(?:for the|the|a|an)\s+(?:time|occasion|instance)\b", " ", text)
    return words(text)


class _Compiler:
    def __init__(self, lex: Lexicon, last_t: int) -> None:
        self.lex = lex
        self.last_t = last_t

    # ---------------------------------------------------------------- events and anchors
    def pattern(self, text: str) -> EventPattern | None:
        return self.named_event(text) or self.involving(text) or self.lex.event(_clean_event_text(text))

    def named_event(self, text: str) -> EventPattern | None:
        """An event said by its stored kind and the word "event": "the fifth 'inspect' event", "a 'quiz
        class' event with object 'lab safety'" (the quotes are gone by now; the kind's words stay)."""
        m = _NAMED_EVENT.search(text)
        if m is None:
            return None
        said = words(m.group(1))
        kind = next((" ".join(said[i:]) for i in range(len(said)) if " ".join(said[i:]) in self.lex.kinds), None)
        if kind is None:
            return None
        if m.group(2) is None:
            return EventPattern(kind, None)
        objects = sorted({o for k, o in self.lex.pairs if k == kind and o})
        named = self.lex.name(words(m.group(2)), objects, fuzzy=False)
        return EventPattern(kind, named or " ".join(self.lex._expand(words(m.group(2)))))

    def involving(self, text: str) -> EventPattern | None:
        """An event of any kind about one stored object: "an event involving the kitchen", "did something
        with 'lab safety'", "dealt with the dresser", "the moment the desk came up"."""
        m = _INVOLVING.search(text)
        if m is None:
            return None
        phrase = re.sub(rf"\s+(?:for the ord_m?\d+ time|again|ord_m?\d+|(?:{_AFTER}|{_BEFORE}|between|during|while|in|within_first|within_last)\b.*)$", "", m.group(1))
        objects = {o for _, o in self.lex.pairs if o}
        tokens = words(phrase)
        named = self.lex.name(tokens, objects, fuzzy=False)
        if named is None and tokens and tokens[-1] in _CLASS_NOUNS:
            named = self.lex.name(tokens[:-1], objects, fuzzy=False)  # "the find-animal task", "the salon room"
        return EventPattern(None, named) if named else None

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
        spanned = self.state_window(text)
        if spanned is not None:
            # "the second time we left the bedroom in game 10": the occurrence counted within that span
            inner = self.anchor(spanned[0], default_ordinal)
            bounded = _bound(inner, spanned[1]) if inner is not None else None
            if bounded is not None:
                return bounded
        m = re.match(rf"^(\d+) {UNIT} (?:(after|later than|following|past)|(before|earlier than|prior to|ahead of))\s+(.+)$", _strip_lead(text))
        if m:
            base = self.anchor(m.group(4))
            k = int(m.group(1))
            return Shifted(base, k if m.group(2) else -k) if base is not None else None
        m = re.match(rf"^(?:right |just |immediately |directly |straight )?(?:the )?(?:{UNIT} )?(?:right |just |immediately |directly )(after|following|before|prior to)\s+(.+)$", _strip_lead(text))
        if m:
            base = self.anchor(m.group(2))
            return Shifted(base, 1 if m.group(1) in ("after", "following") else -1) if base is not None else None
        nested = re.search(rf"\b(?:(?:right |just |immediately )?{_AFTER}|(?:right |just |immediately )?{_BEFORE})\s+(.+)$", text)
        if nested and stated_condition(text[: nested.start()], self.lex) is None and stated_condition(nested.group(0), self.lex) is not None:
            # "the next time I mined after the moment my mode became 'fighting'": the condition bounds the
            # event, it is not the anchor
            within = self._nested(text, nested)
            if within is not None:
                return within
        stated = stated_condition(text, self.lex)
        if stated is not None:
            return reached(stated, _ordinal(text) or default_ordinal)
        # A window on the occurrence: "the last time I drank in the first 200 steps", "... between step 5 and 9".
        m = re.search(r"\b(?:within_first \d+|within_last \d+|between .+ and .+|from step \d+ to .+)$", text)
        if m and m.start() > 0:
            window, found = self.window(m.group(0))
            pattern = self.pattern(text[: m.start()])
            if found and pattern is not None:
                return Occurrence(pattern, _ordinal(text[: m.start()]) or default_ordinal, window)
        # A nested window: "the next X after Y", "the last X before Y", "the second X since Y".
        m = re.search(rf"\b(?:(right |just |immediately )?{_AFTER}|(right |just |immediately )?{_BEFORE})\s+(.+)$", text)
        within = self._nested(text, m) if m else None
        if within is not None:
            return within
        pattern = self.pattern(text)
        if pattern is None:
            return None
        return Occurrence(pattern, _ordinal(text) or default_ordinal)

    def _nested(self, text: str, m: re.Match[str]) -> Occurrence | None:
        """The occurrence before ``m`` (an "after ..."/"before ..." clause) within the window it names."""
        head = text[: m.start()]
        pattern = self.pattern(head)
        if pattern is None:
            return None
        after = bool(re.match(rf"(?:right |just |immediately )?{_AFTER}", m.group(0)))
        bound = self.anchor(m.group(m.lastindex or 0))
        if bound is None:
            return None
        ordinal = _ordinal(head) or (1 if after else -1)
        window = Window(start=bound, include_start=False) if after else Window(end=bound, include_end=False)
        return Occurrence(pattern, ordinal, window)

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

    def state_window(self, s: str) -> tuple[str, Window] | None:
        """The question without a span named by a counter's value, and that span: "in house 3", "during
        game 2", "on day 4", "in my second life" are the steps at which the counter (a numeric state the
        memory holds, by name) had that value; "while working on grow-plant" those at which a text state
        held that value."""
        # a counter's value held as an event object ("start game" of "game 4") is read by its words
        spelled = re.sub(r"\bnameref(\d+)\b", lambda r: self.lex.names[int(r.group(1))].lower() if int(r.group(1)) < len(self.lex.names)
                         and re.fullmatch(r"[a-z]+(?: [a-z]+)? \d+", self.lex.names[int(r.group(1))].lower()) else r.group(0), s)
        if spelled != s:
            found = self.state_window(spelled)
            if found is not None:
                return found
        for m in re.finditer(r"(?:^|\b(?:in|during|within|over|throughout|on|for|across|(?:counting |looking )?only(?: in| during)?))\s*(?:the |my |our |its |their |your )?(?:([a-z]+(?: [a-z]+)?) (\d+)|ord_(\d+) ([a-z]+))\b", s):
            said, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            if said.split()[-1] in ("step", "steps", "time", "times", "first", "last", "index"):
                continue
            name = self.lex.name(words(said)[-2:], self.lex.numeric_states, fuzzy=False)
            if name is None or words(name)[-1] not in [singular(w) for w in words(said)] + words(said):
                continue
            return _without(s, m), held_span(Condition("state", name, "==", int(value)))
        ordered = sorted(self.lex.state_values)
        for name, value in sorted(ordered, key=lambda p: -len(p[1])):
            # "while working on grow-plant", "during the melt task": the steps the text state held that value
            refs = [value.lower(), f"valueref{ordered.index((name, value))}", *([f"nameref{self.lex.names.index(value)}"] if value in self.lex.names else [])]
            if not any(ref in s for ref in refs):
                continue
            spelled = "|".join(re.escape(ref) for ref in refs)
            said = re.search(rf"\b(?:while|whilst|when) (?:{SUBJECT} )?(?:was |were )?(?:working on|doing|busy with|playing|running|demonstrating|on|in|at|inside)\s+(?:the )?(?:{spelled})(?: (?:task|job|phase|mode|stage|assignment))?(?![\w-])"
                             rf"|\b(?:during|throughout|within|over|in) (?:the )?(?:{spelled})(?: (?:task|job|phase|mode|stage|assignment|game|level|round))?(?![\w-])", s)
            if said:
                return _without(s, said), held_span(Condition("state", name, "==", value))
        return None

    # ---------------------------------------------------------------- question forms
    def compile(self, s: str) -> Query | None:
        if "true_or_false" in s:
            return self.read(s)
        spanned = self.state_window(s)
        if spanned is not None and not re.search(r"\bwhich came first\b|\bhow (?:long|many steps|far)\b|\bbetween\b|\bor\b", spanned[0]):
            inner = self.forms(spanned[0])
            bounded = _within(inner, spanned[1]) if inner is not None else None
            if bounded is not None:
                return bounded
        return self.shared_span(s, self.forms(s))

    def shared_span(self, s: str, query: Query | None) -> Query | None:
        """A two-anchor query whose span one anchor says and the question gives both: said first ("game
        8, which came first, ...") or pointed back at ("... before or after I read my notes in that game")."""
        if not isinstance(query, (WhichFirst, Precedes, Distance)):
            return query
        spans = [_span_of(a) for a in (query.a, query.b)]
        held = spans[0] or spans[1]
        if held is None or None not in spans:
            return query
        window = held_span(held)
        lead = self.state_window(s.split(",", 1)[0])
        leading = lead is not None and not lead[0].strip() and lead[1] == window
        pointed = re.search(rf"\b(?:that|the same|this) {re.escape(words(held.name)[-1])}\b", s)
        if not (leading or pointed):
            return query
        a, b = (query.a, _bound(query.b, window)) if spans[0] else (_bound(query.a, window), query.b)
        return query if a is None or b is None else type(query)(a, b)

    def forms(self, s: str) -> Query | None:
        for form in (self.which_first, self.step_count, self.distance, self.count, self.exists, self.listing, self.read):
            q = form(s)
            if q is not None:
                return q
        return None

    def which_first(self, s: str) -> Query | None:
        # "which did I mine first, coal or iron", "what showed up first, a skeleton or a zombie": one verb
        # said once for both objects
        m = re.match(rf"^(?:which|what)(?: one| [a-z]+(?= did\b))?(?: did {SUBJECT})? ([a-z]+(?: (?:up|down|in|into|out|on|off|away|in view|into view)){{0,2}}) (?:first|ord_1|earlier|sooner),? (?:the |a |an |some )?(.+?),? or (?:the |a |an |some )?(.+)$", s)
        if m and not re.search(r"\bwhich came first\b", s):
            a, b = self.pattern(f"{m.group(1)} {m.group(2)}"), self.pattern(f"{m.group(1)} {m.group(3)}")
            if a is not None and b is not None and a != b:
                return WhichFirst(Occurrence(a, 1), Occurrence(b, 1))
        either = self.before_or_after(s)
        if either is not None:
            return either
        order = self.precedes(s)
        if order is not None:
            return order
        if not re.search(r"\bwhich came first\b", s):
            return None
        body = re.sub(r"\bwhich came first\b", " ", s)
        body = re.sub(rf"^\s*(?:,\s*)?(?:did|have|had|was|were|is|do|does)\s+(?:{SUBJECT}\s+)?", " ", body.strip(" ,"))
        both = self.two_anchors(re.sub(r",\s+or\b", " or", body.strip(" ,")), "or")
        return WhichFirst(*both) if both is not None else None

    def before_or_after(self, s: str) -> Query | None:
        """A yes/no question that offers the other order too asks which came first: "was I hurt for the
        first time before or after I first drank", "did A happen before B, or the other way round",
        "did A come before B, or after", "was I quicker to make a sword or to mine stone"."""
        m = re.match(rf"^(?:was|were|am|is|are) ({SUBJECT}) (?:quicker|faster|sooner|earlier|first) (?:to|at|in) (.+?),? or (?:to |at |in )?(.+)$", s)
        if m:
            a, b = self.anchor(f"{m.group(1)} {m.group(2)}"), self.anchor(f"{m.group(1)} {m.group(3)}")
            return WhichFirst(a, b) if a is not None and b is not None and a != b else None
        m = re.match(r"^(?:did|was|were|had|has|is|does|do)\s+(.+?)\s+(?:happen(?:ed)?\s+|come\s+|occur(?:red)?\s+)?(?:before or after|after or before|earlier or later|later or earlier)\s+(.+)$", s)
        if m:
            a, b = self.anchor(m.group(1)), self.anchor(m.group(2))
            return WhichFirst(a, b) if a is not None and b is not None and a != b else None
        m = re.match(r"^(?:did|was|were|had|has|is|does|do)\s+(.+?),?\s+or\s+(?:was it\s+|did it\s+)?(?:the other way (?:round|around)|vice versa|the reverse|after|afterwards|before|later|earlier|the opposite)(?: (?:that|it|this))?$", s)
        if not m:
            return None
        body = m.group(1)
        for cut in re.finditer(rf"\s(?:(?:happen(?:ed)?|come|came|occur(?:red)?|take place|took place|go|went)\s+)?(?:{_BEFORE}|{_AFTER})\s", body):
            a, b = self.anchor(body[: cut.start()]), self.anchor(body[cut.end():])
            if a is not None and b is not None and a != b:
                return WhichFirst(a, b)
        return None

    def precedes(self, s: str) -> Query | None:
        """A yes/no question on the order of two occasions, each said as a noun phrase: "was the first
        time I drank earlier than the last time I slept", "is it true that my first X preceded the
        second Y", "did the last time A come after the first time B". A clause ("did I drink before I
        slept") asks whether an event happened in a window instead (``exists``)."""
        occasion = r"(?:the|my|our|your|its|their)\s(?:[\w'-]+\s){0,2}?(?:ord_m?\d+|time|occasion)\b"
        m = re.match(rf"^(?:was|were|is|did|does|had|has)\s+(?:it (?:true|the case|so|correct|right) that\s+)?({occasion}.+)$", s)
        if not m:
            return None
        body = m.group(1)
        verbs = r"(?:(?:come|came|happen|happened|occur|occurred|take place|took place|fall|fell|arrive|arrived)\s+)?"
        for cut in re.finditer(rf"\s{verbs}(?:(precede[sd]?|{_BEFORE})|(follow(?:ed|s)?|{_AFTER}))\s", body):
            if cut.group(1) in ("until", "till") or cut.group(2) in ("since", "past", "once"):
                continue
            a, b = self.anchor(body[: cut.start()]), self.anchor(body[cut.end():])
            if a is not None and b is not None and a != b and not isinstance(a, StepAt) and not isinstance(b, StepAt):
                return Precedes(a, b) if cut.group(1) else Precedes(b, a)
        return None

    def antecedent(self, text: str, first: Anchor | None) -> str:
        """``text`` with an object pronoun ("beating it", "dropped it on the floor") replaced by the
        object of the first anchor's event, which is what it refers to; a subject "it" stays."""
        if not isinstance(first, Occurrence) or not first.pattern.obj or first.pattern.obj not in self.lex.names:
            return text
        token = f"nameref{self.lex.names.index(first.pattern.obj)}"
        others = [n for n in self.lex.names if n != first.pattern.obj]

        def replace(m: re.Match[str]) -> str:
            if longest_name(others, content_words(words(text[: m.start()])), strict=True) is not None:
                return m.group(0)  # "struck a zombie without killing it": its own object
            return f"{m.group(1)}{token}"

        return _OBJECT_PRONOUN.sub(replace, text)

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
            again = _ANAPHORA.match(re.sub(r"^(?:when|and|then|as|once|the time|the moment)\s+", "", right.strip(" ,")))
            if again and isinstance(a, Occurrence):
                # "from my first X to doing it again": the same event, its next (or named) occurrence
                nth = _ordinal(again.group(0)) if ORDINAL_TOKEN.search(again.group(0)) else (a.ordinal + 1 if a.ordinal > 0 else 2)
                return a, Occurrence(a.pattern, nth or 2, a.window)
            b = self.anchor(self.antecedent(right, a))
            ordinal = re.fullmatch(r"\s*(?:the |my |our |its |their )?(ord_m?\d+)(?: time| occasion| one)?\s*", right)
            if b is None and ordinal and isinstance(a, Occurrence):
                b = Occurrence(a.pattern, _ordinal(ordinal.group(1)) or 1, a.window)  # "... to the third time"
            if b is not None:
                return a, b
        return None

    def distance(self, s: str) -> Query | None:
        if re.search(rf"\bhow many {UNIT} into\b", s):
            return None  # "how many steps into the run did I die": the step it happened at
        m = re.search(rf"^(?:the )?(.+?) (?:came|happened|occurred|was|took place) how many {UNIT} (after|before) (.+)$", s)
        if m:
            b, a = self.anchor(m.group(1)), self.anchor(m.group(3))
            return Distance(a, b) if a is not None and b is not None else None
        if re.search(rf"\b(?:gap|difference|distance|separation|interval|span|number of {UNIT})\b.*\bbetween\b", s) and not re.search(r"\bhow many times\b", s):
            m = re.search(r"\bbetween (.+)$", s)
            both = self.two_anchors(m.group(1), "and") if m else None
            if both is not None:
                return Distance(*both)
        if not re.search(rf"\bhow (?:long|many {UNIT}|much time|far apart|many {UNIT} apart)\b|\bhow many {UNIT} (?:passed|elapsed|went by|separate)", s):
            return None
        if re.search(r"\bhow many times\b", s):
            return None
        # "how far apart were the first and the last time I ate", "the gap between my first and last trip"
        m = re.search(r"\b(?:between|from|were|was) (?:the |my |our |its |their |your |the agent's )?ord_(m?\d+)(?: time| one)?,? (?:and|to|until|till) (?:the |my |our |its |their |your )?ord_(m?\d+) (.+)$", s)
        if m:
            pattern = self.pattern(m.group(3))
            if pattern is not None:
                first, second = (-int(g[1:]) if g.startswith("m") else int(g) for g in (m.group(1), m.group(2)))
                return Distance(Occurrence(pattern, first), Occurrence(pattern, second))
        for cue, separator in ((r"\bbetween ", "and"), (r"\bbetween ", "from"), (r"\bfrom ", "(?:to|until|till)")):
            found = re.search(cue + r"(.+)$", s)
            both = self.two_anchors(found.group(1), separator) if found else None
            if both is not None and not re.search(r"\b(?:next|following|subsequent|thereafter)\b", found.group(1) if found else ""):
                return Distance(*both)
        m = re.search(r"\bbetween (.+?) and (.+)$", s) or re.search(r"\bfrom (.+?) (?:to|until|till) (.+)$", s)
        if m:
            a = self.anchor(m.group(1))
            if a is None:
                return None
            if re.search(r"\b(?:next|following|subsequent|thereafter)\b", m.group(2)):
                pattern = self.pattern(re.sub(r"\b(?:next|following|subsequent|thereafter)\b", " ", m.group(2)))
                return Distance(a, Occurrence(pattern, 1, Window(start=a, include_start=False))) if pattern else None
            b = self.anchor(m.group(2))
            return Distance(a, b) if b is not None else None
        # "how long was it until I next Y after X"
        m = re.search(rf"\bhow (?:long|many {UNIT}|much time)(?: (?:was it|did it take|passed|elapsed|went by))?(?: {SUBJECT})? (?:until|till|before) (.+?) (after|since|following|once) (.+)$", s)
        if m:
            a = self.anchor(m.group(3))
            pattern = self.pattern(self.antecedent(m.group(1), a))
            if a is None or pattern is None:
                return None
            return Distance(a, Occurrence(pattern, _ordinal(m.group(1)) or 1, Window(start=a, include_start=False)))
        # "how far apart were A and B"
        m = re.search(rf"\bhow (?:far apart|many {UNIT} apart)\b(?:,? in {UNIT},?)?(?: (?:were|was|are|is))? (.+)$", s)
        if m:
            both = self.two_anchors(m.group(1), "and")
            return Distance(*both) if both is not None else None
        # "how many steps after A came B"
        m = re.search(rf"\bhow (?:long|many {UNIT}|much time) (after|before)\s+(.+?)\s+(?:came|was|happened|occurred|did)\s+(?:the |my |our |its )?(ord_m?\d+ (?:time|occasion) .+)$", s)
        if m:
            a, b = self.anchor(m.group(2)), self.anchor(m.group(3))
            if a is not None and b is not None:
                return Distance(a, b)
        # "how long after X did I Y" / "how many steps after X did I Y"
        after_anchor = rf"\bhow (?:long|many {UNIT}|much time) (after|before)\s+(.+?)\s+(?:did|do|does|was|were|had|would)\s+{SUBJECT}\s+(.+)$"
        m = re.search(after_anchor, s)
        if m and re.search(r"\bagain\b", m.group(3)) and not ORDINAL_TOKEN.search(m.group(3)):
            # "how many steps after I first slept did I wake again": the next one, not a second one
            m = re.search(after_anchor, re.sub(r"\s*\bagain\b", "", s))
        if m:
            a = self.anchor(m.group(2))
            pattern = self.pattern(self.antecedent(m.group(3), a))
            if a is None or pattern is None:
                return None
            after = m.group(1) == "after"
            window = Window(start=a, include_start=False) if after else Window(end=a, include_end=False)
            return Distance(a, Occurrence(pattern, _ordinal(m.group(3)) or (1 if after else -1), window))
        # "how long did it take (me) to Y after X" / "... from X to Y"
        m = re.search(rf"\bhow (?:long|many {UNIT}) did it take\s+(?:{SUBJECT}\s+)?(?:to\s+)?(.+?)\s+(after|since|following)\s+(.+)$", s)
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

    def step_count(self, s: str) -> Query | None:
        """Steps, not events: "on how many steps did I choose noop", "how long did I spend in the pond"."""
        if not re.search(STEP_COUNT_CUE, s) or NOT_A_STEP_COUNT.search(s):
            return None
        hw = self._head_and_window(s, STEP_COUNT_CUE)
        if hw is None:
            return None
        what = step_test(hw[0], self.lex)
        return CountSteps(what, hw[1]) if what is not None else None

    def count(self, s: str) -> Query | None:
        if not re.search(r"\bhow (?:many|often)\b|\bnumber of times\b|\bcount (?:of|the)\b", s) or re.search(rf"\bhow many {UNIT} into\b", s):
            return None
        if not re.search(r"\btimes\b|\bhow often\b", s) and re.search(
                r"\bat step \d+$|\b(?:the )?ord_m?\d+ (?:time|occasion|step|moment|point)\b|\bwhen\b|\b\d+ steps? (?:after|before)\b|\b(?:right|just|immediately) (?:after|before)\b", s):
            return None  # "how many tests passed the first time I ...": a value at one step, not a count
        hw = self._head_and_window(s, r"\bhow (?:many|often)\b|\bnumber of times\b|\bcount (?:of|the)\b")
        if hw is None:
            return None
        head, window = hw
        # "how many X did I have" reads an inventory count, not a number of events ("how many sips had I
        # taken" is a perfect tense: events)
        owned = re.sub(rf"\b(?:had|have|has)\s+(?:{SUBJECT}\s+)?(?:already\s+|ever\s+)?[a-z]+(?:ed|en|wn|ne|ght|ept|un|ung|ade|ook|ot)\b", " ", head)
        if not re.search(r"\btimes\b|\bhow often\b", s) and (
            HAVE.search(owned) or re.search(r"\b(?:in|inside) (?:my|our|the)\b|\binventory\b", head)
        ):
            return None
        said = re.sub(r"\b(?:times|separate|different|total|in total|altogether|overall)\b", " ", head)
        # an event the memory holds nothing like happened no times ("how often did I doze off" when never)
        pattern = self.pattern(said) or (self.lex.unheard(_clean_event_text(said)) if re.search(r"\btimes\b|\bhow often\b", s) else None)
        if pattern is None:
            return None
        return Count(pattern, window)

    def exists(self, s: str) -> Query | None:
        m = re.match(rf"^(?:did|have|had|has|was|were|is|does|do)\s+(?:there\s+)?(?:ever\s+)?(?:{SUBJECT}\s+)?(?:ever\s+)?", s)
        if not m:
            return None
        if s.startswith(("was ", "were ", "is ", "are ")) and not EXISTENCE.search(s):
            read = self.read(s)
            if isinstance(read, Read) and read.slot == "state":
                return read
        hw = self._head_and_window(s, r"^")
        if hw is None:
            return None
        head, window = hw
        head = re.sub(r"\b(?:ever|at all|any|once|even)\b", " ", head)
        condition = condition_of(head, self.lex)
        if condition is not None:
            return Exists(condition, window)
        pattern = self.pattern(head) or self.lex.unheard(_clean_event_text(head))
        if pattern is None:
            return None
        return Exists(pattern, window)

    def listing(self, s: str) -> Query | None:
        if re.search(rf"\b\d+ {UNIT} (?:before|after|earlier|later|prior to|following)\b", s):
            return None  # "what did I act on 3 steps before step 231": one step, shifted
        m = re.match(rf"^(?:(?:what|which)(?: (?:things|items|objects|stuff|(?:kinds?|types?|sorts?) of [a-z]+|all|else|[a-z]+s(?: (?:or|and) [a-z]+s)?))?|list(?: everything| all(?: the)?(?: things| items)?)?(?: that)?)\s+(?:did|have|had|has|do|does)\s+{SUBJECT}\s+(.+)$", s) or re.match(rf"^(?:(?:which|what) (?:things|items|objects|stuff|places|rooms|areas)|list(?: everything| all| the \w+)?(?: that)?)\s+{SUBJECT}\s+(.+)$", s)
        if not m or re.search(r"\bord_|\bnext\b|\bdo\b|\bdoing\b|\bhave\b|\bhad\b|\bhold|\bheld\b|\bcarr(?:y|ied|ying)\b|\bowned\b|\bsee\b|\bface\b|\bfacing\b|\bnotice|\bobserve", m.group(1).split(" between ")[0].split(" after ")[0].split(" before ")[0]):
            return None
        hw = self._head_and_window(s, r"^")
        # Without a window only a question that says it wants several things lists the whole episode:
        # "list the items I crafted", "which tools did we make"; "what did I craft" may ask one.
        plural = re.match(r"^(?:list\b|(?:which|what) (?:[a-z]+ )?[a-z]+s (?:did|have|had|has|do|does)\b|(?:which|what) (?:things|items|objects|stuff)\b)", s)
        if hw is None or (hw[1] is None and not plural):
            return None
        head, window = hw
        verb_words = [w for w in words(head) if w not in ("list", "things", "items", "objects", "everything", "what", "which", "name")]
        pattern = self.lex.event(verb_words)
        if pattern is None or pattern.kind is None:
            return None
        return ListEvents(EventPattern(pattern.kind, None), window)

    def read(self, s: str) -> Query | None:
        s = re.sub(r"\b(?:the|my|our|its|their) ord_m1 (?:step|move|turn)\b(?! (?:at which|in which|on which|where|when|that|while|with|during which|spent|the|my|our|its|their|your|i|we|you|he|she|it|they)\b)", f"step {self.last_t}", s)
        m = re.match(r"^what (?:was|were|is) (?:my|our|its|their|the agent's|your|the) ord_m1 (.+)$", s)
        if m and not re.search(r"\b(?:time|occasion|moment|step|move|turn|point|instance)\b|\b(?:when|where|which|that|after|before|i|we|you|he|she|it|they)\b", m.group(1)):
            s = f"what was the {m.group(1)} at step {self.last_t}"  # "what was my final health?"
        # A window at the end bounds the question's occurrence: "when did I drink for the 2nd time between
        # step 245 and 421", "where was I the last time I ate in the first 300 steps".
        trailing = re.search(r"(?<!right)(?<!just)(?<!immediately)(?<!directly)\s(?:within_first \d+|within_last \d+|between .+ and .+|from step \d+ to .+|(?:before|earlier than|prior to|until|till|up to|by|after|later than|since|following) step \d+)$", s)
        if trailing and re.search(rf"\b\d+ {UNIT}$", s[: trailing.start()]):
            trailing = None  # "3 steps before step 35" is an offset, not a window
        if trailing:
            window, found = self.window(trailing.group(0))
            inner = self.read(s[: trailing.start()])
            if found and window is not None and isinstance(inner, Read):
                bounded = _bound(inner.anchor, window)
                if bounded is not None:
                    return Read(bounded, inner.slot, inner.name)
        connector = re.search(
            rf"(?:\b(\d+) {UNIT} (?:(after|later than|following|past)|(before|earlier than|prior to|ahead of))\s)"
            rf"|(?:\b(?:right |just |immediately |directly |straight )(after|following)\s)"
            rf"|(?:\b(?:right |just |immediately |directly |straight )(before|prior to|preceding)\s)"
            rf"|(?:\b(?:the |one )?{UNIT} (?:right |just |immediately |directly )?(after|following)\s)"
            rf"|(?:\b(?:the |one )?{UNIT} (?:right |just |immediately |directly )?(before|prior to|preceding)\s)"
            rf"|(?:\b(after|following|once)\s)"
            rf"|(?:\b(before|prior to|preceding)\s)"
            rf"|(?:\b(?:the |my |our |its |their )?(?=ord_m?\d+ (?:time|occasion|instance)\b))"
            rf"|(?:\b(?:at|on|during|upon) (?=(?:the|my|our|its|their|your) (?:very )?ord_m?\d+ (?!(?:{UNIT}|time|times|occasion|instance|moment|point)\b)[a-z]))"
            rf"|(?:\b(?:(?:at|on|in|during) )?the (?:step|moment|time|point|turn|move) (?:where|when|at which|in which|on which|by which|that|while|during which)\s)"
            rf"|(?:\b(?:(?:at|on|in|during) )?the (?=ord_m?\d+ (?:step|moment|point|turn|move) (?:(?:where|when|at which|in which|on which|by which|that|while|during which|with)\b|(?:the|my|our|its|their|your|i|we|you|he|she|it|they) )))"
            rf"|(?:\b(?:when|whenever|as soon as|at the moment|the moment|at the time|while|upon|at the point)\s)"
            rf"|(?:\b(?:at|on|in|during|by|for|as of) (?=step \d+))",
            s[6:] if s.startswith("when ") else s,
        )
        offset_base = 6 if s.startswith("when ") else 0
        head = s if connector is None else s[: connector.start() + offset_base]
        tail = "" if connector is None else s[connector.end() + offset_base:]
        slot = slot_of(head, self.lex)
        head_content = head
        if slot is not None and slot.name:
            head_content = re.sub(rf"\b{re.escape(slot.name)}\w*\b", " ", head_content)
        head_stated = stated_condition(head_content, self.lex) if slot is None or slot.slot == "step" else None
        head_condition = head_stated.condition if head_stated else None
        head_pattern = None
        if head_condition is None:
            cleaned = re.sub(r"^(?:when|what|where|which|how many|how much|at which step|at what step|on which step)\b", " ", head_content)
            cleaned = re.sub(r"\b(?:do|doing|done|happen(?:ed)?|occur(?:red)?|else|action|move|command|inventory|location|position|coordinates|facing|holding|carrying|bag|have|had|see|saw|notice|observe|observed|in front of)\b", " ", cleaned)
            # "which room did I walk into next after X": the head's own event, sought after the anchor
            nexted = slot is not None and bool(tail) and connector is not None and bool(re.search(r"\bnext\b", head)) and bool(
                re.match(rf"\s*(?:{_AFTER}|{_BEFORE})\b", connector.group(0)))
            if nexted or (slot is not None and slot.slot in ("location", "position")):
                # "which room did I enter": the room is what is asked, not the object of the event
                cleaned = re.sub(r"\bnext\b", " ", re.sub(r"^\s*(?:which|what) (?!step\b)[a-z]+\b", " ", head_content))
            head_pattern = self.pattern(cleaned) if slot is None or slot.slot in ("step",) or not tail or nexted else None
        if slot is None and re.match(r"^(?:what|which) (?:was|is)(?: the)?\s*$", head.strip()) and (
                re.match(r"ord_m?\d+ (?:step|time|moment|point)\b", tail) or (connector is not None and re.match(r"(?:(?:at|on|in|during) )?the (?:step|moment|point)\b", connector.group(0)))):
            slot = Slot("step")  # "what was the last step at which ..."
        # "3 steps before X", "right after X", "the step after X": an offset, not the head's own event
        shifted = connector is not None and any(connector.group(i) is not None for i in (1, 4, 5, 6, 7))
        if slot is None and head_pattern is not None and head_pattern.obj is None and _ASKS_OBJECT.match(head.strip()):
            slot = Slot("object")  # "what did I pick up first": the thing picked up
        if slot is None:
            slot = Slot("step") if (head_pattern or head_condition) else Slot("action")
        anchor: Anchor | None
        if head_stated is not None and slot.slot == "step":
            window = None
            if tail and connector is not None:
                window, _ = self.window(s[connector.start() + offset_base:])
            anchor = reached(head_stated, _ordinal(head) or 1, window)
        elif head_pattern is not None and (slot.slot == "step" or (slot.slot == "object" and not shifted) or not tail or nexted):
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


def _without(s: str, said: re.Match[str]) -> str:
    """The question without the phrase matched."""
    return re.sub(r"\s+", " ", f"{s[: said.start()]} {s[said.end():]}").strip(" ,")


def _within(query: Query, window: Window) -> Query | None:
    """The query with its occurrences sought within ``window`` (None: it has a window of its own)."""
    if isinstance(query, (Count, CountSteps, ListEvents, Exists)):
        return replace(query, window=window) if query.window is None else None
    if isinstance(query, Read):
        anchor = _bound(query.anchor, window)
        return None if anchor is None else Read(anchor, query.slot, query.name)
    if isinstance(query, (WhichFirst, Precedes, Distance)):
        a, b = _bound(query.a, window), _bound(query.b, window)
        return None if a is None or b is None else type(query)(a, b)
    return None


def _span_of(anchor: Anchor) -> Condition | None:
    """The condition whose span (``held_span``) the anchor is sought within, if any."""
    if isinstance(anchor, Shifted):
        return _span_of(anchor.anchor)
    window = anchor.window if isinstance(anchor, (Occurrence, Reached)) else None
    return window.held() if window is not None else None


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


def compile_question(question: str, lexicon: Lexicon, last_t: int) -> Query | None:
    """The query a question asks, read against what the memory holds; None when it names no anchor the
    grammar can read (recall then falls back to content search). Never raises on any text."""
    if not isinstance(question, str):
        return None
    try:
        marked = lexicon.mark_quoted(mark_state_values(question[:MAX_CHARS], lexicon))
        return _Compiler(lexicon, last_t).compile(
            main_clause_first(unheld_subjects(lexicon.mark_worded(idioms(normalize(one_question(names_as_agent(marked, lexicon))), lexicon)), lexicon)))
    except (QueryError, ValueError, IndexError, re.error) as exc:
        logger.debug("could not compile %r: %s", question[:200], exc)
        return None
