"""Call arguments of ``Memory``'s methods, checked at the boundary on every backend.

A bad argument is an ``InvalidArgumentError`` (a ``ValueError``) naming the argument, the bad value in
short and what is allowed, before anything is read or written: never an error from the tokenizer, the
embedding model or the driver (``TypeError``, ``OverflowError``, ``UnicodeEncodeError``). Namespaces,
episode and session ids are checked as record ids (``graphmem.records.validate_id``).

>>> count_of(5), budget_of(150)
(5, 150)
>>> question_text("  ")
Traceback (most recent call last):
graphmem.errors.InvalidArgumentError: question must be non-empty text
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidArgumentError
from graphmem.records import MAX_INT, MIN_INT, short, unicode_problem, validate_id

if TYPE_CHECKING:
    from graphmem.query.algebra import Query
    from graphmem.recall.config import RecallConfig

#: Longest question text recall takes (both backends alike; a question is a sentence or two).
MAX_QUESTION_CHARS = 20_000
#: Most hits ``search`` returns.
MAX_K = 10_000


def question_text(question: object) -> str:
    """Question text: non-empty, valid Unicode, at most ``MAX_QUESTION_CHARS`` characters."""
    if not isinstance(question, str):
        raise InvalidArgumentError("question", f"must be text, got {type(question).__name__} {short(question)}")
    if not question.strip():
        raise InvalidArgumentError("question", "must be non-empty text")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidArgumentError("question", f"is {len(question):,} characters; at most {MAX_QUESTION_CHARS:,} are taken")
    problem = unicode_problem(question)
    if problem is not None:
        raise InvalidArgumentError("question", problem)
    return question


def question_of(question: object) -> str | Query:
    """A question as recall takes it: text, or a query (a JSON document is parsed and validated)."""
    from graphmem.query.algebra import QUERY_TYPES
    from graphmem.query.serialize import from_json

    if isinstance(question, str):
        return question_text(question)
    if isinstance(question, QUERY_TYPES):
        _check_query_values(question)
        return question
    if isinstance(question, Mapping):
        query = from_json(dict(question))
        _check_query_values(query)
        return query
    raise InvalidArgumentError(
        "question", f"must be text, a graphmem.query query or its JSON form, got {type(question).__name__} {short(question)}"
    )


def _check_query_values(node: Any) -> None:
    """Every text of a query valid Unicode and every integer within 64 bits (what the stores can compare
    with), wherever it sits in the query (a condition's value, a pattern's object)."""
    if isinstance(node, str):
        problem = unicode_problem(node)
        if problem is not None:
            raise InvalidArgumentError("question", f"holds the text {short(node, 30)}, which {problem}")
    elif isinstance(node, int) and not isinstance(node, bool):
        if not MIN_INT <= node <= MAX_INT:
            raise InvalidArgumentError("question", f"holds the integer {short(node)}, outside the 64-bit range")
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for item in dataclasses.fields(node):
            _check_query_values(getattr(node, item.name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            _check_query_values(item)


def count_of(k: object) -> int:
    """``k`` of ``search``: a whole number of hits from 0 to ``MAX_K``."""
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_K:
        raise InvalidArgumentError("k", f"must be a whole number of hits from 0 to {MAX_K:,}, got {short(k)}")
    return k


def budget_of(budget: object) -> int:
    """A token budget: a whole number of at least 1."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidArgumentError("budget", f"must be a positive number of tokens, got {short(budget)}")
    return budget


def recall_config_of(config: object, argument: str = "config") -> RecallConfig:
    """A recall config: a ``graphmem.recall.config.RecallConfig``, whose fields were checked when it was
    built (a bad one is an ``InvalidArgumentError`` naming the field)."""
    from graphmem.recall.config import RecallConfig

    if not isinstance(config, RecallConfig):
        raise InvalidArgumentError(argument, f"must be a RecallConfig, got {type(config).__name__} {short(config)}")
    return config


def episode_of(episode: object) -> str | None:
    """The episode a recall reads: None (the one the question is about) or an episode id."""
    return None if episode is None else validate_id(episode, "recall", "episode")


def answerer_of(answerer: object) -> Any:
    """An answerer: None (the executor) or a callable ``(question, evidence_text) -> str``."""
    if answerer is not None and not callable(answerer):
        raise InvalidArgumentError("answerer", f"must be a callable (question, evidence_text) -> str or None, got {short(answerer)}")
    return answerer

