from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from graphmem.store.text_index import BM25Index, analyze, lucene_query, query_terms
from graphmem.tokens import CL100K_SHA256, _rank_file, count_tokens, encoding


def test_cl100k_matches_known_ids():
    # Reference ids of cl100k_base (tiktoken's own documentation example and common words).
    assert encoding().encode("hello world") == [15339, 1917]
    assert encoding().encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert count_tokens("") == 0


def test_rank_file_carries_tiktokens_pinned_hash():
    assert hashlib.sha256(_rank_file().read_bytes()).hexdigest() == CL100K_SHA256


def test_special_token_text_counts_as_text():
    assert count_tokens("<|endoftext|>") > 1


def test_analyze_and_query():
    assert analyze("Caroline's LGBTQ group! D1:3") == ["caroline's", "lgbtq", "group", "d1", "3"]
    assert query_terms("wood wood Wood stone") == ["wood", "stone"]
    assert lucene_query(["a+b", "c"]) == "text:(a\\+b c)"


@given(st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=5))
def test_lucene_query_escapes_every_special_character(terms):
    import re

    body = lucene_query(terms)[len("text:("):-1]
    # Every special character is preceded by a backslash; removing the escapes gives the terms back.
    assert re.sub(r"\\(.)", r"\1", body) == " ".join(terms)
    assert not re.search(r'(?<!\\)[+\-!(){}\[\]^"~*?:/&|]', re.sub(r"\\.", "", body))


def test_bm25_prefers_rarer_terms_and_filters_namespace():
    index = BM25Index()
    index.upsert(("a", "1"), "collect wood wood")
    index.upsert(("a", "2"), "collect stone")
    index.upsert(("b", "3"), "collect wood")
    ranked = index.search("a", ["collect", "wood"], 5)
    assert [k for k, _ in ranked] == ["1", "2"]
    index.remove(("a", "1"))
    assert [k for k, _ in index.search("a", ["wood"], 5)] == []
