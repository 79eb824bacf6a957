"""Volume price breaks: a unit price in several columns, one per quantity tier, and the tier that applies.

Distributors and resellers print price breaks as columns (``1-9 | 10-49 | 50+``, ``Price @1 | Price @100``, ``Qty
1–15 / 16–63 / 64+``). The unit price of a line is the column of the tier its quantity falls in; the line keeps the
tier's name so that the review shows which price it took.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cells import MAX_COLUMNS, Cell, _text, parse_money

_RANGE = re.compile(r"(?<![\d.,])(\d{1,6})\s*(?:-|–|—|~|to|bis|à|a)\s*(\d{1,6})(?![\d.,])", re.I)
_FROM = re.compile(
    r"(?<![\d.,])(\d{1,6})\s*(?:\+|(?:units?\s+)?(?:and|or)\s+(?:up|more|above|over))|(?:≥|>=|over|above|from|ab|@)\s*"
    r"(\d{1,6})(?![\d.,])",
    re.I,
)
_PRICE_ROLES = ("unit", "list", "extended", "ext_list")
_SCAN = 200


@dataclass(frozen=True)
class Tier:
    """One price-break column: its column, the quantities it applies to [low, high] and its name."""

    column: int
    low: float
    high: float
    name: str

    @property
    def label(self) -> str:
        """``10–49`` or ``50+``."""
        return f"{self.low:g}+" if math.isinf(self.high) else f"{self.low:g}–{self.high:g}"


def _bounds(name: str) -> tuple[float, float] | None:
    m = _RANGE.search(name)
    if m:
        low, high = float(m.group(1)), float(m.group(2))
        return (low, high) if low <= high else None
    m = _FROM.search(name)
    if m:
        return float(m.group(1) or m.group(2)), math.inf
    return None


def _holds_money(rows: Sequence[Sequence[Cell]], start: int, col: int) -> bool:
    cells = [row[col] for row in rows[start : start + _SCAN] if col < len(row) and _text(row[col])]
    return bool(cells) and sum(1 for c in cells if parse_money(c) is not None) >= 0.6 * len(cells)


def find_tiers(
    rows: Sequence[Sequence[Cell]], start: int, header: Sequence[str], roles: Mapping[str, int]
) -> tuple[Tier, ...]:
    """The price-break columns of a table (two or more columns of amounts named by quantity tiers), else ().

    The quantity column and the extended price are never tiers; tiers with only lower bounds reach up to the next
    one's."""
    skip = {roles.get(r) for r in ("quantity", "qty_per_server", "qty_total", "qty_per_rack", "extended", "ext_list")}
    found = []
    for col, name in enumerate(header[:MAX_COLUMNS]):
        bounds = _bounds(name) if col not in skip and name else None
        if bounds is not None and _holds_money(rows, start, col):
            found.append(Tier(col, bounds[0], bounds[1], name.strip()))
    if len(found) < 2:
        return ()
    found.sort(key=lambda t: t.low)
    return tuple(
        Tier(t.column, t.low, nxt.low - 1 if math.isinf(t.high) else t.high, t.name) if nxt is not None else t
        for t, nxt in zip(found, [*found[1:], None], strict=True)
    )


def without_tiers(roles: Mapping[str, int], tiers: Sequence[Tier]) -> dict[str, int]:
    """``roles`` without the unit or list price roles the header gave to price-break columns."""
    columns = {t.column for t in tiers}
    return {r: c for r, c in roles.items() if not (r in _PRICE_ROLES and c in columns)}


def tier_for(tiers: Sequence[Tier], quantity: float | None) -> Tier | None:
    """The tier a quantity falls in (the first tier for no quantity; the last for more than every tier says)."""
    if not tiers:
        return None
    if quantity is None:
        return tiers[0]
    for tier in tiers:
        if tier.low <= quantity <= tier.high:
            return tier
    return tiers[-1] if quantity > tiers[-1].low else tiers[0]
