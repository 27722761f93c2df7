"""The tuning of dialogue recall, one frozen record: how deep each search reads, how its scores are
weighed and flow along the dialogue, how many turns the packer is offered and how long turns are cut.

The defaults are the values the development sweeps chose; ``docs/tuning.md`` ("Dialogue recall")
has those sweeps. Pass another config for an experiment:

>>> config = DialogueRecallConfig(w_box=0.0)          # no topical context from the turn's box
>>> config.w_box, DEFAULT_DIALOGUE_CONFIG.w_box
(0.0, 0.6)
>>> DialogueRecallConfig(turn_depth=0)
Traceback (most recent call last):
graphmem.errors.InvalidArgumentError: turn_depth must be a whole number of at least 1, got 0
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from graphmem.errors import InvalidArgumentError
from graphmem.records import short

__all__ = ["DEFAULT_DIALOGUE_CONFIG", "DialogueRecallConfig"]

#: Fields that may be 0 (a count of things kept); every other whole-number field is at least 1.
_MAY_BE_ZERO = frozenset({"box_members", "trace_seeds", "flow_sources", "keep_unmatched"})


@dataclass(frozen=True)
class DialogueRecallConfig:
    """Tuning of dialogue recall (``graphmem.recall.dialogue.recall.recall_dialogue``)."""

    #: Turns read from full-text search: deeper lexical hits mostly add weak matches that crowd the ranking.
    turn_depth: int = 50
    #: Turns read from vector search: the HNSW query's cost grows with its depth, and deeper turns rarely decide.
    dense_depth: int = 50
    #: Boxes read from vector search: their cosine is every member turn's topical context.
    box_depth: int = 30
    #: Top boxes whose member turns join the candidates even when no turn-level search found them.
    box_members: int = 8
    #: Top boxes whose traces are expanded (Membox expands from the top retrieved boxes only).
    trace_seeds: int = 2
    #: Lexical weight; BM25 is divided by the best hit's score so that it lives on the cosine's scale.
    w_lexical: float = 1.0
    #: Lexical weight for a list question: its words name the category, its answers the instances.
    list_w_lexical: float = 0.4
    #: Share of the lexical weight for hits of the question's expanded rare words (a weaker, indirect match).
    w_expansion: float = 0.3
    #: Dense weight: the cosine of the need's and the turn's vectors.
    w_dense: float = 1.0
    #: Weight of the turn's box cosine: many decisive turns say what they are about only in the turns around them.
    w_box: float = 0.6
    #: Share of a top box's cosine that a box on the same trace (the same activity in another session) gets.
    w_trace: float = 0.5
    #: Bonus for a turn spoken by a person the question names: people answer about themselves by talking about themselves.
    speaker_bonus: float = 0.5
    #: Share of a question's score its reply inherits: the question carries the topic words, the reply the answer.
    answer_share: float = 0.8
    #: Share of an adjacent turn's score any turn inherits: the exchange around a hit holds what the hit alludes to.
    neighbour_share: float = 0.5
    #: Ranked turns offered to the packer (and valid turns read for a time window) at least: more never packed more.
    pack_candidates: int = 60
    #: Tokens of budget per further offered turn: a turn's line is rarely shorter, so a budget holds budget / 8 lines.
    pack_tokens_per_turn: int = 8
    #: Best turns whose score flows to their neighbours: a neighbour of a lower turn rarely reaches the packed ranks.
    flow_sources: int = 10
    #: A turn line longer than this many tokens is cut to the question's sentences: a short line costs little whole.
    trim_min_tokens: int = 18
    #: Sentences kept of a long turn none of whose sentences matches the question: its most contentful one says what it was.
    keep_unmatched: int = 1
    #: Parts of speech rare-word expansion may expand: content words, not names (a name's neighbours are other names).
    expandable_pos: frozenset[str] = frozenset({"NOUN", "VERB", "ADJ"})

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.type == "int":
                least = 0 if item.name in _MAY_BE_ZERO else 1
                if isinstance(value, bool) or not isinstance(value, int) or value < least:
                    raise InvalidArgumentError(item.name, f"must be a whole number of at least {least}, got {short(value)}")
            elif item.type == "float":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise InvalidArgumentError(item.name, f"must be a finite number, got {short(value)}")
            elif not isinstance(value, frozenset) or not all(isinstance(tag, str) for tag in value):
                raise InvalidArgumentError(item.name, f"must be a frozenset of part-of-speech tags, got {short(value)}")


#: The tuning recall runs with unless told otherwise.
DEFAULT_DIALOGUE_CONFIG = DialogueRecallConfig()
