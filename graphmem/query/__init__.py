"""The trajectory query language: a typed algebra (``algebra``), its JSON form and schema
(``serialize``), the English grammar that compiles questions into it (``grammar``), resolution in the
store (``resolve``) and the executor that answers from packed evidence (``answers``).

>>> from graphmem.query import EventPattern, Occurrence, Read, to_json
>>> to_json(Read(Occurrence(EventPattern("place", "table"), 1), "step"))["op"]
'read'
"""

from graphmem.query.algebra import (
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
    StepIs,
    WhichFirst,
    Window,
)
from graphmem.query.answers import answer, answers_match, normalize_answer
from graphmem.query.grammar import compile_question
from graphmem.query.lexicon import Lexicon
from graphmem.query.serialize import from_json, query_schema, to_json

__all__ = [
    "Condition",
    "Count",
    "CountSteps",
    "Distance",
    "EventPattern",
    "Exists",
    "Lexicon",
    "ListEvents",
    "Occurrence",
    "Precedes",
    "Query",
    "QueryError",
    "Reached",
    "Read",
    "Shifted",
    "StepAt",
    "StepIs",
    "WhichFirst",
    "Window",
    "answer",
    "answers_match",
    "compile_question",
    "from_json",
    "normalize_answer",
    "query_schema",
    "to_json",
]
