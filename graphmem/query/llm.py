"""Optional LLM parsing of trajectory questions, with the grammar as the fallback.

The hand-written grammar (:func:`graphmem.query.grammar.compile_question`) reads the closed class of
English time and order; phrasings outside it compile to nothing. An :class:`LlmCompiler` asks an
OpenAI-compatible chat endpoint instead, by function calling: the one tool's parameters are the published
query schema (:func:`graphmem.query.serialize.query_schema`) and the reply's arguments are validated by
:func:`graphmem.query.serialize.from_json`. It is configured by the same environment variables as
:class:`graphmem.answer.ChatAnswerer`:

- ``GRAPHMEM_LLM_BASE_URL`` (e.g. ``http://localhost:8000/v1``) and ``GRAPHMEM_LLM_MODEL``, required;
- ``GRAPHMEM_LLM_API_KEY``, optional (sent as a Bearer token).

Any failure of the endpoint or of its reply gives ``None``, and :func:`compile_with_fallback` then uses
the grammar, so with no endpoint configured nothing changes:

>>> from graphmem.query.lexicon import Lexicon
>>> lex = Lexicon(frozenset({("collect", "wood")}))
>>> compile_with_fallback("how many times did I collect wood?", lex, 100, llm=None)
Count(pattern=EventPattern(kind='collect', obj='wood'), window=None)
"""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graphmem.query.algebra import (
    Condition,
    Count,
    CountSteps,
    EventPattern,
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
from graphmem.query.grammar import MAX_CHARS, compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.query.serialize import from_json, query_schema, to_json
from graphmem.settings import Settings

logger = logging.getLogger(__name__)

#: The one function the model is made to call.
TOOL_NAME = "trajectory_query"
TOOL_DESCRIPTION = (
    "Express the user's question about the agent's episode as a trajectory query: anchors that each name "
    "one step, and the question asked about them."
)

#: The lexicon is cut to this many characters in the prompt: a large vocabulary would crowd out the
#: question and cost every request, while the names a question uses are almost always among the first few
#: hundred.
MAX_LEXICON_CHARS = 4000
#: At most this many objects are listed for one event kind, and this many names of each other sort.
MAX_NAMES = 60

CONVENTIONS = """\
Conventions:
- Ordinals are 1-based: 1 is the first, 2 the second; -1 is the last, -2 the second to last.
- Windows include both ends unless the question says otherwise; "before step N" excludes N \
(include_end false), "after step N" excludes N (include_start false), "by step N" and "until step N" \
include N. "In the first N steps" ends at step N-1; "in the last N steps" starts at step LAST-N+1.
- Offsets count steps: "two steps after X" shifts X by 2, "the step before X" by -1.
- Use only the event kinds, objects, items, state names and regions listed above, spelled as listed; \
omit a pattern's obj to match any object, and its kind to match any kind.
- Read slots: action (what was done), step (when: the step index), location (region), position, item \
(amount of one inventory item: give its name), inventory, state (one state value: give its name), \
facing (what the step acted on or faced), object (what the anchor's event was done to: "what did I pick up \
first"), observation, events.
- Counting steps rather than events ("on how many steps did I choose X", "how many steps did I spend in \
R", "for how many steps was my health at or below 3") is count_steps with one of action (an action listed \
above, verbatim), region or condition."""


def _example_pairs() -> list[tuple[str, Query]]:
    """Short questions and their queries, in made-up names (the prompt says to use the memory's own)."""
    send_report = EventPattern("send", "report")
    return [
        ("What did I do two steps after the third time I sent the report?",
         Read(Shifted(Occurrence(send_report, 3), 2), "action")),
        ("How many times did I send the report before step 100?",
         Count(send_report, Window(end=StepAt(100), include_end=False))),
        ("Where was I the last time I opened a door?",
         Read(Occurrence(EventPattern("open", "door"), -1), "location")),
        ("On how many steps was my energy at or below 2 after step 40?",
         CountSteps(Condition("state", "energy", "<=", 2), Window(start=StepAt(40), include_start=False))),
        ("Which came first: sending the report or having 3 coins?",
         WhichFirst(Occurrence(send_report), Reached(Condition("inventory", "coin", ">=", 3)))),
    ]


def _names(label: str, names: Iterable[str]) -> str:
    chosen = sorted(names)
    if not chosen:
        return f"{label}: (none)"
    more = f", ... ({len(chosen) - MAX_NAMES} more)" if len(chosen) > MAX_NAMES else ""
    return f"{label}: {', '.join(chosen[:MAX_NAMES])}{more}"


def describe_lexicon(lexicon: Lexicon, max_chars: int = MAX_LEXICON_CHARS) -> str:
    """What the memory holds, as the prompt lists it (cut to ``max_chars``).

    >>> lex = Lexicon(frozenset({("open", "door"), ("open", "box"), ("wait", "")}), frozenset({"coin"}))
    >>> print(describe_lexicon(lex))
    Event kinds and their objects:
    - open: box, door
    - wait (no object)
    Inventory items: coin
    State names: (none)
    Regions: (none)
    """
    by_kind: dict[str, set[str]] = {}
    for kind, obj in lexicon.pairs:
        by_kind.setdefault(kind, set()).add(obj)
    lines = ["Event kinds and their objects:"]
    for kind in sorted(by_kind):
        objects = sorted(o for o in by_kind[kind] if o)
        bare = "" in by_kind[kind]
        if objects:
            lines.append(_names(f"- {kind}", objects) + (" (also with no object)" if bare else ""))
        else:
            lines.append(f"- {kind} (no object)")
    if not lexicon.pairs:
        lines.append("- (none)")
    lines += [
        _names("Inventory items", lexicon.items),
        _names("State names", lexicon.states),
        _names("Regions", lexicon.regions),
    ]
    if lexicon.actions:
        lines.append(_names("Actions", lexicon.actions))
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max_chars - 4].rsplit("\n", 1)[0] + "\n..."


def system_prompt(lexicon: Lexicon, last_t: int) -> str:
    """The instructions: what the memory holds, the conventions, and examples of question -> query.

    >>> prompt = system_prompt(Lexicon(frozenset({("open", "door")})), 250)
    >>> "numbered 0 to 250" in prompt, "- open: door" in prompt, '"op":"count"' in prompt
    (True, True, True)
    """
    examples = "\n".join(
        f"Q: {question}\nA: {json.dumps(to_json(query), separators=(',', ':'))}" for question, query in _example_pairs()
    )
    return (
        "You translate a question about an agent's past episode into a call of the function "
        f"{TOOL_NAME}. The episode's steps are numbered 0 to {last_t} (LAST = {last_t}); after each step "
        "the memory holds the agent's action, the events it caused (a kind and an object), its inventory, "
        "its state values and its location.\n\n"
        f"{describe_lexicon(lexicon)}\n\n{CONVENTIONS}\n\n"
        "Examples (their names are made up; use the memory's own):\n"
        f"{examples}"
    )


def tool() -> dict[str, Any]:
    """The function definition sent with every request (its parameters: the query schema)."""
    return {"type": "function", "function": {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": query_schema()}}


@dataclass(frozen=True)
class LlmCompiler:
    """Compiles a question by one chat-completions request with a forced function call; temperature 0.

    With the endpoint up (not run here: it needs the server)::

        llm = LlmCompiler.from_env()
        query = llm.compile("how long after I first opened the door did I open it again?", lexicon, 500)

    >>> LlmCompiler("http://127.0.0.1:9/v1", "m", timeout=2).compile("did I open the door?", Lexicon(), 10) is None
    True
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 30.0
    max_tokens: int = 512

    @classmethod
    def from_env(cls, settings: Settings | None = None) -> LlmCompiler | None:
        """The compiler the environment (or ``settings``) configures, or None when ``GRAPHMEM_LLM_BASE_URL``
        or ``GRAPHMEM_LLM_MODEL`` is unset (then questions go to the grammar alone)."""
        settings = settings or Settings.from_environment()
        if settings.llm_base_url is None or settings.llm_model is None:
            return None
        return cls(settings.llm_base_url.rstrip("/"), settings.llm_model, settings.llm_api_key or None)

    def request_body(self, question: str, lexicon: Lexicon, last_t: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "messages": [
                {"role": "system", "content": system_prompt(lexicon, last_t)},
                {"role": "user", "content": question[:MAX_CHARS]},
            ],
            "tools": [tool()],
            "tool_choice": {"type": "function", "function": {"name": TOOL_NAME}},
        }

    def compile(self, question: str, lexicon: Lexicon, last_t: int) -> Query | None:
        """The query the model calls the function with, or None on any failure (logged, never raised)."""
        if not isinstance(question, str) or not question.strip():
            return None
        payload = self._post(self.request_body(question, lexicon, last_t))
        if payload is None:
            return None
        arguments = _tool_arguments(payload)
        if arguments is None:
            logger.debug("chat endpoint %s answered %r without a %s call", self.base_url, question[:200], TOOL_NAME)
            return None
        try:
            return from_json(arguments)
        except (QueryError, TypeError, RecursionError) as exc:
            # TypeError: an unhashable "op" (a list) fails the lookup before validation can name it.
            logger.debug("chat endpoint %s gave no valid query for %r: %s", self.base_url, question[:200], exc)
            return None

    def _post(self, body: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # OSError covers URLError, HTTPError, refused connections and timeouts; ValueError a body that
            # is not JSON (or not UTF-8). The grammar answers instead, so this is a warning, not an error.
            logger.warning("chat endpoint %s failed, compiling with the grammar: %s", self.base_url, exc)
            return None


def _tool_arguments(payload: Any) -> str | dict[str, Any] | None:
    """The arguments of the reply's ``trajectory_query`` call (servers send a JSON string or an object)."""
    try:
        calls = payload["choices"][0]["message"].get("tool_calls") or []
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and function.get("name") == TOOL_NAME:
            arguments = function.get("arguments")
            if isinstance(arguments, (str, dict)):
                return arguments
    return None


def compile_with_fallback(question: str, lexicon: Lexicon, last_t: int, llm: LlmCompiler | None) -> Query | None:
    """The LLM's query when ``llm`` gives a valid one, else the grammar's (``llm=None``: the grammar's).

    >>> lex = Lexicon(frozenset({("open", "door")}))
    >>> compile_with_fallback("did I ever open the door?", lex, 10, LlmCompiler("http://127.0.0.1:9/v1", "m", timeout=2))
    Exists(what=EventPattern(kind='open', obj='door'), window=None)
    """
    if llm is not None:
        query = llm.compile(question, lexicon, last_t)
        if query is not None:
            return query
    return compile_question(question, lexicon, last_t)
