"""An LLM as the writer's stages call it (a prompt in, the answer text out) and reading the JSON object
an answer carries; the loom's LLM decider and extractor and the weaver's verifier use both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["Chat", "parse_json_object"]

Chat = Callable[[str], str]
"""An LLM call: a prompt in, the model's answer text out."""


def parse_json_object(answer: str) -> dict[str, Any] | None:
    """The first JSON object in an LLM answer (code fences and chatter around it are ignored).

    >>> parse_json_object('```json\\n{"topic": "x"}\\n```')
    {'topic': 'x'}
    """
    start = answer.find("{")
    end = answer.rfind("}")
    if start < 0 or end <= start:
        return None
    body = re.sub(r"^\s*//.*$", "", answer[start : end + 1], flags=re.MULTILINE)  # the prompt's own // comment
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
