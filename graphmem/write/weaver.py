"""Membox's Trace Weaver without an LLM: link the events of sealed boxes into cross-session traces.

A trace is a chain of events about one recurring activity, goal or development ("adoption": researching
agencies -> chose an agency -> passed the interview). When a box is sealed, each of its events is compared
with every existing trace; the score of a trace is the best cosine between the event and the trace's
events (Membox's event-to-trace vote). The best trace is taken when

* the score is at least ``threshold`` (0.5, Membox's ``TRACE_SIMILARITY_THRESHOLD``), and
* it passes a local stand-in for Membox's LLM verification: the new box (entities, keywords, topic, event
  words) and the trace (the words of its events) share a stemmed content term, or the score is very high
  (``VERY_HIGH_SCORE``). Embeddings of short event phrases agree
  on the verb alone ("went to a pride parade" vs "went to a support group"); a shared term keeps the link
  on the subject.

With a ``verifier`` (e.g. ``LLMTraceVerifier`` over a chat model) the weaver follows Membox instead: the
voted traces are candidates, and one verification call per candidate sorts all the box's events into
related / unrelated; an event may then join several traces.

Events that join no trace start new traces; unmatched events of one box that are related to each other
(cosine >= threshold) share one new trace, as Membox's "primary chain" does. Trace ids are deterministic:
``f"trace:{first_event_id}"``. The weaver is pure: it reads the existing traces it is given and returns
assignments; the caller persists them.

Example::

    weaver = TraceWeaver(embed)
    events = weaver.events_for(box)
    assignments = weaver.weave(existing, box, events, extractor.entities(box_turns))
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.nlp import load_nlp
from graphmem.write.chat import Chat, parse_json_object
from graphmem.write.loom.prepare import Embed
from graphmem.write.loom.records import SealedBox
from graphmem.write.loom.terms import content_terms

logger = logging.getLogger(__name__)

#: Membox's trace threshold (cosine of an event to the closest event of a trace).
DEFAULT_THRESHOLD = 0.5
#: A match this close needs no shared term: the two events say nearly the same thing.
VERY_HIGH_SCORE = 0.75

TraceVerifier = Callable[[Sequence[str], Sequence[str]], Collection[int]]
"""Given a trace's event texts (in order) and a new box's event texts, the indices of the box events that
continue the trace (Membox's batch verification)."""


@dataclass(frozen=True)
class TraceEvent:
    """One event of a sealed box, with its normalized embedding (left out of equality and hashing).

    >>> TraceEvent("s1#b0#e0", "s1#b0", "went to a LGBTQ support group", [1.0, 0.0]).embedding.shape
    (2,)
    """

    event_id: str
    box_id: str
    text: str
    embedding: np.ndarray = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        vector = np.asarray(self.embedding, dtype=np.float32).reshape(-1)
        vector.setflags(write=False)
        object.__setattr__(self, "embedding", vector)


@dataclass(frozen=True)
class TraceAssignment:
    """An event joined to a trace. ``score`` is the event's best cosine to the trace's earlier events
    (1.0 for the event that founds a new trace); ``new_trace`` says the trace starts with this box.

    >>> TraceAssignment("trace:s1#b0#e0", "s3#b2#e1", "s3#b2", 0.62, False).new_trace
    False
    """

    trace_id: str
    event_id: str
    box_id: str
    score: float
    new_trace: bool


def event_id_for(box_id: str, index: int) -> str:
    """The deterministic id of the ``index``-th event (0-based) of a box.

    >>> event_id_for("conv-26:session_1#b0", 1)
    'conv-26:session_1#b0#e1'
    """
    return f"{box_id}#e{index}"


def trace_id_for(first_event_id: str) -> str:
    """The deterministic id of the trace founded by an event.

    >>> trace_id_for("conv-26:session_1#b0#e1")
    'trace:conv-26:session_1#b0#e1'
    """
    return f"trace:{first_event_id}"


def stem(term: str) -> str:
    """A crude suffix stem, so that a noun keyword meets the verb of an event ("camping" ~ "camped").

    Lemmas alone do not do it: spaCy lemmatizes the noun "camping" to "camping" and the verb to "camp".

    >>> [stem(w) for w in ("camping", "camped", "camps", "painting", "class")]
    ['camp', 'camp', 'camp', 'paint', 'class']
    """
    word = term.strip().lower()
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


class TraceWeaver:
    """Links each new box's events to existing traces or to new ones (see the module docstring).

    ``embed`` embeds event texts (``events_for``); ``nlp`` is a spaCy pipeline for the term check (the
    default pipeline is loaded on first use).

    >>> weaver = TraceWeaver(lambda texts: np.tile([1.0, 0.0], (len(texts), 1)))
    >>> box = SealedBox("s1#b0", "s1", ("D1:1", "D1:2"), "camping", ("went camping",), ("camping", "tent", "lake"))
    >>> [a.trace_id for a in weaver.weave([], box, weaver.events_for(box), set())]
    ['trace:s1#b0#e0']
    """

    def __init__(
        self,
        embed: Embed,
        threshold: float = DEFAULT_THRESHOLD,
        verifier: TraceVerifier | None = None,
        nlp: Any = None,
    ) -> None:
        self.embed = embed
        self.threshold = threshold
        self.verifier = verifier
        self._nlp = nlp
        self._terms_cache: dict[str, frozenset[str]] = {}

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp()
        return self._nlp

    def events_for(self, box: SealedBox) -> list[TraceEvent]:
        """Embed a box's events (one batch call) with deterministic ids ``f"{box_id}#e{i}"``.

        >>> fake_embed = lambda texts: np.tile([1.0, 0.0], (len(texts), 1))
        >>> box = SealedBox("s1#b0", "s1", ("D1:1",), "pets", ("adopted a dog", "bought a leash"), ("dog",))
        >>> [e.event_id for e in TraceWeaver(fake_embed).events_for(box)]
        ['s1#b0#e0', 's1#b0#e1']
        """
        if not box.events:
            return []
        vectors = np.asarray(self.embed(list(box.events)), dtype=np.float32)
        return [
            TraceEvent(event_id_for(box.box_id, i), box.box_id, text, vectors[i]) for i, text in enumerate(box.events)
        ]

    def weave(
        self,
        existing: Sequence[tuple[str, TraceEvent]],
        box: SealedBox,
        box_events: Sequence[TraceEvent],
        box_entities: set[str],
    ) -> list[TraceAssignment]:
        """Assign the new box's events to traces; ``existing`` holds (trace_id, event) pairs.

        Events of ``box`` itself among ``existing`` are ignored, so weaving a box again gives the same
        answer. The result lists the events in order; ties between traces go to the smaller trace id, so
        the outcome does not depend on the order of ``existing``.

        >>> old = TraceEvent("s1#b0#e0", "s1#b0", "went to a pride parade", [1.0, 0.0])
        >>> box = SealedBox("s3#b1", "s3", ("D3:1", "D3:2"), "pride", ("went to another pride parade",), ("pride",))
        >>> new = TraceEvent("s3#b1#e0", "s3#b1", box.events[0], [0.8, 0.6])
        >>> result = TraceWeaver(print).weave([("trace:s1#b0#e0", old)], box, [new], set())
        >>> [(a.trace_id, round(a.score, 2)) for a in result]
        [('trace:s1#b0#e0', 0.8)]
        """
        if not box_events:
            return []
        own_prefix = event_id_for(box.box_id, 0)[:-1]  # "<box_id>#e": ids of this box's events
        traces: dict[str, list[TraceEvent]] = {}
        for trace_id, event in existing:
            # A caller may key events by a store key rather than the box id; the event id still tells.
            if event.box_id != box.box_id and not event.event_id.startswith(own_prefix):
                traces.setdefault(trace_id, []).append(event)
        trace_ids = sorted(traces)
        new_matrix = np.stack([e.embedding for e in box_events])
        # scores[i, j]: best cosine of new event i against the events of trace j.
        scores = np.zeros((len(box_events), len(trace_ids)), dtype=np.float32)
        for j, trace_id in enumerate(trace_ids):
            trace_matrix = np.stack([e.embedding for e in traces[trace_id]])
            scores[:, j] = (new_matrix @ trace_matrix.T).max(axis=1)

        if self.verifier is None:
            matched = self._match_locally(box, box_events, box_entities, trace_ids, traces, scores)
        else:
            matched = self._match_with_verifier(box_events, trace_ids, traces, scores)

        assignments: list[TraceAssignment] = []
        for i, event in enumerate(box_events):
            for trace_id, score in matched.get(i, []):
                assignments.append(TraceAssignment(trace_id, event.event_id, event.box_id, score, False))
        unmatched = [i for i in range(len(box_events)) if i not in matched]
        assignments.extend(self._new_traces([box_events[i] for i in unmatched]))
        order = {e.event_id: i for i, e in enumerate(box_events)}
        assignments.sort(key=lambda a: (order[a.event_id], a.trace_id))
        logger.debug(
            "weaver %s: %d events, %d joined existing traces, %d unmatched",
            box.box_id,
            len(box_events),
            len(matched),
            len(unmatched),
        )
        return assignments

    # ----------------------------------------------------------------------------------------------

    def _match_locally(
        self,
        box: SealedBox,
        box_events: Sequence[TraceEvent],
        box_entities: Iterable[str],
        trace_ids: Sequence[str],
        traces: dict[str, list[TraceEvent]],
        scores: np.ndarray,
    ) -> dict[int, list[tuple[str, float]]]:
        """Each event takes its best trace above the threshold that passes the term check.

        Going down the ranking (rather than giving up when the best trace fails the check) lets a
        topical trace win over a trace that only shares the verb.
        """
        box_terms = self._box_terms(box, box_entities)
        matched: dict[int, list[tuple[str, float]]] = {}
        for i in range(len(box_events)):
            ranking = sorted(range(len(trace_ids)), key=lambda j: (-float(scores[i, j]), trace_ids[j]))
            for j in ranking:
                score = float(scores[i, j])
                if score < self.threshold:
                    break
                trace_terms = self._trace_terms(traces[trace_ids[j]])
                if score >= VERY_HIGH_SCORE or box_terms & trace_terms:
                    matched[i] = [(trace_ids[j], score)]
                    break
        return matched

    def _match_with_verifier(
        self,
        box_events: Sequence[TraceEvent],
        trace_ids: Sequence[str],
        traces: dict[str, list[TraceEvent]],
        scores: np.ndarray,
    ) -> dict[int, list[tuple[str, float]]]:
        """Membox: every event votes for its best trace (>= threshold); each voted trace is verified
        against all the box's events, and the events it accepts join it."""
        assert self.verifier is not None
        candidates: set[int] = set()
        for i in range(len(box_events)):
            if not trace_ids:
                break
            j = min(range(len(trace_ids)), key=lambda k: (-float(scores[i, k]), trace_ids[k]))
            if float(scores[i, j]) >= self.threshold:
                candidates.add(j)
        texts = [e.text for e in box_events]
        matched: dict[int, list[tuple[str, float]]] = {}
        for j in sorted(candidates, key=lambda k: trace_ids[k]):
            chain = [e.text for e in traces[trace_ids[j]]]
            accepted = {i for i in self.verifier(chain, texts) if 0 <= i < len(box_events)}
            for i in sorted(accepted):
                matched.setdefault(i, []).append((trace_ids[j], float(scores[i, j])))
        return matched

    def _new_traces(self, events: Sequence[TraceEvent]) -> list[TraceAssignment]:
        """Group unmatched events of one box: an event joins the earliest new group whose founder it
        resembles (cosine >= threshold), else founds its own trace."""
        founders: list[TraceEvent] = []
        assignments: list[TraceAssignment] = []
        for event in events:
            best: tuple[float, TraceEvent] | None = None
            for founder in founders:
                score = float(founder.embedding @ event.embedding)
                if score >= self.threshold and (best is None or score > best[0]):
                    best = (score, founder)
            if best is None:
                founders.append(event)
                founded = TraceAssignment(trace_id_for(event.event_id), event.event_id, event.box_id, 1.0, True)
                assignments.append(founded)
            else:
                trace_id = trace_id_for(best[1].event_id)
                assignments.append(TraceAssignment(trace_id, event.event_id, event.box_id, best[0], True))
        return assignments

    def _terms(self, text: str) -> frozenset[str]:
        cached = self._terms_cache.get(text)
        if cached is None:
            if len(self._terms_cache) > 50_000:  # bounded: one weaver may serve a whole corpus
                self._terms_cache.clear()
            cached = frozenset(stem(t) for t in content_terms(self.nlp(text), verbs=True))
            self._terms_cache[text] = cached
        return cached

    def _box_terms(self, box: SealedBox, box_entities: Iterable[str]) -> frozenset[str]:
        """The new box's side of the term check: its entities, keywords, topic and event terms."""
        terms = {stem(e) for e in box_entities if e.strip()}
        terms |= {stem(k) for k in box.keywords if k.strip()}
        for text in (box.topic, *box.events):
            terms |= self._terms(text)
        return frozenset(terms)

    def _trace_terms(self, events: Sequence[TraceEvent]) -> frozenset[str]:
        """The trace's side: content terms of its events' texts (all the weaver is given of a trace)."""
        terms: set[str] = set()
        for event in events:
            terms |= self._terms(event.text)
        return frozenset(terms)


PROMPT_TRACE_EVENT_FILTER = """You are a narrative coherence analyzer for constructing and maintaining event memory chains. Your task is to filter events from a new event list (Event List B) that are directly related to an existing event chain (Event Chain A).

**Core Task:**
Event Chain A represents an existing sequence of events (could be one or multiple events). Event List B is a set of newly observed events. Analyze each event in B to determine whether it should:
1. Serve as a **direct continuation** of Event Chain A (directly related to A's core narrative)
2. Be considered **unrelated** to Event Chain A (independent or belonging to a different event stream)

**Analysis Principles:**
- Identify the **core theme/activity** from Event Chain A's overall narrative
- Assess narrative continuity: Does the event from B advance, develop, or resolve A's core activity?
- Consider temporal/causal logic: Does the event naturally follow A's chain in time or logic?

**Decision Criteria:**
An event from B is **related** to Event Chain A if it:
1. Continues the **same core activity** as A's chain (not just similar topic)
2. Provides **progress, outcome, solution, or direct consequence** to A's chain
3. Is a **logical/temporal successor** to A's chain

An event from B is **unrelated** to Event Chain A if it:
1. Initiates a **new, distinct activity** (even if topic is similar)
2. Is a **parallel but independent** event to A's core activity
3. Concerns a **different aspect** unrelated to A's main thread
4. Is a **generic response** without specific progression

**Output Format:**
Strictly use this JSON format:
{{
    "chain_summary": "Brief summary of Event Chain A's core theme (1-2 sentences)",
    "related_events": ["Exact text of related events from B"],
    "unrelated_events": ["Exact text of unrelated events from B"],
    "reasoning": {{
        "related_reasons": ["Brief explanation for each related event"],
        "unrelated_reasons": ["Brief explanation for each unrelated event"]
    }}
}}

**Now analyze:**
Event Chain A: {content_a} (Note: This is an existing event chain)
Event List B: {content_b} (Note: This is a new event list)
Output your analysis.
"""
"""Membox's verification prompt (membox.py, PROMPT_TRACE_EVENT_FILTER) without its two worked examples."""


class LLMTraceVerifier:
    """Membox's batch verification through ``chat``: which new events continue an existing chain.

    An unreadable answer, or one that sorts no event at all, accepts every event — the released code
    does the same (the candidate trace already passed the similarity vote).

    >>> verify = LLMTraceVerifier(lambda p: '{"related_events": ["bought paint"], "unrelated_events": []}')
    >>> verify(["started painting"], ["bought paint", "went swimming"])
    [0]
    """

    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    def prompt(self, chain: Sequence[str], events: Sequence[str]) -> str:
        """The verification prompt: the chain and the new events, one per line.

        >>> "Event List B: went swimming" in LLMTraceVerifier(chat=print).prompt(["went camping"], ["went swimming"])
        True
        """
        return PROMPT_TRACE_EVENT_FILTER.format(
            content_a="\n".join(chain) or "None", content_b="\n".join(events) or "None"
        )

    def __call__(self, chain: Sequence[str], events: Sequence[str]) -> list[int]:
        data = parse_json_object(self.chat(self.prompt(chain, events)))
        if data is None:
            logger.warning("trace verifier: unreadable LLM answer; accepting all %d events", len(events))
            return list(range(len(events)))
        related = {_normalize(str(e)) for e in data.get("related_events") or [] if isinstance(e, (str, int, float))}
        unrelated = {_normalize(str(e)) for e in data.get("unrelated_events") or [] if isinstance(e, (str, int, float))}
        accepted = [i for i, text in enumerate(events) if _normalize(text) in related]
        if not accepted and not any(_normalize(text) in unrelated for text in events):
            return list(range(len(events)))
        return accepted


def _normalize(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")


__all__ = [
    "DEFAULT_THRESHOLD",
    "VERY_HIGH_SCORE",
    "LLMTraceVerifier",
    "TraceAssignment",
    "TraceEvent",
    "TraceVerifier",
    "TraceWeaver",
    "event_id_for",
    "stem",
    "trace_id_for",
]
