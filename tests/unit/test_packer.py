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
