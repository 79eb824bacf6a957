"""Cost lines: a count times a unit price from the price book."""

from __future__ import annotations

from dataclasses import dataclass

from ..inputs.categories import CAPEX_CATEGORIES as CAPEX_CATEGORIES  # data/categories.csv: the one list
from ..inputs.pricebook import PriceBook


@dataclass(frozen=True, init=False)
class CostLine:
    """``quantity`` × ``unit_price_usd``, tagged with its capex category and price key."""

    category: str
    item: str
    key: str
    quantity: float
    unit: str
    unit_price_usd: float
    basis: str

    def __init__(
        self, category: str, item: str, key: str, quantity: float, unit: str, unit_price_usd: float, basis: str
    ) -> None:
        # The fields, set in one step: the __init__ a frozen dataclass generates sets them one by one through
        # object.__setattr__, ~4× slower, and every evaluate builds ~80 lines.
        self.__dict__.update(
            category=category,
            item=item,
            key=key,
            quantity=quantity,
            unit=unit,
            unit_price_usd=unit_price_usd,
            basis=basis,
        )

    @property
    def total_usd(self) -> float:
        """Line total [USD]."""
        return self.quantity * self.unit_price_usd

    def as_record(self) -> dict[str, object]:
        """Plain dict for tables and exports."""
        return {
            "category": self.category,
            "item": self.item,
            "key": self.key,
            "quantity": self.quantity,
            "unit": self.unit,
            "unit_price_usd": self.unit_price_usd,
            "total_usd": self.total_usd,
            "basis": self.basis,
        }


def priced(book: PriceBook, key: str, quantity: float, category: str, item: str | None = None) -> CostLine:
    """A cost line of ``quantity`` units of price-book item ``key``: the book's price and basis, or the user's
    override (:meth:`PriceBook.price`) with basis ``override``."""
    row = book.row(key)
    if key in book.overrides:
        return CostLine(category, item or row.description, key, quantity, row.unit, book.price(key), "override")
    return CostLine(category, item or row.description, key, quantity, row.unit, row.price_usd, row.basis)


def total_usd(lines: list[CostLine]) -> float:
    """Sum of line totals [USD]."""
    return float(sum(line.total_usd for line in lines))


def total_by_basis(lines: list[CostLine]) -> dict[str, float]:
    """Line totals by price basis (quoted, estimate, fitted, override) [USD]: how much of a cost rests on what."""
    out: dict[str, float] = {}
    for line in lines:
        out[line.basis] = out.get(line.basis, 0.0) + line.total_usd
    return out


def share_by_basis(lines: list[CostLine]) -> dict[str, float]:
    """Share of the lines' total by price basis [fraction], largest first."""
    totals = total_by_basis(lines)
    grand = sum(totals.values())
    if grand <= 0:
        return {}
    return {k: v / grand for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}
