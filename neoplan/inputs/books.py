"""Named contract books (``data/contract_books.csv``): how neoclouds sell their capacity, one row per contract.

A scenario's ``pricing.contracts`` may name a book instead of listing its contracts (``contracts: hyperscale_offtake``);
the name is replaced by the book's rows when the scenario is read, so a saved scenario always lists its contracts.
Each row carries the public disclosure it is drawn from (``source``, ``date``, ``basis``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from ..errors import DataError
from .datafile import DATA_DIR, SourcedRow, column_error, read_numbered
from .parsing import _short

BOOKS_FILE = DATA_DIR / "contract_books.csv"
ContractKind = Literal["take_or_pay", "reserved", "on_demand", "spot"]
Counterparty = Literal["investment_grade", "sub_investment_grade"]
COMMITTED_KINDS: tuple[str, ...] = ("take_or_pay", "reserved")
"""Contracts paid for whether the capacity is used or not, for their term."""
KIND_LABELS: dict[str, str] = {
    "take_or_pay": "Take-or-pay",
    "reserved": "Reserved",
    "on_demand": "On demand",
    "spot": "Spot",
}
"""How each kind of contract reads on a page."""
COUNTERPARTY_LABELS: dict[str, str] = {
    "investment_grade": "Investment grade",
    "sub_investment_grade": "Sub-investment grade",
}


class BookRow(SourcedRow):
    """One contract of a named book: the fields of a scenario's contract (``neoplan.inputs.business.Contract``)."""

    book: str = Field(min_length=1, max_length=64)
    description: str = Field(min_length=10)
    kind: ContractKind
    share: float = Field(gt=0, le=1)
    term_months: int = Field(ge=0, le=120)
    prepayment_share: float = Field(0.0, ge=0, le=1)
    counterparty: Counterparty = "sub_investment_grade"
    usd_per_gpu_hour: float | None = Field(None, gt=0, le=100)
    start_month: int = Field(0, ge=0, le=120)

    @model_validator(mode="after")
    def _a_contract(self) -> BookRow:
        if (self.kind in COMMITTED_KINDS) != (self.term_months > 0):
            problem = "must be ≥ 1 for a committed contract (take_or_pay, reserved) and 0 otherwise"
            raise column_error("term_months", problem, self.term_months)
        if self.prepayment_share and self.kind != "take_or_pay":
            raise column_error("prepayment_share", "only a take_or_pay contract is prepaid", self.prepayment_share)
        return self

    def contract(self) -> dict[str, Any]:
        """The row as a scenario's contract (a mapping of its fields)."""
        return {
            "kind": self.kind,
            "share": self.share,
            "term_months": self.term_months,
            "prepayment_share": self.prepayment_share,
            "counterparty": self.counterparty,
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
            "start_month": self.start_month,
        }


def read_books(path: Path = BOOKS_FILE) -> dict[str, tuple[BookRow, ...]]:
    """The books of ``path`` by name, their rows in file order; shares of a book summing above 1 are a DataError."""
    out: dict[str, list[BookRow]] = {}
    for line, row in read_numbered(path, BookRow):
        rows = out.setdefault(row.book, [])
        rows.append(row)
        if sum(r.share for r in rows) > 1.0 + 1e-9:
            raise DataError(path.name, f"book {row.book!r}: shares sum above 1", row=line, column="share")
    return {name: tuple(rows) for name, rows in out.items()}


@lru_cache(maxsize=1)  # keyed on nothing: the shipped, read-only data/contract_books.csv
def contract_books() -> dict[str, tuple[BookRow, ...]]:
    """The shipped books by name (cached; treat as read-only)."""
    return read_books()


def book_contracts(name: str) -> list[dict[str, Any]]:
    """The contracts of the book ``name`` as a scenario lists them; ValueError naming the books if unknown."""
    books = contract_books()
    if name not in books:
        raise ValueError(f"must be a list of contracts or one of the books {', '.join(books)}, got {_short(name, 40)}")
    return [row.contract() for row in books[name]]


def book_name(contracts: list[dict[str, Any]]) -> str | None:
    """The name of the shipped book whose contracts are ``contracts`` (as :func:`book_contracts` lists them), or None
    when they are the user's own."""
    return next((name for name in contract_books() if book_contracts(name) == contracts), None)
