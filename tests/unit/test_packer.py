"""The greedy packer: never over budget, priority respected, deterministic layout."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.recall.packer import PackItem, pack, render
from graphmem.tokens import count_tokens

lines = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80)
items_strategy = st.lists(
    st.builds(PackItem, source_id=st.text(min_size=1, max_size=6), line=lines,
              order=st.floats(min_value=0, max_value=1000, allow_nan=False), header=st.sampled_from(["", "S1:", "S2:"])),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(items=items_strategy, budget=st.integers(min_value=0, max_value=300))
def test_never_exceeds_budget(items, budget):
    ev = pack(items, budget)
    assert ev.tokens <= budget
    assert ev.tokens == (count_tokens(ev.text) if ev.text else 0)
    assert set(ev.source_ids) <= {i.source_id for i in items}


@settings(max_examples=100, deadline=None)
@given(items=items_strategy, budget=st.integers(min_value=0, max_value=300))
def test_lines_pair_every_packed_line_with_its_unit(items, budget):
    ev = pack(items, budget)
    taken = [(i.source_id, i.line) for i in items if (i.source_id, i.line) in set(ev.lines)]
    # Each taken item once, in pack (offer) order; its id among the evidence's ids, its line in the text.
    assert list(ev.lines) == list(dict.fromkeys(taken))
    assert list(dict.fromkeys(sid for sid, _ in ev.lines)) == list(ev.source_ids)
    for source_id, line in ev.lines:
        assert line in ev.text and line in ev.lines_of(source_id)
    assert ev.lines_of("not-an-id-\u2603\u2603\u2603") == ()


@settings(max_examples=100, deadline=None)
@given(items=items_strategy, budget=st.integers(min_value=1, max_value=300))
def test_first_item_taken_whenever_it_fits_alone(items, budget):
    ev = pack(items, budget)
    if items and count_tokens(render([items[0]])) <= budget:
        assert items[0].line in ev.text


def test_skips_a_long_line_for_a_short_decisive_one():
    long = PackItem("a", "word " * 200, order=1)
    short = PackItem("b", "[7] place table", order=2)
    ev = pack([long, short], budget=20)
    assert ev.source_ids == ("b",)


def test_layout_groups_by_header_in_order():
    items = [PackItem("2", "two", 2, "S1:"), PackItem("1", "one", 1, "S1:"), PackItem("9", "nine", 0.5, "S0:")]
    assert render(items) == "S0:\nnine\nS1:\none\ntwo"
    ev = pack(items, 100)
    assert ev.source_ids == ("2", "1", "9")  # pack order is priority order


def test_zero_budget_is_empty():
    ev = pack([PackItem("a", "x")], 0)
    assert ev.source_ids == () and ev.text == "" and ev.tokens == 0


# Lines an answering model's evidence really holds: ids, punctuation ends, cut marks, photo captions,
# digits, unicode, inner newlines; and the lines cl100k could join to a newline (leading whitespace,
# empty), which the packer must measure on the rendered text.
tricky_lines = st.lists(
    st.sampled_from(["[D1:3]", " Melanie:", " …", "…", ".", "!", "?", "\n", "\r\n", " ", "  ", "\t", "2023", "7",
                     " [photo: a lake]", " (event 8 May 2023)", "é", "日本", "'s", " don't", ":", ")", "\u00a0", "word"]),
    min_size=0, max_size=12,
).map("".join)
tricky_items = st.lists(
    st.builds(PackItem, source_id=st.text(alphabet="abc123", min_size=1, max_size=3), line=tricky_lines,
              order=st.floats(min_value=0, max_value=50, allow_nan=False), header=st.sampled_from(["", "8 May 2023:", " S2:", "S3:\n"])),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(items=tricky_items, budget=st.integers(min_value=0, max_value=120))
def test_per_line_count_packs_exactly_like_measuring_the_rendered_text(items, budget):
    from graphmem.recall.packer import _pack_rendered

    fast, slow = pack(items, budget), _pack_rendered(items, budget, count_tokens)
    assert fast == slow
    assert fast.tokens == (count_tokens(fast.text) if fast.text else 0) <= budget


def test_packer_offers_one_at_a_time_and_bounds_a_line_by_its_opening():
    from graphmem.recall.packer import Packer

    packer = Packer(12)
    assert packer.offer(PackItem("a", "[1] collect wood"))
    assert not packer.may_fit("[2] place table and then")  # the opening alone leaves no room
    assert packer.may_fit("[2]")
    assert packer.evidence().source_ids == ("a",)
