"""Lexical analysis shared by both backends, and the embedded backend's BM25 index.

Neo4j's full-text indexes use Lucene's ``standard-no-stop-words`` analyzer and BM25 (k1=1.2, b=0.75).
``analyze`` approximates that analyzer (Unicode words, lower-cased); the embedded index scores with the
same BM25 formula and collection-wide statistics, so both backends rank alike. Queries are built from
the same analyzed terms on both sides (``lucene_query``), deduplicated, so a repeated word does not count twice.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
K1 = 1.2
B = 0.75
#: Lucene refuses boolean queries with more than 1024 clauses; questions never come close.
MAX_QUERY_TERMS = 64
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')


def analyze(text: str) -> list[str]:
    """Lower-cased word tokens: ``analyze("Caroline's LGBTQ group!") == ["caroline's", "lgbtq", "group"]``."""
    return [m.group(0).lower().replace("’", "'") for m in _WORD.finditer(text)]


def query_terms(text: str) -> list[str]:
    """Distinct analyzed terms of a query, in first-seen order."""
    seen: dict[str, None] = {}
    for term in analyze(text):
        seen.setdefault(term, None)
    return list(seen)[:MAX_QUERY_TERMS]


def lucene_query(terms: Iterable[str], field: str = "text") -> str:
    """A Lucene query string that ORs the terms on ``field``, every special character escaped."""
    escaped = [_LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms]
    return f"{field}:(" + " ".join(escaped) + ")" if escaped else ""


class BM25Index:
    """An incrementally built BM25 index over documents identified by ``(namespace, key)``.

    Statistics (document count, average length, document frequencies) are collection-wide, as in a
    Lucene index shared by all namespaces; results are filtered to one namespace.
    """

    def __init__(self) -> None:
        # term -> namespace -> key -> term frequency; document frequency is kept collection-wide.
        self._postings: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
        self._df: dict[str, int] = defaultdict(int)
        self._lengths: dict[tuple[str, str], int] = {}
        self._terms: dict[tuple[str, str], tuple[str, ...]] = {}
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def upsert(self, doc: tuple[str, str], text: str) -> None:
        self.remove(doc)
        tokens = analyze(text)
        counts: dict[str, int] = defaultdict(int)
        for tok in tokens:
            counts[tok] += 1
        for tok, tf in counts.items():
            self._postings[tok][doc[0]][doc[1]] = tf
            self._df[tok] += 1
        self._lengths[doc] = len(tokens)
        self._terms[doc] = tuple(counts)
        self._total_length += len(tokens)

    def remove(self, doc: tuple[str, str]) -> None:
        if doc not in self._lengths:
            return
        namespace, key = doc
        for tok in self._terms.pop(doc):
            by_ns = self._postings[tok]
            by_ns[namespace].pop(key, None)
            if not by_ns[namespace]:
                del by_ns[namespace]
            self._df[tok] -= 1
            if self._df[tok] == 0:
                del self._df[tok]
                del self._postings[tok]
        self._total_length -= self._lengths.pop(doc)

    def search(self, namespace: str, terms: Iterable[str], k: int) -> list[tuple[str, float]]:
        n_docs = len(self._lengths)
        if n_docs == 0:
            return []
        avgdl = self._total_length / n_docs
        scores: dict[str, float] = defaultdict(float)
        for term in terms:
            df = self._df.get(term, 0)
            postings = self._postings[term].get(namespace) if df else None
            if not postings:
                continue
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            for key, tf in postings.items():
                norm = K1 * (1.0 - B + B * self._lengths[(namespace, key)] / avgdl)
                scores[key] += idf * tf / (tf + norm)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:k]
