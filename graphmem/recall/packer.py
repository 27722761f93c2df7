"""Greedy evidence packing under a token budget (S3Mem's budget-aware evidence interface).

Items arrive in priority order (anchor units first, then their neighbourhood, then supporting facts and
content matches). Each item is one short line; items may share a group header (a session's interval, an
episode's facts) that is written once, before the first line of its group. The packer takes each item
that still fits, in order, and skips those that do not, so a long low-priority line never blocks a short
decisive one. Lines are then laid out grouped by header, in ``order`` within a group. The token count
is measured on the final text in cl100k_base; the evidence never exceeds the budget.

>>> ev = pack([PackItem("a:1", "[1] collect wood", order=1)], budget=20)
>>> ev.source_ids, ev.tokens <= 20
(('a:1',), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.tokens import count_line_tokens, count_tokens


@dataclass(frozen=True)
class PackItem:
    """One candidate line of evidence.

    ``source_id`` is the caller's id of the unit (empty for a fact line with no unit), ``header`` the
    group line it belongs under ("" for none), ``order`` its position in the laid-out text (time order).
    """

    source_id: str
    line: str
    order: float = 0.0
    header: str = ""


@dataclass(frozen=True)
class Evidence:
    """Packed evidence: the text for an answering model, its unit ids in pack order, and its size."""

    source_ids: tuple[str, ...]
    text: str
    tokens: int
    budget: int

    def __contains__(self, source_id: object) -> bool:
        return source_id in self.source_ids


def render(items: Sequence[PackItem]) -> str:
    """Lay items out: groups in order of their first item's ``order``, lines in ``order`` within."""
    groups: dict[str, list[PackItem]] = {}
    for item in sorted(items, key=lambda i: (i.order, i.source_id)):
        groups.setdefault(item.header, []).append(item)
    lines: list[str] = []
    for header, members in groups.items():
        if header:
            lines.append(header)
        lines.extend(m.line for m in members)
    return "\n".join(lines)


def pack(items: Sequence[PackItem], budget: int, count: Callable[[str], int] = count_tokens) -> Evidence:
    """Take items in the given priority order while the rendered text stays within ``budget`` tokens."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    line_count = count_line_tokens if count is count_tokens else count
    chosen: list[PackItem] = []
    seen: set[tuple[str, str]] = set()
    tokens = 0
    for item in items:
        ident = (item.source_id, item.line)
        if ident in seen:
            continue
        # A cheap lower bound first: a line that alone exceeds what is left cannot fit.
        if tokens + line_count(item.line) > budget:
            continue
        trial = render([*chosen, item])
        trial_tokens = count(trial)
        if trial_tokens <= budget:
            chosen.append(item)
            seen.add(ident)
            tokens = trial_tokens
    text = render(chosen)
    ids: list[str] = []
    for item in chosen:
        if item.source_id and item.source_id not in ids:
            ids.append(item.source_id)
    return Evidence(tuple(ids), text, count(text) if text else 0, budget)
