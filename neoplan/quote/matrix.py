"""Quantity matrices: a quantity per rack in one column per rack type, and how many racks of each type.

A rack-level bill of materials often lists each part once with its quantity in a column per rack type (``Compute
rack``, ``Network rack``, ``Storage rack``) and the number of racks of each type on a row of its own (``Number of
racks | 8 | 1 | 2``) or in the column names (``Compute rack (x8)``). A part's quantity for the order is the sum over
the rack types of its quantity per rack times their racks; reading only the first column counts one rack type's
single rack (8 GPUs instead of 256).

:func:`find_matrix` finds such columns under a table's header: two or more columns of quantities that no other role
claims (or the per-rack quantity column among them) and a rack count for each, from the racks row or the column's
name. The racks row is no item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cells import MAX_COLUMNS, Cell, _text, parse_quantity
from .vocab import fold, pattern

_QUANTITY_ROLES = ("quantity", "qty_per_rack")
"""Roles a matrix column may have been given by its name (``Qty/Rack Compute``)."""
_IN_NAME = re.compile(
    r"(?:[x×]\s*(\d{1,4})\b|\(\s*(\d{1,4})\s*(?:racks?|x|×)?\s*\)|\b(\d{1,4})\s*(?:racks|x|×)\b)", re.I
)
_SCAN = 2_000
"""Rows under the header searched for the racks row and for the columns' quantities."""


@dataclass(frozen=True)
class Matrix:
    """The quantity columns of a rack matrix, the racks of each, their names and the racks row (None: in the names)."""

    columns: tuple[int, ...]
    racks: tuple[float, ...]
    names: tuple[str, ...]
    row: int | None

    def quantity(self, row: Sequence[Cell], decimal: str) -> float | None:
        """A part's quantity for the order: Σ quantity per rack × racks of that type; None when the row has none."""
        total, found = 0.0, False
        for col, racks in zip(self.columns, self.racks, strict=True):
            q = parse_quantity(row[col], decimal) if col < len(row) else None
            if q is not None:
                total, found = total + q * racks, True
        return total if found else None

    @property
    def text(self) -> str:
        """``Compute rack × 8 + Network rack × 1``."""
        return " + ".join(f"{name or 'column'} × {racks:g}" for name, racks in zip(self.names, self.racks, strict=True))


def _is_racks_row(row: Sequence[Cell]) -> bool:
    label = next((t for t in map(_text, row) if t and parse_quantity(t) is None), "")
    return bool(label) and bool(pattern("racks_row").search(fold(label)))


def _candidates(
    rows: Sequence[Sequence[Cell]], start: int, header: Sequence[str], roles: Mapping[str, int]
) -> list[int]:
    """Columns named in the header that hold quantities in the rows below and that no other role claims."""
    taken = {col for role, col in roles.items() if role not in _QUANTITY_ROLES}
    out = []
    for col, name in enumerate(header[:MAX_COLUMNS]):
        if col in taken or not name.strip():
            continue
        cells = [row[col] for row in rows[start : start + _SCAN] if col < len(row) and _text(row[col])]
        numbers = sum(1 for c in cells if parse_quantity(c) is not None)
        if numbers and numbers >= 0.6 * len(cells):
            out.append(col)
    return out


def find_matrix(
    rows: Sequence[Sequence[Cell]], start: int, header: Sequence[str], roles: Mapping[str, int], decimal: str
) -> Matrix | None:
    """The rack matrix of the table whose items start at row ``start`` (see the module docstring), else None.

    A table with a total-quantity column has no matrix (its totals are read instead)."""
    if "qty_total" in roles or not any(r in roles for r in ("unit", "extended", "list", "ext_list")):
        return None
    columns = _candidates(rows, start, header, roles)
    if len(columns) < 2:
        return None
    racks_row = next((i for i in range(start, min(len(rows), start + _SCAN)) if _is_racks_row(rows[i])), None)
    found: list[tuple[int, float, str]] = []
    for col in columns:
        name = header[col].strip()
        count: float | None = None
        if racks_row is not None and col < len(rows[racks_row]):
            count = parse_quantity(rows[racks_row][col], decimal)
        if count is None and (m := _IN_NAME.search(name)):
            count = float(next(g for g in m.groups() if g))
        if count is not None and count >= 0:
            found.append((col, count, name))
    if len(found) < 2:
        return None
    return Matrix(
        tuple(c for c, _, _ in found), tuple(r for _, r, _ in found), tuple(n for _, _, n in found), racks_row
    )
