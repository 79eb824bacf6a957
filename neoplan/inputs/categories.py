"""Cost categories and their names: one table, ``data/categories.csv``, read by every module that names one.

Columns: ``kind`` (``capex``, ``opex``, or ``quote`` for the categories only a quote has), ``key`` (the name in
the model's tables, ``Result.to_dict()`` and the quote review), ``label`` (the display name in statements, exports,
metrics and charts), ``short_label`` (a shorter name where the context already says "network": ``Back-end``) and
``description``. Rows are in display order; a quote's categories are the capex ones, then the quote-only ones.

Presentation and vocabulary only: no number lives here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from ..errors import DataError
from .datafile import DATA_DIR, DataRow, read_rows

CATEGORIES_FILE = DATA_DIR / "categories.csv"
Kind = Literal["capex", "opex", "quote"]


class Category(DataRow):
    """One row of ``data/categories.csv`` (see the module docstring)."""

    kind: Kind
    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: str
    short_label: str | None = None
    description: str

    @field_validator("description")
    @classmethod
    def _sentence(cls, text: str) -> str:
        if len(text) < 10:
            raise ValueError("must say what the category holds (10 characters or more)")
        return text


def read_categories(path: Path = CATEGORIES_FILE) -> tuple[Category, ...]:
    """The rows of ``data/categories.csv`` (or ``path``); a key and a label appear once per kind."""
    rows = read_rows(path, Category)
    seen: set[tuple[str, str, str]] = set()
    for row in rows:
        for column, value in (("key", row.key), ("label", row.label)):
            if (row.kind, column, value) in seen:
                raise DataError(path.name, f"{row.kind} {column} {value!r} appears twice")
            seen.add((row.kind, column, value))
    return rows


CATEGORIES = read_categories()
"""Every category, in file order."""


def keys(kind: Kind) -> tuple[str, ...]:
    """Keys of the categories of ``kind``, in display order."""
    return tuple(c.key for c in CATEGORIES if c.kind == kind)


def labels(kind: Kind) -> dict[str, str]:
    """Display name by key of the categories of ``kind``, in display order."""
    return {c.key: c.label for c in CATEGORIES if c.kind == kind}


def short_labels(kind: Kind) -> dict[str, str]:
    """Short name by key of the categories of ``kind`` that have one."""
    return {c.key: c.short_label for c in CATEGORIES if c.kind == kind and c.short_label}


CAPEX_CATEGORIES = keys("capex")
"""Capex categories of every cost line, in display order."""
CAPEX_LABELS = labels("capex")
"""Display names of the capex categories."""
OPEX_LABELS = labels("opex")
"""Display names of the opex categories (keys as :data:`neoplan.economics.opex.OPEX_CATEGORIES`, same order)."""
QUOTE_CATEGORIES = CAPEX_CATEGORIES + keys("quote")
"""Categories of a quote's lines: the capex ones, then software and discounts (only a quote has them)."""
QUOTE_LABELS = {**CAPEX_LABELS, **labels("quote")}
"""Display names of the quote categories."""
