"""Validity-aware recall over dialogue (RaMem) with topic boxes and traces (Membox).

1. Induce the recall frame: the information need, and a time window / people when the question names
   them and grounding against the history's own dates is confident.
2. Analyse the need: content words and their lemmas for full-text search (function words and the names
   of the conversation's people left out), plus the -ing form of its verbs ("painted" also searches
   "painting"), and the need without those names for the dense query. A question asking for a list
   ("What books has X read?", "Where has X camped?") is told apart by its form (``question``).
3. Content candidates: full-text and vector hits on turns, the turns of the best topic boxes and, when
   asked, of the boxes that share a trace with them; and full-text hits for the neighbours of the
   question's rare words, those (almost) none of its own full-text hits contain ("art" against a history
   that says "painting"; ``graphmem.recall.expansion``). Each candidate is scored by a weighted sum of
   its lexical score (BM25 over the best hit, plus a share of the expansion's; weighted less for a list
   question), its cosine, its box's cosine, and a bonus when a person the question names is its
   speaker. Scores then flow along the dialogue: a reply inherits most of the score of the question it
   answers, and a turn some of its neighbours' (the answer to "what did X paint?" is often "a sunset!"
   right after the turn that says "painting") (``candidates``).
4. Validity before relevance: candidates whose session interval or event time fits the window come
   first; the other content matches follow as fallback. The window's turns and sessions are read with
   the dialogue's longest session and event time as bounds (kept on its Episode), so the reads seek
   only what can overlap the window, however long the history (``recall``).
5. Pack greedily under the budget. Lines are compact: the session date once per session group, then
   ``speaker: text`` with the grounded event time; a long turn is cut to its sentences that match the
   question, a skip between two of them marked with "…" (``lines``). The turn ids go with the evidence
   (``Evidence.lines``), and into the text with ``context="full"``.

The modules, in the order of the stages: ``question`` (what a question asks), ``candidates`` (candidate
turns and their scores), ``recall`` (validity, ranking and packing: ``recall_dialogue``, the entry point)
and ``lines`` (how a turn is written). The weights, depths and limits of every stage are one
``config.DialogueRecallConfig``; the sweeps that chose them are in ``docs/tuning.md``. The stage switches
(``use_frames``, ``use_boxes``, ``use_traces``, ``use_expansion``) are ``recall_dialogue``'s arguments,
which ``Memory.recall`` takes from a ``graphmem.recall.config.RecallConfig``.

>>> from graphmem.recall.dialogue.lines import session_header, turn_line
>>> from graphmem.store.protocol import TurnRow
>>> print(session_header(1683712800.0))
10 May 2023:
>>> turn_line(TurnRow("turn:D2:3", "D2:3", "Ben", "Four hours and ten minutes."))
'Ben: Four hours and ten minutes.'
"""
