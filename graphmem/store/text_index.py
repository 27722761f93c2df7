"""Lexical analysis shared by both backends, and the embedded backend's BM25 index.

Neo4j's full-text indexes use Lucene's ``standard-no-stop-words`` analyzer and BM25 (k1=1.2, b=0.75).
``analyze`` approximates that analyzer (Unicode words, lower-cased); the embedded index scores with the
same BM25 formula and collection-wide statistics, so both backends rank alike. Queries are built from
the same analyzed terms on both sides (``lucene_query``), deduplicated, so a repeated word does not count twice.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

# Unicode word segmentation (UAX #29) as Lucene's StandardTokenizer does it: letters and digits join;
# "." ":" and apostrophes join two letters ("e.g", "caroline's"); "," "." ";" join two digits ("24,30").
_WORD = re.compile(
    r"\w+(?:(?:(?<=[^\W\d_])[:.'’](?=[^\W\d_])|(?<=\d)[,.;'’](?=\d))\w+)*",
    re.UNICODE,
)
K1 = 1.2
B = 0.75
#: Lucene refuses boolean queries with more than 1024 clauses; questions never come close.
MAX_QUERY_TERMS = 64
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')


# Function words and question words left out of full-text queries (``content_terms``): they match nearly
# every unit, only add noise to BM25, and make Lucene score huge posting lists (a 1M-unit namespace: 64 ms
# for a whole question against 20 ms for its content words). Content verbs spaCy counts as stop words
# ("give", "move", "make") stay in.
FUNCTION_WORDS = frozenset(
    ["a", "about", "above", "across", "after", "afterwards", "again", "against", "all", "almost", "alone", "along", "already", "also", "although", "always", "am", "among", "amongst", "an", "and", "another", "any", "anyhow", "anyone", "anything", "anyway", "anywhere", "are", "around", "as", "at", "be", "became", "because", "become", "becomes", "becoming", "been", "before", "beforehand", "behind", "being", "below", "beside", "besides", "between", "beyond", "both", "but", "by", "ca", "can", "cannot", "could", "did", "do", "does", "doing", "done", "down", "due", "during", "each", "either", "else", "elsewhere", "enough", "even", "ever", "every", "everyone", "everything", "everywhere", "except", "few", "for", "former", "formerly", "from", "further", "get", "had", "has", "have", "he", "hence", "her", "here", "hereafter", "hereby", "herein", "hereupon", "hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "in", "indeed", "into", "is", "it", "its", "itself", "just", "least", "less", "many", "may", "me", "meanwhile", "might", "mine", "more", "moreover", "most", "mostly", "much", "must", "my", "myself", "namely", "neither", "never", "nevertheless", "no", "nobody", "none", "noone", "nor", "not", "nothing", "now", "nowhere", "of", "off", "often", "on", "once", "only", "onto", "or", "other", "others", "otherwise", "our", "ours", "ourselves", "out", "over", "own", "per", "perhaps", "please", "quite", "rather", "re", "really", "regarding", "same", "say", "seem", "seemed", "seeming", "seems", "several", "she", "should", "since", "so", "some", "somehow", "someone", "something", "sometime", "sometimes", "somewhere", "still", "such", "than", "that", "the", "their", "them", "themselves", "then", "thence", "there", "thereafter", "thereby", "therefore", "therein", "thereupon", "these", "they", "this", "those", "though", "through", "throughout", "thru", "thus", "to", "too", "toward", "towards", "under", "unless", "until", "up", "upon", "us", "various", "very", "via", "was", "we", "well", "were", "what", "whatever", "when", "whence", "whenever", "where", "whereafter", "whereas", "whereby", "wherein", "whereupon", "wherever", "whether", "which", "while", "whither", "who", "whoever", "whole", "whom", "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your", "yours", "yourself", "yourselves", "'s", "'m", "'re", "'ve", "'d", "'ll", "n't"]
)


def analyze(text: str) -> list[str]:
    """Lower-cased word tokens: ``analyze("Caroline's LGBTQ group!") == ["caroline's", "lgbtq", "group"]``."""
    return [m.group(0).lower().replace("’", "'") for m in _WORD.finditer(text)]


def stem_match(a: str, b: str) -> bool:
    """Crude morphological match: "paint" ~ "painting" ~ "painted"; a word shorter than four letters only
    matches itself ("art" is not "artist").

    >>> stem_match("paint", "painting"), stem_match("dances", "dance"), stem_match("art", "artist")
    (True, True, False)
    """
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 4


def query_terms(text: str) -> list[str]:
    """Distinct analyzed terms of a query, in first-seen order."""
    seen: dict[str, None] = {}
    for term in analyze(text):
        seen.setdefault(term, None)
    return list(seen)[:MAX_QUERY_TERMS]


def content_terms(text: str) -> list[str]:
    """``query_terms`` without function words: what a full-text search for a question should look for.

    A question made of function words only keeps them all (something is better than nothing).
    """
    terms = query_terms(text)
    content = [t for t in terms if t not in FUNCTION_WORDS]
    return content or terms


def lucene_query(terms: Iterable[str], field: str = "text") -> str:
    """A Lucene query string that ORs the terms on ``field``, every special character escaped."""
    escaped = [_LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms]
    return f"{field}:(" + " ".join(escaped) + ")" if escaped else ""


class _Postings:
    """One term's postings in one namespace: parallel growable arrays of document ids and term frequencies.

    ``array`` keeps them compact (16 bytes a posting instead of a dict entry) and lets numpy read them
    without copying, so a term that occurs in every document scores in one vectorized pass.
    """

    __slots__ = ("ids", "tfs")

    def __init__(self) -> None:
        self.ids = array("q")
        self.tfs = array("d")


class BM25Index:
    """An incrementally built BM25 index over documents identified by ``(namespace, key)``.

    Statistics (document count, average length, document frequencies) are collection-wide, as in a
    Lucene index shared by all namespaces; results are filtered to one namespace. Postings are append-only:
    re-indexing or removing a document marks its old id dead (as Lucene marks deleted docs), and dead
    postings are compacted away once they outnumber the live ones.

    >>> index = BM25Index()
    >>> index.upsert(("agent-1", "step:run:0"), "collect wood")
    >>> index.search("agent-1", ["wood"], 5)[0][0]
    'step:run:0'
    """

    def __init__(self) -> None:
        # term -> namespace -> postings; document frequency is kept collection-wide.
        self._postings: dict[str, dict[str, _Postings]] = {}
        self._df: dict[str, int] = defaultdict(int)
        self._ids: dict[tuple[str, str], int] = {}  # live document -> id
        self._keys: list[str | None] = []  # id -> key (None once dead)
        self._alive = bytearray()  # id -> 1 while live: numpy masks dead postings without a Python loop
        self._lengths = array("d")  # id -> token count
        self._terms: dict[int, tuple[str, ...]] = {}  # live id -> its distinct terms
        self._total_length = 0
        self._live_postings = 0
        self._dead_postings = 0

    def __len__(self) -> int:
        return len(self._ids)

    def upsert(self, doc: tuple[str, str], text: str) -> None:
        self.remove(doc)
        tokens = analyze(text)
        counts: dict[str, int] = defaultdict(int)
        for tok in tokens:
            counts[tok] += 1
        doc_id = len(self._keys)
        self._keys.append(doc[1])
        self._alive.append(1)
        self._lengths.append(float(len(tokens)))
        namespace = doc[0]
        for tok, tf in counts.items():
            by_ns = self._postings.get(tok)
            if by_ns is None:
                by_ns = self._postings[tok] = {}
            postings = by_ns.get(namespace)
            if postings is None:
                postings = by_ns[namespace] = _Postings()
            postings.ids.append(doc_id)
            postings.tfs.append(float(tf))
            self._df[tok] += 1
        self._ids[doc] = doc_id
        self._terms[doc_id] = tuple(counts)
        self._total_length += len(tokens)
        self._live_postings += len(counts)

    def remove(self, doc: tuple[str, str]) -> None:
        doc_id = self._ids.pop(doc, None)
        if doc_id is None:
            return
        terms = self._terms.pop(doc_id)
        for tok in terms:
            self._df[tok] -= 1
            if self._df[tok] == 0:
                del self._df[tok]
        self._keys[doc_id] = None
        self._alive[doc_id] = 0
        self._total_length -= int(self._lengths[doc_id])
        self._live_postings -= len(terms)
        self._dead_postings += len(terms)
        if self._dead_postings > max(self._live_postings, 1024):
            self._compact()

    def _compact(self) -> None:
        """Drop dead postings (and terms or namespaces left without any)."""
        for term in list(self._postings):
            by_ns = self._postings[term]
            for namespace in list(by_ns):
                old = by_ns[namespace]
                kept = _Postings()
                for doc_id, tf in zip(old.ids, old.tfs):
                    if self._keys[doc_id] is not None:
                        kept.ids.append(doc_id)
                        kept.tfs.append(tf)
                if kept.ids:
                    by_ns[namespace] = kept
                else:
                    del by_ns[namespace]
            if not by_ns:
                del self._postings[term]
        self._dead_postings = 0

    def search(self, namespace: str, terms: Iterable[str], k: int) -> list[tuple[str, float]]:
        n_docs = len(self._ids)
        if n_docs == 0 or k <= 0:
            return []
        avgdl = self._total_length / n_docs
        lengths = np.frombuffer(self._lengths, dtype=np.float64)
        id_parts: list[np.ndarray] = []
        score_parts: list[np.ndarray] = []
        for term in terms:
            df = self._df.get(term, 0)
            postings = self._postings[term].get(namespace) if df else None
            if postings is None or not postings.ids:
                continue
            # Same formula and operation order as Lucene's BM25 (and this index before numpy), in float64.
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            ids = np.array(postings.ids, dtype=np.int64)
            tfs = np.array(postings.tfs, dtype=np.float64)
            norm = K1 * (1.0 - B + B * lengths[ids] / avgdl)
            id_parts.append(ids)
            score_parts.append(idf * tfs / (tfs + norm))
        del lengths  # release the buffer export so the arrays can grow again
        if not id_parts:
            return []
        all_ids = np.concatenate(id_parts)
        docs, inverse = np.unique(all_ids, return_inverse=True)
        # bincount adds each document's term scores in term order, as the scalar loop did.
        totals = np.bincount(inverse, weights=np.concatenate(score_parts))
        keys = self._keys
        live = np.frombuffer(self._alive, dtype=np.uint8)[docs].astype(bool)
        docs, totals = docs[live], totals[live]
        if len(docs) > k:
            # Everything scoring at least the k-th best, so ties at the cut are broken by key below.
            kth = np.partition(totals, len(totals) - k)[len(totals) - k]
            keep = totals >= kth
            docs, totals = docs[keep], totals[keep]
        ranked = sorted(((keys[i], float(s)) for i, s in zip(docs.tolist(), totals.tolist())), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:k]
