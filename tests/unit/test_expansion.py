"""Query expansion of rare words (graphmem.recall.expansion): which words are rare, what they expand to,
and the vocabulary's cache."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cluster_embed import ClusterEmbedder
from graphmem.recall import expansion
from graphmem.recall.expansion import expand, neighbour_table, rare_terms, vocabulary_for, vocabulary_words

_ALL_WORDS = vocabulary_words()


@pytest.fixture(autouse=True)
def small_vocabulary(monkeypatch):
    """A 3,000-word slice of the vocabulary (with the cluster words), so each table builds in a blink."""
    words = tuple(sorted(set(_ALL_WORDS[::7][:3000]) | {"painting", "paintings", "artwork", "relaxation", "relaxing", "art"}))
    monkeypatch.setattr(expansion, "vocabulary_words", lambda: words)


def test_vocabulary_is_the_bundled_word_list_without_function_words():
    words = _ALL_WORDS
    assert len(words) > 20000
    assert {"painting", "relaxation", "artwork"} <= set(words)
    assert "because" not in words and "the" not in words
    assert all(w.isalpha() and w == w.lower() for w in words)


def test_rare_terms_are_those_few_hits_contain():
    hits = ["I love painting", "my paintings are here", "a paint brush", "we went camping", "camping again", "a fire"]
    # "paint" matches painting/paintings/paint (3 hits); "camping" 2 hits; "art" none; "go" too short.
    assert rare_terms(["paint", "camping", "art", "go"], hits) == ["camping", "art"]
    assert rare_terms(["paint", "camping", "art"], hits, max_hits=0) == ["art"]
    assert rare_terms([], hits) == []


@given(st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), max_size=6), st.lists(st.text(max_size=40), max_size=8))
def test_rare_terms_is_a_subset_in_question_order(terms, texts):
    rare = rare_terms(terms, texts)
    assert rare == [t for t in dict.fromkeys(terms) if t in rare]
    assert all(len(t) >= 3 for t in rare)
    # With no hits at all, every eligible word is rare.
    assert rare_terms(terms, []) == [t for t in dict.fromkeys(terms) if len(t) >= 3]


def test_expand_finds_the_close_words_and_skips_the_questions_own():
    embedder = ClusterEmbedder()
    words = expand(["art"], ["art", "make"], embedder)
    assert set(words) == {"painting", "paintings", "artwork"}
    # A form of a question word is no expansion ("painting" of "paint").
    assert "painting" not in expand(["art"], ["art", "paint"], embedder)
    # Words of no cluster have no close neighbours.
    assert expand(["banana"], ["banana"], embedder) == []
    assert expand([], ["art"], embedder) == []


def test_expand_embeds_an_out_of_vocabulary_word_at_question_time():
    embedder = ClusterEmbedder()
    vocabulary_for(embedder)  # built once
    assert "destress" not in expansion.vocabulary_words()
    before = len(embedder.calls)
    assert set(expand(["destress"], ["destress"], embedder)) == {"relaxation", "relaxing"}
    assert embedder.calls[before:] == [1]  # only the unknown word


def test_expand_respects_the_neighbour_cap_and_similarity():
    embedder = ClusterEmbedder()
    assert len(expand(["art"], ["art"], embedder, neighbours=1)) == 1
    assert expand(["art"], ["art"], embedder, min_similarity=0.999) == []


def test_named_embedders_share_a_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(expansion, "_by_name", {})
    first = ClusterEmbedder(name="cluster/test v1")
    vocabulary = vocabulary_for(first)
    [cached] = list((tmp_path / "graphmem" / "expansion").glob("*.npz"))
    assert cached.name.startswith("cluster_test_v1-")
    assert sum(first.calls) == len(vocabulary.words)

    # A new process (no in-memory table) reads the file instead of embedding the vocabulary again.
    monkeypatch.setattr(expansion, "_by_name", {})
    second = ClusterEmbedder(name="cluster/test v1")
    again = vocabulary_for(second)
    assert second.calls == []
    np.testing.assert_allclose(again.vectors, vocabulary.vectors, atol=2e-3)  # stored as float16
    assert expand(["art"], ["art"], second) == expand(["art"], ["art"], first)


def test_a_damaged_cache_file_is_rebuilt(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(expansion, "_by_name", {})
    vocabulary_for(ClusterEmbedder(name="damaged"))
    [cached] = list((tmp_path / "graphmem" / "expansion").glob("*.npz"))
    cached.write_bytes(b"not a numpy file")
    monkeypatch.setattr(expansion, "_by_name", {})
    embedder = ClusterEmbedder(name="damaged")
    with caplog.at_level("WARNING"):
        vocabulary = vocabulary_for(embedder)
    assert "unreadable" in caplog.text
    assert sum(embedder.calls) == len(vocabulary.words)
    with np.load(cached) as stored:
        assert stored["vectors"].shape == (len(vocabulary.words), 384)


def test_unnamed_embedders_are_cached_per_instance():
    embedder = ClusterEmbedder()
    assert vocabulary_for(embedder) is vocabulary_for(embedder)
    other = ClusterEmbedder()
    assert vocabulary_for(other) is not vocabulary_for(embedder)


class SlottedEmbedder:
    """A user's embedder that cannot be weakly referenced nor hashed."""

    __slots__ = ("inner",)
    __hash__ = None  # type: ignore[assignment]
    dimensions = 384

    def __init__(self) -> None:
        self.inner = ClusterEmbedder()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SlottedEmbedder)

    def embed(self, texts):
        return self.inner.embed(texts)


def test_any_embedder_object_gets_its_own_vocabulary():
    embedder = SlottedEmbedder()
    assert vocabulary_for(embedder) is vocabulary_for(embedder)
    assert vocabulary_for(SlottedEmbedder()) is not vocabulary_for(embedder)
    assert set(expand(["art"], ["art"], embedder)) == {"painting", "paintings", "artwork"}


@pytest.mark.parametrize("chunk", [500, 2000])
def test_the_vocabulary_is_built_in_chunks(monkeypatch, chunk):
    monkeypatch.setattr(expansion, "BUILD_CHUNK", chunk)
    embedder = ClusterEmbedder()
    vocabulary = vocabulary_for(embedder)
    assert max(embedder.calls) == chunk
    assert sum(embedder.calls) == len(vocabulary.words)


@given(st.lists(st.from_regex(r"[a-z]{1,10}", fullmatch=True), min_size=1, max_size=8), st.from_regex(r"[a-z]{1,10}", fullmatch=True))
def test_containment_by_lookups_is_stem_match(words, term):
    from graphmem.recall.expansion import _contains
    from graphmem.store.text_index import stem_match

    text = " ".join(words)
    assert _contains(text, term) == any(stem_match(term, w) for w in words)


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=6), st.integers(min_value=0, max_value=2**31))
def test_neighbour_table_is_the_brute_force_ranking(n, k, seed):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    table, scores = neighbour_table(vectors, k, chunk=7)
    assert table.shape == scores.shape == (n, min(k, n - 1))
    for i in range(n):
        sims = vectors @ vectors[i]
        expected = sorted((j for j in range(n) if j != i), key=lambda j: (-sims[j], j))[: table.shape[1]]
        np.testing.assert_allclose(scores[i], sims[expected], rtol=1e-5, atol=1e-6)
        # Same cosines in the same order (indexes may swap only between exact ties).
        np.testing.assert_allclose(sims[table[i]], sims[expected], rtol=1e-5, atol=1e-6)


def test_a_word_s_table_neighbours_are_its_nearest_by_vector():
    vocabulary = vocabulary_for(ClusterEmbedder())
    by_table = vocabulary.nearest_to_word("art", 5, 0.5)
    by_vector = [(w, s) for w, s in vocabulary.nearest(vocabulary.vectors[vocabulary.index["art"]], 6, 0.5) if w != "art"]
    assert [w for w, _ in by_table] == [w for w, _ in by_vector] and {w for w, _ in by_table} == {"painting", "paintings", "artwork"}
    # Deeper than the table: the table's neighbours, no more.
    assert [w for w, _ in vocabulary.nearest_to_word("art", 30, 0.5)] == [w for w, _ in by_vector]
    assert len(vocabulary.nearest_to_word("art", 30, -1.0)) == expansion.TABLE_NEIGHBOURS


def test_unknown_terms_are_the_eligible_words_without_a_vector():
    embedder = ClusterEmbedder()
    assert expansion.unknown_terms(["destress", "art", "go", "2024", "destress"], embedder) == ["destress"]
