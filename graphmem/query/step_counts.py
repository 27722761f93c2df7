"""Questions that count steps, not events: what a step did, where it was, what held after it.

"On how many steps did I choose noop", "how many steps did I spend in the pond", "for how many steps was
my health at or below 3", "how many steps did game 4 take": each counts the steps of a window that match a
test (:class:`~graphmem.query.algebra.CountSteps`). The test is read against what the memory holds, never
an environment's words: an action is one the agent took (said as written, quoted or not, or after "the
action"), a region one it stood in, a condition one on its own items or state values.

>>> from graphmem.query.lexicon import Lexicon
>>> lex = Lexicon(regions=frozenset({"home meadow"}), states=frozenset({"health"}), actions=frozenset({"move_left"}))
>>> step_test(" did we choose move_left", lex), step_test(" did you spend in the home meadow", lex)
(StepIs(field='action', value='move_left'), StepIs(field='region', value='home meadow'))
>>> step_test(" had my health at or above 9", lex)
Condition(source='state', name='health', cmp='>=', value=9)
>>> step_test(" did it take to get there", lex) is None
True
"""

from __future__ import annotations

import re

from graphmem.query.algebra import Condition, StepIs
from graphmem.query.conditions import condition_of
from graphmem.query.lexicon import Lexicon
from graphmem.query.normalize import SUBJECT, UNIT

#: Where a question asks for a number of steps (the head that says which follows it).
STEP_COUNT_CUE = (
    rf"\b(?:(?:on|for|during|in|at|over|across) )?how many {UNIT}\b"
    r"|\bhow many times\b(?= (?:was|were|did|has|had|is) (?:the|that|this) (?:action|command)\b)"
    rf"|\bhow (?:long|much time)\b(?= (?:did|had|has|have|do|does) {SUBJECT} (?:spen[dt]|stay|stayed|remain|remained|linger|lingered)\b)"
)
#: "how many steps into the run", "how many steps after X", "how many steps passed": a step or a distance.
NOT_A_STEP_COUNT = re.compile(
    rf"\bhow many {UNIT} (?:into|after|before|later|earlier|apart|between|from|passed|elapsed|went by|separate|lay|lie)\b"
    r"|\b(?:did it|does it|would it) take\b"
)

_AUX = r"(?:did|do|does|was|were|had|has|have|is|are|am)"
#: Verbs that say an action was chosen ("did I choose noop", "was the action noop taken").
_CHOSE = (r"(?:choose|chose|chosen|pick|picked|select|selected|take|took|taken|use|used|perform|performed|issue|issued|"
          r"execute|executed|press|pressed|enter|entered|type|typed|send|sent|input|go with|went with|opt for|opted for)")
_ACTION_NOUN = re.compile(rf"\b(?:the |that |this )?(?:action|command) (.+?)(?: (?:being |get |got |gets )?{_CHOSE}| again)?$")
#: Being somewhere: "did I spend in", "was I located in", "were we standing at".
_BEING_IN = re.compile(
    rf"^(?:{_AUX} )?(?:{SUBJECT} )?(?:(?:spend|spent|stay|stayed|remain|remained|be|been|stand|stood|wait|waited|linger|lingered|sit|sat) )?"
    r"(?:(?:located|standing|positioned|sitting|staying|waiting|found|present) )?(?:in|at|inside|within|on|around) (.+)$"
)
#: Words a region may be said with that are not its name ("the pond area").
_PLACE_NOUNS = frozenset({"the", "a", "an", "my", "our", "its", "area", "region", "zone", "room", "place", "biome", "part"})
#: "did game 4 take", "did level 2 last": the span of a state's value.
_SPAN_TOOK = re.compile(r"^did (?:the |my |our |its )?(.+?) (?:take|last|go on|run|span)$")
_STATE_HEAD = re.compile(rf"^(?:was|were|had|has|have|is|are|did {SUBJECT} (?:have|hold|carry|own|keep))\b")


def _plain(text: str) -> str:
    """Words only, lower case, no articles: "Move_Left" and "move left" are one action."""
    return " ".join(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in ("the", "a", "an"))


def action_named(text: str, lex: Lexicon) -> str | None:
    """The stored action the text says in full ("move left" for ``move_left``), else None."""
    said = _plain(text)
    if not said:
        return None
    return next((a for a in sorted(lex.actions) if _plain(a) == said), None)


def region_named(text: str, lex: Lexicon) -> str | None:
    """The stored region the text names and nothing else ("the home meadow area"), else None."""
    region = lex.name(re.findall(r"[a-z0-9']+", text.lower()), lex.regions, fuzzy=False)
    if region is None:
        return None
    said = set(re.findall(r"[a-z0-9']+", text.lower()))
    return region if said <= set(_plain(region).split()) | _PLACE_NOUNS else None


def step_test(head: str, lex: Lexicon) -> StepIs | Condition | None:
    """The test a step-count question's head says: an action, a region or a condition, else None."""
    h = re.sub(r"\s+", " ", head).strip(" ,?")
    noun = _ACTION_NOUN.search(h)
    bare = re.sub(rf"^(?:{_AUX} )?(?:{SUBJECT} )?", "", h)
    chosen = re.sub(rf"^{_CHOSE} (?:the (?:action|command) )?", "", bare)
    for said in ([noun.group(1)] if noun else []) + [chosen, bare]:
        action = action_named(said, lex)
        if action is not None:
            return StepIs("action", action)
    being = _BEING_IN.match(h)
    region = region_named(being.group(1), lex) if being else None
    if region is not None:
        return StepIs("region", region)
    took = _SPAN_TOOK.match(h)
    if took:
        return condition_of(f"was i in {took.group(1)}", lex)
    if _STATE_HEAD.match(h):
        return condition_of(h, lex)
    return None
