"""Questions rewritten into a normal form the grammar reads: numbers as digits, ordinals as ``ord_N``
tokens (``ord_mN``: N-th to last), every step reference as ``step N``, clause shapes turned into one
order ("after I slept, the next time I ate" -> "the ord_1 time I ate after I slept"), the agent's names
and titles as "the agent", and the memory's own text values and quoted names as single tokens.

Closed-class English only; what the memory holds comes in as a :class:`~graphmem.query.lexicon.Lexicon`.

>>> normalize("What did the agent do 2 steps after the third time it collected wood?")
'what did the agent do 2 steps after the ord_3 time it collected wood'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from graphmem.query.lexicon import Lexicon
from graphmem.query.wordforms import FUNCTION_WORDS, morph_forms, words

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
UNIT = r"(?:steps?|moves?|turns?|actions?|ticks?|timesteps?)"
SUBJECT = r"(?:i|we|you|he|she|it|they|the agent|the player|the bot|the robot|the character)"
#: "of the run", "in this episode", "of the ranch run": the one run the memory holds
OF_THE_RUN = r"(?:of|in|into) (?:the|this|my|our|your|its|their) (?:[\w-]+ )?(?:run|episode|game|trajectory|session|playthrough|rollout|log)"


def _numbers(s: str) -> str:
    tens = "|".join(_TENS)
    units = "|".join(_UNITS)
    s = re.sub(rf"\b({tens})[ -]({'|'.join(k for k in _UNITS if 0 < _UNITS[k] < 10)})\b",
               lambda m: str(_TENS[m.group(1)] + _UNITS[m.group(2)]), s)
    s = re.sub(rf"\b({tens})\b(?![ -](?:{'|'.join(_ORD_UNITS)})\b)", lambda m: str(_TENS[m.group(1)]), s)
    s = re.sub(rf"\b({units})\b(?! (?:of (?:the|my|them|those)|another))", lambda m: str(_UNITS[m.group(1)]), s)
    s = re.sub(r"\b(?:a couple of|a pair of)\b", "2", s)
    s = re.sub(rf"\b(?:an?|single) ({UNIT})\b", r"1 \1", s)
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
    s = re.sub(r"\bwhat's\b", "what is", s)
    # a reading imagined: "if you had checked the stage field at step 471, what would it have said"
    s = re.sub(r"^if (?:i|you|we|one|the agent) (?:had )?(?:checked|looked at|read|inspected|examined|consulted) (?:the |my |our |your |its )?(.+?)(?: field| value| reading| variable| readout| gauge| meter)? (at step #?\d+),? what would (?:it|that|they|the \w+) have (?:said|shown|read|reported|been|displayed)\s*[?.]?\s*$",
               r"what was the \1 \2", s)
    # instructions about the answer's form say nothing about what is asked: "Answer as x,y.", "in steps"
    s = re.sub(r"[.;,]?\s*(?:please )?(?:answer|respond|reply) (?:with|as|in|using) [^.?!]*[.?!]?\s*$", " ", s)
    s = re.sub(r",?\s*\b(?:item by item|one by one|event by event|in full|if any)\b", " ", s)
    s = re.sub(r"\b(?:in|during|over|within|across) the (?:stretch|period|interval|span|window|part|portion|time) (?=between\b|from\b)", "", s)
    # the record of a step is the step: "looking at the record of step 936, ...", "the step-173 command"
    s = re.sub(r"\bthe (?:record|entry|log|line) (?:of|for) (step #?\d+)\b", r"\1", s)
    s = re.sub(r"^(?:looking at|according to|going by|consulting|checking|reading|at|in|for) (step #?\d+)\s*[,:;]\s*(.+)$", r"\2 at \1", s)
    s = re.sub(r"\bthe step[- ](\d+) (command|action|move|record|entry)\b", r"the \2 at step \1", s)
    s = re.sub(r"^(?:[a-z]+'s |the agent's |my |our |your |its )?(step \d+)\s*[:;]\s*(.+)$", r"\2 at \1", s)
    s = re.sub(r"\b(?:from|starting (?:at|from)) (step #?\d+) (?:on|onward|onwards|forward|forwards)\b", r"since \1", s)
    # "how many steps were there at which it had X": how many times
    s = re.sub(r"\bhow many (?:steps|moves|turns) (?:were there |are there |had there been |did it take )?(?:at|on|in|during) which\b", "how many times", s)
    s = re.sub(r"\b(?:a|the) (?:full|whole|round|clean|perfect) (?=\d)", "", s)  # "hit a full 100"
    s = re.sub(r",?\s*\b(?:up to|until|till|through) (?:its|the|their) (?:completion|end|finish)\b", " ", s)
    s = re.sub(r",?\s*\b(?:going|judging|answering) by (?:the |its |their )?[a-z]+\s*[.?!]?\s*$", " ", s)  # "..., going by the item"
    s = re.sub(r",?\s*\b(?:as an? (?:number|integer|count|step number)|in steps)\s*$", " ", s)
    s = re.sub(r",?\s*\bas (?:x ?, ?y |grid )?(?:coordinates|coords|x ?, ?y)\s*(?=$|,)", " in xy coordinates", s)
    s = re.sub(r"(^|[,.;] )(?:could|can|would|will) you (?:please )?(?=list|name|tell|give|say|show|report|count|find)", r"\1", s)
    s = re.sub(r"\btrue ?/ ?false\b|\byes or no\b", "true or false", s)
    s = re.sub(r"\b(?:hit|health|life) points\b|\bhit-points\b", "hitpoints", s)
    s = re.sub(r"\b(?:at|after|upon) the (?:very )?(?:end|close|conclusion|completion) of (?:the )?(step #?\d+)\b", r"at \1", s)
    s = re.sub(r"\bby the (?:very )?(?:end|close) of (?:the )?(step #?\d+)\b", r"by \1", s)
    s = re.sub(r"\b(?:during|in|on|at) (?:the )?(?:time )?step (?=#?\d)", "at step ", s)
    s = re.sub(r"[\u2013\u2014]|\s-\s", ", ", s)
    s = re.sub(r"(^|, )(?:please |can you |could you |would you )?(?:tell me|show me|let me know|i want to know|i'd like to know) (?=(?:where|when|what|which|how|who)\b)", r"\1", s)
    s = re.sub(r"(^|, )(?:please |can you |could you |would you )?(?:tell me|give me|give|say|report|state|show me|let me know|i want to know|i'd like to know|(?:name|identify|find)(?= the (?:step|time|moment|number)\b))\s+(?:the |my |our |its |your )?(?:the |my |our |its |your )?", r"\1what was the ", s)
    s = re.sub(rf"^(?:name|list) (?:everything|all)\s*[,:]\s*what (did|have|had|has) ({SUBJECT}) ", r"what things \1 \2 ", s)
    s = re.sub(r"^(?:name|list) (?:everything|all)\s*[,:]\s*", "", s)
    s = re.sub(r"^(?:name|list|enumerate) (?:the |all (?:the )?|every )?(?!events\b)([a-z]+s) (?:that (?:were |was )?)?([a-z]+ed)\b", r"what things did i \2 \1", s)
    s = re.sub(rf"^(?:name|list|enumerate) (?:every|each|all(?: the)?) (?:kinds?|types?|sorts?) of ([a-z]+?)s? (?:that |which )?({SUBJECT}) (?:managed to|was able to|were able to|got to|did|could) ([a-z]+)\b",
               r"what \1s did \2 \3", s)
    s = re.sub(rf"^(?:name|list|enumerate) (?:every|each|any) (?!event\b)([a-z]+) (?:that |which )?(?:({SUBJECT}) )?([a-z]+ed)\b", lambda m: f"what things did {m.group(2) or 'i'} {m.group(3)} {m.group(1)}s", s)
    s = re.sub(rf"^(?:which|what) (?:distinct |different |unique )?(?:items|things|objects|stuff) did ({SUBJECT}) (?:deal with|handle|interact with|touch|work with|use)\b(.*?),? (?:where|in which|when) (?:{SUBJECT}) ([^.?]+?)[.?]?\s*(?:(?:list|name) them\.?)?\s*$",
               r"what things did \1 \3 \2", s)
    s = re.sub(rf"^(?:name|list|enumerate) (?:everything|all (?:the )?(?:things|items|objects)|the (?:things|items|objects)|what) (?:that )?({SUBJECT}) ",
               r"what things did \1 ", s)
    s = re.sub(r"^(?:is it true|is it the case|would it be right to say|can you confirm|confirm|true or not[,:]?|(?:is there )?any chance|by any chance|is it possible) (?:that )?", "did ", s)
    s = re.sub(rf"^did ({SUBJECT}) (was|were|had) ", r"\2 \1 ", s)
    s = re.sub(r"\b(?:once|after|when) (step \d+) (?:had|has) (?:passed|gone by|elapsed)\b", r"after \1", s)
    # What a step did is recorded at that step: "right after step 244's action", "once step 71 was done"
    s = re.sub(r"\b(?:(?:right|just|immediately|directly) )?after (step #?\d+)(?:'s| s) (?:action|move|command|turn)\b", r"at \1", s)
    # ... a value read then, but the start of a window for a count or an existence question
    after_step = r"after \1" if re.search(r"\bhow (?:many|often)\b|^(?:did|have|has|had|was there|is there|were there|is it true|list|name)\b|\bever\b", s) else r"at \1"
    s = re.sub(r"\b(?:once|when|after|right after|just after) (step #?\d+)(?:(?:'s| s) (?:action|move|command))? (?:(?:was|had been|has been|had|has|is|got) (?:done|taken|performed|executed|complete|completed|finished|over|carried out|made|ended)|finished|ended|completed)\b", after_step, s)
    s = re.sub(r"\bas (?:it|they|things) (?:stood|was|were)\b", " ", s)
    # A frame naming the occurrence first: "Considering the first time I ate: where was I?"
    s = re.sub(r"^(?:considering|regarding|concerning|thinking (?:about|of)|think (?:about|of)|as for|as to|about|take|consider|looking at|looking back at|focusing on|for)\s+(?=the\b)", "", s)
    s = re.sub(rf"^(?:is|was) there (?:any |a |some )?(?:record|sign|trace|evidence|instance|case|mention|report) (?:of|that) (?:({SUBJECT}) )?(.+)$", lambda m: f"did {m.group(1) or 'i'} ever {m.group(2)}", s)
    s = re.sub(r"^(?:is|was|were) there (?:ever )?(?:any|a|some) (?:step|time|point|moment|occasion)\b(.*?)\s*(?:where|when|at which|in which|on which|that)\s+(.+)$", r"did ever \2 \1", s)
    s = re.sub(r"\(\s*x\s*,\s*y\s*\)", " xy ", s)
    s = re.sub(r"\s*\(([^()]*)\)", lambda m: " " + m.group(1).replace(",", " ") + " ", s)  # an aside: "(cart, tokens)"
    s = re.sub(r"[.,;:]?\s*(?:list them |give them |name them )?(?:in|by) (?:the )?(?:order|sequence)(?: (?:first )?(?:done|seen|they happened|of first appearance|they came))?\s*[.?]?\s*$", " ", s)
    s = re.sub(r"\b(?:leading|that leads|which leads|that led|going|that goes|opening) (in)?to\b", r"\1to", s)  # "the door leading to the kitchen"
    s = re.sub(r"\bthe ((?:first|second|third|last|\d+(?:st|nd|rd|th)) )?time (between (?:step )?\d+ and (?:step )?\d+) (?:that|when|where) ([^,:;]+)",
               lambda m: f"the {m.group(1) or ''}time {m.group(3)} {m.group(2)}", s)
    s = re.sub(r"\b(?:over|during|in|across|throughout) the (?:whole|entire) (?:episode|run|game|trajectory|session)\b|\bin total\b|(?<!\bthe )(?<!\bmy )(?<!\bour )(?<!\bits )(?<!\btheir )(?<!\byour )(?<!'s )\boverall\b", " ", s)
    s = re.sub(r"\band including\b|\b(?:both )?inclusive(?:ly)?\b|\b(?:both )?ends included\b", "", s)
    s = re.sub(r"\b(?:time[ -]?step|timestep|tick|turn number|move number|step number|step no\.?)\s*#?\s*(?=\d)", "step ", s)
    s = re.sub(r"\bt\s*=\s*(?=\d)", "step ", s)
    s = re.sub(rf"\b(step #?\s*\d+) {OF_THE_RUN}\b", r"\1", s)
    s = re.sub(r"\bstep\s*#\s*(?=\d)", "step ", s)
    s = re.sub(r"#\s*(?=\d)", "step ", s)
    s = _numbers(s)
    # counting steps from an anchor: "go 5 steps back from X", "take the moment X and go 3 steps forward"
    s = re.sub(rf"\b(?:(?:go|going|went|count|counting|step|stepping|move|moving|jump|jumping|skip|skipping) )?(\d+) ({UNIT}) (back|backward|backwards|earlier|forward|forwards|ahead|later|on) from\b",
               lambda m: f"{m.group(1)} {m.group(2)} {'before' if m.group(3).startswith(('back', 'earlier')) else 'after'}", s)
    s = re.sub(rf"\b(?:the (?:moment|time|step|point) (?:when |that |where )?)?((?:{SUBJECT}|the \w+) .+?),? and (?:then )?(?:go|move|count|step|jump|skip) (\d+) ({UNIT}) (back|backward|backwards|earlier|forward|forwards|ahead|later|on)\b",
               lambda m: f"{m.group(2)} {m.group(3)} {'before' if m.group(4).startswith(('back', 'earlier')) else 'after'} {m.group(1)}", s)
    # "skip ahead 3 steps from step 434", "rewind 5 steps from X": the verb says the way
    s = re.sub(rf"\b(skip|skipping|jump|jumping|go|going|move|moving|fast[- ]forward|fast[- ]forwarding|rewind|rewinding|step|stepping) (ahead|forward|forwards|on|back|backward|backwards)? ?(\d+) ({UNIT}) (?:from|after|before)\b",
               lambda m: f"{m.group(3)} {m.group(4)} {'before' if (m.group(2) or '').startswith('back') or m.group(1).startswith('rewind') else 'after'}", s)
    # "the nearest earlier step where ...": the last one before
    s = re.sub(r"\bthe (?:nearest|closest) (?:earlier|previous|prior|preceding)\b", "the ord_m1", s)
    s = re.sub(r"\bthe (?:nearest|closest) (?:later|next|following|subsequent)\b", "the ord_1", s)
    # "when, before step 459, did ...": the window said last
    s = re.sub(r"^(when|where|what|which [a-z]+|how many times|how often), ((?:before|after|since|until|by|up to) step \d+), (.+)$", r"\1 \3 \2", s)
    # "once X was behind me": after X
    s = re.sub(r"\bonce (.+?) (?:was|were|had been|is|lay) (?:behind|over|done|past) (?:me|us|you|it|him|her|them|the agent|[a-z]+)\b", r"after \1", s)
    # "how far, in steps, was step 155 from X": the distance between them
    s = re.sub(r"^how far,? (?:in steps,? )?(?:away )?(?:was|is|were|lay|lies) (.+?) from (.+)$", r"how many steps between \1 and \2", s)
    s = re.sub(r"\bhow far into the (?:episode|run|game|trajectory|session|playthrough)(?: \(?step(?: number)?\)?)?\s+(?=did|was|were|had|do)", "at which step ", s)
    # A leading step frame: "Step 190: what was ahead of it?", "Back at step 59, what was my health?"
    s = re.sub(r"^(?:(?:looking back|look back|going back|go back|back|right|exactly|just|looking|look|considering|regarding|about|as for|if (?:you|we) (?:check|look at|consider)|(?:check|consider)) )?(?:(?:at|for|in|during|on|as of|around|to) )?(?:the )?step (\d+)\s*[,:]\s*(.+)$",
               r"\2 at step \1", s)
    s = re.sub(r"\b(?:logged|recorded|registered|noted|listed|happened|occurred) (?:for|in) (step \d+)\b", r"logged at \1", s)
    # "the first time a collapse event was logged": the first time the log showed collapse
    s = re.sub(r"\b(?:an?|the) ((?:(?!(?:an?|the|time|step|ord_\w+)\b)[\x22a-z][\w'\x22-]* ?){1,4}?) (?:event|entry|record) (?:was|got|were|is|had been|has been|was first) (?:logged|recorded|registered|noted|written|entered)\b",
               lambda m: f"the log showed {m.group(1)}", s)
    s = re.sub(r"^(which|what) (?:step(?: number| index)?|point|moment) (?:marks|marked|shows|showed|is|was) (?:when|the moment|the time|the step)\b", "when", s)
    s = re.sub(r"\bsteps (\d+) ?(and|to|through|until|till|-) ?(\d+)\b", lambda m: f"step {m.group(1)} {'and' if m.group(2) == 'and' else 'to'} step {m.group(3)}", s)
    s = re.sub(r"\bstep (\d+) ?(?:-|to|through) ?(\d+)\b", r"step \1 to step \2", s)
    s = re.sub(r"\b(?:between|from) (\d+) and (\d+)\b", r"between step \1 and step \2", s)
    s = re.sub(r"\bin (?:the )?(?:very )?(?:first|opening|initial) (\d+) " + UNIT, r"within_first \1", s)
    s = re.sub(r"\b(?:looking|counting|considering|focusing|going) (?:only )?(?:at |on |over )?(?:only )?(?:the )?(?:very )?(?:first|opening|initial) (\d+) " + UNIT + r"\s*,?",
               r"within_first \1 ,", s)
    s = re.sub(r"^(?:tally up|tally|count up|add up|total up)\s+(?:every|each|all(?: the)?|the)\s+(?:(?:time|occasion)s?\s+(?:that |when )?)?", "how many times did i ", s)
    s = re.sub(r"^any (?!of\b)(.+)$", r"did i ever \1", s)
    # the question word said last: "in the first 100 steps, I collected wood how many times"
    s = re.sub(rf"(^|, )({SUBJECT}) ([^,]+?) how (?:many times|often)\s*$", r"\1how many times did \2 \3", s)
    s = re.sub(r"\b(?:within|during|over|across) (?:the )?(?:very )?(?:first|opening|initial) (\d+) " + UNIT, r"within_first \1", s)
    s = re.sub(r"\b(?:in|within|during|over|across) (?:the )?(?:last|final|latest|most recent) (\d+) " + UNIT, r"within_last \1", s)
    s = re.sub(r"\b(?:which|what)(?: one| 1)? (?:came|happened|occurred|was|did (?:\S+ ){1,2}?(?:do|get to|reach|hit|manage|achieve)|took place|happened) (?:first|earlier|sooner|before the other)\b", "which_first", s)
    m = re.match(r"^(?:of|between) (.+?) and (.+?),? (which_first)\s*$", s)
    if m:
        s = f"which_first, {m.group(1)} or {m.group(2)}"
    if re.search(r"\bor\b", s):
        s = re.sub(r"\b(?:first|earlier|sooner|before the other)\s*$", "which_first", s)
    s = re.sub(r"\b(?:the|its|my|our|their) next (time|occasion|instance)\b", r"the ord_1 \1 thereafter", s)
    s = re.sub(r"\bwhen ([^,:;]+?) next, (following|after) (?:when |the time )?([^,:;]+)", r"the ord_1 time \1 \2 \3", s)
    s = re.sub(r"\b(?:the|its|my|our|their) previous (time|occasion|instance)\b", r"the ord_m1 \1", s)
    s = _ordinals(s)
    s = re.sub(r"\b(?:the agent's|the player's)(?= ord_m?\d+ )", "its", s)  # "the agent's first declared focus"
    # "before the 400th step": a step number said as an ordinal (a small one, "the second step", may count from one)
    s = re.sub(r"\bthe ord_(\d{2,}) (?:step|timestep|time step)\b(?! (?:at|in|on|where|when|that|of|after|before)\b)", r"step \1", s)
    # Failure said many ways is one verb: "tried in vain to open", "my second failed attempt to eat",
    # "typed a command that did not work"
    s = re.sub(r"\b(?:tried|attempted) (?:in vain|unsuccessfully|and failed|without success) to\b|\bunsuccessfully (?:tried|attempted) to\b"
               r"|\b(?:tried|attempted|try|tries|trying|attempt|attempts|attempting) to (\w+(?: \w+){0,5}?) (?:in vain|unsuccessfully|without success)\b",
               lambda m: f"failed to {m.group(1)}" if m.group(1) else "failed to", s)
    s = re.sub(r"\b(?:(?:my|our|your|its|their|the agent's|the player's|the|a|an) )?(ord_m?\d+ )?(?:failed|unsuccessful|fruitless|vain) (?:attempt|try|effort)s? (?:to|at) ",
               lambda m: f"the {m.group(1) or ''}time i failed to ", s)
    s = re.sub(r"\b(?:typed|entered|issued|gave|sent|tried|used) (?:a|an) (?:command|action|instruction) (?:that|which) (?:did not|didn't|failed to) work\b"
               r"|\b(?:had|have|got|get) (?:a|an) (?:command|action|instruction) (?:rejected|refused|fail)\b", "had a failed attempt", s)
    # looking closely at a thing is examining it
    s = re.sub(r"\b(?:(?:took|take|takes|taking|had|have|having|gave|give|giving) )?(?:an? |my |our |its |their |the |the [a-z]+'s |[a-z]+'s )?((?:ord_m?\d+ )?)(?:close|closer|careful|good|detailed|hard) looks? at\b",
               lambda m: f"the {m.group(1)}time i examined" if m.group(1) else "examined", s)
    s = re.sub(r"\b(checked|check|checks|checking) out (?=the |a |an |my |our |its |their |that |this )", r"examined ", s)
    s = re.sub(r"\b(?:look|looks|looked|looking) (?:closely|carefully|hard|intently|more closely) at\b", "examined", s)
    # what is left on the floor was dropped
    s = re.sub(r"\b(?:left|leave|leaves|leaving|put|set|placed|laid) ((?:\w+ ){1,5}?)(?:down )?on (?:the|to the) (?:floor|ground)\b", r"dropped \1", s)
    s = re.sub(r"\b(?:left|leave|leaves|leaving|put|set|placed|laid) on (?:the|to the) (?:floor|ground) ", r"dropped ", s)
    # An appositive occurrence: "after I slept, the next time I ate", "before step 32, the last time I drank"
    s = re.sub(r"\b(after|following|since|before|prior to) ([^,:;]+), (?:and )?(?:then )?the (ord_m?\d+) (time|occasion)(?: thereafter)? ([^,:;]+)",
               lambda m: f"the {m.group(3)} {m.group(4)} {m.group(5)} {m.group(1)} {m.group(2)}", s)
    # A window inside the occurrence: "the last time before step 380 that you looked at the drawing"
    s = re.sub(r"\bthe (ord_m?\d+ )?(time|occasion) ((?:between step \d+ and step \d+|(?:before|after|prior to|following|since|by|until|up to) step \d+|within_first \d+|within_last \d+)) (?:that|when|where|in which|on which) ([^,:;]+)",
               lambda m: f"the {m.group(1) or ''}{m.group(2)} {m.group(4)} {m.group(3)}", s)
    s = re.sub(rf"\bhow many {UNIT} (?:separated|separate|lay between|were between)\b", "how many steps between", s)
    s = re.sub(r"\bbetween (?:the |my |our |its )?(ord_m?\d+) and (?:the |my |our |its )?(ord_m?\d+) (time|occasion)s? (.+)$",
               r"between the \1 time \4 and the \2 time \4", s)
    s = re.sub(r"\b(?:for|on) (?:the|a|my|our|its) (ord_m?\d+) (?:time|occasion|instance)\b(?! (?:i|we|you|he|she|it|they|the|my|our|its|their|that|when)\b)", r"\1", s)
    # an ordinal said last is the occurrence's: "when did I pick up the knife the fourth time"
    s = re.sub(r"(\b(?!to\b|and\b|from\b|until\b|till\b|than\b|or\b)[a-z_]+) the (ord_m?\d+) (?:time|occasion|instance)\s*$", r"\1 \2", s)
    s = re.sub(r"\bthe next (?:command|action|move|input|instruction)(?: (?:typed|entered|issued|taken|given|sent|made|chosen|keyed in))? (?:immediately |right |just |directly )?(after|following)\b", r"the action right \1", s)
    s = re.sub(r"^(?:what|which) (?:exact )?(command|action|move|input|instruction) (?:was|got|were) (?:entered|typed|issued|input|sent|given|keyed in|submitted|taken|performed|executed|chosen)\b", r"what was the \1", s)
    s = re.sub(r"\b(ord_m?\d+) (?:earlier|prior|previous|preceding|later|subsequent) (time|occasion|instance)\b", r"\1 \2", s)
    s = re.sub(r"\bx ?, ?y\b", "xy", s)
    if re.search(r"\btrue or false\b", s):
        s = re.sub(r"\s*[(,:-]*\s*\btrue or false\b\s*[),:-]*\s*", " ", s).strip()
        s = re.sub(r"^(?:was|were|is|did|had)\b", "true_or_false was", s) if not s.startswith("true_or_false") else s
        if "true_or_false" not in s:
            s = "true_or_false " + s
    s = re.sub(r"^(?:what|which) (?:was|is) the (ord_m?\d+ |next )?(?:step|time|moment|point) (after|before|since|following) (.+?) (?:at which|in which|on which|where|when|that) (.+)$",
               lambda m: f"when was the {m.group(1) if m.group(1) and m.group(1) != 'next ' else 'ord_1 '}time {m.group(4)} {m.group(2)} {m.group(3)}", s)
    s = re.sub(r"\bthe (ord_m?\d+ )?(?:step|time|moment|point) (after|before|since|following) (.+?) (?:at which|in which|on which|where|when|that) (.+)$",
               lambda m: f"the {m.group(1) or 'ord_1 '}time {m.group(4)} {m.group(2)} {m.group(3)}", s)
    s = re.sub(r"[,;:]", " , ", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = s.replace(" , ", ", ").rstrip(",. ")
    return s.replace("which_first", "which came first")

#: the token an ordinal becomes: ``ord_3`` (third), ``ord_m1`` (last), ``ord_m2`` (second to last)
ORDINAL_TOKEN = re.compile(r"\bord_(m?)(\d+)\b")


_CAPITALIZED = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+(?:'s)?\b")


#: Everyday idioms of what agents do, each with the verb phrase it means (``\1``: the object the idiom
#: wraps, as said). A question keeps its own words where the memory holds a kind they say ("take damage"
#: stays when "take damage" is a kind).
_IDIOMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(pattern), meaning) for pattern, meaning in (
    (r"\b(?:get|gets|got|gotten|getting|came|come|comes|coming|went|go|goes|going|made it|make it|headed|head|heads|heading) back (?=to\b|into\b)", "returned "),
    (r"\b(?:get|gets|got|gotten|getting|came|come|comes|coming|went|go|goes|going|made it|make it|headed|head|heads|heading) back home\b", "returned home"),
    (r"\b(?:take|takes|took|taking|taken|suffer|suffers|suffered|suffering|sustain|sustains|sustained|sustaining) (?:some |any |a bit of )?(?:damage|a hit|hits|an injury|injuries)\b", "got hurt"),
    (r"\b(?:finish|finishes|finished|finishing) off\b", "killed"),
    (r"\b(?:turn|turns|turned|turning) ((?:\w+ ){0,4}?)down\b(?! (?:the|a|an|my|our|its)\b)", r"refused \1"),
    (r"\b(?:ran|run|runs|running) away\b", "fled"),
    (r"\b(?:get|gets|got|gotten|getting) rid of\b", "discarded"),
    (r"\b(?:use|uses|used|using) (?:a|the|one|its|my|our|their|his|her) key (?:on|to open)\b", "unlocked"),
    (r"\b(?:turn|turns|turned|turning) (?:a|the|one|its|my|our|their|his|her) key in\b", "unlocked"),
    (r"\b(?:have|has|had|having|take|takes|took|taking|taken) (?:a|one|another|its|my|our|their|his|her)(?: ord_m?\d+)? (?:bite|taste|nibble|mouthful) of\b", "tasted"),
    (r"\b(?:wrap|wraps|wrapped|wrapping) up\b", "finished"),
    (r"\b(?:double|doubles|doubled|doubling) back\b", "backtracked"),
    (r"\b((?:was|were|got|get|gets|getting|been|being) (?:(?:i|we|you|the agent|the player) )?(?:ever |first |last |again |finally )*)(?:killed|slain)\b(?! (?:a|an|the|some|any|by)\b)", r"\1died"),
    (r"\b(?:lose|loses|lost|losing) (?:a|one|another) life\b", "died"),
    (r"\b(?:come|came|comes|coming) back (?:to life )?after (?:dying|death|a death)\b", "respawned"),
    (r"\b(?:undo|undoes|undid|undone|undoing) (?:the |its |a )?lock (?:on|of)\b", "unlocked"),
    (r"\b(?:get|gets|got|gotten|getting) (?:my|our|your|its|his|her|their) hands on\b", "obtained"),
    (r"\b(?:take|takes|took|taken|taking) stock of (?:what (?:was|were|is) (?:carried|held)|(?:my|our|your|its|his|her|their) (?:belongings|things|stuff|inventory|pockets?))", "checked the inventory"),
    (r"\b(?:start|started|starts|starting|begin|began|begun|begins|beginning) (?:a |my |our |its |their |his |her |the )?(?:new|fresh|next) life\b", "respawned"),
    (r"\b(?:put|puts|putting) ((?:\w+ ){1,5}?)away\b", r"stowed \1"),
    (r"\b(?:cut|cuts|cutting) ((?:\w+ ){1,5}?)into (?:small )?(?:cubes|dice)\b", r"diced \1"),
    (r"\b(?:cut|cuts|cutting) ((?:\w+ ){1,5}?)into (?:thin )?slices\b", r"sliced \1"),
    (r"\b(?:cut|cuts|cutting) ((?:\w+ ){1,5}?)into (?:pieces|chunks|bits)\b", r"chopped \1"),
    (r"\b(?:brought|bring|brings|bringing|took|take|takes|taking|carried|carry|carries|carrying) ((?:\w+ ){1,5}?)to (?:its|their|the) (?:destination|target|goal)\b", r"delivered \1"),
    (r"\b(?:put|puts|putting|placed|placing|set|setting|stuck|sticking) ((?:\w+ ){1,3}?)in(?:to)? the (?:ground|soil|earth|dirt)\b", r"planted \1"),
))


def idioms(question: str, lex: Lexicon) -> str:
    """Everyday idioms read as the verbs they mean ("took damage" -> "got hurt", "ran away" -> "fled"),
    unless the memory holds a kind the idiom's own words say."""
    kinds = [words(k) for k in lex.kinds]

    def said_as_kind(text: str) -> bool:
        said = [morph_forms(w) for w in words(text)]
        verb = said[0] if said else frozenset()
        return any(all(any(w in f for f in said) for w in k) and (len(k) > 1 or k[0] in verb) for k in kinds if k)

    def unheld_reading(text: str, meant: str) -> bool:
        """What the idiom means names no stored kind, while a stored kind holds its last word ("began a
        fresh life" when the memory says `start new life`, not `respawn`)."""
        verb = morph_forms(words(meant)[0]) if words(meant) else frozenset()
        said = words(text)
        return not any(k[0] in verb for k in kinds if k) and bool(said) and any(len(k) > 1 and said[-1] in k for k in kinds)

    def reading(meaning: str) -> Callable[[re.Match[str]], str]:
        return lambda m: m.group(0) if said_as_kind(m.group(0)) or unheld_reading(m.group(0), m.expand(meaning)) else m.expand(meaning)

    for pattern, meaning in _IDIOMS:
        question = pattern.sub(reading(meaning), question)
    return question


def names_as_agent(question: str, lex: Lexicon) -> str:
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


_SUBJECT_POSITION = re.compile(r"\b(did|does|do|had|has|have|would|could|will|was|were|is|are|when|whenever|while|once|after|before|until|since|that|time|everything|anything|all|what|which|whether|if|where|and|then|following|ever|of|to|from|by) the ([a-z]+)(?='s\b|((?: ord_m?\d+| [a-z]+ly)? [a-z]+))")
#: auxiliaries a subject follows before its verb ("did the assistant open"): unlike a copula ("was the
#: command ...") the noun after them is the one acting
_AUX_BEFORE = frozenset({"did", "does", "do", "had", "has", "have", "would", "could", "will"})
_AGENTIVE = re.compile(r"(?:er|or|ist|ant|ian|eer)$")
_NOT_AGENTS = frozenset({"agent", "player", "time", "step", "first", "last", "next", "same", "game", "episode", "run", "moment",
                         "point", "end", "start", "beginning", "number", "count", "total", "one", "other", "order", "answer",
                         "water", "weather", "winter", "summer", "center", "corner", "letter", "paper", "user", "counter",
                         "meter", "timer", "color", "colour", "floor", "door", "indicator", "monitor", "error"})
_VERB_LIKE = re.compile(r"^(?:[a-z]+(?:ed|ing)|put|set|cut|hit|got|took|ate|drank|made|built|went|came|ran|fell|held|had|did|was|were|is)$")


def unheld_subjects(s: str, lex: Lexicon) -> str:
    """ "did the assistant open ...", "when the adventurer entered ...": a noun in the subject's place that the
    memory does not hold is the agent (after an auxiliary; an agent noun before a verb after a copula or a
    connective)."""
    held = {f for name in (*lex.names, *lex.kinds) for w in words(name) for f in morph_forms(w)}

    def replace(m: re.Match[str]) -> str:
        noun = m.group(2)
        if noun in held or noun in _NOT_AGENTS or noun in FUNCTION_WORDS:
            return m.group(0)
        following = (m.group(3) or "").split()
        verb_next = bool(following) and bool(_VERB_LIKE.match(following[-1]))
        if m.group(1) in _AUX_BEFORE or (_AGENTIVE.search(noun) and (verb_next or m.group(0).endswith("'s"))):
            return f"{m.group(1)} the agent"
        return m.group(0)

    return _SUBJECT_POSITION.sub(replace, s)


_QUESTION_START = re.compile(r"^(?:what|where|when|which|who|how|did|was|were|had|have|has|is|are|do|does|count|list|at which|in which|on which|at what|in what|on what|tell me)\b")
_CLAUSE_START = re.compile(rf"^(?:when|whenever|once|as soon as|after|before|prior to|following|right|just|immediately|directly|since|until|till|up to|up until|as of|through|no later than|earlier than|later than|by|between|from|within_first|within_last|in|on|at|during|the|my|our|its|their|(?:\d+|a) {UNIT}|ord_m?\d+)\b")


def main_clause_first(s: str) -> str:
    """ "After I slept, what did I do" -> "what did I do after I slept": the main clause first, so the
    connectives read the same in either order."""
    if ", " not in s:
        return s
    head, _, last = s.rpartition(", ")
    asks = re.match(r"^(?:what|where|when|which|how|who)\s+(?:did|was|were|is|are|had|have|has|do|does|many|much|long)\b|^(?:in|at|on) (?:which|what)\b", head)
    if _QUESTION_START.match(last) and _CLAUSE_START.match(head) and not asks:
        return f"{last} {head}"
    return s


_VALUE_VERB = (r"\b(?:was|were|is|are|be|been|read|reads|showed|shows|said|says|became|become|becomes|turned|"
               r"changed|switched|set|equal(?:led|ed|s)?|matched|=)")
_COPULA = r"\b(?:was|were|is|are|been|became|become|becomes|read|reads|showed|shows|said|says|equalled|equaled|equals)"
_VALUE_ADVERB = r"(?:first|last|still|again|exactly|finally|once more|for the first time|for the last time|to|into|as|equal to|set to)"
VALUE_REF = re.compile(r"\bvalueref(\d+)\b")


def mark_state_values(question: str, lex: Lexicon) -> str:
    """A stored text value after a copula ("when my goal was 'find water'") becomes one token,
    ``valueref<i>`` (its index in the sorted (state, value) pairs), so that no later rewriting of numbers,
    ordinals or names reads inside it."""
    pairs = sorted(lex.state_values)
    if not pairs:
        return question
    text = question
    for value in sorted({v for _, v in pairs}, key=len, reverse=True):
        if value.lower() not in text.lower():
            continue  # every reading below says the value itself
        quoted = re.compile(rf"({_VALUE_VERB}\s+(?:[\w']+\s+){{0,4}}?(?:{_VALUE_ADVERB}\s+)*)[\"'\u201c\u2018]{re.escape(value)}[\"'\u201d\u2019](?!\w)", re.IGNORECASE)
        bare = re.compile(rf"({_COPULA}\s+(?:{_VALUE_ADVERB}\s+)*){re.escape(value)}(?!\w)", re.IGNORECASE)
        m = quoted.search(text) or bare.search(text)
        if not m:
            # "when it went into questing mode": the value said before its state's name
            for i, (name, v) in enumerate(pairs):
                before_name = re.search(rf"\b(?:went|go|goes|going|gone|got|get|gets|switched|switch|switches|turned|turn|turns|entered|enter|enters|came|come|slipped|moved|dropped)"
                                        rf"(?:\s+(?:back\s+)?(?:in|into|to))?\s+(?:the\s+)?{re.escape(value)}\s+{re.escape(' '.join(words(name)))}(?!\w)", text, re.IGNORECASE) if v == value else None
                if before_name:
                    text = text[: before_name.start()] + f"became valueref{i}" + text[before_name.end():]
                    break
            continue
        owners = [i for i, (_, v) in enumerate(pairs) if v == value]
        if len(owners) > 1:
            named = lex.name(words(text[: m.start()])[-6:], {pairs[i][0] for i in owners})
            owners = [i for i in owners if pairs[i][0] == named] or owners
        text = text[: m.start()] + m.group(1) + f"valueref{owners[0]}" + text[m.end():]
    return text
