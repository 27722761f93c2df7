"""Membox's own LLM stages, behind the loom's two seams: ``LLMDecider`` asks a ``chat`` callable whether
each turn continues the topic, ``LLMBoxExtractor`` asks it for a sealed box's keywords, topic and events.
Both send Membox's prompts unchanged and fall back to the local stages on answers they cannot read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from graphmem.write.chat import Chat, parse_json_object
from graphmem.write.loom.config import DEFAULT_LOOM_CONFIG, LoomConfig
from graphmem.write.loom.decide import TopicDecider
from graphmem.write.loom.extract import BoxExtractor
from graphmem.write.loom.records import Decision, LoomTurn, SealedBox

__all__ = [
    "PROMPT_DIALOG_EXTRACT",
    "PROMPT_MSG_CONTINUATION",
    "LLMBoxExtractor",
    "LLMDecider",
    "parse_continuation",
]

logger = logging.getLogger(__name__)


PROMPT_MSG_CONTINUATION = (
    "Please determine whether the current message continues with the main topic of the previous messages. "
    "Only answer Yes/No/Partially Shifted.  \n"
    "previous messages: {ref}\n"
    "current message: {curr}\n"
    "Answer:"
)
"""Membox's continuation prompt (membox.py, PROMPT_MSG_CONTINUATION), unchanged."""


def parse_continuation(answer: str) -> Decision | None:
    """Map an LLM answer to a decision; ``None`` when it says none of Yes / No / Partially Shifted.

    "Partial" is checked first because "Partially shifted, yes" must not read as a plain yes.

    >>> parse_continuation("Partially Shifted")
    <Decision.PARTIAL: 'partial'>
    >>> parse_continuation("Yes.")
    <Decision.CONTINUE: 'continue'>
    """
    lowered = answer.strip().lower()
    if "partial" in lowered or "shift" in lowered:
        return Decision.PARTIAL
    if re.search(r"\byes\b", lowered):
        return Decision.CONTINUE
    if re.search(r"\bno\b", lowered):
        return Decision.BREAK
    return None


class LLMDecider:
    """Membox's LLM topic decider: one ``chat`` call per turn with the previous messages
    (``config.recent_turns``, two by default).

    An answer that is none of Yes / No / Partially Shifted goes to ``fallback`` when given, else counts
    as a break (the released code seals on anything but "yes").

    >>> box = [LoomTurn("1", "A", "I adopted a dog.", [1, 0], "s1"), LoomTurn("2", "B", "Aww!", [1, 0], "s1")]
    >>> LLMDecider(chat=lambda prompt: "Yes").decide(box, LoomTurn("3", "A", "His name is Rex.", [1, 0], "s1"))
    <Decision.CONTINUE: 'continue'>
    """

    def __init__(
        self, chat: Chat, fallback: TopicDecider | None = None, config: LoomConfig = DEFAULT_LOOM_CONFIG
    ) -> None:
        self.chat = chat
        self.fallback = fallback
        self.previous = max(1, config.recent_turns)

    def prompt(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> str:
        """The prompt sent for ``turn`` (Membox's wording, "speaker: text" lines).

        >>> box = [LoomTurn("1", "A", "Coffee?", [1, 0], "s1")]
        >>> print(LLMDecider(chat=print).prompt(box, LoomTurn("2", "B", "Sure!", [1, 0], "s1")).splitlines()[-2])
        current message: B: Sure!
        """
        ref = "\n".join(f"{t.speaker}: {t.text}" for t in open_box[-self.previous :])
        return PROMPT_MSG_CONTINUATION.format(ref=ref, curr=f"{turn.speaker}: {turn.text}")

    def decide(self, open_box: Sequence[LoomTurn], turn: LoomTurn) -> Decision:
        """Ask the LLM; parse Yes / No / Partially Shifted.

        >>> box = [LoomTurn("1", "A", "I adopted a dog.", [1, 0], "s1"), LoomTurn("2", "B", "Aww!", [1, 0], "s1")]
        >>> LLMDecider(lambda p: "Partially Shifted").decide(box, LoomTurn("3", "A", "Also, work...", [1, 0], "s1"))
        <Decision.PARTIAL: 'partial'>
        """
        answer = self.chat(self.prompt(open_box, turn))
        decision = parse_continuation(answer)
        if decision is not None:
            return decision
        logger.warning("topic decider: unreadable LLM answer %r for turn %s", answer[:80], turn.id)
        if self.fallback is not None:
            return self.fallback.decide(open_box, turn)
        return Decision.BREAK


PROMPT_DIALOG_EXTRACT = """Generate a structured analysis of the provided dialog by performing the following tasks:

1. **Identifying salient keywords:** Extract 3-8 most salient nouns, named entities, and key terminology that represent core concepts. Avoid common words (e.g., "good", "see") and prioritize specificity.

2. **Determining the core topic:** In one clear phrase, state the primary subject or objective of the discussion based on the actual content.

3. **Extracting explicit event and plan mentions:** Identify and list only the **events, factual developments, or specific future plans** that are **explicitly mentioned** in the dialog. Follow these strict rules:
    3.1. **Focus on Verbatim or Near-Verbatim Content:** Each extracted item must be directly grounded in the dialog text. Do not infer, summarize, or combine information to create new "events."
    3.2. **Distinguish Event Types:**
        - **Past/Completed Events:** Actions or occurrences that are stated as having happened (e.g., "I went to...", "We completed the project").
        - **Established Facts/Changes:** Concrete facts or changes presented as already true (e.g., "I am now the team lead", "The system is down").
        - **Explicit Future Plans:** Specific plans for the future mentioned by the speakers (e.g., "We will meet on Friday", "I'm planning to visit Paris").
    3.3. **Exclude Non-Events:** Do NOT include:
        - General states of being (e.g., "I'm swamped", "I'm happy").
        - Questions, greetings, or expressions of intent without a plan (e.g., "We should talk sometime").
        - Vague aspirations or possibilities.
    3.4. **Framing:** Phrase each extracted item as a concise, standalone clause that captures the core of what was mentioned.

**Output Format:** Provide the analysis as a valid JSON object with the following exact keys:
{{
"keywords": ["keyword1", "keyword2", ...],
"topic": "clear topic phrase",
"explicit_mentions": [
    "A mentioned past event or established fact",
    "A mentioned specific future plan",
    // ... more as needed
]
}}
Content to analyze: {text}"""
"""Membox's extraction prompt (membox.py, PROMPT_DIALOG_EXTRACT), unchanged."""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()]


class LLMBoxExtractor(BoxExtractor):
    """Membox's extraction at sealing through ``chat``; each missing or unreadable field falls back to
    the local extraction, so a sealed box always has a topic and keywords.

    >>> chat = lambda p: '{"keywords": ["pottery"], "topic": "pottery class", "explicit_mentions": []}'
    >>> turns = [LoomTurn("1", "A", "I took a pottery class.", [1, 0], "s1")]
    >>> LLMBoxExtractor(chat).extract("s1#b0", "s1", turns).topic
    'pottery class'
    """

    def __init__(self, chat: Chat, nlp: Any = None, config: LoomConfig = DEFAULT_LOOM_CONFIG) -> None:
        super().__init__(nlp, config)
        self.chat = chat

    def prompt(self, turns: Sequence[LoomTurn]) -> str:
        """Membox's extraction prompt over "speaker: text" lines.

        >>> LLMBoxExtractor(chat=print).prompt([LoomTurn("1", "A", "Hi", [1, 0], "s1")]).splitlines()[-1]
        'Content to analyze: A: Hi'
        """
        return PROMPT_DIALOG_EXTRACT.format(text="\n".join(f"{t.speaker}: {t.text}" for t in turns))

    def extract(self, box_id: str, session_id: str, turns: Sequence[LoomTurn]) -> SealedBox:
        """Ask the LLM for keywords, topic and explicit mentions; fill gaps locally.

        >>> turns = [LoomTurn("1", "A", "I took a pottery class.", [1, 0], "s1")]
        >>> LLMBoxExtractor(lambda p: "not json").extract("s1#b0", "s1", turns).events  # local fallback
        ('took a pottery class',)
        """
        data = parse_json_object(self.chat(self.prompt(turns))) or {}
        keywords = _strings(data.get("keywords"))[:self.config.max_keywords]
        topic = str(data.get("topic") or "").strip()
        events = _strings(data.get("explicit_mentions"))[:self.config.max_events_per_box]
        if not data:
            logger.warning("box extractor: unreadable LLM answer for %s; using local extraction", box_id)
        if keywords and topic and "explicit_mentions" in data:
            return SealedBox(box_id, session_id, tuple(t.id for t in turns), topic, tuple(events), tuple(keywords))
        local = super().extract(box_id, session_id, turns)
        return SealedBox(
            box_id,
            session_id,
            local.turn_ids,
            topic or local.topic,
            tuple(events) if "explicit_mentions" in data else local.events,
            tuple(keywords) if keywords else local.keywords,
        )
