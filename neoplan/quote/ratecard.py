"""Rate cards: a broker's rental prices ($/GPU-hour, $/month) are no hardware quote, and are reported as such.

A rate card lists GPUs (``H100 SXM 80GB``, ``8x B200 node``) with a rental price per GPU-hour, per hour of a node, or
per month, often a term (on demand, 1 month, 12 months) and a minimum commitment; it has no quantity column. Such a
table is recognised (:func:`read_rate_card`), its rates read one per row with the GPU they name, and each is set
beside the rental prices of ``data/rental_contracts.csv`` for that platform and term (the reference the model prices
rental revenue by), never reviewed against the hardware price book.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..inputs.pricebook import default_platforms, rental_contracts
from .accelerators import unsupported
from .cells import HEADER_SCAN_ROWS, MAX_COLUMNS, Cell, _text, currency_of, parse_money
from .units import gpu_count, gpu_model
from .vocab import fold

HOURS_PER_MONTH = 730.0
"""Hours in an average month (8,760 / 12), the convention of monthly GPU rental prices."""
_HOURLY = re.compile(
    r"/\s*(?:gpu|card|chip)?\s*[- ]?\s*(?:hr|hour|h|std)\b|per\s+(?:gpu[- ]?)?hour|hourly|gpu[- ]?h(?:ou)?r|"
    r"(?:pro|par|por)\s+(?:gpu[- ]?)?(?:stunde|heure|hora)|stundensatz|時間|小时|시간",
    re.I,
)
_MONTHLY = re.compile(
    r"/\s*(?:mo|month|monat|mois|mes)\b|per\s+(?:gpu[- ]?)?month|monthly|\bmonth(?:ly)?\s+(?:price|rate|cost)|"
    r"(?:pro|par|por)\s+(?:gpu[- ]?)?(?:monat|mois|mes)|monatlich|mensuel|mensual|月額|月租|월",
    re.I,
)
_PER_NODE = re.compile(r"node|server|system|instance|cluster|8\s*x|per\s+8|/\s*8", re.I)
_TERM_HEADER = re.compile(r"term|commit|duration|contract|period|reservation|laufzeit|期間|期限|기간", re.I)
_TERM_WORDS = re.compile(
    r"on[- ]?demand|spot|interruptible|preemptible|reserved|\b\d{1,2}\s*-?\s*(?:months?|mo|years?|yrs?)\b", re.I
)


@dataclass(frozen=True)
class Rate:
    """One rental price of a rate card [the card's currency], the GPU it is for, and the model's reference."""

    sheet: str
    row: int
    label: str
    gpu_model: str | None
    term: str
    price: float
    unit: str
    """``GPU-hour``, ``node-hour`` or ``month`` (per node when the column says node or server, else per GPU)."""
    per_gpu_hour: float | None
    """The price per GPU-hour (monthly prices at 730 hours; node prices over its GPUs)."""
    reference: str = ""
    """The model's rental price for that platform and term, with its range (``data/rental_contracts.csv``)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record."""
        return {
            "sheet": self.sheet,
            "row": self.row,
            "label": self.label,
            "gpu_model": self.gpu_model,
            "term": self.term,
            "price": self.price,
            "unit": self.unit,
            "per_gpu_hour": self.per_gpu_hour,
            "reference": self.reference,
        }


@dataclass(frozen=True)
class RateCard:
    """A rate card's rates and currency."""

    rates: tuple[Rate, ...]
    currency: str


def _per_node(model: str | None) -> int:
    """GPUs in one node (an HGX server, an NVL72 rack, an accelerator server) of a GPU model id; 8 when unknown."""
    platform = default_platforms().get(model or "")
    other = unsupported(model)
    return platform.gpus_per_node if platform is not None else other.per_server if other is not None else 8


def _rate_columns(row: Sequence[Cell]) -> list[tuple[int, str]]:
    """(column, ``hour`` / ``month``) of the header cells that name a rental price."""
    out = []
    for col, cell in enumerate(row[:MAX_COLUMNS]):
        text = _text(cell)
        if not text or len(text) > 60:
            continue
        if _HOURLY.search(text):
            out.append((col, "hour"))
        elif _MONTHLY.search(text):
            out.append((col, "month"))
    return out


def _has_quantity(row: Sequence[Cell]) -> bool:
    return any(re.search(r"\b(?:qty|quantity|menge|数量|수량)\b", fold(_text(c))) for c in row)


def _term(texts: Sequence[str], term_col: int | None) -> str:
    if term_col is not None and term_col < len(texts) and texts[term_col]:
        return texts[term_col][:40]
    m = next((m for t in texts if (m := _TERM_WORDS.search(t))), None)
    return m.group(0) if m else ""


def _reference(model: str | None, term: str) -> str:
    """The model's rental price nearest the term (on demand, spot, 1- or 3-year reserved) with its range."""
    if model is None:
        return ""
    low = fold(term)
    months = re.search(r"(\d{1,2})\s*-?\s*(month|mo|year|yr)", low)
    span = (int(months.group(1)) * (12 if months.group(2).startswith(("y",)) else 1)) if months else 0
    contract = "spot" if re.search(r"spot|interrupt|preempt", low) else (
        "on_demand" if span < 6 else "reserved_1y" if span < 24 else "reserved_3y"
    )  # fmt: skip
    row = rental_contracts().get((model, contract))
    if row is None:
        return ""
    return (
        f"the model's {contract.replace('_', ' ')} {model}: ${row.usd_per_gpu_hour:.2f}/GPU-h "
        f"(${row.low_usd_per_gpu_hour:.2f}–${row.high_usd_per_gpu_hour:.2f}, {row.date})"
    )


def _rates(sheet: str, rows: Sequence[Sequence[Cell]], header: int) -> list[Rate]:
    head = [_text(c) for c in rows[header]]
    columns = _rate_columns(rows[header])
    term_col = next((c for c, t in enumerate(head) if t and _TERM_HEADER.search(t)), None)
    out = []
    for i in range(header + 1, min(len(rows), header + 2_000)):
        texts = [_text(c) for c in rows[i]]
        skip = {col for col, _ in columns} | {term_col}
        label = " ".join(t for c, t in enumerate(texts) if t and c not in skip)[:120]
        model = gpu_model(" ".join(texts))
        for col, per in columns:
            price = parse_money(rows[i][col]) if col < len(rows[i]) else None
            if price is None or price <= 0 or not label:
                continue
            node = bool(_PER_NODE.search(head[col])) and model is not None
            gpus = _per_node(model) if node else 1
            hours = 1.0 if per == "hour" else HOURS_PER_MONTH
            unit = f"{'node' if node else 'GPU'}-hour" if per == "hour" else f"{'node' if node else 'GPU'}-month"
            term = _term(texts, term_col)
            per_gpu = price / hours / ((gpu_count(label) or gpus) if node else 1)
            out.append(Rate(sheet, i + 1, label, model, term, price, unit, per_gpu, _reference(model, term)))
    return out


def read_rate_card(sheets: Sequence[tuple[str, Sequence[Sequence[Cell]]]]) -> RateCard | None:
    """The rate card among ``sheets`` (a header naming a rental price per hour or month and no quantity; rows that
    name a GPU and a price under it), else None."""
    rates: list[Rate] = []
    currency = ""
    for sheet, rows in sheets:
        for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
            if not _rate_columns(row) or _has_quantity(row):
                continue
            found = _rates(sheet, rows, i)
            if any(r.gpu_model for r in found):
                rates += found
                head = " ".join(_text(c) for c in row)
                cells = [cell for r in rows[i + 1 : i + 50] for cell in r if isinstance(cell, str)]
                currency = currency or currency_of(head) or next((c for cell in cells if (c := currency_of(cell))), "")
                break
    return RateCard(tuple(rates), currency or "USD") if rates else None
