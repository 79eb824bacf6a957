"""What a review found: :class:`QuoteReview`, its figures (totals, savings, the size in racks) and its JSON contract.

The stages that make one are in :mod:`.review`; a review is read-only once made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..inputs.scenario import Scenario
from .cells import _finite
from .codes import DESIGN_CATEGORIES, DESIGN_FINDINGS
from .compare import ComparisonRow
from .corrections import Correction
from .findings import Finding
from .guard import Withheld, padding_saving_usd
from .lines import QuoteLine
from .plausibility import Breach
from .rackscale import rack_platform
from .ratecard import Rate
from .size import Conflict, Reading


@dataclass(frozen=True)
class QuoteReview:
    """A reviewed quote: identified lines, findings, and the comparison with the recommended design."""

    name: str
    servers_quoted: int
    price_tolerance: float
    lines: tuple[QuoteLine, ...]
    findings: tuple[Finding, ...]
    comparison: tuple[ComparisonRow, ...]
    servers: int | None
    gpus: int | None
    gpu_model: str | None
    recommended: Scenario | None
    skipped: Mapping[str, int]
    warnings: tuple[str, ...]
    sheets: tuple[str, ...]
    currency: str = "USD"
    usd_per_unit: float = 1.0
    parts: tuple[QuoteLine, ...] = field(default=(), repr=False)
    """Lines the findings read: classified quote lines and the components read from server lines."""
    per_server: Mapping[str, Any] = field(default_factory=dict)
    servers_inferred: bool = True
    """True when the server count came from the quote, False when the user gave it."""
    option: str | None = None
    """The alternative reviewed (``Option A``), None when the quote offers one configuration."""
    options: tuple[str, ...] = ()
    """Every alternative the quote offers, in file order (reviewed one at a time: ``option=2``)."""
    withheld: tuple[Withheld, ...] = ()
    """Findings that would break an invariant (save more than their lines cost, rest on a discount …), with why."""
    conflicts: tuple[Conflict, ...] = ()
    """Readings of the cluster's size that disagree, the one taken and the sentence that says so."""
    readings: tuple[Reading, ...] = ()
    size_from: str = "lines"
    """The reading the size was taken from (``lines``, ``stated``, ``trays``, ``cpus``, ``nics``)."""
    ignored: tuple[QuoteLine, ...] = ()
    """Lines the user said are no lines (left out of the total, the size and the findings)."""
    currency_from: str = ""
    """Where the currency was read: the price cells, headers, totals, a sentence of the quote, or ``you``."""
    rates: Mapping[str, float] = field(default_factory=dict)
    """USD per unit of every currency the lines use [USD] (``{"USD": 1.0, "SAR": 0.2667}``)."""
    rate_sources: Mapping[str, str] = field(default_factory=dict)
    """Where each rate comes from: ``you (--usd-per-unit)``, the quote's row that states it, ``USD``."""
    book: str = ""
    """The price book the lines are checked against (``2024-10``, ``2026-11``)."""
    book_from: str = ""
    """Why that book: the quote's date, the platform's first book, the default, or ``you (--book)``."""
    implausible: tuple[Breach, ...] = ()
    """Figures of the reading outside their bands (:mod:`.plausibility`): no headline, saving or comparison then."""
    rate_card: tuple[Rate, ...] = ()
    """The rental rates of a rate card (the file is no hardware quote: no lines, no findings)."""
    refused: tuple[tuple[Correction, str], ...] = ()
    """The user's corrections refused, with why (one that would create a negative saving is not applied)."""

    @property
    def racks(self) -> int | None:
        """NVL72 racks of a rack-scale quote (its GPUs ÷ 72); None for HGX servers."""
        platform = rack_platform(self.gpu_model)
        return round(self.gpus / platform.gpus_per_node) if platform is not None and self.gpus else None

    @property
    def size_text(self) -> str:
        """``256 GPUs in 32 servers``, ``288 GPUs in 4 NVL72 racks (72 compute trays)``, ``size unknown``."""
        if not (self.gpus and self.servers):
            return "size unknown"
        if self.racks is not None:
            return f"{self.gpus:,} GPUs in {self.racks:,} NVL72 racks ({self.servers:,} compute trays)"
        return f"{self.gpus:,} GPUs in {self.servers:,} servers"

    @property
    def kind(self) -> str:
        """``rate_card`` for a broker's rental rates, ``quote`` for a hardware quote."""
        return "rate_card" if self.rate_card else "quote"

    @property
    def headline_withheld(self) -> str | None:
        """Why the headline (quote total, design, savings) is not shown: the guard's first sentence; None if shown."""
        return self.implausible[0].sentence if self.implausible else None

    @property
    def classified(self) -> list[QuoteLine]:
        """Lines identified surely enough to be used."""
        return [ln for ln in self.lines if ln.status == "classified"]

    @property
    def unsure(self) -> list[QuoteLine]:
        """Lines whose identity is below the confidence threshold (listed, never priced into a finding)."""
        return [ln for ln in self.lines if ln.status == "unsure"]

    @property
    def unmatched(self) -> list[QuoteLine]:
        """Lines nothing identified (listed, never dropped)."""
        return [ln for ln in self.lines if ln.status == "unmatched"]

    @property
    def could_not_price(self) -> list[QuoteLine]:
        """Lines whose price is more than 3× off the book's: check the classification."""
        return [ln for ln in self.lines if ln.price_check == "could_not_price"]

    @property
    def quote_total_usd(self) -> float:
        """Everything the quote charges, for the order [USD]."""
        return sum(ln.total_usd for ln in self.lines)

    @property
    def compared_quote_usd(self) -> float:
        """The part of the quote compared with the design: components the model prices, plus discounts [USD]."""
        return sum(r.quote_usd for r in self.comparison if r.in_scope)

    @property
    def recommended_total_usd(self) -> float | None:
        """The recommended design over the same components [USD]; None without a GPU count or when the reading
        breaks a band (:attr:`implausible`)."""
        if self.recommended is None or self.implausible:
            return None
        return sum(r.recommended_usd for r in self.comparison if r.in_scope)

    @property
    def saving_usd(self) -> float | None:
        """Compared quote minus recommended design [USD]; None without a GPU count."""
        rec = self.recommended_total_usd
        return None if rec is None else self.compared_quote_usd - rec

    @property
    def findings_saving_usd(self) -> float:
        """Sum of the findings' savings [USD] (findings may overlap)."""
        return sum(f.saving_usd for f in self.findings)

    @property
    def padding_saving_usd(self) -> float:
        """What the padding findings save together [USD]: design findings (fabric) left out, overlaps capped at what
        the quote charges for the lines they cite."""
        return padding_saving_usd(self.findings, self.lines, DESIGN_FINDINGS)

    @property
    def design_change_usd(self) -> float | None:
        """What the recommended design changes in fabric and storage [USD]: quote minus design over those
        categories (positive = the design costs less); None without a design."""
        if self.recommended is None or self.implausible:
            return None
        return sum(r.saving_usd for r in self.comparison if r.in_scope and r.category in DESIGN_CATEGORIES)

    def findings_of(self, line_id: int) -> list[str]:
        """Codes of the findings that rest on line ``line_id``."""
        return [f.code for f in self.findings if line_id in f.lines]

    def by_category(self) -> dict[str, tuple[float, float]]:
        """In-scope (quote, recommended) cost by category [USD]."""
        out: dict[str, tuple[float, float]] = {}
        for r in self.comparison:
            if r.in_scope:
                q, rec = out.get(r.category, (0.0, 0.0))
                out[r.category] = (q + r.quote_usd, rec + r.recommended_usd)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``python -m neoplan quote FILE --json`` (USD, counts; undefined = null).

        ``lines`` holds every line with its ``status`` (classified / unsure / unmatched), ``confidence`` and
        ``price_check``; ``unsure``, ``unmatched`` and ``could_not_price`` list those lines again.
        """
        return {
            "name": self.name,
            "currency": self.currency,
            "usd_per_unit": self.usd_per_unit,
            "servers_quoted": self.servers_quoted,
            "servers": self.servers,
            "gpus": self.gpus,
            "gpu_model": self.gpu_model,
            "per_server": dict(self.per_server),
            "lines": [ln.to_dict() for ln in self.lines],
            "classified": len(self.classified),
            "unsure": [ln.to_dict() for ln in self.unsure],
            "unmatched": [ln.to_dict() for ln in self.unmatched],
            "could_not_price": [ln.to_dict() for ln in self.could_not_price],
            "findings": [f.to_dict() for f in self.findings],
            "quote_total_usd": None if self.implausible else _finite(self.quote_total_usd),
            "compared_quote_usd": _finite(self.compared_quote_usd),
            "recommended_total_usd": _finite(self.recommended_total_usd),
            "saving_usd": _finite(self.saving_usd),
            "findings_saving_usd": None if self.implausible else _finite(self.findings_saving_usd),
            "comparison": [r.to_dict() for r in self.comparison],
            "price_tolerance": self.price_tolerance,
            "skipped_rows": dict(self.skipped),
            "warnings": list(self.warnings),
            "option": self.option,
            "options": list(self.options),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "withheld": [w.to_dict() for w in self.withheld],
            "size_from": self.size_from,
            "size_readings": [r.to_dict() for r in self.readings],
            "padding_saving_usd": None if self.implausible else _finite(self.padding_saving_usd),
            "design_change_usd": _finite(self.design_change_usd),
            "ignored": [ln.to_dict() for ln in self.ignored],
            "currency_from": self.currency_from,
            "rates": dict(self.rates),
            "rate_sources": dict(self.rate_sources),
            "book": self.book,
            "racks": self.racks,
            "kind": self.kind,
            "rate_card": [r.to_dict() for r in self.rate_card],
            "refused_corrections": [{**c.to_dict(), "refused_because": why} for c, why in self.refused],
            "implausible": [b.to_dict() for b in self.implausible],
            "headline_withheld": self.headline_withheld,
            "book_from": self.book_from,
        }
