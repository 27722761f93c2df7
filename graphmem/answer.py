"""Pluggable answerers: turn a question and its packed evidence into an answer.

``Memory.answer`` uses the deterministic executor for trajectory questions by default. Any callable
``(question, evidence_text) -> str`` can be passed instead; ``ChatAnswerer`` is one that asks an
OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama's /v1, ...), configured by
environment variables:

- ``GRAPHMEM_LLM_BASE_URL`` (e.g. ``http://localhost:8000/v1``), required;
- ``GRAPHMEM_LLM_MODEL``, required;
- ``GRAPHMEM_LLM_API_KEY``, optional (sent as a Bearer token).

With those set and the server up (not run here: it needs the server)::

    answerer = ChatAnswerer.from_env()
    mem.answer("agent-1", "where was I the last time I drank water?", answerer=answerer).text

Any other callable takes its place; it gets the packed evidence text:

>>> from graphmem import Event, Location, Memory, Step
>>> steps = [Step(0, "drink water", events=(Event("drink", "water"),), location=Location(region="lake")),
...          Step(1, "move left", location=Location(region="forest"))]
>>> question = "where was I the last time I drank water?"
>>> with Memory(path=":memory:") as mem:
...     _ = mem.add_steps("agent-1", "run-1", steps)
...     by_executor = mem.answer("agent-1", question)
...     by_callable = mem.answer("agent-1", question, answerer=lambda q, evidence_text: evidence_text.splitlines()[0])
>>> by_executor.text, by_executor.answerer
('lake', 'executor')
>>> by_callable.text, by_callable.answerer
('[0] drink water | drink water | at lake | <- last drink water', 'function')
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from graphmem.errors import GraphmemError
from graphmem.settings import Settings

SYSTEM_PROMPT = (
    "You answer questions about an agent's or a user's past using only the evidence given. "
    "A trajectory's lines start with their step index; a dialogue's lines with their speaker, under the "
    "date of their session, and '(event ...)' gives when what a line tells happened. "
    "Answer with a short phrase. If the evidence does not contain the answer, say 'unknown'."
)


class AnswererError(GraphmemError):
    """The chat endpoint could not be reached or answered with something unreadable."""


@dataclass(frozen=True)
class ChatAnswerer:
    """Asks an OpenAI-compatible ``/chat/completions`` endpoint; temperature 0 for repeatable answers."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_tokens: int = 64

    @classmethod
    def from_env(cls) -> ChatAnswerer:
        settings = Settings.from_environment()
        if settings.llm_base_url is None or settings.llm_model is None:
            raise AnswererError(
                "set GRAPHMEM_LLM_BASE_URL (e.g. http://localhost:8000/v1) and GRAPHMEM_LLM_MODEL to use the chat answerer"
            )
        return cls(settings.llm_base_url.rstrip("/"), settings.llm_model, settings.llm_api_key)

    def __call__(self, question: str, evidence: str) -> str:
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"Evidence:\n{evidence}\n\nQuestion: {question}"},
            ],
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as exc:
            raise AnswererError(f"chat endpoint {self.base_url} failed: {exc}") from exc
        try:
            return str(payload["choices"][0]["message"]["content"]).strip()
        except (KeyError, IndexError, TypeError) as exc:
            raise AnswererError(f"chat endpoint {self.base_url} answered without choices[0].message.content") from exc
