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

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.tokens import count_line_tokens, count_tokens

log = logging.getLogger(__name__)


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
    """Packed evidence: the text for an answering model, its unit ids in pack order, and its size.

    ``lines`` pairs each line of the text (not the group headers) with its unit's id, in pack order, so
    a caller can tell which unit a line came from even when the line does not show its id. ``query`` is
    the trajectory query the evidence answers, as JSON (:mod:`graphmem.query`), when the question was
    read as one: how the question was understood.
    """

    source_ids: tuple[str, ...]
    text: str
    tokens: int
    budget: int
    lines: tuple[tuple[str, str], ...] = ()
    query: Mapping[str, Any] | None = field(default=None, compare=False)

    def __contains__(self, source_id: object) -> bool:
        return source_id in self.source_ids

    def lines_of(self, source_id: str) -> tuple[str, ...]:
        """The lines packed for one unit (usually one; none when the unit was not packed)."""
        return tuple(line for sid, line in self.lines if sid == source_id)


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


def _joins_cleanly(line: str) -> bool:
    """Whether a line's cl100k tokens are the same alone as inside the rendered text: it must not be empty
    or open with whitespace, which cl100k's pre-tokenizer would join to the newline before it."""
    return bool(line) and not line[0].isspace()


def _line_and_newline(line: str) -> int:
    return count_line_tokens(line + "\n")


def _last_line(items: Sequence[PackItem]) -> str:
    """The line ``render(items)`` ends with (the last member of the last group)."""
    ordered = sorted(items, key=lambda i: (i.order, i.source_id))
    first: dict[str, int] = {}
    for position, item in enumerate(ordered):
        first.setdefault(item.header, position)
    last_group = max(first, key=lambda header: first[header])
    return [item for item in ordered if item.header == last_group][-1].line


class Packer:
    """Greedy packing one offer at a time, so a caller can write an item's line only when it may still fit.

    Each offered item that fits what is left of the budget is taken; one that does not is skipped. The
    size of the text with one more line is found without tokenizing the whole text again: cl100k's
    pre-tokenizer never joins text across a newline into a line that opens with a visible character, so
    the rendered text has exactly the tokens of each ``line + "\\n"``, less the newline's share after
    the last line. Lines that could join (empty, or opening with whitespace) and custom ``count``
    functions are measured on the rendered text instead; ``evidence()`` checks the final text either way.
    """

    def __init__(self, budget: int, count: Callable[[str], int] = count_tokens, by_lines: bool = True) -> None:
        if budget < 0:
            raise ValueError(f"budget must be >= 0, got {budget}")
        self.budget = budget
        self._count = count
        self._line_count = count_line_tokens if count is count_tokens else count
        #: Whether the per-line sum is exact: cl100k (``count_tokens``) and clean lines only (``by_lines``
        #: False measures the rendered text at every offer).
        self._by_lines = by_lines and count is count_tokens
        self._chosen: list[PackItem] = []
        self._seen: set[tuple[str, str]] = set()
        self._headers: set[str] = set()
        #: Tokens of ``line + "\\n"`` summed over the rendered lines (each header once).
        self._line_sum = 0
        #: Tokens of the text rendered from the items taken so far.
        self.tokens = 0

    def may_fit(self, prefix: str) -> bool:
        """Whether a line that opens with ``prefix`` and says more after it may still fit (a cheap lower
        bound: False means it cannot)."""
        return self.tokens + self._line_count(prefix) + 1 <= self.budget

    def offer(self, item: PackItem) -> bool:
        """Take the item if the text with it stays within the budget; return whether it was taken."""
        ident = (item.source_id, item.line)
        if ident in self._seen:
            return False
        # A cheap lower bound first: a line that alone exceeds what is left cannot fit.
        if self.tokens + self._line_count(item.line) > self.budget:
            return False
        new_header = bool(item.header) and item.header not in self._headers
        by_lines = self._by_lines and _joins_cleanly(item.line) and (not new_header or _joins_cleanly(item.header))
        if by_lines:
            line_sum = self._line_sum + _line_and_newline(item.line) + (_line_and_newline(item.header) if new_header else 0)
            last = _last_line([*self._chosen, item])
            trial_tokens = line_sum - (_line_and_newline(last) - count_line_tokens(last))
        else:
            self._by_lines = False  # from now on, measure the rendered text
            trial_tokens = self._count(render([*self._chosen, item]))
        if trial_tokens > self.budget:
            return False
        self._chosen.append(item)
        self._seen.add(ident)
        if item.header:
            self._headers.add(item.header)
        if by_lines:
            self._line_sum = line_sum
        self.tokens = trial_tokens
        return True

    def evidence(self) -> Evidence:
        """The packed evidence: the rendered text of the items taken, their unit ids in pack order."""
        text = render(self._chosen)
        tokens = self._count(text) if text else 0
        if tokens > self.budget:  # pragma: no cover - the per-line count is exact; never trust it blindly
            log.error("packer: per-line count %d != %d; packing again on the rendered text", self.tokens, tokens)
            return _pack_rendered(self._chosen, self.budget, self._count)
        ids: list[str] = []
        for item in self._chosen:
            if item.source_id and item.source_id not in ids:
                ids.append(item.source_id)
        lines = tuple((item.source_id, item.line) for item in self._chosen)
        return Evidence(tuple(ids), text, tokens, self.budget, lines)


def _pack_rendered(items: Sequence[PackItem], budget: int, count: Callable[[str], int]) -> Evidence:
    """``pack`` measuring the whole rendered text at every offer (the slow, obviously exact way)."""
    packer = Packer(budget, count, by_lines=False)
    for item in items:
        packer.offer(item)
    return packer.evidence()


def pack(items: Iterable[PackItem], budget: int, count: Callable[[str], int] = count_tokens) -> Evidence:
    """Take items in the given priority order while the rendered text stays within ``budget`` tokens."""
    packer = Packer(budget, count)
    for item in items:
        packer.offer(item)
    return packer.evidence()
