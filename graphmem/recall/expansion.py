"""Query expansion for the words a dialogue barely uses: the vocabulary-mismatch case.

A question often names what the history only shows by other words: "What kind of art does Caroline
make?" against turns about her paintings, "What does Melanie do to destress?" against a turn about
running. Full-text search cannot meet those turns, and a whole-question embedding only partly does.
The mismatch shows in the full-text hits themselves: a question word that (almost) none of them
contains is a word the history does not use. Such a *rare* word is expanded with its nearest neighbours
in embedding space among a fixed English vocabulary (``graphmem/data/expansion_words.txt``: the whole
words of the MiniLM/BERT WordPiece vocabulary), and a second full-text search looks for those words;
its hits join the candidates with a small share of the lexical weight (``w_expansion`` of
``graphmem.recall.dialogue.config.DialogueRecallConfig``). Words the history uses often are never
expanded: their own hits are the evidence, and expanding them only adds noise.

The vocabulary's vectors and each word's nearest neighbours (``TABLE_NEIGHBOURS``) are computed once
per embedder (15-25 s for MiniLM on 2 cores) and kept on disk for an embedder that has a ``name``
(``$XDG_CACHE_HOME/graphmem/expansion/``), in memory otherwise. Expanding a vocabulary word is then a
table lookup; a word outside the vocabulary is embedded with the question and compared with every
vocabulary vector.

The settings below were swept on LoCoMo dev (categories 1-4 at 150/300/600/1200 tokens; without
expansion 0.731/0.831/0.882/0.929) before expansion was limited to content words
(``DialogueRecallConfig.expandable_pos``), which then gave 0.739/0.842/0.893/0.929.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.store.text_index import FUNCTION_WORDS, analyze, stem_match

log = logging.getLogger(__name__)

#: A question word is rare when at most this many of its full-text hits contain it. 0 ->
#: 0.726/0.831/0.882/0.929, 1 -> 0.729/0.835/0.886/0.929, 2 -> 0.735/0.842/0.893/0.929, 3 ->
#: 0.731/0.842/0.889/0.924; expanding every word (50, the hits' depth) -> 0.719/0.828/0.890/0.923.
MAX_HITS = 2
#: A neighbour must be at least this close (cosine of the two words' vectors). With MiniLM, "art" meets
#: "artwork", "painting", "paintings"; "relationship" meets "partner", "marital", "dating". 0.55 measured
#: as 0.6; 0.65 -> 0.729/0.839/0.886/0.929 (multi-hop at 600 tokens 0.655 instead of 0.679).
MIN_SIMILARITY = 0.6
#: Neighbours taken per rare word (many are absent from a given history; full-text search ignores those).
#: 3 -> 0.733/0.832/0.886/0.929, 8 -> 0.735/0.842/0.893/0.929, 12 -> 0.731/0.842/0.895/0.929.
NEIGHBOURS = 8
#: Vectors embedded per call while the vocabulary table is built: the shared model's lock is released
#: between chunks, so recalls running meanwhile are not stalled for the whole build.
BUILD_CHUNK = 1024

_WORDS_FILE = "expansion_words.txt"


#: Neighbours kept per vocabulary word in the precomputed table (best first, whatever their similarity):
#: a rare word in the vocabulary is expanded by a lookup instead of a pass over the whole 21k x 384 matrix
#: (32 MB read per word: ~3-5 ms, more on a busy machine).
TABLE_NEIGHBOURS = 24


@dataclass(frozen=True)
class Vocabulary:
    """The expansion vocabulary, its unit vectors (one row per word) and each word's nearest neighbours
    (``TABLE_NEIGHBOURS`` of them: row i holds word indexes in ``neighbours`` and cosines in ``scores``)."""

    words: tuple[str, ...]
    vectors: np.ndarray
    index: dict[str, int]
    neighbours: np.ndarray
    scores: np.ndarray

    def nearest(self, vector: np.ndarray, k: int, min_similarity: float) -> list[tuple[str, float]]:
        """The ``k`` words closest to a unit vector, best first, at least ``min_similarity`` close."""
        scores = self.vectors @ vector.astype(np.float32)
        k = min(k, len(scores))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        ranked = sorted(top, key=lambda i: (-scores[i], self.words[i]))
        return [(self.words[i], float(scores[i])) for i in ranked if scores[i] >= min_similarity]

    def nearest_to_word(self, word: str, k: int, min_similarity: float) -> list[tuple[str, float]]:
        """Like ``nearest`` for a vocabulary word's own vector (itself left out), read from the table: at
        most its ``TABLE_NEIGHBOURS``, however large ``k``."""
        i = self.index[word]
        return [
            (self.words[int(j)], float(score))
            for j, score in zip(self.neighbours[i, :k], self.scores[i, :k])
            if score >= min_similarity
        ]


def neighbour_table(vectors: np.ndarray, k: int, chunk: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest other rows by cosine (unit rows), best first (ties by index): indexes and
    cosines, computed a chunk of rows at a time."""
    n = len(vectors)
    k = min(k, max(n - 1, 0))
    neighbours = np.zeros((n, k), dtype=np.int32)
    scores = np.zeros((n, k), dtype=np.float32)
    if k == 0:
        return neighbours, scores
    for start in range(0, n, chunk):
        block = vectors[start : start + chunk] @ vectors.T
        rows = np.arange(start, start + len(block))
        block[np.arange(len(block)), rows] = -np.inf  # not its own neighbour
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        top_scores = np.take_along_axis(block, top, axis=1)
        order = np.lexsort((top, -top_scores), axis=1)
        neighbours[start : start + len(block)] = np.take_along_axis(top, order, axis=1)
        scores[start : start + len(block)] = np.take_along_axis(top_scores, order, axis=1)
    return neighbours, scores


def vocabulary_words() -> tuple[str, ...]:
    """The bundled word list, without comments and function words."""
    text = resources.files("graphmem").joinpath("data", _WORDS_FILE).read_text(encoding="utf-8")
    words = (line.strip() for line in text.splitlines())
    return tuple(w for w in words if w and not w.startswith("#") and w not in FUNCTION_WORDS)


def _cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root.expanduser() / "graphmem" / "expansion"


_lock = threading.Lock()
_by_name: dict[str, Vocabulary] = {}
_by_embedder: weakref.WeakKeyDictionary[Any, Vocabulary] = weakref.WeakKeyDictionary()
# Embedders that cannot be weakly referenced or hashed (``__slots__``, an ``eq`` dataclass): by identity,
# holding the embedder so that its id is not reused.
_by_identity: dict[int, tuple[Any, Vocabulary]] = {}


def _unnamed_get(embedder: Any) -> Vocabulary | None:
    try:
        return _by_embedder.get(embedder)
    except TypeError:
        held = _by_identity.get(id(embedder))
        return held[1] if held is not None else None


def _unnamed_put(embedder: Any, vocabulary: Vocabulary) -> None:
    try:
        _by_embedder[embedder] = vocabulary
    except TypeError:
        _by_identity[id(embedder)] = (embedder, vocabulary)


def _build(embedder: Any, words: Sequence[str]) -> np.ndarray:
    chunks = [np.asarray(embedder.embed(list(words[i : i + BUILD_CHUNK])), dtype=np.float32) for i in range(0, len(words), BUILD_CHUNK)]
    vectors = np.concatenate(chunks) if chunks else np.zeros((0, int(embedder.dimensions)), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def vocabulary_for(embedder: Any) -> Vocabulary:
    """The vocabulary with the embedder's vectors and neighbour table: built on first use, then cached
    (see the module)."""
    name = getattr(embedder, "name", None)
    with _lock:
        cached = _by_name.get(name) if name else _unnamed_get(embedder)
        if cached is not None:
            return cached
        words = vocabulary_words()
        dims = int(embedder.dimensions)
        loaded: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        path: Path | None = None
        if name:
            key = "\n".join(words) + f"\n{name}\n{TABLE_NEIGHBOURS}"
            digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
            path = _cache_dir() / f"{re.sub(r'[^A-Za-z0-9._-]', '_', name)}-{digest}.npz"
            if path.exists():
                try:
                    with np.load(path) as stored:
                        vectors, table, scores = stored["vectors"], stored["neighbours"], stored["scores"]
                    if vectors.shape == (len(words), dims) and table.shape == scores.shape == (len(words), TABLE_NEIGHBOURS):
                        loaded = vectors.astype(np.float32), table.astype(np.int32), scores.astype(np.float32)
                except (OSError, ValueError, KeyError) as exc:
                    log.warning("expansion vocabulary cache %s unreadable (%s): rebuilding it", path, exc)
        if loaded is None:
            log.info("building the query-expansion vocabulary (%d words, once per embedder)", len(words))
            vectors = _build(embedder, words)
            table, scores = neighbour_table(vectors, TABLE_NEIGHBOURS)
            loaded = vectors, table, scores
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    partial = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
                    np.savez(partial, vectors=vectors.astype(np.float16), neighbours=table, scores=scores.astype(np.float16))
                    os.replace(partial, path)
                except OSError as exc:
                    log.warning("expansion vocabulary not cached at %s: %s", path, exc)
        vectors, table, scores = loaded
        vocabulary = Vocabulary(words, vectors, {w: i for i, w in enumerate(words)}, table, scores)
        if name:
            _by_name[name] = vocabulary
        else:
            _unnamed_put(embedder, vocabulary)
        return vocabulary


@functools.lru_cache(maxsize=8192)
def _forms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A text's words, and its words with the prefixes ``stem_match`` accepts ("paint" of "painting"):
    cached, since recall meets the same turns question after question."""
    words = frozenset(analyze(text))
    prefixes = {w[:k] for w in words for k in range(max(4, len(w) - 4), len(w))}
    return words, frozenset(prefixes | words)


def _contains(text: str, term: str) -> bool:
    """Whether a word of the text is the term or a form of it (``stem_match``), by set lookups."""
    words, extended = _forms(text)
    return term in extended or any(term[:k] in words for k in range(max(4, len(term) - 4), len(term)))


def _expandable(term: str) -> bool:
    """Whether a term is a word expansion may look up: alphabetic, three letters or more."""
    return term.isalpha() and len(term) >= 3


def rare_terms(terms: Sequence[str], hit_texts: Iterable[str], max_hits: int | None = None) -> list[str]:
    """The terms (alphabetic, 3+ letters) that at most ``max_hits`` (``MAX_HITS``) of the hit texts contain.

    A hit contains a term when one of its words is the term or a form of it ("paint" ~ "painting").

    >>> rare_terms(["art", "paint"], ["I love painting", "my paintings", "a paint brush"])
    ['art']
    """
    limit = MAX_HITS if max_hits is None else max_hits
    texts = list(hit_texts)
    rare = []
    for term in dict.fromkeys(terms):
        if not _expandable(term):
            continue
        if sum(1 for text in texts if _contains(text, term)) <= limit:
            rare.append(term)
    return rare


def unknown_terms(terms: Sequence[str], embedder: Any) -> list[str]:
    """The terms (of those ``rare_terms`` may pick) that the vocabulary has no vector for: recall embeds
    them together with the question (one model call) and passes them to ``expand`` as ``vectors``."""
    index = vocabulary_for(embedder).index
    return [t for t in dict.fromkeys(terms) if _expandable(t) and t not in index]


def expand(
    rare: Sequence[str],
    question_terms: Sequence[str],
    embedder: Any,
    neighbours: int | None = None,
    min_similarity: float | None = None,
    vectors: Mapping[str, np.ndarray] | None = None,
) -> list[str]:
    """Up to ``neighbours`` (``NEIGHBOURS``) vocabulary words per rare term, each at least ``min_similarity``
    (``MIN_SIMILARITY``) close, other than the question's own words and their forms ("painting" is no
    expansion of "paint"). A rare term outside the vocabulary takes its vector from ``vectors`` when
    given there, else it is embedded here."""
    neighbours = NEIGHBOURS if neighbours is None else neighbours
    min_similarity = MIN_SIMILARITY if min_similarity is None else min_similarity
    if not rare:
        return []
    vocabulary = vocabulary_for(embedder)
    embedded = dict(vectors or {})
    unknown = [t for t in rare if t not in vocabulary.index and t not in embedded]
    if unknown:
        embedded.update(zip(unknown, np.asarray(embedder.embed(unknown), dtype=np.float32)))
    own = list(question_terms)
    out: dict[str, None] = {}
    for term in rare:
        depth = neighbours + len(own) + 8  # room for the question's own words and their forms
        if term in vocabulary.index:
            candidates = vocabulary.nearest_to_word(term, depth, min_similarity)
        else:
            vector = np.asarray(embedded[term], dtype=np.float32)
            norm = float(np.linalg.norm(vector))
            if norm == 0.0:
                continue
            candidates = vocabulary.nearest(vector / norm, depth, min_similarity)
        taken = 0
        for word, _ in candidates:
            if taken >= neighbours:
                break
            if word in own or any(stem_match(word, t) for t in own):
                continue
            out.setdefault(word, None)
            taken += 1
    return list(out)
