"""Membox's Topic Loom without an LLM: online topic segmentation of a session into sealed boxes.

Membox (repository nnnoidea/Membox) asks an LLM, for every incoming message, whether it continues the
main topic of the previous two messages (Yes / No / Partially Shifted), seals the open box on anything
but "Yes", and asks the LLM again at sealing for keywords, a topic phrase and the explicit events. This
package keeps that control flow and makes both LLM calls pluggable, one module per part:

* ``records``: ``LoomTurn``, ``SealedBox``, ``Decision``; ``prepare``: a session's turns embedded as
  ``LoomTurn`` (``make_loom_turns``); ``config``: ``LoomConfig``, the thresholds and sizes;
* ``decide``: ``TopicDecider`` decides continue / partial shift / break; ``LocalDecider`` (the default)
  uses the sentence embeddings of the turns, lexical cohesion (``terms``: shared content lemmas and
  entities), question / answer structure and discourse cues;
* ``extract``: ``BoxExtractor`` extracts topic, keywords and events (``events``) at sealing from spaCy
  parses;
* ``llm``: ``LLMDecider`` and ``LLMBoxExtractor`` send Membox's own prompts to a ``chat`` callable and
  fall back to the local stages;
* ``topic_loom``: ``TopicLoom``, the segmentation itself.

Example (``embed`` returns L2-normalized rows, e.g. all-MiniLM-L6-v2)::

    loom = TopicLoom(LocalDecider(), BoxExtractor())
    boxes = loom.segment("chat:s1", make_loom_turns("chat:s1", turns, embed))
    boxes[0].box_id, boxes[0].topic   # ("chat:s1#b0", "lgbtq support group")
"""
