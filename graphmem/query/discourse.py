"""Questions said in two parts, made one: a description first, then the question that refers back to it.

People often set the scene and then ask: "The very last time it took damage -- which region was that
in?", "Step 64. Coordinates?", "I'm trying to remember whether I spotted a skeleton. Did that happen?",
"Somewhere between step 401 and 601, you sampled the banana; at which step did that happen first?",
"Looking back from step 512, which room was I in the last time I burned something?". The grammar reads
one clause order, so these are rewritten into the single question they mean:

>>> one_question("The very last time it took damage -- which region was that in?")
'which region was in The very last time it took damage'
>>> one_question("Step 64. Coordinates?")
'Coordinates at Step 64'
>>> one_question("I'm trying to remember whether I spotted a skeleton. Did that happen?")
'did I spotted a skeleton'

Closed-class English only (pronouns that point back, frames such as "looking back from", "somewhere
between", confirmations such as "did that happen"); nothing here knows what the memory holds.
"""

from __future__ import annotations

import re

from graphmem.query.normalize import OF_THE_RUN, SUBJECT

#: a subject, or a noun before a past-tense verb ("the cook oven-roasted")
_SUBJECT = rf"(?:{SUBJECT}|the [a-z]+(?= [a-z-]+ed\b))"
#: where one part ends and the next begins: a sentence end, a dash, a semicolon or a colon
_PARTS = re.compile(r"\s*(?:(?<!\bno)(?<!\bnr)(?<!\bvs)(?<!\be\.g)(?<!\bi\.e)(?<!\bapprox)[.?!]+\s+|\s--+\s*|\s*;\s+|:\s+)(?=\S)", re.IGNORECASE)
#: a last part that only says how to answer: "Name the sector.", "Give the step.", "Answer in steps."
_HOW_TO_ANSWER = re.compile(r"^(?:please )?(?:name|give|state|say|answer|respond|reply|use|report|write|just)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^(?:what|what's|where|when|which|who|how|did|do|does|was|were|is|are|had|has|have|at which|in which|on which|at what|in what|on what|give|tell|list|name|say|report)\b", re.IGNORECASE)
#: "did that happen", "was that so": the question is whether the description is true
_CONFIRM = re.compile(r"^(?:did|has|had|does|do) (?:that|this|it|so)(?: ever| really| actually| in fact)? (?:happen|occur|take place|come about)(?:ed)?\b(.*)$"
                      r"|^(?:is|was) (?:that|this|it) (?:so|true|right|correct|the case)\b(.*)$", re.IGNORECASE)
_WONDER = re.compile(r"^(?:(?:i'm|i am|we're|we are) (?:trying to (?:remember|recall|figure out|work out)|not sure|wondering|curious)|i (?:wonder|forget|can't remember|cannot remember|don't remember)|i (?:think|believe|recall|suspect))(?: about)? (?:whether|if|that)?\s*", re.IGNORECASE)
#: words that point back at the first part
_POINTER = re.compile(r"\b(?:(?:at|on|in|during) )?(?:that|this) (?:step|moment|time|point|occasion|instance)\b|\bthen\b"
                      r"|(?<!\bis )(?<!\bwas )(?<!\bwere )(?<!\bare )\bthere\b(?! (?:was|were|is|are|any)\b)"
                      r"|\bthat\b(?=\s*(?:$|[,?.]|in\b|on\b|at\b|was\b|were\b|happen))", re.IGNORECASE)
#: "done this", "do the following": what the next part says
_THIS = re.compile(r"\b(?:done|do|did|does) (?:this|the following|that)$", re.IGNORECASE)
#: "the first such occasion": the occasion the scene describes
_SUCH = re.compile(r"\b(?:the )?((?:first|last|final|second|third|latest|earliest|\d+(?:st|nd|rd|th)) )?such (?:occasion|time|instance|moment|case|event)\b", re.IGNORECASE)
_THAT_EVENT = re.compile(r"\b(?:did|does|do|had|has) (?:that|it|this) (?:happen|occur|take place)\b", re.IGNORECASE)
#: frames before the part that names a step: "think back to", "consider", "take"
_RECALL_FRAME = re.compile(r"^(?:(?:now )?(?:think|thinking|go|going|look|looking|cast your mind|jump|skip) back to|consider|considering|take|recall|remember|picture|find|locate|identify|about|regarding|as for|for"
                           r"|(?:i'm|i am|we're|we are) (?:trying to )?(?:reconstruct|reconstructing|look(?:ing)? at|check(?:ing)?|revisit(?:ing)?))\s+", re.IGNORECASE)
#: "step 167 of the ranch run": the run is the one the memory holds
_OF_THE_RUN = re.compile(rf"\s+{OF_THE_RUN}$", re.IGNORECASE)
#: a part that only bounds when: "after step 68", "in the first 782 steps", "looking only after I slept", "ever"
_FRAME = re.compile(r"^(?:(?:looking|counting|searching|considering|focusing|checking|look|count|search|consider|focus|check)(?: only)?(?: at| on| over| in)?(?: only)? )?"
                    r"((?:in|within|during|over|across|between|after|before|since|following|prior to|up to|up until|until|by|from|as of|ever|at any point|at any time)\b.*)$", re.IGNORECASE)
#: "look only after I slept", "counting only while in game 2": a frame that says it is one ("there" in the
#: question then points at its steps, not at a step)
_ONLY_FRAME = re.compile(r"^(?:(?:look|looking|count|counting|search|searching|consider|considering|focus|focusing|check|checking)(?: only)?(?: at| on| over| in)?(?: only)?|only (?:look|count|consider|search)(?:ing)?(?: at| over| in)?)(?: (?:the )?steps)?\s+"
                         r"((?:in|within|during|over|across|between|after|before|since|following|prior to|up to|up until|until|by|from|as of|while|whilst)\b.*)$", re.IGNORECASE)
#: "following X, I next did Y": the next Y after X; "leading up to X, I most recently did Y": the last Y before X
_NEXT_AFTER = re.compile(rf"^(?:following|after|since|once) (.+),\s*({_SUBJECT}|the [a-z]+) (?:next|then next|then|subsequently|afterwards) (.+)$", re.IGNORECASE)
_LAST_BEFORE = re.compile(rf"^(?:leading up to|in the run-up to|before|prior to|ahead of|preceding|just before) (.+),\s*({_SUBJECT}|the [a-z]+) (?:most recently|last|previously|had last|had most recently|had previously) (.+)$", re.IGNORECASE)
#: "the most recent time before X that I did Y": the last time I did Y before X
_TIME_THAT = re.compile(rf"\b(the (?:very )?(?:first|last|latest|final|next|previous|most recent|second|third|fourth|fifth|\d+(?:st|nd|rd|th)|second[- ]to[- ]last) (?:time|occasion|step|moment|instance)) "
                        rf"((?:after|before|prior to|following|since|preceding) .+?) that ({_SUBJECT} .+?)(?=\s*[,?.;:!]|\s+--|$)", re.IGNORECASE)
#: frames that say nothing the question does not: "measure the gap", "thinking of the first time each happened"
_IDLE = re.compile(r"^(?:(?:measure|work out|figure out|compute|calculate|find|count) (?:the )?(?:gap|distance|difference|interval|time|steps?)"
                   r"|(?:thinking of|considering|counting|taking|using|going by|judging by|comparing) (?:only )?(?:the|their|each one's|each's) first (?:time|occurrence|occasion)s?(?: (?:each|they|it|both) happened)?)$", re.IGNORECASE)
#: "going back from X, Q": Q before X; "going forward from X, Q": Q after X
_FROM_FRAME = re.compile(r"^(?:looking|going|counting|working|searching|moving|stepping|reading) (back|backward|backwards|forward|forwards|ahead|on) from (.+?),\s*(.+)$", re.IGNORECASE)
#: "how long until the next chance to X -- give the step": the step of the next X
_UNTIL_NEXT = re.compile(r"\bhow (?:long|many steps|much time)(?: (?:was it|did it take|passed))? (?:until|till|before)(?: (?:the next (?:chance|time|occasion|opportunity) to|(?:i|we|you|it|the agent) next))?\b", re.IGNORECASE)
_ASKS_STEP = re.compile(r"^(?:(?:give|tell me|say|report|name|state)(?: me)? )?(?:the |its |which |what )?(?:step|step number|step index|index)$", re.IGNORECASE)
#: a window said as a scene: "somewhere between step 4 and 9, ...", "at some point after step 30, ..."
_SCENE_WINDOW = re.compile(r"^(?:somewhere|sometime|at some (?:point|stage)|at one point)\s+((?:between|after|before|since|following|prior to|in|within|during)\b.+?),\s*(.+)$", re.IGNORECASE)
#: "after I first spotted a cow, I dozed off": the clause after a leading window
_LEADING_WINDOW = re.compile(rf"^((?:after|before|since|following|prior to|between|within|in the first|in the last)\b.+?),\s*({_SUBJECT}\b.+)$", re.IGNORECASE)
#: "prior to step 1052, consider the last time I ...": a window, then the frame that names the step
_WINDOW_THEN_FRAME = re.compile(r"^((?:after|before|since|following|prior to|between|within|in the first|in the last|from|once|up to|until|by)\b.+?),\s*"
                                r"((?:(?:now )?(?:think|go|look|cast your mind) back to|consider|take|recall|picture|find|locate|identify)\s+.+)$", re.IGNORECASE)
#: "once X had passed", "once X was over": after X
_ONCE_PAST = re.compile(r"^once (.+?) (?:had|has) (?:passed|happened|gone by|come and gone|occurred|been done|finished|taken place)$"
                        r"|^once (.+?) (?:was|were|is) (?:over|done|past|behind (?:me|us|you|it|him|her|them|the agent))$", re.IGNORECASE)
_AT_SOME_POINT = re.compile(r"\s*,?\s*\b(?:at some (?:point|stage)|at one point|once|sometime|somewhere along the way)\s*$", re.IGNORECASE)
_LEAD_IN = re.compile(r"^(?:quick (?:one|question)|one more|another one|next one|next|okay|ok|so|now|alright|right|hmm|question|here's one|here is one"
                      r"|(?:of|between) (?:these|the|those) (?:two|2)(?: events| things| actions| happenings)?)\s*[,:.!-]+\s*", re.IGNORECASE)
#: "which of the two happened sooner": the order of the two things the scene said
_OF_THE_TWO = re.compile(r"^(?:which|what) (?:of the two|of them|of these|of those|one)(?: things| events)?(?: (?:happened|came|occurred|was|took place))? (?:sooner|first|earlier)\b", re.IGNORECASE)
#: "how many steps later did it get up": a distance from the scene before it
_LATER = re.compile(r"^how (?:many steps|many moves|long|much time) (later|earlier) (did|was|were|had|does|do)\s+(.+)$", re.IGNORECASE)
_STEP_ONLY = re.compile(r"^(?:the )?step\s*#?\s*\d+$|^(?:\w+ )?(?:steps?|moves?) (?:after|before|later than|earlier than) (?:the )?step\s*#?\s*\d+$", re.IGNORECASE)


def _confirmed(statement: str, rest: str) -> str:
    """ "I'm trying to remember whether I spotted a skeleton" + "did that happen": "did I spotted a skeleton"."""
    statement = _WONDER.sub("", statement.strip()).strip(" ,.")
    statement = _AT_SOME_POINT.sub("", statement)
    if re.match(rf"^{_SUBJECT}\b", statement, re.IGNORECASE):
        statement = f"did {statement}"
    return f"{statement} {rest.strip(' ?.')}".strip()


def _pointed(ask: str, scene: str) -> str | None:
    """The question with its pointer back ("that", "then", "there") replaced by the scene it points at."""
    window = ""
    m = _SCENE_WINDOW.match(scene) or _LEADING_WINDOW.match(scene) or _WINDOW_THEN_FRAME.match(scene)
    back = _FROM_FRAME.match(scene)
    if m:
        window, scene = m.group(1), m.group(2)
        once = _ONCE_PAST.match(window)
        if once:
            window = f"after {once.group(1) or once.group(2)}"
    elif back:
        # "looking back from step 1003, find the most recent earlier time I ...": before step 1003
        window = f"{'before' if back.group(1).lower().startswith('back') else 'after'} {back.group(2)}"
        scene = back.group(3)
    scene = _RECALL_FRAME.sub("", scene.strip(" ,.")).strip()
    scene = _OF_THE_RUN.sub("", _AT_SOME_POINT.sub("", scene)).strip(" ,")
    if not scene:
        return None
    if re.match(rf"^{_SUBJECT}\b", scene, re.IGNORECASE) and _SUCH.search(ask):
        # "you dozed off at some point; the x,y spot of the first such occasion": the occasion is the scene
        ask = _SUCH.sub(lambda m: f"the {m.group(1) or ''}time {scene}", ask, count=1)
        return f"{ask} {window}".strip()
    if re.match(rf"^{_SUBJECT}\b", scene, re.IGNORECASE) and _THAT_EVENT.search(ask):
        # "you sampled the banana" + "at which step did that happen first": the event is the scene
        ask = _THAT_EVENT.sub(lambda m: f"{m.group(0).split()[0]} {scene}", ask, count=1)
        return f"{ask} {window}".strip()
    if re.match(rf"^{_SUBJECT}\b", scene, re.IGNORECASE) and re.search(r"\b(?:after|before|since|following|prior to) (?:that|this|it)\b", ask, re.IGNORECASE):
        ask = re.sub(r"\b(after|before|since|following|prior to) (?:that|this|it)\b", lambda m: f"{m.group(1)} {scene}", ask, count=1, flags=re.IGNORECASE)
        return f"{ask} {window}".strip()
    if re.match(rf"^{_SUBJECT}\b", scene, re.IGNORECASE):
        return None  # a statement the question does not point at as a step
    at = f"at {scene}" if _STEP_ONLY.match(scene) and not re.match(r"^\w+ (?:steps?|moves?)\b", scene, re.IGNORECASE) else scene
    if _POINTER.search(ask):
        ask = _POINTER.sub(" ", ask, count=1)
    return re.sub(r"\s+", " ", f"{ask.strip(' ?.,')} {at} {window}").strip()


def one_question(question: str) -> str:
    """``question`` as one clause when it is said in two parts (see the module docstring); else as given."""
    text = _TIME_THAT.sub(lambda m: f"{m.group(1)} {m.group(3)} {m.group(2)}", _LEAD_IN.sub("", question.strip()))
    parts = [p.strip(" ?!.") for p in _PARTS.split(text.strip(" ?!.")) if p.strip(" ?!.")]
    if len(parts) == 2 and _ASKS_STEP.match(parts[1]) and _UNTIL_NEXT.search(parts[0]):
        parts = [_UNTIL_NEXT.sub("when did i next", parts[0], count=1)]
    if not parts:
        return text
    while (len(parts) > 1 and _HOW_TO_ANSWER.match(parts[-1]) and not _HOW_TO_ANSWER.match(parts[-2])
           and any(_QUESTION.match(clause) for part in parts[:-1] for clause in part.split(", ")) and not _UNTIL_NEXT.search(parts[-2])):
        parts.pop()  # "... where was I? Name the sector."
    if len(parts) == 1:
        m = _FROM_FRAME.match(parts[0])
        if m:
            back = m.group(1).lower().startswith("back")
            return f"{m.group(3)} {'before' if back else 'after'} {m.group(2)}"
        return parts[0] if parts[0] != text.strip(" ?!.") else text
    *scenes, ask = parts
    scene = ", ".join(scenes)
    ordered = _NEXT_AFTER.match(scene) or _LAST_BEFORE.match(scene)
    if ordered:
        after = ordered.re is _NEXT_AFTER
        scene = f"the {'next' if after else 'last'} time {ordered.group(2)} {ordered.group(3)} {'after' if after else 'before'} {ordered.group(1)}"
    only = _ONLY_FRAME.match(scene)
    if only and re.search(r"\bthere\b", ask, re.IGNORECASE):
        scoped = re.sub(r"[ ,]*\bthere\b", "", ask, count=1, flags=re.IGNORECASE).strip(" ,")
        lead = re.match(r"^((?:at|on|during|for|in|by) .+?),\s*(.+)$", scoped, re.IGNORECASE)
        if lead and _QUESTION.match(lead.group(2)):
            scoped = f"{lead.group(2)} {lead.group(1)}"  # "at the last X there, what ...": the frame bounds X
        return re.sub(r"\s+", " ", f"{scoped} {only.group(1)}")
    bare = _RECALL_FRAME.sub("", scene).strip()
    if bare != scene and _STEP_ONLY.match(bare):
        scene = bare  # "Picture step 637: what was ahead?"
    confirm = _CONFIRM.match(ask)
    if confirm:
        return _confirmed(scene, confirm.group(1) or confirm.group(2) or "")
    if _IDLE.match(scene):
        return ask
    both = re.match(r"^(.+?),? and (?:(?:it|he|she|they|i|we|you|the agent) )?(?:also |then |later |too )?(.+)$", scene)
    if both and _OF_THE_TWO.match(ask) and not _QUESTION.match(scene):
        # "I first saw a skeleton, and I also finished the hut. Which of the two happened sooner?"
        return f"which came first, {both.group(1)} or {both.group(2)}"
    later = _LATER.match(ask)
    if later and not _QUESTION.match(scene):
        # "I dozed off for the first time; how many steps later did I get up?"
        return f"how many steps {'after' if later.group(1).lower() == 'later' else 'before'} {scene} {later.group(2)} {later.group(3)}"
    if not _QUESTION.match(ask) and _THIS.search(scene):
        return _THIS.sub(ask, scene, count=1)  # "had I already done this: put down the potato"
    frame = _FRAME.match(scene)
    if frame and _QUESTION.match(ask) and not _POINTER.search(ask) and not _SUCH.search(ask):
        return f"{ask} {frame.group(1)}"
    if _QUESTION.match(scene) and not _QUESTION.match(ask):
        if len(parts) == 2 and re.search(r"\b(?:that|then|there)\b", scene, re.IGNORECASE):
            joined = _pointed(scene, ask)  # "which step was that? the fourth time I ate"
            if joined is not None:
                return joined
        return f"{scene}, {ask}"
    joined = _pointed(ask, scene) if (_POINTER.search(ask) or _SUCH.search(ask) or not _QUESTION.match(ask) or _STEP_ONLY.match(scene)) else None
    if joined is not None:
        return joined
    if _QUESTION.match(ask):
        return f"{scene}, {ask}"  # a frame first: the comma rules put the main clause first
    return text
