"""The topic loom's tuning, as one frozen record: the local decider's thresholds and weights, the sizes
of what extraction keeps, and whether a partial shift seals the open box.

The similarity values are on the scale of all-MiniLM-L6-v2 cosines; another embedding model needs other
values. What was measured to choose them is in ``docs/tuning.md`` ("Topic loom").

>>> LoomConfig().continue_score, LoomConfig(continue_score=0.5).partial_score
(0.45, 0.3)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LOOM_CONFIG", "LoomConfig"]


@dataclass(frozen=True)
class LoomConfig:
    """Knobs of the loom (``LocalDecider``, ``LLMDecider``, ``BoxExtractor``, ``TopicLoom``).

    >>> LoomConfig(partial_score=0.6)
    Traceback (most recent call last):
    ...
    ValueError: partial_score must not exceed continue_score
    """

    #: Cohesion at or above this continues the open box: clearly above chat's background similarity.
    continue_score: float = 0.45
    #: Cohesion at or above this (below continue_score) is a partial shift: related, but drifting.
    partial_score: float = 0.30
    #: Weight of the box centroid against the recent turns: keeps the main topic, yet lets talk drift.
    centroid_weight: float = 0.5
    #: Bonus per shared content lemma or entity: repeated nouns and names, which MiniLM underrates.
    lexical_bonus: float = 0.06
    #: Shared terms counted for the bonus at most, so that words cannot outvote the embeddings.
    lexical_cap: int = 3
    #: Taken off for a topic-shift marker opening a sentence ("by the way", "guess what").
    shift_cue_penalty: float = 0.15
    #: Content terms a backchannel has at most ("Thanks, that's sweet!"): too few to open a topic.
    backchannel_max_terms: int = 1
    #: Box length past which each turn needs more cohesion: a long box mixes sub-topics and blurs.
    soft_max_turns: int = 6
    #: Cohesion each turn beyond soft_max_turns must add.
    size_pressure: float = 0.04
    #: Turns of the open box that count as recent (Membox shows its LLM the previous two messages).
    recent_turns: int = 2
    #: Tokens an event phrase is cut at: an event is a short phrase, not a retelling.
    max_event_tokens: int = 14
    #: Events kept per box: further ones mostly restate the first.
    max_events_per_box: int = 10
    #: Keywords a box gets at least, padded with adjectives and verbs (Membox asks for 3-8).
    min_keywords: int = 3
    #: Keywords a box gets at most.
    max_keywords: int = 8
    #: A partial shift seals the open box, as in Membox's code: such a turn usually opens the next subject.
    seal_on_partial: bool = True

    def __post_init__(self) -> None:
        if self.partial_score > self.continue_score:
            raise ValueError("partial_score must not exceed continue_score")


#: The loom as tuned for all-MiniLM-L6-v2: what every stage uses unless given another config.
DEFAULT_LOOM_CONFIG = LoomConfig()
